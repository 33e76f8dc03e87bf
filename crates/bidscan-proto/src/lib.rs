//! A Protocol Buffers wire-format reader for bidscan: varints, tags, wire types, length-delimited values
//! borrowed from the body, the UTF-8 check of strings, a depth limit, and errors with the byte offset and the
//! field path.
//!
//! It knows no schema: a schema-aware decoder (bidscan-openrtb's protobuf decode of a `BidResponse`) walks a
//! [`Message`] field by field, reads each declared field with the typed accessor of its type ([`Field::str`],
//! [`Field::int32`], [`Field::varints`], [`Field::message`], …), which refuses a wrong wire type, and ignores
//! the rest (unknown fields are skipped, groups included). Nothing is allocated on the way in (a group nested
//! in an unknown group keeps its field numbers on a small stack); the path of an [`Error`] is built on the way
//! out ([`Error::within`]).
//!
//! The rules, from the encoding guide (<https://protobuf.dev/programming-guides/encoding/>) and what reference
//! parsers (protobuf C++/upb, prost) refuse: a truncated varint or one longer than 10 bytes, a length past the
//! message's end or the body limit, field number 0 or above 2^29−1, wire types 6 and 7, an unmatched end-group
//! tag, a group without its end, invalid UTF-8 in a string, nesting past the depth limit.
#![forbid(unsafe_code)]

mod error;
mod wire;

pub use error::{Error, ErrorKind};
pub use wire::{Field, Limits, MAX_FIELD_NUMBER, Message, Value, Varints, WireType};

/// Appends the varint encoding of `value` to `out` (the encoding guide's "Base 128 Varints"); for tests, fuzz
/// targets and tools that build bodies.
pub fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Appends the tag of field `number` with wire type `wire` to `out`.
pub fn put_tag(out: &mut Vec<u8>, number: u32, wire: WireType) {
    put_varint(out, (u64::from(number) << 3) | wire as u64);
}

/// Appends a length-delimited field (`LEN`: a string, bytes, an embedded message) to `out`.
pub fn put_len(out: &mut Vec<u8>, number: u32, bytes: &[u8]) {
    put_tag(out, number, WireType::Len);
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}
