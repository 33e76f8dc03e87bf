//! The `multipart/form-data` reader of an auction (RFC 7578 over RFC 2046 §5.1.1), over one buffered body: where
//! each part's content lies, its name, and the part headers an auction reads. A leaf: std and memchr only.
//!
//! The grammar read: an optional preamble; `--BOUNDARY` at the start of the body or after CRLF; transport padding
//! (spaces, tabs) and CRLF; the part's header lines up to an empty line; its content up to CRLF `--BOUNDARY`;
//! after the last part `--BOUNDARY--`, then an epilogue, ignored. Each part names itself with
//! `Content-Disposition: form-data; name="NAME"` (RFC 7578 §4.2; quoted or a token). Lines end with CRLF.
//!
//! What an auction makes of it: the part named `request` is the bid request, wherever it comes; every other
//! part is a bidder's response, the name its bidder (1–[`MAX_NAME`] bytes of `[A-Za-z0-9_.-]`), with an optional
//! `Content-Encoding` (returned as sent) and `X-Bidder-Status` ([`BidderStatus`]) instead of a body. Every part's
//! `Content-Type` (at most one) is returned as the place of its value in the body, uninterpreted. A field the reader
//! uses that is sent twice (`Content-Type`, `Content-Disposition`, `X-Bidder-Status`, a disposition's `name`) is
//! refused rather than one of its values chosen, and so is a control byte other than HTAB in any header line
//! (RFC 9110 §5.5). The content is returned as a byte range of the body, never copied, so the caller decodes each
//! part in place.

use std::fmt;
use std::ops::Range;

/// Longest bidder name, in bytes.
pub const MAX_NAME: usize = 64;

/// Longest boundary, in bytes (RFC 2046 §5.1.1: 1–70 characters).
pub const MAX_BOUNDARY: usize = 70;

/// Most header lines a part may have.
pub const MAX_PART_HEADERS: usize = 16;

/// Most bytes of a part's header block (its lines and their CRLFs).
pub const MAX_HEADER_BYTES: usize = 8 * 1024;

/// The `X-Bidder-Status` of a part: what an exchange got instead of a body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BidderStatus {
    /// `timeout`: the bidder did not answer in time.
    Timeout,
    /// `unreachable`: the bidder could not be reached.
    Unreachable,
    /// `http-NNN`: the bidder answered HTTP status NNN (100–599).
    Http(u16),
}

impl BidderStatus {
    /// `timeout`, `unreachable` or `http-NNN` (ASCII case ignored, surrounding spaces and tabs trimmed).
    pub fn parse(value: &[u8]) -> Option<BidderStatus> {
        let value = trim(value);
        if value.eq_ignore_ascii_case(b"timeout") {
            return Some(BidderStatus::Timeout);
        }
        if value.eq_ignore_ascii_case(b"unreachable") {
            return Some(BidderStatus::Unreachable);
        }
        let digits = value
            .get(..5)
            .filter(|p| p.eq_ignore_ascii_case(b"http-"))
            .and_then(|_| value.get(5..))?;
        if digits.len() != 3 || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let code = digits
            .iter()
            .fold(0u16, |n, d| n * 10 + u16::from(d - b'0'));
        (100..=599)
            .contains(&code)
            .then_some(BidderStatus::Http(code))
    }
}

/// A bidder's part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BidderPart {
    /// The part's name: the bidder.
    pub name: String,
    /// Where the part's content lies in the body (empty for an empty body).
    pub content: Range<usize>,
    /// The part's `Content-Encoding` value as sent (its lines joined with `, `), if any.
    pub content_encoding: Option<String>,
    /// The part's `X-Bidder-Status`, if any: it stands instead of the content.
    pub status: Option<BidderStatus>,
    /// Where the part's `Content-Type` value lies in the body (spaces and tabs around it trimmed), if any.
    pub content_type: Option<Range<usize>>,
}

/// An auction's parts: the request's and each bidder's, in the order sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parts {
    /// Where the `request` part's content lies in the body.
    pub request: Range<usize>,
    /// The `request` part's `Content-Encoding`, if any.
    pub request_encoding: Option<String>,
    /// Where the `request` part's `Content-Type` value lies in the body (trimmed), if any.
    pub request_content_type: Option<Range<usize>>,
    /// Every other part.
    pub bidders: Vec<BidderPart>,
}

