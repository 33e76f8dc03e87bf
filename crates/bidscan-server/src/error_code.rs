//! [`ErrorCode`]: the catalogue of every error the service answers — its HTTP status, its stable snake_case code,
//! the decode outcome it counts as (`bidscan_decode_outcomes_total{outcome}`) and its usual message — in one
//! table, as serde_json's `ErrorCode` is. A leaf: [`crate::error::ApiError`] carries one, and every route, layer
//! and the metrics read status, code and outcome from here rather than from string literals at the call sites.

use axum::http::StatusCode;
use bidscan_openrtb::DecodeError;

/// Every error code the service answers with (`docs/api.md`, "Errors", lists them; a test holds it to [`ErrorCode::ALL`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorCode {
    /// 400: the body is not JSON (RFC 8259), or starts with a byte order mark in strict mode.
    MalformedJson,
    /// 400: a protobuf body (`Content-Type: application/x-protobuf`) that breaks the wire format or the
    /// `BidResponse` schema's wire types (`bidscan_openrtb::ProtobufError::Malformed`), with its byte offset and path.
    MalformedProtobuf,
    /// 400: a compressed body that does not inflate, or has bytes after its end.
    BadEncoding,
    /// 400: the body could not be read.
    BadBody,
    /// 400: an HTTP/1.1 request without exactly one `Host` (RFC 9112 §3.2).
    BadHost,
    /// 400: a request head hyper could not parse, or a 4xx a layer made without a body of its own.
    BadRequest,
    /// 400: a query string that does not parse (e.g. `mode=fast`).
    InvalidQuery,
    /// 400: `?profile=` names no profile of `[validate.profiles]`.
    UnknownProfile,
    /// 400: `/validate/auction`: the `Content-Type` is not `multipart/form-data` with a usable `boundary`.
    NotMultipart,
    /// 400: `/validate/auction`: the body does not follow the multipart grammar (RFC 7578, RFC 2046 §5.1).
    MalformedMultipart,
    /// 400: `/validate/auction`: more parts than `server.max_auction_parts`, the request's included.
    TooManyParts,
    /// 400: `/validate/auction`: a part's name is not 1–64 characters of `A-Z a-z 0-9 _ . -`.
    BadBidderName,
    /// 400: `/validate/auction`: two parts with the same name.
    DuplicateBidder,
    /// 400: `/validate/auction`: no part named `request`.
    MissingRequest,
    /// 400: `/validate/auction`: an `X-Bidder-Status` other than `timeout`, `unreachable` or `http-NNN`, or one on the request part.
    BadBidderStatus,
    /// 404: no such route.
    NotFound,
    /// 405: the route exists, the method does not.
    MethodNotAllowed,
    /// 406: `/decode`: the `Accept` takes neither JSON nor protobuf (RFC 9110 §15.5.7); the message lists what
    /// the route answers in.
    NotAcceptable,
    /// 408: the request was not received and answered in `server.request_timeout_secs`.
    Timeout,
    /// 413: a body, a line, a batch or a batch's answer past its limit.
    PayloadTooLarge,
    /// 414: a request line longer than the read buffer.
    UriTooLong,
    /// 415: a `Content-Type` or `charset` the route does not take.
    UnsupportedMediaType,
    /// 415: a `Content-Encoding` other than gzip, deflate, br, zstd or identity.
    UnsupportedEncoding,
    /// 422: JSON that is not a bid response (not an object, a wrongly typed `seatbid`, XML, a limit passed, or
    /// an object with neither `seatbid` nor `nbr` and a member that is no bid response's, such as a bidder's
    /// `{"error": …}`).
    NotABidResponse,
    /// 422: an OpenRTB 3.0 document (a top-level `openrtb` member, neither `seatbid` nor `nbr`); bidscan reads
    /// OpenRTB 2.5 and 2.6.
    Openrtb3NotSupported,
    /// 422: `/validate`'s body is not a `{"request", "response"}` envelope.
    NotAnEnvelope,
    /// 422: the envelope's `request` is not a bid request.
    NotABidRequest,
    /// 422: the envelope's request has no impression (OpenRTB 2.6 §3.2.1).
    RequestWithoutImp,
    /// 422: `/decode` asked for a protobuf answer (`Accept`) of a response the wire cannot carry as it is: an
    /// integer outside int32 (`w`, `h`, `dur`, …), with its path. The document decoded: it counts as its decode
    /// outcome, `bid` (`bid: true`) or `nobid`.
    NotEncodable {
        /// Whether the response decoded as a bid.
        bid: bool,
    },
    /// 422: strict mode refused a coercion; the code is the (e.g. `number_as_string`).
    Strict(&'static str),
    /// 431: a request head past the read buffer or the header count.
    HeaderFieldsTooLarge,
    /// 500: an answer that could not be rendered, a caught panic, an unexpected layer error.
    Internal,
    /// 503: more than `server.max_concurrency` decode requests in flight (sent with `Retry-After`).
    Overloaded,
    /// 503: `/readyz` while draining.
    Draining,
}

