//! [`RequireHostLayer`]: an HTTP/1.1 request needs exactly one `Host` header (RFC 9112 §3.2: "A server MUST
//! respond with a 400 (Bad Request) status code to any HTTP/1.1 request message that lacks a Host header field
//! and to any request message that contains more than one Host header field line").
//!
//! HTTP/1.0 requests may omit it, and HTTP/2 requests carry `:authority` instead. The check is a version compare
//! and one header lookup per request.

use std::future::{Ready, ready};
use std::task::{Context, Poll};

use axum::http::{Request, Version, header};
use axum::response::{IntoResponse, Response};
use futures_util::future::Either;
use tower::{Layer, Service};

use crate::error::{ApiError, ErrorCode};

/// Whether `req` breaks the `Host` rule of RFC 9112 §3.2.
pub fn lacks_host<B>(req: &Request<B>) -> bool {
    // The headers are counted only when the version makes them matter.
    req.version() == Version::HTTP_11
        && breaks_host_rule(
            Version::HTTP_11,
            req.headers().get_all(header::HOST).iter().take(2).count(),
        )
}

/// Whether a request of HTTP `version` carrying `hosts` `Host` lines (counted up to 2 or more) breaks the rule
/// of RFC 9112 §3.2: an HTTP/1.1 request needs exactly one.
pub(crate) fn breaks_host_rule(version: Version, hosts: usize) -> bool {
    version == Version::HTTP_11 && hosts != 1
}

/// Layer answering 400 `bad_host` to an HTTP/1.1 request without exactly one `Host` header.
#[derive(Clone, Copy, Debug, Default)]
pub struct RequireHostLayer;

impl<S> Layer<S> for RequireHostLayer {
    type Service = RequireHost<S>;

    fn layer(&self, inner: S) -> RequireHost<S> {
        RequireHost { inner }
    }
}

/// The service of [`RequireHostLayer`].
#[derive(Clone, Debug)]
pub struct RequireHost<S> {
    inner: S,
}

impl<S, B> Service<Request<B>> for RequireHost<S>
where
    S: Service<Request<B>, Response = Response>,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Either<S::Future, Ready<Result<Response, S::Error>>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        if lacks_host(&req) {
            let e = ApiError::of(ErrorCode::BadHost);
            return Either::Right(ready(Ok(e.into_response())));
        }
        Either::Left(self.inner.call(req))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(version: Version, hosts: &[&str]) -> Request<()> {
        let mut r = Request::builder().version(version).uri("/decode");
        for h in hosts {
            r = r.header(header::HOST, *h);
        }
        r.body(()).unwrap()
    }

    #[test]
    fn one_host_for_http11_only() {
        assert!(lacks_host(&req(Version::HTTP_11, &[])));
        assert!(lacks_host(&req(Version::HTTP_11, &["a", "b"])));
        assert!(!lacks_host(&req(Version::HTTP_11, &["a"])));
        assert!(!lacks_host(&req(Version::HTTP_10, &[])));
        assert!(!lacks_host(&req(Version::HTTP_2, &[])));
    }
}
