//! Protobuf bid responses (`decode_protobuf`): every real fixture's twin (`corpus/real-fixtures-protobuf`, made by
//! `scripts/openrtb_protobuf.py`) answers as the JSON rendered from it; the wire rules at the model's level, with
//! the field path; `ext` and `adm_native` rendered to JSON; duplicates, merges, packed lists.

use crate::common;

use std::path::PathBuf;

use bidscan_openrtb::{
    Adm, Decoded, Inspector, Mode, ProtobufError, ProtobufLimits, Severity, Status, WireErrorKind,
    decode_protobuf, decode_protobuf_inspected,
};
use bidscan_proto::{WireType, put_len, put_tag, put_varint};

fn leak_bytes(b: &[u8]) -> &'static [u8] {
    Box::leak(b.to_vec().into_boxed_slice())
}

fn leak_string() -> &'static mut String {
    Box::leak(Box::default())
}

/// Decodes `body` (lenient, inspected), leaking what the answer borrows.
fn pb(body: &[u8]) -> Result<Decoded<'static>, ProtobufError> {
    decode_protobuf_inspected(
        leak_bytes(body),
        leak_string(),
        Mode::Lenient,
        ProtobufLimits::default(),
        &mut Inspector::new(),
    )
}

fn pb_ok(body: &[u8]) -> Decoded<'static> {
    pb(body).unwrap_or_else(|e| panic!("decode failed: {e}"))
}

/// The canonical JSON of the decoded response, as a value (member order and number spelling aside).
fn canonical(d: &Decoded<'_>) -> serde_json::Value {
    serde_json::to_value(&d.response).expect("renders")
}

/// `(path, code, severity)` of every issue but JSON's `adm_object` warning (see the corpus test).
fn issues(d: &Decoded<'_>) -> Vec<(String, &'static str, Severity)> {
    d.issues
        .iter()
        .filter(|i| i.code != "adm_object")
        .map(|i| (i.path.clone(), i.code, i.severity))
        .collect()
}

/// Decodes every twin of `corpus/DIR` (`NAME.pb`) and the JSON rendered from it (`NAME.json`), asserting the same
/// answer; returns the number of twins, of bids, of bids with an `ext`, and of native `adm`s.
fn twins_answer_as_their_json(dir: &str) -> (usize, usize, usize, usize) {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpus")).join(dir);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".pb").map(str::to_owned))
        .collect();
    names.sort();
    let (mut bids, mut with_ext, mut native) = (0, 0, 0);
    for name in &names {
        let twin = std::fs::read(dir.join(format!("{name}.pb"))).unwrap();
        let json = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
        let ours = pb(&twin).unwrap_or_else(|e| panic!("{name}: {e}"));
        let theirs = bidscan_openrtb::decode_inspected(
            &mut common::reader(),
            common::leak(&json),
            Mode::Lenient,
            &mut Inspector::new(),
        )
        .unwrap_or_else(|e| panic!("{name}: the JSON rendered from the twin: {e}"));
        assert_eq!(ours.status, theirs.status, "{name}");
        assert_eq!(canonical(&ours), canonical(&theirs), "{name}");
        assert_eq!(issues(&ours), issues(&theirs), "{name}");
        assert_eq!(ours.unlisted, theirs.unlisted, "{name}");
        let kinds = |d: &Decoded<'_>| {
            d.markup
                .iter()
                .map(|m| (m.kind(), m.well_formed()))
                .collect::<Vec<_>>()
        };
        assert_eq!(kinds(&ours), kinds(&theirs), "{name}");
        let all_bids = || ours.response.seatbid.iter().flat_map(|s| &s.bid);
        bids += ours.bid_count();
        with_ext += all_bids().filter(|b| b.ext.is_some()).count();
        native += all_bids()
            .filter(|b| matches!(b.adm, Some(Adm::Object(_))))
            .count();
    }
    (names.len(), bids, with_ext, native)
}

#[test]
fn every_twin_answers_as_the_json_rendered_from_it() {
    // 1,155 bodies, 37 of which could not be converted (REPORT.tsv). The comparison covered bids, not only
    // no-bids, and rendered `ext`s. Most of those are `{}`: the fixtures' `ext` members are mostly free-form
    // (`prebid`, bidders' own), which the schema has no field for; hence the features' twins.
    assert_eq!(
        twins_answer_as_their_json("real-fixtures-protobuf"),
        (1118, 1056, 420, 0)
    );
}

#[test]
fn twins_with_declared_fields_answer_as_their_json() {
    // A native `adm`, `bid.ext.dsa` and `skadn`, `ext.seatnonbid` and `igi` (Value and map members).
    assert_eq!(
        twins_answer_as_their_json("protobuf-features"),
        (3, 3, 1, 1)
    );
}

