//! bidscan-json: a strict JSON reader that decodes every string **in place** and hands it to serde as a borrow.
//!
//! The input is owned and mutable (`&'de mut [u8]`, typically a pooled buffer). Each string is decoded over its
//! own escaped form — a decoded string is never longer than its JSON text — so a type with `&'de str` or
//! `Cow<'de, str>` fields borrows *every* string, escaped or not, and decoding allocates nothing of its own.
//! Strings are found by a stop-byte scanner (`"`, `\`, bytes < 0x20) that runs 8/16/32 bytes at a time (SWAR,
//! SSE2, AVX2, NEON) and, after an escape, decodes it and resumes the block scan — there is no per-character
//! loop, so a long ad-markup string costs what its escapes cost, not what its length costs.
//!
//! Main types:
//! - [`from_slice_mut`] and [`Reader`] (reusable: scratch, config, [`Stats`] of the last document);
//! - [`ReaderConfig`] (nesting limit, [`FloatOverflow`]), [`Error`] / [`ErrorKind`] (byte offset, line, column, JSON pointer);
//! - [`RawJson`]: a value's exact text, validated but not built (for OpenRTB `ext`);
//! - [`ScanImpl`]: the scanner implementations, to force one in tests and benches;
//! - [`bytescan`]: byte-class kernels for the markup inspectors (name-stop masks, byte searches), here because the
//!   scanner is the only module allowed `unsafe`.
//!
//! Rules (RFC 8259, strict): UTF-8 only (checked once for the whole document, BOM rejected); escapes
//! `\" \\ \/ \b \f \n \r \t \uXXXX` with surrogate pairs, lone surrogates rejected; raw control bytes in strings
//! rejected; numbers by the §6 grammar, parsed exactly (`u64`/`i64` when integral and in range, else `f64`;
//! a value that rounds to infinity is an error unless [`FloatOverflow::Infinity`] is chosen); nothing but
//! whitespace after the value. Deserializer semantics follow serde_json's (numbers, `null` → `None`, struct from array, enums as string or
//! `{"Variant": …}`, raw values through the `RawValue` protocol).
//!
//! What it deliberately does not do: read from `io::Read` or `&[u8]` (decoding in place needs ownership; copy
//! into a reused buffer), serialize, build a DOM of its own, accept JSON5/comments/trailing commas/NaN, or keep
//! the input intact (it is rewritten by decoding).
#![deny(unsafe_code)]

mod de;
mod error;
mod escape;
mod number;
mod path;
mod raw;
mod reader;
#[allow(unsafe_code)]
mod scan;
mod stats;
mod string;

pub use error::{Error, ErrorKind};
pub use number::FloatOverflow;
pub use raw::{RAW_TOKEN, RawJson};
pub use reader::{Reader, ReaderConfig};
pub use scan::ScanImpl;
pub use scan::bytescan;
pub use stats::Stats;

/// Decodes one document with a default [`Reader`] (depth limit 128). See [`Reader::decode`] for the borrowing
/// rules and errors; use a long-lived `Reader` when decoding many documents.
///
/// ```
/// #[derive(serde::Deserialize)]
/// struct Bid<'a> { id: &'a str, price: f64 }
/// let mut body = br#"{"id":"b\u00e9\"1","price":1.25}"#.to_vec();
/// let bid: Bid = bidscan_json::from_slice_mut(&mut body).unwrap();
/// assert_eq!((bid.id, bid.price), ("bé\"1", 1.25));
/// ```
pub fn from_slice_mut<'de, T: serde::Deserialize<'de>>(input: &'de mut [u8]) -> Result<T, Error> {
    Reader::default().decode(input)
}
