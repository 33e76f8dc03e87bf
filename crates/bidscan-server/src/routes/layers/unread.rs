//! [`CloseIfUnreadLayer`]: an error answered before the request body was read to its end gets
//! `Connection: close`; `tracked` is the same flag for [`crate::routes::pipeline`], which has no layer stack.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, ready};

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::response::Response;
use bytes::Bytes;
use http_body::{Body as _, Frame, SizeHint};
use pin_project_lite::pin_project;
use tower::{Layer, Service};

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
