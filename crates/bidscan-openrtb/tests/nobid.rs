//! No-bid in all its forms (OpenRTB 2.6 §4.2.1, §7.1): `Status::NoBid`, never an error, `nbr` kept.

use crate::common;

use bidscan_openrtb::{BidResponse, Mode, NoBidReason, Severity, Status};
use common::{decode, keys, lenient};

fn nobid_both_modes(json: &str) -> bidscan_openrtb::Decoded<'static> {
    let strict = decode(json, Mode::Strict).unwrap_or_else(|e| panic!("{json:?}: {e}"));
    assert_eq!(strict.status, Status::NoBid, "{json:?}");
    let d = lenient(json);
    assert_eq!(d.status, Status::NoBid, "{json:?}");
    assert_eq!(d.bid_count(), 0);
    d
}

#[test]
fn empty_and_whitespace_body() {
    for json in ["", " ", "\r\n\t "] {
        let d = nobid_both_modes(json);
        assert_eq!(d.response, BidResponse::default());
        assert!(d.issues.is_empty());
    }
}

#[test]
fn empty_object() {
    let d = nobid_both_modes("{}");
    assert!(
        d.issues.is_empty(),
        "no `missing_id` for a no-bid: {:?}",
        d.issues
    );
}

#[test]
fn missing_or_empty_seatbid() {
    for json in [
        r#"{"id":"r1"}"#,
        r#"{"id":"r1","seatbid":[]}"#,
        r#"{"id":"r1","seatbid":[],"cur":"EUR"}"#,
    ] {
        assert!(nobid_both_modes(json).issues.is_empty(), "{json}");
    }
}

