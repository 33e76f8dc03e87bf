//! `POST /decode`: one bid response in, the answer out. The route is served by its
//! [`Pipeline`](crate::routes::Pipeline) with [`Work::Decode`](crate::engine::Work::Decode); here are what it
//! answers in ([`OFFERS`], negotiated from `Accept`), the headers of its protobuf answer, its OpenAPI operation
//! and its answer's schema.

use axum::http::{HeaderMap, HeaderName, HeaderValue, header};

use crate::error::ErrorBody;
use crate::routes::negotiate;
use crate::routes::params::DecodeParams;

/// What `/decode` answers in, JSON first (it wins ties and stands for a request with no `Accept`).
pub const OFFERS: &[negotiate::Offer] = &[negotiate::JSON, negotiate::PROTOBUF];

/// The headers of `/decode`'s protobuf answer: its `Content-Type`, and the counts the JSON envelope carries in its
/// `issues` (`X-Bidscan-Issues`: errors and warnings; `X-Bidscan-Errors`: errors).
pub fn protobuf_answer(headers: &mut HeaderMap, issues: usize, errors: usize) {
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/x-protobuf"),
    );
    headers.insert(X_BIDSCAN_ISSUES, HeaderValue::from(issues));
    headers.insert(X_BIDSCAN_ERRORS, HeaderValue::from(errors));
}

/// `X-Bidscan-Issues` of `/decode`'s protobuf answer: the number of issues (errors and warnings).
pub const X_BIDSCAN_ISSUES: HeaderName = HeaderName::from_static("x-bidscan-issues");
/// `X-Bidscan-Errors` of `/decode`'s protobuf answer: the number of issues that are errors.
pub const X_BIDSCAN_ERRORS: HeaderName = HeaderName::from_static("x-bidscan-errors");

/// What the OpenAPI document says of `/decode`'s protobuf answer (`Accept: application/x-protobuf`).
pub(crate) const PROTOBUF_ANSWER_DOC: &str = "With Accept preferring protobuf (application/x-protobuf, application/protobuf, \
    application/vnd.google.protobuf; q-values honoured, JSON on ties): the canonical bid response \
    as a protobuf BidResponse (OpenRTB 2.6 schema, crates/bidscan-proto/proto/bidresponse.proto); \
    ext members no field carries are left out. The counts are in X-Bidscan-Issues and \
    X-Bidscan-Errors.";

/// Decodes one bid response: receives the (decompressed) body under `server.max_body_bytes`, then decodes it with
/// pooled state in one synchronous step (see the `engine` module).
#[utoipa::path(
    post,
    path = "/decode",
    tag = "decode",
    params(DecodeParams),
    request_body(
        content = Object,
        content_type = "application/json",
        description = "One OpenRTB 2.5/2.6 bid response (completed in `openapi::document`)."
    ),
    responses(
        (status = 200, description = "Decoded: bid or no-bid", body = DecodeAnswerDoc),
        (status = 400, description = "Malformed JSON (with byte, line, column, path), malformed protobuf (a protobuf Content-Type; with byte and path), bad query, bad encoding, or a request breaking the Host rule (RFC 9112 §3.2: HTTP/1.1 without one Host, two Host lines, a Host value not host[:port])", body = ErrorBody),
        (status = 406, description = "not_acceptable: the Accept header takes neither application/json nor protobuf (application/x-protobuf, application/protobuf, application/vnd.google.protobuf); the message lists them", body = ErrorBody),
        (status = 408, description = "Body not received in time", body = ErrorBody),
        (status = 413, description = "Body too large on the wire or after decompression", body = ErrorBody),
        (status = 415, description = "Unsupported Content-Type (not JSON, text or protobuf) or Content-Encoding", body = ErrorBody),
        (status = 422, description = "not_a_bid_response (JSON that is not a bid response: not an object, a wrongly typed seatbid, XML, or an object with neither seatbid nor nbr and a member that is no bid response's, such as a bidder's {\"error\": ...}), openrtb3_not_supported (an OpenRTB 3.0 document: a top-level openrtb member), a strict-mode failure (the issue's code), or not_encodable (a protobuf answer asked for by Accept of a response holding an integer outside int32, with its path)", body = ErrorBody),
        (status = 503, description = "Overloaded; see Retry-After", body = ErrorBody),
    )
)]
// The OpenAPI operation only: `utoipa::path` describes a function, and the pipeline answers the route.
#[allow(dead_code)]
fn decode() {}

/// Shape of the 200 answer of `/decode` (for the document only; the server renders it from the model's types).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct DecodeAnswerDoc {
    /// `bid` or `nobid`.
    status: String,
    /// The canonical bid response (OpenRTB 2.6 member order, `ext` verbatim); omitted with `view=summary`.
    #[schema(value_type = Option<Object>)]
    response: Option<()>,
    /// Short view: id, currency, seats, bid count, errors, warnings, one entry per bid.
    #[schema(value_type = Object)]
    summary: (),
    /// Findings: `{path, code, severity, message}`: shape deviations (coercions, type errors) in document order,
    /// then validation findings in document order, then markup findings (`…/adm`) in document order.
    #[schema(value_type = Vec<Object>)]
    issues: (),
    /// Reader counters: bytes, strings, escaped_strings, escapes, longest_string, buffer_bytes_needed.
    #[schema(value_type = Object)]
    stats: (),
}
