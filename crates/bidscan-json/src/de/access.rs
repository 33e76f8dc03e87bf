//! Element, entry, key, enum-variant and raw-value access handed to serde visitors. Each keeps the innermost path
//! segment current (one store per element or key) so errors can name the value being decoded.

use serde::de::{self, DeserializeSeed, Visitor};
use serde::forward_to_deserialize_any;

use super::Deserializer;
use crate::error::{Error, ErrorKind, Result};
use crate::number::{self, Number};
use crate::path::Seg;
use crate::raw::RAW_TOKEN;

/// Elements of an array (after its `[`).
pub(super) struct SeqAccess<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    index: usize,
}

impl<'a, 'de> SeqAccess<'a, 'de> {
    pub(super) fn new(de: &'a mut Deserializer<'de>) -> Self {
        SeqAccess { de, index: 0 }
    }
}

impl<'de> de::SeqAccess<'de> for SeqAccess<'_, 'de> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let de = &mut *self.de;
        match de.ws() {
            Some(b']') => {
                de.set_seg(Seg::Pending);
                return Ok(None);
            }
            Some(b',') if self.index != 0 => {
                de.idx += 1;
                match de.ws() {
                    Some(b']') => return Err(de.error(ErrorKind::Syntax, "trailing comma")),
                    None => return Err(de.eof("EOF while parsing a list")),
                    Some(_) => {}
                }
            }
            Some(_) if self.index == 0 => {}
            Some(_) => return Err(de.error(ErrorKind::Syntax, "expected `,` or `]`")),
            None => return Err(de.eof("EOF while parsing a list")),
        }
        de.set_seg(Seg::Index(self.index));
        self.index += 1;
        match seed.deserialize(&mut *de) {
            Ok(value) => Ok(Some(value)),
            Err(e) => Err(de.fix(e)),
        }
    }
}

/// Entries of an object (after its `{`).
pub(super) struct MapAccess<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    first: bool,
}

impl<'a, 'de> MapAccess<'a, 'de> {
    pub(super) fn new(de: &'a mut Deserializer<'de>) -> Self {
        MapAccess { de, first: true }
    }
}

impl<'de> de::MapAccess<'de> for MapAccess<'_, 'de> {
    type Error = Error;

    #[inline(always)]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let de = &mut *self.de;
        let next = match de.ws() {
            Some(b'}') => {
                de.set_seg(Seg::Pending);
                return Ok(None);
            }
            Some(b',') if !self.first => {
                de.idx += 1;
                de.ws()
            }
            Some(b) if self.first => {
                self.first = false;
                Some(b)
            }
            Some(_) => return Err(de.error(ErrorKind::Syntax, "expected `,` or `}`")),
            None => return Err(de.eof("EOF while parsing an object")),
        };
        match next {
            // The innermost segment still names the last member: `MapKey` makes it `Pending` before anything
            // that can fail while the key is read, and `Key` once it is (a store fewer per member).
            Some(b'"') => match seed.deserialize(MapKey { de: &mut *de }) {
                Ok(key) => Ok(Some(key)),
                Err(e) => Err(de.fix(e)),
            },
            Some(b'}') => Err(de.error(ErrorKind::Syntax, "trailing comma")),
            Some(_) => Err(de.error(ErrorKind::Syntax, "key must be a string")),
            None => Err(de.eof("EOF while parsing an object")),
        }
    }

    #[inline(always)]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let de = &mut *self.de;
        de.colon()?;
        seed.deserialize(&mut *de).map_err(|e| de.fix(e))
    }
}

/// An object key (read position on its opening quote). Keys are strings; like serde_json, a key can also be read
/// as a number or bool written inside the string (`{"7":…}` into a `HashMap<u32, _>`).
struct MapKey<'a, 'de> {
    de: &'a mut Deserializer<'de>,
}