// ---- building bodies

/// A message of `fields`, each `(number, bytes of its encoded field)` already encoded.
fn msg(parts: &[Vec<u8>]) -> Vec<u8> {
    parts.concat()
}

fn s(number: u32, text: &str) -> Vec<u8> {
    let mut b = Vec::new();
    put_len(&mut b, number, text.as_bytes());
    b
}

fn bytes(number: u32, raw: &[u8]) -> Vec<u8> {
    let mut b = Vec::new();
    put_len(&mut b, number, raw);
    b
}

fn v(number: u32, value: u64) -> Vec<u8> {
    let mut b = Vec::new();
    put_tag(&mut b, number, WireType::Varint);
    put_varint(&mut b, value);
    b
}

fn d(number: u32, value: f64) -> Vec<u8> {
    let mut b = Vec::new();
    put_tag(&mut b, number, WireType::I64);
    b.extend_from_slice(&value.to_le_bytes());
    b
}

/// A response with one seat bid holding `bid` (the bid's encoded fields).
fn response_with(bid: &[Vec<u8>]) -> Vec<u8> {
    let seat = msg(&[bytes(1, &msg(bid)), s(2, "seat-1")]);
    msg(&[s(1, "req-1"), bytes(2, &seat), s(4, "USD")])
}

fn good_bid() -> Vec<Vec<u8>> {
    vec![
        s(1, "b1"),
        s(2, "imp-1"),
        d(3, 1.25),
        s(6, "<div>ad</div>"),
        s(7, "brand.com"),
        s(10, "cr-1"),
        v(16, 300),
        v(17, 250),
        v(33, 1),
    ]
}

#[test]
fn a_bid_decodes_into_the_model() {
    let got = pb_ok(&response_with(&good_bid()));
    assert_eq!(got.status, Status::Bid);
    assert_eq!(
        canonical(&got),
        serde_json::json!({"id":"req-1","seatbid":[{"bid":[{"id":"b1","impid":"imp-1","price":1.25,
            "adm":"<div>ad</div>","adomain":["brand.com"],"crid":"cr-1","w":300,"h":250,"mtype":1}],
            "seat":"seat-1"}],"cur":"USD"})
    );
    assert!(got.issues.is_empty(), "{:?}", got.issues);
    // Strings are borrowed from the body.
    let bid = &got.response.seatbid[0].bid[0];
    assert!(matches!(bid.id, Some(std::borrow::Cow::Borrowed(_))));
}

#[test]
fn empty_body_is_a_no_bid() {
    let got = pb_ok(&[]);
    assert_eq!(got.status, Status::NoBid);
    let got = pb_ok(&msg(&[s(1, "r"), v(6, 2)]));
    assert_eq!(got.status, Status::NoBid);
    assert_eq!(got.response.nbr.map(|n| n.0), Some(2));
}

#[test]
fn group_reads_as_a_flag_and_negative_int32_as_sent() {
    let mut bid = good_bid();
    // w = -1, sent as a 10-byte varint.
    bid.push(v(16, u64::MAX));
    let seat = msg(&[bytes(1, &msg(&bid)), v(3, 1)]);
    let got = pb_ok(&msg(&[s(1, "r"), bytes(2, &seat)]));
    assert_eq!(got.response.seatbid[0].group, Some(1));
    assert_eq!(got.response.seatbid[0].bid[0].w, Some(-1));
    // A second `w`: the last wins, with JSON's `duplicate_field` warning at the member.
    assert!(
        got.issues
            .iter()
            .any(|i| i.code == "duplicate_field" && i.path == "/seatbid/0/bid/0/w"),
        "{:?}",
        got.issues
    );
}

fn refused(body: &[u8]) -> (WireErrorKind, usize, String) {
    match pb(body) {
        Err(ProtobufError::Malformed(e)) => (e.kind(), e.offset(), e.path().to_owned()),
        other => panic!("expected a wire error, got {other:?}"),
    }
}

#[test]
fn invalid_utf8_names_offset_and_path() {
    let mut bid = good_bid();
    bid.push(bytes(7, b"ok\xffno"));
    let body = response_with(&bid);
    let (kind, offset, path) = refused(&body);
    assert_eq!(kind, WireErrorKind::InvalidUtf8);
    assert_eq!(path, "/seatbid/0/bid/0/adomain/1");
    assert_eq!(body[offset], 0xff);
    let e = pb(&body).unwrap_err();
    assert_eq!(e.code(), "malformed_protobuf");
    assert_eq!(e.path(), Some("/seatbid/0/bid/0/adomain/1"));
}

