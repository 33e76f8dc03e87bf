//! [`Pipeline`]: the one stack every request to a document route passes (`/decode`, `/validate`: any method),
//! built once per route in [`crate::routes::app`] and generalised over the route's [`Work`]. A new document
//! route is one more [`Work`] and one more line of [`crate::routes::DOCUMENT_ROUTES`], not another stack
//! (`/validate/auction`: [`Work::Auction`], its body bounded by `server.max_auction_bytes`, read into parts and
//! judged by [`Engine::auction`](crate::engine::Engine::auction)).
//!
//! The steps are one boxed future (a small hand-written wrapper, [`Served`], around one `async fn`, `respond`),
//! not a tower stack: each tower layer is a response future of its own, and the router's `Oneshot` clones every
//! layer below it per request. Outermost first, each with its reason:
//! 0. request id, INFO span `request`, id echo: every log line of a request carries the id the client sees;
//! 1. metrics `bidscan_http_requests_total{route,status}` and the duration until the answer is ready: what the
//!    dashboards read ([`HttpMetrics`], handles resolved once);
//! 2. panic catcher: a panic below is a logged 500 in the JSON shape, not a dropped connection ([`panic_response`]);
//! 3. close-if-unread: a 4xx/5xx answered before the body was read gets `Connection: close`, so the unread rest is
//!    never taken for the next request;
//! 4. the `Host` rule (RFC 9112 §3.2, [`crate::routes::layers::host::host_fault`]): 400 `bad_host`;
//! 5. JSON error bodies ([`json_errors`]): every error a client sees has one shape;
//! 6. `x-openrtb-version` echoed, replacing: callers pair answers with the OpenRTB version they sent;
//! 7. the concurrency limit: one `try_acquire` on [`AppState::permits`] (shared with the batch routes), none free →
//!    503 `overloaded` with `Retry-After` (`bidscan_shed_total{reason="concurrency"}`), never a queue; the permit
//!    is held until the answer is ready, but a body still arriving after `server.body_grace_ms` gives it back for
//!    a slot of the slow lane ([`AppState::slow_bodies`]; lane full: 408 `timeout` at once), so trickling uploads
//!    cannot hold every permit (`Graced`);
//! 8. the request timeout: 408 `timeout` when the answer is not ready within `server.request_timeout_secs` of the
//!    permit, so a slow upload cannot hold a permit; the timer is made only if the answer is not ready at once;
//! 9. the body's size and codings ([`crate::routes::layers::inflate`]'s rules): `Content-Length` over
//!    `server.max_body_bytes` → 413 at once (outcome `too_large`); a `Content-Encoding` undone by [`Inflated`] (415
//!    with `Accept-Encoding` for an unknown one); a plain body received straight from the wire under the same
//!    limit (413); its bytes reserved in `server.max_inflight_bytes` ([`crate::transport::memory`]) as they
//!    arrive (a compressed body's decoded bytes, and its decoders' working memory as its stream declares it, not
//!    its decompressed limit; a `view=full` request's again before the work),
//!    then the answer's until it is sent (the body's reservation trimmed or grown to the answer's length; an
//!    auction's answer held as it is built, by its buffer's capacity, `Engine::auction_encoded`): a request
//!    that cannot reserve is 503 `overloaded` with `Retry-After` at once (before or part-way through its body),
//!    counted in `bidscan_shed_total{reason="memory"}`;
//! 10. the method: anything but `POST` is 405 `method_not_allowed`, after the size and codings as the router
//!     answers its routes; every answer to another method carries `Allow: POST`;
//! 11. the work: query, `Content-Type` (an auction's: `multipart/form-data` with a boundary, else 400
//!     `not_multipart` before the body), the body, [`Engine::run`](crate::engine::Engine::run) with the route's
//!     [`Work`] (an auction: its parts read, then `Engine::auction`); with `capture.dir` set, the answer handed to
//!     [`crate::capture`], which keeps a refused body or a rejected bid (a compressed body's wire frames kept
//!     while it inflates): what operators look at when a bidder goes bad;
//! 12. answer compression, innermost: an answer of at least [`compress::COMPRESS_ABOVE`] bytes to a request with
//!     `Accept-Encoding` goes through [`compress::answer`]; without one it gets `Vary: accept-encoding`.
//!
//! `tests/service.rs`, `tests/hostile*.rs`, `tests/overload.rs` and `tests/interop.rs` hold the behaviour of each
//! step.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll, ready};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::Query;
use axum::http::{HeaderMap, HeaderValue, Method, Request, Response, StatusCode, Uri, header};
use axum::response::IntoResponse;
use bytes::Bytes;
use futures_util::FutureExt;
use http_body::Body as _;
use http_body_util::{BodyExt, Full, Limited};
use pin_project_lite::pin_project;
use prometheus::IntCounter;
use tokio::sync::SemaphorePermit;
use tokio::time::Sleep;
use tower::BoxError;

