//! The fast path of [`inspect`](super::inspect): one forward pass of our own over the markup, `memchr` from
//! one `<` or `&` to the next, driving the same [`Walk`] as quick-xml's events do.
//!
//! It vouches only for documents it can read completely under a strict subset of what the exact path
//! ([`events`](super::events)) accepts, and returns `None` for everything else — any well-formedness violation
//! (unbalanced or mismatched tags, a bad reference or a bare `&`, `<` in an attribute value, a second root, text
//! outside the root, truncation), and constructs it leaves to quick-xml (a DOCTYPE, nesting deeper than
//! [`MAX_DEPTH`], unusual tag syntax such as unquoted or valueless attributes). The caller then runs the exact
//! path, so findings, messages and places are quick-xml's; the fast path never reports a violation itself.
//!
//! What it checks on the way, as the exact path does: start and end tags balanced (a fixed stack of the open
//! elements' names, compared by length and bytes), attribute syntax (`name="value"` / `name='value'`, quick-xml's
//! whitespace) with no `<` in values and well-formed references, references in text (the five predefined
//! entities and character references to a legal `Char`), CDATA sections (`<![CDATA[`…`]]>`), comments
//! (`<!--`…`-->`), processing instructions and the XML declaration (only at the start), one root element and
//! nothing but whitespace, comments and processing instructions around it. Text is looked at only for
//! references, outside the root, and where the walk collects it (`Duration`, `VASTAdTagURI`).

use std::borrow::Cow;

use memchr::{memchr, memchr_iter, memchr2, memchr3};

use super::VastInfo;
use super::walk::{Root, Walk, check_value};

/// Open elements the fast path keeps names for; deeper documents go to the exact path (VAST documents nest
/// about 8 deep).
pub(super) const MAX_DEPTH: usize = 32;

/// Bytes that end an element or attribute name (`true`): quick-xml's XML whitespace, `/`, `>`, and the bytes
/// after which quick-xml would read the tag differently from a plain `name attr="value"` (`<`, quotes, `=`,
/// `&`); and `:`, where the local part of a name may start.
const NAME_END: [bool; 256] = table(b" \t\r\n/><\"'=&:");

/// Bytes that end a double-quoted attribute value or need a closer look in it.
const IN_DOUBLE_QUOTES: [bool; 256] = table(b"\"<&");
/// … a single-quoted one.
const IN_SINGLE_QUOTES: [bool; 256] = table(b"'<&");

const fn table(bytes: &[u8]) -> [bool; 256] {
    let mut t = [false; 256];
    let mut i = 0;
    while i < bytes.len() {
        t[bytes[i] as usize] = true;
        i += 1;
    }
    t
}

/// quick-xml's whitespace inside tags (`is_whitespace`: space, tab, CR, LF).
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// Inspects `markup` on the fast path; `None` when it cannot vouch for the document (see the module docs).
pub(super) fn run(markup: &str) -> Option<VastInfo<'_>> {
    let base = Walk::base(markup);
    let mut scan = Scan {
        markup,
        b: markup.as_bytes(),
        pos: base,
        walk: Walk::new(markup, base),
        open: [(0, 0); MAX_DEPTH],
    };
    scan.document()?;
    Some(scan.walk.finish(Ok(())))
}

struct Scan<'a> {
    markup: &'a str,
    b: &'a [u8],
    /// Next byte to read.
    pos: usize,
    walk: Walk<'a>,
    /// Start and length in the markup of each open element's name (qualified, as written); `walk.depth` used.
    open: [(u32, u32); MAX_DEPTH],
}

impl<'a> Scan<'a> {
    fn document(&mut self) -> Option<()> {
        // Offsets are stored as u32.
        if self.b.len() > u32::MAX as usize {
            return None;
        }
        loop {
            // Tags mostly follow one another directly: look at the next byte before searching.
            if self.b.get(self.pos) == Some(&b'<') {
                self.markup(self.pos)?;
                continue;
            }
            let Some(i) = memchr2(b'<', b'&', &self.b[self.pos..]) else {
                self.text(self.pos, self.b.len())?;
                return self.walk.eof(self.b.len()).ok();
            };
            let at = self.pos + i;
            if at > self.pos {
                self.text(self.pos, at)?;
            }
            if self.b[at] == b'&' {
                self.reference(at)?;
            } else {
                self.markup(at)?;
            }
        }
    }

    /// Character data `start..end`: whitespace only outside the root; collected where the walk wants it.
    fn text(&mut self, start: usize, end: usize) -> Option<()> {
        if self.walk.root != Root::Open {
            return self.b[start..end]
                .iter()
                .all(u8::is_ascii_whitespace)
                .then_some(());
        }
        if self.walk.capturing() {
            self.walk
                .text(Cow::Borrowed(&self.markup[start..end]), start)
                .ok()?;
        }
        Some(())
    }

    /// `&name;` at `at`, in text.
    fn reference(&mut self, at: usize) -> Option<()> {
        let name_start = at + 1;
        let semi = name_start + memchr3(b';', b'&', b'<', &self.b[name_start..])?;
        if self.b[semi] != b';' {
            return None;
        }
        self.walk
            .reference(&self.markup[name_start..semi], at)
            .ok()?;
        self.pos = semi + 1;
        Some(())
    }

    /// Markup starting with the `<` at `at`.
    fn markup(&mut self, at: usize) -> Option<()> {
        match *self.b.get(at + 1)? {
            b'/' => self.end_tag(at),
            b'!' => self.bang(at),
            b'?' => self.processing_instruction(at),
            _ => self.start_tag(at),
        }
    }

