//! Routes: what a request meets between its connection ([`crate::transport`]) and the engine ([`crate::engine`]).
//!
//! [`app`] builds the application once: [`Dispatch`] matches a request's path against the document routes
//! ([`DOCUMENT_ROUTES`]) and hands it to that route's [`Pipeline`], the one stack a document request passes,
//! whatever its method; every other request goes to the router ([`router`]), which serves the operational routes
//! (`/`, `/healthz`, `/readyz`, `/metrics`, `/openapi.json`), the streamed batch routes and the 404s, inside
//! [`RequestLayer`](layers::request::RequestLayer). Both answer every error, 405s included, in the one JSON shape
//! of [`crate::error::ApiError`].
//!
//! - [`pipeline`]: the document routes' stack, one step per concern;
//! - [`dispatch`]: the hyper service each connection calls;
//! - [`router`]: the axum router and its tower layers;
//! - [`layers`]: the steps of ours that the router and the pipeline share;
//! - [`params`]: the query of the document and batch routes;
//! - [`negotiate`]: the answer's media type from `Accept` (`/decode`: JSON or protobuf);
//! - the handlers and their OpenAPI descriptions: [`decode`], [`validate`], [`batch`], [`ops`], [`openapi`];
//! - [`state`]: [`AppState`], what every route shares.

pub mod auction_parts;
pub mod batch;
pub mod decode;
pub mod dispatch;
pub mod layers;
pub mod negotiate;
pub mod openapi;
pub mod ops;
pub mod params;
pub mod pipeline;
pub mod router;
pub mod state;
pub mod validate;

use std::sync::Arc;

use tower::Layer;

use crate::engine::Work;
use crate::metrics::HttpMetrics;
pub use dispatch::Dispatch;
use layers::request::RequestLayer;
pub use pipeline::Pipeline;
pub use state::AppState;

/// The document routes, each the [`Pipeline`] of its [`Work`]: a new document route is one more line here.
pub const DOCUMENT_ROUTES: [(&str, Work); 3] = [
    ("/decode", Work::Decode),
    ("/validate", Work::Validate),
    ("/validate/auction", Work::Auction),
];

/// The route templates whose metric handles are kept ([`HttpMetrics`]); a route missing here is still counted,
/// through the slower label lookup.
const ROUTES: [&str; 10] = [
    "/decode",
    "/decode/batch",
    "/validate",
    "/validate/auction",
    "/validate/batch",
    "/",
    "/healthz",
    "/readyz",
    "/metrics",
    "/openapi.json",
];

/// The whole application as served: see the module docs.
pub type App = Dispatch;

/// The whole application for `state`: one [`Pipeline`] per document route, the router for the rest.
pub fn app(state: AppState) -> App {
    let http = Arc::new(HttpMetrics::new(state.metrics().clone(), &ROUTES));
    let pipelines = DOCUMENT_ROUTES
        .iter()
        .map(|&(path, work)| Pipeline::new(path, work, &state, http.clone()))
        .collect();
    let metrics = state.metrics().clone();
    Dispatch::new(
        pipelines,
        RequestLayer.layer(router::router(state, http)),
        metrics,
    )
}

/// The application of `server.ops_listen`: the operational routes alone (no document or batch route), with the
/// same request layer and metrics.
pub fn ops_app(state: AppState) -> App {
    let http = Arc::new(HttpMetrics::new(state.metrics().clone(), &ROUTES));
    let metrics = state.metrics().clone();
    Dispatch::new(
        Vec::new(),
        RequestLayer.layer(router::ops_router(state, http)),
        metrics,
    )
}