impl ErrorCode {
    /// Every variant, in declaration order; [`Strict`](Self::Strict) once, with the issue code
    /// `number_as_string` standing for all of them.
    // Read by the tests that hold docs/api.md and the outcomes to this catalogue.
    #[cfg_attr(not(test), allow(dead_code))]
    pub const ALL: &'static [ErrorCode] = {
        use ErrorCode::*;
        &[
            MalformedJson,
            MalformedProtobuf,
            BadEncoding,
            BadBody,
            BadHost,
            BadRequest,
            InvalidQuery,
            UnknownProfile,
            NotMultipart,
            MalformedMultipart,
            TooManyParts,
            BadBidderName,
            DuplicateBidder,
            MissingRequest,
            BadBidderStatus,
            NotFound,
            MethodNotAllowed,
            NotAcceptable,
            Timeout,
            PayloadTooLarge,
            UriTooLong,
            UnsupportedMediaType,
            UnsupportedEncoding,
            NotABidResponse,
            Openrtb3NotSupported,
            NotAnEnvelope,
            NotABidRequest,
            RequestWithoutImp,
            NotEncodable { bid: true },
            Strict("number_as_string"),
            HeaderFieldsTooLarge,
            Internal,
            Overloaded,
            Draining,
        ]
    };

    /// The HTTP status answered with this code.
    pub const fn status(self) -> StatusCode {
        use ErrorCode::*;
        match self {
            MalformedJson | MalformedProtobuf | BadEncoding | BadBody | BadHost | BadRequest
            | InvalidQuery | UnknownProfile | NotMultipart | MalformedMultipart | TooManyParts
            | BadBidderName | DuplicateBidder | MissingRequest | BadBidderStatus => {
                StatusCode::BAD_REQUEST
            }
            NotFound => StatusCode::NOT_FOUND,
            MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            NotAcceptable => StatusCode::NOT_ACCEPTABLE,
            Timeout => StatusCode::REQUEST_TIMEOUT,
            PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            UriTooLong => StatusCode::URI_TOO_LONG,
            UnsupportedMediaType | UnsupportedEncoding => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            NotABidResponse
            | Openrtb3NotSupported
            | NotAnEnvelope
            | NotABidRequest
            | RequestWithoutImp
            | NotEncodable { .. }
            | Strict(_) => StatusCode::UNPROCESSABLE_ENTITY,
            HeaderFieldsTooLarge => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            Internal => StatusCode::INTERNAL_SERVER_ERROR,
            Overloaded | Draining => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    /// The stable snake_case code of the error body (`{"error": {"code": …}}`).
    pub const fn as_str(self) -> &'static str {
        use ErrorCode::*;
        match self {
            MalformedJson => "malformed_json",
            MalformedProtobuf => "malformed_protobuf",
            BadEncoding => "bad_encoding",
            BadBody => "bad_body",
            BadHost => "bad_host",
            BadRequest => "bad_request",
            InvalidQuery => "invalid_query",
            UnknownProfile => "unknown_profile",
            NotMultipart => "not_multipart",
            MalformedMultipart => "malformed_multipart",
            TooManyParts => "too_many_parts",
            BadBidderName => "bad_bidder_name",
            DuplicateBidder => "duplicate_bidder",
            MissingRequest => "missing_request",
            BadBidderStatus => "bad_bidder_status",
            NotFound => "not_found",
            MethodNotAllowed => "method_not_allowed",
            NotAcceptable => "not_acceptable",
            Timeout => "timeout",
            PayloadTooLarge => "payload_too_large",
            UriTooLong => "uri_too_long",
            UnsupportedMediaType => "unsupported_media_type",
            UnsupportedEncoding => "unsupported_encoding",
            NotABidResponse => "not_a_bid_response",
            Openrtb3NotSupported => "openrtb3_not_supported",
            NotAnEnvelope => "not_an_envelope",
            NotABidRequest => "not_a_bid_request",
            RequestWithoutImp => "request_without_imp",
            NotEncodable { .. } => "not_encodable",
            Strict(code) => code,
            HeaderFieldsTooLarge => "header_fields_too_large",
            Internal => "internal",
            Overloaded => "overloaded",
            Draining => "draining",
        }
    }

    /// The decode outcome this error counts as in `bidscan_decode_outcomes_total{outcome}` (one of
    /// [`crate::metrics::registry::OUTCOMES`]), or `None` for errors that are not a decode's result (bad query, 415, 503…).
    pub const fn outcome(self) -> Option<&'static str> {
        use ErrorCode::*;
        match self {
            MalformedJson | MalformedProtobuf => Some("malformed"),
            NotABidResponse => Some("not_a_bid_response"),
            Openrtb3NotSupported => Some("openrtb3_not_supported"),
            NotAnEnvelope | NotABidRequest | RequestWithoutImp => Some("invalid_envelope"),
            Strict(_) => Some("strict"),
            NotEncodable { bid: true } => Some("bid"),
            NotEncodable { bid: false } => Some("nobid"),
            PayloadTooLarge => Some("too_large"),
            _ => None,
        }
    }

    /// The message sent when the call site has nothing more precise to say.
    pub const fn message(self) -> &'static str {
        use ErrorCode::*;
        match self {
            MalformedJson => "the body is not JSON",
            MalformedProtobuf => "the body is not a well-formed protobuf BidResponse",
            BadEncoding => "the body could not be decompressed",
            BadBody => "the body could not be read",
            BadHost => {
                "the request breaks the Host rule of RFC 9112 §3.2 (HTTP/1.1: exactly one valid Host)"
            }
            BadRequest => "bad request",
            InvalidQuery => "the query string does not parse",
            UnknownProfile => "no such profile in validate.profiles",
            NotMultipart => "the Content-Type is not multipart/form-data with a boundary",
            MalformedMultipart => "the body is not a well-formed multipart/form-data body",
            TooManyParts => "more parts than server.max_auction_parts",
            BadBidderName => "a part's name is not a bidder name",
            DuplicateBidder => "two parts with the same name",
            MissingRequest => "no part named request",
            BadBidderStatus => "an X-Bidder-Status other than timeout, unreachable or http-NNN",
            NotFound => "no such route",
            MethodNotAllowed => "method not allowed on this route",
            NotAcceptable => "no media type the route answers in is acceptable",
            Timeout => "the request was not received and answered within the request timeout",
            PayloadTooLarge => "the request body is larger than the limit",
            UriTooLong => "the request line is too long",
            UnsupportedMediaType => "Content-Type not accepted; send application/json",
            UnsupportedEncoding => {
                "Content-Encoding not supported; send gzip, deflate, br, zstd or identity"
            }
            NotABidResponse => "not a bid response",
            Openrtb3NotSupported => "an OpenRTB 3.0 document; bidscan reads OpenRTB 2.5 and 2.6",
            NotAnEnvelope => "not a validation envelope",
            NotABidRequest => "not a bid request",
            RequestWithoutImp => "the bid request offers no impression",
            NotEncodable { .. } => "the response cannot be answered as protobuf",
            Strict(_) => "strict mode refused a coercion",
            HeaderFieldsTooLarge => "the request head is too large",
            Internal => "internal error",
            Overloaded => "too many requests in flight; retry later",
            Draining => "shutting down; in-flight requests are finishing",
        }
    }

    /// The code of a failed decode (`bidscan_openrtb::DecodeError`).
    pub fn of_decode(e: &DecodeError) -> ErrorCode {
        match e {
            DecodeError::Malformed(_) | DecodeError::ByteOrderMark => ErrorCode::MalformedJson,
            DecodeError::NotABidResponse { .. } => ErrorCode::NotABidResponse,
            DecodeError::Openrtb3NotSupported { .. } => ErrorCode::Openrtb3NotSupported,
            DecodeError::Strict { code, .. } => ErrorCode::Strict(code),
            DecodeError::InvalidEnvelope { code, .. } => match *code {
                "not_a_bid_request" => ErrorCode::NotABidRequest,
                "request_without_imp" => ErrorCode::RequestWithoutImp,
                _ => ErrorCode::NotAnEnvelope,
            },
        }
    }

    /// The code of a 4xx/5xx a tower layer or the router made without a body (see `error::json_errors`).
    pub fn of_layer_status(status: StatusCode) -> ErrorCode {
        match status {
            StatusCode::PAYLOAD_TOO_LARGE => ErrorCode::PayloadTooLarge,
            StatusCode::UNSUPPORTED_MEDIA_TYPE => ErrorCode::UnsupportedEncoding,
            StatusCode::NOT_FOUND => ErrorCode::NotFound,
            StatusCode::METHOD_NOT_ALLOWED => ErrorCode::MethodNotAllowed,
            StatusCode::REQUEST_TIMEOUT => ErrorCode::Timeout,
            s if s.is_server_error() => ErrorCode::Internal,
            _ => ErrorCode::BadRequest,
        }
    }
}

