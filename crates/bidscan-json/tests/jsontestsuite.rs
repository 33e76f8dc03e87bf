//! RFC 8259 conformance on Nicolas Seriot's JSONTestSuite (corpus/jsontestsuite, MIT licence, see its LICENSE):
//! every `y_` accepted (with the value serde_json gives), every `n_` rejected, every `i_` decided by the policy
//! below — through the value, skip and raw paths and every scanner implementation (see `common`).
//!
//! # Policy for the implementation-defined (`i_`) cases
//!
//! | family | files | bidscan | why |
//! |---|---|---|---|
//! | number underflow | `i_number_double_huge_neg_exp`, `i_number_real_underflow` | accept, value rounds (to 0.0) | std's exact parser; as serde_json |
//! | integer beyond 64 bits | `i_number_too_big_pos_int`, `i_number_too_big_neg_int` | accept as `f64` | as serde_json |
//! | number overflow | `i_number_pos_double_huge_exp`, `i_number_real_pos_overflow`, `i_number_real_neg_overflow` | reject, `InvalidNumber` ("number out of range") | no infinity in `f64` output; as serde_json |
//! | lone / inverted / incomplete surrogate escapes | `i_string_*surrogate*` (escaped), `i_string_incomplete_surrogate*`, `i_string_inverted_surrogates_U+1D11E` | reject, `LoneSurrogate` | cannot be UTF-8; as serde_json for strings |
//! | invalid UTF-8 bytes | `i_string_UTF-8_invalid_sequence`, `i_string_UTF8_surrogate_U+D800`, `i_string_iso_latin_1`, `i_string_lone_utf8_continuation_byte`, `i_string_not_in_unicode_range`, `i_string_overlong_*`, `i_string_truncated-utf-8` | reject, `InvalidUtf8` | RFC 8259 §8.1: JSON text is UTF-8 |
//! | deep nesting | `i_structure_500_nested_arrays` | reject, `DepthLimit` at the default 128; accepted with `max_depth: 500` | stack safety |
//! | BOM, UTF-16/32 text (not in this copy of the suite) | `i_structure_UTF-8_BOM_*`, `i_string_utf16*` | reject (`Syntax` / `InvalidUtf8`) | §8.1: no BOM added, parsers MAY ignore one; we do not |

use crate::common;

use std::path::PathBuf;

use bidscan_json::{ErrorKind, ReaderConfig};

fn suite() -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../corpus/jsontestsuite"
    ));
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("corpus/jsontestsuite")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

#[test]
fn every_y_case_is_accepted_with_serde_json_s_value() {
    let mut count = 0;
    for (name, bytes) in suite().iter().filter(|(n, _)| n.starts_with("y_")) {
        let ours = common::decode_value(bytes, &ReaderConfig::default())
            .unwrap_or_else(|e| panic!("{name} rejected: {e}"));
        let theirs: serde_json::Value = serde_json::from_slice(bytes).unwrap();
        assert_eq!(ours, theirs, "{name}");
        count += 1;
    }
    assert_eq!(count, 65);
}

#[test]
fn every_n_case_is_rejected() {
    let mut count = 0;
    for (name, bytes) in suite().iter().filter(|(n, _)| n.starts_with("n_")) {
        if let Ok(v) = common::decode_value(bytes, &ReaderConfig::default()) {
            panic!("{name} accepted as {v}");
        }
        count += 1;
    }
    assert_eq!(count, 122);
}

/// The policy table above, as (file-name pattern, expected outcome).
fn i_policy(name: &str) -> Option<Result<(), ErrorKind>> {
    let rule = |needles: &[&str]| needles.iter().any(|n| name.contains(n));
    Some(
        if rule(&[
            "double_huge_neg_exp",
            "real_underflow",
            "too_big_pos_int",
            "too_big_neg_int",
        ]) {
            Ok(())
        } else if rule(&[
            "pos_double_huge_exp",
            "real_pos_overflow",
            "real_neg_overflow",
        ]) {
            Err(ErrorKind::InvalidNumber)
        } else if rule(&[
            "UTF-8_invalid",
            "UTF8_surrogate",
            "iso_latin",
            "utf8_continuation",
            "not_in_unicode_range",
        ]) || rule(&["overlong", "truncated-utf-8", "utf16", "UTF-16"])
        {
            Err(ErrorKind::InvalidUtf8)
        } else if rule(&["surrogate"]) {
            Err(ErrorKind::LoneSurrogate)
        } else if rule(&["nested_arrays"]) {
            Err(ErrorKind::DepthLimit)
        } else if rule(&["BOM"]) {
            Err(ErrorKind::Syntax)
        } else {
            return None;
        },
    )
}

#[test]
fn every_i_case_follows_the_policy_without_panicking() {
    let mut count = 0;
    for (name, bytes) in suite().iter().filter(|(n, _)| n.starts_with("i_")) {
        let want =
            i_policy(name).unwrap_or_else(|| panic!("{name}: no policy; classify it in the table"));
        let got = common::decode_value(bytes, &ReaderConfig::default())
            .map(|_| ())
            .map_err(|e| e.kind());
        assert_eq!(got, want, "{name}");
        if want.is_ok() {
            let theirs = serde_json::from_slice::<serde_json::Value>(bytes).unwrap();
            assert_eq!(
                common::decode_value(bytes, &ReaderConfig::default()).unwrap(),
                theirs,
                "{name}"
            );
        }
        count += 1;
    }
    assert_eq!(count, 25);
}

#[test]
fn deep_nesting_case_is_accepted_with_a_higher_limit() {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../corpus/jsontestsuite/i_structure_500_nested_arrays.json"
    ))
    .unwrap();
    // Decoding recurses once per level; give the 500 levels a roomy stack in debug builds.
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || {
            let config = ReaderConfig {
                max_depth: 500,
                ..Default::default()
            };
            assert!(common::decode_value(&bytes, &config).is_ok());
            let config = ReaderConfig {
                max_depth: 499,
                ..Default::default()
            };
            assert_eq!(
                common::decode_value(&bytes, &config).unwrap_err().kind(),
                ErrorKind::DepthLimit
            );
        })
        .unwrap()
        .join()
        .unwrap();
}
