//! The fast path of [`inspect`](super::inspect): one forward pass of our own over the markup, `memchr` from
//! one `<` or `&` to the next, driving the same [`Walk`] as quick-xml's events do.
//!
//! It vouches only for documents it can read completely under a strict subset of what the exact path
//! ([`events`](super::events)) accepts. It stops at the first violation it meets and reports it itself only
//! when it knows quick-xml's reading exactly — truncation (the document ends inside elements, an unclosed tag,
//! CDATA section or comment), a bare `&` or a bad reference in text, a mismatched or unmatched end tag, a second
//! root, text or CDATA outside the root — with quick-xml's message (built from quick-xml's own error values) and
//! place; everything before it was read as the exact path reads it, so the counts agree too. For any other
//! violation (`<` in an attribute value, attribute syntax, a misplaced declaration) and the constructs it leaves
//! to quick-xml (a DOCTYPE, nesting deeper than [`MAX_DEPTH`], unquoted or valueless attributes) it returns
//! `None` and the caller runs the exact path.
//!
//! What it checks on the way, as the exact path does: start and end tags balanced (a fixed stack of the open
//! elements' names, compared by length and bytes), attribute syntax (`name="value"` / `name='value'`, quick-xml's
//! whitespace) with no `<` in values and well-formed references, references in text (the five predefined
//! entities and character references to a legal `Char`), CDATA sections (`<![CDATA[`…`]]>`), comments
//! (`<!--`…`-->`), processing instructions and the XML declaration (only at the start), one root element and
//! nothing but whitespace, comments and processing instructions around it. Text is looked at only for
//! references, outside the root, and where the walk collects it (`Duration`, `VASTAdTagURI`).

use std::borrow::Cow;

use memchr::{memchr, memchr3, memchr3_iter};
use quick_xml::errors::{Error, IllFormedError, SyntaxError};

use bidscan_json::bytescan;

use super::VastInfo;
use super::bytes::{closes, is_name_start, is_space, name_stop, same, value_stop, window};
use super::walk::{Root, Tag, Violation, Walk, check_value, comment_allowed, is_media_type};

/// Open elements the fast path keeps names for; deeper documents go to the exact path (VAST documents nest
/// about 8 deep).
pub(super) const MAX_DEPTH: usize = 32;

/// Attributes a start tag read from masks may have ([`Scan::short_start_tag`]); a tag with more is read word
/// by word.
const SHORT_ATTRIBUTES: usize = 8;

/// Attributes a start tag read word by word may have ([`Scan::long_start_tag`]); a tag with more goes to the
/// exact path.
const MAX_ATTRIBUTES: usize = 16;

/// True when two of `names` (starts and ends of a tag's attribute names in `b`) are the same name, byte for
/// byte as written: a duplicate attribute (XML 1.0 §3.1, "Unique Att Spec"; qualified names compared as
/// written, as quick-xml's check does), which the fast path leaves to the exact path to report. Out of line:
/// most tags have one attribute or none and never come here.
#[inline(never)]
fn repeated<T: Copy + Into<usize>>(b: &[u8], names: &[(T, T)]) -> bool {
    let name = |&(s, e): &(T, T)| b.get(s.into()..e.into());
    names.iter().enumerate().any(|(k, later)| {
        names[..k]
            .iter()
            .any(|earlier| name(earlier) == name(later))
    })
}

/// True when the XML declaration's content after `xml` starts (after whitespace) with `version="…"` or
/// `version='…'`, whitespace allowed around `=` (XML 1.0 §2.8, as quick-xml's `BytesDecl::version` reads it).
fn versioned(rest: &[u8]) -> bool {
    let skip = |from: usize| from + rest[from..].iter().take_while(|&&c| is_space(c)).count();
    let name = skip(0);
    if !rest[name..].starts_with(b"version") {
        return false;
    }
    let eq = skip(name + 7);
    if rest.get(eq) != Some(&b'=') {
        return false;
    }
    let open = skip(eq + 1);
    match rest.get(open) {
        Some(&q @ (b'"' | b'\'')) => memchr(q, &rest[open + 1..]).is_some(),
        _ => false,
    }
}

