//! No-bid in all its forms (OpenRTB 2.6 §4.2.1, §7.1): `Status::NoBid`, never an error, `nbr` kept.

mod common;

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
