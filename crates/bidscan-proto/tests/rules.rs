//! The wire rules, each refused or accepted with the byte offset it names.

use bidscan_proto::{
    Error, ErrorKind, Field, Limits, Message, Value, WireType, put_len, put_tag, put_varint,
};
use proptest::prelude::*;

/// Every field of `body` (top level), or the first error.
fn fields(body: &[u8]) -> Result<Vec<Field<'_>>, Error> {
    let mut m = Message::new(body, Limits::default())?;
    let mut out = Vec::new();
    while let Some(f) = m.next()? {
        out.push(f);
    }
    Ok(out)
}

fn kind_at(body: &[u8]) -> (ErrorKind, usize) {
    let e = fields(body).expect_err("refused");
    (e.kind(), e.offset())
}

#[test]
fn reads_each_wire_type() {
    let mut b = Vec::new();
    put_tag(&mut b, 1, WireType::Varint);
    put_varint(&mut b, 300);
    put_tag(&mut b, 2, WireType::I64);
    b.extend_from_slice(&1.5f64.to_le_bytes());
    put_len(&mut b, 3, b"hi");
    put_tag(&mut b, 4, WireType::I32);
    b.extend_from_slice(&7u32.to_le_bytes());
    let f = fields(&b).unwrap();
    assert_eq!(f.len(), 4);
    assert_eq!(f[0].varint().unwrap(), 300);
    assert_eq!(f[1].double().unwrap(), 1.5);
    assert_eq!(f[2].str().unwrap(), "hi");
    assert_eq!(f[2].value_offset, 3 + 9 + 2);
    assert_eq!(f[3].value, Value::I32(7));
    assert_eq!(f[3].offset, 3 + 9 + 4);
}

#[test]
fn truncated_varint() {
    // Tag of field 1 (varint), then a varint whose last byte keeps the continuation bit.
    assert_eq!(kind_at(&[0x08, 0x96]), (ErrorKind::TruncatedVarint, 1));
    // A truncated tag.
    assert_eq!(
        kind_at(&[0x08, 0x01, 0x88]),
        (ErrorKind::TruncatedVarint, 2)
    );
}

#[test]
fn varint_longer_than_ten_bytes() {
    let mut b = vec![0x08];
    b.extend_from_slice(&[0xff; 10]);
    b.push(0x01);
    assert_eq!(kind_at(&b), (ErrorKind::VarintTooLong, 1));
    // Ten bytes whose last one carries bits past 64.
    let mut b = vec![0x08];
    b.extend_from_slice(&[0xff; 9]);
    b.push(0x02);
    assert_eq!(kind_at(&b), (ErrorKind::VarintTooLong, 1));
    // Ten bytes up to u64::MAX are fine (a negative int32 is sent so).
    let mut b = vec![0x08];
    put_varint(&mut b, u64::MAX);
    assert_eq!(b.len(), 11);
    assert_eq!(fields(&b).unwrap()[0].int32().unwrap(), -1);
}

#[test]
fn length_past_the_end() {
    // Field 1, LEN, length 5, three bytes.
    assert_eq!(
        kind_at(&[0x0a, 0x05, b'a', b'b', b'c']),
        (ErrorKind::LengthPastEnd, 1)
    );
    // Inside an embedded message: the inner length runs past the inner message's end, not the body's.
    let inner = [0x0a, 0x03, b'a'];
    let mut b = Vec::new();
    put_len(&mut b, 2, &inner);
    let f = fields(&b).unwrap();
    let mut m = f[0].message(&Limits::default()).unwrap();
    let e = m.next().unwrap_err();
    assert_eq!((e.kind(), e.offset()), (ErrorKind::LengthPastEnd, 3));
}

