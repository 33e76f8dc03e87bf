//! The request id on the log lines of a request (crate::request): the real binary with JSON logs at the default
//! level (`info`), where a request logs nothing unless it fails. A 503 answer logs the WARN "response failed",
//! which must name the request it is about by the id the client sent.

use crate::common;
use crate::hostile_common;

use std::time::Duration;

use bytes::Bytes;
use common::corpus_file;
use hostile_common::{paced, spawn};
use serde_json::Value;

/// Where a JSON log line carries the request id: at the top level or in its `span` object.
fn request_id(line: &Value) -> Option<&str> {
    line.get("request_id")
        .or_else(|| line.get("span")?.get("request_id"))
        .and_then(Value::as_str)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_warning_of_a_request_carries_its_request_id_in_json_logs() {
    let served = spawn(&[("BIDSCAN__SERVER__MAX_CONCURRENCY", "1")]);
    let client = crate::common::client_builder().build().unwrap();
    let doc = Bytes::from(corpus_file("banner_go_004k.json"));
    // The one decode permit, held for a second.
    let holder = tokio::spawn({
        let (client, url, doc) = (client.clone(), served.url("/decode"), doc.clone());
        async move {
            let res = client
                .post(url)
                .header("x-request-id", "holder-1")
                .body(paced(doc, Duration::from_secs(1)))
                .send()
                .await
                .unwrap();
            res.status().as_u16()
        }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let shed = client
        .post(served.url("/decode?view=summary"))
        .header("x-request-id", "shed-7f3a")
        .body(doc.to_vec())
        .send()
        .await
        .unwrap();
    assert_eq!(shed.status(), 503);
    assert_eq!(shed.headers()["x-request-id"], "shed-7f3a");
    assert_eq!(holder.await.unwrap(), 200);

    // The log line is written after the answer; give the writer a moment.
    let mut warned = None;
    for _ in 0..50 {
        warned = served
            .logs()
            .into_iter()
            .find(|l| l.contains("response failed"));
        if warned.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let line = warned.unwrap_or_else(|| panic!("no warning logged: {:?}", served.logs()));
    let line: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(line["level"], "WARN", "{line}");
    assert_eq!(request_id(&line), Some("shed-7f3a"), "{line}");
    assert!(line.to_string().contains("/decode?view=summary"), "{line}");
    // A request that succeeds logs nothing at `info`.
    assert!(
        !served.logs().iter().any(|l| l.contains("holder-1")),
        "{:?}",
        served.logs()
    );
}
