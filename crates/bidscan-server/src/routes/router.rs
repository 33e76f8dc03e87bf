//! [`router`]: the axum router of every route that is not a document route ([`crate::routes::DOCUMENT_ROUTES`]):
//! the operational routes, the streamed batch routes and the 404 fallback, with their tower layers. It is served
//! inside [`RequestLayer`](crate::routes::layers::request::RequestLayer) (request id, span, id echo).
//!
//! Every route, outermost first, each with its reason:
//! - [`TrackLayer`]: `bidscan_http_requests_total{route,status}` under the route template, what dashboards read;
//! - `CatchPanic`: a panic is a logged 500 in the JSON shape ([`panic_response`]), not a dropped connection;
//! - [`CloseIfUnreadLayer`]: an error answered before the body was read gets `Connection: close`, so the unread
//!   rest is never taken for the next request;
//! - [`RequireHostLayer`]: RFC 9112 §3.2's `Host` rule, 400 `bad_host`;
//! - [`json_errors`]: the router's own answers (405, 404) and the layers' (413, 415) get the JSON error shape.
//!
//! They are one `Router::layer` call: each call adds a boxed service that every request clones, with everything
//! below it. Operational routes are never shed by `server.max_concurrency`, limited or timed out, so probes and
//! scrapes keep working under overload; `/metrics` alone holds a reservation in `server.max_inflight_bytes` (503
//! when it has no room), and it and `/openapi.json` compress their finished answers ([`ops`]' module docs).
//!
//! The batch routes (`/decode/batch`, `/validate/batch`) are not the pipeline's: their answer streams for as long
//! as their body does, so its request timeout and its permit held until the answer is ready would bound nothing.
//! Their layers, outermost first: `x-openrtb-version` echoed; an idle timeout between body frames (a stalled
//! upload ends the stream with a `timeout` line); [`InflateLayer`] (the wire limit `server.max_batch_bytes`, 413,
//! and the codings). The handler takes a permit that lives as long as the stream (503 when none is free).

use std::sync::Arc;

use axum::Router;
use axum::routing::{MethodRouter, get, post};
use tower::ServiceBuilder;
use tower::util::MapResponseLayer;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::propagate_header::PropagateHeaderLayer;
use tower_http::timeout::RequestBodyTimeoutLayer;

use crate::error::{json_errors, panic_response};
use crate::metrics::HttpMetrics;
use crate::routes::layers::host::RequireHostLayer;
use crate::routes::layers::inflate::InflateLayer;
use crate::routes::layers::track::TrackLayer;
use crate::routes::layers::unread::CloseIfUnreadLayer;
use crate::routes::state::{AppState, OPENRTB_VERSION};
use crate::routes::{batch, ops, validate};

/// The router for `state`, counting into `http` (shared with the pipelines): see the module docs.
pub fn router(state: AppState, http: Arc<HttpMetrics>) -> Router {
    let routes = Router::new()
        .route("/decode/batch", batched(post(batch::batch), &state))
        .route(
            "/validate/batch",
            batched(post(validate::validate_batch), &state),
        );
    layered(operational(routes), state, http)
}

/// The router of `server.ops_listen`: the operational routes alone, with the same layers (every other path is a
/// 404).
pub fn ops_router(state: AppState, http: Arc<HttpMetrics>) -> Router {
    layered(operational(Router::new()), state, http)
}

/// `routes` with the operational routes added.
fn operational(routes: Router<AppState>) -> Router<AppState> {
    routes
        .route("/", get(ops::index))
        .route("/healthz", get(ops::healthz))
        .route("/readyz", get(ops::readyz))
        .route("/metrics", get(ops::metrics))
        .route("/openapi.json", get(crate::routes::openapi::openapi))
}

/// `routes` with the 404 fallback and every route's layers (see the module docs).
fn layered(routes: Router<AppState>, state: AppState, http: Arc<HttpMetrics>) -> Router {
    routes
        .fallback(ops::not_found)
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

/// A batch route's layers (see the module docs).
fn batched(route: MethodRouter<AppState>, state: &AppState) -> MethodRouter<AppState> {
    let config = &state.config;
    route.layer(
        ServiceBuilder::new()
            .layer(PropagateHeaderLayer::new(OPENRTB_VERSION))
            .layer(RequestBodyTimeoutLayer::new(config.request_timeout()))
            .layer(InflateLayer::new(config.server.max_batch_bytes, None)),
    )
}
