//! HTML (display) markup: secure or not, and how many scripts.
//!
//! An exchange serving a secure page (`imp.secure = 1`, OpenRTB 2.6 §3.2.4) needs every resource of the ad
//! loaded over HTTPS; prebid-server rejects or flags bids whose markup is not secure. [`inspect`] finds the
//! first `http://` URL the markup *loads or links*: the value of a `src`, `href`, `xlink:href`, `poster` or
//! `background` attribute, any candidate of a `srcset` or `imagesrcset` (HTML's responsive images:
//! `"a.png 1x, b.png 2x"`), or the argument of a CSS `url(...)` or the string of an `@import` in a `style`
//! attribute or a `<style>` element. An `http://` that is only text does not count: a comment, prose, a
//! click-tracker query parameter, or another attribute's value (`alt="src=http://…"`, `class="url(http://…)"`).
//!
//! `context.rs` (`context::Cursor`) reads the markup forward to tell a tag's attribute values from text.

mod context;

use bidscan_json::bytescan::{self, Pair};
use context::{Attribute, Cursor, Place};

/// `<s` / `<S`: where a `<script` tag may start.
const SCRIPT: Pair = Pair {
    first: b'<',
    second: [b's', b'S'],
};

/// `:/` or `:\`: where the `://` of a candidate URL may start (the third byte is checked after). A backslash is
/// a slash to the URL parser in an `http` URL (URL Living Standard §4.4, "special" schemes), and `http:\/\/` is
/// how a JSON or JavaScript string escapes `http://`; a browser loads each as `http://`.
const SCHEME: Pair = Pair {
    first: b':',
    second: [b'/', b'\\'],
};

/// What [`inspect`] found in a piece of HTML markup.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct HtmlInfo {
    /// True when no URL attribute (`src`, `href`, `xlink:href`, `poster`, `background`), `srcset`/`imagesrcset`
    /// candidate, CSS `url(...)` or `@import` string uses `http://`: exactly `first_insecure.is_none()`.
    pub secure: bool,
    /// Number of `<script` start tags (any case), inline or with a `src`.
    pub scripts: usize,
    /// Byte offset into the markup of the first insecure URL (where its `http://` starts), if any.
    pub first_insecure: Option<usize>,
}

/// Inspects HTML markup in one forward pass over the places where `<s`/`<S` (a script) or `://` (a URL)
/// start ([`bytescan::find_pairs`]); never allocates, never
/// panics.
///
/// A URL is insecure when it starts with `http://` (scheme in any case) after the attribute's `=`, after
/// `url(` or (quoted) after `@import`, skipping whitespace and one opening quote (`"` or `'`, also `\"` / `\'`
/// as written inside a JavaScript string such as `document.write('<img src=\"http://…\">')`); the `//` may be
/// written with backslashes (`http:\/\/`, `http:\\`: see [`http_url_at`]). Attribute names are matched in any
/// case, quoted or unquoted values alike. Protocol-relative (`//host/…`) and `https://` URLs are secure.
/// Markup that is not well-formed HTML is read the same way; there is no error.
///
/// Only an `http://` can make markup insecure, so the URL pass visits each `://` and reads the context before
/// it backwards (the `http`, the quote and whitespace, the `=` or `(`, the attribute name or `url`), instead
/// of stopping at every `=` and `(` of the markup (query strings are full of `=`).
pub fn inspect(markup: &str) -> HtmlInfo {
    let b = markup.as_bytes();
    let mut scripts = 0;
    let mut first_insecure = None;
    let mut from = 0;
    // Made at the first candidate only: secure markup is never read by it.
    let mut cursor: Option<Cursor> = None;
    while let Some(at) = bytescan::find_pairs(b, from, [SCRIPT, SCHEME]) {
        from = at + 1;
        if b[at] == b'<' {
            scripts += usize::from(is_script_tag(&b[at + 1..]));
        } else if first_insecure.is_none()
            && let Some(start) = at.checked_sub(4)
            && http_url_at(b, start)
            && let Some(trigger) = loaded_at(b, start)
            && trigger.confirmed(cursor.get_or_insert_with(Cursor::new), b, start)
        {
            first_insecure = Some(start);
        }
    }
    HtmlInfo {
        secure: first_insecure.is_none(),
        scripts,
        first_insecure,
    }
}

