//! Canonical output of verbatim JSON (`ext` members, the values of an object `adm`): compact, so that a
//! pretty-printed input still gives one line of output.
//!
//! Whitespace outside strings (RFC 8259 §2: space, tab, line feed, carriage return) is removed; everything else
//! is written as it was sent — string escapes (`\u003c`, `\/`) and number text (`1.50`, `1e3`) included, so
//! the output is the sender's value, only without its layout.

use std::borrow::Cow;

use bidscan_json::RawJson;
use serde::ser::{Serialize, Serializer};

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// `text` (one valid JSON value) without whitespace outside strings. Borrowed when there is none to remove, so
/// compact input costs one scan and no allocation.
pub fn compact(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    if !bytes.iter().any(|&b| is_ws(b)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut run = 0; // start of the run of bytes not yet copied
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if b == b'"' {
            in_string = true;
        } else if is_ws(b) {
            // Whitespace is ASCII, so `run..i` and `i + 1..` fall on character boundaries.
            out.push_str(&text[run..i]);
            run = i + 1;
        }
    }
    out.push_str(&text[run..]);
    if out.len() == text.len() {
        // Every whitespace byte was inside a string.
        return Cow::Borrowed(text);
    }
    Cow::Owned(out)
}

/// Serializes a raw value compacted (see the module docs), verbatim otherwise.
pub struct Compact<'r, 'a>(pub &'r RawJson<'a>);

impl Serialize for Compact<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match compact(self.0.get()) {
            Cow::Borrowed(_) => self.0.serialize(serializer),
            Cow::Owned(text) => RawJson::from_validated(&text).serialize(serializer),
        }
    }
}

/// `serialize_with` for `ext: Option<RawJson>` members (used with `skip_serializing_if = "Option::is_none"`).
pub fn ext<S: Serializer>(ext: &Option<RawJson<'_>>, serializer: S) -> Result<S::Ok, S::Error> {
    match ext {
        Some(raw) => Compact(raw).serialize(serializer),
        None => serializer.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_goes_strings_and_numbers_stay() {
        assert!(matches!(compact(r#"{"a":[1,2]}"#), Cow::Borrowed(_)));
        assert!(matches!(compact(r#"{"a":"x y"}"#), Cow::Borrowed(_)));
        assert_eq!(
            compact("{\n  \"a b\" : [ 1.50 , 1e3 ],\r\n\t\"c\": \"q\\\" \\u003c \\/ \"\n}"),
            "{\"a b\":[1.50,1e3],\"c\":\"q\\\" \\u003c \\/ \"}"
        );
        // An escaped backslash ends before the quote that closes the string.
        assert_eq!(compact(r#"[ "\\", "x" ]"#), r#"["\\","x"]"#);
        assert_eq!(compact("{ \"é\" : \"ü ß\" }"), "{\"é\":\"ü ß\"}");
    }

    #[test]
    fn serializes_through_serde_json_as_one_line() {
        let raw = RawJson::from_validated("{\n \"k\": [ true, null ]\n}");
        assert_eq!(
            serde_json::to_string(&Compact(&raw)).unwrap(),
            r#"{"k":[true,null]}"#
        );
        let compact = RawJson::from_validated(r#"{"k":1}"#);
        assert_eq!(
            serde_json::to_string(&Compact(&compact)).unwrap(),
            r#"{"k":1}"#
        );
    }
}
