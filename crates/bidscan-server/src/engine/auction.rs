//! An auction judged in the [`Engine`]: the one function behind `POST /validate/auction`.
//!
//! The route reads the multipart body into the request's bytes and each bidder's [`Reply`]
//! (`routes::auction_parts`, which may have to inflate a part, so it runs before this synchronous stretch);
//! [`Engine::auction`] then checks out this thread's pooled reader and markup inspector once, decodes the request
//! once (`bidscan_openrtb::Auction::decode_request`) and adds every bidder with them
//! (`Auction::add`: each body decoded in place where the route read it, inspected and judged as `/validate` judges a
//! response), writing each bidder's part of the answer as soon as it is judged (`render::AuctionWriter`, what
//! `Auction::answer` serializes to, or `render::ProtobufWriter`) into a buffer whose memory the caller holds as it
//! grows (`render::Growing`; the server's `server.max_inflight_bytes`), and dropping the bidder's model. The state
//! is checked back in before the call returns.
//!
//! The request part and each bidder's part are JSON or protobuf, by their own `Content-Type`
//! (`routes::auction_parts`): a protobuf request is decoded by `Auction::decode_request_protobuf`, a protobuf body
//! reaches `Auction::add` as `Reply::Protobuf`. The call counts once in `bidscan_decode_outcomes_total` under
//! its request part's `encoding`; each bidder counts in `bidscan_bidder_outcomes_total`, which has no `encoding`
//! label (as on `/decode`).
//!
//! As on `/validate`, the markup is always inspected; `inspect=none` only trims the summaries' `adm` objects.
//!
//! [`Engine::auction_judged`] also gives each bidder the answer turned down ([`BidderVerdict`]), taken from the
//! judged bidder as it is written rather than read back from the answer, for the capture (`crate::capture`): a
//! JSON and a protobuf answer give the same ones, but for a bidder the protobuf answer could not carry.

use std::time::Instant;

use bidscan_json::Stats;
use bidscan_openrtb::rules::Policy;
use bidscan_openrtb::{Auction, BidderStatus, EncodeError, ProtobufLimits, Reply, Status};

use crate::engine::decode::{Answer, Encoding, Engine, Inspect, Options, View, render_failed};
use crate::engine::render::{AuctionWriter, Growing, ProtobufWriter, Refused, Unwritten};
use crate::error::ApiError;

