//! The HTTP baseline bidscan is measured against: axum + serde_json + mimalloc doing the same work as
//! `bidscan serve`'s `POST /decode` — decode the body into `bidscan_openrtb::BidResponse` (serde_json, the same
//! lenient model), run the same issue collection and validation (`Decoded::from_response`), and answer the same
//! envelope `{status, response, summary, issues, stats}` (`stats` holds the byte counts only: serde_json keeps no
//! string statistics). Errors: 400 malformed JSON, 422 not a bid response or strict-mode failure, 413 past 4 MiB.
//! No pools, metrics, compression or load shedding: a plain, well-written axum service.
//!
//! Build: `cargo build --release -p bidscan-bench --features http --bin baseline_server`.
//!
//! `baseline_server [ADDR]` (default `127.0.0.1:18091`; loopback only is intended). `BASELINE_WORKERS=N` sets the
//! tokio worker threads (default: one per CPU the process may run on, e.g. after `taskset`).
#![forbid(unsafe_code)]

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Query};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use bidscan_openrtb::{BidResponse, DecodeError, Decoded, Issue, Mode, Status, Summary};
use serde::{Deserialize, Serialize};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// Query of `POST /decode`: `mode=lenient|strict`, `view=full|summary`.
#[derive(Deserialize, Default)]
struct Params {
    mode: Option<String>,
    view: Option<String>,
}

/// Byte counts of the document (the shape of bidscan's `stats`, counters it cannot know left at 0).
#[derive(Serialize)]
struct Stats {
    bytes: usize,
    buffer_bytes_needed: usize,
}

#[derive(Serialize)]
struct Envelope<'a> {
    status: Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    response: Option<&'a BidResponse<'a>>,
    summary: Summary<'a>,
    issues: &'a [Issue],
    stats: Stats,
}

fn json(status: StatusCode, body: Vec<u8>) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

fn error(status: StatusCode, code: &str, message: String) -> Response {
    let body = serde_json::json!({"error": {"code": code, "message": message}});
    json(status, serde_json::to_vec(&body).unwrap_or_default())
}

async fn decode(Query(params): Query<Params>, body: Bytes) -> Response {
    let mode = match params.mode.as_deref() {
        None | Some("lenient") => Mode::Lenient,
        Some("strict") => Mode::Strict,
        Some(other) => {
            return error(
                StatusCode::BAD_REQUEST,
                "bad_query",
                format!("mode={other}"),
            );
        }
    };
    let full = params.view.as_deref() != Some("summary");
    let blank = body
        .iter()
        .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
    let response: BidResponse<'_> = if blank {
        BidResponse::default()
    } else {
        match serde_json::from_slice(&body) {
            Ok(r) => r,
            Err(e) if e.is_data() => {
                return error(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "not_a_bid_response",
                    e.to_string(),
                );
            }
            Err(e) => return error(StatusCode::BAD_REQUEST, "malformed_json", e.to_string()),
        }
    };
    let decoded = match Decoded::from_response(response, mode) {
        Ok(d) => d,
        Err(e @ (DecodeError::Strict { .. } | DecodeError::NotABidResponse { .. })) => {
            return error(StatusCode::UNPROCESSABLE_ENTITY, e.code(), e.to_string());
        }
        Err(e) => return error(StatusCode::BAD_REQUEST, e.code(), e.to_string()),
    };
    let envelope = Envelope {
        status: decoded.status,
        response: full.then_some(&decoded.response),
        summary: decoded.summary(),
        issues: &decoded.issues,
        stats: Stats {
            bytes: body.len(),
            buffer_bytes_needed: body.len(),
        },
    };
    json(
        StatusCode::OK,
        serde_json::to_vec(&envelope).unwrap_or_default(),
    )
}

fn main() -> std::io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:18091".to_owned());
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    builder.enable_all();
    if let Some(n) = std::env::var("BASELINE_WORKERS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        builder.worker_threads(n);
    }
    builder.build()?.block_on(async move {
        let app = Router::new()
            .route("/decode", post(decode))
            .route("/healthz", get(|| async { "ok" }))
            .layer(DefaultBodyLimit::max(MAX_BODY_BYTES));
        let listener = tokio::net::TcpListener::bind(&addr).await?;
        eprintln!("baseline_server listening on {addr}");
        axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
    })
}