/// Why a body is not an auction's multipart body. Each is a 400 of the whole call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// `Content-Type` is not `multipart/form-data` with a usable `boundary` parameter (code
    /// `not_multipart`).
    NotMultipart(String),
    /// The body does not follow the multipart grammar (code `malformed_multipart`).
    Malformed(String),
    /// More parts than allowed (`server.max_auction_parts`), the request's included (code `too_many_parts`).
    TooManyParts(usize),
    /// A part's name is not a bidder's name (code `bad_bidder_name`).
    BadName(String),
    /// Two parts with the same name (code `duplicate_bidder`).
    DuplicateName(String),
    /// No part named `request` (code `missing_request`).
    MissingRequest,
    /// An `X-Bidder-Status` other than `timeout`, `unreachable` or `http-NNN`, or one on the request part (code
    /// `bad_bidder_status`).
    BadStatus(String),
}

impl Error {
    /// The error's code in the JSON error body.
    pub fn code(&self) -> &'static str {
        match self {
            Error::NotMultipart(_) => "not_multipart",
            Error::Malformed(_) => "malformed_multipart",
            Error::TooManyParts(_) => "too_many_parts",
            Error::BadName(_) => "bad_bidder_name",
            Error::DuplicateName(_) => "duplicate_bidder",
            Error::MissingRequest => "missing_request",
            Error::BadStatus(_) => "bad_bidder_status",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NotMultipart(what) => write!(f, "not multipart/form-data: {what}"),
            Error::Malformed(what) => write!(f, "malformed multipart body: {what}"),
            Error::TooManyParts(max) => write!(f, "more than {max} parts"),
            Error::BadName(name) => write!(
                f,
                "part name {name:?} is not a bidder name (1-{MAX_NAME} characters of A-Z a-z 0-9 _ . -)"
            ),
            Error::DuplicateName(name) => write!(f, "two parts named {name:?}"),
            Error::MissingRequest => f.write_str("no part named \"request\" (the bid request)"),
            Error::BadStatus(what) => write!(f, "X-Bidder-Status {what}"),
        }
    }
}

impl std::error::Error for Error {}

/// The `boundary` parameter of a `multipart/form-data` `Content-Type` value (RFC 7578 §4.1, RFC 2046 §5.1.1;
/// the type compared ASCII case-insensitively, the value quoted or a token).
///
/// # Errors
/// [`Error::NotMultipart`]: another type, no boundary, or one that is empty, over [`MAX_BOUNDARY`] bytes or holds
/// a control character.
pub fn boundary(content_type: &str) -> Result<&str, Error> {
    let mut params = content_type.split(';');
    let kind = params.next().unwrap_or("").trim();
    if !kind.eq_ignore_ascii_case("multipart/form-data") {
        return Err(Error::NotMultipart(format!("Content-Type {kind:?}")));
    }
    let value = params
        .filter_map(|p| p.split_once('='))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("boundary"))
        .map(|(_, v)| v.trim())
        .ok_or_else(|| Error::NotMultipart("no boundary parameter".to_owned()))?;
    let value = value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or(value);
    if value.is_empty() || value.len() > MAX_BOUNDARY || value.bytes().any(|b| b.is_ascii_control())
    {
        return Err(Error::NotMultipart(format!(
            "boundary {value:?} (1-{MAX_BOUNDARY} characters)"
        )));
    }
    Ok(value)
}

