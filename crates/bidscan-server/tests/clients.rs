//! Real clients against a real server on a loopback port: curl (the system's; Debian 12's is 7.88.1 with nghttp2),
//! Python's `requests` and `httpx` with `h2` (tests/clients/post.py, versions pinned there and in `.ci/run`; the
//! interpreter `BIDSCAN_PYTHON` names, else `python3`) and
//! Go's net/http (tests/clients/expect.go, Debian 12's Go 1.19). Each client runs as a process (tokio's, so the
//! server keeps answering on this test's runtime).
//!
//! A client that is not installed skips its part with a line on stderr, except under `CI=true` (set by `.ci/run`,
//! which installs them all), where it fails the test.
//!
//! What they show:
//! - `Expect: 100-continue` over HTTP/1.1 gets `100 Continue` from the batch routes before their answer, as from
//!   `/decode` (curl asks for it on every body over 1 MiB and otherwise waits 1 s; Go waits
//!   `ExpectContinueTimeout`), and over HTTP/2 every POST route answers it with `100` at once (curl over h2c, Go
//!   over TLS h2);
//! - an answer given before an h2 request body was read (413 from `Content-Length`, 415, a gzip bomb's 413)
//!   reaches curl and httpx over h2c as a readable answer, and a body still sent 2 s later is reset (reqwest);
//! - an h2 header list over the limit gets the JSON 431 that HTTP/1.1 gets, counted.

use std::path::Path;
use std::process::Output;

use crate::common::*;

/// Runs `program` with `args`; `None` when it is not installed (a failure under `CI=true`).
async fn run(program: &str, args: &[&str]) -> Option<Output> {
    match tokio::process::Command::new(program)
        .args(args)
        .kill_on_drop(true)
        .output()
        .await
    {
        Ok(out) => Some(out),
        Err(e) => {
            missing(program, &e.to_string());
            None
        }
    }
}

/// Says that `client` is missing: a panic under `CI=true`, a line on stderr otherwise.
fn missing(client: &str, why: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{client} is required under CI=true (.ci/run installs it): {why}");
    }
    eprintln!("skipped: {client} is not installed ({why})");
}

