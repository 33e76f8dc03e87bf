//! The HTTP floor of the service benchmarks: a plain hyper HTTP/1.1 server that answers every request with the
//! same 60-byte JSON body, reading (and discarding) the request body first. No routing, no layers, no decoding:
//! what one tokio worker and hyper cost per request on this machine, to set beside `bidscan serve` and the
//! baseline server (BENCHMARKS.md, "The service: requests per second").
//!
//! Build: `cargo build --release -p bidscan-bench --features http --bin floor_server`.
//!
//! `floor_server [ADDR]` (default `127.0.0.1:18092`; loopback only is intended). `FLOOR_WORKERS=N` sets the tokio
//! worker threads (default: one per CPU the process may run on).
#![forbid(unsafe_code)]

use std::convert::Infallible;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, header};
use hyper_util::rt::TokioIo;

/// The answer: 60 bytes, about the size of a short no-bid answer's head of JSON.
const BODY: &[u8; 60] = br#"{"status":"nobid","summary":{"bids":0},"issues":[],"ok":"y"}"#;

async fn answer(req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    // Read the body to its end, as any server that looks at it must (errors just end the connection later).
    let _ = req.into_body().collect().await;
    let mut res = Response::new(Full::new(Bytes::from_static(BODY)));
    res.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    Ok(res)
}

fn main() -> std::io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:18092".to_owned());
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    builder.enable_all();
    if let Some(n) = std::env::var("FLOOR_WORKERS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        builder.worker_threads(n);
    }
    builder.build()?.block_on(async move {
        let listener = tokio::net::TcpListener::bind(&addr).await?;
        eprintln!("floor_server listening on {addr}");
        loop {
            let (stream, _) = tokio::select! {
                accepted = listener.accept() => accepted?,
                _ = tokio::signal::ctrl_c() => return Ok(()),
            };
            tokio::spawn(async move {
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service_fn(answer))
                    .await;
            });
        }
    })
}
