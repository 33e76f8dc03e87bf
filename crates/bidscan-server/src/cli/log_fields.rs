//! [`JsonSpanFields`]: how the JSON log format writes a span's fields, straight into the span's string.
//!
//! tracing-subscriber's JSON formatter formats every span's fields when the span is created (whether or not
//! anything is ever logged inside it) and keeps them as a JSON object in a string, which it parses back when an
//! event inside the span is written. Its own field formatter (`JsonFields`) builds a `BTreeMap` of
//! `serde_json::Value`s, one `String` per field, and serializes the map: with the per-request span (method, URI,
//! request id) that is ~8.7 k instructions and six allocations per request (callgrind).
//! This one writes the same JSON object directly, escaping as it goes: the same log lines (keys in the order the
//! fields were recorded instead of sorted; the event formatter re-serializes them sorted anyway).

use std::fmt::{self, Write};

use tracing::field::{Field, Visit};
use tracing_subscriber::field::RecordFields;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FormatFields, FormattedFields};

/// Formats span fields as one JSON object (`{"method":"POST","uri":"/decode"}`), as `JsonFields` does: strings
/// and `Debug`/`Display` values as JSON strings, integers, floats (non-finite as `null`) and booleans as
/// themselves; a leading `r#` is dropped from a field name.
#[derive(Clone, Copy, Debug, Default)]
pub struct JsonSpanFields;

impl<'writer> FormatFields<'writer> for JsonSpanFields {
    fn format_fields<R: RecordFields>(
        &self,
        mut writer: Writer<'writer>,
        fields: R,
    ) -> fmt::Result {
        // Built in a string sized once and handed over in one piece: the writer is the span's empty `String`
        // behind a `dyn Write`, which would otherwise be grown by every small write (and each write dispatched).
        let mut json = String::with_capacity(128);
        json.push('{');
        let mut visitor = Visitor {
            out: &mut json,
            first: true,
            result: Ok(()),
        };
        fields.record(&mut visitor);
        visitor.result?;
        json.push('}');
        writer.write_str(&json)
    }

    /// Fields recorded after the span was created (`Span::record`) go inside the same object.
    fn add_fields(
        &self,
        current: &'writer mut FormattedFields<Self>,
        fields: &tracing::span::Record<'_>,
    ) -> fmt::Result {
        let empty = current.fields.len() <= 2;
        if current.fields.ends_with('}') {
            current.fields.pop();
        } else {
            current.fields.push('{');
        }
        let mut visitor = Visitor {
            out: &mut current.fields,
            first: empty,
            result: Ok(()),
        };
        fields.record(&mut visitor);
        visitor.result?;
        current.fields.push('}');
        Ok(())
    }
}

/// Writes `"name":value` pairs, separated by commas.
struct Visitor<'a, W: Write> {
    out: &'a mut W,
    first: bool,
    result: fmt::Result,
}

impl<W: Write> Visitor<'_, W> {
    fn key(&mut self, field: &Field) -> fmt::Result {
        if !std::mem::take(&mut self.first) {
            self.out.write_char(',')?;
        }
        let name = field.name();
        let name = name.strip_prefix("r#").unwrap_or(name);
        self.out.write_char('"')?;
        Escaped(&mut *self.out).write_str(name)?;
        self.out.write_str("\":")
    }

    fn pair(&mut self, field: &Field, value: impl FnOnce(&mut W) -> fmt::Result) {
        if self.result.is_ok() {
            self.result = self.key(field).and_then(|()| value(self.out));
        }
    }
}

impl<W: Write> Visit for Visitor<'_, W> {
    fn record_f64(&mut self, field: &Field, value: f64) {
        self.pair(field, |out| {
            if value.is_finite() {
                write!(out, "{value:?}")
            } else {
                out.write_str("null")
            }
        });
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.pair(field, |out| write!(out, "{value}"));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.pair(field, |out| write!(out, "{value}"));
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.pair(field, |out| write!(out, "{value}"));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.pair(field, |out| {
            out.write_char('"')?;
            Escaped(&mut *out).write_str(value)?;
            out.write_char('"')
        });
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.pair(field, |out| {
            out.write_char('"')?;
            write!(Escaped(&mut *out), "{value:?}")?;
            out.write_char('"')
        });
    }
}

/// Writes what it is given as the inside of a JSON string (RFC 8259 §7): `"`, `\` and control characters
/// escaped.
struct Escaped<'a, W: Write>(&'a mut W);

impl<W: Write> Write for Escaped<'_, W> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let start = clean_prefix(s.as_bytes());
        if start == s.len() {
            return self.0.write_str(s);
        }
        let mut plain = 0;
        for (i, b) in s.bytes().enumerate().skip(start) {
            if b >= 0x20 && b != b'"' && b != b'\\' {
                continue;
            }
            self.0.write_str(&s[plain..i])?;
            match b {
                b'"' => self.0.write_str("\\\"")?,
                b'\\' => self.0.write_str("\\\\")?,
                b'\n' => self.0.write_str("\\n")?,
                b'\r' => self.0.write_str("\\r")?,
                b'\t' => self.0.write_str("\\t")?,
                _ => write!(self.0, "\\u{b:04x}")?,
            }
            plain = i + 1;
        }
        self.0.write_str(&s[plain..])
    }
}

