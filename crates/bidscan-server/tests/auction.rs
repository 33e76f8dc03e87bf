//! `POST /validate/auction` over a real server on 127.0.0.1, built from the real pairs of
//! `corpus/validate-pairs/`: an auction whose bidders sent a gzip body, an empty body, an HTML error page, a
//! truncated body, a part past `server.max_body_bytes` and an `X-Bidder-Status: timeout`; each bidder's verdicts
//! against what `/validate` (or, for a body no envelope can carry, `/decode`) answers on the same server; the
//! seat-non-bid codes for every imp; the cross-bidder duplicate, warned by default and enforced by a profile
//! (`?profile=`); the call-level errors.

use std::io::Write;
use std::path::PathBuf;

use serde_json::Value;

use crate::common::{TestServer, gzip, start};

const BOUNDARY: &str = "bidscan-test-4f1e";

/// The part limit of the test servers (`server.max_body_bytes`): every real pair's envelope used here fits.
const PART_LIMIT: usize = 8192;

/// A real pair's request and response, as JSON bytes.
fn pair(name: &str) -> (Vec<u8>, Vec<u8>) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../corpus/validate-pairs")
        .join(name);
    let v: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    (
        serde_json::to_vec(&v["request"]).unwrap(),
        serde_json::to_vec(&v["response"]).unwrap(),
    )
}

/// One part: name, extra header lines, content.
type Part = (&'static str, Vec<&'static str>, Vec<u8>);

/// A `multipart/form-data` body of `parts`, as `curl -F` lays it out.
fn multipart(parts: &[Part]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, headers, content) in parts {
        write!(
            out,
            "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"\r\nContent-Type: application/json\r\n"
        )
        .unwrap();
        for h in headers {
            write!(out, "{h}\r\n").unwrap();
        }
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(content);
        out.extend_from_slice(b"\r\n");
    }
    write!(out, "--{BOUNDARY}--\r\n").unwrap();
    out
}

async fn json(res: reqwest::Response) -> Value {
    serde_json::from_slice(&res.bytes().await.unwrap()).unwrap()
}

fn content_type() -> String {
    format!("multipart/form-data; boundary={BOUNDARY}")
}

async fn server(extra: &str) -> TestServer {
    use figment::providers::{Format, Toml};
    let toml = format!("[server]\nmax_body_bytes = {PART_LIMIT}\nmax_auction_parts = 8\n{extra}");
    let mut c: bidscan_server::Config = bidscan_server::Config::figment(None)
        .merge(Toml::string(&toml))
        .extract()
        .unwrap();
    c.validate().unwrap();
    c.server.listen = "127.0.0.1:0".parse().unwrap();
    start(c).await
}

/// POSTs `body` to `path` as an auction; status and JSON answer.
async fn post_auction(server: &TestServer, path: &str, body: Vec<u8>) -> (u16, Value) {
    let res = server
        .post(path, &[("content-type", &content_type())], body)
        .await;
    let status = res.status().as_u16();
    (status, json(res).await)
}

/// `/validate?view=summary`'s `{summary, issues, seatnonbid}` for `request` and `response` (an empty response as
/// `null`, what an empty body is).
async fn validate(server: &TestServer, request: &[u8], response: &[u8]) -> Value {
    let response: &[u8] = if response.is_empty() {
        b"null"
    } else {
        response
    };
    let mut envelope = b"{\"request\":".to_vec();
    envelope.extend_from_slice(request);
    envelope.extend_from_slice(b",\"response\":");
    envelope.extend_from_slice(response);
    envelope.push(b'}');
    let res = server.post("/validate?view=summary", &[], envelope).await;
    assert_eq!(res.status(), 200);
    let v: Value = json(res).await;
    serde_json::json!({"summary": v["summary"], "issues": v["issues"], "seatnonbid": v["seatnonbid"]})
}

