//! Slow clients and connection floods against the real server (in process on `127.0.0.1:0`, or the real binary
//! where its own memory and file descriptors are measured).
//!
//! - Slowloris: many connections that send part of a request head and then nothing. Within
//!   `server.max_connections` they cost the server one socket and one idle task each, take no decode permit,
//!   and do not delay anyone else. The count is `BIDSCAN_SLOW_CLIENTS` (default 1,000 here;
//!   `scripts/hostile.sh` runs 10,000), capped by the open-file limit.
//! - Each connection must send its request head within `server.header_read_timeout_secs` (also the idle
//!   timeout of kept-alive connections), or it is closed.
//! - Past `server.max_connections` the server stops accepting: connections wait in the kernel's accept queue,
//!   the server's sockets and memory stay bounded, and a waiting request is served once slots free up.
//! - Slow bodies: a request whose head arrived holds a decode permit while its body trickles in, for at most
//!   `server.body_grace_ms`; then it moves to the slow lane (its permit given back) or, that lane full, is
//!   answered 408 at once. A body in the slow lane is answered 408 at `server.request_timeout_secs`. With every
//!   permit held, other decode requests are shed at once with 503 + `Retry-After` — never queued — and
//!   `/healthz`, `/readyz`, `/metrics` still answer.

use crate::common;
use crate::hostile_common;

use std::time::{Duration, Instant};

use common::*;
use hostile_common::{QUIET, Served, env_or, fd_limit, mib, ms, percentile, spawn};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
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
    // Room for all of them, and no header-read timeout within the test: this measures what each one costs.
    let cap = (n + 64).to_string();
    let served = spawn(&[
        ("RUST_LOG", QUIET),
        ("BIDSCAN__SERVER__MAX_CONNECTIONS", &cap),
        ("BIDSCAN__SERVER__HEADER_READ_TIMEOUT_SECS", "600"),
    ]);
    let client = crate::common::client_builder()
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
    // No grace: a slow body keeps its permit to the timeout.
    c.server.body_grace_ms = 0;
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
    // A shed request with a large body: the 503 is sent before the body is read, with `Connection: close`, and
    // the close lingers until the body has arrived, so hyper's client (reqwest) reads the 503 instead of
    // failing with `IncompleteMessage` (RELIABILITY.md F3).
    let large = vec![b' '; 1 << 20];
    for _ in 0..5 {
        let res = server.post("/decode", &[], large.clone()).await;
        assert_eq!(res.status(), 503);
        assert_eq!(res.headers()["connection"], "close");
        assert_eq!(res.headers()["retry-after"], "1");
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
        10.0
    );
    drop(held);
}

