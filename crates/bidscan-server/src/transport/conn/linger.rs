//! Lingering close: [`Lingering`], the connection wrapper that reads and discards what the client is still
//! sending before the socket is closed.
//!
//! Why: when the server answers before it has read the whole request body (413 from `Content-Length`, a 503
//! shed, a 415) and then closes a socket that still has unread data, the kernel sends a TCP reset instead of a
//! FIN, and a reset can destroy the answer before the client has read it: hyper-based clients (reqwest) then
//! report `IncompleteMessage` instead of the status. Apache and nginx (`lingering_close`, `lingering_time`)
//! avoid it the same way: send the answer, half-close (FIN), then keep reading and discarding until the client
//! closes its side or a deadline passes, and only then close.
//!
//! hyper calls `poll_shutdown` when it ends a connection normally (after an answer sent with
//! `Connection: close`, after the client closed, on graceful shutdown), so the lingering happens there; a
//! connection hyper drops on an error (a header-read timeout, a malformed head) is closed at once.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

/// Longest time a closing connection keeps reading and discarding the client's data: 2 seconds, enough to
/// receive the rest of a refused body of hundreds of megabytes on a data-centre link. nginx waits up to 30 s
/// (`lingering_time`); this is shorter because every lingering connection holds one of `server.max_connections`.
pub const LINGER_TIME: Duration = Duration::from_secs(2);

/// A connection (`T`, a `TcpStream`) whose shutdown lingers: see the module docs.
#[derive(Debug)]
pub struct Lingering<T> {
    io: T,
    /// Longest time to drain after our FIN ([`LINGER_TIME`] in the server).
    linger: Duration,
    phase: Phase,
}

#[derive(Debug)]
enum Phase {
    /// Serving: reads and writes pass through.
    Open,
    /// Our FIN is sent; discarding input until the client's FIN, an error, or the deadline.
    Draining(Pin<Box<Sleep>>),
    /// Shut down.
    Closed,
}

impl<T> Lingering<T> {
    /// Wraps `io`; its shutdown drains input for at most `linger`.
    pub fn new(io: T, linger: Duration) -> Lingering<T> {
        Lingering {
            io,
            linger,
            phase: Phase::Open,
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Lingering<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<T: AsyncRead + AsyncWrite + Unpin> AsyncWrite for Lingering<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    /// Sends FIN, then reads and discards until the client's FIN, a read error or the linger time. Only the
    /// FIN's own error is returned: what happens while draining changes nothing for the answer already sent.
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        loop {
            match &mut this.phase {
                Phase::Open => {
                    if let Err(e) = ready!(Pin::new(&mut this.io).poll_shutdown(cx)) {
                        this.phase = Phase::Closed;
                        return Poll::Ready(Err(e));
                    }
                    this.phase = Phase::Draining(Box::pin(tokio::time::sleep(this.linger)));
                }
                Phase::Draining(deadline) => {
                    if deadline.as_mut().poll(cx).is_ready() {
                        this.phase = Phase::Closed;
                        continue;
                    }
                    let mut scratch = [0u8; 8192];
                    let mut buf = ReadBuf::new(&mut scratch);
                    // A TcpStream read spends tokio's cooperative budget, so this loop yields under a flood.
                    match ready!(Pin::new(&mut this.io).poll_read(cx, &mut buf)) {
                        Ok(()) if !buf.filled().is_empty() => {}
                        Ok(()) | Err(_) => this.phase = Phase::Closed,
                    }
                }
                Phase::Closed => return Poll::Ready(Ok(())),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test]
    async fn shutdown_sends_the_answer_then_drains_until_the_client_closes() {
        let (client, server) = tokio::io::duplex(64);
        let (mut client_rd, mut client_wr) = tokio::io::split(client);
        let mut server = Lingering::new(server, LINGER_TIME);
        // The client is still sending a body the server never read.
        let sender = tokio::spawn(async move {
            for _ in 0..100 {
                client_wr.write_all(&[b'x'; 1000]).await.unwrap();
            }
            client_wr.shutdown().await.unwrap();
        });
        server.write_all(b"answer").await.unwrap();
        server.shutdown().await.unwrap();
        let mut got = Vec::new();
        client_rd.read_to_end(&mut got).await.unwrap();
        assert_eq!(got, b"answer");
        // Every byte the client sent was consumed: its writes never blocked for good.
        sender.await.unwrap();
        assert!(matches!(server.phase, Phase::Closed));
    }

    #[tokio::test]
    async fn a_client_that_never_closes_is_dropped_at_the_deadline() {
        let (_client, server) = tokio::io::duplex(64);
        let linger = Duration::from_millis(100);
        let mut server = Lingering::new(server, linger);
        let started = tokio::time::Instant::now();
        server.shutdown().await.unwrap();
        // Timers never fire early; the upper bound is generous for a loaded machine.
        let took = started.elapsed();
        assert!(took >= linger && took < Duration::from_secs(30), "{took:?}");
    }
}
