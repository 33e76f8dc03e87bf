//! JSON pointers of decoded values: element positions in the typed values mapped back to the input.
//!
//! A dropped array element (`null`, wrong type) shifts the positions of the elements after it, and an array
//! given as a single object has no index segment at all; both facts are in the parent's coercions.
//!
//! Every pointer is written into one `String` of [`CAPACITY`] bytes (one allocation, never grown): no prefix
//! strings, no `fmt` machinery for the indexes.

use crate::checks::issue::{Coercion, CoercionKind};
use crate::model::response::BidResponse;

/// Capacity of a new pointer: enough for the longest one this crate writes,
/// `/seatbid/4294967295/bid/4294967295/qagmediarating/4294967295` (60 bytes).
const CAPACITY: usize = 64;

/// The object a coercion or finding belongs to, by position in the typed values.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Object {
    /// The bid response itself (pointer `""`).
    Response,
    /// Seat bid `seat` of `response.seatbid`.
    Seat(usize),
    /// Bid `bid` of seat bid `seat`.
    Bid(usize, usize),
}

/// Appends `/` and the decimal digits of `n`.
fn push_index(path: &mut String, n: usize) {
    path.push('/');
    if n < 10 {
        // Most positions: one digit, no loop.
        path.push(char::from(b'0' + n as u8));
        return;
    }
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = n;
    while n > 0 {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
    }
    path.extend(digits[at..].iter().map(|&d| char::from(d)));
}

/// Appends the pointer segment(s) of element `pos` of array member `field`, given its parent's coercions.
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
    push_index(path, source);
}

/// Appends the pointer of `object`.
fn push_object(path: &mut String, response: &BidResponse<'_>, object: Object) {
    match object {
        Object::Response => {}
        Object::Seat(seat) => push_element(path, &response.coercions, "seatbid", seat),
        Object::Bid(seat, bid) => {
            push_element(path, &response.coercions, "seatbid", seat);
            if let Some(s) = response.seatbid.get(seat) {
                push_element(path, &s.coercions, "bid", bid);
            }
        }
    }
}

/// Pointer of `object`, e.g. `/seatbid/0/bid/3`.
pub(crate) fn object(response: &BidResponse<'_>, object: Object) -> String {
    let mut path = String::with_capacity(CAPACITY);
    push_object(&mut path, response, object);
    path
}

/// Pointer of member `field` of `object`, e.g. `/seatbid/0/bid/3/price`.
pub(crate) fn field(response: &BidResponse<'_>, object: Object, field: &str) -> String {
    let mut path = String::with_capacity(CAPACITY);
    push_object(&mut path, response, object);
    path.push('/');
    path.push_str(field);
    path
}

/// Pointer of the value coercion `c` of `object` was applied to, e.g. `/seatbid/0/bid/3/attr/1`.
pub(crate) fn coerced(response: &BidResponse<'_>, object: Object, c: &Coercion) -> String {
    let mut path = self::field(response, object, c.field);
    if let Some(i) = c.index {
        push_index(&mut path, i as usize);
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexes_are_decimal() {
        for n in [0, 7, 10, 99, 100, 4_294_967_295, usize::MAX] {
            let mut path = String::new();
            push_index(&mut path, n);
            assert_eq!(path, format!("/{n}"));
        }
    }

    #[test]
    fn longest_pointer_fits_the_capacity() {
        let mut path = String::with_capacity(CAPACITY);
        for (field, i) in [("seatbid", u32::MAX), ("bid", u32::MAX)] {
            path.push('/');
            path.push_str(field);
            push_index(&mut path, i as usize);
        }
        path.push_str("/qagmediarating");
        push_index(&mut path, u32::MAX as usize);
        assert!(path.len() <= CAPACITY, "{path}");
        assert_eq!(path.capacity(), CAPACITY);
    }
}