/// Reads the parts of `body` delimited by `boundary` (see the module docs). At most `max_parts` parts; a name
/// is checked, and a part's content located, as it is read.
///
/// # Errors
/// [`Error::Malformed`] (no first or closing delimiter, a line without CRLF, a header line without `:`, more than
/// [`MAX_PART_HEADERS`] lines or [`MAX_HEADER_BYTES`] bytes of headers, a control byte other than HTAB in a header
/// line (RFC 9110 §5.5), a part without a name, a part with two `Content-Type`, `Content-Disposition` or
/// `X-Bidder-Status` headers, a disposition with two `name` parameters),
/// [`Error::TooManyParts`], [`Error::BadName`], [`Error::DuplicateName`], [`Error::MissingRequest`],
/// [`Error::BadStatus`]. Never panics.
pub fn read(body: &[u8], boundary: &str, max_parts: usize) -> Result<Parts, Error> {
    let finder = Delimiter {
        boundary: boundary.as_bytes(),
        cr: Byte::new(b'\r'),
    };
    let lf = Byte::new(b'\n');
    // The first delimiter: at the very start, or after the preamble's CRLF.
    let mut at = if body.starts_with(b"--") && body[2..].starts_with(boundary.as_bytes()) {
        finder.len() - 2
    } else {
        finder
            .find(body)
            .map(|i| i + finder.len())
            .ok_or_else(|| malformed("no delimiter line --BOUNDARY"))?
    };
    let mut request: Option<(Range<usize>, Head<'_>)> = None;
    // An auction has a handful of bidders: room for 8 spares the first reallocations.
    let mut bidders: Vec<BidderPart> = Vec::with_capacity(max_parts.min(8));
    let mut count = 0;
    loop {
        // After a delimiter: `--` closes the body; else padding, then CRLF.
        let rest = &body[at..];
        if rest.starts_with(b"--") {
            break;
        }
        let padding = rest.len() - trim_start(rest).len();
        if !rest[padding..].starts_with(b"\r\n") {
            return Err(malformed("a delimiter line not ended by CRLF"));
        }
        at += padding + 2;
        count += 1;
        if count > max_parts {
            return Err(Error::TooManyParts(max_parts));
        }
        let head = headers(body, &mut at, &lf)?;
        let start = at;
        let end = finder
            .find(&body[start..])
            .map(|i| start + i)
            .ok_or_else(|| malformed("no closing delimiter --BOUNDARY--"))?;
        at = end + finder.len();
        let name = head
            .name
            .ok_or_else(|| malformed("a part without Content-Disposition: form-data; name=…"))?;
        if name == b"request" {
            if request.is_some() {
                return Err(Error::DuplicateName("request".to_owned()));
            }
            if head.status.is_some() {
                return Err(Error::BadStatus("on the request part".to_owned()));
            }
            request = Some((start..end, head));
            continue;
        }
        let name = owned_bidder_name(name)?;
        if bidders
            .iter()
            .any(|b| same(b.name.as_bytes(), name.as_bytes()))
        {
            return Err(Error::DuplicateName(name));
        }
        let status = match head.status {
            None => None,
            Some(value) => Some(BidderStatus::parse(value).ok_or_else(|| {
                Error::BadStatus(format!(
                    "{:?}: not timeout, unreachable or http-NNN",
                    String::from_utf8_lossy(value)
                ))
            })?),
        };
        bidders.push(BidderPart {
            name,
            content: start..end,
            content_encoding: head.encoding,
            status,
            content_type: head.content_type,
        });
    }
    let (request, head) = request.ok_or(Error::MissingRequest)?;
    Ok(Parts {
        request,
        request_encoding: head.encoding,
        request_content_type: head.content_type,
        bidders,
    })
}

/// The delimiter `CRLF--BOUNDARY`, found by its CR: a part's content is mostly JSON, where a CR is rare (none in
/// compact JSON), so one `memchr` pass over the content finds it. A general substring search picks its own rare
/// bytes from the boundary (dashes, letters), which JSON is full of, and cost 10× more per byte.
struct Delimiter<'d> {
    boundary: &'d [u8],
    cr: Byte,
}

impl Delimiter<'_> {
    /// The delimiter's length in bytes, its CRLF included.
    fn len(&self) -> usize {
        self.boundary.len() + 4
    }

    /// The offset of the first delimiter in `haystack`.
    #[inline]
    fn find(&self, haystack: &[u8]) -> Option<usize> {
        let mut from = 0;
        loop {
            let i = from + self.cr.find(&haystack[from..])?;
            if let Some(&[b'\r', b'\n', b'-', b'-', ref rest @ ..]) = haystack.get(i..)
                && rest.starts_with(self.boundary)
            {
                return Some(i);
            }
            from = i + 1;
        }
    }
}

