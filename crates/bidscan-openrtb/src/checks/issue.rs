//! What decoding and validation report: [`Issue`] (path, code, severity, message) and the per-object
//! [`Coercion`] records the lenient decoder leaves in the typed values.

use std::borrow::Cow;
use std::fmt;

use serde::Serialize;

/// How bad an [`Issue`] is. Serializes as `"error"` or `"warning"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The value breaks the spec and was dropped or is unusable (e.g. `price` missing or not a number).
    Error,
    /// The value was accepted after a coercion, or is allowed but unusual (e.g. `crid` missing).
    Warning,
}

/// One finding about a decoded bid response.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Issue {
    /// JSON pointer (RFC 6901) of the value in the input, e.g. `/seatbid/0/bid/3/price`; `""` is the whole body.
    pub path: String,
    /// Stable snake_case code, e.g. `number_as_string`, `missing_price` (listed in the crate docs).
    pub code: &'static str,
    /// Error or warning.
    pub severity: Severity,
    /// One human-readable sentence: borrowed `'static` text for fixed messages (no allocation), owned when it
    /// quotes the value (e.g. `price -1 is negative`).
    pub message: Cow<'static, str>,
}

/// The JSON type of a value, for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JsonType {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool,
    /// A number.
    Number,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
}

impl fmt::Display for JsonType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            JsonType::Null => "null",
            JsonType::Bool => "a boolean",
            JsonType::Number => "a number",
            JsonType::String => "a string",
            JsonType::Array => "an array",
            JsonType::Object => "an object",
        })
    }
}

/// What the lenient decoder did with one value that was not in the spec's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CoercionKind {
    /// A number sent as a string (`"price":"0.500000"`, `"w":"300"`); read as the number. Warning.
    NumberAsString,
    /// An integer field sent as a number with a zero fraction or an exponent (`"w":300.0`); read as the integer.
    /// Warning.
    FloatAsInteger,
    /// `null` for an optional field, an array, or an array element; treated as absent (the element dropped).
    /// Warning.
    Null,
    /// A single value where an array is expected (`"adomain":"brand.com"`, `"seatbid":{…}`); read as a
    /// one-element array. Warning.
    SingleValue,
    /// `adm` sent as a JSON object instead of a string; kept as raw JSON. Warning.
    AdmObject,
    /// An identifier (`id`, `impid`, `bidid`, `adid`, `cid`, `crid`, `dealid`, `tactic`, `seat`) sent as a
    /// number; read as its decimal text (`1e2` → `"100"`). Warning. A number whose text would not be exact (a
    /// non-integer, or an integer past the 64-bit integers, of magnitude 2^53 or more) is
    /// [`OutOfRange`](CoercionKind::OutOfRange) instead. A number that binary64 rounds to an integer
    /// (`1.00000000000000001`, `1e-400`) reads as that integer: the digits sent are not kept.
    NumericId,
    /// A member that appears twice in one object; the last value is kept. Warning.
    DuplicateField,
    /// A member sent under its name in another case or form (`Seatbid`, `seat_bid`, `bids`, `Price`); not read
    /// (member names compare case-sensitively, RFC 8259 §8.3), so what it held is lost. Error, at the member's
    /// path as the spec names it.
    MisnamedMember,
    /// A boolean sent for a 0/1 flag (`"secure":true`, bid requests only); read as 1 or 0. Warning.
    BoolAsFlag,
    /// A value of the wrong JSON type (`"price":"abc"`, `"w":{}`, `"adomain":5`); treated as absent (an array
    /// element is dropped). Error.
    InvalidType {
        /// What the spec asks for, e.g. `"a number"`.
        expected: &'static str,
        /// What was sent.
        found: JsonType,
    },
    /// An integer that fits no `i64`, or a number past `f64`'s range (`1e400`, RFC 8259 §6 lets a reader limit
    /// the range); treated as absent. Error.
    OutOfRange,
}

