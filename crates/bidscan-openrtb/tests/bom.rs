//! A UTF-8 byte order mark in front of a body: lenient mode reads the body as if the mark were whitespace and
//! puts a `utf8_bom` warning first, whichever path answers (blank, `{}`, the reader); strict mode refuses it.

use bidscan_json::Reader;
use bidscan_openrtb::{BOM, DecodeError, Mode, Status, decode};

fn with_bom(body: &str) -> Vec<u8> {
    [BOM, body.as_bytes()].concat()
}

#[test]
fn the_warning_comes_first_on_every_path() {
    let mut reader = Reader::default();
    for (body, status, bids) in [
        ("", Status::NoBid, 0),
        (" \n", Status::NoBid, 0),
        ("{}", Status::NoBid, 0),
        ("{ }\n", Status::NoBid, 0),
        (r#"{"id":"r1","nbr":2}"#, Status::NoBid, 0),
        (
            r#"{"id":"r1","seatbid":[{"bid":[{"id":"b","impid":"1","price":"1.5"}]}]}"#,
            Status::Bid,
            1,
        ),
    ] {
        let mut input = with_bom(body);
        let decoded = decode(&mut reader, &mut input, Mode::Lenient).expect(body);
        assert_eq!(
            (decoded.status, decoded.bid_count()),
            (status, bids),
            "{body:?}"
        );
        assert_eq!(decoded.issues[0].code, "utf8_bom", "{body:?}");
        assert_eq!(
            decoded
                .issues
                .iter()
                .filter(|i| i.code == "utf8_bom")
                .count(),
            1,
            "{body:?}"
        );
        assert_eq!(reader.stats().bytes, body.len() + BOM.len(), "{body:?}");
        let mut input = with_bom(body);
        assert!(matches!(
            decode(&mut reader, &mut input, Mode::Strict),
            Err(DecodeError::ByteOrderMark)
        ));
    }
    // Without the mark, no warning.
    let mut input = b"{}".to_vec();
    assert!(
        decode(&mut reader, &mut input, Mode::Lenient)
            .unwrap()
            .issues
            .is_empty()
    );
}

/// `/validate`'s envelope is read by `decode_pair`, which treats the mark as `decode` does: every route
/// ignores it.
#[test]
fn the_envelope_too_warns_in_lenient_mode_and_refuses_in_strict() {
    let envelope = r#"{"request":{"id":"q","imp":[{"id":"1"}]},"response":{"id":"q","seatbid":[{"bid":[{"id":"b","impid":"1","price":1.5}]}]}}"#;
    let mut reader = Reader::default();
    let mut input = with_bom(envelope);
    let pair = bidscan_openrtb::decode_pair(&mut reader, &mut input, Mode::Lenient).unwrap();
    assert_eq!(pair.decoded.status, Status::Bid);
    assert_eq!(pair.decoded.issues[0].code, "utf8_bom");
    assert_eq!(
        pair.decoded
            .issues
            .iter()
            .filter(|i| i.code == "utf8_bom")
            .count(),
        1
    );
    let mut plain = envelope.as_bytes().to_vec();
    let without = bidscan_openrtb::decode_pair(&mut reader, &mut plain, Mode::Lenient).unwrap();
    assert_eq!(pair.decoded.issues[1..], without.decoded.issues[..]);
    let mut input = with_bom(envelope);
    assert!(matches!(
        bidscan_openrtb::decode_pair(&mut reader, &mut input, Mode::Strict),
        Err(DecodeError::ByteOrderMark)
    ));
}
