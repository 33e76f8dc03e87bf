//! `serde::Deserializer` for `&mut Deserializer`: the self-describing dispatch (`deserialize_any`), which most
//! typed requests forward to, plus the few requests that need their own handling (option, raw newtype, enum,
//! bytes, ignored values). Semantics follow serde_json's.

use serde::de::{self, Visitor};
use serde::forward_to_deserialize_any;

use super::Deserializer;
use super::access::{EnumAccess, MapAccess, RawAccess, SeqAccess};
use crate::error::{Error, ErrorKind, Result};
use crate::number::Number;
use crate::path::Seg;
use crate::raw::RAW_TOKEN;

impl<'de> Deserializer<'de> {
    /// `[`: enter, let the visitor read the elements, then require `]`.
    fn visit_array<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        self.enter()?;
        let saved = self.path.len();
        self.path.push(Seg::Pending);
        let result = match visitor.visit_seq(SeqAccess::new(self)) {
            Ok(value) => self.end_seq().map(|()| value),
            Err(e) => Err(e),
        };
        let result = result.map_err(|e| self.fix(e));
        self.path.truncate(saved);
        self.depth -= 1;
        result
    }

    /// `{`: enter, let the visitor read the entries, then require `}`.
    fn visit_object<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        self.enter()?;
        let saved = self.path.len();
        self.path.push(Seg::Pending);
        let result = match visitor.visit_map(MapAccess::new(self)) {
            Ok(value) => self.end_map().map(|()| value),
            Err(e) => Err(e),
        };
        let result = result.map_err(|e| self.fix(e));
        self.path.truncate(saved);
        self.depth -= 1;
        result
    }

    /// The integer at the read position converted by `parse`, with the index after it; `None` when there is no
    /// integer there or it does not fit.
    fn integer_128<N>(&mut self, parse: impl Fn(&str) -> Option<N>) -> Option<(N, usize)> {
        match self.ws()? {
            b'-' | b'0'..=b'9' => {
                let (text, end) = crate::number::integer_text(self.input, self.idx)?;
                Some((parse(text)?, end))
            }
            _ => None,
        }
    }

    /// `deserialize_any` past its inline short-string case: the value at the read position, whatever it is.
    #[inline]
    fn any_value<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        let result = match self.ws() {
            Some(b'"') => {
                let s = self.parse_str()?;
                visitor.visit_borrowed_str(s)
            }
            Some(b'{') => return self.visit_object(visitor),
            Some(b'[') => return self.visit_array(visitor),
            Some(b'-' | b'0'..=b'9') => match self.parse_number()? {
                Number::U64(n) => visitor.visit_u64(n),
                Number::I64(n) => visitor.visit_i64(n),
                Number::F64(n) => visitor.visit_f64(n),
            },
            Some(b't') => {
                self.parse_literal(b"true")?;
                visitor.visit_bool(true)
            }
            Some(b'f') => {
                self.parse_literal(b"false")?;
                visitor.visit_bool(false)
            }
            Some(b'n') => {
                self.parse_literal(b"null")?;
                visitor.visit_unit()
            }
            Some(_) => return Err(self.error(ErrorKind::Syntax, "expected value")),
            None => return Err(self.eof("EOF while parsing a value")),
        };
        result.map_err(|e| self.fix(e))
    }

    fn end_seq(&mut self) -> Result<()> {
        match self.ws() {
            Some(b']') => {
                self.idx += 1;
                Ok(())
            }
            Some(b',') => {
                self.idx += 1;
                match self.ws() {
                    Some(b']') => Err(self.error(ErrorKind::Syntax, "trailing comma")),
                    _ => Err(self.error(ErrorKind::TrailingCharacters, "trailing characters")),
                }
            }
            Some(_) => Err(self.error(ErrorKind::TrailingCharacters, "trailing characters")),
            None => Err(self.eof("EOF while parsing a list")),
        }
    }

    fn end_map(&mut self) -> Result<()> {
        match self.ws() {
            Some(b'}') => {
                self.idx += 1;
                Ok(())
            }
            Some(b',') => Err(self.error(ErrorKind::Syntax, "trailing comma")),
            Some(_) => Err(self.error(ErrorKind::TrailingCharacters, "trailing characters")),
            None => Err(self.eof("EOF while parsing an object")),
        }
    }
}