/// Inspects `markup` on the fast path; `None` when it cannot answer for the document (see the module docs).
pub(super) fn run(markup: &str) -> Option<VastInfo<'_>> {
    let base = Walk::base(markup);
    let mut scan = Scan {
        markup,
        b: markup.as_bytes(),
        walk: Walk::new(markup, base),
        open: [(0, 0); MAX_DEPTH],
        violation: None,
    };
    match (scan.document(base), scan.violation.take()) {
        (Some(()), _) => Some(scan.walk.finish(Ok(()))),
        (None, Some(violation)) => Some(scan.walk.finish(Err(violation))),
        (None, None) => None,
    }
}

/// Why [`Scan::short_start_tag`] did not read a tag.
enum Short {
    /// The tag may go on past the window.
    Window,
    /// The tag has another shape than the one read from masks.
    Shape,
}

/// A start tag read by [`Scan::short_start_tag`] or [`Scan::long_start_tag`] (offsets into the markup).
struct StartTag<'a> {
    /// Where the element's local name starts (after the first `:` of a qualified name).
    local: usize,
    /// Where the element's name ends.
    name_end: usize,
    /// The `>` that ends the tag, or the `/` of `/>`.
    close: usize,
    empty: bool,
    /// The value as written of the attribute the walk reads ([`Walk::open`]): the root's `version`, below it
    /// the `type` ([`is_media_type`]; [`Scan::short_start_tag`] looks for it in a `<MediaFile>` only).
    value: Option<&'a str>,
}

struct Scan<'a> {
    markup: &'a str,
    b: &'a [u8],
    walk: Walk<'a>,
    /// Start and length in the markup of each open element's name (qualified, as written); `walk.depth` used.
    open: [(u32, u32); MAX_DEPTH],
    /// The violation that stopped the scan, when it is one the fast path reports (see the module docs).
    violation: Option<Violation>,
}

impl<'a> Scan<'a> {
    /// Stops the scan at `violation`, reported as found (`None`, for `?`).
    #[cold]
    #[inline(never)]
    fn stop<T>(&mut self, violation: Violation) -> Option<T> {
        self.violation = Some(violation);
        None
    }

    /// Stops the scan at a quick-xml error at `at`, with quick-xml's message.
    #[cold]
    #[inline(never)]
    fn stop_xml<T>(&mut self, at: usize, error: Error) -> Option<T> {
        self.stop((at, error.to_string().into()))
    }

    /// The walk's own violations are the exact path's too: reported.
    #[inline(always)]
    fn walked(&mut self, result: Result<(), Violation>) -> Option<()> {
        match result {
            Ok(()) => Some(()),
            Err(violation) => self.stop(violation),
        }
    }

    /// The document from `base` (after leading whitespace) to its end. The read position is kept here, in a
    /// local: each construct's reader returns where the next one starts.
    fn document(&mut self, base: usize) -> Option<()> {
        let b = self.b;
        // Offsets are stored as u32.
        if b.len() > u32::MAX as usize {
            return None;
        }
        let mut pos = base;
        loop {
            // Tags mostly follow one another directly, or after a little whitespace (a blank text piece means
            // nothing anywhere: outside the root, inside it, in a capture): look before searching.
            // The `<` and the byte after it in one look (which construct follows is decided by that byte).
            match window::<2>(b, pos) {
                Some(&[b'<', next]) => {
                    pos = self.markup(pos, Some(next))?;
                    continue;
                }
                Some(&[c, _]) if is_space(c) => {
                    let next = self.skip_space(pos + 1);
                    if b.get(next) == Some(&b'<') {
                        pos = self.markup(next, b.get(next + 1).copied())?;
                        continue;
                    }
                }
                _ => {}
            }
            let Some(at) = self.text_end(pos)? else {
                self.text(pos, b.len())?;
                let end = self.walk.eof(b.len());
                return self.walked(end);
            };
            if at > pos {
                self.text(pos, at)?;
            }
            pos = if b[at] == b'&' {
                self.reference(at)?
            } else {
                self.markup(at, b.get(at + 1).copied())?
            };
        }
    }

