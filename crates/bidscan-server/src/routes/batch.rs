//! `POST /decode/batch`: NDJSON in, NDJSON out, streamed.
//!
//! Each input line (ended by `\n`; a last line without one counts; a `\r` before the `\n` is dropped) yields
//! exactly one output line, in order: the `/decode` answer, or `{"error": ...}` for a line that fails (malformed,
//! not a bid response, strict failure, longer than `server.max_body_bytes`). A failing line never stops the batch.
//! An empty line is an empty body, which is a no-bid, so the line count of the output always equals the input's.
//! If the request body itself fails (over `server.max_batch_bytes` on the wire or after decompression, bad
//! compression, no frame within `server.request_timeout_secs`), one error line is written and the stream ends.
//! The limit after decompression bounds the answer too: without it, 97 KB of gzip inflating to 100 MB of `{}`
//! lines would stream an 841 MB answer. A batch also answers at most `server.max_batch_lines`
//! lines; past it a `payload_too_large` error line ends the stream: an empty line is one byte in, a ~270-byte
//! no-bid answer out, so without the bound 1 MB of newlines would stream 272 MB. And it writes at most
//! `server.max_batch_answer_bytes` of answer lines; the line that would pass it is replaced by a
//! `payload_too_large` line that ends the stream: a line of 200 `{}` bids is ~600 bytes in and a 184 KB answer
//! out (every bid's findings), so without the bound 172 KB of gzip would stream ~18 GB. The batch holds one of the
//! server's `max_concurrency` decode permits for as long as it streams (503 when none is free).
//!
//! Lines are decoded as the frames that complete them arrive, and the answers for one frame are written as one
//! chunk, so memory stays bounded by the longest line whatever the batch size. With
//! `server.batch_answer_after_body` the chunks are held until the body has been read, then sent: the answer's
//! memory is then bounded by `server.max_batch_answer_bytes` (behind nginx, which stops forwarding a request
//! body once the answer has begun, a streamed batch past a few MB loses its end).

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::body::{Body, BodyDataStream};
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use bytes::{BufMut, Bytes, BytesMut};
use futures_util::StreamExt;
use futures_util::stream::Peekable;
use tokio::sync::OwnedSemaphorePermit;

use crate::engine::{Engine, Options, Work};
use crate::error::{ApiError, ErrorBody};
use crate::routes::params::{DecodeParams, invalid_query};
use crate::routes::state::{AppState, X_BIDDER};
use crate::transport::body::{self, Accepts, Line, Lines};
use crate::transport::memory::Reservation;

/// Decodes every line of an NDJSON body, answering one NDJSON line per input line as they are decoded.
#[utoipa::path(
    post,
    path = "/decode/batch",
    tag = "decode",
    params(DecodeParams),
    request_body(
        content = String,
        content_type = "application/x-ndjson",
        description = "One bid response per line. Content-Encoding gzip, deflate, br or zstd accepted."
    ),
    responses(
        (status = 200, description = "One line per input line: the /decode answer or {\"error\": ...}", content_type = "application/x-ndjson", body = String),
        (status = 400, description = "Bad query, or a request breaking the Host rule (RFC 9112 §3.2)", body = ErrorBody),
        (status = 408, description = "Body not received in time", body = ErrorBody),
        (status = 413, description = "Body too large on the wire (Content-Length)", body = ErrorBody),
        (status = 415, description = "Unsupported Content-Type (a protobuf one included: send protobuf bodies one at a time to /decode) or Content-Encoding", body = ErrorBody),
        (status = 503, description = "Overloaded; see Retry-After", body = ErrorBody),
    )
)]
pub async fn batch(
    State(state): State<AppState>,
    query: Result<Query<DecodeParams>, QueryRejection>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    stream(state, query, headers, body, Work::Decode).await
}

