//! The entry point: [`decode`] a body into a [`Decoded`] response, or a [`DecodeError`].

pub(crate) mod pair;
pub(crate) mod protobuf;

use std::fmt;

use bidscan_json::{Error as JsonError, ErrorKind, Reader};
use bidscan_markup::Inspector;

use crate::checks;
use crate::checks::issue::{Coercion, Issue, Severity, Unlisted};
use crate::checks::markup::{self, Markup};
use crate::checks::paths::{self, Object};
use crate::lenient::{Deferred, NOT_A_BID_RESPONSE, Refusal};
use crate::model::response::{BidResponse, ResponseSeed};
use crate::model::status::Status;

/// How deviations from the spec's shape are treated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Accept what real bidders send (numbers as strings, `null`, single values for arrays, object `adm`,
    /// numeric ids) and report each as an [`Issue`]; wrong-typed values are reported and read as absent.
    #[default]
    Lenient,
    /// The first such deviation (in document order) fails the decode with [`DecodeError::Strict`]. Validation
    /// findings never fail a decode, in either mode.
    Strict,
}

/// A decoded bid response with everything found about it.
#[derive(Clone, Debug, PartialEq)]
pub struct Decoded<'a> {
    /// Bid or no-bid.
    pub status: Status,
    /// The typed response (`Default::default()` for an empty body); strings borrow from the input.
    pub response: BidResponse<'a>,
    /// Coercions and type errors in document order, then validation findings in document order, then markup
    /// findings (at `…/bid/N/adm`) in document order.
    pub issues: Vec<Issue>,
    /// One [`Markup`] per bid in document order, when decoded by [`decode_inspected`]; empty otherwise.
    pub markup: Vec<Markup<'a>>,
    /// The issues found past [`MAX_ISSUES`](crate::checks::MAX_ISSUES), counted but not in `issues`.
    pub unlisted: Unlisted,
}

/// Why a body could not be decoded at all.
#[derive(Debug)]
pub enum DecodeError {
    /// Not JSON (RFC 8259): syntax, encoding, depth limit. An HTTP server answers 400.
    Malformed(JsonError),
    /// JSON, but not a bid response: the top level is not an object (an array, string, number, boolean,
    /// `null`), `seatbid` is a string, number or boolean, the body is XML/HTML, or an object with neither
    /// `seatbid` nor `nbr` has a member that is no bid response's (a bidder's error object such as
    /// `{"error":"timeout"}`; OpenRTB 2.6 §4.2.1). Code `not_a_bid_response`; an HTTP server answers 422.
    NotABidResponse {
        /// What was found.
        message: String,
        /// JSON pointer of the offending value (`""` for the whole body).
        path: String,
    },
    /// An OpenRTB 3.0 document: an object with a top-level `openrtb` member (OpenRTB 3.0 §3.1,
    /// `{"openrtb": {"ver": "3.0", …}}`) and neither `seatbid` nor `nbr`. Code `openrtb3_not_supported`; an
    /// HTTP server answers 422.
    Openrtb3NotSupported {
        /// What was found.
        message: String,
        /// JSON pointer of the document (`""` for the whole body, `/response` in a validation envelope).
        path: String,
    },
    /// Strict mode: the first deviation from the spec's shape. An HTTP server answers 422.
    Strict {
        /// JSON pointer of the value, e.g. `/seatbid/0/bid/3/price`.
        path: String,
        /// The issue code the value would get in lenient mode, e.g. `number_as_string`.
        code: &'static str,
        /// What was wrong.
        message: String,
    },
    /// `POST /validate`'s envelope is not usable (see [`decode_pair`](crate::decode_pair)): `not_an_envelope`,
    /// `not_a_bid_request` or `request_without_imp`. An HTTP server answers 422.
    InvalidEnvelope {
        /// `not_an_envelope`, `not_a_bid_request` or `request_without_imp`.
        code: &'static str,
        /// What was wrong.
        message: String,
        /// JSON pointer in the envelope, e.g. `/request/imp`.
        path: String,
    },
    /// Strict mode: the body starts with a UTF-8 byte order mark, which RFC 8259 §8.1 forbids senders to add
    /// (lenient mode ignores it with a `utf8_bom` warning). Code `malformed_json`, at byte 0; an HTTP server
    /// answers 400.
    ByteOrderMark,
}