#[test]
fn wrong_wire_type_and_group_on_a_declared_field() {
    // `price` (a double) sent as a varint.
    let mut bid = good_bid();
    bid.push(v(3, 5));
    let (kind, _, path) = refused(&response_with(&bid));
    assert!(
        matches!(kind, WireErrorKind::WrongWireType { .. }),
        "{kind:?}"
    );
    assert_eq!(path, "/seatbid/0/bid/0/price");
    // `crid` sent as a group.
    let mut bid = good_bid();
    let mut g = Vec::new();
    put_tag(&mut g, 10, WireType::StartGroup);
    put_tag(&mut g, 10, WireType::EndGroup);
    bid.push(g);
    let (kind, _, path) = refused(&response_with(&bid));
    assert_eq!(kind, WireErrorKind::GroupOnKnownField);
    assert_eq!(path, "/seatbid/0/bid/0/crid");
    // `seatbid` sent as a string of a varint: not a message.
    let (kind, _, path) = refused(&msg(&[v(2, 1)]));
    assert!(matches!(kind, WireErrorKind::WrongWireType { .. }));
    assert_eq!(path, "/seatbid/0");
}

#[test]
fn truncated_and_overlong_values_and_bad_numbers() {
    let body = response_with(&good_bid());
    // Cut inside the seat bid: its length now runs past the end.
    let (kind, offset, path) = refused(&body[..body.len() - 6]);
    assert_eq!(kind, WireErrorKind::LengthPastEnd);
    assert_eq!(path, "");
    assert_eq!(offset, 8, "the seat bid's length byte");
    // A varint of 11 bytes in a bid.
    let mut bid = good_bid();
    let mut long = vec![16 << 3];
    long.extend_from_slice(&[0x80; 10]);
    long.push(0x01);
    bid.push(long);
    let (kind, _, path) = refused(&response_with(&bid));
    assert_eq!(kind, WireErrorKind::VarintTooLong);
    assert_eq!(path, "/seatbid/0/bid/0");
    // Field number 0 at the top.
    assert_eq!(refused(&[0x02, 0x00]).0, WireErrorKind::FieldNumberZero);
    // A length past the body limit.
    let limits = ProtobufLimits {
        max_len: 64,
        ..ProtobufLimits::default()
    };
    let mut b = Vec::new();
    put_tag(&mut b, 1, WireType::Len);
    put_varint(&mut b, 1000);
    let e = decode_protobuf(&b, &mut String::new(), Mode::Lenient, limits).unwrap_err();
    assert!(
        matches!(e, ProtobufError::Malformed(ref w) if w.kind() == WireErrorKind::LengthPastLimit)
    );
}

#[test]
fn nesting_past_the_depth_limit() {
    let body = response_with(&good_bid());
    let limits = |max_depth| ProtobufLimits {
        max_depth,
        ..ProtobufLimits::default()
    };
    // Response, seat bid, bid: depth 3.
    assert!(decode_protobuf(&body, &mut String::new(), Mode::Lenient, limits(3)).is_ok());
    let e = decode_protobuf(&body, &mut String::new(), Mode::Lenient, limits(2)).unwrap_err();
    let ProtobufError::Malformed(e) = e else {
        panic!("{e}")
    };
    assert_eq!(e.kind(), WireErrorKind::DepthLimit);
    assert_eq!(e.path(), "/seatbid/0/bid/0");
    // Deep unknown nesting inside an `ext` counts too.
    let mut deep = Vec::new();
    for _ in 0..200 {
        let mut outer = Vec::new();
        put_len(&mut outer, 600, &deep);
        deep = outer;
    }
    let mut bid = good_bid();
    bid.push(bytes(99, &deep));
    // Undeclared fields in an ext are kept raw, not walked: within the limit.
    assert!(pb(&response_with(&bid)).is_ok());
    // An unknown group nested 200 deep is walked: past the limit.
    let mut g = Vec::new();
    for _ in 0..200 {
        put_tag(&mut g, 700, WireType::StartGroup);
    }
    for _ in 0..200 {
        put_tag(&mut g, 700, WireType::EndGroup);
    }
    let mut bid = good_bid();
    bid.push(g);
    assert_eq!(refused(&response_with(&bid)).0, WireErrorKind::DepthLimit);
}

#[test]
fn unknown_fields_are_skipped_groups_included() {
    let mut bid = good_bid();
    let mut g = Vec::new();
    put_tag(&mut g, 700, WireType::StartGroup);
    g.extend(s(1, "inside"));
    put_tag(&mut g, 700, WireType::EndGroup);
    bid.push(g);
    bid.push(v(45, 7));
    bid.push(s(46, "x"));
    let mut fixed = Vec::new();
    put_tag(&mut fixed, 47, WireType::I32);
    fixed.extend_from_slice(&[1, 2, 3, 4]);
    bid.push(fixed);
    let got = pb_ok(&response_with(&bid));
    assert_eq!(
        canonical(&got),
        canonical(&pb_ok(&response_with(&good_bid())))
    );
    assert!(got.issues.is_empty());
}

