//! [`ApiError`]: every failure the service reports, with its HTTP status, and the one [`IntoResponse`] impl that
//! turns it into `{"error": {"code", "message", "byte", "line", "column", "path"}}`.
//!
//! Responses made by tower/tower-http layers (413 from the wire limit, 415 from decompression, 405 from the
//! router) carry no such body; [`json_errors`] rewrites them so that every error a client sees has this shape.

use std::any::Any;

use axum::Json;
use axum::body::Body;
use axum::http::{HeaderValue, Response, StatusCode, header};
use axum::response::IntoResponse;
use bidscan_openrtb::{DecodeError, ProtobufError};
use serde::Serialize;

pub use crate::error_code::ErrorCode;

/// The target of this module's log lines (`log.level` filters name it; docs/operations.md, "Logs").
const LOG_TARGET: &str = "bidscan_server::error";

/// An error answer: status, code, message, and where in the document it happened when that is known.
#[derive(Clone, Debug, PartialEq)]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// The error's entry in the catalogue ([`ErrorCode`]): status, snake_case code, outcome.
    pub code: ErrorCode,
    /// One human-readable sentence.
    pub message: String,
    /// Position in the document (malformed JSON, strict mode, not a bid response); boxed to keep `Result`s small.
    pub position: Option<Box<Position>>,
    /// `Retry-After` seconds, sent with 503.
    pub retry_after: Option<u64>,
}

/// Where in the (decompressed) document an error is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Position {
    /// Byte offset, from 0.
    pub byte: Option<usize>,
    /// Line, from 1.
    pub line: Option<usize>,
    /// Column in bytes, from 1.
    pub column: Option<usize>,
    /// JSON pointer (RFC 6901) of the value being decoded, e.g. `/seatbid/0/bid/3/price`.
    pub path: Option<String>,
}

/// The wire form of an error: `{"error": {"code", "message", "byte", "line", "column", "path"}}`, every key always
/// present (`null` when unknown).
#[derive(Serialize, utoipa::ToSchema)]
pub struct ErrorBody<'a> {
    /// The error.
    pub error: ErrorFields<'a>,
}

/// The members of `ErrorBody`'s `error`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ErrorFields<'a> {
    /// Stable snake_case code, e.g. `malformed_json`, `payload_too_large`, `not_a_bid_response`,
    /// `openrtb3_not_supported`, a strict-mode issue code such as `number_as_string`.
    pub code: &'a str,
    /// One human-readable sentence.
    pub message: &'a str,
    /// Byte offset of the error in the (decompressed) document, from 0.
    pub byte: Option<usize>,
    /// Line of the error, from 1.
    #[schema(minimum = 1)]
    pub line: Option<usize>,
    /// Column of the error in bytes, from 1.
    #[schema(minimum = 1)]
    pub column: Option<usize>,
    /// JSON pointer of the value being decoded.
    pub path: Option<&'a str>,
}