fn judged(bidder: &Value) -> Value {
    serde_json::json!({"summary": bidder["summary"], "issues": bidder["issues"], "seatnonbid": bidder["seatnonbid"]})
}

fn bidder<'a>(answer: &'a Value, name: &str) -> &'a Value {
    answer["bidders"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["bidder"] == name)
        .unwrap_or_else(|| panic!("no bidder {name} in {answer}"))
}

/// `bidder`'s non-bids are one seat, its name, with `code` for every imp of `imps`.
fn every_imp(bidder: &Value, imps: &Value, code: u16) {
    let name = bidder["bidder"].as_str().unwrap();
    let expected: Vec<Value> = imps
        .as_array()
        .unwrap()
        .iter()
        .map(|imp| serde_json::json!({"impid": imp, "statuscode": code}))
        .collect();
    assert_eq!(
        bidder["seatnonbid"],
        serde_json::json!([{"seat": name, "nonbid": expected}]),
        "{bidder}"
    );
    assert_eq!(bidder["issues"][0]["statuscode"], code, "{bidder}");
}

#[tokio::test]
async fn each_bidder_is_judged_as_validate_judges_it_and_a_bad_one_never_fails_the_auction() {
    let server = server("").await;
    let (request, response) = pair("adf_multi-format.json");
    let (_, other) = pair("ccx_multi-banner.json");
    let html =
        b"<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>".to_vec();
    let truncated = response[..response.len() / 2].to_vec();
    let mut oversized = response.clone();
    oversized.resize(PART_LIMIT + 1, b' ');
    let parts: Vec<Part> = vec![
        ("request", vec![], request.clone()),
        ("gz", vec!["Content-Encoding: gzip"], gzip(&response)),
        ("empty", vec![], Vec::new()),
        ("html", vec![], html.clone()),
        ("truncated", vec![], truncated.clone()),
        ("oversized", vec![], oversized),
        ("slow", vec!["X-Bidder-Status: timeout"], Vec::new()),
        ("other", vec![], other.clone()),
    ];
    let (status, answer) =
        post_auction(&server, "/validate/auction?view=summary", multipart(&parts)).await;
    assert_eq!(status, 200, "{answer}");
    let names: Vec<&str> = answer["bidders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["bidder"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "gz",
            "empty",
            "html",
            "truncated",
            "oversized",
            "slow",
            "other"
        ]
    );
    let imps = &answer["request"]["imps"];
    let req: Value = serde_json::from_slice(&request).unwrap();
    assert_eq!(answer["request"]["id"], req["id"]);
    assert_eq!(imps.as_array().unwrap().len(), 2);

    // The bodies an envelope can carry: the verdicts `/validate` gives the same pair, field for field.
    for (name, body) in [("gz", &response), ("empty", &Vec::new()), ("other", &other)] {
        let b = bidder(&answer, name);
        assert_eq!(judged(b), validate(&server, &request, body).await, "{name}");
    }
    assert_eq!(bidder(&answer, "gz")["status"], "bid");
    assert_eq!(bidder(&answer, "empty")["status"], "nobid");
    assert_eq!(
        bidder(&answer, "empty")["seatnonbid"],
        serde_json::json!([])
    );

    // The bodies that are no bid response: invalid, 102 for every imp, the finding `/decode` refuses them with.
    for (name, body, code) in [
        ("html", &html, "not_a_bid_response"),
        ("truncated", &truncated, "malformed_json"),
    ] {
        let b = bidder(&answer, name);
        assert_eq!(b["status"], "invalid", "{name}");
        every_imp(b, imps, 102);
        let res = server.post("/decode", &[], body.clone()).await;
        assert!(res.status().is_client_error(), "{name}");
        let refused: Value = json(res).await;
        assert_eq!(refused["error"]["code"], code, "{name}");
        assert_eq!(b["issues"][0]["code"], code, "{name}");
    }
    let b = bidder(&answer, "oversized");
    assert_eq!(b["status"], "invalid");
    assert_eq!(b["issues"][0]["code"], "body_too_large");
    every_imp(b, imps, 102);
    let b = bidder(&answer, "slow");
    assert_eq!(b["status"], "timeout");
    every_imp(b, imps, 101);

    // The auction's `seatnonbid` is every bidder's, bidder after bidder.
    let all: Vec<Value> = answer["bidders"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|b| b["seatnonbid"].as_array().unwrap().clone())
        .collect();
    assert_eq!(answer["seatnonbid"].as_array().unwrap().len(), all.len());
    // `view=summary` leaves the responses out.
    assert!(bidder(&answer, "gz").get("response").is_none());
}

