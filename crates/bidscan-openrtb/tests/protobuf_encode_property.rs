//! The encode property: on any bytes that decode as a JSON bid response (lenient, as `POST /decode` and
//! `bidscan transcode` read them by default), `encode_protobuf` of the model
//! - never panics, and an [`EncodeError`] names, by JSON pointer, a member of the model's canonical JSON that holds
//!   a number (or a number's text) outside int32; every [`EncodeWarning`] names a member of it too;
//! - gives the same bytes and warnings for the strict decode's model, where strict decoding succeeds;
//! - is protobuf that prost (the reference structs of `tests/protobuf_reference.rs`) and `decode_protobuf` both
//!   accept, with the same values (`reference::check`);
//! - is a fixed point: the model `decode_protobuf` reads from it encodes to the same bytes, with no warning;
//! - carries the model over: the canonical JSON of the model read back equals the JSON model's, minus the members
//!   warned about (same bids in the same seats, ids, prices, `adm`, `seat`, every typed member, every declared or
//!   raw-form `ext` member).
//!
//! The differences the last comparison allows ([`equivalent`]), each what the schema's types make of a JSON value:
//! - a number equals a number of the same `f64` value (an `int32` is read back as `300` from `300.0`, `3e2` or
//!   `"300"`; a `double` or `google.protobuf.Value` number as `1.0` from `1`, rounded to `f64`);
//! - `true`/`false` equal `1`/`0` (OpenRTB's flags are protobuf `bool`s, rendered back as 0/1);
//! - a number equals a string of its value (a `string` field sent as a number, `"scid":5`, is read back as `"5"`)
//!   and a string holding a number equals that number (an `int32` or `double` sent as `"300"`);
//! - a single value equals a list of that one value (a repeated field sent as one value);
//! - an empty list or object equals an absent member (protobuf writes no empty repeated field, and a map whose
//!   every entry was dropped, `"ps":{"k":"x"}`, has no entry left to write);
//! - an object `adm` that is no `NativeResponse` is read back as its JSON text (compared as the JSON it holds).
//!
//! Shared by the `encode` fuzz target (included by path) and `tests/fuzz_regressions.rs`, which replays
//! `fuzz/regressions/encode/`.
#![allow(dead_code)]

// The test binary also has it as `protobuf_reference`; included here so the fuzz crate gets it by this file's path.
#[allow(clippy::duplicate_mod)]
#[path = "protobuf_reference.rs"]
mod reference;

use bidscan_openrtb::{
    Adm, BidResponse, EncodeError, EncodeWarning, Mode, ProtobufLimits, decode_protobuf,
    encode_protobuf,
};
use serde_json::Value;

/// What [`check`] found on one input.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Not a bid response the JSON decoder reads.
    NotDecoded,
    /// An integer outside int32: an [`EncodeError`] (checked).
    NotEncodable,
    /// Encoded, with this many members dropped (warned about).
    Encoded {
        /// The number of warnings.
        warnings: usize,
    },
}

/// Checks the encode property on `data` (panics with the first violation). See the module docs.
pub fn check(data: &[u8]) -> Outcome {
    let mut reader = bidscan_json::Reader::default();
    let mut buf = data.to_vec();
    let Ok(decoded) = bidscan_openrtb::decode(&mut reader, &mut buf, Mode::Lenient) else {
        return Outcome::NotDecoded;
    };
    let model = &decoded.response;
    let canonical = serde_json::to_value(model).expect("the model serializes");
    let mut out = Vec::new();
    let encoded = encode_protobuf(model, &mut out);

    let mut strict_buf = data.to_vec();
    if let Ok(strict) = bidscan_openrtb::decode(&mut reader, &mut strict_buf, Mode::Strict) {
        let mut again = Vec::new();
        let answer = encode_protobuf(&strict.response, &mut again);
        assert_eq!(answer, encoded, "strict model: another answer");
        assert!(again == out, "strict model: other bytes");
    }

    let warnings = match encoded {
        Ok(w) => w,
        Err(e) => {
            error_names_a_member(&canonical, &e);
            return Outcome::NotEncodable;
        }
    };
    for w in &warnings {
        assert!(
            canonical.pointer(&w.path).is_some(),
            "warning {w}: no such member in {canonical}"
        );
    }

    assert_eq!(
        reference::check(&out),
        reference::Outcome::BothAccepted,
        "prost and decode_protobuf read the encoding alike"
    );
    let mut rendered = String::new();
    let back = decode_protobuf(
        &out,
        &mut rendered,
        Mode::Lenient,
        ProtobufLimits::default(),
    )
    .unwrap_or_else(|e| panic!("decode_protobuf refuses the encoding: {e}"));
    let mut again = Vec::new();
    let warnings_again = encode_protobuf(&back.response, &mut again)
        .unwrap_or_else(|e| panic!("the model read back does not encode: {e}"));
    assert_eq!(warnings_again, [], "the model read back encodes whole");
    assert!(
        again == out,
        "not a fixed point: {} bytes, then {} bytes",
        out.len(),
        again.len()
    );

    carried_over(model, canonical, &back.response, &warnings);
    Outcome::Encoded {
        warnings: warnings.len(),
    }
}

