//! What an auction's answer shows ([`AuctionAnswer`]): the request's imps, each bidder's verdicts as `/validate`
//! shows one response's, and every bidder's non-bids in one seat-non-bid list.

use serde::Serialize;

use super::{Auction, Bidder, BidderStatus};
use crate::model::response::BidResponse;
use crate::rules::{NonBid, SeatNonBid, ValidatedIssue, ValidatedSummary, view};

/// An auction's answer: `{request: {id, imps}, bidders: [...], seatnonbid: [...]}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AuctionAnswer<'s> {
    /// The request's `id` and the `id` of each imp.
    pub request: AuctionRequest<'s>,
    /// One entry per bidder, in the order they were added.
    pub bidders: Vec<BidderAnswer<'s>>,
    /// Every bidder's non-bids, bidder after bidder: a seat is the response's `seatbid.seat`, else (absent or
    /// empty, and for the imp-wide codes 100–103) the bidder's name.
    pub seatnonbid: Vec<SeatNonBid<'s>>,
}

/// `{id, imps}`: `BidRequest.id` and each `Imp.id`, in order (`null` where absent).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AuctionRequest<'s> {
    /// `BidRequest.id`.
    pub id: Option<&'s str>,
    /// `Imp.id` of each imp.
    pub imps: Vec<Option<&'s str>>,
}

/// One bidder: `{bidder, status, response?, summary, issues, seatnonbid}`; `summary`, `issues` and `seatnonbid`
/// are what `/validate` answers for the request and this bidder's response.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BidderAnswer<'s> {
    /// The bidder's name.
    pub bidder: &'s str,
    /// Its outcome.
    pub status: BidderStatus,
    /// The response, canonical, when asked for ([`Auction::answer`]'s `echo_response`) and there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response: Option<&'s BidResponse<'s>>,
    /// The summary with each bid's verdict (an empty no-bid's for a bidder without a usable body).
    pub summary: ValidatedSummary<'s>,
    /// Every issue with its status code; for a bidder without a usable body, the one finding that says why.
    pub issues: Vec<ValidatedIssue<'s>>,
    /// The rejected bids by seat (as `/validate`'s), or, for a bidder with an imp-wide code, one seat (the
    /// bidder's name) with `{impid, statuscode}` for every imp of the request.
    pub seatnonbid: Vec<SeatNonBid<'s>>,
}

impl<'a> Auction<'a> {
    /// The answer (allocates the lists it shows; strings borrow from the auction). `echo_response`: each
    /// bidder's entry also holds its response (`/validate`'s `view=full`).
    pub fn answer(&self, echo_response: bool) -> AuctionAnswer<'_> {
        let bidders: Vec<BidderAnswer<'_>> = self
            .bidders
            .iter()
            .map(|b| self.bidder_answer(b, echo_response))
            .collect();
        let mut seatnonbid = Vec::new();
        for b in &bidders {
            seatnonbid.extend(b.seatnonbid.iter().map(|s| SeatNonBid {
                seat: if s.seat.is_empty() { b.bidder } else { s.seat },
                nonbid: s.nonbid.clone(),
            }));
        }
        AuctionAnswer {
            request: AuctionRequest {
                id: self.request.id.as_deref(),
                imps: self.request.imp.iter().map(|i| i.id.as_deref()).collect(),
            },
            bidders,
            seatnonbid,
        }
    }

    fn bidder_answer<'s>(&'s self, b: &'s Bidder<'a>, echo_response: bool) -> BidderAnswer<'s> {
        let seatnonbid = match b.status.statuscode() {
            Some(statuscode) => vec![SeatNonBid {
                seat: &b.bidder,
                nonbid: self
                    .request
                    .imp
                    .iter()
                    .map(|imp| NonBid {
                        impid: imp.id.as_deref(),
                        statuscode,
                        ext: None,
                    })
                    .collect(),
            }],
            None => view::seatnonbid(&b.decoded, &b.verdicts, b.nonbid_markup),
        };
        let usable = matches!(b.status, BidderStatus::Bid | BidderStatus::Nobid);
        BidderAnswer {
            bidder: &b.bidder,
            status: b.status,
            response: (echo_response && usable).then_some(&b.decoded.response),
            summary: view::summary(&b.decoded, &b.verdicts),
            issues: view::issues(&b.decoded, &b.statuscodes),
            seatnonbid,
        }
    }
}
