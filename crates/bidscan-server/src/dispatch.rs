//! [`Dispatch`]: `POST /decode` goes straight to its own layer stack; every other request goes through the axum
//! router.
//!
//! The router wraps each route in a boxed service that every request clones (with everything below it), inserts
//! the matched path and URL parameters into the request's extension map, and re-boxes the answer: ~8 k
//! instructions and a dozen allocations per request, most of what a no-bid cost beyond HTTP (BENCHMARKS.md,
//! "Service cost"). The decode route is nearly all the traffic, so it is matched here first (method and exact
//! path, as the router matches it) and served by [`DecodeRoute`]: the same layers in the same order as the
//! router's `/decode` (metrics under the route `/decode`, panic catcher, close-if-unread, JSON error bodies, then
//! [`DecodeLayers`]) around [`DecodeHandler`], unboxed and cloned per request only as tower requires (the
//! concurrency limit takes its permit in `poll_ready`). `GET /decode` and every other method still reach the
//! router, which answers 405 through the same decode layers as before.

use std::any::Any;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{Method, Request, Response};
use axum::response::IntoResponse;
use axum::routing::future::RouteFuture;
use bytes::Bytes;
use pin_project_lite::pin_project;
use tower::util::{MapResponse, Oneshot};
use tower::{BoxError, Layer, Service, ServiceExt};
use tower_http::catch_panic::{CatchPanic, CatchPanicLayer};

use crate::app::{AppState, DecodeLayers};
use crate::body::{CloseIfUnread, CloseIfUnreadLayer};
use crate::error::{json_errors, panic_response};
use crate::host::{RequireHost, RequireHostLayer};
use crate::metrics::{HttpMetrics, Track, TrackLayer};
use crate::routes::decode;

/// The path [`Dispatch`] serves without the router.
pub const DECODE_PATH: &str = "/decode";

/// `POST /decode` with the layers the router gives it, outermost first: metrics, panic catcher, close-if-unread,
/// the `Host` rule, JSON error bodies, [`DecodeLayers`], the handler.
pub type DecodeRoute = Track<
    CatchPanic<
        CloseIfUnread<
            RequireHost<MapResponse<<DecodeLayers as Layer<DecodeHandler>>::Service, ErrorsFn>>,
        >,
        PanicFn,
    >,
>;

type ErrorsFn = fn(Response<Body>) -> Response<Body>;
type PanicFn = fn(Box<dyn Any + Send + 'static>) -> Response<String>;

/// Builds [`DecodeRoute`] for `state`, counting into `http` (the router's metrics, shared).
pub fn decode_route(state: &AppState, http: Arc<HttpMetrics>, layers: DecodeLayers) -> DecodeRoute {
    let handler = DecodeHandler {
        state: state.clone(),
    };
    let errors: ErrorsFn = json_errors;
    let panic: PanicFn = panic_response;
    TrackLayer::for_route(http, DECODE_PATH).layer(
        CatchPanicLayer::custom(panic).layer(
            CloseIfUnreadLayer
                .layer(RequireHostLayer.layer(MapResponse::new(layers.layer(handler), errors))),
        ),
    )
}

/// `routes::decode::decode` as a tower service (what axum's handler adapter does, without the router).
#[derive(Clone)]
pub struct DecodeHandler {
    state: AppState,
}

impl<B> Service<Request<B>> for DecodeHandler
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<Body>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        let state = self.state.clone();
        Box::pin(async move {
            Ok(decode::decode(State(state), req.map(Body::new))
                .await
                .into_response())
        })
    }
}

/// The application's routing: see the module docs.
#[derive(Clone)]
pub struct Dispatch {
    decode: DecodeRoute,
    router: Router,
}

impl Dispatch {
    /// `decode` for `POST /decode`, `router` for everything else.
    pub fn new(decode: DecodeRoute, router: Router) -> Dispatch {
        Dispatch { decode, router }
    }
}

impl<B> Service<Request<B>> for Dispatch
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = DispatchFuture;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        // Readiness is each route's own business: the decode route is polled ready per request (below), the
        // router always is.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<B>) -> DispatchFuture {
        if req.method() == Method::POST && req.uri().path() == DECODE_PATH {
            DispatchFuture::Decode {
                inner: self.decode.clone().oneshot(req.map(Body::new)),
            }
        } else {
            DispatchFuture::Router {
                inner: self.router.call(req),
            }
        }
    }
}

pin_project! {
    /// The response future of [`Dispatch`].
    // pin-project-lite takes no docs on variant fields: `Decode` is `POST /decode` (the route polled ready and
    // called), `Router` anything else.
    #[allow(missing_docs)]
    #[project = DispatchProj]
    pub enum DispatchFuture {
        Decode { #[pin] inner: Oneshot<DecodeRoute, Request<Body>> },
        Router { #[pin] inner: RouteFuture<Infallible> },
    }
}

impl Future for DispatchFuture {
    type Output = Result<Response<Body>, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project() {
            DispatchProj::Decode { inner } => {
                let res = ready!(inner.poll(cx))?;
                Poll::Ready(Ok(res.map(Body::new)))
            }
            DispatchProj::Router { inner } => inner.poll(cx),
        }
    }
}