#[test]
fn packed_and_unpacked_lists() {
    let mut packed = Vec::new();
    for a in [1u64, 3] {
        put_varint(&mut packed, a);
    }
    let mut bid = good_bid();
    bid.push(bytes(11, &packed));
    bid.push(v(11, 6));
    bid.push(v(31, 7));
    let got = pb_ok(&response_with(&bid));
    let b = &got.response.seatbid[0].bid[0];
    assert_eq!(b.attr.iter().map(|a| a.0).collect::<Vec<_>>(), [1, 3, 6]);
    assert_eq!(b.apis.iter().map(|a| a.0).collect::<Vec<_>>(), [7]);
    assert!(
        got.issues.is_empty(),
        "a list sent in pieces is no duplicate"
    );
}

fn dsa() -> Vec<u8> {
    let transparency = msg(&[s(1, "dsp.example"), bytes(2, &[1, 2])]);
    msg(&[
        s(1, "Brand"),
        s(2, "Agency \"A\""),
        bytes(3, &transparency),
        v(4, 1),
    ])
}

#[test]
fn bid_ext_declared_fields_render_under_their_names() {
    let mut bid = good_bid();
    bid.push(bytes(99, &msg(&[bytes(2, &dsa()), s(3, "scid-1")])));
    let got = pb_ok(&response_with(&bid));
    let ext = got.response.seatbid[0].bid[0].ext.unwrap();
    assert_eq!(
        ext.get(),
        r#"{"dsa":{"behalf":"Brand","paid":"Agency \"A\"","transparency":[{"domain":"dsp.example","dsaparams":[1,2]}],"adrender":1},"scid":"scid-1"}"#
    );
}

#[test]
fn ext_sent_twice_is_merged() {
    let mut bid = good_bid();
    bid.push(bytes(99, &msg(&[bytes(2, &msg(&[s(1, "First")]))])));
    bid.push(bytes(
        99,
        &msg(&[bytes(2, &msg(&[s(2, "Payer")])), s(3, "x")]),
    ));
    let got = pb_ok(&response_with(&bid));
    assert_eq!(
        got.response.seatbid[0].bid[0].ext.unwrap().get(),
        r#"{"dsa":{"behalf":"First","paid":"Payer"},"scid":"x"}"#
    );
    assert!(got.issues.is_empty(), "a merge is no duplicate");
}

#[test]
fn extension_fields_keep_the_raw_form() {
    let mut raw_i64 = Vec::new();
    put_tag(&mut raw_i64, 1001, WireType::I64);
    raw_i64.extend_from_slice(&7u64.to_le_bytes());
    let ext = msg(&[s(3, "c"), v(1000, 5), s(1000, "hi"), raw_i64]);
    let mut bid = good_bid();
    bid.push(bytes(99, &ext));
    let seat_ext = msg(&[v(2000, 1)]);
    let seat = msg(&[bytes(1, &msg(&bid)), bytes(99, &seat_ext)]);
    let resp_ext = msg(&[bytes(
        1,
        &msg(&[s(2, "s"), bytes(1, &msg(&[s(1, "imp-1"), v(2, 301)]))]),
    )]);
    let got = pb_ok(&msg(&[s(1, "r"), bytes(2, &seat), bytes(99, &resp_ext)]));
    assert_eq!(
        got.response.seatbid[0].bid[0].ext.unwrap().get(),
        r#"{"scid":"c","[1000]":[{"varint":5},{"len":"aGk="}],"[1001]":[{"i64":7}]}"#
    );
    assert_eq!(
        got.response.seatbid[0].ext.unwrap().get(),
        r#"{"[2000]":[{"varint":1}]}"#
    );
    assert_eq!(
        got.response.ext.unwrap().get(),
        r#"{"seatnonbid":[{"nonbid":[{"impid":"imp-1","statuscode":301}],"seat":"s"}]}"#
    );
}

#[test]
fn a_malformed_ext_is_refused_with_its_path() {
    let mut bid = good_bid();
    bid.push(bytes(99, &msg(&[bytes(2, &msg(&[bytes(1, b"\xc3")]))])));
    let (kind, _, path) = refused(&response_with(&bid));
    assert_eq!(kind, WireErrorKind::InvalidUtf8);
    assert_eq!(path, "/seatbid/0/bid/0/ext/dsa/behalf");
}