impl std::fmt::Display for ErrorCode {
    /// The snake_case code, as in the error body.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The place of `code` in [`ErrorCode::ALL`], by an exhaustive match: a new variant does not compile until it
    /// has a place here, and the test below fails until `ALL` lists it there.
    fn place(code: ErrorCode) -> usize {
        use ErrorCode::*;
        match code {
            MalformedJson => 0,
            MalformedProtobuf => 1,
            BadEncoding => 2,
            BadBody => 3,
            BadHost => 4,
            BadRequest => 5,
            InvalidQuery => 6,
            UnknownProfile => 7,
            NotMultipart => 8,
            MalformedMultipart => 9,
            TooManyParts => 10,
            BadBidderName => 11,
            DuplicateBidder => 12,
            MissingRequest => 13,
            BadBidderStatus => 14,
            NotFound => 15,
            MethodNotAllowed => 16,
            NotAcceptable => 17,
            Timeout => 18,
            PayloadTooLarge => 19,
            UriTooLong => 20,
            UnsupportedMediaType => 21,
            UnsupportedEncoding => 22,
            NotABidResponse => 23,
            Openrtb3NotSupported => 24,
            NotAnEnvelope => 25,
            NotABidRequest => 26,
            RequestWithoutImp => 27,
            NotEncodable { .. } => 28,
            Strict(_) => 29,
            HeaderFieldsTooLarge => 30,
            Internal => 31,
            Overloaded => 32,
            Draining => 33,
        }
    }

