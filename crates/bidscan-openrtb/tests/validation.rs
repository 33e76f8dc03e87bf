//! One test per validation rule (see `bidscan_openrtb::checks`): exact pointer, code and severity. Findings
//! never fail a decode, so each is checked in both modes with the same result.

use crate::common;

use std::borrow::Cow;

use bidscan_openrtb::{Decoded, Mode, Severity, Status};
use common::{BID0, bid, decode, keys, one_bid};

const E: Severity = Severity::Error;
const W: Severity = Severity::Warning;

/// Decodes in both modes, asserts equal results, and returns the issues' `(path, code, severity)`.
fn findings(json: &str) -> (Decoded<'static>, Vec<(String, &'static str, Severity)>) {
    let lenient = decode(json, Mode::Lenient).unwrap_or_else(|e| panic!("{json}: {e}"));
    let strict = decode(json, Mode::Strict).unwrap_or_else(|e| panic!("{json}: {e}"));
    assert_eq!(
        lenient, strict,
        "validation must not depend on the mode: {json}"
    );
    let k = keys(&lenient);
    (lenient, k)
}

fn only(json: &str, path: &str, code: &'static str, severity: Severity) {
    let (d, k) = findings(json);
    assert_eq!(k, vec![(path.to_owned(), code, severity)], "{json}");
    assert!(!d.issues[0].message.is_empty());
}

fn at(field: &str) -> String {
    format!("{BID0}/{field}")
}

