//! [`Cursor`]: where a byte of HTML markup stands — in text, in a comment, in a tag, or in an attribute's value
//! (and which attribute's) — read forward, once, over the whole markup however many places are asked about.
//!
//! A simplified form of HTML's tokenizer (HTML Living Standard §13.2.5): text until a `<` followed by a letter
//! (a start tag); comments from `<!--` to `-->` or `--!>` (`<!-->` and `<!--->` are empty ones); a start tag's
//! attributes (name, optional `=`, a value quoted with `"` or `'` — also `\"`/`\'`, as written inside a
//! JavaScript string that writes markup — or unquoted until whitespace or `>`); and the text of the elements whose
//! content is not markup (§13.1.2, raw text and escapable raw text): a `<style>` element's CSS until `</style`,
//! a `<script>`'s text until `</script` — in which the tags JavaScript writes (`document.write('<img src=…>')`)
//! are still read, but neither a `<!--` nor a written `<style>` changes anything — and `<textarea>`, `<title>`,
//! `<xmp>`, `<noembed>`, `<noframes>` text until their end tag. End tags, `<!DOCTYPE>` and a `<` that opens
//! nothing are text. It never fails: unterminated comments, tags and values run to the end.
//!
//! [`super::inspect`] asks only about candidate `http://` URLs (rare in secure markup), in increasing order; the
//! cursor resumes where the last question left it, so the markup is read at most once in all (no quadratic
//! re-reading on hostile markup with many candidates), and not at all when there is no candidate.

use bidscan_json::bytescan;

use super::is_space;

/// The attribute a value belongs to, as far as loading resources goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Attribute {
    /// `src`, `href` or `xlink:href` (any case): its value is loaded or linked.
    Url,
    /// `srcset` (any case): a list of candidate URLs, each loaded.
    Srcset,
    /// `style` (any case): CSS, whose `url(...)` is loaded.
    Style,
    /// Any other attribute (`alt`, `title`, `class`, `data-src`, …): text.
    Other,
}

/// Where an asked-about byte stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Place {
    /// Text outside any tag; `style` when inside a `<style>` element's CSS.
    Text { style: bool },
    /// Inside a `<!-- … -->` comment.
    Comment,
    /// Inside a start tag but not in an attribute's value (its name, or between attributes).
    Tag,
    /// Inside the value of an attribute.
    Value(Attribute),
}

/// What text is read as (HTML Living Standard §13.1.2's kinds of element content).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Markup: tags and comments.
    Html,
    /// A `<script>`'s text, until `</script`: tags in it are read (each cut off at the `</script`), and a
    /// `<style>` written in it is CSS until `</style` or the `</script` ([`Mode::ScriptStyle`]); nothing else
    /// changes the mode.
    Script,
    /// CSS a script writes (`document.write('<style>…</style>')`), until `</style` or `</script`.
    ScriptStyle,
    /// A `<style>`'s CSS, until `</style`.
    Style,
    /// The text of an element whose content is not markup, until `</` and the name.
    Opaque(&'static [u8]),
}

/// The elements read as [`Mode::Opaque`] (`script` and `style` have modes of their own).
const OPAQUE: [&[u8]; 5] = [b"textarea", b"title", b"xmp", b"noembed", b"noframes"];

#[derive(Clone, Copy, Debug)]
enum State {
    /// In text read as `mode`.
    Text { mode: Mode },
    /// In a comment that ends at `end` (just after its `-->`, or the markup's end).
    Comment { end: usize },
    /// In a start tag, at an attribute boundary; `next`: the mode of the text after its `>`; `limit`: where the
    /// tag is cut off at the latest (a tag a script writes ends at the script's `</script`; `usize::MAX` else).
    Tag { next: Mode, limit: usize },
    /// In an attribute's value, which starts at `start` and ends at `end` (exclusive); reading resumes at
    /// `resume`.
    Value {
        attribute: Attribute,
        start: usize,
        end: usize,
        resume: usize,
        next: Mode,
        limit: usize,
    },
}

/// A forward reader of one markup (see the module docs). Create one per markup; ask in increasing order.
pub(super) struct Cursor {
    /// Where reading resumes.
    pos: usize,
    state: State,
    /// The first `<` at or after `pos` when it was last looked for (`usize::MAX`: none to the end; `None`: not
    /// looked for yet), so that many questions about one long text look for its end once.
    next_lt: Option<usize>,
    /// In a script: where its `</script` is (the markup's length when it has none).
    script_end: usize,
}

