//! [`TrackLayer`]: counts every request into [`HttpMetrics`] (`bidscan_http_requests_total{route,status}`,
//! `bidscan_http_request_duration_seconds{route}`).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Instant;

use axum::extract::MatchedPath;
use axum::http::{Request, Response};
use pin_project_lite::pin_project;
use tower::{Layer, Service};

use crate::metrics::HttpMetrics;

/// Layer counting every request into [`HttpMetrics`]: the route is the [`MatchedPath`] the router set (so it must
/// run inside the router, e.g. through `Router::layer`), the duration runs until the response head is ready.
#[derive(Clone)]
pub struct TrackLayer {
    http: Arc<HttpMetrics>,
}

impl TrackLayer {
    /// Counts into `http`, under the route the router matched.
    pub fn new(http: Arc<HttpMetrics>) -> TrackLayer {
        TrackLayer { http }
    }
}

impl<S> Layer<S> for TrackLayer {
    type Service = Track<S>;

    fn layer(&self, inner: S) -> Track<S> {
        Track {
            inner,
            http: self.http.clone(),
        }
    }
}

/// The service of [`TrackLayer`].
#[derive(Clone)]
pub struct Track<S> {
    inner: S,
    http: Arc<HttpMetrics>,
}

impl<S, B, R> Service<Request<B>> for Track<S>
where
    S: Service<Request<B>, Response = Response<R>>,
{
    type Response = Response<R>;
    type Error = S::Error;
    type Future = TrackFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        // `None`: no route matched (the 404 fallback).
        let route = req.extensions().get::<MatchedPath>().cloned();
        TrackFuture {
            started: Instant::now(),
            inner: self.inner.call(req),
            http: self.http.clone(),
            route,
        }
    }
}

pin_project! {
    /// The response future of [`Track`].
    pub struct TrackFuture<F> {
        #[pin]
        inner: F,
        http: Arc<HttpMetrics>,
        route: Option<MatchedPath>,
        started: Instant,
    }
}

impl<F, R, E> Future for TrackFuture<F>
where
    F: Future<Output = Result<Response<R>, E>>,
{
    type Output = Result<Response<R>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let res = ready!(this.inner.poll(cx));
        if let Ok(res) = &res {
            this.http.observe(
                this.route.as_ref().map(MatchedPath::as_str),
                res.status(),
                this.started.elapsed(),
            );
        }
        Poll::Ready(res)
    }
}
