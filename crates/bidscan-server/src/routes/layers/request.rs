//! [`RequestLayer`]: the outermost layer — request id, trace span, id echo — as one layer of ours.
//!
//! It does what tower-http's `SetRequestId(MakeRequestUuid)` → `Trace` (with [`DefaultOnRequest`]-,
//! `DefaultOnResponse`- and `DefaultOnEos`-style DEBUG events and a WARN on failure) → `PropagateRequestId` did,
//! with the same observable behaviour:
//! - `x-request-id` is kept when the request sends one, otherwise a UUID v4 is made (lower-case, hyphenated) and
//!   set on the request, so handlers and logs see it;
//! - every line a request logs is in an INFO span `request` with `method`, `uri` and `request_id`; DEBUG events
//!   "started processing request", "finished processing request" (`latency` in ms, `status`) and, for streamed
//!   bodies, "end of stream"; a WARN "response failed" for a 5xx answer or a body that fails while streaming
//!   (`classification` as tower-http's `ServerErrorsFailureClass` writes it);
//! - the id is echoed on the response unless the response already has one.
//!
//! The span is lazy ([`Scope`]): made when the request starts only if DEBUG is enabled (its DEBUG lines will be
//! written), otherwise only when the request logs a line ([`in_span`], a 5xx's WARN). At the default level a
//! request that succeeds logs nothing, and making, entering and leaving the span would cost about 10 k
//! instructions per request (callgrind), for nothing.
//!
//! Why ours: beyond the span itself, the three tower-http layers did per-request work that nothing reads (an
//! extension map and a `RequestId` in it, a `String` and a header value per UUID, the header looked up three
//! times, a wrapper around every response body that enters the span on each frame). Here the UUID is formatted on
//! the stack, the id is looked up once, and only streamed answers (no exact length: the NDJSON batch route) get a
//! body wrapper, since a full body is written without running any code of ours.
//!
//! [`DefaultOnRequest`]: tower_http::trace::DefaultOnRequest

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Instant;

use axum::body::Body;
use axum::http::{HeaderName, HeaderValue, Method, Request, Response, Uri};
use bytes::Bytes;
use http_body::{Body as _, Frame, SizeHint};
use pin_project_lite::pin_project;
use tower::{Layer, Service};
use tracing::Span;

/// The target of this module's log lines (`log.level` filters name it; docs/operations.md, "Logs").
const LOG_TARGET: &str = "bidscan_server::request";

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
pub(crate) fn new_id() -> HeaderValue {
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
        let mut scope = Some(Scope::new(&req, id));
        let inner = Scope::run(&mut scope, || {
            started();
            self.inner.call(req)
        });
        RequestFuture {
            inner,
            scope,
            started: Instant::now(),
        }
    }
}

/// Longest `x-request-id` kept, in bytes; a longer one is replaced.
pub(crate) const MAX_ID_BYTES: usize = 200;

/// True when the client's `x-request-id` can be kept: not empty, at most [`MAX_ID_BYTES`], and visible ASCII
/// (what logs and traces can carry as text); any other is replaced by a new id (kept, an empty
/// id would be echoed empty, a 3,000-byte one logged whole, a non-UTF-8 one logged as "").
pub(crate) fn usable_id(id: &HeaderValue) -> bool {
    !id.is_empty() && id.len() <= MAX_ID_BYTES && id.as_bytes().iter().all(|c| c.is_ascii_graphic())
}

/// The request's id: its `x-request-id` when it sends a [usable](usable_id) one, otherwise a new one
/// ([`new_id`]), set on the request.
pub(crate) fn take_id<B>(req: &mut Request<B>) -> HeaderValue {
    match req.headers().get(&X_REQUEST_ID) {
        Some(id) if usable_id(id) => id.clone(),
        _ => {
            let id = new_id();
            req.headers_mut().insert(X_REQUEST_ID, id.clone());
            id
        }
    }
}

/// The DEBUG "started processing request" event; call it inside [`Scope::run`].
pub(crate) fn started() {
    tracing::debug!(target: LOG_TARGET, "started processing request");
}

/// The INFO span `request` (`method`, `uri`, `request_id`); a disabled span when INFO is off.
fn span_of(method: &Method, uri: &Uri, id: &HeaderValue) -> Span {
    let method = method.as_str();
    let request_id = id.to_str().unwrap_or("");
    // Fields recorded as `&str` where they are one (no formatting machinery, ~2 k instructions less per
    // request); a URI with a scheme or authority (absolute or authority form) is written as `Uri` displays it.
    match uri.path_and_query() {
        Some(origin) if uri.scheme().is_none() && uri.authority().is_none() => {
            tracing::info_span!(target: LOG_TARGET, "request", method, uri = origin.as_str(), request_id)
        }
        _ => tracing::info_span!(target: LOG_TARGET, "request", method, uri = %uri, request_id),
    }
}

/// A request as its log lines name it: its method, URI and id, and its span once made (see the module docs).
pub struct Scope {
    method: Method,
    uri: Uri,
    id: HeaderValue,
    span: Option<Span>,
}

thread_local! {
    /// The scope of the request being polled on this thread, while [`Scope::run`] runs.
    static CURRENT: Cell<Option<Scope>> = const { Cell::new(None) };
}

impl Scope {
    /// The scope of `req`, whose id is `id`; its span is made now if DEBUG is enabled.
    pub(crate) fn new<B>(req: &Request<B>, id: HeaderValue) -> Scope {
        let mut scope = Scope {
            method: req.method().clone(),
            uri: req.uri().clone(),
            id,
            span: None,
        };
        if tracing::enabled!(target: LOG_TARGET, tracing::Level::DEBUG) {
            scope.span();
        }
        scope
    }