#[tokio::test]
async fn unreachable_and_http_statuses_get_103_and_100_and_the_full_view_echoes_responses() {
    let server = server("").await;
    let (request, response) = pair("aax_multi-imps.json");
    let parts: Vec<Part> = vec![
        ("a", vec![], response.clone()),
        ("down", vec!["X-Bidder-Status: unreachable"], Vec::new()),
        ("err", vec!["X-Bidder-Status: http-500"], Vec::new()),
        ("none", vec!["X-Bidder-Status: http-204"], Vec::new()),
        // The request may come anywhere.
        ("request", vec![], request.clone()),
    ];
    let (status, answer) = post_auction(&server, "/validate/auction", multipart(&parts)).await;
    assert_eq!(status, 200, "{answer}");
    let imps = &answer["request"]["imps"];
    every_imp(bidder(&answer, "down"), imps, 103);
    assert_eq!(bidder(&answer, "down")["status"], "unreachable");
    every_imp(bidder(&answer, "err"), imps, 100);
    assert_eq!(bidder(&answer, "err")["status"], "error");
    assert_eq!(bidder(&answer, "none")["status"], "nobid");
    let a = bidder(&answer, "a");
    assert_eq!(a["status"], "bid");
    let full = server.post("/validate", &[], {
        let mut e = b"{\"request\":".to_vec();
        e.extend_from_slice(&request);
        e.extend_from_slice(b",\"response\":");
        e.extend_from_slice(&response);
        e.push(b'}');
        e
    });
    let full: Value = json(full.await).await;
    assert_eq!(a["response"], full["response"]);
    assert_eq!(judged(a), judged(&full));
}

