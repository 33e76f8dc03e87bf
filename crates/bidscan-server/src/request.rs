//! [`RequestLayer`]: the outermost layer — request id, trace span, id echo — as one layer of ours.
//!
//! It does what tower-http's `SetRequestId(MakeRequestUuid)` → `Trace` (with [`DefaultOnRequest`]-,
//! `DefaultOnResponse`- and `DefaultOnEos`-style DEBUG events and a WARN on failure) → `PropagateRequestId` did,
//! with the same observable behaviour:
//! - `x-request-id` is kept when the request sends one, otherwise a UUID v4 is made (lower-case, hyphenated) and
//!   set on the request, so handlers and logs see it;
//! - every request runs in an INFO span `request` with `method`, `uri` and `request_id`; DEBUG events
//!   "started processing request", "finished processing request" (`latency` in ms, `status`) and, for streamed
//!   bodies, "end of stream"; a WARN "response failed" for a 5xx answer or a body that fails while streaming
//!   (`classification` as tower-http's `ServerErrorsFailureClass` writes it);
//! - the id is echoed on the response unless the response already has one.
//!
//! Why ours: beyond the span itself, the three tower-http layers did per-request work that nothing reads (an
//! extension map and a `RequestId` in it, a `String` and a header value per UUID, the header looked up three
//! times, a wrapper around every response body that enters the span on each frame). Here the UUID is formatted on
//! the stack, the id is looked up once, and only streamed answers (no exact length: the NDJSON batch route) get a
//! body wrapper, since a full body is written without running any code of ours. BENCHMARKS.md, "Service cost",
//! has the instruction counts.
//!
//! [`DefaultOnRequest`]: tower_http::trace::DefaultOnRequest

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Instant;

use axum::body::Body;
use axum::http::{HeaderName, HeaderValue, Request, Response};
use bytes::Bytes;
use http_body::{Body as _, Frame, SizeHint};
use pin_project_lite::pin_project;
use tower::{Layer, Service};
use tracing::Span;

/// The request id header, as `SetRequestIdLayer::x_request_id` names it.
pub const X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// Layer: see the module docs.
#[derive(Clone, Copy, Debug, Default)]
pub struct RequestLayer;

impl<S> Layer<S> for RequestLayer {
    type Service = RequestService<S>;

    fn layer(&self, inner: S) -> RequestService<S> {
        RequestService { inner }
    }
}

/// The service of [`RequestLayer`].
#[derive(Clone, Debug)]
pub struct RequestService<S> {
    inner: S,
}

/// A new request id: a random UUID v4 (RFC 9562 §5.4), lower-case and hyphenated, 36 bytes.
fn new_id() -> HeaderValue {
    let mut text = [0u8; uuid::fmt::Hyphenated::LENGTH];
    let text = uuid::Uuid::new_v4().hyphenated().encode_lower(&mut text);
    HeaderValue::from_str(text).expect("a UUID is a valid header value")
}

impl<S, B> Service<Request<B>> for RequestService<S>
where
    S: Service<Request<B>, Response = Response<Body>>,
    S::Error: std::fmt::Display,
{
    type Response = Response<Body>;
    type Error = S::Error;
    type Future = RequestFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut req: Request<B>) -> Self::Future {
        let id = take_id(&mut req);
        let span = span_for(&req, &id);
        started(&span);
        let inner = {
            let _entered = span.enter();
            self.inner.call(req)
        };
        RequestFuture {
            inner,
            span,
            id: Some(id),
            started: Instant::now(),
        }
    }
}

/// The request's id: its `x-request-id` when it sends one, otherwise a new one ([`new_id`]), set on the request.
pub(crate) fn take_id<B>(req: &mut Request<B>) -> HeaderValue {
    match req.headers().get(&X_REQUEST_ID) {
        Some(id) => id.clone(),
        None => {
            let id = new_id();
            req.headers_mut().insert(X_REQUEST_ID, id.clone());
            id
        }
    }
}

