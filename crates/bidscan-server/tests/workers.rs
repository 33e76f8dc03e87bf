//! The worker threads (`server.worker_threads`, crate::workers): connections are spread over the workers by load,
//! and requests are decoded on the worker threads, each about its share. Observed through the DEBUG event
//! "started processing request" that every request logs on the thread serving it, with thread names on.

mod common;

use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, Mutex};

use common::{config, corpus_file, start, value};

/// Every log line written, shared with the test.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Captured {
    type Writer = Captured;

    fn make_writer(&'a self) -> Captured {
        self.clone()
    }
}

const CONNECTIONS: usize = 16;
const PER_CONNECTION: usize = 25;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_workers_each_decode_their_share_of_requests_over_many_connections() {
    let logs = Captured::default();
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_thread_names(true)
        .with_ansi(false)
        .with_writer(logs.clone())
        .init();
    let mut c = config();
    c.server.worker_threads = 2;
    let server = start(c).await;
    let doc = corpus_file("banner_plain_004k.json");

    // One client per connection, each sending its requests one after the other on its kept-alive connection.
    let mut tasks = Vec::new();
    for _ in 0..CONNECTIONS {
        let url = server.url("/decode?view=summary");
        let doc = doc.clone();
        tasks.push(tokio::spawn(async move {
            let client = crate::common::client_builder()
                .pool_max_idle_per_host(1)
                .build()
                .unwrap();
            for _ in 0..PER_CONNECTION {
                let res = client.post(&url).body(doc.clone()).send().await.unwrap();
                assert_eq!(res.status(), 200);
                let _ = res.bytes().await.unwrap();
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let decoded = value(
        &server.metrics().await,
        "bidscan_http_requests_total{route=\"/decode\",status=\"200\"}",
    );
    assert_eq!(decoded, (CONNECTIONS * PER_CONNECTION) as f64);

    let text = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    let mut per_thread: HashMap<String, usize> = HashMap::new();
    for line in text
        .lines()
        .filter(|l| l.contains("started processing request") && l.contains("/decode?view=summary"))
    {
        let thread = line
            .split_whitespace()
            .find(|w| w.starts_with("bidscan-w"))
            .unwrap_or("another thread")
            .to_owned();
        *per_thread.entry(thread).or_default() += 1;
    }
    let total: usize = per_thread.values().sum();
    assert_eq!(total, CONNECTIONS * PER_CONNECTION, "{per_thread:?}");
    for worker in ["bidscan-w0", "bidscan-w1"] {
        let n = per_thread.get(worker).copied().unwrap_or(0);
        assert!(
            n * 4 >= total,
            "{worker} decoded {n} of {total} requests: {per_thread:?}"
        );
    }
    assert_eq!(
        per_thread.len(),
        2,
        "only the workers serve: {per_thread:?}"
    );
}
