//! [`decode_protobuf`]: a protobuf `BidResponse` (IAB Tech Lab's OpenRTB 2.6 schema, `openrtb.proto`) decoded
//! into the same [`Decoded`] as a JSON body, with the same checks.
//!
//! The wire is read by bidscan-proto's [`Message`]; `response.rs` writes the typed model straight from it
//! (strings borrowed from the body); `ext` and `adm_native`, which the model keeps as JSON text, are rendered
//! afterwards by the tables of `schema.rs` (`render.rs`) into one `String` the caller owns, which the model then
//! borrows alongside the body.

mod render;
mod request;
mod response;
pub(crate) mod schema;

use std::borrow::Cow;
use std::fmt;

use bidscan_json::RawJson;
use bidscan_markup::Inspector;
use bidscan_proto::{Error as WireError, Limits, Message};

use self::render::Name;
use self::response::{Pending, Slot, State};
use self::schema::{BID_EXT, NATIVE_RESPONSE, RESPONSE_EXT, SEAT_EXT};
use super::{DecodeError, Decoded, Mode};
use crate::checks::issue::Unlisted;
use crate::lenient::{MAX_COERCIONS, MAX_OBJECTS, NOT_A_BID_REQUEST, NOT_A_BID_RESPONSE};
use crate::model::adm::{Adm, AdmObject};
use crate::model::request::BidRequest;
use crate::model::response::BidResponse;
use crate::model::status::Status;

/// Why a protobuf body could not be decoded.
#[derive(Debug)]
pub enum ProtobufError {
    /// Not a well-formed protobuf `BidResponse` (see [`bidscan_proto::ErrorKind`]): the byte offset and the
    /// field path (`/seatbid/0/bid/1/adomain/0`) are in the error. Code `malformed_protobuf`; an HTTP server
    /// answers 400, as for malformed JSON.
    Malformed(WireError),
    /// Well-formed, but refused as JSON would refuse it: more than [`MAX_OBJECTS`] seat bids and bids or
    /// [`MAX_COERCIONS`] duplicate fields ([`DecodeError::NotABidResponse`]), or strict mode's first deviation
    /// ([`DecodeError::Strict`]).
    Decode(DecodeError),
}

impl ProtobufError {
    /// `"malformed_protobuf"`, or the [`DecodeError`]'s code.
    pub fn code(&self) -> &'static str {
        match self {
            ProtobufError::Malformed(_) => "malformed_protobuf",
            ProtobufError::Decode(e) => e.code(),
        }
    }

    /// The JSON pointer of the field at fault, when known.
    pub fn path(&self) -> Option<&str> {
        match self {
            ProtobufError::Malformed(e) => Some(e.path()),
            ProtobufError::Decode(e) => e.path(),
        }
    }
}

impl fmt::Display for ProtobufError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProtobufError::Malformed(e) => write!(f, "malformed protobuf: {e}"),
            ProtobufError::Decode(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ProtobufError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ProtobufError::Malformed(e) => Some(e),
            ProtobufError::Decode(e) => Some(e),
        }
    }
}

/// Decodes a protobuf `BidResponse` body into the model, then checks it as [`decode`](crate::decode) checks a
/// JSON body (coercions, validation; in [`Mode::Strict`] the first deviation fails).
///
/// - Strings are borrowed from `body` (their UTF-8 checked); booleans (`seatbid.group`) read as 0/1.
/// - A singular field sent twice: the last value wins, with the `duplicate_field` warning JSON gives a member
///   sent twice (`adm` and `adm_native`, one oneof, count as one member). An embedded message sent twice
///   (`ext`, `adm_native`) is merged, as protobuf merges; repeated scalars are read packed or not; unknown fields
///   are skipped, groups included.
/// - `ext` (field 99, a nested `Ext` message) is rendered as a JSON object into `rendered` and borrowed from
///   there: the declared fields under their names (`bid.ext.dsa`, `bid.ext.skadn`, `bid.ext.scid`,
///   `ext.seatnonbid`, `ext.igi`), the other fields in the raw form `"[N]":[{"varint":5},…]` (see the
///   `render` module docs; docs/api.md). A `SeatBid.Ext` declares no field.
/// - `adm_native` (field 50, a `NativeResponse`) becomes an [`Adm::Object`] with its members rendered the same
///   way, which the native inspection reads as it reads a JSON object `adm` (without the `adm_object` warning:
///   the schema's own field for native markup is no deviation).
///
/// `rendered` is cleared first; it allocates only when the body has an `ext` or an `adm_native`. `limits`
/// bounds nesting and lengths (set `max_len` to the body limit).
///
/// Errors: [`ProtobufError::Malformed`] for every wire rule (`bidscan_proto`), a wrong wire type or a group
/// for a declared field included; [`ProtobufError::Decode`] past the object and duplicate limits or in strict
/// mode. Never panics on input.
pub fn decode_protobuf<'a>(
    body: &'a [u8],
    rendered: &'a mut String,
    mode: Mode,
    limits: Limits,
) -> Result<Decoded<'a>, ProtobufError> {
    decode_protobuf_with(body, rendered, mode, limits, None)
}

