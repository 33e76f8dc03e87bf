//! What the gate reads of a bid's `ext` (kept verbatim as raw JSON by decoding): Prebid Server's media type
//! `ext.prebid.type` and the DSA transparency `ext.dsa` (IAB Tech Lab "DSA Transparency" extension). Read only
//! when a rule needs it: a bid without `mtype`, a request that requires DSA transparency.

use std::borrow::Cow;

use bidscan_json::RawJson;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::media::Media;

/// The members of `bid.ext` the gate reads; every other member is skipped.
#[derive(Deserialize, Default)]
struct BidExt<'a> {
    #[serde(borrow, default)]
    dsa: Option<&'a RawValue>,
}

/// `ext.prebid.type` of a bid (Prebid Server's convention for the bid's media type); `None` when `ext` is
/// absent, has none, or names no media type.
///
/// `ext` is valid JSON (decoding checked it), so it is walked, not parsed: `ext`'s members are skipped up to
/// `prebid`, then `prebid`'s up to `type`, strings skipped with `memchr`, and the walk stops there. A `prebid`
/// that is not an object, a `type` that is not a string, or a name written with escapes names none (the media
/// type is then inferred as when there is no `ext.prebid.type`); when `prebid` or `type` is given twice, the first
/// is read.
pub(super) fn prebid_type(ext: Option<&RawJson<'_>>) -> Option<Media> {
    let text = ext?.get().as_bytes();
    // Prebid Server's own form, compact and `prebid` first, read without walking.
    if let Some(rest) = text.strip_prefix(br#"{"prebid":{"type":""#) {
        let name = rest.split(|&b| b == b'"').next()?;
        return Media::of_name(std::str::from_utf8(name).ok()?);
    }
    let prebid = member(text, 0, b"prebid")?;
    let kind = member(text, prebid, b"type")?;
    let name = text.get(kind + 1..string_end(text, kind)? - 1)?;
    Media::of_name(std::str::from_utf8(name).ok()?)
}

/// The offset of the value of the member `name` of the object at `at` (after whitespace), or `None` when the value
/// at `at` is not an object or has no member `name` (compared as written, without unescaping).
fn member(text: &[u8], at: usize, name: &[u8]) -> Option<usize> {
    let mut i = skip_ws(text, at);
    if text.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_ws(text, i + 1);
    while text.get(i) == Some(&b'"') {
        let end = string_end(text, i)?;
        let hit = &text[i + 1..end - 1] == name;
        let value = skip_ws(text, skip_ws(text, end) + 1);
        if hit {
            return Some(value);
        }
        i = skip_ws(text, value_end(text, value)?);
        if text.get(i) != Some(&b',') {
            return None;
        }
        i = skip_ws(text, i + 1);
    }
    None
}