/// How many leading bytes of `bytes` need no escape, eight at a time (then at most seven more are left to the
/// byte loop): a span's fields (method, URI, request id) are nearly always all plain.
fn clean_prefix(bytes: &[u8]) -> usize {
    let mut n = 0;
    for word in bytes.chunks_exact(8) {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        if needs_escape(u64::from_le_bytes(w)) {
            break;
        }
        n += 8;
    }
    n
}

/// Whether any byte of `w` is below 0x20, `"` or `\` (the "has less" and "has zero byte" tests of Hacker's
/// Delight §6-1, exact as yes/no answers).
fn needs_escape(w: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGH;
    let quote = w ^ (ONES * u64::from(b'"'));
    let backslash = w ^ (ONES * u64::from(b'\\'));
    (below(w, 0x20) | below(quote, 1) | below(backslash, 1)) != 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};
    use tracing_subscriber::fmt::MakeWriter;

    /// Log lines written into memory.
    #[derive(Clone, Default)]
    struct Lines(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Lines {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl<'a> MakeWriter<'a> for Lines {
        type Writer = Lines;
        fn make_writer(&'a self) -> Lines {
            self.clone()
        }
    }

    /// The `span` object of the one event logged by `body` under the JSON format, with these span fields.
    fn span_of_event(fields: JsonSpanFields, body: impl FnOnce()) -> serde_json::Value {
        let lines = Lines::default();
        let subscriber = tracing_subscriber::fmt()
            .json()
            .with_current_span(true)
            .with_span_list(false)
            .fmt_fields(fields)
            .with_writer(lines.clone())
            .finish();
        tracing::subscriber::with_default(subscriber, body);
        let text = String::from_utf8(lines.0.lock().unwrap().clone()).unwrap();
        let line: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
        line["span"].clone()
    }

    #[test]
    fn span_fields_are_the_json_object_json_fields_makes() {
        let span = span_of_event(JsonSpanFields, || {
            let uri = "/decode?view=\"summary\"\\\n\u{1}é";
            let span = tracing::info_span!(
                "request",
                method = %"POST",
                uri = %uri,
                r#type = "plain",
                n = 7u64,
                m = -3i64,
                x = 1.5f64,
                nan = f64::NAN,
                ok = true,
                later = tracing::field::Empty,
            );
            span.record("later", "recorded");
            let _entered = span.enter();
            tracing::info!("inside");
        });
        assert_eq!(
            span,
            serde_json::json!({
                "name": "request",
                "method": "POST",
                "uri": "/decode?view=\"summary\"\\\n\u{1}é",
                "type": "plain",
                "n": 7,
                "m": -3,
                "x": 1.5,
                "nan": null,
                "ok": true,
                "later": "recorded",
            })
        );
    }

    #[test]
    fn a_span_without_fields_and_fields_added_later() {
        let span = span_of_event(JsonSpanFields, || {
            let span = tracing::info_span!("bare", id = tracing::field::Empty);
            let _entered = span.enter();
            tracing::info!("inside");
        });
        assert_eq!(span, serde_json::json!({"name": "bare"}));
        let span = span_of_event(JsonSpanFields, || {
            let span = tracing::info_span!("late", id = tracing::field::Empty);
            span.record("id", 5u64);
            span.record("id2", 6u64);
            let _entered = span.enter();
            tracing::info!("inside");
        });
        assert_eq!(span, serde_json::json!({"name": "late", "id": 5}));
    }
}

#[cfg(test)]
mod escape_tests {
    use super::*;

    #[test]
    fn the_word_test_agrees_with_the_byte_rule_for_every_byte_in_every_place() {
        let plain = |b: u8| b >= 0x20 && b != b'"' && b != b'\\';
        for place in 0..8 {
            for b in 0..=255u8 {
                let mut w = *b"abcdefgh";
                w[place] = b;
                assert_eq!(
                    needs_escape(u64::from_le_bytes(w)),
                    !plain(b),
                    "{b:#x} at {place}"
                );
            }
        }
        // Neighbours of the special bytes next to each other (borrows between bytes must not fake a hit).
        assert!(!needs_escape(u64::from_le_bytes(*b" !#[]^`~")));
        assert_eq!(clean_prefix(b"POST /decode?view=summary"), 24);
        assert_eq!(clean_prefix(b"0123456789abcd\"f0123"), 8);
        let mut out = String::new();
        Escaped(&mut out)
            .write_str("0123456789ab\"\\\n\u{1}x")
            .unwrap();
        assert_eq!(out, "0123456789ab\\\"\\\\\\n\\u0001x");
    }
}