impl ApiError {
    /// An error of `code` (its status from the catalogue) with `message` and no position.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status: code.status(),
            code,
            message: message.into(),
            position: None,
            retry_after: None,
        }
    }

    /// The wire form.
    pub fn body(&self) -> ErrorBody<'_> {
        let none = Position::default();
        let p = self.position.as_deref().unwrap_or(&none);
        ErrorBody {
            error: ErrorFields {
                code: self.code.as_str(),
                message: &self.message,
                byte: p.byte,
                line: p.line,
                column: p.column,
                path: self.position.as_deref().and_then(|p| p.path.as_deref()),
            },
        }
    }

    /// 413: the body (on the wire or decompressed) is larger than `limit` bytes.
    pub fn too_large(limit: usize, what: &str) -> ApiError {
        ApiError::new(
            ErrorCode::PayloadTooLarge,
            format!("{what} is larger than the limit of {limit} bytes"),
        )
    }

    /// The line ending a batch with more than `limit` lines (`server.max_batch_lines`).
    pub fn too_many_lines(limit: usize) -> ApiError {
        ApiError::new(
            ErrorCode::PayloadTooLarge,
            format!("the batch has more than the limit of {limit} lines; the rest is not read"),
        )
    }

    /// The line ending a batch whose answer would pass `limit` bytes (`server.max_batch_answer_bytes`).
    pub fn answer_too_large(limit: usize) -> ApiError {
        ApiError::new(
            ErrorCode::PayloadTooLarge,
            format!(
                "the batch's answer would be larger than the limit of {limit} bytes; the rest is not read"
            ),
        )
    }

    /// 406 for an `Accept` that takes none of `offered` (the media types the route answers in, listed in the
    /// message).
    pub fn not_acceptable(offered: &str) -> ApiError {
        ApiError::new(
            ErrorCode::NotAcceptable,
            format!(
                "the Accept header takes none of the media types this route answers in: {offered}"
            ),
        )
    }

    /// This error with the JSON pointer `path` of the value at fault.
    pub fn with_path(mut self, path: String) -> ApiError {
        self.position.get_or_insert_with(Box::default).path = Some(path);
        self
    }

    /// 415 for a `Content-Type` the route does not take.
    pub fn media_type(found: &str) -> ApiError {
        ApiError::new(
            ErrorCode::UnsupportedMediaType,
            format!("Content-Type {found:?} is not accepted; send application/json"),
        )
    }

    /// 415 for a protobuf body (`found`, its `Content-Type`) on a route that reads JSON only; `instead` says where
    /// protobuf is read.
    pub fn protobuf_not_here(found: &str, instead: &str) -> ApiError {
        ApiError::new(
            ErrorCode::UnsupportedMediaType,
            format!("Content-Type {found:?} (protobuf) is not accepted here; {instead}"),
        )
    }

    /// 415 for a request with more than one `Content-Type` line (a singleton field, RFC 9110 §5.3, §8.3).
    pub fn repeated_media_type() -> ApiError {
        ApiError::new(
            ErrorCode::UnsupportedMediaType,
            "two Content-Type header lines were sent; send one (Content-Type is a singleton field, RFC 9110 \
             §5.3)",
        )
    }

    /// 415 for a `charset` other than UTF-8 (RFC 8259 §8.1).
    pub fn charset(found: &str) -> ApiError {
        ApiError::new(
            ErrorCode::UnsupportedMediaType,
            format!("charset {found:?} is not accepted; JSON is read as UTF-8 (RFC 8259 §8.1)"),
        )
    }

    /// 503 with `Retry-After`.
    pub fn overloaded(retry_after: u64) -> ApiError {
        ApiError {
            retry_after: Some(retry_after),
            ..ApiError::of(ErrorCode::Overloaded)
        }
    }

    /// 503 `overloaded` with `Retry-After`, for a request whose bytes do not fit `server.max_inflight_bytes`.
    pub fn memory(retry_after: u64) -> ApiError {
        ApiError {
            retry_after: Some(retry_after),
            ..ApiError::new(
                ErrorCode::Overloaded,
                "the memory for requests in flight (server.max_inflight_bytes) is taken; retry later",
            )
        }
    }

    /// The JSON text of `{"error": ...}` (one line), as written in HTTP bodies and NDJSON lines.
    pub fn to_json(&self) -> Vec<u8> {
        // A struct of strings and integers always serializes.
        serde_json::to_vec(&self.body()).unwrap_or_default()
    }

    /// The decode outcome label this error counts as (`bidscan_decode_outcomes_total`), if it is one.
    pub fn outcome(&self) -> Option<&'static str> {
        self.code.outcome()
    }

    /// An error of `code` with the catalogue's message.
    pub fn of(code: ErrorCode) -> ApiError {
        ApiError::new(code, code.message())
    }
}

impl From<DecodeError> for ApiError {
    /// 400 for malformed JSON and a strict-mode byte order mark (with byte, line, column, path), 422 for the
    /// rest (with path).
    fn from(e: DecodeError) -> ApiError {
        match &e {
            DecodeError::Malformed(json) => ApiError {
                position: Some(Box::new(Position {
                    byte: Some(json.byte()),
                    line: Some(json.line()),
                    column: Some(json.column()),
                    path: json.path().map(str::to_owned),
                })),
                ..ApiError::new(ErrorCode::of_decode(&e), e.to_string())
            },
            DecodeError::ByteOrderMark => ApiError {
                position: Some(Box::new(Position {
                    byte: Some(0),
                    line: Some(1),
                    column: Some(1),
                    path: Some(String::new()),
                })),
                ..ApiError::new(ErrorCode::of_decode(&e), e.to_string())
            },
            DecodeError::NotABidResponse { .. }
            | DecodeError::Openrtb3NotSupported { .. }
            | DecodeError::Strict { .. }
            | DecodeError::InvalidEnvelope { .. } => ApiError {
                position: Some(Box::new(Position {
                    path: e.path().map(str::to_owned),
                    ..Position::default()
                })),
                ..ApiError::new(ErrorCode::of_decode(&e), e.to_string())
            },
        }
    }
}

