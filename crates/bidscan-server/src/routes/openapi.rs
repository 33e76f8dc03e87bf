//! The OpenAPI document (`GET /openapi.json`): generated from the handlers' `#[utoipa::path]` attributes
//! ([`ApiDoc`]), then completed by [`document`] with what every route shares — the error answers any route can
//! give (405, 431, 500 in the JSON error shape), the `x-request-id` header of every answer, and the decode
//! routes' request bodies (content types, the bid-response schema, examples, an empty body being a no-bid).
//!
//! The bid-response schema describes what the default, lenient mode accepts: a JSON object whose `seatbid`, when
//! present, is an array (or a single object, or `null`). Its members carry their OpenRTB 2.6 types in the
//! schema's descriptions, not as constraints, because lenient mode answers a wrongly typed member with a 200 and
//! an issue, not an error; `mode=strict` answers such a body 422.

use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue};
use axum::response::Response;
use bytes::Bytes;
use serde_json::{Value, json};
use utoipa::OpenApi;

use crate::config::ModeName;
use crate::engine::{Inspect, View};
use crate::error::{ErrorBody, ErrorFields};
use crate::routes::layers::compress::{Coding, Effort};
use crate::routes::ops::{self, StatusBody};
use crate::routes::state::AppState;
use crate::routes::validate::{AuctionAnswerDoc, ValidateAnswerDoc, ValidateEnvelopeDoc};

/// The API description.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "bidscan",
        description = "Decodes OpenRTB bid responses and reports what is in them; validates them against their bid requests."
    ),
    paths(
        crate::routes::decode::decode,
        crate::routes::batch::batch,
        crate::routes::validate::validate,
        crate::routes::validate::validate_batch,
        crate::routes::validate::validate_auction,
        crate::routes::ops::index,
        crate::routes::ops::healthz,
        crate::routes::ops::readyz,
        crate::routes::ops::metrics,
        openapi,
    ),
    components(schemas(
        crate::routes::decode::DecodeAnswerDoc,
        ValidateAnswerDoc,
        ValidateEnvelopeDoc,
        AuctionAnswerDoc,
        ErrorBody,
        ErrorFields,
        StatusBody,
        ModeName,
        View,
        Inspect
    ))
)]
pub struct ApiDoc;

#[cfg(test)]
/// The OpenAPI document of a server without policy profiles: [`ApiDoc`] completed (see the module docs).
pub fn document() -> Value {
    document_with(&[])
}

/// The OpenAPI document as served by a server whose `[validate.profiles]` are `profiles`: the `/validate`
/// routes take `?profile=` with one of those names (an `enum`, so that a generated request names a
/// configured one); without profiles the parameter is not offered.
pub fn document_with(profiles: &[&str]) -> Value {
    let mut doc = serde_json::to_value(ApiDoc::openapi()).unwrap_or_else(|_| json!({}));
    complete(&mut doc);
    if !profiles.is_empty() {
        let param = json!({
            "name": "profile", "in": "query", "required": false,
            "description": "The policy profile ([validate.profiles.NAME]) to judge under; default the base \
                [validate] policy. A name that is not configured is 400 unknown_profile.",
            "schema": {"type": "string", "enum": profiles}
        });
        for path in ["/validate", "/validate/batch", "/validate/auction"] {
            if let Some(params) = doc
                .pointer_mut(&format!(
                    "/paths/{}/post/parameters",
                    path.replace('/', "~1")
                ))
                .and_then(Value::as_array_mut)
            {
                params.push(param.clone());
            }
        }
    }
    doc
}

