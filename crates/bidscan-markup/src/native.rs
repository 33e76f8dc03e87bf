//! Native markup: the inner JSON of a native ad (IAB Tech Lab OpenRTB Native Ad Specification 1.2, §5
//! "Native Ad Response Markup"), decoded by bidscan-json into a counting model: nothing is kept but the
//! version, counts and whether `link` is there.

use std::borrow::Cow;
use std::fmt;

use bidscan_json::Reader;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// What [`Inspector::native`](crate::Inspector::native) found in a native response.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct NativeInfo<'a> {
    /// `ver` as sent (a number is written as its text); `None` when absent. Borrowed from the markup when it is
    /// there verbatim.
    pub ver: Option<Cow<'a, str>>,
    /// `error.is_none()`: the inner JSON is valid and in the response's shape.
    pub well_formed: bool,
    /// Entries of `assets`.
    pub assets: usize,
    /// `link` is present as an object (required, Native 1.2 §5.1).
    pub link: bool,
    /// Entries of `imptrackers` plus entries of `eventtrackers` (Native 1.2 §5.1, §5.8).
    pub trackers: usize,
    /// The response sat under the legacy `{"native": {…}}` root (Native 1.0/1.1 examples).
    pub legacy_root: bool,
    /// Why the inner JSON is not a native response.
    pub error: Option<NativeError>,
}

/// An inner JSON error: bidscan-json's message and position inside the native JSON text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NativeError {
    /// Byte offset into the native JSON text (the decoded `adm` string, or an object `adm`'s canonical text).
    pub byte: usize,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in bytes.
    pub column: usize,
    /// What went wrong.
    pub message: String,
}

/// Decodes the native JSON in `scratch` in place. `markup` is the text `scratch` was copied from (for a string
/// `adm`), so that `ver` can be borrowed from it.
pub(crate) fn decode<'a>(
    reader: &mut Reader,
    scratch: &mut [u8],
    markup: Option<&'a str>,
) -> NativeInfo<'a> {
    let mut model = Model {
        base: scratch.as_ptr() as usize,
        ..Model::default()
    };
    let result = reader.decode_seed(&mut *scratch, Seed(&mut model));
    let ver = model.ver.map(|ver| match ver {
        Ver::At(start, len) => {
            let decoded = scratch.get(start..start + len).unwrap_or_default();
            match markup.and_then(|m| m.get(start..start + len)) {
                Some(text) if text.as_bytes() == decoded => Cow::Borrowed(text),
                _ => Cow::Owned(String::from_utf8_lossy(decoded).into_owned()),
            }
        }
        Ver::Text(text) => Cow::Owned(text),
    });
    let error = result.err().map(|e| NativeError {
        byte: e.byte(),
        line: e.line(),
        column: e.column(),
        message: e.message(),
    });
    NativeInfo {
        ver,
        well_formed: error.is_none(),
        assets: model.assets,
        link: model.link,
        trackers: model.trackers,
        legacy_root: model.legacy_root,
        error,
    }
}

/// Where `ver` was found.
#[derive(Clone, Debug)]
enum Ver {
    /// A string at this byte offset and length of the scratch copy (at the same place in the markup when the
    /// string held no escapes: bidscan-json decodes in place).
    At(usize, usize),
    /// A number, as text.
    Text(String),
}

#[derive(Default)]
struct Model {
    ver: Option<Ver>,
    /// Address of the scratch copy's first byte, to turn a borrowed `ver` into an offset.
    base: usize,
    assets: usize,
    link: bool,
    trackers: usize,
    legacy_root: bool,
}

struct Seed<'m>(&'m mut Model);

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a native response object (Native 1.2 §5.1)")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<(), M::Error> {
        let model = self.0;
        // The legacy root: when `native` holds the response, it alone is read (the members beside it are not
        // the response's).
        let mut legacy: Option<Model> = None;
        while let Some(key) = map.next_key::<&'de str>()? {
            match key {
                "native" => {
                    let mut inner = Model {
                        base: model.base,
                        ..Model::default()
                    };
                    map.next_value_seed(Seed(&mut inner))?;
                    inner.legacy_root = true;
                    legacy = Some(inner);
                }
                "ver" => {
                    model.ver = Some(match map.next_value::<VerValue<'de>>()?.0 {
                        Cow::Borrowed(s) => {
                            Ver::At((s.as_ptr() as usize).wrapping_sub(model.base), s.len())
                        }
                        Cow::Owned(s) => Ver::Text(s),
                    });
                }
                "assets" => model.assets = map.next_value::<Count>()?.0,
                "imptrackers" | "eventtrackers" => model.trackers += map.next_value::<Count>()?.0,
                "link" => model.link = map.next_value::<Link>()?.0,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if let Some(inner) = legacy {
            *model = inner;
        }
        Ok(())
    }
}

/// `link`: present only as an object (Native 1.2 §5.1, §5.7: the Link object, required); `null`, a string or any
/// other value is read (so the JSON is still checked) and counts as no link (so `"link": null` is a
/// missing link).
struct Link(bool);

impl<'de> de::Deserialize<'de> for Link {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Link, D::Error> {
        deserializer.deserialize_any(LinkVisitor)
    }
}

struct LinkVisitor;

