//! The router and its layers.
//!
//! Every route, outermost first: [`RequestLayer`] (keep `x-request-id` or make a UUID, one span per request
//! carrying it, echo it; what tower-http's `SetRequestId` → `Trace` → `PropagateRequestId` did, folded into one
//! layer: see [`crate::routes::layers::request`]), which wraps the whole router, then, per route, metrics ([`TrackLayer`], `route` = the route template) → `CatchPanic`
//! (500 JSON) → [`CloseIfUnreadLayer`] (an error answered before the body was read gets `Connection: close`) →
//! [`RequireHostLayer`] (HTTP/1.1 without one `Host`: 400) → [`json_errors`] (error bodies of the layers below
//! get the JSON shape).
//!
//! The layers are plain tower layers where one does the job (axum's `from_fn` and `map_response` box a future per
//! request), and every `Router::layer` or `MethodRouter::layer` call adds a boxed service that each request
//! clones (with everything below it), so the per-route layers are one `Router::layer` call and the decode
//! layers one `MethodRouter::layer` call (BENCHMARKS.md §6 has the instruction counts).
//!
//! `/decode` adds, outermost first: `PropagateHeader(x-openrtb-version)` → `AnswerErrors` (shed → 503 with
//! `Retry-After`, timeout → 408) → `LoadShed` → `GlobalConcurrencyLimit` (one semaphore, [`AppState::permits`],
//! shared with the batch route) → `Timeout` → [`InflateLayer`] (wire bytes, 413,
//! counted as outcome `too_large`; then gzip, deflate, br, zstd; other encodings 415; bytes after the compressed
//! stream 400) → answer compression ([`compress::layer`], over 1 KiB, when the client's `Accept-Encoding`
//! asks). `/validate` has the same layers. `/decode/batch` streams, so it differs (see `DecodeGuard::batch`). Operational routes (`/`, `/healthz`, `/readyz`, `/metrics`, `/openapi.json`) are
//! never shed, limited or timed out, so probes and scrapes keep working under overload; `/metrics` and
//! `/openapi.json` are compressed like `/decode` and `/validate`.
//!
//! Timeouts answer 408 Request Timeout: the deadline covers receiving the body, which is where a request can be
//! slow (decoding is bounded by the body limit and takes milliseconds at most); 504 would claim an upstream that
//! does not exist.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::routing::{MethodRouter, get, post};
use tokio::sync::Semaphore;
use tower::limit::ConcurrencyLimit;
use tower::limit::GlobalConcurrencyLimitLayer;
use tower::load_shed::LoadShed;
use tower::load_shed::LoadShedLayer;
use tower::timeout::Timeout;
use tower::timeout::TimeoutLayer;
use tower::util::MapResponseLayer;
use tower::{Layer, ServiceBuilder};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::propagate_header::{PropagateHeader, PropagateHeaderLayer};
use tower_http::timeout::RequestBodyTimeoutLayer;

use crate::error::{json_errors, panic_response};
use crate::metrics::HttpMetrics;
use crate::routes::dispatch::Dispatch;
use crate::routes::layers::answer_errors::{AnswerErrors, AnswerErrorsLayer};
use crate::routes::layers::compress;
use crate::routes::layers::host::RequireHostLayer;
use crate::routes::layers::inflate::{Inflate, InflateLayer};
use crate::routes::layers::request::RequestLayer;
use crate::routes::layers::track::TrackLayer;
use crate::routes::layers::unread::CloseIfUnreadLayer;
use crate::routes::pipeline::DecodeService;
pub use crate::routes::state::{AppState, OPENRTB_VERSION};
use crate::routes::{batch, decode, ops, validate};

/// The route templates of [`router`], whose metric handles are kept ([`HttpMetrics`]); a route missing here is
/// still counted, through the slower label lookup.
const ROUTES: [&str; 9] = [
    "/decode",
    "/decode/batch",
    "/validate",
    "/validate/batch",
    "/",
    "/healthz",
    "/readyz",
    "/metrics",
    "/openapi.json",
];

/// The whole application as served: [`Dispatch`] (`POST /decode` by [`DecodeService`], the router's `/decode`
/// layers and [`RequestLayer`] folded into one service; everything else through [`router`] inside
/// [`RequestLayer`]).
pub type App = Dispatch;

/// The whole application: routes, layers, state.
pub fn app(state: AppState) -> App {
    let http = Arc::new(HttpMetrics::new(state.metrics().clone(), &ROUTES));
    let decode = DecodeService::new(&state, http.clone());
    let validate = DecodeService::validate(&state, http.clone());
    Dispatch::new(decode, validate, RequestLayer.layer(routes(state, http)))
}

