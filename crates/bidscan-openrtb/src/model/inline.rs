//! [`InlineVec`]: the list type of a bid's array members (`adomain`, `cat`, `attr`, `apis`), which keeps its first
//! few items inside the `Bid` and moves to the heap only past them.
//!
//! Why not a `Vec`: a bid in the spec's shape sends one or two items in each of these lists, and a `Vec` costs an
//! allocation per non-empty list (three per bid in the corpus, 144 of the 157 allocations of a 48-bid response).
//! Why not the `smallvec` crate: its `SmallVec<A: Array>` names its item type through a trait projection, which
//! makes it, and so `Bid<'a>` and `BidResponse<'a>`, invariant in `'a` (a `&'r BidResponse<'a>` could no longer
//! be used as a `&'r BidResponse<'r>`), and its `Drop` impl keeps `'a` alive until the response is dropped.
//! `InlineVec` is a plain enum of an array and a `Vec`: covariant, no `Drop` impl of its own, no `unsafe`.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{Deref, DerefMut};

use serde::ser::{Serialize, Serializer};

/// Sealing [`InlineItem`]: implemented here for the strings, code lists and status codes, next to `rules::Verdict`,
/// and next to `request::Format` for
/// a banner's sizes (so this module imports nothing of the model's structs).
pub(crate) mod sealed {
    pub trait Sealed {}
}

/// Item types an [`InlineVec`] holds: the model's strings and code lists, a banner's sizes, and validation's
/// verdicts and status codes (sealed).
///
/// An inline slot past the list's length holds [`UNUSED`](InlineItem::UNUSED) (an empty borrowed string, or
/// code 0), which is never visible through the list and costs nothing to create or drop.
pub trait InlineItem: Sized + sealed::Sealed {
    /// The value of an unused inline slot.
    const UNUSED: Self;
}

impl sealed::Sealed for std::borrow::Cow<'_, str> {}

/// A finding's seat-non-bid status code ([`Validated::statuscodes`](crate::rules::Validated::statuscodes)).
impl sealed::Sealed for Option<u16> {}

impl InlineItem for Option<u16> {
    const UNUSED: Self = None;
}

impl InlineItem for std::borrow::Cow<'_, str> {
    const UNUSED: Self = std::borrow::Cow::Borrowed("");
}

macro_rules! inline_codes {
    ($($code:ty),*) => {$(
        impl sealed::Sealed for $code {}
        impl InlineItem for $code {
            const UNUSED: Self = Self(0);
        }
    )*};
}

inline_codes!(
    crate::model::lists::ApiFramework,
    crate::model::lists::CategoryTaxonomy,
    crate::model::lists::CreativeAttribute,
    crate::model::lists::MarkupType,
    crate::model::lists::MediaRating,
    crate::model::lists::NoBidReason,
    crate::model::lists::Protocol,
    crate::model::lists::SlotPositionInPod
);

/// A list that holds up to `N` items inline and moves them to a `Vec` when a push exceeds `N` (`N` ≤ 255).
///
/// Reads like a slice (`Deref<Target = [T]>`: `len`, `iter`, indexing, `&list[..]`), compares equal to slices,
/// arrays, `Vec`s and other `InlineVec`s with equal items, and serializes as a JSON array, exactly like a `Vec`.
/// Its size is one word plus `N` items (an `InlineVec<Cow<str>, 1>` is 32 bytes, a `Vec` 24), and at least
/// a `Vec`'s 24 bytes plus a word.
#[derive(Clone)]
pub struct InlineVec<T, const N: usize>(Repr<T, N>);

#[derive(Clone)]
enum Repr<T, const N: usize> {
    /// `items[..len]` are the list; the rest are [`InlineItem::UNUSED`].
    Inline { len: u8, items: [T; N] },
    /// Past `N` items (never goes back inline).
    Heap(Vec<T>),
}