impl DecodeError {
    /// `"malformed_json"`, `"not_a_bid_response"`, `"openrtb3_not_supported"`, the strict-mode issue code, or
    /// the envelope's code.
    pub fn code(&self) -> &'static str {
        match self {
            DecodeError::Malformed(_) | DecodeError::ByteOrderMark => "malformed_json",
            DecodeError::NotABidResponse { .. } => "not_a_bid_response",
            DecodeError::Openrtb3NotSupported { .. } => "openrtb3_not_supported",
            DecodeError::Strict { code, .. } | DecodeError::InvalidEnvelope { code, .. } => code,
        }
    }

    /// JSON pointer of the offending value when known.
    pub fn path(&self) -> Option<&str> {
        match self {
            DecodeError::Malformed(e) => e.path(),
            DecodeError::NotABidResponse { path, .. }
            | DecodeError::Openrtb3NotSupported { path, .. }
            | DecodeError::Strict { path, .. }
            | DecodeError::InvalidEnvelope { path, .. } => Some(path),
            DecodeError::ByteOrderMark => Some(""),
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Malformed(e) => write!(f, "malformed JSON: {e}"),
            DecodeError::NotABidResponse { message, path } if path.is_empty() => {
                f.write_str(message)
            }
            DecodeError::NotABidResponse { message, path } => write!(f, "{message} at {path}"),
            DecodeError::Openrtb3NotSupported { message, path } if path.is_empty() => {
                f.write_str(message)
            }
            DecodeError::Openrtb3NotSupported { message, path } => {
                write!(f, "{message} at {path}")
            }
            DecodeError::Strict {
                path,
                code,
                message,
            } => write!(f, "strict mode: {code} at {path}: {message}"),
            DecodeError::InvalidEnvelope { message, .. } => f.write_str(message),
            DecodeError::ByteOrderMark => f.write_str(
                "malformed JSON: a UTF-8 byte order mark (EF BB BF) at line 1 column 1 (byte 0); RFC 8259 §8.1 \
                 does not allow one (lenient mode ignores it)",
            ),
        }
    }
}

impl std::error::Error for DecodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DecodeError::Malformed(e) => Some(e),
            _ => None,
        }
    }
}

/// JSON whitespace (RFC 8259 §2).
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// The UTF-8 byte order mark, EF BB BF.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Decodes one bid-response body in place with `reader` (strings decoded over their escaped form and borrowed),
/// then records issues and validates (see [`Decoded::from_response`]).
///
/// An empty or all-whitespace body, `{}`, and an object with bid response members but no bids (no `seatbid`,
/// an empty one, or `nbr`) are no-bids (OpenRTB 2.6 §4.2.1, §7.1). A body whose first byte is `<` (XML, HTML),
/// and an object with neither `seatbid` nor `nbr` but a member that is no bid response's (`{"error":"timeout"}`),
/// are [`DecodeError::NotABidResponse`]; such an object with a top-level `openrtb` member is an OpenRTB 3.0
/// document, [`DecodeError::Openrtb3NotSupported`]. A member's name in another form (`Seatbid`) is not such a
/// member: it is the `misnamed_member` issue. Either refusal is made once the whole body is read, so a body that
/// is also not JSON is [`DecodeError::Malformed`].
///
/// A body that starts with a UTF-8 byte order mark ([`BOM`]) is decoded as if the mark were whitespace, with a
/// `utf8_bom` warning at path `""` (RFC 8259 §8.1: senders must not add one, parsers may ignore it); in strict
/// mode it is [`DecodeError::ByteOrderMark`]. Positions in errors and issues count the mark's three bytes. Never
/// panics on input.
pub fn decode<'a>(
    reader: &mut Reader,
    input: &'a mut [u8],
    mode: Mode,
) -> Result<Decoded<'a>, DecodeError> {
    decode_with(reader, input, mode, None)
}

/// [`decode`], then every bid's `adm` inspected with `inspector` (see [`markup`](crate::checks::markup)): `markup` gets one
/// entry per bid, `issues` the markup findings, and the summary's `adm` objects the details. Costs one pass over
/// each markup and one `Vec` per document; native JSON is copied into the inspector's scratch buffer, so the
/// response's `adm` is left intact.
pub fn decode_inspected<'a>(
    reader: &mut Reader,
    input: &'a mut [u8],
    mode: Mode,
    inspector: &mut Inspector,
) -> Result<Decoded<'a>, DecodeError> {
    decode_with(reader, input, mode, Some(inspector))
}

pub(crate) fn decode_with<'a>(
    reader: &mut Reader,
    input: &'a mut [u8],
    mode: Mode,
    inspector: Option<&mut Inspector>,
) -> Result<Decoded<'a>, DecodeError> {
    let bom = blank_bom(reader, input, mode)?;
    // The mark's warning is added where the `Decoded` is built: a `Decoded` moved out of a `Result` here and
    // into another one is a ~300-byte copy per document (measured: the wrapper cost a small no-bid ~10%).
    decode_json(reader, input, mode, inspector, bom)
}

