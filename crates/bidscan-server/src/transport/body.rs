//! Request bodies: receiving frames under the decompressed-size limit ([`collect`]), splitting NDJSON into lines
//! ([`Lines`]) and the `Content-Type` rule ([`check_content_type`]). A body left unread is noticed by
//! [`crate::routes::layers::unread`].
//!
//! Limits are enforced twice: `RequestBodyLimitLayer` bounds the bytes on the wire (compressed, before
//! [`crate::routes::layers::inflate`]), and [`collect`] bounds the decompressed bytes as they arrive, so a small gzip
//! body that inflates past the limit is refused (413) after reading at most `limit` bytes of its output.

use std::error::Error as StdError;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, header};
use bytes::{Bytes, BytesMut};
use http_body_util::BodyExt;

use crate::error::{ApiError, ErrorCode};
use crate::transport::memory::{OverBudget, Reservation};

/// A body received as the frames it arrived in (reference-counted, not copied).
#[derive(Debug, Default)]
pub struct Frames {
    /// Data frames in order.
    pub chunks: Vec<Bytes>,
    /// Sum of their lengths in bytes.
    pub len: usize,
}

impl Frames {
    /// The frames as slices, for [`Engine::answer`](crate::engine::decode::Engine::answer).
    pub fn slices(&self) -> impl Iterator<Item = &[u8]> {
        self.chunks.iter().map(|b| b.as_ref())
    }
}

/// Receives all data frames of `body`, refusing with 413 as soon as more than `limit` bytes have arrived, and with
/// 503 (an error with `Retry-After`) as soon as `reservation`, when given, cannot cover them.
///
/// # Errors
/// 413 past the limit (decompressed here, or on the wire as reported by the limit layer); 400 `bad_encoding` when
/// the compressed body cannot be inflated; 400 when the body cannot be read (client went away); 503 past the
/// memory budget (the decoded bytes here, a decoder's memory in [`Inflated::within`]).
///
/// [`Inflated::within`]: crate::routes::layers::inflate::Inflated::within
pub async fn collect(
    body: Body,
    limit: usize,
    mut reservation: Option<&mut Reservation>,
) -> Result<Frames, ApiError> {
    let mut body = body;
    let mut frames = Frames::default();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| read_error(&e, limit))?;
        if let Ok(data) = frame.into_data() {
            frames.len += data.len();
            if frames.len > limit {
                return Err(ApiError::too_large(limit, "the decompressed body"));
            }
            if let Some(reservation) = reservation.as_deref_mut()
                && !reservation.cover(frames.len)
            {
                return Err(ApiError::memory(0));
            }
            if !data.is_empty() {
                frames.chunks.push(data);
            }
        }
    }
    Ok(frames)
}

/// Maps a body read error: the wire limit (`LengthLimitError` somewhere in the source chain) is 413, a decoder's
/// memory past the budget ([`OverBudget`]) 503 with `Retry-After`, a body idle timeout 408, an inflate error (an `io::Error` from the decompressor) 400 `bad_encoding`, anything else 400
/// `bad_body`.
pub fn read_error(e: &axum::Error, limit: usize) -> ApiError {
    let mut source: Option<&(dyn StdError + 'static)> = Some(e);
    while let Some(s) = source {
        if s.is::<http_body_util::LengthLimitError>() {
            return ApiError::too_large(limit, "the request body");
        }
        if s.is::<OverBudget>() {
            return ApiError::memory(0);
        }
        if s.is::<tower_http::timeout::TimeoutError>() {
            return ApiError::new(
                ErrorCode::Timeout,
                "no part of the body arrived within the request timeout",
            );
        }
        if s.is::<std::io::Error>() {
            return ApiError::new(
                ErrorCode::BadEncoding,
                format!("the body could not be decompressed: {s}"),
            );
        }
        source = s.source();
    }
    ApiError::new(
        ErrorCode::BadBody,
        format!("the body could not be read: {e}"),
    )
}

/// Which bodies a route takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accepts {
    /// One JSON document.
    Json,
    /// Newline-delimited JSON.
    Ndjson,
}

