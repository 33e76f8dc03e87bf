//! [`DecodeService`]: `POST /decode` as one service of ours, the layers of the router's `/decode` folded in; the
//! same service, with [`Work::Validate`], answers `POST /validate` (whose router layers are `/decode`'s).
//!
//! The router's `/decode` is ten tower/tower-http layers around the handler (see [`crate::routes::app`]), each with its
//! own response future, a `Clone` of everything below it per request (`Oneshot`), two boxed bodies
//! (`Body::new` around the wire body, the limit wrapper) and an `Arc` flag for close-if-unread. Here the same
//! steps are one boxed future (a small hand-written wrapper around one `async fn`, see [`DecodeService::call`]),
//! in the same order and with the same answers, outermost first:
//! 0. the request id, the INFO span `request` and the id echo, as [`crate::routes::layers::request::RequestLayer`] does for the
//!    router (the answer here always has an exact length, so no body wrapper; a made id is not inserted into the
//!    request's headers, which nothing below reads for it);
//! 1. metrics: `bidscan_http_requests_total{route="/decode",status}` and the duration until the answer is ready
//!    ([`HttpMetrics`], handles resolved once), as [`crate::routes::layers::track::TrackLayer`];
//! 2. the panic catcher: a panic anywhere below is a 500 in the JSON shape, logged, without `Connection: close`
//!    ([`panic_response`], as tower-http's `CatchPanicLayer::custom`);
//! 3. close-if-unread: a 4xx/5xx answered before the wire body was read to its end gets `Connection: close`
//!    (as [`crate::routes::layers::unread::CloseIfUnreadLayer`]; the flag is a local here, not an `Arc`);
//! 4. the `Host` rule (RFC 9112 §3.2, [`crate::routes::layers::host::host_fault`]): 400 `bad_host`;
//! 5. JSON error bodies ([`json_errors`]; nothing below answers otherwise, kept as the router has it);
//! 6. `x-openrtb-version` echoed (as tower-http's `PropagateHeader`: inserted, replacing);
//! 7. load shedding and the concurrency limit: one `try_acquire` on [`AppState::permits`] (shared with the batch
//!    and validate routes), none free → 503 `overloaded` with `Retry-After` (what `LoadShed` over
//!    `GlobalConcurrencyLimit`, answered by `AnswerErrors`, did); the permit is held until the answer is ready;
//! 8. the request timeout: 408 `timeout` when the answer is not ready within `server.request_timeout_secs` of the
//!    permit (as tower's `Timeout`); the timer is only created if the answer is not ready at the first poll;
//! 9. the body ([`crate::routes::layers::inflate`]'s rules): `Content-Length` over `server.max_body_bytes` → 413 at once, counted
//!    as outcome `too_large`; a `Content-Encoding` is undone by [`Inflated`] (415 with `Accept-Encoding` for an
//!    unknown one); a body without one is received straight from the wire body, held to the same limit (413
//!    "the request body ...", as `http_body_util::Limited` answered);
//! 10. the handler ([`crate::routes::one_document`]): query, `Content-Type`, the body,
//!     [`Engine::run`](crate::engine::decode::Engine::run);
//! 11. answer compression, innermost as the router's `/decode` has it: an answer of at least
//!     [`compress::COMPRESS_ABOVE`] bytes to a request with `Accept-Encoding` goes through [`compress::answer`];
//!     without one it gets `Vary: accept-encoding`, as the router's compressor gives it.
//!
//! `tests/service.rs`, `tests/hostile*.rs`, `tests/overload.rs` and `tests/interop.rs` hold the behaviour of each
//! step; `GET /decode` and every other route keep the router and its tower layers.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll, ready};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::Query;
use axum::http::{HeaderMap, HeaderValue, Request, Response, Uri, header};
use axum::response::IntoResponse;
use bytes::Bytes;
use futures_util::FutureExt;
use http_body::Body as _;
use http_body_util::{BodyExt, Limited};
use pin_project_lite::pin_project;
use prometheus::IntCounter;
use tokio::time::Sleep;
use tower::BoxError;

