//! bidscan-fuzz: the properties the fuzz targets check, as plain functions, so a libFuzzer binary, a replay of
//! a crash file and a unit test all run the same code.
//!
//! - [`reader`]: bidscan-json on arbitrary bytes, through every decode path (a `serde_json::Value`, the
//!   validating skip `IgnoredAny`, the raw capture `RawJson`, borrowed typed targets) and every scanner this CPU
//!   runs: never a panic, every path accepts exactly the same documents, every scanner gives the same answer,
//!   error positions are inside the input, a lower depth limit only ever rejects more.
//! - [`model`]: bidscan-openrtb `decode` in lenient and strict mode: strict succeeds only where lenient does and
//!   then agrees with it, valid JSON is never `Malformed`, the canonical output re-decodes to the same response.
//! - [`differential`]: bidscan-json against serde_json (`float_roundtrip`): same accept/reject, same value
//!   (compared as values *and* as serialized text, so `-0` vs `0` and `1.0` vs `1` count), and the same
//!   OpenRTB `Decoded` when the model is decoded by both. Known, documented differences are skipped, each named
//!   in [`KnownDifference`].
//! - [`skip`]: skipped and raw-captured payloads over bidscan-json's structural index against its token walk
//!   (same outcome, place and stats, every scanner) and against serde_json's acceptance of the document.
//! - [`markup`]: bidscan-markup's VAST, native and HTML inspectors on arbitrary text (never a panic, offsets and
//!   line/column inside the markup, `well_formed` exactly without an error), and `decode_inspected` on the same
//!   bytes (it adds markup findings and changes nothing else).
//!
//! - [`multipart`]: the auction's `multipart/form-data` reader (bidscan-server's leaf module) on arbitrary
//!   bytes, against multer: ranges inside the body and disjoint, bidder names well-formed, the same parts where
//!   both accept.
//!
//! - [`protobuf`]: bidscan-openrtb's `decode_protobuf` against prost (derived structs with the schema's field
//!   numbers): same accept/reject and the same values where both accept, known differences skipped (see
//!   bidscan-openrtb's `tests/protobuf_reference.rs`); every rendered `ext` is JSON.
//! - [`encode`]: bidscan-openrtb's `encode_protobuf` on the model of any bytes that decode as a JSON bid
//!   response: never a panic, an error or warning names a member; prost and `decode_protobuf` read the bytes
//!   alike; the model read back encodes to the same bytes (a fixed point) and holds what the JSON model holds
//!   minus the members warned about (see bidscan-openrtb's `tests/protobuf_encode_property.rs`).
//! - [`protobuf_request`]: bidscan-openrtb's `decode_request_protobuf` against prost (derived structs with the
//!   schema's field numbers for what the request view reads): same accept/reject and the same values where both
//!   accept, known differences skipped (see the module).
//!
//! What it does not do: generate structured inputs (libFuzzer mutates bytes, guided by `fuzz/json.dict`, and `fuzz/markup.dict` for the markup target), or
//! check performance.

mod differential;
mod encode;
mod markup;
mod model;
mod multipart;
mod protobuf;
mod protobuf_request;
mod reader;
mod skip;

pub use differential::{KnownDifference, differential};
pub use encode::{EncodeOutcome, encode};
pub use markup::markup;
pub use model::model;
pub use multipart::multipart;
pub use protobuf::protobuf;
pub use protobuf_request::{RequestOutcome, check_request, protobuf_request};
pub use reader::reader;
pub use skip::skip;

/// Nesting depth of a value: 0 for a scalar, 1 + the deepest child for an array or object (so `[]` is 1 and
/// `[[1]]` is 2), computed without recursion.
pub fn nesting(value: &serde_json::Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((v, depth)) = stack.pop() {
        match v {
            serde_json::Value::Array(items) => {
                deepest = deepest.max(depth + 1);
                stack.extend(items.iter().map(|i| (i, depth + 1)));
            }
            serde_json::Value::Object(members) => {
                deepest = deepest.max(depth + 1);
                stack.extend(members.values().map(|i| (i, depth + 1)));
            }
            _ => deepest = deepest.max(depth),
        }
    }
    deepest
}

/// Nesting depth of a JSON text: the deepest run of open `[`/`{` outside strings. Unlike [`nesting`] of the
/// decoded value, it counts containers a later duplicate key replaced (`{"a":[[1]],"a":1}` is 3 deep as text,
/// 1 as a value), which is what a reader's depth limit sees.
pub fn text_nesting(text: &[u8]) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for &b in text {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_nesting_counts_replaced_containers_and_ignores_strings() {
        assert_eq!(text_nesting(br#"{"a":[[1]],"a":1}"#), 3);
        assert_eq!(text_nesting(br#"["[[\"]]]", {}]"#), 2);
        assert_eq!(text_nesting(b"1"), 0);
    }

    #[test]
    fn nesting_counts_containers() {
        let v: serde_json::Value = serde_json::from_str(r#"[1,{"a":[[]]},"x"]"#).unwrap();
        assert_eq!(nesting(&v), 4);
        assert_eq!(nesting(&serde_json::json!(1)), 0);
        assert_eq!(nesting(&serde_json::json!({})), 1);
    }

    #[test]
    fn seeds_pass_every_check() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/bid-responses");
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "json") {
                let bytes = std::fs::read(&path).unwrap();
                reader(&bytes);
                model(&bytes);
                differential(&bytes);
                skip(&bytes);
                encode(&bytes);
            }
        }
    }
}
