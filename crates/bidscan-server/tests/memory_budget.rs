//! `server.max_inflight_bytes` on a real server: bodies held short of complete reserve their bytes as they arrive;
//! the request that cannot get its bytes is answered 503 with `Retry-After` (HTTP/1.1: then closed; HTTP/2: its
//! stream ends, the connection serves on), counted in `bidscan_shed_total{reason="memory"}`; a compressed body
//! reserves its decoders' working memory (what its stream declares) and its decoded bytes as they grow, not its
//! decompressed limit, so a stalled compressed stream holds little; a `view=full` answer the body's size again,
//! an auction's compressed part its bytes as it inflates (past the budget: the call 503); and every reservation is
//! given back when its request ends (`bidscan_inflight_bytes` back to 0).

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::common::*;

const MIB: usize = 1024 * 1024;
const SHED: &str = "bidscan_shed_total{reason=\"memory\"}";
const INFLIGHT: &str = "bidscan_inflight_bytes";

/// A server whose budget is `mib` MiB.
async fn budgeted(mib: usize) -> (TestServer, SocketAddr) {
    let mut c = config();
    c.server.max_inflight_bytes = mib * MIB;
    let server = start(c).await;
    let addr = server.base.trim_start_matches("http://").parse().unwrap();
    (server, addr)
}

/// A connection that sent a `/decode` head announcing `len` bytes and all but the last 10 of them.
async fn hold(addr: SocketAddr, len: usize) -> TcpStream {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let head = format!("POST /decode HTTP/1.1\r\nHost: t\r\nContent-Length: {len}\r\n\r\n");
    s.write_all(head.as_bytes()).await.unwrap();
    s.write_all(&vec![b' '; len - 10]).await.unwrap();
    s
}

