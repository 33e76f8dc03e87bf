//! Answers for request heads hyper refuses itself: [`Rejects`], a connection wrapper that gives them the service's
//! JSON error shape, an `x-request-id`, and a count in `bidscan_http_requests_total{route="unmatched"}`.
//!
//! When hyper's HTTP/1 parser fails (a head over [`MAX_READ_BUFFER`] bytes or
//! with more than 100 header fields, a NUL byte or other invalid character in a header, a bad request line), it
//! writes an answer of its own — `431` or `400`, `content-length: 0` — and closes the connection, without
//! calling the service. The wrapper recognises that answer as it is written (a `400`, `414` or `431` head without
//! `x-request-id`: every answer the service writes carries one) and writes in its place:
//!
//! ```text
//! HTTP/1.1 431 Request Header Fields Too Large
//! content-type: application/json
//! content-length: …
//! x-request-id: <a fresh UUID>
//! connection: close
//!
//! {"error":{"code":"header_fields_too_large","message":"…","byte":null,"line":null,"column":null,"path":null}}
//! ```
//!
//! hyper answers 431 for three causes: a head over [`MAX_READ_BUFFER`] bytes, more than [`MAX_HEADERS`] fields,
//! and a `Content-Length` of 2^64 − 2 or more (it keeps those two values for itself). The wrapper follows the
//! head being read (`HeadSeen`): whether its request line has ended (a line feed read), and its length once its
//! end (`\r\n\r\n`) has been read. A 431 is then answered
//! - 414 `uri_too_long` (RFC 9110 §15.5.15) when the request line had not ended;
//! - 413 `payload_too_large` (RFC 9110 §15.5.14) when the head was complete and shorter than
//!   [`FEWEST_BYTES_OVER_FIELDS`] bytes: too short for more than [`MAX_HEADERS`] fields, within the size limit, so
//!   the length was the cause (body bytes read with the head are not counted);
//! - 431 naming the cause when the head ran past [`MAX_READ_BUFFER`], and 431 naming all three otherwise.
//!
//! What the wrapper reads after a head's end (a body, or a pipelined request) is not told apart, so the head
//! refused after it is *unknown*: 431 naming all three causes, never a 414 or 413 that could be wrong.
//!
//! Cost per request: one comparison of the first bytes of each write, and while a head is being read a search for
//! its end over the bytes read (`memchr::memmem`, one call per read: a request head is one read of ~100–300 bytes).

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use axum::http::StatusCode;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::error::{ApiError, ErrorCode};
use crate::metrics::Metrics;
use crate::transport::conn::limits::{MAX_HEADERS, MAX_READ_BUFFER};

/// The fewest bytes a request head with more than [`MAX_HEADERS`] fields can have: each field line is at least
/// a name byte, `:` and a line feed.
pub const FEWEST_BYTES_OVER_FIELDS: usize = (MAX_HEADERS + 1) * 3;

/// The target of this module's log lines (`log.level` filters name it; docs/operations.md, "Logs").
const LOG_TARGET: &str = "bidscan_server::rejects";

/// What has been read of the request head being received, for choosing the answer to hyper's 431.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HeadSeen {
    /// `bytes` read and no line feed yet: the request line is being received.
    RequestLine { bytes: usize },
    /// The request line has ended; `bytes` read, the head's end not yet; `tail` the last three bytes read
    /// (for an end split between reads).
    Fields { bytes: usize, tail: [u8; 3] },
    /// The head ended after `bytes` bytes; `after` bytes were read after it (body or a next request).
    Complete { bytes: usize, after: usize },
    /// Bytes after a complete head were read before the last answer began: where the next head starts is not
    /// known.
    Unknown,
}

impl HeadSeen {
    /// A fresh head (a new connection, or nothing read past the previous head).
    const START: HeadSeen = HeadSeen::RequestLine { bytes: 0 };