/// Whether a `Content-Type` value is exactly `application/json`: what nearly every bidder sends, accepted before
/// the general reading of [`check_content_type`] (and by the pipeline without it).
pub(crate) fn is_application_json(value: &HeaderValue) -> bool {
    value.as_bytes() == b"application/json"
}

/// Checks `Content-Type`. Accepted: none; `application/json`; `application/*+json`; `text/plain`;
/// `application/octet-stream`; and `application/x-www-form-urlencoded`, which `curl --data-binary` sends
/// unless told otherwise — refusing it would break the obvious first try while gaining nothing, since the body
/// is parsed as JSON whatever the label. NDJSON routes also take `application/x-ndjson`, `application/ndjson`,
/// `application/jsonl` and `application/jsonlines`. Anything else (`text/xml`, `multipart/form-data`, ...) is 415.
/// An empty value is taken as no `Content-Type` at all. Two `Content-Type` lines are 415 (a singleton field, RFC
/// 9110 §5.3), as is a value that is not ASCII. A `charset` parameter (any of them) other than UTF-8 (or its subset
/// US-ASCII) is 415: JSON exchanged between systems is UTF-8 (RFC 8259 §8.1), and the body is read as UTF-8.
///
/// # Errors
/// 415 `unsupported_media_type`.
pub fn check_content_type(headers: &HeaderMap, accepts: Accepts) -> Result<(), ApiError> {
    let mut values = headers.get_all(header::CONTENT_TYPE).iter();
    let Some(value) = values.next() else {
        return Ok(());
    };
    if values.next().is_some() {
        return Err(ApiError::repeated_media_type());
    }
    if is_application_json(value) {
        return Ok(());
    }
    if value.as_bytes().iter().all(u8::is_ascii_whitespace) {
        return Ok(());
    }
    let Ok(raw) = value.to_str() else {
        return Err(ApiError::media_type(&String::from_utf8_lossy(
            value.as_bytes(),
        )));
    };
    // Media types are case-insensitive (RFC 9110 §8.3.1); compared without lower-casing into a new string.
    let mut parts = raw.split(';');
    let essence = parts.next().unwrap_or("").trim();
    // Every `charset` parameter counts: `charset=utf-8; charset=latin1` is not UTF-8 for certain.
    if let Some(charset) = parts.filter_map(charset_of).find(|charset| {
        !["utf-8", "utf8", "us-ascii"]
            .into_iter()
            .any(|ok| charset.eq_ignore_ascii_case(ok))
    }) {
        return Err(ApiError::charset(charset));
    }
    if is_protobuf_essence(essence) {
        return Err(ApiError::protobuf_not_here(
            raw,
            match accepts {
                Accepts::Json => {
                    "/validate reads a JSON envelope; protobuf is read as parts of /validate/auction (a protobuf bid \
                     response alone by /decode)"
                }
                Accepts::Ndjson => {
                    "the batch routes read NDJSON (one JSON document a line); send protobuf bid responses one \
                     at a time to /decode"
                }
            },
        ));
    }
    let is = |name: &str| essence.eq_ignore_ascii_case(name);
    let json_like = is("application/json")
        || is_structured_json(essence)
        || [
            "text/plain",
            "application/octet-stream",
            "application/x-www-form-urlencoded",
        ]
        .into_iter()
        .any(is);
    let ndjson = [
        "application/x-ndjson",
        "application/ndjson",
        "application/jsonl",
        "application/jsonlines",
    ]
    .into_iter()
    .any(is);
    if json_like || (accepts == Accepts::Ndjson && ndjson) {
        Ok(())
    } else {
        Err(ApiError::media_type(raw))
    }
}

/// The protobuf media types a body is read as a protobuf message under, compared case-insensitively (RFC 9110
/// §8.3.1), parameters allowed: `application/x-protobuf` (what most OpenRTB exchanges send),
/// `application/protobuf` (the IETF draft `draft-ietf-dispatch-mime-protobuf`) and
/// `application/vnd.google.protobuf`.
pub const PROTOBUF_TYPES: [&str; 3] = [
    "application/x-protobuf",
    "application/protobuf",
    "application/vnd.google.protobuf",
];

