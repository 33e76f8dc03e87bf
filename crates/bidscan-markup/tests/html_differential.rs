//! The HTML inspector (a `://` search, context read backwards, then the candidate's place read forward by a
//! resumable cursor) against a plain forward reading kept here as the oracle (a `memchr3` walk stopping at every
//! `<`, `=` and `(`, each candidate kept when a byte-by-byte labelling of the whole markup puts it in a URL
//! attribute's value or in CSS): the same `secure`, `scripts` and `first_insecure` on hand-made cases, the
//! corpus's banners, and random HTML-like strings.

use bidscan_markup::html::{self, HtmlInfo};
use memchr::{memchr_iter, memchr3_iter};
use proptest::prelude::*;

mod oracle {
    use super::*;

    /// Inspects HTML markup in one forward pass; never allocates, never panics.
    ///
    /// A URL is insecure when it starts with `http://` (scheme in any case) after the attribute's `=` or after
    /// `url(`, skipping whitespace and one opening quote (`"` or `'`, also `\"` / `\'` as written inside a
    /// JavaScript string such as `document.write('<img src=\"http://…\">')`). Attribute names are matched in any
    /// case, quoted or unquoted values alike. Protocol-relative (`//host/…`) and `https://` URLs are secure.
    /// Markup that is not well-formed HTML is read the same way; there is no error.
    pub fn forward(markup: &str) -> HtmlInfo {
        let b = markup.as_bytes();
        let (labels, starts) = labels(b);
        // A URL attribute's candidate counts at its value's start only (after whitespace).
        let in_url = |at: &usize| {
            matches!(labels[*at], Label::Url | Label::Srcset)
                && b[starts[*at]..*at].iter().all(|&c| is_space(c))
        };
        let in_srcset = |at: &usize| labels[*at] == Label::Srcset && srcset_separator(b, *at);
        let in_css = |at: &usize| matches!(labels[*at], Label::Style | Label::StyleText);
        let mut scripts = 0;
        let mut first_insecure = None;
        for at in memchr3_iter(b'<', b'=', b'(', b) {
            match b[at] {
                b'<' => scripts += usize::from(is_script_tag(&b[at + 1..])),
                b'=' if first_insecure.is_none() && is_url_attribute(&b[..at]) => {
                    first_insecure = insecure_at(b, at + 1).filter(in_url);
                }
                b'(' if first_insecure.is_none() && is_css_url(&b[..at]) => {
                    first_insecure = insecure_at(b, at + 1).filter(in_css);
                }
                _ => {}
            }
        }
        // CSS `@import` with a string (a quote required): every `@import`, any case.
        let imported = (0..b.len())
            .filter(|&at| starts_ci(b, at, b"@import"))
            .find_map(|at| quoted_insecure_at(b, at + 7).filter(in_css));
        let first_insecure = match (first_insecure, imported) {
            (Some(a), Some(c)) => Some(a.min(c)),
            (a, c) => a.or(c),
        };
        // `srcset` candidates after the first: each `,` inside a `srcset` value starts one.
        let after_comma =
            memchr_iter(b',', b).find_map(|at| insecure_at(b, at + 1).filter(in_srcset));
        let first_insecure = match (first_insecure, after_comma) {
            (Some(a), Some(c)) => Some(a.min(c)),
            (a, c) => a.or(c),
        };
        HtmlInfo {
            secure: first_insecure.is_none(),
            scripts,
            first_insecure,
        }
    }

