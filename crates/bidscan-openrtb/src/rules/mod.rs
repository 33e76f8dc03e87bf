//! Validation of a bid response against the bid request it answers: each bid accepted or rejected, with the IAB
//! seat-non-bid status code of the first enforced rule that rejects it (openrtb `extensions/community_extensions/
//! seat-non-bid.md`, "List: Non-Bid Status Codes").
//!
//! Every rule is `skip | warn | enforce` in a [`Policy`] (default `enforce`). A finding is an [`Issue`](crate::Issue) with the
//! rule's status code; with `enforce` it has severity error and rejects the bid, with `warn` it is a warning and the
//! bid stays accepted. One bad bid never fails the response: rejected bids stay in the answer, marked. Rules are
//! applied in this order; the first enforced one that finds something gives the bid its `statuscode`.
//!
//! | rule | code | finding | pointer | when | source |
//! |---|---|---|---|---|---|
//! | `unknown_imp` | 300 | `unknown_impid` | `…/bid/N/impid` | `impid` is not the `id` of an `imp` of the request | OpenRTB 2.6 §4.2.3: `impid` is the "ID of the Imp object in the related bid request" |
//! | `invalid_bid` | 300 | `missing_id`, `missing_impid`, `missing_price`, `price_not_finite`, `negative_price` (decode's findings), `invalid_currency`, `missing_id` at `/id` | as decoded | the response-only rules of [`validate`](crate::checks); the response-level ones reject every bid | §4.2.1, §4.2.3 (required members) |
//! | `currency` | 300 | `currency_not_allowed` | `/cur` | the response currency (`cur`, `USD` when absent) is not in a non-empty `request.cur`; rejects every bid | §3.2.1: `cur` "array of allowed currencies for bids on this bid request" |
//! | `floor` | 301 | `below_floor` | `…/price` | `price` < `imp.bidfloor`, converted from `bidfloorcur` (default `USD`) with [`Rates`]; no rate: warning `floor_rate_missing` (no status code); not applied to a bid under a deal of the imp | §3.2.4: `bidfloor` "minimum bid for this impression expressed in CPM" |
//! | `duplicate_id` | 302 | `duplicate_bid_id` (decode's finding) | `…/id` | the same bid `id` as an earlier bid of the response (the later one) | §4.2.3 `id` (the bid's ID "for logging/tracking"); 302 as issue 14 assigns it |
//! | `deal` | 304 | `unknown_deal`, `deal_required`, `below_deal_floor` | `…/dealid`, `…/price` | `dealid` not among `imp.pmp.deals`; no `dealid` when `pmp.private_auction` = 1; `price` < the deal's `bidfloor` | §3.2.11 `private_auction`, §3.2.12 `bidfloor`, §4.2.3 `dealid` |
//! | `blocked_attribute` | 350 | `blocked_attribute` | `…/attr` | `attr` ∩ the `battr` of the imp's slot for the bid's media type | §3.2.6/7/8/9 `battr`; 350 "Creative Filtered - General" |
//! | `duration` | 350 | `duration_out_of_range` | `…/dur`, `…/adm` | video/audio `dur` < `minduration` or > `maxduration`; without `dur` (§4.2.3: recommended), the VAST markup's first `Linear` `Duration` | §3.2.7, §3.2.8; VAST 4.x `<Linear><Duration>` |
//! | `size` | 351 | `size_not_allowed` | `…/w` | banner `w`×`h` is neither a `format` entry nor `banner.w`×`banner.h` | §3.2.6, §3.2.10; 351 "Creative Filtered - Size Not Allowed"; prebid-server's banner-creative-max-size |
//! | `secure` | 352 | `insecure_markup`, `insecure_url` | `…/adm`, `…/nurl`, `…/burl`, `…/iurl` | `imp.secure` = 1 and an `http://` URL in the markup's `src`/`href`/`srcset`/`url(...)` (HTML; in VAST or native markup any `http://` of the text as its XML or JSON parser decodes it: `&#104;ttp://`, `htt<![CDATA[p://`, `\u0068ttp://`), or `nurl`/`burl`/`iurl` | §3.2.4 `secure`; 352 "Creative Filtered - Not Secure"; prebid-server's secure-markup validation |
//! | `media_type` | 353 | `media_type_not_offered`, `markup_contradicts_mtype` | `…/mtype`, `…/adm` | `mtype` (or, without it, VAST or native markup) names a slot the imp does not offer; markup sniffed as another kind than `mtype` | §4.2.3 `mtype`; 353 "Creative Filtered - Incorrect Creative Format" |
//! | `blocked_advertiser` | 356 | `blocked_advertiser`, `blocked_app` | `…/adomain`, `…/bundle` | an `adomain` equal to, or a subdomain of, a `badv` entry (ASCII case-insensitive, a trailing dot ignored); `bundle` in `bapp` | §3.2.1 `badv`, `bapp`; 356 "Creative Filtered - Advertiser Blocked" |
//! | `blocked_category` | 357 | `blocked_category` | `…/cat` | a `cat` in `bcat`, or under one (`IAB1` blocks `IAB1-5`), when bid and request use the same `cattax` (default 1) | §3.2.1 `bcat`; 357 "Creative Filtered - Category Blocked" |
//! | `group` | 300 | `group_rejected` | `…/bid/N` | the bid's seat has `group` = 1 and another of its bids was rejected (applied after the seat's bids; its findings follow the seat's others) | §4.2.2 `group`: "impressions must be won or lost as a group" |
//!
//! Besides the rules: a warning `response_id_mismatch` at `/id` (no status code) when the response's `id` is not the
//! request's (§4.2.1: "ID of the bid request to which this is a response").
//!
//! Media type of a bid: `mtype` when 1–4; else from the markup (VAST: video, or audio on an audio-only imp;
//! native JSON: native; `<`-led HTML: banner); else the imp's only slot, if it offers one.

mod bid_ext;
mod blocklists;
mod insecure;
mod media;
mod per_bid;
mod policy;
mod table;
mod validated;
mod verdict;
mod view;

pub use policy::{Action, Policy, Rates};
pub use table::Rule;
pub use validated::Validated;
pub use verdict::{BidStatus, STATUSCODES_INLINE, StatusCodes, VERDICTS_INLINE, Verdict, Verdicts};
pub use view::{
    NonBid, NonBidExt, NonBidPrebid, SeatNonBid, ValidatedBid, ValidatedIssue, ValidatedSummary,
};
