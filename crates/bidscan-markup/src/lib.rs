//! bidscan-markup: reads a bid's ad markup (`adm`, OpenRTB 2.6 §4.2.3) and says what is in it.
//!
//! # What it is for
//! `adm` is most of a bid response's bytes and the first cause of failed ads (malformed VAST, wrappers without a
//! tag URI, insecure creatives). This crate looks inside it at decode time, over markup that bidscan-json has
//! already decoded in place, and reports a small description per bid:
//! - [`vast`]: VAST video markup, read with quick-xml as a stream — version, ads, wrapper and its URI, the
//!   first `Linear`'s duration, media files and their types, impressions, error URLs; well-formedness with
//!   line and column; warnings ([`vast::Warning`]).
//! - [`native`]: native JSON (Native 1.2 §5), decoded by bidscan-json itself, legacy `"native"` root accepted —
//!   version, assets, link, trackers; inner JSON errors with their byte offset.
//! - [`html`]: HTML (display) markup — whether every `src`, `href` and `url(...)` is secure, how many
//!   `<script>` elements it holds.
//!
//! [`Inspector`] holds the state worth reusing between bids (native's scratch copy and reader).
//!
//! # Cost
//! Every inspector is one forward pass over the markup: no DOM, no per-element allocation, nothing copied but
//! native JSON (into the reused scratch buffer, so the response's `adm` stays intact).
//!
//! # What it does not do
//! It does no I/O (a VAST wrapper's tag URI is reported, never fetched), knows nothing of HTTP or of the bid
//! response around the markup (checking a VAST duration against `bid.dur` is the caller's job), does not decide
//! which inspector applies, and never renders or executes markup.
#![forbid(unsafe_code)]

pub mod html;
mod inspector;
mod location;
pub mod native;
pub mod vast;

pub use inspector::{Inspector, MAX_RETAINED_SCRATCH};
pub use location::Location;
