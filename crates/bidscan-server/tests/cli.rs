//! The `bidscan` binary: `decode` (same JSON as the service, exit codes) and `health`.

use crate::common;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use common::*;

const BIN: &str = env!("CARGO_BIN_EXE_bidscan");

fn bidscan(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

#[tokio::test]
async fn decode_prints_what_the_service_answers() {
    let server = start(config()).await;
    for name in ["vast_php_020k.json", "nobid_nbr.json", "nurl_only.json"] {
        let path = format!("{CORPUS}/{name}");
        let out = tokio::task::spawn_blocking(move || bidscan(&["decode", &path], b""))
            .await
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let res = server.post("/decode", &[], corpus_file(name)).await;
        let http = res.bytes().await.unwrap();
        assert_eq!(
            out.stdout.strip_suffix(b"\n").unwrap(),
            &http[..],
            "{name}: same bytes as POST /decode"
        );
    }
}

#[test]
fn decode_inspects_markup_unless_told_not_to() {
    let file = format!("{CORPUS}/vast_020k.json");
    for (flag, keys) in [("all", 11), ("none", 2)] {
        let out = bidscan(
            &["decode", &file, "--view", "summary", "--inspect", flag],
            b"",
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let adm = v["summary"]["bids"][0]["adm"].as_object().unwrap().clone();
        assert_eq!(adm.len(), keys, "--inspect {flag}: {adm:?}");
        assert_eq!(adm["kind"], "vast");
    }
    assert_eq!(
        bidscan(&["decode", &file, "--inspect", "some"], b"")
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn decode_a_directory_one_line_per_file() {
    let out = bidscan(&["decode", CORPUS, "--view", "summary"], b"");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let docs = corpus();
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), docs.len());
    for ((name, doc), line) in docs.iter().zip(&lines) {
        assert_eq!(line["summary"]["bid_count"], expected_bids(doc), "{name}");
        assert!(line.get("response").is_none(), "summary view");
    }
    assert!(String::from_utf8_lossy(&out.stderr).contains("0 failed"));
}

/// stdout that cannot take the answers (`/dev/full`: every write fails with ENOSPC) is a failure that is said, and
/// the summary does not claim documents it never decoded.
#[test]
#[cfg(target_os = "linux")]
fn a_failing_stdout_is_reported_and_the_summary_counts_what_ran() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = Command::new(BIN)
        .args(["decode", CORPUS])
        .env_remove("RUST_LOG")
        .stdout(full)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot write to stdout"), "{stderr}");
    let total = corpus().len();
    // The buffered writer fails at its first flush (8 KiB), long before the last of the corpus's documents.
    assert!(
        stderr.contains("not decoded (stdout failed)")
            && !stderr.contains(&format!("{total} decoded")),
        "{stderr}"
    );
}

#[test]
fn exit_status_is_1_when_a_document_fails_and_2_on_usage_errors() {
    let ndjson = b"{\"id\":\"a\"}\n{\"id\":\n[1]\n";
    let out = bidscan(&["decode", "-", "--ndjson"], ndjson);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3);
    assert!(lines[1].contains("\"malformed_json\""), "{stdout}");
    assert!(lines[2].contains("\"not_a_bid_response\""), "{stdout}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("stdin:2"));

    let strict = br#"{"id":"r","seatbid":[{"bid":[{"id":"b","impid":"1","price":"1.5"}]}]}"#;
    assert_eq!(bidscan(&["decode", "-"], strict).status.code(), Some(0));
    assert_eq!(
        bidscan(&["decode", "-", "--strict"], strict).status.code(),
        Some(1)
    );
    // `decode.mode` of the config applies without `--strict`, as the server applies it.
    let dir = tempfile::tempdir().unwrap();
    let toml = dir.path().join("strict.toml");
    std::fs::write(&toml, "[decode]\nmode = \"strict\"\n").unwrap();
    let out = bidscan(&["decode", "-", "--config", toml.to_str().unwrap()], strict);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("number_as_string"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    let nurl = format!("{CORPUS}/nurl_only.json");
    assert_eq!(bidscan(&["decode", &nurl], b"").status.code(), Some(0));
    assert_eq!(
        bidscan(&["decode", &nurl, "--fail-on-issues"], b"")
            .status
            .code(),
        Some(1)
    );

    assert_eq!(
        bidscan(&["decode", "/no/such/file.json"], b"")
            .status
            .code(),
        Some(2)
    );
    assert_eq!(bidscan(&["decode"], b"").status.code(), Some(2));
    assert_eq!(
        bidscan(&["decode", "-", "--view", "huge"], b"")
            .status
            .code(),
        Some(2)
    );
    assert_eq!(bidscan(&["frobnicate"], b"").status.code(), Some(2));
    assert_eq!(bidscan(&["--version"], b"").status.code(), Some(0));
}

#[tokio::test]
async fn health_probes_a_running_server() {
    let server = start(config()).await;
    let url = server.url("/healthz");
    let out = tokio::task::spawn_blocking(move || bidscan(&["health", "--url", &url], b""))
        .await
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let missing = server.url("/nope");
    let out = tokio::task::spawn_blocking(move || bidscan(&["health", "--url", &missing], b""))
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "404 is unhealthy");

    // A port nobody listens on.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let out = bidscan(
        &["health", "--url", &format!("http://{closed}/healthz")],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        bidscan(&["health", "--url", "ftp://x"], b"").status.code(),
        Some(2)
    );

    // Without `--url`, the configured listen port (not always 8080).
    let addr = server
        .url("")
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();
    let port = addr.rsplit(':').next().unwrap().to_owned();
    let out = tokio::task::spawn_blocking(move || {
        Command::new(BIN)
            .arg("health")
            .env("BIDSCAN__SERVER__LISTEN", format!("0.0.0.0:{port}"))
            .env_remove("RUST_LOG")
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains(&format!("127.0.0.1:{}", addr.rsplit(':').next().unwrap()))
    );
    // A configuration that does not load is a usage error, not a probe of port 8080;
    // an invalid `RUST_LOG` is refused by every command, as an invalid `log.level` is.
    for (var, value, args) in [
        ("BIDSCAN__SERVER__LISTEN", "localhost:1", vec!["health"]),
        ("BIDSCAN__LOG__LEVEL", "", vec!["health"]),
        ("RUST_LOG", "bogus", vec!["decode", "-"]),
        ("RUST_LOG", "bogus", vec!["validate", "-"]),
    ] {
        let out = Command::new(BIN)
            .args(&args)
            .env(var, value)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{var}={value} {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// A directory without documents is a usage error (exit 2, named on stderr), not a silent success; `bidscan
/// health` refuses a port past 65535 and a zero timeout as usage errors too.
#[test]
fn an_empty_directory_a_bad_port_and_a_zero_timeout_are_usage_errors() {
    let dir = std::env::temp_dir().join(format!("bidscan-empty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("notes.txt"), "not a document").unwrap();
    for command in ["decode", "validate"] {
        let out = bidscan(&[command, dir.to_str().unwrap()], b"");
        assert_eq!(out.status.code(), Some(2), "{command}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("no *.json, *.ndjson or *.jsonl documents"),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
    std::fs::remove_dir_all(&dir).unwrap();
    let out = bidscan(&["health", "--url", "http://127.0.0.1:99999/healthz"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("port is not 1-65535"));
    let out = bidscan(&["health", "--timeout-secs", "0"], b"");
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `bidscan validate DIR`: a subdirectory holding `request.json` is an auction, answered with the bytes
/// `POST /validate/auction` answers for the same parts; the directory's envelope files keep their answers.
#[tokio::test]
async fn validate_answers_a_directory_of_auctions_as_the_service_does() {
    let pairs =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus/validate-pairs");
    let read = |name: &str| -> (Vec<u8>, Vec<u8>) {
        let v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(pairs.join(name)).unwrap()).unwrap();
        (
            serde_json::to_vec(&v["request"]).unwrap(),
            serde_json::to_vec(&v["response"]).unwrap(),
        )
    };
    let (request, response) = read("adf_multi-format.json");
    let (_, other) = read("ccx_multi-banner.json");
    let dir = tempfile::tempdir().unwrap();
    let auction = dir.path().join("a-001");
    std::fs::create_dir(&auction).unwrap();
    std::fs::write(auction.join("request.json"), &request).unwrap();
    std::fs::write(auction.join("dsp-a.json"), &response).unwrap();
    std::fs::write(auction.join("dsp-b.json"), &other).unwrap();
    std::fs::write(auction.join("dsp-c.json"), b"").unwrap();
    std::fs::copy(
        pairs.join("aax_multi-imps.json"),
        dir.path().join("envelope.json"),
    )
    .unwrap();
    let path = dir.path().to_str().unwrap().to_owned();
    let out = tokio::task::spawn_blocking(move || {
        bidscan(&["validate", &path, "--view", "summary"], b"")
    })
    .await
    .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&[u8]> = out.stdout.split(|&b| b == b'\n').collect();
    assert_eq!(lines.len(), 3, "two answers and the final newline");

    let server = start(config()).await;
    let mut body = Vec::new();
    for (name, content) in [
        ("request", &request),
        ("dsp-a", &response),
        ("dsp-b", &other),
        ("dsp-c", &Vec::new()),
    ] {
        write!(
            body,
            "--b0undary\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n"
        )
        .unwrap();
        body.extend_from_slice(content);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(b"--b0undary--\r\n");
    let res = server
        .post(
            "/validate/auction?view=summary",
            &[("content-type", "multipart/form-data; boundary=b0undary")],
            body,
        )
        .await;
    assert_eq!(res.status(), 200);
    assert_eq!(lines[0], &res.bytes().await.unwrap()[..], "the auction");
    let res = server
        .post(
            "/validate?view=summary",
            &[],
            std::fs::read(pairs.join("aax_multi-imps.json")).unwrap(),
        )
        .await;
    assert_eq!(
        lines[1],
        &res.bytes().await.unwrap()[..],
        "the envelope file"
    );
}

/// `bidscan validate DIR`: an auction's `BIDDER.pb` is that bidder's protobuf bid response, answered as
/// `POST /validate/auction` answers the same bytes in a part typed `application/x-protobuf`; a bidder with two
/// files is refused.
#[tokio::test]
async fn validate_reads_an_auctions_protobuf_bidders() {
    let pairs =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus/validate-pairs");
    let read = |name: &str| -> (Vec<u8>, Vec<u8>) {
        let v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(pairs.join(name)).unwrap()).unwrap();
        (
            serde_json::to_vec(&v["request"]).unwrap(),
            serde_json::to_vec(&v["response"]).unwrap(),
        )
    };
    let (request, response) = read("adf_multi-format.json");
    let (_, other) = read("ccx_multi-banner.json");
    let dir = tempfile::tempdir().unwrap();
    let auction = dir.path().join("a-001");
    std::fs::create_dir(&auction).unwrap();
    std::fs::write(auction.join("request.json"), &request).unwrap();
    std::fs::write(auction.join("dsp-a.json"), &response).unwrap();
    let json = dir.path().join("other.json");
    std::fs::write(&json, &other).unwrap();
    let pb = auction.join("dsp-b.pb");
    let (from, to) = (
        json.to_str().unwrap().to_owned(),
        pb.to_str().unwrap().to_owned(),
    );
    let out = tokio::task::spawn_blocking(move || bidscan(&["transcode", &from, "-o", &to], b""))
        .await
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_file(&json).unwrap();
    let protobuf = std::fs::read(&pb).unwrap();
    assert!(
        !protobuf.is_empty() && protobuf[0] != b'{',
        "a protobuf body"
    );

    let path = auction.parent().unwrap().to_str().unwrap().to_owned();
    let out = tokio::task::spawn_blocking(move || {
        bidscan(&["validate", &path, "--view", "summary"], b"")
    })
    .await
    .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&[u8]> = out.stdout.split(|&b| b == b'\n').collect();
    assert_eq!(lines.len(), 2, "one answer and the final newline");

    let server = start(config()).await;
    let mut body = Vec::new();
    for (name, content, kind) in [
        ("request", &request, ""),
        ("dsp-a", &response, ""),
        (
            "dsp-b",
            &protobuf,
            "Content-Type: application/x-protobuf\r\n",
        ),
    ] {
        write!(
            body,
            "--b0undary\r\nContent-Disposition: form-data; name=\"{name}\"\r\n{kind}\r\n"
        )
        .unwrap();
        body.extend_from_slice(content);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(b"--b0undary--\r\n");
    let res = server
        .post(
            "/validate/auction?view=summary",
            &[("content-type", "multipart/form-data; boundary=b0undary")],
            body,
        )
        .await;
    assert_eq!(res.status(), 200);
    let answer = res.bytes().await.unwrap();
    assert_eq!(lines[0], &answer[..], "the auction");
    let v: serde_json::Value = serde_json::from_slice(&answer).unwrap();
    assert_eq!(v["bidders"][1]["bidder"], "dsp-b");
    assert_ne!(
        v["bidders"][1]["status"], "invalid",
        "the protobuf bidder was read: {v}"
    );

    // Two files of one bidder: refused, named.
    std::fs::write(auction.join("dsp-b.json"), &other).unwrap();
    let path = auction.parent().unwrap().to_str().unwrap().to_owned();
    let out = tokio::task::spawn_blocking(move || bidscan(&["validate", &path], b""))
        .await
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("a second file of bidder"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
