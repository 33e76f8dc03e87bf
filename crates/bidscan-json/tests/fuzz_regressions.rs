//! Inputs kept from fuzzing (`scripts/fuzz.sh`, see RELIABILITY.md §1), replayed on every `cargo test`.
//!
//! `fuzz/regressions/reader/*`: each input goes through every decode path and scanner (`common::decode_value`
//! asserts they agree), and any error it gets must lie inside the input. `fuzz/regressions/differential/*`: each
//! input is accepted or rejected exactly as serde_json does, with the same value; the one allowed difference is
//! nesting of exactly 128 (bidscan-json's limit is 128 containers, serde_json's 127).
//! `fuzz/regressions/README.md` says what each input found.

use crate::common;

use bidscan_json::{ErrorKind, ReaderConfig};
use serde_json::Value;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/regressions");

/// `(name, bytes)` of every input of one target, sorted by name.
fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(format!("{DIR}/{target}"))
        .unwrap_or_else(|e| panic!("{DIR}/{target}: {e}"))
        .map(|e| e.unwrap().path())
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

fn nesting(v: &Value) -> usize {
    match v {
        Value::Array(items) => 1 + items.iter().map(nesting).max().unwrap_or(0),
        Value::Object(m) => 1 + m.values().map(nesting).max().unwrap_or(0),
        _ => 0,
    }
}

#[test]
fn reader_inputs_agree_on_every_path_and_scanner() {
    let inputs = inputs("reader");
    assert!(!inputs.is_empty());
    for (name, bytes) in inputs {
        match common::decode_value(&bytes, &ReaderConfig::default()) {
            Ok(_) => {}
            Err(e) => {
                assert!(e.byte() <= bytes.len(), "{name}: {e}");
                assert!(e.line() >= 1 && e.column() >= 1, "{name}: {e}");
            }
        }
    }
}

#[test]
fn differential_inputs_decode_like_serde_json() {
    let inputs = inputs("differential");
    assert!(!inputs.is_empty());
    for (name, bytes) in inputs {
        let ours = common::decode_value(&bytes, &ReaderConfig::default());
        let theirs: Result<Value, _> = serde_json::from_slice(&bytes);
        match (&ours, &theirs) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b, "{name}");
                assert_eq!(
                    a.to_string(),
                    b.to_string(),
                    "{name}: same value, different text"
                );
            }
            (Err(a), Err(_)) => assert_ne!(a.kind(), ErrorKind::Custom, "{name}: {a}"),
            (Ok(a), Err(e)) if e.to_string().contains("recursion limit") => {
                assert_eq!(
                    nesting(a),
                    128,
                    "{name}: only nesting of exactly 128 may differ"
                );
            }
            _ => panic!("{name}: ours {ours:?} theirs {theirs:?}"),
        }
    }
}
