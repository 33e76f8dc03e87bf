//! [`Dispatch`]: `POST /decode` and `POST /validate` go straight to a [`DecodeService`] each; every other request
//! goes through the axum router.
//!
//! The router wraps each route in a boxed service that every request clones (with everything below it), inserts
//! the matched path and URL parameters into the request's extension map, and re-boxes the answer: ~8 k
//! instructions and a dozen allocations per request (BENCHMARKS.md, "Service cost"). The decode route is nearly
//! all the traffic, so it is matched here first (method and exact path, as the router matches it) and served by
//! [`DecodeService`], which folds the router's `/decode` layers into one service with the same behaviour (see
//! [`crate::routes::pipeline`]). `GET /decode` and every other method still reach the router, which answers 405 through its
//! decode layers as before, inside [`crate::routes::layers::request::RequestLayer`]. `POST /validate`, whose router layers
//! are `/decode`'s, is matched the same way (session 15: through the router it cost ~1.3× `/decode` over HTTP
//! once `/decode` was folded, against ~1.1× before).
//!
//! [`Dispatch`] is a hyper service rather than a tower one: hyper-util's tower adapter clones the whole
//! application and drives a `Oneshot` per request, which only the router's routes still pay.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use axum::Router;
use axum::body::Body;
use axum::http::{Method, Request, Response};
use hyper::body::Incoming;
use pin_project_lite::pin_project;
use tower::ServiceExt;
use tower::util::Oneshot;

use crate::routes::layers::request::RequestService;
use crate::routes::pipeline::{DECODE_PATH, DecodeFuture, DecodeService, VALIDATE_PATH};

/// The application's routing, as the hyper service each connection calls: see the module docs.
#[derive(Clone)]
pub struct Dispatch {
    decode: DecodeService,
    validate: DecodeService,
    rest: RequestService<Router>,
}

impl Dispatch {
    /// `decode` for `POST /decode`, `validate` for `POST /validate`, `rest` (the router inside
    /// [`crate::routes::layers::request::RequestLayer`]) for everything else.
    pub fn new(
        decode: DecodeService,
        validate: DecodeService,
        rest: RequestService<Router>,
    ) -> Dispatch {
        Dispatch {
            decode,
            validate,
            rest,
        }
    }
}

impl hyper::service::Service<Request<Incoming>> for Dispatch {
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = DispatchFuture;

    fn call(&self, req: Request<Incoming>) -> DispatchFuture {
        let folded = match req.uri().path() {
            _ if req.method() != Method::POST => None,
            DECODE_PATH => Some(&self.decode),
            VALIDATE_PATH => Some(&self.validate),
            _ => None,
        };
        match folded {
            // No clone of anything per request: the folded service answers from `&self`.
            Some(service) => DispatchFuture::Decode {
                inner: service.call(req),
            },
            None => DispatchFuture::Router {
                inner: self.rest.clone().oneshot(req),
            },
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
        Router { #[pin] inner: Oneshot<RequestService<Router>, Request<Incoming>> },
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