use crate::config::ModeName;
use crate::engine::decode::{Inspect, View};
use crate::engine::validate::Work;
use crate::error::{ApiError, ErrorCode, json_errors, panic_response};
use crate::metrics::HttpMetrics;
use crate::routes::layers::host::HostFault;
use crate::routes::layers::inflate::{ACCEPTED, Coding, Inflated, codings};
use crate::routes::layers::request;
use crate::routes::layers::{compress, unread};
use crate::routes::state::{AppState, OPENRTB_VERSION};
use crate::routes::{DecodeParams, invalid_query};
use crate::transport::body::{self, Accepts, Frames};
use crate::transport::head::Head;

/// The path (and route template) of [`DecodeService::new`]; [`crate::routes::dispatch::Dispatch`] matches it.
pub const DECODE_PATH: &str = "/decode";

/// The path (and route template) of [`DecodeService::validate`]; [`crate::routes::dispatch::Dispatch`] matches it.
pub const VALIDATE_PATH: &str = "/validate";

/// `POST /decode` (or, made by [`DecodeService::validate`], `POST /validate`): see the module docs. Cheap to
/// clone (one `Arc`).
#[derive(Clone)]
pub struct DecodeService {
    shared: Arc<Shared>,
}

struct Shared {
    /// What the handler does with the document: [`Work::Decode`] for `/decode`, [`Work::Validate`] for
    /// `/validate`.
    work: Work,
    /// The route template the requests are counted under (`/decode`, `/validate`).
    route: &'static str,
    state: AppState,
    http: Arc<HttpMetrics>,
    /// `bidscan_decode_outcomes_total{outcome="too_large"}`, for 413s decided from `Content-Length`.
    too_large: IntCounter,
    timeout: Duration,
    retry_after: u64,
    /// `server.max_body_bytes`: on the wire and after decompression.
    limit: usize,
}

/// The answer future of [`DecodeService::call`].
pub type DecodeFuture = Pin<Box<dyn Future<Output = Response<Body>> + Send>>;

impl DecodeService {
    /// `POST /decode` for `state`, counting into `http` (the router's metrics, shared).
    pub fn new(state: &AppState, http: Arc<HttpMetrics>) -> DecodeService {
        DecodeService::of(Work::Decode, DECODE_PATH, state, http)
    }

    /// `POST /validate` for `state` (the envelope of a bid request and its bid response, judged by
    /// [`Work::Validate`]), counting into `http`: the router's `/validate` has the same layers as its `/decode`
    /// ([`crate::routes::app`]), so the same folded steps serve it, with the answer of `routes::validate::validate`.
    pub fn validate(state: &AppState, http: Arc<HttpMetrics>) -> DecodeService {
        DecodeService::of(Work::Validate, VALIDATE_PATH, state, http)
    }

    fn of(
        work: Work,
        route: &'static str,
        state: &AppState,
        http: Arc<HttpMetrics>,
    ) -> DecodeService {
        let config = &state.config;
        DecodeService {
            shared: Arc::new(Shared {
                work,
                route,
                too_large: state.metrics().outcomes.with_label_values(&["too_large"]),
                timeout: config.request_timeout(),
                retry_after: config.server.retry_after_secs,
                limit: config.server.max_body_bytes,
                state: state.clone(),
                http,
            }),
        }
    }

    /// Answers one `POST /decode`; the future never fails (every error is an answer).
    ///
    /// Step 0 is done here, before the future exists: the request id and the span (the id is not set on the
    /// request's headers, since nothing below reads them for it). Steps 1 and 2 are `Served`, a hand-written
    /// wrapper, and steps 3 to 11 are one `async fn` (`respond`) that awaits only the body and a compression. Every
    /// `async fn` keeps its arguments for as long as it lives, and every level of nesting is built on the stack
    /// and then moved into its parent. Nested, the steps made a 4.4 KB future that was copied about ten times per
    /// request. One level is a fraction of that.
    pub fn call<B>(&self, req: Request<B>) -> DecodeFuture
    where
        B: http_body::Body<Data = Bytes> + Send + 'static,
        B::Error: Into<BoxError>,
    {
        let head = Head::of(req.headers());
        let id = match head.id {
            Some(id) if request::usable_id(id) => id.clone(),
            _ => request::new_id(),
        };
        let seen = Seen {
            host_fault: head.host_fault(req.version()),
            version: head.version.cloned(),
            length: head.content_length(),
            coded: head.coded,
            plain_json: head.plain_json(),
        };
        let scope = request::Scope::new(&req, id);
        Box::pin(Served {
            inner: AssertUnwindSafe(respond(self.shared.clone(), req, seen)).catch_unwind(),
            scope: Some(scope),
            started: Instant::now(),
            shared: self.shared.clone(),
        })
    }
}