impl Cursor {
    pub(super) fn new() -> Cursor {
        Cursor {
            pos: 0,
            state: State::Text { mode: Mode::Html },
            next_lt: None,
            script_end: usize::MAX,
        }
    }

    /// Where byte `target` of `b` stands. `target` must not be below the previous call's (the answer is then
    /// still defined, but may describe a later byte).
    pub(super) fn place(&mut self, b: &[u8], target: usize) -> Place {
        loop {
            match self.state {
                State::Comment { end } => {
                    if target < end {
                        return Place::Comment;
                    }
                    (self.pos, self.state) = (end, State::Text { mode: Mode::Html });
                }
                State::Value {
                    attribute,
                    end,
                    resume,
                    next,
                    limit,
                    ..
                } => {
                    if target < end {
                        return Place::Value(attribute);
                    }
                    (self.pos, self.state) = (resume, State::Tag { next, limit });
                }
                State::Text { mode } => {
                    let next_lt = match self.next_lt {
                        Some(lt) if lt >= self.pos => lt,
                        _ => bytescan::find_byte(b, self.pos, b'<').unwrap_or(usize::MAX),
                    };
                    self.next_lt = Some(next_lt);
                    let Some(lt) = Some(next_lt).filter(|&lt| lt < target) else {
                        // No `<` before the target: it is in this text (and so is everything up to it).
                        self.pos = self.pos.max(target);
                        return Place::Text {
                            style: matches!(mode, Mode::Style | Mode::ScriptStyle),
                        };
                    };
                    self.open(b, lt, mode);
                }
                State::Tag { next, limit } => {
                    if let Some(place) = self.attribute(b, target, next, limit) {
                        return place;
                    }
                }
            }
        }
    }

    /// Whether the last [`place`](Self::place) answer was an attribute's value and `at` is where that value
    /// starts, after whitespace only (a URL at `src="http://…`, not a `?src=http://…` parameter inside one).
    pub(super) fn starts_value(&self, b: &[u8], at: usize) -> bool {
        match self.state {
            State::Value { start, .. } => start <= at && b[start..at].iter().all(|&c| is_space(c)),
            _ => false,
        }
    }

    /// At a `<` (byte `lt`) in text read as `mode`: a comment, the end of the element whose text it is, a start
    /// tag, or text.
    fn open(&mut self, b: &[u8], lt: usize, mode: Mode) {
        let rest = &b[lt + 1..];
        let closes = |name: &[u8]| {
            rest.len() > name.len()
                && rest[0] == b'/'
                && rest[1..=name.len()].eq_ignore_ascii_case(name)
        };
        let text = |mode| (lt + 1, State::Text { mode });
        (self.pos, self.state) = match mode {
            Mode::Style if closes(b"style") => text(Mode::Html),
            Mode::Script | Mode::ScriptStyle if closes(b"script") => text(Mode::Html),
            Mode::ScriptStyle if closes(b"style") => text(Mode::Script),
            Mode::Opaque(name) if closes(name) => text(Mode::Html),
            Mode::Style | Mode::ScriptStyle | Mode::Opaque(_) => text(mode),
            Mode::Html if rest.starts_with(b"!--") => (
                lt,
                State::Comment {
                    end: comment_end(b, lt),
                },
            ),
            Mode::Html | Mode::Script if rest.first().is_some_and(u8::is_ascii_alphabetic) => {
                let name_end = lt
                    + 1
                    + rest
                        .iter()
                        .position(|&c| is_space(c) || c == b'/' || c == b'>')
                        .unwrap_or(rest.len());
                let name = &b[lt + 1..name_end];
                let (next, limit) = match mode {
                    // A tag written by JavaScript: the script goes on after it, and ends at its `</script`
                    // whatever the tag's text looks like (`if(i<n){…}</script>` is no tag's attribute).
                    Mode::Script if name.eq_ignore_ascii_case(b"style") => {
                        (Mode::ScriptStyle, self.script_end)
                    }
                    Mode::Script => (Mode::Script, self.script_end),
                    _ => (mode_after(name), usize::MAX),
                };
                (name_end, State::Tag { next, limit })
            }
            Mode::Html | Mode::Script => text(mode),
        };
    }

