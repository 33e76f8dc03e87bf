//! The per-worker pool seen through /metrics: a steady stream of same-size documents stops growing the buffer
//! after warm-up; a one-off large document is given back (shrink, or drop when over `max_retained_bytes`).
//!
//! The tests run on a current-thread runtime, so the server has exactly one worker and one pool, and the counts
//! are exact rather than "per worker".

use crate::common;

use common::*;

const GROW: &str = "bidscan_buffer_grow_total{buffer=\"input\"}";
const SHRINK: &str = "bidscan_buffer_shrink_total{buffer=\"input\"}";
const DROP_TOO_LARGE: &str = "bidscan_buffer_drop_total{buffer=\"input\",reason=\"too_large\"}";
const RETAINED: &str = "bidscan_buffer_retained_bytes{buffer=\"input\"}";
const HITS: &str = "bidscan_pool_checkouts_total{result=\"hit\"}";
const MISSES: &str = "bidscan_pool_checkouts_total{result=\"miss\"}";

/// A valid bid response of at least `bytes` bytes: the bids of `vast_110k.json` repeated with fresh ids.
fn large_document(bytes: usize) -> Vec<u8> {
    let mut doc: serde_json::Value =
        serde_json::from_slice(&corpus_file("vast_110k.json")).unwrap();
    let bid = doc["seatbid"][0]["bid"][0].clone();
    let one = serde_json::to_vec(&bid).unwrap().len();
    let bids: Vec<serde_json::Value> = (0..bytes / one + 1)
        .map(|i| {
            let mut b = bid.clone();
            b["id"] = serde_json::Value::String(format!("bid-{i}"));
            b
        })
        .collect();
    doc["seatbid"][0]["bid"] = serde_json::Value::Array(bids);
    let out = serde_json::to_vec(&doc).unwrap();
    assert!(
        out.len() >= bytes && out.len() < 4 * 1024 * 1024,
        "{}",
        out.len()
    );
    out
}

async fn decode_ok(server: &TestServer, body: &[u8]) {
    let res = server
        .post("/decode?view=summary", &[], body.to_vec())
        .await;
    assert_eq!(res.status(), 200);
    let _ = res.bytes().await.unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn steady_documents_stop_growing_and_a_large_one_is_given_back() {
    let mut c = config();
    c.pool.window = 8;
    let server = start(c).await;
    let doc = corpus_file("vast_110k.json");
    assert!(doc.len() > 100_000);

    for _ in 0..20 {
        decode_ok(&server, &doc).await;
    }
    let warm = server.metrics().await;
    let grows = value(&warm, GROW);
    assert!(grows >= 1.0, "the first document grew the buffer");
    for _ in 20..1000 {
        decode_ok(&server, &doc).await;
    }
    let steady = server.metrics().await;
    assert_eq!(value(&steady, GROW), grows, "no growth after warm-up");
    assert_eq!(value(&steady, MISSES), 1.0, "one worker, one buffer");
    assert_eq!(value(&steady, HITS), 999.0);
    assert_eq!(value(&steady, SHRINK), 0.0, "a steady size is never shrunk");
    let retained_steady = value(&steady, RETAINED);
    assert!(retained_steady >= doc.len() as f64 && retained_steady < 2.0 * doc.len() as f64);

    let large = large_document(3 * 1024 * 1024);
    decode_ok(&server, &large).await;
    let after_large = server.metrics().await;
    assert_eq!(value(&after_large, GROW), grows + 1.0);
    assert!(
        value(&after_large, RETAINED) >= large.len() as f64,
        "kept for now"
    );

    let small = corpus_file("nurl_only.json");
    for _ in 0..20 {
        decode_ok(&server, &small).await;
    }
    let settled = server.metrics().await;
    let given_back = value(&settled, SHRINK) + value(&settled, DROP_TOO_LARGE);
    assert!(given_back >= 1.0, "shrink or drop after the large document");
    let retained = value(&settled, RETAINED);
    assert!(
        retained < 64.0 * 1024.0,
        "retained fell back to {retained} bytes"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_document_past_max_retained_bytes_is_dropped() {
    let mut c = config();
    c.pool.max_retained_bytes = 1024 * 1024;
    let server = start(c).await;
    decode_ok(&server, &corpus_file("vast_020k.json")).await;
    decode_ok(&server, &large_document(2 * 1024 * 1024)).await;
    let m = server.metrics().await;
    assert_eq!(value(&m, DROP_TOO_LARGE), 1.0);
    assert_eq!(value(&m, RETAINED), 0.0, "nothing idle after the drop");
    decode_ok(&server, &corpus_file("vast_020k.json")).await;
    let m = server.metrics().await;
    assert_eq!(value(&m, MISSES), 2.0, "a new buffer after the drop");
    assert!(value(&m, RETAINED) > 0.0);
}