/// `memchr` for one byte, its implementation chosen once per body rather than at each call: a part's header lines
/// are short, and the dispatch of `memchr::memchr` (~30 instructions) is about 40% of a search that finds its byte
/// within 32 bytes.
enum Byte {
    #[cfg(target_arch = "x86_64")]
    Avx2(memchr::arch::x86_64::avx2::memchr::One),
    Any(u8),
}

impl Byte {
    fn new(byte: u8) -> Byte {
        #[cfg(target_arch = "x86_64")]
        if let Some(one) = memchr::arch::x86_64::avx2::memchr::One::new(byte) {
            return Byte::Avx2(one);
        }
        Byte::Any(byte)
    }

    /// The offset of the byte's first occurrence in `haystack`.
    #[inline]
    fn find(&self, haystack: &[u8]) -> Option<usize> {
        match self {
            #[cfg(target_arch = "x86_64")]
            Byte::Avx2(one) => one.find(haystack),
            Byte::Any(byte) => memchr::memchr(*byte, haystack),
        }
    }
}

/// The headers of a part that an auction reads.
struct Head<'b> {
    name: Option<&'b [u8]>,
    encoding: Option<String>,
    status: Option<&'b [u8]>,
    content_type: Option<Range<usize>>,
}

/// The header fields an auction reads, each matched ASCII case-insensitively.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Disposition,
    Encoding,
    Status,
    Type,
    Other,
}

const CONTENT_: Word = Word::new(b"content-");
const DISPOSITION: Word = Word::new(b"disposition");
const ENCODING: Word = Word::new(b"encoding");
const TYPE: Word = Word::new(b"type");
const X_BIDDER_STATUS: Word = Word::new(b"x-bidder-status");
const FORM_DATA: Word = Word::new(b"form-data");
const NAME_EQ: Word = Word::new(b"name=");

/// Reads a part's header lines from `*at` through the empty line, leaving `*at` at the content's start. Each line
/// is found by one `memchr` for its LF and its field told from its first bytes, without a search for `:` unless
/// the field is spelled in an unusual way (space before it, an unknown name).
fn headers<'b>(body: &'b [u8], at: &mut usize, lf: &Byte) -> Result<Head<'b>, Error> {
    let mut head = Head {
        name: None,
        encoding: None,
        status: None,
        content_type: None,
    };
    let start = *at;
    let mut disposition = false;
    for _ in 0..=MAX_PART_HEADERS {
        let line_start = *at;
        let rest = &body[line_start..];
        // The empty line ending the headers, without a search.
        if rest.starts_with(b"\r\n") {
            *at += 2;
            if *at - start > MAX_HEADER_BYTES {
                return Err(malformed("a part's headers over 8 KiB"));
            }
            return Ok(head);
        }
        let window = &rest[..rest.len().min(MAX_HEADER_BYTES)];
        let Some(eol) = lf
            .find(window)
            .filter(|&n| n > 0 && window[n - 1] == b'\r')
            .map(|n| n - 1)
        else {
            if window.len() < rest.len() && memchr::memchr(b'\n', window).is_none() {
                return Err(malformed("a part's headers over 8 KiB"));
            }
            return Err(malformed("a part's header line not ended by CRLF"));
        };
        let line = &rest[..eol];
        *at += eol + 2;
        if *at - start > MAX_HEADER_BYTES {
            return Err(malformed("a part's headers over 8 KiB"));
        }
        if line.is_empty() {
            return Ok(head);
        }
        // RFC 9110 §5.5: no control byte but HTAB in a field (CR and LF only end the line).
        if line.iter().any(|&b| (b < 0x20 && b != b'\t') || b == 0x7f) {
            return Err(malformed("a control byte in a part's header line"));
        }
        let (field, colon) = field(line)?;
        let after = &line[colon + 1..];
        let lead = after.len() - trim_start(after).len();
        let value = trim_end(&after[lead..]);
        match field {
            Field::Disposition => {
                if disposition {
                    return Err(malformed("a part with two Content-Disposition headers"));
                }
                disposition = true;
                head.name = disposition_name(value)?;
            }
            Field::Encoding => {
                let value = std::str::from_utf8(value)
                    .map_err(|_| malformed("a Content-Encoding that is not text"))?;
                head.encoding = Some(match head.encoding.take() {
                    Some(before) => format!("{before}, {value}"),
                    None => value.to_owned(),
                });
            }
            Field::Status => {
                if head.status.is_some() {
                    return Err(malformed("a part with two X-Bidder-Status headers"));
                }
                head.status = Some(value);
            }
            Field::Type => {
                if head.content_type.is_some() {
                    return Err(malformed("a part with two Content-Type headers"));
                }
                let from = line_start + colon + 1 + lead;
                head.content_type = Some(from..from + value.len());
            }
            Field::Other => {}
        }
    }
    Err(malformed("a part with more than 16 header lines"))
}