    /// In a start tag at `self.pos`: reads the next attribute (or the tag's `>`), moving the state on; answers
    /// when `target` lies before the attribute's value (in the tag itself), else `None` (ask the new state).
    fn attribute(&mut self, b: &[u8], target: usize, next: Mode, limit: usize) -> Option<Place> {
        let whole = b.len();
        // A tag a script writes is read up to the script's end, no further.
        let b = &b[..limit.min(whole)];
        let mut p = self.pos;
        while p < b.len() && (is_space(b[p]) || b[p] == b'/') {
            p += 1;
        }
        if p < b.len() && b[p] == b'>' {
            if next == Mode::Script && limit == usize::MAX {
                // A `<script>` start tag: its text ends at the first `</script` after it.
                self.script_end = script_end(b, p + 1);
            }
            (self.pos, self.state) = (p + 1, State::Text { mode: next });
            return (target <= p).then_some(Place::Tag);
        }
        if p >= b.len() {
            self.pos = b.len();
            if b.len() < whole {
                // A written tag cut off by the script's `</script`: the script's text reads on from there.
                self.state = State::Text { mode: Mode::Script };
                return (target < b.len()).then_some(Place::Tag);
            }
            // A tag cut off by the end of the markup.
            return Some(Place::Tag);
        }
        // The name: up to whitespace, `/`, `>` or `=` (an `=` first is part of the name, as in HTML).
        let name_start = p;
        p += 1;
        while p < b.len() && !(is_space(b[p]) || matches!(b[p], b'/' | b'>' | b'=')) {
            p += 1;
        }
        let attribute = kind(&b[name_start..p]);
        let mut q = p;
        while q < b.len() && is_space(b[q]) {
            q += 1;
        }
        if q >= b.len() || b[q] != b'=' {
            // No value: the next attribute starts at `p`.
            self.pos = p;
            return (target < p).then_some(Place::Tag);
        }
        q += 1;
        while q < b.len() && is_space(b[q]) {
            q += 1;
        }
        if q < b.len() && b[q] == b'\\' && matches!(b.get(q + 1), Some(b'"' | b'\'')) {
            q += 1;
        }
        let (start, end, resume) = match b.get(q) {
            Some(&quote @ (b'"' | b'\'')) => {
                let end = bytescan::find_byte(b, q + 1, quote).unwrap_or(b.len());
                (q + 1, end, (end + 1).min(b.len()))
            }
            _ => {
                let end = (q..b.len())
                    .find(|&i| is_space(b[i]) || b[i] == b'>')
                    .unwrap_or(b.len());
                (q, end, end)
            }
        };
        self.state = State::Value {
            attribute,
            start,
            end,
            resume,
            next,
            limit,
        };
        self.pos = start;
        (target < start).then_some(Place::Tag)
    }
}

/// What an attribute named `name` holds (the one list of URL attributes: [`super::inspect`]'s backward reading
/// asks it too).
///
/// URLs a browser loads or links from an attribute (HTML Living Standard): `src`, `href`, SVG's `xlink:href`,
/// `<video poster>`, the legacy `background` of `<body>`, `<table>` and its cells (still loaded); candidate
/// lists: `srcset` and `<link imagesrcset>`.
pub(super) fn kind(name: &[u8]) -> Attribute {
    if name.eq_ignore_ascii_case(b"src")
        || name.eq_ignore_ascii_case(b"href")
        || name.eq_ignore_ascii_case(b"xlink:href")
        || name.eq_ignore_ascii_case(b"poster")
        || name.eq_ignore_ascii_case(b"background")
    {
        Attribute::Url
    } else if name.eq_ignore_ascii_case(b"srcset") || name.eq_ignore_ascii_case(b"imagesrcset") {
        Attribute::Srcset
    } else if name.eq_ignore_ascii_case(b"style") {
        Attribute::Style
    } else {
        Attribute::Other
    }
}

/// Where the `</script` (any case) at or after `from` is; the markup's length when there is none.
fn script_end(b: &[u8], from: usize) -> usize {
    let mut at = from;
    while let Some(lt) = bytescan::find_byte(b, at, b'<') {
        if b.len() > lt + 7
            && b[lt + 1] == b'/'
            && b[lt + 2..lt + 8].eq_ignore_ascii_case(b"script")
        {
            return lt;
        }
        at = lt + 1;
    }
    b.len()
}

