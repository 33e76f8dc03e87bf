//! Objects and arrays of objects: `seatbid`, `bid`; the request's `imp`, `banner`, `pmp`, ….

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::base::{Ctx, Deferred, FromMap, NOT_A_BID_RESPONSE, Refusal, defer, drain_seq};
use crate::checks::issue::{CoercionKind, JsonType};
use crate::model::inline::{InlineItem, InlineVec};

/// Where the objects of an array member go: a `Vec` (seat bids, bids, imps, deals), or an [`InlineVec`] for
/// small objects that usually come one or two at a time (a banner's `format`: no allocation up to its `N`).
pub(crate) trait ObjList<T>: Default {
    /// Appends a default element and hands it out to be read in place; `first_capacity` is
    /// [`FromMap::first_capacity`] (used by the first append of a `Vec`).
    fn add(&mut self, first_capacity: usize) -> &mut T;
    /// Number of elements.
    fn count(&self) -> usize;
}

impl<T: Default> ObjList<T> for Vec<T> {
    #[inline]
    fn add(&mut self, first_capacity: usize) -> &mut T {
        if self.capacity() == 0 {
            self.reserve_exact(first_capacity);
        }
        // `resize_with` reserves first and then writes the default straight into the new slot; `push` built
        // it on the stack and copied it in (a `Bid` is 776 bytes).
        self.resize_with(self.len() + 1, T::default);
        let last = self.len() - 1;
        &mut self[last]
    }
    fn count(&self) -> usize {
        self.len()
    }
}

impl<T: Default + InlineItem, const N: usize> ObjList<T> for InlineVec<T, N> {
    #[inline]
    fn add(&mut self, _first_capacity: usize) -> &mut T {
        self.push(T::default());
        let last = self.len() - 1;
        &mut self[last]
    }
    fn count(&self) -> usize {
        self.len()
    }
}

/// Reads the value of the current member as an array of objects (`seatbid`, `bid`). A single object is read as
/// a one-element array (`single_value`); elements that are not objects are dropped with an error. When `fatal`,
/// a string, number or boolean for the whole member is a structural error ([`Refusal::Response`]); otherwise it
/// is noted and read as empty.
pub(crate) fn objects<'de, A: MapAccess<'de>, T: FromMap<'de>, L: ObjList<T>>(
    map: &mut A,
    ctx: &mut Ctx<'_>,
    field: &'static str,
    fatal: bool,
) -> Result<L, A::Error> {
    map.next_value_seed(ObjListSeed::<T, L> {
        ctx,
        field,
        fatal,
        _t: PhantomData,
    })
}

struct ObjListSeed<'c, 'r, T, L> {
    ctx: &'c mut Ctx<'r>,
    field: &'static str,
    fatal: bool,
    _t: PhantomData<(T, L)>,
}

impl<T, L: ObjList<T>> ObjListSeed<'_, '_, T, L> {
    fn wrong<E: de::Error>(self, found: JsonType) -> Result<L, E> {
        if self.fatal {
            let doc = &mut *self.ctx.doc;
            defer(
                &mut doc.deferred,
                Deferred {
                    refusal: Refusal::Response,
                    message: format!(
                        "{NOT_A_BID_RESPONSE}: `{}` is {found}, not an array of objects",
                        self.field
                    ),
                    path: format!("{}/{}", doc.base, self.field),
                },
            );
            return Ok(L::default());
        }
        self.ctx.note(
            self.field,
            None,
            CoercionKind::InvalidType {
                expected: "an array of objects",
                found,
            },
        );
        Ok(L::default())
    }
}

impl<'de, T: FromMap<'de>, L: ObjList<T>> DeserializeSeed<'de> for ObjListSeed<'_, '_, T, L> {
    type Value = L;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, T: FromMap<'de>, L: ObjList<T>> Visitor<'de> for ObjListSeed<'_, '_, T, L> {
    type Value = L;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of objects")
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
        let mut out = L::default();
        let first_capacity = T::first_capacity(self.ctx.doc);
        let mut index = 0u32;
        loop {
            let seed = ObjSeed::<T, L> {
                ctx: &mut *self.ctx,
                field: self.field,
                index,
                out: &mut out,
                first_capacity,
                _t: PhantomData,
            };
            match seq.next_element_seed(seed)? {
                Some(true) => self.ctx.count_object()?,
                Some(false) => {}
                None => {
                    T::decoded_array(self.ctx.doc, out.count());
                    return Ok(out);
                }
            }
            index = index.saturating_add(1);
        }
    }
    fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<Self::Value, M::Error> {
        self.ctx.note(self.field, None, CoercionKind::SingleValue);
        let mut out = L::default();
        out.add(1).read_map(map, self.ctx.doc)?;
        self.ctx.count_object()?;
        T::decoded_array(self.ctx.doc, 1);
        Ok(out)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.ctx.note(self.field, None, CoercionKind::Null);
        Ok(L::default())
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.visit_unit()
    }
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
    fn visit_bool<E: de::Error>(self, _v: bool) -> Result<Self::Value, E> {
        self.wrong(JsonType::Bool)
    }
    fn visit_i64<E: de::Error>(self, _v: i64) -> Result<Self::Value, E> {
        self.wrong(JsonType::Number)
    }
    fn visit_u64<E: de::Error>(self, _v: u64) -> Result<Self::Value, E> {
        self.wrong(JsonType::Number)
    }
    fn visit_f64<E: de::Error>(self, _v: f64) -> Result<Self::Value, E> {
        self.wrong(JsonType::Number)
    }
    fn visit_str<E: de::Error>(self, _v: &str) -> Result<Self::Value, E> {
        self.wrong(JsonType::String)
    }
}

