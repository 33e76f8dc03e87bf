//! The operational routes' answers in `server.max_inflight_bytes` (`routes/ops.rs`): an h2 client whose stream
//! windows stay shut (`SETTINGS_INITIAL_WINDOW_SIZE` 0) asks for answers and reads none. `/openapi.json` is one
//! shared copy and holds nothing of the budget; each `/metrics` answer is reserved until it is sent, so once the
//! budget is used the next scrape is 503 `overloaded` with `Retry-After`, counted `bidscan_shed_total{reason=
//! "memory"}`, while `/healthz` and `/readyz` still answer 200. A real server, the h2 crate as the client.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use axum::http::{Request, StatusCode};
use bytes::Bytes;
use tokio::net::TcpStream;

use crate::common::*;

const INFLIGHT: &str = "bidscan_inflight_bytes";
const SHED: &str = "bidscan_shed_total{reason=\"memory\"}";
/// The budget: a few `/metrics` answers (each held in steps of 64 KiB).
const BUDGET: usize = 512 * 1024;
/// Streams per connection, under the server's 128.
const STREAMS: usize = 48;

/// An h2 connection whose stream windows stay shut, driven by its own task.
async fn shut_window(
    addr: SocketAddr,
) -> (h2::client::SendRequest<Bytes>, tokio::task::JoinHandle<()>) {
    let tcp = TcpStream::connect(addr).await.unwrap();
    let (client, conn) = h2::client::Builder::new()
        .initial_window_size(0)
        .handshake::<_, Bytes>(tcp)
        .await
        .unwrap();
    let driver = tokio::spawn(async move {
        let _ = conn.await;
    });
    (client, driver)
}

/// `STREAMS` `GET path` on `client`, bodies left unread: each answer's status and `Retry-After`, and the bodies
/// (kept, so that their streams stay open).
async fn unread(
    client: h2::client::SendRequest<Bytes>,
    addr: SocketAddr,
    path: &str,
) -> (Vec<(StatusCode, bool)>, Vec<h2::RecvStream>) {
    let mut client = client.ready().await.unwrap();
    let mut pending = Vec::new();
    for _ in 0..STREAMS {
        let req = Request::get(format!("http://{addr}{path}"))
            .body(())
            .unwrap();
        let (answer, _) = client.send_request(req, true).unwrap();
        pending.push(answer);
        client = client.ready().await.unwrap();
    }
    let (mut heads, mut bodies) = (Vec::new(), Vec::new());
    for answer in pending {
        // HEADERS are not flow-controlled: every head comes.
        let res = tokio::time::timeout(Duration::from_secs(5), answer)
            .await
            .expect("no answer head")
            .unwrap();
        heads.push((res.status(), res.headers().contains_key("retry-after")));
        bodies.push(res.into_body());
    }
    (heads, bodies)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unread_metrics_answers_are_held_in_the_budget_and_shed_past_it() {
    let mut c = config();
    c.server.max_inflight_bytes = BUDGET;
    c.server.send_timeout_secs = 30;
    let server = start(c).await;
    let addr: SocketAddr = server.base.trim_start_matches("http://").parse().unwrap();

    // `/openapi.json` (about 60 KB), unread on 48 streams: every one 200, nothing of the budget held.
    let (client, openapi_driver) = shut_window(addr).await;
    let (heads, openapi_bodies) = unread(client, addr, "/openapi.json").await;
    assert!(heads.iter().all(|&(s, _)| s == 200), "{heads:?}");
    let metrics = server.metrics().await;
    assert_eq!(
        value(&metrics, INFLIGHT),
        0.0,
        "unread /openapi.json answers hold the budget"
    );
    assert_eq!(sample(&metrics, SHED).unwrap_or(0.0), 0.0);

    // `/metrics`, unread on 48 streams: the first ones take the budget, the rest are shed.
    let (client, metrics_driver) = shut_window(addr).await;
    let (heads, metrics_bodies) = unread(client, addr, "/metrics").await;
    let ok = heads.iter().filter(|&&(s, _)| s == 200).count();
    let shed: Vec<_> = heads.iter().filter(|&&(s, _)| s != 200).collect();
    assert!(ok >= 1, "{heads:?}");
    assert!(
        ok * metrics.len() <= BUDGET,
        "{ok} unread /metrics answers of {} bytes held within a {BUDGET}-byte budget",
        metrics.len()
    );
    assert!(!shed.is_empty(), "no /metrics answer was shed: {heads:?}");
    assert!(
        shed.iter().all(|&&(s, retry)| s == 503 && retry),
        "{shed:?}"
    );
    // The probes are never shed.
    assert_eq!(server.get_text("/healthz").await.0, 200);
    assert_eq!(server.get_text("/readyz").await.0, 200);
    assert_eq!(server.get_text("/metrics").await.0, 503);

    // The client gone, its streams are reset and the budget comes back; the sheds were counted.
    drop(metrics_bodies);
    metrics_driver.abort();
    let until = Instant::now() + Duration::from_secs(5);
    let metrics = loop {
        let (status, text) = server.get_text("/metrics").await;
        if status == 200 && value(&text, INFLIGHT) == 0.0 || Instant::now() > until {
            break text;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(value(&metrics, INFLIGHT), 0.0, "{metrics}");
    assert!(value(&metrics, SHED) > shed.len() as f64, "{metrics}");
    drop(openapi_bodies);
    openapi_driver.abort();
}