    /// What each byte of the markup is, for loading resources.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Label {
        Text,
        /// CSS text of a `<style>` element.
        StyleText,
        Comment,
        /// Inside a start tag, not in a value.
        Tag,
        /// The value of `src`, `href` or `xlink:href`.
        Url,
        /// The value of `srcset`.
        Srcset,
        /// The value of `style`.
        Style,
        /// The value of any other attribute.
        Other,
    }

    fn starts_ci(b: &[u8], at: usize, word: &[u8]) -> bool {
        b.len() >= at + word.len() && b[at..at + word.len()].eq_ignore_ascii_case(word)
    }

    /// Every byte labelled, reading the markup once from its start, byte by byte, with the start of the value
    /// each value byte belongs to (`usize::MAX` outside values): `<!--` to `-->` or `--!>` a comment (`<!-->`,
    /// `<!--->` empty ones), `<` and a letter a start tag (name; attributes: a name up to whitespace, `/`, `>` or
    /// `=`, then optionally `=` and a value quoted by `"`/`'` (or `\\"`/`\\'`) or unquoted up to whitespace or
    /// `>`), after `<style>` CSS up to `</style`, after `<script>` text up to `</script` in which start tags are
    /// read (cut off at the `</script`) and a `<style>` tag starts CSS up to `</style` or `</script`, after
    /// `<textarea>`, `<title>`, `<xmp>`, `<noembed>` or `<noframes>` text up to its end tag; everything else
    /// text. Unterminated constructs run to the end.
    fn labels(b: &[u8]) -> (Vec<Label>, Vec<usize>) {
        let n = b.len();
        let mut out = vec![Label::Text; n];
        let mut starts = vec![usize::MAX; n];
        // The element whose text is being read ("" for markup); in a script, whether a written `<style>` is open
        // and where the script ends.
        let mut element: &[u8] = b"";
        let mut written_style = false;
        let mut script_end = n;
        let mut i = 0;
        while i < n {
            let css = element == b"style" || written_style;
            let here = if css { Label::StyleText } else { Label::Text };
            if b[i] != b'<' {
                out[i] = here;
                i += 1;
                continue;
            }
            let next_is_letter = b.get(i + 1).is_some_and(u8::is_ascii_alphabetic);
            if !element.is_empty() {
                let end_tag = [&b"</"[..], element].concat();
                if starts_ci(b, i, &end_tag) {
                    (element, written_style) = (b"", false);
                    out[i] = Label::Text;
                    i += 1;
                    continue;
                }
                if written_style && starts_ci(b, i, b"</style") {
                    written_style = false;
                    out[i] = here;
                    i += 1;
                    continue;
                }
                if element != b"script" || written_style || !next_is_letter {
                    out[i] = here;
                    i += 1;
                    continue;
                }
                // A start tag inside a script: read below, up to the script's end at most.
            } else if starts_ci(b, i, b"<!--") {
                let end = if starts_ci(b, i + 4, b">") {
                    i + 5
                } else if starts_ci(b, i + 4, b"->") {
                    i + 6
                } else {
                    (i + 4..n)
                        .find_map(|k| {
                            if starts_ci(b, k, b"-->") {
                                Some(k + 3)
                            } else if starts_ci(b, k, b"--!>") {
                                Some(k + 4)
                            } else {
                                None
                            }
                        })
                        .unwrap_or(n)
                };
                for label in &mut out[i..end] {
                    *label = Label::Comment;
                }
                i = end;
                continue;
            } else if !next_is_letter {
                out[i] = Label::Text;
                i += 1;
                continue;
            }
            // A start tag at `i`, read up to `end` at most.
            let in_script = element == b"script";
            let end = if in_script { script_end } else { n };
            let mut j = i + 1;
            while j < end && !(is_space(b[j]) || b[j] == b'/' || b[j] == b'>') {
                j += 1;
            }
            let name = b[i + 1..j].to_ascii_lowercase();
            let mut values = Vec::new();
            let mut closed = false;
            loop {
                while j < end && (is_space(b[j]) || b[j] == b'/') {
                    j += 1;
                }
                if j >= end {
                    break;
                }
                if b[j] == b'>' {
                    j += 1;
                    closed = true;
                    break;
                }
                let name_start = j;
                j += 1;
                while j < end && !(is_space(b[j]) || matches!(b[j], b'/' | b'>' | b'=')) {
                    j += 1;
                }
                let attribute = b[name_start..j].to_ascii_lowercase();
                let mut q = j;
                while q < end && is_space(b[q]) {
                    q += 1;
                }
                if q >= end || b[q] != b'=' {
                    continue;
                }
                q += 1;
                while q < end && is_space(b[q]) {
                    q += 1;
                }
                if q < end && b[q] == b'\\' && matches!(b.get(q + 1), Some(b'"' | b'\'')) {
                    q += 1;
                }
                let label = match &attribute[..] {
                    b"src" | b"href" | b"xlink:href" | b"poster" | b"background" => Label::Url,
                    b"srcset" | b"imagesrcset" => Label::Srcset,
                    b"style" => Label::Style,
                    _ => Label::Other,
                };
                if q < end && matches!(b[q], b'"' | b'\'') {
                    let close = (q + 1..end).find(|&k| b[k] == b[q]).unwrap_or(end);
                    values.push((q + 1, close, label));
                    j = (close + 1).min(end);
                } else {
                    let close = (q..end)
                        .find(|&k| is_space(b[k]) || b[k] == b'>')
                        .unwrap_or(end);
                    values.push((q, close, label));
                    j = close;
                }
            }
            let j = j.min(end);
            for label in &mut out[i..j] {
                *label = Label::Tag;
            }
            for (from, to, label) in values {
                for k in from..to.min(n) {
                    out[k] = label;
                    starts[k] = from;
                }
            }
            if closed && in_script && name == b"style" {
                written_style = true;
            } else if closed && element.is_empty() {
                const RAW: [&[u8]; 7] = [
                    b"script",
                    b"style",
                    b"textarea",
                    b"title",
                    b"xmp",
                    b"noembed",
                    b"noframes",
                ];
                if let Some(raw) = RAW.iter().find(|r| **r == &name[..]) {
                    element = raw;
                    if element == b"script" {
                        script_end = (j..n).find(|&k| starts_ci(b, k, b"</script")).unwrap_or(n);
                    }
                }
            }
            i = j;
        }
        (out, starts)
    }

    /// The comma before the candidate at `at` separates two `srcset` candidates: whitespace after it, or
    /// whitespace before it followed only by a short descriptor (a URL runs to the next whitespace).
    fn srcset_separator(b: &[u8], at: usize) -> bool {
        let mut k = at;
        while k > 0 && is_space(b[k - 1]) {
            k -= 1;
        }
        if k < at {
            return true;
        }
        let comma = k - 1;
        let from = comma.saturating_sub(18);
        let mut d = comma;
        while d > from
            && (b[d - 1].is_ascii_digit() || matches!(b[d - 1], b'.' | b'x' | b'w' | b'h'))
        {
            d -= 1;
        }
        d < comma && d > from && is_space(b[d - 1])
    }

    /// `rest` follows a `<`: true for `script` (any case) ended by whitespace, `>` or `/`.
    fn is_script_tag(rest: &[u8]) -> bool {
        rest.len() > 6
            && rest[..6].eq_ignore_ascii_case(b"script")
            && matches!(
                rest[6],
                b'>' | b'/' | b' ' | b'\t' | b'\n' | b'\r' | b'\x0c'
            )
    }

    /// `before` ends just before an `=`: true when the attribute name there (whitespace allowed before the `=`)
    /// is a URL attribute or a candidate list (`src`, `href`, `srcset`, `xlink:href`, `poster`, `background`,
    /// `imagesrcset`), in any case, and is a whole name (`data-src` is not `src`).
    fn is_url_attribute(before: &[u8]) -> bool {
        let end = before.len() - trailing(before, is_space);
        let name_start = end - trailing(&before[..end], is_name_byte);
        let name = &before[name_start..end];
        [
            &b"src"[..],
            b"href",
            b"srcset",
            b"xlink:href",
            b"poster",
            b"background",
            b"imagesrcset",
        ]
        .iter()
        .any(|n| name.eq_ignore_ascii_case(n))
    }

    /// `before` ends just before a `(`: true when it ends with `url` (any case) not preceded by a CSS identifier
    /// byte (so `background:url(` counts, `myurl(` does not).
    fn is_css_url(before: &[u8]) -> bool {
        let n = before.len();
        n >= 3
            && before[n - 3..].eq_ignore_ascii_case(b"url")
            && (n == 3
                || !(before[n - 4].is_ascii_alphanumeric() || matches!(before[n - 4], b'-' | b'_')))
    }

    /// The URL value starting at `from` (after `=` or `(`): its offset when it starts with `http://`.
    fn insecure_at(b: &[u8], from: usize) -> Option<usize> {
        let mut i = skip(b, from, is_space);
        const ENTITIES: [&str; 6] = ["&quot;", "&#34;", "&#x22;", "&#39;", "&#x27;", "&apos;"];
        if b.get(i) == Some(&b'\\') && matches!(b.get(i + 1), Some(b'"' | b'\'')) {
            i += 2;
        } else if matches!(b.get(i), Some(b'"' | b'\'')) {
            i += 1;
        } else if let Some(e) = ENTITIES.iter().find(|e| starts_ci(b, i, e.as_bytes())) {
            i += e.len();
        }
        i = skip(b, i, is_space);
        // `http:` and two slashes, either of them written as a backslash (the URL parser's reading).
        let url = b.get(i..i + 7)?;
        (url[..5].eq_ignore_ascii_case(b"http:")
            && url[5..].iter().all(|&c| c == b'/' || c == b'\\'))
        .then_some(i)
    }

    /// [`insecure_at`] for a value that must open with a quote (a CSS string after `@import`).
    fn quoted_insecure_at(b: &[u8], from: usize) -> Option<usize> {
        let i = skip(b, from, is_space);
        const QUOTES: [&str; 10] = [
            "\\\"", "\\'", "\"", "'", "&quot;", "&#34;", "&#x22;", "&#39;", "&#x27;", "&apos;",
        ];
        QUOTES
            .iter()
            .any(|q| starts_ci(b, i, q.as_bytes()))
            .then(|| insecure_at(b, i))
            .flatten()
    }

    fn is_space(c: u8) -> bool {
        matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')
    }

    /// Bytes of an attribute or function name: ASCII letters, digits, `-`, `_`, `:` (as in `xlink:href`).
    fn is_name_byte(c: u8) -> bool {
        c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b':')
    }

    /// Number of trailing bytes of `s` that satisfy `f`.
    fn trailing(s: &[u8], f: fn(u8) -> bool) -> usize {
        s.iter().rev().take_while(|&&c| f(c)).count()
    }

    /// First index at or after `from` whose byte does not satisfy `f` (or `b.len()`).
    fn skip(b: &[u8], from: usize, f: fn(u8) -> bool) -> usize {
        from + b
            .get(from..)
            .map_or(0, |s| s.iter().take_while(|&&c| f(c)).count())
    }
}

