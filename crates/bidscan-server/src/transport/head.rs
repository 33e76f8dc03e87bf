//! [`Head`]: what `POST /decode` ([`crate::routes::pipeline`]) reads of a request's headers, found in one pass over them.
//!
//! The steps of `/decode` read seven request headers (`Host`, `Content-Length`, `Content-Encoding`,
//! `Content-Type`, `x-request-id`, `x-openrtb-version`, `x-bidder`). Looked up one by one, each lookup hashes its name and
//! probes the map: ~600 instructions per request (callgrind), for a request that
//! carries three to six headers. One walk over the headers, comparing names (a standard name is one enum
//! compare), finds them all. Each field is what [`HeaderMap::get`] would give (the first value of the name), and
//! `Host` is counted and its first value kept, as the RFC 9112 §3.2 rule needs ([`crate::routes::layers::host::host_fault`]).

use axum::http::{HeaderMap, HeaderValue, Version, header};

use crate::routes::layers::host::{HostFault, breaks_host_rule};
use crate::routes::layers::inflate::length_of;
use crate::routes::layers::request::X_REQUEST_ID;
use crate::routes::state::{OPENRTB_VERSION, X_BIDDER};

/// The headers `/decode` reads, borrowed from the request's map.
#[derive(Debug, Default)]
pub(crate) struct Head<'a> {
    /// How many `Host` values, counted up to 2.
    hosts: u8,
    /// The first `Host`.
    host: Option<&'a HeaderValue>,
    /// The first `x-request-id`.
    pub id: Option<&'a HeaderValue>,
    /// The first `x-openrtb-version`.
    pub version: Option<&'a HeaderValue>,
    /// The first `Content-Length`.
    length: Option<&'a HeaderValue>,
    /// Whether a `Content-Encoding` is present.
    pub coded: bool,
    /// The first `X-Bidder`.
    pub bidder: Option<&'a HeaderValue>,
    /// The first `Content-Type`.
    pub content_type: Option<&'a HeaderValue>,
    /// How many `Content-Type` values, counted up to 2.
    content_types: u8,
}

impl<'a> Head<'a> {
    /// One pass over `headers`.
    pub fn of(headers: &'a HeaderMap) -> Head<'a> {
        let mut head = Head::default();
        for (name, value) in headers {
            if name == header::HOST {
                head.hosts = head.hosts.saturating_add(1).min(2);
                head.host.get_or_insert(value);
            } else if name == header::CONTENT_TYPE {
                head.content_type.get_or_insert(value);
                head.content_types = head.content_types.saturating_add(1).min(2);
            } else if name == header::CONTENT_LENGTH {
                head.length.get_or_insert(value);
            } else if name == header::CONTENT_ENCODING {
                head.coded = true;
            } else if name == X_REQUEST_ID {
                head.id.get_or_insert(value);
            } else if name == OPENRTB_VERSION {
                head.version.get_or_insert(value);
            } else if name == X_BIDDER {
                head.bidder.get_or_insert(value);
            }
        }
        head
    }

    /// How a request of HTTP `version` with these headers breaks the `Host` rule of RFC 9112 §3.2, as
    /// [`crate::routes::layers::host::host_fault`] decides it.
    pub fn host_fault(&self, version: Version) -> Option<HostFault> {
        breaks_host_rule(version, usize::from(self.hosts), self.host)
    }

    /// Whether `Content-Type` is absent or exactly `application/json`, once: what needs no further reading
    /// ([`crate::transport::body::check_content_type`] reads the rest, two lines included).
    pub fn plain_json(&self) -> bool {
        self.content_types <= 1
            && self
                .content_type
                .is_none_or(crate::transport::body::is_application_json)
    }

    /// The `Content-Length` in bytes, as [`crate::routes::layers::inflate::content_length`] reads it (`None` when
    /// absent or not a number).
    pub fn content_length(&self) -> Option<u64> {
        length_of(self.length?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routes::layers::host::host_fault;
    use crate::routes::layers::inflate::content_length;
    use axum::http::Request;

    /// Every field agrees with the lookups it replaces, for headers present once, twice (first value wins) or
    /// not at all, in any order among other headers.
    #[test]
    fn one_pass_agrees_with_the_lookups() {
        let sets: &[&[(&str, &str)]] = &[
            &[],
            &[
                ("host", "a"),
                ("content-type", "application/json"),
                ("content-length", "12"),
            ],
            &[("host", "a b"), ("content-type", "application/json")],
            &[
                ("content-type", "application/json"),
                ("content-type", "application/json"),
            ],
            &[("host", "[::1]:80"), ("host", "a")],
            &[
                ("host", "a"),
                ("host", "b"),
                ("x-request-id", "r1"),
                ("x-request-id", "r2"),
            ],
            &[
                ("user-agent", "wrk"),
                ("content-length", "x"),
                ("content-encoding", "gzip"),
            ],
            &[
                ("x-openrtb-version", "2.6"),
                ("x-bidder", "acme"),
                ("X-Bidder", "beta"),
                ("Content-Length", "7"),
                ("content-length", "9"),
                ("host", "h"),
            ],
            &[
                ("content-type", "text/plain"),
                ("content-type", "application/json"),
                ("accept", "*/*"),
            ],
        ];
        for set in sets {
            for version in [Version::HTTP_10, Version::HTTP_11, Version::HTTP_2] {
                let mut req = Request::builder().version(version);
                for (name, value) in *set {
                    req = req.header(*name, *value);
                }
                let req = req.body(()).unwrap();
                let headers = req.headers();
                let head = Head::of(headers);
                assert_eq!(
                    head.host_fault(version),
                    host_fault(&req),
                    "{set:?} {version:?}"
                );
                assert_eq!(head.content_length(), content_length(headers), "{set:?}");
                assert_eq!(head.id, headers.get(&X_REQUEST_ID), "{set:?}");
                assert_eq!(head.version, headers.get(&OPENRTB_VERSION), "{set:?}");
                assert_eq!(head.bidder, headers.get(&X_BIDDER), "{set:?}");
                assert_eq!(
                    head.content_type,
                    headers.get(header::CONTENT_TYPE),
                    "{set:?}"
                );
                let ct = headers.get_all(header::CONTENT_TYPE).iter().count();
                assert_eq!(
                    head.plain_json(),
                    ct <= 1
                        && headers
                            .get(header::CONTENT_TYPE)
                            .is_none_or(|v| v == "application/json"),
                    "{set:?}"
                );
                assert_eq!(
                    head.coded,
                    headers.contains_key(header::CONTENT_ENCODING),
                    "{set:?}"
                );
            }
        }
    }
}
