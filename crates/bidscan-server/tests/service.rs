//! The rest of the service against the real server: batch, metrics, request ids, overload, timeout, draining,
//! the operational routes.

use crate::common;

use std::time::{Duration, Instant};

use bytes::Bytes;
use common::*;
use futures_util::StreamExt;
use tokio::sync::oneshot;

/// A request body that sends `head`, then waits for `release` before ending (to hold a request in flight).
fn stalled_body(head: &'static [u8], release: oneshot::Receiver<()>) -> reqwest::Body {
    let first =
        futures_util::stream::once(
            async move { Ok::<Bytes, std::io::Error>(Bytes::from_static(head)) },
        );
    let rest = futures_util::stream::once(async move {
        let _ = release.await;
        Ok::<Bytes, std::io::Error>(Bytes::from_static(b"}"))
    });
    reqwest::Body::wrap_stream(first.chain(rest))
}

#[tokio::test]
async fn batch_answers_one_line_per_input_line_in_order() {
    let server = start(config()).await;
    let docs = ["vast_020k.json", "nobid_nbr.json", "banner_go_004k.json"];
    let mut body = Vec::new();
    for name in docs {
        let doc = corpus_file(name);
        // The corpus files are one line each (no raw newline inside a JSON text).
        body.extend(doc.iter().filter(|&&b| b != b'\n'));
        body.push(b'\n');
    }
    body.extend_from_slice(b"{\"id\": oops}\n[1,2]\r\n\n{\"id\":\"last\",\"seatbid\":[]}");
    for encoding in ["identity", "gzip"] {
        let payload = if encoding == "gzip" {
            gzip(&body)
        } else {
            body.clone()
        };
        let res = server
            .post(
                "/decode/batch",
                &[
                    ("content-type", "application/x-ndjson"),
                    ("content-encoding", encoding),
                ],
                payload,
            )
            .await;
        assert_eq!(res.status(), 200);
        assert_eq!(res.headers()["content-type"], "application/x-ndjson");
        let text = res.text().await.unwrap();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("each line is JSON"))
            .collect();
        assert_eq!(lines.len(), 7, "{encoding}: {text}");
        for (i, name) in docs.iter().enumerate() {
            let bids = expected_bids(&corpus_file(name));
            assert_eq!(
                lines[i]["summary"]["bid_count"], bids,
                "{encoding}: line {i} ({name})"
            );
        }
        assert_eq!(lines[3]["error"]["code"], "malformed_json");
        assert_eq!(lines[4]["error"]["code"], "not_a_bid_response");
        assert_eq!(
            lines[5]["status"], "nobid",
            "an empty line is an empty body"
        );
        assert_eq!(lines[6]["status"], "nobid");
        assert_eq!(lines[6]["summary"]["id"], "last");
    }
}