/// A header line's field and the offset of its `:` (the first in the line).
///
/// # Errors
/// [`Error::Malformed`] for a line without `:`.
fn field(line: &[u8]) -> Result<(Field, usize), Error> {
    // The usual spelling: the name at the line's start, then spaces or tabs, then `:`.
    let (field, name_len) = if CONTENT_.starts(line) {
        let rest = &line[CONTENT_.len..];
        match rest.first().map(|b| b | 0x20) {
            Some(b'd') if DISPOSITION.starts(rest) => {
                (Field::Disposition, CONTENT_.len + DISPOSITION.len)
            }
            Some(b'e') if ENCODING.starts(rest) => (Field::Encoding, CONTENT_.len + ENCODING.len),
            Some(b't') if TYPE.starts(rest) => (Field::Type, CONTENT_.len + TYPE.len),
            _ => (Field::Other, 0),
        }
    } else if X_BIDDER_STATUS.starts(line) {
        (Field::Status, X_BIDDER_STATUS.len)
    } else {
        (Field::Other, 0)
    };
    if field != Field::Other {
        if line.get(name_len) == Some(&b':') {
            return Ok((field, name_len));
        }
        let after = &line[name_len..];
        let colon = name_len + after.len() - trim_start(after).len();
        if line.get(colon) == Some(&b':') {
            return Ok((field, colon));
        }
    }
    // Any other spelling: the field is what comes before the first `:`, trimmed.
    let colon = memchr::memchr(b':', line).ok_or_else(|| malformed("a header line without ':'"))?;
    let name = trim(&line[..colon]);
    let field = if name.eq_ignore_ascii_case(b"content-disposition") {
        Field::Disposition
    } else if name.eq_ignore_ascii_case(b"content-encoding") {
        Field::Encoding
    } else if name.eq_ignore_ascii_case(b"x-bidder-status") {
        Field::Status
    } else if name.eq_ignore_ascii_case(b"content-type") {
        Field::Type
    } else {
        Field::Other
    };
    Ok((field, colon))
}

/// A word of ASCII (lower-case letters and punctuation such as `-`, `=`; 1–24 bytes) matched at the start of a text ASCII
/// case-insensitively, 8 bytes at a time: each loaded byte OR-ed with 0x20 where the word has a letter (only that
/// letter's two cases give it) and compared with the word.
struct Word {
    text: &'static [u8],
    len: usize,
    /// `(offset, word bytes, case bits, kept bits)` of each 8-byte load, at offsets 0, 8, 16, the last moved back
    /// to end at `len` (a word under 8 bytes: one load, its bytes past `len` not kept).
    chunks: [(usize, u64, u64, u64); 3],
    count: usize,
}

impl Word {
    const fn new(text: &'static [u8]) -> Word {
        let len = text.len();
        assert!(len > 0 && len <= 24);
        let mut chunks = [(0, 0, 0, 0); 3];
        let mut count = 0;
        let mut offset = 0;
        while offset < len {
            let at = if offset + 8 > len && len >= 8 {
                len - 8
            } else {
                offset
            };
            let (mut word, mut fold, mut keep) = (0u64, 0u64, 0u64);
            let mut i = 0;
            while i < 8 && at + i < len {
                let b = text[at + i];
                word |= (b as u64) << (8 * i);
                keep |= 0xff << (8 * i);
                if b.is_ascii_lowercase() {
                    fold |= 0x20 << (8 * i);
                }
                i += 1;
            }
            chunks[count] = (at, word, fold, keep);
            count += 1;
            offset += 8;
        }
        Word {
            text,
            len,
            chunks,
            count,
        }
    }