/// The Python interpreter with the clients: `BIDSCAN_PYTHON` (`.ci/run` sets it to its venv's), or `python3`.
fn python() -> String {
    std::env::var("BIDSCAN_PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

/// Whether Python has `httpx`, `h2` and `requests` (a failure under `CI=true` when not).
async fn have_python_clients() -> bool {
    match run(&python(), &["-c", "import httpx, h2, requests"]).await {
        Some(out) if out.status.success() => true,
        Some(out) => {
            missing(
                "python3 httpx/h2/requests",
                &String::from_utf8_lossy(&out.stderr),
            );
            false
        }
        None => false,
    }
}

/// tests/clients/`name`.
fn script(name: &str) -> String {
    format!("{}/tests/clients/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// One POST by tests/clients/post.py with `client` (`requests`, `httpx`, `httpx-h2`): its JSON line.
async fn python_post(client: &str, url: &str, body: &Path, headers: &[&str]) -> serde_json::Value {
    let post = script("post.py");
    let path = body.to_str().unwrap();
    let mut args = vec![post.as_str(), client, url, path];
    args.extend_from_slice(headers);
    let out = run(&python(), &args).await.expect("python runs");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "post.py printed no JSON ({e}): {} {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// `n` copies of `vast_020k.json` as NDJSON lines (the document's line feeds made spaces): 70 copies are the
/// 1.59 MB batch curl sends with `Expect: 100-continue`.
fn batch_of(n: usize) -> Vec<u8> {
    let doc: Vec<u8> = corpus_file("vast_020k.json")
        .into_iter()
        .map(|b| if b == b'\n' || b == b'\r' { b' ' } else { b })
        .collect();
    let mut body = Vec::with_capacity((doc.len() + 1) * n);
    for _ in 0..n {
        body.extend_from_slice(&doc);
        body.push(b'\n');
    }
    body
}

/// The batch routes answer `Expect: 100-continue` over HTTP/1.1 with `100 Continue` before their head (as
/// `/decode` does), so curl (which asks on every body over 1 MiB) and Go (`ExpectContinueTimeout`) send the body
/// at once instead of after their timeout; requests and httpx, which never wait for a 100, get the same answer.
#[tokio::test]
async fn batch_routes_answer_expect_100_continue_over_http1() {
    let server = start(config()).await;
    let dir = tempfile::tempdir().unwrap();
    let body = batch_of(70);
    assert!(body.len() > 1 << 20, "over curl's 1 MiB Expect threshold");
    let file = dir.path().join("batch.ndjson");
    std::fs::write(&file, &body).unwrap();
    let file = file.to_str().unwrap();
    let url = server.url("/decode/batch");

    // curl adds `Expect: 100-continue` itself; with a 30 s wait for the 100 a server that never sends one
    // would hold the request 30 s, and the 100 is asserted in curl's trace.
    let answer = dir.path().join("answer");
    if let Some(out) = run(
        "curl",
        &[
            "-sS",
            "-v",
            "--expect100-timeout",
            "30",
            "-H",
            "content-type: application/x-ndjson",
            "--data-binary",
            &format!("@{file}"),
            "-o",
            answer.to_str().unwrap(),
            "-w",
            "%{http_code} %{time_total}",
            &url,
        ],
    )
    .await
    {
        let trace = String::from_utf8_lossy(&out.stderr);
        let written = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{trace}");
        assert!(trace.contains("> Expect: 100-continue"), "{trace}");
        assert!(trace.contains("< HTTP/1.1 100 Continue"), "{trace}");
        let (code, seconds) = written.split_once(' ').unwrap();
        assert_eq!(code, "200");
        let seconds: f64 = seconds.parse().unwrap();
        assert!(seconds < 10.0, "{seconds} s");
        let lines = std::fs::read(&answer).unwrap();
        assert_eq!(lines.iter().filter(|&&b| b == b'\n').count(), 70);
        eprintln!("curl, h1, 1.59 MB batch with Expect: {seconds} s");
    }

    // Go's net/http with `Expect: 100-continue` and a 5 s ExpectContinueTimeout.
    if let Some(out) = run("go", &["run", &script("expect.go"), &url, file]).await {
        let v: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("expect.go: {e}: {}", String::from_utf8_lossy(&out.stderr)));
        assert_eq!(v["status"], 200, "{v}");
        assert_eq!(v["proto"], "HTTP/1.1", "{v}");
        assert_eq!(v["got100"], true, "{v}");
        assert_eq!(v["lines"], 70, "{v}");
    }

    if have_python_clients().await {
        for client in ["requests", "httpx"] {
            let v = python_post(
                client,
                &url,
                Path::new(file),
                &["content-type:application/x-ndjson", "expect:100-continue"],
            )
            .await;
            assert_eq!(v["status"], 200, "{client}: {v}");
            let text = v["body"].as_str().unwrap();
            assert_eq!(text.lines().count(), 70, "{client}");
        }
    }
}

/// Over HTTP/2 an explicit `Expect: 100-continue` gets `HTTP/2 100` at once on every POST route (the patch of
/// vendor/hyper/BIDSCAN-PATCH.md), so a client waiting for it sends the body without waiting its timeout: curl
/// over h2c to `/decode` and `/decode/batch` (it waits 1 s by default, here 10 s, and prints the 100 in its
/// trace), and Go over TLS with ALPN h2 and `ExpectContinueTimeout` to `/decode/batch` (`Got100Continue`).
#[tokio::test]
async fn expect_100_continue_over_h2_is_answered_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let batch = dir.path().join("batch.ndjson");
    std::fs::write(&batch, batch_of(3)).unwrap();
    let doc = dir.path().join("doc.json");
    std::fs::write(&doc, corpus_file("vast_020k.json")).unwrap();

    let server = start(config()).await;
    for (route, body, content_type, lines) in [
        ("/decode", &doc, "application/json", 0),
        ("/decode/batch", &batch, "application/x-ndjson", 3),
    ] {
        let answer = dir.path().join("answer");
        let Some(out) = run(
            "curl",
            &[
                "-sS",
                "-v",
                "--http2-prior-knowledge",
                "--expect100-timeout",
                "10",
                "-H",
                "expect: 100-continue",
                "-H",
                &format!("content-type: {content_type}"),
                "--data-binary",
                &format!("@{}", body.display()),
                "-o",
                answer.to_str().unwrap(),
                "-w",
                "%{http_version} %{http_code}",
                &server.url(route),
            ],
        )
        .await
        else {
            break;
        };
        let trace = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{route}: {trace}");
        assert!(trace.contains("> expect: 100-continue"), "{route}: {trace}");
        let continued = trace.find("< HTTP/2 100");
        let answered = trace.find("< HTTP/2 200");
        assert!(continued.is_some(), "{route}: no 100: {trace}");
        assert!(continued < answered, "{route}: {trace}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "2 200", "{route}");
        let answer = std::fs::read(&answer).unwrap();
        if lines > 0 {
            assert_eq!(answer.iter().filter(|&&b| b == b'\n').count(), lines);
        } else {
            let v: serde_json::Value = serde_json::from_slice(&answer).unwrap();
            assert!(v.is_object(), "{route}: {v}");
        }
    }
    drop(server);

    // Go's bundled h2 (ALPN over TLS; Go does not speak h2c) waits `ExpectContinueTimeout` (5 s) for the 100.
    let ca = rcgen::CertifiedIssuer::self_signed(
        {
            let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
            params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
            params
        },
        rcgen::KeyPair::generate().unwrap(),
    )
    .unwrap();
    let key = rcgen::KeyPair::generate().unwrap();
    let leaf = rcgen::CertificateParams::new(vec!["localhost".to_owned()])
        .unwrap()
        .signed_by(&key, &ca)
        .unwrap();
    let pem = |name: &str, text: String| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let ca_file = pem("ca.crt", ca.pem());
    let mut tls = config();
    tls.server.tls.cert = Some(pem("tls.crt", leaf.pem()));
    tls.server.tls.key = Some(pem("tls.key", key.serialize_pem()));
    let server = start(tls).await;
    let url = server
        .url("/decode/batch")
        .replacen("http://127.0.0.1", "https://localhost", 1);
    let args = [
        "run",
        &script("expect.go"),
        &url,
        batch.to_str().unwrap(),
        ca_file.to_str().unwrap(),
    ];
    if let Some(out) = run("go", &args).await {
        let v: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("expect.go: {e}: {}", String::from_utf8_lossy(&out.stderr)));
        assert_eq!(v["proto"], "HTTP/2.0", "{v}");
        assert_eq!(v["got100"], true, "{v}");
        assert_eq!(v["status"], 200, "{v}");
        assert_eq!(v["lines"], 3, "{v}");
    }
}

/// `n` bytes that deflate does not shrink (xorshift).
fn noise(n: usize) -> Vec<u8> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// An answer given before an h2 request body was read reaches curl (`--http2-prior-knowledge`) and httpx (h2)
/// as the answer HTTP/1.1 gives, not as a stream error: a 5 MiB body refused from `Content-Length` (413), an
/// unknown `Content-Encoding` (415), and a gzip bomb refused once 4 MiB have inflated (413) with 3 MiB still to
/// send. The unread rest of each body is read and discarded, so the client finishes sending and reads the answer.
#[tokio::test]
async fn early_answers_over_h2c_reach_curl_and_httpx() {
    let server = start(config()).await;
    let dir = tempfile::tempdir().unwrap();
    let url = server.url("/decode");
    let mut bomb = vec![0u8; 8 << 20];
    bomb.extend_from_slice(&noise(3 << 20));
    // (name, body, header, status, error code)
    type Case = (
        &'static str,
        Vec<u8>,
        Option<&'static str>,
        u16,
        &'static str,
    );
    let cases: Vec<Case> = vec![
        (
            "too_large",
            vec![b' '; 5 << 20],
            None,
            413,
            "payload_too_large",
        ),
        (
            "unknown_coding",
            vec![b' '; 2 << 20],
            Some("content-encoding:compress"),
            415,
            "unsupported_encoding",
        ),
        (
            "bomb",
            gzip(&bomb),
            Some("content-encoding:gzip"),
            413,
            "payload_too_large",
        ),
    ];
    let python = have_python_clients().await;
    for (name, body, header, status, code) in cases {
        let file = dir.path().join(name);
        std::fs::write(&file, &body).unwrap();
        let answer = dir.path().join(format!("{name}.answer"));
        let mut args = vec![
            "-sS".to_owned(),
            "--http2-prior-knowledge".to_owned(),
            "--data-binary".to_owned(),
            format!("@{}", file.display()),
            "-o".to_owned(),
            answer.display().to_string(),
            "-w".to_owned(),
            "%{http_version} %{http_code}".to_owned(),
        ];
        if let Some(h) = header {
            args.extend(["-H".to_owned(), h.replacen(':', ": ", 1)]);
        }
        args.push(url.clone());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        if let Some(out) = run("curl", &args).await {
            assert!(
                out.status.success(),
                "{name}: curl exit {:?}: {}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            );
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                format!("2 {status}"),
                "{name}"
            );
            let v: serde_json::Value =
                serde_json::from_slice(&std::fs::read(&answer).unwrap()).unwrap();
            assert_eq!(v["error"]["code"], code, "{name}: {v}");
        }
        if python {
            let headers: Vec<&str> = header.into_iter().collect();
            let v = python_post("httpx-h2", &url, &file, &headers).await;
            assert_eq!(v["status"], status, "{name}: {v}");
            assert_eq!(v["version"], "HTTP/2", "{name}: {v}");
            let answer: serde_json::Value =
                serde_json::from_str(v["body"].as_str().unwrap()).unwrap();
            assert_eq!(answer["error"]["code"], code, "{name}: {v}");
        }
    }
}

/// An h2 header list over 64 KiB (here ~70 KB in one field) gets the JSON 431 `header_fields_too_large` that
/// HTTP/1.1 gives the same head, on its stream (the connection goes on serving), counted under
/// `route="unmatched"`: from httpx (h2) and from reqwest (hyper's h2 client), neither of which checks the
/// server's `SETTINGS_MAX_HEADER_LIST_SIZE` before sending. curl (nghttp2) refuses to send a header block over
/// 64 KiB itself (a local `REFUSED_STREAM`, retried, exit 56): no server sees it.
#[tokio::test]
async fn an_h2_header_list_over_64_kib_is_a_json_431() {
    let server = start(config()).await;
    let big = "a".repeat(70_000);
    let url = server.url("/healthz");

    let h2 = crate::common::client_builder()
        .http2_prior_knowledge()
        .build()
        .unwrap();
    let res = h2.get(&url).header("x-big", &big).send().await.unwrap();
    assert_eq!(res.version(), reqwest::Version::HTTP_2);
    assert!(res.headers().contains_key("x-request-id"));
    let (status, v) = json(res).await;
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (431, Some("header_fields_too_large")),
        "{v}"
    );
    // The same connection still serves.
    let res = h2.get(&url).send().await.unwrap();
    assert_eq!(res.status(), 200);

    // The same head over HTTP/1.1: the same code.
    let res = server
        .client
        .get(&url)
        .header("x-big", &big)
        .send()
        .await
        .unwrap();
    let (status, h1) = json(res).await;
    assert_eq!(
        (status, h1["error"]["code"].as_str()),
        (431, Some("header_fields_too_large"))
    );

    let mut refused = 2.0;
    if have_python_clients().await {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty");
        std::fs::write(&empty, b"").unwrap();
        let header = format!("x-big:{big}");
        let v = python_post("httpx-h2", &server.url("/decode"), &empty, &[&header]).await;
        assert_eq!(v["status"], 431, "{v}");
        let answer: serde_json::Value = serde_json::from_str(v["body"].as_str().unwrap()).unwrap();
        assert_eq!(answer["error"]["code"], "header_fields_too_large", "{v}");
        refused += 1.0;
    }
    let text = server.metrics().await;
    assert_eq!(
        value(
            &text,
            "bidscan_http_requests_total{route=\"unmatched\",status=\"431\"}"
        ),
        refused
    );
}

/// The discarding of an unread h2 body is bounded: a client that goes on sending after the early answer (here
/// a 415, and 4 KiB every 50 ms for ever) has its stream reset about 2 s later, and the connection serves on.
#[tokio::test]
async fn an_unread_h2_body_is_discarded_for_2_s_at_most() {
    let server = start(config()).await;
    let h2 = crate::common::client_builder()
        .http2_prior_knowledge()
        .build()
        .unwrap();
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<Vec<u8>, std::io::Error>>(1);
    let body = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|chunk| (chunk, rx))
    });
    let sender = tokio::spawn(async move {
        loop {
            if tx.send(Ok(vec![b' '; 4096])).await.is_err() {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    });
    let res = h2
        .post(server.url("/decode"))
        .header("content-encoding", "compress")
        .body(reqwest::Body::wrap_stream(body))
        .send()
        .await
        .unwrap();
    let answered = std::time::Instant::now();
    let (status, v) = json(res).await;
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (415, Some("unsupported_encoding"))
    );
    // The sender stops when the client drops the body stream, after the server's reset.
    tokio::time::timeout(std::time::Duration::from_secs(10), sender)
        .await
        .expect("the stream was not reset within 10 s")
        .unwrap();
    let took = answered.elapsed();
    assert!(
        took >= std::time::Duration::from_millis(1500) && took < std::time::Duration::from_secs(6),
        "{took:?}"
    );
    let res = h2.get(server.url("/healthz")).send().await.unwrap();
    assert_eq!(res.status(), 200);
}
