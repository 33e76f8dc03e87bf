//! [`IdleClose`]: `server.header_read_timeout_secs` for HTTP/2 connections, which close once no stream has been
//! open for that long.
//!
//! hyper's header-read timeout is HTTP/1's alone; its HTTP/2 server has no idle timer, and its keep-alive pings
//! ([`crate::transport::server::H2_KEEP_ALIVE`]) only find a peer that stopped answering. A client that sends the
//! preface and SETTINGS and then nothing, or only PINGs, WINDOW_UPDATEs or SETTINGS, kept its connection slot for
//! ever: `server.max_connections` of them (64 on `server.ops_listen`) locked the port.
//!
//! What counts as activity is a request stream, seen through hyper's executor: hyper spawns each HTTP/2 stream's
//! task on [`StreamDeadlines`](crate::transport::conn::stream_deadline::StreamDeadlines), from inside the
//! connection's poll. [`IdleClose`] polls the connection with its [`Streams`] set as a task-local, and the executor
//! takes an [`OpenStream`] for each task it spawns ([`open_stream`]), which counts the stream as open until the task
//! ends (its answer sent, or the stream reset). Control frames never reach the executor, so they do not count.
//! - while no stream is open, a timer of `server.header_read_timeout_secs` runs from the accept, or from the end
//!   of the last stream; when it fires the connection is shut down gracefully (hyper's `graceful_shutdown`:
//!   `GOAWAY`, RFC 9113 §6.8), counted in `bidscan_http2_idle_closes_total` and logged at DEBUG;
//! - from then on (and from a drain's graceful shutdown) the client has [`CLOSE_GRACE`] without an open stream to
//!   let hyper finish the close (it waits for the answer to its PING before the last `GOAWAY`); a client that does
//!   not answer is dropped then. Streams still open when the shutdown begins are answered first.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::task::AtomicWaker;
use hyper_util::server::graceful::GracefulConnection;
use pin_project_lite::pin_project;
use prometheus::IntCounter;
use tokio::time::{Instant, Sleep};

/// The target of this module's log lines (`log.level` filters name it; docs/operations.md, "Logs").
const LOG_TARGET: &str = "bidscan_server::h2_idle";

/// How long an HTTP/2 connection being shut down may stay open without a stream before it is dropped.
pub const CLOSE_GRACE: Duration = Duration::from_secs(1);

tokio::task_local! {
    /// The streams of the HTTP/2 connection being polled ([`IdleClose`] sets it, [`open_stream`] reads it).
    static STREAMS: Arc<Streams>;
}

/// One HTTP/2 connection's open streams, as its [`IdleClose`] sees them.
#[derive(Debug, Default)]
pub struct Streams {
    /// Streams whose task is running.
    open: AtomicUsize,
    /// Streams opened and ended so far: a change means activity, even one between two polls of the connection.
    events: AtomicU64,
    /// The connection's task, woken when a stream ends.
    waker: AtomicWaker,
}

/// One open stream of a connection's [`Streams`]; the stream ends when this is dropped.
#[derive(Debug)]
pub struct OpenStream(Arc<Streams>);

impl Drop for OpenStream {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::Relaxed);
        self.0.events.fetch_add(1, Ordering::Relaxed);
        self.0.waker.wake();
    }
}

/// An [`OpenStream`] of the HTTP/2 connection being polled, for a stream task being spawned; `None` outside an
/// [`IdleClose`] (a connection not watched).
pub fn open_stream() -> Option<OpenStream> {
    STREAMS
        .try_with(|streams| {
            streams.open.fetch_add(1, Ordering::Relaxed);
            streams.events.fetch_add(1, Ordering::Relaxed);
            OpenStream(streams.clone())
        })
        .ok()
}

pin_project! {
    /// An HTTP/2 connection (`C`, hyper-util's), shut down gracefully once no stream has been open for `limit`,
    /// and dropped once it has stayed open [`CLOSE_GRACE`] without a stream after that.
    pub struct IdleClose<C> {
        #[pin]
        conn: C,
        streams: Arc<Streams>,
        // `streams.events` when the timer was last set.
        seen: u64,
        timer: Pin<Box<Sleep>>,
        limit: Duration,
        // Whether `conn` is being shut down.
        closing: bool,
        counter: IntCounter,
    }
}

impl<C: GracefulConnection> IdleClose<C> {
    /// `conn`, accepted at `accepted`, shut down after `limit` without a stream; each idle close counts in
    /// `counter`.
    pub fn new(conn: C, accepted: Instant, limit: Duration, counter: IntCounter) -> IdleClose<C> {
        IdleClose {
            conn,
            streams: Arc::default(),
            seen: 0,
            timer: Box::pin(tokio::time::sleep_until(accepted + limit)),
            limit,
            closing: false,
            counter,
        }
    }

    /// Shuts the connection down gracefully (a drain): it is dropped once it has stayed [`CLOSE_GRACE`] without a
    /// stream.
    pub fn graceful_shutdown(self: Pin<&mut Self>) {
        let me = self.project();
        if !*me.closing {
            *me.closing = true;
            me.conn.graceful_shutdown();
            me.timer
                .as_mut()
                .reset(Instant::now() + CLOSE_GRACE.min(*me.limit));
        }
    }
}

impl<C: GracefulConnection> Future for IdleClose<C> {
    type Output = Option<C::Output>;

    /// The connection's output, or `None` when it was dropped for not closing within [`CLOSE_GRACE`].
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<C::Output>> {
        loop {
            let me = self.as_mut().project();
            me.streams.waker.register(cx.waker());
            let conn = me.conn;
            if let Poll::Ready(out) = STREAMS.sync_scope(me.streams.clone(), || conn.poll(cx)) {
                return Poll::Ready(Some(out));
            }
            if me.streams.open.load(Ordering::Relaxed) > 0 {
                // A stream is open: no timer (a stream ending wakes this task).
                return Poll::Pending;
            }
            let events = me.streams.events.load(Ordering::Relaxed);
            if events != *me.seen {
                // The last stream ended since the timer was set: the idle time starts now.
                *me.seen = events;
                let wait = if *me.closing {
                    CLOSE_GRACE.min(*me.limit)
                } else {
                    *me.limit
                };
                me.timer.as_mut().reset(Instant::now() + wait);
            }
            if me.timer.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            if *me.closing {
                tracing::debug!(target: LOG_TARGET,
                    grace_ms = CLOSE_GRACE.as_millis() as u64,
                    "HTTP/2 connection did not close within its grace after GOAWAY; dropped"
                );
                return Poll::Ready(None);
            }
            me.counter.inc();
            tracing::debug!(target: LOG_TARGET,
                limit_secs = me.limit.as_secs(),
                "HTTP/2 connection had no open stream within the header-read timeout; closing it (GOAWAY)"
            );
            // Poll again: hyper writes the GOAWAY, and the grace timer is registered.
            self.as_mut().graceful_shutdown();
        }
    }
}
