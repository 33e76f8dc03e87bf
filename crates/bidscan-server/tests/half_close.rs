//! A client that half-closes its side right after a complete request (`shutdown(SHUT_WR)`, what `nc -N` and
//! some proxies do) still gets its answer: end-of-input means "no more requests", not "drop the request in
//! flight" (hyper's `half_close(true)`).

use crate::common;

use std::time::Duration;

use common::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Sends `request`, shuts the write side at once, and reads until the server closes (bounded in time).
async fn half_closed(base: &str, request: &[u8]) -> String {
    let addr = base.trim_start_matches("http://");
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request).await.unwrap();
    stream.shutdown().await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .expect("the server closes after answering")
        .unwrap_or(0);
    String::from_utf8_lossy(&answer).into_owned()
}

#[tokio::test]
async fn a_half_closed_connection_is_answered() {
    let server = start(config()).await;
    let body = r#"{"id":"r1"}"#;
    let decode = format!(
        "POST /decode HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    for round in 0..20 {
        let answer = half_closed(&server.base, decode.as_bytes()).await;
        assert!(
            answer.starts_with("HTTP/1.1 200"),
            "round {round}: {answer:?}"
        );
        assert!(
            answer.contains(r#""status":"nobid""#),
            "round {round}: {answer:?}"
        );
        let health = half_closed(&server.base, b"GET /healthz HTTP/1.0\r\n\r\n").await;
        assert!(
            health.starts_with("HTTP/1.0 200") || health.starts_with("HTTP/1.1 200"),
            "round {round}: {health:?}"
        );
    }
}