/// Polls `/metrics` until `series` is `want` (2 s at most); the last value seen. A scrape shed because the budget
/// has no room for its answer reads as infinity (the budget is spent).
async fn settle(server: &TestServer, series: &str, want: impl Fn(f64) -> bool) -> f64 {
    let until = Instant::now() + Duration::from_secs(2);
    loop {
        let v = match server.get_text("/metrics").await {
            (503, _) => f64::INFINITY,
            (_, text) => value(&text, series),
        };
        if want(v) || Instant::now() > until {
            return v;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The answer's head (status line and headers, lower-cased) of a connection, and whether the server then closed
/// it; 5 s at most.
async fn answer(s: &mut TcpStream) -> (String, bool) {
    let mut got = Vec::new();
    let mut buf = vec![0; 64 * 1024];
    let closed = loop {
        match tokio::time::timeout(Duration::from_secs(5), s.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => break true,
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
            Err(_) => break false,
        }
    };
    let text = String::from_utf8_lossy(&got).to_lowercase();
    let head = text.split("\r\n\r\n").next().unwrap_or("").to_owned();
    (head, closed)
}

#[tokio::test]
async fn bodies_past_the_budget_are_shed_and_the_bytes_come_back() {
    let (server, addr) = budgeted(8).await;
    // Two bodies of 3 MiB held 10 bytes short: 6 MiB of the 8 reserved.
    let mut held = Vec::new();
    for n in 1..=2 {
        held.push(hold(addr, 3 * MIB).await);
        let inflight = settle(&server, INFLIGHT, |v| v >= (3 * n * MIB - 10) as f64).await;
        assert!(inflight >= (3 * n * MIB - 10) as f64, "{inflight}");
    }
    // A third does not fit: 503 part-way, with Retry-After and Connection: close, and the connection is closed.
    let third = TcpStream::connect(addr).await.unwrap();
    let (mut read, mut write) = third.into_split();
    let sender = tokio::spawn(async move {
        let head = format!(
            "POST /decode HTTP/1.1\r\nHost: t\r\nContent-Length: {}\r\n\r\n",
            3 * MIB
        );
        let _ = write.write_all(head.as_bytes()).await;
        let _ = write.write_all(&vec![b' '; 3 * MIB - 10]).await;
        write
    });
    let mut got = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), read.read_to_end(&mut got)).await;
    let text = String::from_utf8_lossy(&got).to_lowercase();
    assert!(text.starts_with("http/1.1 503"), "{text}");
    assert!(text.contains("retry-after: 1"), "{text}");
    assert!(text.contains("connection: close"), "{text}");
    assert!(text.contains("max_inflight_bytes"), "{text}");
    drop(sender.await.unwrap());
    assert_eq!(value(&server.metrics().await, SHED), 1.0);
    // Small requests are still served from what is left.
    for _ in 0..3 {
        let res = server.post("/decode", &[], br#"{"id":"1"}"#.to_vec()).await;
        assert_eq!(res.status(), 200);
    }
    // The held requests end (the clients go away): every byte comes back.
    drop(held);
    assert_eq!(settle(&server, INFLIGHT, |v| v == 0.0).await, 0.0);
    // A finished request gives its bytes back too, and a body the size of the whole budget fits again.
    let doc = format!(
        r#"{{"id":"1","ext":{{"pad":"{}"}}}}"#,
        "a".repeat(4 * MIB - 100)
    );
    let res = server.post("/decode", &[], doc.into_bytes()).await;
    assert_eq!(res.status(), 200);
    assert_eq!(value(&server.metrics().await, INFLIGHT), 0.0);
}

#[tokio::test]
async fn a_request_that_finds_the_budget_spent_is_shed_before_its_body() {
    let (server, addr) = budgeted(1).await;
    // One body holds the whole MiB.
    let _held = hold(addr, MIB).await;
    // A scrape takes budget too (`routes/ops.rs`): one that arrived while the body is still read could leave the
    // body's last step no room. The body is sent; the server has read it well within this.
    tokio::time::sleep(Duration::from_millis(300)).await;
    settle(&server, INFLIGHT, |v| v >= (MIB - 10) as f64).await;
    let mut s = TcpStream::connect(addr).await.unwrap();
    let head = "POST /decode HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n";
    s.write_all(head.as_bytes()).await.unwrap();
    // Nothing of the body sent: answered all the same.
    let (head, closed) = answer(&mut s).await;
    assert!(head.starts_with("http/1.1 503"), "{head}");
    assert!(head.contains("retry-after: 1"), "{head}");
    assert!(
        closed,
        "the connection stays open after a 503 before the body"
    );
    // Scrapes are shed too while the budget is spent: counted once it is given back.
    drop(_held);
    settle(&server, INFLIGHT, |v| v == 0.0).await;
    assert!(value(&server.metrics().await, SHED) >= 1.0);
}

/// A connection that sent a `/decode` head with `Content-Encoding: coding` announcing 1,000 bytes, then `head`.
async fn stall_coded(addr: SocketAddr, coding: &str, head: &[u8]) -> TcpStream {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let req = format!(
        "POST /decode HTTP/1.1\r\nHost: t\r\nContent-Encoding: {coding}\r\nContent-Length: 1000\r\n\r\n"
    );
    s.write_all(req.as_bytes()).await.unwrap();
    s.write_all(head).await.unwrap();
    s
}

/// The 10-byte gzip member header (RFC 1952 §2.3) alone.
const GZIP_HEAD: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];

/// A zstd frame header declaring a window of `2^log` bytes, no content size (RFC 8878 §3.1.1.1).
fn zstd_head(log: u32) -> Vec<u8> {
    let mut head = 0xFD2F_B528u32.to_le_bytes().to_vec();
    head.extend([0x00, ((log - 10) << 3) as u8]);
    head
}

#[tokio::test]
async fn a_stalled_compressed_body_holds_its_decoders_memory_not_its_limit() {
    use bidscan_server::{Coding, decoder_memory};
    // One step for the body's bytes (none decoded yet), the decoder's memory rounded up to a step.
    let step = 64 * 1024;
    let held = |decoder: usize| (step + decoder.div_ceil(step) * step) as f64;
    let (server, addr) = budgeted(64).await;
    // Eight gzip bodies that sent their 10-byte header and stall: each holds the inflate state, not 4 MiB.
    let mut stalled = Vec::new();
    for _ in 0..8 {
        stalled.push(stall_coded(addr, "gzip", &GZIP_HEAD).await);
    }
    let bound = 8.0 * held(decoder_memory(Coding::Gzip, 0));
    let inflight = settle(&server, INFLIGHT, |v| v >= bound).await;
    assert!(
        inflight > 0.0 && inflight <= bound,
        "{inflight} reserved, at most {bound}"
    );
    drop(stalled);
    assert_eq!(settle(&server, INFLIGHT, |v| v == 0.0).await, 0.0);
    // A zstd frame header declaring a 1 MiB window, and a br stream's first byte declaring 16 MiB (lgwin 24), that
    // stall: their windows are not paid for (1/256 of them in body bytes), so the decoders never see those headers
    // and each holds its state only, not what it declares.
    let _zstd = stall_coded(addr, "zstd", &zstd_head(20)).await;
    let _br = stall_coded(addr, "br", &[0x0f]).await;
    let bound = held(decoder_memory(Coding::Zstd, 0)) + held(decoder_memory(Coding::Brotli, 0));
    let inflight = settle(&server, INFLIGHT, |v| v >= bound).await;
    assert!(
        inflight > 0.0 && inflight <= bound,
        "{inflight} reserved, at most {bound}"
    );
    assert!(
        inflight < decoder_memory(Coding::Zstd, 1 << 20) as f64,
        "{inflight} reserved: the declared window was"
    );
    assert_eq!(value(&server.metrics().await, SHED), 0.0);
}

#[tokio::test]
async fn a_compressed_body_is_shed_part_way_once_its_decoded_bytes_pass_the_budget() {
    // 3 MiB: less than `server.max_body_bytes` (4 MiB), so a compressed body is judged by what it inflates to.
    let (server, _) = budgeted(3).await;
    let doc = br#"{"id":"1","seatbid":[]}"#;
    for (coding, body) in [
        ("gzip", gzip(doc)),
        ("zstd", zstd(doc)),
        ("deflate", deflate(doc)),
    ] {
        let res = server
            .post("/decode", &[("content-encoding", coding)], body)
            .await;
        assert_eq!(res.status(), 200, "{coding}");
    }
    // A br stream holds the window its first byte declares: 4 MiB (lgwin 22) does not fit, 64 KiB (lgwin 16) does.
    let res = server
        .post("/decode", &[("content-encoding", "br")], brotli(doc))
        .await;
    assert_eq!(res.status(), 503);
    let mut small = Vec::new();
    let mut w = brotli::CompressorWriter::new(&mut small, 4096, 5, 16);
    std::io::Write::write_all(&mut w, doc).unwrap();
    drop(w);
    let res = server
        .post("/decode", &[("content-encoding", "br")], small)
        .await;
    assert_eq!(res.status(), 200);
    // 3.5 MiB of JSON in a few KB of gzip: shed part-way, as a plain body of that size would be.
    let mut big = br#"{"id":"1","seatbid":[]"#.to_vec();
    big.resize(3 * MIB + MIB / 2, b' ');
    big.push(b'}');
    let res = server
        .post("/decode", &[("content-encoding", "gzip")], gzip(&big))
        .await;
    assert_eq!(res.status(), 503);
    assert_eq!(res.headers()["retry-after"], "1");
    assert_eq!(value(&server.metrics().await, SHED), 2.0);
    assert_eq!(settle(&server, INFLIGHT, |v| v == 0.0).await, 0.0);
}

#[tokio::test]
async fn a_zstd_window_past_8_mib_is_refused() {
    let (server, _) = budgeted(64).await;
    let doc = br#"{"id":"1","seatbid":[]}"#;
    // Streamed frames (no content size) declaring a window of 2^log bytes.
    let framed = |log: u32| {
        let mut e = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
        e.include_contentsize(false).unwrap();
        e.window_log(log).unwrap();
        std::io::Write::write_all(&mut e, doc).unwrap();
        e.finish().unwrap()
    };
    let res = server
        .post("/decode", &[("content-encoding", "zstd")], framed(23))
        .await;
    assert_eq!(res.status(), 200);
    for log in [24, 27] {
        let res = server
            .post("/decode", &[("content-encoding", "zstd")], framed(log))
            .await;
        assert_eq!(res.status(), 400, "window 2^{log}");
        let body: serde_json::Value = serde_json::from_slice(&res.bytes().await.unwrap()).unwrap();
        assert_eq!(body["error"]["code"], "bad_encoding", "{body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains("RFC 9659"), "{message}");
    }
    // A later frame is held to 8 MiB too.
    let mut two = framed(20);
    two.extend(framed(25));
    let res = server
        .post("/decode", &[("content-encoding", "zstd")], two)
        .await;
    assert_eq!(res.status(), 400);
    assert_eq!(settle(&server, INFLIGHT, |v| v == 0.0).await, 0.0);
}

#[tokio::test]
async fn a_full_view_reserves_the_body_again_for_its_answer() {
    // 6 MiB with 2 held: a 2 MiB body fits (4 MiB), its full answer (6 MiB and more) does not.
    let (server, addr) = budgeted(6).await;
    let _held = hold(addr, 2 * MIB).await;
    settle(&server, INFLIGHT, |v| v >= (2 * MIB - 10) as f64).await;
    let doc = format!(r#"{{"id":"1","ext":{{"pad":"{}"}}}}"#, "a".repeat(2 * MIB));
    let res = server
        .post("/decode?view=full", &[], doc.clone().into_bytes())
        .await;
    assert_eq!(res.status(), 503);
    let res = server
        .post("/decode?view=summary", &[], doc.into_bytes())
        .await;
    assert_eq!(res.status(), 200);
    assert_eq!(value(&server.metrics().await, SHED), 1.0);
}

type Chunk = Result<Bytes, std::io::Error>;

/// The chunks sent on `rx`, as a request body's stream that ends when the sender is dropped.
fn received(
    rx: tokio::sync::mpsc::Receiver<Chunk>,
) -> impl futures_util::Stream<Item = Chunk> + Send + 'static {
    futures_util::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|c| (c, rx)) })
}

