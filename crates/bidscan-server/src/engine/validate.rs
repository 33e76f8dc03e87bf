//! Validation of a bid response against its bid request, in the [`Engine`]: the one function behind
//! `POST /validate`, `POST /validate/batch` and `bidscan validate`.
//!
//! The envelope (`{"request": …, "response": …}`) is decoded in place in the same pooled buffer as `/decode`'s
//! body (`Engine::with_input`) and judged in one call, `bidscan_openrtb::rules::Validated::decode_inspected`
//! (`decode_pair_inspected`: each bid's markup inspected as `/decode` does, then the rules), under the policy the
//! request chose (`Options::policy`: the gate's base or a profile's, see [`crate::gate`]).
//!
//! The markup is always inspected here, whatever `?inspect=` says: a malformed VAST or native markup is an
//! error that rejects its bid, so the rules must see it. `inspect=none` only trims the answer: the summary's
//! `adm` objects are then `{"kind","bytes"}`, as `/decode` answers them with `inspect=none`; the findings stay
//! in `issues` (they are the reasons of the verdicts), and `bidscan_adm_total` counts every inspected bid.

use bidscan_json::Stats;
use bidscan_openrtb::rules::{
    Policy, SeatNonBid, Validated, ValidatedIssue, ValidatedSummary, Verdicts,
};
use bidscan_openrtb::{BidResponse, Status};
use serde::Serialize;

use crate::engine::decode::{Answer, Engine, Inspect, Options, View, render_failed};
use crate::error::ApiError;

/// The 200 body of `/validate`: `/decode`'s answer with verdicts, status codes and `seatnonbid`. The request is
/// not echoed.
#[derive(Serialize)]
struct ValidateAnswer<'a> {
    status: Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    response: Option<&'a BidResponse<'a>>,
    summary: ValidatedSummary<'a>,
    issues: Vec<ValidatedIssue<'a>>,
    seatnonbid: Vec<SeatNonBid<'a>>,
    stats: Stats,
}

impl Engine {
    /// Validates the envelope made of `chunks` (`len` bytes in all) under `options.policy` (the gate's base
    /// policy when `None`) and renders the answer. Synchronous, with pooled state, counted like [`answer`](Engine::answer), plus
    /// `bidscan_bid_rejections_total{rule,statuscode}` once per rejected bid.
    ///
    /// # Errors
    /// [`ApiError`] 400 (malformed JSON; the path starts with `/request` or `/response`) or 422 (not an envelope,
    /// request not an object or without `imp`, response not a bid response, strict-mode failure).
    pub fn validate<'c>(
        &self,
        chunks: impl IntoIterator<Item = &'c [u8]>,
        len: usize,
        options: &Options,
    ) -> Result<Answer, ApiError> {
        // One load of the gate for this document, only when the request did not choose already.
        let loaded;
        let policy: &Policy = match &options.policy {
            Some(policy) => policy,
            None => {
                loaded = self.gate().load();
                loaded.base()
            }
        };
        let result = self.with_input(chunks, len, |reader, inspector, input| {
            let result =
                Validated::decode_inspected(reader, input, options.mode, inspector, policy);
            let stats = reader.stats();
            let result = result.map_err(ApiError::from).and_then(|mut validated| {
                self.observe(&validated.pair.decoded);
                self.count_verdicts(&validated.verdicts);
                if let Some(bidder) = &options.bidder {
                    self.observe_prices(bidder, &validated.pair.decoded.response, Some(policy));
                    let rejected = validated.verdicts.iter().filter_map(|v| v.statuscode());
                    bidder.observe_rejections(rejected);
                }
                if options.inspect == Inspect::None {
                    // The summary's `adm` objects then hold the kind and size only (`AdmSummary`).
                    validated.pair.decoded.markup.clear();
                }
                render(&validated, stats, options)
            });
            (result, stats)
        });
        self.count_bidder(options, &result, len);
        result
    }

    /// Counts `bidscan_bid_rejections_total{rule,statuscode}` once per rejected bid of `verdicts`.
    pub(crate) fn count_verdicts(&self, verdicts: &Verdicts) {
        let rejections = &self.metrics().bid_rejections;
        for rule in verdicts.iter().filter_map(|v| v.rule) {
            let code = rule.statuscode().to_string();
            rejections.with_label_values(&[rule.name(), &code]).inc();
        }
    }
}

fn render(validated: &Validated<'_>, stats: Stats, options: &Options) -> Result<Answer, ApiError> {
    let decoded = &validated.pair.decoded;
    let answer = ValidateAnswer {
        status: decoded.status,
        response: (options.view == View::Full).then_some(&decoded.response),
        summary: validated.summary(),
        issues: validated.issues(),
        seatnonbid: validated.seatnonbid(),
        stats,
    };
    // The full view echoes the response (under the envelope's size) and the rejected bids once more.
    let echoed = if answer.response.is_some() {
        stats.bytes
    } else {
        0
    };
    let mut json = Vec::with_capacity(echoed + 1024);
    serde_json::to_writer(&mut json, &answer).map_err(render_failed)?;
    Ok(Answer {
        json,
        status: decoded.status,
        issues: decoded.issues.len(),
        errors: super::decode::errors(&decoded.issues),
    })
}
