//! Request bodies on the decode routes, between the wire and the handler: [`InflateLayer`] holds the body to the
//! wire-size limit, then decodes its `Content-Encoding` (gzip, deflate (zlib), br, zstd), in the order the header
//! lists them, refusing trailing bytes after the compressed stream.
//!
//! It replaces tower-http's `RequestBodyLimitLayer` + `RequestDecompressionLayer`, for two reasons:
//! - the decompression layer reads one gzip member only, and what followed the end of the compressed stream was
//!   either dropped (when it arrived in the same read as the stream's end) or an error (when it arrived later),
//!   so the answer to one body depended on how the client split its writes;
//! - a 413 decided from `Content-Length` was answered by the limit layer before the handler ran, so it was not
//!   counted as the decode outcome `too_large`; here it is counted where it is decided.
//!
//! The rules:
//! - `Content-Length` over the limit: 413 at once (counted when the layer has a counter); otherwise the body is
//!   read through `http_body_util::Limited`, whose `LengthLimitError` the handler turns into 413;
//! - gzip bodies may hold several members and zstd bodies several frames; their outputs are concatenated (RFC 1952
//!   §2.2, RFC 8878 §3.1), so two gzipped documents are one body with trailing JSON (400 `malformed_json`);
//! - any byte after the end of the compressed stream (junk after a member, a second zlib or brotli stream) is
//!   400 `bad_encoding`, whenever it arrives: the stream's end is only accepted at the end of the body;
//! - `identity` (and an empty list element) means no coding, names are case-insensitive and `x-gzip` is gzip
//!   (RFC 9110 §8.4.1), so `identity, gzip` decodes as gzip; at most [`MAX_CODINGS`] codings are undone;
//! - an unknown coding is 415 `unsupported_encoding` with `Accept-Encoding` listing what is taken (RFC 9110
//!   §12.5.3).
//!
//! Per request without `Content-Encoding`: two header lookups and the `Limited` wrapper, as before.

use std::future::{Ready, ready};
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use async_compression::tokio::bufread::{BrotliDecoder, GzipDecoder, ZlibDecoder, ZstdDecoder};
use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::{Bytes, BytesMut};
use futures_util::Stream;
use futures_util::future::Either;
use http_body::{Body as _, Frame};
use http_body_util::Limited;
use pin_project_lite::pin_project;
use prometheus::IntCounter;
use tokio::io::{AsyncBufRead, AsyncRead};
use tokio_util::io::{StreamReader, poll_read_buf};
use tower::{BoxError, Layer, Service};

use crate::error::{ApiError, ErrorCode};

/// Most codings undone for one body (`gzip, gzip` is legal; longer chains are refused, 415).
pub const MAX_CODINGS: usize = 2;

/// What `Accept-Encoding` says on a 415: the codings [`InflateLayer`] decodes.
pub const ACCEPTED: &str = "gzip, deflate, br, zstd, identity";

/// Output read from a decoder at a time, in bytes.
const CHUNK: usize = 16 * 1024;

/// A content coding this layer decodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coding {
    /// `gzip` or `x-gzip` (RFC 1952), several members allowed.
    Gzip,
    /// `deflate`: the zlib format (RFC 1950), as HTTP defines it.
    Deflate,
    /// `br` (RFC 7932).
    Brotli,
    /// `zstd` (RFC 8878), several frames allowed.
    Zstd,
}

/// The codings of `Content-Encoding`, in the order they were applied (all header lines, comma-separated).
///
/// # Errors
/// 415 `unsupported_encoding` for an unknown name, a value that is not text, or more than [`MAX_CODINGS`].
pub fn codings(headers: &HeaderMap) -> Result<Vec<Coding>, ApiError> {
    let mut out = Vec::new();
    for value in headers.get_all(header::CONTENT_ENCODING) {
        let text = value
            .to_str()
            .map_err(|_| unsupported("a Content-Encoding that is not ASCII text"))?;
        for name in text.split(',').map(str::trim) {
            let coding = match name.to_ascii_lowercase().as_str() {
                "" | "identity" => continue,
                "gzip" | "x-gzip" => Coding::Gzip,
                "deflate" => Coding::Deflate,
                "br" => Coding::Brotli,
                "zstd" => Coding::Zstd,
                _ => return Err(unsupported(&format!("Content-Encoding {name:?}"))),
            };
            out.push(coding);
        }
    }
    if out.len() > MAX_CODINGS {
        return Err(unsupported(&format!(
            "{} codings (at most {MAX_CODINGS} are undone)",
            out.len()
        )));
    }
    Ok(out)
}

fn unsupported(what: &str) -> ApiError {
    ApiError::new(
        ErrorCode::UnsupportedEncoding,
        format!("{what} is not supported; send gzip, deflate, br, zstd or identity"),
    )
}

