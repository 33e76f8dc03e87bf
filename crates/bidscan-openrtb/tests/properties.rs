//! Property tests: any JSON value as any member never fails a lenient decode (and fails a strict one only with
//! `DecodeError::Strict`); arbitrary bytes never panic. Every JSON input is also checked against serde_json.

use crate::common;

use bidscan_openrtb::{BidResponse, CoercionKind, DecodeError, Decoded, Mode};
use proptest::prelude::*;
use serde_json::Value;

const BID_MEMBERS: &[&str] = &[
    "id",
    "impid",
    "price",
    "nurl",
    "burl",
    "lurl",
    "adm",
    "adid",
    "adomain",
    "bundle",
    "iurl",
    "cid",
    "crid",
    "tactic",
    "cattax",
    "cat",
    "attr",
    "apis",
    "api",
    "protocol",
    "qagmediarating",
    "language",
    "langb",
    "dealid",
    "w",
    "h",
    "wratio",
    "hratio",
    "exp",
    "dur",
    "mtype",
    "slotinpod",
    "ext",
    "x_unknown",
];
const SEAT_MEMBERS: &[&str] = &["bid", "seat", "group", "ext"];
const RESPONSE_MEMBERS: &[&str] = &["id", "bidid", "cur", "customdata", "nbr", "ext"];

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        "[0-9.eE+-]{0,6}".prop_map(Value::String),
        "\\PC{0,8}".prop_map(Value::String),
        Just(Value::String("<VAST version=\"4.0\"/>".into())),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-z]{1,6}", inner), 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn check(json: &str, must_decode: bool) {
    match common::decode(json, Mode::Lenient) {
        Ok(d) => round_trips(&d),
        Err(e) => assert!(!must_decode, "lenient decode failed on {json}: {e}"),
    }
    match common::decode(json, Mode::Strict) {
        Ok(_) | Err(DecodeError::Strict { .. }) => {}
        Err(e) => assert!(!must_decode, "strict decode failed on {json}: {e}"),
    }
}

/// The response with every coercion record removed.
fn without_coercions(mut r: BidResponse<'_>) -> BidResponse<'_> {
    r.coercions.clear();
    for s in &mut r.seatbid {
        s.coercions.clear();
        s.bid.iter_mut().for_each(|b| b.coercions.clear());
    }
    r
}

/// Canonical output is in the spec's shape (only an object `adm` stays a coercion) and decodes to the same values.
fn round_trips(d: &Decoded<'static>) {
    let finite = d
        .response
        .seatbid
        .iter()
        .flat_map(|s| &s.bid)
        .all(|b| b.price.is_none_or(f64::is_finite));
    if !finite {
        return; // serde_json writes a non-finite float as null
    }
    let text = serde_json::to_string(&d.response).unwrap();
    let again = common::lenient(&text);
    let kinds = again
        .response
        .seatbid
        .iter()
        .flat_map(|s| s.bid.iter().flat_map(|b| &b.coercions));
    for c in kinds.chain(again.response.coercions.iter()) {
        assert_eq!(c.kind, CoercionKind::AdmObject, "{text}");
    }
    assert_eq!(
        without_coercions(again.response),
        without_coercions(d.response.clone()),
        "{text}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig {
        failure_persistence: Some(Box::new(prop::test_runner::FileFailurePersistence::WithSource("regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn any_value_in_a_bid_member(member in prop::sample::select(BID_MEMBERS), value in json_value()) {
        let json = common::one_bid(&[(member, Some(&value.to_string()))]);
        check(&json, true);
    }

    #[test]
    fn any_value_in_a_seatbid_member(member in prop::sample::select(SEAT_MEMBERS), value in json_value()) {
        let json = format!(r#"{{"id":"r","seatbid":[{{"{member}":{value}}}]}}"#);
        check(&json, true);
    }

    #[test]
    fn any_value_in_a_response_member(member in prop::sample::select(RESPONSE_MEMBERS), value in json_value()) {
        let json = format!(r#"{{"{member}":{value},"seatbid":[]}}"#);
        check(&json, true);
    }

    #[test]
    fn any_value_as_seatbid_or_body(value in json_value()) {
        check(&format!(r#"{{"seatbid":{value}}}"#), false);
        check(&value.to_string(), false);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        for mode in [Mode::Lenient, Mode::Strict] {
            let input: &'static mut [u8] = Box::leak(bytes.clone().into_boxed_slice());
            let _ = bidscan_openrtb::decode(&mut common::reader(), input, mode);
        }
    }
}
