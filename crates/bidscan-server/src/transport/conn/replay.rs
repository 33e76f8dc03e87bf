//! [`Replay`]: a connection whose first bytes were already read (to tell HTTP/1 from the h2 preface over TLS,
//! where they cannot be peeked) and are handed back to the first reads before the stream's own.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The h2 preface's length: the most bytes ever read ahead.
const MOST: usize = 24;

/// `io` with `prefix` read first (see the module docs).
#[derive(Debug)]
pub struct Replay<T> {
    prefix: [u8; MOST],
    /// The unread part of `prefix`: `start..end`.
    start: usize,
    end: usize,
    io: T,
}

impl<T> Replay<T> {
    /// `io`, whose reads first give `prefix` (at most 24 bytes; more are cut).
    pub fn new(prefix: &[u8], io: T) -> Replay<T> {
        let end = prefix.len().min(MOST);
        let mut buf = [0u8; MOST];
        buf[..end].copy_from_slice(&prefix[..end]);
        Replay {
            prefix: buf,
            start: 0,
            end,
            io,
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Replay<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.start < self.end {
            let n = (self.end - self.start).min(buf.remaining());
            let start = self.start;
            buf.put_slice(&self.prefix[start..start + n]);
            self.start += n;
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Replay<T> {
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

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    #[tokio::test]
    async fn the_prefix_is_read_before_the_stream() {
        let mut replay = Replay::new(b"GET ", &b"/ HTTP/1.1\r\n"[..]);
        let mut all = Vec::new();
        replay.read_to_end(&mut all).await.unwrap();
        assert_eq!(all, b"GET / HTTP/1.1\r\n");
    }
}