/// The path of an error inside a nested repeated message names the field once, then the element's index (a JSON
/// pointer of the member, as the JSON reader's errors): `ext.igi`, `ext.seatnonbid` (and its `nonbid`),
/// `adm_native`'s `assets` and `imptrackers`, `bid.ext.dsa.transparency`.
#[test]
fn nested_repeated_fields_are_named_once_in_the_path() {
    let no_seat = |ext: Vec<u8>| msg(&[s(1, "r"), bytes(99, &ext)]);
    let with_bid = |field: Vec<u8>| {
        let mut bid = good_bid();
        bid.push(field);
        response_with(&bid)
    };
    let cases: [(&str, Vec<u8>, WireErrorKind, &str); 6] = [
        (
            "igi[0].impid sent as a varint",
            no_seat(bytes(2, &v(1, 5))),
            WireErrorKind::WrongWireType {
                expected: WireType::Len,
                found: WireType::Varint,
            },
            "/ext/igi/0/impid",
        ),
        (
            "igi[1].igb[0].origin sent as a varint",
            no_seat(msg(&[bytes(2, &s(1, "1")), bytes(2, &bytes(2, &v(1, 5)))])),
            WireErrorKind::WrongWireType {
                expected: WireType::Len,
                found: WireType::Varint,
            },
            "/ext/igi/1/igb/0/origin",
        ),
        (
            "seatnonbid[0].nonbid[0].impid not UTF-8",
            no_seat(bytes(
                1,
                &msg(&[s(2, "seat"), bytes(1, &bytes(1, b"\xff"))]),
            )),
            WireErrorKind::InvalidUtf8,
            "/ext/seatnonbid/0/nonbid/0/impid",
        ),
        (
            "adm_native assets[0].id sent as bytes",
            with_bid(bytes(50, &bytes(2, &bytes(1, b"x")))),
            WireErrorKind::WrongWireType {
                expected: WireType::Varint,
                found: WireType::Len,
            },
            "/seatbid/0/bid/0/adm/assets/0/id",
        ),
        (
            "adm_native imptrackers[1] not UTF-8",
            with_bid(bytes(50, &msg(&[s(4, "ok"), bytes(4, b"\xff")]))),
            WireErrorKind::InvalidUtf8,
            "/seatbid/0/bid/0/adm/imptrackers/1",
        ),
        (
            "bid.ext.dsa.transparency[0].domain not UTF-8",
            with_bid(bytes(99, &bytes(2, &bytes(3, &bytes(1, b"\xff"))))),
            WireErrorKind::InvalidUtf8,
            "/seatbid/0/bid/0/ext/dsa/transparency/0/domain",
        ),
    ];
    for (name, body, kind, path) in cases {
        let (got_kind, _, got_path) = refused(&body);
        assert_eq!((got_kind, got_path.as_str()), (kind, path), "{name}");
    }
}

fn native() -> Vec<u8> {
    let title = msg(&[s(1, "Buy now")]);
    let asset = msg(&[v(1, 1), v(2, 1), bytes(3, &title)]);
    let link = msg(&[s(1, "https://brand.example/landing")]);
    msg(&[
        s(1, "1.2"),
        bytes(2, &asset),
        bytes(3, &link),
        s(4, "https://t.example/i"),
    ])
}

#[test]
fn adm_native_feeds_the_native_inspection_as_an_object() {
    let mut bid = good_bid();
    bid.retain(|f| f[0] != (6 << 3 | 2));
    bid.push(bytes(50, &native()));
    let got = pb_ok(&response_with(&bid));
    let b = &got.response.seatbid[0].bid[0];
    let Some(Adm::Object(object)) = &b.adm else {
        panic!("{:?}", b.adm)
    };
    assert_eq!(
        object.to_json(),
        r#"{"ver":"1.2","assets":[{"id":1,"required":1,"title":{"text":"Buy now"}}],"link":{"url":"https://brand.example/landing"},"imptrackers":["https://t.example/i"]}"#
    );
    assert_eq!(got.markup.len(), 1);
    assert_eq!(got.markup[0].kind(), bidscan_openrtb::AdmKind::Native);
    assert!(got.markup[0].well_formed());
    assert!(
        !got.issues.iter().any(|i| i.code == "adm_object"),
        "{:?}",
        got.issues
    );
    // Without a link, the native inspection's finding appears at the bid's adm.
    let mut bid = good_bid();
    bid.retain(|f| f[0] != (6 << 3 | 2));
    bid.push(bytes(50, &msg(&[s(1, "1.2")])));
    let got = pb_ok(&response_with(&bid));
    assert!(
        got.issues
            .iter()
            .any(|i| i.code == "native_missing_link" && i.path == "/seatbid/0/bid/0/adm"),
        "{:?}",
        got.issues
    );
}

