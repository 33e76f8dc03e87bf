//! Generators for the property tests: a JSON document tree rendered with random escaping and whitespace, and
//! strings rendered with a chosen escape style per character.

use std::fmt::Write;

use proptest::prelude::*;

/// How one character is written inside a JSON string.
#[derive(Clone, Copy, Debug)]
pub enum Style {
    /// As itself when allowed (not `"`, `\`, < 0x20), else its shortest escape.
    Raw,
    /// `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t` when the char has one, else `\u`.
    Short,
    /// `\u00e9` (lowercase hex; non-BMP as a surrogate pair).
    LowerHex,
    /// `\u00E9`.
    UpperHex,
}

pub fn style() -> impl Strategy<Value = Style> {
    prop_oneof![6 => Just(Style::Raw), 2 => Just(Style::Short), 1 => Just(Style::LowerHex), 1 => Just(Style::UpperHex)]
}

/// Characters biased towards what matters: ASCII, specials, controls, 2/3/4-byte UTF-8.
pub fn interesting_char() -> impl Strategy<Value = char> {
    prop_oneof![
        8 => proptest::char::range(' ', '~'),
        2 => prop::sample::select(vec!['"', '\\', '/', '\u{8}', '\u{c}', '\n', '\r', '\t']),
        1 => proptest::char::range('\0', '\u{1f}'),
        1 => proptest::char::range('\u{80}', '\u{7ff}'),
        1 => proptest::char::range('\u{800}', '\u{ffff}'),
        1 => proptest::char::range('\u{10000}', '\u{10ffff}'),
    ]
}

/// Writes `c` in `style` (JSON string body, no quotes).
pub fn write_char(out: &mut String, c: char, style: Style) {
    let short = match c {
        '"' => Some("\\\""),
        '\\' => Some("\\\\"),
        '/' => Some("\\/"),
        '\u{8}' => Some("\\b"),
        '\u{c}' => Some("\\f"),
        '\n' => Some("\\n"),
        '\r' => Some("\\r"),
        '\t' => Some("\\t"),
        _ => None,
    };
    let must_escape = c == '"' || c == '\\' || c < ' ';
    match style {
        Style::Raw if !must_escape => out.push(c),
        Style::Raw | Style::Short if short.is_some() => out.push_str(short.unwrap_or_default()),
        Style::UpperHex => write_hex(out, c, true),
        _ => write_hex(out, c, false),
    }
}

fn write_hex(out: &mut String, c: char, upper: bool) {
    let mut units = [0u16; 2];
    for unit in c.encode_utf16(&mut units) {
        if upper {
            let _ = write!(out, "\\u{:04X}", unit);
        } else {
            let _ = write!(out, "\\u{:04x}", unit);
        }
    }
}

/// A string as (char, style) pairs, rendered with quotes.
pub fn render_string(chars: &[(char, Style)]) -> String {
    let mut out = String::with_capacity(chars.len() * 2 + 2);
    out.push('"');
    for &(c, s) in chars {
        write_char(&mut out, c, s);
    }
    out.push('"');
    out
}

pub fn styled_string(max: usize) -> impl Strategy<Value = Vec<(char, Style)>> {
    prop::collection::vec((interesting_char(), style()), 0..max)
}

/// A JSON document tree; numbers are kept as text so any RFC 8259 spelling can be produced.
#[derive(Clone, Debug)]
pub enum Doc {
    Null,
    Bool(bool),
    Num(String),
    Str(Vec<(char, Style)>),
    Arr(Vec<Doc>),
    Obj(Vec<(Vec<(char, Style)>, Doc)>),
}

/// Numbers by the RFC 8259 grammar, exponents kept small enough never to overflow.
pub fn number_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| serde_json::to_string(&f).unwrap()),
        "-?(0|[1-9][0-9]{0,24})(\\.[0-9]{1,20})?([eE][+-]?[0-9]{1,2})?",
    ]
}

pub fn doc() -> impl Strategy<Value = Doc> {
    let leaf = prop_oneof![
        Just(Doc::Null),
        any::<bool>().prop_map(Doc::Bool),
        number_text().prop_map(Doc::Num),
        styled_string(40).prop_map(Doc::Str),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Doc::Arr),
            prop::collection::vec((styled_string(12), inner), 0..6).prop_map(Doc::Obj),
        ]
    })
}

/// Renders `doc`; `ws` picks the whitespace put around tokens (cycled).
pub fn render(doc: &Doc, ws: &[u8]) -> String {
    let mut out = String::new();
    let mut k = 0;
    render_into(doc, ws, &mut k, &mut out);
    out
}

fn space(ws: &[u8], k: &mut usize, out: &mut String) {
    if ws.is_empty() {
        return;
    }
    *k += 1;
    let pick = ws[*k % ws.len()];
    match pick % 8 {
        0 => out.push(' '),
        1 => out.push('\n'),
        2 => out.push_str("\r\n\t "),
        // Pretty printers: a newline and an indentation of 0–47 spaces (PHP, Java: 8–40), or CRLF and tabs.
        3 => {
            out.push('\n');
            out.extend(std::iter::repeat_n(' ', usize::from(pick / 8) % 48));
        }
        4 => {
            out.push_str("\r\n");
            out.extend(std::iter::repeat_n('\t', usize::from(pick / 8) % 6));
        }
        _ => {}
    }
}

fn render_into(doc: &Doc, ws: &[u8], k: &mut usize, out: &mut String) {
    space(ws, k, out);
    match doc {
        Doc::Null => out.push_str("null"),
        Doc::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Doc::Num(n) => out.push_str(n),
        Doc::Str(s) => out.push_str(&render_string(s)),
        Doc::Arr(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                render_into(item, ws, k, out);
            }
            space(ws, k, out);
            out.push(']');
        }
        Doc::Obj(entries) => {
            out.push('{');
            for (i, (key, value)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                space(ws, k, out);
                out.push_str(&render_string(key));
                space(ws, k, out);
                out.push(':');
                render_into(value, ws, k, out);
            }
            space(ws, k, out);
            out.push('}');
        }
    }
    space(ws, k, out);
}
