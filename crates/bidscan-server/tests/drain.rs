//! Graceful drain of the real binary: `bidscan serve` as a child process, sustained load, SIGTERM.
//!
//! Clients here ignore readiness (the worst case: a load balancer that never looks), each request on a fresh
//! connection, each body paced over 200 ms so requests are always in flight. What must hold:
//! - `/readyz` answers 503 at once after SIGTERM, while decode requests still succeed;
//! - the listener stays open for `server.drain_grace_secs`, then closes (new connections are refused);
//! - no request that the server accepted fails: every request started before the listener closed is answered
//!   200 — including those still in flight when it closed;
//! - the process exits 0, before `server.drain_timeout_secs`.
//!
//! `BIDSCAN_DRAIN_CLIENTS` (default 8) sets the load; `scripts/drain.sh` runs it with the release binary.

use crate::common;
use crate::hostile_common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use common::corpus_file;
use hostile_common::{env_or, paced, spawn};

/// One request as the client saw it.
#[derive(Debug)]
struct Sent {
    started: Instant,
    finished: Instant,
    /// HTTP status, or None on a transport error.
    status: Option<u16>,
    /// The connection was refused (the listener is closed): the server never accepted this request.
    refused: bool,
    error: String,
}

/// Whether `e` (or its sources) is a refused connection.
fn is_refused(e: &reqwest::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::ConnectionRefused
        {
            return true;
        }
        source = s.source();
    }
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_under_load_loses_no_accepted_request() {
    let grace = Duration::from_secs(1);
    let mut served = spawn(&[
        ("BIDSCAN__SERVER__DRAIN_GRACE_SECS", "1"),
        ("BIDSCAN__SERVER__DRAIN_TIMEOUT_SECS", "10"),
        ("BIDSCAN__SERVER__MAX_CONCURRENCY", "256"),
    ]);
    let clients = env_or("BIDSCAN_DRAIN_CLIENTS", 8) as usize;
    let client = crate::common::client_builder()
        .timeout(Duration::from_secs(15))
        .pool_max_idle_per_host(0) // a fresh connection per request
        .build()
        .unwrap();
    let url = served.url("/decode?view=summary");
    let doc = Bytes::from(corpus_file("vast_020k.json"));
    let log: Arc<Mutex<Vec<Sent>>> = Arc::new(Mutex::new(Vec::new()));
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));

    let load: Vec<_> = (0..clients)
        .map(|c| {
            let (client, url, doc, log, stop) = (
                client.clone(),
                url.clone(),
                doc.clone(),
                log.clone(),
                stop.clone(),
            );
            // Staggered starts, so requests begin and end at every moment of the drain.
            let offset = Duration::from_millis((200 * c / clients) as u64);
            tokio::spawn(async move {
                tokio::time::sleep(offset).await;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let started = Instant::now();
                    let result = client
                        .post(&url)
                        .body(paced(doc.clone(), Duration::from_millis(200)))
                        .send()
                        .await;
                    let (status, refused, error) = match result {
                        Ok(res) => {
                            let status = res.status().as_u16();
                            match res.bytes().await {
                                Ok(_) => (Some(status), false, String::new()),
                                Err(e) => (None, false, format!("body: {e}")),
                            }
                        }
                        Err(e) => (None, is_refused(&e), format!("{e:?}")),
                    };
                    let refused_now = refused;
                    log.lock().unwrap().push(Sent {
                        started,
                        finished: Instant::now(),
                        status,
                        refused,
                        error,
                    });
                    if refused_now {
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                }
            })
        })
        .collect();

    // Readiness, polled every 10 ms on its own connections.
    let ready_client = crate::common::client_builder()
        .timeout(Duration::from_secs(2))
        .build()
        .unwrap();
    let ready_url = served.url("/readyz");
    let first_503: Arc<Mutex<Option<Instant>>> = Arc::new(Mutex::new(None));
    let poller = {
        let (first_503, stop) = (first_503.clone(), stop.clone());
        tokio::spawn(async move {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                if let Ok(res) = ready_client.get(&ready_url).send().await
                    && res.status() == 503
                {
                    // The draining 503 carries `Retry-After` like any other.
                    assert!(
                        res.headers().contains_key("retry-after"),
                        "{:?}",
                        res.headers()
                    );
                    first_503.lock().unwrap().get_or_insert_with(Instant::now);
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
    };

    tokio::time::sleep(Duration::from_secs(2)).await; // sustained load before the signal
    let sigterm = Instant::now();
    served.sigterm();
    let status = tokio::task::spawn_blocking(move || {
        let status = served.wait_exit(Duration::from_secs(15));
        (status, served)
    });
    let (exit, served) = status.await.unwrap();
    let exited = Instant::now();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    futures_util::future::join_all(load).await;
    poller.await.unwrap();

    let exit = exit.unwrap_or_else(|| panic!("did not exit within 15 s: {:?}", served.logs()));
    assert!(exit.success(), "exit {exit:?}");
    let log = log.lock().unwrap();
    let first_503 = first_503.lock().unwrap().expect("readiness never said 503");
    let first_refused = log.iter().filter(|s| s.refused).map(|s| s.started).min();
    let before_signal = log.iter().filter(|s| s.started < sigterm).count();
    let ok_after_signal = log
        .iter()
        .filter(|s| s.started >= sigterm && s.status == Some(200))
        .count();
    let in_flight_at_signal = log
        .iter()
        .filter(|s| s.started < sigterm && s.finished > sigterm)
        .count();
    let refused = log.iter().filter(|s| s.refused).count();
    let closed_at = first_refused.unwrap_or(exited);
    let in_flight_at_close = log
        .iter()
        .filter(|s| s.started < closed_at && s.finished > closed_at && s.status == Some(200))
        .count();
    eprintln!(
        "drain: {} requests ({before_signal} before SIGTERM, {in_flight_at_signal} in flight at it); readiness 503 after {:?}; \
         {ok_after_signal} answered 200 after SIGTERM; listener closed after {:?} ({in_flight_at_close} requests in flight then, all 200); \
         {refused} refused connections after close; exit after {:?}",
        log.len(),
        first_503 - sigterm,
        closed_at - sigterm,
        exited - sigterm,
    );

    // Readiness first: 503 right away, while the listener is still open and requests still succeed.
    assert!(
        first_503 - sigterm < Duration::from_millis(500),
        "{:?}",
        first_503 - sigterm
    );
    assert!(first_503 < closed_at);
    assert!(
        ok_after_signal > 0,
        "requests kept being served during the grace period"
    );
    assert!(
        closed_at - sigterm >= grace - Duration::from_millis(100),
        "{:?}",
        closed_at - sigterm
    );
    assert!(in_flight_at_signal > 0, "the load was not sustained");
    // Nothing accepted is lost: every request that is not a refused connection was answered 200.
    let failed: Vec<&Sent> = log
        .iter()
        .filter(|s| !s.refused && s.status != Some(200))
        .collect();
    assert!(
        failed.is_empty(),
        "{} failed: {:?}",
        failed.len(),
        failed
            .iter()
            .take(5)
            .map(|s| (s.started - sigterm, s.status, &s.error))
            .collect::<Vec<_>>()
    );
    assert!(exited - sigterm < Duration::from_secs(10));
}

/// A second SIGTERM during the drain ends the process at once with status 143 (128 + SIGTERM), even with a
/// request in flight that would hold the drain for its whole `server.drain_timeout_secs`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_sigterm_exits_at_once() {
    use tokio::io::AsyncWriteExt;
    let mut served = spawn(&[
        ("BIDSCAN__SERVER__DRAIN_GRACE_SECS", "0"),
        ("BIDSCAN__SERVER__DRAIN_TIMEOUT_SECS", "60"),
        ("BIDSCAN__SERVER__REQUEST_TIMEOUT_SECS", "60"),
    ]);
    let addr = served.addr;
    // A request whose body never completes: the drain waits for it.
    let mut stuck = tokio::net::TcpStream::connect(&addr).await.unwrap();
    stuck
        .write_all(b"POST /decode HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{\"id\":")
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    served.sigterm();
    let (exit, mut served) = tokio::task::spawn_blocking(move || {
        let exit = served.wait_exit(Duration::from_secs(2));
        (exit, served)
    })
    .await
    .unwrap();
    assert!(exit.is_none(), "one SIGTERM drains: {exit:?}");
    let second = Instant::now();
    served.sigterm();
    let exit = served
        .wait_exit(Duration::from_secs(5))
        .unwrap_or_else(|| panic!("did not exit after a second SIGTERM: {:?}", served.logs()));
    assert_eq!(exit.code(), Some(143), "{exit:?}");
    assert!(second.elapsed() < Duration::from_secs(5));
    // The log line is written before the exit; its reader thread may still be on its way.
    let logged = |s: &hostile_common::Served| {
        s.logs()
            .iter()
            .any(|l| l.contains("second shutdown signal"))
    };
    for _ in 0..50 {
        if logged(&served) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(logged(&served), "{:?}", served.logs());
    drop(stuck);
}

/// A connection that has sent nothing when the drain begins does not hold it: the process exits at the end of
/// the grace, not at `server.drain_timeout_secs` (a pre-opened connection, as load
/// balancers keep, must not make every stop take the whole drain deadline).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_that_sent_nothing_does_not_hold_the_drain() {
    let mut served = spawn(&[
        ("BIDSCAN__SERVER__DRAIN_GRACE_SECS", "0"),
        ("BIDSCAN__SERVER__DRAIN_TIMEOUT_SECS", "30"),
    ]);
    let silent = tokio::net::TcpStream::connect(&served.addr).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let sigterm = Instant::now();
    served.sigterm();
    let exit = tokio::task::spawn_blocking(move || served.wait_exit(Duration::from_secs(10)))
        .await
        .unwrap()
        .expect("the drain waited for a connection that sent nothing");
    assert_eq!(exit.code(), Some(0), "{exit:?}");
    assert!(
        sigterm.elapsed() < Duration::from_secs(5),
        "{:?}",
        sigterm.elapsed()
    );
    drop(silent);
}