pin_project! {
    /// Steps 0 to 2 around `inner` (steps 3 to 11): polled in the request's scope (span and id), panics caught
    /// (a 500 in the JSON shape, logged, without `Connection: close`), counted in
    /// `bidscan_http_requests_total{route="/decode",status}` with the duration until the answer is ready, then the
    /// request's last log line and the id echo ([`request::finished`]).
    struct Served<F> {
        #[pin]
        inner: F,
        scope: Option<request::Scope>,
        started: Instant,
        shared: Arc<Shared>,
    }
}

impl<F> Future for Served<F>
where
    F: Future<Output = std::thread::Result<Response<Body>>>,
{
    type Output = Response<Body>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Response<Body>> {
        let this = self.project();
        let inner = this.inner;
        // `panic_response` logs in the request's span, so it is made inside the scope too.
        let mut res = ready!(request::Scope::run(this.scope, || {
            inner.poll(cx).map(|answer| match answer {
                Ok(res) => res,
                Err(panic) => panic_response(panic).map(Body::from),
            })
        }));
        this.shared.http.observe(
            Some(this.shared.route),
            res.status(),
            this.started.elapsed(),
        );
        let Some(mut scope) = this.scope.take() else {
            panic!("the decode future was polled after its answer");
        };
        request::finished(&mut res, *this.started, &mut scope);
        Poll::Ready(res)
    }
}

/// What steps 3 to 10 need of the request's headers, read in one pass by [`DecodeService::call`] ([`Head`]).
struct Seen {
    /// How the `Host` rule is broken (RFC 9112 §3.2), if it is.
    host_fault: Option<HostFault>,
    /// The `x-openrtb-version` to echo.
    version: Option<HeaderValue>,
    /// The `Content-Length`, when it is a number.
    length: Option<u64>,
    /// A `Content-Encoding` is present.
    coded: bool,
    /// No `Content-Type`, or exactly `application/json`: nothing for step 10 to check.
    plain_json: bool,
}

/// Steps 3 to 11: close-if-unread around the `Host` rule and the rest; JSON error bodies and the version echo around
/// the permit; the request timeout around the body, the handler and the compression.
async fn respond<B>(shared: Arc<Shared>, req: Request<B>, seen: Seen) -> Response<Body>
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    request::started();
    // A request without a body has nothing to leave unread.
    let mut read = req.body().is_end_stream();
    let mut res = if let Some(fault) = seen.host_fault {
        fault.error().into_response()
    } else {
        let version = seen.version;
        let mut res = match shared.state.permits.try_acquire() {
            Err(_) => ApiError::overloaded(shared.retry_after).into_response(),
            Ok(_permit) => {
                let deadline = tokio::time::Instant::now() + shared.timeout;
                match prepare(&shared, req, seen.length, seen.coded, seen.plain_json) {
                    Prepared::Answer(res) => res,
                    Prepared::Body(body) => {
                        let answered = Deadline {
                            inner: handle(&shared, body, &mut read),
                            deadline,
                            sleep: None,
                        };
                        answered
                            .await
                            .unwrap_or_else(|| ApiError::of(ErrorCode::Timeout).into_response())
                    }
                }
            }
        };
        res = json_errors(res);
        if let Some(version) = version {
            res.headers_mut().insert(OPENRTB_VERSION, version);
        }
        res
    };
    let status = res.status();
    if (status.is_client_error() || status.is_server_error()) && !read {
        res.headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    res
}

/// What [`prepare`] leaves to wait for.
enum Prepared<B> {
    /// Answered from the head alone.
    Answer(Response<Body>),
    /// The body is still to be received.
    Body(Pending<B>),
}

/// A request whose head passed steps 9 and 10's checks.
struct Pending<B> {
    wire: B,
    /// The codings to undo, last-applied last (`None`: none).
    coded: Option<Vec<Coding>>,
    options: crate::engine::decode::Options,
    /// The request's headers: its `Accept-Encoding` is looked up only for an answer long enough to compress.
    headers: HeaderMap,
}