/// The streamed NDJSON answer of `/decode/batch` and `/validate/batch`: `work` on each line; with
/// `server.batch_answer_after_body`, the answer is held until the whole body is read.
pub async fn stream(
    state: AppState,
    query: Result<Query<DecodeParams>, QueryRejection>,
    headers: HeaderMap,
    body: Body,
    work: Work,
) -> Result<Response, ApiError> {
    let mut params = query.map_err(invalid_query)?.0;
    if params.bidder.is_none() {
        // Once per batch: `?bidder=` wins over `X-Bidder`.
        params.bidder = headers
            .get(&X_BIDDER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
    }
    let options = params.options(&state, work)?;
    body::check_content_type(&headers, Accepts::Ndjson)?;
    let permit = state
        .permits
        .clone()
        .try_acquire_owned()
        .map_err(|_| state.shed_concurrency())?;
    let limit = state.config.server.max_body_bytes;
    let mut batch = Batch {
        _permit: permit,
        input: body.into_data_stream().peekable(),
        lines: Lines::new(limit),
        line_bytes: state.memory.reservation(),
        received: 0,
        answered: 0,
        written: 0,
        out: VecDeque::new(),
        done: false,
        state,
        options,
        work,
    };
    // The answer's head waits for the body's first frame. Over HTTP/1.1, hyper answers `Expect: 100-continue`
    // with `100 Continue` when the body is first read, unless the final head was written already: a head sent
    // at once would leave the client waiting out its own timeout before it sends the body (curl's is 1 s, and it
    // asks for every body over 1 MiB; RFC 9110 §10.1.1).
    std::pin::Pin::new(&mut batch.input).peek().await;
    let body = if batch.state.config.server.batch_answer_after_body {
        let (chunks, held) = batch.held().await;
        // The held bytes count until the answer has been sent (or the connection dropped): `held` lives in
        // the body's stream.
        Body::from_stream(futures_util::stream::iter(chunks).map(move |chunk| {
            let _counted = &held;
            Ok::<Bytes, std::convert::Infallible>(chunk)
        }))
    } else {
        Body::from_stream(futures_util::stream::unfold(
            batch,
            |mut batch| async move {
                let chunk = batch.next_chunk().await?;
                Some((Ok::<Bytes, std::convert::Infallible>(chunk), batch))
            },
        ))
    };
    Ok((
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/x-ndjson"),
        )],
        body,
    )
        .into_response())
}

/// The state of one streamed batch.
struct Batch {
    /// One of the server's decode permits, held until the stream ends or is dropped.
    _permit: OwnedSemaphorePermit,
    /// The request body; its first frame is awaited before the answer's head.
    input: Peekable<BodyDataStream>,
    lines: Lines,
    /// The incomplete line's bytes in `server.max_inflight_bytes`.
    line_bytes: Reservation,
    /// Bytes of the body received so far, after decompression.
    received: usize,
    /// Lines answered so far (at most `server.max_batch_lines`).
    answered: usize,
    /// Bytes of answer lines queued so far (at most `server.max_batch_answer_bytes`).
    written: usize,
    /// Rendered chunks not yet handed to the response body.
    out: VecDeque<Bytes>,
    done: bool,
    state: AppState,
    options: Options,
    /// Decode or validate each line.
    work: Work,
}

impl Batch {
    /// Every chunk of output, the whole body read first (at most `max_batch_answer_bytes` of answer lines,
    /// and the error line that may end them), with their count in the server's held bytes (at most
    /// `server.max_held_answer_bytes` for all batches: past it the batch ends with an `overloaded` line); the
    /// permit is released when they are.
    async fn held(mut self) -> (Vec<Bytes>, Held) {
        let mut held = Held {
            bytes: 0,
            total: self.state.held_answers.clone(),
            reservation: self.state.memory.reservation(),
        };
        let cap = self.state.config.server.max_held_answer_bytes;
        let mut chunks = Vec::new();
        let mut capped = false;
        while let Some(chunk) = self.next_chunk().await {
            let before = held.total.fetch_add(chunk.len(), Ordering::Relaxed);
            // Past the cap or `server.max_inflight_bytes`, the chunk is replaced by the one `overloaded` line
            // (which is then let through).
            let over_cap = before + chunk.len() > cap;
            if !capped && (over_cap || !held.reservation.cover(held.bytes + chunk.len())) {
                capped = true;
                held.total.fetch_sub(chunk.len(), Ordering::Relaxed);
                // The lines of this chunk were decoded (and counted); their answers are left out.
                self.out.clear();
                let e = if over_cap {
                    ApiError::overloaded(self.state.config.server.retry_after_secs)
                } else {
                    self.state.shed_memory()
                };
                self.state.engine.count_refused(&e);
                self.fail(e);
                continue;
            }
            held.bytes += chunk.len();
            chunks.push(chunk);
        }
        (chunks, held)
    }

