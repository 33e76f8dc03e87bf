//! [`SendTimeout`]: the connection wrapper that resets a connection whose client takes no byte of an answer for
//! `server.send_timeout_secs`.
//!
//! hyper has no write timeout for HTTP/1 bodies, and `server.request_timeout_secs` ends when the answer is ready,
//! not when it is written: a client that sends a request and never reads the answer (its receive window stays
//! full) held its connection slot and the answer's memory for ever (8 such clients with 3 MB answers held
//! `max_connections = 8`). Here, while a write cannot proceed (the socket's send buffer is full), a timer runs;
//! any byte taken stops it, and the next stall starts it again. When it fires the write fails with `TimedOut`,
//! hyper ends the connection, and the socket is closed with `SO_LINGER` 0, a reset: a FIN would queue behind the
//! unsent answer, which the kernel would keep retrying. Counted in `bidscan_http_send_timeouts_total`.
//!
//! Only stalled writes arm the timer: an answer that fits the send buffer (every small one) costs nothing, and a
//! slow producer (a batch waiting for its body) is not the client's stall.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use prometheus::IntCounter;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::{Instant, Sleep};

/// The target of this module's log lines (`log.level` filters name it; docs/operations.md, "Logs").
const LOG_TARGET: &str = "bidscan_server::send_timeout";

/// A TCP connection whose writes may stall at most `limit` (see the module docs).
#[derive(Debug)]
pub struct SendTimeout {
    io: TcpStream,
    limit: Duration,
    /// The timer of the current stall; kept between stalls (reset, not reallocated).
    timer: Option<Pin<Box<Sleep>>>,
    /// Whether `timer` runs for the current stall.
    stalled: bool,
    /// Set when the timer fired: every later write fails too.
    expired: bool,
    counter: IntCounter,
}

impl SendTimeout {
    /// Wraps `io`; a stall of `limit` resets it and counts in `counter`.
    pub fn new(io: TcpStream, limit: Duration, counter: IntCounter) -> SendTimeout {
        SendTimeout {
            io,
            limit,
            timer: None,
            stalled: false,
            expired: false,
            counter,
        }
    }

    /// The socket.
    pub fn get_ref(&self) -> &TcpStream {
        &self.io
    }

    /// What a write that returned `result` means: progress stops the timer; `Pending` starts it (at the first
    /// stall) and polls it; a fired timer is the `TimedOut` error.
    fn watch<T>(
        &mut self,
        cx: &mut Context<'_>,
        result: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        if result.is_ready() {
            self.stalled = false;
            return result;
        }
        let deadline = Instant::now() + self.limit;
        let timer = match &mut self.timer {
            Some(timer) => {
                if !self.stalled {
                    timer.as_mut().reset(deadline);
                }
                timer
            }
            None => self
                .timer
                .insert(Box::pin(tokio::time::sleep_until(deadline))),
        };
        self.stalled = true;
        if timer.as_mut().poll(cx).is_pending() {
            return Poll::Pending;
        }
        self.expired = true;
        self.counter.inc();
        tracing::debug!(target: LOG_TARGET,
            limit_secs = self.limit.as_secs(),
            "client took no byte of the answer within the send timeout; resetting the connection"
        );
        // SO_LINGER 0: the close that follows is a reset, and the unsent answer is discarded at once.
        let _ = socket2::SockRef::from(&self.io).set_linger(Some(Duration::ZERO));
        Poll::Ready(Err(expired()))
    }
}

fn expired() -> io::Error {
    io::Error::new(
        io::ErrorKind::TimedOut,
        "send timeout: the client took no byte of the answer",
    )
}

impl AsyncRead for SendTimeout {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl AsyncWrite for SendTimeout {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.expired {
            return Poll::Ready(Err(expired()));
        }
        let result = Pin::new(&mut self.io).poll_write(cx, buf);
        self.watch(cx, result)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if self.expired {
            return Poll::Ready(Err(expired()));
        }
        let result = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        self.watch(cx, result)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.expired {
            return Poll::Ready(Err(expired()));
        }
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}
