//! [`Dispatch`]: the hyper service each connection calls. A request to a document route goes to that route's
//! [`Pipeline`], whatever its method; every other request goes through the router inside
//! [`RequestLayer`](crate::routes::layers::request::RequestLayer).
//!
//! The path is matched exactly, as the router matches it, before any router work: the router wraps each route in
//! a boxed service that every request clones (with everything below it), inserts the matched path and URL
//! parameters into the request's extension map and re-boxes the answer, and the document routes carry nearly all
//! the traffic. [`Dispatch`] is a hyper service rather than a tower one for the same reason: hyper-util's tower
//! adapter clones the whole application and drives a `Oneshot` per request, which only the router's routes pay.
//!
//! Before either, an HTTP/2 request whose header list is over [`MAX_READ_BUFFER`] bytes (RFC 9113 §6.5.2's size:
//! each field's name and value plus 32, pseudo-header fields included) is answered at once with the JSON 431
//! `header_fields_too_large` an HTTP/1.1 head of that size gets, counted in
//! `bidscan_http_requests_total{route="unmatched",status="431"}`. hyper's h2 decoder keeps lists up to
//! [`H2_MAX_HEADER_LIST`](crate::transport::conn::limits::H2_MAX_HEADER_LIST) for this check; a longer one never
//! reaches the service: h2 answers it a bare 431 itself, uncounted (hyper offers no hook). Refusing the stream
//! instead (`REFUSED_STREAM`) would tell the client to retry the same request, which fails the same way.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use axum::Router;
use axum::body::Body;
use axum::http::{Request, Response, Version};
use axum::response::IntoResponse;
use hyper::body::Incoming;
use pin_project_lite::pin_project;
use tower::ServiceExt;
use tower::util::Oneshot;

use crate::error::{ApiError, ErrorCode};
use crate::metrics::Metrics;
use crate::routes::layers::request::{self, RequestService, X_REQUEST_ID};
use crate::routes::layers::unread::DiscardUnread;
use crate::routes::pipeline::{Pipeline, PipelineFuture};
use crate::transport::conn::limits::MAX_READ_BUFFER;

/// The target of this module's log lines (`log.level` filters name it; docs/operations.md, "Logs").
const LOG_TARGET: &str = "bidscan_server::rejects";

/// The application's routing, as the hyper service each connection calls: see the module docs.
#[derive(Clone)]
pub struct Dispatch {
    /// One per document route, matched in order by path.
    pipelines: Arc<[Pipeline]>,
    rest: RequestService<Router>,
    /// Where the 431s given here are counted.
    metrics: Arc<Metrics>,
}

impl Dispatch {
    /// `pipelines` for their paths, `rest` (the router inside
    /// [`RequestLayer`](crate::routes::layers::request::RequestLayer)) for everything else.
    /// 431s given here (HTTP/2 header lists over [`MAX_READ_BUFFER`]) are counted in `metrics`.
    pub fn new(
        pipelines: Vec<Pipeline>,
        rest: RequestService<Router>,
        metrics: Arc<Metrics>,
    ) -> Dispatch {
        Dispatch {
            pipelines: pipelines.into(),
            rest,
            metrics,
        }
    }

    /// The JSON 431 for an HTTP/2 header list of `size` bytes, counted as a refused head.
    fn head_too_large(&self, size: usize) -> Response<Body> {
        self.metrics
            .http_requests
            .with_label_values(&["unmatched", "431"])
            .inc();
        tracing::debug!(target: LOG_TARGET, size, "HTTP/2 header list refused");
        let e = ApiError::new(
            ErrorCode::HeaderFieldsTooLarge,
            format!(
                "the request's header list is {size} bytes (RFC 9113 §6.5.2), more than {MAX_READ_BUFFER}"
            ),
        );
        let mut res = e.into_response();
        res.headers_mut().insert(X_REQUEST_ID, request::new_id());
        res
    }
}

/// The size of `req`'s header list as RFC 9113 §6.5.2 counts it (RFC 7541 §4.1: name, value and 32 bytes per
/// field), with the pseudo-header fields an HTTP/2 request carries.
fn header_list_size<B>(req: &Request<B>) -> usize {
    const FIELD: usize = 32;
    let uri = req.uri();
    let pseudo = [
        (":method".len(), req.method().as_str().len()),
        (":scheme".len(), uri.scheme_str().map_or(0, str::len)),
        (
            ":authority".len(),
            uri.authority().map_or(0, |a| a.as_str().len()),
        ),
        (
            ":path".len(),
            uri.path_and_query().map_or(0, |p| p.as_str().len()),
        ),
    ];
    let pseudo: usize = pseudo.iter().map(|(n, v)| n + v + FIELD).sum();
    req.headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + FIELD)
        .sum::<usize>()
        + pseudo
}

impl hyper::service::Service<Request<Incoming>> for Dispatch {
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = DispatchFuture;

    fn call(&self, req: Request<Incoming>) -> DispatchFuture {
        // An HTTP/2 body left unread is discarded for a while rather than reset, so an early answer is read.
        let req = DiscardUnread::wrap(req);
        if req.version() == Version::HTTP_2 {
            let size = header_list_size(&req);
            if size > MAX_READ_BUFFER {
                return DispatchFuture::Ready {
                    response: Some(self.head_too_large(size)),
                };
            }
        }
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
    // anything else's, `Ready` an answer given in `Dispatch` (taken when polled).
    #[allow(missing_docs)]
    #[project = DispatchProj]
    pub enum DispatchFuture {
        Pipeline { #[pin] inner: PipelineFuture },
        Router { #[pin] inner: Oneshot<RequestService<Router>, Request<DiscardUnread>> },
        Ready { response: Option<Response<Body>> },
    }
}

impl Future for DispatchFuture {
    type Output = Result<Response<Body>, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project() {
            DispatchProj::Pipeline { inner } => Poll::Ready(Ok(ready!(inner.poll(cx)))),
            DispatchProj::Router { inner } => inner.poll(cx),
            DispatchProj::Ready { response } => {
                Poll::Ready(Ok(response.take().expect("polled after completion")))
            }
        }
    }
}