use crate::capture::tee::Tee;
use crate::config::ModeName;
use crate::engine::{Answer, Encoding, Inspect, Options, View, Work};
use crate::error::{ApiError, ErrorCode, json_errors, panic_response};
use crate::metrics::HttpMetrics;
use crate::routes::auction_parts::{AuctionParts, CallError, Limits, multipart};
use crate::routes::layers::host::HostFault;
use crate::routes::layers::inflate::{ACCEPTED, Coding, Inflated, codings};
use crate::routes::layers::request;
use crate::routes::layers::{compress, unread};
use crate::routes::params::{DecodeParams, invalid_query};
use crate::routes::state::{AppState, OPENRTB_VERSION};
use crate::routes::{decode, negotiate, validate};
use crate::transport::body::{self, Accepts, Frames};
use crate::transport::head::Head;
use crate::transport::memory::{self, MemoryBudget, Reservation};

/// One document route's stack: see the module docs. Cheap to clone (a path and an `Arc`).
#[derive(Clone)]
pub struct Pipeline {
    /// The route's path, matched exactly by [`crate::routes::dispatch::Dispatch`].
    path: &'static str,
    shared: Arc<Shared>,
}

struct Shared {
    /// What step 11 does with the document.
    work: Work,
    /// The route template the requests are counted under: the path.
    route: &'static str,
    state: AppState,
    http: Arc<HttpMetrics>,
    /// `bidscan_decode_outcomes_total{outcome="too_large"}` with `encoding` `json`, then `protobuf`, for 413s
    /// decided from `Content-Length`.
    too_large: [IntCounter; 2],
    timeout: Duration,
    /// `server.body_grace_ms` (`None`: 0, off).
    grace: Option<Duration>,
    /// The body's limit, on the wire and after decompression: `server.max_body_bytes`, or for an auction
    /// `server.max_auction_bytes`.
    limit: usize,
    /// An auction's part limits (`server.max_auction_parts`, `server.max_body_bytes`).
    parts: Limits,
}

/// The answer future of [`Pipeline::call`].
pub type PipelineFuture = Pin<Box<dyn Future<Output = Response<Body>> + Send>>;

impl Pipeline {
    /// The stack of the route `path`, doing `work` for `state`, counting into `http` (shared with the router).
    pub fn new(
        path: &'static str,
        work: Work,
        state: &AppState,
        http: Arc<HttpMetrics>,
    ) -> Pipeline {
        let config = &state.config;
        Pipeline {
            path,
            shared: Arc::new(Shared {
                work,
                route: path,
                too_large: [Encoding::Json, Encoding::Protobuf].map(|encoding| {
                    state
                        .metrics()
                        .outcomes
                        .with_label_values(&["too_large", encoding.label()])
                }),
                timeout: config.request_timeout(),
                grace: config.body_grace(),
                limit: match work {
                    Work::Auction => config.server.max_auction_bytes,
                    Work::Decode | Work::Validate => config.server.max_body_bytes,
                },
                parts: Limits {
                    max_parts: config.server.max_auction_parts,
                    max_part_bytes: config.server.max_body_bytes,
                },
                state: state.clone(),
                http,
            }),
        }
    }

