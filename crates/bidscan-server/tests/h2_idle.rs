//! `server.header_read_timeout_secs` over HTTP/2 (`transport/conn/h2_idle.rs`): with a timeout of 1 s, an h2c
//! connection that sends only the preface and SETTINGS, or only PINGs, or goes idle after an answer, is shut down
//! (`GOAWAY`) and closed within about 2 s; one with a request in progress (a slow body) is not, while its stream
//! is open. A real server; raw frames, and the h2 crate as the client.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use axum::http::Request;
use bytes::Bytes;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::common::*;

const IDLE_CLOSES: &str = "bidscan_http2_idle_closes_total";
/// The HTTP/2 connection preface (RFC 9113 §3.4) and an empty SETTINGS frame (§6.5).
const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\x04\0\0\0\0\0";
/// A PING frame (RFC 9113 §6.7): length 8, type 6, stream 0, 8 bytes of data.
const PING: &[u8] = b"\0\0\x08\x06\0\0\0\0\0bidscan!";
/// The frame type of GOAWAY (RFC 9113 §6.8).
const GOAWAY: u8 = 7;

async fn server() -> (TestServer, SocketAddr) {
    let mut c = config();
    c.server.header_read_timeout_secs = 1;
    c.server.request_timeout_secs = 10;
    let server = start(c).await;
    let addr = server.base.trim_start_matches("http://").parse().unwrap();
    (server, addr)
}

/// Reads `tcp` to its end (EOF or reset, within `within`), pinging every 200 ms when `ping`; the frame types
/// received (from the whole frames read) and when the end came, `None` when it did not come in time.
async fn read_to_close(tcp: TcpStream, ping: bool, within: Duration) -> (Vec<u8>, Option<Instant>) {
    let (mut rd, mut wr) = tcp.into_split();
    let pinger = tokio::spawn(async move {
        while ping && wr.write_all(PING).await.is_ok() {
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        wr
    });
    let until = tokio::time::Instant::now() + within;
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let ended = loop {
        match tokio::time::timeout_at(until, rd.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => break Some(Instant::now()),
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
            Err(_) => break None,
        }
    };
    pinger.abort();
    let mut types = Vec::new();
    let mut at = 0;
    while at + 9 <= got.len() {
        let len = u32::from_be_bytes([0, got[at], got[at + 1], got[at + 2]]) as usize;
        types.push(got[at + 3]);
        at += 9 + len;
    }
    (types, ended)
}

/// A connection that sends only the preface and SETTINGS (`ping`: and PINGs) is sent a GOAWAY and closed after
/// the timeout, and counted.
async fn silent_connection_is_closed(ping: bool) {
    let (server, addr) = server().await;
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    let opened = Instant::now();
    tcp.write_all(PREFACE).await.unwrap();
    let (types, ended) = read_to_close(tcp, ping, Duration::from_secs(5)).await;
    let ended = ended.expect("the idle HTTP/2 connection was not closed within 5 s");
    let after = ended - opened;
    assert!(
        after >= Duration::from_millis(900),
        "closed after {after:?}, before the header-read timeout"
    );
    assert!(after <= Duration::from_secs(3), "closed after {after:?}");
    assert!(
        types.contains(&GOAWAY),
        "no GOAWAY before the close: {types:?}"
    );
    assert!(value(&server.metrics().await, IDLE_CLOSES) >= 1.0);
}

#[tokio::test]
async fn a_connection_that_sends_only_settings_is_closed() {
    silent_connection_is_closed(false).await;
}

#[tokio::test]
async fn a_connection_that_only_pings_is_closed() {
    silent_connection_is_closed(true).await;
}

/// The h2 crate's client on `addr`: its request handle and its connection's driver (resolves when the server
/// closes the connection).
async fn h2_client(
    addr: SocketAddr,
) -> (
    h2::client::SendRequest<Bytes>,
    tokio::task::JoinHandle<Result<(), h2::Error>>,
) {
    let tcp = TcpStream::connect(addr).await.unwrap();
    let (client, conn) = h2::client::handshake(tcp).await.unwrap();
    (client, tokio::spawn(conn))
}

#[tokio::test]
async fn a_connection_idle_after_an_answer_is_closed() {
    let (_server, addr) = server().await;
    let (client, driver) = h2_client(addr).await;
    // Past the timeout since the accept, but the answer below restarts it.
    tokio::time::sleep(Duration::from_millis(600)).await;
    let mut client = client.ready().await.unwrap();
    let req = Request::get(format!("http://{addr}/healthz"))
        .body(())
        .unwrap();
    let (answer, _) = client.send_request(req, true).unwrap();
    let res = answer.await.unwrap();
    assert_eq!(res.status(), 200);
    let answered = Instant::now();
    let ended = tokio::time::timeout(Duration::from_secs(5), driver)
        .await
        .expect("the HTTP/2 connection idle after its answer was not closed within 5 s");
    let after = answered.elapsed();
    assert!(ended.unwrap().is_ok(), "not a graceful close");
    assert!(
        after >= Duration::from_millis(900),
        "closed {after:?} after the answer"
    );
    assert!(
        after <= Duration::from_secs(3),
        "closed {after:?} after the answer"
    );
}

#[tokio::test]
async fn a_connection_with_a_request_in_progress_is_not_closed() {
    let (server, addr) = server().await;
    let (client, driver) = h2_client(addr).await;
    let doc = Bytes::from(corpus_file("vast_110k.json"));
    let mut client = client.ready().await.unwrap();
    let req = Request::post(format!("http://{addr}/decode"))
        .header("content-type", "application/json")
        .body(())
        .unwrap();
    let (answer, mut body) = client.send_request(req, false).unwrap();
    // Half the body, then nothing for twice the timeout (and past the close grace): the stream stays open.
    let half = doc.len() / 2;
    body.send_data(doc.slice(..half), false).unwrap();
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert!(
        !driver.is_finished(),
        "the connection closed with its stream open"
    );
    body.send_data(doc.slice(half..), true).unwrap();
    let res = tokio::time::timeout(Duration::from_secs(5), answer)
        .await
        .expect("no answer")
        .unwrap();
    assert_eq!(res.status(), 200);
    let mut body = res.into_body();
    while let Some(chunk) = body.data().await {
        let chunk = chunk.unwrap();
        let _ = body.flow_control().release_capacity(chunk.len());
    }
    assert_eq!(value(&server.metrics().await, IDLE_CLOSES), 0.0);
    // Idle from here on: closed.
    let ended = tokio::time::timeout(Duration::from_secs(4), driver)
        .await
        .expect("the connection was not closed once idle");
    assert!(ended.unwrap().is_ok());
}
