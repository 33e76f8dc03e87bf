//! Shared test helpers: decode a document with serde_json and bidscan-json and check both agree.
#![allow(dead_code)]

use bidscan_openrtb::{BidResponse, DecodeError, Decoded, Issue, Mode, Severity};

/// Leaks a copy of `json` so decoded values can borrow it for `'static` (tests only).
pub fn leak(json: &str) -> &'static mut [u8] {
    Box::leak(json.as_bytes().to_vec().into_boxed_slice())
}

/// `(code, path)` of a decode error, for comparisons.
pub fn error_key(e: &DecodeError) -> (String, String) {
    (e.code().to_owned(), e.path().unwrap_or("").to_owned())
}

/// Decodes with serde_json through `Decoded::from_response` (structural errors mapped like `decode` does).
pub fn via_serde(json: &str, mode: Mode) -> Result<Decoded<'static>, DecodeError> {
    let bytes: &'static [u8] = leak(json);
    match serde_json::from_slice::<BidResponse<'static>>(bytes) {
        Ok(r) => Decoded::from_response(r, mode),
        Err(e) if e.to_string().contains("not a bid response") => {
            Err(DecodeError::NotABidResponse {
                message: e.to_string(),
                path: String::new(),
            })
        }
        Err(e) if e.to_string().contains("an OpenRTB 3.0 document") => {
            Err(DecodeError::Openrtb3NotSupported {
                message: e.to_string(),
                path: String::new(),
            })
        }
        Err(e) => panic!("serde_json rejected {json}: {e}"),
    }
}

/// Decodes with `bidscan_openrtb::decode` (bidscan-json), and with serde_json when the body is JSON, asserting
/// equal results; returns the `decode` result.
pub fn decode(json: &str, mode: Mode) -> Result<Decoded<'static>, DecodeError> {
    let ours = bidscan_openrtb::decode(&mut reader(), leak(json), mode);
    let blank = json.trim_matches([' ', '\t', '\n', '\r']).is_empty();
    if !blank
        && !json.trim_start().starts_with('<')
        && serde_json::from_str::<serde::de::IgnoredAny>(json).is_ok()
    {
        let theirs = via_serde(json, mode);
        match (&ours, &theirs) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "bidscan-json and serde_json disagree on {json}"),
            (Err(a), Err(b)) => assert_eq!(a.code(), b.code(), "{json}"),
            _ => panic!(
                "bidscan-json {:?} vs serde_json {:?} on {json}",
                ours.as_ref().err(),
                theirs.as_ref().err()
            ),
        }
    }
    ours
}

pub fn reader() -> bidscan_json::Reader {
    bidscan_json::Reader::default()
}

/// Lenient decode that must succeed.
pub fn lenient(json: &str) -> Decoded<'static> {
    decode(json, Mode::Lenient).unwrap_or_else(|e| panic!("lenient decode failed on {json}: {e}"))
}

/// Strict decode that must fail with `DecodeError::Strict`; returns `(path, code)`.
pub fn strict_err(json: &str) -> (String, &'static str) {
    match decode(json, Mode::Strict) {
        Err(DecodeError::Strict { path, code, .. }) => (path, code),
        other => panic!("expected a strict-mode error on {json}, got {other:?}"),
    }
}

/// The `(path, code, severity)` of every issue.
pub fn keys(d: &Decoded<'_>) -> Vec<(String, &'static str, Severity)> {
    d.issues
        .iter()
        .map(|i: &Issue| (i.path.clone(), i.code, i.severity))
        .collect()
}

/// Asserts `json` decodes leniently with exactly the one issue `(path, code, severity)`, and fails in strict mode
/// with the same path and code.
pub fn one_coercion(json: &str, path: &str, code: &str, severity: Severity) -> Decoded<'static> {
    let d = lenient(json);
    assert_eq!(
        keys(&d),
        vec![(path.to_owned(), code_static(code), severity)],
        "{json}"
    );
    assert_eq!(
        strict_err(json),
        (path.to_owned(), code_static(code)),
        "{json}"
    );
    d
}

fn code_static(code: &str) -> &'static str {
    Box::leak(code.to_owned().into_boxed_str())
}

/// A one-bid response whose bid has the clean base members (`id`, `impid`, `price`, `adm`, `crid`) with
/// `overrides` applied: `(name, Some(raw JSON))` replaces or adds a member, `(name, None)` removes it.
pub fn one_bid(overrides: &[(&str, Option<&str>)]) -> String {
    format!(
        r#"{{"id":"r1","seatbid":[{{"seat":"s1","bid":[{}]}}],"cur":"USD"}}"#,
        bid(overrides)
    )
}

/// The bid object of [`one_bid`].
pub fn bid(overrides: &[(&str, Option<&str>)]) -> String {
    let mut members: Vec<(String, String)> = [
        ("id", r#""b1""#),
        ("impid", r#""1""#),
        ("price", "1.5"),
        ("adm", r#""<div>ad</div>""#),
        ("crid", r#""c1""#),
    ]
    .iter()
    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
    .collect();
    for (name, value) in overrides {
        let existing = members.iter().position(|(k, _)| k == name);
        match (existing, value) {
            (Some(i), Some(v)) => members[i].1 = (*v).to_owned(),
            (Some(i), None) => {
                members.remove(i);
            }
            (None, Some(v)) => members.push(((*name).to_owned(), (*v).to_owned())),
            (None, None) => {}
        }
    }
    let body: Vec<String> = members
        .iter()
        .map(|(k, v)| format!("\"{k}\":{v}"))
        .collect();
    format!("{{{}}}", body.join(","))
}

pub const BID0: &str = "/seatbid/0/bid/0";
