//! Differential property tests against serde_json (with `float_roundtrip`, so both parse floats exactly):
//! generated documents decode to the same `serde_json::Value`; corrupted documents are rejected exactly when
//! serde_json rejects them. Every case runs through every scanner implementation and through the value, skip
//! and raw paths (`common::decode_value`).
//!
//! Known differences from serde_json (none is reachable by these generators, each is pinned by a test below):
//! - nesting: bidscan accepts up to `max_depth` (128) levels, serde_json up to 127;
//! - a value that is *skipped* (unknown field, `IgnoredAny`) is still fully validated by bidscan (lone
//!   surrogates, number overflow), while serde_json only checks its syntax — so with bidscan a document's validity
//!   never depends on the target type;
//! - the first error reported can differ when a document has several problems: bidscan checks UTF-8 for the
//!   whole document before anything else.

use crate::common;

use bidscan_json::{ErrorKind, ReaderConfig};
use common::strategies::{self as strat, Doc};
use proptest::prelude::*;
use serde::de::IgnoredAny;
use serde_json::Value;

fn serde_json_value(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    serde_json::from_slice(bytes)
}

/// A valid generated document decodes to serde_json's value.
fn decodes_like_serde_json(text: &str) -> Result<(), TestCaseError> {
    let theirs = serde_json_value(text.as_bytes());
    prop_assert!(theirs.is_ok(), "generator produced invalid JSON: {text}");
    let ours = common::decode_value(text.as_bytes(), &ReaderConfig::default());
    prop_assert_eq!(ours.ok(), theirs.ok(), "{}", text);
    Ok(())
}

/// `bytes` corrupted by `mutations` is accepted (with serde_json's value) or rejected exactly as serde_json does.
fn rejected_like_serde_json(
    bytes: &mut Vec<u8>,
    mutations: &[Mutation],
) -> Result<(), TestCaseError> {
    for m in mutations {
        m.apply(bytes);
    }
    let theirs = serde_json_value(bytes);
    let ours = common::decode_value(bytes, &ReaderConfig::default());
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
        (Err(a), Err(_)) => prop_assert!(a.kind() != ErrorKind::Custom, "{a}"),
        _ => prop_assert!(
            false,
            "{:?}: ours {:?} theirs {:?}",
            String::from_utf8_lossy(bytes),
            ours,
            theirs
        ),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(256)))]

    #[test]
    fn generated_documents_decode_like_serde_json(doc in strat::doc(), ws in prop::collection::vec(any::<u8>(), 0..8)) {
        decodes_like_serde_json(&strat::render(&doc, &ws))?;
    }

    #[test]
    fn whitespace_heavy_documents_decode_like_serde_json(
        doc in strat::doc(),
        ws in prop::collection::vec(prop::sample::select(vec![3u8, 4, 11, 12, 99, 131, 203, 251, 0, 1, 2]), 1..12),
    ) {
        // Indentation runs, CRLF and tabs before and after every token (`strat::render` picks 3 and 4 for them).
        decodes_like_serde_json(&strat::render(&doc, &ws))?;
    }

    #[test]
    fn whitespace_heavy_corrupted_documents_are_rejected_like_serde_json(
        doc in strat::doc(),
        mutations in prop::collection::vec(mutation(), 1..4),
    ) {
        let mut bytes = strat::render(&doc, &[3, 131, 4, 0, 251]).into_bytes();
        rejected_like_serde_json(&mut bytes, &mutations)?;
    }

    #[test]
    fn pretty_printed_documents_decode_like_serde_json(
        doc in strat::doc(),
        width in 0usize..=12,
        base in 0usize..=40,
    ) {
        // Consistent indentation, as the reader predicts it (see `newline_indent`), at every width and offset.
        decodes_like_serde_json(&pretty(&doc, width, base))?;
    }

    #[test]
    fn pretty_printed_corrupted_documents_are_rejected_like_serde_json(
        doc in strat::doc(),
        width in 0usize..=12,
        base in 0usize..=40,
        mutations in prop::collection::vec(mutation(), 1..4),
    ) {
        let mut bytes = pretty(&doc, width, base).into_bytes();
        rejected_like_serde_json(&mut bytes, &mutations)?;
        // Past a predicted indentation, an error's line and column are still those of its byte.
        if let Err(e) = common::decode_value(&bytes, &ReaderConfig::default()) {
            let before = &bytes[..e.byte().min(bytes.len())];
            let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
            let start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            prop_assert_eq!((e.line(), e.column()), (line, e.byte() - start + 1), "{}", e);
        }
    }

    #[test]
    fn corrupted_documents_are_rejected_like_serde_json(
        doc in strat::doc(),
        mutations in prop::collection::vec(mutation(), 1..4),
    ) {
        let mut bytes = strat::render(&doc, &[0, 3, 1]).into_bytes();
        rejected_like_serde_json(&mut bytes, &mutations)?;
    }

    #[test]
    fn numbers_decode_and_overflow_like_serde_json(
        text in "-?(0|[1-9][0-9]{0,30})(\\.[0-9]{1,30})?([eE][+-]?[0-9]{1,4})?",
    ) {
        let ours = common::decode_value(text.as_bytes(), &ReaderConfig::default());
        let theirs = serde_json_value(text.as_bytes());
        match (&ours, &theirs) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
            (Err(a), Err(_)) => prop_assert_eq!(a.kind(), ErrorKind::InvalidNumber),
            _ => prop_assert!(false, "{}: ours {:?} theirs {:?}", text, ours, theirs),
        }
    }
}