#[tokio::test]
async fn a_bid_id_sent_by_an_earlier_bidder_is_warned_by_default_and_enforced_by_a_profile() {
    let server =
        server("[validate.profiles.unique]\nduplicate_id_across_bidders = \"enforce\"\n").await;
    let (request, response) = pair("aax_multi-imps.json");
    let parts: Vec<Part> = vec![
        ("request", vec![], request.clone()),
        ("first", vec![], response.clone()),
        ("second", vec!["Content-Encoding: gzip"], gzip(&response)),
    ];
    let body = multipart(&parts);
    let flagged = |answer: &Value, name: &str| -> Vec<Value> {
        bidder(answer, name)["issues"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["code"] == "duplicate_id_across_bidders")
            .cloned()
            .collect()
    };
    let (status, answer) =
        post_auction(&server, "/validate/auction?view=summary", body.clone()).await;
    assert_eq!(status, 200, "{answer}");
    assert!(flagged(&answer, "first").is_empty());
    let warned = flagged(&answer, "second");
    assert!(!warned.is_empty(), "{answer}");
    assert!(warned.iter().all(|i| i["severity"] == "warning"));
    assert_eq!(
        judged(bidder(&answer, "first"))["seatnonbid"],
        validate(&server, &request, &response).await["seatnonbid"]
    );

    let (status, answer) = post_auction(
        &server,
        "/validate/auction?view=summary&profile=unique",
        body.clone(),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    let enforced = flagged(&answer, "second");
    assert!(!enforced.is_empty());
    assert!(enforced.iter().all(|i| i["statuscode"] == 302), "{answer}");
    let second = bidder(&answer, "second");
    assert!(
        second["summary"]["bids"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["statuscode"] == 302),
        "{second}"
    );
    assert!(flagged(&answer, "first").is_empty());

    let (status, answer) = post_auction(&server, "/validate/auction?profile=nope", body).await;
    assert_eq!(status, 400);
    assert_eq!(answer["error"]["code"], "unknown_profile");
}

#[tokio::test]
async fn call_level_errors_are_answered_in_the_one_error_shape() {
    let server = server("").await;
    let (request, response) = pair("aax_multi-imps.json");
    let ok = |name: &'static str| -> Part { (name, vec![], response.clone()) };
    let req = || -> Part { ("request", vec![], request.clone()) };
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (multipart(&[ok("a")]), "missing_request"),
        (multipart(&[req(), ok("a"), ok("a")]), "duplicate_bidder"),
        (multipart(&[req(), ok("bad name")]), "bad_bidder_name"),
        (
            multipart(&[req(), ("a", vec!["X-Bidder-Status: late"], Vec::new())]),
            "bad_bidder_status",
        ),
        (
            multipart(&[
                req(),
                ok("a"),
                ok("b"),
                ok("c"),
                ok("d"),
                ok("e"),
                ok("f"),
                ok("g"),
                ok("h"),
            ]),
            "too_many_parts",
        ),
        (b"not a multipart body".to_vec(), "malformed_multipart"),
    ];
    for (body, code) in cases {
        let (status, answer) = post_auction(&server, "/validate/auction", body).await;
        assert_eq!(
            (status, answer["error"]["code"].as_str()),
            (400, Some(code))
        );
    }
    // Not multipart at all.
    let res = server
        .post(
            "/validate/auction",
            &[("content-type", "application/json")],
            request.clone(),
        )
        .await;
    assert_eq!(res.status(), 400);
    let v: Value = json(res).await;
    assert_eq!(v["error"]["code"], "not_multipart");
    // A request part that is no bid request.
    let (status, answer) = post_auction(
        &server,
        "/validate/auction",
        multipart(&[("request", vec![], b"{\"id\":\"1\"}".to_vec()), ok("a")]),
    )
    .await;
    assert_eq!(
        (status, answer["error"]["code"].as_str()),
        (422, Some("request_without_imp"))
    );
    // Past `server.max_auction_bytes`: 413 from `Content-Length` before the body is read, and from the body
    // itself when it is chunked.
    let small = {
        let mut c = crate::common::config();
        c.server.max_auction_bytes = 1024;
        start(c).await
    };
    let big = multipart(&[req(), ok("a"), ok("b"), ok("c")]);
    assert!(big.len() > 1024);
    let (status, answer) = post_auction(&small, "/validate/auction", big.clone()).await;
    assert_eq!(
        (status, answer["error"]["code"].as_str()),
        (413, Some("payload_too_large"))
    );
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        big.chunks(300).map(|c| Ok(c.to_vec())).collect();
    let res = small
        .client
        .post(small.url("/validate/auction"))
        .header("content-type", content_type())
        .body(reqwest::Body::wrap_stream(futures_util::stream::iter(
            chunks,
        )))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 413);
    // Another method is 405 with `Allow: POST`, as on every document route.
    let res = server
        .client
        .get(server.url("/validate/auction"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 405);
    assert_eq!(res.headers()["allow"], "POST");
}