/// Whether a media type's essence (its type/subtype, parameters removed) is one of [`PROTOBUF_TYPES`].
fn is_protobuf_essence(essence: &str) -> bool {
    PROTOBUF_TYPES
        .iter()
        .any(|name| essence.trim().eq_ignore_ascii_case(name))
}

/// The `Content-Type` of `headers` when it is one line naming a protobuf media type ([`PROTOBUF_TYPES`], any
/// parameters), else `None` (no line, two lines, or any other type: [`check_content_type`] answers those).
pub fn protobuf_type(headers: &HeaderMap) -> Option<&str> {
    let mut values = headers.get_all(header::CONTENT_TYPE).iter();
    let value = values.next()?;
    if values.next().is_some() {
        return None;
    }
    let raw = value.to_str().ok()?;
    is_protobuf_essence(raw.split(';').next().unwrap_or("")).then_some(raw)
}

/// Whether `essence` is `application/<name>+json` (RFC 6839 §3.1, the `+json` structured syntax suffix),
/// case-insensitively, `<name>` being a non-empty token (RFC 9110 §5.6.2: no spaces, `/` or other delimiters).
fn is_structured_json(essence: &str) -> bool {
    let (prefix, suffix) = ("application/".len(), "+json".len());
    let b = essence.as_bytes();
    b.len() > prefix + suffix
        && b[..prefix].eq_ignore_ascii_case(b"application/")
        && b[b.len() - suffix..].eq_ignore_ascii_case(b"+json")
        && b[prefix..b.len() - suffix].iter().all(|&c| is_tchar(c))
}

/// `tchar` (RFC 9110 §5.6.2).
fn is_tchar(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&c)
}

/// The value of a `charset=...` media-type parameter (quotes removed), if `param` is one (RFC 9110 §8.3.1).
fn charset_of(param: &str) -> Option<&str> {
    let (name, value) = param.split_once('=')?;
    name.trim()
        .eq_ignore_ascii_case("charset")
        .then(|| value.trim().trim_matches('"'))
}

/// Splits a stream of frames into lines (`\n`-terminated; a final unterminated line counts; `\r` before `\n` is
/// removed). Each line is held to `limit` bytes.
#[derive(Debug, Default)]
pub struct Lines {
    pending: BytesMut,
    limit: usize,
}

/// One input line, or an over-long line that was skipped.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A complete line without its terminator.
    Full(Bytes),
    /// A line longer than the limit; its bytes were discarded up to its end.
    TooLong,
}

impl Lines {
    /// A splitter holding each line to `limit` bytes.
    pub fn new(limit: usize) -> Lines {
        Lines {
            pending: BytesMut::new(),
            limit,
        }
    }

    /// Adds a frame and returns the lines it completed.
    pub fn push(&mut self, frame: &[u8]) -> Vec<Line> {
        let mut out = Vec::new();
        let mut rest = frame;
        while let Some(nl) = rest.iter().position(|&b| b == b'\n') {
            self.extend(&rest[..nl]);
            out.push(self.take());
            rest = &rest[nl + 1..];
        }
        self.extend(rest);
        out
    }

    /// Bytes of the line not yet complete that are held (at most the limit and one).
    pub fn pending_len(&self) -> usize {
        self.pending.len()
    }

    /// The last line, if the input did not end with `\n`.
    pub fn finish(&mut self) -> Option<Line> {
        (!self.pending.is_empty() || self.too_long()).then(|| self.take())
    }

    fn too_long(&self) -> bool {
        self.pending.len() > self.limit
    }

