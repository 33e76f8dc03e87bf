//! The `secure` rule's reading (352, OpenRTB 2.6 §3.2.4 `imp.secure`): does a bid's markup or URL use plain
//! `http://`? HTML by what it loads (`bidscan_markup::html`); VAST and native, which hold URLs only, by any
//! `http://` in their text **as their parser reads it**: a VAST player's XML parser decodes character references
//! (`&#104;ttp://`, `http&#58;//`) and joins CDATA sections and the text around comments
//! (`htt<![CDATA[p://…]]>`); a native renderer's JSON parser decodes `\u0068ttp://` and `http:\/\/`. The decoded
//! reading runs only when the text has something to decode and no literal `http://` was found.

use std::borrow::Cow;

use bidscan_markup::html::http_url_at;

use crate::model::adm::{Adm, AdmKind};

/// Starts with `http://`, scheme in any case, each slash also as a backslash (`http:\\x` and `http:\/\/x` load as
/// `http://x`: the URL parser reads `\` as `/` in an `http` URL, URL Living Standard §4.4).
pub(super) fn is_http(url: &str) -> bool {
    http_url_at(url.trim_start().as_bytes(), 0)
}

/// True when the markup loads something over plain HTTP: HTML by its URL attributes and CSS (bidscan-markup),
/// VAST and native by any `http://` in their decoded text (see the module docs).
pub(super) fn insecure_markup(adm: &Adm<'_>) -> bool {
    match adm {
        Adm::Markup(text) => match AdmKind::sniff(text) {
            AdmKind::Html => !bidscan_markup::html::inspect(text).secure,
            AdmKind::Vast => {
                contains_http(text) || (text.contains(['&', '<']) && contains_http(&xml_text(text)))
            }
            AdmKind::Native => {
                if contains_http(text) {
                    return true;
                }
                // A video asset's `vasttag` is VAST inside a JSON string: XML after the JSON is decoded.
                let decoded = if text.contains('\\') {
                    Cow::Owned(json_text(text))
                } else {
                    Cow::Borrowed(&**text)
                };
                contains_http(&decoded)
                    || (decoded.contains(['&', '<']) && contains_http(&xml_text(&decoded)))
            }
            AdmKind::None => false,
        },
        // Canonical JSON: strings written without `\u` escapes of printable characters.
        Adm::Object(object) => contains_http(&object.to_json()),
    }
}

/// An `http://` anywhere (any case; each slash also as a backslash, see [`is_http`]: `http:\/\/` is also how
/// JSON text writes `http://`).
///
/// Found from each `:` (std's `memchr` search) rather than by comparing every 5-byte window: markup holds few
/// colons, and a VAST document is mostly text between them.
fn contains_http(text: &str) -> bool {
    let b = text.as_bytes();
    text.match_indices(':')
        .any(|(colon, _)| colon >= 4 && http_url_at(b, colon - 4))
}

/// XML markup as its parser's text reads (XML 1.0 §2.7, §4.1, §2.5): CDATA sections' content kept and their
/// markers dropped, comments dropped, character references and the five predefined entities decoded; tags and
/// anything malformed kept as written.
fn xml_text(markup: &str) -> String {
    let mut out = String::with_capacity(markup.len());
    let mut rest = markup;
    while let Some(at) = rest.find(['&', '<']) {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        if let Some(after) = rest.strip_prefix("<![CDATA[") {
            let end = after.find("]]>").unwrap_or(after.len());
            out.push_str(&after[..end]);
            rest = after.get(end + 3..).unwrap_or("");
        } else if let Some(after) = rest.strip_prefix("<!--") {
            rest = after.find("-->").map_or("", |end| &after[end + 3..]);
        } else if let Some((c, len)) = reference(rest) {
            out.push(c);
            rest = &rest[len..];
        } else {
            out.push_str(&rest[..1]);
            rest = &rest[1..];
        }
    }
    out.push_str(rest);
    out
}

/// The character of the reference `rest` starts with (`&#104;`, `&#x68;`, `&#0000104;`, `&amp;` …) and the
/// reference's length; `None` when it starts with none. Leading zeros are allowed in any number (XML 1.0 §4.1), so
/// a character reference is read to the end of its digits: each `&` reads only its own, and the walk stays linear.
fn reference(rest: &str) -> Option<(char, usize)> {
    let b = rest.as_bytes();
    if b.get(1) != Some(&b'#') {
        let head = &b[..b.len().min(6)];
        let semi = head.iter().position(|&c| c == b';')?;
        let c = match &rest[1..semi] {
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            "quot" => '"',
            "apos" => '\'',
            _ => return None,
        };
        return Some((c, semi + 1));
    }
    let (radix, start) = if b.get(2) == Some(&b'x') {
        (16, 3)
    } else {
        (10, 2)
    };
    let len = b[start..]
        .iter()
        .take_while(|c| c.is_ascii_digit() || (radix == 16 && c.is_ascii_hexdigit()))
        .count();
    let end = start + len;
    if len == 0 || b.get(end) != Some(&b';') {
        return None;
    }
    let digits = rest[start..end].trim_start_matches('0');
    let code = if digits.is_empty() {
        0
    } else if digits.len() > 8 {
        return None;
    } else {
        u32::from_str_radix(digits, radix).ok()?
    };
    Some((char::from_u32(code)?, end + 1))
}

