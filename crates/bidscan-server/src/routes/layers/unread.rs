//! [`CloseIfUnreadLayer`]: an error answered before the request body was read to its end gets
//! `Connection: close`; `tracked` is the same flag for [`crate::routes::pipeline`], which has no layer stack.
//! [`DiscardUnread`]: an HTTP/2 request body left unread is read and discarded for a bounded time rather than
//! reset, so that the early answer reaches the client ([`crate::routes::dispatch`] wraps every request in it).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::response::Response;
use bytes::Bytes;
use http_body::{Body as _, Frame, SizeHint};
use hyper::body::Incoming;
use pin_project_lite::pin_project;
use tower::{Layer, Service};

use crate::transport::conn::linger::LINGER_TIME;

/// The target of this module's log lines (`log.level` filters name it; docs/operations.md, "Logs").
const LOG_TARGET: &str = "bidscan_server::unread";

/// Layer: an error answer (4xx/5xx) sent before the request body was read to its end — a 413 from
/// `Content-Length`, a 503 shed, a 415 — gets `Connection: close`. The server closes such a connection after the
/// answer anyway (the rest of the body is never read); the header says so to the client (RFC 9112 §9.6), so that
/// it does not reuse the connection, and makes hyper close it even if it could have drained a short body. The
/// close itself lingers ([`crate::transport::conn::linger`]), so the answer is not lost to a TCP reset.
///
/// A plain tower layer (no boxing): a request without a body is passed through untouched.
#[derive(Clone, Copy, Debug, Default)]
pub struct CloseIfUnreadLayer;

impl<S> Layer<S> for CloseIfUnreadLayer {
    type Service = CloseIfUnread<S>;

    fn layer(&self, inner: S) -> CloseIfUnread<S> {
        CloseIfUnread { inner }
    }
}

/// The service of [`CloseIfUnreadLayer`].
#[derive(Clone, Debug)]
pub struct CloseIfUnread<S> {
    inner: S,
}

impl<S> Service<Request> for CloseIfUnread<S>
where
    S: Service<Request, Response = Response>,
{
    type Response = Response;
    type Error = S::Error;
    type Future = CloseIfUnreadFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request) -> Self::Future {
        if req.body().is_end_stream() {
            // Nothing to leave unread.
            return CloseIfUnreadFuture {
                inner: self.inner.call(req),
                read: None,
            };
        }
        let (parts, body) = req.into_parts();
        let read = Arc::new(AtomicBool::new(false));
        let body = Body::new(Tracked {
            inner: body,
            read: read.clone(),
        });
        CloseIfUnreadFuture {
            inner: self.inner.call(Request::from_parts(parts, body)),
            read: Some(read),
        }
    }
}

pin_project! {
    /// The response future of [`CloseIfUnread`].
    pub struct CloseIfUnreadFuture<F> {
        #[pin]
        inner: F,
        // Set once the body has been read to its end; `None` for a request without a body.
        read: Option<Arc<AtomicBool>>,
    }
}

impl<F, E> Future for CloseIfUnreadFuture<F>
where
    F: Future<Output = Result<Response, E>>,
{
    type Output = Result<Response, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let mut res = ready!(this.inner.poll(cx))?;
        let status = res.status();
        let unread = this
            .read
            .as_ref()
            .is_some_and(|read| !read.load(Ordering::Acquire));
        if (status.is_client_error() || status.is_server_error()) && unread {
            res.headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        Poll::Ready(Ok(res))
    }
}

/// `body` wrapped so that the flag is set once it has been read to its end (as [`CloseIfUnreadLayer`] tracks it),
/// for a service that checks the flag itself ([`crate::routes::pipeline`], on coded bodies).
pub(crate) fn tracked(body: Body) -> (Body, Arc<AtomicBool>) {
    let read = Arc::new(AtomicBool::new(false));
    let body = Body::new(Tracked {
        inner: body,
        read: read.clone(),
    });
    (body, read)
}

/// A body that records when it has been read to its end.
struct Tracked {
    inner: Body,
    /// Set once the inner body has no more frames.
    read: Arc<AtomicBool>,
}

