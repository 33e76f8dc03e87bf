//! One test per leniency rule (DESIGN "The model"): the lenient decode reads the value and records exactly one
//! warning with its JSON pointer; strict mode fails with the same pointer and code.

use crate::common;

use std::borrow::Cow;

use bidscan_openrtb::{Adm, MarkupType, Severity, Status};
use common::{BID0, bid, one_bid, one_coercion};

const W: Severity = Severity::Warning;

#[test]
fn price_as_string() {
    let d = one_coercion(
        &one_bid(&[("price", Some(r#""0.500000""#))]),
        "/seatbid/0/bid/0/price",
        "number_as_string",
        W,
    );
    assert_eq!(d.response.seatbid[0].bid[0].price, Some(0.5));
}

#[test]
fn width_as_string() {
    let d = one_coercion(
        &one_bid(&[("w", Some(r#""300""#))]),
        "/seatbid/0/bid/0/w",
        "number_as_string",
        W,
    );
    assert_eq!(d.response.seatbid[0].bid[0].w, Some(300));
}

#[test]
fn mtype_as_string() {
    let d = one_coercion(
        &one_bid(&[("mtype", Some(r#""2""#))]),
        "/seatbid/0/bid/0/mtype",
        "number_as_string",
        W,
    );
    assert_eq!(d.response.seatbid[0].bid[0].mtype, Some(MarkupType::VIDEO));
}

#[test]
fn nbr_as_string() {
    let d = one_coercion(r#"{"id":"r","nbr":"2"}"#, "/nbr", "number_as_string", W);
    assert_eq!(d.response.nbr.map(|n| n.0), Some(2));
}

#[test]
fn integer_with_zero_fraction() {
    let d = one_coercion(
        &one_bid(&[("h", Some("250.0"))]),
        "/seatbid/0/bid/0/h",
        "float_as_integer",
        W,
    );
    assert_eq!(d.response.seatbid[0].bid[0].h, Some(250));
}

#[test]
fn null_optional_string() {
    let d = one_coercion(
        &one_bid(&[("nurl", Some("null"))]),
        "/seatbid/0/bid/0/nurl",
        "null_value",
        W,
    );
    assert_eq!(d.response.seatbid[0].bid[0].nurl, None);
}

#[test]
fn null_optional_number() {
    let d = one_coercion(
        &one_bid(&[("dur", Some("null"))]),
        "/seatbid/0/bid/0/dur",
        "null_value",
        W,
    );
    assert_eq!(d.response.seatbid[0].bid[0].dur, None);
}

#[test]
fn null_array() {
    let d = one_coercion(
        &one_bid(&[("adomain", Some("null"))]),
        "/seatbid/0/bid/0/adomain",
        "null_value",
        W,
    );
    assert!(d.response.seatbid[0].bid[0].adomain.is_empty());
}

#[test]
fn null_ext() {
    let d = one_coercion(
        &one_bid(&[("ext", Some("null"))]),
        "/seatbid/0/bid/0/ext",
        "null_value",
        W,
    );
    assert_eq!(d.response.seatbid[0].bid[0].ext, None);
}

#[test]
fn null_array_element_is_dropped() {
    let d = one_coercion(
        &one_bid(&[("cat", Some(r#"["IAB1",null,"IAB2"]"#))]),
        "/seatbid/0/bid/0/cat/1",
        "null_value",
        W,
    );
    assert_eq!(d.response.seatbid[0].bid[0].cat, vec!["IAB1", "IAB2"]);
}

#[test]
fn single_adomain() {
    let d = one_coercion(
        &one_bid(&[("adomain", Some(r#""brand.com""#))]),
        "/seatbid/0/bid/0/adomain",
        "single_value",
        W,
    );
    assert_eq!(
        d.response.seatbid[0].bid[0].adomain,
        vec![Cow::Borrowed("brand.com")]
    );
}

#[test]
fn single_cat() {
    let d = one_coercion(
        &one_bid(&[("cat", Some(r#""IAB1""#))]),
        "/seatbid/0/bid/0/cat",
        "single_value",
        W,
    );
    assert_eq!(d.response.seatbid[0].bid[0].cat, vec!["IAB1"]);
}

#[test]
fn single_attr() {
    let d = one_coercion(
        &one_bid(&[("attr", Some("3"))]),
        "/seatbid/0/bid/0/attr",
        "single_value",
        W,
    );
    assert_eq!(
        d.response.seatbid[0].bid[0]
            .attr
            .iter()
            .map(|a| a.0)
            .collect::<Vec<_>>(),
        vec![3]
    );
}

#[test]
fn single_seatbid_object() {
    let json = format!(
        r#"{{"id":"r1","seatbid":{{"seat":"s1","bid":[{}]}}}}"#,
        bid(&[])
    );
    let d = one_coercion(&json, "/seatbid", "single_value", W);
    assert_eq!(d.status, Status::Bid);
    assert_eq!(d.bid_count(), 1);
    // The bid inside a single seat-bid object has no seat-bid index in its pointer.
    assert_eq!(d.summary().bids[0].path, "/seatbid/bid/0");
}

#[test]
fn single_bid_object() {
    let json = format!(
        r#"{{"id":"r1","seatbid":[{{"bid":{}}}]}}"#,
        bid(&[("price", Some(r#""2""#))])
    );
    let d = common::lenient(&json);
    assert_eq!(
        common::keys(&d),
        vec![
            ("/seatbid/0/bid".to_owned(), "single_value", W),
            ("/seatbid/0/bid/price".to_owned(), "number_as_string", W)
        ]
    );
    assert_eq!(
        common::strict_err(&json),
        ("/seatbid/0/bid".to_owned(), "single_value")
    );
}

#[test]
fn adm_object_is_kept_verbatim() {
    let native = r#"{"native":{"ver":"1.2","assets":[{"id":1,"title":{"text":"Hi \"there\""}}]},"x":[1, 2]}"#;
    let d = one_coercion(
        &one_bid(&[("adm", Some(native))]),
        "/seatbid/0/bid/0/adm",
        "adm_object",
        W,
    );
    let bid = &d.response.seatbid[0].bid[0];
    let Some(Adm::Object(object)) = &bid.adm else {
        panic!("adm should be an object: {:?}", bid.adm)
    };
    assert_eq!(object.members.len(), 2);
    assert_eq!(
        object.members[0].1.get(),
        r#"{"ver":"1.2","assets":[{"id":1,"title":{"text":"Hi \"there\""}}]}"#
    );
    assert_eq!(object.members[1].1.get(), "[1, 2]");
    // Canonical output is compact: whitespace outside strings dropped, escapes kept as sent.
    let canonical = serde_json::to_string(&d.response).unwrap();
    let compact = native.replace("[1, 2]", "[1,2]");
    assert!(
        canonical.contains(&format!(r#""adm":{compact}"#)),
        "{canonical}"
    );
    let summary = d.summary();
    assert_eq!(summary.bids[0].adm.kind, bidscan_openrtb::AdmKind::Native);
    assert_eq!(summary.bids[0].adm.bytes, compact.len());
}

#[test]
fn numeric_bid_id() {
    let d = one_coercion(
        &one_bid(&[("id", Some("42"))]),
        "/seatbid/0/bid/0/id",
        "numeric_id",
        W,
    );
    assert_eq!(d.response.seatbid[0].bid[0].id.as_deref(), Some("42"));
}

#[test]
fn numeric_impid() {
    let d = one_coercion(
        &one_bid(&[("impid", Some("1"))]),
        "/seatbid/0/bid/0/impid",
        "numeric_id",
        W,
    );
    assert_eq!(d.response.seatbid[0].bid[0].impid.as_deref(), Some("1"));
}

#[test]
fn numeric_bidid() {
    let json = one_bid(&[]).replace(r#""cur":"USD""#, r#""cur":"USD","bidid":9007199254740993"#);
    let d = one_coercion(&json, "/bidid", "numeric_id", W);
    assert_eq!(d.response.bidid.as_deref(), Some("9007199254740993"));
}

#[test]
fn numeric_ids_past_the_integers_are_out_of_range_not_invented_digits() {
    // `12345678901234567890123` must not come back as "12345678901234568000000".
    for (sent, kept) in [
        ("12345678901234567890123", None),
        ("18446744073709551616", None),
        ("-9223372036854775809", None),
        ("9007199254740992.0", None),
        ("1e2", Some("100")),
        ("1.10", None),
        ("123456789.123456789", None),
        ("1.00000000000000001", Some("1")),
        ("2.5e1", Some("25")),
        ("2.5e2", Some("250")),
        ("18446744073709551615", Some("18446744073709551615")),
    ] {
        let json =
            one_bid(&[]).replace(r#""cur":"USD""#, &format!(r#""cur":"USD","bidid":{sent}"#));
        let d = common::lenient(&json);
        assert_eq!(d.response.bidid.as_deref(), kept, "{sent}");
        let code = if kept.is_some() {
            "numeric_id"
        } else {
            "out_of_range"
        };
        assert!(
            common::keys(&d).contains(&(
                "/bidid".to_owned(),
                code,
                if kept.is_some() { W } else { Severity::Error }
            )),
            "{sent}: {:?}",
            common::keys(&d)
        );
    }
}

#[test]
fn numeric_response_id() {
    let json = one_bid(&[]).replace(r#""id":"r1""#, r#""id":-7"#);
    let d = one_coercion(&json, "/id", "numeric_id", W);
    assert_eq!(d.response.id.as_deref(), Some("-7"));
}

#[test]
fn duplicate_member_keeps_last() {
    let json = one_bid(&[]).replace(r#""price":1.5"#, r#""price":1.5,"price":2.5"#);
    let d = one_coercion(&json, "/seatbid/0/bid/0/price", "duplicate_field", W);
    assert_eq!(d.response.seatbid[0].bid[0].price, Some(2.5));
}

#[test]
fn strict_reports_the_first_in_document_order() {
    // The response-level `bidid` comes after the bid in the document, the bid's `w` before its `price`.
    let json = format!(
        r#"{{"id":"r1","seatbid":[{{"bid":[{}]}}],"bidid":5}}"#,
        bid(&[("w", Some(r#""300""#)), ("price", Some(r#""1""#))])
    );
    let d = common::lenient(&json);
    let paths: Vec<String> = d.issues.iter().map(|i| i.path.clone()).collect();
    assert_eq!(
        paths,
        vec![
            format!("{BID0}/price"),
            format!("{BID0}/w"),
            "/bidid".to_owned()
        ]
    );
    assert_eq!(
        common::strict_err(&json),
        (format!("{BID0}/price"), "number_as_string")
    );
}

#[test]
fn clean_document_has_no_issues_in_either_mode() {
    let json = one_bid(&[
        ("w", Some("300")),
        ("h", Some("250")),
        ("adomain", Some(r#"["a.com"]"#)),
    ]);
    assert!(common::lenient(&json).issues.is_empty());
    assert!(common::decode(&json, bidscan_openrtb::Mode::Strict).is_ok());
}

#[test]
fn a_member_in_another_case_or_form_is_an_error_not_a_silent_no_bid() {
    // `Seatbid`, `Bid` and `bids` must not make a clean no-bid with no issue.
    let bid = r#"{"id":"a","impid":"1","price":1}"#;
    for (json, path) in [
        (
            format!(r#"{{"id":"r","Seatbid":[{{"bid":[{bid}]}}]}}"#),
            "/seatbid",
        ),
        (
            format!(r#"{{"id":"r","seat_bids":[{{"bid":[{bid}]}}]}}"#),
            "/seatbid",
        ),
        (
            format!(r#"{{"id":"r","seatbid":[{{"Bid":[{bid}]}}]}}"#),
            "/seatbid/0/bid",
        ),
        (
            format!(r#"{{"id":"r","seatbid":[{{"bids":[{bid}]}}]}}"#),
            "/seatbid/0/bid",
        ),
        (
            r#"{"id":"r","seatbid":[{"bid":[{"id":"a","impid":"1","Price":1}]}]}"#.to_owned(),
            "/seatbid/0/bid/0/price",
        ),
        // `Api` is `api`, not a plural of `apis`' stem.
        (
            r#"{"id":"r","seatbid":[{"bid":[{"id":"a","impid":"1","Api":3}]}]}"#.to_owned(),
            "/seatbid/0/bid/0/api",
        ),
    ] {
        let d = common::lenient(&json);
        assert_eq!(
            common::keys(&d).first(),
            Some(&(path.to_owned(), "misnamed_member", Severity::Error)),
            "{json}"
        );
        assert!(
            d.response
                .seatbid
                .iter()
                .all(|s| s.bid.iter().all(|b| b.price.is_none())),
            "{json}"
        );
        assert_eq!(
            common::strict_err(&json),
            (path.to_owned(), "misnamed_member"),
            "{json}"
        );
    }
    // A bidder's own members stay silent.
    for json in [
        r#"{"id":"r","seatbid":[{"bid":[{"id":"a","impid":"1","price":1,"adm_native":"x","type":"banner"}]}],"adUnits":[]}"#,
        r#"{"id":"r","bidder":"x","ids":{},"seatbid":[{"bid":[{"id":"a","impid":"1","price":1}],"type":1}]}"#,
        // A document store's `_id` (and `id_`, `__price`) is the bidder's own member.
        r#"{"id":"r","_id":"m","seatbid":[{"bid":[{"id":"a","impid":"1","price":1,"_id":"x","id_":1,"__price":2}]}]}"#,
    ] {
        let d = common::lenient(json);
        assert!(
            common::keys(&d)
                .iter()
                .all(|(_, code, _)| *code != "misnamed_member"),
            "{json}"
        );
        assert_eq!(d.response.seatbid[0].bid[0].price, Some(1.0), "{json}");
    }
}