#[test]
fn length_past_the_body_limit() {
    let limits = Limits {
        max_len: 16,
        ..Limits::default()
    };
    let mut b = Vec::new();
    put_tag(&mut b, 1, WireType::Len);
    put_varint(&mut b, 1 << 40);
    let mut m = Message::new(&b, limits).unwrap();
    let e = m.next().unwrap_err();
    assert_eq!((e.kind(), e.offset()), (ErrorKind::LengthPastLimit, 1));
    // Without a limit, the same length is past the end.
    assert_eq!(kind_at(&b), (ErrorKind::LengthPastEnd, 1));
    // A body longer than the limit.
    assert_eq!(
        Message::new(&[0u8; 17], limits).unwrap_err().kind(),
        ErrorKind::LengthPastLimit
    );
}

#[test]
fn wrong_wire_type_for_a_known_field() {
    // Field 1 sent as a varint, read as a string.
    let f = fields(&[0x08, 0x01]).unwrap();
    let e = f[0].str().unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::WrongWireType {
            expected: WireType::Len,
            found: WireType::Varint
        }
    );
    assert_eq!(e.offset(), 0);
    assert!(e.to_string().contains("wire type 0 (VARINT)"), "{e}");
    let f = fields(&[0x0a, 0x00]).unwrap();
    assert!(matches!(
        f[0].double().unwrap_err().kind(),
        ErrorKind::WrongWireType { .. }
    ));
    assert!(matches!(
        f[0].int32().unwrap_err().kind(),
        ErrorKind::WrongWireType { .. }
    ));
}

#[test]
fn group_on_a_known_field_is_refused_and_skipped_on_an_unknown_one() {
    // Field 7: a group holding field 1 = 1, then field 2 = 2.
    let b = [0x3b, 0x08, 0x01, 0x3c, 0x10, 0x02];
    let f = fields(&b).unwrap();
    assert_eq!(f.len(), 2, "the group is one field, skipped whole");
    assert_eq!(f[0].value, Value::Group(&[0x08, 0x01]));
    assert_eq!(f[1].number, 2);
    assert_eq!(f[0].str().unwrap_err().kind(), ErrorKind::GroupOnKnownField);
    // Nested groups inside an unknown group.
    let b = [0x3b, 0x43, 0x08, 0x01, 0x44, 0x3c, 0x10, 0x02];
    let f = fields(&b).unwrap();
    assert_eq!(f.len(), 2);
    // An end tag of another number, an end without a start, a start without an end.
    assert_eq!(kind_at(&[0x3b, 0x44]), (ErrorKind::UnmatchedEndGroup, 1));
    assert_eq!(kind_at(&[0x3c]), (ErrorKind::UnmatchedEndGroup, 0));
    assert_eq!(
        kind_at(&[0x10, 0x01, 0x3b, 0x08, 0x01]),
        (ErrorKind::UnterminatedGroup, 2)
    );
}

#[test]
fn field_number_zero_and_past_the_largest() {
    assert_eq!(kind_at(&[0x00, 0x01]), (ErrorKind::FieldNumberZero, 0));
    let mut b = vec![0x08, 0x01];
    put_varint(
        &mut b,
        (u64::from(bidscan_proto::MAX_FIELD_NUMBER) + 1) << 3,
    );
    b.push(0x01);
    assert_eq!(kind_at(&b), (ErrorKind::FieldNumberTooLarge, 2));
    // The largest field number is fine.
    let mut b = Vec::new();
    put_tag(&mut b, bidscan_proto::MAX_FIELD_NUMBER, WireType::Varint);
    b.push(0x01);
    assert_eq!(
        fields(&b).unwrap()[0].number,
        bidscan_proto::MAX_FIELD_NUMBER
    );
}

#[test]
fn wire_types_six_and_seven() {
    assert_eq!(kind_at(&[0x0e]), (ErrorKind::InvalidWireType(6), 0));
    assert_eq!(
        kind_at(&[0x08, 0x00, 0x0f]),
        (ErrorKind::InvalidWireType(7), 2)
    );
}

#[test]
fn truncated_fixed() {
    assert_eq!(kind_at(&[0x09, 1, 2, 3]), (ErrorKind::TruncatedFixed, 1));
    assert_eq!(kind_at(&[0x0d, 1, 2, 3]), (ErrorKind::TruncatedFixed, 1));
}