/// Steps 9 and 10 on the head: `Content-Length` over the limit (413), the `Content-Encoding` (415), the query
/// (400), the `Content-Type` (415). `length`, `coded` and `plain_json` are [`Seen`]'s.
fn prepare<B>(
    shared: &Shared,
    req: Request<B>,
    length: Option<u64>,
    coded: bool,
    plain_json: bool,
) -> Prepared<B> {
    let limit = shared.limit;
    if length.is_some_and(|n| n > limit as u64) {
        shared.too_large.inc();
        return Prepared::Answer(ApiError::too_large(limit, "the request body").into_response());
    }
    let (parts, wire) = req.into_parts();
    let coded = if coded {
        let list = match codings(&parts.headers) {
            Ok(list) => list,
            Err(e) => {
                let mut res = e.into_response();
                res.headers_mut()
                    .insert(header::ACCEPT_ENCODING, HeaderValue::from_static(ACCEPTED));
                return Prepared::Answer(res);
            }
        };
        (!list.is_empty()).then_some(list)
    } else {
        None
    };
    let options = match options(&parts.uri, &shared.state, shared.work) {
        Ok(options) => options,
        Err(e) => return Prepared::Answer(e.into_response()),
    };
    if !plain_json && let Err(e) = body::check_content_type(&parts.headers, Accepts::Json) {
        return Prepared::Answer(e.into_response());
    }
    Prepared::Body(Pending {
        wire,
        coded,
        options,
        headers: parts.headers,
    })
}

/// Steps 9 to 11 from the body on: the body received within the limit (and its codings undone), the handler,
/// the answer's compression.
async fn handle<B>(shared: &Shared, pending: Pending<B>, read: &mut bool) -> Response<Body>
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    let Pending {
        wire,
        coded,
        options,
        headers,
    } = pending;
    let limit = shared.limit;
    let frames = match coded {
        None => collect_plain(wire, limit, read).await,
        Some(list) => {
            // Rare: boxed, so that the common future does not carry the decompressors' state.
            let (frames, unread) = Box::pin(collect_coded(wire, list, limit)).await;
            *read |= unread;
            frames
        }
    };
    let state = &shared.state;
    let frames = match frames {
        Ok(frames) => frames,
        Err(e) => {
            state.engine.count_refused(&e);
            return e.into_response();
        }
    };
    match state
        .engine
        .run(shared.work, frames.slices(), frames.len, &options)
    {
        Ok(answer) => {
            let big = compress::compressible(answer.json.len());
            let mut res = Response::new(Body::from(answer.json));
            res.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            // Boxed for the same reason as the codings.
            match headers.get(header::ACCEPT_ENCODING) {
                Some(accept) if big => Box::pin(compress::answer(accept.clone(), res)).await,
                None if big => {
                    // What the router's compressor adds to a long answer for a client that asks for no coding
                    // (RFC 9110 §12.5.5: a cache must not give it to clients that ask for one).
                    res.headers_mut()
                        .insert(header::VARY, HeaderValue::from_static("accept-encoding"));
                    res
                }
                _ => res,
            }
        }
        Err(e) => e.into_response(),
    }
}

/// The data frames of a body with the codings `list` (undone last-applied first, RFC 9110 §8.4), refused (413)
/// past `limit` bytes on the wire or decoded, and whether the wire body was read to its end.
async fn collect_coded<B>(
    wire: B,
    list: Vec<Coding>,
    limit: usize,
) -> (Result<Frames, ApiError>, bool)
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    let (tracked, flag) = unread::tracked(Body::new(wire));
    let mut decoded = Body::new(Limited::new(tracked, limit));
    for &coding in list.iter().rev() {
        decoded = Body::new(Inflated::new(decoded, coding));
    }
    let frames = body::collect(decoded, limit).await;
    (frames, flag.load(Ordering::Acquire))
}

/// The data frames of a body without a coding, straight from the wire, refused (413) past `limit` bytes as
/// `http_body_util::Limited` refuses them; `read` is set once the body has no more frames (as close-if-unread's
/// body wrapper sets it).
async fn collect_plain<B>(wire: B, limit: usize, read: &mut bool) -> Result<Frames, ApiError>
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    let mut wire = std::pin::pin!(wire);
    let mut frames = Frames::default();
    loop {
        let frame = wire.frame().await;
        if wire.is_end_stream() {
            *read = true;
        }
        let Some(frame) = frame else {
            *read = true;
            return Ok(frames);
        };
        let frame = frame.map_err(|e| body::read_error(&axum::Error::new(e), limit))?;
        if let Ok(data) = frame.into_data() {
            frames.len += data.len();
            if frames.len > limit {
                return Err(ApiError::too_large(limit, "the request body"));
            }
            if !data.is_empty() {
                frames.chunks.push(data);
            }
        }
    }
}