/// `doc` as a pretty printer writes it: a newline before every member, element and closing bracket, `width`
/// spaces per level, every line after the first indented by `base` more (a body embedded in a larger file).
fn pretty(doc: &Doc, width: usize, base: usize) -> String {
    let value: Value = serde_json::from_str(&strat::render(doc, &[])).expect("generated JSON");
    let indent = " ".repeat(width);
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    serde::Serialize::serialize(&value, &mut ser).expect("serializable");
    let text = String::from_utf8(out).expect("UTF-8");
    // Strings hold no raw newline (they are escaped), so every newline is the printer's.
    text.replace('\n', &format!("\n{}", " ".repeat(base)))
}

/// One corruption of a rendered document.
#[derive(Clone, Debug)]
enum Mutation {
    Delete(prop::sample::Index),
    Insert(prop::sample::Index, u8),
    Replace(prop::sample::Index, u8),
    Truncate(prop::sample::Index),
}

impl Mutation {
    fn apply(&self, bytes: &mut Vec<u8>) {
        if bytes.is_empty() {
            return;
        }
        match *self {
            Mutation::Delete(i) => {
                bytes.remove(i.index(bytes.len()));
            }
            Mutation::Insert(i, b) => bytes.insert(i.index(bytes.len() + 1), b),
            Mutation::Replace(i, b) => {
                let i = i.index(bytes.len());
                bytes[i] = b;
            }
            Mutation::Truncate(i) => bytes.truncate(i.index(bytes.len())),
        }
    }
}

/// Bytes that make a difference to a JSON reader.
const INTERESTING: &[u8] =
    b"\"\\/{}[],:0123456789-+.eEtrufalsn \t\n\rubfx\x00\x01\x1f\x7f\xc3\xa9\xed\xa0\xff";

fn mutation() -> impl Strategy<Value = Mutation> {
    let byte = prop::sample::select(INTERESTING);
    prop_oneof![
        any::<prop::sample::Index>().prop_map(Mutation::Delete),
        (any::<prop::sample::Index>(), byte.clone()).prop_map(|(i, b)| Mutation::Insert(i, b)),
        (any::<prop::sample::Index>(), byte).prop_map(|(i, b)| Mutation::Replace(i, b)),
        any::<prop::sample::Index>().prop_map(Mutation::Truncate),
    ]
}

#[test]
fn difference_nesting_limit_is_one_level_higher_than_serde_json() {
    let doc = |n: usize| ["[".repeat(n), "]".repeat(n)].concat().into_bytes();
    assert!(common::decode_value(&doc(128), &ReaderConfig::default()).is_ok());
    assert!(serde_json_value(&doc(128)).is_err());
    assert!(serde_json_value(&doc(127)).is_ok());
}

#[test]
fn difference_skipped_values_are_fully_validated() {
    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Known {
        a: u8,
    }
    for text in [r#"{"a":1,"b":"\udc00"}"#, r#"{"a":1,"b":[1e999]}"#] {
        assert!(
            serde_json::from_str::<Known>(text).is_ok(),
            "serde_json only checks the syntax of {text}"
        );
        assert!(
            serde_json::from_str::<Value>(text).is_err(),
            "serde_json rejects {text} when decoding it"
        );
        let mut buf = text.as_bytes().to_vec();
        assert!(common::from_slice_mut::<Known>(&mut buf).is_err(), "{text}");
        let mut buf = text.as_bytes().to_vec();
        assert!(
            common::from_slice_mut::<IgnoredAny>(&mut buf).is_err(),
            "{text}"
        );
    }
}

#[test]
fn difference_utf8_is_checked_first() {
    let text = b"[01, \"\xff\"]";
    let ours = common::from_slice_mut::<Value>(&mut text.to_vec()).unwrap_err();
    assert_eq!(ours.kind(), ErrorKind::InvalidUtf8);
    let theirs = serde_json_value(text).unwrap_err();
    assert_eq!(
        theirs.column(),
        3,
        "serde_json reports the leading zero first: {theirs}"
    );
}

#[test]
fn the_generators_reach_what_they_claim() {
    // A fixed document using every style, through both decoders.
    let doc = Doc::Obj(vec![(
        vec![
            ('k', strat::Style::UpperHex),
            ('😀', strat::Style::LowerHex),
        ],
        Doc::Arr(vec![
            Doc::Num("-0.5e-3".into()),
            Doc::Str(vec![('"', strat::Style::Short), ('/', strat::Style::Short)]),
        ]),
    )]);
    let text = strat::render(&doc, &[1, 2]);
    assert!(
        text.contains(r"\u006B\ud83d\ude00") && text.contains(r#"\"\/"#),
        "{text}"
    );
    let ours = common::decode_value(text.as_bytes(), &ReaderConfig::default()).unwrap();
    assert_eq!(ours, serde_json_value(text.as_bytes()).unwrap());
    assert_eq!(ours["k😀"][1], "\"/");
}
