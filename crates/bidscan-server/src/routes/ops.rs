//! Operational routes: `/`, `/healthz`, `/readyz`, `/metrics`, `/openapi.json`, and the 404 fallback.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::json;

use crate::error::{ApiError, ErrorBody, ErrorCode};
use crate::routes::state::AppState;

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

/// Prometheus text exposition (version 0.0.4) of every bidscan metric and the process metrics.
#[utoipa::path(
    get,
    path = "/metrics",
    tag = "ops",
    responses((status = 200, description = "Prometheus text format", content_type = "text/plain; version=0.0.4", body = String))
)]
pub async fn metrics(State(state): State<AppState>) -> Result<Response, ApiError> {
    state.gate.update_gauges();
    state
        .metrics()
        .inflight_bytes
        .set(i64::try_from(state.memory.in_use()).unwrap_or(i64::MAX));
    let text = state
        .metrics()
        .render()
        .map_err(|e| ApiError::new(ErrorCode::Internal, e.to_string()))?;
    Ok((
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
        )],
        text,
    )
        .into_response())
}

/// 404 for every other path.
pub async fn not_found() -> ApiError {
    ApiError::new(ErrorCode::NotFound, "no such route; see / for the routes")
}