/// The decode options of `uri`'s query: the common forms (`mode`, `view`, `inspect` with their lower-case
/// values, `profile` with a name's characters, each at most once, no escapes) read here, anything else through
/// axum's `Query`, whose answer (and 400 `invalid_query`) is the contract; then the options for `work`
/// (`DecodeParams::options`: the policy chosen for a validation, 400 `unknown_profile`).
fn options(
    uri: &Uri,
    state: &AppState,
    work: Work,
) -> Result<crate::engine::decode::Options, ApiError> {
    let params = match uri.query() {
        None => DecodeParams::default(),
        Some(query) => match simple_params(query) {
            Some(params) => params,
            None => {
                Query::<DecodeParams>::try_from_uri(uri)
                    .map_err(invalid_query)?
                    .0
            }
        },
    };
    params.options(state, work)
}

/// `query` read without serde when it is `key=value` pairs of known keys and values only; `None` for anything
/// else (which [`options`] hands to `Query`).
fn simple_params(query: &str) -> Option<DecodeParams> {
    let mut params = DecodeParams::default();
    // Bytes split by a closure rather than `str::split`'s searcher: the query is a few dozen bytes.
    for pair in query.as_bytes().split(|&b| b == b'&') {
        let eq = pair.iter().position(|&b| b == b'=')?;
        let (key, value) = (&pair[..eq], &pair[eq + 1..]);
        match key {
            b"mode" if params.mode.is_none() => {
                params.mode = Some(match value {
                    b"lenient" => ModeName::Lenient,
                    b"strict" => ModeName::Strict,
                    _ => return None,
                });
            }
            b"view" if params.view.is_none() => {
                params.view = Some(match value {
                    b"full" => View::Full,
                    b"summary" => View::Summary,
                    _ => return None,
                });
            }
            b"inspect" if params.inspect.is_none() => {
                params.inspect = Some(match value {
                    b"all" => Inspect::All,
                    b"none" => Inspect::None,
                    _ => return None,
                });
            }
            // A profile name's characters need no percent-decoding; anything else goes to `Query`.
            b"profile"
                if params.profile.is_none()
                    && value
                        .iter()
                        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')) =>
            {
                params.profile = Some(String::from_utf8_lossy(value).into_owned());
            }
            _ => return None,
        }
    }
    Some(params)
}

pin_project! {
    /// `inner`, or `None` once `deadline` has passed without an answer. The timer is made on the first
    /// `Pending`, so an answer ready at once costs none.
    struct Deadline<F> {
        #[pin]
        inner: F,
        deadline: tokio::time::Instant,
        #[pin]
        sleep: Option<Sleep>,
    }
}

impl<F: Future> Future for Deadline<F> {
    type Output = Option<F::Output>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut this = self.project();
        if let Poll::Ready(out) = this.inner.poll(cx) {
            return Poll::Ready(Some(out));
        }
        if this.sleep.is_none() {
            this.sleep
                .set(Some(tokio::time::sleep_until(*this.deadline)));
        }
        if let Some(sleep) = this.sleep.as_pin_mut() {
            ready!(sleep.poll(cx));
        }
        Poll::Ready(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_queries_are_read_and_the_rest_handed_on() {
        let p = simple_params("view=summary&inspect=none").unwrap();
        assert_eq!(p.view, Some(View::Summary));
        assert_eq!(p.inspect, Some(Inspect::None));
        assert_eq!(p.mode, None);
        let p = simple_params("mode=strict").unwrap();
        assert_eq!(p.mode, Some(ModeName::Strict));
        let p = simple_params("profile=acme.eu-1_x&view=full").unwrap();
        assert_eq!(p.profile.as_deref(), Some("acme.eu-1_x"));
        // Anything serde would read differently, or refuse, goes to `Query`.
        for other in [
            "",
            "view=summary&",
            "view=summary&view=full",
            "mode=fast",
            "view=Summary",
            "view=%73ummary",
            "profile=a%20b",
            "profile=a&profile=b",
            "other=1",
            "view",
        ] {
            assert!(simple_params(other).is_none(), "{other}");
        }
    }
}