    /// The next chunk of output, reading input until some is ready; `None` at the end.
    async fn next_chunk(&mut self) -> Option<Bytes> {
        loop {
            if let Some(chunk) = self.out.pop_front() {
                return Some(chunk);
            }
            if self.done {
                return None;
            }
            match self.input.next().await {
                Some(Ok(frame)) => {
                    let limit = self.state.config.server.max_batch_bytes;
                    let room = limit.saturating_sub(self.received);
                    self.received += frame.len();
                    if self.received > limit {
                        // Every line that ends within the limit is answered, also in the frame that passes it;
                        // the rest is not read.
                        let lines = self.lines.push(&frame[..room]);
                        self.render(lines);
                        if !self.done {
                            let e = ApiError::too_large(limit, "the decompressed batch");
                            self.state.engine.count_refused(&e);
                            self.fail(e);
                        }
                        continue;
                    }
                    let lines = self.lines.push(&frame);
                    self.render(lines);
                    if !self.done && !self.line_bytes.cover(self.lines.pending_len()) {
                        let e = self.state.shed_memory();
                        self.fail(e);
                    }
                    self.line_bytes.trim(self.lines.pending_len());
                }
                Some(Err(e)) => {
                    let limit = self.state.config.server.max_batch_bytes;
                    self.fail(body::read_error(&e, limit));
                }
                None => {
                    let last = self.lines.finish();
                    self.render(last.into_iter().collect());
                    self.done = true;
                }
            }
        }
    }

    /// Queues `e` as the last line and ends the stream.
    fn fail(&mut self, e: ApiError) {
        let mut line = e.to_json();
        line.push(b'\n');
        self.out.push_back(line.into());
        self.done = true;
    }

    /// Decodes `lines` and queues their answers as one chunk.
    fn render(&mut self, lines: Vec<Line>) {
        if lines.is_empty() {
            return;
        }
        let engine = &self.state.engine;
        let server = &self.state.config.server;
        let (max_lines, max_answer) = (server.max_batch_lines, server.max_batch_answer_bytes);
        let mut chunk = BytesMut::new();
        for line in lines {
            if self.answered == max_lines {
                self.done = true;
                end_with(
                    &mut chunk,
                    Some(engine),
                    &ApiError::too_many_lines(max_lines),
                );
                break;
            }
            self.answered += 1;
            let result = match line {
                Line::Full(bytes) => engine
                    .run(self.work, [bytes.as_ref()], bytes.len(), &self.options)
                    .map(|a| a.json),
                Line::TooLong => {
                    let e = ApiError::too_large(self.lines_limit(), "the line");
                    engine.count_refused(&e);
                    Err(e)
                }
            };
            let json = match result {
                Ok(json) => json,
                Err(e) => e.to_json(),
            };
            if self.written + json.len() + 1 > max_answer {
                self.done = true;
                // The line was decoded (and counted as such); only its answer is left out.
                end_with(&mut chunk, None, &ApiError::answer_too_large(max_answer));
                break;
            }
            self.written += json.len() + 1;
            chunk.put_slice(&json);
            chunk.put_u8(b'\n');
        }
        self.out.push_back(chunk.freeze());
    }

    fn lines_limit(&self) -> usize {
        self.state.config.server.max_body_bytes
    }
}

/// Bytes of held batch answers, counted in the server's total and in `server.max_inflight_bytes` until dropped.
struct Held {
    bytes: usize,
    total: Arc<AtomicUsize>,
    reservation: Reservation,
}

impl Drop for Held {
    fn drop(&mut self) {
        self.total.fetch_sub(self.bytes, Ordering::Relaxed);
    }
}

/// Writes `e` as the batch's last line, counted under its outcome by `engine` when given.
fn end_with(chunk: &mut BytesMut, engine: Option<&Engine>, e: &ApiError) {
    if let Some(engine) = engine {
        engine.count_refused(e);
    }
    chunk.put_slice(&e.to_json());
    chunk.put_u8(b'\n');
}