impl<'de> de::Deserializer<'de> for &mut Deserializer<'de> {
    type Error = Error;

    /// A string that ends within 16 bytes without an escape (most ids and codes) is handed to the visitor
    /// inline; every other value goes to [`any_value`](Deserializer::any_value).
    #[inline(always)]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.ws() == Some(b'"')
            && let Some(s) = self.short_str()
        {
            return visitor.visit_borrowed_str(s).map_err(|e| self.fix(e));
        }
        self.any_value(visitor)
    }

    #[inline]
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.ws() == Some(b'n') {
            self.parse_literal(b"null")?;
            visitor.visit_none().map_err(|e| self.fix(e))
        } else {
            visitor.visit_some(self)
        }
    }

    /// `RAW_TOKEN` asks for the value's raw text (the `RawJson` / serde_json `RawValue` protocol).
    #[inline]
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        if name == RAW_TOKEN {
            let raw = self.raw_value()?;
            return visitor
                .visit_map(RawAccess::new(raw))
                .map_err(|e| self.fix(e));
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.ws() {
            Some(b'"') => {
                let s = self.parse_str()?;
                visitor
                    .visit_enum(de::value::BorrowedStrDeserializer::new(s))
                    .map_err(|e| self.fix(e))
            }
            Some(b'{') => {
                self.enter()?;
                let saved = self.path.len();
                self.path.push(Seg::Pending);
                let result = visitor.visit_enum(EnumAccess::new(self));
                let result = match result {
                    Ok(value) => match self.ws() {
                        Some(b'}') => {
                            self.idx += 1;
                            Ok(value)
                        }
                        Some(_) => Err(self.error(ErrorKind::Syntax, "expected `}`")),
                        None => Err(self.eof("EOF while parsing an object")),
                    },
                    Err(e) => Err(e),
                };
                let result = result.map_err(|e| self.fix(e));
                self.path.truncate(saved);
                self.depth -= 1;
                result
            }
            Some(_) => Err(self.error(
                ErrorKind::Custom,
                "expected a string or an object for an enum",
            )),
            None => Err(self.eof("EOF while parsing a value")),
        }
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.ws() == Some(b'"') {
            let s = self.parse_str()?;
            return visitor
                .visit_borrowed_bytes(s.as_bytes())
                .map_err(|e| self.fix(e));
        }
        self.deserialize_any(visitor)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_bytes(visitor)
    }

    /// Integers beyond 64 bits are read exactly (as serde_json does); anything else as `deserialize_any`.
    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some((n, end)) = self.integer_128(|t| t.parse::<i128>().ok()) {
            self.idx = end;
            return visitor.visit_i128(n).map_err(|e| self.fix(e));
        }
        self.deserialize_any(visitor)
    }

    /// See `deserialize_i128`.
    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some((n, end)) = self.integer_128(|t| t.parse::<u128>().ok()) {
            self.idx = end;
            return visitor.visit_u128(n).map_err(|e| self.fix(e));
        }
        self.deserialize_any(visitor)
    }

    /// A float is rounded once, straight to `f32` (as serde_json with `float_roundtrip` and std's `parse::<f32>`);
    /// beyond `f32`'s range is "number out of range" (±infinity with `FloatOverflow::Infinity`). Integers and other
    /// values as `deserialize_any`.
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some(b'-' | b'0'..=b'9') = self.ws() {
            match crate::number::parse_f32(self.input, self.idx) {
                Ok(Some((value, end))) => {
                    self.idx = end;
                    return visitor.visit_f32(value).map_err(|e| self.fix(e));
                }
                Ok(None) => {}
                Err(error) => {
                    let Some((negative, end)) = self.overflowed(&error) else {
                        return Err(self.error_at(error.0, error.2, self.origin + error.1));
                    };
                    self.idx = end;
                    let value = if negative {
                        f32::NEG_INFINITY
                    } else {
                        f32::INFINITY
                    };
                    return visitor.visit_f32(value).map_err(|e| self.fix(e));
                }
            }
        }
        self.deserialize_any(visitor)
    }

    /// Skipped without decoding (strings are only scanned for their end), but fully validated.
    #[inline]
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.skip_value()?;
        visitor.visit_unit().map_err(|e| self.fix(e))
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 u8 u16 u32 u64 f64 char str string
        unit unit_struct seq tuple tuple_struct map struct identifier
    }
}
