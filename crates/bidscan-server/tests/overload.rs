//! Overload: offered load at twice capacity. Requests past `server.max_concurrency` are shed at once with 503 and
//! `Retry-After` (never queued); admitted requests keep a bounded latency; memory stays bounded; when the load
//! stops the service answers normally again.
//!
//! - `twice_capacity_is_shed_quickly_and_the_service_recovers` (in process, a few seconds): capacity is made
//!   exact — 4 permits, and every request's body arrives in two parts 50 ms apart, so each admitted request
//!   holds a permit ≥ 50 ms: capacity 80 requests/s, offered 160/s.
//! - `overload_figures` (ignored; `scripts/overload.sh` runs it on the release binary): real decoding of the
//!   corpus, CPU-bound; measures capacity, offers twice it, prints the figures of RELIABILITY.md §3.

mod common;
mod hostile_common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use common::*;
use hostile_common::{QUIET, env_or, mib, ms, paced, percentile};

/// What an open-loop run saw.
#[derive(Debug, Default)]
struct Outcomes {
    ok: Vec<Duration>,
    shed: Vec<Duration>,
    other: Vec<(String, Duration)>,
    missing_retry_after: usize,
    /// Scheduled requests not sent because the client already had `max_in_flight` outstanding.
    not_sent: usize,
}

impl Outcomes {
    fn total(&self) -> usize {
        self.ok.len() + self.shed.len() + self.other.len()
    }

    fn print(&mut self, label: &str, seconds: f64) {
        eprintln!(
            "{label}: {} sent ({:.0}/s, {} more not sent: client at its in-flight cap), {} ok ({:.0}/s) p50 {:.1} ms p99 {:.1} ms max {:.1} ms, {} shed (503) p50 {:.1} ms p99 {:.1} ms, {} other",
            self.total(),
            self.total() as f64 / seconds,
            self.not_sent,
            self.ok.len(),
            self.ok.len() as f64 / seconds,
            ms(percentile(&mut self.ok, 50.0)),
            ms(percentile(&mut self.ok, 99.0)),
            ms(percentile(&mut self.ok, 100.0)),
            self.shed.len(),
            ms(percentile(&mut self.shed, 50.0)),
            ms(percentile(&mut self.shed, 99.0)),
            self.other.len(),
        );
        let mut kinds: std::collections::BTreeMap<&str, usize> = Default::default();
        for (kind, _) in &self.other {
            *kinds.entry(kind.as_str()).or_default() += 1;
        }
        if !kinds.is_empty() {
            eprintln!("{label}: other outcomes: {kinds:?}");
        }
    }
}

/// Sends `rate` requests per second for `duration`, each at its scheduled time whatever the answers (open
/// loop), made by `body(i)`, with at most `max_in_flight` outstanding (as a proxy's connection limit would;
/// a request due while at the cap is counted as not sent); waits for all answers.
async fn open_loop(
    client: &reqwest::Client,
    url: &str,
    rate: f64,
    duration: Duration,
    max_in_flight: usize,
    body: Arc<dyn Fn(usize) -> reqwest::Body + Send + Sync>,
) -> Outcomes {
    let n = (rate * duration.as_secs_f64()) as usize;
    let start = tokio::time::Instant::now();
    let cap = Arc::new(tokio::sync::Semaphore::new(max_in_flight));
    let mut tasks = Vec::with_capacity(n);
    let mut not_sent = 0;
    for i in 0..n {
        tokio::time::sleep_until(start + Duration::from_secs_f64(i as f64 / rate)).await;
        let Ok(permit) = cap.clone().try_acquire_owned() else {
            not_sent += 1;
            continue;
        };
        let req = client.post(url).body(body(i));
        tasks.push(tokio::spawn(async move {
            let _permit = permit;
            let t = Instant::now();
            match req.send().await {
                Ok(res) => {
                    let status = res.status().as_u16();
                    let retry = res.headers().contains_key("retry-after");
                    let ok = res.bytes().await.is_ok();
                    (
                        if ok { status } else { 0 },
                        retry,
                        t.elapsed(),
                        String::new(),
                    )
                }
                Err(e) => (0, false, t.elapsed(), error_kind(&e).to_owned()),
            }
        }));
    }
    let mut out = Outcomes {
        not_sent,
        ..Outcomes::default()
    };
    for task in tasks {
        let (status, retry, took, error) = task.await.unwrap();
        match status {
            200 => out.ok.push(took),
            503 => {
                out.shed.push(took);
                out.missing_retry_after += usize::from(!retry);
            }
            s => out.other.push((format!("{s} {error}"), took)),
        }
    }
    out
}

