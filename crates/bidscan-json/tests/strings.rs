//! Strings, the reader's hot path: escapes at every position of strings spanning several 16/32-byte blocks, at
//! every alignment, back to back, at the very end; multi-byte UTF-8 around them; 30,000-character strings with
//! random escapes — through every scanner implementation, compared with the expected text and with serde_json.

use crate::common;

use bidscan_json::ReaderConfig;
use common::strategies::{self as strat, Style};
use proptest::prelude::*;

/// Decodes `json` (a string literal) at `shift` bytes of leading whitespace inside an array, with every scanner;
/// asserts the result is borrowed text equal to `want`.
fn check(json: &str, want: &str, shift: usize) {
    let doc = format!("[{}{json}]", " ".repeat(shift));
    for mut reader in common::readers(&ReaderConfig::default()) {
        let mut buf = doc.clone().into_bytes();
        let got: [&str; 1] = reader
            .decode(&mut buf)
            .unwrap_or_else(|e| panic!("{:?} {doc:?}: {e}", reader.scan_impl()));
        assert_eq!(got[0], want, "{:?} {doc:?}", reader.scan_impl());
        let mut buf = doc.clone().into_bytes();
        assert!(reader.decode::<serde::de::IgnoredAny>(&mut buf).is_ok());
    }
}

const ESCAPES: &[(&str, &str)] = &[
    (r#"\""#, "\""),
    (r"\\", "\\"),
    (r"\/", "/"),
    (r"\n", "\n"),
    (r"\u0000", "\0"),
    (r"\u00e9", "é"),
    (r"\u003c", "<"),
    (r"\u003E", ">"),
    (r"\u007f", "\u{7f}"),
    (r"\u0080", "\u{80}"),
    (r"\u20AC", "€"),
    (r"\ud83d\ude00", "😀"),
];

#[test]
fn one_escape_at_every_position_and_alignment() {
    for filler in ["a", "é€😀x"] {
        for len in 0..=70usize {
            for pos in 0..=len {
                for &(esc, dec) in ESCAPES {
                    for shift in [0, 1, 3] {
                        let plain: String = filler.chars().cycle().take(len).collect();
                        let (head, tail) = plain
                            .split_at(plain.char_indices().nth(pos).map_or(plain.len(), |x| x.0));
                        check(
                            &format!("\"{head}{esc}{tail}\""),
                            &format!("{head}{dec}{tail}"),
                            shift,
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn back_to_back_escapes_and_escape_runs_crossing_blocks() {
    for len in 0..=70usize {
        for run in 1..=5usize {
            for pos in (0..=len).step_by(3) {
                for &(esc, dec) in ESCAPES {
                    let plain = "b".repeat(len);
                    let (head, tail) = plain.split_at(pos);
                    check(
                        &format!("\"{head}{}{tail}\"", esc.repeat(run)),
                        &format!("{head}{}{tail}", dec.repeat(run)),
                        0,
                    );
                }
            }
        }
    }
}

/// Many escapes of every kind at every spacing, so strings shrink past one and several blocks while escapes keep
/// landing at every offset of the blocks that follow (the block-at-a-time decoders' whole-block stores and
/// their `\u00XX` and split-escape cases).
#[test]
fn dense_mixed_escapes_over_many_blocks() {
    for spacing in 0..=70usize {
        let mut json = String::new();
        let mut want = String::new();
        for i in 0..60 {
            let filler: String = "xé".chars().cycle().skip(i % 2).take(spacing).collect();
            let (esc, dec) = ESCAPES[(i * 7 + spacing) % ESCAPES.len()];
            json.push_str(&filler);
            json.push_str(esc);
            want.push_str(&filler);
            want.push_str(dec);
        }
        for shift in [0, 5] {
            check(&format!("\"{json}\""), &want, shift);
        }
    }
}

#[test]
fn thirty_thousand_chars_with_escapes_spread_and_clustered() {
    let mut json = String::from("\"");
    let mut want = String::new();
    for i in 0..30_000usize {
        let (esc, dec) = if i % 97 == 0 || (10_000..10_050).contains(&i) {
            ESCAPES[i % ESCAPES.len()]
        } else {
            ("q", "q")
        };
        json.push_str(esc);
        want.push_str(dec);
    }
    json.push('"');
    check(&json, &want, 0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(256)))]

    #[test]
    fn styled_strings_decode_like_serde_json(chars in strat::styled_string(200), shift in 0usize..4) {
        let json = strat::render_string(&chars);
        let want: String = chars.iter().map(|c| c.0).collect();
        prop_assert_eq!(serde_json::from_str::<String>(&json).unwrap(), want.clone());
        check(&json, &want, shift);
    }

    #[test]
    fn every_char_escaped(chars in prop::collection::vec(strat::interesting_char(), 0..100), upper in any::<bool>()) {
        let style = if upper { Style::UpperHex } else { Style::Short };
        let chars: Vec<_> = chars.into_iter().map(|c| (c, style)).collect();
        let want: String = chars.iter().map(|c| c.0).collect();
        check(&strat::render_string(&chars), &want, 0);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(12).min(64)))]

    #[test]
    fn thirty_thousand_char_strings_with_random_escapes(
        chars in prop::collection::vec((strat::interesting_char(), strat::style()), 30_000..=30_000),
    ) {
        let json = strat::render_string(&chars);
        let want: String = chars.iter().map(|c| c.0).collect();
        prop_assert_eq!(serde_json::from_str::<String>(&json).unwrap(), want.clone());
        check(&json, &want, 1);
    }
}

#[test]
fn stats_count_strings_and_escapes() {
    for (kernel, mut reader) in common::readers(&ReaderConfig::default())
        .into_iter()
        .enumerate()
    {
        let mut doc = br#"{"a\n":"x","b":"\ud83d\ude00\t","c":[{"skipped\"":1}]}"#.to_vec();
        let _: std::collections::BTreeMap<&str, serde::de::IgnoredAny> =
            reader.decode(&mut doc).unwrap();
        let s = reader.stats();
        assert_eq!(
            (s.strings, s.escaped_strings, s.escapes, s.longest_string),
            (6, 3, 4, 14),
            "kernel {kernel}"
        );
    }
}