impl http_body::Body for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let frame = Pin::new(&mut self.inner).poll_frame(cx);
        if matches!(frame, Poll::Ready(None)) || self.inner.is_end_stream() {
            self.read.store(true, Ordering::Release);
        }
        frame
    }

    fn is_end_stream(&self) -> bool {
        let end = self.inner.is_end_stream();
        if end {
            self.read.store(true, Ordering::Release);
        }
        end
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// Longest time an HTTP/2 request body left unread is still read and discarded after the request is done
/// ([`DiscardUnread`]): [`LINGER_TIME`], as long as an HTTP/1 connection lingers after an early answer.
pub const DISCARD_TIME: Duration = LINGER_TIME;

/// An HTTP/2 request body that, when dropped before its end, is read and discarded (for at most
/// [`DISCARD_TIME`]) by a task of its own instead of being reset at once; HTTP/1 bodies pass through untouched.
///
/// Why: dropping an h2 request body while the client still sends makes the h2 crate reset the stream with
/// `RST_STREAM(NO_ERROR)` right after an early answer (a 413 from `Content-Length`, a 415, a gzip bomb's 413).
/// RFC 9113 §8.1 allows it, but curl 7.88 (nghttp2) then exits 92 and Python's httpx (h2) raises
/// `LocalProtocolError`, both still sending: neither shows the answer. Reading the rest keeps the stream's
/// flow-control window open, so the client finishes its body and then reads the answer, and the stream ends
/// without a reset. A client still sending at [`DISCARD_TIME`] is reset then. Over HTTP/1 hyper and the
/// lingering close ([`crate::transport::conn::linger`]) do the same for the connection.
///
/// Cost: a `bool` test per frame; the task exists only for an h2 body dropped unread.
pub struct DiscardUnread {
    /// The body; taken by the discarding task when dropped unread.
    inner: Option<Incoming>,
    /// Whether to discard on drop: an HTTP/2 request whose body had not ended.
    discard: bool,
}

impl DiscardUnread {
    /// Wraps the body of `req` (discarded on drop when `req` is HTTP/2).
    pub fn wrap(req: axum::http::Request<Incoming>) -> axum::http::Request<DiscardUnread> {
        let discard = req.version() == axum::http::Version::HTTP_2 && !req.body().is_end_stream();
        req.map(|inner| DiscardUnread {
            inner: Some(inner),
            discard,
        })
    }
}

impl http_body::Body for DiscardUnread {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, hyper::Error>>> {
        let Some(inner) = self.inner.as_mut() else {
            return Poll::Ready(None);
        };
        let frame = ready!(Pin::new(inner).poll_frame(cx));
        if frame.is_none() || self.inner.as_ref().is_some_and(|b| b.is_end_stream()) {
            self.discard = false;
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.as_ref().is_none_or(|b| b.is_end_stream())
    }

    fn size_hint(&self) -> SizeHint {
        self.inner
            .as_ref()
            .map_or_else(|| SizeHint::with_exact(0), |b| b.size_hint())
    }
}

impl Drop for DiscardUnread {
    fn drop(&mut self) {
        if !self.discard {
            return;
        }
        let (Some(body), Ok(runtime)) = (self.inner.take(), tokio::runtime::Handle::try_current())
        else {
            return;
        };
        runtime.spawn(discard(body));
    }
}

/// Reads and drops the frames of `body` until its end, an error, or [`DISCARD_TIME`].
async fn discard(mut body: Incoming) {
    let read_all = async {
        let mut bytes = 0usize;
        while let Some(frame) = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await
        {
            match frame {
                Ok(frame) => bytes += frame.data_ref().map_or(0, bytes::Buf::remaining),
                Err(_) => break,
            }
        }
        bytes
    };
    match tokio::time::timeout(DISCARD_TIME, read_all).await {
        Ok(bytes) => {
            tracing::debug!(target: LOG_TARGET, bytes, "an unread HTTP/2 request body was read to its end and discarded")
        }
        Err(_) => {
            tracing::debug!(target: LOG_TARGET, "an unread HTTP/2 request body still streamed after the discard time; the stream is reset")
        }
    }
}