impl From<ProtobufError> for ApiError {
    /// 400 `malformed_protobuf` for a wire error (with its byte offset and field path, no line or column), else
    /// as the [`DecodeError`] inside.
    fn from(e: ProtobufError) -> ApiError {
        match e {
            ProtobufError::Malformed(wire) => ApiError {
                position: Some(Box::new(Position {
                    byte: Some(wire.offset()),
                    path: Some(wire.path().to_owned()),
                    ..Position::default()
                })),
                ..ApiError::new(
                    ErrorCode::MalformedProtobuf,
                    format!("malformed protobuf: {wire}"),
                )
            },
            ProtobufError::Decode(e) => ApiError::from(e),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> axum::response::Response {
        let mut res = (self.status, Json(self.body())).into_response();
        if let Some(secs) = self.retry_after {
            res.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        res
    }
}

/// Rewrites a 4xx/5xx response that is not JSON (made by a tower layer or the router) into the error shape,
/// keeping its status and headers (e.g. `Accept-Encoding` on 415). Used with `tower::util::MapResponseLayer`.
pub fn json_errors(res: Response<Body>) -> Response<Body> {
    let status = res.status();
    if !(status.is_client_error() || status.is_server_error()) || is_json(&res) {
        return res;
    }
    // The layer's own status is kept (a 4xx without a code of its own is `bad_request` with that status).
    let code = ErrorCode::of_layer_status(status);
    let error = ApiError {
        status,
        ..ApiError::of(code)
    };
    let (mut parts, _) = res.into_parts();
    let body = error.to_json();
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    Response::from_parts(parts, Body::from(body))
}

fn is_json(res: &Response<Body>) -> bool {
    res.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"))
}

/// The 500 answer for a panic caught by `CatchPanicLayer` (the panic message is logged, not sent).
pub fn panic_response(err: Box<dyn Any + Send + 'static>) -> Response<String> {
    let detail = err
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| err.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    crate::routes::layers::request::in_span(
        || tracing::error!(target: LOG_TARGET, panic = %detail, "handler panicked"),
    );
    let body = ApiError::of(ErrorCode::Internal).to_json();
    let mut res = Response::new(String::from_utf8(body).unwrap_or_default());
    *res.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
    res.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_has_every_key() {
        let e = ApiError::too_large(10, "the body");
        let v: serde_json::Value = serde_json::from_slice(&e.to_json()).unwrap();
        let obj = v["error"].as_object().unwrap();
        let keys: Vec<&str> = obj.keys().map(String::as_str).collect();
        assert_eq!(keys.len(), 6, "{keys:?}");
        for k in ["code", "message", "byte", "line", "column", "path"] {
            assert!(obj.contains_key(k), "{k}");
        }
        assert_eq!(obj["code"], "payload_too_large");
        assert!(obj["byte"].is_null());
    }

    #[test]
    fn malformed_json_carries_its_position() {
        let mut body = b"{\"id\": \"1\",\n  \"seatbid\": [}".to_vec();
        let err = bidscan_openrtb::decode(
            &mut bidscan_json::Reader::default(),
            &mut body,
            bidscan_openrtb::Mode::Lenient,
        )
        .unwrap_err();
        let e = ApiError::from(err);
        assert_eq!(e.status, StatusCode::BAD_REQUEST);
        assert_eq!(e.code.as_str(), "malformed_json");
        let p = e.position.as_deref().unwrap();
        assert_eq!(p.line, Some(2));
        assert!(p.byte.is_some() && p.column.is_some());
        assert_eq!(e.outcome(), Some("malformed"));
    }

    #[tokio::test]
    async fn a_panic_is_a_500_json_error() {
        use tower::ServiceExt;
        async fn boom() -> &'static str {
            panic!("boom")
        }
        let app = axum::Router::new()
            .route("/boom", axum::routing::get(boom))
            .layer(tower_http::catch_panic::CatchPanicLayer::custom(
                panic_response,
            ));
        let req = axum::http::Request::get("/boom")
            .body(Body::empty())
            .unwrap();
        let res = app.oneshot(req).await.unwrap();
        assert_eq!(res.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let bytes = axum::body::to_bytes(res.into_body(), 1 << 16)
            .await
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(v["error"]["code"], "internal");
        assert!(
            !v["error"]["message"].as_str().unwrap().contains("boom"),
            "panic text not leaked"
        );
    }
}
