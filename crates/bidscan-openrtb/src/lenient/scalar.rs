//! Scalar members and arrays of scalars: strings, identifiers, floats, integers.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::base::{Ctx, drain_map, drain_seq};
use crate::checks::issue::{CoercionKind, JsonType};
use crate::model::inline::{InlineItem, InlineVec};

/// A value rejected by a [`Scalar`] reader.
pub(crate) enum Reject {
    Type(JsonType),
    Range,
}

/// A read value with the coercion applied to it, if any.
pub(crate) type Parsed<T> = Result<(T, Option<CoercionKind>), Reject>;

/// How one kind of scalar member accepts each JSON type.
pub(crate) trait Scalar<'de>: Sized {
    /// For messages: what the spec asks for.
    const EXPECTED: &'static str;
    /// For messages: what the spec asks for when the member is an array of this scalar.
    const EXPECTED_LIST: &'static str;
    fn borrowed(s: &'de str) -> Parsed<Self> {
        Self::transient(s)
    }
    fn transient(_s: &str) -> Parsed<Self> {
        Err(Reject::Type(JsonType::String))
    }
    fn unsigned(_v: u64) -> Parsed<Self> {
        Err(Reject::Type(JsonType::Number))
    }
    fn signed(_v: i64) -> Parsed<Self> {
        Err(Reject::Type(JsonType::Number))
    }
    fn float(_v: f64) -> Parsed<Self> {
        Err(Reject::Type(JsonType::Number))
    }
    fn boolean(_v: bool) -> Parsed<Self> {
        Err(Reject::Type(JsonType::Bool))
    }
}

/// A string member (URLs, markup, codes): strings only.
pub(crate) struct Text<'de>(pub Cow<'de, str>);

impl<'de> Scalar<'de> for Text<'de> {
    const EXPECTED: &'static str = "a string";
    const EXPECTED_LIST: &'static str = "an array of strings";
    fn borrowed(s: &'de str) -> Parsed<Self> {
        Ok((Text(Cow::Borrowed(s)), None))
    }
    fn transient(s: &str) -> Parsed<Self> {
        Ok((Text(Cow::Owned(s.to_owned())), None))
    }
}

/// An identifier member: a string, or a number read as its decimal text (`numeric_id`).
pub(crate) struct Ident<'de>(pub Cow<'de, str>);

impl<'de> Scalar<'de> for Ident<'de> {
    const EXPECTED: &'static str = "a string";
    const EXPECTED_LIST: &'static str = "an array of strings";
    fn borrowed(s: &'de str) -> Parsed<Self> {
        Ok((Ident(Cow::Borrowed(s)), None))
    }
    fn transient(s: &str) -> Parsed<Self> {
        Ok((Ident(Cow::Owned(s.to_owned())), None))
    }
    fn unsigned(v: u64) -> Parsed<Self> {
        Ok((
            Ident(Cow::Owned(v.to_string())),
            Some(CoercionKind::NumericId),
        ))
    }
    fn signed(v: i64) -> Parsed<Self> {
        Ok((
            Ident(Cow::Owned(v.to_string())),
            Some(CoercionKind::NumericId),
        ))
    }
    /// A number past the 64-bit integers, or with a fraction or exponent. Read as its decimal text only when
    /// that text is exact: an integer value (`1e2` → `"100"`) below 2^53, where binary64 holds every integer.
    /// A fraction (`123456789.123456789` would read `"123456789.12345679"`) or a magnitude past it
    /// (`12345678901234567890123`) would give digits never sent, so it is out of range, as a 64-bit integer
    /// member past `i64` is.
    fn float(v: f64) -> Parsed<Self> {
        /// 2^53: below it, binary64 holds every integer.
        const EXACT: f64 = 9_007_199_254_740_992.0;
        let v = finite(v)?;
        if v.fract() != 0.0 || v.abs() >= EXACT {
            return Err(Reject::Range);
        }
        Ok((
            Ident(Cow::Owned(v.to_string())),
            Some(CoercionKind::NumericId),
        ))
    }
}

/// Parses a number sent as a string: optional surrounding whitespace, then digits, sign, `.`, `e`/`E` only (so
/// `"NaN"`, `"inf"` and `"0x10"` are not numbers).
fn numeric_text(s: &str) -> Option<f64> {
    let t = s.trim();
    let first = *t.as_bytes().first()?;
    let ok_first = first.is_ascii_digit() || matches!(first, b'-' | b'+' | b'.');
    if !ok_first
        || !t
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'))
    {
        return None;
    }
    t.parse::<f64>().ok()
}

/// A finite `v`, else [`Reject::Range`]: a number past `f64`'s range (`1e400`) reaches a reader as ±infinity
/// (bidscan-json's `FloatOverflow::Infinity`).
fn finite(v: f64) -> Result<f64, Reject> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(Reject::Range)
    }
}

/// A float member (`price`, `bidfloor`): a number, or a number sent as a string. Kept even when infinite (`1e400`,
/// or `"1e400"`): the rules name that (`price_not_finite`, OpenRTB 2.6 §4.2.3 asks for a CPM) rather than the
/// reader.
pub(crate) struct Float(pub f64);

