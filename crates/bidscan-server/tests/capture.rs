//! `[capture]` over a real server on 127.0.0.1: what a capture file holds (request id, bidder, verdict, the
//! exact wire bytes, mode 0600), the per-bidder rate limit, the byte bound and its rotation, the queue's and the
//! disk's drops (the real binary under `prlimit --fsize`), `/validate`'s request kept out unless
//! `capture.include_request`, each bad `/validate/auction` part, and nothing at all when capture is off.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::common::{TestServer, gzip, sample, start};
use crate::hostile_common;

/// A body the reader refuses (400 `malformed_json`), distinct per `n`.
fn malformed(n: usize) -> Vec<u8> {
    format!("{{\"id\":\"r{n}\",\"seatbid\":[{{\"bid\":[").into_bytes()
}

/// A server with the default configuration plus `toml`, capturing into `dir` when given.
async fn server(dir: Option<&Path>, toml: &str) -> TestServer {
    use figment::providers::{Format, Toml};
    let mut c: bidscan_server::Config = bidscan_server::Config::figment(None)
        .merge(Toml::string(toml))
        .extract()
        .unwrap();
    c.capture.dir = dir.map(Path::to_path_buf);
    c.validate().unwrap();
    c.server.listen = "127.0.0.1:0".parse().unwrap();
    start(c).await
}

/// Each capture file of `dir`, oldest first: its name, metadata line, the bytes after it, and its mode.
fn captures(dir: &Path) -> Vec<(String, Value, Vec<u8>, u32)> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".capture"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let path = dir.join(&name);
            let all = std::fs::read(&path).unwrap();
            let nl = all.iter().position(|&b| b == b'\n').unwrap();
            let meta: Value = serde_json::from_slice(&all[..nl]).unwrap();
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            (name, meta, all[nl + 1..].to_vec(), mode)
        })
        .collect()
}

/// `bidscan_capture_*` as a tuple: (written, rate, queue_full, disk, too_large, deleted, bytes).
fn counters(text: &str) -> [f64; 7] {
    let get = |s: &str| sample(text, s).unwrap_or_else(|| panic!("{s} not in /metrics"));
    [
        get("bidscan_capture_written_total"),
        get("bidscan_capture_dropped_total{reason=\"rate\"}"),
        get("bidscan_capture_dropped_total{reason=\"queue_full\"}"),
        get("bidscan_capture_dropped_total{reason=\"disk\"}"),
        get("bidscan_capture_dropped_total{reason=\"too_large\"}"),
        get("bidscan_capture_deleted_total"),
        get("bidscan_capture_bytes"),
    ]
}

