//! Renders protobuf messages that the typed model keeps as JSON text (`ext`, `adm_native`) into JSON, by the
//! tables of `schema`.
//!
//! A message sent more than once is merged, as protobuf merges (encoding guide, "Last One Wins"): the
//! occurrences are read as one message, a singular scalar's last value wins, repeated fields concatenate, a
//! singular message field merges its own occurrences. Declared fields are rendered in the schema's order, under
//! their names; `bool` fields as OpenRTB's 0/1 flags.
//!
//! **The raw form.** In an `Ext` message, each undeclared field (the `extensions 500 to max` that companies
//! claim, or a field of a newer schema) is rendered after the declared ones, in the order first seen, as a member
//! named by its number in brackets, as protobuf's text format names extensions, holding every occurrence in wire
//! order: `"[1001]":[{"varint":5},{"len":"aGk="}]`. An occurrence is `{"varint":N}`, `{"i64":N}`, `{"i32":N}`
//! (the unsigned bits as a JSON integer), `{"len":"…"}` or `{"group":"…"}` (the bytes in standard base64,
//! RFC 4648 §4).

use std::collections::HashMap;
use std::fmt::Write as _;

use base64::Engine as _;
use bidscan_proto::{Error, Field, Limits, Value};

use super::schema::{Desc, FieldDesc, Kind};

/// The name of a rendered member.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Name {
    /// A declared field's name.
    Declared(&'static str),
    /// An undeclared field of an `Ext` message, rendered raw, by number.
    Raw(u32),
}

/// Renders the message sent as `occurrences` (one or more `LEN` fields, merged) as a JSON object into `out`.
pub(crate) fn object<'a>(
    occurrences: &[Field<'a>],
    desc: &'static Desc,
    out: &mut String,
    limits: &Limits,
) -> Result<(), Error> {
    out.push('{');
    let mut first = true;
    members(
        occurrences,
        desc,
        out,
        limits,
        &mut |out, name| {
            if !first {
                out.push(',');
            }
            first = false;
            key(out, name);
        },
        &mut |_, _| {},
    )?;
    out.push('}');
    Ok(())
}

/// Renders each member of the message sent as `occurrences`: `before` is called with the output and the member's
/// name before its value is written, `after` with the name and the byte range of the value written.
pub(crate) fn members<'a>(
    occurrences: &[Field<'a>],
    desc: &'static Desc,
    out: &mut String,
    limits: &Limits,
    before: &mut dyn FnMut(&mut String, Name),
    after: &mut dyn FnMut(Name, std::ops::Range<usize>),
) -> Result<(), Error> {
    // The occurrences are walked again for each declared field rather than gathered into a list: an `ext` is
    // small, and the walk allocates nothing (a field sent once, the usual case, is rendered from itself).
    each(occurrences, limits, |_| {})?;
    for d in desc.fields {
        let (mut count, mut first) = (0, None);
        each(occurrences, limits, |f| {
            if f.number == d.number {
                count += 1;
                first.get_or_insert(*f);
            }
        })?;
        let Some(first) = first else { continue };
        let name = Name::Declared(d.name);
        before(out, name);
        let start = out.len();
        let result = if count == 1 {
            field(d, std::slice::from_ref(&first), out, limits)
        } else {
            let mut mine = Vec::with_capacity(count);
            each(occurrences, limits, |f| {
                if f.number == d.number {
                    mine.push(*f);
                }
            })?;
            field(d, &mine, out, limits)
        };
        result.map_err(|e| e.within(d.name, None))?;
        after(name, start..out.len());
    }
    if desc.raw {
        // Undeclared fields (rare): gathered with their wire position, grouped by number, the groups in the
        // order each number is first seen; sorting keeps it O(n log n) on hostile bodies.
        let mut undeclared: Vec<(u32, usize, Field<'a>)> = Vec::new();
        let mut at = 0;
        each(occurrences, limits, |f| {
            if !desc.fields.iter().any(|d| d.number == f.number) {
                undeclared.push((f.number, at, *f));
            }
            at += 1;
        })?;
        undeclared.sort_by_key(|&(number, at, _)| (number, at));
        let mut groups: Vec<(usize, std::ops::Range<usize>)> = Vec::new();
        let mut from = 0;
        while from < undeclared.len() {
            let number = undeclared[from].0;
            let to = from
                + undeclared[from..]
                    .iter()
                    .take_while(|u| u.0 == number)
                    .count();
            groups.push((undeclared[from].1, from..to));
            from = to;
        }
        groups.sort_by_key(|g| g.0);
        for (_, range) in groups {
            let group = &undeclared[range];
            let name = Name::Raw(group[0].0);
            before(out, name);
            let start = out.len();
            raw(group.iter().map(|u| &u.2), out);
            after(name, start..out.len());
        }
    }
    Ok(())
}

/// Calls `visit` with every field of the merged occurrences, in wire order.
fn each<'a>(
    occurrences: &[Field<'a>],
    limits: &Limits,
    mut visit: impl FnMut(&Field<'a>),
) -> Result<(), Error> {
    for occurrence in occurrences {
        let mut m = occurrence.message(limits)?;
        while let Some(f) = m.next()? {
            visit(&f);
        }
    }
    Ok(())
}

/// Every field of the merged occurrences, in wire order.
fn inner<'a>(occurrences: &[Field<'a>], limits: &Limits) -> Result<Vec<Field<'a>>, Error> {
    let mut fields = Vec::new();
    for occurrence in occurrences {
        let mut m = occurrence.message(limits)?;
        while let Some(f) = m.next()? {
            fields.push(f);
        }
    }
    Ok(fields)
}

