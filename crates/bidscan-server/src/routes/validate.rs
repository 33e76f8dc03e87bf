//! `POST /validate` and `POST /validate/batch`: a bid response judged against the bid request it answers; the
//! OpenAPI operation of `POST /validate/auction`, every bidder of an auction judged against its request.
//!
//! The body is the envelope `{"request": <BidRequest>, "response": <BidResponse>}` (either member order). The
//! answer is `/decode`'s, with each `summary.bids[i]` marked `status` (`accepted`/`rejected`) and `statuscode`,
//! each issue's `statuscode`, and `seatnonbid` (the rules and codes: `bidscan_openrtb::rules`; their
//! `skip | warn | enforce` under `[validate]` in the configuration, or under `[validate.profiles.NAME]` for
//! `?profile=NAME`). Same encodings, limits and error shapes as `/decode`; the batch route is
//! `/decode/batch`'s with one envelope per line. Any answer other than 200 means the caller must reject every
//! bid of that response.

use axum::body::Body;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue};
use axum::response::Response;

use crate::engine::{Work, render};
use crate::error::{ApiError, ErrorBody};
use crate::routes::batch;
use crate::routes::params::DecodeParams;
use crate::routes::state::AppState;

/// What `/validate`'s 415 to a protobuf `Content-Type` says after naming it: where protobuf is read.
pub(crate) const PROTOBUF_INSTEAD: &str = "/validate reads a JSON envelope; send a protobuf bid response and its \
     bid request to POST /validate/auction, one multipart part each, every part with its own protobuf Content-Type \
     (a protobuf bid response alone is read by /decode)";

/// The `Content-Type` of `/validate/auction`'s protobuf answer: `multipart/form-data` with the boundary the body
/// names on its first line (`engine::render::write_auction_protobuf` wrote it).
pub(crate) fn multipart_type(body: &[u8]) -> HeaderValue {
    render::boundary(body)
        .and_then(|b| HeaderValue::from_str(&format!("multipart/form-data; boundary={b}")).ok())
        .unwrap_or(HeaderValue::from_static("multipart/form-data"))
}

/// What the OpenAPI document says of `/validate/auction`'s protobuf answer (`Accept` preferring protobuf).
pub(crate) const AUCTION_PROTOBUF_ANSWER_DOC: &str = "With Accept preferring protobuf (application/x-protobuf, application/protobuf, \
    application/vnd.google.protobuf; q-values honoured, JSON on ties): one part per bidder, in the \
    order sent, Content-Disposition form-data; name=\"BIDDER\", Content-Type \
    application/x-protobuf: a protobuf BidResponse (OpenRTB 2.6 schema). bid and nobid: the \
    bidder's response without its rejected bids (a seat left empty removed) and with ext.seatnonbid \
    its non-bids ({seat, nonbid: [{impid, statuscode}]}); invalid, timeout, unreachable, error, or a \
    response holding an integer outside int32: {id: the request's id, ext.seatnonbid: the bidder's \
    code (100-103; 102 when not encodable) for every imp}. Part headers: X-Bidscan-Status, \
    X-Bidscan-Issues, X-Bidscan-Errors, X-Bidscan-Accepted, X-Bidscan-Rejected, and for a response \
    not encodable X-Bidscan-Error: not_encodable and X-Bidscan-Error-Path.";

/// Shape of the `/validate` body (for the document only).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct ValidateEnvelopeDoc {
    /// The OpenRTB 2.5/2.6 bid request as sent: `id`, `imp` (1+: `id`, `bidfloor`, `bidfloorcur`, `secure`,
    /// `banner`, `video`, `audio`, `native`, `pmp`), `cur`, `bcat`, `badv`, `bapp`, `cattax`, `tmax` are read;
    /// everything else is skipped.
    #[schema(value_type = Object)]
    request: (),
    /// The bid response as received (`null`: a no-bid).
    #[schema(value_type = Option<Object>)]
    response: Option<()>,
}

/// Shape of the 200 answer of `/validate` (for the document only).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct ValidateAnswerDoc {
    /// `bid` or `nobid` (the response as sent).
    status: String,
    /// The canonical bid response; omitted with `view=summary`.
    #[schema(value_type = Option<Object>)]
    response: Option<()>,
    /// `/decode`'s summary plus `accepted` and `rejected` counts; every `bids[i]` also has `status`
    /// (`accepted` | `rejected`) and `statuscode` (seat-non-bid code of the first enforced rule that rejects
    /// it, `null` when accepted).
    #[schema(value_type = Object)]
    summary: (),
    /// Findings `{path, code, severity, message, statuscode}`; paths relative to the response
    /// (`/seatbid/0/bid/0/price`); `statuscode` is the seat-non-bid code of the rule that found it (the rules:
    /// docs/validation-rules.md), `null` when no rule stands behind it.
    #[schema(value_type = Vec<Object>)]
    issues: (),
    /// The rejected bids, IAB seat-non-bid shape: `[{seat, nonbid: [{impid, statuscode, ext: {prebid: {bid}}}]}]`
    /// (the schema is made from the rule registry).
    #[schema(value_type = Vec<Object>)]
    seatnonbid: (),
    /// Reader counters over the whole envelope.
    #[schema(value_type = Object)]
    stats: (),
}