#[test]
fn nbr_is_kept() {
    let d = nobid_both_modes(r#"{"id":"r1","seatbid":[],"nbr":2}"#);
    assert_eq!(d.response.nbr, Some(NoBidReason::INVALID_REQUEST));
    assert_eq!(d.summary().nbr, Some(NoBidReason(2)));
    let d = nobid_both_modes(r#"{"id":"r1","nbr":503}"#);
    assert_eq!(d.response.nbr.map(|n| n.0), Some(503));
    assert_eq!(d.response.nbr.and_then(NoBidReason::name), None);
    let canonical = serde_json::to_string(&d.response).unwrap();
    assert_eq!(canonical, r#"{"id":"r1","nbr":503}"#);
}

#[test]
fn seat_bids_with_empty_bid_arrays() {
    nobid_both_modes(r#"{"id":"r1","seatbid":[{"seat":"a","bid":[]},{"seat":"b","bid":[]}]}"#);
    nobid_both_modes(r#"{"id":"r1","seatbid":[{"seat":"a"}]}"#);
}

#[test]
fn null_seatbid_and_null_bid_arrays_are_nobid_with_a_warning() {
    let json = r#"{"id":"r1","seatbid":null}"#;
    let d = lenient(json);
    assert_eq!(d.status, Status::NoBid);
    assert_eq!(
        keys(&d),
        vec![("/seatbid".to_owned(), "null_value", Severity::Warning)]
    );
    assert_eq!(
        common::strict_err(json),
        ("/seatbid".to_owned(), "null_value")
    );

    let json = r#"{"id":"r1","seatbid":[{"bid":null},{"bid":[]}]}"#;
    let d = lenient(json);
    assert_eq!(d.status, Status::NoBid);
    assert_eq!(
        keys(&d),
        vec![("/seatbid/0/bid".to_owned(), "null_value", Severity::Warning)]
    );
    assert_eq!(
        common::strict_err(json),
        ("/seatbid/0/bid".to_owned(), "null_value")
    );
}

#[test]
fn corpus_nobids() {
    for name in ["nobid_nbr", "nobid_empty_seatbid"] {
        let path = format!(
            "{}/../../corpus/bid-responses/{name}.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let json = std::fs::read_to_string(&path).unwrap();
        assert!(nobid_both_modes(&json).issues.is_empty(), "{name}");
    }
}

/// `(code, path, message)` of the refusal of `json`, the same in both modes.
fn refused(json: &str) -> (&'static str, String, String) {
    let lenient = decode(json, Mode::Lenient).expect_err(json);
    let strict = decode(json, Mode::Strict).expect_err(json);
    assert_eq!(
        (lenient.code(), lenient.path()),
        (strict.code(), strict.path()),
        "{json}"
    );
    assert_eq!(lenient.to_string(), strict.to_string(), "{json}");
    (
        lenient.code(),
        lenient.path().unwrap_or_default().to_owned(),
        lenient.to_string(),
    )
}

#[test]
fn bid_response_members_without_bids_stay_no_bids() {
    for json in [
        r#"{"id":"r1"}"#,
        r#"{"id":"r1","ext":{"error":"timeout"}}"#,
        r#"{"bidid":"b","cur":"EUR","customdata":"c"}"#,
        r#"{"ext":{}}"#,
    ] {
        assert!(nobid_both_modes(json).issues.is_empty(), "{json}");
    }
}

#[test]
fn an_unknown_member_beside_seatbid_or_nbr_is_skipped() {
    for json in [
        r#"{"id":"r1","seatbid":[],"error":"timeout"}"#,
        r#"{"error":"timeout","nbr":1}"#,
        r#"{"openrtb":{"ver":"3.0"},"nbr":2}"#,
        r#"{"seatbid":[{"bid":[]}],"debug":{"x":1}}"#,
    ] {
        assert!(nobid_both_modes(json).issues.is_empty(), "{json}");
    }
    let d = lenient(
        r#"{"error":"none","seatbid":[{"bid":[{"id":"b","impid":"1","price":1,"crid":"c","adm":"<a></a>"}]}],"id":"r"}"#,
    );
    assert_eq!(d.status, Status::Bid);
    assert!(d.issues.is_empty(), "{:?}", d.issues);
}

#[test]
fn a_member_name_in_another_form_is_a_misnamed_member_not_a_refusal() {
    let json = r#"{"id":"r1","Seatbid":[]}"#;
    let d = lenient(json);
    assert_eq!(d.status, Status::NoBid);
    assert_eq!(
        keys(&d),
        vec![("/seatbid".to_owned(), "misnamed_member", Severity::Error)]
    );
    assert_eq!(
        common::strict_err(json),
        ("/seatbid".to_owned(), "misnamed_member")
    );
}

#[test]
fn an_error_object_is_not_a_bid_response() {
    for (json, member) in [
        (r#"{"error":"timeout","id":"r1"}"#, "error"),
        (r#"{"id":"r1","message":"no fill","code":204}"#, "message"),
        (r#"{"status":"ok","data":null}"#, "status"),
        (r#"{"bids":[{"cpm":1.5}]}"#, "bids"),
        (r#"{"error":null}"#, "error"),
        ("{\"reason\":\"x\",\"Seatbid\":[]}", "reason"),
    ] {
        let (code, path, message) = refused(json);
        assert_eq!((code, path.as_str()), ("not_a_bid_response", ""), "{json}");
        assert!(
            message.starts_with("not a bid response: ")
                && message.contains(&format!("`{member}`"))
                && message.contains("no `seatbid` and no `nbr`"),
            "{json}: {message}"
        );
    }
}

#[test]
fn an_openrtb3_document_is_not_supported() {
    for json in [
        r#"{"openrtb":{"ver":"3.0","domainspec":"adcom","domainver":"1.0","response":{"id":"r1","seatbid":[]}}}"#,
        r#"{"error":"x","openrtb":{}}"#,
        r#"{"id":"r1","openrtb":null}"#,
    ] {
        let (code, path, message) = refused(json);
        assert_eq!(
            (code, path.as_str()),
            ("openrtb3_not_supported", ""),
            "{json}"
        );
        assert!(message.contains("OpenRTB 3.0"), "{message}");
    }
}

#[test]
fn a_refusal_waits_for_the_whole_input() {
    for json in [
        r#"{"error":"timeout",}"#,
        r#"{"error":"timeout"} x"#,
        r#"{"openrtb":{"ver":"3.0"}"#,
    ] {
        for mode in [Mode::Lenient, Mode::Strict] {
            let e = decode(json, mode).expect_err(json);
            assert_eq!(e.code(), "malformed_json", "{json}: {e}");
        }
    }
}

#[test]
fn the_refusal_names_the_first_foreign_member_shortened() {
    let long = "a".repeat(40);
    let (_, _, message) = refused(&format!(r#"{{"{long}":1,"error":2}}"#));
    assert!(
        message.contains(&format!("`{}…`", "a".repeat(32))),
        "{message}"
    );
    // Cut at a character boundary: 31 ASCII bytes and a two-byte character that would end at byte 33.
    let name = format!("{}é", "b".repeat(31));
    let (_, _, message) = refused(&format!(r#"{{"{name}":1}}"#));
    assert!(
        message.contains(&format!("`{}…`", "b".repeat(31))),
        "{message}"
    );
}
