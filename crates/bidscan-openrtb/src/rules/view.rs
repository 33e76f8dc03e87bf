//! What a validation answer shows: the summary with each bid's verdict, issues with their status codes, and the
//! seat-non-bid list (openrtb `extensions/community_extensions/seat-non-bid.md`).

use std::borrow::Cow;

use serde::Serialize;

use crate::checks::issue::Issue;
use crate::model::bid::Bid;
use crate::model::lists::NoBidReason;
use crate::model::status::Status;
use crate::output::summary::{BidSummary, Summary};

use super::validated::Validated;
use super::verdict::{BidStatus, StatusCodes, Verdicts};
use crate::decode::Decoded;

/// An issue and its seat-non-bid status code: `{path, code, severity, message, statuscode}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ValidatedIssue<'i> {
    /// The issue.
    #[serde(flatten)]
    pub issue: &'i Issue,
    /// The code of the rule that found it (see [`Validated::statuscodes`]); `null` when none.
    pub statuscode: Option<u16>,
}

/// A bid's summary line with its verdict: every member of [`BidSummary`], then `status` and `statuscode`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ValidatedBid<'s> {
    /// The summary line.
    #[serde(flatten)]
    pub bid: BidSummary<'s>,
    /// `"accepted"` or `"rejected"`.
    pub status: BidStatus,
    /// The code of the first enforced rule that rejects the bid; `null` when accepted.
    pub statuscode: Option<u16>,
}

/// [`Summary`] with each bid's verdict and the counts of accepted and rejected bids.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ValidatedSummary<'s> {
    /// Bid or no-bid (of the response as sent, before any rejection).
    pub status: Status,
    /// `BidResponse.id`.
    pub id: Option<&'s str>,
    /// The response currency (`"USD"` when absent).
    pub cur: &'s str,
    /// `BidResponse.nbr`.
    pub nbr: Option<NoBidReason>,
    /// Number of seat bids.
    pub seats: usize,
    /// Number of bids.
    pub bid_count: usize,
    /// Issues of severity error (decode's and the rules').
    pub errors: usize,
    /// Issues of severity warning.
    pub warnings: usize,
    /// Bids accepted.
    pub accepted: usize,
    /// Bids rejected.
    pub rejected: usize,
    /// One entry per bid, in document order.
    pub bids: Vec<ValidatedBid<'s>>,
}

/// The rejected bids of one seat: `{seat, nonbid: [...]}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeatNonBid<'s> {
    /// `SeatBid.seat` (`""` when absent).
    pub seat: &'s str,
    /// The seat's rejected bids, in document order.
    pub nonbid: Vec<NonBid<'s>>,
}

/// One non-bid: `{impid, statuscode, ext: {prebid: {bid}}}` for a rejected bid, the shape Prebid Server gives
/// its `seatnonbid` entries (`nonbid[].ext.prebid.bid`); `{impid, statuscode}` for an imp a bidder of an auction
/// did not bid on for a reason of its own (IAB seat-non-bid codes 100–103: no answer, or no usable one).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NonBid<'s> {
    /// `Bid.impid`, or the imp's `Imp.id`.
    pub impid: Option<&'s str>,
    /// The seat-non-bid status code.
    pub statuscode: u16,
    /// `{prebid: {bid}}`: the rejected bid, canonical; `None` (left out) when no bid stands behind the entry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ext: Option<NonBidExt<'s>>,
}

/// `NonBid.ext`: `{prebid: {bid}}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NonBidExt<'s> {
    /// `{bid}`.
    pub prebid: NonBidPrebid<'s>,
}

/// `NonBid.ext.prebid`: `{bid}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NonBidPrebid<'s> {
    /// The rejected bid as decoded (canonical output), without `adm` unless the policy's `nonbid_markup` keeps
    /// it.
    pub bid: Cow<'s, Bid<'s>>,
}

impl<'a> Validated<'a> {
    /// The summary with verdicts (allocates the per-bid list and pointers).
    pub fn summary(&self) -> ValidatedSummary<'_> {
        summary(&self.pair.decoded, &self.verdicts)
    }

    /// Every issue with its status code, in order.
    pub fn issues(&self) -> Vec<ValidatedIssue<'_>> {
        issues(&self.pair.decoded, &self.statuscodes)
    }

    /// The rejected bids by seat, seats in order of their first rejected bid (empty when every bid is accepted);
    /// each bid without its `adm` unless [`nonbid_markup`](Validated::nonbid_markup).
    pub fn seatnonbid(&self) -> Vec<SeatNonBid<'_>> {
        seatnonbid(&self.pair.decoded, &self.verdicts, self.nonbid_markup)
    }
}

/// [`Validated::summary`] of a response judged by the rules: `verdicts` one per bid of `decoded`.
pub(crate) fn summary<'s>(decoded: &'s Decoded<'_>, verdicts: &Verdicts) -> ValidatedSummary<'s> {
    let Summary {
        status,
        id,
        cur,
        nbr,
        seats,
        bid_count,
        errors,
        warnings,
        bids,
    } = decoded.summary();
    let bids: Vec<ValidatedBid<'_>> = bids
        .into_iter()
        .zip(verdicts)
        .map(|(bid, v)| ValidatedBid {
            bid,
            status: v.status,
            statuscode: v.statuscode(),
        })
        .collect();
    let rejected = verdicts
        .iter()
        .filter(|v| v.status == BidStatus::Rejected)
        .count();
    ValidatedSummary {
        status,
        id,
        cur,
        nbr,
        seats,
        bid_count,
        errors,
        warnings,
        accepted: bids.len() - rejected,
        rejected,
        bids,
    }
}

/// [`Validated::issues`] of a response judged by the rules: `statuscodes` one per issue of `decoded`.
pub(crate) fn issues<'s>(
    decoded: &'s Decoded<'_>,
    statuscodes: &StatusCodes,
) -> Vec<ValidatedIssue<'s>> {
    decoded
        .issues
        .iter()
        .zip(statuscodes)
        .map(|(issue, statuscode)| ValidatedIssue {
            issue,
            statuscode: *statuscode,
        })
        .collect()
}

/// [`Validated::seatnonbid`] of a response judged by the rules.
pub(crate) fn seatnonbid<'s>(
    decoded: &'s Decoded<'_>,
    verdicts: &Verdicts,
    nonbid_markup: bool,
) -> Vec<SeatNonBid<'s>> {
    let mut out: Vec<SeatNonBid<'_>> = Vec::new();
    let mut verdicts = verdicts.iter();
    for seat in &decoded.response.seatbid {
        let name = seat.seat.as_deref().unwrap_or("");
        for (bid, verdict) in seat.bid.iter().zip(verdicts.by_ref()) {
            let Some(statuscode) = verdict.statuscode() else {
                continue;
            };
            let nonbid = NonBid {
                impid: bid.impid.as_deref(),
                statuscode,
                ext: Some(NonBidExt {
                    prebid: NonBidPrebid {
                        bid: if nonbid_markup || bid.adm.is_none() {
                            Cow::Borrowed(bid)
                        } else {
                            Cow::Owned(Bid {
                                adm: None,
                                ..bid.clone()
                            })
                        },
                    },
                }),
            };
            match out.iter_mut().find(|s| s.seat == name) {
                Some(s) => s.nonbid.push(nonbid),
                None => out.push(SeatNonBid {
                    seat: name,
                    nonbid: vec![nonbid],
                }),
            }
        }
    }
    out
}
