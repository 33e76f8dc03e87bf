//! The exact path of [`inspect`](super::inspect): quick-xml's event stream over the markup driving the
//! [`Walk`]. It reports every violation with quick-xml's message and place; [`scan`](super::scan) hands a
//! document to it whenever the fast path cannot answer for it (a violation whose quick-xml reading it does not
//! reproduce, a DOCTYPE, nesting deeper than its stack).

use std::borrow::Cow;

use quick_xml::Reader;
use quick_xml::events::attributes::AttrError;
use quick_xml::events::{BytesStart, Event};

use super::VastInfo;
use super::bytes::{is_name_start, is_space};
use super::walk::{Root, Tag, Violation, Walk, check_value, comment_allowed, is_media_type};

/// Inspects `markup` with quick-xml (see [`inspect_with_quick_xml`](super::inspect_with_quick_xml)).
pub(super) fn run(markup: &str) -> VastInfo<'_> {
    let base = Walk::base(markup);
    let mut walk = Walk::new(markup, base);
    let mut reader = Reader::from_str(&markup[base..]);
    let result = loop {
        let at = base + reader.buffer_position() as usize;
        let event = match reader.read_event() {
            Ok(event) => event,
            Err(e) => {
                break Err((
                    base + reader.error_position() as usize,
                    e.to_string().into(),
                ));
            }
        };
        match event_into(&mut walk, markup, event, at) {
            Ok(true) => {}
            Ok(false) => break Ok(()),
            Err(violation) => break Err(violation),
        }
    };
    walk.finish(result)
}

/// Hands one event to the walk; `Ok(false)` at the end of the document.
fn event_into<'a>(
    walk: &mut Walk<'a>,
    markup: &'a str,
    event: Event<'a>,
    at: usize,
) -> Result<bool, Violation> {
    match event {
        Event::Start(e) => {
            check_name(&e, at)?;
            let value = check_attributes(walk, markup, &e, at)?;
            walk.open(Tag::of(e.local_name().as_ref().as_bytes()), value, at)?;
        }
        Event::Empty(e) => {
            check_name(&e, at)?;
            let value = check_attributes(walk, markup, &e, at)?;
            walk.open(Tag::of(e.local_name().as_ref().as_bytes()), value, at)?;
            walk.end();
        }
        Event::End(_) => walk.end(),
        Event::Text(t) => {
            let text = t.into_inner();
            if let Some(k) = memchr::memmem::find(text.as_bytes(), b"]]>") {
                return Err((at + k, "`]]>` in text (XML 1.0 §2.4)".into()));
            }
            walk.text(text, at)?
        }
        Event::CData(t) => walk.cdata(t.into_inner(), at)?,
        Event::GeneralRef(r) => walk.reference(&r, at)?,
        Event::Decl(_) if at != walk.start_offset() => {
            return Err((
                at,
                "XML declaration not at the start of the document".into(),
            ));
        }
        Event::DocType(_) if walk.root != Root::NotYet => {
            return Err((at, "DOCTYPE after the root element".into()));
        }
        Event::Decl(d) => {
            if d.version().is_err() {
                return Err((
                    at,
                    "XML declaration without a version first (XML 1.0 §2.8)".into(),
                ));
            }
        }
        Event::PI(p) if p.target().eq_ignore_ascii_case("xml") => {
            return Err((
                at,
                "processing instruction target `xml` is reserved (XML 1.0 §2.6)".into(),
            ));
        }
        Event::Comment(c) if !comment_allowed(c.as_ref().as_bytes()) => {
            return Err((at, "`--` inside a comment (XML 1.0 §2.5)".into()));
        }
        Event::DocType(_) | Event::Comment(_) | Event::PI(_) => {}
        Event::Eof => {
            walk.eof(at)?;
            return Ok(false);
        }
    }
    Ok(true)
}

/// Checks that the name of the start tag `e` starts with a `NameStartChar` (XML 1.0 §2.3: a letter, `_`, `:`
/// or a non-ASCII character; quick-xml takes any name).
fn check_name(e: &BytesStart<'_>, at: usize) -> Result<(), Violation> {
    match e.name().as_ref().as_bytes().first() {
        Some(&c) if is_name_start(c) => Ok(()),
        _ => Err((
            at,
            "an element name that does not start with a letter, `_` or `:` (XML 1.0 §2.3)".into(),
        )),
    }
}

/// Checks every attribute of `e` (syntax, whitespace before each, duplicate names, references and `<` in
/// values) and returns the value as written the walk reads ([`Walk::open`]): the root's `version`, below it the
/// `type` ([`is_media_type`]).
fn check_attributes<'a>(
    walk: &Walk<'a>,
    markup: &'a str,
    e: &BytesStart<'a>,
    at: usize,
) -> Result<Option<&'a str>, Violation> {
    let mut wanted = None;
    for attribute in e.attributes().with_checks(true) {
        let attribute = attribute.map_err(|err| (at, attribute_error(e, err)))?;
        // quick-xml reads `a="1"b="2"` as two attributes; XML wants whitespace between them (§3.1).
        let tag: &str = e;
        let key = attribute.key.as_ref().as_bytes();
        let offset = (key.as_ptr() as usize).wrapping_sub(tag.as_ptr() as usize);
        if offset > 0
            && tag
                .as_bytes()
                .get(offset - 1)
                .is_some_and(|&c| !is_space(c))
        {
            return Err((
                at,
                "no whitespace before an attribute (XML 1.0 §3.1)".into(),
            ));
        }
        let value: &str = &attribute.value;
        if let Err(message) = check_value(value.as_bytes()) {
            return Err((at, message.into()));
        }
        let kept = if walk.depth == 0 {
            attribute.key.local_name().as_ref() == "version"
        } else {
            is_media_type(key)
        };
        if kept {
            wanted = borrowed(markup, value);
        }
    }
    Ok(wanted)
}

/// quick-xml's attribute error as a message; a duplicate (whose positions count from inside the tag) names the
/// attribute instead.
fn attribute_error(e: &BytesStart<'_>, err: AttrError) -> Cow<'static, str> {
    if let AttrError::Duplicated(key, _) = err {
        let tag: &str = e;
        let rest = tag.as_bytes().get(key..).unwrap_or_default();
        let end = rest
            .iter()
            .position(|&c| c == b'=' || is_space(c))
            .unwrap_or(rest.len());
        let name = String::from_utf8_lossy(&rest[..end]);
        return format!("duplicated attribute `{name}` (XML 1.0 §3.1, Unique Att Spec)").into();
    }
    err.to_string().into()
}

/// `slice` (a part of the markup, as quick-xml hands it out) as a `&'a str` of the markup.
fn borrowed<'a>(markup: &'a str, slice: &str) -> Option<&'a str> {
    let start = (slice.as_ptr() as usize).checked_sub(markup.as_ptr() as usize)?;
    markup.get(start..start + slice.len())
}