    #[test]
    fn all_lists_every_variant_once_in_declaration_order() {
        for (i, &code) in ErrorCode::ALL.iter().enumerate() {
            assert_eq!(place(code), i, "{code:?}");
        }
        assert_eq!(ErrorCode::ALL.len(), place(ErrorCode::Draining) + 1);
    }

    /// Every code's outcome is one the metrics pre-register, and the decode codes map to their openrtb strings.
    #[test]
    fn outcomes_are_registered_and_decode_codes_agree_with_openrtb() {
        for &code in ErrorCode::ALL {
            if let Some(outcome) = code.outcome() {
                assert!(
                    crate::metrics::registry::OUTCOMES.contains(&outcome),
                    "{code:?}"
                );
            }
            assert!(
                code.status().is_client_error() || code.status().is_server_error(),
                "{code:?}"
            );
        }
        for envelope in [
            "not_an_envelope",
            "not_a_bid_request",
            "request_without_imp",
        ] {
            let e = DecodeError::InvalidEnvelope {
                code: envelope,
                message: String::new(),
                path: String::new(),
            };
            assert_eq!(ErrorCode::of_decode(&e).as_str(), envelope);
            assert_eq!(ErrorCode::of_decode(&e).as_str(), e.code());
        }
        for (e, outcome) in [
            (
                DecodeError::NotABidResponse {
                    message: String::new(),
                    path: String::new(),
                },
                "not_a_bid_response",
            ),
            (
                DecodeError::Openrtb3NotSupported {
                    message: String::new(),
                    path: String::new(),
                },
                "openrtb3_not_supported",
            ),
        ] {
            let code = ErrorCode::of_decode(&e);
            assert_eq!(code.as_str(), e.code());
            assert_eq!(code.status(), StatusCode::UNPROCESSABLE_ENTITY);
            assert_eq!(code.outcome(), Some(outcome));
        }
        let strict = DecodeError::Strict {
            code: "number_as_string",
            message: String::new(),
            path: String::new(),
        };
        assert_eq!(ErrorCode::of_decode(&strict).as_str(), "number_as_string");
        assert_eq!(ErrorCode::of_decode(&strict).outcome(), Some("strict"));
    }

    #[test]
    fn the_api_doc_lists_every_error_code() {
        use crate::doc_tests::{first_code, read, table_rows};
        let doc = read("docs/api.md");
        let documented: Vec<(String, u16)> = table_rows(&doc, &["code", "status", "when"])
            .into_iter()
            .map(|row| {
                let status = row[1]
                    .parse()
                    .unwrap_or_else(|_| panic!("status {:?}", row[1]));
                (first_code(&row[0]).to_owned(), status)
            })
            .collect();
        let code: Vec<(String, u16)> = ErrorCode::ALL
            .iter()
            .map(|c| (c.as_str().to_owned(), c.status().as_u16()))
            .collect();
        assert_eq!(
            documented, code,
            "docs/api.md's error table is not ErrorCode::ALL (code, status, in order)"
        );
    }
}
