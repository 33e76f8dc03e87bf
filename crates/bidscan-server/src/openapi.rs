//! The OpenAPI document (`GET /openapi.json`), generated from the handlers' `#[utoipa::path]` attributes.

use utoipa::OpenApi;

use crate::config::ModeName;
use crate::engine::{Inspect, View};
use crate::error::{ErrorBody, ErrorFields};
use crate::routes::ops::StatusBody;
use crate::routes::validate::{ValidateAnswerDoc, ValidateEnvelopeDoc};

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
    /// Findings: `{path, code, severity, message}`, in document order.
    #[schema(value_type = Vec<Object>)]
    issues: (),
    /// Reader counters: bytes, strings, escaped_strings, escapes, longest_string, buffer_bytes_needed.
    #[schema(value_type = Object)]
    stats: (),
}

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
        crate::routes::ops::index,
        crate::routes::ops::healthz,
        crate::routes::ops::readyz,
        crate::routes::ops::metrics,
        crate::routes::ops::openapi,
    ),
    components(schemas(
        DecodeAnswerDoc,
        ValidateAnswerDoc,
        ValidateEnvelopeDoc,
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
mod tests {
    use super::*;

    #[test]
    fn every_route_is_documented() {
        let doc = serde_json::to_value(ApiDoc::openapi()).unwrap();
        for path in [
            "/decode",
            "/decode/batch",
            "/validate",
            "/validate/batch",
            "/",
            "/healthz",
            "/readyz",
            "/metrics",
            "/openapi.json",
        ] {
            assert!(doc["paths"][path].is_object(), "{path} missing");
        }
        assert!(doc["paths"]["/decode"]["post"]["responses"]["422"].is_object());
        assert!(doc["paths"]["/validate"]["post"]["responses"]["422"].is_object());
        assert!(
            doc["components"]["schemas"]["ValidateAnswerDoc"]["properties"]["seatnonbid"]
                .is_object()
        );
    }
}