impl<T: InlineItem, const N: usize> InlineVec<T, N> {
    const FITS: () = assert!(
        N <= u8::MAX as usize,
        "an InlineVec holds at most 255 items inline"
    );

    /// An empty list (no allocation).
    pub const fn new() -> Self {
        let () = Self::FITS;
        InlineVec(Repr::Inline {
            len: 0,
            items: [const { T::UNUSED }; N],
        })
    }

    /// Appends `item`: in place while the list has fewer than `N` items; otherwise the items move to a `Vec`
    /// (one allocation, capacity `2 × N` or more) and stay there.
    pub fn push(&mut self, item: T) {
        match &mut self.0 {
            Repr::Inline { len, items } if usize::from(*len) < N => {
                items[usize::from(*len)] = item;
                *len += 1;
            }
            Repr::Inline { items, .. } => {
                let mut heap = Vec::with_capacity(N.max(2) * 2);
                heap.extend(std::mem::replace(items, [const { T::UNUSED }; N]));
                heap.push(item);
                self.0 = Repr::Heap(heap);
            }
            Repr::Heap(heap) => heap.push(item),
        }
    }
}

impl<T, const N: usize> InlineVec<T, N> {
    /// True once the items have moved to the heap.
    pub fn spilled(&self) -> bool {
        matches!(self.0, Repr::Heap(_))
    }

    /// The items as a `Vec` (allocates unless already spilled).
    pub fn into_vec(self) -> Vec<T> {
        match self.0 {
            Repr::Inline { len, items } => items.into_iter().take(usize::from(len)).collect(),
            Repr::Heap(heap) => heap,
        }
    }
}

impl<T: InlineItem, const N: usize> Default for InlineVec<T, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T, const N: usize> Deref for InlineVec<T, N> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match &self.0 {
            Repr::Inline { len, items } => &items[..usize::from(*len)],
            Repr::Heap(heap) => heap,
        }
    }
}

impl<T, const N: usize> DerefMut for InlineVec<T, N> {
    fn deref_mut(&mut self) -> &mut [T] {
        match &mut self.0 {
            Repr::Inline { len, items } => &mut items[..usize::from(*len)],
            Repr::Heap(heap) => heap,
        }
    }
}

impl<T: InlineItem, const N: usize> Extend<T> for InlineVec<T, N> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for item in iter {
            self.push(item);
        }
    }
}

impl<T: InlineItem, const N: usize> FromIterator<T> for InlineVec<T, N> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut list = Self::new();
        list.extend(iter);
        list
    }
}

impl<T: InlineItem, const N: usize> From<Vec<T>> for InlineVec<T, N> {
    /// Keeps the `Vec` as is when it holds more than `N` items; otherwise moves the items inline.
    fn from(items: Vec<T>) -> Self {
        if items.len() > N {
            InlineVec(Repr::Heap(items))
        } else {
            items.into_iter().collect()
        }
    }
}

impl<T: InlineItem, const N: usize, const K: usize> From<[T; K]> for InlineVec<T, N> {
    fn from(items: [T; K]) -> Self {
        items.into_iter().collect()
    }
}

