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
/// absent, has none, or names no media type. Read by walking the members of the verbatim `ext` text (valid JSON,
/// checked by the reader), skipping the others undecoded: a serde_json pass over the whole `ext` cost more than
/// all the other rules of such a bid.
pub(super) fn prebid_type(ext: Option<&RawJson<'_>>) -> Option<Media> {
    let text = ext?.get();
    let kind = member(member(text, "prebid")?, "type")?;
    let kind = kind.strip_prefix('"')?.strip_suffix('"')?;
    if kind.contains('\\') {
        let decoded: String = serde_json::from_str(&format!("\"{kind}\"")).ok()?;
        return Media::of_name(&decoded);
    }
    Media::of_name(kind)
}

/// The text of member `key`'s value in `object`, a valid JSON text, when it is an object that has one (the
/// last, if given twice, as serde_json reads it).
fn member<'t>(object: &'t str, key: &str) -> Option<&'t str> {
    let b = object.as_bytes();
    let mut i = space(b, 0);
    if *b.get(i)? != b'{' {
        return None;
    }
    i += 1;
    let mut found = None;
    loop {
        i = space(b, i);
        match *b.get(i)? {
            b'}' => return found,
            b',' => {
                i += 1;
                continue;
            }
            _ => {}
        }
        let name_end = string_end(b, i)?;
        let name = &object[i + 1..name_end - 1];
        i = space(b, name_end);
        if *b.get(i)? != b':' {
            return None;
        }
        i = space(b, i + 1);
        let value_end = value_end(b, i)?;
        let same = if name.contains('\\') {
            serde_json::from_str::<String>(&object[name_end - name.len() - 2..name_end]).ok()?
                == key
        } else {
            name == key
        };
        if same {
            found = Some(&object[i..value_end]);
        }
        i = value_end;
    }
}

/// The index after JSON whitespace from `i`.
fn space(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// The index after the string starting with the quote at `i`.
fn string_end(b: &[u8], i: usize) -> Option<usize> {
    if *b.get(i)? != b'"' {
        return None;
    }
    let mut j = i + 1;
    loop {
        match *b.get(j)? {
            b'"' => return Some(j + 1),
            b'\\' => j += 2,
            _ => j += 1,
        }
    }
}

/// The index after the value starting at `i`.
fn value_end(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => string_end(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match *b.get(j)? {
                    b'"' => {
                        j = string_end(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let mut j = i;
            while !matches!(
                b.get(j),
                None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            ) {
                j += 1;
            }
            Some(j)
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
    fn members_found_as_serde_json_finds_them() {
        let texts = [
            r#"{"prebid":{"type":"video"}}"#,
            r#" { "a" : [1, {"type":"banner"}, "x\"y"], "prebid" : { "x": {"type":"audio"}, "type" : "native" } } "#,
            r#"{"prebid":{"type":"banner"},"prebid":{"type":"video"}}"#,
            r#"{"pre\u0062id":{"typ\u0065":"vid\u0065o"}}"#,
            r#"{"prebid":{"type":5}}"#,
            r#"{"prebid":[{"type":"video"}]}"#,
            r#"{"prebid":"video"}"#,
            r#"[{"prebid":{"type":"video"}}]"#,
            r#"{"n":-1.5e3,"t":true,"z":null,"prebid":{"type":"audio","more":{}}}"#,
            r#"{}"#,
            r#"5"#,
        ];
        for text in texts {
            let via_serde = serde_json::from_str::<serde_json::Value>(text)
                .ok()
                .and_then(|v| v.get("prebid")?.get("type")?.as_str().map(str::to_owned))
                .and_then(|t| Media::of_name(&t));
            assert_eq!(prebid_type(Some(&raw(text))), via_serde, "{text}");
        }
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