/// An encode error's path names a member of `canonical` holding a number, or a number's text, outside int32.
fn error_names_a_member(canonical: &Value, e: &EncodeError) {
    assert!(e.message.contains("outside int32"), "{e}");
    let member = canonical
        .pointer(&e.path)
        .unwrap_or_else(|| panic!("error {e}: no such member in {canonical}"));
    let outside = match member {
        Value::Number(n) => n.as_i64().is_none_or(|v| i32::try_from(v).is_err()),
        Value::String(s) => s
            .trim()
            .parse::<f64>()
            .is_ok_and(|v| !(-2_147_483_648.0..=2_147_483_647.0).contains(&v)),
        _ => false,
    };
    assert!(outside, "error {e}: the member holds {member}");
}

/// Marks the member `pointer` names for removal (see [`strip`]); nothing when it no longer resolves (a
/// member inside one marked before).
fn mark(v: &mut Value, pointer: &str) {
    if let Some(m) = v.pointer_mut(pointer) {
        *m = Value::String(DROPPED.to_owned());
    }
}

const DROPPED: &str = "\u{0}dropped by encode_protobuf";

/// Removes the marked members and items.
fn strip(v: &mut Value) {
    let dropped = |v: &Value| v.as_str() == Some(DROPPED);
    match v {
        Value::Object(m) => {
            m.retain(|_, v| !dropped(v));
            m.values_mut().for_each(strip);
        }
        Value::Array(a) => {
            a.retain(|v| !dropped(v));
            a.iter_mut().for_each(strip);
        }
        _ => {}
    }
}

/// Asserts that the model read back holds what the JSON model holds, minus the members warned about.
fn carried_over(
    json: &BidResponse<'_>,
    mut expected: Value,
    back: &BidResponse<'_>,
    warnings: &[EncodeWarning],
) {
    assert_eq!(json.seatbid.len(), back.seatbid.len(), "seat bids");
    for w in warnings {
        mark(&mut expected, &w.path);
    }
    strip(&mut expected);
    let mut got = serde_json::to_value(back).expect("the model serializes");
    for (si, (seat, seat_back)) in json.seatbid.iter().zip(&back.seatbid).enumerate() {
        assert_eq!(seat.bid.len(), seat_back.bid.len(), "bids of seat bid {si}");
        for (bi, (bid, bid_back)) in seat.bid.iter().zip(&seat_back.bid).enumerate() {
            match (&bid.adm, &bid_back.adm) {
                (Some(Adm::Markup(a)), Some(Adm::Markup(b))) => {
                    assert_eq!(a, b, "/seatbid/{si}/bid/{bi}/adm")
                }
                // An object `adm` that is no native response travels as its text.
                (Some(Adm::Object(_)), Some(Adm::Markup(text))) => {
                    got["seatbid"][si]["bid"][bi]["adm"] = serde_json::from_str(text)
                        .unwrap_or_else(|e| panic!("an object adm's text is not JSON: {e}"));
                }
                (Some(Adm::Object(_)), Some(Adm::Object(_))) | (None, None) => {}
                (a, b) => panic!("/seatbid/{si}/bid/{bi}/adm: {a:?} read back as {b:?}"),
            }
        }
    }
    if let Err(at) = equivalent(&expected, &got, String::new()) {
        panic!(
            "not carried over at {at}:\n  JSON model minus warnings {expected}\n  read back {got}\n  warnings {warnings:?}"
        );
    }
}

/// Whether `got` (read back from protobuf) holds what `expected` (the JSON model) holds, up to the differences
/// of the module docs; `Err` with the JSON pointer of the first difference.
pub fn equivalent(expected: &Value, got: &Value, at: String) -> Result<(), String> {
    let number = |s: &str| s.trim().parse::<f64>().ok();
    let same = match (expected, got) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                let at = format!("{at}/{k}");
                match b.get(k) {
                    Some(w) => equivalent(v, w, at)?,
                    None if v.as_array().is_some_and(Vec::is_empty)
                        || v.as_object().is_some_and(serde_json::Map::is_empty) => {}
                    None => return Err(format!("{at} (missing)")),
                }
            }
            match b.keys().find(|k| !a.contains_key(*k)) {
                Some(k) => return Err(format!("{at}/{k} (not in the JSON)")),
                None => true,
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                return Err(format!("{at} ({} items, read back {})", a.len(), b.len()));
            }
            for (i, (v, w)) in a.iter().zip(b).enumerate() {
                equivalent(v, w, format!("{at}/{i}"))?;
            }
            true
        }
        (e, Value::Array(b)) if b.len() == 1 => return equivalent(e, &b[0], at),
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::Bool(x), Value::Number(n)) => n.as_f64() == Some(f64::from(u8::from(*x))),
        (Value::Number(n), Value::String(s)) | (Value::String(s), Value::Number(n)) => {
            number(s).is_some() && number(s) == n.as_f64()
        }
        (a, b) => a == b,
    };
    if same {
        Ok(())
    } else {
        Err(format!("{at} ({expected} read back as {got})"))
    }
}
