//! `Bid.adm`, the ad markup: a string by the spec (OpenRTB 2.6 §4.2.3), an object from some native bidders.

use std::borrow::Cow;
use std::fmt;

use bidscan_json::RawJson;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::checks::issue::{CoercionKind, JsonType};
use crate::lenient::{CowStr, Ctx};
use crate::output::compact::Compact;

/// The ad markup of a bid.
#[derive(Clone, Debug, PartialEq)]
pub enum Adm<'a> {
    /// Markup sent as a JSON string, as the spec wants: HTML, VAST XML, or a native response serialized as JSON
    /// text. Borrowed from the input (bidscan-json always borrows; serde_json owns escaped strings).
    Markup(Cow<'a, str>),
    /// Markup sent as a JSON object (lenient coercion `adm_object`), usually a native response.
    Object(AdmObject<'a>),
}

/// An `adm` sent as a JSON object: its members in input order, each value kept as raw JSON.
///
/// Canonical output writes `{"name":<raw value>,…}`: every member value verbatim but for whitespace outside
/// strings ([`crate::output::compact`]), member names re-escaped and the whitespace between members dropped.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct AdmObject<'a> {
    /// `(member name, raw value)` pairs in input order (duplicates kept).
    pub members: Vec<(Cow<'a, str>, RawJson<'a>)>,
}

impl AdmObject<'_> {
    /// The object's canonical JSON text (see the type docs).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

impl Serialize for AdmObject<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.members.len()))?;
        for (name, value) in &self.members {
            map.serialize_entry(name, &Compact(value))?;
        }
        map.end()
    }
}

impl Serialize for Adm<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Adm::Markup(text) => serializer.serialize_str(text),
            Adm::Object(object) => object.serialize(serializer),
        }
    }
}

/// What kind of markup a bid carries, sniffed from its first bytes (see [`AdmKind::sniff`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AdmKind {
    /// VAST (or other XML) document: starts with `<VAST` or `<?xml`.
    Vast,
    /// HTML or any other text markup: starts with `<` otherwise, or with anything else.
    Html,
    /// Native response: a JSON object, or a string starting with `{`.
    Native,
    /// No markup: `adm` absent or empty (the ad is served on the win notice, OpenRTB 2.6 §4.3.1).
    None,
}

impl AdmKind {
    /// Sniffs markup text: leading whitespace, a byte-order mark and up to four leading XML comments or
    /// `<!DOCTYPE …>` declarations are skipped; `<VAST` (any case) or `<?xml` → [`Vast`](AdmKind::Vast), `{` →
    /// [`Native`](AdmKind::Native), empty → [`None`](AdmKind::None), anything else → [`Html`](AdmKind::Html).
    pub fn sniff(markup: &str) -> AdmKind {
        let mut t = space(markup);
        if t.as_bytes().starts_with(b"<!") {
            t = skip_prolog(t);
        }
        let b = t.as_bytes();
        match b.first() {
            None => AdmKind::None,
            Some(b'{') => AdmKind::Native,
            Some(b'<')
                if b.len() >= 5
                    && (b[..5].eq_ignore_ascii_case(b"<vast") || &b[..5] == b"<?xml") =>
            {
                AdmKind::Vast
            }
            Some(_) => AdmKind::Html,
        }
    }
}

/// `t` without leading whitespace and a byte-order mark.
fn space(t: &str) -> &str {
    t.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == '\u{feff}')
}

/// `t` (starting with `<!`) past up to four XML comments or `<!DOCTYPE …>` declarations, which may come before the
/// root element (XML 1.0 §2.8, the prolog): `<!-- … --><VAST` is VAST. Each is skipped to its end.
#[cold]
fn skip_prolog(mut t: &str) -> &str {
    for _ in 0..4 {
        if let Some(rest) = t.strip_prefix("<!--") {
            let Some(end) = rest.find("-->") else { break };
            t = space(&rest[end + 3..]);
        } else if t.len() >= 9 && t.as_bytes()[..9].eq_ignore_ascii_case(b"<!doctype") {
            let Some(end) = t.find('>') else { break };
            t = space(&t[end + 1..]);
        } else {
            break;
        }
    }
    t
}