/// The request's id without setting it on the request: for a service whose handler reads no header of it
/// ([`crate::hot`]); the id is still in the span and echoed.
pub(crate) fn id_of<B>(req: &Request<B>) -> HeaderValue {
    match req.headers().get(&X_REQUEST_ID) {
        Some(id) => id.clone(),
        None => new_id(),
    }
}

/// The DEBUG "started processing request" event, inside `span`.
pub(crate) fn started(span: &Span) {
    let _entered = span.enter();
    tracing::debug!("started processing request");
}

/// The INFO span `request` of `req` (`method`, `uri`, `request_id`); a disabled span when INFO is off.
pub(crate) fn span_for<B>(req: &Request<B>, id: &HeaderValue) -> Span {
    let method = req.method().as_str();
    let request_id = id.to_str().unwrap_or("");
    let uri = req.uri();
    // Fields recorded as `&str` where they are one (no formatting machinery, ~2 k instructions less per
    // request); a URI with a scheme or authority (absolute or authority form) is written as `Uri` displays it.
    match uri.path_and_query() {
        Some(origin) if uri.scheme().is_none() && uri.authority().is_none() => {
            tracing::info_span!("request", method, uri = origin.as_str(), request_id)
        }
        _ => tracing::info_span!("request", method, uri = %uri, request_id),
    }
}

/// What the end of a request's head does, inside its span: the DEBUG "finished processing request" event, the
/// WARN "response failed" for a 5xx, and the id echoed unless the answer has one.
pub(crate) fn finished(res: &mut Response<Body>, started: Instant, id: HeaderValue) {
    let latency = started.elapsed().as_millis();
    let status = res.status();
    tracing::debug!(latency = %format_args!("{latency} ms"), status = status.as_u16(), "finished processing request");
    if status.is_server_error() {
        tracing::warn!(classification = %format_args!("Status code: {status}"), latency = %format_args!("{latency} ms"), "response failed");
    }
    if !res.headers().contains_key(&X_REQUEST_ID) {
        res.headers_mut().insert(X_REQUEST_ID, id);
    }
}

pin_project! {
    /// The response future of [`RequestService`].
    pub struct RequestFuture<F> {
        #[pin]
        inner: F,
        span: Span,
        id: Option<HeaderValue>,
        started: Instant,
    }
}

impl<F, E> Future for RequestFuture<F>
where
    F: Future<Output = Result<Response<Body>, E>>,
    E: std::fmt::Display,
{
    type Output = Result<Response<Body>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let _entered = this.span.enter();
        let result = ready!(this.inner.poll(cx));
        let latency = this.started.elapsed().as_millis();
        let mut res = match result {
            Ok(res) => res,
            Err(e) => {
                tracing::warn!(classification = %format_args!("Error: {e}"), latency = %format_args!("{latency} ms"), "response failed");
                return Poll::Ready(Err(e));
            }
        };
        if let Some(id) = this.id.take() {
            finished(&mut res, *this.started, id);
        }
        if res.body().size_hint().exact().is_none() {
            res = res.map(|body| {
                Body::new(InSpan {
                    inner: body,
                    span: this.span.clone(),
                    started: Instant::now(),
                })
            });
        }
        Poll::Ready(Ok(res))
    }
}

/// A streamed response body, polled inside the request's span: what is logged while it streams carries the
/// request id, and its end or failure is logged as tower-http's `Trace` logs them.
struct InSpan {
    inner: Body,
    span: Span,
    /// When the head was sent.
    started: Instant,
}

impl http_body::Body for InSpan {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let this = &mut *self;
        let _entered = this.span.enter();
        let frame = ready!(Pin::new(&mut this.inner).poll_frame(cx));
        match &frame {
            None => {
                let ms = this.started.elapsed().as_millis();
                tracing::debug!(stream_duration = %format_args!("{ms} ms"), "end of stream");
            }
            Some(Err(e)) => {
                let ms = this.started.elapsed().as_millis();
                tracing::warn!(classification = %format_args!("Error: {e}"), latency = %format_args!("{ms} ms"), "response failed");
            }
            Some(Ok(_)) => {}
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
