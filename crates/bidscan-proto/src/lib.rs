//! A Protocol Buffers wire-format reader for bidscan: varints, tags, wire types, length-delimited values
//! borrowed from the body, the UTF-8 check of strings, a depth limit, and errors with the byte offset and the
//! field path.
//!
//! It writes the same wire too ([`put_varint`], [`put_tag`], [`begin_len`]/[`end_len`], …: the `write` module),
//! for bidscan-openrtb's protobuf encoder of the model.
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
mod write;

pub use error::{Error, ErrorKind};
pub use wire::{Field, Limits, MAX_FIELD_NUMBER, Message, Value, Varints, WireType};
pub use write::{
    LenStart, begin_len, end_len, put_bool, put_double, put_group, put_int32, put_len,
    put_packed_int32, put_tag, put_varint, varint_len,
};
