//! [`RequireHostLayer`]: the `Host` rule of RFC 9112 §3.2 — "A server MUST respond with a 400 (Bad Request)
//! status code to any HTTP/1.1 request message that lacks a Host header field and to any request message that
//! contains more than one Host header field line or a Host header field with an invalid field value."
//!
//! So an HTTP/1.1 request needs exactly one `Host`, an HTTP/1.0 request at most one, and the value must be a
//! `uri-host [ ":" port ]` (RFC 9110 §7.2, RFC 3986 §3.2.2–3.2.3; an empty value is allowed). HTTP/2 requests
//! carry `:authority` instead and are not checked here. The check is a version compare, one header walk, and a
//! table lookup per byte of the value (tens of bytes).

use std::future::{Ready, ready};
use std::task::{Context, Poll};

use axum::http::{HeaderValue, Request, Version, header};
use axum::response::{IntoResponse, Response};
use futures_util::future::Either;
use tower::{Layer, Service};

use crate::error::{ApiError, ErrorCode};

/// How a request breaks the `Host` rule (RFC 9112 §3.2); each is a 400 `bad_host` with its own message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostFault {
    /// An HTTP/1.1 request without `Host`.
    Missing,
    /// More than one `Host` line (any HTTP/1 version).
    Repeated,
    /// A `Host` value that is not `uri-host [ ":" port ]`.
    Invalid,
}

impl HostFault {
    /// The 400 `bad_host` answer's error.
    pub fn error(self) -> ApiError {
        let message = match self {
            HostFault::Missing => "an HTTP/1.1 request needs a Host header (RFC 9112 §3.2)",
            HostFault::Repeated => "a request may carry only one Host header line (RFC 9112 §3.2)",
            HostFault::Invalid => {
                "the Host header is not a host name or address with an optional port \
                 (RFC 9110 §7.2, RFC 9112 §3.2)"
            }
        };
        ApiError::new(ErrorCode::BadHost, message)
    }
}

/// How `req` breaks the `Host` rule of RFC 9112 §3.2, if it does.
pub fn host_fault<B>(req: &Request<B>) -> Option<HostFault> {
    // The headers are looked at only when the version makes them matter.
    let version = req.version();
    if version != Version::HTTP_11 && version != Version::HTTP_10 {
        return None;
    }
    let mut hosts = req.headers().get_all(header::HOST).iter();
    let first = hosts.next();
    let count = usize::from(first.is_some()) + usize::from(hosts.next().is_some());
    breaks_host_rule(version, count, first)
}

/// How a request of HTTP `version` carrying `hosts` `Host` lines (counted up to 2 or more), the first being
/// `first`, breaks the rule of RFC 9112 §3.2: HTTP/1.1 needs exactly one, HTTP/1.0 at most one, and the value
/// must be valid ([`valid_host`]). Other versions are not checked.
pub(crate) fn breaks_host_rule(
    version: Version,
    hosts: usize,
    first: Option<&HeaderValue>,
) -> Option<HostFault> {
    if version != Version::HTTP_11 && version != Version::HTTP_10 {
        return None;
    }
    match (hosts, first) {
        (0, _) | (_, None) if version == Version::HTTP_11 => Some(HostFault::Missing),
        (0, _) | (_, None) => None,
        (1, Some(value)) if valid_host(value.as_bytes()) => None,
        (1, Some(_)) => Some(HostFault::Invalid),
        _ => Some(HostFault::Repeated),
    }
}

/// Whether `value` is a `Host` field value: `uri-host [ ":" port ]` (RFC 9110 §7.2), where `uri-host` is an
/// `IP-literal` in brackets or a `reg-name` (which covers `IPv4address`) of unreserved characters, sub-delims and
/// percent-encodings (RFC 3986 §3.2.2), and `port` is digits (§3.2.3). Empty is valid (a target without an
/// authority, RFC 9112 §3.2). Spaces, `@` (userinfo), `/`, `?`, `#` and controls are not.
pub fn valid_host(value: &[u8]) -> bool {
    let (host, port) = if value.first() == Some(&b'[') {
        let Some(close) = value.iter().position(|&b| b == b']') else {
            return false;
        };
        if !valid_ip_literal(&value[1..close]) {
            return false;
        }
        match &value[close + 1..] {
            [] => (&[][..], None),
            [b':', port @ ..] => (&[][..], Some(port)),
            _ => return false,
        }
    } else {
        match value.iter().position(|&b| b == b':') {
            Some(colon) => (&value[..colon], Some(&value[colon + 1..])),
            None => (value, None),
        }
    };
    port.is_none_or(|port| port.iter().all(u8::is_ascii_digit)) && valid_reg_name(host)
}