fn agrees(markup: &str) -> HtmlInfo {
    let info = html::inspect(markup);
    assert_eq!(info, oracle::forward(markup), "{markup:?}");
    info
}

#[test]
fn hand_made_cases_agree() {
    let cases = [
        "<img src=\"http://a/b.png\">",
        "<img src = ' \t http://a/b.png'>",
        "<a HREF=HTTP://a/>",
        "<div style=\"background:url( 'http://a/bg.png' )\">",
        "<div style=\"x:myurl(http://a)\">",
        "<div style=\"x:-url(http://a)\">",
        "url(http://a)",
        "=http://a",
        "src=http://",
        "src=http:/",
        "<script>document.write('<img src=\\\"http://a/p.gif\\\">');</script>",
        "<img src=\\'http://a'>",
        "<img src=x\\\"http://a\">",
        "<img src=\" \" http://a\">",
        "<img src=\"\"http://a\">",
        "<img data-src=\"http://a\" src=\"https://b\">",
        "<a href=\"https://a/?r=http://b\">",
        "<img srcset=\"https://a 1x, http://b 2x\">",
        "<img srcset='http://a 1x'>",
        "<img alt=\"a, http://b\">",
        "<a xlink:href=\"http://a\">",
        "<script>document.write(\"<img src=\\\"http:\\/\\/a\\\">\")</script>",
        "<img src='http:\\\\a'>",
        "<video poster=\"http://a\" src=\"https://b\">",
        "<td background=http://a>",
        "<link imagesrcset=\"https://a 1x, http://b 2x\">",
        "<style>@import \"http://a\";</style>",
        "<style>@import http://a;</style>",
        "<p>@import 'http://a'</p>",
        "<div style=\"@import &quot;http://a&quot;\">",
        "<script>document.write('<style>@import \\'http://a\\'</style>')</script>",
        "<p>http://text</p><a href='https://x'>",
        "<img src=\"https://a\"><img src=\"http://b\"><img src=\"http://c\">",
        "<SCRIPT src=x></SCRIPT><script/><scripts><script",
        "://",
        "http://",
        "",
        "<img title=\"a href=http://x\" src=\"https://y\">",
        "<img alt=\"src=http://x\"><img src=http://y>",
        "<!-- <img src=\"http://x\"> --><p>src=http://y</p>",
        "<style>.a{background:url(http://x)}</style>url(http://y)",
        "<div class=\"url(http://x)\" style='b:url(http://y)'>",
        "<img src=\"http://x",
        "<img src",
        "<!--",
    ];
    for m in cases {
        agrees(m);
    }
    assert!(!agrees("<img src=\"http://a/b.png\">").secure);
    assert!(agrees("<a href=\"https://a/?r=http://b\">").secure);
}