#[tokio::test]
async fn over_h2_the_stream_past_the_budget_ends_and_the_connection_serves_on() {
    let (server, _) = budgeted(2).await;
    let h2 = crate::common::client_builder()
        .http2_prior_knowledge()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    // Stream A: a small body, its last bytes held back.
    let (tx_a, rx_a) = tokio::sync::mpsc::channel::<Chunk>(4);
    tx_a.send(Ok(Bytes::from_static(br#"{"id":"a","#)))
        .await
        .unwrap();
    let a = tokio::spawn(
        h2.post(server.url("/decode"))
            .body(reqwest::Body::wrap_stream(received(rx_a)))
            .send(),
    );
    // Stream B on the same connection: 3 MiB, sent in 256 KiB frames and never finished.
    let (tx_b, rx_b) = tokio::sync::mpsc::channel::<Chunk>(64);
    let b = tokio::spawn(
        h2.post(server.url("/decode"))
            .body(reqwest::Body::wrap_stream(received(rx_b)))
            .send(),
    );
    let feeder = tokio::spawn(async move {
        for _ in 0..12 {
            if tx_b
                .send(Ok(Bytes::from(vec![b' '; MIB / 4])))
                .await
                .is_err()
            {
                break;
            }
        }
        tx_b
    });
    // B is answered 503 (or, if the reset overtakes the answer, fails): either way its stream ends part-way.
    match tokio::time::timeout(Duration::from_secs(10), b)
        .await
        .unwrap()
        .unwrap()
    {
        Ok(res) => {
            assert_eq!(res.status(), 503);
            assert_eq!(res.headers()["retry-after"], "1");
        }
        Err(e) => assert!(e.is_request() || e.is_body(), "{e:?}"),
    }
    assert_eq!(settle(&server, SHED, |v| v == 1.0).await, 1.0);
    drop(feeder.await.unwrap());
    // A, on the same connection, completes.
    tx_a.send(Ok(Bytes::from_static(br#""seatbid":[]}"#)))
        .await
        .unwrap();
    drop(tx_a);
    let res = a.await.unwrap().unwrap();
    assert_eq!(res.version(), reqwest::Version::HTTP_2);
    assert_eq!(res.status(), 200);
    assert_eq!(settle(&server, INFLIGHT, |v| v == 0.0).await, 0.0);
}

#[tokio::test]
async fn held_batch_answers_count_in_the_budget() {
    let mut c = config();
    c.server.max_inflight_bytes = MIB;
    c.server.batch_answer_after_body = true;
    let server = start(c).await;
    // Each no-bid answer line is a few hundred bytes: 10,000 of them pass 1 MiB.
    let body = "{}\n".repeat(10_000);
    let res = server
        .post(
            "/decode/batch",
            &[("content-type", "application/x-ndjson")],
            body.into_bytes(),
        )
        .await;
    assert_eq!(res.status(), 200);
    let text = res.text().await.unwrap();
    let last = text.lines().last().unwrap();
    assert!(last.contains("max_inflight_bytes"), "{last}");
    assert!(text.len() < MIB, "{}", text.len());
    assert_eq!(value(&server.metrics().await, SHED), 1.0);
    assert_eq!(value(&server.metrics().await, INFLIGHT), 0.0);
}

#[tokio::test]
async fn a_batch_line_past_the_budget_ends_the_stream() {
    let (server, _) = budgeted(1).await;
    // One line of 2 MiB (under `server.max_body_bytes`) is more than the budget while it is incomplete.
    let mut body = br#"{"id":"1"}"#.to_vec();
    body.push(b'\n');
    body.extend(std::iter::repeat_n(b' ', 2 * MIB));
    body.extend_from_slice(b"{}\n");
    // A client of its own: the server closes this connection (the rest of the body is never read).
    let res = crate::common::client_builder()
        .build()
        .unwrap()
        .post(server.url("/decode/batch"))
        .header("content-type", "application/x-ndjson")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let text = res.text().await.unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].contains("\"status\""), "{}", lines[0]);
    assert!(lines[1].contains("max_inflight_bytes"), "{}", lines[1]);
    assert_eq!(value(&server.metrics().await, SHED), 1.0);
    assert_eq!(settle(&server, INFLIGHT, |v| v == 0.0).await, 0.0);
}

/// An auction whose `acme` part is `inflated` bytes of JSON (a no-bid padded with spaces), sent gzipped.
fn auction_with_gzip_part(inflated: usize) -> Vec<u8> {
    let mut doc = br#"{"id":"r1","seatbid":[]"#.to_vec();
    doc.resize(inflated - 1, b' ');
    doc.push(b'}');
    let mut body = b"--b\r\nContent-Disposition: form-data; name=\"request\"\r\n\r\n".to_vec();
    body.extend_from_slice(br#"{"id":"r1","imp":[{"id":"1","banner":{"w":300,"h":250}}]}"#);
    body.extend_from_slice(
        b"\r\n--b\r\nContent-Disposition: form-data; name=\"acme\"\r\nContent-Encoding: gzip\r\n\r\n",
    );
    body.extend_from_slice(&gzip(&doc));
    body.extend_from_slice(b"\r\n--b--\r\n");
    body
}

#[tokio::test]
async fn an_auction_part_inflated_past_the_budget_sheds_the_call() {
    // 2 MiB: a part inflating to 3 MiB does not fit (the call is 503, not the bidder 102); 100 KiB does.
    let (server, _) = budgeted(2).await;
    let headers = [("content-type", "multipart/form-data; boundary=b")];
    let res = server
        .post(
            "/validate/auction",
            &headers,
            auction_with_gzip_part(3 * MIB),
        )
        .await;
    assert_eq!(res.status(), 503);
    assert_eq!(res.headers()["retry-after"], "1");
    assert_eq!(value(&server.metrics().await, SHED), 1.0);
    let res = server
        .post(
            "/validate/auction",
            &headers,
            auction_with_gzip_part(100 * 1024),
        )
        .await;
    assert_eq!(res.status(), 200);
    let answer: serde_json::Value = serde_json::from_slice(&res.bytes().await.unwrap()).unwrap();
    assert_eq!(answer["bidders"][0]["status"], "nobid", "{answer}");
    assert_eq!(settle(&server, INFLIGHT, |v| v == 0.0).await, 0.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_held_behind_a_shut_h2_window_count_in_the_budget() {
    // A 1 MiB budget; a gzip body of a few hundred bytes whose summary answer is hundreds of KB (1,000 empty bids).
    let mut c = config();
    c.server.max_inflight_bytes = MIB;
    c.server.max_body_bytes = 128 * 1024;
    c.server.send_timeout_secs = 1;
    let server = start(c).await;
    let addr: SocketAddr = server.base.trim_start_matches("http://").parse().unwrap();
    let doc = format!(
        r#"{{"id":"x","seatbid":[{{"bid":[{}]}}]}}"#,
        vec!["{}"; 1000].join(",")
    );
    let body = Bytes::from(gzip(doc.as_bytes()));

    // An h2 client that takes nothing: every stream window 0.
    let tcp = TcpStream::connect(addr).await.unwrap();
    let (client, conn) = h2::client::Builder::new()
        .initial_window_size(0)
        .handshake::<_, Bytes>(tcp)
        .await
        .unwrap();
    let driver = tokio::spawn(conn);
    let mut client = client.ready().await.unwrap();
    // One at a time, each answer's head awaited (HEADERS are not flow-controlled; the bodies stay held).
    let (mut held, mut answered, mut shed) = (0, 0, 0);
    let mut bodies = Vec::new();
    for _ in 0..6 {
        let req = axum::http::Request::post(format!("http://{addr}/decode?view=summary"))
            .header("content-type", "application/json")
            .header("content-encoding", "gzip")
            .body(())
            .unwrap();
        let (answer, mut send) = client.send_request(req, false).unwrap();
        send.send_data(body.clone(), true).unwrap();
        let res = tokio::time::timeout(Duration::from_secs(5), answer)
            .await
            .expect("no answer head")
            .unwrap();
        match res.status().as_u16() {
            200 => {
                let len: usize = res.headers()["content-length"]
                    .to_str()
                    .unwrap()
                    .parse()
                    .unwrap();
                assert!(len > 200 * 1024, "{len}");
                held += len;
                answered += 1;
                bodies.push(res.into_body());
            }
            503 => {
                assert_eq!(res.headers()["retry-after"], "1");
                shed += 1;
            }
            other => panic!("status {other}"),
        }
        client = client.ready().await.unwrap();
    }
    // The first fit; the budget holds each answer sent (≥ its bytes) and sheds the requests past it.
    assert!(
        answered >= 1 && shed >= 1,
        "{answered} answered, {shed} shed"
    );
    let inflight = value(&server.metrics().await, INFLIGHT);
    assert!(inflight >= held as f64, "{inflight} reserved, {held} held");
    assert!(inflight <= MIB as f64, "{inflight}");
    assert_eq!(value(&server.metrics().await, SHED), shed as f64);
    // The send timeout (1 s) resets the unread streams and gives their bytes back.
    assert_eq!(settle(&server, INFLIGHT, |v| v == 0.0).await, 0.0);
    drop((bodies, client));
    driver.abort();
}