fn key(out: &mut String, name: Name) {
    match name {
        Name::Declared(n) => {
            out.push('"');
            out.push_str(n);
            out.push_str("\":");
        }
        Name::Raw(n) => {
            let _ = write!(out, "\"[{n}]\":");
        }
    }
}

/// Renders one declared field from its occurrences in the message.
fn field<'a>(
    d: &FieldDesc,
    mine: &[Field<'a>],
    out: &mut String,
    limits: &Limits,
) -> Result<(), Error> {
    if !d.repeated {
        return match d.kind {
            Kind::Message(desc) => object(mine, desc, out, limits),
            Kind::Value => value(mine, out, limits),
            Kind::MapStrDouble => map_str_double(mine, out, limits),
            kind => {
                // Every occurrence is checked; the last one wins.
                for f in &mine[..mine.len() - 1] {
                    scalar(kind, f, &mut String::new())?;
                }
                scalar(kind, &mine[mine.len() - 1], out)
            }
        };
    }
    out.push('[');
    let mut n = 0;
    for f in mine {
        match d.kind {
            Kind::Int32 | Kind::Flag => {
                for v in f.varints()? {
                    let v = v.map_err(|e| e.within(&n.to_string(), None))?;
                    if n > 0 {
                        out.push(',');
                    }
                    if matches!(d.kind, Kind::Flag) {
                        out.push(if v != 0 { '1' } else { '0' });
                    } else {
                        let _ = write!(out, "{}", v as i32);
                    }
                    n += 1;
                }
            }
            kind => {
                if n > 0 {
                    out.push(',');
                }
                let r = match kind {
                    Kind::Message(desc) => object(std::slice::from_ref(f), desc, out, limits),
                    Kind::Value => value(std::slice::from_ref(f), out, limits),
                    Kind::MapStrDouble => map_str_double(std::slice::from_ref(f), out, limits),
                    kind => scalar(kind, f, out),
                };
                r.map_err(|e| e.within(&n.to_string(), None))?;
                n += 1;
            }
        }
    }
    out.push(']');
    Ok(())
}

fn scalar(kind: Kind, f: &Field<'_>, out: &mut String) -> Result<(), Error> {
    match kind {
        Kind::Str => string(out, f.str()?),
        Kind::Int32 => {
            let _ = write!(out, "{}", f.int32()?);
        }
        Kind::Flag => out.push(if f.bool()? { '1' } else { '0' }),
        Kind::Double => double(out, f.double()?),
        Kind::Message(_) | Kind::Value | Kind::MapStrDouble => {}
    }
    Ok(())
}

/// A double as serde_json writes it (shortest round-trip text); `null` when not finite.
fn double(out: &mut String, v: f64) {
    match serde_json::Number::from_f64(v) {
        Some(n) => {
            let _ = write!(out, "{n}");
        }
        None => out.push_str("null"),
    }
}

/// A JSON string (RFC 8259 §7): `"` and `\` escaped, control characters as their short escape or `\u00XX`, the
/// rest as is.
pub(crate) fn string(out: &mut String, s: &str) {
    out.push('"');
    let mut from = 0;
    for (i, b) in s.bytes().enumerate() {
        let escape: &str = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[from..i]);
        if escape.is_empty() {
            let _ = write!(out, "\\u{b:04x}");
        } else {
            out.push_str(escape);
        }
        from = i + 1;
    }
    out.push_str(&s[from..]);
    out.push('"');
}

