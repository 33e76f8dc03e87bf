//! Errors: kind, byte, line, column and JSON pointer — for the reader's own errors and for errors raised by the
//! target type — and the depth limit on every path (decode, skip, raw), which must never overflow the stack.

use std::collections::BTreeMap;

use crate::common;

use bidscan_json::{ErrorKind, RawJson, ReaderConfig};
use common::from_slice_mut;
use serde::Deserialize;
use serde::de::IgnoredAny;

/// The error decoding `$text` into `$t` (which may borrow from it).
macro_rules! err {
    ($t:ty, $text:expr) => {{
        let mut doc = $text.as_bytes().to_vec();
        match from_slice_mut::<$t>(&mut doc) {
            Ok(_) => panic!("{:?} accepted", $text),
            Err(e) => e,
        }
    }};
}

fn err_borrowed(text: &str) -> bidscan_json::Error {
    let mut doc = text.as_bytes().to_vec();
    from_slice_mut::<serde_json::Value>(&mut doc).unwrap_err()
}

#[test]
fn syntax_errors_have_byte_line_column_and_path() {
    let e = err_borrowed("{\"a\":\n  [1, 2,\n x]}");
    assert_eq!(
        (e.kind(), e.byte(), e.line(), e.column()),
        (ErrorKind::Syntax, 16, 3, 2)
    );
    assert_eq!(e.path(), Some("/a/2"));
    assert_eq!(
        e.to_string(),
        "expected value at line 3 column 2 (byte 16) at /a/2"
    );
    // A decoded `\n` escape is not a line break of the input.
    let e = err_borrowed("[\"a\\nb\",\n x]");
    assert_eq!((e.line(), e.column(), e.byte()), (2, 2, 10));
}

/// (line, column) of `byte` counted in the original text, as RFC 8259 whitespace newlines.
fn place_by_counting(text: &str, byte: usize) -> (usize, usize) {
    let before = &text.as_bytes()[..byte];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    (line, byte - start + 1)
}

#[test]
fn errors_after_long_whitespace_runs_have_the_right_line_and_column() {
    // Runs of every length around the 16- and 32-byte steps of the whitespace skip, newlines at every place in
    // them.
    for indent in [0, 1, 7, 15, 16, 17, 31, 32, 33, 40, 47, 48, 63, 64, 65] {
        for (prefix, newlines) in [("\n", 1), ("\r\n", 1), ("\n\n \n", 3), ("\t", 0)] {
            let pad = " ".repeat(indent);
            let text = format!(
                "{{{prefix}{pad}\"a\": 1,{prefix}{pad}\"b\":{prefix}{pad}[1,{prefix}{pad}tru]}}"
            );
            let e = err_borrowed(&text);
            assert_eq!(e.kind(), ErrorKind::Syntax, "{text:?}");
            assert_eq!(
                (e.line(), e.column()),
                place_by_counting(&text, e.byte()),
                "{text:?}"
            );
            assert_eq!(e.line(), 1 + 4 * newlines, "{text:?}");
        }
    }
}

#[test]
fn errors_after_pretty_printed_runs_have_the_right_line_and_column() {
    // A newline (LF or CRLF) and 0..=80 spaces before tokens with more than 32 bytes after the newline (the
    // reader's one-step indentation skip for LF and up to 32 spaces, its general steps past that), the error on
    // the fifth line.
    for indent in 0..=80 {
        let pad = " ".repeat(indent);
        let tail = "\"padding to make the rest of the body longer than one 32-byte step\"";
        for (bad, nl) in [
            ("tru", "\n"),
            ("]", "\n"),
            (",,", "\n"),
            ("tru", "\r\n"),
            (",,", "\r\n"),
        ] {
            let text = format!(
                "{{{nl}{pad}\"first\": [{nl}{pad}{pad}1,{nl}{pad}{pad}{tail},{nl}{pad}{pad}{bad}{nl}{pad}]{nl}}}{tail}"
            );
            let e = err_borrowed(&text);
            assert_eq!(e.kind(), ErrorKind::Syntax, "{text:?}");
            assert_eq!(e.line(), 5, "{text:?}");
            assert_eq!(
                (e.line(), e.column()),
                place_by_counting(&text, e.byte()),
                "{text:?}"
            );
        }
    }
}

