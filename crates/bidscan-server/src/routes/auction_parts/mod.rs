//! An auction's `multipart/form-data` body ([`multipart`]) made into what `bidscan_openrtb::Auction` judges: the
//! request's bytes and each bidder's [`Reply`], every part decoded in place in the one buffer of the body, a
//! compressed part inflated into its own buffer.
//!
//! The limits: the whole body is bounded by `server.max_auction_bytes` before it gets here (the caller answers 413);
//! the number of parts by `server.max_auction_parts` (400); each bidder's part by `server.max_body_bytes`, on the
//! wire and inflated: over it, or not inflatable, or in a coding the server does not undo, the bidder is invalid
//! ([`Reply::Unreadable`], IAB seat-non-bid code 102), never the call. A compressed request that cannot be inflated
//! within the limit fails the call (400 `bad_encoding`, 413).
//!
//! An inflated part's bytes are reserved in `server.max_inflight_bytes` as they grow, when the caller gives the
//! budget (`AuctionParts::read_within`); a part that cannot get them fails the call with 503 `overloaded`
//! ([`CallError::Memory`]): the server's state, not the bidder's answer, so never a 102.
//!
//! A part is protobuf (IAB Tech Lab's OpenRTB 2.6 schema: a `BidResponse`, or for the `request` part a
//! `BidRequest`) when its own `Content-Type` names one of the protobuf media types `/decode` reads
//! (`transport::body::PROTOBUF_TYPES`, case ignored, parameters ignored); any other part, with no `Content-Type`,
//! `application/json`, `application/octet-stream` or any other, is JSON. A protobuf bidder's body is handed over
//! as [`Reply::Protobuf`], with a string of its own for its rendered `ext` and `adm_native`.
//!
//! Inflation reuses the server's decoders and limits: `routes::layers::inflate::codings` reads a part's
//! `Content-Encoding`, `Inflated` undoes each coding, `transport::body::collect` bounds the output.

pub mod multipart;

use std::ops::Range;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use bidscan_openrtb::Reply;
use bytes::Bytes;

use crate::engine::Encoding;
use crate::error::{ApiError, ErrorCode};
use crate::routes::layers::inflate::{Inflated, codings};
use crate::transport::body::PROTOBUF_TYPES;
use crate::transport::memory::{MemoryBudget, Reservation};
use multipart::{BidderStatus, Parts};

/// The limits of one auction's parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most parts, the request's included (`server.max_auction_parts`).
    pub max_parts: usize,
    /// Most bytes of one part, on the wire and inflated (`server.max_body_bytes`).
    pub max_part_bytes: usize,
}

/// Where a part's bytes are, or why there are none to judge.
#[derive(Debug)]
enum Content {
    /// A range of the body.
    InBody(Range<usize>),
    /// Inflated from the part's content.
    Inflated(Vec<u8>),
    /// The part's `X-Bidder-Status`.
    Status(BidderStatus),
    /// Too large, not inflatable or in an unknown coding: `(code, message)` of the bidder's finding.
    Unreadable(&'static str, String),
}

/// Why an auction's body fails the whole call.
#[derive(Debug, PartialEq, Eq)]
pub enum CallError {
    /// Not an auction's multipart body (400; see [`multipart::Error`]).
    Multipart(multipart::Error),
    /// The request part is compressed and does not inflate (400 `bad_encoding`; 415 `unsupported_encoding` for an
    /// unknown coding), or inflates past the part limit (413 `payload_too_large`).
    Request {
        /// 400, 413 or 415.
        status: StatusCode,
        /// What was wrong.
        message: String,
    },
    /// A compressed part's inflated bytes did not fit in `server.max_inflight_bytes` (503 `overloaded`, with
    /// `Retry-After`; the caller counts it in `bidscan_shed_total{reason="memory"}`).
    Memory,
}

impl CallError {
    /// The call's answer in the one error shape: each [`multipart::Error`] under its code (400), a request part
    /// that does not inflate as `bad_encoding` (400), `unsupported_encoding` (415) or `payload_too_large` (413).
    pub fn api_error(self) -> ApiError {
        match self {
            CallError::Multipart(e) => {
                let code = match e {
                    multipart::Error::NotMultipart(_) => ErrorCode::NotMultipart,
                    multipart::Error::Malformed(_) => ErrorCode::MalformedMultipart,
                    multipart::Error::TooManyParts(_) => ErrorCode::TooManyParts,
                    multipart::Error::BadName(_) => ErrorCode::BadBidderName,
                    multipart::Error::DuplicateName(_) => ErrorCode::DuplicateBidder,
                    multipart::Error::MissingRequest => ErrorCode::MissingRequest,
                    multipart::Error::BadStatus(_) => ErrorCode::BadBidderStatus,
                };
                ApiError::new(code, e.to_string())
            }
            CallError::Request { status, message } => {
                let code = match status {
                    StatusCode::PAYLOAD_TOO_LARGE => ErrorCode::PayloadTooLarge,
                    StatusCode::UNSUPPORTED_MEDIA_TYPE => ErrorCode::UnsupportedEncoding,
                    _ => ErrorCode::BadEncoding,
                };
                ApiError::new(code, format!("the request part: {message}"))
            }
            CallError::Memory => ApiError::memory(0),
        }
    }