/// A short name for a client error.
fn error_kind(e: &reqwest::Error) -> &'static str {
    if e.is_timeout() {
        "timeout"
    } else if e.is_connect() {
        "connect"
    } else if e.is_body() || e.is_decode() {
        "body"
    } else {
        "request"
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twice_capacity_is_shed_quickly_and_the_service_recovers() {
    let mut c = config();
    c.server.max_concurrency = 4;
    let server = start(c).await;
    let url = server.url("/decode?view=summary");
    let doc = Bytes::from(corpus_file("banner_go_004k.json"));
    let gap = Duration::from_millis(50);
    let capacity = 4.0 / gap.as_secs_f64(); // 80 requests/s
    let body = {
        let doc = doc.clone();
        Arc::new(move |_| paced(doc.clone(), gap))
    };
    hostile_common::reset_self_peak();
    let base = hostile_common::self_rss();
    let seconds = 3.0;
    let mut out = open_loop(
        &server.client,
        &url,
        2.0 * capacity,
        Duration::from_secs_f64(seconds),
        usize::MAX >> 4,
        body,
    )
    .await;
    out.print("2x capacity (in process)", seconds);
    let grew = hostile_common::self_peak_rss().saturating_sub(base);
    eprintln!("peak RSS grew {:.1} MiB", mib(grew));

    assert!(
        out.other.is_empty(),
        "only 200 or 503: {:?}",
        &out.other[..out.other.len().min(5)]
    );
    assert_eq!(out.missing_retry_after, 0, "every 503 has Retry-After");
    let total = out.total() as f64;
    assert!(
        out.shed.len() as f64 > 0.2 * total,
        "shed {} of {total}",
        out.shed.len()
    );
    assert!(
        out.ok.len() as f64 > 0.2 * total,
        "admitted {} of {total}",
        out.ok.len()
    );
    // Admitted requests are not slowed by the excess: about the 50 ms their body takes.
    let p99 = percentile(&mut out.ok, 99.0);
    assert!(p99 < Duration::from_millis(1_000), "admitted p99 {p99:?}");
    // Shedding is immediate: no queue. (A shed request still sends its head; it is answered before its body.)
    let shed_p99 = percentile(&mut out.shed, 99.0);
    assert!(
        shed_p99 < Duration::from_millis(500),
        "503 p99 {shed_p99:?}"
    );
    assert!(
        grew < 64 * 1024 * 1024,
        "peak RSS grew {:.1} MiB",
        mib(grew)
    );

    // Load stops: the service is back at once.
    for _ in 0..20 {
        let res = server.post("/decode?view=summary", &[], doc.to_vec()).await;
        assert_eq!(res.status(), 200);
    }
    assert_eq!(server.get_text("/readyz").await.0, 200);
}

/// The real binary (release under `scripts/overload.sh`), CPU-bound decoding of the VAST documents of the
/// corpus (full view: the answer re-escapes the whole `adm`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "load test: run by scripts/overload.sh (release build)"]
async fn overload_figures() {
    let permits = env_or("BIDSCAN_OVERLOAD_PERMITS", 4);
    let seconds = env_or("BIDSCAN_OVERLOAD_SECONDS", 10) as f64;
    let cap = env_or("BIDSCAN_OVERLOAD_MAX_IN_FLIGHT", 64) as usize;
    let served = hostile_common::spawn(&[
        ("BIDSCAN__SERVER__MAX_CONCURRENCY", &permits.to_string()),
        ("BIDSCAN__SERVER__WORKER_THREADS", "1"),
        ("RUST_LOG", QUIET),
    ]);
    let client = crate::common::client_builder()
        .timeout(Duration::from_secs(30))
        .pool_max_idle_per_host(4096)
        .build()
        .unwrap();
    let url = served.url("/decode");
    let docs: Arc<Vec<Bytes>> = Arc::new(
        corpus()
            .into_iter()
            .filter(|(name, _)| name.starts_with("vast_"))
            .map(|(_, d)| Bytes::from(d))
            .collect(),
    );
    let body = {
        let docs = docs.clone();
        Arc::new(move |i: usize| reqwest::Body::from(docs[i % docs.len()].clone()))
    };

    // Capacity: `permits` clients back to back for 5 s.
    let measure = Duration::from_secs(5);
    let t = Instant::now();
    let done = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let workers: Vec<_> = (0..permits)
        .map(|w| {
            let (client, url, docs, done) =
                (client.clone(), url.clone(), docs.clone(), done.clone());
            tokio::spawn(async move {
                let mut i = w as usize;
                while t.elapsed() < measure {
                    let res = client
                        .post(&url)
                        .body(docs[i % docs.len()].clone())
                        .send()
                        .await
                        .unwrap();
                    assert_eq!(res.status(), 200);
                    res.bytes().await.unwrap();
                    done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    i += permits as usize;
                }
            })
        })
        .collect();
    futures_util::future::join_all(workers).await;
    let capacity =
        done.load(std::sync::atomic::Ordering::Relaxed) as f64 / t.elapsed().as_secs_f64();
    let rss_idle = served.rss();
    eprintln!(
        "capacity: {capacity:.0} requests/s ({permits} permits, 1 worker thread, VAST documents, full view); RSS {:.1} MiB",
        mib(rss_idle)
    );

    // Twice capacity, open loop, at most `cap` requests outstanding (a proxy's connection limit).
    let mut out = open_loop(
        &client,
        &url,
        2.0 * capacity,
        Duration::from_secs_f64(seconds),
        cap,
        body.clone(),
    )
    .await;
    out.print(&format!("2x capacity, client in-flight cap {cap}"), seconds);
    eprintln!(
        "RSS after {:.1} MiB, peak so far {:.1} MiB",
        mib(served.rss()),
        mib(served.peak_rss())
    );

    // Load stops: a quarter of capacity for 5 s.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let mut after = open_loop(
        &client,
        &url,
        0.25 * capacity,
        Duration::from_secs(5),
        cap,
        body.clone(),
    )
    .await;
    after.print("recovery at 0.25x capacity", 5.0);
    let capped_peak = served.peak_rss();

    // The same offered load with no cap at the client: every late request opens another connection.
    let mut flood = open_loop(
        &client,
        &url,
        2.0 * capacity,
        Duration::from_secs_f64(seconds),
        tokio::sync::Semaphore::MAX_PERMITS,
        body,
    )
    .await;
    flood.print("2x capacity, no client cap (connection flood)", seconds);
    eprintln!(
        "RSS after the flood {:.1} MiB, peak {:.1} MiB (peak before the flood {:.1} MiB)",
        mib(served.rss()),
        mib(served.peak_rss()),
        mib(capped_peak)
    );
    let ready = client.get(served.url("/readyz")).send().await.unwrap();
    assert_eq!(ready.status(), 200);
    drop(client);
    tokio::time::sleep(Duration::from_secs(3)).await;
    eprintln!(
        "RSS 3 s after the flood, client connections closed: {:.1} MiB",
        mib(served.rss())
    );

    // The only other outcome tolerated: hyper's client reporting a 503 sent before the body was read as
    // `IncompleteMessage`, for a small share of the shed requests. The lingering close prevents it (RELIABILITY.md
    // F3); kept as a tolerance because a load generator starved of CPU may outlast the linger time.
    assert!(
        out.other.iter().all(|(kind, _)| kind == "0 request")
            && out.other.len() * 20 < out.shed.len(),
        "{:?}",
        &out.other[..out.other.len().min(5)]
    );
    assert_eq!(out.missing_retry_after, 0);
    assert!(!out.shed.is_empty(), "2x capacity shed nothing");
    assert!(
        after.other.is_empty(),
        "not recovered: {:?}",
        &after.other[..after.other.len().min(5)]
    );
    assert!(
        (after.shed.len() as f64) < 0.05 * after.total() as f64,
        "not recovered: {} of {} shed",
        after.shed.len(),
        after.total()
    );
}