fn skip_ws(text: &[u8], mut i: usize) -> usize {
    while matches!(text.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// The offset just past the string that opens at `at` (its closing quote included).
fn string_end(text: &[u8], at: usize) -> Option<usize> {
    let mut i = at + 1;
    loop {
        i += memchr::memchr2(b'"', b'\\', text.get(i..)?)?;
        if text[i] == b'"' {
            return Some(i + 1);
        }
        i += 2;
    }
}

/// The offset just past the value that starts at `at`.
fn value_end(text: &[u8], at: usize) -> Option<usize> {
    match text.get(at)? {
        b'"' => string_end(text, at),
        b'{' | b'[' => {
            let (mut i, mut depth) = (at, 0usize);
            loop {
                match text.get(i)? {
                    b'"' => {
                        i = string_end(text, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            let len = text[at..]
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(text.len() - at);
            Some(at + len)
        }
    }
}

/// Most bytes of `behalf` and of `paid`, as Prebid Server counts them (`dsa/validate.go`: 100).
pub(super) const DSA_TEXT_BYTES: usize = 100;

/// The DSA transparency of a bid (`ext.dsa`), as far as the gate checks it.
pub(super) struct BidDsa {
    /// `behalf`: on whose behalf the ad is shown; bytes after JSON unescaping.
    pub(super) behalf_bytes: usize,
    /// `paid`: who paid for the ad; bytes after JSON unescaping.
    pub(super) paid_bytes: usize,
    /// `adrender`: 0 the buyer will not render the transparency, 1 it will.
    pub(super) adrender: Option<i64>,
}

/// Why a bid's DSA transparency is not there to check.
pub(super) enum DsaFault {
    /// No `ext.dsa` (or no `ext`).
    Missing,
    /// `ext.dsa` is not an object with members of the extension's types.
    NotAnObject,
}

#[derive(Deserialize)]
struct DsaObject<'a> {
    #[serde(borrow, default)]
    behalf: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    paid: Option<Cow<'a, str>>,
    #[serde(default)]
    adrender: Option<i64>,
}

/// `ext.dsa` of a bid.
///
/// # Errors
/// [`DsaFault`] when there is none, or when it is not an object of the extension's shape (`behalf` and `paid`
/// strings, `adrender` an integer).
pub(super) fn dsa(ext: Option<&RawJson<'_>>) -> Result<BidDsa, DsaFault> {
    let ext: BidExt<'_> = match ext {
        Some(ext) => serde_json::from_str(ext.get()).map_err(|_| DsaFault::NotAnObject)?,
        None => return Err(DsaFault::Missing),
    };
    let raw = ext.dsa.ok_or(DsaFault::Missing)?;
    if raw.get() == "null" {
        return Err(DsaFault::Missing);
    }
    // serde would read an array as the struct's members in order: only an object is the extension's shape.
    if !raw.get().starts_with('{') {
        return Err(DsaFault::NotAnObject);
    }
    let dsa: DsaObject<'_> = serde_json::from_str(raw.get()).map_err(|_| DsaFault::NotAnObject)?;
    Ok(BidDsa {
        behalf_bytes: dsa.behalf.as_deref().map_or(0, str::len),
        paid_bytes: dsa.paid.as_deref().map_or(0, str::len),
        adrender: dsa.adrender,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> RawJson<'_> {
        RawJson::from_validated(text)
    }

    #[test]
    fn prebid_type_read_from_ext() {
        assert_eq!(
            prebid_type(Some(&raw(r#"{"prebid":{"type":"video"}}"#))),
            Some(Media::Video)
        );
        assert_eq!(prebid_type(Some(&raw(r#"{"prebid":{"type":"x"}}"#))), None);
        assert_eq!(prebid_type(Some(&raw(r#"{"prebid":5}"#))), None);
        assert_eq!(prebid_type(None), None);
    }

    #[test]
    fn prebid_type_walks_any_form_of_ext() {
        let cases = [
            (
                r#"{"prebid":{"type":"native","meta":{}}}"#,
                Some(Media::Native),
            ),
            (
                "{\n  \"prebid\" : {\n    \"meta\": {\"type\": \"video\"},\n    \"type\" : \"audio\"\n  }\n}",
                Some(Media::Audio),
            ),
            (
                r#"{"bidder":{"prebid":{"type":"video"},"s":"{[\"}"},"x":[1,{"a":"]"}],"n":-1.5e3,"t":true,"prebid":{"type":"banner"}}"#,
                Some(Media::Banner),
            ),
            (r#"{"bidder":{"prebid":{"type":"video"}}}"#, None),
            (r#"{"prebid":{"meta":{"type":"video"}}}"#, None),
            (r#"{"prebid":{"type":5}}"#, None),
            (r#"{"prebid":{"type":"vid\u0065o"}}"#, None),
            (r#"{"pre\u0062id":{"type":"video"}}"#, None),
            (
                r#"{"prebid":{"type":"video"},"prebid":{"type":"banner"}}"#,
                Some(Media::Video),
            ),
            (r#"{"prebid":[{"type":"video"}]}"#, None),
            ("{}", None),
        ];
        for (ext, want) in cases {
            assert_eq!(prebid_type(Some(&raw(ext))), want, "{ext}");
        }
    }

    proptest::proptest! {
        /// The walk reads what a JSON parser reads at `ext.prebid.type`, compact or pretty, whatever precedes it.
        #[test]
        fn prebid_type_is_what_a_parser_reads(ext in ext_strategy(), pretty: bool) {
            let text = if pretty {
                serde_json::to_string_pretty(&ext).unwrap()
            } else {
                serde_json::to_string(&ext).unwrap()
            };
            let parsed = ext
                .get("prebid")
                .and_then(|p| p.get("type"))
                .and_then(serde_json::Value::as_str)
                .and_then(Media::of_name);
            proptest::prop_assert_eq!(prebid_type(Some(&raw(&text))), parsed, "{}", text);
        }
    }

    fn ext_strategy() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        let name = prop::sample::select(vec!["prebid", "type", "meta", "a\"{", "}]\\", "bidder"]);
        let text = prop::sample::select(vec![
            "banner", "video", "audio", "native", "x", "\"}{[", "\\",
        ]);
        let leaf = prop_oneof![
            text.prop_map(serde_json::Value::from),
            any::<i32>().prop_map(serde_json::Value::from),
            any::<bool>().prop_map(serde_json::Value::from),
            Just(serde_json::Value::Null),
        ];
        leaf.prop_recursive(4, 24, 4, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
                prop::collection::btree_map(name.clone().prop_map(String::from), inner, 0..4)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
        .prop_map(|v| match v {
            serde_json::Value::Object(_) => v,
            other => serde_json::json!({ "prebid": { "type": other } }),
        })
    }

    #[test]
    fn dsa_read_from_ext() {
        let ok = dsa(Some(&raw(
            r#"{"dsa":{"behalf":"Adv\u00e9","paid":"P","adrender":1}}"#,
        )))
        .ok()
        .unwrap();
        assert_eq!(
            (ok.behalf_bytes, ok.paid_bytes, ok.adrender),
            (5, 1, Some(1))
        );
        assert!(matches!(dsa(None), Err(DsaFault::Missing)));
        assert!(matches!(dsa(Some(&raw("{}"))), Err(DsaFault::Missing)));
        assert!(matches!(
            dsa(Some(&raw(r#"{"dsa":null}"#))),
            Err(DsaFault::Missing)
        ));
        assert!(matches!(
            dsa(Some(&raw(r#"{"dsa":"x"}"#))),
            Err(DsaFault::NotAnObject)
        ));
        assert!(matches!(
            dsa(Some(&raw(r#"{"dsa":{"behalf":5}}"#))),
            Err(DsaFault::NotAnObject)
        ));
    }
}
