//! The reader target: bidscan-json on arbitrary bytes.

use std::borrow::Cow;
use std::collections::BTreeMap;

use bidscan_json::{Error, ErrorKind, RawJson, Reader, ReaderConfig, ScanImpl};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;

use crate::text_nesting;

/// The small depth limit the reader is also run with.
const SMALL_DEPTH: usize = 5;

/// A struct with borrowed, raw, optional and unknown members, to exercise the typed paths.
#[derive(Debug, Deserialize)]
#[allow(dead_code)] // read only through Debug
struct Typed<'a> {
    #[serde(borrow)]
    a: Option<Cow<'a, str>>,
    #[serde(borrow)]
    b: Option<RawJson<'a>>,
    c: Option<Vec<i64>>,
    d: Option<f64>,
    e: Option<Shape>,
}

/// An enum in serde's externally tagged form (`"Unit"`, `{"New": 1}`, `{"Record": {"x": "…"}}`).
#[derive(Debug, Deserialize)]
#[allow(dead_code)] // read only through Debug
enum Shape {
    Unit,
    New(u8),
    Record { x: String },
}

/// Checks every property of the reader on `data` (panics on a violation). See the crate docs.
pub fn reader(data: &[u8]) {
    let mut first: Option<Result<Value, (ErrorKind, usize)>> = None;
    for scan in ScanImpl::available() {
        let mut reader = Reader::default();
        assert!(reader.set_scan_impl(scan));
        let outcome = all_paths(&mut reader, data);
        match &first {
            None => first = Some(outcome),
            Some(f) => assert_eq!(f, &outcome, "{scan:?} disagrees with the first scanner"),
        }
    }
    let Some(outcome) = first else {
        panic!("no scanner available")
    };
    typed(data, outcome.is_ok());
    depth_limit(data, outcome.ok().as_ref());
}

fn copy_decode<'de, T: Deserialize<'de>>(
    reader: &mut Reader,
    buf: &'de mut Vec<u8>,
    data: &[u8],
) -> Result<T, Error> {
    buf.clear();
    buf.extend_from_slice(data);
    let result = reader.decode::<T>(buf);
    if let Err(e) = &result {
        check_error(e, data);
    }
    result
}

/// Value, skip and raw paths on one reader: they accept exactly the same documents.
fn all_paths(reader: &mut Reader, data: &[u8]) -> Result<Value, (ErrorKind, usize)> {
    let mut buf = Vec::new();
    let value: Result<Value, Error> = copy_decode(reader, &mut buf, data);
    if value.is_ok() {
        let stats = reader.stats();
        assert_eq!(stats.bytes, data.len(), "stats.bytes");
        assert!(stats.escaped_strings <= stats.strings, "{stats:?}");
        assert!(stats.longest_string <= data.len(), "{stats:?}");
        assert!(stats.escapes as usize <= data.len(), "{stats:?}");
    }
    let mut buf = Vec::new();
    let skipped: Result<IgnoredAny, Error> = copy_decode(reader, &mut buf, data);
    let mut buf = Vec::new();
    let raw: Result<RawJson, Error> = copy_decode(reader, &mut buf, data);
    assert_eq!(
        value.is_ok(),
        skipped.is_ok(),
        "value {value:?} vs skip {skipped:?}"
    );
    assert_eq!(value.is_ok(), raw.is_ok(), "value {value:?} vs raw {raw:?}");
    if let Ok(raw) = &raw {
        assert_eq!(
            raw.get().as_bytes(),
            data.trim_ascii(),
            "raw text is the trimmed input"
        );
    }
    match (&value, &skipped) {
        (Err(v), Err(s)) if v.kind() != ErrorKind::Custom => {
            assert_eq!(
                (v.kind(), v.byte()),
                (s.kind(), s.byte()),
                "skip path disagrees on the error"
            );
        }
        _ => {}
    }
    value.map_err(|e| (e.kind(), e.byte()))
}

/// Error positions lie inside the input and render.
fn check_error(e: &Error, data: &[u8]) {
    assert!(
        e.byte() <= data.len(),
        "byte {} past the end ({}): {e}",
        e.byte(),
        data.len()
    );
    assert!(
        e.line() >= 1 && e.column() >= 1,
        "line/column are 1-based: {e}"
    );
    assert!(
        e.line() <= data.len() + 1,
        "line {} of {} bytes",
        e.line(),
        data.len()
    );
    assert!(!e.message().is_empty());
    if let Some(path) = e.path() {
        assert!(
            path.is_empty() || path.starts_with('/'),
            "not a JSON pointer: {path:?}"
        );
    }
    let _ = e.to_string();
}

