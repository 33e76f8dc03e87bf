//! The validation envelope: `{"request": <BidRequest>, "response": <BidResponse>}`, decoded from one buffer.
//!
//! An exchange builds the envelope by concatenating the bytes it sent and the bytes it got, so the members may
//! come in either order and anything else at the top level is skipped. Both documents are decoded in place by
//! one pass of bidscan-json's [`Reader`]: their strings borrow from the same buffer.

use std::fmt;

use bidscan_json::Reader;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};

use bidscan_markup::Inspector;

use crate::decode::{self, DecodeError, Decoded, Mode};
use crate::lenient::{Deferred, Doc, MAX_COERCIONS, NOT_A_BID_REQUEST, Refusal, defer, refuse};
use crate::model::request::{BidRequest, ImpFault};
use crate::model::response::{BidResponse, ResponseSeed};
use crate::model::status::Status;

/// A bid request and the decoded response that answers it.
#[derive(Clone, Debug, PartialEq)]
pub struct Pair<'a> {
    /// The request (lenient, unreported; see [`BidRequest`]).
    pub request: BidRequest<'a>,
    /// The response exactly as [`decode`](crate::decode) would give it: status, typed response, issues with
    /// pointers relative to the response (`/seatbid/0/bid/0/price`).
    pub decoded: Decoded<'a>,
}

/// Start of the message of a [`Refusal::Envelope`] error.
const NOT_AN_ENVELOPE: &str = "not a validation envelope";

/// Decodes an envelope in place with `reader`, then checks the response as [`decode`](crate::decode) does
/// (`mode` applies to the response; the request is always read leniently).
///
/// `"response": null` is a no-bid (an exchange that got an empty body). Never panics on input.
///
/// # Errors
/// - [`DecodeError::Malformed`]: not JSON; the error's path starts with `/request` or `/response` when the fault is
///   inside one of them.
/// - [`DecodeError::NotABidResponse`] (path under `/response`), [`DecodeError::Openrtb3NotSupported`] (path
///   `/response`), [`DecodeError::Strict`] (path prefixed with `/response`).
/// - [`DecodeError::InvalidEnvelope`]: `not_an_envelope` (the top level is not an object, `request` or
///   `response` is missing, or either comes twice), `not_a_bid_request` (`request` is not an object),
///   `request_without_imp` (no `imp`, an empty one, or one with no object in it, e.g. `"imp":5` or `"imp":[5]`,
///   the message naming what was sent; OpenRTB 2.6 §3.2.1: `imp` "required", 1+).
pub fn decode_pair<'a>(
    reader: &mut Reader,
    input: &'a mut [u8],
    mode: Mode,
) -> Result<Pair<'a>, DecodeError> {
    decode_pair_with(reader, input, mode, None)
}

/// [`decode_pair`], then every bid's `adm` inspected with `inspector`, as
/// [`decode_inspected`](crate::decode_inspected) does for one response: `decoded.markup` gets one entry per bid,
/// `decoded.issues` the markup findings (paths relative to the response), and the rules read the HTML
/// inspection's `secure` rather than scanning the markup again.
///
/// # Errors
/// As [`decode_pair`].
pub fn decode_pair_inspected<'a>(
    reader: &mut Reader,
    input: &'a mut [u8],
    mode: Mode,
    inspector: &mut Inspector,
) -> Result<Pair<'a>, DecodeError> {
    decode_pair_with(reader, input, mode, Some(inspector))
}

fn decode_pair_with<'a>(
    reader: &mut Reader,
    input: &'a mut [u8],
    mode: Mode,
    inspector: Option<&mut Inspector>,
) -> Result<Pair<'a>, DecodeError> {
    let mut pair = Pair::empty();
    fill(reader, input, mode, inspector, &mut pair)?;
    Ok(pair)
}

impl Pair<'_> {
    /// No request, a no-bid response: what [`fill`] starts from.
    pub(crate) fn empty() -> Self {
        Pair {
            request: BidRequest::default(),
            decoded: Decoded {
                status: Status::NoBid,
                response: BidResponse::default(),
                issues: Vec::new(),
                markup: Vec::new(),
                unlisted: Default::default(),
            },
        }
    }
}