#[tokio::test]
async fn metrics_are_prometheus_text_with_every_design_metric() {
    let server = start(config()).await;
    let doc = corpus_file("multiseat_48bids.json");
    for _ in 0..3 {
        assert_eq!(server.post("/decode", &[], doc.clone()).await.status(), 200);
    }
    // nurl_only has no crid: one validation issue.
    let (code, with_issue) = json(
        server
            .post("/decode", &[], corpus_file("nurl_only.json"))
            .await,
    )
    .await;
    assert_eq!(code, 200);
    let issue = &with_issue["issues"][0];
    let _ = server.post("/decode", &[], b"{".to_vec()).await;
    let res = server
        .client
        .get(server.url("/metrics"))
        .send()
        .await
        .unwrap();
    let content_type = res.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(
        content_type.starts_with("text/plain; version=0.0.4"),
        "{content_type}"
    );
    let text = res.text().await.unwrap();
    for name in [
        "bidscan_http_requests_total",
        "bidscan_http_request_duration_seconds",
        "bidscan_decode_duration_seconds",
        "bidscan_document_bytes",
        "bidscan_document_escapes",
        "bidscan_decode_outcomes_total",
        "bidscan_bids_total",
        "bidscan_validation_issues_total",
        "bidscan_buffer_grow_total",
        "bidscan_buffer_shrink_total",
        "bidscan_buffer_drop_total",
        "bidscan_buffer_retained_bytes",
        "bidscan_pool_checkouts_total",
        "process_resident_memory_bytes",
    ] {
        assert!(text.contains(&format!("# TYPE {name} ")), "{name} missing");
    }
    // Every sample line is `name{labels} value`.
    for line in text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let (series, v) = line
            .rsplit_once(' ')
            .unwrap_or_else(|| panic!("bad line {line:?}"));
        assert!(v.parse::<f64>().is_ok(), "bad value in {line:?}");
        assert!(
            series.chars().next().unwrap().is_ascii_alphabetic(),
            "{line:?}"
        );
    }
    assert_eq!(
        value(
            &text,
            "bidscan_http_requests_total{route=\"/decode\",status=\"200\"}"
        ),
        4.0
    );
    assert_eq!(
        value(
            &text,
            "bidscan_http_requests_total{route=\"/decode\",status=\"400\"}"
        ),
        1.0
    );
    assert_eq!(
        value(
            &text,
            "bidscan_decode_outcomes_total{encoding=\"json\",outcome=\"bid\"}"
        ),
        4.0
    );
    assert_eq!(
        value(
            &text,
            "bidscan_decode_outcomes_total{encoding=\"json\",outcome=\"malformed\"}"
        ),
        1.0
    );
    assert_eq!(
        value(&text, "bidscan_bids_total"),
        3.0 * expected_bids(&doc) as f64 + 1.0
    );
    assert_eq!(value(&text, "bidscan_document_bytes_count"), 5.0);
    let series = format!(
        "bidscan_validation_issues_total{{code={},severity={}}}",
        issue["code"], issue["severity"]
    );
    assert!(value(&text, &series) >= 1.0, "{series}");
    assert!(value(&text, "process_resident_memory_bytes") > 0.0);
    assert!(
        !text.contains("route=\"/decode?"),
        "route label is the template"
    );
}

#[tokio::test]
async fn request_id_is_kept_or_made_and_echoed() {
    let server = start(config()).await;
    let res = server
        .client
        .get(server.url("/healthz"))
        .header("x-request-id", "req-42")
        .send()
        .await
        .unwrap();
    assert_eq!(res.headers()["x-request-id"], "req-42");
    let res = server
        .post("/decode", &[("x-request-id", "req-43")], b"[]".to_vec())
        .await;
    assert_eq!(res.status(), 422);
    assert_eq!(res.headers()["x-request-id"], "req-43");
    let res = server
        .client
        .get(server.url("/healthz"))
        .send()
        .await
        .unwrap();
    let made = res.headers()["x-request-id"].to_str().unwrap();
    assert_eq!(made.len(), 36, "a UUID: {made}");
    // An empty id, one over 200 bytes, or one that is not visible ASCII is replaced, on the hot route and the
    // others alike.
    let long = "x".repeat(201);
    let kept = "y".repeat(200);
    for (sent, replaced) in [
        ("", true),
        (long.as_str(), true),
        ("a b", true),
        (kept.as_str(), false),
    ] {
        for path in ["/healthz", "/decode"] {
            let res = if path == "/decode" {
                server
                    .post(path, &[("x-request-id", sent)], b"{}".to_vec())
                    .await
            } else {
                server
                    .client
                    .get(server.url(path))
                    .header("x-request-id", sent)
                    .send()
                    .await
                    .unwrap()
            };
            let echoed = res.headers()["x-request-id"].to_str().unwrap().to_owned();
            if replaced {
                assert_eq!(echoed.len(), 36, "{path} {sent:?}: {echoed}");
            } else {
                assert_eq!(echoed, sent, "{path}");
            }
        }
    }
}