#[test]
fn invalid_utf8_names_the_first_bad_byte() {
    let f = fields(&[0x0a, 0x04, b'a', b'b', 0xff, b'c']).unwrap();
    let e = f[0].str().unwrap_err();
    assert_eq!((e.kind(), e.offset()), (ErrorKind::InvalidUtf8, 4));
    // Bytes fields are not checked.
    assert_eq!(f[0].bytes().unwrap().len(), 4);
    // A truncated sequence at the end, an overlong encoding, a surrogate.
    for bad in [&b"\xc3"[..], b"\xc0\x80", b"\xed\xa0\x80"] {
        let mut b = Vec::new();
        put_len(&mut b, 1, bad);
        let f = fields(&b).unwrap();
        assert_eq!(f[0].str().unwrap_err().offset(), 2, "{bad:?}");
    }
}

/// `depth` messages, each field 1 of the one around it.
fn nested(depth: usize) -> Vec<u8> {
    let mut b: Vec<u8> = Vec::new();
    for _ in 1..depth {
        let mut outer = Vec::new();
        put_len(&mut outer, 1, &b);
        b = outer;
    }
    b
}

fn deepest(body: &[u8], limits: Limits) -> Result<u32, Error> {
    fn walk(mut m: Message<'_>, limits: &Limits, depth: u32) -> Result<u32, Error> {
        let mut max = depth;
        while let Some(f) = m.next()? {
            max = max.max(walk(f.message(limits)?, limits, depth + 1)?);
        }
        Ok(max)
    }
    walk(Message::new(body, limits)?, &limits, 1)
}

#[test]
fn nesting_past_the_depth_limit() {
    let limits = Limits {
        max_depth: 8,
        ..Limits::default()
    };
    assert_eq!(deepest(&nested(8), limits).unwrap(), 8);
    let e = deepest(&nested(9), limits).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DepthLimit);
    // The tag of the 8th message's field, which opens the 9th: 7 levels of 2-byte headers in.
    assert_eq!(e.offset(), 14);
    // Groups count too.
    let mut g = Vec::new();
    for _ in 0..8 {
        put_tag(&mut g, 5, WireType::StartGroup);
    }
    for _ in 0..8 {
        put_tag(&mut g, 5, WireType::EndGroup);
    }
    let mut m = Message::new(&g, limits).unwrap();
    assert_eq!(m.next().unwrap_err().kind(), ErrorKind::DepthLimit);
    let mut m = Message::new(&g[1..g.len() - 1], limits).unwrap();
    assert!(m.next().unwrap().is_some());
}

#[test]
fn packed_and_unpacked_repeated_scalars() {
    // Field 4 packed [1, 300, 2], then unpacked 5.
    let mut packed = Vec::new();
    for v in [1u64, 300, 2] {
        put_varint(&mut packed, v);
    }
    let mut b = Vec::new();
    put_len(&mut b, 4, &packed);
    put_tag(&mut b, 4, WireType::Varint);
    put_varint(&mut b, 5);
    let mut all = Vec::new();
    for f in fields(&b).unwrap() {
        for v in f.varints().unwrap() {
            all.push(v.unwrap());
        }
    }
    assert_eq!(all, [1, 300, 2, 5]);
    // A truncated varint inside a packed run names its offset.
    let b = [0x22, 0x02, 0x01, 0x80];
    let f = fields(&b).unwrap();
    let e = f[0].varints().unwrap().find_map(Result::err).unwrap();
    assert_eq!((e.kind(), e.offset()), (ErrorKind::TruncatedVarint, 3));
}

#[test]
fn paths_are_built_on_the_way_out() {
    let e = Error::new(ErrorKind::InvalidUtf8, 9)
        .within("price", None)
        .within("bid", Some(1))
        .within("seatbid", Some(0));
    assert_eq!(e.path(), "/seatbid/0/bid/1/price");
    assert_eq!(
        e.to_string(),
        "a string field that is not UTF-8 at byte 9 (/seatbid/0/bid/1/price)"
    );
}

