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
//!   §12.5.3);
//! - a zstd frame may declare a window of at most 8 MiB ([`ZSTD_MAX_WINDOW_LOG`]), as RFC 9659 §3 lets a decoder of
//!   the `zstd` content coding require; a br stream may not declare a large window (not RFC 7932): 400
//!   `bad_encoding`, before the decoder makes a buffer for it.
//!
//! A body read with [`Inflated::within`] holds its decoder's working memory in `server.max_inflight_bytes`: what
//! [`decoder_memory`] says for the coding when the decoder is made, then, as the compressed bytes pass to the
//! decoder, what the stream declares it needs (br: the window of its first byte, RFC 7932 §9.1; zstd: each frame's
//! window and content size, RFC 8878 §3.1.1.1); none to spare is 503 (the error is [`OverBudget`]). The decoded
//! bytes are the caller's to reserve ([`crate::transport::body::collect`]).
//!
//! Per request without `Content-Encoding`: two header lookups and the `Limited` wrapper, as before.

use std::future::{Ready, ready};
use std::io;
use std::pin::Pin;
use std::sync::Arc;
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
use crate::transport::memory::{MemoryBudget, OverBudget, Reservation};

/// Most codings undone for one body (`gzip, gzip` is legal; longer chains are refused, 415).
pub const MAX_CODINGS: usize = 2;

/// What `Accept-Encoding` says on a 415: the codings [`InflateLayer`] decodes.
pub const ACCEPTED: &str = "gzip, deflate, br, zstd, identity";

/// Output read from a decoder at a time, in bytes.
const CHUNK: usize = 16 * 1024;

/// Largest zstd window decoded, as a power of two: 8 MiB, the limit RFC 9659 §3 lets a decoder of the `zstd`
/// content coding enforce (its encoders must not need more).
pub const ZSTD_MAX_WINDOW_LOG: u32 = 23;

/// What a gzip or deflate decoder holds, in bytes, whatever its stream says: miniz_oxide's inflate state (its 32 KiB
/// window and tables, 43,306 B measured after a gzip header, tests/decoder_memory.rs) and [`Inflated`]'s 16 KiB
/// output chunk.
const INFLATE_MEMORY: usize = 64 * 1024;

/// What a br decoder holds before its ring buffer, in bytes: its state (3,621 B measured after a stream header,
/// tests/decoder_memory.rs) and [`Inflated`]'s 16 KiB output chunk.
const BROTLI_MEMORY: usize = 24 * 1024;

/// Bytes brotli-decompressor allocates past a ring buffer's size (`kRingBufferAllocationSlack`).
const BROTLI_RING_SLACK: usize = 1024;

/// What a zstd decoder holds before its frame buffers, in bytes: libzstd's context (`ZSTD_sizeof_DCtx`: 95,992 B
/// measured, tests/decoder_memory.rs), async-compression's wrapper and [`Inflated`]'s 16 KiB output chunk.
const ZSTD_MEMORY: usize = 192 * 1024;

/// libzstd's largest block, in bytes (RFC 8878 §3.1.1.2.4: `Block_Maximum_Size`).
const ZSTD_BLOCK_MAX: usize = 128 * 1024;

/// The working memory, in bytes, a decoder of `coding` holds for a stream that declares a window of `window` bytes
/// (br: `2^WBITS`; zstd: its frame's `Window_Size`; 0: nothing declared yet, or a coding without a window): what
/// `server.max_inflight_bytes` holds for it. Not the decoded bytes, which are reserved as they grow.
///
/// The figures are measured (tests/decoder_memory.rs, BENCHMARKS.md "Request-body decoders: working memory"): a
/// gzip or deflate decoder's state; a br decoder's state and, once a meta-block writes to it, its ring buffer (at
/// most the window, RFC 7932 §9.1); a zstd decoder's context and, once a frame header is read, its buffers: the
/// window, two blocks and a block of input (libzstd's `ZSTD_decodingBufferSize_min`). The Huffman tables a br
/// meta-block describes are not counted (RELIABILITY.md, M3).
pub fn decoder_memory(coding: Coding, window: usize) -> usize {
    match coding {
        Coding::Gzip | Coding::Deflate => INFLATE_MEMORY,
        Coding::Brotli if window == 0 => BROTLI_MEMORY,
        Coding::Brotli => BROTLI_MEMORY + window + BROTLI_RING_SLACK,
        Coding::Zstd => ZSTD_MEMORY + zstd_buffers(window, None),
    }
}

