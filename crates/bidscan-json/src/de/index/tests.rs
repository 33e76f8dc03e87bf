//! The index walk against the token walk, container by container: wherever a document has a `{` or `[` (inside
//! strings too: any bytes from there on are a container to skip), both walks run from there. The index walk
//! may only accept what the token walk accepts, leaving the same read position, line count and `Stats`; and
//! it must accept everything the token walk accepts unless the container nests deeper than its 64 levels.
//! Documents: generated (random escapes and whitespace, pretty-printed, deeply nested, long strings across
//! blocks) and corrupted ones, through every kernel.

#[path = "../../../tests/common/strategies.rs"]
#[allow(dead_code)]
mod strategies;

use proptest::prelude::*;

use super::super::Deserializer;
use crate::scan::{ScanImpl, Scanner};
use strategies::Doc;

/// The deepest nesting of containers in valid JSON `text`.
fn nesting(text: &[u8]) -> usize {
    let (mut depth, mut deepest, mut inside, mut escaped) = (0usize, 0, false, false);
    for &b in text {
        if inside {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => inside = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => inside = true,
            b'{' | b'[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' | b']' => depth -= 1,
            _ => {}
        }
    }
    deepest
}

/// Both walks from every container start of `doc`, with `max_depth`, the container entered at `depth`.
fn walks_agree(doc: &[u8], max_depth: usize, depth: usize) -> Result<(), TestCaseError> {
    for imp in ScanImpl::available() {
        for start in (0..doc.len()).filter(|&i| matches!(doc[i], b'{' | b'[')) {
            let (mut a, mut b) = (doc.to_vec(), doc.to_vec());
            let mut token = Deserializer::new(&mut a, max_depth, Scanner::new(imp), Vec::new());
            let mut index = Deserializer::new(&mut b, max_depth, Scanner::new(imp), Vec::new());
            for d in [&mut token, &mut index] {
                d.idx = start;
                d.depth = depth;
            }
            let walked = token.walk_container();
            let indexed = index.skip_indexed();
            let case = || format!("{imp:?} from {start}: {:?}", String::from_utf8_lossy(doc));
            let state = |d: &Deserializer<'_>| (d.idx, d.depth, d.line, d.line_start, d.stats);
            if indexed {
                prop_assert!(
                    walked.is_ok(),
                    "index accepts, token walk says {walked:?}: {}",
                    case()
                );
                prop_assert_eq!(state(&index), state(&token), "{}", case());
            } else if walked.is_ok() {
                let room = max_depth.saturating_sub(depth).min(64);
                prop_assert!(
                    nesting(&doc[start..token.idx]) > room,
                    "token walk accepts, index gives up: {}",
                    case()
                );
                prop_assert_eq!(
                    state(&index),
                    (
                        start,
                        depth,
                        0,
                        0,
                        Deserializer::new(&mut doc.to_vec(), 1, Scanner::new(imp), Vec::new())
                            .stats
                    ),
                    "gave up but changed the decoder: {}",
                    case()
                );
            }
        }
    }
    Ok(())
}

/// `doc` pretty-printed by serde_json at `width` spaces a level.
fn pretty(doc: &Doc, width: usize) -> String {
    let value: serde_json::Value =
        serde_json::from_str(&strategies::render(doc, &[])).expect("generated JSON");
    let indent = " ".repeat(width);
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    serde::Serialize::serialize(&value, &mut ser).expect("serializable");
    String::from_utf8(out).expect("UTF-8")
}

/// One corruption: delete, insert, replace a byte, or truncate.
fn corrupt(bytes: &mut Vec<u8>, (op, at, byte): (u8, prop::sample::Index, u8)) {
    if bytes.is_empty() {
        return;
    }
    let i = at.index(bytes.len());
    match op % 4 {
        0 => {
            bytes.remove(i);
        }
        1 => bytes.insert(i, byte),
        2 => bytes[i] = byte,
        _ => bytes.truncate(i),
    }
}

/// Bytes that matter to the walks.
const INTERESTING: &[u8] =
    b"\"\\/{}[],:0123456789-+.eEtrufalsn \t\n\rubfx\x00\x01\x0c\x1a\x1f\x7f\xc3\xa9";

fn corruption() -> impl Strategy<Value = (u8, prop::sample::Index, u8)> {
    (
        any::<u8>(),
        any::<prop::sample::Index>(),
        prop::sample::select(INTERESTING),
    )
}