#[test]
fn missing_bid_id() {
    only(&one_bid(&[("id", None)]), &at("id"), "missing_id", E);
    only(
        &one_bid(&[("id", Some(r#""""#))]),
        &at("id"),
        "missing_id",
        E,
    );
}

#[test]
fn missing_impid() {
    only(
        &one_bid(&[("impid", None)]),
        &at("impid"),
        "missing_impid",
        E,
    );
}

#[test]
fn missing_price() {
    only(
        &one_bid(&[("price", None)]),
        &at("price"),
        "missing_price",
        E,
    );
}

#[test]
fn price_not_finite() {
    // A JSON number too large for f64 is a syntax-level matter for the reader; sent as a string it reaches the
    // model as infinity (with its `number_as_string` warning first, so lenient only).
    let d = common::lenient(&one_bid(&[("price", Some(r#""1e999""#))]));
    assert_eq!(
        keys(&d),
        vec![
            (at("price"), "number_as_string", W),
            (at("price"), "price_not_finite", E)
        ]
    );
}

#[test]
fn negative_price() {
    only(
        &one_bid(&[("price", Some("-0.01"))]),
        &at("price"),
        "negative_price",
        E,
    );
}

#[test]
fn zero_price_without_deal_is_an_error() {
    only(
        &one_bid(&[("price", Some("0"))]),
        &at("price"),
        "zero_price",
        E,
    );
    let (_, k) = findings(&one_bid(&[
        ("price", Some("0.0")),
        ("dealid", Some(r#""d-1""#)),
    ]));
    assert!(k.is_empty(), "a zero price under a deal is fine: {k:?}");
}

/// `one_bid` with `"cur":` followed by `cur` (JSON text).
fn with_cur(cur: &str) -> String {
    one_bid(&[]).replace(r#""cur":"USD""#, &format!(r#""cur":{cur}"#))
}

#[test]
fn invalid_currency() {
    for cur in [
        r#""US""#,
        r#""USDT""#,
        r#""U$D""#,
        r#"" USD""#,
        r#""us1""#,
        r#""ÉUR""#,
    ] {
        only(&with_cur(cur), "/cur", "invalid_currency", E);
        let (d, _) = findings(&with_cur(cur));
        assert_eq!(
            serde_json::to_string(&d.response.cur).unwrap(),
            cur,
            "kept as sent"
        );
    }
    for cur in ["EUR", "JPY", "XAU"] {
        let (d, k) = findings(&with_cur(&format!(r#""{cur}""#)));
        assert!(k.is_empty(), "{cur}");
        assert!(
            matches!(d.response.cur, Some(Cow::Borrowed(c)) if c == cur),
            "{cur}: borrowed, unchanged"
        );
    }
}

#[test]
fn empty_currency_is_usd() {
    let (d, k) = findings(&with_cur(r#""""#));
    assert!(k.is_empty(), "an empty cur is USD, no issue: {k:?}");
    assert_eq!(d.response.cur.as_deref(), Some("USD"));
    assert_eq!(d.summary().cur, "USD");
    let canonical = serde_json::to_string(&d.response).unwrap();
    assert!(canonical.ends_with(r#""cur":"USD"}"#), "{canonical}");
}

#[test]
fn currency_in_lower_or_mixed_case_is_upper_cased_with_a_warning() {
    for (cur, read) in [
        ("usd", "USD"),
        ("eur", "EUR"),
        ("Eur", "EUR"),
        ("eUR", "EUR"),
    ] {
        let json = with_cur(&format!(r#""{cur}""#));
        only(&json, "/cur", "currency_case", W);
        let (d, _) = findings(&json);
        let message = &d.issues[0].message;
        assert!(
            message.contains(&format!("{cur:?}")) && message.contains(&format!("{read:?}")),
            "the message names what was sent and what is read: {message}"
        );
        assert!(
            matches!(&d.response.cur, Some(Cow::Owned(c)) if c == read),
            "{cur}: {:?}",
            d.response.cur
        );
        assert_eq!(d.summary().cur, read);
        let canonical = serde_json::to_string(&d.response).unwrap();
        assert!(
            canonical.ends_with(&format!(r#""cur":"{read}"}}"#)),
            "{canonical}"
        );
    }
}

#[test]
fn missing_crid_is_an_error() {
    only(&one_bid(&[("crid", None)]), &at("crid"), "missing_crid", E);
    only(
        &one_bid(&[("crid", Some(r#""""#))]),
        &at("crid"),
        "missing_crid",
        E,
    );
}

#[test]
fn neither_adm_nor_nurl() {
    only(&one_bid(&[("adm", None)]), BID0, "missing_markup", E);
    only(
        &one_bid(&[("adm", Some(r#""""#))]),
        BID0,
        "missing_markup",
        E,
    );
    let (_, k) = findings(&one_bid(&[
        ("adm", None),
        (
            "nurl",
            Some(r#""https://dsp.example/win?p=${AUCTION_PRICE}""#),
        ),
    ]));
    assert!(k.is_empty(), "markup served on the win notice: {k:?}");
}

#[test]
fn mtype_outside_1_to_4() {
    for mtype in ["0", "5", "-1"] {
        only(
            &one_bid(&[("mtype", Some(mtype))]),
            &at("mtype"),
            "invalid_mtype",
            E,
        );
    }
    for mtype in ["1", "2", "3", "4"] {
        assert!(findings(&one_bid(&[("mtype", Some(mtype))])).1.is_empty());
    }
}

#[test]
fn non_positive_size() {
    only(
        &one_bid(&[("w", Some("0")), ("h", Some("250"))]),
        &at("w"),
        "invalid_size",
        E,
    );
    only(
        &one_bid(&[("w", Some("300")), ("h", Some("-250"))]),
        &at("h"),
        "invalid_size",
        E,
    );
}

#[test]
fn duplicate_bid_ids() {
    let json = format!(
        r#"{{"id":"r1","seatbid":[{{"bid":[{},{}]}},{{"bid":[{}]}}]}}"#,
        bid(&[("id", Some(r#""a""#))]),
        bid(&[("id", Some(r#""b""#))]),
        bid(&[("id", Some(r#""a""#))]),
    );
    let (_, k) = findings(&json);
    assert_eq!(
        k,
        vec![("/seatbid/1/bid/0/id".to_owned(), "duplicate_bid_id", E)]
    );
}

#[test]
fn duplicate_bid_ids_in_a_large_response() {
    // More than 64 bids takes the hash-set path.
    let bids: Vec<String> = (0..100)
        .map(|i| bid(&[("id", Some(&format!("\"{}\"", i % 90)))]))
        .collect();
    let json = format!(
        r#"{{"id":"r1","seatbid":[{{"bid":[{}]}}]}}"#,
        bids.join(",")
    );
    let (_, k) = findings(&json);
    let expected: Vec<_> = (90..100)
        .map(|i| (format!("/seatbid/0/bid/{i}/id"), "duplicate_bid_id", E))
        .collect();
    assert_eq!(k, expected);
}

#[test]
fn response_without_id() {
    only(
        &one_bid(&[]).replace(r#""id":"r1","#, ""),
        "/id",
        "missing_id",
        E,
    );
}

#[test]
fn nbr_with_bids() {
    let json = one_bid(&[]).replace(r#""cur":"USD""#, r#""cur":"USD","nbr":1"#);
    only(&json, "/nbr", "nbr_with_bids", W);
}

#[test]
fn one_bad_bid_never_hides_the_others() {
    let json = format!(
        r#"{{"id":"r1","seatbid":[{{"bid":[{},{},{}]}}]}}"#,
        bid(&[("id", Some(r#""x""#))]),
        bid(&[
            ("id", Some(r#""y""#)),
            ("price", Some("-1")),
            ("impid", None),
            ("w", Some("0"))
        ]),
        bid(&[("id", Some(r#""z""#)), ("mtype", Some("9")), ("crid", None)]),
    );
    let (d, k) = findings(&json);
    assert_eq!(d.status, Status::Bid);
    assert_eq!(d.bid_count(), 3);
    assert_eq!(
        k,
        vec![
            ("/seatbid/0/bid/1/impid".to_owned(), "missing_impid", E),
            ("/seatbid/0/bid/1/price".to_owned(), "negative_price", E),
            ("/seatbid/0/bid/1/w".to_owned(), "invalid_size", E),
            ("/seatbid/0/bid/2/crid".to_owned(), "missing_crid", E),
            ("/seatbid/0/bid/2/mtype".to_owned(), "invalid_mtype", E),
        ]
    );
    let s = d.summary();
    assert_eq!((s.errors, s.warnings), (5, 0));
}

#[test]
fn issues_are_capped_with_a_count_of_the_rest() {
    // 2,000 empty bids: 5 findings each (missing id, impid, price, crid, markup), 10,000 in all.
    let bids = vec!["{}"; 2000].join(",");
    let json = format!(r#"{{"id":"r","seatbid":[{{"bid":[{bids}]}}]}}"#);
    let (decoded, found) = findings(&json);
    assert_eq!(decoded.status, Status::Bid);
    assert_eq!(found.len(), bidscan_openrtb::checks::MAX_ISSUES + 1);
    let (path, code, severity) = found.last().expect("issues");
    assert_eq!(
        (path.as_str(), *code, *severity),
        ("", "issues_truncated", Severity::Warning)
    );
    let message = &decoded.issues.last().expect("issues").message;
    assert!(
        message.starts_with("9000 more issues not listed"),
        "{message}"
    );
    // The listed ones are the first in document order.
    assert_eq!(found[0].0, "/seatbid/0/bid/0/id");
    // The totals count every finding, the unlisted ones included (the truncation warning too).
    let listed_errors = decoded
        .issues
        .iter()
        .filter(|i| i.severity == Severity::Error)
        .count();
    let unlisted_errors = decoded.unlisted.count(Severity::Error);
    let unlisted_warnings = decoded.unlisted.count(Severity::Warning);
    assert_eq!(unlisted_errors + unlisted_warnings, 9000);
    let s = decoded.summary();
    assert_eq!(s.errors, listed_errors + unlisted_errors);
    assert_eq!(
        s.errors + s.warnings,
        10_000 + 1,
        "{} + {}",
        s.errors,
        s.warnings
    );
    let by_code: usize = decoded
        .unlisted
        .iter()
        .filter(|(code, _, _)| *code == found[0].1)
        .map(|(_, _, n)| n)
        .sum();
    assert_eq!(by_code, 1800, "{} left out", found[0].1);
}