impl<'de> MapKey<'_, 'de> {
    /// Decodes the key and records it as the innermost path segment. A key that ends within 16 bytes without an
    /// escape cannot fail; any other is read with the segment `Pending`, so its errors name the object, not the
    /// member before it.
    #[inline(always)]
    fn key(&mut self) -> Result<&'de str> {
        let key = match self.de.short_str() {
            Some(key) => key,
            None => {
                self.de.set_seg(Seg::Pending);
                self.de.parse_str_long()?
            }
        };
        self.de.set_seg(Seg::Key(key));
        Ok(key)
    }

    fn number<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        let key = self.key()?;
        let parsed = match number::parse(key.as_bytes(), 0) {
            Ok((n, end)) if end == key.len() => n,
            _ => {
                return Err(self
                    .de
                    .error(ErrorKind::Custom, "expected a number in the key string"));
            }
        };
        let result = match parsed {
            Number::U64(n) => visitor.visit_u64(n),
            Number::I64(n) => visitor.visit_i64(n),
            Number::F64(n) => visitor.visit_f64(n),
        };
        result.map_err(|e| self.de.fix(e))
    }
}

impl<'de> de::Deserializer<'de> for MapKey<'_, 'de> {
    type Error = Error;

    #[inline(always)]
    fn deserialize_any<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        let key = self.key()?;
        visitor.visit_borrowed_str(key).map_err(|e| self.de.fix(e))
    }

    fn deserialize_bool<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        let value = match self.key()? {
            "true" => true,
            "false" => false,
            _ => {
                return Err(self.de.error(
                    ErrorKind::Custom,
                    "expected `true` or `false` in the key string",
                ));
            }
        };
        visitor.visit_bool(value).map_err(|e| self.de.fix(e))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        mut self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let key = self.key()?;
        visitor
            .visit_enum(de::value::BorrowedStrDeserializer::new(key))
            .map_err(|e| self.de.fix(e))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.de.set_seg(Seg::Pending);
        self.de.skip_str()?;
        visitor.visit_unit()
    }

    fn deserialize_i8<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.number(v)
    }
    fn deserialize_i16<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.number(v)
    }
    fn deserialize_i32<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.number(v)
    }
    fn deserialize_i64<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.number(v)
    }
    fn deserialize_u8<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.number(v)
    }
    fn deserialize_u16<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.number(v)
    }
    fn deserialize_u32<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.number(v)
    }
    fn deserialize_u64<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.number(v)
    }
    fn deserialize_f32<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.number(v)
    }
    fn deserialize_f64<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.number(v)
    }

    forward_to_deserialize_any! {
        i128 u128 char str string bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier
    }
}

/// `{"Variant": value}` for an enum (after the `{`).
pub(super) struct EnumAccess<'a, 'de> {
    de: &'a mut Deserializer<'de>,
}

impl<'a, 'de> EnumAccess<'a, 'de> {
    pub(super) fn new(de: &'a mut Deserializer<'de>) -> Self {
        EnumAccess { de }
    }
}

impl<'de, 'a> de::EnumAccess<'de> for EnumAccess<'a, 'de> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self)> {
        match self.de.ws() {
            Some(b'"') => {}
            Some(_) => return Err(self.de.error(ErrorKind::Syntax, "key must be a string")),
            None => return Err(self.de.eof("EOF while parsing an object")),
        }
        let variant = seed
            .deserialize(MapKey { de: &mut *self.de })
            .map_err(|e| self.de.fix(e))?;
        self.de.colon()?;
        Ok((variant, self))
    }
}

impl<'de> de::VariantAccess<'de> for EnumAccess<'_, 'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        de::Deserialize::deserialize(self.de)
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(self.de)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_seq(self.de, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_struct(self.de, "", &[], visitor)
    }
}

/// The raw-value protocol: a one-entry map `{RAW_TOKEN: raw text}`.
pub(super) struct RawAccess<'de> {
    raw: Option<&'de str>,
}

impl<'de> RawAccess<'de> {
    pub(super) fn new(raw: &'de str) -> Self {
        RawAccess { raw: Some(raw) }
    }
}

impl<'de> de::MapAccess<'de> for RawAccess<'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.raw.is_none() {
            return Ok(None);
        }
        seed.deserialize(de::value::BorrowedStrDeserializer::new(RAW_TOKEN))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        match self.raw.take() {
            Some(raw) => seed.deserialize(de::value::BorrowedStrDeserializer::new(raw)),
            None => Err(de::Error::custom("raw value already taken")),
        }
    }
}