/// Whether `b` holds at `at` an `http` URL's start: `http:` (scheme in any case), then two bytes that are each
/// `/` or `\` (`//`, `\/\/`, `\\`), what the URL parser reads as the `//` before the host (see `SCHEME`).
/// Shared with bidscan-openrtb's `secure` rule, which reads VAST, native and the bid's URLs the same way.
pub fn http_url_at(b: &[u8], at: usize) -> bool {
    b.get(at..at + 7).is_some_and(|s| {
        s[..5].eq_ignore_ascii_case(b"http:") && matches!(s[5..], [b'/' | b'\\', b'/' | b'\\'])
    })
}

/// What the bytes before a candidate `http://` make of it (read backwards by [`loaded_at`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Trigger {
    /// After a URL attribute's `=` (`src`, `href`, `srcset`, …: [`context::kind`]).
    Attribute,
    /// After a comma: a later candidate of a `srcset` value (`"a.png 1x, http://…/b.png 2x"`).
    SrcsetComma,
    /// After CSS's `url(`, or the quote after `@import`.
    Css,
}

impl Trigger {
    /// Whether the candidate `http://` at `at` is loaded, its place read forward by `cursor`: the start of a URL
    /// attribute's value (not a query parameter inside one), a new candidate of a `srcset` value (see
    /// [`srcset_separator`]), or CSS (a `style` attribute's value, a `<style>` element's text).
    fn confirmed(self, cursor: &mut Cursor, b: &[u8], at: usize) -> bool {
        match (self, cursor.place(b, at)) {
            (Trigger::Attribute, Place::Value(Attribute::Url | Attribute::Srcset)) => {
                cursor.starts_value(b, at)
            }
            (Trigger::SrcsetComma, Place::Value(Attribute::Srcset)) => srcset_separator(b, at),
            (Trigger::Css, Place::Value(Attribute::Style) | Place::Text { style: true }) => true,
            _ => false,
        }
    }
}

/// Whether the comma before the candidate at `at` (after whitespace) separates two `srcset` candidates rather
/// than sitting inside one URL (HTML Living Standard §4.8.4.3.10, parsing a srcset attribute: a URL runs to the
/// next whitespace, so `a.png?l=1,http://x 2x` is one URL): whitespace after the comma, or whitespace before it
/// followed only by a short descriptor (`1x`, `100w`, `1.5x`). Reads at most 18 bytes back.
fn srcset_separator(b: &[u8], at: usize) -> bool {
    let k = at - trailing(&b[..at], is_space);
    if k < at {
        return true;
    }
    let comma = k - 1;
    let before = &b[comma.saturating_sub(18)..comma];
    let descriptor = trailing(before, |c| {
        c.is_ascii_digit() || matches!(c, b'.' | b'x' | b'w' | b'h')
    });
    descriptor > 0 && descriptor < before.len() && is_space(before[before.len() - descriptor - 1])
}

/// Quotes as character references, as a serializer writes them inside an attribute value
/// (`style="background:url(&quot;http://…&quot;)"`: HTML Living Standard §13.3, serializing attribute values).
const ENTITY_QUOTES: [&[u8]; 6] = [
    b"&quot;", b"&#34;", b"&#x22;", b"&#39;", b"&#x27;", b"&apos;",
];

/// How the `http://` at `at` looks loaded, read backwards: whitespace, optionally a quote (`"`, `'`, `\"`/`\'`,
/// or one of [`ENTITY_QUOTES`]) and whitespace, then an `=` after a URL attribute's name ([`Trigger::Attribute`]),
/// a `,` ([`Trigger::SrcsetComma`]), a `(` after `url` or a quote after `@import` ([`Trigger::Css`]); `None`
/// otherwise. Only a necessary condition: [`Trigger::confirmed`] then checks where the candidate really is
/// (`alt="src=http://…"` passes here). Nothing here reads further back than the attribute's name, so the whole pass stays linear however many
/// candidates the markup holds (a backward search per candidate would be quadratic).
fn loaded_at(b: &[u8], at: usize) -> Option<Trigger> {
    let mut k = at - trailing(&b[..at], is_space);
    let quoted = k > 0 && matches!(b[k - 1], b'"' | b'\'');
    if quoted {
        k -= 1;
        if k > 0 && b[k - 1] == b'\\' {
            k -= 1;
        }
        k -= trailing(&b[..k], is_space);
    } else if let Some(entity) = ENTITY_QUOTES
        .iter()
        .find(|e| k >= e.len() && b[k - e.len()..k].eq_ignore_ascii_case(e))
    {
        k -= entity.len();
        k -= trailing(&b[..k], is_space);
        return at_rule_or(b, k, true);
    }
    at_rule_or(b, k, quoted)
}

