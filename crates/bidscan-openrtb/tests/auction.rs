//! `Auction`: one request, several bidders. Built from the real pairs of `corpus/validate-pairs/`: every bidder's
//! verdicts, findings and non-bids equal what `Validated` (the `/validate` path) gives the same request and
//! response; each status gets its seat-non-bid code for every imp; `duplicate_id_across_bidders` flags the later
//! bidder.

use std::path::PathBuf;

use bidscan_json::Reader;
use bidscan_openrtb::rules::{Action, Policy, Rule, Validated};
use bidscan_openrtb::{Auction, BidderStatus, DecodeError, Inspector, Mode, Reply};
use serde_json::Value;
use serde_json::value::RawValue;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus/validate-pairs")
}

/// Every real pair as (file name, request bytes, response bytes), byte for byte as in the envelope.
fn pairs() -> Vec<(String, Vec<u8>, Vec<u8>)> {
    #[derive(serde::Deserialize)]
    struct Envelope<'a> {
        #[serde(borrow)]
        request: &'a RawValue,
        #[serde(borrow)]
        response: &'a RawValue,
    }
    let mut out: Vec<(String, Vec<u8>, Vec<u8>)> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let text = std::fs::read(&p).unwrap();
            let e: Envelope<'_> = serde_json::from_slice(&text).unwrap();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                e.request.get().as_bytes().to_vec(),
                e.response.get().as_bytes().to_vec(),
            )
        })
        .collect();
    out.sort();
    out
}

fn pair(name: &str) -> (Vec<u8>, Vec<u8>) {
    let (_, request, response) = pairs().into_iter().find(|p| p.0 == name).unwrap();
    (request, response)
}

/// `/validate`'s `{summary, issues, seatnonbid}` for `request` and `response` (`null` response: an empty body),
/// or the error's code and path relative to the response.
fn validate(
    request: &[u8],
    response: &[u8],
    mode: Mode,
    policy: &Policy,
) -> Result<Value, (String, String)> {
    let response: &[u8] = if response.is_empty() {
        b"null"
    } else {
        response
    };
    let mut buf = Vec::new();
    buf.extend_from_slice(b"{\"request\":");
    buf.extend_from_slice(request);
    buf.extend_from_slice(b",\"response\":");
    buf.extend_from_slice(response);
    buf.push(b'}');
    let mut reader = Reader::default();
    let mut inspector = Inspector::new();
    match Validated::decode_inspected(&mut reader, &mut buf, mode, &mut inspector, policy) {
        Ok(v) => Ok(serde_json::json!({
            "summary": v.summary(),
            "issues": v.issues(),
            "seatnonbid": v.seatnonbid(),
        })),
        Err(e) => {
            let path = e.path().unwrap_or("");
            Err((
                e.code().to_owned(),
                path.strip_prefix("/response").unwrap_or(path).to_owned(),
            ))
        }
    }
}

/// One bidder's `{summary, issues, seatnonbid}` from an auction's answer.
fn verdicts_of(bidder: &Value) -> Value {
    serde_json::json!({
        "summary": bidder["summary"],
        "issues": bidder["issues"],
        "seatnonbid": bidder["seatnonbid"],
    })
}