/// Validates one bid response against its request.
#[utoipa::path(
    post,
    path = "/validate",
    tag = "validate",
    params(DecodeParams),
    request_body(
        content = ValidateEnvelopeDoc,
        content_type = "application/json",
        description = "{\"request\": <bid request>, \"response\": <bid response>}, either order. Content-Encoding gzip, deflate, br or zstd accepted."
    ),
    responses(
        (status = 200, description = "Validated: each bid accepted or rejected", body = ValidateAnswerDoc),
        (status = 400, description = "Malformed JSON (path under /request or /response when the fault is inside one, else the reader's path in the envelope), bad query, unknown_profile (?profile= names no configured profile), bad encoding, or a request breaking the Host rule (RFC 9112 §3.2)", body = ErrorBody),
        (status = 408, description = "Body not received in time", body = ErrorBody),
        (status = 413, description = "Body too large on the wire or after decompression", body = ErrorBody),
        (status = 415, description = "Unsupported Content-Type (a protobuf one included: a protobuf bid response and request are read as parts of /validate/auction, a protobuf bid response alone by /decode) or Content-Encoding", body = ErrorBody),
        (status = 422, description = "not_an_envelope, not_a_bid_request, request_without_imp, not_a_bid_response (the response is not a bid response, e.g. a bidder's {\"error\": ...}), openrtb3_not_supported (the response is an OpenRTB 3.0 document), or a strict-mode failure", body = ErrorBody),
        (status = 503, description = "Overloaded; see Retry-After", body = ErrorBody),
    )
)]
// The OpenAPI operation only: `utoipa::path` describes a function, and the pipeline answers the route.
#[allow(dead_code)]
fn validate() {}

/// Shape of the 200 answer of `/validate/auction` (for the document only).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct AuctionAnswerDoc {
    /// `{id, imps}`: the bid request's `id` and the `id` of each of its imps (`null` where absent).
    #[schema(value_type = Object)]
    request: (),
    /// One entry per bidder part, in the order sent: `{bidder, status, response?, summary, issues,
    /// seatnonbid}`; `status` is `bid`, `nobid`, `invalid` (102 for every imp), `timeout` (101), `unreachable`
    /// (103) or `error` (100); `summary`, `issues` and `seatnonbid` are `/validate`'s for the request and the
    /// bidder's body (a protobuf body's: those of the JSON rendered from it); `response` (the canonical bid
    /// response, JSON whatever the part's encoding) only with `view=full`.
    #[schema(value_type = Vec<Object>)]
    bidders: (),
    /// Every bidder's non-bids, bidder after bidder: `[{seat, nonbid: [{impid, statuscode, ext?}]}]`, the seat
    /// the response's `seatbid.seat`, else the bidder's name.
    #[schema(value_type = Vec<Object>)]
    seatnonbid: (),
}

/// Validates every bidder's answer of one auction against its bid request, in one call.
#[utoipa::path(
    post,
    path = "/validate/auction",
    tag = "validate",
    params(DecodeParams),
    request_body(
        content = String,
        content_type = "multipart/form-data",
        description = "Completed by openapi::complete: the request part and one part per bidder, each JSON or, under a protobuf part Content-Type, protobuf."
    ),
    responses(
        (status = 200, description = "Every bidder judged; a bad bidder is `invalid`, never a failed call. JSON, or with Accept preferring protobuf one multipart part per bidder (completed by openapi::document)", body = AuctionAnswerDoc),
        (status = 400, description = "not_multipart, malformed_multipart, too_many_parts, bad_bidder_name, duplicate_bidder, missing_request, bad_bidder_status; malformed_json (malformed_protobuf for a request part with a protobuf Content-Type, with its byte offset and path) or bad_encoding in the request part; bad query, unknown_profile, or a request breaking the Host rule (RFC 9112 §3.2)", body = ErrorBody),
        (status = 406, description = "not_acceptable: the Accept header takes neither application/json nor protobuf (application/x-protobuf, application/protobuf, application/vnd.google.protobuf); the message lists them", body = ErrorBody),
        (status = 408, description = "Body not received in time", body = ErrorBody),
        (status = 413, description = "Body over server.max_auction_bytes, or the request part over server.max_body_bytes once inflated", body = ErrorBody),
        (status = 415, description = "Two Content-Type lines, an unsupported Content-Encoding of the body or of the request part", body = ErrorBody),
        (status = 422, description = "The request part is not a bid request: not_a_bid_request, request_without_imp", body = ErrorBody),
        (status = 503, description = "Overloaded; see Retry-After", body = ErrorBody),
    )
)]
// The OpenAPI operation only: the pipeline answers the route.
#[allow(dead_code)]
fn validate_auction() {}

/// Validates every line of an NDJSON body (one envelope per line), answering one NDJSON line per input line.
#[utoipa::path(
    post,
    path = "/validate/batch",
    tag = "validate",
    params(DecodeParams),
    request_body(
        content = String,
        content_type = "application/x-ndjson",
        description = "One {\"request\", \"response\"} envelope per line. Content-Encoding gzip, deflate, br or zstd accepted."
    ),
    responses(
        (status = 200, description = "One line per input line: the /validate answer or {\"error\": ...}", content_type = "application/x-ndjson", body = String),
        (status = 400, description = "Bad query, unknown_profile (?profile= names no configured profile), or a request breaking the Host rule (RFC 9112 §3.2)", body = ErrorBody),
        (status = 408, description = "Body not received in time", body = ErrorBody),
        (status = 413, description = "Body too large on the wire (Content-Length)", body = ErrorBody),
        (status = 415, description = "Unsupported Content-Type (a protobuf one included: protobuf is read by /decode) or Content-Encoding", body = ErrorBody),
        (status = 503, description = "Overloaded; see Retry-After", body = ErrorBody),
    )
)]
pub async fn validate_batch(
    State(state): State<AppState>,
    query: Result<Query<DecodeParams>, QueryRejection>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    batch::stream(state, query, headers, body, Work::Validate).await
}
