//! Validation of a bid response against the bid request it answers: each bid accepted or rejected, with the IAB
//! seat-non-bid status code of the first enforced rule that rejects it (openrtb `extensions/community_extensions/
//! seat-non-bid.md`, "List: Non-Bid Status Codes").
//!
//! Every rule is `skip | warn | enforce` in a [`Policy`] (default `enforce`). A finding is an [`Issue`](crate::Issue) with the
//! rule's status code; with `enforce` it has severity error and rejects the bid, with `warn` it is a warning and the
//! bid stays accepted. One bad bid never fails the response: rejected bids stay in the answer, marked. Rules are
//! applied in this order; the first enforced one that finds something gives the bid its `statuscode`.
//!
//! The rules, their codes, defaults, findings and sources are the table of `docs/validation-rules.md` (a test
//! compares it with [`Rule::ALL`]). In short: every error on a bid rejects it (`creative` 350 for missing or
//! malformed markup, `mtype` 353, `duplicate_id` 302, else `invalid_bid` 300); then the request's terms: the imp
//! (300), currency (300; an empty `request.cur` allows USD only), floors (301; no rate: `floor_rate` 300), deals
//! (300, their floors 304), the slot's attributes, duration and video format (350), size (351), security (352),
//! media type (353), advertiser (356), category taxonomy (303) and categories (357), seats (300), DSA transparency
//! (300) and groups (300).
//!
//! Besides the rules: a warning `response_id_mismatch` at `/id` (no status code) when the response's `id` is not the
//! request's (§4.2.1: "ID of the bid request to which this is a response").
//!
//! Media type of a bid: `mtype` when 1–4; else `ext.prebid.type`; else the imp's only slot; else the markup's kind
//! (VAST: video, or audio on an audio-only imp; native JSON: native; `<`-led HTML: banner).

mod across;
mod bid_ext;
mod blocklists;
mod insecure;
mod media;
mod per_bid;
mod policy;
mod table;
mod validated;
mod verdict;
pub(crate) mod view;

pub(crate) use across::duplicate_ids;
pub use policy::{Action, Policy, Rates};
pub use table::Rule;
pub use validated::Validated;
pub(crate) use validated::judge;
pub use verdict::{BidStatus, STATUSCODES_INLINE, StatusCodes, VERDICTS_INLINE, Verdict, Verdicts};
pub use view::{
    NonBid, NonBidExt, NonBidPrebid, SeatNonBid, ValidatedBid, ValidatedIssue, ValidatedSummary,
};
