//! Wrong-typed values inside a bid never fail the response (error issue, value read as absent); only non-JSON
//! or a body that is not a bid-response object fails the whole decode. Each case in both modes.

use crate::common;

use bidscan_openrtb::{DecodeError, Mode, Severity, Status};
use common::{BID0, bid, decode, keys, lenient, one_bid, one_coercion, strict_err};

const E: Severity = Severity::Error;

#[test]
fn price_not_a_number_string() {
    let json = one_bid(&[("price", Some(r#""abc""#))]);
    let d = lenient(&json);
    let price = format!("{BID0}/price");
    // The type error, then validation: the price is now missing.
    assert_eq!(
        keys(&d),
        vec![
            (price.clone(), "invalid_type", E),
            (price.clone(), "missing_price", E)
        ]
    );
    assert_eq!(d.response.seatbid[0].bid[0].price, None);
    assert_eq!(d.status, Status::Bid);
    assert_eq!(strict_err(&json), (price, "invalid_type"));
}

#[test]
fn nan_and_infinity_strings_are_not_numbers() {
    for text in [
        r#""NaN""#,
        r#""inf""#,
        r#""Infinity""#,
        r#""""#,
        r#""0x10""#,
    ] {
        let d = lenient(&one_bid(&[("price", Some(text))]));
        assert_eq!(d.issues[0].code, "invalid_type", "{text}");
        assert_eq!(d.response.seatbid[0].bid[0].price, None, "{text}");
    }
}

#[test]
fn width_is_an_object() {
    let json = one_bid(&[("w", Some(r#"{"a":[1,{"b":2}]}"#)), ("h", Some("250"))]);
    let d = one_coercion(&json, "/seatbid/0/bid/0/w", "invalid_type", E);
    let b = &d.response.seatbid[0].bid[0];
    assert_eq!((b.w, b.h), (None, Some(250)));
    assert_eq!(
        d.issues[0].message,
        "expected an integer, found an object; ignored"
    );
}

#[test]
fn adomain_is_a_number() {
    let d = one_coercion(
        &one_bid(&[("adomain", Some("5"))]),
        "/seatbid/0/bid/0/adomain",
        "invalid_type",
        E,
    );
    assert!(d.response.seatbid[0].bid[0].adomain.is_empty());
    assert_eq!(
        d.issues[0].message,
        "expected an array of strings, found a number; ignored"
    );
}

#[test]
fn wrong_array_element_is_dropped() {
    // "x" is not a number, [2] not an integer: both reported, in order, and both dropped.
    let json = one_bid(&[("attr", Some(r#"[1,"x",[2],3]"#))]);
    let d = lenient(&json);
    assert_eq!(
        keys(&d),
        vec![
            (format!("{BID0}/attr/1"), "invalid_type", E),
            (format!("{BID0}/attr/2"), "invalid_type", E)
        ]
    );
    assert_eq!(
        d.response.seatbid[0].bid[0]
            .attr
            .iter()
            .map(|a| a.0)
            .collect::<Vec<_>>(),
        vec![1, 3]
    );
    assert_eq!(
        strict_err(&json),
        (format!("{BID0}/attr/1"), "invalid_type")
    );
}

#[test]
fn integer_out_of_range() {
    let d = one_coercion(
        &one_bid(&[("exp", Some("18446744073709551615"))]),
        "/seatbid/0/bid/0/exp",
        "out_of_range",
        E,
    );
    assert_eq!(d.response.seatbid[0].bid[0].exp, None);
}

#[test]
fn fractional_integer_is_a_type_error() {
    one_coercion(
        &one_bid(&[("w", Some("300.5"))]),
        "/seatbid/0/bid/0/w",
        "invalid_type",
        E,
    );
}

#[test]
fn adm_is_an_array() {
    let json = one_bid(&[
        ("adm", Some(r#"["<div/>"]"#)),
        ("nurl", Some(r#""https://x/win""#)),
    ]);
    one_coercion(&json, "/seatbid/0/bid/0/adm", "invalid_type", E);
}

#[test]
fn ext_is_not_an_object() {
    one_coercion(
        &one_bid(&[("ext", Some(r#""x""#))]),
        "/seatbid/0/bid/0/ext",
        "invalid_type",
        E,
    );
    one_coercion(r#"{"id":"r","ext":[1]}"#, "/ext", "invalid_type", E);
}

#[test]
fn a_bad_bid_element_shifts_no_pointer() {
    // Bid 0 is a string, bid 1 null, bid 2 fine but with a coerced price: its pointer keeps source index 2.
    let json = format!(
        r#"{{"id":"r1","seatbid":[{{"bid":["x",null,{}]}}]}}"#,
        bid(&[("price", Some(r#""3""#))])
    );
    let d = lenient(&json);
    assert_eq!(
        keys(&d),
        vec![
            ("/seatbid/0/bid/0".to_owned(), "invalid_type", E),
            (
                "/seatbid/0/bid/1".to_owned(),
                "null_value",
                Severity::Warning
            ),
            (
                "/seatbid/0/bid/2/price".to_owned(),
                "number_as_string",
                Severity::Warning
            ),
        ]
    );
    assert_eq!(d.bid_count(), 1);
    assert_eq!(d.summary().bids[0].path, "/seatbid/0/bid/2");
    assert_eq!(
        strict_err(&json),
        ("/seatbid/0/bid/0".to_owned(), "invalid_type")
    );
}

#[test]
fn a_bad_seatbid_element_is_dropped() {
    let json = format!(
        r#"{{"id":"r1","seatbid":[7,{{"bid":[{}]}}]}}"#,
        bid(&[("w", Some("0"))])
    );
    let d = lenient(&json);
    assert_eq!(
        keys(&d),
        vec![
            ("/seatbid/0".to_owned(), "invalid_type", E),
            ("/seatbid/1/bid/0/w".to_owned(), "invalid_size", E)
        ]
    );
    assert_eq!(d.status, Status::Bid);
}

#[test]
fn bid_member_of_wrong_type() {
    let d = one_coercion(
        r#"{"id":"r1","seatbid":[{"bid":"none"}]}"#,
        "/seatbid/0/bid",
        "invalid_type",
        E,
    );
    assert_eq!(d.status, Status::NoBid);
}

fn not_a_bid_response(json: &str, at: &str) {
    for mode in [Mode::Lenient, Mode::Strict] {
        match decode(json, mode) {
            Err(DecodeError::NotABidResponse { message, path }) => {
                assert!(message.starts_with("not a bid response: "), "{message}");
                assert_eq!(path, at, "{json}");
            }
            other => panic!("{json}: expected NotABidResponse, got {other:?}"),
        }
    }
}

#[test]
fn top_level_not_an_object() {
    for json in [
        "[]",
        r#"[{"id":"r"}]"#,
        r#""bid""#,
        "42",
        "-1.5",
        "true",
        "null",
        " \n[1,2]",
        "[1] \n",
    ] {
        not_a_bid_response(json, "");
    }
    // Not JSON at all: bytes after the value make the body malformed (400), whatever the value's shape (not
    // refused as an array or a number).
    for json in [
        "[1]x",
        "[\"\"],",
        "123\u{0}",
        "2@",
        "\"a\"b",
        "null null",
        "true}",
    ] {
        for mode in [Mode::Lenient, Mode::Strict] {
            assert!(
                matches!(decode(json, mode), Err(DecodeError::Malformed(_))),
                "{json:?}: {:?}",
                decode(json, mode)
            );
        }
    }
}

#[test]
fn xml_or_html_body() {
    not_a_bid_response(r#"<?xml version="1.0"?><VAST version="3.0"></VAST>"#, "");
    not_a_bid_response("\n  <html><body>502 Bad Gateway</body></html>", "");
}

#[test]
fn seatbid_of_wrong_type() {
    for seatbid in [r#""none""#, "1", "false"] {
        not_a_bid_response(&format!(r#"{{"id":"r","seatbid":{seatbid}}}"#), "/seatbid");
    }
    // The shape is refused once the whole body was read: a body that is also not JSON is malformed
    // (400, not 422).
    for json in [
        r#"{"id":"r","seatbid":5,"x":"\ud800"}"#,
        r#"{"id":"r","seatbid":5,"x":}"#,
        r#"{"seatbid":5"#,
        r#"{"id":"r","seatbid":"a","#,
        r#"{"id":"r","seatbid":5}x"#,
    ] {
        // bidscan-json alone: serde_json accepts a lone surrogate in a skipped string, which this reader
        // refuses (README), so the differential `decode` helper does not apply to the first.
        for mode in [Mode::Lenient, Mode::Strict] {
            let mut body = json.as_bytes().to_vec();
            let got = bidscan_openrtb::decode(&mut common::reader(), &mut body, mode);
            assert!(
                matches!(got, Err(DecodeError::Malformed(_))),
                "{json}: {got:?}"
            );
        }
    }
}

#[test]
fn not_json_is_malformed() {
    for json in [
        "{",
        r#"{"id":"r",}"#,
        "{'id':'r'}",
        r#"{"id":"r"} x"#,
        "NaN",
        "{\"id\":\"\u{1}\"}",
    ] {
        for mode in [Mode::Lenient, Mode::Strict] {
            let bytes = common::leak(json);
            match bidscan_openrtb::decode(&mut common::reader(), bytes, mode) {
                Err(e @ DecodeError::Malformed(_)) => {
                    assert_eq!(e.code(), "malformed_json");
                    assert!(!e.to_string().is_empty());
                }
                other => panic!("{json:?}: expected Malformed, got {other:?}"),
            }
        }
    }
}

#[test]
fn unknown_members_are_ignored() {
    let json = one_bid(&[("x_vendor", Some(r#"{"deep":[1,{"a":"\u00e9"}]}"#))])
        .replace("\"cur\"", "\"zzz\":[],\"cur\"");
    assert!(lenient(&json).issues.is_empty());
}