/// The buffers libzstd makes for a frame of `window` bytes and, if declared, `content` bytes: a block of input and
/// the window with two blocks of output, at most the content (`ZSTD_decodingBufferSize_internal`); none for 0.
fn zstd_buffers(window: usize, content: Option<u64>) -> usize {
    if window == 0 {
        return 0;
    }
    let block = window.min(ZSTD_BLOCK_MAX);
    let output = window + 2 * block + 64;
    let output = content.map_or(output, |c| {
        output.min(usize::try_from(c).unwrap_or(usize::MAX))
    });
    block.max(4) + output
}

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
    /// `LengthLimitError` or a body timeout is still recognised above the decoder. With a reservation, each frame is
    /// read for what the stream declares of the decoder's memory ([`Declared`]) before the decoder sees it, and a
    /// header that declares more than is reserved reaches the decoder (which allocates what it declares) only once
    /// the body has paid for it: ended, or sent [`PAID_SHARE`]th of it; until then its bytes are held here. So a
    /// stalled br or zstd body holds the bytes it sent, never the window its first bytes declare.
    struct DataFrames {
        #[pin]
        body: Body,
        error: Option<axum::Error>,
        // Whether any data arrived: an empty body is no compressed stream, and stays an empty body.
        any: bool,
        declared: Declared,
        // The decoder's working memory in `server.max_inflight_bytes`, grown as the stream declares more.
        reservation: Option<Reservation>,
        // The most the stream has declared, in bytes of decoder memory (covered once paid for).
        wanted: usize,
        // Compressed bytes received, held ones included.
        paid: usize,
        // Bytes not yet handed to the decoder: they declare more than is reserved and are not yet paid for.
        held: BytesMut,
    }
}

/// A stream's declared decoder memory is reserved (and its header handed to the decoder) once it has sent at least
/// this fraction of it in compressed bytes, or ended: 1/256, so an 8 MiB zstd window takes 32 KiB of body, the
/// largest br window 64 KiB. About the ratio a compressed bid response inflates by, so a body cannot make the
/// server hold much more than it sends while it stalls.
const PAID_SHARE: usize = 256;