impl<'de> Scalar<'de> for Float {
    const EXPECTED: &'static str = "a number";
    const EXPECTED_LIST: &'static str = "an array of numbers";
    fn transient(s: &str) -> Parsed<Self> {
        numeric_text(s)
            .map(|v| (Float(v), Some(CoercionKind::NumberAsString)))
            .ok_or(Reject::Type(JsonType::String))
    }
    fn unsigned(v: u64) -> Parsed<Self> {
        Ok((Float(v as f64), None))
    }
    fn signed(v: i64) -> Parsed<Self> {
        Ok((Float(v as f64), None))
    }
    fn float(v: f64) -> Parsed<Self> {
        Ok((Float(v), None))
    }
}

/// An integer member: an integer, an integral float (`float_as_integer`), or either sent as a string.
pub(crate) struct Int(pub i64);

/// The integer value of an integral float within `i64`.
fn integral(v: f64) -> Result<i64, Reject> {
    // 2^63 is exactly representable; every float in [-2^63, 2^63) with no fraction converts exactly.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if !v.is_finite() {
        Err(Reject::Range)
    } else if v.fract() != 0.0 {
        Err(Reject::Type(JsonType::Number))
    } else if (-LIMIT..LIMIT).contains(&v) {
        Ok(v as i64)
    } else {
        Err(Reject::Range)
    }
}

impl<'de> Scalar<'de> for Int {
    const EXPECTED: &'static str = "an integer";
    const EXPECTED_LIST: &'static str = "an array of integers";
    fn transient(s: &str) -> Parsed<Self> {
        if let Ok(v) = s.trim().parse::<i64>() {
            return Ok((Int(v), Some(CoercionKind::NumberAsString)));
        }
        match numeric_text(s).map(integral) {
            Some(Ok(v)) => Ok((Int(v), Some(CoercionKind::NumberAsString))),
            Some(Err(Reject::Range)) => Err(Reject::Range),
            _ => Err(Reject::Type(JsonType::String)),
        }
    }
    fn unsigned(v: u64) -> Parsed<Self> {
        i64::try_from(v)
            .map(|v| (Int(v), None))
            .map_err(|_| Reject::Range)
    }
    fn signed(v: i64) -> Parsed<Self> {
        Ok((Int(v), None))
    }
    fn float(v: f64) -> Parsed<Self> {
        integral(v).map(|v| (Int(v), Some(CoercionKind::FloatAsInteger)))
    }
}

/// A 0/1 flag (`imp.secure`, OpenRTB 2.6 §3.2.4; `pmp.private_auction`; the response's `seatbid.group`): an
/// [`Int`], or a boolean (`true` is 1, `false` 0, `bool_as_flag`), as exchanges' JSON encoders write flags of
/// their own typed models.
pub(crate) struct Flag(pub i64);

impl<'de> Scalar<'de> for Flag {
    const EXPECTED: &'static str = Int::EXPECTED;
    const EXPECTED_LIST: &'static str = Int::EXPECTED_LIST;
    fn transient(s: &str) -> Parsed<Self> {
        Int::transient(s).map(|(v, c)| (Flag(v.0), c))
    }
    fn unsigned(v: u64) -> Parsed<Self> {
        Int::unsigned(v).map(|(v, c)| (Flag(v.0), c))
    }
    fn signed(v: i64) -> Parsed<Self> {
        Ok((Flag(v), None))
    }
    fn float(v: f64) -> Parsed<Self> {
        Int::float(v).map(|(v, c)| (Flag(v.0), c))
    }
    fn boolean(v: bool) -> Parsed<Self> {
        Ok((Flag(i64::from(v)), Some(CoercionKind::BoolAsFlag)))
    }
}

/// Reads one scalar member or array element; `None` when absent after a noted `null` or rejection.
struct ScalarSeed<'c, 'r, T> {
    ctx: &'c mut Ctx<'r>,
    field: &'static str,
    index: Option<u32>,
    _t: PhantomData<T>,
}

impl<T> ScalarSeed<'_, '_, T> {
    /// The value, noting its coercion or rejection. The spec's shape (accepted as is) is the inlined fast path;
    /// everything else is noted out of line.
    #[inline(always)]
    fn accept(self, parsed: Parsed<T>, expected: &'static str) -> Option<T> {
        match parsed {
            Ok((v, None)) => Some(v),
            other => self.note(other, expected),
        }
    }

    #[inline(never)]
    fn note(self, parsed: Parsed<T>, expected: &'static str) -> Option<T> {
        match parsed {
            Ok((v, coerced)) => {
                if let Some(kind) = coerced {
                    self.ctx.note(self.field, self.index, kind);
                }
                Some(v)
            }
            Err(Reject::Type(found)) => {
                self.ctx.note(
                    self.field,
                    self.index,
                    CoercionKind::InvalidType { expected, found },
                );
                None
            }
            Err(Reject::Range) => {
                self.ctx
                    .note(self.field, self.index, CoercionKind::OutOfRange);
                None
            }
        }
    }
}

