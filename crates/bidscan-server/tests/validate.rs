//! POST /validate and /validate/batch against the real server, `bidscan validate`, and the rejection metric.

use crate::common;

use std::process::Command;

use common::*;

const PAIRS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpus/validate-pairs");

const REQUEST: &str = r#"{"id":"r1","imp":[{"id":"1","bidfloor":1.0,"secure":1,"banner":{"format":[{"w":300,"h":250}]}}],"bcat":["IAB25"]}"#;

/// A response with three bids: accepted, below the floor (301), insecure markup on a secure imp (352).
const RESPONSE: &str = r#"{"id":"r1","cur":"USD","seatbid":[{"seat":"s1","bid":[
  {"id":"a","impid":"1","price":1.5,"crid":"c","mtype":1,"w":300,"h":250,"adm":"<img src=\"https://x.example/a.png\">"},
  {"id":"b","impid":"1","price":0.5,"crid":"c","mtype":1,"w":300,"h":250,"adm":"<img src=\"https://x.example/a.png\">"},
  {"id":"c","impid":"1","price":2.0,"crid":"c","mtype":1,"w":300,"h":250,"adm":"<img src=\"http://x.example/a.png\">"}
]}]}"#;

fn envelope(request_first: bool) -> Vec<u8> {
    if request_first {
        format!(r#"{{"request":{REQUEST},"response":{RESPONSE}}}"#).into_bytes()
    } else {
        format!(r#"{{ "response" : {RESPONSE} , "request" : {REQUEST} }}"#).into_bytes()
    }
}

/// POSTs `body` to /validate and asserts a refusal: `status`, the error `code`, a `path` starting with `path`.
/// Returns the answer for further checks.
async fn refused(
    server: &TestServer,
    body: &str,
    status: u16,
    code: &str,
    path: &str,
) -> serde_json::Value {
    let (got, v) = json(
        server
            .post("/validate", &[], body.as_bytes().to_vec())
            .await,
    )
    .await;
    assert_eq!(got, status, "{body}: {v}");
    assert_eq!(v["error"]["code"], code, "{body}: {v}");
    let p = v["error"]["path"].as_str().unwrap_or("");
    assert!(
        p.starts_with(path),
        "{body}: path {p:?} should start with {path:?}"
    );
    v
}

#[tokio::test]
async fn validate_marks_each_bid_in_either_member_order_and_counts_rejections() {
    let server = start(config()).await;
    let mut answers = Vec::new();
    for (request_first, encoding) in [(true, "identity"), (false, "gzip")] {
        let body = envelope(request_first);
        let body = if encoding == "gzip" {
            gzip(&body)
        } else {
            body
        };
        let res = server
            .post(
                "/validate",
                &[
                    ("content-type", "application/json"),
                    ("content-encoding", encoding),
                ],
                body,
            )
            .await;
        let (code, v) = json(res).await;
        assert_eq!(code, 200, "{v}");
        let bids = v["summary"]["bids"].as_array().unwrap();
        let marks: Vec<(String, serde_json::Value)> = bids
            .iter()
            .map(|b| {
                (
                    b["status"].as_str().unwrap().to_owned(),
                    b["statuscode"].clone(),
                )
            })
            .collect();
        assert_eq!(
            marks,
            vec![
                ("accepted".into(), serde_json::Value::Null),
                ("rejected".into(), 301.into()),
                ("rejected".into(), 352.into()),
            ]
        );
        assert_eq!(bids[1]["path"], "/seatbid/0/bid/1");
        assert_eq!(v["summary"]["rejected"], 2);
        let below = v["issues"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["code"] == "below_floor")
            .expect("below_floor issue");
        assert_eq!(below["path"], "/seatbid/0/bid/1/price");
        assert_eq!(below["statuscode"], 301);
        assert!(
            v["issues"]
                .as_array()
                .unwrap()
                .iter()
                .all(|i| i.get("statuscode").is_some())
        );
        let seatnonbid = &v["seatnonbid"];
        assert_eq!(seatnonbid[0]["seat"], "s1");
        assert_eq!(seatnonbid[0]["nonbid"][0]["impid"], "1");
        assert_eq!(seatnonbid[0]["nonbid"][0]["statuscode"], 301);
        // The bid at Prebid Server's place, without its markup (validate.nonbid_markup is off).
        let bid = &seatnonbid[0]["nonbid"][1]["ext"]["prebid"]["bid"];
        assert_eq!(bid["id"], "c");
        assert!(bid.get("adm").is_none(), "{bid}");
        assert_eq!(
            v["response"]["seatbid"][0]["bid"].as_array().unwrap().len(),
            3,
            "rejected bids stay"
        );
        answers.push(v);
    }
    assert_eq!(answers[0]["summary"], answers[1]["summary"]);
    assert_eq!(answers[0]["issues"], answers[1]["issues"]);
    let metrics = server.metrics().await;
    let series = |rule: &str, code: u16| {
        value(
            &metrics,
            &format!("bidscan_bid_rejections_total{{rule=\"{rule}\",statuscode=\"{code}\"}}"),
        )
    };
    assert_eq!(series("floor", 301), 2.0);
    assert_eq!(series("secure", 352), 2.0);
    assert_eq!(series("media_type", 353), 0.0);
}

#[tokio::test]
async fn errors_point_into_the_request_or_the_response() {
    let server = start(config()).await;
    let cases: [(String, u16, &str, &str); 6] = [
        (
            format!(r#"{{"request":{{"imp":[{{"id":"1",]}},"response":{RESPONSE}}}"#),
            400,
            "malformed_json",
            "/request/imp/0",
        ),
        (
            format!(
                r#"{{"request":{REQUEST},"response":{{"seatbid":[{{"bid":[{{"price":1.0,}}]}}]}}}}"#
            ),
            400,
            "malformed_json",
            "/response/seatbid/0/bid/0",
        ),
        (
            format!(r#"{{"request":{{"id":"r"}},"response":{RESPONSE}}}"#),
            422,
            "request_without_imp",
            "/request/imp",
        ),
        (
            format!(r#"{{"request":[],"response":{RESPONSE}}}"#),
            422,
            "not_a_bid_request",
            "/request",
        ),
        (
            format!(r#"{{"response":{RESPONSE}}}"#),
            422,
            "not_an_envelope",
            "",
        ),
        (
            format!(r#"{{"request":{REQUEST},"response":"x"}}"#),
            422,
            "not_a_bid_response",
            "/response",
        ),
    ];
    for (body, status, code, path) in cases {
        refused(&server, &body, status, code, path).await;
    }
    // A no-bid response (null) is validated, not refused.
    let nobid = format!(r#"{{"request":{REQUEST},"response":null}}"#);
    let (got, v) = json(server.post("/validate", &[], nobid.into_bytes()).await).await;
    assert_eq!(got, 200, "{v}");
    assert_eq!(v["status"], "nobid");
    assert_eq!(v["seatnonbid"], serde_json::json!([]));
    let metrics = server.metrics().await;
    assert_eq!(
        value(
            &metrics,
            "bidscan_decode_outcomes_total{encoding=\"json\",outcome=\"invalid_envelope\"}"
        ),
        3.0
    );
}

/// The 422s name what was sent (`"imp":5`, a `response` that is a number), and malformed JSON anywhere in the
/// envelope is 400 `malformed_json` as `/decode` answers it, with a position and a path into its part.
#[tokio::test]
async fn shape_errors_name_what_was_sent_and_malformed_json_is_400() {
    let server = start(config()).await;
    let cases: [(String, u16, &str, &str, &str); 7] = [
        (
            format!(r#"{{"request":{{"id":"r","imp":5}},"response":{RESPONSE}}}"#),
            422,
            "request_without_imp",
            "/request/imp",
            "`imp` is a number, not an array of objects",
        ),
        (
            format!(r#"{{"request":{{"id":"r","imp":[5]}},"response":{RESPONSE}}}"#),
            422,
            "request_without_imp",
            "/request/imp/0",
            "element 0 of `imp` is a number, not an object",
        ),
        (
            format!(r#"{{"request":{REQUEST},"response":5}}"#),
            422,
            "not_a_bid_response",
            "/response",
            "`response` is a number, not a JSON object",
        ),
        (
            r#"{"request":{"imp":[}"#.to_owned(),
            400,
            "malformed_json",
            "/request/imp",
            "malformed JSON",
        ),
        (
            format!(r#"{{"request":{REQUEST},"response":[1,"#),
            400,
            "malformed_json",
            "/response",
            "malformed JSON",
        ),
        (
            format!(r#"{{"request":{REQUEST},"response":{RESPONSE}"#),
            400,
            "malformed_json",
            "/response",
            "EOF while parsing an object",
        ),
        // A bad top level: read to its end, not refused as `not_an_envelope` at its `[`.
        (
            "[1,".to_owned(),
            400,
            "malformed_json",
            "/0",
            "malformed JSON",
        ),
    ];
    for (body, status, code, path, says) in cases {
        let v = refused(&server, &body, status, code, path).await;
        let message = v["error"]["message"].as_str().unwrap_or("");
        assert!(message.contains(says), "{body}: {v}");
        if status == 400 {
            assert!(v["error"]["byte"].is_u64(), "{body}: {v}");
        }
    }
}

#[tokio::test]
async fn batch_answers_one_line_per_envelope() {
    let server = start(config()).await;
    // One line each: the envelopes' newlines become spaces.
    let line = |request_first| -> Vec<u8> {
        envelope(request_first)
            .into_iter()
            .map(|b| if b == b'\n' { b' ' } else { b })
            .collect()
    };
    let mut body = line(true);
    body.push(b'\n');
    body.extend_from_slice(b"{\"request\":{},\"response\":null}\n");
    body.extend_from_slice(&line(false));
    let res = server
        .post(
            "/validate/batch",
            &[("content-type", "application/x-ndjson")],
            body,
        )
        .await;
    assert_eq!(res.status().as_u16(), 200);
    let text = res.text().await.unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(lines[0]["summary"]["rejected"], 2);
    assert_eq!(lines[1]["error"]["code"], "request_without_imp");
    assert_eq!(lines[2]["summary"], lines[0]["summary"]);
}

#[tokio::test]
async fn skip_and_warn_come_from_the_config() {
    let mut c = config();
    c.validate.base.floor = bidscan_openrtb::rules::Action::Skip;
    c.validate.base.secure = bidscan_openrtb::rules::Action::Warn;
    let server = start(c).await;
    let (code, v) = json(server.post("/validate", &[], envelope(true)).await).await;
    assert_eq!(code, 200);
    assert_eq!(v["summary"]["rejected"], 0, "{v}");
    let issues = v["issues"].as_array().unwrap();
    assert!(issues.iter().all(|i| i["code"] != "below_floor"));
    let insecure = issues
        .iter()
        .find(|i| i["code"] == "insecure_markup")
        .unwrap();
    assert_eq!(insecure["severity"], "warning");
    assert_eq!(insecure["statuscode"], 352);
}

#[test]
fn the_cli_validates_the_real_pairs_as_the_library_does() {
    let out = Command::new(env!("CARGO_BIN_EXE_bidscan"))
        .args(["validate", PAIRS, "--view", "summary"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let verdicts = std::fs::read_to_string(format!("{PAIRS}/VERDICTS.tsv")).unwrap();
    let recorded: Vec<&str> = verdicts
        .lines()
        .skip(1)
        .map(|l| l.split('\t').nth(1).unwrap())
        .collect();
    assert_eq!(lines.len(), recorded.len());
    for (v, want) in lines.iter().zip(recorded) {
        let got: Vec<String> = v["summary"]["bids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| match b["statuscode"].as_u64() {
                Some(c) => c.to_string(),
                None => "accepted".to_owned(),
            })
            .collect();
        let got = if got.is_empty() {
            "nobid".to_owned()
        } else {
            got.join(" ")
        };
        assert_eq!(got, want);
    }
}

/// `/validate` inspects each bid's markup as `/decode` does — the summary's `adm` object, the markup
/// findings with pointers relative to the response, `bidscan_adm_total` — and with `?inspect=none` too, where
/// only the summary's `adm` objects are trimmed to kind and size (the rules must see malformed markup).
#[tokio::test]
async fn validate_always_inspects_markup_and_inspect_none_trims_the_summary() {
    let server = start(config()).await;
    let request = r#"{"id":"r1","imp":[{"id":"1","video":{"mimes":["video/mp4"]}},{"id":"2","secure":1,"banner":{"w":300,"h":250}}]}"#;
    let response = r#"{"id":"r1","seatbid":[{"seat":"s","bid":[
      {"id":"v","impid":"1","price":1,"crid":"c","mtype":2,"adm":"<VAST version=\"4.2\"><Ad><InLine><Impression>x</Impression></Ad></VAST>"},
      {"id":"h","impid":"2","price":1,"crid":"c","mtype":1,"w":300,"h":250,"adm":"<div style=\"background:url(http://x.example/a.png)\"></div>"}]}]}"#;
    let body = format!(r#"{{"request":{request},"response":{response}}}"#).into_bytes();
    let before = server.metrics().await;
    let adm_total = |m: &str, kind: &str, wf: &str| {
        sample(
            m,
            &format!("bidscan_adm_total{{kind=\"{kind}\",well_formed=\"{wf}\"}}"),
        )
        .unwrap_or(0.0)
    };
    let res = server
        .post(
            "/validate",
            &[("content-type", "application/json")],
            body.clone(),
        )
        .await;
    let (code, v) = json(res).await;
    assert_eq!(code, 200, "{v}");
    let bids = v["summary"]["bids"].as_array().unwrap();
    assert_eq!(bids[0]["adm"]["kind"], "vast", "{v}");
    assert_eq!(bids[0]["adm"]["well_formed"], false, "{v}");
    assert_eq!(bids[1]["adm"]["kind"], "html", "{v}");
    assert_eq!(bids[1]["adm"]["secure"], false, "{v}");
    let issues = v["issues"].as_array().unwrap();
    let malformed = issues
        .iter()
        .find(|i| i["code"] == "vast_malformed")
        .unwrap_or_else(|| panic!("no vast_malformed: {v}"));
    assert_eq!(malformed["path"], "/seatbid/0/bid/0/adm");
    assert!(malformed.get("statuscode").is_some(), "{malformed}");
    // The HTML's url(http://…) on a secure imp is rule 352, from the inspection's `secure`.
    assert_eq!(bids[1]["statuscode"], 352, "{v}");
    let after = server.metrics().await;
    assert_eq!(
        adm_total(&after, "vast", "false") - adm_total(&before, "vast", "false"),
        1.0
    );
    assert_eq!(
        adm_total(&after, "html", "true") - adm_total(&before, "html", "true"),
        1.0
    );

    let res = server
        .post(
            "/validate?inspect=none",
            &[("content-type", "application/json")],
            body,
        )
        .await;
    let (code, v) = json(res).await;
    assert_eq!(code, 200, "{v}");
    let issues = v["issues"].as_array().unwrap();
    let malformed = issues
        .iter()
        .find(|i| i["code"] == "vast_malformed")
        .unwrap_or_else(|| panic!("no vast_malformed with inspect=none: {v}"));
    assert_eq!(malformed["path"], "/seatbid/0/bid/0/adm");
    assert_eq!(
        v["summary"]["bids"][0]["adm"],
        serde_json::json!({"kind": "vast", "bytes": 70}),
        "{v}"
    );
    assert_eq!(v["summary"]["bids"][1]["statuscode"], 352, "{v}");
    let last = server.metrics().await;
    assert_eq!(
        adm_total(&last, "vast", "false") - adm_total(&after, "vast", "false"),
        1.0
    );
}

/// An envelope whose response is no bid response is refused at `/response` with the response's code, in both
/// modes and on the batch route; a response of bid response members only is a no-bid.
#[tokio::test]
async fn a_response_that_is_not_a_bid_response_is_422_with_its_code() {
    let server = start(config()).await;
    let cases = [
        (r#"{"error":"timeout","id":"r1"}"#, "not_a_bid_response"),
        (r#"{"openrtb":{"ver":"3.0"}}"#, "openrtb3_not_supported"),
    ];
    for (response, code) in cases {
        for body in [
            format!(r#"{{"request":{REQUEST},"response":{response}}}"#),
            format!(r#"{{"response":{response},"request":{REQUEST}}}"#),
        ] {
            let v = refused(&server, &body, 422, code, "/response").await;
            assert_eq!(v["error"]["path"], "/response", "{v}");
            let (status, v) = json(
                server
                    .post("/validate?mode=strict", &[], body.clone().into_bytes())
                    .await,
            )
            .await;
            assert_eq!((status, &v["error"]["code"]), (422, &code.into()), "{v}");
        }
    }
    let lines = format!(
        "{{\"request\":{REQUEST},\"response\":{}}}\n{{\"request\":{REQUEST},\"response\":{}}}\n{{\"request\":{REQUEST},\"response\":{{\"id\":\"r1\"}}}}\n",
        cases[0].0, cases[1].0
    );
    let res = server
        .post(
            "/validate/batch",
            &[("content-type", "application/x-ndjson")],
            lines.into_bytes(),
        )
        .await;
    assert_eq!(res.status(), 200);
    let text = res.text().await.unwrap();
    let answers: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 3, "{text}");
    assert_eq!(answers[0]["error"]["code"], "not_a_bid_response");
    assert_eq!(answers[0]["error"]["path"], "/response");
    assert_eq!(answers[1]["error"]["code"], "openrtb3_not_supported");
    assert_eq!(answers[2]["status"], "nobid", "{}", answers[2]);
}
