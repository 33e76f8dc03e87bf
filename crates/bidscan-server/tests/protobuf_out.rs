//! Protobuf out: `POST /decode` answers the canonical `BidResponse` as protobuf when `Accept` prefers it (q-values,
//! ranges, JSON on ties, 406 when nothing fits, errors in JSON), with the counts in `X-Bidscan-Issues` and
//! `X-Bidscan-Errors`; `bidscan transcode` converts JSON and protobuf both ways, refusing an integer outside int32
//! and naming each dropped `ext` member. The answers are read back with the library's decoder, and with Google's
//! protobuf runtime (Python, grpcio-tools) where it is installed.

use crate::common;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use bidscan_openrtb::{Mode, ProtobufLimits};
use common::*;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_bidscan");
const FEATURES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../corpus/protobuf-features"
);

const BID: &str = r#"{"id":"r","cur":"USD","seatbid":[{"seat":"s","bid":[{"id":"b","impid":"1","price":1.5,"crid":"c","w":300,"h":250,"adm":"<div>x</div>","ext":{"prebid":{"type":"banner"},"dsa":{"behalf":"B","paid":"P","adrender":1}}}]}]}"#;

/// The canonical response of a protobuf body, as a JSON value (the library's decoder).
fn decoded(pb: &[u8]) -> Value {
    let mut rendered = String::new();
    let d = bidscan_openrtb::decode_protobuf(
        pb,
        &mut rendered,
        Mode::Lenient,
        ProtobufLimits::default(),
    )
    .unwrap_or_else(|e| panic!("the answer decodes: {e}"));
    serde_json::to_value(&d.response).unwrap()
}

async fn decode(server: &TestServer, accept: Option<&str>, body: &str) -> reqwest::Response {
    let headers: Vec<(&str, &str)> = accept.map(|a| ("accept", a)).into_iter().collect();
    server
        .post("/decode", &headers, body.as_bytes().to_vec())
        .await
}

#[tokio::test]
async fn decode_answers_protobuf_when_accept_prefers_it() {
    let server = start(config()).await;
    let json = decode(&server, None, BID).await;
    assert_eq!(json.headers()["content-type"], "application/json");
    let envelope: Value = serde_json::from_slice(&json.bytes().await.unwrap()).unwrap();
    for accept in [
        "application/x-protobuf",
        "application/protobuf",
        "application/vnd.google.protobuf",
        "application/json;q=0.5, application/x-protobuf",
        "*/*;q=0.1, application/x-protobuf;q=0.2",
        "application/json;q=0, */*",
        // Named exactly, it wins over the wildcard at equal weight.
        "application/x-protobuf, */*",
    ] {
        let res = decode(&server, Some(accept), BID).await;
        assert_eq!(res.status(), 200, "{accept}");
        let h = res.headers().clone();
        assert_eq!(h["content-type"], "application/x-protobuf", "{accept}");
        assert_eq!(
            h["x-bidscan-issues"],
            envelope["issues"].as_array().unwrap().len().to_string()
        );
        let errors = envelope["issues"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["severity"] == "error")
            .count();
        assert_eq!(h["x-bidscan-errors"], errors.to_string());
        assert!(h.get_all("vary").iter().any(|v| v == "accept"), "{accept}");
        let pb = res.bytes().await.unwrap();
        let mut expected = envelope["response"].clone();
        // The one member no protobuf field carries.
        expected["seatbid"][0]["bid"][0]["ext"]
            .as_object_mut()
            .unwrap()
            .remove("prebid");
        assert_eq!(decoded(&pb), expected, "{accept}");
    }
    // JSON on ties and for ranges that take both.
    for accept in [
        "*/*",
        "application/*",
        "application/x-protobuf, application/json",
        "",
    ] {
        let res = decode(&server, Some(accept), BID).await;
        assert_eq!(
            res.headers()["content-type"],
            "application/json",
            "{accept:?}"
        );
        assert!(res.headers().get("x-bidscan-issues").is_none());
    }
}

/// The answer carries `Vary: accept`.
fn varies_by_accept(res: &reqwest::Response) -> bool {
    res.headers().get_all("vary").iter().any(|v| {
        v.to_str()
            .is_ok_and(|v| v.split(',').any(|t| t.trim() == "accept"))
    })
}