#[test]
fn adm_and_adm_native_are_one_member() {
    // `adm_native` after `adm`: it replaces it, with the duplicate warning.
    let mut bid = good_bid();
    bid.push(bytes(50, &native()));
    let got = pb_ok(&response_with(&bid));
    let b = &got.response.seatbid[0].bid[0];
    assert!(matches!(b.adm, Some(Adm::Object(_))));
    assert!(
        got.issues
            .iter()
            .any(|i| i.code == "duplicate_field" && i.path.ends_with("/adm"))
    );
    // `adm` after `adm_native`: the text wins.
    let mut bid = good_bid();
    bid.retain(|f| f[0] != (6 << 3 | 2));
    bid.push(bytes(50, &native()));
    bid.push(s(6, "<div>late</div>"));
    let got = pb_ok(&response_with(&bid));
    assert_eq!(
        got.response.seatbid[0].bid[0].adm,
        Some(Adm::Markup("<div>late</div>".into()))
    );
}

#[test]
fn strict_mode_fails_on_a_duplicate() {
    let mut bid = good_bid();
    bid.push(s(1, "b2"));
    let e = decode_protobuf(
        &response_with(&bid),
        &mut String::new(),
        Mode::Strict,
        ProtobufLimits::default(),
    )
    .unwrap_err();
    assert_eq!(e.code(), "duplicate_field");
    assert_eq!(e.path(), Some("/seatbid/0/bid/0/id"));
}

#[test]
fn too_many_bids_are_refused_as_json_refuses_them() {
    // 10,001 empty bids: 2 bytes each.
    let seat: Vec<u8> = std::iter::repeat_n([0x0a, 0x00], 10_001)
        .flatten()
        .collect();
    let e = pb(&msg(&[bytes(2, &seat)])).unwrap_err();
    assert_eq!(e.code(), "not_a_bid_response");
}

// ---- against the reference decoder (prost), on hostile bytes

use crate::protobuf_reference::{Outcome, check};
use proptest::prelude::*;

/// Bodies to mutate: bids built here (every scalar member, a packed list, ext, adm_native) and a few twins.
fn seeds() -> Vec<Vec<u8>> {
    let mut rich = good_bid();
    rich.extend([
        s(22, "https://b.example/bill"),
        s(23, "https://b.example/loss"),
        s(4, "ad-1"),
        s(14, "com.example.app"),
        s(8, "https://i.example/i.png"),
        s(9, "c-1"),
        s(24, "t-1"),
        v(30, 2),
        s(15, "IAB1"),
        bytes(11, &[1, 3, 0x80, 0x01]),
        v(31, 7),
        v(18, 3),
        v(19, 2),
        v(20, 1),
        s(25, "en"),
        s(29, "en-GB"),
        s(13, "deal-1"),
        v(26, 16),
        v(27, 9),
        v(21, 300),
        v(32, 30),
        v(28, 1),
        bytes(99, &msg(&[bytes(2, &dsa()), s(3, "scid")])),
    ]);
    let mut native_bid = good_bid();
    native_bid.retain(|f| f[0] != (6 << 3 | 2));
    native_bid.push(bytes(50, &native()));
    let mut out = vec![
        response_with(&rich),
        response_with(&native_bid),
        msg(&[s(1, "r"), v(6, 2), s(5, "cookie")]),
    ];
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../corpus/real-fixtures-protobuf"
    ));
    for name in [
        "criteo_exemplary-simple-banner-paapi",
        "aidem_exemplary-multi-imps-multi-bid",
        "grid_exemplary-with_gpid",
    ] {
        if let Ok(b) = std::fs::read(dir.join(format!("{name}.pb"))) {
            out.push(b);
        }
    }
    out
}

/// One change to a body: overwrite, insert or remove a byte, or cut the body, at a position taken modulo its length.
#[derive(Clone, Debug)]
enum Mutation {
    Set(usize, u8),
    Insert(usize, u8),
    Remove(usize),
    Cut(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(at, b)| Mutation::Set(at, b)),
        (any::<usize>(), any::<u8>()).prop_map(|(at, b)| Mutation::Insert(at, b)),
        any::<usize>().prop_map(Mutation::Remove),
        any::<usize>().prop_map(Mutation::Cut),
    ]
}

fn mutate(mut body: Vec<u8>, changes: &[Mutation]) -> Vec<u8> {
    for m in changes {
        let n = body.len().max(1);
        match *m {
            Mutation::Set(at, b) if !body.is_empty() => body[at % n] = b,
            Mutation::Insert(at, b) => body.insert(at % (body.len() + 1), b),
            Mutation::Remove(at) if !body.is_empty() => {
                body.remove(at % n);
            }
            Mutation::Cut(at) => body.truncate(at % (body.len() + 1)),
            _ => {}
        }
    }
    body
}