/// [`decode_pair_with`] into `pair` ([`Pair::empty`]) where it stays: a `Pair` is hundreds of bytes, and the
/// validation that follows keeps it in its own value (`Validated::decode`), so it is not moved out of a `Result`.
pub(crate) fn fill<'a>(
    reader: &mut Reader,
    input: &'a mut [u8],
    mode: Mode,
    inspector: Option<&mut Inspector>,
    pair: &mut Pair<'a>,
) -> Result<(), DecodeError> {
    // A byte order mark as `decode` treats it: refused in strict mode, else blanked, its warning first.
    let bom = decode::blank_bom(reader, input, mode)?;
    let mut seen = Seen::default();
    let mut refused = None;
    let mut imp_fault = None;
    let mut deferred = None;
    let seed = PairSeed {
        pair: &mut *pair,
        seen: &mut seen,
        refused: &mut refused,
        imp_fault: &mut imp_fault,
        deferred: &mut deferred,
    };
    if let Err(e) = reader.decode_seed(input, seed) {
        return Err(decode::map_error(e, refused));
    }
    if let Some(d) = deferred {
        return Err(decode::deferred_error(d));
    }
    let missing = match (seen.request, seen.response) {
        (false, _) => Some("request"),
        (_, false) => Some("response"),
        _ => None,
    };
    if let Some(member) = missing {
        return Err(invalid(
            "not_an_envelope",
            format!("the envelope has no `{member}` member"),
            "",
        ));
    }
    if pair.request.imp.is_empty() {
        return Err(without_imp(imp_fault, "/request"));
    }
    pair.decoded.check(mode, inspector).map_err(|e| match e {
        DecodeError::Strict {
            path,
            code,
            message,
        } => DecodeError::Strict {
            path: format!("/response{path}"),
            code,
            message,
        },
        other => other,
    })?;
    // After `check`, which makes the issue list anew from the response.
    if bom {
        pair.decoded.issues.insert(0, decode::bom_issue());
    }
    Ok(())
}

/// Decodes a bid request alone (the document is the request, not an envelope) in place with `reader` into
/// `request` (`BidRequest::default()`), leniently, as [`decode_pair`] reads its `request` member: an auction's
/// request, read once for all its bidders. A byte order mark is blanked.
///
/// # Errors
/// With paths relative to the request (`/imp/0`): [`DecodeError::Malformed`] (not JSON), and
/// [`DecodeError::InvalidEnvelope`] with code `not_a_bid_request` (not an object) or `request_without_imp`
/// (OpenRTB 2.6 §3.2.1: `imp` "required", 1+).
pub(crate) fn fill_request<'a>(
    reader: &mut Reader,
    input: &'a mut [u8],
    request: &mut BidRequest<'a>,
) -> Result<(), DecodeError> {
    decode::blank_bom(reader, input, Mode::Lenient)?;
    let mut refused = None;
    let mut imp_fault = None;
    let mut deferred = None;
    let seed = RequestSeed {
        request,
        refused: &mut refused,
        imp_fault: &mut imp_fault,
        deferred: &mut deferred,
        path: "",
    };
    if let Err(e) = reader.decode_seed(input, seed) {
        return Err(decode::map_error(e, refused));
    }
    if let Some(d) = deferred {
        return Err(decode::deferred_error(d));
    }
    if request.imp.is_empty() {
        return Err(without_imp(imp_fault, ""));
    }
    Ok(())
}

/// The `request_without_imp` error: no `imp`, an empty one, or one whose values are not impressions (`fault`
/// names the first of them, and the error points at it, under `prefix`: the request's own pointer).
pub(crate) fn without_imp(fault: Option<ImpFault>, prefix: &str) -> DecodeError {
    const RULE: &str = "OpenRTB 2.6 §3.2.1: imp is required, 1+";
    let (message, path) = match fault {
        None => (
            format!("the bid request offers no impression ({RULE})"),
            format!("{prefix}/imp"),
        ),
        Some(ImpFault { index: None, found }) => (
            format!(
                "the bid request offers no impression: `imp` is {found}, not an array of objects ({RULE})"
            ),
            format!("{prefix}/imp"),
        ),
        Some(ImpFault {
            index: Some(i),
            found,
        }) => (
            format!(
                "the bid request offers no impression: element {i} of `imp` is {found}, not an object ({RULE})"
            ),
            format!("{prefix}/imp/{i}"),
        ),
    };
    DecodeError::InvalidEnvelope {
        code: "request_without_imp",
        message,
        path,
    }
}