/// What an `IP-literal`'s brackets hold: an `IPv6address` or an `IPvFuture`, `"v" 1*HEXDIG "." 1*( unreserved /
/// sub-delims / ":" )` (RFC 3986 §3.2.2).
fn valid_ip_literal(inner: &[u8]) -> bool {
    if let [b'v' | b'V', rest @ ..] = inner {
        let Some(dot) = rest.iter().position(|&b| b == b'.') else {
            return false;
        };
        let (version, address) = (&rest[..dot], &rest[dot + 1..]);
        return !version.is_empty()
            && version.iter().all(u8::is_ascii_hexdigit)
            && !address.is_empty()
            && address.iter().all(|&b| is_reg_name_byte(b) || b == b':');
    }
    std::str::from_utf8(inner).is_ok_and(|text| text.parse::<std::net::Ipv6Addr>().is_ok())
}

/// `reg-name = *( unreserved / pct-encoded / sub-delims )` (RFC 3986 §3.2.2).
fn valid_reg_name(name: &[u8]) -> bool {
    let mut i = 0;
    while let Some(&b) = name.get(i) {
        if b == b'%' {
            match name.get(i + 1..i + 3) {
                Some([h, l]) if h.is_ascii_hexdigit() && l.is_ascii_hexdigit() => i += 3,
                _ => return false,
            }
        } else if is_reg_name_byte(b) {
            i += 1;
        } else {
            return false;
        }
    }
    true
}

/// `unreserved / sub-delims` (RFC 3986 §2.3, §2.2).
fn is_reg_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'-' | b'.'
                | b'_'
                | b'~'
                | b'!'
                | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
        )
}

/// Layer answering 400 `bad_host` to a request that breaks the `Host` rule ([`host_fault`]).
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
        if let Some(fault) = host_fault(&req) {
            return Either::Right(ready(Ok(fault.error().into_response())));
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
    fn one_valid_host_for_http11_at_most_one_for_http10() {
        use HostFault::*;
        let cases: &[(Version, &[&str], Option<HostFault>)] = &[
            (Version::HTTP_11, &[], Some(Missing)),
            (Version::HTTP_11, &["a", "b"], Some(Repeated)),
            (Version::HTTP_11, &["a", "a"], Some(Repeated)),
            (Version::HTTP_11, &["a"], None),
            (Version::HTTP_11, &[""], None),
            (Version::HTTP_11, &["a b"], Some(Invalid)),
            (Version::HTTP_10, &[], None),
            (Version::HTTP_10, &["a"], None),
            (Version::HTTP_10, &["a", "b"], Some(Repeated)),
            (Version::HTTP_10, &["user@a"], Some(Invalid)),
            (Version::HTTP_2, &[], None),
            (Version::HTTP_2, &["a", "b"], None),
        ];
        for (version, hosts, fault) in cases {
            assert_eq!(
                host_fault(&req(*version, hosts)),
                *fault,
                "{version:?} {hosts:?}"
            );
        }
    }

    #[test]
    fn host_values_follow_rfc_3986() {
        for ok in [
            "",
            "localhost",
            "localhost:8080",
            "a:",
            "127.0.0.1:80",
            "bidder.example.com",
            "[::1]",
            "[::1]:8080",
            "[2001:db8::7]",
            "[v1.fe80::a+en1]",
            "xn--bcher-kva.example",
            "a%2Eb",
            "a,b",
            "a_b~c!$&'()*+;=",
        ] {
            assert!(valid_host(ok.as_bytes()), "{ok:?}");
        }
        for bad in [
            "a b", " a", "a ", "user@a", "a, b", "a:b", "a:80:90", "a/b", "a?b", "a#b", "a%2",
            "a%zz", "[::1", "[]", "[::1]x", "[::1]:x", "[a b]", "a\tb", "\"a\"", "a\\b",
        ] {
            assert!(!valid_host(bad.as_bytes()), "{bad:?}");
        }
        assert!(!valid_host("bücher.example".as_bytes()));
        assert!(!valid_host(b"a\x7fb"));
    }
}
