//! [`Dispatch`]: `POST /decode` goes straight to [`DecodeService`]; every other request goes through the axum
//! router.
//!
//! The router wraps each route in a boxed service that every request clones (with everything below it), inserts
//! the matched path and URL parameters into the request's extension map, and re-boxes the answer: ~8 k
//! instructions and a dozen allocations per request (BENCHMARKS.md, "Service cost"). The decode route is nearly
//! all the traffic, so it is matched here first (method and exact path, as the router matches it) and served by
//! [`DecodeService`], which folds the router's `/decode` layers into one service with the same behaviour (see
//! [`crate::hot`]). `GET /decode` and every other method still reach the router, which answers 405 through its
//! decode layers as before.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use axum::Router;
use axum::body::Body;
use axum::http::{Method, Request, Response};
use axum::routing::future::RouteFuture;
use bytes::Bytes;
use pin_project_lite::pin_project;
use tower::{BoxError, Service};

use crate::hot::{DecodeFuture, DecodeService};

/// The path [`Dispatch`] serves without the router.
pub const DECODE_PATH: &str = "/decode";

/// The application's routing: see the module docs.
#[derive(Clone)]
pub struct Dispatch {
    decode: DecodeService,
    router: Router,
}

impl Dispatch {
    /// `decode` for `POST /decode`, `router` for everything else.
    pub fn new(decode: DecodeService, router: Router) -> Dispatch {
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
        // Readiness is each route's own business: the decode service sheds inside its answer, the router is
        // always ready.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<B>) -> DispatchFuture {
        if req.method() == Method::POST && req.uri().path() == DECODE_PATH {
            DispatchFuture::Decode {
                inner: self.decode.call(req),
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
    // pin-project-lite takes no docs on variant fields: `Decode` is `POST /decode` (the decode service's
    // answer), `Router` anything else.
    #[allow(missing_docs)]
    #[project = DispatchProj]
    pub enum DispatchFuture {
        Decode { #[pin] inner: DecodeFuture },
        Router { #[pin] inner: RouteFuture<Infallible> },
    }
}

impl Future for DispatchFuture {
    type Output = Result<Response<Body>, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project() {
            DispatchProj::Decode { inner } => Poll::Ready(Ok(ready!(inner.poll(cx)))),
            DispatchProj::Router { inner } => inner.poll(cx),
        }
    }
}
