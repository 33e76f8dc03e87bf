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

#[derive(Deserialize)]
struct PrebidExt<'a> {
    #[serde(borrow, default, rename = "type")]
    kind: Option<Cow<'a, str>>,
}

/// `ext.prebid` alone, read in one pass (a `prebid` that is not an object fails the read: no type).
#[derive(Deserialize)]
struct PrebidOnly<'a> {
    #[serde(borrow, default)]
    prebid: Option<PrebidExt<'a>>,
}

/// `ext.prebid.type` of a bid (Prebid Server's convention for the bid's media type); `None` when `ext` is
/// absent, has none, or names no media type. An `ext` whose text has no `"type"` key is not parsed.
pub(super) fn prebid_type(ext: Option<&RawJson<'_>>) -> Option<Media> {
    let text = ext?.get();
    if !text.contains("\"type\"") {
        return None;
    }
    let ext: PrebidOnly<'_> = serde_json::from_str(text).ok()?;
    Media::of_name(ext.prebid?.kind.as_deref()?)
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
