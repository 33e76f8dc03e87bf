//! Operational routes: `/`, `/healthz`, `/readyz`, `/metrics`, `/openapi.json`, and the 404 fallback.
//!
//! Their answers count in memory as the document routes' do, because an HTTP/2 client can leave any answer
//! unread (128 streams a connection, `SETTINGS_INITIAL_WINDOW_SIZE` 0) until `server.send_timeout_secs`:
//! - `/openapi.json` is the same for every client: built once per set of policy profile names, served as shared
//!   `Bytes` (reference-counted: a thousand unread streams hold one copy), each coding compressed once
//!   ([`crate::routes::openapi`]);
//! - `/metrics` is rendered per request: its bytes are reserved in `server.max_inflight_bytes` before it is
//!   rendered (the size of the last rendering) and held until the answer is sent ([`memory::hold`]); a scrape that
//!   cannot reserve is 503 `overloaded` with `Retry-After`, counted `bidscan_shed_total{reason="memory"}`;
//! - `/`, `/healthz` and `/readyz` answer a few hundred bytes and are never shed.
//!
//! Answers of at least [`compress::COMPRESS_ABOVE`] bytes are compressed at once with the coding
//! [`compress::preferred`] chooses, never by a streaming compressor that an unread answer would keep alive.

use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Json;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http_body_util::Full;
use serde::Serialize;
use serde_json::json;

use crate::error::{ApiError, ErrorBody, ErrorCode};
use crate::routes::layers::compress::{self, Coding, Effort};
use crate::routes::state::AppState;
use crate::transport::memory::{self, Reservation};

/// `{"status": "..."}`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct StatusBody {
    /// `ok`, `ready`.
    pub status: &'static str,
}

/// Name, version, uptime and links to the other routes.
#[utoipa::path(get, path = "/", tag = "ops", responses((status = 200, description = "Service description", body = Object)))]
pub async fn index(State(state): State<AppState>) -> Json<serde_json::Value> {
    Json(json!({
        "name": "bidscan",
        "version": env!("CARGO_PKG_VERSION"),
        "description": "Decodes OpenRTB 2.5/2.6 bid responses: POST one to /decode, or a {\"request\", \"response\"} envelope to /validate.",
        "uptime_secs": state.started.elapsed().as_secs(),
        "links": {
            "decode": "/decode",
            "batch": "/decode/batch",
            "validate": "/validate",
            "validate_batch": "/validate/batch",
            "health": "/healthz",
            "ready": "/readyz",
            "metrics": "/metrics",
            "openapi": "/openapi.json",
        }
    }))
}

/// Liveness: 200 while the process serves HTTP (also while draining).
#[utoipa::path(get, path = "/healthz", tag = "ops", responses((status = 200, description = "Alive", body = StatusBody)))]
pub async fn healthz() -> Json<StatusBody> {
    Json(StatusBody { status: "ok" })
}

/// Readiness: 200, or 503 `draining` from the moment a shutdown signal arrives.
#[utoipa::path(
    get,
    path = "/readyz",
    tag = "ops",
    responses(
        (status = 200, description = "Ready to take traffic", body = StatusBody),
        (status = 503, description = "Draining: take this instance out of rotation", body = ErrorBody),
    )
)]
pub async fn readyz(State(state): State<AppState>) -> Response {
    if state.is_draining() {
        // A balancer that reads `Retry-After` waits before probing again, as for any other 503.
        ApiError {
            retry_after: Some(state.config.server.retry_after_secs),
            ..ApiError::of(ErrorCode::Draining)
        }
        .into_response()
    } else {
        Json(StatusBody { status: "ready" }).into_response()
    }
}

/// Prometheus text exposition (version 0.0.4) of every bidscan metric and the process metrics; 503 `overloaded`
/// when `server.max_inflight_bytes` has no room for it.
#[utoipa::path(
    get,
    path = "/metrics",
    tag = "ops",
    responses(
        (status = 200, description = "Prometheus text format", content_type = "text/plain; version=0.0.4", body = String),
        (status = 503, description = "Overloaded: server.max_inflight_bytes has no room for the answer", body = ErrorBody),
    )
)]
pub async fn metrics(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    state.gate.update_gauges();
    // The bytes of the other requests: this one's reservation is not in the gauge.
    state
        .metrics()
        .inflight_bytes
        .set(i64::try_from(state.memory.in_use()).unwrap_or(i64::MAX));
    // Reserved before rendering, at the last rendering's size, so that the rendering itself is bounded.
    let mut reservation = state
        .memory
        .try_reserve(LAST_RENDERED.load(Ordering::Relaxed))
        .ok_or_else(|| state.shed_memory())?;
    let text = state
        .metrics()
        .render()
        .map_err(|e| ApiError::new(ErrorCode::Internal, e.to_string()))?;
    LAST_RENDERED.store(text.len(), Ordering::Relaxed);
    if !reservation.cover(text.len()) {
        return Err(state.shed_memory());
    }
    let content_type = HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8");
    Ok(answer(
        content_type,
        Bytes::from(text),
        accepted(&headers),
        |text, coding| Bytes::from(coding.encode(text, Effort::Fastest)),
        Some(reservation),
    ))
}

/// The length of the last `/metrics` rendering, in bytes: what the next one reserves before it renders (16 KiB
/// before the first).
static LAST_RENDERED: AtomicUsize = AtomicUsize::new(16 * 1024);

/// The coding `headers`' `Accept-Encoding` prefers ([`compress::preferred`]).
pub fn accepted(headers: &HeaderMap) -> Option<Coding> {
    headers
        .get(header::ACCEPT_ENCODING)
        .and_then(|accept| compress::preferred(accept.as_bytes()))
}

/// The 200 of an operational route: `plain` as `content_type`, or, when it has at least
/// [`compress::COMPRESS_ABOVE`] bytes, `encode(plain, coding)` under `coding` when the request accepts one (with
/// `Vary: accept-encoding` either way, as tower-http's compressor answers). The body holds `reservation` (when
/// given) until it is sent, trimmed to what is sent.
pub fn answer(
    content_type: HeaderValue,
    plain: Bytes,
    coding: Option<Coding>,
    encode: impl FnOnce(&Bytes, Coding) -> Bytes,
    reservation: Option<Reservation>,
) -> Response {
    let long = compress::compressible(plain.len());
    let coding = coding.filter(|_| long);
    let bytes = match coding {
        Some(coding) => encode(&plain, coding),
        None => plain,
    };
    let body = match reservation {
        Some(mut reservation) => {
            reservation.trim(bytes.len());
            memory::hold(Full::new(bytes), reservation)
        }
        None => Body::from(bytes),
    };
    let mut res = Response::new(body);
    let fields = res.headers_mut();
    fields.insert(header::CONTENT_TYPE, content_type);
    if long {
        fields.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    }
    if let Some(coding) = coding {
        fields.insert(header::CONTENT_ENCODING, coding.header());
    }
    res
}

/// 404 for every other path.
pub async fn not_found() -> ApiError {
    ApiError::new(ErrorCode::NotFound, "no such route; see / for the routes")
}