    /// The HTTP status of the call's answer.
    pub fn status(&self) -> StatusCode {
        match self {
            CallError::Multipart(_) => StatusCode::BAD_REQUEST,
            CallError::Request { status, .. } => *status,
            CallError::Memory => StatusCode::SERVICE_UNAVAILABLE,
        }
    }
}

/// One bidder's part, read.
#[derive(Debug)]
struct Bidder {
    name: String,
    content: Content,
    encoding: Encoding,
    /// A protobuf body's `ext` and `adm_native`, rendered as JSON (`Reply::Protobuf`'s `rendered`).
    rendered: String,
}

/// An auction's body, read: the buffer and where each part's bytes are.
#[derive(Debug)]
pub struct AuctionParts {
    body: Vec<u8>,
    request: Content,
    request_encoding: Encoding,
    bidders: Vec<Bidder>,
    /// The inflated parts' bytes in `server.max_inflight_bytes`, held (for their `Drop`) as long as the parts.
    _reserved: Vec<Reservation>,
}

impl AuctionParts {
    /// Reads `body` (the whole request body, already bounded by `server.max_auction_bytes`), sent with
    /// `content_type`, under `limits`; inflates the compressed parts (see the module docs).
    ///
    /// # Errors
    /// [`CallError`]: the body is not a usable multipart body, or its request part cannot be inflated.
    pub async fn read(
        body: Vec<u8>,
        content_type: &str,
        limits: Limits,
    ) -> Result<AuctionParts, CallError> {
        Self::read_within(body, content_type, limits, None).await
    }

    /// [`read`](Self::read), each inflated part's bytes reserved in `budget` as they grow.
    ///
    /// # Errors
    /// As [`read`](Self::read), and [`CallError::Memory`] when `budget` cannot cover an inflated part.
    pub(crate) async fn read_within(
        body: Vec<u8>,
        content_type: &str,
        limits: Limits,
        budget: Option<&Arc<MemoryBudget>>,
    ) -> Result<AuctionParts, CallError> {
        let mut reserved = Vec::new();
        let boundary = multipart::boundary(content_type).map_err(CallError::Multipart)?;
        let Parts {
            request,
            request_encoding,
            request_content_type,
            bidders,
        } = multipart::read(&body, boundary, limits.max_parts).map_err(CallError::Multipart)?;
        let request_format = part_encoding(&body, request_content_type.as_ref());
        let request = match request_encoding {
            None => Content::InBody(request),
            Some(coding) => match inflate_within(
                &body[request],
                &coding,
                limits.max_part_bytes,
                budget,
                &mut reserved,
            )
            .await
            {
                Ok(bytes) => Content::Inflated(bytes),
                Err(("overloaded", _)) => return Err(CallError::Memory),
                Err((code, message)) => {
                    let status = match code {
                        "body_too_large" => StatusCode::PAYLOAD_TOO_LARGE,
                        "unsupported_encoding" => StatusCode::UNSUPPORTED_MEDIA_TYPE,
                        _ => StatusCode::BAD_REQUEST,
                    };
                    return Err(CallError::Request { status, message });
                }
            },
        };
        let mut judged = Vec::with_capacity(bidders.len());
        for part in bidders {
            let content = if let Some(status) = part.status {
                Content::Status(status)
            } else if part.content.len() > limits.max_part_bytes {
                Content::Unreadable("body_too_large", too_large(limits.max_part_bytes))
            } else if let Some(coding) = &part.content_encoding {
                match inflate_within(
                    &body[part.content.clone()],
                    coding,
                    limits.max_part_bytes,
                    budget,
                    &mut reserved,
                )
                .await
                {
                    Ok(bytes) => Content::Inflated(bytes),
                    Err(("overloaded", _)) => return Err(CallError::Memory),
                    Err((code, message)) => Content::Unreadable(code, message),
                }
            } else {
                Content::InBody(part.content)
            };
            judged.push(Bidder {
                name: part.name,
                content,
                encoding: part_encoding(&body, part.content_type.as_ref()),
                rendered: String::new(),
            });
        }
        Ok(AuctionParts {
            body,
            request,
            request_encoding: request_format,
            bidders: judged,
            _reserved: reserved,
        })
    }

    /// How the `request` part is encoded: `Encoding::Protobuf` under a protobuf `Content-Type`, else JSON.
    pub fn request_encoding(&self) -> Encoding {
        self.request_encoding
    }

