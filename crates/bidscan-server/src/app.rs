//! The router and its layers.
//!
//! Every route, outermost first: `SetRequestId` (keep `x-request-id` or make a UUID) → `Trace` (one span per
//! request, carrying the id) → `PropagateRequestId` (echo it) → metrics (`route` = the route template) →
//! `CatchPanic` (500 JSON) → [`close_if_unread`] (an error answered before the body was read gets
//! `Connection: close`) → [`json_errors`] (error bodies of the layers below get the JSON shape).
//!
//! `/decode` adds, outermost first: `PropagateHeader(x-openrtb-version)` → `HandleError` (shed → 503 with
//! `Retry-After`, timeout → 408) → `LoadShed` → `GlobalConcurrencyLimit` (one semaphore, [`AppState::permits`],
//! shared with the batch route) → `Timeout` → `RequestBodyLimit` (wire bytes, 413) → `RequestDecompression`
//! (gzip, deflate, br, zstd; other encodings 415). `/decode/batch` streams, so it differs (see
//! `DecodeGuard::batch`). Operational routes (`/`, `/healthz`, `/readyz`, `/metrics`, `/openapi.json`) are
//! never shed, limited or timed out, so probes and scrapes keep working under overload.
//!
//! Timeouts answer 408 Request Timeout: the deadline covers receiving the body, which is where a request can be
//! slow (decoding is bounded by the body limit and takes milliseconds at most); 504 would claim an upstream that
//! does not exist.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::error_handling::HandleErrorLayer;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderName, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get, post};
use tokio::sync::Semaphore;
use tower::limit::GlobalConcurrencyLimitLayer;
use tower::load_shed::LoadShedLayer;
use tower::timeout::TimeoutLayer;
use tower::{BoxError, ServiceBuilder};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::decompression::RequestDecompressionLayer;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::propagate_header::PropagateHeaderLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::timeout::RequestBodyTimeoutLayer;
use tower_http::trace::{DefaultOnFailure, TraceLayer};

use crate::body::close_if_unread;
use crate::config::Config;
use crate::engine::Engine;
use crate::error::{ApiError, json_errors, panic_response};
use crate::metrics::Metrics;
use crate::routes::{batch, decode, ops};

/// Header echoed on decode responses when the request sends it.
pub const OPENRTB_VERSION: HeaderName = HeaderName::from_static("x-openrtb-version");

/// What handlers share. Cheap to clone.
#[derive(Clone)]
pub struct AppState {
    /// The configuration the server runs with.
    pub config: Arc<Config>,
    /// Decoding and its pools.
    pub engine: Engine,
    /// Set when the shutdown signal arrives: `/readyz` answers 503 from then on.
    pub draining: Arc<AtomicBool>,
    /// When the server started (for `/`).
    pub started: Instant,
    /// Decode requests in flight, at most `server.max_concurrency`: `/decode` holds a permit (through the
    /// concurrency-limit layer) until its answer is ready, `/decode/batch` until its stream ends.
    pub permits: Arc<Semaphore>,
}

impl AppState {
    /// State for `config` with a fresh metrics registry.
    ///
    /// # Errors
    /// Only if the metrics registry cannot be built (a bug).
    pub fn new(config: Config) -> prometheus::Result<AppState> {
        let metrics = Arc::new(Metrics::new()?);
        let reader = bidscan_json::ReaderConfig {
            max_depth: config.decode.max_depth,
        };
        Ok(AppState {
            engine: Engine::new(config.pool.to_pool_config(), reader, metrics),
            permits: Arc::new(Semaphore::new(config.server.max_concurrency.max(1))),
            config: Arc::new(config),
            draining: Arc::new(AtomicBool::new(false)),
            started: Instant::now(),
        })
    }

    /// The metrics registry.
    pub fn metrics(&self) -> &Arc<Metrics> {
        self.engine.metrics()
    }

    /// Whether the server is draining.
    pub fn is_draining(&self) -> bool {
        self.draining.load(Ordering::SeqCst)
    }
}

