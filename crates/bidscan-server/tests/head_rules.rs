//! The request head's rules as a real server answers them on `/decode` (the hot path) and `/validate` (the
//! router): the `Host` value and line count (RFC 9112 §3.2), two `Content-Type` lines (RFC 9110 §8.3), and a
//! `Content-Length` hyper itself refuses (2^64 − 2 or more). RELIABILITY.md F34, F35, F36.

use crate::common;

use std::time::Duration;

use common::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A response read to EOF: status, the `x-request-id`, and the JSON body (`Null` when there is none).
struct Answer {
    status: u16,
    id: bool,
    json: serde_json::Value,
}

/// Sends `head` + `body` in one write on a fresh connection and reads the answer to EOF (heads say
/// `Connection: close`, and refused heads close anyway).
async fn send(server: &TestServer, head: &str, body: &[u8]) -> Answer {
    let addr = server.base.trim_start_matches("http://");
    let mut s = TcpStream::connect(addr).await.unwrap();
    let mut bytes = head.as_bytes().to_vec();
    bytes.extend_from_slice(body);
    // The server may answer and close before it reads everything; the answer is still read below.
    let _ = s.write_all(&bytes).await;
    let mut out = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut out)).await;
    assert!(read.is_ok(), "no EOF within 10 s for {head:?}");
    let text = String::from_utf8_lossy(&out).into_owned();
    let (head_out, body_out) = text
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no answer head for {head:?}: {text:?}"));
    let status = head_out.split(' ').nth(1).unwrap().parse().unwrap();
    let id = head_out
        .lines()
        .any(|l| l.to_ascii_lowercase().starts_with("x-request-id:"));
    let json = serde_json::from_str(body_out).unwrap_or(serde_json::Value::Null);
    Answer { status, id, json }
}

/// A request head for `path` with `version` and extra header lines, for a body of `len` bytes.
fn head(path: &str, version: &str, lines: &[&str], len: usize) -> String {
    let mut h = format!("POST {path} HTTP/{version}\r\n");
    for line in lines {
        h.push_str(line);
        h.push_str("\r\n");
    }
    h.push_str(&format!(
        "content-length: {len}\r\nconnection: close\r\n\r\n"
    ));
    h
}

const DOC: &[u8] = br#"{"id":"r","seatbid":[{"bid":[{"id":"b","impid":"1","price":1.5}]}]}"#;
const PAIR: &[u8] = br#"{"request":{"id":"r","imp":[{"id":"1"}]},"response":{"id":"r","seatbid":[{"bid":[{"id":"b","impid":"1","price":1.5}]}]}}"#;

fn routes() -> [(&'static str, &'static [u8]); 2] {
    [("/decode", DOC), ("/validate", PAIR)]
}

/// F35: the Host value must be `uri-host [":" port]`, and no version may send two Host lines.
#[tokio::test]
async fn host_values_and_lines_follow_rfc_9112() {
    let server = start(config()).await;
    for (path, body) in routes() {
        for (version, lines, message) in [
            ("1.1", &["host: a b"][..], "not a host name"),
            ("1.1", &["host: user@a"], "not a host name"),
            ("1.1", &["host: a, b"], "not a host name"),
            ("1.1", &["host: a:port"], "not a host name"),
            ("1.0", &["host: a", "host: b"], "only one Host"),
            ("1.0", &["host: a", "host: a"], "only one Host"),
            ("1.1", &["host: a", "host: b"], "only one Host"),
            ("1.1", &[], "needs a Host"),
        ] {
            let a = send(&server, &head(path, version, lines, body.len()), body).await;
            let case = format!("{path} HTTP/{version} {lines:?}");
            assert_eq!(a.status, 400, "{case}");
            assert_eq!(a.json["error"]["code"], "bad_host", "{case}");
            let text = a.json["error"]["message"].as_str().unwrap();
            assert!(text.contains(message), "{case}: {text}");
            assert!(a.id, "{case}: no x-request-id");
        }
        for (version, lines) in [
            ("1.1", &["host: localhost:8080"][..]),
            ("1.1", &["host: [::1]:8080"]),
            ("1.1", &["host: 127.0.0.1"]),
            ("1.1", &["host:"]),
            ("1.0", &[]),
            ("1.0", &["host: bidder.example"]),
        ] {
            let a = send(&server, &head(path, version, lines, body.len()), body).await;
            assert_eq!(a.status, 200, "{path} HTTP/{version} {lines:?}: {}", a.json);
        }
    }
}

/// F36: `Content-Type` is a singleton; two lines are 415 whichever comes first. `application/+json` has no
/// subtype name and is 415 too.
#[tokio::test]
async fn two_content_types_are_refused_on_every_route() {
    let server = start(config()).await;
    for (path, body) in routes() {
        for lines in [
            ["content-type: application/json", "content-type: text/xml"],
            ["content-type: text/xml", "content-type: application/json"],
            [
                "content-type: application/json",
                "content-type: application/json",
            ],
        ] {
            let mut all = vec!["host: x"];
            all.extend(lines);
            let a = send(&server, &head(path, "1.1", &all, body.len()), body).await;
            assert_eq!(a.status, 415, "{path} {lines:?}");
            assert_eq!(a.json["error"]["code"], "unsupported_media_type");
            let text = a.json["error"]["message"].as_str().unwrap();
            assert!(text.contains("two Content-Type"), "{path}: {text}");
        }
        let lines = ["host: x", "content-type: application/+json"];
        let a = send(&server, &head(path, "1.1", &lines, body.len()), body).await;
        assert_eq!(a.status, 415, "{path} application/+json");
        let lines = ["host: x", "content-type: application/vnd.x+json"];
        let a = send(&server, &head(path, "1.1", &lines, body.len()), body).await;
        assert_eq!(a.status, 200, "{path} application/vnd.x+json");
    }
}

/// F34: hyper keeps the two largest `Content-Length` values for itself and refuses them with a 431; the
/// service answers 413, as for the values below them, and counts it under `unmatched`.
#[tokio::test]
async fn the_largest_content_lengths_are_413() {
    let server = start(config()).await;
    for length in [
        "18446744073709551613",
        "18446744073709551614",
        "18446744073709551615",
    ] {
        for (path, _) in routes() {
            let h = format!(
                "POST {path} HTTP/1.1\r\nhost: x\r\ncontent-length: {length}\r\nconnection: close\r\n\r\n"
            );
            // With a short body, and with a body in the same write that makes head and body together
            // longer than a head with 101 fields could be (only the head is measured).
            for body in [&b"{}"[..], &[b' '; 500][..]] {
                let a = send(&server, &h, body).await;
                assert_eq!(a.status, 413, "{path} {length} +{}: {}", body.len(), a.json);
                assert_eq!(a.json["error"]["code"], "payload_too_large", "{length}");
                assert!(a.id, "{length}: no x-request-id");
            }
        }
    }
    let text = server.metrics().await;
    let unmatched = value(
        &text,
        r#"bidscan_http_requests_total{route="unmatched",status="413"}"#,
    );
    assert_eq!(
        unmatched, 8.0,
        "the two values hyper refuses, on two routes, with two bodies each"
    );
}