/// `/validate`'s `seatnonbid`, made from the rule registry (`bidscan_openrtb::rules::Rule::ALL`): the status codes a
/// rejection can carry, and which rules give each (docs/validation-rules.md).
fn seatnonbid_schema() -> Value {
    use bidscan_openrtb::rules::Rule;
    let mut codes: Vec<u16> = Rule::ALL.iter().map(|r| r.statuscode()).collect();
    codes.sort_unstable();
    codes.dedup();
    let by_code: Vec<String> = codes
        .iter()
        .map(|code| {
            let rules: Vec<&str> = Rule::ALL
                .iter()
                .filter(|r| r.statuscode() == *code)
                .map(|r| r.name())
                .collect();
            format!("{code} ({})", rules.join(", "))
        })
        .collect();
    json!({
        "type": "array",
        "description": format!(
            "The rejected bids by seat, in the IAB seat-non-bid extension's shape; each bid at \
             `nonbid[].ext.prebid.bid`, as Prebid Server places it, without `adm` unless \
             `validate.nonbid_markup`. Status codes by rule: {}.",
            by_code.join("; ")
        ),
        "items": {
            "type": "object",
            "required": ["seat", "nonbid"],
            "properties": {
                "seat": {"type": "string", "description": "`SeatBid.seat`; empty when the bidder sent none"},
                "nonbid": {"type": "array", "items": {
                    "type": "object",
                    "required": ["statuscode", "ext"],
                    "properties": {
                        "impid": {"type": ["string", "null"]},
                        "statuscode": {"type": "integer", "enum": codes},
                        "ext": {"type": "object", "required": ["prebid"], "properties": {
                            "prebid": {"type": "object", "required": ["bid"], "properties": {
                                "bid": {"type": "object", "description": "The rejected bid, canonical"}
                            }}
                        }}
                    }
                }}
            }
        }
    })
}

/// A small bid response, the request example of the decode routes.
pub fn example_request() -> Value {
    json!({
        "id": "1e8633df",
        "seatbid": [{
            "seat": "dsp-a",
            "bid": [{
                "id": "a2d2", "impid": "1", "price": 1.25, "crid": "cr-1", "mtype": 1, "w": 300, "h": 250,
                "adm": "<a href=\"https://example.com\"><img src=\"https://example.com/ad.png\"></a>",
                "adomain": ["example-brand.com"]
            }]
        }],
        "cur": "USD"
    })
}

/// The error answers any route can give, beyond the ones each declares.
const COMMON_ERRORS: [(&str, &str, &str); 6] = [
    (
        "400",
        "bad_host",
        "A request breaking the Host rule (RFC 9112 §3.2: HTTP/1.1 without one Host, two Host lines, a Host \
         value that is not host[:port])",
    ),
    (
        "413",
        "payload_too_large",
        "A Content-Length of 2^64 - 2 or more (refused before the route is known)",
    ),
    (
        "405",
        "method_not_allowed",
        "Method not allowed on this path",
    ),
    ("414", "uri_too_long", "Request line longer than 64 KiB"),
    (
        "431",
        "header_fields_too_large",
        "Request head larger than 64 KiB or with more than 100 header fields",
    ),
    (
        "500",
        "internal",
        "Internal error (a bug; panics are caught and logged)",
    ),
];

fn error_content(code: &str, message: &str) -> Value {
    json!({"application/json": {
        "schema": {"$ref": "#/components/schemas/ErrorBody"},
        "example": {"error": {"code": code, "message": message, "byte": null, "line": null, "column": null,
                              "path": null}}
    }})
}

