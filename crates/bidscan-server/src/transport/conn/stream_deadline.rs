//! [`StreamDeadlines`]: `server.send_timeout_secs` for each HTTP/2 answer, stream by stream.
//!
//! Over HTTP/2 the socket's send timeout ([`crate::transport::conn::send_timeout`]) cannot see a client that keeps
//! a stream's flow-control window shut (`SETTINGS_INITIAL_WINDOW_SIZE` 0, or no `WINDOW_UPDATE`, RFC 9113 §6.9):
//! hyper then never writes that stream's DATA, so no socket write stalls, and the answer (with its
//! `server.max_inflight_bytes` reservation) was held for as long as the client kept the connection open.
//!
//! Where the answer sits: hyper's body pump (`PipeToSendStream`, vendor/hyper/src/proto/h2/mod.rs) polls one
//! frame of the answer body, waits until the stream has send capacity, hands the frame to h2 (which buffers it
//! and writes it as the window allows) and only then polls the body again. While it waits for capacity nothing
//! polls the body, so a wrapper of the body alone can neither time out nor end the stream; and a body given as one
//! frame (every buffered answer) is handed to h2 whole at the first byte of window, so its reservation was given
//! back while h2 still held the answer. What holds the answer is hyper's per-stream task, which hyper spawns on
//! the connection's executor: [`StreamDeadlines`] is that executor.
//! - every HTTP/2 answer body is wrapped in [`Paced`] ([`PacedService`]): it hands hyper at most [`CHUNK`] bytes
//!   per frame, so the body is polled again only once h2 has taken the previous chunk (and its reservation lasts
//!   until the last chunk is handed over), and each frame of data it yields marks progress on the stream's
//!   [`Progress`] (a task-local, set while the stream's task is polled);
//! - every stream task runs inside [`Watched`]: once the answer has begun (a first chunk), a timer runs while the
//!   task waits and the body is not waiting on its producer; a chunk taken restarts it. When it fires the task is
//!   dropped: h2 resets that stream alone (`RST_STREAM` `CANCEL`, RFC 9113 §5.4.2), the answer and its reservation
//!   are dropped, and the connection serves its other streams. Counted in `bidscan_http_send_timeouts_total`,
//!   with the HTTP/1 connection resets.
//!
//! A stream thus has to take a [`CHUNK`] of its answer per `server.send_timeout_secs`. A stream waiting for the
//! request body, or for the service, is not timed: only an answer being sent is. Once the last chunk is handed
//! over the task ends: what h2 still holds of it then (at most one chunk past the client's window) is outside
//! both the deadline and the budget, until the client reads it or the connection ends.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, Response, Version};
use bytes::Bytes;
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use pin_project_lite::pin_project;
use prometheus::IntCounter;
use tokio::time::{Instant, Sleep};

/// The target of this module's log lines (`log.level` filters name it; docs/operations.md, "Logs").
const LOG_TARGET: &str = "bidscan_server::send_timeout";

/// Most bytes of an HTTP/2 answer handed to hyper at once: h2's default `SETTINGS_MAX_FRAME_SIZE` (RFC 9113
/// §6.5.2), so one chunk is one DATA frame.
pub const CHUNK: usize = 16 * 1024;

tokio::task_local! {
    /// The progress of the HTTP/2 stream whose task is being polled ([`Watched`] sets it, [`Paced`] marks it).
    static PROGRESS: Arc<Progress>;
}

/// What a stream's answer body has done, marked by [`Paced`] and read by [`Watched`].
#[derive(Debug, Default)]
pub struct Progress {
    /// Frames of data the body has handed to hyper; the answer has begun once it is not 0.
    chunks: AtomicU64,
    /// Whether the body's last poll waited on its producer (our side, not the client's).
    producing: AtomicBool,
}

/// hyper's executor for HTTP/2 stream tasks: spawns each on the current runtime inside a [`Watched`] of
/// `limit` (`server.send_timeout_secs`), counting expiries in `counter`.
#[derive(Clone, Debug)]
pub struct StreamDeadlines {
    limit: Duration,
    counter: IntCounter,
}

impl StreamDeadlines {
    /// An executor whose streams' answers may stall `limit` at most; each expiry counts in `counter`.
    pub fn new(limit: Duration, counter: IntCounter) -> StreamDeadlines {
        StreamDeadlines { limit, counter }
    }
}

impl<F> hyper::rt::Executor<F> for StreamDeadlines
where
    F: Future<Output = ()> + Send + 'static,
{
    fn execute(&self, task: F) {
        tokio::spawn(Watched {
            task,
            _open: crate::transport::conn::h2_idle::open_stream(),
            progress: Arc::default(),
            seen: 0,
            stalled: false,
            timer: None,
            limit: self.limit,
            counter: self.counter.clone(),
        });
    }
}

pin_project! {
    /// A stream task, dropped (so h2 resets the stream) when its answer takes no chunk for `limit`.
    pub struct Watched<F> {
        #[pin]
        task: F,
        // The stream counted open on its connection ([`crate::transport::conn::h2_idle`]) until this task ends.
        _open: Option<crate::transport::conn::h2_idle::OpenStream>,
        progress: Arc<Progress>,
        // `progress.chunks` when the current stall began.
        seen: u64,
        // Whether `timer` runs for the current stall.
        stalled: bool,
        // The timer of the current stall; allocated at the first stall, then reset.
        timer: Option<Pin<Box<Sleep>>>,
        limit: Duration,
        counter: IntCounter,
    }
}

