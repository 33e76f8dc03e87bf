//! Soak: many mixed requests against the real binary; resident memory and the pools' retained bytes must stay
//! flat once warm. `/metrics` is sampled every `every` requests and the curve printed (RELIABILITY.md §4).
//!
//! The mix, by request number: corpus documents plain (most), gzip, strict mode, summary view, NDJSON batches of
//! three, truncated documents (400), and now and then a 5 MB body (413) — each with its expected status.
//!
//! - `short_soak_stays_flat` (debug, 10,000 requests, a few seconds, part of `cargo test`);
//! - `soak_100k` (ignored; `scripts/soak.sh` runs it on the release binary: 100,000 requests).

use crate::common;
use crate::hostile_common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::*;
use hostile_common::{QUIET, env_or, mib, spawn};

/// One sample of the curve.
#[derive(Clone, Copy, Debug)]
struct Point {
    requests: usize,
    seconds: f64,
    rss: f64,
    retained: f64,
    grow: f64,
    shrink: f64,
    drops: f64,
    misses: f64,
}

/// A request of the mix: method path, headers, body, expected status.
struct Case {
    path: &'static str,
    headers: Vec<(&'static str, &'static str)>,
    body: Vec<u8>,
    status: u16,
}

fn mix() -> Vec<Case> {
    let docs = corpus();
    let mut cases = Vec::new();
    for (_, doc) in &docs {
        cases.push(Case {
            path: "/decode",
            headers: vec![],
            body: doc.clone(),
            status: 200,
        });
    }
    for (_, doc) in docs.iter().step_by(3) {
        cases.push(Case {
            path: "/decode",
            headers: vec![("content-encoding", "gzip")],
            body: gzip(doc),
            status: 200,
        });
        cases.push(Case {
            path: "/decode?view=summary",
            headers: vec![],
            body: doc.clone(),
            status: 200,
        });
        let mut cut = doc.clone();
        cut.truncate(doc.len() / 2);
        cases.push(Case {
            path: "/decode",
            headers: vec![],
            body: cut,
            status: 400,
        });
    }
    for (_, doc) in docs.iter().step_by(5) {
        let strict = bidscan_openrtb::decode(
            &mut bidscan_json::Reader::default(),
            &mut doc.clone(),
            bidscan_openrtb::Mode::Strict,
        )
        .map_or(422, |_| 200);
        cases.push(Case {
            path: "/decode?mode=strict",
            headers: vec![],
            body: doc.clone(),
            status: strict,
        });
    }
    let mut batch = Vec::new();
    for (_, doc) in docs.iter().take(3) {
        batch.extend(doc.iter().filter(|&&b| b != b'\n'));
        batch.push(b'\n');
    }
    cases.push(Case {
        path: "/decode/batch",
        headers: vec![("content-type", "application/x-ndjson")],
        body: batch,
        status: 200,
    });
    cases
}

