//! Answers for request heads hyper refuses itself: [`Rejects`], a connection wrapper that gives them the service's
//! JSON error shape, an `x-request-id`, and a count in `bidscan_http_requests_total{route="unmatched"}`.
//!
//! When hyper's HTTP/1 parser fails (a head over [`MAX_READ_BUFFER`](crate::conn::limits::MAX_READ_BUFFER) bytes or
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
//! A head refused as too large before its request line ended is answered 414 `uri_too_long` (RFC 9110 §15.5.15):
//! the wrapper notes whether the bytes read since the last answer began have held a line feed yet.
//!
//! hyper also refuses a `Content-Length` of 2^64 − 2 or more (it keeps those two values for itself) with the same
//! 431 as a head too large. The wrapper counts the bytes read since the last answer began: a head of fewer than
//! [`FEWEST_BYTES_OVER_FIELDS`] bytes cannot hold more than [`MAX_HEADERS`] fields and is within the size limit, so
//! its 431 was the length, answered 413 `payload_too_large` (RFC 9110 §15.5.14). Between that and
//! [`MAX_READ_BUFFER`] bytes the cause is not known, and the message names all three.
//!
//! Cost per request: one comparison of the first bytes of each write, an addition per read, and a line-feed search
//! over the reads of a request head up to its first line feed (the request line, tens of bytes). With pipelined
//! requests the 414/431/413 choice can be wrong (the next head may already sit in hyper's buffer when the previous
//! answer begins); the answer is still a refusal with `connection: close`.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use axum::http::StatusCode;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::conn::limits::{MAX_HEADERS, MAX_READ_BUFFER};
use crate::error::{ApiError, ErrorCode};
use crate::metrics::Metrics;

/// The fewest bytes a request head with more than [`MAX_HEADERS`] fields can have: each field line is at least
/// a name byte, `:` and a line feed.
pub const FEWEST_BYTES_OVER_FIELDS: usize = (MAX_HEADERS + 1) * 3;

/// The target of this module's log lines: the module's path before issue 17 moved it, so `log.level` filters
/// that name it (`bidscan_server::rejects=debug`) keep working.
const LOG_TARGET: &str = "bidscan_server::rejects";

/// A connection whose hyper-made error answers are replaced (see the module docs).
pub struct Rejects<T> {
    io: T,
    metrics: Arc<Metrics>,
    /// No line feed has been read since the connection opened or the last answer began: a request line is
    /// still being received.
    in_request_line: bool,
    /// Bytes read since the connection opened or the last answer began (saturating).
    head_bytes: usize,
    /// The replacement answer and how much of it is written.
    pending: Option<(Vec<u8>, usize)>,
}

impl<T> Rejects<T> {
    /// Wraps a fresh connection; refused heads are counted in `metrics`.
    pub fn new(io: T, metrics: Arc<Metrics>) -> Rejects<T> {
        Rejects {
            io,
            metrics,
            in_request_line: true,
            head_bytes: 0,
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

/// The answer written instead of hyper's `status` (see the module docs), after `head_bytes` bytes of the head
/// were read.
fn answer(status: StatusCode, in_request_line: bool, head_bytes: usize) -> (StatusCode, Vec<u8>) {
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
    } else if in_request_line {
        ApiError::new(
            ErrorCode::UriTooLong,
            format!("the request line is longer than {limit} bytes"),
        )
    } else if head_bytes < FEWEST_BYTES_OVER_FIELDS {
        ApiError::new(
            ErrorCode::PayloadTooLarge,
            "the Content-Length is 2^64 - 2 or more bytes, more than can be read",
        )
    } else if head_bytes < limit {
        ApiError::new(
            ErrorCode::HeaderFieldsTooLarge,
            format!(
                "the request head has more than {MAX_HEADERS} header fields, is larger than {limit} bytes, \
                 or its Content-Length is 2^64 - 2 or more bytes"
            ),
        )
    } else {
        ApiError::new(
            ErrorCode::HeaderFieldsTooLarge,
            format!(
                "the request head is larger than {limit} bytes or has more than {MAX_HEADERS} header fields"
            ),
        )
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
        let in_request_line = std::mem::replace(&mut self.in_request_line, true);
        let head_bytes = std::mem::replace(&mut self.head_bytes, 0);
        let Some(status) = refused_status(first) else {
            return false;
        };
        let (status, bytes) = answer(status, in_request_line, head_bytes);
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
        self.head_bytes = self.head_bytes.saturating_add(buf.filled().len() - before);
        if self.in_request_line && buf.filled()[before..].contains(&b'\n') {
            self.in_request_line = false;
        }
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
        let (status, bytes) = answer(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE, true, 70_000);
        assert_eq!(status, StatusCode::URI_TOO_LONG);
        let text = String::from_utf8(bytes).unwrap();
        assert!(text.starts_with("HTTP/1.1 414 URI Too Long\r\n"), "{text}");
        let (_, body) = text.split_once("\r\n\r\n").unwrap();
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(v["error"]["code"], "uri_too_long");
        let (status, _) = answer(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE, false, 70_000);
        assert_eq!(status, StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
    }

    /// A 431 after a head too short to hold more than `MAX_HEADERS` fields was hyper refusing the
    /// `Content-Length`: 413. Longer heads name every cause.
    #[test]
    fn a_431_for_a_short_head_is_the_length() {
        let body = |bytes: Vec<u8>| {
            let text = String::from_utf8(bytes).unwrap();
            let (_, body) = text.split_once("\r\n\r\n").unwrap();
            serde_json::from_str::<serde_json::Value>(body).unwrap()
        };
        let (status, bytes) = answer(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE, false, 90);
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(body(bytes)["error"]["code"], "payload_too_large");
        let (status, bytes) = answer(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            false,
            FEWEST_BYTES_OVER_FIELDS,
        );
        assert_eq!(status, StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
        let v = body(bytes);
        assert_eq!(v["error"]["code"], "header_fields_too_large");
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .contains("Content-Length"),
            "{v}"
        );
        let (status, _) = answer(StatusCode::BAD_REQUEST, false, 90);
        assert_eq!(status, StatusCode::BAD_REQUEST);
    }
}