    /// The request's span, made now if it was not yet.
    pub fn span(&mut self) -> &Span {
        let Scope {
            method,
            uri,
            id,
            span,
        } = self;
        span.get_or_insert_with(|| span_of(method, uri, id))
    }

    /// Runs `f` as part of the request in `scope`: inside its span if it has one, and with the scope current on
    /// this thread, so that [`in_span`] logs inside it (making the span). The scope is back in `scope` after.
    pub fn run<T>(scope: &mut Option<Scope>, f: impl FnOnce() -> T) -> T {
        let _entered = scope
            .as_ref()
            .and_then(|s| s.span.clone())
            .map(Span::entered);
        let _current = Current::install(scope);
        f()
    }

    /// Runs `f` inside the span if it has been made (DEBUG lines, which are off otherwise).
    fn in_made<T>(&self, f: impl FnOnce() -> T) -> T {
        match &self.span {
            Some(span) => span.in_scope(f),
            None => f(),
        }
    }
}

/// Runs `f` (which logs a line) inside the span of the request being served on this thread, made now if need be;
/// outside any request, just runs it. For WARN and ERROR lines below the request layers (a panic, a render
/// failure), which would otherwise not carry the request id.
pub fn in_span<T>(f: impl FnOnce() -> T) -> T {
    let span = CURRENT.with(|current| {
        let mut scope = current.take();
        let span = scope.as_mut().map(|s| s.span().clone());
        current.set(scope);
        span
    });
    match span {
        Some(span) => span.in_scope(f),
        None => f(),
    }
}

/// The id and URI of the request being served on this thread (clones: a reference count each), `None` outside
/// any request. What a capture of a bad answer records (`crate::capture`).
pub(crate) fn current() -> Option<(HeaderValue, Uri)> {
    CURRENT.with(|current| {
        let scope = current.take();
        let found = scope.as_ref().map(|s| (s.id.clone(), s.uri.clone()));
        current.set(scope);
        found
    })
}

/// The scope made current by [`Scope::run`]; dropping it (also when `f` panics) puts the scope back where it was
/// taken from and restores the one it replaced.
struct Current<'a> {
    home: &'a mut Option<Scope>,
    replaced: Option<Scope>,
}

impl<'a> Current<'a> {
    fn install(home: &'a mut Option<Scope>) -> Current<'a> {
        let replaced = CURRENT.with(|current| current.replace(home.take()));
        Current { home, replaced }
    }
}

impl Drop for Current<'_> {
    fn drop(&mut self) {
        let replaced = self.replaced.take();
        *self.home = CURRENT.with(|current| current.replace(replaced));
    }
}

/// What the end of a request's head does: the DEBUG "finished processing request" event, the WARN "response
/// failed" for a 5xx (both in the request's span), and the id echoed unless the answer has one.
pub(crate) fn finished(res: &mut Response<Body>, started: Instant, scope: &mut Scope) {
    let status = res.status();
    scope.in_made(|| {
        tracing::debug!(target: LOG_TARGET, latency = %format_args!("{} ms", started.elapsed().as_millis()), status = status.as_u16(), "finished processing request");
    });
    if status.is_server_error() {
        let latency = started.elapsed().as_millis();
        scope.span().in_scope(|| {
            tracing::warn!(target: LOG_TARGET, classification = %format_args!("Status code: {status}"), latency = %format_args!("{latency} ms"), "response failed");
        });
    }
    // One lookup: the id is inserted only where nothing below set one.
    res.headers_mut()
        .entry(X_REQUEST_ID)
        .or_insert_with(|| scope.id.clone());
}

pin_project! {
    /// The response future of [`RequestService`].
    pub struct RequestFuture<F> {
        #[pin]
        inner: F,
        scope: Option<Scope>,
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
        let inner = this.inner;
        let result = ready!(Scope::run(this.scope, || inner.poll(cx)));
        let Some(mut scope) = this.scope.take() else {
            panic!("RequestFuture polled after completion");
        };
        let mut res = match result {
            Ok(res) => res,
            Err(e) => {
                let latency = this.started.elapsed().as_millis();
                scope.span().in_scope(|| {
                    tracing::warn!(target: LOG_TARGET, classification = %format_args!("Error: {e}"), latency = %format_args!("{latency} ms"), "response failed");
                });
                return Poll::Ready(Err(e));
            }
        };
        finished(&mut res, *this.started, &mut scope);
        if res.body().size_hint().exact().is_none() {
            res = res.map(|body| {
                Body::new(InSpan {
                    inner: body,
                    scope: Some(scope),
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
    scope: Option<Scope>,
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
        let inner = &mut this.inner;
        let frame = ready!(Scope::run(&mut this.scope, || Pin::new(inner).poll_frame(cx)));
        let started = this.started;
        match (&frame, &mut this.scope) {
            (None, Some(scope)) => scope.in_made(|| {
                let ms = started.elapsed().as_millis();
                tracing::debug!(target: LOG_TARGET, stream_duration = %format_args!("{ms} ms"), "end of stream");
            }),
            (Some(Err(e)), Some(scope)) => scope.span().in_scope(|| {
                let ms = started.elapsed().as_millis();
                tracing::warn!(target: LOG_TARGET, classification = %format_args!("Error: {e}"), latency = %format_args!("{ms} ms"), "response failed");
            }),
            _ => {}
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