fn complete(doc: &mut Value) {
    let request_id = json!({
        "description": "The request's `x-request-id` echoed, or a UUID made for it; also in the server's logs.",
        "schema": {"type": "string"}
    });
    let request_id_param = json!({
        "name": "x-request-id", "in": "header", "required": false,
        "description": "Kept and echoed in the answer (a UUID is made when absent).",
        "schema": {"type": "string"}
    });
    if let Some(components) = doc
        .pointer_mut("/components")
        .and_then(Value::as_object_mut)
    {
        if let Some(schemas) = components.get_mut("schemas").and_then(Value::as_object_mut) {
            schemas.insert("BidResponse".into(), bid_response_schema());
            schemas.insert("ValidateEnvelopeDoc".into(), envelope_schema());
            if let Some(props) = schemas
                .get_mut("ValidateAnswerDoc")
                .and_then(|d| d.get_mut("properties"))
                .and_then(Value::as_object_mut)
            {
                props.insert("seatnonbid".into(), seatnonbid_schema());
            }
        }
        let not_found = "No such path (any path not listed here)";
        components.insert(
            "responses".into(),
            json!({"NotFound": {"description": not_found, "content": error_content("not_found", not_found),
                                "headers": {"x-request-id": request_id.clone()}}}),
        );
    }
    if let Some(info) = doc.pointer_mut("/info").and_then(Value::as_object_mut) {
        info.insert(
            "description".into(),
            "Decodes OpenRTB bid responses and reports what is in them. Every error answer has the shape \
             `{\"error\": {code, message, byte, line, column, path}}`; a path not listed here answers 404 \
             `not_found`. Served over HTTP/1.1 and HTTP/2 with prior knowledge (h2c)."
                .into(),
        );
    }
    let Some(paths) = doc.pointer_mut("/paths").and_then(Value::as_object_mut) else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for op in item.values_mut() {
            let Some(op) = op.as_object_mut() else {
                continue;
            };
            let params = op.entry("parameters").or_insert_with(|| json!([]));
            if let Some(params) = params.as_array_mut() {
                params.push(request_id_param.clone());
            }
            if path.starts_with("/decode") {
                op.insert("requestBody".into(), request_body(path == "/decode/batch"));
                if path == "/decode" {
                    protobuf_answer(
                        op,
                        "application/x-protobuf",
                        crate::routes::decode::PROTOBUF_ANSWER_DOC,
                        "",
                    );
                }
            } else if path.ends_with("/batch") {
                any_text(op);
            } else if path == "/validate/auction" {
                op.insert("requestBody".into(), auction_body());
                protobuf_answer(
                    op,
                    "multipart/form-data",
                    crate::routes::validate::AUCTION_PROTOBUF_ANSWER_DOC,
                    ", over every bidder",
                );
            } else if path == "/validate"
                && let Some(body) = op.get_mut("requestBody").and_then(Value::as_object_mut)
            {
                body.insert(
                    "description".into(),
                    "{\"request\": <bid request>, \"response\": <bid response>}, either order. Required: an \
                     empty body is 400 malformed. Content-Type application/json (or any label, read as JSON as \
                     /decode's body is). Content-Encoding gzip, deflate, br or zstd accepted."
                        .into(),
                );
            }
            let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) else {
                continue;
            };
            for (status, code, description) in COMMON_ERRORS {
                responses.entry(status).or_insert_with(|| {
                    json!({"description": description, "content": error_content(code, description)})
                });
            }
            for response in responses.values_mut() {
                if let Some(response) = response.as_object_mut() {
                    let headers = response.entry("headers").or_insert_with(|| json!({}));
                    if let Some(headers) = headers.as_object_mut() {
                        headers.insert("x-request-id".into(), request_id.clone());
                    }
                }
            }
        }
    }
}

/// An NDJSON batch route other than `/decode/batch` (`/validate/batch`): any text is a batch, an empty one
/// included (each line is answered, a bad one with an error line), so the body is optional and untyped, and
/// `text/plain` is read as `application/x-ndjson` is.
fn any_text(op: &mut serde_json::Map<String, Value>) {
    let Some(body) = op.get_mut("requestBody").and_then(Value::as_object_mut) else {
        return;
    };
    body.insert("required".into(), Value::Bool(false));
    if let Some(content) = body.get_mut("content").and_then(Value::as_object_mut) {
        let text =
            json!({"schema": {"description": "NDJSON text: each line is answered with one line."}});
        content.insert("application/x-ndjson".into(), text.clone());
        content.insert("text/plain".into(), text);
    }
}

/// The `/validate` envelope as the server checks it before judging: an object with both members (either
/// order, each once: `not_an_envelope`); `request` an object (`not_a_bid_request`) with at least one
/// impression (`request_without_imp`); `response` a bid response or `null`.
fn envelope_schema() -> Value {
    json!({
        "type": "object",
        "required": ["request", "response"],
        "description": "{\"request\": <bid request>, \"response\": <bid response>}, either order, each once \
            (else 422 not_an_envelope). Other members are ignored.",
        "properties": {
            "request": {
                "type": "object",
                "required": ["imp"],
                "description": "The OpenRTB 2.5/2.6 bid request as sent (not an object: 422 not_a_bid_request): \
                    `id`, `imp` (`id`, `bidfloor`, `bidfloorcur`, `secure`, `banner`, `video`, `audio`, \
                    `native`, `pmp`), `cur`, `bcat`, `acat`, `badv`, `bapp`, `cattax`, `wseat`, `bseat`, `tmax`, \
                    `app`, `regs` are read, leniently; everything else is skipped.",
                "properties": {
                    "imp": {
                        "description": "The impressions offered (OpenRTB 2.6 §3.2.1: required, 1+): an array \
                            with at least one object (its other elements are skipped), or one object read as a \
                            one-element array. Anything else, or no `imp`: 422 request_without_imp.",
                        "anyOf": [
                            {"type": "array", "contains": {"type": "object"}},
                            {"type": "object"}
                        ]
                    }
                }
            },
            "response": {
                "description": "The bid response as received (`null`: a no-bid, what an exchange records for an \
                    empty body).",
                "anyOf": [{"$ref": "#/components/schemas/BidResponse"}, {"type": "null"}]
            }
        }
    })
}