/// The routes and the layers that need one (the metrics' `route` label), without [`RequestLayer`].
pub fn router(state: AppState) -> Router {
    let http = Arc::new(HttpMetrics::new(state.metrics().clone(), &ROUTES));
    routes(state, http)
}

fn routes(state: AppState, http: Arc<HttpMetrics>) -> Router {
    let server = &state.config.server;
    let guard = DecodeGuard::new(&state);
    Router::new()
        .route(
            "/decode",
            post(decode::decode)
                .layer::<_, Infallible>(compress::layer())
                .layer(guard.decode_layers(server.max_body_bytes)),
        )
        .route(
            "/decode/batch",
            guard.batch(post(batch::batch), server.max_batch_bytes),
        )
        .route(
            "/validate",
            post(validate::validate)
                .layer::<_, Infallible>(compress::layer())
                .layer(guard.decode_layers(server.max_body_bytes)),
        )
        .route(
            "/validate/batch",
            guard.batch(post(validate::validate_batch), server.max_batch_bytes),
        )
        .route("/", get(ops::index))
        .route("/healthz", get(ops::healthz))
        .route("/readyz", get(ops::readyz))
        .route("/metrics", get(ops::metrics).layer(compress::layer()))
        .route(
            "/openapi.json",
            get(crate::routes::openapi::openapi).layer(compress::layer()),
        )
        .fallback(ops::not_found)
        // One `Router::layer` call: each adds a boxed, per-request-cloned service to every route.
        .layer(
            ServiceBuilder::new()
                .layer(TrackLayer::new(http))
                .layer(CatchPanicLayer::custom(panic_response))
                .layer(CloseIfUnreadLayer)
                .layer(RequireHostLayer)
                .layer(MapResponseLayer::new(json_errors)),
        )
        .with_state(state)
}

/// The layers of the decode routes.
#[derive(Clone)]
struct DecodeGuard {
    permits: Arc<Semaphore>,
    /// `bidscan_decode_outcomes_total{outcome="too_large"}`, for 413s decided from `Content-Length`.
    too_large: prometheus::IntCounter,
    timeout: Duration,
    retry_after: u64,
}

impl DecodeGuard {
    fn new(state: &AppState) -> DecodeGuard {
        DecodeGuard {
            permits: state.permits.clone(),
            too_large: state.metrics().outcomes.with_label_values(&["too_large"]),
            timeout: state.config.request_timeout(),
            retry_after: state.config.server.retry_after_secs,
        }
    }

    /// `/decode`: shed past the concurrency limit, time the whole request out, limit and decompress the body.
    fn decode_layers(&self, wire_limit: usize) -> DecodeLayers {
        DecodeLayers {
            permits: self.permits.clone(),
            too_large: self.too_large.clone(),
            timeout: self.timeout,
            retry_after: self.retry_after,
            wire_limit,
        }
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
                .layer(InflateLayer::new(wire_limit, None)),
        )
    }
}

/// The layers of `/decode` below the per-route ones, outermost first: `PropagateHeader(x-openrtb-version)` →
/// [`AnswerErrors`] → `LoadShed` → `GlobalConcurrencyLimit` → `Timeout` → [`InflateLayer`] (wire limit, 413
/// counted as `too_large`, decompression). One named layer, used by the router's `/decode` (which answers
/// `GET /decode` 405 through it) and `/validate`; `POST /decode` is [`DecodeService`], the same steps folded.
#[derive(Clone)]
pub struct DecodeLayers {
    permits: Arc<Semaphore>,
    too_large: prometheus::IntCounter,
    timeout: Duration,
    retry_after: u64,
    wire_limit: usize,
}

impl<S> Layer<S> for DecodeLayers {
    type Service = PropagateHeader<AnswerErrors<LoadShed<ConcurrencyLimit<Timeout<Inflate<S>>>>>>;

    fn layer(&self, inner: S) -> Self::Service {
        ServiceBuilder::new()
            .layer(PropagateHeaderLayer::new(OPENRTB_VERSION))
            .layer(AnswerErrorsLayer::new(self.retry_after))
            .layer(LoadShedLayer::new())
            .layer(GlobalConcurrencyLimitLayer::with_semaphore(
                self.permits.clone(),
            ))
            .layer(TimeoutLayer::new(self.timeout))
            .layer(InflateLayer::new(
                self.wire_limit,
                Some(self.too_large.clone()),
            ))
            .service(inner)
    }
}