#[test]
fn the_corpus_banners_agree() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpus/bid-responses");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        // The whole JSON text is HTML-like enough: its escaped markup holds every construct of the banners.
        agrees(&text);
        agrees(&text.replace("https://", "http://"));
        agrees(&text.replace("\\\"", "\""));
        n += 1;
    }
    assert!(n >= 20);
}

fn htmlish() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("<"),
            Just(">"),
            Just("="),
            Just("("),
            Just(")"),
            Just("\""),
            Just("'"),
            Just("\\"),
            Just(" "),
            Just("\t"),
            Just("src"),
            Just("SRC"),
            Just("srcset"),
            Just(","),
            Just(", "),
            Just("href"),
            Just("data-src"),
            Just("url"),
            Just("-"),
            Just(":"),
            Just("http"),
            Just("HTTP"),
            Just("https"),
            Just("://"),
            Just("http://"),
            Just("//"),
            Just("script"),
            Just("<script>"),
            Just("x"),
            Just("é"),
            Just("<!--"),
            Just("-->"),
            Just("<style>"),
            Just("</style>"),
            Just("style"),
            Just("alt"),
            Just("/"),
            Just("<img "),
            Just("<p>"),
            Just("<script>"),
            Just("</script>"),
            Just("<textarea>"),
            Just("</textarea>"),
            Just("--!>"),
            Just("&quot;"),
            Just("xlink:href"),
            Just("poster"),
            Just("BACKGROUND"),
            Just("imagesrcset"),
            Just("@import"),
            Just("@import \""),
            Just("http:\\/\\/"),
            Just("\\"),
        ],
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(5000))]

    #[test]
    fn random_html_like_strings_agree(text in htmlish()) {
        agrees(&text);
    }

    #[test]
    fn random_strings_agree(text in "\\PC{0,120}") {
        agrees(&text);
    }
}
