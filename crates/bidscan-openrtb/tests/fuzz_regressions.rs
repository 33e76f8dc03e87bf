//! Model and encode inputs kept from fuzzing and hostile-input work (`fuzz/regressions/model/*`,
//! `fuzz/regressions/encode/*`, see `fuzz/regressions/README.md` and RELIABILITY.md §1), replayed on every
//! `cargo test`. The encode inputs are checked by the `encode` target's property (`protobuf_encode_property.rs`).
//!
//! For each input: lenient and strict decoding never panic; strict succeeds only where lenient does and then gives
//! the same answer, and a strict failure is one of the lenient issues; valid JSON is never `Malformed`; the
//! answer agrees with serde_json's (`common::decode`); the canonical output of a lenient decode decodes again to
//! the same response. Some inputs also pin a stated answer (`expected`).

use crate::common;
use crate::protobuf_encode_property;

use bidscan_openrtb::{DecodeError, Decoded, Mode, Status};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/regressions/model");

fn inputs() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(DIR)
        .unwrap_or_else(|e| panic!("{DIR}: {e}"))
        .map(|e| e.unwrap().path())
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let text =
                String::from_utf8(std::fs::read(&p).unwrap()).expect("model inputs are UTF-8");
            (name, text)
        })
        .collect();
    out.sort();
    out
}

/// The stated answer for some inputs: `Ok(status)` or `Err(code)` in lenient mode.
fn expected(name: &str) -> Option<Result<Status, &'static str>> {
    Some(match name {
        "price_number_overflow.json" | "adm_lone_surrogate.json" => Err("malformed_json"),
        "price_string_overflow.json"
        | "price_negative_zero.json"
        | "price_string_negative_zero.json"
        | "price_string_nan.json"
        | "adm_nul_escape.json"
        | "w_huge.json"
        | "mtype_negative.json"
        | "ids_numeric.json"
        | "seatbid_object.json" => Ok(Status::Bid),
        "duplicate_members.json" | "ext_deep_127.json" => Ok(Status::NoBid),
        _ => return None,
    })
}

fn check_round_trip(name: &str, d: &Decoded<'static>) {
    let finite = d
        .response
        .seatbid
        .iter()
        .flat_map(|s| &s.bid)
        .all(|b| b.price.is_none_or(f64::is_finite));
    if !finite {
        return; // serde_json writes a non-finite float as null
    }
    let text = serde_json::to_string(&d.response).unwrap();
    let again = common::lenient(&text);
    assert_eq!(again.bid_count(), d.bid_count(), "{name}: {text}");
    assert_eq!(
        serde_json::to_string(&again.response).unwrap(),
        text,
        "{name}: canonical output is a fixed point"
    );
}

#[test]
fn model_inputs_keep_their_answers() {
    let inputs = inputs();
    assert!(inputs.len() >= 10, "{} inputs", inputs.len());
    for (name, text) in inputs {
        // serde_json skips an unknown member without checking its escapes, so compare only on what it reads.
        let both = serde_json::from_str::<serde_json::Value>(&text).is_ok();
        let decode = |mode| {
            if both {
                common::decode(&text, mode)
            } else {
                bidscan_openrtb::decode(&mut common::reader(), common::leak(&text), mode)
            }
        };
        let lenient = decode(Mode::Lenient);
        let strict = decode(Mode::Strict);
        match (&lenient, &strict) {
            (Ok(l), Ok(s)) => assert_eq!(l, s, "{name}"),
            (Ok(l), Err(DecodeError::Strict { path, code, .. })) => assert!(
                l.issues.iter().any(|i| i.code == *code && i.path == *path),
                "{name}: strict {code} at {path} not among {:?}",
                l.issues
            ),
            // Strict mode refuses a byte order mark first, whatever follows it.
            (_, Err(DecodeError::ByteOrderMark)) => {
                assert!(text.starts_with('\u{feff}'), "{name}")
            }
            (Err(l), Err(s)) => assert_eq!(l.code(), s.code(), "{name}"),
            _ => panic!("{name}: lenient {lenient:?} strict {strict:?}"),
        }
        if both {
            assert!(
                !matches!(lenient, Err(DecodeError::Malformed(_))),
                "{name}: valid JSON reported malformed"
            );
        }
        if let Ok(d) = &lenient {
            assert_eq!(d.status == Status::Bid, d.bid_count() > 0, "{name}");
            check_round_trip(&name, d);
        }
        if let Some(want) = expected(&name) {
            let got = lenient
                .as_ref()
                .map(|d| d.status)
                .map_err(DecodeError::code);
            assert_eq!(got, want, "{name}");
        }
    }
}

const ENCODE_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/regressions/encode");

#[test]
fn encode_inputs_keep_the_encode_property() {
    let mut paths: Vec<_> = std::fs::read_dir(ENCODE_DIR)
        .unwrap_or_else(|e| panic!("{ENCODE_DIR}: {e}"))
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    assert!(paths.len() >= 10, "{} inputs", paths.len());
    let mut encoded = 0;
    for path in paths {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let outcome = std::panic::catch_unwind(|| protobuf_encode_property::check(&bytes))
            .unwrap_or_else(|_| panic!("{name}: the encode property fails (message above)"));
        encoded += usize::from(matches!(
            outcome,
            protobuf_encode_property::Outcome::Encoded { .. }
        ));
    }
    assert!(encoded >= 10, "{encoded} inputs encoded");
}