    /// Where the text from `from` ends: the next `<` or `&` (`Some(None)` at the end of the markup); `None`
    /// when the text holds `]]>` (XML 1.0 §2.4), which the exact path reports.
    #[inline(always)]
    fn text_end(&self, from: usize) -> Option<Option<usize>> {
        let b = self.b;
        let mut i = from;
        loop {
            let Some(k) = memchr3(b'<', b'&', b'>', &b[i..]) else {
                return Some(None);
            };
            let at = i + k;
            if b[at] != b'>' {
                return Some(Some(at));
            }
            if at >= from + 2 && b[at - 2..at] == *b"]]" {
                return None;
            }
            i = at + 1;
        }
    }

    /// Character data `start..end`: whitespace only outside the root; collected where the walk wants it.
    #[inline(never)]
    fn text(&mut self, start: usize, end: usize) -> Option<()> {
        if self.walk.root != Root::Open || self.walk.capturing() {
            let result = self
                .walk
                .text(Cow::Borrowed(&self.markup[start..end]), start);
            return self.walked(result);
        }
        Some(())
    }

    /// `&name;` at `at`, in text.
    #[inline(never)]
    fn reference(&mut self, at: usize) -> Option<usize> {
        let name_start = at + 1;
        let semi = match memchr3(b';', b'&', b'<', &self.b[name_start..]) {
            Some(i) if self.b[name_start + i] == b';' => name_start + i,
            _ => return self.stop_xml(at, Error::IllFormed(IllFormedError::UnclosedReference)),
        };
        let result = self.walk.reference(&self.markup[name_start..semi], at);
        self.walked(result)?;
        Some(semi + 1)
    }

    /// Markup starting with the `<` at `at`, followed by `next` (`None` at the end of the markup): where the
    /// next construct starts.
    #[inline(always)]
    fn markup(&mut self, at: usize, next: Option<u8>) -> Option<usize> {
        let read = match next {
            Some(b'/') => self.end_tag(at),
            Some(b'!') if self.b.get(at + 2) == Some(&b'[') => return self.cdata(at),
            Some(b'!') => return self.bang(at),
            Some(b'?') => return self.processing_instruction(at),
            Some(_) => self.start_tag(at),
            None => return self.stop_xml(at, Error::Syntax(SyntaxError::UnclosedTag)),
        };
        if read.is_none() {
            return self.unread(at);
        }
        read
    }

    /// A tag at `at` the fast path could not read: quick-xml's reading when it never ends (unless the scan
    /// stopped at a violation of its own already); `None` in any case.
    #[cold]
    #[inline(never)]
    fn unread<T>(&mut self, at: usize) -> Option<T> {
        if self.violation.is_none()
            && let Err(error) = self.tag_end(at)
        {
            return self.stop_xml(at, Error::Syntax(error));
        }
        None
    }

    /// quick-xml's `ElementParser` from the `<` at `at`: the `>` outside quotes that ends the tag, or the error
    /// for a tag the document ends inside.
    fn tag_end(&self, at: usize) -> Result<usize, SyntaxError> {
        let mut quote = None;
        for i in memchr3_iter(b'>', b'\'', b'"', &self.b[at..]) {
            match (quote, self.b[at + i]) {
                (None, b'>') => return Ok(at + i),
                (None, q) => quote = Some(q),
                (Some(q), c) if q == c => quote = None,
                _ => {}
            }
        }
        Err(match quote {
            None => SyntaxError::UnclosedTag,
            Some(b'\'') => SyntaxError::UnclosedSingleQuotedAttributeValue,
            Some(_) => SyntaxError::UnclosedDoubleQuotedAttributeValue,
        })
    }

    /// End of the name starting at `from` (the first [`is_name_stop`](super::bytes::is_name_stop) byte but
    /// `:`, or the end of the markup), and where its local part starts (after the first `:`, as quick-xml's
    /// `local_name`; `from` without one).
    #[inline(always)]
    fn name_end(&self, from: usize) -> (usize, usize) {
        let mut local = from;
        let mut i = from;
        loop {
            i = name_stop(self.b, i);
            if self.b.get(i) != Some(&b':') {
                return (i, local);
            }
            if local == from {
                local = i + 1;
            }
            i += 1;
        }
    }

    #[inline(always)]
    fn skip_space(&self, from: usize) -> usize {
        let mut i = from;
        while self.b.get(i).is_some_and(|&c| is_space(c)) {
            i += 1;
        }
        i
    }