impl Stream for DataFrames {
    type Item = io::Result<Bytes>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<io::Result<Bytes>>> {
        let mut this = self.project();
        loop {
            match ready!(this.body.as_mut().poll_frame(cx)) {
                None => {
                    // The body has ended: what it declared is paid for, and what was held goes to the decoder.
                    if this.held.is_empty() {
                        return Poll::Ready(None);
                    }
                    if let Some(reservation) = this.reservation.as_mut()
                        && !reservation.cover(*this.wanted)
                    {
                        *this.error = Some(axum::Error::new(OverBudget));
                        return Poll::Ready(Some(Err(io::Error::other(OverBudget))));
                    }
                    return Poll::Ready(Some(Ok(this.held.split().freeze())));
                }
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(data) if !data.is_empty() => {
                        *this.any = true;
                        let Some(reservation) = this.reservation.as_mut() else {
                            return Poll::Ready(Some(Ok(data)));
                        };
                        match this.declared.read(&data) {
                            Ok(Some(need)) => *this.wanted = (*this.wanted).max(need),
                            Ok(None) => {}
                            Err(e) => return Poll::Ready(Some(Err(e))),
                        }
                        *this.paid += data.len();
                        let covered = reservation.bytes();
                        if *this.wanted > covered {
                            if this.paid.saturating_mul(PAID_SHARE) < *this.wanted {
                                // Not paid for yet: held, and the body read on.
                                this.held.extend_from_slice(&data);
                                continue;
                            }
                            if !reservation.cover(*this.wanted) {
                                *this.error = Some(axum::Error::new(OverBudget));
                                return Poll::Ready(Some(Err(io::Error::other(OverBudget))));
                            }
                        }
                        if this.held.is_empty() {
                            return Poll::Ready(Some(Ok(data)));
                        }
                        this.held.extend_from_slice(&data);
                        return Poll::Ready(Some(Ok(this.held.split().freeze())));
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

/// What a compressed stream declares of its decoder's working memory, read as its bytes pass to the decoder: the
/// most [`decoder_memory`] so far, in bytes.
#[derive(Debug)]
enum Declared {
    /// gzip, deflate: nothing beyond the decoder's state.
    Fixed,
    /// br: the window, in the stream's first byte (RFC 7932 §9.1); `true` once read.
    Brotli(bool),
    /// zstd: each frame's window and content size.
    Zstd(ZstdFrames),
}

impl Declared {
    fn of(coding: Coding) -> Declared {
        match coding {
            Coding::Gzip | Coding::Deflate => Declared::Fixed,
            Coding::Brotli => Declared::Brotli(false),
            Coding::Zstd => Declared::Zstd(ZstdFrames::default()),
        }
    }

    /// Reads `data`, the stream's next bytes: the decoder's memory in bytes if they declare more than before.
    ///
    /// # Errors
    /// `InvalidData` for a window the decoder does not take (a zstd window past [`ZSTD_MAX_WINDOW_LOG`], a br
    /// large window).
    fn read(&mut self, data: &[u8]) -> io::Result<Option<usize>> {
        match self {
            Declared::Fixed | Declared::Brotli(true) => Ok(None),
            Declared::Brotli(seen) => {
                *seen = true;
                let wbits = brotli_window_bits(data[0]).ok_or_else(|| {
                    invalid(
                        "the br stream declares a large window (not RFC 7932); at most 2^24 bytes"
                            .into(),
                    )
                })?;
                Ok(Some(decoder_memory(Coding::Brotli, 1 << wbits)))
            }
            Declared::Zstd(frames) => frames.read(data),
        }
    }
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

/// `WBITS` of a brotli stream whose first byte is `first` (RFC 7932 §9.1: 1, 4 or 7 bits); `None` for the large
/// window extension's marker (`0010001`), which the decoder would otherwise take.
fn brotli_window_bits(first: u8) -> Option<u32> {
    if first & 1 == 0 {
        return Some(16);
    }
    let n = u32::from((first >> 1) & 7);
    if n != 0 {
        return Some(17 + n);
    }
    match u32::from((first >> 4) & 7) {
        0 => Some(17),
        1 => None,
        m => Some(8 + m),
    }
}

/// The field of a zstd stream [`ZstdFrames`] waits for (RFC 8878 §3.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum ZstdField {
    /// A frame's magic number (4 bytes).
    #[default]
    Magic,
    /// A skippable frame's size (4 bytes).
    SkipSize,
    /// The `Frame_Header_Descriptor` (1 byte).
    Descriptor,
    /// The rest of the frame header (0 to 13 bytes, as the descriptor says).
    Header,
    /// A block header (3 bytes).
    Block,
    /// Not a zstd stream: nothing more is read (the decoder refuses it).
    Lost,
}

/// Follows a zstd stream's frames by their headers and block sizes, without decoding, for the window and content
/// size of each frame (RFC 8878 §3.1.1).
#[derive(Debug, Default)]
struct ZstdFrames {
    field: ZstdField,
    /// The field's bytes so far, and how many it has.
    head: [u8; 13],
    have: usize,
    /// Bytes the field has.
    want: usize,
    /// Bytes to pass (block contents, a checksum, a skippable frame) before the field.
    skip: u64,
    /// The frame's `Frame_Header_Descriptor`.
    descriptor: u8,
    /// The most memory any frame declared, in bytes.
    most: usize,
}

const ZSTD_MAGIC: u32 = 0xFD2F_B528;

impl ZstdFrames {
    fn read(&mut self, mut data: &[u8]) -> io::Result<Option<usize>> {
        let before = self.most;
        if self.want == 0 && self.field == ZstdField::Magic {
            self.want = 4;
        }
        loop {
            if self.skip > 0 {
                let n = data
                    .len()
                    .min(usize::try_from(self.skip).unwrap_or(usize::MAX));
                self.skip -= n as u64;
                data = &data[n..];
                if self.skip > 0 {
                    break;
                }
            }
            if self.field == ZstdField::Lost {
                break;
            }
            let n = data.len().min(self.want - self.have);
            self.head[self.have..self.have + n].copy_from_slice(&data[..n]);
            self.have += n;
            data = &data[n..];
            if self.have < self.want {
                break;
            }
            self.next()?;
        }
        Ok((self.most > before).then_some(self.most))
    }

    /// Moves on from a complete field.
    fn next(&mut self) -> io::Result<()> {
        let head = &self.head[..self.want];
        let le = |bytes: &[u8]| {
            bytes
                .iter()
                .rev()
                .fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
        };
        let (field, want) = match self.field {
            ZstdField::Magic => match le(head) as u32 {
                ZSTD_MAGIC => (ZstdField::Descriptor, 1),
                m if m & 0xFFFF_FFF0 == 0x184D_2A50 => (ZstdField::SkipSize, 4),
                _ => (ZstdField::Lost, 0),
            },
            ZstdField::SkipSize => {
                self.skip = le(head);
                (ZstdField::Magic, 4)
            }
            ZstdField::Descriptor => {
                let d = head[0];
                self.descriptor = d;
                let single = d & 0x20 != 0;
                let window = usize::from(!single);
                let dictionary = [0, 1, 2, 4][usize::from(d & 3)];
                let content = [usize::from(single), 2, 4, 8][usize::from(d >> 6)];
                (ZstdField::Header, window + dictionary + content)
            }
            ZstdField::Header => {
                let d = self.descriptor;
                let single = d & 0x20 != 0;
                let dictionary = [0, 1, 2, 4][usize::from(d & 3)];
                let at = usize::from(!single) + dictionary;
                let content = match head.len() - at {
                    0 => None,
                    2 => Some(le(&head[at..]) + 256),
                    _ => Some(le(&head[at..])),
                };
                let window = if single {
                    content.unwrap_or(0)
                } else {
                    let exponent = u32::from(head[0] >> 3);
                    let base = 1u64 << (10 + exponent);
                    base + (base / 8) * u64::from(head[0] & 7)
                };
                if window > 1 << ZSTD_MAX_WINDOW_LOG {
                    return Err(invalid(format!(
                        "a zstd frame declares a window of {window} bytes; at most {} (8 MiB) are decoded \
                         (RFC 9659 §3)",
                        1u64 << ZSTD_MAX_WINDOW_LOG
                    )));
                }
                let window = window as usize;
                self.most = self
                    .most
                    .max(ZSTD_MEMORY + zstd_buffers(window.max(1), content));
                (ZstdField::Block, 3)
            }
            ZstdField::Block => {
                let h = le(head);
                let size = h >> 3;
                let (last, kind) = (h & 1 == 1, (h >> 1) & 3);
                self.skip = match kind {
                    0 | 2 => size,
                    1 => 1,
                    _ => {
                        self.field = ZstdField::Lost;
                        return Ok(());
                    }
                };
                if last {
                    // `Content_Checksum`, then the next frame.
                    self.skip += if self.descriptor & 4 != 0 { 4 } else { 0 };
                    (ZstdField::Magic, 4)
                } else {
                    (ZstdField::Block, 3)
                }
            }
            ZstdField::Lost => (ZstdField::Lost, 0),
        };
        self.field = field;
        self.want = want;
        self.have = 0;
        Ok(())
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
                let max = async_compression::zstd::DParameter::window_log_max(ZSTD_MAX_WINDOW_LOG);
                let mut d = ZstdDecoder::with_params(compressed, &[max]);
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
    /// `body` decoded from `coding`; the decoder's memory is not reserved.
    pub fn new(body: Body, coding: Coding) -> Inflated {
        Inflated::reserving(body, coding, None)
    }

    /// `body` decoded from `coding`, the decoder's working memory held in `budget` (see the module docs) until the
    /// body is dropped; past the budget, the body fails with [`OverBudget`].
    ///
    /// # Errors
    /// [`OverBudget`] when `budget` has no room for [`decoder_memory`] of `coding` (nothing declared yet).
    pub fn within(
        body: Body,
        coding: Coding,
        budget: &Arc<MemoryBudget>,
    ) -> Result<Inflated, OverBudget> {
        let reservation = budget
            .try_reserve(decoder_memory(coding, 0))
            .ok_or(OverBudget)?;
        Ok(Inflated::reserving(body, coding, Some(reservation)))
    }

    fn reserving(body: Body, coding: Coding, reservation: Option<Reservation>) -> Inflated {
        let frames = DataFrames {
            body,
            error: None,
            any: false,
            declared: Declared::of(coding),
            reservation,
            wanted: 0,
            paid: 0,
            held: BytesMut::new(),
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

    /// A zstd frame of `data` without a content size, declaring a window of `2^log` bytes.
    fn zstd_frame(data: &[u8], log: u32) -> Vec<u8> {
        let mut e = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
        e.include_contentsize(false).unwrap();
        e.include_checksum(true).unwrap();
        e.window_log(log).unwrap();
        std::io::Write::write_all(&mut e, data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn zstd_frames_are_followed_to_each_header_however_split() {
        let data: Vec<u8> = (0..300_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut stream = zstd_frame(&data, 20);
        // A skippable frame (RFC 8878 §3.1.2), then a frame with a larger window.
        stream.extend(0x184D_2A53u32.to_le_bytes());
        stream.extend(3u32.to_le_bytes());
        stream.extend([1, 2, 3]);
        stream.extend(zstd_frame(&data, 22));
        let want = ZSTD_MEMORY + zstd_buffers(1 << 22, None);
        for split in [stream.len(), 1, 7, 4096] {
            let mut frames = ZstdFrames::default();
            let mut most = None;
            for chunk in stream.chunks(split) {
                most = frames.read(chunk).unwrap().or(most);
            }
            assert_eq!(most, Some(want), "split {split}");
            assert_eq!(frames.field, ZstdField::Magic, "split {split}");
        }
        // A window past 8 MiB is refused, in whichever frame.
        let mut late = zstd_frame(b"{}", 20);
        late.extend(zstd_frame(b"{}", 24));
        let e = ZstdFrames::default().read(&late).unwrap_err();
        assert!(e.to_string().contains("RFC 9659"), "{e}");
    }

    #[test]
    fn brotli_window_bits_are_read_from_the_first_byte() {
        for lgwin in 10..=24 {
            let mut out = Vec::new();
            let mut w = brotli::CompressorWriter::new(&mut out, 4096, 5, lgwin);
            std::io::Write::write_all(&mut w, b"{\"id\":\"1\"}").unwrap();
            drop(w);
            assert_eq!(brotli_window_bits(out[0]), Some(lgwin), "lgwin {lgwin}");
        }
        // The large-window marker (`0010001`).
        assert_eq!(brotli_window_bits(0x11), None);
    }

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
