//! bidscan-json: the escape-resuming, in-place JSON reader. (Being built: see issue 2.)
#![deny(unsafe_code)]

mod raw;

pub use raw::{RAW_TOKEN, RawJson};