    /// Takes in the bytes of one read.
    fn read(&mut self, data: &[u8]) {
        match *self {
            HeadSeen::RequestLine { bytes } => match memchr::memchr(b'\n', data) {
                None => {
                    *self = HeadSeen::RequestLine {
                        bytes: bytes.saturating_add(data.len()),
                    }
                }
                Some(lf) => {
                    // The request line's last bytes (a `\r` before the line feed read earlier is not kept:
                    // a head without fields then ends unseen, and is only answered less precisely).
                    let mut tail = [0u8; 3];
                    let line_end = &data[lf.saturating_sub(2)..=lf];
                    tail[3 - line_end.len()..].copy_from_slice(line_end);
                    *self = HeadSeen::Fields {
                        bytes: bytes.saturating_add(lf),
                        tail,
                    };
                    self.read(&data[lf + 1..]);
                    if let HeadSeen::Fields { bytes, .. } | HeadSeen::Complete { bytes, .. } = self
                    {
                        *bytes = bytes.saturating_add(1);
                    }
                }
            },
            HeadSeen::Fields { bytes, tail } => {
                // An end split between this read and the last: the last three bytes and this read's first three.
                let mut joint = [0u8; 6];
                joint[..3].copy_from_slice(&tail);
                let first = data.len().min(3);
                joint[3..3 + first].copy_from_slice(&data[..first]);
                let end = memchr::memmem::find(&joint[..3 + first], b"\r\n\r\n")
                    .map(|at| at + 4 - 3)
                    .or_else(|| memchr::memmem::find(data, b"\r\n\r\n").map(|at| at + 4));
                *self = match end {
                    Some(end) => HeadSeen::Complete {
                        bytes: bytes.saturating_add(end),
                        after: data.len() - end,
                    },
                    None => {
                        let mut tail = tail;
                        for &b in &data[data.len().saturating_sub(3)..] {
                            tail = [tail[1], tail[2], b];
                        }
                        HeadSeen::Fields {
                            bytes: bytes.saturating_add(data.len()),
                            tail,
                        }
                    }
                };
            }
            HeadSeen::Complete { bytes, after } => {
                *self = HeadSeen::Complete {
                    bytes,
                    after: after.saturating_add(data.len()),
                }
            }
            HeadSeen::Unknown => {}
        }
    }

    /// The state when an answer begins: a fresh head, unless bytes past the last head were already read.
    fn answer_begins(self) -> HeadSeen {
        match self {
            HeadSeen::Complete { after: 1.., .. } | HeadSeen::Unknown => HeadSeen::Unknown,
            _ => HeadSeen::START,
        }
    }
}

/// A connection whose hyper-made error answers are replaced (see the module docs).
pub struct Rejects<T> {
    io: T,
    metrics: Arc<Metrics>,
    /// What has been read of the head being received.
    head: HeadSeen,
    /// The replacement answer and how much of it is written.
    pending: Option<(Vec<u8>, usize)>,
}

impl<T> Rejects<T> {
    /// Wraps a fresh connection; refused heads are counted in `metrics`.
    pub fn new(io: T, metrics: Arc<Metrics>) -> Rejects<T> {
        Rejects {
            io,
            metrics,
            head: HeadSeen::START,
            pending: None,
        }
    }
}

/// The status of `head` when it is an answer hyper wrote for a head it could not parse.
fn refused_status(head: &[u8]) -> Option<StatusCode> {
    let rest = head
        .strip_prefix(b"HTTP/1.1 ")
        .or_else(|| head.strip_prefix(b"HTTP/1.0 "))?;
    let status = match rest.get(..4)? {
        b"400 " => StatusCode::BAD_REQUEST,
        b"414 " => StatusCode::URI_TOO_LONG,
        b"431 " => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
        _ => return None,
    };
    let ours = head
        .windows(14)
        .any(|w| w.eq_ignore_ascii_case(b"\nx-request-id:"));
    (!ours).then_some(status)
}