#[test]
fn seeds_decode_alike() {
    for seed in seeds() {
        assert_eq!(check(&seed), Outcome::BothAccepted);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    /// A valid body with a few byte changes: both decoders accept and read the same values, or both refuse.
    #[test]
    fn mutated_bodies_decode_as_prost_decodes_them(
        seed in 0usize..6,
        changes in proptest::collection::vec(mutation(), 1..4),
    ) {
        let seeds = seeds();
        let body = mutate(seeds[seed % seeds.len()].clone(), &changes);
        check(&body);
    }

    /// Arbitrary bytes.
    #[test]
    fn arbitrary_bytes_decode_as_prost_decodes_them(body in proptest::collection::vec(any::<u8>(), 0..200)) {
        check(&body);
    }
}

/// The mutations reach both sides: many mutated bodies are still accepted by both decoders (values compared),
/// many are refused by both.
#[test]
fn mutations_reach_both_outcomes() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = (0usize..6, proptest::collection::vec(mutation(), 1..4));
    let seeds = seeds();
    let (mut accepted, mut refused, mut known) = (0, 0, 0);
    for _ in 0..4000 {
        let (seed, changes) = strategy.new_tree(&mut runner).unwrap().current();
        match check(&mutate(seeds[seed % seeds.len()].clone(), &changes)) {
            Outcome::BothAccepted => accepted += 1,
            Outcome::BothRefused => refused += 1,
            Outcome::Known => known += 1,
        }
    }
    eprintln!("both accepted {accepted}, both refused {refused}, known differences {known}");
    assert!(
        accepted > 150 && refused > 1000,
        "{accepted} {refused} {known}"
    );
}

// ---- bid requests

#[test]
fn every_request_twin_reads_as_the_json_rendered_from_it() {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../corpus/validate-pairs-protobuf"
    ));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".pb").map(str::to_owned))
        .collect();
    names.sort();
    assert_eq!(names.len(), 249, "request twins in {}", dir.display());
    let (mut imps, mut deals, mut apps) = (0, 0, 0);
    for name in &names {
        let twin = std::fs::read(dir.join(format!("{name}.pb"))).unwrap();
        let json = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
        let ours =
            bidscan_openrtb::decode_request_protobuf(leak_bytes(&twin), ProtobufLimits::default())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        let envelope = format!(r#"{{"request":{json},"response":{{}}}}"#);
        let theirs = bidscan_openrtb::decode_pair(
            &mut common::reader(),
            common::leak(&envelope),
            Mode::Lenient,
        )
        .unwrap_or_else(|e| panic!("{name}: the JSON rendered from the twin: {e}"))
        .request;
        assert_eq!(ours, theirs, "{name}");
        imps += ours.imp.len();
        deals += ours
            .imp
            .iter()
            .filter_map(|i| i.pmp.as_ref())
            .map(|p| p.deals.len())
            .sum::<usize>();
        apps += usize::from(ours.app);
    }
    // The comparison covered impressions and app requests; no pair offers a deal (deals are tested below).
    assert_eq!((imps, deals, apps), (286, 0, 107));
}