/// Layer: refuses a body over `limit` bytes on the wire (413), then decodes it as its `Content-Encoding` says
/// (see the module docs) and removes `Content-Encoding` and `Content-Length` from a decoded request.
#[derive(Clone, Debug)]
pub struct InflateLayer {
    limit: usize,
    too_large: Option<IntCounter>,
}

impl InflateLayer {
    /// Bodies of at most `limit` bytes on the wire; a 413 from `Content-Length` increments `too_large` if given.
    pub fn new(limit: usize, too_large: Option<IntCounter>) -> InflateLayer {
        InflateLayer { limit, too_large }
    }
}

impl<S> Layer<S> for InflateLayer {
    type Service = Inflate<S>;

    fn layer(&self, inner: S) -> Inflate<S> {
        Inflate {
            inner,
            limit: self.limit,
            too_large: self.too_large.clone(),
        }
    }
}

/// The service of [`InflateLayer`].
#[derive(Clone, Debug)]
pub struct Inflate<S> {
    inner: S,
    limit: usize,
    too_large: Option<IntCounter>,
}

impl<S> Inflate<S> {
    fn refuse<E>(&self, e: ApiError) -> Either<S::Future, Ready<Result<Response, E>>>
    where
        S: Service<Request<Body>>,
    {
        let status = e.status;
        let mut res = e.into_response();
        if status == StatusCode::UNSUPPORTED_MEDIA_TYPE {
            res.headers_mut()
                .insert(header::ACCEPT_ENCODING, HeaderValue::from_static(ACCEPTED));
        } else if let Some(counter) = &self.too_large {
            counter.inc();
        }
        Either::Right(ready(Ok(res)))
    }
}

/// The `Content-Length` of `headers` when it is one decimal number.
pub(crate) fn content_length(headers: &HeaderMap) -> Option<u64> {
    length_of(headers.get(header::CONTENT_LENGTH)?)
}

/// A `Content-Length` value in bytes: `None` unless it is one decimal number.
pub(crate) fn length_of(value: &HeaderValue) -> Option<u64> {
    value.to_str().ok()?.parse().ok()
}

impl<S, B> Service<Request<B>> for Inflate<S>
where
    S: Service<Request<Body>, Response = Response>,
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Either<S::Future, Ready<Result<Response, S::Error>>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        if content_length(req.headers()).is_some_and(|n| n > self.limit as u64) {
            return self.refuse(ApiError::too_large(self.limit, "the request body"));
        }
        let (mut parts, body) = req.into_parts();
        let mut body = Body::new(Limited::new(body, self.limit));
        if parts.headers.contains_key(header::CONTENT_ENCODING) {
            let codings = match codings(&parts.headers) {
                Ok(codings) => codings,
                Err(e) => return self.refuse(e),
            };
            parts.headers.remove(header::CONTENT_ENCODING);
            if !codings.is_empty() {
                parts.headers.remove(header::CONTENT_LENGTH);
            }
            // Undone last-applied first (RFC 9110 §8.4: codings are listed in the order they were applied).
            for &coding in codings.iter().rev() {
                body = Body::new(Inflated::new(body, coding));
            }
        }
        Either::Left(self.inner.call(Request::from_parts(parts, body)))
    }
}

pin_project! {
    /// The data frames of a body as a stream of `io::Result`, for [`StreamReader`]. A body error is kept here
    /// (the decoder sees only an `io::Error` saying so) and handed on as it was, so that the wire limit's
    /// `LengthLimitError` or a body timeout is still recognised above the decoder.
    struct DataFrames {
        #[pin]
        body: Body,
        error: Option<axum::Error>,
        // Whether any data arrived: an empty body is no compressed stream, and stays an empty body.
        any: bool,
    }
}

impl Stream for DataFrames {
    type Item = io::Result<Bytes>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<io::Result<Bytes>>> {
        let mut this = self.project();
        loop {
            match ready!(this.body.as_mut().poll_frame(cx)) {
                None => return Poll::Ready(None),
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(data) if !data.is_empty() => {
                        *this.any = true;
                        return Poll::Ready(Some(Ok(data)));
                    }
                    // Empty data frames and trailers carry nothing to decode.
                    _ => {}
                },
                Some(Err(e)) => {
                    *this.error = Some(e);
                    return Poll::Ready(Some(Err(io::Error::other("the request body failed"))));
                }
            }
        }
    }
}

type Compressed = StreamReader<DataFrames, Bytes>;

