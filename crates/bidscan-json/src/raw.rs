//! `RawJson`: a value's exact bytes, validated by the reader but not built.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeStruct, Serializer};

/// The newtype-struct name that asks a deserializer for a value's raw text, and the struct name that asks a
/// serializer to write text verbatim.
///
/// It is the token serde_json uses for `serde_json::value::RawValue` (feature `raw_value`), so `RawJson` decodes
/// with both bidscan-json and serde_json and serializes verbatim through serde_json. The interop is pinned by tests
/// (`tests/raw_json.rs`): if serde_json ever changed its token, they fail.
pub const RAW_TOKEN: &str = "$serde_json::private::RawValue";

/// The exact text of one JSON value (object, array, string, number, literal) as it appeared in the input, with no
/// surrounding whitespace. The reader validates the value (RFC 8259) but builds nothing; strings inside are left
/// escaped as they were sent.
///
/// Used for OpenRTB `ext` objects and for an `adm` sent as an object, which are passed through verbatim.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct RawJson<'de>(&'de str);

impl<'de> RawJson<'de> {
    /// The raw text, e.g. `{"a":[1,2]}`.
    pub fn get(&self) -> &'de str {
        self.0
    }

    /// Wraps text the caller knows to be one valid JSON value (no validation here; used by tests and by code that
    /// already holds validated text).
    pub fn from_validated(text: &'de str) -> Self {
        RawJson(text)
    }
}

impl fmt::Debug for RawJson<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RawJson({})", self.0)
    }
}

impl fmt::Display for RawJson<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// Borrows from any input that outlives `'a` (so `#[serde(borrow)] ext: Option<RawJson<'a>>` works in derived
/// structs).
impl<'de: 'a, 'a> Deserialize<'de> for RawJson<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct RawVisitor;
        impl<'de> Visitor<'de> for RawVisitor {
            type Value = RawJson<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any valid JSON value")
            }
            // Protocol: a one-entry map whose key is RAW_TOKEN and whose value is the borrowed raw text.
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let key: Option<&'de str> = map.next_key()?;
                if key != Some(RAW_TOKEN) {
                    return Err(de::Error::custom(
                        "raw JSON requested from a deserializer that cannot borrow it",
                    ));
                }
                let text: &'de str = map.next_value()?;
                Ok(RawJson(text))
            }
        }
        deserializer.deserialize_newtype_struct(RAW_TOKEN, RawVisitor)
    }
}

impl Serialize for RawJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct(RAW_TOKEN, 1)?;
        s.serialize_field(RAW_TOKEN, self.0)?;
        s.end()
    }
}