/// An array or object nested `levels` deep around `inner`, with whitespace `ws` after each bracket.
fn nested(levels: usize, inner: &str, ws: &str) -> String {
    let mut s = String::new();
    for k in 0..levels {
        s.push_str(if k % 2 == 0 { "[" } else { "{\"k\":" });
        s.push_str(ws);
    }
    s.push_str(inner);
    for k in (0..levels).rev() {
        s.push_str(ws);
        s.push(if k % 2 == 0 { ']' } else { '}' });
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(128)
    ))]

    #[test]
    fn generated_documents(doc in strategies::doc(), ws in prop::collection::vec(any::<u8>(), 0..8)) {
        walks_agree(strategies::render(&doc, &ws).as_bytes(), 128, 0)?;
    }

    #[test]
    fn whitespace_heavy_documents(
        doc in strategies::doc(),
        ws in prop::collection::vec(prop::sample::select(vec![3u8, 4, 11, 12, 99, 131, 203, 251, 0, 1, 2]), 1..12),
    ) {
        walks_agree(strategies::render(&doc, &ws).as_bytes(), 128, 0)?;
    }

    #[test]
    fn pretty_printed_documents(doc in strategies::doc(), width in 0usize..=12) {
        walks_agree(pretty(&doc, width).as_bytes(), 128, 0)?;
    }

    #[test]
    fn corrupted_documents(
        doc in strategies::doc(),
        ws in prop::collection::vec(any::<u8>(), 0..6),
        cuts in prop::collection::vec(corruption(), 1..4),
    ) {
        let mut bytes = strategies::render(&doc, &ws).into_bytes();
        for cut in cuts {
            corrupt(&mut bytes, cut);
        }
        walks_agree(&bytes, 128, 0)?;
    }

    #[test]
    fn corrupted_pretty_printed_documents(
        doc in strategies::doc(),
        width in 0usize..=8,
        cuts in prop::collection::vec(corruption(), 1..4),
    ) {
        let mut bytes = pretty(&doc, width).into_bytes();
        for cut in cuts {
            corrupt(&mut bytes, cut);
        }
        walks_agree(&bytes, 128, 0)?;
    }

    #[test]
    fn deep_documents_and_depth_limits(
        levels in 1usize..=80,
        inner in strategies::doc(),
        ws in prop::sample::select(vec!["", " ", "\n    ", "\r\n\t"]),
        max_depth in prop::sample::select(vec![1usize, 2, 5, 63, 64, 65, 66, 70, 128]),
        depth in 0usize..=4,
        cut in prop::option::of(corruption()),
    ) {
        let mut bytes = nested(levels, &strategies::render(&inner, &[]), ws).into_bytes();
        if let Some(cut) = cut {
            corrupt(&mut bytes, cut);
        }
        walks_agree(&bytes, max_depth, depth.min(max_depth))?;
    }

    #[test]
    fn long_strings_and_escapes_across_blocks(
        parts in prop::collection::vec(strategies::styled_string(90), 1..6),
        pad in 0usize..70,
        tail in 0usize..70,
        cut in prop::option::of(corruption()),
    ) {
        let items: Vec<String> = parts.iter().map(|s| strategies::render_string(s)).collect();
        let mut text = format!("{}[{}]", " ".repeat(pad), items.join(","));
        text.push_str(&" ".repeat(tail));
        let mut bytes = text.into_bytes();
        if let Some(cut) = cut {
            corrupt(&mut bytes, cut);
        }
        walks_agree(&bytes, 128, 0)?;
    }
}

#[test]
fn fixed_cases() {
    let cases: &[&str] = &[
        "{}",
        "[]",
        "[1,2,3]",
        r#"{"a":{"b":[true,false,null,-0.5e+3,"\u00e9\ud83d\ude00\n\"\\"]}}"#,
        "[1,]",
        "{\"a\":1,}",
        "[1 2]",
        "{\"a\" 1}",
        "{1:2}",
        "[\"a\u{1}\"]",
        "[\"\\x\"]",
        "[\"\\ud800\"]",
        "[\"\\ud800\\u0041\"]",
        "[\"\\udc00\"]",
        "[tru]",
        "[truex]",
        "[1.]",
        "[01]",
        "[1e999]",
        "[-]",
        "[\u{c}1]",
        "[1]\u{1}",
        "[1]\"\u{1}\"",
        "[\"a\"1]",
        "{\"a\":1}}",
        "[[[[",
        "[\"abc",
        "[\"\\",
    ];
    for text in cases {
        let mut bytes = text.as_bytes().to_vec();
        bytes.extend_from_slice(&[b' '; 3]);
        walks_agree(text.as_bytes(), 128, 0).unwrap();
        walks_agree(&bytes, 128, 0).unwrap();
        let long = format!("{text}{}", " ".repeat(70));
        walks_agree(long.as_bytes(), 128, 0).unwrap();
    }
}
