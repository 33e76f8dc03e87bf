//! Errors: what went wrong, where (byte offset, line, column) and in which value (JSON pointer).

use std::borrow::Cow;
use std::fmt;

/// What kind of problem stopped the decode.
///
/// The kinds follow RFC 8259's grammar; `Custom` covers everything the *target type* rejects (a serde visitor's
/// `invalid type`, `missing field`, `unknown variant`, or any `serde::de::Error::custom`).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// Bytes that cannot start or continue a JSON value here: a missing `,` `:` `]` `}`, a trailing comma, a
    /// non-string key, a misspelt literal (RFC 8259 §2–§5).
    Syntax,
    /// The input ended inside a value (or was empty).
    Eof,
    /// The input is not UTF-8 (RFC 8259 §8.1). Checked for the whole document before decoding starts.
    InvalidUtf8,
    /// A backslash followed by anything but `" \ / b f n r t u`, or `\u` without four hex digits (RFC 8259 §7).
    InvalidEscape,
    /// A `\uD800`–`\uDFFF` escape that is not part of a high + low surrogate pair (RFC 8259 §7, §8.2).
    LoneSurrogate,
    /// A raw byte below 0x20 inside a string (RFC 8259 §7: control characters must be escaped).
    ControlCharacter,
    /// A number outside RFC 8259 §6's grammar (leading zero, `+`, `.5`, `1.`, `NaN`...) or one whose value rounds
    /// to ±infinity in `f64` ("number out of range", as serde_json says).
    InvalidNumber,
    /// Non-whitespace after the top-level value, or elements left in a sequence the target type stopped reading.
    TrailingCharacters,
    /// Containers nested deeper than [`ReaderConfig::max_depth`](crate::ReaderConfig::max_depth).
    DepthLimit,
    /// Raised by the target type (serde `Error::custom`, invalid type, missing or unknown field...).
    Custom,
}

impl ErrorKind {
    /// A stable snake_case name for logs, metrics labels and API error codes, e.g. `"invalid_number"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Syntax => "syntax",
            ErrorKind::Eof => "eof",
            ErrorKind::InvalidUtf8 => "invalid_utf8",
            ErrorKind::InvalidEscape => "invalid_escape",
            ErrorKind::LoneSurrogate => "lone_surrogate",
            ErrorKind::ControlCharacter => "control_character",
            ErrorKind::InvalidNumber => "invalid_number",
            ErrorKind::TrailingCharacters => "trailing_characters",
            ErrorKind::DepthLimit => "depth_limit",
            ErrorKind::Custom => "custom",
        }
    }
}

/// A decode failure. Displays as `<message> at line L column C (byte B) at /json/pointer` (the pointer part only
/// when it is known and not the document root).
///
/// Boxed, so `Result<T, Error>` stays one pointer wide on the happy path.
pub struct Error {
    inner: Box<Inner>,
}

struct Inner {
    kind: ErrorKind,
    message: Cow<'static, str>,
    byte: usize,
    line: usize,
    column: usize,
    path: Option<String>,
    /// False for a `serde::de::Error::custom` error until the reader attaches where it happened.
    positioned: bool,
}

impl Error {
    /// An error at a known place. `line`/`column` are 1-based, `column` counts bytes.
    pub(crate) fn at(
        kind: ErrorKind,
        message: impl Into<Cow<'static, str>>,
        place: Place,
        path: Option<String>,
    ) -> Error {
        Error {
            inner: Box::new(Inner {
                kind,
                message: message.into(),
                byte: place.byte,
                line: place.line,
                column: place.column,
                path,
                positioned: true,
            }),
        }
    }

    pub(crate) fn is_positioned(&self) -> bool {
        self.inner.positioned
    }

    /// Attaches a place and path to an error raised without one (serde `custom`); keeps an existing place.
    pub(crate) fn with_place(mut self, place: Place, path: Option<String>) -> Error {
        if !self.inner.positioned {
            let inner = &mut self.inner;
            inner.byte = place.byte;
            inner.line = place.line;
            inner.column = place.column;
            inner.path = path;
            inner.positioned = true;
        }
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.inner.kind
    }

    /// Byte offset into the input where the problem was found (0-based).
    pub fn byte(&self) -> usize {
        self.inner.byte
    }

    /// 1-based line of [`byte`](Self::byte) (lines end at `\n`).
    pub fn line(&self) -> usize {
        self.inner.line
    }

    /// 1-based column of [`byte`](Self::byte), counted in bytes from the start of its line.
    pub fn column(&self) -> usize {
        self.inner.column
    }

    /// JSON pointer (RFC 6901) of the value being decoded, e.g. `/seatbid/0/bid/3/price`; `""` is the whole
    /// document. `None` when the error is not about one value (invalid UTF-8, trailing characters).
    pub fn path(&self) -> Option<&str> {
        self.inner.path.as_deref()
    }

    /// The message alone, without place or path, e.g. `"invalid escape"`.
    pub fn message(&self) -> String {
        self.inner.message.to_string()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = &self.inner;
        write!(
            f,
            "{} at line {} column {} (byte {})",
            i.message, i.line, i.column, i.byte
        )?;
        match i.path.as_deref() {
            Some(path) if !path.is_empty() => write!(f, " at {path}"),
            _ => Ok(()),
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = &self.inner;
        f.debug_struct("Error")
            .field("kind", &i.kind)
            .field("message", &i.message)
            .field("byte", &i.byte)
            .field("line", &i.line)
            .field("column", &i.column)
            .field("path", &i.path)
            .finish()
    }
}

impl std::error::Error for Error {}

impl serde::de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error {
            inner: Box::new(Inner {
                kind: ErrorKind::Custom,
                message: Cow::Owned(msg.to_string()),
                byte: 0,
                line: 0,
                column: 0,
                path: None,
                positioned: false,
            }),
        }
    }
}

/// Where an error happened: byte offset, 1-based line and byte column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    pub(crate) byte: usize,
    pub(crate) line: usize,
    pub(crate) column: usize,
}

/// Crate-wide result alias.
pub(crate) type Result<T, E = Error> = std::result::Result<T, E>;