/// [`decode_protobuf`], then every bid's markup inspected with `inspector`, as
/// [`decode_inspected`](crate::decode_inspected) does for JSON.
pub fn decode_protobuf_inspected<'a>(
    body: &'a [u8],
    rendered: &'a mut String,
    mode: Mode,
    limits: Limits,
    inspector: &mut Inspector,
) -> Result<Decoded<'a>, ProtobufError> {
    decode_protobuf_with(body, rendered, mode, limits, Some(inspector))
}

fn decode_protobuf_with<'a>(
    body: &'a [u8],
    rendered: &'a mut String,
    mode: Mode,
    limits: Limits,
    inspector: Option<&mut Inspector>,
) -> Result<Decoded<'a>, ProtobufError> {
    let mut decoded = Decoded {
        status: Status::NoBid,
        response: BidResponse::default(),
        issues: Vec::new(),
        markup: Vec::new(),
        unlisted: Unlisted::default(),
    };
    let mut state = State {
        limits,
        order: 0,
        objects: 0,
        pending: Vec::new(),
        too_many: false,
    };
    let read = Message::new(body, limits)
        .and_then(|m| response::response(m, &mut decoded.response, &mut state));
    if state.too_many {
        return Err(refused(format!(
            "{NOT_A_BID_RESPONSE}: more than {MAX_OBJECTS} seat bids and bids"
        )));
    }
    read.map_err(ProtobufError::Malformed)?;
    if state.order > MAX_COERCIONS {
        return Err(refused(format!(
            "{NOT_A_BID_RESPONSE}: more than {MAX_COERCIONS} deviations from the spec's shape"
        )));
    }
    rendered.clear();
    let placed =
        render_pending(&mut state.pending, rendered, &limits).map_err(ProtobufError::Malformed)?;
    let text: &'a str = rendered;
    place(&mut decoded.response, placed, text);
    decoded
        .check(mode, inspector)
        .map_err(ProtobufError::Decode)?;
    Ok(decoded)
}

/// Decodes a protobuf `BidRequest` body (IAB Tech Lab's OpenRTB 2.6 schema) into the request view that
/// response validation reads ([`BidRequest`]: `imp` with floors, slots, companions and deals, `cur`, the block
/// lists, `cattax`, `tmax`, `wseat`/`bseat`, whether it is for an `app`, `regs.ext.dsa`), strings borrowed
/// from `body`, booleans (`secure`, `private_auction`) as 0/1. As for JSON, nothing is reported: a singular field
/// sent twice keeps its last value, an embedded message sent twice is merged, unknown fields are skipped.
///
/// Errors: [`ProtobufError::Malformed`] for every wire rule, with the offset and the path (`/imp/0/banner/format/1/w`);
/// more than [`MAX_OBJECTS`] impressions, formats, companions and deals is [`DecodeError::InvalidEnvelope`]
/// `not_a_bid_request`, as for JSON. Whether the request has an `imp` is the caller's to check. Never panics on
/// input.
pub fn decode_request_protobuf(
    body: &[u8],
    limits: Limits,
) -> Result<BidRequest<'_>, ProtobufError> {
    let mut out = BidRequest::default();
    let cx = request::Cx {
        limits,
        objects: std::cell::Cell::new(0),
        too_many: std::cell::Cell::new(false),
    };
    let read = Message::new(body, limits).and_then(|m| request::request(m, &mut out, &cx));
    if cx.too_many.get() {
        return Err(ProtobufError::Decode(DecodeError::InvalidEnvelope {
            code: "not_a_bid_request",
            message: format!(
                "{NOT_A_BID_REQUEST}: more than {MAX_OBJECTS} impressions, formats and deals"
            ),
            path: String::new(),
        }));
    }
    read.map_err(ProtobufError::Malformed)?;
    Ok(out)
}