impl Adm<'_> {
    /// The markup kind: an object is [`AdmKind::Native`]; a string is sniffed.
    pub fn kind(&self) -> AdmKind {
        match self {
            Adm::Markup(text) => AdmKind::sniff(text),
            Adm::Object(_) => AdmKind::Native,
        }
    }

    /// Size in bytes: of the decoded string, or of the object's canonical JSON text.
    pub fn len_bytes(&self) -> usize {
        match self {
            Adm::Markup(text) => text.len(),
            Adm::Object(object) => object.to_json().len(),
        }
    }

    /// The markup text when `adm` was a string.
    pub fn as_markup(&self) -> Option<&str> {
        match self {
            Adm::Markup(text) => Some(text),
            Adm::Object(_) => None,
        }
    }

    /// True for an empty string.
    pub fn is_empty(&self) -> bool {
        matches!(self, Adm::Markup(text) if text.is_empty())
    }
}

/// Reads the value of the current member as `adm`.
pub(crate) fn read<'de, A: MapAccess<'de>>(
    map: &mut A,
    ctx: &mut Ctx<'_>,
) -> Result<Option<Adm<'de>>, A::Error> {
    map.next_value_seed(AdmSeed { ctx })
}

struct AdmSeed<'c, 'r> {
    ctx: &'c mut Ctx<'r>,
}

impl AdmSeed<'_, '_> {
    fn wrong(self, found: JsonType) -> Option<Adm<'static>> {
        self.ctx.note(
            "adm",
            None,
            CoercionKind::InvalidType {
                expected: "a string",
                found,
            },
        );
        None
    }
}

impl<'de> DeserializeSeed<'de> for AdmSeed<'_, '_> {
    type Value = Option<Adm<'de>>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for AdmSeed<'_, '_> {
    type Value = Option<Adm<'de>>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ad markup (a string)")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Some(Adm::Markup(Cow::Borrowed(v))))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(Adm::Markup(Cow::Owned(v.to_owned()))))
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        self.ctx.note("adm", None, CoercionKind::AdmObject);
        let mut members = Vec::new();
        while let Some(CowStr(name)) = map.next_key::<CowStr<'de>>()? {
            let value: RawJson<'de> = map.next_value()?;
            members.push((name, value));
        }
        Ok(Some(Adm::Object(AdmObject { members })))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.ctx.note("adm", None, CoercionKind::Null);
        Ok(None)
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.visit_unit()
    }
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
        while seq.next_element::<de::IgnoredAny>()?.is_some() {}
        Ok(self.wrong(JsonType::Array))
    }
    fn visit_bool<E: de::Error>(self, _v: bool) -> Result<Self::Value, E> {
        Ok(self.wrong(JsonType::Bool))
    }
    fn visit_i64<E: de::Error>(self, _v: i64) -> Result<Self::Value, E> {
        Ok(self.wrong(JsonType::Number))
    }
    fn visit_u64<E: de::Error>(self, _v: u64) -> Result<Self::Value, E> {
        Ok(self.wrong(JsonType::Number))
    }
    fn visit_f64<E: de::Error>(self, _v: f64) -> Result<Self::Value, E> {
        Ok(self.wrong(JsonType::Number))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_markup_kinds() {
        assert_eq!(AdmKind::sniff("<VAST version=\"4.0\">"), AdmKind::Vast);
        assert_eq!(
            AdmKind::sniff("  \n<?xml version=\"1.0\"?><VAST>"),
            AdmKind::Vast
        );
        assert_eq!(AdmKind::sniff("\u{feff}<vast>"), AdmKind::Vast);
        assert_eq!(AdmKind::sniff("<div>ad</div>"), AdmKind::Html);
        assert_eq!(AdmKind::sniff("<VA"), AdmKind::Html);
        assert_eq!(AdmKind::sniff("{\"native\":{}}"), AdmKind::Native);
        assert_eq!(AdmKind::sniff(" \t"), AdmKind::None);
        assert_eq!(AdmKind::sniff("document.write('x')"), AdmKind::Html);
    }
}
