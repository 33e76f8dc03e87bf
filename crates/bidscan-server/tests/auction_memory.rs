//! `/validate/auction`'s answer in `server.max_inflight_bytes` on a real server: held as it is built, a bidder at a
//! time, so a small call of compressed bidders whose answer the budget cannot cover is answered 503 `overloaded`
//! with `Retry-After`, counted in `bidscan_shed_total{reason="memory"}`, part-way through its bidders (the bidders
//! after the shed are never judged, the call is no decode outcome) rather than once its whole answer exists; an
//! auction whose answer fits is answered as before, in JSON and protobuf; every byte is given back.

use std::io::Write;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::*;

const MIB: usize = 1024 * 1024;
const SHED: &str = "bidscan_shed_total{reason=\"memory\"}";
const INFLIGHT: &str = "bidscan_inflight_bytes";
/// Bidders judged: one observation of `bidscan_bidder_response_bytes` per body (part names not in
/// `server.bidders` are `other`).
const JUDGED: &str = "bidscan_bidder_response_bytes_count{bidder=\"other\"}";
const BOUNDARY: &str = "amp-4f1e";

/// A bid response of `bids` bids for imp `1`, each answered with a summary line several times its size.
fn bidder_doc(bids: usize) -> Vec<u8> {
    let bids: Vec<Value> = (0..bids)
        .map(|i| {
            serde_json::json!({
                "id": format!("b{i}"), "impid": "1", "price": 1.5, "adm": "<div>ad</div>",
                "crid": "c", "w": 300, "h": 250,
            })
        })
        .collect();
    serde_json::to_vec(&serde_json::json!({
        "id": "r1", "cur": "USD", "seatbid": [{"seat": "s", "bid": bids}],
    }))
    .unwrap()
}

/// An auction of `parts` bidders (`b0`, `b1`, …) each sending `doc` gzipped.
fn auction(parts: usize, doc: &[u8]) -> Vec<u8> {
    let gz = gzip(doc);
    let mut body = Vec::new();
    write!(
        body,
        "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"request\"\r\n\r\n\
         {{\"id\":\"r1\",\"imp\":[{{\"id\":\"1\",\"banner\":{{\"w\":300,\"h\":250}}}}]}}\r\n"
    )
    .unwrap();
    for i in 0..parts {
        write!(
            body,
            "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"b{i}\"\r\nContent-Encoding: gzip\r\n\r\n"
        )
        .unwrap();
        body.extend_from_slice(&gz);
        body.extend_from_slice(b"\r\n");
    }
    write!(body, "--{BOUNDARY}--\r\n").unwrap();
    body
}

/// A server whose budget is `mib` MiB.
async fn budgeted(mib: usize) -> TestServer {
    let mut c = config();
    c.server.max_inflight_bytes = mib * MIB;
    start(c).await
}

/// Polls `/metrics` until `series` is `want` (2 s at most); the last value seen.
async fn settle(server: &TestServer, series: &str, want: impl Fn(f64) -> bool) -> f64 {
    let until = Instant::now() + Duration::from_secs(2);
    loop {
        let v = value(&server.metrics().await, series);
        if want(v) || Instant::now() > until {
            return v;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn headers(accept: &str) -> [(&'static str, String); 2] {
    [
        (
            "content-type",
            format!("multipart/form-data; boundary={BOUNDARY}"),
        ),
        ("accept", accept.to_owned()),
    ]
}

async fn post(server: &TestServer, body: Vec<u8>, accept: &str) -> reqwest::Response {
    let h = headers(accept);
    let h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
    server.post("/validate/auction", &h, body).await
}

#[tokio::test]
async fn an_answer_past_the_budget_is_shed_while_it_is_built() {
    // 16 bidders of 4,000 bids: 351 KB of JSON each (6 MiB inflated in all, reserved as they inflate), 11 KB
    // gzipped; their answer is 25 MB (1.4–1.6 MB a bidder), which the 2 MiB an 8 MiB budget has left cannot hold.
    let doc = bidder_doc(4000);
    let parts = 16;
    let server = budgeted(8).await;
    let res = post(&server, auction(parts, &doc), "application/json").await;
    assert_eq!(res.status(), 503);
    assert_eq!(res.headers()["retry-after"], "1");
    let body: Value = serde_json::from_slice(&res.bytes().await.unwrap()).unwrap();
    assert_eq!(body["error"]["code"], "overloaded", "{body}");
    let metrics = server.metrics().await;
    assert_eq!(value(&metrics, SHED), 1.0);
    // Stopped a few bidders in, not after all of them; and not counted as a bid.
    let judged = sample(&metrics, JUDGED).unwrap_or(0.0);
    assert!(
        (1.0..=4.0).contains(&judged),
        "{judged} of {parts} bidders judged"
    );
    assert_eq!(
        sample(
            &metrics,
            "bidscan_decode_outcomes_total{encoding=\"json\",outcome=\"bid\"}"
        )
        .unwrap_or(0.0),
        0.0
    );
    assert_eq!(settle(&server, INFLIGHT, |v| v == 0.0).await, 0.0);

    // The protobuf answer is held the same way (187 KB a bidder, 3 MB for the 16).
    let res = post(&server, auction(parts, &doc), "application/x-protobuf").await;
    assert_eq!(res.status(), 503);
    assert_eq!(res.headers()["retry-after"], "1");
    assert_eq!(value(&server.metrics().await, SHED), 2.0);
    assert_eq!(settle(&server, INFLIGHT, |v| v == 0.0).await, 0.0);
}

#[tokio::test]
async fn an_auction_whose_answer_fits_is_answered_as_before() {
    // 2 bidders: a 2.9 MB answer, built in a buffer that grows by half while the next bidder waits beside it.
    let doc = bidder_doc(4000);
    let server = budgeted(16).await;
    let res = post(&server, auction(2, &doc), "application/json").await;
    assert_eq!(res.status(), 200);
    let answer: Value = serde_json::from_slice(&res.bytes().await.unwrap()).unwrap();
    let bidders = answer["bidders"].as_array().unwrap();
    assert_eq!(bidders.len(), 2);
    for (i, b) in bidders.iter().enumerate() {
        assert_eq!(b["bidder"], format!("b{i}"));
        assert_eq!(b["status"], "bid");
        assert_eq!(b["summary"]["bids"].as_array().unwrap().len(), 4000);
    }
    // Bidder b1 repeats b0's bid ids: rule 302 warns on each, the bids stay accepted.
    assert_eq!(bidders[1]["summary"]["accepted"], 4000);
    assert_eq!(answer["request"]["imps"], serde_json::json!(["1"]));

    let res = post(&server, auction(2, &doc), "application/x-protobuf").await;
    assert_eq!(res.status(), 200);
    let content_type = res.headers()["content-type"].to_str().unwrap().to_owned();
    let body = res.bytes().await.unwrap();
    let boundary = content_type.split("boundary=").nth(1).unwrap();
    assert!(body.starts_with(format!("--{boundary}\r\n").as_bytes()));
    assert!(body.ends_with(format!("--{boundary}--\r\n").as_bytes()));
    let delimiter = format!("--{boundary}\r\n");
    assert_eq!(
        body.windows(delimiter.len())
            .filter(|w| *w == delimiter.as_bytes())
            .count(),
        2
    );
    let metrics = server.metrics().await;
    assert_eq!(sample(&metrics, SHED).unwrap_or(0.0), 0.0);
    assert_eq!(value(&metrics, JUDGED), 4.0);
    assert_eq!(settle(&server, INFLIGHT, |v| v == 0.0).await, 0.0);
}