#[test]
fn deep_pretty_printed_documents_decode_and_place_errors_at_every_level() {
    // Nested arrays and objects 40 levels deep (past the levels whose indentation the reader predicts), pretty
    // printed with 1-5 spaces a level and 0-70 spaces of offset (indentation past 64 bytes included): the value
    // as serde_json's, and an error at the innermost level placed where counting the newlines places it.
    for width in 1..=5 {
        for base in [0, 3, 8, 30, 70] {
            for bad in [false, true] {
                let mut text = String::from("[");
                let nl = |level: usize| format!("\n{}", " ".repeat(base + width * level));
                for level in 1..=40 {
                    let open = if level % 2 == 0 { "{\"k\": [" } else { "[" };
                    text.push_str(&nl(level));
                    text.push_str(open);
                }
                text.push_str(&nl(41));
                text.push_str(if bad { "tru" } else { "true" });
                for level in (1..=40).rev() {
                    text.push_str(&nl(level));
                    text.push_str(if level % 2 == 0 { "]}" } else { "]" });
                    if level == 20 {
                        text.push(',');
                        text.push_str(&nl(level));
                        text.push('7');
                    }
                }
                text.push_str(&nl(0));
                text.push(']');
                let mut doc = text.clone().into_bytes();
                let ours = from_slice_mut::<serde_json::Value>(&mut doc);
                if bad {
                    let e = ours.expect_err(&text);
                    assert_eq!(e.kind(), ErrorKind::Syntax, "{text:?}");
                    assert_eq!(e.line(), 42, "{text:?}");
                    assert_eq!(
                        (e.line(), e.column()),
                        place_by_counting(&text, e.byte()),
                        "{text:?}"
                    );
                } else {
                    let theirs: serde_json::Value = serde_json::from_str(&text).expect("valid");
                    assert_eq!(ours.expect("valid"), theirs, "{text:?}");
                }
            }
        }
    }
}

