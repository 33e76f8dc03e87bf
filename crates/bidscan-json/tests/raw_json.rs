//! `RawJson`: exact text, validated, never decoded in place; and interop with serde_json's `RawValue` protocol in
//! both directions (these tests fail if serde_json ever changes its token).

use crate::common;

use bidscan_json::{ErrorKind, RawJson};
use common::from_slice_mut;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
struct Bid<'a> {
    id: &'a str,
    #[serde(borrow)]
    ext: Option<RawJson<'a>>,
    adm: &'a str,
}

#[test]
fn raw_text_is_verbatim_while_neighbours_are_decoded_in_place() {
    let mut doc = br#"{"id":"a\"1", "ext" :  {"k":"x\"y\u00e9\/", "n":[1, 2.50e1]} , "adm":"<a href=\"x\">"}"#.to_vec();
    let bid: Bid = from_slice_mut(&mut doc).unwrap();
    assert_eq!(bid.id, "a\"1");
    assert_eq!(
        bid.ext.unwrap().get(),
        r#"{"k":"x\"y\u00e9\/", "n":[1, 2.50e1]}"#
    );
    assert_eq!(bid.adm, r#"<a href="x">"#);
}

#[test]
fn raw_scalars_and_top_level() {
    for text in [r#""s\n""#, "-0.5e3", "true", "null", "[]", "{}"] {
        let mut doc = format!(" \n{text}\t ").into_bytes();
        let raw: RawJson = from_slice_mut(&mut doc).unwrap();
        assert_eq!(raw.get(), text);
    }
}

#[test]
fn raw_values_are_validated() {
    for (text, kind) in [
        (r#"{"ext":{"a":01}}"#, ErrorKind::InvalidNumber),
        (r#"{"ext":["\ud800"]}"#, ErrorKind::LoneSurrogate),
        (r#"{"ext":{"a":1,}}"#, ErrorKind::Syntax),
        (r#"{"ext":"a	b"}"#, ErrorKind::ControlCharacter),
        (r#"{"ext":[1e999]}"#, ErrorKind::InvalidNumber),
    ] {
        let mut doc = text.as_bytes().to_vec();
        let err =
            from_slice_mut::<std::collections::BTreeMap<&str, RawJson>>(&mut doc).unwrap_err();
        assert_eq!(err.kind(), kind, "{text}: {err}");
        assert_eq!(err.path(), Some("/ext"), "{text}");
    }
}

#[test]
fn serde_json_decodes_raw_json_through_the_same_token() {
    let text = r#"{"id":"1","ext":{"a":"\u00e9"},"adm":"x"}"#;
    let bid: Bid = serde_json::from_str(text).unwrap();
    assert_eq!(bid.ext.unwrap().get(), r#"{"a":"\u00e9"}"#);
}

#[test]
fn bidscan_decodes_serde_json_raw_values() {
    #[derive(Debug, Deserialize)]
    struct Both<'a> {
        #[serde(borrow)]
        a: &'a serde_json::value::RawValue,
        b: Box<serde_json::value::RawValue>,
    }
    let mut doc = br#"{"a": [1, "\"x\""], "b": {"c":null}}"#.to_vec();
    let both: Both = from_slice_mut(&mut doc).unwrap();
    assert_eq!(both.a.get(), r#"[1, "\"x\""]"#);
    assert_eq!(both.b.get(), r#"{"c":null}"#);
}

#[test]
fn raw_json_serializes_verbatim() {
    let raw = RawJson::from_validated(r#"{"a" : [1,2]}"#);
    assert_eq!(serde_json::to_string(&raw).unwrap(), r#"{"a" : [1,2]}"#);
    assert_eq!(
        serde_json::to_string(&vec![raw]).unwrap(),
        r#"[{"a" : [1,2]}]"#
    );
}