impl Engine {
    /// Judges the auction of `request` (the bid request's bytes, decoded in place) and `replies` (each bidder's
    /// name and [`Reply`], in the order sent) under `options.policy` (the gate's base policy when `None`) in
    /// `options.mode`, and renders `{"request": {id, imps}, "bidders": […], "seatnonbid": […]}` (each bidder's
    /// canonical `response` only with `View::Full`); with `options.answer` protobuf, the multipart answer of
    /// `render::write_auction_protobuf` instead. Synchronous, with pooled state. Counts each bidder's bids,
    /// issues and markup as `/validate` counts one response's, `bidscan_bid_rejections_total` once per rejected
    /// bid, and the call once in the decode outcomes (`bid` when a bidder bid, else `nobid`), duration and
    /// document bytes (the request's and every body's).
    ///
    /// Never fails for a bidder: a bad body makes its bidder `invalid`.
    ///
    /// # Errors
    /// The request's [`ApiError`], paths relative to the request part: 400 `malformed_json`, 422
    /// `not_a_bid_request`, `request_without_imp`.
    pub fn auction(
        &self,
        request: &mut [u8],
        replies: Vec<(&str, Reply<'_>)>,
        options: &Options,
    ) -> Result<Answer, ApiError> {
        self.auction_encoded(request, Encoding::Json, replies, options, &mut |_| true)
    }

    /// [`auction`](Self::auction) of a request in `encoding`: JSON, or a protobuf `BidRequest` (IAB Tech Lab's
    /// OpenRTB 2.6 schema, `Auction::decode_request_protobuf`; every length bounded by the part's end), its answer
    /// held by `hold` as it grows. The call counts in the decode outcomes under `encoding`.
    ///
    /// Each bidder is judged, counted and written to the answer before the next is decoded, and its model (the
    /// typed response, its issues, markup and verdicts) dropped once written, so the call holds one bidder's model
    /// at a time beside its answer. `hold` is asked before the answer's buffer grows, with everything the answer
    /// occupies then (see `render::Growing`: the buffer's capacity, the buffer it moves from, a bidder's answer
    /// being appended); the answer's memory is what `hold` last agreed to.
    ///
    /// # Errors
    /// As [`auction`](Self::auction); for a protobuf request, 400 `malformed_protobuf` (with the byte offset and
    /// field path) where JSON has `malformed_json`, and the same 422s. 503 `overloaded` (`ApiError::memory`,
    /// not counted in the decode outcomes; the bidders judged before it are counted) when `hold` refuses: the
    /// caller counts the shed.
    pub fn auction_encoded(
        &self,
        request: &mut [u8],
        encoding: Encoding,
        replies: Vec<(&str, Reply<'_>)>,
        options: &Options,
        hold: &mut dyn FnMut(usize) -> bool,
    ) -> Result<Answer, ApiError> {
        self.auction_judged(request, encoding, replies, options, hold, None)
    }

    /// [`auction_encoded`](Self::auction_encoded), each bidder the answer turned down in whole or in part pushed
    /// on `turned` when given ([`BidderVerdict`], what a capture records): from the judged bidder as it is written,
    /// not from the rendered answer, so the JSON and the protobuf answer give the same verdicts but for the bidders
    /// the protobuf answer could not carry. Nothing is made for a bidder whose answer is good, nor without
    /// `turned`.
    ///
    /// # Errors
    /// As [`auction_encoded`](Self::auction_encoded); `turned` then holds the bidders judged before the error.
    pub fn auction_judged(
        &self,
        request: &mut [u8],
        encoding: Encoding,
        replies: Vec<(&str, Reply<'_>)>,
        options: &Options,
        hold: &mut dyn FnMut(usize) -> bool,
        mut turned: Option<&mut Vec<BidderVerdict>>,
    ) -> Result<Answer, ApiError> {
        let started = Instant::now();
        let loaded;
        let policy: &Policy = match &options.policy {
            Some(policy) => policy,
            None => {
                loaded = self.gate().load();
                loaded.base()
            }
        };
        let mut bytes = request.len();
        // Each bidder's body size, for its `bidscan_bidder_response_bytes` (read before the bodies are decoded).
        let sizes: Vec<Option<usize>> = replies
            .iter()
            .map(|(_, reply)| match reply {
                Reply::Body(body) => Some(body.len()),
                Reply::Protobuf { body, .. } => Some(body.len()),
                _ => None,
            })
            .collect();
        bytes += sizes.iter().flatten().sum::<usize>();
        let stats = Stats {
            bytes,
            ..Stats::default()
        };
        let result = self.with_state(|reader, inspector| {
            let mut auction = match encoding {
                Encoding::Json => {
                    Auction::decode_request(reader, request).map_err(ApiError::from)?
                }
                Encoding::Protobuf => {
                    Auction::decode_request_protobuf(request, ProtobufLimits::default())
                        .map_err(ApiError::from)?
                }
            };
            let mut answer = Answering::begin(&auction, options, hold)?;
            for ((bidder, reply), size) in replies.into_iter().zip(&sizes) {
                auction.add(
                    reader,
                    bidder,
                    reply,
                    options.mode,
                    Some(&mut *inspector),
                    policy,
                );
                self.tally(&mut auction, *size, policy, options, &mut answer);
                let unencodable = answer.bidder(&auction)?;
                if let Some(done) = auction.bidders.last() {
                    if unencodable.is_some() {
                        let table = self.metrics().bidders.table();
                        table.get(Some(&done.bidder)).observe_not_encodable();
                    }
                    if let Some(turned) = turned.as_deref_mut() {
                        judge(&auction, done, unencodable.as_ref(), turned);
                    }
                }
                if let Some(done) = auction.bidders.last_mut() {
                    drop_model(done);
                }
            }
            answer.end()
        });
        let result = match result {
            Err(Stop::Refused) => return Err(ApiError::memory(0)),
            Err(Stop::Error(e)) => Err(e),
            Ok(answer) => Ok(answer),
        };
        self.count_encoded(&result, stats, started, encoding);
        result
    }

    /// Counts the latest bidder's bids, issues, markup and rejections — globally, and under its label (the part's
    /// name: `server.bidders` lists the names kept, any other is `other`) — into the metrics and `answer`'s
    /// totals. `size`: its body size in bytes, `None` for a status part.
    fn tally(
        &self,
        auction: &mut Auction<'_>,
        size: Option<usize>,
        policy: &Policy,
        options: &Options,
        answer: &mut Answering<'_>,
    ) {
        let imps = auction.request.imp.len();
        let Some(bidder) = auction.bidders.last_mut() else {
            return;
        };
        let table = self.metrics().bidders.table();
        self.observe(&bidder.decoded);
        self.count_verdicts(&bidder.verdicts);
        let labelled = table.get(Some(&bidder.bidder));
        match (bidder.status, size) {
            (BidderStatus::Bid, Some(size)) => labelled.observe_response("bid", size),
            (BidderStatus::Nobid, Some(size)) => labelled.observe_response("nobid", size),
            (BidderStatus::Invalid, Some(size)) => {
                labelled.observe_response(invalid_outcome(bidder), size);
            }
            // No usable body: a status part, or one the route could not read; its non-bids say why.
            _ => {}
        }
        labelled.observe_rejections(bidder.verdicts.iter().filter_map(|v| v.statuscode()));
        if let Some(code) = bidder.status.statuscode() {
            labelled.observe_rejections(std::iter::repeat_n(code, imps));
        }
        self.observe_prices(labelled, &bidder.decoded.response, Some(policy));
        if bidder.status == BidderStatus::Bid {
            answer.status = Status::Bid;
        }
        answer.issues += bidder.decoded.issues.len();
        answer.errors += super::decode::errors(&bidder.decoded.issues);
        if options.inspect == Inspect::None {
            // The summary's `adm` objects then hold the kind and size only, as on `/validate`.
            bidder.decoded.markup.clear();
        }
    }
}

/// Why an auction's work stopped.
enum Stop {
    /// The answer's hold refused its memory.
    Refused,
    /// The request's error, or a rendering failure.
    Error(ApiError),
}

impl From<ApiError> for Stop {
    fn from(e: ApiError) -> Stop {
        Stop::Error(e)
    }
}

impl From<Refused> for Stop {
    fn from(_: Refused) -> Stop {
        Stop::Refused
    }
}

impl From<Unwritten> for Stop {
    fn from(e: Unwritten) -> Stop {
        match e {
            Unwritten::Refused => Stop::Refused,
            Unwritten::Json(e) => Stop::Error(render_failed(e)),
        }
    }
}

/// An auction's answer being written a bidder at a time (JSON or protobuf, by `options.answer`), with the
/// totals of the bidders written so far.
struct Answering<'h> {
    out: Growing<'h>,
    writer: Writer,
    status: Status,
    issues: usize,
    errors: usize,
}

enum Writer {
    Json(AuctionWriter),
    Protobuf(ProtobufWriter),
}

impl<'h> Answering<'h> {
    /// The answer of `auction` (its request decoded, no bidder yet), its head written, held by `hold`.
    fn begin(
        auction: &Auction<'_>,
        options: &Options,
        hold: &'h mut dyn FnMut(usize) -> bool,
    ) -> Result<Answering<'h>, Stop> {
        let mut out = Growing::with_capacity(1024, hold)?;
        let writer = if options.answer == Encoding::Protobuf {
            Writer::Protobuf(ProtobufWriter::new())
        } else {
            Writer::Json(AuctionWriter::begin(
                auction,
                options.view == View::Full,
                &mut out,
            )?)
        };
        Ok(Answering {
            out,
            writer,
            status: Status::NoBid,
            issues: 0,
            errors: 0,
        })
    }

    /// Writes the latest bidder of `auction`: why the protobuf answer could not carry its response, if it could
    /// not.
    fn bidder(&mut self, auction: &Auction<'_>) -> Result<Option<EncodeError>, Stop> {
        let Some(bidder) = auction.bidders.last() else {
            return Ok(None);
        };
        Ok(match &mut self.writer {
            Writer::Json(w) => {
                w.bidder(auction, bidder, &mut self.out)?;
                None
            }
            Writer::Protobuf(w) => w.bidder(auction, bidder, &mut self.out)?,
        })
    }

    /// The whole answer.
    fn end(mut self) -> Result<Answer, Stop> {
        match self.writer {
            Writer::Json(w) => w.end(&mut self.out)?,
            Writer::Protobuf(w) => w.end(&mut self.out)?,
        }
        Ok(Answer {
            json: self.out.into_inner(),
            status: self.status,
            issues: self.issues,
            errors: self.errors,
        })
    }
}

/// One non-bid of a [`BidderVerdict`]: the imp's id (`None`: the imp has none) and the IAB seat-non-bid status code.
pub type NonBid = (Option<String>, u16);

/// One bidder an auction's answer turned down in whole or in part, as the answer gives it: `invalid` (the protobuf
/// answer's part of a response it could not carry too), or with a rejected bid. What a capture of the auction
/// records of the bidder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BidderVerdict {
    /// The bidder's name (its part's).
    pub bidder: String,
    /// Its `status` in the answer: `invalid`, `bid` or `nobid`.
    pub status: &'static str,
    /// Why an `invalid` bidder is: the code and message of its finding (`malformed_json`, `not_a_bid_response`,
    /// …), or `not_encodable` with the member's path for a response the protobuf answer could not carry.
    pub error: Option<(&'static str, String)>,
    /// Its non-bids as the answer lists them: each rejected bid's (or, `invalid`, each imp's) imp id and IAB
    /// seat-non-bid status code, seats in the order of their first rejected bid.
    pub nonbid: Vec<NonBid>,
}

/// Pushes on `turned` bidder `b` of `auction` if its answer turned it down: `invalid`, not carried by the
/// protobuf answer (`not_encodable`, why), or `bid`/`nobid` with a rejected bid. A status part (`timeout`,
/// `unreachable`, `error`) has no body to judge and is left out.
fn judge(
    auction: &Auction<'_>,
    b: &bidscan_openrtb::Bidder<'_>,
    not_encodable: Option<&EncodeError>,
    turned: &mut Vec<BidderVerdict>,
) {
    let every_imp = |code: u16| -> Vec<NonBid> {
        let imps = auction.request.imp.iter();
        imps.map(|imp| (imp.id.as_deref().map(str::to_owned), code))
            .collect()
    };
    let invalid = BidderStatus::Invalid.statuscode().unwrap_or(102);
    if let Some(e) = not_encodable {
        turned.push(BidderVerdict {
            bidder: b.bidder.clone(),
            status: "invalid",
            error: Some((
                "not_encodable",
                format!("the response cannot be answered as protobuf: {e}"),
            )),
            nonbid: every_imp(invalid),
        });
        return;
    }
    let status = match b.status {
        BidderStatus::Invalid => "invalid",
        BidderStatus::Bid => "bid",
        BidderStatus::Nobid => "nobid",
        BidderStatus::Timeout | BidderStatus::Unreachable | BidderStatus::Error => return,
    };
    if b.status == BidderStatus::Invalid {
        let error = (b.decoded.issues.first()).map(|i| (i.code, i.message.to_string()));
        turned.push(BidderVerdict {
            bidder: b.bidder.clone(),
            status,
            error,
            nonbid: every_imp(invalid),
        });
        return;
    }
    if !b.verdicts.iter().any(|v| v.statuscode().is_some()) {
        return;
    }
    turned.push(BidderVerdict {
        bidder: b.bidder.clone(),
        status,
        error: None,
        nonbid: rejected(b),
    });
}

/// The rejected bids of `b` as its answer's `seatnonbid` lists them (`render::write_auction`): seats in order of
/// their first rejected bid, a seat's bids from every `seatbid` of its name in document order.
fn rejected(b: &bidscan_openrtb::Bidder<'_>) -> Vec<NonBid> {
    let mut seats: Vec<(&str, Vec<NonBid>)> = Vec::new();
    let bids = b.decoded.response.seatbid.iter().flat_map(|seat| {
        let name = seat.seat.as_deref().unwrap_or("");
        seat.bid.iter().map(move |bid| (name, bid))
    });
    for ((name, bid), verdict) in bids.zip(b.verdicts.iter()) {
        let Some(code) = verdict.statuscode() else {
            continue;
        };
        let entry = (bid.impid.as_deref().map(str::to_owned), code);
        match seats.iter_mut().find(|(seat, _)| *seat == name) {
            Some((_, list)) => list.push(entry),
            None => seats.push((name, vec![entry])),
        }
    }
    seats.into_iter().flat_map(|(_, list)| list).collect()
}

/// Drops what a judged bidder's model holds (its response, issues, markup, verdicts) once its answer is written:
/// later bidders need only its name (`duplicate_id_across_bidders`, through the auction's own list of bid ids).
fn drop_model(bidder: &mut bidscan_openrtb::Bidder<'_>) {
    bidder.decoded.response = Default::default();
    bidder.decoded.issues = Vec::new();
    bidder.decoded.markup = Vec::new();
    bidder.statuscodes = Default::default();
    bidder.verdicts = Default::default();
}

/// The outcome label of an `invalid` bidder's body: its one finding's code where that is a decode outcome
/// (`not_a_bid_response`, `openrtb3_not_supported`, `strict`…), else `malformed`.
fn invalid_outcome(bidder: &bidscan_openrtb::Bidder<'_>) -> &'static str {
    let code = bidder.decoded.issues.first().map(|i| i.code);
    crate::metrics::registry::OUTCOMES
        .iter()
        .copied()
        .find(|o| Some(*o) == code)
        .unwrap_or("malformed")
}
