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

use std::time::Instant;

use bidscan_json::Stats;
use bidscan_openrtb::rules::Policy;
use bidscan_openrtb::{Auction, BidderStatus, ProtobufLimits, Reply, Status};

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
                answer.bidder(&auction)?;
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

    /// Writes the latest bidder of `auction`.
    fn bidder(&mut self, auction: &Auction<'_>) -> Result<(), Stop> {
        let Some(bidder) = auction.bidders.last() else {
            return Ok(());
        };
        match &mut self.writer {
            Writer::Json(w) => w.bidder(auction, bidder, &mut self.out)?,
            Writer::Protobuf(w) => w.bidder(auction, bidder, &mut self.out)?,
        }
        Ok(())
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