#[test]
fn string_errors_point_into_the_string() {
    let e = err_borrowed(r#"{"a":[{"b":"xy\q"}]}"#);
    assert_eq!(
        (e.kind(), e.byte(), e.path()),
        (ErrorKind::InvalidEscape, 15, Some("/a/0/b"))
    );
    let e = err_borrowed("[\"ab\u{1}\"]");
    assert_eq!((e.kind(), e.byte()), (ErrorKind::ControlCharacter, 4));
    let e = err_borrowed(r#"{"k/~":"\uDC00"}"#);
    assert_eq!(
        (e.kind(), e.byte(), e.path()),
        (ErrorKind::LoneSurrogate, 8, Some("/k~1~0"))
    );
    let e = err_borrowed(r#"["abc"#);
    assert_eq!((e.kind(), e.byte()), (ErrorKind::Eof, 5));
}

#[test]
fn other_kinds() {
    assert_eq!(err_borrowed("").kind(), ErrorKind::Eof);
    assert_eq!(err_borrowed("[1,").kind(), ErrorKind::Eof);
    assert_eq!(err_borrowed("[01]").kind(), ErrorKind::InvalidNumber);
    assert_eq!(err_borrowed("[1e400]").message(), "number out of range");
    assert_eq!(err_borrowed("[1,]").kind(), ErrorKind::Syntax);
    assert_eq!(err_borrowed("{1:2}").message(), "key must be a string");
    assert_eq!(err_borrowed("nul").kind(), ErrorKind::Eof);
    assert_eq!(err_borrowed("nulx").kind(), ErrorKind::Syntax);
    let e = err_borrowed("{} x");
    assert_eq!(
        (e.kind(), e.byte(), e.path()),
        (ErrorKind::TrailingCharacters, 3, None)
    );
    let mut doc = b"[\"a\xff\"]".to_vec();
    let e = from_slice_mut::<IgnoredAny>(&mut doc).unwrap_err();
    assert_eq!(
        (e.kind(), e.byte(), e.path()),
        (ErrorKind::InvalidUtf8, 3, None)
    );
    let mut doc = b"\n\n  \xc3(".to_vec();
    let e = from_slice_mut::<IgnoredAny>(&mut doc).unwrap_err();
    assert_eq!((e.line(), e.column()), (3, 3));
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Response<'a> {
    #[serde(borrow)]
    seatbid: Vec<Seat<'a>>,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Seat<'a> {
    #[serde(borrow)]
    bid: Vec<Bid<'a>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Bid<'a> {
    id: &'a str,
    price: f64,
    #[serde(default)]
    w: Option<Positive>,
}

/// Raises `serde::de::Error::custom` after a successful read, like a validating newtype.
#[derive(Debug)]
#[allow(dead_code)]
struct Positive(u32);

impl<'de> Deserialize<'de> for Positive {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match u32::deserialize(d)? {
            0 => Err(serde::de::Error::custom("must be positive")),
            n => Ok(Positive(n)),
        }
    }
}

fn bids(last: &str) -> String {
    format!(
        r#"{{"seatbid":[{{"bid":[{{"id":"a","price":1}}, {{"id":"b","price":2}}, {{"id":"c","price":3}}, {last}]}}]}}"#
    )
}

#[test]
fn target_type_errors_get_place_and_path() {
    let e = err!(Response, &bids(r#"{"id":"d","price":"1.5"}"#));
    assert_eq!(e.kind(), ErrorKind::Custom);
    assert_eq!(e.path(), Some("/seatbid/0/bid/3/price"));
    assert!(
        e.message().starts_with("invalid type: string"),
        "{}",
        e.message()
    );
    assert!(e.byte() > 0 && e.line() == 1 && e.column() == e.byte() + 1);

    let e = err!(Response, &bids(r#"{"id":"d"}"#));
    assert_eq!(
        (e.path(), e.message().as_str()),
        (Some("/seatbid/0/bid/3"), "missing field `price`")
    );

    let e = err!(Response, &bids(r#"{"id":"d","price":1,"w":0}"#));
    assert_eq!(
        (e.path(), e.message().as_str()),
        (Some("/seatbid/0/bid/3/w"), "must be positive")
    );

    let e = err!(Response, &bids(r#"{"id":"d","price":1,"x\u0079z":0}"#));
    assert_eq!(e.path(), Some("/seatbid/0/bid/3/xyz"));
    assert!(e.message().starts_with("unknown field `xyz`"));

    let e = err!(BTreeMap<String, u8>, r#"{"a":1,"b":300}"#);
    assert_eq!((e.kind(), e.path()), (ErrorKind::Custom, Some("/b")));
}

fn nested(open: &str, n: usize) -> Vec<u8> {
    open.repeat(n).into_bytes()
}

#[test]
fn depth_limit_on_every_path_never_overflows() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Known<'a> {
        known: u8,
        #[serde(borrow)]
        raw: Option<RawJson<'a>>,
    }
    for open in ["[", r#"{"a":"#, r#"[{"a":"#] {
        let doc = nested(open, 100_000);
        let mut buf = doc.clone();
        assert_eq!(
            from_slice_mut::<serde_json::Value>(&mut buf)
                .unwrap_err()
                .kind(),
            ErrorKind::DepthLimit
        );
        let mut buf = doc.clone();
        assert_eq!(
            from_slice_mut::<IgnoredAny>(&mut buf).unwrap_err().kind(),
            ErrorKind::DepthLimit
        );
        let mut buf = doc.clone();
        assert_eq!(
            from_slice_mut::<RawJson>(&mut buf).unwrap_err().kind(),
            ErrorKind::DepthLimit
        );
        // Skipped as an unknown field, and captured raw inside a typed struct.
        let mut buf = [br#"{"known":1,"unknown":"#.as_slice(), &doc].concat();
        assert_eq!(
            from_slice_mut::<Known>(&mut buf).unwrap_err().kind(),
            ErrorKind::DepthLimit
        );
        let mut buf = [br#"{"known":1,"raw":"#.as_slice(), &doc].concat();
        let e = from_slice_mut::<Known>(&mut buf).unwrap_err();
        assert_eq!((e.kind(), e.path()), (ErrorKind::DepthLimit, Some("/raw")));
    }
}

#[test]
fn depth_limit_is_exact_and_configurable() {
    let doc = |n: usize| [nested("[", n), nested("]", n)].concat();
    for mut reader in common::readers(&ReaderConfig::default()) {
        assert!(reader.decode::<serde_json::Value>(&mut doc(128)).is_ok());
        assert!(reader.decode::<IgnoredAny>(&mut doc(128)).is_ok());
        let e = reader
            .decode::<serde_json::Value>(&mut doc(129))
            .unwrap_err();
        assert_eq!((e.kind(), e.byte()), (ErrorKind::DepthLimit, 128));
    }
    for mut reader in common::readers(&ReaderConfig {
        max_depth: 3,
        ..Default::default()
    }) {
        assert!(reader.decode::<IgnoredAny>(&mut doc(3)).is_ok());
        assert_eq!(
            reader.decode::<IgnoredAny>(&mut doc(4)).unwrap_err().kind(),
            ErrorKind::DepthLimit
        );
    }
    for mut reader in common::readers(&ReaderConfig {
        max_depth: 0,
        ..Default::default()
    }) {
        assert!(reader.decode::<u8>(&mut b"7".to_vec()).is_ok());
        assert_eq!(
            reader.decode::<IgnoredAny>(&mut doc(1)).unwrap_err().kind(),
            ErrorKind::DepthLimit
        );
    }
}

#[test]
fn a_reader_is_reusable_after_errors() {
    for mut reader in common::readers(&ReaderConfig::default()) {
        assert!(
            reader
                .decode::<serde_json::Value>(&mut nested("[", 1000))
                .is_err()
        );
        let mut doc = br#"{"a":["x\ty"]}"#.to_vec();
        let v: BTreeMap<&str, Vec<&str>> = reader.decode(&mut doc).unwrap();
        assert_eq!(v["a"], ["x\ty"]);
        assert_eq!(reader.stats().escapes, 1);
    }
}

/// Mixed objects and arrays nested past the skip walk's 64-level bit stack (and past two of them): the skip and
/// raw paths accept and reject exactly what the value path does, with the same error, for a wrong closing
/// byte, a missing one, a trailing comma and a missing colon at every depth.
#[test]
fn skipped_containers_deeper_than_one_walk_are_checked_at_every_depth() {
    let config = ReaderConfig {
        max_depth: 500,
        ..Default::default()
    };
    let levels = 150;
    let open = |k: usize| if k % 3 == 1 { r#"{"k":"# } else { "[" };
    let close = |k: usize| if k % 3 == 1 { "}" } else { "]" };
    let build = |fault: Option<(usize, &str)>| {
        let mut doc = String::new();
        for k in 0..levels {
            doc.push_str(open(k));
        }
        doc.push('1');
        for k in (0..levels).rev() {
            match fault {
                Some((at, text)) if at == k => doc.push_str(text),
                _ => doc.push_str(close(k)),
            }
        }
        doc
    };
    let good = build(None);
    assert!(common::decode_value(good.as_bytes(), &config).is_ok());
    for at in 0..levels {
        let wrong = if close(at) == "}" { "]" } else { "}" };
        for fault in [wrong, ",", ",]", ",}", ""] {
            let doc = build(Some((at, fault)));
            let e = common::decode_value(doc.as_bytes(), &config).unwrap_err();
            assert_ne!(e.kind(), ErrorKind::Custom, "{doc}");
        }
        if at % 3 == 1 {
            // The colon of this level's key missing.
            let (colon, _) = good.match_indices(r#""k":"#).nth(at / 3).unwrap();
            let mut doc = good.clone();
            doc.replace_range(colon + 3..colon + 4, " ");
            let e = common::decode_value(doc.as_bytes(), &config).unwrap_err();
            assert_eq!(
                (e.kind(), e.byte()),
                (ErrorKind::Syntax, colon + 4),
                "{doc}"
            );
        }
    }
}

/// Skipping never recurses per level: 200,000 levels (allowed by the configuration) are skipped on a 1 MiB
/// thread stack, as an ignored document and as an unknown member (a recursive skip overflows the stack here).
#[test]
fn skipping_deep_nesting_runs_in_a_small_stack() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Known {
        known: u8,
    }
    let n = 200_000;
    let doc = [nested("[", n), nested("]", n)].concat();
    let outcome = std::thread::Builder::new()
        .stack_size(1024 * 1024)
        .spawn(move || {
            let config = ReaderConfig {
                max_depth: 1_000_000,
                ..Default::default()
            };
            for mut reader in common::readers(&config) {
                assert!(reader.decode::<IgnoredAny>(&mut doc.clone()).is_ok());
                let mut member = [br#"{"unknown":"#.as_slice(), &doc, br#","known":1}"#].concat();
                assert_eq!(reader.decode::<Known>(&mut member).unwrap().known, 1);
                let mut unclosed = doc[..doc.len() - 1].to_vec();
                let e = reader.decode::<IgnoredAny>(&mut unclosed).unwrap_err();
                assert_eq!(e.kind(), ErrorKind::Eof);
            }
        })
        .expect("thread starts")
        .join();
    assert!(outcome.is_ok());
}

#[test]
fn errors_after_whitespace_in_a_tail_shorter_than_16_bytes_have_the_right_line_and_column() {
    // The tail after the last string handed out (a borrowed `&str`) is all the reader still holds: runs in the
    // last 1–15 bytes go through its padded 16-byte step. Every mix of space, tab, CR and LF up to 12 bytes,
    // then a bad token on the line the newlines reached.
    let alphabet = [" ", "\t", "\r", "\n"];
    for len in 0..=12usize {
        for pick in 0..4usize.pow(len.min(6) as u32) {
            let mut run = String::new();
            let mut p = pick;
            for k in 0..len {
                run.push_str(alphabet[if k < 6 { p % 4 } else { k % 4 }]);
                p /= 4;
            }
            let text = format!("{{\"a\": \"x\"{run}x");
            let mut doc = text.as_bytes().to_vec();
            let e = from_slice_mut::<BTreeMap<&str, &str>>(&mut doc).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Syntax, "{text:?}");
            assert_eq!(e.byte(), text.len() - 1, "{text:?}");
            assert_eq!(
                (e.line(), e.column()),
                place_by_counting(&text, e.byte()),
                "{text:?}"
            );
        }
    }
}

/// `FloatOverflow::Infinity`: a number past `f64` (or, for an `f32` target, `f32`) is handed over as ±infinity,
/// skipped and captured raw as is, through every scanner body; its grammar is still checked, and the default
/// still refuses it where it is (serde_json's "number out of range").
#[test]
fn float_overflow_reads_infinity_when_chosen() {
    use bidscan_json::FloatOverflow;
    let config = ReaderConfig {
        float_overflow: FloatOverflow::Infinity,
        ..Default::default()
    };
    for mut reader in common::readers(&config) {
        let mut doc = b"[1e400, -1e400, 1.5, 2E+999, -0.1e310, 1e-400]".to_vec();
        let v: Vec<f64> = reader.decode(&mut doc).unwrap();
        assert_eq!(
            v,
            [
                f64::INFINITY,
                f64::NEG_INFINITY,
                1.5,
                f64::INFINITY,
                f64::NEG_INFINITY,
                0.0
            ]
        );
        let mut doc = b"[1e39, -1e39, 3.5]".to_vec();
        let v: Vec<f32> = reader.decode(&mut doc).unwrap();
        assert_eq!(v, [f32::INFINITY, f32::NEG_INFINITY, 3.5]);
        for doc in [
            "{\"a\":[1e400,{\"b\":-1e400}],\n  \"c\": 1e999 }",
            "{\n  \"a\": [\n    1e400,\n    {\n      \"b\": -1e400\n    }\n  ]\n}",
        ] {
            assert!(
                reader
                    .decode::<IgnoredAny>(&mut doc.as_bytes().to_vec())
                    .is_ok(),
                "{doc}"
            );
        }
        let mut doc = b"{\"ext\": {\"x\":1e400} }".to_vec();
        let raw: std::collections::BTreeMap<&str, RawJson> = reader.decode(&mut doc).unwrap();
        assert_eq!(raw["ext"].get(), r#"{"x":1e400}"#);
        for bad in [
            "[1e]",
            "[-]",
            "[01e400]",
            "[1e400.5]",
            "[1e400x]",
            "[.1e400]",
        ] {
            let err = reader.decode::<Vec<f64>>(&mut bad.as_bytes().to_vec());
            assert!(err.is_err(), "{bad}");
            let err = reader.decode::<IgnoredAny>(&mut bad.as_bytes().to_vec());
            assert!(err.is_err(), "{bad}");
        }
    }
    for mut reader in common::readers(&ReaderConfig::default()) {
        for doc in ["[1e400]", "{\"a\":[1e400]}", "{\"a\":\n [\n  -1e400\n ]\n}"] {
            let err = reader
                .decode::<IgnoredAny>(&mut doc.as_bytes().to_vec())
                .unwrap_err();
            assert_eq!(err.message(), "number out of range", "{doc}");
        }
    }
}
