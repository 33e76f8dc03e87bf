//! [`Dispatch`]: the hyper service each connection calls. A request to a document route goes to that route's
//! [`Pipeline`], whatever its method; every other request goes through the router inside
//! [`RequestLayer`](crate::routes::layers::request::RequestLayer).
//!
//! The path is matched exactly, as the router matches it, before any router work: the router wraps each route in
//! a boxed service that every request clones (with everything below it), inserts the matched path and URL
//! parameters into the request's extension map and re-boxes the answer, and the document routes carry nearly all
//! the traffic. [`Dispatch`] is a hyper service rather than a tower one for the same reason: hyper-util's tower
//! adapter clones the whole application and drives a `Oneshot` per request, which only the router's routes pay.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use axum::Router;
use axum::body::Body;
use axum::http::{Request, Response};
use hyper::body::Incoming;
use pin_project_lite::pin_project;
use tower::ServiceExt;
use tower::util::Oneshot;

use crate::routes::layers::request::RequestService;
use crate::routes::pipeline::{Pipeline, PipelineFuture};

/// The application's routing, as the hyper service each connection calls: see the module docs.
#[derive(Clone)]
pub struct Dispatch {
    /// One per document route, matched in order by path.
    pipelines: Arc<[Pipeline]>,
    rest: RequestService<Router>,
}

impl Dispatch {
    /// `pipelines` for their paths, `rest` (the router inside
    /// [`RequestLayer`](crate::routes::layers::request::RequestLayer)) for everything else.
    pub fn new(pipelines: Vec<Pipeline>, rest: RequestService<Router>) -> Dispatch {
        Dispatch {
            pipelines: pipelines.into(),
            rest,
        }
    }
}

impl hyper::service::Service<Request<Incoming>> for Dispatch {
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = DispatchFuture;

    fn call(&self, req: Request<Incoming>) -> DispatchFuture {
        let path = req.uri().path();
        match self.pipelines.iter().find(|p| p.path() == path) {
            // No clone of anything per request: the pipeline answers from `&self`.
            Some(pipeline) => DispatchFuture::Pipeline {
                inner: pipeline.call(req),
            },
            None => DispatchFuture::Router {
                inner: self.rest.clone().oneshot(req),
            },
        }
    }
}

pin_project! {
    /// The response future of [`Dispatch`].
    // pin-project-lite takes no docs on variant fields: `Pipeline` is a document route's answer, `Router`
    // anything else's.
    #[allow(missing_docs)]
    #[project = DispatchProj]
    pub enum DispatchFuture {
        Pipeline { #[pin] inner: PipelineFuture },
        Router { #[pin] inner: Oneshot<RequestService<Router>, Request<Incoming>> },
    }
}

impl Future for DispatchFuture {
    type Output = Result<Response<Body>, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project() {
            DispatchProj::Pipeline { inner } => Poll::Ready(Ok(ready!(inner.poll(cx)))),
            DispatchProj::Router { inner } => inner.poll(cx),
        }
    }
}
