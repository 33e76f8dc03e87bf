//! Slow clients against the real server (in process, `127.0.0.1:0`).
//!
//! - Slowloris: many connections that send part of a request head and then nothing. They cost the server one
//!   socket and one idle task each, take no decode permit, and do not delay anyone else. The count is
//!   `BIDSCAN_SLOW_CLIENTS` (default 1,000 here; `scripts/hostile.sh` runs 10,000), capped by the open-file
//!   limit. The server is the real binary, in its own process, so its memory per slow connection is measured.
//! - Slow bodies: a request whose head arrived holds a decode permit while its body trickles in, for at most
//!   `server.request_timeout_secs` (then 408). With every permit held, other decode requests are shed at once
//!   with 503 + `Retry-After` — never queued — and `/healthz`, `/readyz`, `/metrics` still answer.

mod common;
mod hostile_common;

use std::time::{Duration, Instant};

use common::*;
use hostile_common::{QUIET, env_or, fd_limit, mib, ms, percentile, spawn};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

/// Opens `n` connections that each send a partial request head and stop.
async fn slowloris(addr: &str, n: usize) -> Vec<TcpStream> {
    let mut conns = Vec::with_capacity(n);
    for i in 0..n {
        let mut s = TcpStream::connect(addr)
            .await
            .unwrap_or_else(|e| panic!("connection {i}: {e}"));
        s.write_all(b"POST /decode HTTP/1.1\r\nHost: x\r\nContent-Le")
            .await
            .unwrap();
        conns.push(s);
    }
    conns
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slowloris_connections_do_not_block_other_clients() {
    // The server is the real binary in its own process, so this process holds only the client ends.
    let wanted = env_or("BIDSCAN_SLOW_CLIENTS", 1_000);
    let n = wanted.min(fd_limit().saturating_sub(512)) as usize;
    eprintln!(
        "slowloris: {n} slow connections (wanted {wanted}, open-file limit {})",
        fd_limit()
    );
    assert!(n >= 100, "open-file limit {} too low", fd_limit());
    let served = spawn(&[("RUST_LOG", QUIET)]);
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    let rss_before = served.rss();
    let started = Instant::now();
    let conns = slowloris(&served.addr.to_string(), n).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let rss_slow = served.rss();
    eprintln!(
        "slowloris: opened in {:?}; server RSS {:.1} MiB before, {:.1} MiB with them ({:.1} KiB each)",
        started.elapsed(),
        mib(rss_before),
        mib(rss_slow),
        rss_slow.saturating_sub(rss_before) as f64 / 1024.0 / n as f64
    );

    let doc = corpus_file("vast_020k.json");
    let mut latencies = Vec::new();
    for _ in 0..50 {
        let t = Instant::now();
        let res = client
            .post(served.url("/decode?view=summary"))
            .body(doc.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
        res.bytes().await.unwrap();
        latencies.push(t.elapsed());
    }
    let ready = client.get(served.url("/readyz")).send().await.unwrap();
    assert_eq!(ready.status(), 200);
    let p50 = percentile(&mut latencies, 50.0);
    let p99 = percentile(&mut latencies, 99.0);
    eprintln!(
        "slowloris: normal client p50 {:.1} ms, p99 {:.1} ms",
        ms(p50),
        ms(p99)
    );
    assert!(
        p99 < Duration::from_secs(2),
        "p99 {p99:?} with {n} slow connections"
    );
    // They cost a socket and a little memory each, no decode permit: nothing was answered 408 or 503.
    let m = client
        .get(served.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(
        sample(
            &m,
            "bidscan_http_requests_total{route=\"/decode\",status=\"200\"}"
        ),
        Some(50.0)
    );
    assert_eq!(
        sample(
            &m,
            "bidscan_http_requests_total{route=\"/decode\",status=\"503\"}"
        ),
        None
    );
    drop(conns);
}

/// Opens a decode request whose head and first body bytes arrive, then nothing more.
async fn slow_body(addr: &str) -> TcpStream {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"POST /decode HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"id\":")
        .await
        .unwrap();
    s
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_bodies_hold_permits_only_until_the_timeout_and_others_are_shed_not_queued() {
    let mut c = config();
    c.server.max_concurrency = 8;
    c.server.request_timeout_secs = 2;
    let server = start(c).await;
    let addr = server.base.trim_start_matches("http://").to_owned();
    let held: Vec<TcpStream> =
        futures_util::future::join_all((0..8).map(|_| slow_body(&addr))).await;
    tokio::time::sleep(Duration::from_millis(200)).await;

    // Every permit is held: decode requests are refused at once, with Retry-After.
    let doc = corpus_file("banner_go_004k.json");
    for _ in 0..5 {
        let t = Instant::now();
        let res = server.post("/decode", &[], doc.clone()).await;
        assert_eq!(res.status(), 503);
        assert_eq!(res.headers()["retry-after"], "1");
        assert!(
            t.elapsed() < Duration::from_millis(500),
            "{:?}",
            t.elapsed()
        );
    }
    // Operational routes are never shed.
    for path in ["/healthz", "/readyz", "/metrics"] {
        assert_eq!(server.get_text(path).await.0, 200, "{path}");
    }
    // After the request timeout the slow requests are answered 408 and their permits come back.
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    let res = server.post("/decode", &[], doc.clone()).await;
    assert_eq!(res.status(), 200);
    let m = server.metrics().await;
    assert_eq!(
        value(
            &m,
            "bidscan_http_requests_total{route=\"/decode\",status=\"408\"}"
        ),
        8.0
    );
    assert_eq!(
        value(
            &m,
            "bidscan_http_requests_total{route=\"/decode\",status=\"503\"}"
        ),
        5.0
    );
    drop(held);
}

/// Known gap (RELIABILITY.md, finding F2): `axum::serve` sets no header-read timeout and no connection limit,
/// so a connection that never completes its request head is kept forever (about 27 KiB of server memory each).
/// This test states the wanted behaviour; un-ignore it once the server closes such connections.
#[tokio::test]
#[ignore = "known gap F2: no header-read timeout (RELIABILITY.md)"]
async fn a_connection_that_never_sends_its_request_head_is_closed() {
    use tokio::io::AsyncReadExt;
    let mut c = config();
    c.server.request_timeout_secs = 2;
    let server = start(c).await;
    let addr = server.base.trim_start_matches("http://").to_owned();
    let mut conn = slowloris(&addr, 1).await.pop().unwrap();
    let mut buf = [0u8; 1024];
    let closed = tokio::time::timeout(Duration::from_secs(10), conn.read(&mut buf)).await;
    assert!(
        matches!(closed, Ok(Ok(_)) | Ok(Err(_))),
        "still open 10 s after a partial request head"
    );
}