impl CoercionKind {
    /// The issue code: `number_as_string`, `float_as_integer`, `null_value`, `single_value`, `adm_object`,
    /// `numeric_id`, `duplicate_field`, `misnamed_member`, `bool_as_flag`, `invalid_type`, `out_of_range`.
    pub fn code(self) -> &'static str {
        match self {
            CoercionKind::NumberAsString => "number_as_string",
            CoercionKind::FloatAsInteger => "float_as_integer",
            CoercionKind::Null => "null_value",
            CoercionKind::SingleValue => "single_value",
            CoercionKind::AdmObject => "adm_object",
            CoercionKind::NumericId => "numeric_id",
            CoercionKind::DuplicateField => "duplicate_field",
            CoercionKind::MisnamedMember => "misnamed_member",
            CoercionKind::BoolAsFlag => "bool_as_flag",
            CoercionKind::InvalidType { .. } => "invalid_type",
            CoercionKind::OutOfRange => "out_of_range",
        }
    }

    /// [`Severity::Error`] when the value was dropped, [`Severity::Warning`] when it was kept.
    pub fn severity(self) -> Severity {
        match self {
            CoercionKind::InvalidType { .. }
            | CoercionKind::OutOfRange
            | CoercionKind::MisnamedMember => Severity::Error,
            _ => Severity::Warning,
        }
    }

    /// One sentence describing what was sent and what the decoder did; static text except for
    /// [`InvalidType`](CoercionKind::InvalidType), which names the types.
    pub fn message(self) -> Cow<'static, str> {
        Cow::Borrowed(match self {
            CoercionKind::NumberAsString => "number sent as a string; read as the number",
            CoercionKind::FloatAsInteger => {
                "integer sent with a fraction or exponent; read as the integer"
            }
            CoercionKind::Null => "null sent for an optional value; treated as absent",
            CoercionKind::SingleValue => {
                "single value where an array is expected; read as a one-element array"
            }
            CoercionKind::AdmObject => {
                "adm sent as a JSON object instead of a string (OpenRTB 2.6 §4.2.3); kept as raw JSON"
            }
            CoercionKind::NumericId => "identifier sent as a number; read as its decimal text",
            CoercionKind::DuplicateField => "member appears more than once; the last value is kept",
            CoercionKind::MisnamedMember => {
                "this member was sent under another case or form of its name (e.g. `Seatbid`, `bids`); \
                 member names are case-sensitive, so it was not read"
            }
            CoercionKind::BoolAsFlag => "boolean sent for a 0/1 flag; read as 1 or 0",
            CoercionKind::InvalidType { expected, found } => {
                return Cow::Owned(format!("expected {expected}, found {found}; ignored"));
            }
            CoercionKind::OutOfRange => {
                "number outside the member's range (a 64-bit signed integer, a finite 64-bit float); ignored"
            }
        })
    }
}

/// One coercion recorded while decoding an object: which member, which array element (if any), what was done.
///
/// Each of [`BidResponse`](crate::BidResponse), [`SeatBid`](crate::SeatBid) and [`Bid`](crate::Bid) keeps its
/// own list (empty, so unallocated, for a document in the spec's shape); [`Decoded`](crate::Decoded) turns them
/// into [`Issue`]s with full JSON pointers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Coercion {
    /// The member name as in the spec, e.g. `"price"`.
    pub field: &'static str,
    /// The array element, for a coercion of one element (e.g. `"attr":[1,"2"]` → `Some(1)`).
    pub index: Option<u32>,
    /// What was done.
    pub kind: CoercionKind,
    /// Position among all coercions of the document being decoded (document order across nesting levels).
    pub order: u32,
}

/// Issues found past [`MAX_ISSUES`](crate::checks::MAX_ISSUES) and not listed: how many of each code and
/// severity, so that totals (`summary.errors`/`warnings`, a server's issue metrics) count every issue found,
/// not only the listed ones. Few distinct codes exist, so a short list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Unlisted(Vec<(&'static str, Severity, usize)>);

impl Unlisted {
    /// Counts one more unlisted issue of `code` and `severity`.
    pub fn add(&mut self, code: &'static str, severity: Severity) {
        match self
            .0
            .iter_mut()
            .find(|(c, s, _)| *c == code && *s == severity)
        {
            Some((_, _, n)) => *n += 1,
            None => self.0.push((code, severity, 1)),
        }
    }

    /// Unlisted issues of `severity`.
    pub fn count(&self, severity: Severity) -> usize {
        self.0
            .iter()
            .filter(|(_, s, _)| *s == severity)
            .map(|(_, _, n)| n)
            .sum()
    }

    /// Each code and severity with its count, in the order first seen.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, Severity, usize)> + '_ {
        self.0.iter().copied()
    }

    /// No issue left unlisted.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}