proptest! {
    /// Hostile bytes: reading every field (and every `LEN` field as a nested message, as deep as it goes) never
    /// panics, and every error names an offset inside the body.
    #[test]
    fn hostile_bytes_never_panic(body in proptest::collection::vec(any::<u8>(), 0..256)) {
        let limits = Limits { max_depth: 16, max_len: 200 };
        if let Err(e) = deepest(&body, limits) {
            prop_assert!(e.offset() <= body.len());
        }
    }

    /// Varints round-trip through `put_varint`.
    #[test]
    fn varints_round_trip(v in any::<u64>(), n in 1u32..=bidscan_proto::MAX_FIELD_NUMBER) {
        let mut b = Vec::new();
        put_tag(&mut b, n, WireType::Varint);
        put_varint(&mut b, v);
        let f = fields(&b).unwrap();
        prop_assert_eq!(f[0].number, n);
        prop_assert_eq!(f[0].varint().unwrap(), v);
    }
}

/// A tag or varint sent longer than it needs (`0x8A 0x00` for field 1's `LEN` tag) reads as its value, and
/// `0x80 0x00` is field number 0; strings on both sides of the ASCII check's 64 bytes, UTF-8 or not.
#[test]
fn non_minimal_tags_and_strings_around_the_ascii_check() {
    let f = fields(&[0x8a, 0x00, 0x82, 0x00, b'h', b'i']).unwrap();
    assert_eq!(
        (f[0].number, f[0].str().unwrap(), f[0].value_offset),
        (1, "hi", 4)
    );
    assert_eq!(
        kind_at(&[0x80, 0x00, 0x00]),
        (ErrorKind::FieldNumberZero, 0)
    );
    for len in [0, 1, 11, 63, 64, 65, 200] {
        let ascii = "a".repeat(len);
        let mut b = Vec::new();
        put_len(&mut b, 1, ascii.as_bytes());
        assert_eq!(fields(&b).unwrap()[0].str().unwrap(), ascii);
        let accented = format!("{}é", "a".repeat(len));
        let mut b = Vec::new();
        put_len(&mut b, 1, accented.as_bytes());
        assert_eq!(fields(&b).unwrap()[0].str().unwrap(), accented);
        let mut bad = ascii.clone().into_bytes();
        bad.push(0xff);
        let mut b = Vec::new();
        put_len(&mut b, 1, &bad);
        let head = b.len() - bad.len();
        let e = fields(&b).unwrap()[0].str().unwrap_err();
        assert_eq!((e.kind(), e.offset()), (ErrorKind::InvalidUtf8, head + len));
    }
}

/// What `Message::next_len_in` hands out, field by field, with `Message::next` reading the rest: the fields
/// and the first error exactly as `next` alone reads them.
fn mixed(body: &[u8], numbers: u16) -> Result<Vec<(u32, Vec<u8>, usize)>, Error> {
    let mut m = Message::new(
        body,
        Limits {
            max_depth: 16,
            max_len: 200,
        },
    )?;
    let mut out = Vec::new();
    loop {
        if let Some((n, bytes, at)) = m.next_len_in(numbers)? {
            assert!(n < 16 && numbers & (1 << n) != 0, "field {n} not asked for");
            out.push((n, bytes.to_vec(), at));
            continue;
        }
        let Some(f) = m.next()? else { break };
        let bytes = match f.value {
            Value::Len(b) => b.to_vec(),
            _ => Vec::new(),
        };
        out.push((f.number, bytes, f.value_offset));
    }
    Ok(out)
}

proptest! {
    /// `next_len_in` reads as `next` reads: the same fields, values and offsets, the same first error.
    #[test]
    fn next_len_in_reads_as_next(body in proptest::collection::vec(any::<u8>(), 0..256), numbers in any::<u16>()) {
        let alone = mixed(&body, 0);
        let both = mixed(&body, numbers);
        match (alone, both) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
            (Err(a), Err(b)) => prop_assert_eq!((a.kind(), a.offset()), (b.kind(), b.offset())),
            (a, b) => prop_assert!(false, "{:?} vs {:?}", a, b),
        }
    }
}