impl<'de> Visitor<'de> for LinkVisitor {
    type Value = Link;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a link object")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Link, M::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Link(true))
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Link, S::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Link(false))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Link, E> {
        Ok(Link(false))
    }
    fn visit_none<E: de::Error>(self) -> Result<Link, E> {
        Ok(Link(false))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Link, E> {
        Ok(Link(false))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Link, E> {
        Ok(Link(false))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Link, E> {
        Ok(Link(false))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Link, E> {
        Ok(Link(false))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Link, E> {
        Ok(Link(false))
    }
}

/// An array's length, its elements skipped.
struct Count(usize);

impl<'de> de::Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Count, D::Error> {
        deserializer.deserialize_seq(CountVisitor)
    }
}

struct CountVisitor;

impl<'de> Visitor<'de> for CountVisitor {
    type Value = Count;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Count, S::Error> {
        let mut n = 0;
        while seq.next_element::<IgnoredAny>()?.is_some() {
            n += 1;
        }
        Ok(Count(n))
    }
}

/// `ver`: a string (Native 1.2 §5.1), or a number as some bidders send it.
struct VerValue<'de>(Cow<'de, str>);

impl<'de> de::Deserialize<'de> for VerValue<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<VerValue<'de>, D::Error> {
        deserializer.deserialize_any(VerVisitor)
    }
}

struct VerVisitor;

impl<'de> Visitor<'de> for VerVisitor {
    type Value = VerValue<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a version string")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(VerValue(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(VerValue(Cow::Owned(v.to_owned())))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(VerValue(Cow::Owned(v.to_string())))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(VerValue(Cow::Owned(v.to_string())))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(VerValue(Cow::Owned(v.to_string())))
    }
}

#[cfg(test)]
mod tests {
    use crate::Inspector;

    #[test]
    fn reads_a_native_1_2_response() {
        let m = r#"{"ver":"1.2","assets":[{"id":1,"title":{"text":"Hi \"there\""}},{"id":2,"img":{"url":"https://i/"}}],
            "link":{"url":"https://c/"},"imptrackers":["https://t/1"],"eventtrackers":[{"event":1,"method":1,"url":"https://t/2"}]}"#;
        let mut inspector = Inspector::new();
        let info = inspector.native(m);
        assert!(info.well_formed, "{:?}", info.error);
        assert_eq!(info.ver.as_deref(), Some("1.2"));
        assert!(matches!(info.ver, Some(std::borrow::Cow::Borrowed(_))));
        assert_eq!(
            (info.assets, info.link, info.trackers, info.legacy_root),
            (2, true, 2, false)
        );
        assert!(inspector.retained_bytes() >= m.len());
    }

    #[test]
    fn accepts_the_legacy_root_and_a_numeric_ver() {
        let mut inspector = Inspector::new();
        let info = inspector.native(r#"{"native":{"ver":1.1,"assets":[],"link":{}}}"#);
        assert!(info.well_formed);
        assert_eq!(info.ver.as_deref(), Some("1.1"));
        assert_eq!((info.assets, info.link, info.legacy_root), (0, true, true));
        let info =
            inspector.native_with(|buf| buf.extend_from_slice(br#"{"ver":"1\u002e2","link":{}}"#));
        assert_eq!(info.ver.as_deref(), Some("1.2"));
    }

    #[test]
    fn the_legacy_root_alone_is_the_response() {
        let mut inspector = Inspector::new();
        let info = inspector.native(
            r#"{"native":{"ver":"1.2","link":{"url":"x"},"imptrackers":["a"]},"link":null,"ver":"9.9","imptrackers":["b","c"]}"#,
        );
        assert!(info.well_formed);
        assert_eq!(
            (
                info.ver.as_deref(),
                info.link,
                info.trackers,
                info.legacy_root
            ),
            (Some("1.2"), true, 1, true)
        );
        let info = inspector.native(r#"{"link":{},"native":{}}"#);
        assert_eq!((info.link, info.legacy_root), (false, true));
    }

    #[test]
    fn only_an_object_is_a_link() {
        let mut inspector = Inspector::new();
        for (m, link) in [
            (r#"{"link":{"url":"https://c/"}}"#, true),
            (r#"{"link":null}"#, false),
            (r#"{"link":"https://c/"}"#, false),
            (r#"{"link":[{"url":"https://c/"}]}"#, false),
            (r#"{"link":1}"#, false),
            (r#"{}"#, false),
        ] {
            let info = inspector.native(m);
            assert!(info.well_formed, "{m}: {:?}", info.error);
            assert_eq!(info.link, link, "{m}");
        }
        assert!(!inspector.native(r#"{"link":{"url":}}"#).well_formed);
    }

    #[test]
    fn inner_json_errors_have_their_offset() {
        let mut inspector = Inspector::new();
        for (m, byte) in [
            (r#"{"ver":"1.2","assets":[1,}"#, 25),
            (r#"{"assets":{}}"#, 11),
            ("<VAST/>", 0),
            ("[]", 1),
        ] {
            let info = inspector.native(m);
            assert!(!info.well_formed, "{m}");
            let error = info.error.unwrap();
            assert_eq!(error.byte, byte, "{m}: {}", error.message);
            assert!(!error.message.is_empty());
        }
        // The inspector is still usable and its scratch is empty between calls.
        assert!(inspector.native(r#"{"link":{}}"#).well_formed);
    }
}