/// [`loaded_at`]'s last step, `k` where its backward reading stopped: the byte before it (`=`, `(`, `,`), or,
/// for a quoted URL, CSS's `@import` before the quote (`@import "http://…";`, CSS Cascading and Inheritance
/// Level 4 §2: a string is a URL there).
fn at_rule_or(b: &[u8], k: usize, quoted: bool) -> Option<Trigger> {
    let trigger = k.checked_sub(1)?;
    match b[trigger] {
        b'=' => is_url_attribute(&b[..trigger]).then_some(Trigger::Attribute),
        b'(' => is_css_url(&b[..trigger]).then_some(Trigger::Css),
        b',' => Some(Trigger::SrcsetComma),
        _ if quoted && k >= 7 && b[k - 7..k].eq_ignore_ascii_case(b"@import") => Some(Trigger::Css),
        _ => None,
    }
}

/// The attribute name that ends `before` (whitespace allowed after it).
fn attribute_name(before: &[u8]) -> &[u8] {
    let end = before.len() - trailing(before, is_space);
    let name_start = end - trailing(&before[..end], is_name_byte);
    &before[name_start..end]
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
/// is a URL attribute or a candidate list ([`context::kind`]), in any case, and is a whole name (`data-src` is
/// not `src`).
fn is_url_attribute(before: &[u8]) -> bool {
    matches!(
        context::kind(attribute_name(before)),
        Attribute::Url | Attribute::Srcset
    )
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

pub(super) fn is_space(c: u8) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn first(markup: &str) -> Option<usize> {
        let info = inspect(markup);
        assert_eq!(info.secure, info.first_insecure.is_none());
        info.first_insecure
    }

    #[test]
    fn secure_markup_has_no_insecure_url() {
        let m = r#"<div style="background:url('https://cdn.example/bg.png')"><a href="https://click.example/?u=http://x">
            <img src="//cdn.example/a.png"></a><script src="https://ads.example/t.js"></script></div>"#;
        let info = inspect(m);
        assert!(info.secure);
        assert_eq!(info.scripts, 1);
        assert_eq!(info.first_insecure, None);
    }

    #[test]
    fn finds_the_first_insecure_url_with_its_offset() {
        let m = r#"<a href="https://ok.example"><img src="http://cdn.example/a.png"></a><img src="http://b">"#;
        assert_eq!(first(m), Some(m.find("http://cdn").unwrap()));
    }

    #[test]
    fn attribute_names_in_any_case_quoted_or_not() {
        for m in [
            "<IMG SRC=http://a/b.png>",
            "<img Src = 'http://a/b.png'>",
            "<a HREF=\"http://a/\">x</a>",
            "<img src=\"  HTTP://a/b.png\">",
        ] {
            let at = first(m).unwrap_or_else(|| panic!("not flagged: {m}"));
            assert!(m[at..].to_ascii_lowercase().starts_with("http://"), "{m}");
        }
    }

    /// Every candidate of a `srcset` is loaded; a comma
    /// elsewhere (a query string, an `alt` text) is not a candidate separator.
    #[test]
    fn srcset_candidates_are_loaded() {
        for m in [
            r#"<img srcset="http://x/a.png 2x">"#,
            r#"<img srcset="https://x/a.png 1x, http://x/b.png 2x">"#,
            r#"<img SRCSET = 'https://x/a.png 1x,http://x/b.png 2x'>"#,
            r#"<picture><source srcset="https://x/a.webp 1x,  http://x/b.webp 2x"></picture>"#,
            r#"document.write('<img srcset="https://x/a 1x, http://x/b 2x">')"#,
        ] {
            let at = first(m).unwrap_or_else(|| panic!("not flagged: {m}"));
            assert!(m[at..].starts_with("http://x/"), "{m}");
        }
        for m in [
            r#"<img srcset="https://x/a.png 1x, https://x/b.png 2x" src="https://x/a.png">"#,
            r#"<a href="https://x/?a=1,http://y">x</a>"#,
            r#"<img alt="see a, http://y" src="https://x/a.png">"#,
            r#"<img data-srcset="https://x/a 1x, http://x/b 2x">"#,
            "<p>one, http://y</p>",
        ] {
            assert_eq!(first(m), None, "{m}");
        }
    }

    #[test]
    fn css_url_and_escaped_quotes_in_javascript() {
        let css = "<div style=\"background-image: url( 'http://a/bg.png' )\"></div>";
        let tight = "<div style=\"background:url(http://a/bg.png)\"></div>";
        assert_eq!(first(tight), Some(tight.find("http://").unwrap()));
        assert_eq!(first(css), Some(css.find("http://").unwrap()));
        let js = r#"<script>document.write('<img src=\"http://a/p.gif\">');</script>"#;
        let info = inspect(js);
        assert_eq!(info.first_insecure, Some(js.find("http://").unwrap()));
        assert_eq!(info.scripts, 1);
    }

    #[test]
    fn text_and_other_attributes_do_not_count() {
        for m in [
            "<p>see http://example.com</p>",
            "<img data-src=\"http://a/b.png\" src=\"https://a/b.png\">",
            "<a title=\"http://a\" href=\"https://a\">",
            "<div style=\"x:myurl(http://a)\">",
            "<a href=\"https://a/?r=http://b\">",
            "src=",
            "url(",
            "=",
            "",
        ] {
            assert_eq!(first(m), None, "{m}");
        }
    }

    /// The other loading attributes and CSS's `@import`: each counts where it loads, and
    /// not as a look-alike.
    #[test]
    fn poster_background_imagesrcset_and_import_count() {
        for (markup, at) in [
            (
                r#"<video poster="http://x/p.jpg" src="https://x/v.mp4">"#,
                Some(15),
            ),
            (r#"<table background='http://x/bg.gif'>"#, Some(19)),
            (r#"<TD BACKGROUND=http://x/bg.gif>"#, Some(15)),
            (
                r#"<link rel=preload as=image imagesrcset="https://a 1x, http://b 2x">"#,
                Some(54),
            ),
            (r#"<style>@import "http://x/a.css";</style>"#, Some(16)),
            (
                r#"<style>@IMPORT 'http://x/a.css' screen;</style>"#,
                Some(16),
            ),
            (r#"<style>@import"http://x/a.css";</style>"#, Some(15)),
            (r#"<style>@import url(http://x/a.css);</style>"#, Some(19)),
            (
                r#"<div style="@import &quot;http://x/a.css&quot;">"#,
                Some(26),
            ),
            // Not loads: a secure one, an `@import` outside CSS, unquoted after `@import`, look-alike names.
            (r#"<style>@import "https://x/a.css";</style>"#, None),
            (r#"<p>@import "http://x/a.css";</p>"#, None),
            (r#"<style>@import http://x/a.css;</style>"#, None),
            (
                r#"<img data-poster="http://x" alt='background=http://x'>"#,
                None,
            ),
            (r#"<!-- <video poster="http://x"> -->"#, None),
        ] {
            assert_eq!(first(markup), at, "{markup}");
        }
    }

    /// Backslashes for the slashes: a browser loads `http:\/\/x` and `http:\\x` as `http://x`.
    #[test]
    fn escaped_slashes_count() {
        for (markup, at) in [
            (
                r#"<script>document.write("<img src=\"http:\/\/x\/a.png\">")</script>"#,
                Some(35),
            ),
            (r#"<img src="http:\\x/a.png">"#, Some(10)),
            (r#"<img src="HTTP:\/x">"#, Some(10)),
            (r#"<img src="https:\/\/x">"#, None),
            (r#"<img src="http:\x">"#, None),
            (r#"<p>http:\/\/x</p>"#, None),
        ] {
            assert_eq!(first(markup), at, "{markup}");
        }
    }

    /// A `src=`/`href=`/`url(` inside another attribute's value, in text or in a comment is not a loaded URL.
    #[test]
    fn url_lookalikes_in_values_text_and_comments_do_not_count() {
        for m in [
            r#"<img title="a href=http://x" src="https://y">"#,
            r#"<img alt="src=http://x">"#,
            "<img alt='url(http://x)'>",
            r#"<div class="url(http://x)">"#,
            "<p>src=http://x</p>",
            "<p>url(http://x)</p>",
            "plain text url(http://x)",
            r#"<!-- <img src="http://x"> -->"#,
            "<style>a{}</style><p>url(http://x)</p>",
            // An inner `"` ends the `style` value in a browser too: this URL is never loaded.
            r#"<div style="background:url( "http://a/bg.png" )">"#,
        ] {
            assert_eq!(first(m), None, "{m}");
        }
        for m in [
            r#"<!-- ad --><img alt="src=http://x" src="http://y">"#,
            "<style>.a{background:url(http://y)}</style>",
            r#"<p>src=http://x</p><img src=http://y>"#,
        ] {
            let at = first(m).unwrap_or_else(|| panic!("not flagged: {m}"));
            assert!(m[at..].starts_with("http://y"), "{m}");
        }
    }

    /// The forward cursor resumes where it stopped and the backward reading never searches: markup of ~2 MB with
    /// 200,000 look-alike candidates in one text, one attribute value and one comment, and a comment of 200,000
    /// `--`, is read once (a search or re-reading per candidate would take hours).
    #[test]
    fn many_candidates_are_read_once() {
        let many = "src=http://x ".repeat(200_000);
        // `,http://` look-alikes of `srcset` candidates (each once searched backwards for its quote: quadratic).
        let commas = ",http://x ".repeat(200_000);
        for m in [
            format!("{many}<img src=http://y>"),
            format!("<img alt=\"{many}\" src=http://y>"),
            format!("<!--{many}--><img src=http://y>"),
            format!("{commas}<img src=http://y>"),
            format!("<img alt=\"{commas}\" src=http://y>"),
            format!("<!--{}--><img src=http://y>", "-- ".repeat(200_000)),
        ] {
            let at = first(&m).unwrap_or_else(|| panic!("not flagged"));
            assert!(m[at..].starts_with("http://y"));
        }
    }

    /// What a browser loads, however the markup around it reads.
    #[test]
    fn loaded_urls_in_scripts_entities_svg_and_odd_comments() {
        for m in [
            // The legacy tag: a `<!--` inside a script hides nothing.
            "<SCRIPT LANGUAGE=\"JavaScript\">\n<!--\ndocument.write('<IMG SRC=\"http://y/px\" WIDTH=1>');\n//-->\n</SCRIPT>",
            "<script>var s=\"<!--\";</script><img src=\"http://y\">",
            "<script>/* <!-- */</script><img src=\"http://y\">",
            "<script>document.write('<style>');</script><img src=\"http://y\">",
            // Quotes as character references (how a serializer writes them in an attribute).
            "<div style=\"background:url(&quot;http://y/a.png&quot;)\">",
            "<div style=\"background:url(&#39;http://y/a.png&#39;)\">",
            "<svg><image xlink:href=\"http://y/a.png\"/></svg>",
            // Comments a browser closes early.
            "<!--> <img src=\"http://y\">",
            "<!---> <img src=\"http://y\">",
            "<!-- a --!><img src=\"http://y\">",
            "<img srcset=\"a.png 1x,http://y 2x\">",
            "<img srcset=\"a.png, http://y 2x\">",
            // A `<` comparison in a script does not hide the script's end, nor a `<style>` after it; a
            // `<style>` a script writes is CSS.
            "<script>if(a<b){x()}</script><style>.a{background:url(http://y/bg.png)}</style>",
            "<script>for(var i=0;i<n;i++){}</script><style>.a{background:url(http://y)}</style>",
            "<script>document.write('<style>.a{background:url(http://y/bg.png)}</style>');</script>",
        ] {
            let at = first(m).unwrap_or_else(|| panic!("not flagged: {m}"));
            assert!(m[at..].starts_with("http://y"), "{m}");
        }
        for m in [
            "<textarea><img src=\"http://x\"></textarea>",
            "<title>src=http://x</title>",
            "<xmp><img src=http://x></xmp>",
            "<img alt=\",http://x\">",
            // A URL runs to whitespace: one candidate, whose text holds a comma.
            "<img srcset=a.png,http://x>",
            "<img srcset=\"https://x/a.png?l=a,http://x 1x\">",
            // A parameter inside a secure URL is not the URL loaded.
            "<a href=\"https://track.example/click?src=http://landing.example/\">x</a>",
            "<img src=\"https://px.example/p.gif?href=http://pub.example/page\">",
            "<iframe src=\"https://cdn.example/f.html#src=http://pub.example/\">",
            // After a script with comparisons, comments and textarea text are read as such.
            "<script>for(var i=0;i<imgs.length;i++){}</script><textarea><a href=\"http://x/\">l</a></textarea>",
            "<script>if(w<minW){}</script><!-- <img src=\"http://x/old.gif\"> -->",
        ] {
            assert_eq!(first(m), None, "{m}");
        }
        // Markup after a closed text-only element is read again.
        let m = "<textarea>a</textarea><img src=\"http://y\">";
        assert!(m[first(m).expect("flagged")..].starts_with("http://y"));
    }

    #[test]
    fn counts_script_start_tags_only() {
        let m = "<script>a()</script><SCRIPT src=x></SCRIPT><script/><scripts><scrip><noscript></noscript><script";
        assert_eq!(inspect(m).scripts, 3);
    }
}
