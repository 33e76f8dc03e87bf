//! [`Error`]: what is wrong with a protobuf body, where (byte offset) and in which field (path).

use std::fmt;

use crate::wire::WireType;

/// Why a protobuf body was refused. Every kind is a malformed body (an HTTP server answers 400).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The body ends inside a varint (its last byte has the continuation bit set).
    TruncatedVarint,
    /// A varint longer than 10 bytes, or a 10th byte above 1 (past 64 bits). Protobuf encoding §"Base 128
    /// Varints": at most 10 bytes for 64 bits.
    VarintTooLong,
    /// The body ends inside a fixed 32- or 64-bit value.
    TruncatedFixed,
    /// A length-delimited field's length runs past the end of its enclosing message.
    LengthPastEnd,
    /// A length-delimited field's length is above the body limit ([`Limits::max_len`](crate::Limits::max_len)).
    LengthPastLimit,
    /// Field number 0, which protobuf reserves (encoding §"Message Structure": numbers are 1 to 2^29−1).
    FieldNumberZero,
    /// A field number above 2^29−1 ([`MAX_FIELD_NUMBER`](crate::MAX_FIELD_NUMBER)).
    FieldNumberTooLarge,
    /// Wire type 6 or 7, which protobuf does not define.
    InvalidWireType(u8),
    /// A field the schema declares, sent with another wire type than its type's (a string sent as a varint).
    WrongWireType {
        /// The wire type of the declared field's type.
        expected: WireType,
        /// What was sent.
        found: WireType,
    },
    /// A group (wire types 3/4, deprecated) sent for a field the schema declares; groups are skipped only for
    /// unknown fields.
    GroupOnKnownField,
    /// An end-group tag without its start, or with another field number than its start's.
    UnmatchedEndGroup,
    /// The body ends inside a group.
    UnterminatedGroup,
    /// A string field that is not UTF-8 (the schema's `utf8_validation = VERIFY`, as reference parsers check).
    InvalidUtf8,
    /// Messages or groups nested deeper than [`Limits::max_depth`](crate::Limits::max_depth).
    DepthLimit,
}

impl ErrorKind {
    /// A stable snake_case name, e.g. `truncated_varint`.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::TruncatedVarint => "truncated_varint",
            ErrorKind::VarintTooLong => "varint_too_long",
            ErrorKind::TruncatedFixed => "truncated_fixed",
            ErrorKind::LengthPastEnd => "length_past_end",
            ErrorKind::LengthPastLimit => "length_past_limit",
            ErrorKind::FieldNumberZero => "field_number_zero",
            ErrorKind::FieldNumberTooLarge => "field_number_too_large",
            ErrorKind::InvalidWireType(_) => "invalid_wire_type",
            ErrorKind::WrongWireType { .. } => "wrong_wire_type",
            ErrorKind::GroupOnKnownField => "group_on_known_field",
            ErrorKind::UnmatchedEndGroup => "unmatched_end_group",
            ErrorKind::UnterminatedGroup => "unterminated_group",
            ErrorKind::InvalidUtf8 => "invalid_utf8",
            ErrorKind::DepthLimit => "depth_limit",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::TruncatedVarint => f.write_str("the body ends inside a varint"),
            ErrorKind::VarintTooLong => {
                f.write_str("a varint longer than 10 bytes or past 64 bits")
            }
            ErrorKind::TruncatedFixed => f.write_str("the body ends inside a fixed-width value"),
            ErrorKind::LengthPastEnd => {
                f.write_str("a length-delimited field runs past the end of its message")
            }
            ErrorKind::LengthPastLimit => {
                f.write_str("a length-delimited field is longer than the body limit")
            }
            ErrorKind::FieldNumberZero => f.write_str("field number 0"),
            ErrorKind::FieldNumberTooLarge => f.write_str("a field number above 2^29-1"),
            ErrorKind::InvalidWireType(t) => {
                write!(f, "wire type {t}, which protobuf does not define")
            }
            ErrorKind::WrongWireType { expected, found } => write!(
                f,
                "wire type {} ({}) where the field's type needs {} ({})",
                *found as u8,
                found.name(),
                *expected as u8,
                expected.name()
            ),
            ErrorKind::GroupOnKnownField => f.write_str("a group sent for a declared field"),
            ErrorKind::UnmatchedEndGroup => f.write_str("an end-group tag without its start"),
            ErrorKind::UnterminatedGroup => f.write_str("the body ends inside a group"),
            ErrorKind::InvalidUtf8 => f.write_str("a string field that is not UTF-8"),
            ErrorKind::DepthLimit => f.write_str("messages nested past the depth limit"),
        }
    }
}

/// A refused protobuf body: the [`ErrorKind`], the byte offset in the body where the fault is, and the path of
/// the field (a JSON pointer of the OpenRTB names, `/seatbid/0/bid/1/adomain/0`, as JSON errors carry), filled
/// in by the schema-aware caller as the error goes up ([`Error::within`]); `""` when the fault is at the top.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    offset: usize,
    path: String,
}

impl Error {
    /// An error of `kind` at byte `offset` of the body, with an empty path.
    pub fn new(kind: ErrorKind, offset: usize) -> Self {
        Error {
            kind,
            offset,
            path: String::new(),
        }
    }

    /// What is wrong.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// Byte offset in the body (0-based) of the fault: the first byte of the value, tag or length at fault, or
    /// the first invalid byte of a string.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// JSON pointer (RFC 6901) of the field, e.g. `/seatbid/0/bid/1/price`; `""` for the top level.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The same error one level up: `name` (and the element `index` of a repeated field) is put before the path.
    /// Called on the error's way out only, so a path costs nothing on the way in.
    #[cold]
    pub fn within(mut self, name: &str, index: Option<usize>) -> Self {
        let mut head = String::with_capacity(name.len() + 8 + self.path.len());
        head.push('/');
        head.push_str(name);
        if let Some(i) = index {
            head.push('/');
            head.push_str(&i.to_string());
        }
        head.push_str(&self.path);
        self.path = head;
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.kind, self.offset)?;
        if !self.path.is_empty() {
            write!(f, " ({})", self.path)?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}