/// Borrowed typed targets: on a valid document a typed decode can only fail with a type error (`Custom`), and
/// when it succeeds it agrees with the value.
fn typed(data: &[u8], valid: bool) {
    let value: Option<Value> = valid.then(|| {
        let mut buf = data.to_vec();
        bidscan_json::from_slice_mut(&mut buf).expect("accepted above")
    });
    let mut reader = Reader::default();
    let type_error_only = |e: &Error| {
        if valid {
            assert_eq!(
                e.kind(),
                ErrorKind::Custom,
                "valid document, non-type error: {e}"
            );
        }
    };

    let mut buf = Vec::new();
    match copy_decode::<Vec<&str>>(&mut reader, &mut buf, data) {
        Ok(strings) => {
            let expected: Vec<Value> = strings.iter().map(|s| Value::from(*s)).collect();
            assert_eq!(value.as_ref(), Some(&Value::Array(expected)), "Vec<&str>");
        }
        Err(e) => {
            type_error_only(&e);
            if let Some(Value::Array(items)) = &value {
                assert!(
                    !items.iter().all(Value::is_string),
                    "array of strings refused: {e}"
                );
            }
        }
    }

    let mut buf = Vec::new();
    match copy_decode::<BTreeMap<&str, Value>>(&mut reader, &mut buf, data) {
        Ok(map) => {
            let expected: serde_json::Map<String, Value> =
                map.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
            assert_eq!(value.as_ref(), Some(&Value::Object(expected)), "BTreeMap");
        }
        Err(e) => {
            type_error_only(&e);
            assert!(
                !matches!(value, Some(Value::Object(_))),
                "object refused: {e}"
            );
        }
    }

    let mut buf = Vec::new();
    match copy_decode::<Option<f64>>(&mut reader, &mut buf, data) {
        Ok(number) => match &value {
            Some(Value::Null) => assert_eq!(number, None),
            Some(Value::Number(n)) => {
                assert_eq!(number.map(f64::to_bits), n.as_f64().map(f64::to_bits))
            }
            other => panic!("Option<f64> from {other:?}"),
        },
        Err(e) => type_error_only(&e),
    }

    if let Err(e) = copy_decode::<i64>(&mut reader, &mut buf, data) {
        type_error_only(&e);
    }
    // A tuple from a longer array: like serde_json ("trailing characters"), the elements past the tuple's are a
    // syntax error at the first of them, not a type error.
    if let Err(e) = copy_decode::<(Cow<str>, Option<bool>)>(&mut reader, &mut Vec::new(), data) {
        let longer = matches!(&value, Some(Value::Array(items)) if items.len() > 2);
        if !(longer && e.kind() == ErrorKind::TrailingCharacters) {
            type_error_only(&e);
        }
    }
    // Enums: like serde_json, an enum read from an object with no variant key (`{}`) is reported as a syntax
    // error ("key must be a string"; serde_json: "expected value") although the document is valid, so only the
    // error's place is checked (in `copy_decode`), not its kind.
    let _ = copy_decode::<Typed>(&mut reader, &mut Vec::new(), data);
    let _ = copy_decode::<Vec<Shape>>(&mut reader, &mut Vec::new(), data);
}

/// A lower depth limit only ever rejects more, and rejects exactly the documents nested deeper than it.
fn depth_limit(data: &[u8], value: Option<&Value>) {
    let mut reader = Reader::new(ReaderConfig {
        max_depth: SMALL_DEPTH,
        ..Default::default()
    });
    let mut buf = data.to_vec();
    let small: Result<Value, Error> = reader.decode(&mut buf);
    match (value, small) {
        (Some(v), Ok(s)) => {
            assert_eq!(v, &s, "depth limit changed the value");
            assert!(
                text_nesting(data) <= SMALL_DEPTH,
                "nesting {} accepted at limit {SMALL_DEPTH}",
                text_nesting(data)
            );
        }
        (Some(_), Err(e)) => {
            // The text's nesting, not the value's: a later duplicate key may have replaced the deep part.
            assert_eq!(e.kind(), ErrorKind::DepthLimit, "{e}");
            assert!(
                text_nesting(data) > SMALL_DEPTH,
                "nesting {} refused at limit {SMALL_DEPTH}: {e}",
                text_nesting(data)
            );
        }
        (None, Ok(s)) => panic!("accepted only with the lower depth limit: {s:?}"),
        (None, Err(_)) => {}
    }
}