    /// Whether `text` starts with the word, ASCII case ignored (as `eq_ignore_ascii_case`).
    #[inline]
    fn starts(&self, text: &[u8]) -> bool {
        if text.len() < self.len {
            return false;
        }
        if text.len() < 8 {
            return text[..self.len].eq_ignore_ascii_case(self.text);
        }
        self.chunks[..self.count]
            .iter()
            .all(|&(at, word, fold, keep)| {
                let Some(Ok(bytes)) = text.get(at..at + 8).map(<[u8; 8]>::try_from) else {
                    return false;
                };
                (u64::from_le_bytes(bytes) | fold) & keep == word
            })
    }
}

/// The `name` parameter of a `form-data` disposition (quoted, with `\` escaping the next byte, or a token); two
/// `name` parameters are [`Error::Malformed`], as the name they give is ambiguous.
fn disposition_name(value: &[u8]) -> Result<Option<&[u8]>, Error> {
    // The usual spelling, `form-data;`, told without a search.
    let kind_end = if FORM_DATA.starts(value) && value.get(FORM_DATA.len) == Some(&b';') {
        FORM_DATA.len
    } else {
        let kind_end = memchr::memchr(b';', value).unwrap_or(value.len());
        if !trim(&value[..kind_end]).eq_ignore_ascii_case(b"form-data") {
            return Err(malformed("a Content-Disposition other than form-data"));
        }
        kind_end
    };
    let mut rest = &value[kind_end..];
    let mut found = None;
    while let Some(b';') = rest.first() {
        rest = trim_start(&rest[1..]);
        // The usual spelling, `name=`, told without a search.
        let (is_name, after) = if NAME_EQ.starts(rest) {
            (true, &rest[NAME_EQ.len..])
        } else {
            let eq = rest.iter().position(|b| matches!(b, b'=' | b';'));
            let Some(eq) = eq.filter(|&e| rest[e] == b'=') else {
                rest = &rest[eq.unwrap_or(rest.len())..];
                continue;
            };
            let key = trim(&rest[..eq]);
            (key.eq_ignore_ascii_case(b"name"), &rest[eq + 1..])
        };
        let after = trim_start(after);
        let (param, next) = if let Some(quoted) = after.strip_prefix(b"\"") {
            // Up to the closing quote, `\` escaping the next byte.
            let mut i = 0;
            loop {
                let Some(n) = quoted
                    .get(i..)
                    .and_then(|q| q.iter().position(|&b| b == b'"' || b == b'\\'))
                else {
                    return Err(malformed("an unterminated quoted parameter"));
                };
                i += n;
                if quoted[i] == b'"' {
                    break;
                }
                i += 2;
            }
            let tail = trim_start(&quoted[i + 1..]);
            (&quoted[..i], tail)
        } else {
            let end = memchr::memchr(b';', after).unwrap_or(after.len());
            (trim(&after[..end]), &after[end..])
        };
        if is_name {
            if found.is_some() {
                return Err(malformed("a Content-Disposition with two name parameters"));
            }
            found = Some(param);
        }
        rest = next;
    }
    Ok(found)
}

/// `name` as a bidder's name: 1–[`MAX_NAME`] bytes of `[A-Za-z0-9_.-]`.
pub fn bidder_name(name: &[u8]) -> Result<&str, Error> {
    let ok = (1..=MAX_NAME).contains(&name.len())
        && name
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
    match std::str::from_utf8(name) {
        Ok(text) if ok => Ok(text),
        _ => Err(Error::BadName(
            String::from_utf8_lossy(&name[..name.len().min(MAX_NAME + 1)]).into_owned(),
        )),
    }
}

/// [`bidder_name`], owned: the name checked and copied in one pass (no UTF-8 validation: the bytes are ASCII).
fn owned_bidder_name(name: &[u8]) -> Result<String, Error> {
    if (1..=MAX_NAME).contains(&name.len())
        && name
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
    {
        let mut owned = String::with_capacity(name.len());
        owned.extend(name.iter().map(|&b| char::from(b)));
        return Ok(owned);
    }
    bidder_name(name).map(str::to_owned)
}