#[test]
fn request_wire_errors_name_the_path() {
    let format = msg(&[v(1, 300), bytes(2, b"x")]);
    let banner = msg(&[bytes(15, &msg(&[v(1, 728), v(2, 90)])), bytes(15, &format)]);
    let imp = msg(&[s(1, "imp-1"), bytes(2, &banner)]);
    let body = msg(&[s(1, "req"), bytes(2, &imp)]);
    let e = bidscan_openrtb::decode_request_protobuf(&body, ProtobufLimits::default()).unwrap_err();
    assert_eq!(e.code(), "malformed_protobuf");
    assert_eq!(e.path(), Some("/imp/0/banner/format/1/h"));
    // A nested repeated message and a repeated string: the name once, then the element's index.
    let pmp = msg(&[bytes(2, &s(1, "d0")), bytes(2, &bytes(1, b"\xff"))]);
    let imp = msg(&[s(1, "imp-1"), bytes(11, &pmp)]);
    let body = msg(&[s(1, "req"), bytes(2, &imp)]);
    let e = bidscan_openrtb::decode_request_protobuf(&body, ProtobufLimits::default()).unwrap_err();
    assert_eq!(e.path(), Some("/imp/0/pmp/deals/1/id"));
    let body = msg(&[s(1, "req"), s(13, "a.com"), bytes(13, b"\xff")]);
    let e = bidscan_openrtb::decode_request_protobuf(&body, ProtobufLimits::default()).unwrap_err();
    assert_eq!(e.path(), Some("/badv/1"));
    // Booleans as 0/1, `app` present, `regs.ext.dsa`.
    let dsa = msg(&[v(1, 2), v(2, 1)]);
    let regs = msg(&[bytes(99, &msg(&[bytes(4, &dsa)]))]);
    let imp = msg(&[
        s(1, "imp-1"),
        v(12, 1),
        bytes(
            11,
            &msg(&[v(1, 1), bytes(2, &msg(&[s(1, "d1"), d(2, 2.5)]))]),
        ),
    ]);
    let body = msg(&[s(1, "req"), bytes(2, &imp), bytes(4, &[]), bytes(14, &regs)]);
    let r = bidscan_openrtb::decode_request_protobuf(&body, ProtobufLimits::default()).unwrap();
    assert!(r.app);
    assert_eq!(r.imp[0].secure, Some(1));
    let pmp = r.imp[0].pmp.as_ref().unwrap();
    assert_eq!(pmp.private_auction, Some(1));
    assert_eq!(
        (pmp.deals[0].id.as_deref(), pmp.deals[0].bidfloor),
        (Some("d1"), Some(2.5))
    );
    assert!(r.dsa.unwrap().required());
    // `site` (3) and `app` (4) are one oneof: the last one sent wins.
    let site_last = msg(&[s(1, "req"), bytes(2, &imp), bytes(4, &[]), bytes(3, &[])]);
    let r =
        bidscan_openrtb::decode_request_protobuf(&site_last, ProtobufLimits::default()).unwrap();
    assert!(!r.app, "site after app");
    let app_last = msg(&[s(1, "req"), bytes(2, &imp), bytes(3, &[]), bytes(4, &[])]);
    let r = bidscan_openrtb::decode_request_protobuf(&app_last, ProtobufLimits::default()).unwrap();
    assert!(r.app, "app after site");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    /// A request twin with a few byte changes: never a panic; a wire error names an offset inside the body.
    #[test]
    fn mutated_requests_never_panic(
        pick in 0usize..249,
        changes in proptest::collection::vec(mutation(), 1..4),
    ) {
        let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpus/validate-pairs-protobuf"));
        let mut names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "pb")).collect();
        names.sort();
        let body = mutate(std::fs::read(&names[pick % names.len()]).unwrap(), &changes);
        if let Err(ProtobufError::Malformed(e)) =
            bidscan_openrtb::decode_request_protobuf(&body, ProtobufLimits::default())
        {
            prop_assert!(e.offset() <= body.len());
        }
    }
}

/// Bodies built to make a careless decoder quadratic decode in one pass each: 100,000 undeclared `ext` fields of
/// distinct numbers, a `Struct` of 50,000 keys, and 4,900 `adm`/`adm_native` pairs in a bid after 100,000 `ext`s.
#[test]
fn hostile_shapes_decode_in_linear_work() {
    let mut ext = Vec::new();
    for n in 0..100_000u32 {
        ext.extend(v(1000 + n, 1));
    }
    let mut bid = good_bid();
    bid.push(bytes(99, &ext));
    let got = pb_ok(&response_with(&bid));
    let text = got.response.seatbid[0].bid[0].ext.unwrap().get();
    assert!(
        text.starts_with(r#"{"[1000]":[{"varint":1}],"[1001]":"#),
        "{}",
        &text[..40]
    );

    // `ext.igi[0].igs[0].config`: a Struct of 50,000 keys (`fields` entries: key 1, value 2).
    let mut fields = Vec::new();
    for k in 0..50_000 {
        fields.extend(bytes(
            1,
            &msg(&[s(1, &format!("k{k}")), bytes(2, &msg(&[v(4, 1)]))]),
        ));
    }
    let value = msg(&[bytes(5, &fields)]);
    let igs = msg(&[s(1, "imp-1"), bytes(2, &value)]);
    let resp_ext = msg(&[bytes(2, &msg(&[bytes(3, &igs)]))]);
    let got = pb_ok(&msg(&[s(1, "r"), bytes(99, &resp_ext)]));
    assert!(got.response.ext.unwrap().get().len() > 50_000 * 8);

    // (4,900 pairs: 9,800 duplicates, under the 10,000 that refuse a body.)
    let mut bid = good_bid();
    for _ in 0..100_000 {
        bid.push(bytes(99, &msg(&[s(3, "x")])));
    }
    for _ in 0..4_900 {
        bid.push(bytes(50, &msg(&[s(1, "1.2")])));
        bid.push(s(6, "<div/>"));
    }
    let got = pb_ok(&response_with(&bid));
    assert_eq!(
        got.response.seatbid[0].bid[0].adm,
        Some(Adm::Markup("<div/>".into()))
    );
}