    /// End of the name starting at `from` (the first [`NAME_END`] byte, or the end of the markup), and where
    /// its local part starts (after the first `:`, as quick-xml's `local_name`; `from` without one).
    fn name_end(&self, from: usize) -> (usize, usize) {
        let mut local = from;
        let mut i = from;
        loop {
            i += self.b[i..]
                .iter()
                .position(|&c| NAME_END[c as usize])
                .unwrap_or(self.b.len() - i);
            if self.b.get(i) != Some(&b':') {
                return (i, local);
            }
            if local == from {
                local = i + 1;
            }
            i += 1;
        }
    }

    fn skip_space(&self, from: usize) -> usize {
        self.b[from..]
            .iter()
            .position(|&c| !is_space(c))
            .map_or(self.b.len(), |i| from + i)
    }

    /// `</name>` (whitespace allowed before `>`), closing the innermost open element of the same name: its
    /// name's bytes compared in place, then what follows must be whitespace and `>` (anything else makes a
    /// different name, which quick-xml reports as mismatched).
    fn end_tag(&mut self, at: usize) -> Option<()> {
        let start = at + 2;
        let depth = self.walk.depth.checked_sub(1)?;
        let (open_start, open_len) = self.open[depth];
        let (open_start, open_len) = (open_start as usize, open_len as usize);
        let end = start + open_len;
        if self.b.get(start..end)? != &self.b[open_start..open_start + open_len] {
            return None;
        }
        let close = match *self.b.get(end)? {
            b'>' => end,
            c if is_space(c) => self.skip_space(end),
            _ => return None,
        };
        if *self.b.get(close)? != b'>' {
            return None;
        }
        self.walk.end();
        self.pos = close + 1;
        Some(())
    }

    /// `<name attr="value" …>` or `<name … />`.
    fn start_tag(&mut self, at: usize) -> Option<()> {
        let start = at + 1;
        let (end, local) = self.name_end(start);
        if end == start {
            return None;
        }
        let mut version = None;
        let mut p = end;
        let empty = loop {
            match *self.b.get(p)? {
                b'>' => break false,
                b'/' if self.b.get(p + 1) == Some(&b'>') => break true,
                c if is_space(c) => p = self.skip_space(p),
                _ if p == end => return None,
                _ => {
                    let (value_end, value) = self.attribute(p)?;
                    if let Some(v) = value {
                        version = Some(v);
                    }
                    p = value_end + 1;
                }
            }
        };
        let local = &self.markup[local..end];
        let depth = self.walk.depth;
        self.walk.open(local, version, at).ok()?;
        if empty {
            self.walk.end();
            self.pos = p + 2;
        } else {
            *self.open.get_mut(depth)? = (start as u32, (end - start) as u32);
            self.pos = p + 1;
        }
        Some(())
    }

    /// The attribute whose name starts at `from`: the offset of its value's closing quote, and its value when
    /// it is the root's `version` (local name after the first `:`, as quick-xml's `local_name`).
    fn attribute(&self, from: usize) -> Option<(usize, Option<&'a str>)> {
        let (name_end, local) = self.name_end(from);
        if name_end == from {
            return None;
        }
        let eq = self.skip_space(name_end);
        if *self.b.get(eq)? != b'=' {
            return None;
        }
        let open = self.skip_space(eq + 1);
        let quote = *self.b.get(open)?;
        if quote != b'"' && quote != b'\'' {
            return None;
        }
        let value_start = open + 1;
        // Values are short: a byte loop beats two searches.
        let stops = if quote == b'"' {
            &IN_DOUBLE_QUOTES
        } else {
            &IN_SINGLE_QUOTES
        };
        let mut close = value_start
            + self.b[value_start..]
                .iter()
                .position(|&c| stops[c as usize])?;
        if self.b[close] != quote {
            let end = close + memchr(quote, &self.b[close..])?;
            check_value(&self.b[close..end]).ok()?;
            close = end;
        }
        let version = (self.walk.depth == 0 && &self.b[local..name_end] == b"version")
            .then(|| &self.markup[value_start..close]);
        Some((close, version))
    }

    /// `<!--…-->` or `<![CDATA[…]]>`; anything else after `<!` (a DOCTYPE) goes to the exact path.
    fn bang(&mut self, at: usize) -> Option<()> {
        let rest = &self.b[at..];
        if rest.starts_with(b"<!--") {
            let from = at + 4;
            self.pos = self.closing(from, b"--")? + 1;
        } else if rest.starts_with(b"<![CDATA[") {
            let from = at + 9;
            let end = self.closing(from, b"]]")? - 2;
            let text = if self.walk.capturing() {
                &self.markup[from..end]
            } else {
                ""
            };
            if self.walk.root != Root::Open {
                return None;
            }
            if !text.is_empty() {
                self.walk.cdata(Cow::Borrowed(text), at).ok()?;
            }
            self.pos = end + 3;
        } else {
            return None;
        }
        Some(())
    }

    /// The first `>` at or after `from + 2` preceded by `tail` (`--` of a comment, `]]` of a CDATA section), as
    /// quick-xml finds it: `>` is rare inside both, so one `memchr` per candidate.
    fn closing(&self, from: usize, tail: &[u8; 2]) -> Option<usize> {
        memchr_iter(b'>', &self.b[from..])
            .map(|i| from + i)
            .find(|&gt| gt >= from + 2 && &self.b[gt - 2..gt] == tail)
    }

    /// `<?target …?>` anywhere, `<?xml …?>` (the declaration) only at the start of the document.
    fn processing_instruction(&mut self, at: usize) -> Option<()> {
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
        let decl = content.starts_with(b"xml") && content.get(3).is_none_or(|&c| is_space(c));
        if decl && at != self.walk.start_offset() {
            return None;
        }
        self.pos = close + 1;
        Some(())
    }
}