#[tokio::test]
async fn over_the_concurrency_limit_is_503_with_retry_after() {
    let mut c = config();
    c.server.max_concurrency = 1;
    c.server.retry_after_secs = 7;
    let server = start(c).await;
    // A request whose body stalls holds the only permit; probes are then shed. A probe in flight when the held
    // request arrives may take the permit first and get the held request shed instead: then it is sent again.
    let mut shed = None;
    let mut holding = None;
    for _ in 0..20 {
        let (release, hold) = oneshot::channel();
        let held = server
            .client
            .post(server.url("/decode"))
            .body(stalled_body(b"{\"id\":\"held\"", hold))
            .send();
        let held = tokio::spawn(held);
        for _ in 0..100 {
            let res = server.post("/decode", &[], b"{}".to_vec()).await;
            if res.status() == 503 {
                shed = Some(res);
                break;
            }
            if held.is_finished() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        if shed.is_some() {
            holding = Some((release, held));
            break;
        }
        let answered = held.await.unwrap().unwrap();
        assert_eq!(
            answered.status(),
            503,
            "the held request was answered only when shed"
        );
    }
    let (release, held) = holding.expect("a held request held the permit");
    let res = shed.expect("a request was shed");
    assert_eq!(res.headers()["retry-after"], "7");
    let (_, v) = json(res).await;
    assert_eq!(v["error"]["code"], "overloaded");
    // Operational routes are not shed.
    assert_eq!(server.get_text("/healthz").await.0, 200);
    let _ = release.send(());
    let (code, v) = json(held.await.unwrap().unwrap()).await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["summary"]["id"], "held");
}

#[tokio::test]
async fn a_batch_holds_a_permit_while_it_streams_and_ends_when_its_body_stalls() {
    let mut c = config();
    c.server.max_concurrency = 1;
    c.server.request_timeout_secs = 1;
    let server = start(c).await;
    let (_release, hold) = oneshot::channel::<()>();
    let res = server
        .client
        .post(server.url("/decode/batch"))
        .body(stalled_body(b"{\"id\":\"one\"}\n", hold))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let shed = server.post("/decode", &[], b"{}".to_vec()).await;
    assert_eq!(
        shed.status(),
        503,
        "the streaming batch holds the only permit"
    );
    let text = res.text().await.unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert_eq!(lines[0]["summary"]["id"], "one");
    assert_eq!(lines[1]["error"]["code"], "timeout");
    let again = server.post("/decode", &[], b"{}".to_vec()).await;
    assert_eq!(again.status(), 200, "the permit is back");
}

#[tokio::test]
async fn a_body_that_never_ends_is_408() {
    let mut c = config();
    c.server.request_timeout_secs = 1;
    let server = start(c).await;
    let (_release, hold) = oneshot::channel::<()>();
    let started = Instant::now();
    let res = server
        .client
        .post(server.url("/decode"))
        .body(stalled_body(b"{\"id\":\"slow\"", hold))
        .send()
        .await
        .unwrap();
    let (code, v) = json(res).await;
    assert_eq!(code, 408, "{v}");
    assert_eq!(v["error"]["code"], "timeout");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn draining_flips_readiness_lets_in_flight_finish_and_exits() {
    let mut c = config();
    c.server.drain_grace_secs = 1;
    c.server.drain_timeout_secs = 5;
    let mut server = start(c).await;
    assert_eq!(server.get_text("/readyz").await.0, 200);

    let (release, hold) = oneshot::channel();
    let in_flight = tokio::spawn(
        server
            .client
            .post(server.url("/decode"))
            .body(stalled_body(b"{\"id\":\"in-flight\"", hold))
            .send(),
    );
    tokio::time::sleep(Duration::from_millis(100)).await;

    let signalled = Instant::now();
    server.begin_shutdown();
    tokio::time::sleep(Duration::from_millis(50)).await;
    let (code, body) = server.get_text("/readyz").await;
    assert_eq!(code, 503, "{body}");
    assert!(body.contains("draining"), "{body}");
    assert_eq!(
        server.get_text("/healthz").await.0,
        200,
        "liveness stays up"
    );

    // After the grace period the listener is closed but the in-flight request still completes.
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let _ = release.send(());
    let (code, v) = json(in_flight.await.unwrap().unwrap()).await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["summary"]["id"], "in-flight");

    let task = server.task.take().unwrap();
    tokio::time::timeout(Duration::from_secs(5), task)
        .await
        .expect("exits")
        .unwrap()
        .unwrap();
    assert!(
        signalled.elapsed() < Duration::from_secs(5),
        "within drain_timeout"
    );
    assert!(
        server
            .client
            .get(server.url("/healthz"))
            .send()
            .await
            .is_err(),
        "no longer listening"
    );
}

