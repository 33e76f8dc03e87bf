//! Hostile bodies that try to make the server use memory: a gzip bomb, a 50 MB `adm`, a million tiny bids.
//! The server runs in this process (`127.0.0.1:0`), so its memory is this process's: each test resets the peak
//! RSS (`/proc/self/clear_refs`), sends its request, and bounds the growth of the peak (`VmHWM`). The tests of
//! this file run one at a time (a lock), so one test's peak is not another's.

mod common;
mod hostile_common;

use std::io::Write;

use common::*;
use hostile_common::{mib, reset_self_peak, self_peak_rss, self_rss};
use serde_json::Value;

static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const MIB: usize = 1024 * 1024;

/// Status and JSON of a POST sent with [`hostile_common::raw_post`] (reads an early answer, as curl does).
async fn raw_json(
    addr: std::net::SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
    body: impl Into<bytes::Bytes>,
    chunked: bool,
) -> (u16, Value) {
    let (code, body) = hostile_common::raw_post(addr, path, headers, body.into(), chunked)
        .await
        .unwrap_or_else(|e| panic!("{path}: no answer: {e}"));
    let v = serde_json::from_slice(&body)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&body)));
    (code, v)
}

/// Peak RSS growth (bytes) over `base`, the RSS before the request.
fn growth(base: u64) -> u64 {
    self_peak_rss().saturating_sub(base)
}

