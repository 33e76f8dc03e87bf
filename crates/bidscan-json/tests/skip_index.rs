//! The structural index against the token walk on every body of the corpora (synthetic bid responses, the real
//! bodies as fetched — mostly pretty-printed, where the index walks the skipped containers — and compacted),
//! through every scanner: a document skipped whole (`IgnoredAny`), every member of an object skipped, and every
//! member captured raw give the same outcome and `Stats` with the index on and off, and raw captures are the
//! members' exact text.

use crate::common;

use std::collections::BTreeMap;

use bidscan_json::{RawJson, ReaderConfig};
use serde::Deserialize;
use serde::de::IgnoredAny;

/// An object whose members are all skipped.
#[derive(Debug, Deserialize)]
struct Nothing {}

fn bodies() -> Vec<(String, Vec<u8>)> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpus");
    let mut out = Vec::new();
    for dir in ["bid-responses", "real-fixtures", "real-fixtures-compact"] {
        for entry in std::fs::read_dir(format!("{root}/{dir}")).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "json") {
                let name = format!("{dir}/{}", path.file_name().unwrap().to_string_lossy());
                out.push((name, std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// `Debug` of decoding a copy of `bytes` as `T` and the reader's stats.
fn outcome<'de, T: Deserialize<'de> + std::fmt::Debug>(
    reader: &mut bidscan_json::Reader,
    buf: &'de mut Vec<u8>,
    bytes: &[u8],
) -> String {
    buf.clear();
    buf.extend_from_slice(bytes);
    let result = reader.decode::<T>(buf);
    format!("{result:?} {:?}", reader.stats())
}

#[test]
fn every_corpus_body_skips_alike_with_and_without_the_index() {
    let bodies = bodies();
    assert!(bodies.len() > 2000, "{} bodies", bodies.len());
    let mut indexed = 0;
    for mut reader in common::readers(&ReaderConfig::default()) {
        for (name, bytes) in &bodies {
            let mut runs = Vec::new();
            for on in [true, false] {
                reader.set_skip_index(on);
                indexed += usize::from(on && reader.skip_index());
                let mut buf = Vec::new();
                let ignored = outcome::<IgnoredAny>(&mut reader, &mut buf, bytes);
                let nothing = outcome::<Nothing>(&mut reader, &mut buf, bytes);
                let raw = outcome::<BTreeMap<&str, RawJson<'_>>>(&mut reader, &mut buf, bytes);
                runs.push((ignored, nothing, raw));
            }
            assert_eq!(runs[0], runs[1], "{:?} {name}", reader.scan_impl());
            let mut buf = bytes.clone();
            if let Ok(members) = reader.decode::<BTreeMap<&str, RawJson<'_>>>(&mut buf) {
                let theirs: BTreeMap<String, serde_json::Value> =
                    serde_json::from_slice(bytes).unwrap();
                for (k, raw) in members {
                    let value: serde_json::Value = serde_json::from_str(raw.get()).unwrap();
                    assert_eq!(Some(&value), theirs.get(k), "{name}: member {k}");
                }
            }
        }
    }
    // The machines that run this suite have AVX2; elsewhere only the token walk runs.
    if bidscan_json::ScanImpl::Avx2.is_available() {
        assert!(indexed > 0);
    }
}
