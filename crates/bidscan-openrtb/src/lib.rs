//! bidscan-openrtb: the OpenRTB 2.6 bid-response model, lenient/strict decoding, validation and canonical output.
//!
//! # What it is for
//! An exchange hands bidscan a bidder's bid-response body; this crate turns it into typed values
//! ([`BidResponse`] → [`SeatBid`] → [`Bid`], every OpenRTB 2.6 (2.6-202409) member, 2.5 documents included),
//! tells bid from no-bid ([`Status`]), and reports every deviation and rule violation as an [`Issue`] with the
//! JSON pointer of the value (`/seatbid/0/bid/3/price`). The one entry point is [`decode`]; it reads the body
//! in place with bidscan-json's [`Reader`](bidscan_json::Reader), so every string borrows from the input.
//!
//! # Main types
//! - [`decode`], [`Mode`] (lenient by default, strict), [`Decoded`] (status, response, issues), [`DecodeError`].
//! - [`BidResponse`], [`SeatBid`], [`Bid`], [`Adm`]: strings are `Cow<'a, str>`, `ext` is
//!   [`RawJson`](bidscan_json::RawJson) (kept verbatim), code lists are open newtypes ([`lists`]), `price` is
//!   `f64`, a bid's lists (`adomain`, `cat`, `attr`, `apis`) are [`InlineVec`]s that keep their first items
//!   inline. They implement `Deserialize` (with bidscan-json and with serde_json, for differential tests) and
//!   `Serialize` (the canonical output: spec member order, absent members omitted, `ext` verbatim but compact:
//!   [`compact`]).
//! - [`Summary`]: one line per bid (id, impid, price, cur, seat, adomain, crid, dealid, mtype, w, h, and an
//!   `adm` object: kind, size and what inspection found).
//! - [`decode_inspected`] with a [`bidscan_markup::Inspector`]: also reads every bid's markup (VAST, native,
//!   HTML; see [`markup`]), one [`Markup`](markup::Markup) per bid in [`Decoded::markup`], findings as issues at
//!   `/seatbid/i/bid/j/adm`.
//!
//! # How lenient decoding works
//! The `Deserialize` impls are hand-written and mode-free: each member is read with a visitor that accepts
//! every JSON type. A tolerated deviation (number as string, `null`, single value for an array, object `adm`,
//! numeric id, duplicate member) is converted and recorded as a [`Coercion`] in the object's `coercions`; a
//! wrong type (`"price":"abc"`, `"w":{}`) is recorded as an error and the member read as absent, so one bad bid
//! never fails the response. Afterwards [`Decoded::from_response`] turns the records into issues with JSON
//! pointers, or, in strict mode, turns the first one into [`DecodeError::Strict`]. A document in the spec's
//! shape allocates nothing for any of this.
//!
//! # What a decode allocates
//! Strings borrow from the input and a bid's lists hold their first items inline, so a document in the spec's
//! shape allocates only the `seatbid` vector and one `bid` vector per seat bid: 2 allocations for a single-bid
//! response, 7 for 4 seat bids of 12 bids (a `bid` array starts with the length of the previous one, see
//! [`Bid`]). Issues add the `issues` vector and, per issue, its pointer (one `String`) and, only when it quotes a
//! value, its message; fixed messages are `&'static str`. Finding duplicate bid ids allocates nothing up to 64
//! bids.
//!
//! Issue codes from decoding: see [`CoercionKind::code`]. Validation codes and their sources: see [`checks`].
//!
//! # Against the bid request
//! [`decode_pair`] decodes the `/validate` envelope `{"request": …, "response": …}` (either order, one buffer)
//! into a [`Pair`]: the typed [`BidRequest`] view and the [`Decoded`] response. [`rules::Validated::new`] then
//! accepts or rejects each bid under a [`rules::Policy`] (`skip | warn | enforce` per rule), with the IAB
//! seat-non-bid status codes; the rule table and its sources are in [`rules`].
//!
//! # An auction
//! [`Auction::decode_request`] decodes one bid request; [`Auction::add`] then judges each bidder's [`Reply`] (its
//! body, or why there is none) against it, as [`rules::Validated`] judges one envelope, without reading the
//! request again: a [`Bidder`] with a [`BidderStatus`] (`bid`, `nobid`, `invalid` 102, `timeout` 101,
//! `unreachable` 103, `error` 100), its findings and verdicts, and rule `duplicate_id_across_bidders` between
//! bidders. [`Auction::answer`] is the answer to render ([`AuctionAnswer`]).
//!
//! # What it does not do
//! It does not parse JSON (bidscan-json does) or markup (bidscan-markup does), read the parts of a bid
//! request no rule needs, substitute macros, or do any I/O.
#![forbid(unsafe_code)]

mod auction;
pub mod checks;
mod decode;
mod encode;
mod lenient;
mod model;
mod output;
pub mod rules;

pub use auction::{
    Auction, AuctionAnswer, AuctionRequest, Bidder, BidderAnswer, BidderStatus, Reply,
};
pub use bidscan_markup::Inspector;
pub use bidscan_proto::{Error as WireError, ErrorKind as WireErrorKind, Limits as ProtobufLimits};
pub use checks::issue::{Coercion, CoercionKind, Issue, JsonType, Severity, Unlisted};
pub use checks::markup;
pub use decode::pair::{Pair, decode_pair, decode_pair_inspected};
pub use decode::protobuf::{
    ProtobufError, decode_protobuf, decode_protobuf_inspected, decode_request_protobuf,
};
pub use decode::{BOM, DecodeError, Decoded, Mode, decode, decode_inspected};
pub use encode::protobuf::{EncodeError, EncodeWarning, encode_protobuf};
pub use lenient::{MAX_COERCIONS, MAX_OBJECTS};
pub use model::adm::{Adm, AdmKind, AdmObject};
pub use model::bid::Bid;
pub use model::inline::{InlineItem, InlineVec};
pub use model::lists;
pub use model::lists::{
    ApiFramework, CategoryTaxonomy, CreativeAttribute, MarkupType, MediaRating, NoBidReason,
    Protocol, SlotPositionInPod,
};
pub use model::request::{Banner, BidRequest, Deal, Format, Imp, Native, Pmp, Video};
pub use model::response::{BidResponse, SeatBid};
pub use model::status::Status;
pub use output::compact;
pub use output::summary::{BidSummary, Summary};