/// A `Content-Type` that is not `multipart/form-data` with a boundary is refused from the head: 400
/// `not_multipart` within a second of a body announced at 10 MB of which 1,000 bytes are sent and the rest never,
/// over HTTP/1.1 (the connection then closed) and HTTP/2.
#[tokio::test]
async fn a_call_not_multipart_is_refused_before_its_body() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = server("").await;
    let addr = server.base.trim_start_matches("http://").to_owned();
    for content_type in [
        "application/json",
        "multipart/form-data",
        "multipart/form-data; boundary=",
    ] {
        let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
        let head = format!(
            "POST /validate/auction HTTP/1.1\r\nHost: t\r\nContent-Type: {content_type}\r\n\
             Content-Length: 10000000\r\n\r\n"
        );
        s.write_all(head.as_bytes()).await.unwrap();
        s.write_all(&[b' '; 1000]).await.unwrap();
        let mut got = Vec::new();
        let mut buf = [0; 4096];
        let read = tokio::time::timeout(std::time::Duration::from_secs(1), async {
            while !got.windows(4).any(|w| w == b"\r\n\r\n") || !got.ends_with(b"}") {
                match s.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => got.extend_from_slice(&buf[..n]),
                }
            }
        })
        .await;
        let text = String::from_utf8_lossy(&got).to_lowercase();
        assert!(
            read.is_ok(),
            "{content_type}: no answer within 1 s: {text:?}"
        );
        assert!(text.starts_with("http/1.1 400"), "{content_type}: {text}");
        assert!(text.contains("connection: close"), "{content_type}: {text}");
        assert!(text.contains("\"not_multipart\""), "{content_type}: {text}");
    }
    let h2 = crate::common::client_builder()
        .http2_prior_knowledge()
        .build()
        .unwrap();
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<Vec<u8>, std::io::Error>>(4);
    tx.send(Ok(vec![b' '; 1000])).await.unwrap();
    let body =
        futures_util::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|c| (c, rx)) });
    let res = tokio::time::timeout(
        std::time::Duration::from_secs(1),
        h2.post(server.url("/validate/auction"))
            .header("content-type", "application/json")
            .header("content-length", "10000000")
            .body(reqwest::Body::wrap_stream(body))
            .send(),
    )
    .await
    .expect("an answer within 1 s over h2")
    .unwrap();
    assert_eq!(res.status(), 400);
    assert_eq!(json(res).await["error"]["code"], "not_multipart");
    drop(tx);
}

/// The value of the series `name{labels}` in a Prometheus text scrape (0 when absent).
fn series(text: &str, name_and_labels: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(name_and_labels)?.trim().parse().ok())
        .unwrap_or(0.0)
}

#[tokio::test]
async fn each_part_counts_under_its_bidder_label() {
    let server = server("bidders = [\"acme\", \"down\"]").await;
    let (request, response) = pair("aax_multi-imps.json");
    let parts: Vec<Part> = vec![
        ("request", vec![], request),
        ("acme", vec![], response.clone()),
        ("down", vec!["X-Bidder-Status: timeout"], Vec::new()),
        ("bad", vec![], b"<html>502</html>".to_vec()),
    ];
    let (status, answer) = post_auction(&server, "/validate/auction", multipart(&parts)).await;
    assert_eq!(status, 200, "{answer}");
    let imps = answer["request"]["imps"].as_array().unwrap().len() as f64;
    let (_, text) = server.get_text("/metrics").await;
    assert_eq!(
        series(
            &text,
            "bidscan_bidder_outcomes_total{bidder=\"acme\",outcome=\"bid\"}"
        ),
        1.0,
        "{text}"
    );
    assert_eq!(
        series(
            &text,
            "bidscan_bidder_response_bytes_count{bidder=\"acme\"}"
        ),
        1.0
    );
    // A timeout has no body: no outcome, a 101 for every imp.
    assert_eq!(
        series(
            &text,
            "bidscan_bidder_rejections_total{bidder=\"down\",statuscode=\"101\"}"
        ),
        imps
    );
    // An unlisted part name counts as `other`: its HTML body is not a bid response (as `/decode` answers it), 102
    // for every imp.
    assert_eq!(
        series(
            &text,
            "bidscan_bidder_outcomes_total{bidder=\"other\",outcome=\"not_a_bid_response\"}"
        ),
        1.0
    );
    assert_eq!(
        series(
            &text,
            "bidscan_bidder_rejections_total{bidder=\"other\",statuscode=\"102\"}"
        ),
        imps
    );
}