    /// `</name>` (whitespace allowed before `>`), closing the innermost open element of the same name: its
    /// name's bytes compared in place, then what follows must be whitespace and `>` (anything else makes a
    /// different name, which quick-xml reports as mismatched).
    #[inline(always)]
    fn end_tag(&mut self, at: usize) -> Option<usize> {
        let start = at + 2;
        let Some(depth) = self.walk.depth.checked_sub(1) else {
            return self.mismatched(at, None);
        };
        // `depth < MAX_DEPTH`: a deeper element stopped the scan when it was opened.
        let (open_start, open_len) = self.open[depth % MAX_DEPTH];
        let (open_start, open_len) = (open_start as usize, open_len as usize);
        if closes(self.b, at, open_start, open_len) {
            self.walk.end();
            return Some(at + open_len + 3);
        }
        let open = open_start..open_start + open_len;
        let end = start + open_len;
        if !same(self.b, start, open_start, open_len) {
            return self.mismatched(at, Some(open));
        }
        let close = match self.b.get(end) {
            Some(b'>') => end,
            Some(&c) if is_space(c) => self.skip_space(end),
            _ => return self.mismatched(at, Some(open)),
        };
        if self.b.get(close) != Some(&b'>') {
            return self.mismatched(at, Some(open));
        }
        self.walk.end();
        Some(close + 1)
    }

    /// The end tag at `at` does not close the open element `open` (`None`: no element is open): quick-xml's
    /// mismatched (unmatched) end tag error, naming what stands between `</` and `>` (trailing whitespace
    /// trimmed) — when the tag ends at all (else the caller reports it unclosed).
    #[cold]
    #[inline(never)]
    fn mismatched<T>(&mut self, at: usize, open: Option<std::ops::Range<usize>>) -> Option<T> {
        let gt = self.tag_end(at).ok()?;
        let content = &self.markup[at + 2..gt];
        let trimmed = content.trim_end_matches(|c: char| c.is_ascii() && is_space(c as u8));
        // quick-xml trims only a name that is not all whitespace.
        let found = if trimmed.is_empty() { content } else { trimmed }.to_owned();
        let error = match open {
            Some(open) => IllFormedError::MismatchedEndTag {
                expected: self.markup[open].to_owned(),
                found,
            },
            None => IllFormedError::UnmatchedEndTag(found),
        };
        self.stop_xml(at, Error::IllFormed(error))
    }

    /// `<name attr="value" …>` or `<name … />`: read from the name-stop mask of 32 bytes from its `<`, or 64
    /// when it is longer ([`short_start_tag`](Self::short_start_tag)), else word by word.
    #[inline(always)]
    fn start_tag(&mut self, at: usize) -> Option<usize> {
        let short = match window::<32>(self.b, at) {
            Some(w) => {
                let stops = bytescan::name_stops(w);
                match self.short_start_tag(at, w, stops) {
                    // A longer tag: the next 32 bytes' stops joined to these.
                    Err(Short::Window) => match window::<64>(self.b, at) {
                        Some(wide) => {
                            let (_, next) = wide.split_at(32);
                            let next: &[u8; 32] = next.try_into().ok()?;
                            let stops = stops | bytescan::name_stops(next) << 32;
                            self.short_start_tag(at, wide, stops).ok()
                        }
                        None => None,
                    },
                    read => read.ok(),
                }
            }
            None => None,
        };
        let tag = match short {
            Some(tag) => tag,
            None => self.long_start_tag(at)?,
        };
        let depth = self.walk.depth;
        let kind = Tag::of(&self.b[tag.local..tag.name_end]);
        // An element without meaning below the `<Ad>` (most VAST elements): its end means nothing to the walk
        // (the watched depths are open elements', at most `depth`) and the walk never collects its content,
        // so an empty one or a leaf is read without touching the depth; only the rest is opened.
        if kind == Tag::Other && depth >= 2 {
            if tag.empty {
                return Some(tag.close + 2);
            }
            if depth >= MAX_DEPTH {
                return None;
            }
            let content = tag.close + 1;
            let resume = match self.leaf(at + 1, tag.name_end, content) {
                Ok(after) => return Some(after),
                Err(resume) => resume,
            };
            self.walk.depth = depth + 1;
            self.open[depth] = ((at + 1) as u32, (tag.name_end - at - 1) as u32);
            return Some(resume);
        }
        if !self.walk.open_plain(kind) {
            let opened = self.walk.open(kind, tag.value, at);
            self.walked(opened)?;
        }
        if tag.empty {
            self.walk.end();
            return Some(tag.close + 2);
        }
        if depth >= MAX_DEPTH {
            return None;
        }
        let content = tag.close + 1;
        // An element whose content the walk does not collect, read to its end tag in one go when that content
        // is one CDATA section, plain text or nothing (most VAST elements: `<Tracking …><![CDATA[…]]></Tracking>`).
        let resume = if self.walk.capturing() {
            content
        } else {
            match self.leaf(at + 1, tag.name_end, content) {
                Ok(after) => {
                    self.walk.end();
                    return Some(after);
                }
                Err(resume) => resume,
            }
        };
        self.open[depth] = ((at + 1) as u32, (tag.name_end - at - 1) as u32);
        Some(resume)
    }