/// Whether `input` starts with a [`BOM`], blanked then (rather than skipped, so that byte offsets stay those of
/// the body as sent); in strict mode [`DecodeError::ByteOrderMark`] instead, with the reader's stats reset. Shared
/// by [`decode`] and `decode_pair`.
pub(crate) fn blank_bom(
    reader: &mut Reader,
    input: &mut [u8],
    mode: Mode,
) -> Result<bool, DecodeError> {
    if !input.starts_with(BOM) {
        return Ok(false);
    }
    if mode == Mode::Strict {
        reader.reset_stats(input.len());
        return Err(DecodeError::ByteOrderMark);
    }
    input[..BOM.len()].fill(b' ');
    Ok(true)
}

pub(crate) fn bom_issue() -> Issue {
    Issue {
        path: String::new(),
        code: "utf8_bom",
        severity: Severity::Warning,
        message: "the body starts with a UTF-8 byte order mark (RFC 8259 §8.1); ignored".into(),
    }
}

/// [`decode_with`] after the byte order mark: `bom` says whether one was blanked (its warning comes first).
#[inline(always)]
fn decode_json<'a>(
    reader: &mut Reader,
    input: &'a mut [u8],
    mode: Mode,
    inspector: Option<&mut Inspector>,
    bom: bool,
) -> Result<Decoded<'a>, DecodeError> {
    let start = input.iter().position(|b| !is_ws(*b));
    match start.map(|at| &input[at..]) {
        // A blank body, and `{}` (the most common no-bid shape that has a body): answered without the reader.
        None => return Ok(answered_without_reader(reader, input.len(), bom)),
        Some(rest) if is_empty_object(rest) => {
            return Ok(answered_without_reader(reader, input.len(), bom));
        }
        Some([b'<', ..]) => {
            reader.reset_stats(input.len());
            return Err(DecodeError::NotABidResponse {
                message: format!("{NOT_A_BID_RESPONSE}: the body is XML or HTML, not JSON"),
                path: String::new(),
            });
        }
        Some(_) => {}
    }
    // Decoded straight into the `Decoded` that is returned, and checked there: a response is 176 bytes, and
    // each move of it through a `Result` is a `memcpy` (a measurable part of decoding a small no-bid).
    let mut decoded = Decoded {
        status: Status::NoBid,
        response: BidResponse::default(),
        issues: Vec::new(),
        markup: Vec::new(),
        unlisted: Unlisted::default(),
    };
    let mut refused = None;
    let mut deferred = None;
    let seed = ResponseSeed {
        response: &mut decoded.response,
        refused: &mut refused,
        whole: "the body",
        path: "",
        deferred: &mut deferred,
    };
    if let Err(e) = reader.decode_seed(input, seed) {
        return Err(map_error(e, refused));
    }
    if let Some(d) = deferred {
        return Err(deferred_error(d));
    }
    decoded.check(mode, inspector)?;
    if bom {
        decoded.issues.insert(0, bom_issue());
    }
    Ok(decoded)
}

/// The error of a refusal made once the whole input was read ([`Deferred`]).
#[cold]
pub(crate) fn deferred_error(d: Deferred) -> DecodeError {
    refusal_error(d.refusal, d.message, d.path)
}

/// The [`DecodeError`] of `refusal` with its message and path.
fn refusal_error(refusal: Refusal, message: String, path: String) -> DecodeError {
    match refusal {
        Refusal::Response => DecodeError::NotABidResponse { message, path },
        Refusal::Openrtb3 => DecodeError::Openrtb3NotSupported { message, path },
        Refusal::Request => DecodeError::InvalidEnvelope {
            code: "not_a_bid_request",
            message,
            path,
        },
        Refusal::Envelope => DecodeError::InvalidEnvelope {
            code: "not_an_envelope",
            message,
            path,
        },
    }
}

/// A no-bid decided before the reader runs; the reader's stats are reset to this body's.
// Inlined: built straight in the caller's `Result` (out of line it was built, then copied in: ~30 instructions).
#[inline(always)]
fn answered_without_reader<'a>(reader: &mut Reader, bytes: usize, bom: bool) -> Decoded<'a> {
    reader.reset_stats(bytes);
    Decoded {
        status: Status::NoBid,
        response: BidResponse::default(),
        issues: if bom { vec![bom_issue()] } else { Vec::new() },
        markup: Vec::new(),
        unlisted: Unlisted::default(),
    }
}

