//! The typed bid-response model the benches decode into: the fields that carry most bytes and most decoding work
//! (ids, seat, price, `adm`, `nurl`, `adomain`, `crid`, size), everything else (`ext`, `burl`, ...) skipped as
//! unknown. Strings are `Cow<'a, str>` with `#[serde(borrow)]`, so serde_json borrows those without escapes and
//! bidscan borrows all of them.

use std::borrow::Cow;

use serde::Deserialize;

/// An OpenRTB bid response, reduced (OpenRTB 2.6 §4.2.1).
#[derive(Debug, Deserialize, PartialEq)]
pub struct BidResponse<'a> {
    /// Request id echoed back.
    #[serde(borrow)]
    pub id: Cow<'a, str>,
    /// Seat bids; absent for a no-bid.
    #[serde(default, borrow)]
    pub seatbid: Vec<SeatBid<'a>>,
}

/// One seat's bids (OpenRTB 2.6 §4.2.2).
#[derive(Debug, Deserialize, PartialEq)]
pub struct SeatBid<'a> {
    /// Buyer seat id.
    #[serde(default, borrow)]
    pub seat: Option<Str<'a>>,
    /// The bids.
    #[serde(default, borrow)]
    pub bid: Vec<Bid<'a>>,
}

/// One bid (OpenRTB 2.6 §4.2.3).
#[derive(Debug, Deserialize, PartialEq)]
pub struct Bid<'a> {
    /// Bidder's bid id.
    #[serde(borrow)]
    pub id: Cow<'a, str>,
    /// Impression id this bid is for.
    #[serde(borrow)]
    pub impid: Cow<'a, str>,
    /// Bid price, CPM.
    pub price: f64,
    /// Win notice URL.
    #[serde(default, borrow)]
    pub nurl: Option<Str<'a>>,
    /// Ad markup (VAST, HTML, native JSON).
    #[serde(default, borrow)]
    pub adm: Option<Str<'a>>,
    /// Advertiser domains.
    #[serde(default, borrow)]
    pub adomain: Vec<Str<'a>>,
    /// Creative id.
    #[serde(default, borrow)]
    pub crid: Option<Str<'a>>,
    /// Width in device-independent pixels.
    pub w: Option<u32>,
    /// Height in device-independent pixels.
    pub h: Option<u32>,
}

/// A string that borrows when it can. serde derive borrows a bare `Cow<str>` field only, not one inside `Option`
/// or `Vec`, hence this wrapper.
#[derive(Debug, Deserialize, PartialEq)]
pub struct Str<'a>(#[serde(borrow)] pub Cow<'a, str>);

impl BidResponse<'_> {
    /// Whether every string in the value is borrowed from the input (true for bidscan by construction).
    pub fn borrows_every_string(&self) -> bool {
        let borrowed = |c: &Cow<'_, str>| matches!(c, Cow::Borrowed(_));
        let opt = |s: &Option<Str<'_>>| s.as_ref().is_none_or(|s| borrowed(&s.0));
        borrowed(&self.id)
            && self.seatbid.iter().all(|seat| {
                opt(&seat.seat)
                    && seat.bid.iter().all(|b| {
                        borrowed(&b.id)
                            && borrowed(&b.impid)
                            && opt(&b.nurl)
                            && opt(&b.adm)
                            && opt(&b.crid)
                            && b.adomain.iter().all(|d| borrowed(&d.0))
                    })
            })
    }
}