    /// The route's path.
    pub fn path(&self) -> &'static str {
        self.path
    }

    /// Answers one request to the route; the future never fails (every error is an answer).
    ///
    /// Step 0 is done here, before the future exists: the request id and the span (the id is not set on the
    /// request's headers, since nothing below reads them for it). Steps 1 and 2 are `Served`, a hand-written
    /// wrapper, and steps 3 to 12 are one `async fn` (`respond`) that awaits only the body and a compression. Every
    /// `async fn` keeps its arguments for as long as it lives, and every level of nesting is built on the stack
    /// and then moved into its parent: nested, the steps would make a 4.4 KB future copied about ten times per
    /// request. One level is a fraction of that.
    pub fn call<B>(&self, req: Request<B>) -> PipelineFuture
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
            bidder: head.bidder.cloned(),
            plain_json: head.plain_json(),
            post: req.method() == Method::POST,
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
    /// Steps 0 to 2 around `inner` (steps 3 to 12): polled in the request's scope (span and id), panics caught
    /// (a 500 in the JSON shape, logged, without `Connection: close`), counted in
    /// `bidscan_http_requests_total{route,status}` with the duration until the answer is ready, then the
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
            panic!("the pipeline future was polled after its answer");
        };
        request::finished(&mut res, *this.started, &mut scope);
        Poll::Ready(res)
    }
}

/// What steps 3 to 11 need of the request's headers, read in one pass by [`Pipeline::call`] ([`Head`]).
struct Seen {
    /// How the `Host` rule is broken (RFC 9112 §3.2), if it is.
    host_fault: Option<HostFault>,
    /// The `x-openrtb-version` to echo.
    version: Option<HeaderValue>,
    /// The `Content-Length`, when it is a number.
    length: Option<u64>,
    /// A `Content-Encoding` is present.
    coded: bool,
    /// The `X-Bidder` (`?bidder=` wins over it).
    bidder: Option<HeaderValue>,
    /// No `Content-Type`, or exactly `application/json`: nothing for step 11 to check.
    plain_json: bool,
    /// The method is `POST`, the one the document routes take.
    post: bool,
}