/// Whether `rest` (starting at a non-whitespace byte) is `{`, optional whitespace, `}`, optional whitespace.
fn is_empty_object(rest: &[u8]) -> bool {
    match rest.split_first() {
        Some((b'{', after)) => {
            let mut tail = after.iter().skip_while(|b| is_ws(**b));
            tail.next() == Some(&b'}') && tail.all(|b| is_ws(*b))
        }
        _ => false,
    }
}

/// The reader's error as a [`DecodeError`]: a custom error whose [`Refusal`] the refusing reader recorded is a
/// structural error (its message and path kept), anything else is [`DecodeError::Malformed`]. Shared with
/// `decode_pair`.
pub(crate) fn map_error(e: JsonError, refused: Option<Refusal>) -> DecodeError {
    let Some(refusal) = refused.filter(|_| e.kind() == ErrorKind::Custom) else {
        return DecodeError::Malformed(e);
    };
    refusal_error(refusal, e.message(), e.path().unwrap_or("").to_owned())
}

impl<'a> Decoded<'a> {
    /// Turns a response decoded by any deserializer (bidscan-json, serde_json) into a [`Decoded`]: the coercions
    /// recorded in the typed values become [`Issue`]s with JSON pointers (or, in [`Mode::Strict`], the first one
    /// becomes [`DecodeError::Strict`]), then the validation rules run (see [`validate`](crate::checks)).
    pub fn from_response(response: BidResponse<'a>, mode: Mode) -> Result<Self, DecodeError> {
        let mut decoded = Decoded {
            status: Status::NoBid,
            response,
            issues: Vec::new(),
            markup: Vec::new(),
            unlisted: Unlisted::default(),
        };
        decoded.check(mode, None)?;
        Ok(decoded)
    }

    /// Sets `status` and `issues` from `response` (see [`from_response`](Self::from_response)).
    pub(crate) fn check(
        &mut self,
        mode: Mode,
        inspector: Option<&mut Inspector>,
    ) -> Result<(), DecodeError> {
        // Filled where they stay (a local list moved in afterwards cost a stalled 16-byte reload per document).
        self.issues = coercion_issues(&self.response);
        if mode == Mode::Strict && !self.issues.is_empty() {
            let first = self.issues.swap_remove(0);
            return Err(DecodeError::Strict {
                path: first.path,
                code: first.code,
                message: first.message.into_owned(),
            });
        }
        self.status = if count_bids(&self.response) == 0 {
            Status::NoBid
        } else {
            Status::Bid
        };
        checks::validate(&mut self.response, self.status, &mut self.issues);
        if let Some(inspector) = inspector {
            self.markup = Vec::with_capacity(count_bids(&self.response));
            markup::inspect(
                &self.response,
                inspector,
                &mut self.markup,
                &mut self.issues,
            );
        }
        self.unlisted = Unlisted::default();
        checks::truncate(&mut self.issues, &mut self.unlisted);
        Ok(())
    }

    /// Number of bids over all seat bids.
    pub fn bid_count(&self) -> usize {
        count_bids(&self.response)
    }
}

fn count_bids(response: &BidResponse<'_>) -> usize {
    response.seatbid.iter().map(|s| s.bid.len()).sum()
}

/// All coercions of the response as issues, in document order. Allocates nothing when there are none; otherwise
/// two exact-size lists and one pointer per issue (messages are static text but for `invalid_type`).
fn coercion_issues(response: &BidResponse<'_>) -> Vec<Issue> {
    let count = response.coercions.len()
        + response
            .seatbid
            .iter()
            .map(|s| s.coercions.len() + s.bid.iter().map(|b| b.coercions.len()).sum::<usize>())
            .sum::<usize>();
    if count == 0 {
        return Vec::new();
    }
    // The records of each object are in document order; gathered object by object (response, then each seat
    // bid, then its bids) they are not, when e.g. `cur` follows `seatbid`. Sort by the document-wide order.
    let mut records: Vec<(Object, &Coercion)> = Vec::with_capacity(count);
    records.extend(response.coercions.iter().map(|c| (Object::Response, c)));
    for (si, seat) in response.seatbid.iter().enumerate() {
        records.extend(seat.coercions.iter().map(|c| (Object::Seat(si), c)));
        for (bi, bid) in seat.bid.iter().enumerate() {
            records.extend(bid.coercions.iter().map(|c| (Object::Bid(si, bi), c)));
        }
    }
    records.sort_by_key(|(_, c)| c.order);
    records
        .iter()
        .map(|&(object, c)| Issue {
            path: paths::coerced(response, object, c),
            code: c.kind.code(),
            severity: c.kind.severity(),
            message: c.kind.message(),
        })
        .collect()
}