/// The whole application: routes, layers, state.
pub fn router(state: AppState) -> Router {
    let server = &state.config.server;
    let guard = DecodeGuard {
        permits: state.permits.clone(),
        timeout: state.config.request_timeout(),
        retry_after: server.retry_after_secs,
    };
    Router::new()
        .route(
            "/decode",
            guard.decode(post(decode::decode), server.max_body_bytes),
        )
        .route(
            "/decode/batch",
            guard.batch(post(batch::batch), server.max_batch_bytes),
        )
        .route("/", get(ops::index))
        .route("/healthz", get(ops::healthz))
        .route("/readyz", get(ops::readyz))
        .route("/metrics", get(ops::metrics))
        .route("/openapi.json", get(ops::openapi))
        .fallback(ops::not_found)
        .layer(middleware::map_response(json_errors))
        .layer(middleware::from_fn(close_if_unread))
        .layer(CatchPanicLayer::custom(panic_response))
        .layer(middleware::from_fn_with_state(state.clone(), track))
        .layer(PropagateRequestIdLayer::x_request_id())
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(make_span)
                .on_failure(DefaultOnFailure::new().level(tracing::Level::WARN)),
        )
        .layer(SetRequestIdLayer::x_request_id(MakeRequestUuid))
        .with_state(state)
}

/// The layers of the decode routes.
#[derive(Clone)]
struct DecodeGuard {
    permits: Arc<Semaphore>,
    timeout: Duration,
    retry_after: u64,
}

impl DecodeGuard {
    /// `/decode`: shed past the concurrency limit, time the whole request out, limit and decompress the body.
    fn decode(&self, route: MethodRouter<AppState>, wire_limit: usize) -> MethodRouter<AppState> {
        let retry_after = self.retry_after;
        route.layer(
            ServiceBuilder::new()
                .layer(PropagateHeaderLayer::new(OPENRTB_VERSION))
                .layer(HandleErrorLayer::new(move |e: BoxError| async move {
                    overload_error(&e, retry_after)
                }))
                .layer(LoadShedLayer::new())
                .layer(GlobalConcurrencyLimitLayer::with_semaphore(
                    self.permits.clone(),
                ))
                .layer(TimeoutLayer::new(self.timeout))
                .layer(RequestBodyLimitLayer::new(wire_limit))
                .layer(RequestDecompressionLayer::new()),
        )
    }

    /// `/decode/batch`: the answer starts before the body is read and streams for as long as the body does, so a
    /// request timeout or a concurrency layer around the handler's future would bound nothing. Instead the
    /// handler takes a permit that lives as long as the stream (503 when none is free), and the body gets an
    /// idle timeout between frames (a stalled upload ends the stream with a `timeout` error line).
    fn batch(&self, route: MethodRouter<AppState>, wire_limit: usize) -> MethodRouter<AppState> {
        route.layer(
            ServiceBuilder::new()
                .layer(PropagateHeaderLayer::new(OPENRTB_VERSION))
                .layer(RequestBodyTimeoutLayer::new(self.timeout))
                .layer(RequestBodyLimitLayer::new(wire_limit))
                .layer(RequestDecompressionLayer::new()),
        )
    }
}

/// Maps the errors of the shed/limit/timeout layers: overloaded → 503 + `Retry-After`, elapsed → 408.
fn overload_error(e: &BoxError, retry_after: u64) -> ApiError {
    if e.is::<tower::load_shed::error::Overloaded>() {
        ApiError::overloaded(retry_after)
    } else if e.is::<tower::timeout::error::Elapsed>() {
        ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            "timeout",
            "the request was not received and answered within the request timeout",
        )
    } else {
        tracing::error!(error = %e, "unexpected middleware error");
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "internal error",
        )
    }
}

fn make_span(req: &Request) -> tracing::Span {
    let id = req
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    tracing::info_span!("request", method = %req.method(), uri = %req.uri(), request_id = %id)
}

/// Counts `bidscan_http_requests_total{route,status}` and `bidscan_http_request_duration_seconds{route}`.
async fn track(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |p| p.as_str().to_owned());
    let started = Instant::now();
    let res = next.run(req).await;
    let m = state.metrics();
    m.http_duration
        .with_label_values(&[&route])
        .observe(started.elapsed().as_secs_f64());
    m.http_requests
        .with_label_values(&[route.as_str(), res.status().as_str()])
        .inc();
    res.into_response()
}
