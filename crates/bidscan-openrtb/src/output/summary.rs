//! The short view of a decoded response: one line per bid.

use std::borrow::Cow;

use serde::Serialize;

use crate::checks::issue::Severity;
use crate::checks::markup::AdmSummary;
use crate::checks::paths::{self, Object};
use crate::decode::Decoded;
use crate::model::lists::{MarkupType, NoBidReason};
use crate::model::status::Status;

/// Summary of a decoded response, borrowing from it. Every member is always written (`null` when absent).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary<'s> {
    /// Bid or no-bid.
    pub status: Status,
    /// `BidResponse.id`.
    pub id: Option<&'s str>,
    /// The response currency: `cur`, or `"USD"` when absent (OpenRTB 2.6 §4.2.1 default).
    pub cur: &'s str,
    /// `BidResponse.nbr`.
    pub nbr: Option<NoBidReason>,
    /// Number of seat bids.
    pub seats: usize,
    /// Number of bids over all seat bids.
    pub bid_count: usize,
    /// Number of issues of severity error, those past the list's bound included (`Decoded::unlisted`).
    pub errors: usize,
    /// Number of issues of severity warning, those past the list's bound included.
    pub warnings: usize,
    /// One entry per bid, in document order.
    pub bids: Vec<BidSummary<'s>>,
}

/// Summary of one bid.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BidSummary<'s> {
    /// JSON pointer of the bid in the input, e.g. `/seatbid/0/bid/3`.
    pub path: String,
    /// `Bid.id`.
    pub id: Option<&'s str>,
    /// `Bid.impid`.
    pub impid: Option<&'s str>,
    /// `Bid.price` (CPM, in `cur`).
    pub price: Option<f64>,
    /// The response currency (see [`Summary::cur`]).
    pub cur: &'s str,
    /// `SeatBid.seat` of the seat bid holding the bid.
    pub seat: Option<&'s str>,
    /// `Bid.adomain`.
    pub adomain: &'s [Cow<'s, str>],
    /// `Bid.crid`.
    pub crid: Option<&'s str>,
    /// `Bid.dealid`.
    pub dealid: Option<&'s str>,
    /// `Bid.mtype`.
    pub mtype: Option<MarkupType>,
    /// `Bid.w`.
    pub w: Option<i64>,
    /// `Bid.h`.
    pub h: Option<i64>,
    /// The markup: kind, size in bytes and, when [`decode_inspected`](crate::decode_inspected) read it, what
    /// inspection found (see [`AdmSummary`]).
    pub adm: AdmSummary<'s>,
}

impl Decoded<'_> {
    /// The summary view (allocates the per-bid list and pointers).
    pub fn summary(&self) -> Summary<'_> {
        let r = &self.response;
        let cur = r.cur.as_deref().unwrap_or("USD");
        let mut bids = Vec::with_capacity(self.bid_count());
        for (si, seat) in r.seatbid.iter().enumerate() {
            for (bi, bid) in seat.bid.iter().enumerate() {
                bids.push(BidSummary {
                    path: paths::object(r, Object::Bid(si, bi)),
                    id: bid.id.as_deref(),
                    impid: bid.impid.as_deref(),
                    price: bid.price,
                    cur,
                    seat: seat.seat.as_deref(),
                    adomain: &bid.adomain,
                    crid: bid.crid.as_deref(),
                    dealid: bid.dealid.as_deref(),
                    mtype: bid.mtype,
                    w: bid.w,
                    h: bid.h,
                    adm: AdmSummary::new(bid, self.markup.get(bids.len())),
                });
            }
        }
        let errors = self
            .issues
            .iter()
            .filter(|i| i.severity == Severity::Error)
            .count();
        Summary {
            status: self.status,
            id: r.id.as_deref(),
            cur,
            nbr: r.nbr,
            seats: r.seatbid.len(),
            bid_count: bids.len(),
            errors: errors + self.unlisted.count(Severity::Error),
            warnings: self.issues.len() - errors + self.unlisted.count(Severity::Warning),
            bids,
        }
    }
}