async fn sample_point(
    client: &reqwest::Client,
    base: &str,
    pid: u32,
    requests: usize,
    started: Instant,
) -> Point {
    let text = client
        .get(format!("{base}/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let rss = hostile_common::status_kib(&format!("/proc/{pid}/status"), "VmRSS:") * 1024;
    let v = |s: &str| sample(&text, s).unwrap_or(0.0);
    Point {
        requests,
        seconds: started.elapsed().as_secs_f64(),
        rss: rss as f64,
        retained: v("bidscan_buffer_retained_bytes{buffer=\"input\"}"),
        grow: v("bidscan_buffer_grow_total{buffer=\"input\"}"),
        shrink: v("bidscan_buffer_shrink_total{buffer=\"input\"}"),
        drops: ["too_large", "global_cap", "idle"]
            .iter()
            .map(|r| {
                v(&format!(
                    "bidscan_buffer_drop_total{{buffer=\"input\",reason=\"{r}\"}}"
                ))
            })
            .sum(),
        misses: v("bidscan_pool_checkouts_total{result=\"miss\"}"),
    }
}

/// Runs `total` requests of the mix with `clients` concurrent clients, sampling every `every`; returns the curve.
async fn soak(total: usize, every: usize, clients: usize, env: &[(&str, &str)]) -> Vec<Point> {
    let served = spawn(env);
    let client = crate::common::client_builder()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    let cases = Arc::new(mix());
    let big = bytes::Bytes::from(vec![b' '; 5 * 1024 * 1024]);
    let addr = served.addr;
    let next = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let workers: Vec<_> = (0..clients)
        .map(|_| {
            let (client, cases, big, next, done) = (
                client.clone(),
                cases.clone(),
                big.clone(),
                next.clone(),
                done.clone(),
            );
            let base = served.base.clone();
            tokio::spawn(async move {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= total {
                        return;
                    }
                    if i % 1000 == 999 {
                        // Too large: sent as curl would (hyper's client reports an early answer as an error).
                        let (status, _) =
                            hostile_common::raw_post(addr, "/decode", &[], big.clone(), false)
                                .await
                                .unwrap_or_else(|e| panic!("request {i}: {e}"));
                        assert_eq!(status, 413, "request {i}");
                        done.fetch_add(1, Ordering::Relaxed);
                        continue;
                    }
                    let c = &cases[(i * 7) % cases.len()];
                    let mut req = client
                        .post(format!("{base}{}", c.path))
                        .body(c.body.clone());
                    for (k, v) in &c.headers {
                        req = req.header(*k, *v);
                    }
                    let res = req
                        .send()
                        .await
                        .unwrap_or_else(|e| panic!("request {i}: {e}"));
                    assert_eq!(res.status().as_u16(), c.status, "request {i} {}", c.path);
                    res.bytes().await.unwrap();
                    done.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    let mut curve = vec![sample_point(&client, &served.base, served.pid(), 0, started).await];
    let mut mark = every;
    while done.load(Ordering::Relaxed) < total {
        if done.load(Ordering::Relaxed) >= mark {
            curve.push(
                sample_point(
                    &client,
                    &served.base,
                    served.pid(),
                    done.load(Ordering::Relaxed),
                    started,
                )
                .await,
            );
            mark += every;
        }
        assert!(
            !workers.iter().any(|w| w.is_finished()) || next.load(Ordering::Relaxed) >= total,
            "a worker failed"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    for w in workers {
        w.await.unwrap();
    }
    curve.push(sample_point(&client, &served.base, served.pid(), total, started).await);
    eprintln!(
        "{:>8} {:>7} {:>8} {:>12} {:>6} {:>6} {:>6} {:>6}",
        "requests", "secs", "RSS MiB", "retained MiB", "grow", "shrink", "drop", "miss"
    );
    for p in &curve {
        eprintln!(
            "{:>8} {:>7.1} {:>8.1} {:>12.2} {:>6} {:>6} {:>6} {:>6}",
            p.requests,
            p.seconds,
            mib(p.rss as u64),
            mib(p.retained as u64),
            p.grow,
            p.shrink,
            p.drops,
            p.misses
        );
    }
    curve
}

/// After warm-up (the first `warm` fraction of requests), RSS and retained bytes stay within `slack` of their
/// warm level.
fn assert_flat(curve: &[Point], warm: f64, slack: f64) {
    let total = curve.last().unwrap().requests as f64;
    let after: Vec<&Point> = curve
        .iter()
        .filter(|p| p.requests as f64 >= warm * total)
        .collect();
    let first = after[0];
    let rss_max = after.iter().map(|p| p.rss).fold(0.0, f64::max);
    let retained_max = after.iter().map(|p| p.retained).fold(0.0, f64::max);
    eprintln!(
        "after warm-up: RSS {:.1} → max {:.1} MiB; retained {:.2} → max {:.2} MiB",
        mib(first.rss as u64),
        mib(rss_max as u64),
        mib(first.retained as u64),
        mib(retained_max as u64)
    );
    assert!(
        rss_max - first.rss <= slack,
        "RSS grew {:.1} MiB after warm-up",
        mib((rss_max - first.rss) as u64)
    );
    assert!(
        retained_max - first.retained <= slack.max(4.0 * 1024.0 * 1024.0),
        "retained grew {:.1} MiB after warm-up",
        mib((retained_max - first.retained) as u64)
    );
    assert!(
        retained_max <= 64.0 * 1024.0 * 1024.0,
        "over the global retained cap"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn short_soak_stays_flat() {
    let total = env_or("BIDSCAN_SOAK_REQUESTS", 10_000) as usize;
    let curve = soak(total, total / 10, 4, &[("RUST_LOG", QUIET)]).await;
    assert_flat(&curve, 0.3, 24.0 * 1024.0 * 1024.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "soak: run by scripts/soak.sh (release build, 100,000 requests)"]
async fn soak_100k() {
    let total = env_or("BIDSCAN_SOAK_REQUESTS", 100_000) as usize;
    let every = env_or("BIDSCAN_SOAK_EVERY", 5_000) as usize;
    let curve = soak(
        total,
        every,
        8,
        &[
            ("RUST_LOG", QUIET),
            ("BIDSCAN__SERVER__WORKER_THREADS", "2"),
        ],
    )
    .await;
    assert_flat(&curve, 0.2, 8.0 * 1024.0 * 1024.0);
}
