//! `server.send_timeout_secs` over HTTP/2 (`transport/conn/stream_deadline.rs`): an h2 client whose stream windows
//! stay shut (`SETTINGS_INITIAL_WINDOW_SIZE` 0, or 1 byte and no `WINDOW_UPDATE`) sends `view=full` decodes and
//! reads nothing. Each answer's stream is reset (`RST_STREAM` `CANCEL`) once it has taken no chunk for the send
//! timeout, its `server.max_inflight_bytes` reservation comes back, each reset is counted, and the same
//! connection then serves another request. A real server, the h2 crate as the client.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use axum::http::Request;
use bytes::Bytes;
use tokio::net::TcpStream;
use tokio::sync::oneshot;

use crate::common::*;

const MIB: usize = 1024 * 1024;
const INFLIGHT: &str = "bidscan_inflight_bytes";
const SEND_TIMEOUTS: &str = "bidscan_http_send_timeouts_total";
/// Decodes sent on the connection: about 6 MiB of the 8 MiB budget held at once (body and answer each).
const STREAMS: usize = 24;

/// Polls `/metrics` until `series` satisfies `want` (`within` at most); the last value seen.
async fn settle(
    server: &TestServer,
    series: &str,
    within: Duration,
    want: impl Fn(f64) -> bool,
) -> f64 {
    let until = Instant::now() + within;
    loop {
        let v = value(&server.metrics().await, series);
        if want(v) || Instant::now() > until {
            return v;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The scenario with the client's initial stream window `window` bytes.
async fn unread_answers_are_reset(window: u32) {
    let mut c = config();
    c.server.send_timeout_secs = 1;
    c.server.max_inflight_bytes = 8 * MIB;
    let server = start(c).await;
    let addr: SocketAddr = server.base.trim_start_matches("http://").parse().unwrap();
    let doc = Bytes::from(corpus_file("vast_110k.json"));

    let tcp = TcpStream::connect(addr).await.unwrap();
    let (client, mut conn) = h2::client::Builder::new()
        .initial_window_size(window)
        .handshake::<_, Bytes>(tcp)
        .await
        .unwrap();
    // The connection is driven by its own task; `open` later widens every stream window (a SETTINGS frame).
    let (open, opened) = oneshot::channel::<u32>();
    let driver = tokio::spawn(async move {
        tokio::select! {
            ended = &mut conn => return ended,
            Ok(size) = opened => conn.set_initial_window_size(size).unwrap(),
        }
        conn.await
    });

    let mut client = client.ready().await.unwrap();
    let mut pending = Vec::new();
    for _ in 0..STREAMS {
        let req = Request::post(format!("http://{addr}/decode?view=full"))
            .header("content-type", "application/json")
            .body(())
            .unwrap();
        let (answer, mut body) = client.send_request(req, false).unwrap();
        body.send_data(doc.clone(), true).unwrap();
        pending.push(answer);
        client = client.ready().await.unwrap();
    }
    // Every answer's head comes (HEADERS are not flow-controlled); its body cannot.
    let mut bodies = Vec::new();
    for answer in pending {
        let res = tokio::time::timeout(Duration::from_secs(5), answer)
            .await
            .expect("no answer head")
            .unwrap();
        assert_eq!(res.status(), 200);
        bodies.push(res.into_body());
    }
    let held = value(&server.metrics().await, INFLIGHT);

    // The send timeout (1 s) resets every stream and gives its bytes back.
    let left = settle(&server, INFLIGHT, Duration::from_secs(3), |v| v == 0.0).await;
    assert_eq!(left, 0.0, "answers nobody reads still hold the budget");
    assert!(held > 0.0, "the answers held nothing of the budget");
    for mut body in bodies {
        // What the window let through (`window` bytes), then the reset.
        let mut received = 0;
        let error = loop {
            let next = tokio::time::timeout(Duration::from_secs(2), body.data())
                .await
                .expect("the stream was not reset");
            match next.expect("the stream ended without a reset") {
                Ok(data) => received += data.len(),
                Err(error) => break error,
            }
        };
        assert_eq!(received, window as usize);
        assert_eq!(error.reason(), Some(h2::Reason::CANCEL), "{error}");
    }
    let counted = settle(&server, SEND_TIMEOUTS, Duration::from_secs(1), |v| {
        v >= STREAMS as f64
    })
    .await;
    assert_eq!(counted, STREAMS as f64);

    // The connection serves on: with its windows open, a request on it is answered in full.
    open.send(1 << 20).unwrap();
    let req = Request::post(format!("http://{addr}/decode?view=summary"))
        .header("content-type", "application/json")
        .body(())
        .unwrap();
    let mut client = client.ready().await.unwrap();
    let (answer, mut body) = client.send_request(req, false).unwrap();
    body.send_data(doc.clone(), true).unwrap();
    let res = tokio::time::timeout(Duration::from_secs(5), answer)
        .await
        .expect("no answer")
        .unwrap();
    assert_eq!(res.status(), 200);
    let mut body = res.into_body();
    let mut got = Vec::new();
    while let Some(chunk) = tokio::time::timeout(Duration::from_secs(5), body.data())
        .await
        .expect("the answer stalled")
    {
        let chunk = chunk.unwrap();
        let _ = body.flow_control().release_capacity(chunk.len());
        got.extend_from_slice(&chunk);
    }
    let summary: serde_json::Value = serde_json::from_slice(&got).unwrap();
    assert!(summary.is_object(), "{summary}");
    assert_eq!(
        value(&server.metrics().await, SEND_TIMEOUTS),
        STREAMS as f64
    );
    drop(client);
    driver.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_behind_a_shut_window_are_reset_and_free_the_budget() {
    unread_answers_are_reset(0).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_behind_a_one_byte_window_are_reset_and_free_the_budget() {
    unread_answers_are_reset(1).await;
}