fn invalid(code: &'static str, message: String, path: &str) -> DecodeError {
    DecodeError::InvalidEnvelope {
        code,
        message,
        path: path.to_owned(),
    }
}

/// The error for a second `member`: RFC 8259 §4 says names SHOULD be unique and that readers differ on which of
/// two is meant, so the envelope is refused rather than one of them silently dropped.
fn twice(member: &str) -> String {
    format!("{NOT_AN_ENVELOPE}: a second `{member}` member (RFC 8259 §4: names should be unique)")
}

/// Which members were found.
#[derive(Default)]
struct Seen {
    request: bool,
    response: bool,
}

enum Member {
    Request,
    Response,
    Other,
}

struct PairSeed<'p, 'de> {
    pair: &'p mut Pair<'de>,
    seen: &'p mut Seen,
    /// Set when the envelope, its request or its response is refused for its shape.
    refused: &'p mut Option<Refusal>,
    /// What made the request's `imp` empty, if it was sent with no object in it.
    imp_fault: &'p mut Option<ImpFault>,
    /// Where a refusal for a shape goes (the top level, `request` or `response` not an object, a member
    /// twice, a `seatbid` that is not an array): made by the caller once the reader has checked the rest of
    /// the input ([`Deferred`]: `[1]x` is malformed JSON, `[1]` not an envelope).
    deferred: &'p mut Option<Deferred>,
}

impl PairSeed<'_, '_> {
    /// The top level is not an object. The message is serde's "expected" text for this visitor, as serde's
    /// default `visit_*` would have given it after "invalid type: …, expected ".
    fn not_object<E: de::Error>(self) -> Result<(), E> {
        defer(
            self.deferred,
            Deferred {
                refusal: Refusal::Envelope,
                message: format!("{NOT_AN_ENVELOPE}: an object with `request` and `response`"),
                path: String::new(),
            },
        );
        Ok(())
    }
}

/// The refusal of a second `member` ([`twice`]), at its path.
fn second(member: &str) -> Deferred {
    Deferred {
        refusal: Refusal::Envelope,
        message: twice(member),
        path: format!("/{member}"),
    }
}