/// Reads one array element: an object is decoded in place, as a new last element of `out` (`true`); anything
/// else is noted and dropped (`false`).
struct ObjSeed<'c, 'r, 'o, T, L> {
    ctx: &'c mut Ctx<'r>,
    field: &'static str,
    index: u32,
    out: &'o mut L,
    _t: PhantomData<T>,
    /// Capacity `out` gets with its first element ([`FromMap::first_capacity`]; an empty array allocates nothing).
    first_capacity: usize,
}

impl<T, L> ObjSeed<'_, '_, '_, T, L> {
    fn drop_element(self, kind: CoercionKind) -> bool {
        self.ctx.note(self.field, Some(self.index), kind);
        false
    }
    fn wrong(self, found: JsonType) -> bool {
        self.drop_element(CoercionKind::InvalidType {
            expected: "an object",
            found,
        })
    }
}

impl<'de, T: FromMap<'de>, L: ObjList<T>> DeserializeSeed<'de> for ObjSeed<'_, '_, '_, T, L> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, T: FromMap<'de>, L: ObjList<T>> Visitor<'de> for ObjSeed<'_, '_, '_, T, L> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<Self::Value, M::Error> {
        self.out
            .add(self.first_capacity)
            .read_map(map, self.ctx.doc)?;
        Ok(true)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(self.drop_element(CoercionKind::Null))
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.visit_unit()
    }
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
    fn visit_seq<S: SeqAccess<'de>>(self, seq: S) -> Result<Self::Value, S::Error> {
        drain_seq(seq)?;
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
    fn visit_str<E: de::Error>(self, _v: &str) -> Result<Self::Value, E> {
        Ok(self.wrong(JsonType::String))
    }
}

/// Reads the value of the current member as one object (`imp.banner`, `imp.pmp`) into `slot`, in place (a
/// `Video` or `Pmp` is not moved out through the deserializer's layers): `null` is noted and read as absent, any
/// other type is noted as an error and read as absent. A repeated member replaces the earlier value.
pub(crate) fn object<'de, A: MapAccess<'de>, T: FromMap<'de>>(
    map: &mut A,
    ctx: &mut Ctx<'_>,
    field: &'static str,
    slot: &mut Option<T>,
) -> Result<(), A::Error> {
    map.next_value_seed(OneSeed::<T> { ctx, field, slot })
}

struct OneSeed<'c, 'r, 's, T> {
    ctx: &'c mut Ctx<'r>,
    field: &'static str,
    slot: &'s mut Option<T>,
}

impl<T> OneSeed<'_, '_, '_, T> {
    fn wrong(self, found: JsonType) {
        let kind = CoercionKind::InvalidType {
            expected: "an object",
            found,
        };
        self.ctx.note(self.field, None, kind);
        *self.slot = None;
    }
}

impl<'de, T: FromMap<'de>> DeserializeSeed<'de> for OneSeed<'_, '_, '_, T> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, T: FromMap<'de>> Visitor<'de> for OneSeed<'_, '_, '_, T> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<Self::Value, M::Error> {
        self.slot.insert(T::default()).read_map(map, self.ctx.doc)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.ctx.note(self.field, None, CoercionKind::Null);
        *self.slot = None;
        Ok(())
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.visit_unit()
    }
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
    fn visit_seq<S: SeqAccess<'de>>(self, seq: S) -> Result<Self::Value, S::Error> {
        drain_seq(seq)?;
        self.wrong(JsonType::Array);
        Ok(())
    }
    fn visit_bool<E: de::Error>(self, _v: bool) -> Result<Self::Value, E> {
        self.wrong(JsonType::Bool);
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _v: i64) -> Result<Self::Value, E> {
        self.wrong(JsonType::Number);
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _v: u64) -> Result<Self::Value, E> {
        self.wrong(JsonType::Number);
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _v: f64) -> Result<Self::Value, E> {
        self.wrong(JsonType::Number);
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _v: &str) -> Result<Self::Value, E> {
        self.wrong(JsonType::String);
        Ok(())
    }
}
