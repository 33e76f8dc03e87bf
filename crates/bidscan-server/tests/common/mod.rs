//! Test helpers: a real server on `127.0.0.1:0`, a reqwest client, the corpus, encoders, metric lookups.
#![allow(dead_code)] // each test binary uses a different subset

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use bidscan_server::Config;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// The bid-response corpus copied into the repository.
pub const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpus/bid-responses");

/// A running server.
pub struct TestServer {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// A client with a generous timeout.
    pub client: reqwest::Client,
    stop: Option<oneshot::Sender<()>>,
    /// The server task; resolves when `serve` returns.
    pub task: Option<JoinHandle<anyhow::Result<()>>>,
}

/// The compiled-in default config, on an ephemeral loopback port.
pub fn config() -> Config {
    let mut c = Config::default_config().expect("default config");
    c.server.listen = "127.0.0.1:0".parse().unwrap();
    c
}

/// A reqwest client builder. reqwest is built with rustls but without a crypto provider of its own (its default,
/// aws-lc-rs, carries the OpenSSL licence `deny.toml` does not allow), so ring, the server's provider, is
/// installed as the process default first: every reqwest client of the tests is made here.
pub fn client_builder() -> reqwest::ClientBuilder {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
}

/// Starts a server with `config` on an ephemeral port.
pub async fn start(config: Config) -> TestServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(bidscan_server::serve(config, listener, async move {
        let _ = stopped.await;
    }));
    TestServer {
        base: format!("http://{addr}"),
        client: client_builder()
            .timeout(Duration::from_secs(60))
            .build()
            .unwrap(),
        stop: Some(stop),
        task: Some(task),
    }
}

impl TestServer {
    /// `base` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// POSTs `body` to `path` with `headers`.
    pub async fn post(
        &self,
        path: &str,
        headers: &[(&str, &str)],
        body: Vec<u8>,
    ) -> reqwest::Response {
        let mut req = self.client.post(self.url(path)).body(body);
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        req.send().await.expect("request")
    }

    /// GETs `path` and returns status and body text.
    pub async fn get_text(&self, path: &str) -> (u16, String) {
        let res = self
            .client
            .get(self.url(path))
            .send()
            .await
            .expect("request");
        let status = res.status().as_u16();
        (status, res.text().await.unwrap())
    }

    /// The /metrics text.
    pub async fn metrics(&self) -> String {
        let (status, text) = self.get_text("/metrics").await;
        assert_eq!(status, 200);
        text
    }

    /// Sends the shutdown signal (begins draining).
    pub fn begin_shutdown(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// Reads a JSON response: status and parsed body.
pub async fn json(res: reqwest::Response) -> (u16, serde_json::Value) {
    let status = res.status().as_u16();
    let bytes = res.bytes().await.expect("body");
    let value = serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&bytes)));
    (status, value)
}

/// Every `*.json` file of the corpus, sorted, with its bytes.
pub fn corpus() -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(CORPUS)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "corpus missing: {}", files.len());
    files
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

/// One corpus file's bytes.
pub fn corpus_file(name: &str) -> Vec<u8> {
    std::fs::read(format!("{CORPUS}/{name}")).unwrap()
}

/// Bid count of a document, computed independently with serde_json.
pub fn expected_bids(doc: &[u8]) -> usize {
    let v: serde_json::Value = serde_json::from_slice(doc).unwrap();
    v.get("seatbid")
        .and_then(|s| s.as_array())
        .map_or(0, |seats| {
            seats
                .iter()
                .map(|s| s.get("bid").and_then(|b| b.as_array()).map_or(0, Vec::len))
                .sum()
        })
}

/// gzip of `data`.
pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// zlib ("deflate" in HTTP) of `data`.
pub fn deflate(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// brotli of `data`.
pub fn brotli(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut w = brotli::CompressorWriter::new(&mut out, 4096, 5, 22);
        w.write_all(data).unwrap();
    }
    out
}

/// zstd of `data`.
pub fn zstd(data: &[u8]) -> Vec<u8> {
    zstd::encode_all(data, 3).unwrap()
}

/// The value of the sample `series` (name with labels exactly as exposed, e.g.
/// `bidscan_buffer_grow_total{buffer="input"}`), or `None`.
pub fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines().filter(|l| !l.starts_with('#')).find_map(|l| {
        l.strip_prefix(series)?
            .strip_prefix(' ')?
            .trim()
            .parse()
            .ok()
    })
}

/// Like [`sample`], panicking when absent.
pub fn value(text: &str, series: &str) -> f64 {
    sample(text, series).unwrap_or_else(|| panic!("{series} not in /metrics"))
}
