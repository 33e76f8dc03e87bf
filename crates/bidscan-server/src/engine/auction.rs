//! An auction judged in the [`Engine`]: the one function behind `POST /validate/auction`.
//!
//! The route reads the multipart body into the request's bytes and each bidder's [`Reply`]
//! (`routes::auction_parts`, which may have to inflate a part, so it runs before this synchronous stretch);
//! [`Engine::auction`] then checks out this thread's pooled reader and markup inspector once, decodes the request
//! once (`bidscan_openrtb::Auction::decode_request`) and adds every bidder with them
//! (`Auction::add`: each body decoded in place where the route read it, inspected and judged as `/validate` judges a
//! response), and renders its answer (`render::write_auction`, what `Auction::answer` serializes to). The state is checked back in before the call returns.
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
//! judged auction rather than read back from the answer, for the capture (`crate::capture`): a JSON and a
//! protobuf answer give the same ones, but for a bidder the protobuf answer could not carry.

use std::time::Instant;

use bidscan_json::Stats;
use bidscan_openrtb::rules::Policy;
use bidscan_openrtb::{Auction, BidderStatus, EncodeError, ProtobufLimits, Reply, Status};

use crate::engine::decode::{Answer, Encoding, Engine, Inspect, Options, View, render_failed};
use crate::engine::render;
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
        self.auction_encoded(request, Encoding::Json, replies, options)
    }

    /// [`auction`](Self::auction) of a request in `encoding`: JSON, or a protobuf `BidRequest` (IAB Tech Lab's
    /// OpenRTB 2.6 schema, `Auction::decode_request_protobuf`; every length bounded by the part's end). The call
    /// counts in the decode outcomes under `encoding`.
    ///
    /// # Errors
    /// As [`auction`](Self::auction); for a protobuf request, 400 `malformed_protobuf` (with the byte offset and
    /// field path) where JSON has `malformed_json`, and the same 422s.
    pub fn auction_encoded(
        &self,
        request: &mut [u8],
        encoding: Encoding,
        replies: Vec<(&str, Reply<'_>)>,
        options: &Options,
    ) -> Result<Answer, ApiError> {
        self.auction_judged(request, encoding, replies, options, None)
    }

    /// [`auction_encoded`](Self::auction_encoded), each bidder the answer turned down in whole or in part pushed
    /// on `turned` when given ([`BidderVerdict`], what a capture records): from the judged auction, not from the
    /// rendered answer, so the JSON and the protobuf answer give the same verdicts but for the bidders the
    /// protobuf answer could not carry. Nothing is made for a bidder whose answer is good, nor without `turned`.
    ///
    /// # Errors
    /// As [`auction_encoded`](Self::auction_encoded); `turned` is then left as it was.
    pub fn auction_judged(
        &self,
        request: &mut [u8],
        encoding: Encoding,
        replies: Vec<(&str, Reply<'_>)>,
        options: &Options,
        turned: Option<&mut Vec<BidderVerdict>>,
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
            for (bidder, reply) in replies {
                auction.add(
                    reader,
                    bidder,
                    reply,
                    options.mode,
                    Some(&mut *inspector),
                    policy,
                );
            }
            Ok(self.finish(&mut auction, &sizes, policy, options, turned))
        });
        let result = result.and_then(|r| r);
        self.count_encoded(&result, stats, started, encoding);
        result
    }

    /// Counts the bidders' bids, issues, markup and rejections — globally, and under each bidder's label (the part's
    /// name: `server.bidders` lists the names kept, any other is `other`) — then renders the answer. `sizes`: each
    /// bidder's body size in bytes, `None` for a status part.
    fn finish(
        &self,
        auction: &mut Auction<'_>,
        sizes: &[Option<usize>],
        policy: &Policy,
        options: &Options,
        turned: Option<&mut Vec<BidderVerdict>>,
    ) -> Result<Answer, ApiError> {
        let mut status = Status::NoBid;
        let mut issues = 0;
        let mut errors = 0;
        let imps = auction.request.imp.len();
        let table = self.metrics().bidders.table();
        for (bidder, size) in auction.bidders.iter_mut().zip(sizes) {
            self.observe(&bidder.decoded);
            self.count_verdicts(&bidder.verdicts);
            let labelled = table.get(Some(&bidder.bidder));
            match (bidder.status, size) {
                (BidderStatus::Bid, Some(size)) => labelled.observe_response("bid", *size),
                (BidderStatus::Nobid, Some(size)) => labelled.observe_response("nobid", *size),
                (BidderStatus::Invalid, Some(size)) => {
                    labelled.observe_response(invalid_outcome(bidder), *size);
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
                status = Status::Bid;
            }
            issues += bidder.decoded.issues.len();
            errors += super::decode::errors(&bidder.decoded.issues);
            if options.inspect == Inspect::None {
                // The summary's `adm` objects then hold the kind and size only, as on `/validate`.
                bidder.decoded.markup.clear();
            }
        }
        let (json, not_encodable) = if options.answer == Encoding::Protobuf {
            let answer = render::write_auction_protobuf(auction);
            for (i, _) in &answer.not_encodable {
                table
                    .get(Some(&auction.bidders[*i].bidder))
                    .observe_not_encodable();
            }
            (answer.body, answer.not_encodable)
        } else {
            let mut json = Vec::with_capacity(1024 * (1 + auction.bidders.len()));
            render::write_auction(&mut json, auction, options.view == View::Full)
                .map_err(render_failed)?;
            (json, Vec::new())
        };
        if let Some(turned) = turned {
            judge(auction, &not_encodable, turned);
        }
        Ok(Answer {
            json,
            status,
            issues,
            errors,
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

/// Pushes on `turned` each bidder of `auction` its answer turned down: `invalid`, listed in `not_encodable` (the
/// protobuf answer's bidders it could not carry, by index), or `bid`/`nobid` with a rejected bid. A status part
/// (`timeout`, `unreachable`, `error`) has no body to judge and is left out.
fn judge(
    auction: &Auction<'_>,
    not_encodable: &[(usize, EncodeError)],
    turned: &mut Vec<BidderVerdict>,
) {
    let every_imp = |code: u16| -> Vec<NonBid> {
        let imps = auction.request.imp.iter();
        imps.map(|imp| (imp.id.as_deref().map(str::to_owned), code))
            .collect()
    };
    let invalid = BidderStatus::Invalid.statuscode().unwrap_or(102);
    for (i, b) in auction.bidders.iter().enumerate() {
        if let Some((_, e)) = not_encodable.iter().find(|(at, _)| *at == i) {
            turned.push(BidderVerdict {
                bidder: b.bidder.clone(),
                status: "invalid",
                error: Some((
                    "not_encodable",
                    format!("the response cannot be answered as protobuf: {e}"),
                )),
                nonbid: every_imp(invalid),
            });
            continue;
        }
        let status = match b.status {
            BidderStatus::Invalid => "invalid",
            BidderStatus::Bid => "bid",
            BidderStatus::Nobid => "nobid",
            BidderStatus::Timeout | BidderStatus::Unreachable | BidderStatus::Error => continue,
        };
        if b.status == BidderStatus::Invalid {
            let error = (b.decoded.issues.first()).map(|i| (i.code, i.message.to_string()));
            turned.push(BidderVerdict {
                bidder: b.bidder.clone(),
                status,
                error,
                nonbid: every_imp(invalid),
            });
            continue;
        }
        if !b.verdicts.iter().any(|v| v.statuscode().is_some()) {
            continue;
        }
        turned.push(BidderVerdict {
            bidder: b.bidder.clone(),
            status,
            error: None,
            nonbid: rejected(b),
        });
    }
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
