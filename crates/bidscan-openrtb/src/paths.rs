//! JSON pointers of decoded values: element positions in the typed values mapped back to the input.
//!
//! A dropped array element (`null`, wrong type) shifts the positions of the elements after it, and an array
//! given as a single object has no index segment at all; both facts are in the parent's coercions.

use std::fmt::Write;

use crate::issue::{Coercion, CoercionKind};
use crate::response::BidResponse;

/// The JSON pointer segment(s) of element `pos` of array member `field`, given its parent's coercions.
fn push_element(path: &mut String, records: &[Coercion], field: &'static str, pos: usize) {
    path.push('/');
    path.push_str(field);
    if records
        .iter()
        .any(|c| c.field == field && c.index.is_none() && c.kind == CoercionKind::SingleValue)
    {
        return;
    }
    let mut source = pos;
    for c in records {
        let dropped = matches!(
            c.kind,
            CoercionKind::Null | CoercionKind::InvalidType { .. }
        );
        match c.index {
            Some(i) if c.field == field && dropped && i as usize <= source => source += 1,
            _ => {}
        }
    }
    let _ = write!(path, "/{source}");
}

/// Pointer of seat bid `seat` (position in `response.seatbid`), e.g. `/seatbid/0`.
pub(crate) fn seat(response: &BidResponse<'_>, seat: usize) -> String {
    let mut path = String::new();
    push_element(&mut path, &response.coercions, "seatbid", seat);
    path
}

/// Pointer of bid `bid` of seat bid `seat` (positions in the typed values), e.g. `/seatbid/0/bid/3`.
pub(crate) fn bid(response: &BidResponse<'_>, seat: usize, bid: usize) -> String {
    let mut path = self::seat(response, seat);
    if let Some(s) = response.seatbid.get(seat) {
        push_element(&mut path, &s.coercions, "bid", bid);
    }
    path
}

/// Pointer of the value a coercion was applied to, below the pointer `prefix` of its object.
pub(crate) fn member(prefix: &str, c: &Coercion) -> String {
    let mut path = String::with_capacity(prefix.len() + c.field.len() + 4);
    path.push_str(prefix);
    path.push('/');
    path.push_str(c.field);
    if let Some(i) = c.index {
        let _ = write!(path, "/{i}");
    }
    path
}

/// Pointer of member `field` of the object at `prefix`.
pub(crate) fn field(prefix: &str, field: &str) -> String {
    let mut path = String::with_capacity(prefix.len() + field.len() + 1);
    path.push_str(prefix);
    path.push('/');
    path.push_str(field);
    path
}