#[tokio::test]
async fn nothing_acceptable_is_406_and_errors_stay_json() {
    let server = start(config()).await;
    for accept in [
        "text/html",
        "application/json;q=0, application/x-protobuf;q=0",
        "*/*;q=0",
    ] {
        let res = decode(&server, Some(accept), BID).await;
        assert_eq!(res.status(), 406, "{accept}");
        assert_eq!(res.headers()["content-type"], "application/json");
        assert!(varies_by_accept(&res), "{accept}");
        let body: Value = serde_json::from_slice(&res.bytes().await.unwrap()).unwrap();
        assert_eq!(body["error"]["code"], "not_acceptable");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("application/json") && message.contains("application/x-protobuf"),
            "{message}"
        );
    }
    // A body that does not decode: the error is JSON, whatever was asked for.
    let res = decode(&server, Some("application/x-protobuf"), "{").await;
    assert_eq!(res.status(), 400);
    assert_eq!(res.headers()["content-type"], "application/json");
    assert!(varies_by_accept(&res));
    // Every error of a route that negotiates says so (RFC 9110 §12.5.5): a bad query, a body over the limit, a
    // call that is not multipart. `/validate` answers JSON only, and says nothing of `Accept`.
    let res = server
        .post("/decode?view=nope", &[], BID.as_bytes().to_vec())
        .await;
    assert_eq!(res.status(), 400);
    assert!(varies_by_accept(&res));
    let res = server.post("/decode", &[], vec![b' '; (4 << 20) + 1]).await;
    assert_eq!(res.status(), 413);
    assert!(varies_by_accept(&res));
    let res = server
        .post("/validate/auction", &[], BID.as_bytes().to_vec())
        .await;
    assert_eq!(res.status(), 400);
    assert!(varies_by_accept(&res));
    let res = server.post("/validate", &[], b"{".to_vec()).await;
    assert_eq!(res.status(), 400);
    assert!(!varies_by_accept(&res));
    // An integer outside int32 cannot be answered as protobuf: 422 with its path, in JSON.
    let wide =
        r#"{"id":"r","seatbid":[{"bid":[{"id":"b","impid":"1","price":1,"dur":4294967296}]}]}"#;
    let res = decode(&server, Some("application/x-protobuf"), wide).await;
    assert_eq!(res.status(), 422);
    let body: Value = serde_json::from_slice(&res.bytes().await.unwrap()).unwrap();
    assert_eq!(body["error"]["code"], "not_encodable");
    assert_eq!(body["error"]["path"], "/seatbid/0/bid/0/dur");
    // The same body, answered in JSON, is fine.
    assert_eq!(decode(&server, None, wide).await.status(), 200);
    // It decoded: counted as a bid, not as an internal failure.
    let (_, metrics) = server.get_text("/metrics").await;
    let internal: Vec<&str> = metrics
        .lines()
        .filter(|l| {
            l.starts_with("bidscan_decode_outcomes_total") && l.contains("outcome=\"internal\"")
        })
        .collect();
    assert!(
        !internal.is_empty() && internal.iter().all(|l| l.ends_with(" 0")),
        "{internal:?}"
    );
}

#[tokio::test]
async fn a_protobuf_body_answered_in_protobuf_is_its_own_bytes() {
    let server = start(config()).await;
    for name in ["dsa-skadn-ext", "native-object-adm"] {
        let twin = std::fs::read(format!("{FEATURES}/{name}.pb")).unwrap();
        let res = server
            .post(
                "/decode",
                &[
                    ("content-type", "application/x-protobuf"),
                    ("accept", "application/x-protobuf"),
                ],
                twin.clone(),
            )
            .await;
        assert_eq!(res.status(), 200);
        assert_eq!(res.bytes().await.unwrap(), twin, "{name}");
    }
    // With curl.
    let twin = format!("{FEATURES}/dsa-skadn-ext.pb");
    let url = server.url("/decode");
    // Off the runtime: the server answers on it.
    let out = tokio::task::spawn_blocking(move || {
        Command::new("curl")
            .args([
                "-s",
                "-D",
                "-",
                "-o",
                "/dev/null",
                "-H",
                "content-type: application/x-protobuf",
            ])
            .args([
                "-H",
                "accept: application/x-protobuf;q=0.9, application/json;q=0.8",
            ])
            .args(["--data-binary", &format!("@{twin}"), &url])
            .output()
            .expect("curl runs")
    })
    .await
    .unwrap();
    let head = String::from_utf8_lossy(&out.stdout).to_lowercase();
    assert!(
        head.contains("content-type: application/x-protobuf"),
        "{head}"
    );
    assert!(head.contains("x-bidscan-issues: "), "{head}");
}