    /// The request's bytes and each bidder's name and [`Reply`] ([`Reply::Protobuf`] for a part sent with a
    /// protobuf `Content-Type`), in the order sent, every body mutable for decoding in place.
    pub fn replies(&mut self) -> (&mut [u8], Vec<(&str, Reply<'_>)>) {
        let AuctionParts {
            body,
            request,
            bidders,
            ..
        } = self;
        // The ranges of the body the parts use, in ascending order (the order sent).
        let mut ranges: Vec<Range<usize>> = Vec::with_capacity(bidders.len() + 1);
        let all = std::iter::once(&*request).chain(bidders.iter().map(|b| &b.content));
        ranges.extend(all.filter_map(|c| match c {
            Content::InBody(r) => Some(r.clone()),
            _ => None,
        }));
        ranges.sort_by_key(|r| r.start);
        let mut slices: Vec<Option<&mut [u8]>> = multipart::split_mut(body, &ranges)
            .into_iter()
            .map(Some)
            .collect();
        let mut take = |r: &Range<usize>| {
            let i = ranges.iter().position(|x| x == r)?;
            slices[i].take()
        };
        let request: &mut [u8] = match request {
            Content::InBody(r) => take(r).unwrap_or_default(),
            Content::Inflated(bytes) => bytes.as_mut_slice(),
            _ => <&mut [u8]>::default(),
        };
        let mut replies = Vec::with_capacity(bidders.len());
        for bidder in bidders.iter_mut() {
            let Bidder {
                name,
                content,
                encoding,
                rendered,
            } = bidder;
            let name: &str = name;
            let reply = match content {
                Content::InBody(r) => Reply::Body(take(r).unwrap_or_default()),
                Content::Inflated(bytes) => Reply::Body(bytes.as_mut_slice()),
                Content::Status(BidderStatus::Timeout) => Reply::Timeout,
                Content::Status(BidderStatus::Unreachable) => Reply::Unreachable,
                Content::Status(BidderStatus::Http(code)) => Reply::HttpStatus(*code),
                Content::Unreadable(code, message) => Reply::Unreadable {
                    code,
                    message: std::mem::take(message),
                },
            };
            let reply = match reply {
                Reply::Body(body) if *encoding == Encoding::Protobuf => {
                    Reply::Protobuf { body, rendered }
                }
                reply => reply,
            };
            replies.push((name, reply));
        }
        (request, replies)
    }
}

/// [`Encoding::Protobuf`] when the `Content-Type` value at `range` of `body` has one of [`PROTOBUF_TYPES`] as its
/// type (ASCII case ignored, RFC 9110 §8.3.1; parameters and surrounding spaces ignored), else JSON: no
/// `Content-Type`, `application/json`, `application/octet-stream`, any other.
pub(crate) fn part_encoding(body: &[u8], range: Option<&Range<usize>>) -> Encoding {
    let Some(value) = range.and_then(|r| body.get(r.clone())) else {
        return Encoding::Json;
    };
    let essence = value.split(|&b| b == b';').next().unwrap_or_default();
    let essence = essence.trim_ascii();
    if PROTOBUF_TYPES
        .iter()
        .any(|t| essence.eq_ignore_ascii_case(t.as_bytes()))
    {
        Encoding::Protobuf
    } else {
        Encoding::Json
    }
}

fn too_large(limit: usize) -> String {
    format!("the part is larger than the limit of {limit} bytes")
}

/// `content` with the codings of `content_encoding` undone (last applied first), at most `limit` bytes of output.
///
/// # Errors
/// `(code, message)`: `unsupported_encoding` (an unknown coding, or more than the server undoes),
/// `body_too_large` (past `limit`), `bad_encoding` (not a valid stream of its coding).
pub async fn inflate(
    content: &[u8],
    content_encoding: &str,
    limit: usize,
) -> Result<Vec<u8>, (&'static str, String)> {
    inflate_within(content, content_encoding, limit, None, &mut Vec::new()).await
}

/// [`inflate`], its output reserved in `budget` as it grows, the reservation pushed on `reserved` on success;
/// `("overloaded", _)` when `budget` cannot cover it.
async fn inflate_within(
    content: &[u8],
    content_encoding: &str,
    limit: usize,
    budget: Option<&Arc<MemoryBudget>>,
    reserved: &mut Vec<Reservation>,
) -> Result<Vec<u8>, (&'static str, String)> {
    let mut headers = HeaderMap::new();
    let value = HeaderValue::from_str(content_encoding).map_err(|_| {
        (
            "unsupported_encoding",
            "a Content-Encoding that is not text".to_owned(),
        )
    })?;
    headers.insert(header::CONTENT_ENCODING, value);
    let list = codings(&headers).map_err(|e| ("unsupported_encoding", e.message))?;
    let mut body = Body::from(Bytes::copy_from_slice(content));
    for &coding in list.iter().rev() {
        body = Body::new(Inflated::new(body, coding));
    }
    let mut reservation = budget.map(|b| b.reservation());
    let frames = crate::transport::body::collect(body, limit, reservation.as_mut())
        .await
        .map_err(|e| {
            if e.retry_after.is_some() {
                ("overloaded", e.message)
            } else if e.status == StatusCode::PAYLOAD_TOO_LARGE {
                ("body_too_large", too_large(limit))
            } else {
                ("bad_encoding", e.message)
            }
        })?;
    let mut out = Vec::with_capacity(frames.len);
    for chunk in frames.slices() {
        out.extend_from_slice(chunk);
    }
    reserved.extend(reservation);
    Ok(out)
}