/// The request body of `/validate/auction`: a `request` part (a JSON object: the bid request) and one part per
/// bidder, named by the bidder, its content the bidder's answer as received (anything: a bad body makes the bidder
/// `invalid`, not the call).
fn auction_body() -> Value {
    json!({
        "required": true,
        "description": "multipart/form-data (RFC 7578). The part named `request` is the OpenRTB 2.5/2.6 bid \
            request; every other part is one bidder's response exactly as received, the part's name the bidder \
            (1-64 of A-Z a-z 0-9 _ . -, each once). A part may carry Content-Encoding gzip, deflate, br or zstd, \
            and a bidder's part X-Bidder-Status: timeout, unreachable or http-NNN instead of a body. Each part \
            is JSON unless its own Content-Type is application/x-protobuf, application/protobuf or \
            application/vnd.google.protobuf (case and parameters ignored): then it is the protobuf encoding \
            of IAB Tech Lab's OpenRTB 2.6 schema (a BidResponse, for the request part a BidRequest), judged as \
            the JSON rendered from it; a malformed protobuf body makes its bidder invalid, a malformed protobuf \
            request part is 400 malformed_protobuf. At most server.max_auction_parts parts and \
            server.max_auction_bytes bytes; each part at most server.max_body_bytes (past it the bidder is \
            invalid).",
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["request"],
                    "properties": {
                        "request": {
                            "type": "object",
                            "description": "The bid request, JSON, or protobuf under a protobuf part \
                                Content-Type (at least one imp; one without is 422 request_without_imp)."
                        }
                    },
                    "propertyNames": {"pattern": "^[A-Za-z0-9_.-]{1,64}$"},
                    "maxProperties": 64,
                    // A form value that is an array is sent as one part per element, under one name: two
                    // parts of one name fail the call (`duplicate_bidder`), so a bidder is at most one element.
                    "additionalProperties": {
                        "description": "A bidder's response body as received, any bytes (empty: a no-bid); \
                            protobuf under a protobuf part Content-Type, else JSON.",
                        "anyOf": [{"not": {"type": "array"}}, {"type": "array", "maxItems": 1}]
                    }
                },
                "encoding": {"request": {"contentType": "application/json"}}
            }
        }
    })
}

/// The request body of `/decode` (one document) or `/decode/batch` (NDJSON).
fn request_body(batch: bool) -> Value {
    let encodings = "Content-Encoding gzip, deflate, br or zstd, or a list of them in the order applied \
                     (`identity` entries are ignored).";
    if batch {
        let example = format!("{}\n{{}}\n", example_request());
        let ndjson = "NDJSON text: each line one bid response, answered with one line.";
        return json!({
            "required": false,
            "description": format!("NDJSON: one bid response per line (an empty line, or an empty body, is a \
                no-bid). Content-Type application/x-ndjson (also application/ndjson, application/jsonl, \
                application/jsonlines, text/plain, application/json). {encodings}"),
            // No `type`: any text is a batch (each line is answered, a bad one with an error line), so there is
            // no body a client could send that the route refuses for its shape. The example is text/plain's
            // only: a client without an NDJSON serializer (schemathesis) can still send it.
            "content": {
                "application/x-ndjson": {"schema": {"description": ndjson}},
                "text/plain": {"schema": {"description": ndjson}, "example": example}
            }
        });
    }
    let schema = json!({"$ref": "#/components/schemas/BidResponse"});
    json!({
        "required": false,
        "description": format!("One OpenRTB 2.5/2.6 bid response. An empty body is a no-bid (200, status \
            `nobid`), as `{{}}` is. Content-Type application/json, application/*+json, text/plain, \
            application/octet-stream, application/x-www-form-urlencoded (what curl --data-binary sends) or \
            none: the body is read as JSON whatever the label. Content-Type application/x-protobuf (also \
            application/protobuf, application/vnd.google.protobuf, parameters allowed): a protobuf BidResponse \
            of IAB Tech Lab's OpenRTB 2.6 schema, answered as the JSON rendered from it (400 \
            malformed_protobuf with byte and path for a body that breaks the wire format; docs/api.md, \
            \"Protobuf bodies\"). {encodings}"),
        "content": {
            "application/json": {"schema": schema, "example": example_request()},
            "application/x-protobuf": {"schema": {
                "type": "string",
                "format": "binary",
                "description": "A protobuf BidResponse (OpenRTB 2.6 schema, \
                    crates/bidscan-proto/proto/bidresponse.proto)."
            }}
        }
    })
}