pin_project! {
    /// One decoder over the compressed stream.
    #[project = DecoderProj]
    enum Decoder {
        Gzip { #[pin] d: GzipDecoder<Compressed> },
        Deflate { #[pin] d: ZlibDecoder<Compressed> },
        Brotli { #[pin] d: BrotliDecoder<Compressed> },
        Zstd { #[pin] d: ZstdDecoder<Compressed> },
    }
}

impl Decoder {
    fn new(compressed: Compressed, coding: Coding) -> Decoder {
        match coding {
            Coding::Gzip => {
                let mut d = GzipDecoder::new(compressed);
                d.multiple_members(true);
                Decoder::Gzip { d }
            }
            Coding::Deflate => Decoder::Deflate {
                d: ZlibDecoder::new(compressed),
            },
            Coding::Brotli => Decoder::Brotli {
                d: BrotliDecoder::new(compressed),
            },
            Coding::Zstd => {
                let mut d = ZstdDecoder::new(compressed);
                d.multiple_members(true);
                Decoder::Zstd { d }
            }
        }
    }

    fn read(self: Pin<&mut Self>) -> Pin<&mut dyn AsyncRead> {
        match self.project() {
            DecoderProj::Gzip { d } => d,
            DecoderProj::Deflate { d } => d,
            DecoderProj::Brotli { d } => d,
            DecoderProj::Zstd { d } => d,
        }
    }

    /// The compressed stream, positioned just after what the decoder consumed.
    fn compressed(self: Pin<&mut Self>) -> Pin<&mut Compressed> {
        match self.project() {
            DecoderProj::Gzip { d } => d.get_pin_mut(),
            DecoderProj::Deflate { d } => d.get_pin_mut(),
            DecoderProj::Brotli { d } => d.get_pin_mut(),
            DecoderProj::Zstd { d } => d.get_pin_mut(),
        }
    }
}

pin_project! {
    /// A body decoded from one content coding.
    pub struct Inflated {
        #[pin]
        decoder: Decoder,
        buf: BytesMut,
        // The decoder reached the end of its stream: only the end of the body may follow.
        ended: bool,
        // Nothing more will be returned.
        done: bool,
    }
}

impl Inflated {
    /// `body` decoded from `coding`.
    pub fn new(body: Body, coding: Coding) -> Inflated {
        let frames = DataFrames {
            body,
            error: None,
            any: false,
        };
        Inflated {
            decoder: Decoder::new(StreamReader::new(frames), coding),
            buf: BytesMut::new(),
            ended: false,
            done: false,
        }
    }
}

/// An error of the body under the decoder, if that is what `e` stands for; else `e` (a coding error).
fn body_or_coding_error(frames: Pin<&mut DataFrames>, e: io::Error) -> BoxError {
    match frames.project().error.take() {
        Some(body) => body.into_inner(),
        None => Box::new(e),
    }
}

impl http_body::Body for Inflated {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let mut this = self.project();
        if *this.done {
            return Poll::Ready(None);
        }
        if !*this.ended {
            if this.buf.capacity() < CHUNK / 4 {
                this.buf.reserve(CHUNK);
            }
            match ready!(poll_read_buf(this.decoder.as_mut().read(), cx, this.buf)) {
                Ok(0) => *this.ended = true,
                Ok(_) => return Poll::Ready(Some(Ok(Frame::data(this.buf.split().freeze())))),
                Err(e) => {
                    *this.done = true;
                    let mut compressed = this.decoder.as_mut().compressed();
                    let frames = compressed.as_mut().get_pin_mut();
                    if frames.error.is_none() && !frames.any {
                        // An empty body with a Content-Encoding: an empty body.
                        return Poll::Ready(None);
                    }
                    return Poll::Ready(Some(Err(body_or_coding_error(frames, e))));
                }
            }
        }
        // The compressed stream ended: the body must end too, however its bytes were split into frames.
        let mut compressed = this.decoder.as_mut().compressed();
        let rest = ready!(compressed.as_mut().poll_fill_buf(cx)).map(|rest| rest.len());
        *this.done = true;
        match rest {
            Ok(0) => Poll::Ready(None),
            Ok(n) => Poll::Ready(Some(Err(Box::new(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{n} or more bytes follow the end of the compressed stream"),
            ))))),
            Err(e) => Poll::Ready(Some(Err(body_or_coding_error(compressed.get_pin_mut(), e)))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(header::CONTENT_ENCODING, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn coding_lists() {
        assert_eq!(codings(&headers(&[])).unwrap(), vec![]);
        assert_eq!(codings(&headers(&["", " identity "])).unwrap(), vec![]);
        assert_eq!(
            codings(&headers(&["identity, GZIP"])).unwrap(),
            vec![Coding::Gzip]
        );
        assert_eq!(
            codings(&headers(&["x-gzip", "br"])).unwrap(),
            vec![Coding::Gzip, Coding::Brotli]
        );
        assert_eq!(
            codings(&headers(&["deflate,zstd"])).unwrap(),
            vec![Coding::Deflate, Coding::Zstd]
        );
        for bad in ["compress", "gzip, lz4", "gzip, gzip, gzip"] {
            let e = codings(&headers(&[bad])).unwrap_err();
            assert_eq!(e.status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{bad}");
            assert_eq!(e.code.as_str(), "unsupported_encoding");
        }
    }
}