/// The answer written instead of hyper's `status` (see the module docs), given what was read of the head.
fn answer(status: StatusCode, head: HeadSeen) -> (StatusCode, Vec<u8>) {
    let limit = MAX_READ_BUFFER;
    let too_large = matches!(
        status,
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE | StatusCode::URI_TOO_LONG
    );
    let error = if !too_large {
        ApiError::new(
            ErrorCode::BadRequest,
            "the request head is not valid HTTP/1.1 (RFC 9112): a bad request line, or a header with a \
             character not allowed in it (such as NUL or a bare CR)",
        )
    } else {
        match head {
            HeadSeen::RequestLine { .. } => ApiError::new(
                ErrorCode::UriTooLong,
                format!("the request line is longer than {limit} bytes"),
            ),
            HeadSeen::Complete { bytes, .. } if bytes < FEWEST_BYTES_OVER_FIELDS => ApiError::new(
                ErrorCode::PayloadTooLarge,
                "the Content-Length is 2^64 - 2 or more bytes, more than can be read",
            ),
            HeadSeen::Fields { bytes, .. } if bytes >= limit => ApiError::new(
                ErrorCode::HeaderFieldsTooLarge,
                format!("the request head is larger than {limit} bytes"),
            ),
            _ => ApiError::new(
                ErrorCode::HeaderFieldsTooLarge,
                format!(
                    "the request head has more than {MAX_HEADERS} header fields, is larger than {limit} \
                     bytes, or its Content-Length is 2^64 - 2 or more bytes"
                ),
            ),
        }
    };
    let body = error.to_json();
    let status = error.status;
    let mut out = format!(
        "HTTP/1.1 {} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nx-request-id: {}\r\n\
         connection: close\r\n\r\n",
        status.as_str(),
        status.canonical_reason().unwrap_or(""),
        body.len(),
        uuid::Uuid::new_v4(),
    )
    .into_bytes();
    out.extend_from_slice(&body);
    (status, out)
}

