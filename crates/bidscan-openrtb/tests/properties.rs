//! Property tests: any JSON value as any member never fails a lenient decode (and fails a strict one only with
//! `DecodeError::Strict`); arbitrary bytes never panic. Every JSON input is also checked against serde_json.

mod common;

use bidscan_openrtb::{DecodeError, Mode};
use proptest::prelude::*;
use serde_json::Value;

const BID_MEMBERS: &[&str] = &[
    "id", "impid", "price", "nurl", "burl", "lurl", "adm", "adid", "adomain", "bundle", "iurl", "cid", "crid",
    "tactic", "cattax", "cat", "attr", "apis", "api", "protocol", "qagmediarating", "language", "langb", "dealid",
    "w", "h", "wratio", "hratio", "exp", "dur", "mtype", "slotinpod", "ext", "x_unknown",
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
        Ok(_) => {}
        Err(e) => assert!(!must_decode, "lenient decode failed on {json}: {e}"),
    }
    match common::decode(json, Mode::Strict) {
        Ok(_) | Err(DecodeError::Strict { .. }) => {}
        Err(e) => assert!(!must_decode, "strict decode failed on {json}: {e}"),
    }
}

proptest! {
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