/// Reads `conn` until an answer's status line has arrived (at most 5 s), and returns its status code.
async fn status_of(conn: &mut TcpStream) -> Option<u16> {
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    let read = async {
        while !got.windows(2).any(|w| w == b"\r\n") {
            match conn.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(5), read)
        .await
        .ok()?;
    let line = String::from_utf8_lossy(&got);
    line.split(' ').nth(1)?.parse().ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_bodies_give_their_permits_back_after_the_grace_and_others_are_served() {
    let mut c = config();
    c.server.max_concurrency = 4;
    c.server.request_timeout_secs = 4;
    c.server.body_grace_ms = 300;
    let server = start(c).await;
    let addr = server.base.trim_start_matches("http://").to_owned();
    let doc = corpus_file("banner_go_004k.json");

    // Within the grace, four slow bodies hold every permit: another request is shed.
    let mut lane: Vec<TcpStream> =
        futures_util::future::join_all((0..4).map(|_| slow_body(&addr))).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(server.post("/decode", &[], doc.clone()).await.status(), 503);

    // Past it they are in the slow lane, their permits back: others are served.
    tokio::time::sleep(Duration::from_millis(600)).await;
    for _ in 0..8 {
        assert_eq!(server.post("/decode", &[], doc.clone()).await.status(), 200);
    }
    let m = server.metrics().await;
    assert_eq!(
        value(&m, "bidscan_slow_bodies_total{outcome=\"moved\"}"),
        4.0
    );

    // The lane is full: four more slow bodies are answered 408 once their grace has passed, not at the timeout.
    let t = Instant::now();
    let mut refused: Vec<TcpStream> =
        futures_util::future::join_all((0..4).map(|_| slow_body(&addr))).await;
    for conn in &mut refused {
        assert_eq!(status_of(conn).await, Some(408));
    }
    let waited = t.elapsed();
    assert!(
        waited >= Duration::from_millis(250) && waited < Duration::from_millis(2_500),
        "{waited:?}"
    );
    let m = server.metrics().await;
    assert_eq!(
        value(&m, "bidscan_slow_bodies_total{outcome=\"refused\"}"),
        4.0
    );
    assert_eq!(server.post("/decode", &[], doc.clone()).await.status(), 200);

    // The slow lane's bodies are answered 408 at the request timeout, and the lane is free again.
    for conn in &mut lane {
        assert_eq!(status_of(conn).await, Some(408));
    }
    let again = slow_body(&addr).await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    let m = server.metrics().await;
    assert_eq!(
        value(&m, "bidscan_slow_bodies_total{outcome=\"moved\"}"),
        5.0
    );
    drop(again);
}

/// Waits up to 10 s for the server to close `conn` (EOF or reset); returns when that happened, or `None`.
async fn closed_by_server(conn: &mut TcpStream) -> Option<Instant> {
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout(Duration::from_secs(10), conn.read(&mut buf)).await {
            Ok(Ok(0) | Err(_)) => return Some(Instant::now()),
            Ok(Ok(_)) => {} // an answer; keep reading until the close
            Err(_) => return None,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_that_never_sends_its_request_head_is_closed() {
    let mut c = config();
    c.server.header_read_timeout_secs = 2;
    let server = start(c).await;
    let addr = server.base.trim_start_matches("http://").to_owned();
    let timeout = Duration::from_secs(2);

    // Half a head, then nothing.
    let mut half = slowloris(&addr, 1).await.pop().unwrap();
    let half_sent = Instant::now();
    // A head trickled one byte every 300 ms: the deadline is not extended by each byte.
    let mut trickle = TcpStream::connect(&addr).await.unwrap();
    let trickler = tokio::spawn(async move {
        for b in b"POST /decode HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n" {
            if trickle.write_all(&[*b]).await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
        trickle
    });
    // A kept-alive connection, idle after its answer.
    let mut idle = TcpStream::connect(&addr).await.unwrap();
    idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut answer = [0u8; 1024];
    let n = idle.read(&mut answer).await.unwrap();
    let answered = Instant::now();
    assert!(answer[..n].starts_with(b"HTTP/1.1 200"));

    for (what, conn, since) in [
        ("half head", &mut half, half_sent),
        ("idle keep-alive", &mut idle, answered),
    ] {
        let closed = closed_by_server(conn)
            .await
            .unwrap_or_else(|| panic!("{what}: still open 10 s after the 2 s header-read timeout"));
        // The timer started a little before `since` and never fires early; the upper bound is the 10 s above.
        let took = closed - since;
        assert!(took >= timeout / 2, "{what}: closed after {took:?}");
    }
    // The trickler has sent 56 bytes over 17 s when it is done; it is cut off long before.
    let mut trickle = trickler.await.unwrap();
    assert!(
        closed_by_server(&mut trickle).await.is_some(),
        "trickled head not closed"
    );
    assert_eq!(server.get_text("/healthz").await.0, 200);
}

/// Before hyper reads a head it tells HTTP/1 from the h2c preface, with no timer of its own: a connection that
/// sends nothing, or only a prefix of the preface, is closed by the header-read timeout too (otherwise
/// four silent sockets would hold every slot of `max_connections = 4`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_that_sends_nothing_or_half_a_preface_is_closed() {
    let mut c = config();
    c.server.header_read_timeout_secs = 2;
    c.server.max_connections = 3;
    let server = start(c).await;
    let addr = server.base.trim_start_matches("http://").to_owned();
    let timeout = Duration::from_secs(2);
    let mut conns = Vec::new();
    for prefix in [&b""[..], b"P", b"PRI * HTTP/2.0\r\n"] {
        let mut conn = TcpStream::connect(&addr).await.unwrap();
        conn.write_all(prefix).await.unwrap();
        conns.push((prefix, conn, Instant::now()));
    }
    for (prefix, conn, since) in &mut conns {
        let closed = closed_by_server(conn).await.unwrap_or_else(|| {
            panic!("{prefix:?}: still open 10 s after the 2 s header-read timeout")
        });
        let took = closed - *since;
        assert!(took >= timeout / 2, "{prefix:?}: closed after {took:?}");
    }
    // Their slots are free again: the cap is 3 and the service answers.
    assert_eq!(server.get_text("/healthz").await.0, 200);
}

/// The number of open file descriptors of the server process.
fn open_fds(served: &Served) -> usize {
    std::fs::read_dir(format!("/proc/{}/fd", served.pid()))
        .map(|d| d.count())
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_connection_cap_holds_and_the_service_answers_after_the_flood() {
    let cap = 16;
    let flood = 200;
    let served = spawn(&[
        ("RUST_LOG", QUIET),
        ("BIDSCAN__SERVER__MAX_CONNECTIONS", &cap.to_string()),
        ("BIDSCAN__SERVER__HEADER_READ_TIMEOUT_SECS", "600"),
    ]);
    let addr = served.addr.to_string();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (fds_before, rss_before) = (open_fds(&served), served.rss());

    // 200 connections that never finish their head: all connect (the kernel's accept queue takes them), the
    // server accepts 16.
    let conns = slowloris(&addr, flood).await;
    let waited = Instant::now();
    while open_fds(&served) < fds_before + cap && waited.elapsed() < Duration::from_secs(30) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let accepted = open_fds(&served) - fds_before;
    let rss = served.rss();
    eprintln!(
        "cap {cap}: {flood} connections opened, {accepted} accepted by the server; RSS {:.1} -> {:.1} MiB",
        mib(rss_before),
        mib(rss)
    );
    assert_eq!(
        accepted, cap,
        "the server holds exactly max_connections sockets"
    );
    assert!(
        rss < rss_before + 64 * 1024 * 1024,
        "RSS {:.1} MiB",
        mib(rss)
    );

    // A normal client is not refused: its connection waits in the queue, and its request is answered once the
    // flood goes away.
    let client = crate::common::client_builder()
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap();
    let waiting = tokio::spawn({
        let (client, url) = (client.clone(), served.url("/decode?view=summary"));
        async move {
            let res = client
                .post(url)
                .body(corpus_file("banner_go_004k.json"))
                .send()
                .await;
            res.map(|r| r.status().as_u16())
        }
    });
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(!waiting.is_finished(), "answered while every slot was held");
    drop(conns);
    let status = waiting.await.unwrap().expect("the waiting request");
    assert_eq!(status, 200);

    // The service answers normally after the flood.
    for _ in 0..20 {
        let res = client
            .post(served.url("/decode?view=summary"))
            .body(corpus_file("banner_go_004k.json"))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
    }
    let m = client
        .get(served.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(value(&m, "bidscan_http_connection_limit_reached_total") >= 1.0);
    assert!(value(&m, "bidscan_http_connections") <= cap as f64);
    assert_eq!(
        client
            .get(served.url("/readyz"))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
}
