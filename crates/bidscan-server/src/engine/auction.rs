//! An auction judged in the [`Engine`]: the one function behind `POST /validate/auction`.
//!
//! The route reads the multipart body into the request's bytes and each bidder's [`Reply`]
//! (`routes::auction_parts`, which may have to inflate a part, so it runs before this synchronous stretch);
//! [`Engine::auction`] then checks out this thread's pooled reader and markup inspector once, decodes the request
//! once (`bidscan_openrtb::Auction::decode_request`) and adds every bidder with them
//! (`Auction::add`: each body decoded in place where the route read it, inspected and judged as `/validate` judges a
//! response), and renders `Auction::answer`. The state is checked back in before the call returns.
//!
//! As on `/validate`, the markup is always inspected; `inspect=none` only trims the summaries' `adm` objects.

use std::time::Instant;

use bidscan_json::Stats;
use bidscan_openrtb::rules::Policy;
use bidscan_openrtb::{Auction, BidderStatus, Reply, Status};

use crate::engine::decode::{Answer, Engine, Inspect, Options, View, render_failed};
use crate::error::ApiError;

impl Engine {
    /// Judges the auction of `request` (the bid request's bytes, decoded in place) and `replies` (each bidder's
    /// name and [`Reply`], in the order sent) under `options.policy` (the gate's base policy when `None`) in
    /// `options.mode`, and renders `{"request": {id, imps}, "bidders": […], "seatnonbid": […]}` (each bidder's
    /// canonical `response` only with `View::Full`). Synchronous, with pooled state. Counts each bidder's bids,
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
        for (_, reply) in &replies {
            if let Reply::Body(body) = reply {
                bytes += body.len();
            }
        }
        let stats = Stats {
            bytes,
            ..Stats::default()
        };
        let result = self.with_state(|reader, inspector| {
            let mut auction = Auction::decode_request(reader, request).map_err(ApiError::from)?;
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
            Ok(self.finish(&mut auction, options))
        });
        let result = result.and_then(|r| r);
        self.count(&result, stats, started);
        result
    }

    /// Counts the bidders' bids, issues, markup and rejections, then renders the answer.
    fn finish(&self, auction: &mut Auction<'_>, options: &Options) -> Result<Answer, ApiError> {
        let mut status = Status::NoBid;
        let mut issues = 0;
        for bidder in &mut auction.bidders {
            self.observe(&bidder.decoded);
            self.count_verdicts(&bidder.verdicts);
            if bidder.status == BidderStatus::Bid {
                status = Status::Bid;
            }
            issues += bidder.decoded.issues.len();
            if options.inspect == Inspect::None {
                // The summary's `adm` objects then hold the kind and size only, as on `/validate`.
                bidder.decoded.markup.clear();
            }
        }
        let answer = auction.answer(options.view == View::Full);
        let mut json = Vec::with_capacity(1024 * (1 + auction.bidders.len()));
        serde_json::to_writer(&mut json, &answer).map_err(render_failed)?;
        Ok(Answer {
            json,
            status,
            issues,
        })
    }
}