/// Waits until the writer has settled `n` samples (written, or dropped for the disk or their size).
async fn settled(metrics: impl AsyncFn() -> String, n: f64) -> [f64; 7] {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let c = counters(&metrics().await);
        if c[0] + c[3] + c[4] >= n || Instant::now() > deadline {
            return c;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits, if needed, so that the next few seconds stay within one minute of the clock (the budget's window).
async fn away_from_a_minute_boundary() {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
        % 60;
    if secs >= 50 {
        tokio::time::sleep(Duration::from_secs(61 - secs)).await;
    }
}

#[tokio::test]
async fn a_file_holds_the_request_id_bidder_verdict_and_the_exact_wire_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("captures");
    let s = server(Some(&dir), "[server]\nbidders = [\"acme\"]\n").await;
    // Plain, malformed JSON.
    let plain = malformed(1);
    let res = s
        .post(
            "/decode?bidder=acme",
            &[("x-request-id", "req-plain-1")],
            plain.clone(),
        )
        .await;
    assert_eq!(res.status(), 400);
    // gzip of malformed JSON: the file keeps the gzip bytes.
    let zipped = gzip(&malformed(2));
    let res = s
        .post(
            "/decode",
            &[
                ("x-request-id", "req-gzip-2"),
                ("content-encoding", "gzip"),
                ("x-bidder", "Some.Other"),
            ],
            zipped.clone(),
        )
        .await;
    assert_eq!(res.status(), 400);
    // A gzip body that does not inflate: what arrived, as it arrived.
    let mut broken = gzip(br#"{"id":"x","seatbid":[]}"#);
    broken.truncate(broken.len() - 6);
    broken[12] ^= 0xff;
    let res = s
        .post(
            "/decode?bidder=acme",
            &[
                ("x-request-id", "req-broken-3"),
                ("content-encoding", "gzip"),
            ],
            broken.clone(),
        )
        .await;
    assert_eq!(res.status(), 400);
    // A good body and a no-bid: nothing.
    let good = crate::common::corpus_file("nobid_nbr.json");
    assert_eq!(s.post("/decode", &[], good).await.status(), 200);
    let c = settled(|| s.metrics(), 3.0).await;
    assert_eq!(c[0], 3.0, "written: {c:?}");

    let files = captures(&dir);
    assert_eq!(files.len(), 3, "{files:?}");
    let find = |id: &str| files.iter().find(|f| f.1["request_id"] == id).unwrap();
    for (_, _, _, mode) in &files {
        assert_eq!(*mode, 0o600);
    }
    let dir_mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
    assert_eq!(dir_mode, 0o700);

    let (_, meta, body, _) = find("req-plain-1");
    assert_eq!(body, &plain);
    assert_eq!(meta["route"], "/decode");
    assert_eq!(meta["bidder"], "acme");
    assert_eq!(meta["bidder_name"], "acme");
    assert_eq!(meta["verdict"]["status"], 400);
    assert_eq!(meta["verdict"]["error"], "malformed_json");
    assert_eq!(meta["content_encoding"], Value::Null);
    assert_eq!(
        meta["sections"],
        serde_json::json!([{"name": "response", "encoding": null, "bytes": plain.len()}])
    );

    let (_, meta, body, _) = find("req-gzip-2");
    assert_eq!(body, &zipped, "the wire bytes, still compressed");
    assert_eq!(meta["bidder"], "other");
    assert_eq!(meta["bidder_name"], "Some.Other");
    assert_eq!(meta["verdict"]["error"], "malformed_json");
    assert_eq!(meta["sections"][0]["encoding"], "gzip");
    assert_eq!(meta["content_encoding"], "gzip");

    let (_, meta, body, _) = find("req-broken-3");
    assert_eq!(body, &broken);
    assert_eq!(meta["verdict"]["error"], "bad_encoding");
    assert_eq!(meta["sections"][0]["encoding"], "gzip");
    let on_disk: u64 = files
        .iter()
        .map(|f| std::fs::metadata(dir.join(&f.0)).unwrap().len())
        .sum();
    assert_eq!(c[6], on_disk as f64, "bidscan_capture_bytes");
}

#[tokio::test]
async fn at_most_per_minute_per_bidder_and_the_rest_cost_a_count() {
    let tmp = tempfile::tempdir().unwrap();
    let s = server(
        Some(tmp.path()),
        "[server]\nbidders = [\"acme\", \"beta\"]\n[capture]\nper_minute = 3\n",
    )
    .await;
    away_from_a_minute_boundary().await;
    for n in 0..8 {
        let res = s.post("/decode?bidder=acme", &[], malformed(n)).await;
        assert_eq!(res.status(), 400);
    }
    for n in 0..2 {
        let res = s
            .post("/decode", &[("x-bidder", "beta")], malformed(n))
            .await;
        assert_eq!(res.status(), 400);
    }
    let c = settled(|| s.metrics(), 5.0).await;
    assert_eq!(c[0], 5.0, "3 of acme's 8, both of beta's: {c:?}");
    assert_eq!(c[1], 5.0, "acme's 5 over its budget: {c:?}");
    let files = captures(tmp.path());
    let of = |b: &str| files.iter().filter(|f| f.1["bidder"] == b).count();
    assert_eq!((of("acme"), of("beta")), (3, 2));
    // The first three of acme's bodies are the ones kept.
    let mut kept: Vec<Vec<u8>> = files
        .iter()
        .filter(|f| f.1["bidder"] == "acme")
        .map(|f| f.2.clone())
        .collect();
    kept.sort();
    let mut first: Vec<Vec<u8>> = (0..3).map(malformed).collect();
    first.sort();
    assert_eq!(kept, first);
}

#[tokio::test]
async fn the_byte_bound_deletes_the_oldest_first() {
    let tmp = tempfile::tempdir().unwrap();
    // Each file is ~330 bytes (a metadata line and a 40-byte body): 1200 bytes hold three.
    let s = server(
        Some(tmp.path()),
        "[capture]\nper_minute = 1000\nmax_bytes = 1200\n",
    )
    .await;
    for n in 0..10 {
        let res = s
            .post(
                "/decode",
                &[("x-request-id", &format!("rot-{n}"))],
                malformed(n),
            )
            .await;
        assert_eq!(res.status(), 400);
        // One at a time, so that the files' order is the requests'.
        settled(|| s.metrics(), (n + 1) as f64).await;
    }
    let c = counters(&s.metrics().await);
    assert_eq!(c[0], 10.0, "{c:?}");
    let files = captures(tmp.path());
    let total: u64 = files
        .iter()
        .map(|f| std::fs::metadata(tmp.path().join(&f.0)).unwrap().len())
        .sum();
    assert!(total <= 1200, "{total} bytes on disk");
    assert_eq!(c[6], total as f64, "bidscan_capture_bytes is the disk's");
    assert!(files.len() >= 2 && files.len() < 10, "{}", files.len());
    assert_eq!(c[5], (10 - files.len()) as f64, "deleted: {c:?}");
    // What is left is the newest, in order.
    let ids: Vec<String> = files
        .iter()
        .map(|f| f.1["request_id"].as_str().unwrap().to_owned())
        .collect();
    let newest: Vec<String> = (10 - files.len()..10).map(|n| format!("rot-{n}")).collect();
    assert_eq!(ids, newest);
    // A sample larger than the bound alone is dropped, deleting nothing.
    let big = format!("{{\"id\":\"{}\",", "x".repeat(2000)).into_bytes();
    assert_eq!(s.post("/decode", &[], big).await.status(), 400);
    let c = settled(|| s.metrics(), 11.0).await;
    assert_eq!(c[4], 1.0, "too_large: {c:?}");
    assert_eq!(captures(tmp.path()).len(), files.len());
}

#[tokio::test]
async fn a_full_queue_drops_and_counts_every_sample_it_cannot_take() {
    let tmp = tempfile::tempdir().unwrap();
    let s = server(
        Some(tmp.path()),
        "[capture]\nper_minute = 100000\nqueue = 1\n",
    )
    .await;
    // 64 bad bodies of 256 KiB at once: the writer takes one at a time, the queue holds one.
    let body = {
        let mut b = b"{\"id\":\"".to_vec();
        b.resize(256 * 1024, b'x');
        b
    };
    let sent = 64;
    let requests = (0..sent).map(|_| s.post("/decode", &[], body.clone()));
    for res in futures_util::future::join_all(requests).await {
        assert_eq!(res.status(), 400);
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    let c = loop {
        let c = counters(&s.metrics().await);
        if c[0] + c[2] >= sent as f64 || Instant::now() > deadline {
            break c;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    println!(
        "queue of 1, {sent} at once: written {}, queue_full {}",
        c[0], c[2]
    );
    assert_eq!(
        c[0] + c[2],
        sent as f64,
        "each sample written or counted: {c:?}"
    );
    assert_eq!(captures(tmp.path()).len() as f64, c[0]);
    assert_eq!((c[1], c[3], c[4]), (0.0, 0.0, 0.0));
}

#[tokio::test]
async fn validate_keeps_the_request_out_unless_include_request() {
    const REQUEST: &str = r#"{"id":"r1","imp":[{"id":"1","bidfloor":1.0,"banner":{"format":[{"w":300,"h":250}]}}],"user":{"id":"user-secret-42"}}"#;
    // One bid below the floor (301).
    const RESPONSE: &str = r#"{"id":"r1","cur":"USD","seatbid":[{"seat":"s1","bid":[{"id":"b","impid":"1","price":0.5,"crid":"c","mtype":1,"w":300,"h":250,"adm":"<img src=\"https://x.example/a.png\">"}]}]}"#;
    let envelope = format!(r#"{{"request":{REQUEST}, "response" : {RESPONSE} }}"#).into_bytes();
    for include in [false, true] {
        let tmp = tempfile::tempdir().unwrap();
        let s = server(
            Some(tmp.path()),
            &format!("[capture]\ninclude_request = {include}\n"),
        )
        .await;
        // Sent compressed: the response is cut out of the inflated envelope, the whole is kept as sent.
        let res = s
            .post(
                "/validate",
                &[("content-encoding", "gzip"), ("x-request-id", "v-1")],
                gzip(&envelope),
            )
            .await;
        assert_eq!(res.status(), 200);
        // An accepted bid: nothing.
        let ok = String::from_utf8_lossy(&envelope)
            .replace("\"price\":0.5", "\"price\":1.5")
            .into_bytes();
        assert_eq!(s.post("/validate", &[], ok).await.status(), 200);
        let c = settled(|| s.metrics(), 1.0).await;
        assert_eq!(c[0], 1.0, "{c:?}");
        let files = captures(tmp.path());
        assert_eq!(files.len(), 1);
        let (_, meta, body, _) = &files[0];
        assert_eq!(meta["verdict"]["status"], 200);
        assert_eq!(
            meta["verdict"]["nonbid"],
            serde_json::json!([{"impid": "1", "statuscode": 301}])
        );
        assert_eq!(meta["request_id"], "v-1");
        if include {
            assert_eq!(body, &gzip(&envelope));
            assert_eq!(meta["sections"][0]["name"], "envelope");
            assert_eq!(meta["sections"][0]["encoding"], "gzip");
        } else {
            assert_eq!(
                body,
                RESPONSE.as_bytes(),
                "the response member, byte for byte"
            );
            assert_eq!(meta["sections"][0]["name"], "response");
            assert_eq!(meta["sections"][0]["encoding"], Value::Null);
            assert!(!String::from_utf8_lossy(body).contains("user-secret-42"));
        }
    }
}

const BOUNDARY: &str = "cap-7";
const REQUEST: &[u8] = br#"{"id":"r1","imp":[{"id":"1","bidfloor":1.0,"banner":{"format":[{"w":300,"h":250}]}}],"user":{"id":"user-secret-42"}}"#;
/// Accepted.
const GOOD: &[u8] = br#"{"id":"r1","cur":"USD","seatbid":[{"seat":"a","bid":[{"id":"a1","impid":"1","price":1.5,"crid":"c","mtype":1,"w":300,"h":250,"adm":"<img src=\"https://x.example/a.png\">"}]}]}"#;
/// Below the floor: rejected, 301.
const LOW: &[u8] = br#"{"id":"r1","cur":"USD","seatbid":[{"seat":"b","bid":[{"id":"b1","impid":"1","price":0.2,"crid":"c","mtype":1,"w":300,"h":250,"adm":"<img src=\"https://x.example/a.png\">"}]}]}"#;
/// Not JSON: `invalid`.
const BROKEN: &[u8] = br#"{"id":"r1","seatbid":[{"bid":["#;
/// Accepted, with an integer outside int32 (`exp`): the protobuf answer cannot carry it.
const HUGE: &[u8] = br#"{"id":"r1","cur":"USD","seatbid":[{"seat":"h","bid":[{"id":"h1","impid":"1","price":1.5,"crid":"c","mtype":1,"w":300,"h":250,"exp":3000000000,"adm":"<img src=\"https://x.example/a.png\">"}]}]}"#;

/// A `multipart/form-data` body of `parts` (name, header lines, content), the request first.
fn auction_body(parts: &[(&str, &str, Vec<u8>)]) -> Vec<u8> {
    let mut body = Vec::new();
    for (name, headers, content) in std::iter::once(&("request", "", REQUEST.to_vec())).chain(parts)
    {
        body.extend_from_slice(
            format!(
                "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n{headers}\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(content);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    body
}

/// `good`, `low` (a bid rejected), `broken` (gzip of a body that is not JSON), `late` (timed out).
fn bad_auction() -> Vec<u8> {
    auction_body(&[
        ("good", "", GOOD.to_vec()),
        ("low", "", LOW.to_vec()),
        ("broken", "Content-Encoding: gzip\r\n", gzip(BROKEN)),
        ("late", "X-Bidder-Status: timeout\r\n", Vec::new()),
    ])
}

/// Posts the auction `body` with the request id `id`, `accept` when given; the answer must be 200.
async fn post_auction(s: &TestServer, body: Vec<u8>, id: &str, accept: Option<&str>) {
    let content_type = format!("multipart/form-data; boundary={BOUNDARY}");
    let mut headers = vec![
        ("content-type", content_type.as_str()),
        ("x-request-id", id),
    ];
    if let Some(accept) = accept {
        headers.push(("accept", accept));
    }
    let res = s.post("/validate/auction", &headers, body).await;
    assert_eq!(res.status(), 200);
}

#[tokio::test]
async fn each_bad_auction_part_is_captured_under_its_own_bidder() {
    let zipped_broken = gzip(BROKEN);
    for include in [false, true] {
        let tmp = tempfile::tempdir().unwrap();
        let s = server(
            Some(tmp.path()),
            &format!("[server]\nbidders = [\"low\"]\n[capture]\ninclude_request = {include}\n"),
        )
        .await;
        post_auction(&s, bad_auction(), "auc-1", None).await;
        let c = settled(|| s.metrics(), 2.0).await;
        assert_eq!(
            c[0], 2.0,
            "low and broken, not good nor the timed-out: {c:?}"
        );
        let files = captures(tmp.path());
        let find = |b: &str| files.iter().find(|f| f.1["bidder_name"] == b).unwrap();
        let (_, meta, bytes, _) = find("low");
        assert_eq!(meta["route"], "/validate/auction");
        assert_eq!(meta["request_id"], "auc-1");
        assert_eq!(meta["bidder"], "low");
        assert_eq!(meta["verdict"]["bidder_status"], "bid");
        assert_eq!(meta["verdict"]["nonbid"][0]["statuscode"], 301);
        let (_, broken_meta, broken_bytes, _) = find("broken");
        assert_eq!(broken_meta["bidder"], "other");
        assert_eq!(broken_meta["verdict"]["bidder_status"], "invalid");
        assert_eq!(broken_meta["verdict"]["error"], "malformed_json");
        assert_eq!(broken_meta["verdict"]["nonbid"][0]["statuscode"], 102);
        let last = meta["sections"].as_array().unwrap().len() - 1;
        assert_eq!(meta["sections"][last]["name"], "response");
        assert_eq!(broken_meta["sections"][last]["encoding"], "gzip");
        if include {
            let mut want = REQUEST.to_vec();
            want.extend_from_slice(LOW);
            assert_eq!(bytes, &want);
            assert_eq!(meta["sections"][0]["name"], "request");
            assert_eq!(meta["sections"][0]["bytes"], REQUEST.len());
            let mut want = REQUEST.to_vec();
            want.extend_from_slice(&zipped_broken);
            assert_eq!(broken_bytes, &want);
        } else {
            assert_eq!(bytes, LOW, "the part as sent, the request not");
            assert_eq!(broken_bytes, &zipped_broken, "still compressed");
        }
    }
}

/// Each capture file of `dir` by bidder name: its metadata without the time, and its bytes.
fn by_bidder(dir: &Path) -> std::collections::BTreeMap<String, (Value, Vec<u8>)> {
    captures(dir)
        .into_iter()
        .map(|(_, mut meta, bytes, _)| {
            meta.as_object_mut().unwrap().remove("time_unix_ms");
            (
                meta["bidder_name"].as_str().unwrap().to_owned(),
                (meta, bytes),
            )
        })
        .collect()
}

/// The capture takes each bidder's verdict from the judged auction, not from the rendered answer: the same
/// auction answered as JSON and as protobuf writes the same samples, and a good auction answered as protobuf none.
#[tokio::test]
async fn an_auction_answered_as_protobuf_is_captured_as_one_answered_as_json() {
    let mut written = Vec::new();
    for accept in [None, Some("application/x-protobuf")] {
        let tmp = tempfile::tempdir().unwrap();
        let s = server(
            Some(tmp.path()),
            "[server]\nbidders = [\"low\"]\n[capture]\ninclude_request = true\n",
        )
        .await;
        post_auction(&s, bad_auction(), "auc-2", accept).await;
        let c = settled(|| s.metrics(), 2.0).await;
        assert_eq!(c[0], 2.0, "low and broken, answered {accept:?}: {c:?}");
        written.push(by_bidder(tmp.path()));
    }
    let (json, protobuf) = (&written[0], &written[1]);
    assert_eq!(
        json.keys().collect::<Vec<_>>(),
        ["broken", "low"],
        "the same bidders"
    );
    assert_eq!(
        json, protobuf,
        "the same verdicts and sections, byte for byte"
    );

    // A good auction answered as protobuf writes nothing: a bad /decode sent after it is the only file (the
    // writer takes samples in order).
    let tmp = tempfile::tempdir().unwrap();
    let s = server(Some(tmp.path()), "").await;
    let good = auction_body(&[("good", "", GOOD.to_vec())]);
    post_auction(&s, good, "auc-3", Some("application/x-protobuf")).await;
    assert_eq!(s.post("/decode", &[], malformed(1)).await.status(), 400);
    let c = settled(|| s.metrics(), 1.0).await;
    assert_eq!(c[..3], [1.0, 0.0, 0.0], "one file, nothing dropped: {c:?}");
    let files = captures(tmp.path());
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].1["route"], "/decode");
}

/// A response the protobuf answer cannot carry is answered `invalid` there, and captured so; answered as JSON it is
/// a good bid, not captured.
#[tokio::test]
async fn a_response_the_protobuf_answer_cannot_carry_is_captured_as_invalid() {
    let tmp = tempfile::tempdir().unwrap();
    let s = server(Some(tmp.path()), "[server]\nbidders = [\"huge\"]\n").await;
    let body = auction_body(&[("good", "", GOOD.to_vec()), ("huge", "", HUGE.to_vec())]);
    post_auction(&s, body.clone(), "auc-4", None).await;
    post_auction(&s, body, "auc-5", Some("application/x-protobuf")).await;
    let c = settled(|| s.metrics(), 1.0).await;
    assert_eq!(c[0], 1.0, "{c:?}");
    let files = by_bidder(tmp.path());
    assert_eq!(
        files.len(),
        1,
        "only the protobuf answer's huge: {:?}",
        files.keys()
    );
    let (meta, bytes) = &files["huge"];
    assert_eq!(meta["request_id"], "auc-5");
    assert_eq!(meta["bidder"], "huge");
    assert_eq!(meta["verdict"]["bidder_status"], "invalid");
    assert_eq!(meta["verdict"]["error"], "not_encodable");
    let message = meta["verdict"]["message"].as_str().unwrap();
    assert!(message.contains("/seatbid/0/bid/0/exp"), "{message}");
    assert_eq!(
        meta["verdict"]["nonbid"],
        serde_json::json!([{"impid": "1", "statuscode": 102}])
    );
    assert_eq!(bytes, HUGE);
}

#[tokio::test]
async fn off_keeps_nothing_and_counts_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let s = server(None, "").await;
    for n in 0..5 {
        assert_eq!(s.post("/decode", &[], malformed(n)).await.status(), 400);
    }
    assert_eq!(
        s.post(
            "/decode",
            &[("content-encoding", "gzip")],
            gzip(&malformed(9))
        )
        .await
        .status(),
        400
    );
    let c = counters(&s.metrics().await);
    assert_eq!(c, [0.0; 7], "no sample taken, none dropped");
    assert!(std::fs::read_dir(tmp.path()).unwrap().next().is_none());
}

/// A write that fails — here past the process's file size limit (`prlimit --fsize`, EFBIG with SIGXFSZ
/// ignored), as a full disk fails it — drops the sample, counts it `disk` and leaves no partial file; a
/// smaller one is written. The real binary, since the limit is the process's.
#[tokio::test]
async fn a_failed_write_drops_the_sample_and_leaves_no_partial_file() {
    if std::process::Command::new("prlimit")
        .arg("--version")
        .output()
        .is_err()
    {
        println!("SKIPPED: prlimit (util-linux) is not installed, so no write can be made to fail");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_str().unwrap();
    let mut command = std::process::Command::new("sh");
    // `trap '' XFSZ` ignores SIGXFSZ, and an ignored signal stays ignored across exec: the write gets EFBIG.
    command.args([
        "-c",
        "trap '' XFSZ; exec prlimit --fsize=4096 -- \"$0\" serve",
        env!("CARGO_BIN_EXE_bidscan"),
    ]);
    let served = hostile_common::spawn_command(
        command,
        &[
            ("BIDSCAN__CAPTURE__DIR", dir),
            ("BIDSCAN__CAPTURE__PER_MINUTE", "100"),
        ],
    );
    let client = crate::common::client_builder().build().unwrap();
    let post = async |body: Vec<u8>| {
        let res = client.post(served.url("/decode")).body(body).send().await;
        res.unwrap().status().as_u16()
    };
    let metrics = async || {
        let res = client.get(served.url("/metrics")).send().await.unwrap();
        res.text().await.unwrap()
    };
    let big = format!("{{\"id\":\"{}\",", "x".repeat(8000)).into_bytes();
    assert_eq!(post(big).await, 400);
    let c = settled(metrics, 1.0).await;
    assert_eq!((c[0], c[3]), (0.0, 1.0), "dropped for the disk: {c:?}");
    assert!(captures(tmp.path()).is_empty(), "no partial file");
    assert_eq!(c[6], 0.0);
    assert_eq!(post(malformed(1)).await, 400);
    let c = settled(metrics, 2.0).await;
    assert_eq!((c[0], c[3]), (1.0, 1.0), "{c:?}");
    let files = captures(tmp.path());
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].2, malformed(1));
    // The line is logged before the count, and read from the child's output by another thread.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !served
        .logs()
        .iter()
        .any(|l| l.contains("cannot write a capture"))
    {
        assert!(Instant::now() < deadline, "the failure is logged");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