impl<'de, T: Scalar<'de>> DeserializeSeed<'de> for ScalarSeed<'_, '_, T> {
    type Value = Option<T>;
    #[inline(always)]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, T: Scalar<'de>> Visitor<'de> for ScalarSeed<'_, '_, T> {
    type Value = Option<T>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(T::EXPECTED)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(self.accept(T::boolean(v), T::EXPECTED))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(self.accept(T::signed(v), T::EXPECTED))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(self.accept(T::unsigned(v), T::EXPECTED))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(self.accept(T::float(v), T::EXPECTED))
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(self.accept(T::borrowed(v), T::EXPECTED))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(self.accept(T::transient(v), T::EXPECTED))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.ctx.note(self.field, self.index, CoercionKind::Null);
        Ok(None)
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.visit_unit()
    }
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
    fn visit_seq<S: SeqAccess<'de>>(self, seq: S) -> Result<Self::Value, S::Error> {
        drain_seq(seq)?;
        Ok(self.accept(Err(Reject::Type(JsonType::Array)), T::EXPECTED))
    }
    fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<Self::Value, M::Error> {
        drain_map(map)?;
        Ok(self.accept(Err(Reject::Type(JsonType::Object)), T::EXPECTED))
    }
}

/// Reads the value of the current member as scalar `T`.
pub(crate) fn scalar<'de, A: MapAccess<'de>, T: Scalar<'de>>(
    map: &mut A,
    ctx: &mut Ctx<'_>,
    field: &'static str,
) -> Result<Option<T>, A::Error> {
    map.next_value_seed(ScalarSeed::<T> {
        ctx,
        field,
        index: None,
        _t: PhantomData,
    })
}

/// Reads the value of the current member as an array of scalar `T`, each item converted by `convert` (a single
/// `T` is accepted as a one-element array, `single_value`). Items go straight into the member's inline list: up
/// to `N` of them allocate nothing.
pub(crate) fn list<'de, A, T, U, F, const N: usize>(
    map: &mut A,
    ctx: &mut Ctx<'_>,
    field: &'static str,
    convert: F,
) -> Result<InlineVec<U, N>, A::Error>
where
    A: MapAccess<'de>,
    T: Scalar<'de>,
    U: InlineItem,
    F: Fn(T) -> U,
{
    map.next_value_seed(ListSeed::<T, F, N> {
        ctx,
        field,
        convert,
        _t: PhantomData,
    })
}

struct ListSeed<'c, 'r, T, F, const N: usize> {
    ctx: &'c mut Ctx<'r>,
    field: &'static str,
    convert: F,
    _t: PhantomData<T>,
}

impl<T, U: InlineItem, F: Fn(T) -> U, const N: usize> ListSeed<'_, '_, T, F, N> {
    fn one(self, parsed: Parsed<T>, expected: &'static str) -> InlineVec<U, N> {
        if parsed.is_ok() {
            self.ctx.note(self.field, None, CoercionKind::SingleValue);
        }
        let seed = ScalarSeed {
            ctx: self.ctx,
            field: self.field,
            index: None,
            _t: PhantomData,
        };
        seed.accept(parsed, expected)
            .map(&self.convert)
            .into_iter()
            .collect()
    }
}

impl<'de, T: Scalar<'de>, U: InlineItem, F: Fn(T) -> U, const N: usize> DeserializeSeed<'de>
    for ListSeed<'_, '_, T, F, N>
{
    type Value = InlineVec<U, N>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, T: Scalar<'de>, U: InlineItem, F: Fn(T) -> U, const N: usize> Visitor<'de>
    for ListSeed<'_, '_, T, F, N>
{
    type Value = InlineVec<U, N>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(T::EXPECTED_LIST)
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
        let mut out = InlineVec::new();
        let mut index = 0u32;
        loop {
            let seed = ScalarSeed::<T> {
                ctx: &mut *self.ctx,
                field: self.field,
                index: Some(index),
                _t: PhantomData,
            };
            match seq.next_element_seed(seed)? {
                Some(Some(v)) => out.push((self.convert)(v)),
                Some(None) => {}
                None => return Ok(out),
            }
            index = index.saturating_add(1);
        }
    }
    fn visit_bool<E: de::Error>(self, _v: bool) -> Result<Self::Value, E> {
        Ok(self.one(Err(Reject::Type(JsonType::Bool)), T::EXPECTED_LIST))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(self.one(T::signed(v), T::EXPECTED_LIST))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(self.one(T::unsigned(v), T::EXPECTED_LIST))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(self.one(T::float(v), T::EXPECTED_LIST))
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(self.one(T::borrowed(v), T::EXPECTED_LIST))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(self.one(T::transient(v), T::EXPECTED_LIST))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.ctx.note(self.field, None, CoercionKind::Null);
        Ok(InlineVec::new())
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.visit_unit()
    }
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
    fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<Self::Value, M::Error> {
        drain_map(map)?;
        Ok(self.one(Err(Reject::Type(JsonType::Object)), T::EXPECTED_LIST))
    }
}