/// `len` bytes of spaces — a valid bid response (blank is a no-bid), compressed 1000:1 by gzip.
fn gzip_spaces(len: usize) -> Vec<u8> {
    let block = vec![b' '; MIB];
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    for _ in 0..len / MIB {
        e.write_all(&block).unwrap();
    }
    e.finish().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gzip_bomb_of_1_gb_is_413_with_bounded_memory() {
    let _one = ONE_AT_A_TIME.lock().await;
    let server = start(config()).await;
    let bomb = gzip_spaces(1024 * MIB);
    assert!(bomb.len() < 1100 * 1024, "bomb is {} bytes", bomb.len());
    let zstd_bomb = zstd::encode_all(&vec![b' '; 64 * MIB][..], 19).unwrap();
    reset_self_peak();
    let base = self_rss();
    let addr = server.base.trim_start_matches("http://").parse().unwrap();
    for (encoding, body) in [("gzip", bomb), ("zstd", zstd_bomb)] {
        let started = std::time::Instant::now();
        let (code, v) = raw_json(
            addr,
            "/decode",
            &[("content-encoding", encoding)],
            body,
            false,
        )
        .await;
        assert_eq!(code, 413, "{encoding}: {v}");
        assert_eq!(v["error"]["code"], "payload_too_large");
        assert!(
            started.elapsed().as_secs() < 10,
            "{encoding}: {:?}",
            started.elapsed()
        );
    }
    let grew = growth(base);
    eprintln!(
        "gzip bomb: peak RSS grew {:.1} MiB (peak {:.1} MiB)",
        mib(grew),
        mib(self_peak_rss())
    );
    assert!(grew < 64 * MIB as u64, "peak RSS grew {:.1} MiB", mib(grew));
    // The refusal is counted, and nothing is retained beyond the limit.
    let m = server.metrics().await;
    assert_eq!(
        value(
            &m,
            "bidscan_decode_outcomes_total{encoding=\"json\",outcome=\"too_large\"}"
        ),
        2.0
    );
}

/// A bid response whose one bid has an `adm` of `len` bytes of HTML with an escaped quote every 64 bytes.
fn big_adm(len: usize) -> Vec<u8> {
    let mut doc =
        br#"{"id":"r","seatbid":[{"bid":[{"id":"b","impid":"1","price":1.5,"crid":"c","adm":""#
            .to_vec();
    let chunk = br#"<div class=\"ad\">0123456789012345678901234567890123456789012</div>"#;
    while doc.len() < len {
        doc.extend_from_slice(chunk);
    }
    doc.extend_from_slice(br#""}]}]}"#);
    doc
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_megabyte_adm_is_413_by_default_and_decodes_with_a_raised_limit() {
    let _one = ONE_AT_A_TIME.lock().await;
    let doc = big_adm(50 * MIB);
    let server = start(config()).await;
    let addr = server.base.trim_start_matches("http://").parse().unwrap();
    let body = bytes::Bytes::from(doc.clone()); // made before the peak is reset: the client's copy is not the server's
    reset_self_peak();
    let base = self_rss();
    for chunked in [false, true] {
        let (code, v) = raw_json(addr, "/decode", &[], body.clone(), chunked).await;
        assert_eq!(code, 413, "chunked {chunked}: {v}");
        assert_eq!(v["error"]["code"], "payload_too_large");
    }
    let refused = growth(base);
    eprintln!(
        "50 MB adm at the default limit: peak RSS grew {:.1} MiB",
        mib(refused)
    );
    assert!(refused < 32 * MIB as u64, "{:.1} MiB", mib(refused));
    drop(server);

    let mut raised = config();
    raised.server.max_body_bytes = 64 * MIB;
    let server = start(raised).await;
    let body = doc.clone();
    reset_self_peak();
    let base = self_rss();
    let (code, v) = json(server.post("/decode?view=summary", &[], body).await).await;
    assert_eq!(code, 200, "{v}");
    let bid = &v["summary"]["bids"][0];
    let adm_bytes = bid["adm"]["bytes"]
        .as_u64()
        .unwrap_or_else(|| panic!("{bid}"));
    assert!(adm_bytes > 48_000_000, "{bid}"); // 50 MiB of JSON text, less its escapes
    assert_eq!(v["stats"]["bytes"], doc.len());
    let grew = growth(base);
    eprintln!(
        "50 MB adm with a 64 MiB limit: peak RSS grew {:.1} MiB",
        mib(grew)
    );
    // The body's frames plus the pooled input buffer (one copy each), plus slack: about 2x the body.
    assert!(grew < 3 * 52 * MIB as u64, "{:.1} MiB", mib(grew));
    // A buffer grown past pool.max_retained_bytes (4 MiB) is dropped after use, not kept.
    let m = server.metrics().await;
    assert_eq!(
        value(
            &m,
            "bidscan_buffer_drop_total{buffer=\"input\",reason=\"too_large\"}"
        ),
        1.0
    );
    assert!(value(&m, "bidscan_buffer_retained_bytes{buffer=\"input\"}") <= (4 * MIB) as f64);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_million_tiny_bids_are_refused_early_with_bounded_memory() {
    let _one = ONE_AT_A_TIME.lock().await;
    let bid = r#"{"id":"1","impid":"1","price":1}"#;
    let mut doc = String::from(r#"{"id":"r","seatbid":[{"bid":["#);
    doc.push_str(&vec![bid; 1_000_000].join(","));
    doc.push_str("]}]}");
    let mut raised = config();
    raised.server.max_body_bytes = 64 * MIB;
    let server = start(raised).await;
    let body = doc.clone().into_bytes();
    reset_self_peak();
    let base = self_rss();
    let started = std::time::Instant::now();
    let (code, v) = json(server.post("/decode", &[], body).await).await;
    let took = started.elapsed();
    assert_eq!(code, 422, "{v}");
    assert_eq!(v["error"]["code"], "not_a_bid_response");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.contains("10000 seat bids and bids"), "{message}");
    let grew = growth(base);
    eprintln!(
        "1,000,000 bids ({} MB): {} in {took:?}, peak RSS grew {:.1} MiB",
        doc.len() / 1_000_000,
        code,
        mib(grew)
    );
    // The body twice (frames + pooled buffer) and the first 10,000 bids: nothing proportional to a million.
    assert!(
        grew < (2 * doc.len() + 32 * MIB) as u64,
        "{:.1} MiB",
        mib(grew)
    );

    // At the default limit, 4 MiB of `{}` bids (1.4 million) is refused the same way.
    let empties = format!(
        r#"{{"seatbid":[{{"bid":[{}]}}]}}"#,
        vec!["{}"; 1_390_000].join(",")
    );
    assert!(empties.len() < 4 * MIB);
    let (code, v) = json(server.post("/decode", &[], empties.into_bytes()).await).await;
    assert_eq!(code, 422, "{v}");
    let v: &Value = &v;
    assert_eq!(v["error"]["code"], "not_a_bid_response");
}

/// A small gzip batch that inflates far past `server.max_batch_bytes` is answered for the
/// lines before the limit, then one `too_large` error line ends the stream: the answer stays proportional to
/// the limit, not to what the body inflates to (97 KB of gzip could give 841 MB of answer lines).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_that_inflates_past_the_batch_limit_ends_with_an_error_line() {
    let _one = ONE_AT_A_TIME.lock().await;
    let mut small = config();
    small.server.max_batch_bytes = 256 * 1024;
    let server = start(small).await;
    // 16 MiB of `{}` lines (5.6 M lines), about 16 KB compressed: under the wire limit, 64× over it inflated.
    let lines = b"{}\n".repeat(16 * MIB / 3);
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(&lines).unwrap();
    let packed = e.finish().unwrap();
    assert!(packed.len() < 256 * 1024, "{} bytes packed", packed.len());
    for route in ["/decode/batch", "/validate/batch"] {
        let res = server
            .post(
                route,
                &[
                    ("content-encoding", "gzip"),
                    ("content-type", "application/x-ndjson"),
                ],
                packed.clone(),
            )
            .await;
        assert_eq!(res.status(), 200, "{route}");
        let answer = res.bytes().await.unwrap();
        let text = std::str::from_utf8(&answer).unwrap();
        let out: Vec<&str> = text.lines().collect();
        // At most one answer per input line received within the limit, then the error line.
        assert!(
            out.len() <= 256 * 1024 / 3 + 1,
            "{route}: {} lines",
            out.len()
        );
        assert!(answer.len() < 64 * MIB, "{route}: {} bytes", answer.len());
        let last: Value = serde_json::from_str(out.last().unwrap()).unwrap();
        assert_eq!(
            last["error"]["code"], "payload_too_large",
            "{route}: {last}"
        );
        assert!(
            last["error"]["message"]
                .as_str()
                .unwrap()
                .contains("decompressed batch"),
            "{route}: {last}"
        );
        assert!(
            out.len() > 1000,
            "{route}: the lines before the limit are answered"
        );
    }
    let m = server.metrics().await;
    assert!(
        value(
            &m,
            "bidscan_decode_outcomes_total{encoding=\"json\",outcome=\"too_large\"}"
        ) >= 2.0
    );
}

/// An empty line is 1 byte in and a whole no-bid answer out, so a batch is held to `server.max_batch_lines`
/// answered lines; then one `payload_too_large` line ends the stream.
#[tokio::test]
async fn a_batch_of_newlines_is_held_to_the_line_bound() {
    let _one = ONE_AT_A_TIME.lock().await;
    let mut small = config();
    small.server.max_batch_lines = 1000;
    let server = start(small).await;
    // 1 MiB of newlines: with no line bound the answer was 272 MiB.
    let newlines = vec![b'\n'; MIB];
    // A batch answered before its body was read to the end closes its connection after the answer; a client
    // reusing it could send the next request into that close, so each request here has a connection of its own.
    let fresh = crate::common::client_builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    for route in ["/decode/batch", "/validate/batch"] {
        let res = fresh
            .post(server.url(route))
            .header("content-type", "application/x-ndjson")
            .body(newlines.clone())
            .send()
            .await
            .expect("request");
        assert_eq!(res.status(), 200, "{route}");
        let answer = res.bytes().await.unwrap();
        let text = std::str::from_utf8(&answer).unwrap();
        let out: Vec<&str> = text.lines().collect();
        assert_eq!(out.len(), 1001, "{route}: 1,000 answers and the error line");
        assert!(answer.len() < MIB, "{route}: {} bytes", answer.len());
        let last: Value = serde_json::from_str(out.last().unwrap()).unwrap();
        assert_eq!(
            last["error"]["code"], "payload_too_large",
            "{route}: {last}"
        );
        assert!(
            last["error"]["message"]
                .as_str()
                .unwrap()
                .contains("1000 lines"),
            "{route}: {last}"
        );
        // The lines within the bound are answered as before.
        let first: Value = serde_json::from_str(out[0]).unwrap();
        assert!(
            first.get("error").is_none() || route == "/validate/batch",
            "{first}"
        );
    }
    // At the bound exactly, no error line.
    let res = server
        .post(
            "/decode/batch",
            &[("content-type", "application/x-ndjson")],
            vec![b'\n'; 1000],
        )
        .await;
    let answer = res.bytes().await.unwrap();
    let text = std::str::from_utf8(&answer).unwrap();
    assert_eq!(text.lines().count(), 1000);
    assert!(!text.contains("payload_too_large"));
}

/// A line of empty bids is a few hundred bytes in and every bid's findings out (~920 bytes a bid), and gzip
/// shrinks such lines 1000:1, so a batch is also held to `server.max_batch_answer_bytes` of answer: the line that
/// would pass it is replaced by one `payload_too_large` line that ends the stream.
#[tokio::test]
async fn a_batch_whose_answer_outgrows_its_body_is_held_to_the_answer_bound() {
    let _one = ONE_AT_A_TIME.lock().await;
    let mut small = config();
    small.server.max_batch_answer_bytes = MIB;
    let server = start(small).await;
    let bids = vec!["{}"; 200].join(",");
    let line = format!(r#"{{"id":"r","seatbid":[{{"bid":[{bids}]}}]}}"#);
    // 2,000 such lines: 1.2 MB in, 10 KB gzipped; ~370 MB of answer without the bound.
    let envelope = format!(r#"{{"request":{{"id":"q","imp":[{{"id":"1"}}]}},"response":{line}}}"#);
    let too_large = |m: &str| {
        sample(
            m,
            "bidscan_decode_outcomes_total{encoding=\"json\",outcome=\"too_large\"}",
        )
        .unwrap_or(0.0)
    };
    let before = too_large(&server.metrics().await);
    for (route, line) in [("/decode/batch", &line), ("/validate/batch", &envelope)] {
        let body = gzip(format!("{line}\n").repeat(2000).as_bytes());
        assert!(body.len() < 64 * 1024, "{}", body.len());
        let res = server
            .post(
                route,
                &[
                    ("content-type", "application/x-ndjson"),
                    ("content-encoding", "gzip"),
                ],
                body,
            )
            .await;
        assert_eq!(res.status(), 200, "{route}");
        let answer = res.bytes().await.unwrap();
        assert!(
            answer.len() <= MIB + 1024,
            "{route}: {} bytes",
            answer.len()
        );
        let text = std::str::from_utf8(&answer).unwrap();
        let out: Vec<&str> = text.lines().collect();
        assert!(
            out.len() > 2 && out.len() < 2000,
            "{route}: {} lines",
            out.len()
        );
        let last: Value = serde_json::from_str(out.last().unwrap()).unwrap();
        assert_eq!(
            last["error"]["code"], "payload_too_large",
            "{route}: {last}"
        );
        assert!(
            last["error"]["message"]
                .as_str()
                .unwrap()
                .contains(&format!("{MIB} bytes")),
            "{route}: {last}"
        );
        // Every line before the error line is a whole answer.
        for l in &out[..out.len() - 1] {
            let v: Value = serde_json::from_str(l).unwrap();
            assert!(v.get("error").is_none(), "{route}: {v}");
            assert_eq!(
                v["summary"]["bids"].as_array().map(Vec::len),
                Some(200),
                "{route}"
            );
        }
    }
    // The replaced line was decoded and is counted as decoded, not once more as `too_large`.
    assert_eq!(too_large(&server.metrics().await), before);
    // A batch whose answer fits is answered whole, with no error line.
    let res = server
        .post(
            "/decode/batch",
            &[("content-type", "application/x-ndjson")],
            format!("{line}\n").repeat(2).into_bytes(),
        )
        .await;
    let text = res.text().await.unwrap();
    assert_eq!(text.lines().count(), 2);
    assert!(!text.contains("payload_too_large"));
}

/// Under `server.batch_answer_after_body` every batch holds its answer until its body is
/// read, so a few KB of gzip could make each connection hold `max_batch_answer_bytes`. All batches together hold
/// at most `server.max_held_answer_bytes`: the chunk that would pass it is replaced by one `overloaded` line, and
/// what a batch held is released when its answer has been sent.
#[tokio::test]
async fn held_batch_answers_are_bounded_for_the_whole_server() {
    let _one = ONE_AT_A_TIME.lock().await;
    let mut held = config();
    held.server.batch_answer_after_body = true;
    held.server.max_held_answer_bytes = MIB;
    let server = start(held).await;
    let bids = vec!["{}"; 200].join(",");
    let line = format!(r#"{{"id":"r","seatbid":[{{"bid":[{bids}]}}]}}"#);
    let body = gzip(format!("{line}\n").repeat(2000).as_bytes());
    for _ in 0..2 {
        let res = server
            .post(
                "/decode/batch",
                &[
                    ("content-type", "application/x-ndjson"),
                    ("content-encoding", "gzip"),
                ],
                body.clone(),
            )
            .await;
        assert_eq!(res.status(), 200);
        let answer = res.bytes().await.unwrap();
        assert!(answer.len() <= MIB + 1024, "{} bytes", answer.len());
        let text = std::str::from_utf8(&answer).unwrap();
        let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
        assert_eq!(last["error"]["code"], "overloaded", "{last}");
        // Every line before it is a whole answer (the chunks held before the cap; here the first already
        // passes it, one body frame's lines being answered as one chunk).
        for l in text.lines().rev().skip(1) {
            let v: Value = serde_json::from_str(l).unwrap();
            assert!(v.get("error").is_none(), "{v}");
        }
    }
    // Released: a batch that fits is answered whole.
    let res = server
        .post(
            "/decode/batch",
            &[("content-type", "application/x-ndjson")],
            format!("{line}\n").repeat(3).into_bytes(),
        )
        .await;
    let text = res.text().await.unwrap();
    assert_eq!(text.lines().count(), 3);
    for l in text.lines() {
        let v: Value = serde_json::from_str(l).unwrap();
        assert!(v.get("error").is_none(), "{}", v["error"]);
    }
}

/// Past `server.max_batch_bytes` after decompression, every line that ends within the limit is answered — also
/// those in the inflated frame that passes it.
#[tokio::test]
async fn every_line_within_the_batch_limit_is_answered() {
    let _one = ONE_AT_A_TIME.lock().await;
    let mut small = config();
    small.server.max_batch_bytes = 1000;
    let server = start(small).await;
    let lines: String = (0..200)
        .map(|i| format!("{{\"id\":\"r{i:03}\"}}\n"))
        .collect();
    let within = lines.bytes().take(1000).filter(|b| *b == b'\n').count();
    assert!(within > 50 && within < 200, "{within}");
    let res = server
        .post(
            "/decode/batch",
            &[
                ("content-type", "application/x-ndjson"),
                ("content-encoding", "gzip"),
            ],
            gzip(lines.as_bytes()),
        )
        .await;
    assert_eq!(res.status(), 200);
    let text = res.text().await.unwrap();
    let out: Vec<&str> = text.lines().collect();
    assert_eq!(out.len(), within + 1, "{text}");
    assert!(
        out[..within]
            .iter()
            .all(|l| l.starts_with("{\"status\":\"nobid\"")),
        "{text}"
    );
    assert!(out[within].contains("payload_too_large"), "{}", out[within]);
}