impl<'de> DeserializeSeed<'de> for PairSeed<'_, 'de> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for PairSeed<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{NOT_AN_ENVELOPE}: an object with `request` and `response`"
        )
    }
    // Every other JSON value is refused; an array is read to its end first, so a malformed one (`[1,`) is
    // malformed JSON, not a wrong shape (as for `request` and `response`).
    fn visit_seq<S: de::SeqAccess<'de>>(self, mut seq: S) -> Result<(), S::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        self.not_object()
    }
    fn visit_str<E: de::Error>(self, _v: &str) -> Result<(), E> {
        self.not_object()
    }
    fn visit_bool<E: de::Error>(self, _v: bool) -> Result<(), E> {
        self.not_object()
    }
    fn visit_i64<E: de::Error>(self, _v: i64) -> Result<(), E> {
        self.not_object()
    }
    fn visit_u64<E: de::Error>(self, _v: u64) -> Result<(), E> {
        self.not_object()
    }
    fn visit_f64<E: de::Error>(self, _v: f64) -> Result<(), E> {
        self.not_object()
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.not_object()
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.not_object()
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<(), M::Error> {
        let key = |name: &str| {
            Some(match name {
                "request" => Member::Request,
                "response" => Member::Response,
                _ => Member::Other,
            })
        };
        while let Some(member) = map.next_key_seed(crate::lenient::KeySeed(key))? {
            match member {
                Some(Member::Request) => {
                    if self.seen.request {
                        // Read: a malformed second value is malformed JSON.
                        map.next_value::<IgnoredAny>()?;
                        defer(self.deferred, second("request"));
                        continue;
                    }
                    map.next_value_seed(RequestSeed {
                        request: &mut self.pair.request,
                        refused: self.refused,
                        imp_fault: self.imp_fault,
                        deferred: self.deferred,
                        path: "/request",
                    })?;
                    self.seen.request = true;
                }
                Some(Member::Response) => {
                    if self.seen.response {
                        // Read: a malformed second value is malformed JSON.
                        map.next_value::<IgnoredAny>()?;
                        defer(self.deferred, second("response"));
                        continue;
                    }
                    map.next_value_seed(OptionalResponse(ResponseSeed {
                        response: &mut self.pair.decoded.response,
                        refused: self.refused,
                        whole: "`response`",
                        path: "/response",
                        deferred: self.deferred,
                    }))?;
                    self.seen.response = true;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// `null`, or a bid response decoded into the place it will stay.
struct OptionalResponse<'p, 'de>(ResponseSeed<'p, 'de>);

impl<'de> DeserializeSeed<'de> for OptionalResponse<'_, 'de> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for OptionalResponse<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a bid response or null")
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        self.0.deserialize(deserializer)
    }
}

/// A bid request decoded into the place it will stay.
struct RequestSeed<'p, 'de> {
    request: &'p mut BidRequest<'de>,
    refused: &'p mut Option<Refusal>,
    imp_fault: &'p mut Option<ImpFault>,
    /// Where a refusal for the request's shape goes ([`Deferred`]).
    deferred: &'p mut Option<Deferred>,
    /// The request's JSON pointer: `/request` in an envelope, `""` alone.
    path: &'static str,
}

impl<'de> DeserializeSeed<'de> for RequestSeed<'_, 'de> {
    type Value = ();
    // Inlined into the envelope's reader, as it was with one caller (the auction's request is the other).
    #[inline(always)]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl RequestSeed<'_, '_> {
    fn not_object<E: de::Error>(self, found: &str) -> Result<(), E> {
        defer(
            self.deferred,
            Deferred {
                refusal: Refusal::Request,
                message: format!("{NOT_A_BID_REQUEST}: `request` is {found}, not a JSON object"),
                path: self.path.to_owned(),
            },
        );
        Ok(())
    }
}

impl<'de> Visitor<'de> for RequestSeed<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{NOT_A_BID_REQUEST}: a JSON object")
    }
    fn visit_seq<S: de::SeqAccess<'de>>(self, mut seq: S) -> Result<(), S::Error> {
        // Read to its end first: a malformed array (`[1,`) is malformed JSON, not a wrong shape.
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        self.not_object("an array")
    }
    fn visit_str<E: de::Error>(self, _v: &str) -> Result<(), E> {
        self.not_object("a string")
    }
    fn visit_bool<E: de::Error>(self, _v: bool) -> Result<(), E> {
        self.not_object("a boolean")
    }
    fn visit_i64<E: de::Error>(self, _v: i64) -> Result<(), E> {
        self.not_object("a number")
    }
    fn visit_u64<E: de::Error>(self, _v: u64) -> Result<(), E> {
        self.not_object("a number")
    }
    fn visit_f64<E: de::Error>(self, _v: f64) -> Result<(), E> {
        self.not_object("a number")
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.not_object("null")
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.not_object("null")
    }
    fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<(), M::Error> {
        let mut doc = Doc {
            request: true,
            ..Doc::default()
        };
        match self.request.read_request(map, &mut doc) {
            Ok(fault) => *self.imp_fault = fault,
            Err(e) => {
                *self.refused = doc.refused;
                return Err(e);
            }
        }
        if doc.order > MAX_COERCIONS {
            return Err(refuse(
                self.refused,
                Refusal::Request,
                format_args!(
                    "{NOT_A_BID_REQUEST}: more than {MAX_COERCIONS} deviations from the spec's shape"
                ),
            ));
        }
        Ok(())
    }
}