#[tokio::test]
async fn drain_deadline_bounds_shutdown() {
    let mut c = config();
    c.server.drain_grace_secs = 0;
    c.server.drain_timeout_secs = 1;
    let mut server = start(c).await;
    let (_release, hold) = oneshot::channel::<()>();
    let _stuck = tokio::spawn(
        server
            .client
            .post(server.url("/decode"))
            .body(stalled_body(b"{", hold))
            .send(),
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = Instant::now();
    server.begin_shutdown();
    let task = server.task.take().unwrap();
    tokio::time::timeout(Duration::from_secs(4), task)
        .await
        .expect("exits at the deadline")
        .unwrap()
        .unwrap();
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "waited for the in-flight request"
    );
}

#[tokio::test]
async fn index_openapi_and_not_found() {
    let server = start(config()).await;
    let (code, text) = server.get_text("/").await;
    assert_eq!(code, 200);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["name"], "bidscan");
    assert_eq!(v["links"]["metrics"], "/metrics");
    assert_eq!(v["links"]["validate"], "/validate");
    assert_eq!(v["links"]["validate_batch"], "/validate/batch");

    let (code, text) = server.get_text("/openapi.json").await;
    assert_eq!(code, 200);
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
    for path in [
        "/decode",
        "/decode/batch",
        "/",
        "/healthz",
        "/readyz",
        "/metrics",
        "/openapi.json",
    ] {
        assert!(doc["paths"][path].is_object(), "{path} not documented");
    }

    let (code, text) = server.get_text("/nope").await;
    assert_eq!(code, 404);
    assert!(text.contains("\"not_found\""), "{text}");
    let res = server
        .client
        .get(server.url("/decode"))
        .send()
        .await
        .unwrap();
    let (code, v) = json(res).await;
    assert_eq!(code, 405);
    assert_eq!(v["error"]["code"], "method_not_allowed");
}

/// Past the 1,000-issue list bound, `summary.errors`/`warnings` and
/// `bidscan_validation_issues_total` still count every issue found, not only the listed ones.
#[tokio::test]
async fn issue_totals_count_past_the_list_bound() {
    let server = start(config()).await;
    // 2,000 empty bids: 5 findings each, 10,000 in all, plus the `issues_truncated` warning.
    let bids = vec!["{}"; 2000].join(",");
    let body = format!(r#"{{"id":"r","seatbid":[{{"bid":[{bids}]}}]}}"#).into_bytes();
    let (code, v) = json(server.post("/decode?view=summary", &[], body).await).await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["issues"].as_array().unwrap().len(), 1001);
    let (errors, warnings) = (
        v["summary"]["errors"].as_u64().unwrap(),
        v["summary"]["warnings"].as_u64().unwrap(),
    );
    assert_eq!(errors + warnings, 10_001, "{errors} + {warnings}");
    let m = server.metrics().await;
    let counted: f64 = m
        .lines()
        .filter(|l| l.starts_with("bidscan_validation_issues_total{"))
        .map(|l| l.rsplit(' ').next().unwrap().parse::<f64>().unwrap())
        .sum();
    assert_eq!(counted, 10_001.0, "{m}");
}
