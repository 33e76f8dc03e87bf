//! Shared helpers for the integration tests: decode one input through every decode path (typed value, skip,
//! raw capture) and every scanner implementation this CPU runs, and check they agree.

#![allow(dead_code)]

pub mod strategies;

use bidscan_json::{Error, ErrorKind, RawJson, Reader, ReaderConfig, ScanImpl};
use serde::de::IgnoredAny;

/// Property-test case count: `default`, or `PROPTEST_CASES` from the environment for a deeper run
/// (`PROPTEST_CASES=20000 cargo test -p bidscan-json --release --test differential`).
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One reader per available scanner implementation, each with `config`.
pub fn readers(config: &ReaderConfig) -> Vec<Reader> {
    ScanImpl::available()
        .into_iter()
        .map(|imp| {
            let mut reader = Reader::new(config.clone());
            assert!(reader.set_scan_impl(imp));
            reader
        })
        .collect()
}

/// Decodes `input` into `serde_json::Value` with a copy per reader, asserting all readers agree (value or kind
/// and offset of the error), and that the skip path (`IgnoredAny`) and the raw path (`RawJson`) accept exactly
/// what the value path accepts. Returns the value path's outcome.
pub fn decode_value(input: &[u8], config: &ReaderConfig) -> Result<serde_json::Value, Error> {
    let mut first: Option<Result<serde_json::Value, (ErrorKind, usize)>> = None;
    let mut result = None;
    for mut reader in readers(config) {
        let mut buf = input.to_vec();
        let value: Result<serde_json::Value, Error> = reader.decode(&mut buf);
        let mut buf = input.to_vec();
        let skipped = reader.decode::<IgnoredAny>(&mut buf).map(|_| ());
        let mut buf = input.to_vec();
        let raw = reader
            .decode::<RawJson>(&mut buf)
            .map(|r| r.get().to_owned());
        assert_eq!(
            value.is_ok(),
            skipped.is_ok(),
            "{:?}: value {value:?} vs skip {skipped:?}",
            reader.scan_impl()
        );
        assert_eq!(
            value.is_ok(),
            raw.is_ok(),
            "{:?}: value {value:?} vs raw {raw:?}",
            reader.scan_impl()
        );
        if let (Err(v), Err(s)) = (&value, &skipped) {
            // A type-independent failure is found at the same place by both paths.
            if v.kind() != ErrorKind::Custom {
                assert_eq!(
                    (v.kind(), v.byte()),
                    (s.kind(), s.byte()),
                    "skip path disagrees on the error"
                );
            }
        }
        if let Ok(raw) = &raw {
            assert_eq!(
                raw.as_bytes(),
                input.trim_ascii(),
                "raw text is the trimmed input"
            );
        }
        let summary = match &value {
            Ok(v) => Ok(v.clone()),
            Err(e) => Err((e.kind(), e.byte())),
        };
        match &first {
            None => first = Some(summary),
            Some(f) => assert_eq!(
                f,
                &summary,
                "{:?} disagrees with the portable scanner",
                reader.scan_impl()
            ),
        }
        if result.is_none() {
            result = Some(value);
        }
    }
    result.expect("SWAR is always available")
}

/// `bidscan_json::from_slice_mut` through every scanner implementation this CPU runs: each decodes its own copy
/// of `input` and every outcome must print the same (`Debug`: the value, or the error with its kind, place and
/// path); then `input` itself is decoded with the default implementation, which must agree too, and that outcome
/// is returned. The copies are leaked (a test's few bytes) so they outlive `'de` like `input` does.
pub fn from_slice_mut<'de, T>(input: &'de mut [u8]) -> Result<T, Error>
where
    T: serde::Deserialize<'de> + std::fmt::Debug,
{
    let mut first: Option<(ScanImpl, String)> = None;
    for mut reader in readers(&ReaderConfig::default()) {
        let copy: &'static mut [u8] = Box::leak(input.to_vec().into_boxed_slice());
        let outcome = format!("{:?}", reader.decode::<T>(copy));
        match &first {
            None => first = Some((reader.scan_impl(), outcome)),
            Some((imp, f)) => assert_eq!(
                f,
                &outcome,
                "{:?} disagrees with {imp:?}",
                reader.scan_impl()
            ),
        }
    }
    let result = bidscan_json::from_slice_mut::<T>(input);
    let (imp, f) = first.expect("SWAR is always available");
    assert_eq!(
        f,
        format!("{result:?}"),
        "the default implementation disagrees with {imp:?}"
    );
    result
}