/// The bid response as lenient mode reads it (see the module docs).
fn bid_response_schema() -> Value {
    json!({
        "type": "object",
        "description": "OpenRTB 2.6 §4.2.1 BidResponse. Members, with their spec types: id (string), seatbid \
            (array of SeatBid: bid (array of Bid), seat, group, ext), bidid, cur (ISO-4217), customdata, nbr \
            (integer), ext (object). Bid (§4.2.3): id, impid, price (number), nurl, burl, lurl, adm (string; an \
            object is accepted with a warning), adid, adomain, bundle, iurl, cid, crid, tactic, cattax, cat, \
            attr, apis, api, protocol, qagmediarating, language, langb, dealid, w, h, wratio, hratio, exp, dur, \
            mtype, slotinpod, ext. Unknown members are ignored, except one named as a member in another case or \
            form (`Seatbid`, `seat_bid`, `bids`, `Price`): an error misnamed_member at that member's path. A body \
            with neither seatbid nor nbr and a top-level member not listed here is not a bid response: 422 \
            not_a_bid_response (a bidder's {\"error\": ...}), or openrtb3_not_supported when that member is \
            `openrtb` (an OpenRTB 3.0 document); `{}` and a body of listed members only are no-bids. Lenient mode (default) reports a member of the \
            wrong type as an issue and answers 200; strict mode answers 422.",
        "properties": {
            "seatbid": {
                "type": ["array", "object", "null"],
                "description": "Seat bids; a single object is read as a one-element array (a warning), null or \
                    absent as none. A string, number or boolean here is 422 not_a_bid_response."
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_route_is_documented() {
        let doc = document();
        for path in [
            "/decode",
            "/decode/batch",
            "/validate",
            "/validate/batch",
            "/validate/auction",
            "/",
            "/healthz",
            "/readyz",
            "/metrics",
            "/openapi.json",
        ] {
            assert!(doc["paths"][path].is_object(), "{path} missing");
        }
        for path in ["/decode", "/validate"] {
            let answer = &doc["paths"][path]["post"]["responses"]["422"];
            let text = answer["description"].as_str().unwrap_or_default();
            for code in ["not_a_bid_response", "openrtb3_not_supported"] {
                assert!(
                    text.contains(code),
                    "{path}: 422 does not name {code}: {text}"
                );
            }
        }
        let seatnonbid =
            &doc["components"]["schemas"]["ValidateAnswerDoc"]["properties"]["seatnonbid"];
        let codes: std::collections::BTreeSet<u64> = seatnonbid["items"]["properties"]["nonbid"]["items"]
            ["properties"]["statuscode"]["enum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap())
            .collect();
        let registry: std::collections::BTreeSet<u64> = bidscan_openrtb::rules::Rule::ALL
            .iter()
            .map(|r| u64::from(r.statuscode()))
            .collect();
        assert_eq!(codes, registry);
        let text = seatnonbid["description"].as_str().unwrap();
        for rule in bidscan_openrtb::rules::Rule::ALL {
            assert!(text.contains(rule.name()), "{text}");
        }
        // The request bodies say what the server enforces: /decode and the batch routes take an empty body,
        // /validate needs an envelope with both members and a request offering an impression.
        let body = |path: &str| &doc["paths"][path]["post"]["requestBody"];
        for path in ["/decode", "/decode/batch", "/validate/batch"] {
            assert_eq!(body(path)["required"], false, "{path}");
        }
        assert_eq!(body("/validate")["required"], true);
        for path in ["/decode/batch", "/validate/batch"] {
            let content = body(path)["content"].as_object().unwrap();
            assert!(
                content.contains_key("application/x-ndjson") && content.contains_key("text/plain"),
                "{path}"
            );
        }
        let envelope = &doc["components"]["schemas"]["ValidateEnvelopeDoc"];
        assert_eq!(envelope["required"], json!(["request", "response"]));
        assert_eq!(
            envelope["properties"]["request"]["required"],
            json!(["imp"])
        );
        let named = |doc: &Value, path: &str| {
            doc["paths"][path]["post"]["parameters"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p["name"] == "profile")
        };
        assert!(!named(&doc, "/validate") && !named(&doc, "/decode"));
        let doc = document_with(&["acme"]);
        assert!(
            named(&doc, "/validate")
                && named(&doc, "/validate/batch")
                && named(&doc, "/validate/auction")
                && !named(&doc, "/decode")
        );
        let auction = &doc["paths"]["/validate/auction"]["post"]["requestBody"]["content"];
        assert_eq!(
            auction["multipart/form-data"]["schema"]["required"],
            json!(["request"])
        );
    }
}

/// This API as an OpenAPI 3.1 document (the `/validate` routes' `profile` names those configured now).
//
// The same `Bytes` for every request while the profile names stay the same (`Served`).
#[utoipa::path(get, path = "/openapi.json", tag = "ops", responses((status = 200, description = "OpenAPI document", body = Object)))]
pub async fn openapi(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let served = {
        let gate = state.engine.gate().load();
        Served::of(&gate.profile_names())
    };
    ops::answer(
        HeaderValue::from_static("application/json"),
        served.plain.clone(),
        ops::accepted(&headers),
        |_, coding| served.coded(coding),
        None,
    )
}

/// The document served for one set of profile names: its JSON once, and each coding's compression once, when
/// first asked for. Shared by every request (an `Arc`, and `Bytes` that count references).
struct Served {
    /// The profile names it was built for, sorted.
    profiles: Vec<String>,
    /// The JSON document.
    plain: Bytes,
    /// `plain` compressed, by [`Coding::index`].
    coded: [OnceLock<Bytes>; 4],
}

/// The last document built: rebuilt only when the profile names change (a reload).
static SERVED: Mutex<Option<Arc<Served>>> = Mutex::new(None);

impl Served {
    /// The document for `profiles` (sorted), built if the last one was for other names.
    fn of(profiles: &[&str]) -> Arc<Served> {
        let mut last = SERVED.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(served) = last.as_ref().filter(|s| s.profiles.iter().eq(profiles)) {
            return served.clone();
        }
        let plain = serde_json::to_vec(&document_with(profiles)).unwrap_or_default();
        let served = Arc::new(Served {
            profiles: profiles.iter().map(|&p| p.to_owned()).collect(),
            plain: Bytes::from(plain),
            coded: Default::default(),
        });
        *last = Some(served.clone());
        served
    }

    /// The document compressed with `coding` (at [`Effort::Once`]: it is compressed once and served many times).
    fn coded(&self, coding: Coding) -> Bytes {
        self.coded[coding.index()]
            .get_or_init(|| Bytes::from(coding.encode(&self.plain, Effort::Once)))
            .clone()
    }
}

/// Completes an operation's 200 with its protobuf answer (`Accept` preferring protobuf): `media_type`'s content
/// described by `description`, and the `X-Bidscan-Issues`/`X-Bidscan-Errors` count headers (`over` qualifies
/// what they count, e.g. ", over every bidder").
fn protobuf_answer(
    op: &mut serde_json::Map<String, Value>,
    media_type: &str,
    description: &str,
    over: &str,
) {
    let Some(ok) = op
        .get_mut("responses")
        .and_then(|r| r.get_mut("200"))
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    if let Some(content) = ok.get_mut("content").and_then(Value::as_object_mut) {
        content.insert(
            media_type.into(),
            json!({"schema": {"type": "string", "format": "binary", "description": description}}),
        );
    }
    let count = |what: &str| {
        json!({"description": format!("Protobuf answer only: the number of {what}{over}."),
            "schema": {"type": "integer", "minimum": 0}})
    };
    let headers = ok.entry("headers").or_insert_with(|| json!({}));
    if let Some(headers) = headers.as_object_mut() {
        headers.insert(
            "X-Bidscan-Issues".into(),
            count("issues (errors and warnings)"),
        );
        headers.insert("X-Bidscan-Errors".into(), count("issues that are errors"));
    }
}