impl<'l, T, const N: usize> IntoIterator for &'l InlineVec<T, N> {
    type Item = &'l T;
    type IntoIter = std::slice::Iter<'l, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'l, T, const N: usize> IntoIterator for &'l mut InlineVec<T, N> {
    type Item = &'l mut T;
    type IntoIter = std::slice::IterMut<'l, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl<T: fmt::Debug, const N: usize> fmt::Debug for InlineVec<T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: PartialEq<U>, U, const N: usize, const M: usize> PartialEq<InlineVec<U, M>>
    for InlineVec<T, N>
{
    fn eq(&self, other: &InlineVec<U, M>) -> bool {
        self[..] == other[..]
    }
}

impl<T: Eq, const N: usize> Eq for InlineVec<T, N> {}

impl<T: PartialEq<U>, U, const N: usize> PartialEq<[U]> for InlineVec<T, N> {
    fn eq(&self, other: &[U]) -> bool {
        self[..] == *other
    }
}

impl<T: PartialEq<U>, U, const N: usize> PartialEq<&[U]> for InlineVec<T, N> {
    fn eq(&self, other: &&[U]) -> bool {
        self[..] == **other
    }
}

impl<T: PartialEq<U>, U, const N: usize, const K: usize> PartialEq<[U; K]> for InlineVec<T, N> {
    fn eq(&self, other: &[U; K]) -> bool {
        self[..] == other[..]
    }
}

impl<T: PartialEq<U>, U, const N: usize> PartialEq<Vec<U>> for InlineVec<T, N> {
    fn eq(&self, other: &Vec<U>) -> bool {
        self[..] == other[..]
    }
}

impl<T: Hash, const N: usize> Hash for InlineVec<T, N> {
    /// Hashes like the slice of items (so like a `Vec` of them).
    fn hash<H: Hasher>(&self, state: &mut H) {
        self[..].hash(state);
    }
}

impl<T: Serialize, const N: usize> Serialize for InlineVec<T, N> {
    /// A JSON array of the items, exactly as a `Vec` of them serializes.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;
    use crate::model::lists::CreativeAttribute;

    #[test]
    fn stays_inline_up_to_n_then_spills_once() {
        let mut list: InlineVec<Cow<'_, str>, 2> = InlineVec::new();
        assert!(list.is_empty() && !list.spilled());
        list.push("a".into());
        list.push(Cow::Owned("b".to_owned()));
        assert_eq!(list, ["a", "b"]);
        assert!(!list.spilled());
        list.push("c".into());
        assert!(list.spilled());
        list.push("d".into());
        assert_eq!(list, vec!["a", "b", "c", "d"]);
        assert_eq!(list.into_vec(), vec!["a", "b", "c", "d"]);
    }

    #[test]
    fn reads_compares_and_serializes_like_a_vec() {
        let codes: InlineVec<CreativeAttribute, 4> =
            [1, 6, 3].into_iter().map(CreativeAttribute).collect();
        let vec: Vec<CreativeAttribute> = codes.iter().copied().collect();
        assert_eq!(codes.len(), 3);
        assert_eq!(codes[1], CreativeAttribute(6));
        assert_eq!(codes, vec);
        assert_eq!(codes, InlineVec::<CreativeAttribute, 1>::from(vec.clone()));
        assert_eq!(format!("{codes:?}"), format!("{vec:?}"));
        assert_eq!(
            serde_json::to_string(&codes).unwrap(),
            serde_json::to_string(&vec).unwrap()
        );
        let empty: InlineVec<CreativeAttribute, 4> = InlineVec::default();
        assert_eq!(serde_json::to_string(&empty).unwrap(), "[]");
        let mut codes = codes;
        codes[0] = CreativeAttribute(9);
        assert_eq!(
            codes,
            [
                CreativeAttribute(9),
                CreativeAttribute(6),
                CreativeAttribute(3)
            ]
        );
    }

    #[test]
    fn sizes() {
        use std::mem::size_of;
        assert_eq!(size_of::<InlineVec<Cow<'_, str>, 1>>(), 32);
        assert_eq!(size_of::<InlineVec<Cow<'_, str>, 2>>(), 56);
        assert_eq!(size_of::<InlineVec<CreativeAttribute, 4>>(), 40);
        assert_eq!(size_of::<InlineVec<CreativeAttribute, 2>>(), 32);
    }

    /// Compiles only if `InlineVec` is covariant in its item type (as `Vec` is).
    #[allow(dead_code)]
    fn covariant<'long: 'short, 'short>(
        list: InlineVec<Cow<'long, str>, 1>,
    ) -> InlineVec<Cow<'short, str>, 1> {
        list
    }
}