/// `a == b`, told apart by length and last byte first: names that differ mostly differ there (`b0`, `b1`), and
/// this spares a call to `memcmp`.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.last() == b.last() && a == b
}

fn malformed(what: &str) -> Error {
    Error::Malformed(what.to_owned())
}

/// `b` without its leading spaces and tabs.
fn trim_start(b: &[u8]) -> &[u8] {
    let n = b
        .iter()
        .position(|&c| c != b' ' && c != b'\t')
        .unwrap_or(b.len());
    &b[n..]
}

/// `b` without its trailing spaces and tabs.
fn trim_end(mut b: &[u8]) -> &[u8] {
    while let [rest @ .., b' ' | b'\t'] = b {
        b = rest;
    }
    b
}

/// `b` without its leading and trailing spaces and tabs.
fn trim(b: &[u8]) -> &[u8] {
    trim_end(trim_start(b))
}

/// The disjoint, ascending `ranges` of `body` as mutable slices, in the order given (a part's content decoded in
/// place). A range out of order or out of bounds gives an empty slice instead.
pub fn split_mut<'b>(body: &'b mut [u8], ranges: &[Range<usize>]) -> Vec<&'b mut [u8]> {
    let mut out = Vec::with_capacity(ranges.len());
    let mut rest = body;
    let mut offset = 0;
    for r in ranges {
        if r.start < offset || r.end < r.start || r.end - offset > rest.len() {
            out.push(<&mut [u8]>::default());
            continue;
        }
        let taken = std::mem::take(&mut rest);
        let (_, tail) = taken.split_at_mut(r.start - offset);
        let (part, tail) = tail.split_at_mut(r.end - r.start);
        out.push(part);
        rest = tail;
        offset = r.end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `field` as the generic rule reads it: the name before the first `:`, trimmed, compared ignoring case.
    fn field_by_rule(line: &[u8]) -> Option<(Field, usize)> {
        let colon = line.iter().position(|&b| b == b':')?;
        let name = trim(&line[..colon]);
        let field = [
            (&b"content-disposition"[..], Field::Disposition),
            (b"content-encoding", Field::Encoding),
            (b"x-bidder-status", Field::Status),
            (b"content-type", Field::Type),
        ]
        .into_iter()
        .find(|(n, _)| name.eq_ignore_ascii_case(n))
        .map_or(Field::Other, |(_, f)| f);
        Some((field, colon))
    }

    #[test]
    fn a_word_matches_as_eq_ignore_ascii_case() {
        for word in [
            &CONTENT_,
            &DISPOSITION,
            &ENCODING,
            &TYPE,
            &X_BIDDER_STATUS,
            &FORM_DATA,
            &NAME_EQ,
        ] {
            let text = word.text.to_ascii_uppercase();
            for at in 0..word.len {
                for byte in 0..=255u8 {
                    for tail in [&b""[..], b"x", b": value of some length"] {
                        let mut t = text.clone();
                        t[at] = byte;
                        t.extend_from_slice(tail);
                        assert_eq!(
                            word.starts(&t),
                            t[..word.len].eq_ignore_ascii_case(word.text),
                            "{:?}",
                            String::from_utf8_lossy(&t)
                        );
                        assert!(!word.starts(&t[..word.len - 1]));
                    }
                }
            }
        }
    }

    #[test]
    fn a_field_is_told_as_the_generic_rule_tells_it() {
        for line in [
            &b"Content-Disposition: form-data; name=\"a\""[..],
            b"content-disposition:form-data",
            b"CONTENT-TYPE \t: application/json",
            b" Content-Type: x",
            b"Content-Typex: x",
            b"Content-Type x: y",
            b"Content-Type",
            b"Content-Encoding: gzip",
            b"content-encodin: gzip",
            b"X-Bidder-Status: timeout",
            b"x-bidder-status:",
            b"Content-\rype: x",
            b"Content-Length: 3",
            b"Other: a:b",
            b"no colon",
            b"C",
        ] {
            let ours = field(line).ok();
            assert!(
                ours == field_by_rule(line),
                "{:?}",
                String::from_utf8_lossy(line)
            );
        }
    }
}
