//! Helpers for the validation tests: an envelope from request and response values, and what validating it
//! gives (verdicts, findings) as owned values.
#![allow(dead_code)]

use bidscan_json::Reader;
use bidscan_openrtb::rules::{BidStatus, Policy, Validated};
use bidscan_openrtb::{DecodeError, Inspector, Mode, Severity, decode_pair_inspected};
use serde_json::Value;

/// What validating one envelope gave.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// `(status, statuscode)` per bid, in document order.
    pub verdicts: Vec<(BidStatus, Option<u16>)>,
    /// `(path, code, severity, statuscode)` per issue, in order.
    pub findings: Vec<(String, &'static str, Severity, Option<u16>)>,
}

impl Outcome {
    /// The findings that carry a status code (the rules', and decode's that a rule stands behind).
    pub fn coded(&self) -> Vec<(String, &'static str, Severity, Option<u16>)> {
        self.findings
            .iter()
            .filter(|f| f.3.is_some())
            .cloned()
            .collect()
    }
}

/// `{"request":…,"response":…}` as compact text.
pub fn envelope(request: &Value, response: &Value) -> String {
    format!(r#"{{"request":{request},"response":{response}}}"#)
}

/// Validates `text` (an envelope) under `policy` in lenient mode, each bid's markup inspected (as the server
/// does on `/validate`).
pub fn validate_text(text: &str, policy: &Policy) -> Result<Outcome, DecodeError> {
    let mut buf = text.as_bytes().to_vec();
    let mut reader = Reader::default();
    let mut inspector = Inspector::new();
    let pair = decode_pair_inspected(&mut reader, &mut buf, Mode::Lenient, &mut inspector)?;
    let v = Validated::new(pair, policy);
    assert_eq!(v.statuscodes.len(), v.pair.decoded.issues.len());
    assert_eq!(v.verdicts.len(), v.pair.decoded.bid_count());
    for verdict in &v.verdicts {
        assert_eq!(
            verdict.status == BidStatus::Rejected,
            verdict.rule.is_some()
        );
    }
    let rejected: usize = v.seatnonbid().iter().map(|s| s.nonbid.len()).sum();
    assert_eq!(
        rejected,
        v.rejected(),
        "seatnonbid lists every rejected bid"
    );
    Ok(Outcome {
        verdicts: v
            .verdicts
            .iter()
            .map(|x| (x.status, x.statuscode()))
            .collect(),
        findings: v
            .pair
            .decoded
            .issues
            .iter()
            .zip(&v.statuscodes)
            .map(|(i, c)| (i.path.clone(), i.code, i.severity, *c))
            .collect(),
    })
}

/// Validates the envelope of `request` and `response` under the default policy (every rule enforced).
pub fn validate(request: &Value, response: &Value) -> Outcome {
    let text = envelope(request, response);
    validate_text(&text, &Policy::default()).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// A request with one banner imp `"1"` (300x250 or 728x90, floor 0.5 USD) and one video imp `"2"`
/// (5–30 s, floor 1 USD), neither secure.
pub fn request() -> Value {
    serde_json::json!({
        "id": "req-1",
        "imp": [
            {"id": "1", "bidfloor": 0.5, "banner": {"format": [{"w": 300, "h": 250}, {"w": 728, "h": 90}]}},
            {"id": "2", "bidfloor": 1.0, "bidfloorcur": "USD",
             "video": {"mimes": ["video/mp4"], "minduration": 5, "maxduration": 30, "protocols": [2, 3, 7]}}
        ],
        "site": {"page": "https://publisher.example/"},
        "tmax": 120
    })
}

/// A response with one bid on imp `"1"` that every rule accepts against [`request`].
pub fn response() -> Value {
    serde_json::json!({
        "id": "req-1",
        "cur": "USD",
        "seatbid": [{"seat": "seat-a", "bid": [{
            "id": "b1", "impid": "1", "price": 1.25, "crid": "cr-1", "mtype": 1, "w": 300, "h": 250,
            "adm": "<div><img src=\"https://cdn.example/a.png\"></div>",
            "adomain": ["brand.example"], "cat": ["IAB2"], "attr": [1]
        }]}]
    })
}

/// The first bid of [`response`]-shaped values, to change.
pub fn bid0(response: &mut Value) -> &mut Value {
    &mut response["seatbid"][0]["bid"][0]
}

/// The one accepted verdict.
pub const ACCEPTED: (BidStatus, Option<u16>) = (BidStatus::Accepted, None);

/// The one rejected verdict with `code`.
pub fn rejected(code: u16) -> (BidStatus, Option<u16>) {
    (BidStatus::Rejected, Some(code))
}