/// The answer of an auction of `request` and `bidders` under `policy`, as JSON.
fn auction(request: &[u8], bidders: Vec<(&str, Reply<'_>)>, mode: Mode, policy: &Policy) -> Value {
    let mut request = request.to_vec();
    let mut reader = Reader::default();
    let mut inspector = Inspector::new();
    let mut auction = Auction::decode_request(&mut reader, &mut request).unwrap();
    for (name, reply) in bidders {
        auction.add(&mut reader, name, reply, mode, Some(&mut inspector), policy);
    }
    serde_json::to_value(auction.answer(false)).unwrap()
}

#[test]
fn each_real_pair_gets_validates_verdicts_in_both_modes() {
    let pairs = pairs();
    assert!(pairs.len() >= 200, "{}", pairs.len());
    let policy = Policy::default();
    let mut invalid = 0;
    for mode in [Mode::Lenient, Mode::Strict] {
        for (name, request, response) in &pairs {
            let mut body = response.clone();
            let body: &mut [u8] = if response == b"null" {
                &mut []
            } else {
                &mut body
            };
            let answer = auction(request, vec![("b", Reply::Body(body))], mode, &policy);
            let bidder = &answer["bidders"][0];
            match validate(request, response, mode, &policy) {
                Ok(expected) => {
                    assert_eq!(verdicts_of(bidder), expected, "{name} {mode:?}");
                    let status = if expected["summary"]["bid_count"] == 0 {
                        "nobid"
                    } else {
                        "bid"
                    };
                    assert_eq!(bidder["status"], status, "{name}");
                }
                Err((code, path)) => {
                    invalid += 1;
                    assert_eq!(bidder["status"], "invalid", "{name} {mode:?}");
                    assert_eq!(bidder["issues"][0]["code"], code.as_str(), "{name}");
                    assert_eq!(bidder["issues"][0]["path"], path.as_str(), "{name}");
                    assert_eq!(bidder["issues"][0]["statuscode"], 102, "{name}");
                    every_imp_has(&answer, bidder, 102);
                }
            }
        }
    }
    // Strict mode refuses some real responses: the invalid path is exercised on real bodies too.
    assert!(invalid > 0);
}

/// Every imp of the answer's request has `code` in `bidder`'s seat-non-bid list (seat: its name), and the
/// answer's top-level list holds the same entries.
fn every_imp_has(answer: &Value, bidder: &Value, code: u64) {
    let imps = answer["request"]["imps"].as_array().unwrap();
    let seats = bidder["seatnonbid"].as_array().unwrap();
    assert_eq!(seats.len(), 1, "{bidder}");
    assert_eq!(seats[0]["seat"], bidder["bidder"]);
    let nonbid = seats[0]["nonbid"].as_array().unwrap();
    assert_eq!(nonbid.len(), imps.len(), "{bidder}");
    for (entry, imp) in nonbid.iter().zip(imps) {
        assert_eq!(
            entry,
            &serde_json::json!({"impid": imp, "statuscode": code})
        );
    }
    let top = answer["seatnonbid"].as_array().unwrap();
    assert!(top.contains(&seats[0]), "{answer}");
}

#[test]
fn every_status_has_its_code_for_every_imp() {
    let (request, response) = pair("aax_multi-imps.json");
    let mut good = response.clone();
    let mut empty: Vec<u8> = Vec::new();
    let mut braces = b"{}".to_vec();
    let mut nbr = br#"{"id":"x","nbr":2}"#.to_vec();
    let mut html = b"<html><body>502 Bad Gateway</body></html>".to_vec();
    let mut truncated = response[..response.len() / 2].to_vec();
    let mut error_object = br#"{"error":"timeout"}"#.to_vec();
    let mut openrtb3 = br#"{"openrtb":{"ver":"3.0"}}"#.to_vec();
    let bidders = vec![
        ("good", Reply::Body(&mut good)),
        ("empty", Reply::Body(&mut empty)),
        ("braces", Reply::Body(&mut braces)),
        ("nbr", Reply::Body(&mut nbr)),
        ("html", Reply::Body(&mut html)),
        ("truncated", Reply::Body(&mut truncated)),
        ("error-object", Reply::Body(&mut error_object)),
        ("openrtb3", Reply::Body(&mut openrtb3)),
        ("slow", Reply::Timeout),
        ("gone", Reply::Unreachable),
        ("failing", Reply::HttpStatus(500)),
        ("no-content", Reply::HttpStatus(204)),
        (
            "huge",
            Reply::Unreadable {
                code: "body_too_large",
                message: "the part is over 1048576 bytes".to_owned(),
            },
        ),
    ];
    let answer = auction(&request, bidders, Mode::Lenient, &Policy::default());
    assert_eq!(answer["request"]["imps"], serde_json::json!(["1", "2"]));
    let expect = [
        ("good", "bid", None, None),
        ("empty", "nobid", None, None),
        ("braces", "nobid", None, None),
        ("nbr", "nobid", None, None),
        ("html", "invalid", Some(102), Some("not_a_bid_response")),
        ("truncated", "invalid", Some(102), Some("malformed_json")),
        (
            "error-object",
            "invalid",
            Some(102),
            Some("not_a_bid_response"),
        ),
        (
            "openrtb3",
            "invalid",
            Some(102),
            Some("openrtb3_not_supported"),
        ),
        ("slow", "timeout", Some(101), Some("bidder_timeout")),
        ("gone", "unreachable", Some(103), Some("bidder_unreachable")),
        ("failing", "error", Some(100), Some("bidder_http_status")),
        ("no-content", "nobid", None, None),
        ("huge", "invalid", Some(102), Some("body_too_large")),
    ];
    let bidders = answer["bidders"].as_array().unwrap();
    assert_eq!(bidders.len(), expect.len());
    for (bidder, (name, status, code, finding)) in bidders.iter().zip(expect) {
        assert_eq!(bidder["bidder"], name);
        assert_eq!(bidder["status"], status, "{bidder}");
        match code {
            Some(code) => {
                every_imp_has(&answer, bidder, code);
                let issues = bidder["issues"].as_array().unwrap();
                assert_eq!(issues.len(), 1, "{bidder}");
                assert_eq!(issues[0]["code"], finding.unwrap());
                assert_eq!(issues[0]["severity"], "error");
                assert_eq!(issues[0]["statuscode"], code);
                assert!(!issues[0]["message"].as_str().unwrap().is_empty());
                assert_eq!(bidder["summary"]["bid_count"], 0);
            }
            None => assert_eq!(bidder["seatnonbid"], serde_json::json!([]), "{bidder}"),
        }
    }
    // The good bidder's verdicts are /validate's.
    let expected = validate(&request, &response, Mode::Lenient, &Policy::default()).unwrap();
    assert_eq!(verdicts_of(&bidders[0]), expected);
    // Status serializations and codes.
    assert_eq!(BidderStatus::Invalid.statuscode(), Some(102));
    assert_eq!(BidderStatus::Bid.statuscode(), None);
}

#[test]
fn a_bidder_whose_bids_were_all_rejected_is_bid() {
    let (request, response) = pair("aax_multi-imps.json");
    let mut body = response.clone();
    let mut policy = Policy::default();
    // The request allows no other currency than USD: answer in EUR.
    let text = String::from_utf8(body.clone())
        .unwrap()
        .replace("\"USD\"", "\"EUR\"");
    body = text.into_bytes();
    policy.set(Rule::Currency, Action::Enforce);
    let answer = auction(
        &request,
        vec![("eur", Reply::Body(&mut body))],
        Mode::Lenient,
        &policy,
    );
    let bidder = &answer["bidders"][0];
    assert_eq!(bidder["status"], "bid");
    assert_eq!(bidder["summary"]["accepted"], 0);
    assert_eq!(bidder["summary"]["rejected"], 1);
    // The response names its seat: the top-level list keeps it.
    assert_eq!(answer["seatnonbid"][0]["seat"], "aax");
    assert_eq!(answer["seatnonbid"][0]["nonbid"][0]["statuscode"], 300);
}

#[test]
fn a_bid_id_of_an_earlier_bidder_is_flagged_on_the_later_one() {
    let (request, response) = pair("aax_multi-imps.json");
    let id = "test-bid-id";
    for (action, severity, rejected) in [
        ("warn", Some("warning"), false),
        ("enforce", Some("error"), true),
        ("skip", None, false),
    ] {
        // A profile sets the rule like any other.
        let policy: Policy =
            serde_json::from_value(serde_json::json!({ "duplicate_id_across_bidders": action }))
                .unwrap();
        let (mut first, mut second) = (response.clone(), response.clone());
        let answer = auction(
            &request,
            vec![
                ("first", Reply::Body(&mut first)),
                ("second", Reply::Body(&mut second)),
            ],
            Mode::Lenient,
            &policy,
        );
        let [first, second] = [&answer["bidders"][0], &answer["bidders"][1]];
        let expected = validate(&request, &response, Mode::Lenient, &policy).unwrap();
        assert_eq!(verdicts_of(first), expected, "{action}");
        let flagged: Vec<&Value> = second["issues"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["code"] == "duplicate_id_across_bidders")
            .collect();
        match severity {
            None => assert_eq!(verdicts_of(second), expected),
            Some(severity) => {
                assert_eq!(flagged.len(), 1, "{second}");
                assert_eq!(flagged[0]["path"], "/seatbid/0/bid/0/id");
                assert_eq!(flagged[0]["severity"], severity);
                assert_eq!(flagged[0]["statuscode"], 302);
                let message = flagged[0]["message"].as_str().unwrap();
                assert!(
                    message.contains(id) && message.contains("\"first\""),
                    "{message}"
                );
                let bid = &second["summary"]["bids"][0];
                assert_eq!(
                    bid["status"],
                    if rejected { "rejected" } else { "accepted" }
                );
                if rejected {
                    assert_eq!(bid["statuscode"], 302);
                    assert_eq!(second["seatnonbid"][0]["nonbid"][0]["statuscode"], 302);
                }
            }
        }
    }
}

#[test]
fn an_unusable_request_fails_the_auction_with_paths_relative_to_it() {
    let mut reader = Reader::default();
    let mut text = br#"{"id":"r","imp":[]}"#.to_vec();
    let e = Auction::decode_request(&mut reader, &mut text).unwrap_err();
    assert_eq!((e.code(), e.path()), ("request_without_imp", Some("/imp")));
    let mut text = br#"{"id":"r","imp":[5]}"#.to_vec();
    let e = Auction::decode_request(&mut reader, &mut text).unwrap_err();
    assert_eq!(
        (e.code(), e.path()),
        ("request_without_imp", Some("/imp/0"))
    );
    let mut text = br#"[1]"#.to_vec();
    let e = Auction::decode_request(&mut reader, &mut text).unwrap_err();
    assert_eq!((e.code(), e.path()), ("not_a_bid_request", Some("")));
    let mut text = br#"{"id":"r","imp":[{"id":"1"}"#.to_vec();
    let e = Auction::decode_request(&mut reader, &mut text).unwrap_err();
    assert!(matches!(e, DecodeError::Malformed(_)), "{e}");
    let mut text = b"\xEF\xBB\xBF{\"id\":\"r\",\"imp\":[{\"id\":\"1\"}]}".to_vec();
    let auction = Auction::decode_request(&mut reader, &mut text).unwrap();
    assert_eq!(auction.request.imp.len(), 1);
}

#[test]
fn the_full_view_echoes_each_usable_response() {
    let (request, response) = pair("aax_multi-imps.json");
    let mut request = request.clone();
    let mut body = response.clone();
    let mut reader = Reader::default();
    let mut auction = Auction::decode_request(&mut reader, &mut request).unwrap();
    let policy = Policy::default();
    auction.add(
        &mut reader,
        "a",
        Reply::Body(&mut body),
        Mode::Lenient,
        None,
        &policy,
    );
    auction.add(
        &mut reader,
        "b",
        Reply::Timeout,
        Mode::Lenient,
        None,
        &policy,
    );
    let full = serde_json::to_value(auction.answer(true)).unwrap();
    assert_eq!(full["bidders"][0]["response"]["seatbid"][0]["seat"], "aax");
    assert!(full["bidders"][1].get("response").is_none());
    let summary = serde_json::to_value(auction.answer(false)).unwrap();
    assert!(summary["bidders"][0].get("response").is_none());
    let mut keys: Vec<&String> = summary.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["bidders", "request", "seatnonbid"]);
}