/// Steps 3 to 12: close-if-unread around the `Host` rule and the rest; JSON error bodies and the version echo around
/// the permit; the request timeout around the body, the work and the compression.
async fn respond<B>(shared: Arc<Shared>, req: Request<B>, mut seen: Seen) -> Response<Body>
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
        let version = seen.version.take();
        let mut res = match shared.state.permits.try_acquire() {
            Err(_) => shared.state.shed_concurrency().into_response(),
            Ok(permit) => {
                let deadline = tokio::time::Instant::now() + shared.timeout;
                match prepare(&shared, req, &seen) {
                    Prepared::Answer(res) => res,
                    Prepared::Body(body) => {
                        let mut hold = Hold {
                            _slot: permit,
                            slow: false,
                        };
                        let answered = Deadline {
                            inner: handle(&shared, body, &mut read, &mut hold),
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
    if shared.work != Work::Validate {
        // The answer's media type follows `Accept` (RFC 9110 §12.5.5): every answer of the route says so, its
        // errors (406, 4xx, 503) too, after the coding's `Vary`.
        res.headers_mut()
            .append(header::VARY, HeaderValue::from_static("accept"));
    }
    if !seen.post {
        // Every answer to another method names the one taken (RFC 9110 §10.2.1), as axum's method router does.
        res.headers_mut()
            .entry(header::ALLOW)
            .or_insert(HeaderValue::from_static("POST"));
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

/// A request whose head passed the checks of steps 9 to 11.
struct Pending<B> {
    wire: B,
    /// The codings to undo, last-applied last (`None`: none).
    coded: Option<Vec<Coding>>,
    options: Options,
    /// The request's headers: its `Accept-Encoding` is looked up only for an answer long enough to compress.
    headers: HeaderMap,
}

/// Steps 9 to 11 on the head: `Content-Length` over the limit (413), the `Content-Encoding` (415), the method
/// (405), the query (400), the `Content-Type` (415; an auction's not multipart, 400); the request's bidder resolved
/// with the query.
fn prepare<B>(shared: &Shared, req: Request<B>, seen: &Seen) -> Prepared<B> {
    let limit = shared.limit;
    let (coded, plain_json, post) = (seen.coded, seen.plain_json, seen.post);
    if seen.length.is_some_and(|n| n > limit as u64) {
        shared.too_large[usize::from(body::protobuf_type(req.headers()).is_some())].inc();
        // Rare: the query is read only to count the refusal under the request's bidder.
        if let Ok(options) = options(req.uri(), &shared.state, Work::Decode, seen.bidder.as_ref())
            && let Some(bidder) = options.bidder
        {
            bidder.observe_outcome("too_large");
        }
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
    if !post {
        // Empty, as the router's own 405: step 5 gives it the JSON shape, `respond` the `Allow` header.
        let mut res = Response::new(Body::empty());
        *res.status_mut() = StatusCode::METHOD_NOT_ALLOWED;
        return Prepared::Answer(res);
    }
    let mut options = match options(&parts.uri, &shared.state, shared.work, seen.bidder.as_ref()) {
        Ok(options) => options,
        Err(e) => return Prepared::Answer(e.into_response()),
    };
    if shared.work == Work::Auction {
        // `multipart/form-data` with its boundary, one line only; the parts are read with the body.
        if parts
            .headers
            .get_all(header::CONTENT_TYPE)
            .iter()
            .nth(1)
            .is_some()
        {
            return Prepared::Answer(ApiError::repeated_media_type().into_response());
        }
        // Not multipart, or no usable boundary (`multipart::boundary`): 400 `not_multipart` before the body.
        let content_type = parts.headers.get(header::CONTENT_TYPE);
        let content_type = content_type.and_then(|v| v.to_str().ok()).unwrap_or("");
        if let Err(e) = multipart::boundary(content_type) {
            return Prepared::Answer(CallError::Multipart(e).api_error().into_response());
        }
    } else if !plain_json {
        // `/decode` reads a protobuf `BidResponse` under a protobuf media type; `/validate` refuses one by name,
        // pointing at `/validate/auction`, whose parts may be protobuf.
        match body::protobuf_type(&parts.headers) {
            Some(_) if shared.work == Work::Decode => options.encoding = Encoding::Protobuf,
            Some(found) if shared.work == Work::Validate => {
                let e = ApiError::protobuf_not_here(found, validate::PROTOBUF_INSTEAD);
                return Prepared::Answer(e.into_response());
            }
            _ => {
                if let Err(e) = body::check_content_type(&parts.headers, Accepts::Json) {
                    return Prepared::Answer(e.into_response());
                }
            }
        }
    }
    if shared.work != Work::Validate {
        // `Accept`: the JSON envelope, or protobuf (`/decode`: the canonical response; an auction: a multipart
        // part per bidder); 406 when neither.
        match negotiate::choose(&parts.headers, decode::OFFERS) {
            Some(negotiate::PROTOBUF) => options.answer = Encoding::Protobuf,
            Some(_) => {}
            None => {
                let offered = negotiate::offered(decode::OFFERS);
                return Prepared::Answer(ApiError::not_acceptable(&offered).into_response());
            }
        }
    }
    Prepared::Body(Pending {
        wire,
        coded,
        options,
        headers: parts.headers,
    })
}

/// Steps 9 to 12 from the body on: the body received within the limit (and its codings undone), the work, the
/// answer's compression.
async fn handle<'a, B>(
    shared: &'a Shared,
    pending: Pending<B>,
    read: &mut bool,
    hold: &mut Hold<'a>,
) -> Response<Body>
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
    let state = &shared.state;
    // The body's bytes in `server.max_inflight_bytes`: a first step now, before any of it is read (none free:
    // 503 before the body), then as it grows; a compressed body's decoders' working memory too (`collect_coded`),
    // not its decompressed limit: a stalled compressed stream holds what it costs.
    let mut reservation = state.memory.reservation();
    if !reservation.cover(1) {
        return state.shed_memory().into_response();
    }
    let capture = shared.state.capture.as_ref();
    // A compressed body's wire frames, kept for a capture while they inflate.
    let mut kept = None;
    let collected = async {
        match coded {
            None => collect_plain(wire, limit, &mut reservation, read).await,
            Some(list) => {
                kept = capture.and_then(|c| c.wire_sink(shared.work, options.bidder.as_deref()));
                let wire = Tee::new(wire, kept.clone());
                // Rare: boxed, so that the common future does not carry the decompressors' state.
                let (frames, unread) = Box::pin(collect_coded(
                    wire,
                    list,
                    limit,
                    &state.memory,
                    &mut reservation,
                ))
                .await;
                *read |= unread;
                frames
            }
        }
    };
    let graced = Graced {
        inner: collected,
        grace: shared.grace,
        sleep: None,
        hold,
        state,
    };
    let Some(frames) = graced.await else {
        // Past the grace with the slow lane full.
        return ApiError::new(
            ErrorCode::Timeout,
            "the body was still arriving after server.body_grace_ms and the slow lane was full",
        )
        .into_response();
    };
    let frames = match frames {
        Ok(frames) => frames,
        Err(e) => {
            // The one error with `Retry-After` the body's reading gives: its bytes did not fit.
            if e.retry_after.is_some() {
                return state.shed_memory().into_response();
            }
            state
                .engine
                .count_refused_by(&e, options.bidder.as_deref(), options.encoding);
            if let Some(c) = capture {
                c.refused(shared.route, shared.work, &e, &options, &headers, kept);
            }
            return e.into_response();
        }
    };
    // A view=full answer echoes the body: its bytes reserved again before the work, joined with the body's for the
    // answer below.
    let echo = if options.view == View::Full {
        match state.memory.try_reserve(frames.len) {
            Some(echo) => Some(echo),
            None => return state.shed_memory().into_response(),
        }
    } else {
        None
    };
    // An auction's answer, held in the budget as it is built (`auction`).
    let mut held = None;
    let answer = match shared.work {
        // Rare and larger: boxed, so that the common future does not carry the parts' reading.
        Work::Auction => {
            let held = held.insert(state.memory.reservation());
            Box::pin(auction(shared, frames, &headers, &options, held)).await
        }
        work => {
            let answer = state
                .engine
                .run(work, frames.slices(), frames.len, &options);
            if let Some(c) = capture {
                c.judged(
                    shared.route,
                    work,
                    &answer,
                    &frames,
                    &options,
                    &headers,
                    kept,
                );
            }
            drop(frames);
            answer
        }
    };
    match answer {
        Ok(answer) => {
            // The body is gone; its bytes (and `echo`'s) become the answer's, held until it is sent: trimmed to
            // its length in steps, grown if it is longer (an answer below a step keeps the first: no atomics).
            let len = answer.json.len();
            if let Some(echo) = echo {
                reservation.join(echo);
            }
            // An auction's answer already holds its buffer's capacity (what it occupies until sent, more than
            // its length): joined, and kept.
            let holds = match held {
                Some(held) => {
                    reservation.join(held);
                    answer.json.capacity()
                }
                None => len,
            };
            reservation.trim(holds);
            if !reservation.cover(holds) {
                return state.shed_memory().into_response();
            }
            let big = compress::compressible(len);
            let (issues, errors) = (answer.issues, answer.errors);
            let multipart = (options.answer == Encoding::Protobuf && shared.work == Work::Auction)
                .then(|| validate::multipart_type(&answer.json));
            let json = Full::new(Bytes::from(answer.json));
            let mut res = Response::new(memory::hold(json, reservation));
            if options.answer == Encoding::Protobuf {
                decode::protobuf_answer(res.headers_mut(), issues, errors);
                if let Some(content_type) = multipart {
                    res.headers_mut().insert(header::CONTENT_TYPE, content_type);
                }
            } else {
                res.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                );
            }
            // Boxed for the same reason as the codings.
            match headers.get(header::ACCEPT_ENCODING) {
                Some(accept) if big => Box::pin(compress::answer(accept.clone(), res)).await,
                None if big => {
                    // What tower-http's compressor (the router's) adds to a long answer for a client that asks for no coding
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

/// An auction's body (`frames`, sent with `headers`' `Content-Type`) read into its parts under the part limits,
/// then judged by [`Engine::auction_encoded`](crate::engine::Engine::auction_encoded), its answer held in `held`
/// as it is built (503, counted, as soon as the budget cannot cover it); the answer handed to a capture, if on.
async fn auction(
    shared: &Shared,
    frames: Frames,
    headers: &HeaderMap,
    options: &Options,
    held: &mut Reservation,
) -> Result<Answer, ApiError> {
    // The frames are not decoded in place (their copy below is): a capture keeps references to them.
    let capture = shared.state.capture.as_ref();
    let wire = capture.map(|_| frames.chunks.clone());
    let mut bytes = Vec::with_capacity(frames.len);
    for chunk in frames.slices() {
        bytes.extend_from_slice(chunk);
    }
    drop(frames);
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let mut parts = AuctionParts::read_within(
        bytes,
        content_type,
        shared.parts,
        Some(&shared.state.memory),
    )
    .await
    .map_err(|e| match e {
        CallError::Memory => shared.state.shed_memory(),
        e => e.api_error(),
    })?;
    let encoding = parts.request_encoding();
    let (request, replies) = parts.replies();
    // What the answer occupies, exactly: grown when it needs more, trimmed when it needs less.
    let mut hold = |bytes: usize| {
        held.trim(bytes);
        held.cover(bytes)
    };
    // The bidders the answer turns down, from the judged auction (whichever the answer's encoding), for a capture.
    let mut turned = capture.map(|_| Vec::new());
    let answer = (shared.state.engine).auction_judged(
        request,
        encoding,
        replies,
        options,
        &mut hold,
        turned.as_mut(),
    );
    // A call answered with an error (a shed, a bad request part) gave no verdicts: nothing to capture.
    if let (Some(c), Some(wire), Some(turned), true) = (capture, wire, turned, answer.is_ok()) {
        c.auction(shared.route, turned, &wire, headers, shared.parts.max_parts);
    }
    answer.map_err(|e| {
        // The one error with `Retry-After` the work gives: the answer's memory could not be held.
        if e.retry_after.is_some() {
            shared.state.shed_memory()
        } else {
            e
        }
    })
}

/// The data frames of a body with the codings `list` (undone last-applied first, RFC 9110 §8.4), refused (413)
/// past `limit` bytes on the wire or decoded, and whether the wire body was read to its end. Each decoder's working
/// memory is held in `budget` while it decodes ([`Inflated::within`]), the decoded bytes in `reservation`; either
/// past the budget is 503 (before the body, or part-way).
async fn collect_coded<B>(
    wire: B,
    list: Vec<Coding>,
    limit: usize,
    budget: &Arc<MemoryBudget>,
    reservation: &mut Reservation,
) -> (Result<Frames, ApiError>, bool)
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    let (tracked, flag) = unread::tracked(Body::new(wire));
    let mut decoded = Body::new(Limited::new(tracked, limit));
    for &coding in list.iter().rev() {
        match Inflated::within(decoded, coding, budget) {
            Ok(inflated) => decoded = Body::new(inflated),
            Err(_) => return (Err(ApiError::memory(0)), flag.load(Ordering::Acquire)),
        }
    }
    let frames = body::collect(decoded, limit, Some(reservation)).await;
    (frames, flag.load(Ordering::Acquire))
}

/// The data frames of a body without a coding, straight from the wire, refused (413) past `limit` bytes as
/// `http_body_util::Limited` refuses them, and (503, an error with `Retry-After`) as soon as `reservation` cannot
/// cover them; `read` is set once the body has no more frames (as close-if-unread's body wrapper sets it).
async fn collect_plain<B>(
    wire: B,
    limit: usize,
    reservation: &mut Reservation,
    read: &mut bool,
) -> Result<Frames, ApiError>
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
            if !reservation.cover(frames.len) {
                return Err(ApiError::memory(0));
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
/// (`DecodeParams::options_as`: the policy chosen for a validation, 400 `unknown_profile`; the bidder's
/// handles, `?bidder=` winning over `header`, `X-Bidder`). A bidder named in the simple form is not copied.
fn options(
    uri: &Uri,
    state: &AppState,
    work: Work,
    header: Option<&HeaderValue>,
) -> Result<Options, ApiError> {
    let header = header.and_then(|v| std::str::from_utf8(v.as_bytes()).ok());
    match uri.query() {
        None => DecodeParams::default().options_as(state, work, header),
        Some(query) => match simple_params(query) {
            Some((params, bidder)) => params.options_as(state, work, bidder.or(header)),
            None => {
                let mut params = Query::<DecodeParams>::try_from_uri(uri)
                    .map_err(invalid_query)?
                    .0;
                let bidder = params.bidder.take();
                params.options_as(state, work, bidder.as_deref().or(header))
            }
        },
    }
}

/// `query` read without serde when it is `key=value` pairs of known keys and values only, with the `bidder`
/// borrowed; `None` for anything else (which [`options`] hands to `Query`).
fn simple_params(query: &str) -> Option<(DecodeParams, Option<&str>)> {
    let mut params = DecodeParams::default();
    let mut bidder = None;
    // Where `pair` starts in `query`.
    let mut at = 0;
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
            // So is a bidder name's; any other name is `other` whatever its spelling, but goes to `Query` too.
            b"bidder"
                if bidder.is_none()
                    && value
                        .iter()
                        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')) =>
            {
                // `query` is a `str` and `value` lies in it between ASCII bytes: sliced, not checked as UTF-8
                // a second time (a fixed ~70 instructions per request, callgrind).
                let start = at + eq + 1;
                bidder = query.get(start..start + value.len());
            }
            _ => return None,
        }
        at += pair.len() + 1;
    }
    Some((params, bidder))
}

/// A document request's hold on admission (step 7): a permit of `server.max_concurrency` until its body has
/// arrived or `server.body_grace_ms` has passed, then, if the body is still arriving, a slot of the slow lane
/// ([`AppState::slow_bodies`]) to its end. Held until the answer is ready.
struct Hold<'a> {
    /// The permit, or the slow lane's slot: given back when dropped.
    _slot: SemaphorePermit<'a>,
    /// `_slot` is the slow lane's.
    slow: bool,
}

impl<'a> Hold<'a> {
    /// Moves a permit's hold to the slow lane, the permit given back: `false` when the lane is full. Counted in
    /// `bidscan_slow_bodies_total{outcome}`.
    fn move_to_slow_lane(&mut self, state: &'a AppState) -> bool {
        if self.slow {
            return true;
        }
        let slow = &state.metrics().slow_bodies;
        match state.slow_bodies.try_acquire() {
            Ok(slot) => {
                (self._slot, self.slow) = (slot, true);
                slow.with_label_values(&["moved"]).inc();
                true
            }
            Err(_) => {
                slow.with_label_values(&["refused"]).inc();
                false
            }
        }
    }
}

pin_project! {
    /// The body's reading, `inner`, under `server.body_grace_ms`: once `grace` has passed with the body still
    /// arriving, `hold` moves to the slow lane, or, the lane full, the reading ends with `None`. The timer is made
    /// on the first `Pending`, so a body that arrived with its head costs none.
    struct Graced<'a, 'h, F> {
        #[pin]
        inner: F,
        grace: Option<Duration>,
        #[pin]
        sleep: Option<Sleep>,
        hold: &'h mut Hold<'a>,
        state: &'a AppState,
    }
}

impl<'a, F: Future> Future for Graced<'a, '_, F> {
    type Output = Option<F::Output>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut this = self.project();
        if let Poll::Ready(out) = this.inner.poll(cx) {
            return Poll::Ready(Some(out));
        }
        let Some(grace) = *this.grace else {
            return Poll::Pending;
        };
        if this.sleep.is_none() {
            this.sleep.set(Some(tokio::time::sleep(grace)));
        }
        if let Some(sleep) = this.sleep.as_mut().as_pin_mut() {
            ready!(sleep.poll(cx));
        }
        // Once: the hold is in the slow lane to the body's end (`inner` has its waker).
        *this.grace = None;
        this.sleep.set(None);
        if this.hold.move_to_slow_lane(this.state) {
            Poll::Pending
        } else {
            Poll::Ready(None)
        }
    }
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
        let (p, bidder) = simple_params("view=summary&inspect=none").unwrap();
        assert_eq!(p.view, Some(View::Summary));
        assert_eq!(p.inspect, Some(Inspect::None));
        assert_eq!(p.mode, None);
        assert_eq!(bidder, None);
        let (p, _) = simple_params("mode=strict").unwrap();
        assert_eq!(p.mode, Some(ModeName::Strict));
        let (p, _) = simple_params("profile=acme.eu-1_x&view=full").unwrap();
        assert_eq!(p.profile.as_deref(), Some("acme.eu-1_x"));
        let (p, bidder) = simple_params("bidder=acme.eu-1_x&view=full").unwrap();
        assert_eq!((p.view, bidder), (Some(View::Full), Some("acme.eu-1_x")));
        let (_, bidder) = simple_params("view=summary&mode=lenient&bidder=b-2").unwrap();
        assert_eq!(bidder, Some("b-2"));
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
            "bidder=a%20b",
            "bidder=a&bidder=b",
            "other=1",
            "view",
        ] {
            assert!(simple_params(other).is_none(), "{other}");
        }
    }
}