    fn extend(&mut self, bytes: &[u8]) {
        // Past the limit, keep one byte more than the limit as the marker and drop the rest.
        let room = (self.limit + 1).saturating_sub(self.pending.len());
        self.pending
            .extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    fn take(&mut self) -> Line {
        if self.too_long() {
            self.pending.clear();
            return Line::TooLong;
        }
        let mut line = self.pending.split().freeze();
        if line.last() == Some(&b'\r') {
            line.truncate(line.len() - 1);
        }
        Line::Full(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::{HeaderValue, StatusCode};

    fn ct(v: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::CONTENT_TYPE, HeaderValue::from_str(v).unwrap());
        h
    }

    #[test]
    fn content_types() {
        assert!(check_content_type(&HeaderMap::new(), Accepts::Json).is_ok());
        for ok in [
            "application/json",
            "application/json; charset=utf-8",
            "application/vnd.x+json",
            "Application/JSON; charset=utf-8",
            "APPLICATION/VND.X+JSON",
            "text/plain",
        ] {
            assert!(check_content_type(&ct(ok), Accepts::Json).is_ok(), "{ok}");
        }
        for bad in [
            "text/xml",
            "application/xml",
            "multipart/form-data; boundary=x",
            "text/html",
            "application+json",
            "application/+json",
            "application/+JSON; charset=utf-8",
            "application/a/b+json",
            "application/ +json",
            "application/a b+json",
        ] {
            let e = check_content_type(&ct(bad), Accepts::Json).unwrap_err();
            assert_eq!(e.status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{bad}");
        }
        // An empty value is no value; a charset other than UTF-8 is refused (RFC 8259 §8.1).
        for ok in [
            "",
            "  ",
            "application/json;charset=\"UTF-8\"",
            "text/plain; charset=us-ascii",
        ] {
            assert!(check_content_type(&ct(ok), Accepts::Json).is_ok(), "{ok:?}");
        }
        for bad in [
            "application/json; charset=utf-16",
            "application/json;charset=\"ISO-8859-1\"",
            "application/json; charset=utf-8; charset=latin1",
            "text/plain; charset=latin1; charset=utf-8",
        ] {
            let e = check_content_type(&ct(bad), Accepts::Json).unwrap_err();
            assert_eq!(e.status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{bad}");
            assert!(e.message.contains("UTF-8"), "{}", e.message);
        }
        assert!(check_content_type(&ct("application/x-ndjson"), Accepts::Json).is_err());
        assert!(check_content_type(&ct("application/x-ndjson"), Accepts::Ndjson).is_ok());
    }

    /// Content-Type is a singleton field (RFC 9110 §5.3, §8.3): two lines are refused whatever they say, and a
    /// value that is not ASCII is named in the message rather than shown as empty.
    #[test]
    fn two_content_types_and_non_ascii_values_are_refused_by_name() {
        for pair in [
            ["application/json", "text/xml"],
            ["text/xml", "application/json"],
            ["application/json", "application/json"],
        ] {
            let mut h = HeaderMap::new();
            for v in pair {
                h.append(header::CONTENT_TYPE, HeaderValue::from_static(v));
            }
            let e = check_content_type(&h, Accepts::Json).unwrap_err();
            assert_eq!(e.status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{pair:?}");
            assert!(e.message.contains("two Content-Type"), "{}", e.message);
        }
        let mut h = HeaderMap::new();
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_bytes("text/xml; x=ü".as_bytes()).unwrap(),
        );
        let e = check_content_type(&h, Accepts::Json).unwrap_err();
        assert_eq!(e.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
        assert!(e.message.contains("text/xml; x="), "{}", e.message);
    }

    #[test]
    fn lines_split_across_frames() {
        let mut l = Lines::new(100);
        assert_eq!(l.push(b"{\"a\""), vec![]);
        assert_eq!(
            l.push(b":1}\r\n\n{}"),
            vec![
                Line::Full(Bytes::from_static(b"{\"a\":1}")),
                Line::Full(Bytes::new())
            ]
        );
        assert_eq!(l.finish(), Some(Line::Full(Bytes::from_static(b"{}"))));
        assert_eq!(l.finish(), None);
    }

    #[test]
    fn long_lines_are_reported_not_kept() {
        let mut l = Lines::new(4);
        assert_eq!(l.push(b"123456789"), vec![]);
        assert_eq!(
            l.push(b"0\nok\n"),
            vec![Line::TooLong, Line::Full(Bytes::from_static(b"ok"))]
        );
        assert_eq!(l.push(b"12345"), vec![]);
        assert_eq!(l.finish(), Some(Line::TooLong));
    }
}
