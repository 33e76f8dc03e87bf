//! [`AnswerErrorsLayer`]: the errors of the decode layers below it (shed, concurrency limit, timeout) as
//! answers — shed → 503 with `Retry-After`, timeout → 408 — so that the route's error type is `Infallible`.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use axum::body::Body;
use axum::http::Request;
use axum::response::{IntoResponse, Response};
use pin_project_lite::pin_project;
use tower::{BoxError, Layer, Service};

use crate::error::{ApiError, ErrorCode};

/// The target of this module's log lines: the module's path before issue 17 moved it, so `log.level` filters
/// that name it (`bidscan_server::app=debug`) keep working.
const LOG_TARGET: &str = "bidscan_server::app";

/// Answers the errors of the decode layers below it (`overload_error`: shed → 503, timeout → 408), so that the
/// route's error type is `Infallible`. What axum's `HandleErrorLayer` does, without its per-request clone of the
/// layers below and its boxed future.
#[derive(Clone, Copy, Debug)]
pub struct AnswerErrorsLayer {
    retry_after: u64,
}

impl AnswerErrorsLayer {
    /// Answers a shed request 503 with `Retry-After: retry_after` (seconds).
    pub fn new(retry_after: u64) -> AnswerErrorsLayer {
        AnswerErrorsLayer { retry_after }
    }
}

impl<S> Layer<S> for AnswerErrorsLayer {
    type Service = AnswerErrors<S>;

    fn layer(&self, inner: S) -> AnswerErrors<S> {
        AnswerErrors {
            inner,
            retry_after: self.retry_after,
            not_ready: None,
        }
    }
}

/// The service of [`AnswerErrorsLayer`].
pub struct AnswerErrors<S> {
    inner: S,
    retry_after: u64,
    /// An error of the inner `poll_ready`, answered by the next `call` (`poll_ready` itself cannot fail here).
    not_ready: Option<BoxError>,
}

impl<S: Clone> Clone for AnswerErrors<S> {
    fn clone(&self) -> Self {
        // A clone has not been polled ready, so it has no readiness error of its own.
        AnswerErrors {
            inner: self.inner.clone(),
            retry_after: self.retry_after,
            not_ready: None,
        }
    }
}

impl<S, R> Service<Request<Body>> for AnswerErrors<S>
where
    S: Service<Request<Body>, Response = R, Error = BoxError>,
    R: IntoResponse,
{
    type Response = Response;
    type Error = Infallible;
    type Future = AnswerErrorsFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        if let Err(e) = ready!(self.inner.poll_ready(cx)) {
            self.not_ready = Some(e);
        }
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<Body>) -> Self::Future {
        let retry_after = self.retry_after;
        match self.not_ready.take() {
            Some(error) => AnswerErrorsFuture::NotReady {
                error: Some(error),
                retry_after,
            },
            None => AnswerErrorsFuture::Called {
                inner: self.inner.call(req),
                retry_after,
            },
        }
    }
}

pin_project! {
    /// The response future of [`AnswerErrors`].
    #[project = AnswerErrorsProj]
    // pin-project-lite takes no docs on variant fields: `Called` holds the inner future, `NotReady` the
    // readiness error until it is answered.
    #[allow(missing_docs)]
    pub enum AnswerErrorsFuture<F> {
        Called { #[pin] inner: F, retry_after: u64 },
        NotReady { error: Option<BoxError>, retry_after: u64 },
    }
}

impl<F, R> Future for AnswerErrorsFuture<F>
where
    F: Future<Output = Result<R, BoxError>>,
    R: IntoResponse,
{
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let res = match self.project() {
            AnswerErrorsProj::Called { inner, retry_after } => match ready!(inner.poll(cx)) {
                Ok(res) => res.into_response(),
                Err(e) => overload_error(&e, *retry_after).into_response(),
            },
            AnswerErrorsProj::NotReady { error, retry_after } => match error.take() {
                Some(e) => overload_error(&e, *retry_after).into_response(),
                None => panic!("AnswerErrorsFuture polled after completion"),
            },
        };
        Poll::Ready(Ok(res))
    }
}

/// Maps the errors of the shed/limit/timeout layers: overloaded → 503 + `Retry-After`, elapsed → 408.
fn overload_error(e: &BoxError, retry_after: u64) -> ApiError {
    if e.is::<tower::load_shed::error::Overloaded>() {
        ApiError::overloaded(retry_after)
    } else if e.is::<tower::timeout::error::Elapsed>() {
        ApiError::of(ErrorCode::Timeout)
    } else {
        crate::routes::layers::request::in_span(
            || tracing::error!(target: LOG_TARGET, error = %e, "unexpected middleware error"),
        );
        ApiError::of(ErrorCode::Internal)
    }
}