fn refused(message: String) -> ProtobufError {
    ProtobufError::Decode(DecodeError::NotABidResponse {
        message,
        path: String::new(),
    })
}

/// Where one rendered text goes: an `ext` (its range), or an `adm_native` (each member's name and range).
enum Placed {
    Ext(Slot, std::ops::Range<usize>),
    Native(usize, usize, Vec<(&'static str, std::ops::Range<usize>)>),
}

/// Renders each slot's occurrences (merged) into `out`, slot by slot.
fn render_pending(
    pending: &mut [Pending<'_>],
    out: &mut String,
    limits: &Limits,
) -> Result<Vec<Placed>, WireError> {
    // Stable: the occurrences of one slot stay in wire order.
    pending.sort_by_key(|p| p.slot);
    let mut placed = Vec::with_capacity(pending.len());
    // One allocation for the text in the usual case: JSON names and punctuation rarely double the wire bytes.
    out.reserve(
        pending
            .iter()
            .map(|p| 2 * p.field.bytes().map_or(0, <[u8]>::len) + 16)
            .sum(),
    );
    let mut rest = &pending[..];
    let mut merged = Vec::new();
    while let Some(first) = rest.first() {
        let slot = first.slot;
        let n = rest.iter().take_while(|p| p.slot == slot).count();
        // A message sent once (the usual case) is rendered from its field; only a merge gathers its occurrences.
        let occurrences = if n == 1 {
            std::slice::from_ref(&first.field)
        } else {
            merged.clear();
            merged.extend(rest[..n].iter().map(|p| p.field));
            &merged[..]
        };
        rest = &rest[n..];
        let start = out.len();
        match slot {
            Slot::Native(si, bi) => {
                let mut members = Vec::new();
                render::members(
                    occurrences,
                    &NATIVE_RESPONSE,
                    out,
                    limits,
                    &mut |_, _| {},
                    &mut |name, range| {
                        if let Name::Declared(name) = name {
                            members.push((name, range));
                        }
                    },
                )
                .map_err(|e| within_slot(e, slot))?;
                placed.push(Placed::Native(si, bi, members));
            }
            _ => {
                let desc = match slot {
                    Slot::Response => &RESPONSE_EXT,
                    Slot::Seat(_) => &SEAT_EXT,
                    _ => &BID_EXT,
                };
                render::object(occurrences, desc, out, limits).map_err(|e| within_slot(e, slot))?;
                placed.push(Placed::Ext(slot, start..out.len()));
            }
        }
    }
    Ok(placed)
}

/// The path of an error found while rendering the message of `slot`.
#[cold]
fn within_slot(e: WireError, slot: Slot) -> WireError {
    match slot {
        Slot::Response => e.within("ext", None),
        Slot::Seat(si) => e.within("ext", None).within("seatbid", Some(si)),
        Slot::Bid(si, bi) => e
            .within("ext", None)
            .within("bid", Some(bi))
            .within("seatbid", Some(si)),
        Slot::Native(si, bi) => e
            .within("adm", None)
            .within("bid", Some(bi))
            .within("seatbid", Some(si)),
    }
}

/// Sets each rendered text where it goes in the model.
fn place<'a>(response: &mut BidResponse<'a>, placed: Vec<Placed>, text: &'a str) {
    for p in placed {
        match p {
            Placed::Ext(slot, range) => {
                let ext = Some(RawJson::from_validated(&text[range]));
                match slot {
                    Slot::Response => response.ext = ext,
                    Slot::Seat(si) => response.seatbid[si].ext = ext,
                    Slot::Bid(si, bi) => response.seatbid[si].bid[bi].ext = ext,
                    Slot::Native(..) => {}
                }
            }
            Placed::Native(si, bi, members) => {
                response.seatbid[si].bid[bi].adm = Some(Adm::Object(AdmObject {
                    members: members
                        .into_iter()
                        .map(|(name, range)| {
                            (Cow::Borrowed(name), RawJson::from_validated(&text[range]))
                        })
                        .collect(),
                }));
            }
        }
    }
}
