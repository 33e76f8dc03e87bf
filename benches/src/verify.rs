//! Before anything is timed: every decoder must produce the same values as bidscan on every document.
//!
//! Each decoder's value is serialized to a `serde_json::Value` (bidscan's and serde_json's through the real
//! model's canonical `Serialize`, the peers' through the mirror's derive, which writes the same member names
//! and omits the same absent members) and compared exactly — floats bit for bit. Where a peer skips `ext`, the
//! `ext` members of the response, seat bids and bids are left out of bidscan's value before comparing.

use serde_json::Value;

use crate::decoders::Decoder;
use crate::mirror::{self, Ext, Skipped, SonicRaw};

/// The decoded value of `doc` as JSON, and whether it holds `ext` (`false` where the decoder skips it).
/// `None` for the memcpy floor, which decodes nothing.
pub fn canonical(decoder: Decoder, doc: &[u8]) -> Result<Option<(Value, bool)>, String> {
    fn json<T: serde::Serialize>(v: &T) -> Result<Value, String> {
        serde_json::to_value(v).map_err(|e| format!("serializing: {e}"))
    }
    fn with_ext<X: Ext>(v: &mirror::BidResponse<'_, X>) -> Result<Option<(Value, bool)>, String> {
        Ok(Some((json(v)?, X::CAPTURED)))
    }
    match decoder {
        Decoder::Memcpy => Ok(None),
        Decoder::Bidscan => {
            let mut input = doc.to_vec();
            let mut reader = bidscan_json::Reader::default();
            let decoded =
                bidscan_openrtb::decode(&mut reader, &mut input, bidscan_openrtb::Mode::Strict)
                    .map_err(|e| e.to_string())?;
            Ok(Some((json(&decoded.response)?, true)))
        }
        Decoder::BidscanInspect => {
            let mut input = doc.to_vec();
            let mut reader = bidscan_json::Reader::default();
            let mut inspector = bidscan_openrtb::Inspector::new();
            let decoded = bidscan_openrtb::decode_inspected(
                &mut reader,
                &mut input,
                bidscan_openrtb::Mode::Strict,
                &mut inspector,
            )
            .map_err(|e| e.to_string())?;
            if decoded.markup.len() != decoded.bid_count() {
                return Err("decode_inspected: one markup entry per bid expected".to_owned());
            }
            Ok(Some((json(&decoded.response)?, true)))
        }
        Decoder::BidscanMirror => {
            let mut input = doc.to_vec();
            let r: mirror::BidResponse<'_, Skipped> =
                bidscan_json::from_slice_mut(&mut input).map_err(|e| e.to_string())?;
            with_ext(&r)
        }
        Decoder::SerdeJson => {
            let r: bidscan_openrtb::BidResponse<'_> =
                serde_json::from_slice(doc).map_err(|e| e.to_string())?;
            Ok(Some((json(&r)?, true)))
        }
        Decoder::SonicRs => {
            let r: mirror::BidResponse<'_, SonicRaw<'_>> =
                sonic_rs::from_slice(doc).map_err(|e| e.to_string())?;
            with_ext(&r)
        }
        Decoder::SimdJson => {
            let mut input = doc.to_vec();
            let r: mirror::BidResponse<'_, Skipped> =
                simd_json::serde::from_slice(&mut input).map_err(|e| e.to_string())?;
            with_ext(&r)
        }
        Decoder::Jiter => {
            let r: mirror::BidResponse<'_, Skipped> =
                jiter::serde::from_slice(doc).map_err(|e| e.to_string())?;
            with_ext(&r)
        }
    }
}

/// Removes `ext` from the response, its seat bids and their bids.
fn strip_ext(v: &mut Value) {
    let Some(top) = v.as_object_mut() else { return };
    top.remove("ext");
    for seat in top
        .get_mut("seatbid")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        let Some(seat) = seat.as_object_mut() else {
            continue;
        };
        seat.remove("ext");
        for bid in seat
            .get_mut("bid")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            if let Some(bid) = bid.as_object_mut() {
                bid.remove("ext");
            }
        }
    }
}

/// Checks that every decoder decodes `doc` (named `name`) to the same values as bidscan (decoded in strict
/// mode, so a document needing a lenient coercion fails here rather than being compared with a peer's strict
/// derive). Returns one line per mismatch.
pub fn check_document(name: &str, doc: &[u8]) -> Vec<String> {
    let reference = match canonical(Decoder::Bidscan, doc) {
        Ok(Some((v, _))) => v,
        Ok(None) => return vec![format!("{name}: bidscan produced nothing")],
        Err(e) => return vec![format!("{name}: bidscan: {e}")],
    };
    let mut problems = Vec::new();
    for peer in Decoder::PEERS
        .into_iter()
        .chain([Decoder::BidscanMirror, Decoder::BidscanInspect])
    {
        match canonical(peer, doc) {
            Ok(Some((value, has_ext))) => {
                let mut expected = reference.clone();
                if !has_ext {
                    strip_ext(&mut expected);
                }
                if value != expected {
                    problems.push(format!(
                        "{name}: {} differs from bidscan:\n  bidscan: {}\n  {}: {}",
                        peer.name(),
                        expected,
                        peer.name(),
                        value
                    ));
                }
            }
            Ok(None) => problems.push(format!("{name}: {} produced nothing", peer.name())),
            Err(e) => problems.push(format!("{name}: {}: {e}", peer.name())),
        }
    }
    problems
}

/// [`check_document`] over the whole corpus; `Err` with every mismatch.
pub fn check_corpus(corpus: &[(String, Vec<u8>)]) -> Result<(), String> {
    let problems: Vec<String> = corpus
        .iter()
        .flat_map(|(name, doc)| check_document(name, doc))
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}