impl<T: AsyncWrite + Unpin> Rejects<T> {
    /// Writes what is left of a replacement answer.
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let Some((bytes, written)) = &mut self.pending {
            if *written == bytes.len() {
                self.pending = None;
                break;
            }
            let n = ready!(Pin::new(&mut self.io).poll_write(cx, &bytes[*written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *written += n;
        }
        Poll::Ready(Ok(()))
    }

    /// Looks at the start of a write: replaces a refused-head answer (returns true), or notes that an answer
    /// begins (the next bytes read are a new request head).
    fn intercept(&mut self, first: &[u8]) -> bool {
        if !first.starts_with(b"HTTP/1.") {
            return false;
        }
        let head = self.head;
        self.head = head.answer_begins();
        let Some(status) = refused_status(first) else {
            return false;
        };
        let (status, bytes) = answer(status, head);
        self.metrics
            .http_requests
            .with_label_values(&["unmatched", status.as_str()])
            .inc();
        tracing::debug!(target: LOG_TARGET, status = status.as_u16(), "request head refused");
        self.pending = Some((bytes, 0));
        true
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Rejects<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        ready!(Pin::new(&mut self.io).poll_read(cx, buf))?;
        let mut head = self.head;
        head.read(&buf.filled()[before..]);
        self.head = head;
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Rejects<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        ready!(self.poll_pending(cx))?;
        if self.intercept(buf) {
            // Taken whole; the replacement is written now or by the next flush.
            let _ = self.poll_pending(cx)?;
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        ready!(self.poll_pending(cx))?;
        let first = bufs
            .iter()
            .find(|b| !b.is_empty())
            .map_or(&[][..], |b| &b[..]);
        if self.intercept(first) {
            let _ = self.poll_pending(cx)?;
            return Poll::Ready(Ok(bufs.iter().map(|b| b.len()).sum()));
        }
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_pending(cx))?;
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_pending(cx))?;
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_hyper_answers_only() {
        let hyper =
            b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\ndate: x\r\n\r\n";
        assert_eq!(
            refused_status(hyper),
            Some(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE)
        );
        assert_eq!(
            refused_status(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n"),
            Some(StatusCode::BAD_REQUEST)
        );
        let ours = b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\nX-Request-Id: 1\r\n\r\n";
        assert_eq!(refused_status(ours), None);
        assert_eq!(refused_status(b"HTTP/1.1 200 OK\r\n\r\n"), None);
        assert_eq!(
            refused_status(b"HTTP/1.1 413 Payload Too Large\r\n\r\n"),
            None
        );
        assert_eq!(refused_status(b"{\"status\":"), None);
    }

    #[test]
    fn a_head_too_large_inside_its_request_line_is_414() {
        let (status, bytes) = answer(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            HeadSeen::RequestLine { bytes: 70_000 },
        );
        assert_eq!(status, StatusCode::URI_TOO_LONG);
        let text = String::from_utf8(bytes).unwrap();
        assert!(text.starts_with("HTTP/1.1 414 URI Too Long\r\n"), "{text}");
        let (_, body) = text.split_once("\r\n\r\n").unwrap();
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(v["error"]["code"], "uri_too_long");
        let (status, _) = answer(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            HeadSeen::Fields {
                bytes: 70_000,
                tail: [0; 3],
            },
        );
        assert_eq!(status, StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
    }

    /// A 431 after a complete head too short to hold more than `MAX_HEADERS` fields was hyper refusing the
    /// `Content-Length`: 413. Other heads name every cause; a head after unknown bytes is never 414 or 413.
    #[test]
    fn a_431_for_a_short_complete_head_is_the_length() {
        let body = |bytes: Vec<u8>| {
            let text = String::from_utf8(bytes).unwrap();
            let (_, body) = text.split_once("\r\n\r\n").unwrap();
            serde_json::from_str::<serde_json::Value>(body).unwrap()
        };
        let too_large = StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE;
        let (status, bytes) = answer(
            too_large,
            HeadSeen::Complete {
                bytes: 90,
                after: 500,
            },
        );
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(body(bytes)["error"]["code"], "payload_too_large");
        for head in [
            HeadSeen::Complete {
                bytes: FEWEST_BYTES_OVER_FIELDS,
                after: 0,
            },
            HeadSeen::Fields {
                bytes: 90,
                tail: [0; 3],
            },
            HeadSeen::Unknown,
        ] {
            let (status, bytes) = answer(too_large, head);
            assert_eq!(status, too_large, "{head:?}");
            let v = body(bytes);
            assert_eq!(v["error"]["code"], "header_fields_too_large");
            let message = v["error"]["message"].as_str().unwrap();
            assert!(message.contains("Content-Length"), "{head:?}: {message}");
        }
        let (status, _) = answer(
            StatusCode::BAD_REQUEST,
            HeadSeen::Complete {
                bytes: 90,
                after: 0,
            },
        );
        assert_eq!(status, StatusCode::BAD_REQUEST);
    }

    /// The head's end is found however the reads split it, and its length excludes the bytes after it.
    #[test]
    fn the_head_end_is_found_across_any_split_of_the_reads() {
        let head = b"POST /decode HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n";
        let mut bytes = head.to_vec();
        bytes.extend_from_slice(b"{}");
        for a in 0..=bytes.len() {
            for b in a..=bytes.len() {
                let mut seen = HeadSeen::START;
                for part in [&bytes[..a], &bytes[a..b], &bytes[b..]] {
                    seen.read(part);
                }
                assert_eq!(
                    seen,
                    HeadSeen::Complete {
                        bytes: head.len(),
                        after: 2
                    },
                    "split at {a}, {b}"
                );
            }
        }
        let mut seen = HeadSeen::START;
        seen.read(b"GET /healthz HTTP/1.1");
        assert_eq!(seen, HeadSeen::RequestLine { bytes: 21 });
        assert_eq!(seen.answer_begins(), HeadSeen::START);
        seen.read(b"\r\nhost: x\r\n\r\n");
        assert_eq!(
            seen,
            HeadSeen::Complete {
                bytes: 34,
                after: 0
            }
        );
        assert_eq!(
            seen.answer_begins(),
            HeadSeen::START,
            "nothing read past the head"
        );
        seen.read(b"GET");
        assert_eq!(
            seen.answer_begins(),
            HeadSeen::Unknown,
            "a pipelined head began"
        );
    }
}