/// JSON text with its string escapes decoded (RFC 8259 §7: `\uXXXX`, `\/` and the rest); a malformed or lone
/// surrogate escape kept as written.
fn json_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let escaped = match rest.as_bytes().get(1) {
            Some(b'u') => rest
                .get(2..6)
                .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                .and_then(char::from_u32)
                .map(|c| (c, 6)),
            Some(b'n') => Some(('\n', 2)),
            Some(b't') => Some(('\t', 2)),
            Some(b'r') => Some(('\r', 2)),
            Some(&c @ (b'/' | b'\\' | b'"')) => Some((char::from(c), 2)),
            _ => None,
        };
        match escaped {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('\\');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn markup(text: &str) -> bool {
        insecure_markup(&Adm::Markup(text.into()))
    }

    #[test]
    fn insecure_urls_in_text() {
        assert!(is_http("HTTP://a.example/"));
        assert!(!is_http("https://a.example/"));
        assert!(contains_http(
            r#"{"img":{"url":"http:\/\/a.example\/x.png"}}"#
        ));
        assert!(contains_http(
            "<VAST><MediaFile>http://a.example/v.mp4</MediaFile></VAST>"
        ));
        assert!(!contains_http(
            "<VAST><MediaFile>https://a.example/v.mp4</MediaFile></VAST>"
        ));
        assert!(!contains_http("http:"));
        assert!(is_http("http:\\\\x") && is_http(r"HTTP:\/\/x") && is_http(" http:/\\x"));
        assert!(!is_http(r"http:\x") && !is_http("https://x") && !is_http("http:"));
        assert_eq!(reference("&#0000000000104;"), Some(('h', 16)));
        assert_eq!(reference("&#x0068;"), Some(('h', 8)));
        assert_eq!(reference("&#;"), None);
        assert_eq!(reference("&#x;"), None);
        assert_eq!(reference("&#1234567890;"), None);
        assert_eq!(reference("&#0;"), Some(('\0', 4)));
        assert_eq!(reference("&#104"), None);
        assert_eq!(reference("&amp;"), Some(('&', 5)));
        assert_eq!(reference("&ampx;"), None);
    }

    /// An `http://` a VAST player's XML parser or a native renderer's JSON
    /// parser decodes was not seen.
    #[test]
    fn encoded_http_in_vast_and_native_counts() {
        for vast in [
            "<VAST version=\"4.2\"><Ad><Wrapper><VASTAdTagURI>htt&#x70;://evil</VASTAdTagURI></Wrapper></Ad></VAST>",
            "<VAST><Ad><InLine><Impression>htt<![CDATA[p://evil]]></Impression></InLine></Ad></VAST>",
            "<VAST><Ad><InLine><Impression>http&#58;//evil</Impression></InLine></Ad></VAST>",
            "<VAST><Ad><InLine><Impression>&#104;ttp://x</Impression></InLine></Ad></VAST>",
            "<VAST><Ad><InLine><Impression>htt<!-- c -->p://x</Impression></InLine></Ad></VAST>",
            "<VAST><Ad><InLine><Impression><![CDATA[HTTP://x]]></Impression></InLine></Ad></VAST>",
        ] {
            assert!(markup(vast), "{vast}");
        }
        for secure in [
            "<VAST><Ad><InLine><Impression>htt&#x70;s://x</Impression></InLine></Ad></VAST>",
            "<VAST><Ad><InLine><Impression><![CDATA[https://x?a=1&b=http]]></Impression></InLine></Ad></VAST>",
            // Inside CDATA a reference is text, not decoded.
            "<VAST><Ad><InLine><Impression><![CDATA[http&#58;//x]]></Impression></InLine></Ad></VAST>",
            "<VAST><Ad><!-- htt&#112;://x --><InLine/></Ad></VAST>",
            "<VAST>&bogus; &#xZZ; &#99999999; &<![CDATA[unclosed",
            "<VAST>&é;&日本語日本語;&#x68;&#x74;",
        ] {
            assert!(!markup(secure), "{secure}");
        }
        for vast in [
            "<VAST><Ad><InLine><Impression>&#0000000104;ttp://x</Impression></InLine></Ad></VAST>",
            "<VAST><Ad><InLine><Impression>&#x000000068;ttp://x</Impression></InLine></Ad></VAST>",
            "<VAST><Ad><InLine><MediaFile>http:\\\\x.example/a.mp4</MediaFile></InLine></Ad></VAST>",
        ] {
            assert!(markup(vast), "{vast}");
        }
        // A native video asset's `vasttag`: VAST in a JSON string.
        assert!(markup(
            r#"{"native":{"assets":[{"id":1,"video":{"vasttag":"<VAST><MediaFile>&#104;ttp://x/a.mp4</MediaFile></VAST>"}}]}}"#
        ));
        assert!(markup(
            r#"{"assets":[{"video":{"vasttag":"<VAST><MediaFile><![CDATA[htt]]>p:\/\/x</MediaFile></VAST>"}}]}"#
        ));
        assert!(!markup(
            r#"{"assets":[{"video":{"vasttag":"<VAST><MediaFile>&#104;ttps://x/a.mp4</MediaFile></VAST>"}}]}"#
        ));
        assert!(markup(r#"{"native":{"link":{"url":"\u0068ttp://x"}}}"#));
        assert!(markup(r#"{"link":{"url":"http\u003a//x"}}"#));
        assert!(!markup(r#"{"link":{"url":"\u0068ttps://x"}}"#));
        assert!(!markup(r#"{"link":{"url":"\ud800ttp://x \u12"}}"#));
    }
}
