//! bidscan-markup: reads a bid's ad markup (`adm`, OpenRTB 2.6 §4.2.3) and says what is in it.
//!
//! # What it is for
//! `adm` is most of a bid response's bytes and the first cause of failed ads. This crate looks inside it at
//! decode time, over markup that bidscan-json has already decoded in place, and reports a small fixed-size
//! description per bid:
//! - [`html`]: HTML (display) markup — whether every `src`, `href` and `url(...)` is secure, how many
//!   `<script>` elements it holds.
//!
//! # Cost
//! Every inspector is one forward pass over the markup: no DOM, no per-element allocation.
//!
//! # What it does not do
//! It does no I/O (a VAST wrapper's tag URI is reported, never fetched), knows nothing of HTTP or of the bid
//! response around the markup, and never renders or executes markup.
#![forbid(unsafe_code)]

pub mod html;