/// `google.protobuf.Value` (struct.proto): `null_value` 1, `number_value` 2, `string_value` 3, `bool_value` 4,
/// `struct_value` 5, `list_value` 6, a oneof: the last case set wins, a message case merges its occurrences
/// since that case was set. Rendered as protobuf's JSON mapping renders it; an unset `Value` as `null`.
fn value<'a>(occurrences: &[Field<'a>], out: &mut String, limits: &Limits) -> Result<(), Error> {
    let fields = inner(occurrences, limits)?;
    let mut case: Option<u32> = None;
    let mut from = 0;
    for (i, f) in fields.iter().enumerate() {
        if (1..=6).contains(&f.number) {
            if case != Some(f.number) || f.number < 5 {
                from = i;
            }
            case = Some(f.number);
        }
    }
    let last = |n: u32| fields[from..].iter().rev().find(|f| f.number == n);
    let all = |n: u32| -> Vec<Field<'a>> {
        fields[from..]
            .iter()
            .filter(|f| f.number == n)
            .copied()
            .collect()
    };
    match case {
        None | Some(1) => {
            if let Some(f) = last(1) {
                f.varint()?;
            }
            out.push_str("null");
        }
        Some(2) => double(out, last(2).map_or(Ok(0.0), |f| f.double())?),
        Some(3) => string(out, last(3).map_or(Ok(""), |f| f.str())?),
        Some(4) => out.push_str(if last(4).map_or(Ok(false), |f| f.bool())? {
            "true"
        } else {
            "false"
        }),
        Some(5) => {
            // Struct: `fields` 1, map<string, Value>.
            let entries = inner(&all(5), limits)?;
            let mut pairs: Vec<(&'a str, Vec<Field<'a>>)> = Vec::new();
            let mut index: HashMap<&'a str, usize> = HashMap::new();
            for e in entries.iter().filter(|e| e.number == 1) {
                let (k, v) = entry(e, limits)?;
                match index.get(k) {
                    Some(&i) => pairs[i].1 = v,
                    None => {
                        index.insert(k, pairs.len());
                        pairs.push((k, v));
                    }
                }
            }
            out.push('{');
            for (i, (k, v)) in pairs.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                string(out, k);
                out.push(':');
                value(v, out, limits).map_err(|e| e.within(k, None))?;
            }
            out.push('}');
        }
        _ => {
            // ListValue: `values` 1, repeated Value.
            let items = inner(&all(6), limits)?;
            out.push('[');
            for (i, item) in items.iter().filter(|f| f.number == 1).enumerate() {
                if i > 0 {
                    out.push(',');
                }
                value(std::slice::from_ref(item), out, limits)
                    .map_err(|e| e.within(&i.to_string(), None))?;
            }
            out.push(']');
        }
    }
    Ok(())
}

/// A map entry (`key` 1, `value` 2): the last key, and the value's occurrences.
fn entry<'a>(e: &Field<'a>, limits: &Limits) -> Result<(&'a str, Vec<Field<'a>>), Error> {
    let mut m = e.message(limits)?;
    let mut key = "";
    let mut values = Vec::new();
    while let Some(f) = m.next()? {
        match f.number {
            1 => key = f.str()?,
            2 => values.push(f),
            _ => {}
        }
    }
    Ok((key, values))
}

/// `map<string, double>`: a JSON object, a key sent twice keeping its last value at its first place.
fn map_str_double(
    occurrences: &[Field<'_>],
    out: &mut String,
    limits: &Limits,
) -> Result<(), Error> {
    let mut pairs: Vec<(&str, f64)> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for e in occurrences {
        let mut m = e.message(limits)?;
        let (mut key, mut v) = ("", 0.0);
        while let Some(f) = m.next()? {
            match f.number {
                1 => key = f.str()?,
                2 => v = f.double()?,
                _ => {}
            }
        }
        match index.get(key) {
            Some(&i) => pairs[i].1 = v,
            None => {
                index.insert(key, pairs.len());
                pairs.push((key, v));
            }
        }
    }
    out.push('{');
    for (i, (k, v)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        string(out, k);
        out.push(':');
        double(out, *v);
    }
    out.push('}');
    Ok(())
}

/// The raw form of one undeclared field (see the module docs): its occurrences, in wire order.
fn raw<'f, 'a: 'f>(occurrences: impl Iterator<Item = &'f Field<'a>>, out: &mut String) {
    out.push('[');
    for (i, f) in occurrences.enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = match f.value {
            Value::Varint(v) => write!(out, "{{\"varint\":{v}}}"),
            Value::I64(v) => write!(out, "{{\"i64\":{v}}}"),
            Value::I32(v) => write!(out, "{{\"i32\":{v}}}"),
            Value::Len(b) => write!(
                out,
                "{{\"len\":\"{}\"}}",
                base64::engine::general_purpose::STANDARD.encode(b)
            ),
            Value::Group(b) => write!(
                out,
                "{{\"group\":\"{}\"}}",
                base64::engine::general_purpose::STANDARD.encode(b)
            ),
        };
    }
    out.push(']');
}