    /// The content from `content` of the element just opened, named `name_start..name_end`, when it holds no
    /// element and the walk does not collect it: one CDATA section, text without references, or nothing, then
    /// `</name>`. `Ok` with the offset after that end tag (the caller closes the element); `Err` with where the
    /// scan goes on (the content's start, or past the part read, which needs nothing more than the scan would
    /// do with it: inside the root, uncollected CDATA and reference-free text are only looked past).
    #[inline(always)]
    fn leaf(&self, name_start: usize, name_end: usize, content: usize) -> Result<usize, usize> {
        let b = self.b;
        let end = match b.get(content) {
            Some(b'<') if window::<9>(b, content) == Some(b"<![CDATA[") => {
                self.closing(content + 9, b"]]").ok_or(content)? + 1
            }
            Some(b'<') => content,
            Some(_) => {
                let end = self.text_end(content).flatten().ok_or(content)?;
                if b[end] == b'&' {
                    return Err(content);
                }
                end
            }
            None => return Err(content),
        };
        let len = name_end - name_start;
        if closes(b, end, name_start, len) {
            Ok(end + len + 3)
        } else {
            Err(end)
        }
    }

    /// The start tag at `at` when all of it lies in the `N` bytes `w` from its `<` (whose name-stop mask
    /// `stops` the caller passes, [`bytescan::name_stops`]) and it has the common shape — an unqualified name, then
    /// `>`, `/>` or attributes `name="value"` (or `'value'`) each after one whitespace byte, values without `<`
    /// or `&` — read from the mask with shifts: a value ends at the first stop that is its quote (the other
    /// stops in it, `/`, `:`, `=`, spaces, the other quote, are passed over). Any other tag is the caller's to
    /// read word by word (which decides the rest): [`Short::Window`] when the tag may go on past the window (or
    /// fewer than `N` bytes are left), [`Short::Shape`] for another shape.
    #[inline(always)]
    fn short_start_tag<const N: usize>(
        &self,
        at: usize,
        w: &[u8; N],
        stops: u64,
    ) -> Result<StartTag<'a>, Short> {
        // Offsets below are into the window; a stop not found gives N or more (the mask's bits past N are clear).
        let stop = |from: usize| from + (stops >> from).trailing_zeros() as usize;
        let end = stop(1);
        if end >= N {
            return Err(Short::Window);
        }
        if end == 1 || w[end] == b':' || !is_name_start(w[1]) {
            return Err(Short::Shape);
        }
        let mut kept = None;
        // The attribute names read so far (start and end in the window), for the duplicate check.
        let mut names = [(0u8, 0u8); SHORT_ATTRIBUTES];
        let mut count = 0;
        let mut p = end;
        loop {
            match w[p] {
                b'>' => break,
                b'/' if w.get(p + 1) == Some(&b'>') => break,
                c if is_space(c) => {}
                _ if p + 1 >= N => return Err(Short::Window),
                _ => return Err(Short::Shape),
            }
            let name = p + 1;
            if name >= N {
                return Err(Short::Window);
            }
            let name_end = stop(name);
            if name_end + 2 >= N {
                return Err(Short::Window);
            }
            let quote = w[name_end + 1];
            if name_end == name || w[name_end] != b'=' || (quote != b'"' && quote != b'\'') {
                return Err(Short::Shape);
            }
            let value = name_end + 2;
            let mut close = stop(value);
            loop {
                if close + 1 >= N {
                    return Err(Short::Window);
                }
                match w[close] {
                    c if c == quote => break,
                    b'<' | b'&' => return Err(Short::Shape),
                    _ => close = stop(close + 1),
                }
            }
            if count == SHORT_ATTRIBUTES {
                return Err(Short::Shape);
            }
            names[count] = (name as u8, name_end as u8);
            count += 1;
            if self.walk.depth == 0 && &w[name..name_end] == b"version" {
                kept = self.markup.get(at + value..at + close);
            }
            p = close + 1;
        }
        if count > 1 && repeated(w, &names[..count]) {
            return Err(Short::Shape);
        }
        // A `<MediaFile>`'s `type`, looked for once the tag is read: a name check inside the loop above, or one
        // kept across it, costs every tag more (callgrind).
        if count != 0 && end == 10 && w[1..10] == *b"MediaFile" && self.walk.depth != 0 {
            kept = self.media_type(at + end, at + p);
        }
        Ok(StartTag {
            local: at + 1,
            name_end: at + end,
            close: at + p,
            empty: w[p] == b'/',
            value: kept,
        })
    }

    /// The start tag at `at`, names and values delimited a word at a time; `None` for one the fast path does
    /// not read.
    #[inline(never)]
    fn long_start_tag(&self, at: usize) -> Option<StartTag<'a>> {
        let start = at + 1;
        let (end, local) = self.name_end(start);
        if end == start || !is_name_start(self.b[start]) {
            return None;
        }
        let mut kept = None;
        let mut names = [(0, 0); MAX_ATTRIBUTES];
        let mut count = 0;
        let mut p = end;
        // Whitespace before the next attribute (XML 1.0 §3.1; quick-xml reads `a="1"b="2"` too).
        let mut spaced = false;
        let empty = loop {
            match *self.b.get(p)? {
                b'>' => break false,
                b'/' if self.b.get(p + 1) == Some(&b'>') => break true,
                c if is_space(c) => {
                    p = self.skip_space(p);
                    spaced = true;
                }
                _ if !spaced => return None,
                _ => {
                    spaced = false;
                    let (name_end, value_end, value) = self.attribute(p)?;
                    if count == MAX_ATTRIBUTES {
                        return None;
                    }
                    names[count] = (p, name_end);
                    count += 1;
                    if let Some(v) = value {
                        kept = Some(v);
                    }
                    p = value_end + 1;
                }
            }
        };
        if count > 1 && repeated(self.b, &names[..count]) {
            return None;
        }
        Some(StartTag {
            local,
            name_end: end,
            close: p,
            empty,
            value: kept,
        })
    }

    /// The value as written of the `type` attribute ([`is_media_type`]) of a start tag [`Scan::short_start_tag`]
    /// read, whose attributes lie in `from..close` (each `name="value"` or `name='value'` after one whitespace
    /// byte, as that reader checked). Out of line: only a short `<MediaFile>` tag comes here.
    #[inline(never)]
    fn media_type(&self, from: usize, close: usize) -> Option<&'a str> {
        let b = self.b.get(..close)?;
        let mut p = from;
        loop {
            let name = p + 1;
            let eq = name + b.get(name..)?.iter().position(|&c| c == b'=')?;
            let quote = *b.get(eq + 1)?;
            let value = eq + 2;
            let end = value + b.get(value..)?.iter().position(|&c| c == quote)?;
            if is_media_type(&b[name..eq]) {
                return self.markup.get(value..end);
            }
            p = end + 1;
        }
    }

    /// The attribute whose name starts at `from`: where its name ends, the offset of its value's closing quote,
    /// and its value when the walk reads it: the root's `version` (local name after the first `:`, as
    /// quick-xml's `local_name`), below it the `type` ([`is_media_type`]).
    #[inline(always)]
    fn attribute(&self, from: usize) -> Option<(usize, usize, Option<&'a str>)> {
        let (name_end, local) = self.name_end(from);
        if name_end == from {
            return None;
        }
        // `name="value"` mostly: whitespace around `=` looked for only when the byte is not the expected one.
        let mut eq = name_end;
        if self.b.get(eq) != Some(&b'=') {
            eq = self.skip_space(eq);
            if self.b.get(eq) != Some(&b'=') {
                return None;
            }
        }
        let mut open = eq + 1;
        let mut quote = *self.b.get(open)?;
        if is_space(quote) {
            open = self.skip_space(open);
            quote = *self.b.get(open)?;
        }
        if quote != b'"' && quote != b'\'' {
            return None;
        }
        let value_start = open + 1;
        let mut close = value_stop(self.b, value_start, quote)?;
        if self.b[close] != quote {
            let end = close + memchr(quote, &self.b[close..])?;
            check_value(&self.b[close..end]).ok()?;
            close = end;
        }
        let keep = if self.walk.depth == 0 {
            &self.b[local..name_end] == b"version"
        } else {
            is_media_type(&self.b[from..name_end])
        };
        let value = keep.then(|| self.markup.get(value_start..close)).flatten();
        Some((name_end, close, value))
    }

    /// `<![CDATA[…]]>` (the caller saw `<![`), as quick-xml reads it: anything but a complete CDATA section is
    /// unclosed. Its content is looked at only outside the root (an error) and in a capture.
    #[inline(always)]
    fn cdata(&mut self, at: usize) -> Option<usize> {
        let from = at + 9;
        let gt = if self.b[at..].starts_with(b"<![CDATA[") {
            self.closing(from, b"]]")
        } else {
            None
        };
        let Some(gt) = gt else {
            return self.stop_xml(at, Error::Syntax(SyntaxError::UnclosedCData));
        };
        if self.walk.root != Root::Open || self.walk.capturing() {
            let result = self
                .walk
                .cdata(Cow::Borrowed(&self.markup[from..gt - 2]), at);
            self.walked(result)?;
        }
        Some(gt + 1)
    }

    /// `<!--…-->` (or anything else after `<!` but `[`); a DOCTYPE goes to the exact path. As quick-xml reads
    /// them: after `<!-`, anything but a complete comment is unclosed; after `<!` anything else is invalid.
    #[inline(never)]
    fn bang(&mut self, at: usize) -> Option<usize> {
        match self.b.get(at + 2) {
            Some(b'-') => {
                let gt = if self.b[at..].starts_with(b"<!--") {
                    self.closing(at + 4, b"--")
                } else {
                    None
                };
                let Some(gt) = gt else {
                    return self.stop_xml(at, Error::Syntax(SyntaxError::UnclosedComment));
                };
                // A comment XML 1.0 §2.5 refuses: the exact path reports it.
                if !comment_allowed(&self.b[at + 4..gt - 2]) {
                    return None;
                }
                Some(gt + 1)
            }
            Some(b'D' | b'd') => None,
            _ => self.stop_xml(at, Error::Syntax(SyntaxError::InvalidBangMarkup)),
        }
    }

    /// The first `>` at or after `from + 2` preceded by `tail` (`--` of a comment, `]]` of a CDATA section), as
    /// quick-xml finds it: `>` is rare inside both, so one [`bytescan::find_byte`] per candidate.
    #[inline(always)]
    fn closing(&self, from: usize, tail: &[u8; 2]) -> Option<usize> {
        let mut i = from;
        loop {
            let gt = bytescan::find_byte(self.b, i, b'>')?;
            if gt >= from + 2 && self.b[gt - 2..gt] == *tail {
                return Some(gt);
            }
            i = gt + 1;
        }
    }

    /// `<?target …?>` anywhere, `<?xml …?>` (the declaration) only at the start of the document.
    #[inline(never)]
    fn processing_instruction(&mut self, at: usize) -> Option<usize> {
        let mut from = at + 2;
        let close = loop {
            let gt = from + memchr(b'>', &self.b[from..])?;
            if self.b[gt - 1] == b'?' {
                break gt;
            }
            from = gt + 1;
        };
        // `<?>`: quick-xml wants at least `<??>`.
        if close == at + 2 {
            return None;
        }
        let content = &self.b[at + 2..close - 1];
        let target = content
            .iter()
            .position(|&c| is_space(c))
            .map_or(content, |k| &content[..k]);
        if target.eq_ignore_ascii_case(b"xml") {
            // The declaration: only at the start, its version first (XML 1.0 §2.8); the target `xml` in another
            // case is reserved (§2.6). The exact path reports these.
            if target != b"xml" || at != self.walk.start_offset() || !versioned(&content[3..]) {
                return None;
            }
        }
        Some(close + 1)
    }
}