fn bidscan(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A command that refuses its arguments exits without reading stdin: a broken pipe then is no failure.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

#[test]
fn transcode_both_ways_round_trips() {
    let dir = std::env::temp_dir().join(format!("bidscan-transcode-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["dsa-skadn-ext", "native-object-adm", "seatnonbid-igi-ext"] {
        let twin = format!("{FEATURES}/{name}.pb");
        let json = dir.join(format!("{name}.json"));
        let back = dir.join(format!("{name}.pb"));
        let out = bidscan(&["transcode", &twin, "-o", json.to_str().unwrap()], b"");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = bidscan(
            &[
                "transcode",
                json.to_str().unwrap(),
                "-o",
                back.to_str().unwrap(),
            ],
            b"",
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stderr.is_empty(),
            "nothing dropped: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let (a, b) = (std::fs::read(&twin).unwrap(), std::fs::read(&back).unwrap());
        assert_eq!(decoded(&a), decoded(&b), "{name}");
    }
    // stdin to stdout, directions from the flags.
    let out = bidscan(
        &["transcode", "-", "--from", "json", "--to", "protobuf"],
        BID.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: /seatbid/0/bid/0/ext/prebid dropped"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert_eq!(
        decoded(&out.stdout)["seatbid"][0]["bid"][0]["ext"]["dsa"]["adrender"],
        1
    );
    let json = bidscan(&["transcode", "-", "--from", "protobuf"], &out.stdout);
    assert_eq!(json.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["seatbid"][0]["bid"][0]["w"], 300);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn transcode_refuses_int32_overflow_and_bid_requests() {
    let wide =
        br#"{"id":"r","seatbid":[{"bid":[{"id":"b","impid":"1","price":1,"h":-2147483649}]}]}"#;
    let out = bidscan(&["transcode", "-", "--to", "protobuf"], wide);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("/seatbid/0/bid/0/h") && stderr.contains("outside int32"),
        "{stderr}"
    );
    let out = bidscan(&["transcode", "-", "--kind", "request"], b"{}");
    assert_eq!(out.status.code(), Some(2));
    let out = bidscan(&["transcode", "-", "--from", "protobuf"], b"\xff\xff");
    assert_eq!(out.status.code(), Some(1), "malformed protobuf");
}

#[test]
fn google_protobuf_reads_what_transcode_writes() {
    // Google's runtime, from Python (grpcio-tools compiles the schema): skipped where it is not installed.
    let probe = Command::new("python3")
        .args(["-c", "import grpc_tools, google.protobuf"])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: python3 with grpcio-tools is not installed");
        return;
    }
    let out = bidscan(&["transcode", "-", "--to", "protobuf"], BID.as_bytes());
    assert_eq!(out.status.code(), Some(0));
    let proto = concat!(env!("CARGO_MANIFEST_DIR"), "/../bidscan-proto/proto");
    let script = format!(
        r#"
import sys, tempfile, importlib, os, grpc_tools
from grpc_tools import protoc
from google.protobuf import json_format
out = tempfile.mkdtemp()
inc = os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")
assert protoc.main(["protoc", "-I{proto}", "-I" + inc, "--python_out=" + out, "bidresponse.proto"]) == 0
sys.path.insert(0, out)
pb = importlib.import_module("bidresponse_pb2")
m = pb.BidResponse()
m.ParseFromString(sys.stdin.buffer.read())
b = m.seatbid[0].bid[0]
print(m.id, b.w, b.h, b.price, b.ext.dsa.behalf, b.ext.dsa.adrender)
"#
    );
    let mut child = Command::new("python3")
        .args(["-c", &script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&out.stdout).unwrap();
    let read = child.wait_with_output().unwrap();
    assert!(
        read.status.success(),
        "{}",
        String::from_utf8_lossy(&read.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&read.stdout).trim(),
        "r 300 250 1.5 B True"
    );
}