/// The mode of the text after a start tag named `name` (in markup).
fn mode_after(name: &[u8]) -> Mode {
    if name.eq_ignore_ascii_case(b"script") {
        Mode::Script
    } else if name.eq_ignore_ascii_case(b"style") {
        Mode::Style
    } else {
        OPAQUE
            .iter()
            .find(|o| name.eq_ignore_ascii_case(o))
            .map_or(Mode::Html, |o| Mode::Opaque(o))
    }
}

/// Just past the end of the comment opened at `lt` (`<!--`): after `<!-->`, `<!--->`, the first `-->` or `--!>`,
/// or the markup's end. Reads the comment once (each `--` in it is looked at once).
fn comment_end(b: &[u8], lt: usize) -> usize {
    let after = &b[lt + 4..];
    if after.starts_with(b">") {
        return lt + 5;
    }
    if after.starts_with(b"->") {
        return lt + 6;
    }
    let mut from = 0;
    while let Some(at) = memchr::memmem::find(&after[from..], b"--") {
        let dashes = from + at;
        match after.get(dashes + 2) {
            Some(b'>') => return lt + 4 + dashes + 3,
            Some(b'!') if after.get(dashes + 3) == Some(&b'>') => return lt + 4 + dashes + 4,
            _ => from = dashes + 1,
        }
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The place of the first byte of `needle` in `markup`.
    fn place_of(markup: &str, needle: &str) -> Place {
        let at = markup.find(needle).expect("needle in markup");
        Cursor::new().place(markup.as_bytes(), at)
    }

    #[test]
    fn values_of_url_and_style_attributes() {
        use Attribute::*;
        for (m, want) in [
            (r#"<img src="http://x">"#, Place::Value(Url)),
            ("<IMG SRC=http://x>", Place::Value(Url)),
            ("<img alt='a' Href = 'http://x'>", Place::Value(Url)),
            (
                r#"<div style="background:url(http://x)">"#,
                Place::Value(Style),
            ),
            (
                r#"<img title="a href=http://x" src="https://y">"#,
                Place::Value(Other),
            ),
            (
                r#"document.write('<img src=\"http://x\">')"#,
                Place::Value(Url),
            ),
            (r#"<img data-src="http://x">"#, Place::Value(Other)),
            ("<img src=a http://x>", Place::Tag),
        ] {
            assert_eq!(place_of(m, "http://x"), want, "{m}");
        }
    }

    #[test]
    fn text_comments_and_style_elements() {
        for (m, want) in [
            ("<p>src=http://x</p>", Place::Text { style: false }),
            ("src=http://x", Place::Text { style: false }),
            ("<!-- <img src=\"http://x\"> -->", Place::Comment),
            ("<!-- a --><img src=http://x>", Place::Value(Attribute::Url)),
            (
                "<style>a{b:url(http://x)}</style>",
                Place::Text { style: true },
            ),
            (
                "<style>a</style>url(http://x)",
                Place::Text { style: false },
            ),
            (
                "<STYLE type=text/css>a{b:url(http://x)}",
                Place::Text { style: true },
            ),
            ("</p> 3<4 src=http://x", Place::Text { style: false }),
        ] {
            assert_eq!(place_of(m, "http://x"), want, "{m}");
        }
    }

    /// Asked in increasing order, the cursor answers as a fresh one asked once; unterminated constructs run to
    /// the end.
    #[test]
    fn one_cursor_answers_as_fresh_ones() {
        let m = r#"<a href="http://a" title='src=http://b'>src=http://c<!-- http://d --><img src=http://e <style>url(http://f)"#;
        let b = m.as_bytes();
        let mut cursor = Cursor::new();
        for (at, _) in m.match_indices("http://") {
            assert_eq!(cursor.place(b, at), Cursor::new().place(b, at), "at {at}");
        }
        for m in [
            "<img src=\"http://x",
            "<!-- http://x",
            "<img ",
            "<img src",
            "<",
            "<img src=\\",
        ] {
            for at in 0..m.len() {
                let _ = Cursor::new().place(m.as_bytes(), at);
            }
        }
    }
}
