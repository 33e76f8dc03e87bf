//! The writing half of the wire format: varints, tags, scalars, length-delimited fields and groups appended to a
//! `Vec<u8>`, from the encoding guide (<https://protobuf.dev/programming-guides/encoding/>).
//!
//! An embedded message whose length is not known before it is written is opened with [`begin_len`] and closed
//! with [`end_len`], which back-patches its length: one byte is reserved for it, and the message's bytes are
//! moved right in place when the length needs more (a message of 128 bytes or more), so a document is written
//! in one pass into one buffer.

use crate::wire::WireType;

/// Appends the varint encoding of `value` to `out` (the encoding guide's "Base 128 Varints": 1 to 10 bytes).
pub fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// The number of bytes of `value`'s varint encoding, 1 to 10.
pub fn varint_len(value: u64) -> usize {
    // 7 payload bits a byte; 0 needs one byte.
    let bits = 64 - (value | 1).leading_zeros() as usize;
    bits.div_ceil(7)
}

/// Appends the tag of field `number` with wire type `wire` to `out` (`number` is at most
/// [`MAX_FIELD_NUMBER`](crate::MAX_FIELD_NUMBER); the caller's to keep).
pub fn put_tag(out: &mut Vec<u8>, number: u32, wire: WireType) {
    put_varint(out, (u64::from(number) << 3) | wire as u64);
}

/// Appends a length-delimited field (`LEN`: a string, bytes, an embedded message) to `out`.
pub fn put_len(out: &mut Vec<u8>, number: u32, bytes: &[u8]) {
    put_tag(out, number, WireType::Len);
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// Appends an `int32` field: a negative value is sign-extended to 64 bits (10 bytes), as the encoding guide
/// says and reference encoders write it.
pub fn put_int32(out: &mut Vec<u8>, number: u32, value: i32) {
    put_tag(out, number, WireType::Varint);
    put_varint(out, i64::from(value) as u64);
}

/// Appends a `bool` field (a varint 0 or 1).
pub fn put_bool(out: &mut Vec<u8>, number: u32, value: bool) {
    put_tag(out, number, WireType::Varint);
    out.push(u8::from(value));
}

/// Appends a `double` field (`I64`: the IEEE 754 bits, little-endian).
pub fn put_double(out: &mut Vec<u8>, number: u32, value: f64) {
    put_tag(out, number, WireType::I64);
    out.extend_from_slice(&value.to_le_bytes());
}

/// Appends a packed repeated `int32` field (one `LEN` field holding the varints; nothing when `values` is
/// empty, as reference encoders write an empty packed field).
pub fn put_packed_int32(out: &mut Vec<u8>, number: u32, values: impl IntoIterator<Item = i32>) {
    let start = begin_len(out, number);
    for v in values {
        put_varint(out, i64::from(v) as u64);
    }
    if out.len() == start.body {
        out.truncate(start.tag);
    } else {
        end_len(out, start);
    }
}

/// Appends a group field (wire types 3 and 4): the start tag, `bytes` (the group's fields), the end tag.
pub fn put_group(out: &mut Vec<u8>, number: u32, bytes: &[u8]) {
    put_tag(out, number, WireType::StartGroup);
    out.extend_from_slice(bytes);
    put_tag(out, number, WireType::EndGroup);
}

/// An open length-delimited field (see [`begin_len`]): where its tag and its body start in the buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use = "a field opened with begin_len is closed with end_len"]
pub struct LenStart {
    /// Offset of the field's tag.
    pub tag: usize,
    /// Offset of the field's body (after the one byte reserved for its length).
    pub body: usize,
}

/// Opens a length-delimited field of `number` whose body the caller appends next: writes the tag and reserves
/// one byte for the length. Close it with [`end_len`]; fields opened inside it are closed first.
pub fn begin_len(out: &mut Vec<u8>, number: u32) -> LenStart {
    let tag = out.len();
    put_tag(out, number, WireType::Len);
    out.push(0);
    LenStart {
        tag,
        body: out.len(),
    }
}

/// Closes the field `start` opened: writes the length of the bytes appended since, moving them right when the
/// length takes more than the one byte reserved.
pub fn end_len(out: &mut Vec<u8>, start: LenStart) {
    let len = out.len() - start.body;
    let n = varint_len(len as u64);
    let at = start.body - 1;
    if n > 1 {
        out.resize(out.len() + n - 1, 0);
        out.copy_within(start.body..start.body + len, start.body + n - 1);
    }
    let mut v = len as u64;
    for i in 0..n {
        let more = if i + 1 < n { 0x80 } else { 0 };
        out[at + i] = (v as u8 & 0x7f) | more;
        v >>= 7;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Limits, Message};

    #[test]
    fn varints_as_the_encoding_guide_shows_them() {
        let mut out = Vec::new();
        put_varint(&mut out, 150);
        assert_eq!(out, [0x96, 0x01]);
        for (v, n) in [
            (0, 1),
            (127, 1),
            (128, 2),
            (16_383, 2),
            (16_384, 3),
            (u64::MAX, 10),
        ] {
            let mut out = Vec::new();
            put_varint(&mut out, v);
            assert_eq!(out.len(), n, "{v}");
            assert_eq!(varint_len(v), n, "{v}");
        }
        let mut out = Vec::new();
        put_int32(&mut out, 1, -1);
        assert_eq!(out.len(), 11, "a negative int32 is ten bytes after its tag");
    }

    #[test]
    fn back_patched_lengths_equal_lengths_known_up_front() {
        for len in [0usize, 1, 127, 128, 300, 16_383, 16_384, 70_000] {
            let body: Vec<u8> = (0..len).map(|i| i as u8).collect();
            let mut known = vec![9];
            put_len(&mut known, 7, &body);
            let mut patched = vec![9];
            let start = begin_len(&mut patched, 7);
            patched.extend_from_slice(&body);
            end_len(&mut patched, start);
            assert_eq!(patched, known, "{len}");
        }
    }

    #[test]
    fn nested_fields_read_back() {
        let mut out = Vec::new();
        let outer = begin_len(&mut out, 2);
        let inner = begin_len(&mut out, 1);
        out.extend_from_slice(&[b'x'; 200]);
        end_len(&mut out, inner);
        put_packed_int32(&mut out, 3, [1, -2, 300]);
        put_packed_int32(&mut out, 4, []);
        put_double(&mut out, 5, 1.5);
        put_bool(&mut out, 6, true);
        end_len(&mut out, outer);
        let limits = Limits::default();
        let mut m = Message::new(&out, limits).unwrap();
        let f = m.next().unwrap().unwrap();
        assert_eq!(f.number, 2);
        let mut inner = f.message(&limits).unwrap();
        assert_eq!(
            inner.next().unwrap().unwrap().str().unwrap(),
            "x".repeat(200)
        );
        let packed: Vec<u64> = inner
            .next()
            .unwrap()
            .unwrap()
            .varints()
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(packed, [1, (-2i64) as u64, 300]);
        assert_eq!(inner.next().unwrap().unwrap().double().unwrap(), 1.5);
        assert!(inner.next().unwrap().unwrap().bool().unwrap());
        assert!(
            inner.next().unwrap().is_none(),
            "an empty packed field is not written"
        );
        assert!(m.next().unwrap().is_none());
    }
}