impl<F: Future<Output = ()>> Future for Watched<F> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let me = self.project();
        let task = me.task;
        if PROGRESS
            .sync_scope(me.progress.clone(), || task.poll(cx))
            .is_ready()
        {
            return Poll::Ready(());
        }
        let chunks = me.progress.chunks.load(Ordering::Relaxed);
        if chunks == 0 || me.progress.producing.load(Ordering::Relaxed) {
            // Not begun, or waiting on our producer: not the client's stall.
            *me.stalled = false;
            return Poll::Pending;
        }
        if !*me.stalled || chunks != *me.seen {
            let deadline = Instant::now() + *me.limit;
            match me.timer {
                Some(timer) => timer.as_mut().reset(deadline),
                None => *me.timer = Some(Box::pin(tokio::time::sleep_until(deadline))),
            }
            *me.seen = chunks;
            *me.stalled = true;
        }
        let Some(timer) = me.timer else {
            return Poll::Pending;
        };
        if timer.as_mut().poll(cx).is_pending() {
            return Poll::Pending;
        }
        me.counter.inc();
        tracing::debug!(target: LOG_TARGET,
            limit_secs = me.limit.as_secs(),
            "HTTP/2 client took no chunk of the answer within the send timeout; resetting the stream"
        );
        // Ready: the runtime drops the task, and with it the stream's handles, which h2 answers with RST_STREAM.
        Poll::Ready(())
    }
}

pin_project! {
    /// An HTTP/2 answer body handed to hyper in frames of at most [`CHUNK`] bytes, each marking the stream's
    /// [`Progress`].
    pub struct Paced {
        #[pin]
        body: Body,
        // What is left of the frame being split.
        rest: Bytes,
    }
}

impl Paced {
    /// `body`, paced.
    pub fn new(body: Body) -> Paced {
        Paced {
            body,
            rest: Bytes::new(),
        }
    }
}

/// Marks that the stream's body handed hyper a frame of data (`data`) or waits on its producer (`!data`, with
/// `waiting`); nothing outside a [`Watched`] task.
fn mark(data: bool, waiting: bool) {
    let _ = PROGRESS.try_with(|p| {
        if data {
            p.chunks.fetch_add(1, Ordering::Relaxed);
        }
        p.producing.store(waiting, Ordering::Relaxed);
    });
}

impl http_body::Body for Paced {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let me = self.project();
        if !me.rest.is_empty() {
            let n = me.rest.len().min(CHUNK);
            mark(true, false);
            return Poll::Ready(Some(Ok(Frame::data(me.rest.split_to(n)))));
        }
        match me.body.poll_frame(cx) {
            Poll::Pending => {
                mark(false, true);
                Poll::Pending
            }
            Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                Ok(mut data) => {
                    if data.len() > CHUNK {
                        *me.rest = data.split_off(CHUNK);
                    }
                    mark(true, false);
                    Poll::Ready(Some(Ok(Frame::data(data))))
                }
                Err(frame) => {
                    mark(false, false);
                    Poll::Ready(Some(Ok(frame)))
                }
            },
            other => {
                mark(false, false);
                other
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.rest.is_empty() && self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        let inner = self.body.size_hint();
        let rest = self.rest.len() as u64;
        let mut hint = SizeHint::new();
        hint.set_lower(inner.lower().saturating_add(rest));
        if let Some(upper) = inner.upper() {
            hint.set_upper(upper.saturating_add(rest));
        }
        hint
    }
}

/// The application with its HTTP/2 answers [`Paced`]; HTTP/1 answers are left as they are (the socket's send
/// timeout watches them).
#[derive(Clone, Debug)]
pub struct PacedService<S>(pub S);

impl<S> hyper::service::Service<Request<Incoming>> for PacedService<S>
where
    S: hyper::service::Service<Request<Incoming>, Response = Response<Body>>,
{
    type Response = Response<Body>;
    type Error = S::Error;
    type Future = PacedFuture<S::Future>;

    fn call(&self, req: Request<Incoming>) -> Self::Future {
        PacedFuture {
            pace: req.version() == Version::HTTP_2,
            inner: self.0.call(req),
        }
    }
}

pin_project! {
    /// [`PacedService`]'s answer: the application's, its body [`Paced`] over HTTP/2.
    pub struct PacedFuture<F> {
        #[pin]
        inner: F,
        pace: bool,
    }
}

impl<F, E> Future for PacedFuture<F>
where
    F: Future<Output = Result<Response<Body>, E>>,
{
    type Output = Result<Response<Body>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let me = self.project();
        let answer = std::task::ready!(me.inner.poll(cx));
        Poll::Ready(if *me.pace {
            answer.map(|res| res.map(|body| Body::new(Paced::new(body))))
        } else {
            answer
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body::Body as _;
    use http_body_util::BodyExt;

    #[tokio::test]
    async fn a_paced_body_is_the_same_bytes_in_chunks_and_marks_each() {
        let data: Vec<u8> = (0..CHUNK * 3 + 5).map(|i| i as u8).collect();
        let progress = Arc::new(Progress::default());
        let frames = PROGRESS
            .scope(progress.clone(), async {
                let mut body = Paced::new(Body::from(data.clone()));
                assert_eq!(body.size_hint().exact(), Some(data.len() as u64));
                let mut frames = Vec::new();
                while let Some(frame) = body.frame().await {
                    frames.push(frame.unwrap().into_data().unwrap());
                }
                assert!(body.is_end_stream());
                frames
            })
            .await;
        let sizes: Vec<usize> = frames.iter().map(Bytes::len).collect();
        assert_eq!(sizes, [CHUNK, CHUNK, CHUNK, 5]);
        assert_eq!(frames.concat(), data);
        assert_eq!(progress.chunks.load(Ordering::Relaxed), 4);
    }
}
