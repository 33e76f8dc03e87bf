//! `POST /validate/auction` with protobuf parts over a real server on 127.0.0.1: the bidders' bodies are the
//! protobuf twins of `corpus/real-fixtures-protobuf/` (each with the JSON rendered from it), the requests the real
//! pairs of `corpus/validate-pairs/` and their twins in `corpus/validate-pairs-protobuf/`. A part is protobuf
//! under its own protobuf `Content-Type` (three spellings, case and parameters ignored), JSON under any other:
//! each protobuf bidder gets the verdicts `/validate` gives its JSON twin; a gzip protobuf part is inflated
//! first; a malformed protobuf part makes its bidder `invalid` (102 for every imp) and no other; a protobuf
//! request part answers as its rendered JSON does, a malformed one fails the call with 400 as malformed JSON does.
//! Also: the outcome metric's `encoding`, `/validate`'s 415 pointing here, and a capture's `format` (an auction part's,
//! a `/decode` body's).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{TestServer, gzip, start};

const BOUNDARY: &str = "bidscan-pb-7c2a";

/// The part limit of the test servers (`server.max_body_bytes`).
const PART_LIMIT: usize = 8192;

fn corpus(dir: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../corpus")
        .join(dir)
}

/// The request of the real pair `name` (`corpus/validate-pairs/`), as JSON bytes.
fn request_of(name: &str) -> Vec<u8> {
    let v: Value =
        serde_json::from_slice(&std::fs::read(corpus("validate-pairs").join(name)).unwrap())
            .unwrap();
    serde_json::to_vec(&v["request"]).unwrap()
}

/// The protobuf twin `name` of `corpus/real-fixtures-protobuf/` and the JSON rendered from it.
fn twin(name: &str) -> (Vec<u8>, Vec<u8>) {
    let dir = corpus("real-fixtures-protobuf");
    (
        std::fs::read(dir.join(format!("{name}.pb"))).unwrap(),
        std::fs::read(dir.join(format!("{name}.json"))).unwrap(),
    )
}

/// One part: name, `Content-Type` (none when `None`), extra header lines, content.
type Part<'a> = (&'a str, Option<&'a str>, Vec<&'a str>, Vec<u8>);

/// A `multipart/form-data` body of `parts`, as `curl -F` lays it out.
fn multipart(parts: &[Part<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, content_type, headers, content) in parts {
        write!(
            out,
            "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n"
        )
        .unwrap();
        if let Some(t) = content_type {
            write!(out, "Content-Type: {t}\r\n").unwrap();
        }
        for h in headers {
            write!(out, "{h}\r\n").unwrap();
        }
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(content);
        out.extend_from_slice(b"\r\n");
    }
    write!(out, "--{BOUNDARY}--\r\n").unwrap();
    out
}

async fn server(capture: Option<&Path>) -> TestServer {
    let mut c = crate::common::config();
    c.server.max_body_bytes = PART_LIMIT;
    c.capture.dir = capture.map(Path::to_path_buf);
    start(c).await
}

async fn json(res: reqwest::Response) -> Value {
    let bytes = res.bytes().await.unwrap();
    serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&bytes)))
}

/// POSTs `body` to `path` as an auction (with `headers` too); status and JSON answer.
async fn post_auction(
    server: &TestServer,
    path: &str,
    headers: &[(&str, &str)],
    body: Vec<u8>,
) -> (u16, Value) {
    let content_type = format!("multipart/form-data; boundary={BOUNDARY}");
    let mut all = vec![("content-type", content_type.as_str())];
    all.extend_from_slice(headers);
    let res = server.post(path, &all, body).await;
    let status = res.status().as_u16();
    (status, json(res).await)
}

/// `/validate?view=summary`'s `{summary, issues, seatnonbid}` for the JSON `request` and `response`.
async fn validate(server: &TestServer, request: &[u8], response: &[u8]) -> Value {
    let mut envelope = b"{\"request\":".to_vec();
    envelope.extend_from_slice(request);
    envelope.extend_from_slice(b",\"response\":");
    envelope.extend_from_slice(response);
    envelope.push(b'}');
    let res = server.post("/validate?view=summary", &[], envelope).await;
    assert_eq!(res.status(), 200);
    let v = json(res).await;
    serde_json::json!({"summary": v["summary"], "issues": v["issues"], "seatnonbid": v["seatnonbid"]})
}

/// A bidder's `{summary, issues, seatnonbid}`, without the `adm_object` warning (JSON's for an object `adm`;
/// protobuf's `adm_native` is the schema's own field) and the warning it adds to the summary's count.
fn judged(bidder: &Value) -> Value {
    let mut v = serde_json::json!({
        "summary": bidder["summary"],
        "issues": bidder["issues"],
        "seatnonbid": bidder["seatnonbid"],
    });
    let issues = v["issues"].as_array_mut().unwrap();
    let before = issues.len();
    issues.retain(|i| i["code"] != "adm_object");
    let dropped = (before - issues.len()) as u64;
    if dropped > 0 {
        let warnings = v["summary"]["warnings"].as_u64().unwrap();
        v["summary"]["warnings"] = Value::from(warnings - dropped);
    }
    v
}

fn bidder<'a>(answer: &'a Value, name: &str) -> &'a Value {
    answer["bidders"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["bidder"] == name)
        .unwrap_or_else(|| panic!("no bidder {name} in {answer}"))
}

/// `bidder`'s non-bids are one seat, its name, with `code` for every imp of `imps`.
fn every_imp(bidder: &Value, imps: &Value, code: u16) {
    let name = bidder["bidder"].as_str().unwrap();
    let expected: Vec<Value> = imps
        .as_array()
        .unwrap()
        .iter()
        .map(|imp| serde_json::json!({"impid": imp, "statuscode": code}))
        .collect();
    assert_eq!(
        bidder["seatnonbid"],
        serde_json::json!([{"seat": name, "nonbid": expected}]),
        "{bidder}"
    );
}

/// The value of the series `name{labels}` in a Prometheus text scrape (0 when absent).
fn series(text: &str, name_and_labels: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(name_and_labels)?.trim().parse().ok())
        .unwrap_or(0.0)
}

/// A twin with one more seat bid whose bid's `id` is not UTF-8: seatbid (2) { bid (1) { id (1): 0xFF } }.
fn not_utf8(pb: &[u8]) -> Vec<u8> {
    let mut bad = pb.to_vec();
    bad.extend_from_slice(&[0x12, 0x05, 0x0a, 0x03, 0x0a, 0x01, 0xff]);
    bad
}

#[tokio::test]
async fn a_mixed_auction_judges_each_protobuf_part_as_validate_judges_its_json() {
    let server = server(None).await;
    let request = request_of("aax_multi-imps.json");
    let (aax_pb, aax_json) = twin("aax_exemplary-multi-imps");
    let (amx_pb, amx_json) = twin("amx_exemplary-app-simple");
    let (adpone_pb, adpone_json) = twin("adpone_exemplary-simple-banner");
    let (_, proxistore_json) = twin("proxistore_exemplary-multi-imp-banner");
    let (_, cointraffic_json) = twin("cointraffic_exemplary-simple-banner");
    let (trustx_pb, _) = twin("trustx_exemplary-multiple-imp-types");
    let broken = not_utf8(&trustx_pb);
    let parts: Vec<Part<'_>> = vec![
        ("request", Some("application/json"), vec![], request.clone()),
        ("pb", Some("application/x-protobuf"), vec![], aax_pb.clone()),
        (
            "pbgz",
            Some("application/protobuf; proto=com.iabtechlab.openrtb.v2.BidResponse"),
            vec!["Content-Encoding: gzip"],
            gzip(&amx_pb),
        ),
        (
            "vnd",
            Some("Application/Vnd.Google.Protobuf"),
            vec![],
            adpone_pb.clone(),
        ),
        (
            "json",
            Some("application/json"),
            vec![],
            proxistore_json.clone(),
        ),
        (
            "octet",
            Some("application/octet-stream"),
            vec![],
            cointraffic_json.clone(),
        ),
        ("broken", Some("application/x-protobuf"), vec![], broken),
        ("slow", None, vec!["X-Bidder-Status: timeout"], Vec::new()),
    ];
    let (status, answer) = post_auction(
        &server,
        "/validate/auction?view=summary",
        &[],
        multipart(&parts),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    let imps = &answer["request"]["imps"];
    assert_eq!(imps, &serde_json::json!(["1", "2"]));

    // Each body, protobuf or JSON, gets the verdicts `/validate` gives the JSON (rendered from the twin).
    for (name, json_twin) in [
        ("pb", &aax_json),
        ("pbgz", &amx_json),
        ("vnd", &adpone_json),
        ("json", &proxistore_json),
        ("octet", &cointraffic_json),
    ] {
        let b = bidder(&answer, name);
        assert_eq!(
            judged(b),
            validate(&server, &request, json_twin).await,
            "{name}"
        );
        assert_eq!(b["status"], "bid", "{name}");
    }
    // The rules reached the protobuf bodies: adpone's bid is for an imp the request does not have.
    assert_eq!(bidder(&answer, "vnd")["summary"]["rejected"], 1);
    assert_eq!(bidder(&answer, "pb")["summary"]["accepted"], 1);

    // The malformed protobuf body: invalid, 102 for every imp, the wire error's offset and path.
    let b = bidder(&answer, "broken");
    assert_eq!(b["status"], "invalid");
    every_imp(b, imps, 102);
    let finding = &b["issues"][0];
    assert_eq!(finding["code"], "malformed_protobuf");
    assert_eq!(finding["statuscode"], 102);
    assert_eq!(finding["path"], "/seatbid/1/bid/0/id");
    let message = finding["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("at byte {}", trustx_pb.len() + 6)),
        "{message}"
    );
    // `/decode` refuses the same body with the same code.
    let res = server
        .post(
            "/decode",
            &[("content-type", "application/x-protobuf")],
            not_utf8(&trustx_pb),
        )
        .await;
    assert_eq!(res.status(), 400);
    assert_eq!(json(res).await["error"]["code"], "malformed_protobuf");
    every_imp(bidder(&answer, "slow"), imps, 101);

    // The JSON bidders after the broken one are judged as if it were not there.
    let alone = multipart(&[
        ("request", Some("application/json"), vec![], request.clone()),
        ("pb", Some("application/x-protobuf"), vec![], aax_pb),
    ]);
    let (status, only) = post_auction(&server, "/validate/auction?view=summary", &[], alone).await;
    assert_eq!(status, 200);
    assert_eq!(bidder(&only, "pb"), bidder(&answer, "pb"));

    // A protobuf body sent as JSON (no protobuf Content-Type) is not JSON: invalid, as `/decode` answers it.
    let (status, as_json) = post_auction(
        &server,
        "/validate/auction",
        &[],
        multipart(&[
            ("request", None, vec![], request.clone()),
            ("plain", Some("application/octet-stream"), vec![], amx_pb),
        ]),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(bidder(&as_json, "plain")["status"], "invalid");
    assert_eq!(
        bidder(&as_json, "plain")["issues"][0]["code"],
        "malformed_json"
    );
}

#[tokio::test]
async fn a_protobuf_request_part_answers_as_its_rendered_json() {
    let server = server(None).await;
    let dir = corpus("validate-pairs-protobuf");
    let cases = [
        ("aax_multi-imps", "aax_exemplary-multi-imps"),
        (
            "proxistore_multi-imp-banner",
            "proxistore_exemplary-multi-imp-banner",
        ),
        (
            "trustx_multiple-imp-types",
            "trustx_exemplary-multiple-imp-types",
        ),
        ("adpone_simple-banner", "adpone_exemplary-simple-banner"),
    ];
    for (i, (pair, response)) in cases.into_iter().enumerate() {
        let request_pb = std::fs::read(dir.join(format!("{pair}.pb"))).unwrap();
        let request_json = std::fs::read(dir.join(format!("{pair}.json"))).unwrap();
        let (pb, json_twin) = twin(response);
        let bidders = |request: Part<'static>| -> Vec<u8> {
            multipart(&[
                ("a", Some("application/x-protobuf"), vec![], pb.clone()),
                request,
                ("b", None, vec![], json_twin.clone()),
                ("t", None, vec!["X-Bidder-Status: timeout"], Vec::new()),
            ])
        };
        let (status, expected) = post_auction(
            &server,
            "/validate/auction",
            &[],
            bidders(("request", None, vec![], request_json)),
        )
        .await;
        assert_eq!(status, 200, "{pair}: {expected}");
        // Plain, and gzip on every other case.
        let (headers, content) = if i % 2 == 0 {
            (vec![], request_pb)
        } else {
            (vec!["Content-Encoding: gzip"], gzip(&request_pb))
        };
        let part: Part<'static> = ("request", Some("application/x-protobuf"), headers, content);
        let (status, got) = post_auction(&server, "/validate/auction", &[], bidders(part)).await;
        assert_eq!(status, 200, "{pair}: {got}");
        assert_eq!(got, expected, "{pair}");
    }

    // A malformed protobuf request fails the call with 400, as malformed JSON does; one without an imp with
    // 422, as JSON's does.
    let (pb, _) = twin("aax_exemplary-multi-imps");
    let bidder: Part<'_> = ("a", Some("application/x-protobuf"), vec![], pb);
    let cases: [(Part<'_>, u16, &str); 4] = [
        (
            ("request", None, vec![], b"{\"id\":\"1\",\"imp\":[".to_vec()),
            400,
            "malformed_json",
        ),
        (
            // Field 2 (`imp`), length 5, with 2 bytes.
            (
                "request",
                Some("application/x-protobuf"),
                vec![],
                vec![0x12, 0x05, 0x0a, 0x01],
            ),
            400,
            "malformed_protobuf",
        ),
        (
            ("request", None, vec![], b"{\"id\":\"1\"}".to_vec()),
            422,
            "request_without_imp",
        ),
        (
            // `id` only.
            (
                "request",
                Some("application/protobuf"),
                vec![],
                vec![0x0a, 0x01, b'1'],
            ),
            422,
            "request_without_imp",
        ),
    ];
    for (request, status, code) in cases {
        let body = multipart(&[request, bidder.clone()]);
        let (got, answer) = post_auction(&server, "/validate/auction", &[], body).await;
        assert_eq!(
            (got, answer["error"]["code"].as_str()),
            (status, Some(code)),
            "{answer}"
        );
        if code == "malformed_protobuf" {
            let message = answer["error"]["message"].as_str().unwrap();
            assert!(message.contains("at byte"), "{message}");
        }
    }
}

#[tokio::test]
async fn the_outcome_metric_counts_the_call_under_its_request_encoding() {
    let server = server(None).await;
    let dir = corpus("validate-pairs-protobuf");
    let request_pb = std::fs::read(dir.join("aax_multi-imps.pb")).unwrap();
    let (pb, _) = twin("aax_exemplary-multi-imps");
    let body = multipart(&[
        (
            "request",
            Some("application/x-protobuf"),
            vec![],
            request_pb,
        ),
        ("acme", Some("application/x-protobuf"), vec![], pb.clone()),
        (
            "broken",
            Some("application/x-protobuf"),
            vec![],
            not_utf8(&pb),
        ),
    ]);
    let (status, answer) = post_auction(&server, "/validate/auction", &[], body).await;
    assert_eq!(status, 200, "{answer}");
    let text = server.metrics().await;
    let outcome = |encoding: &str| {
        series(
            &text,
            &format!("bidscan_decode_outcomes_total{{encoding=\"{encoding}\",outcome=\"bid\"}}"),
        )
    };
    assert_eq!((outcome("protobuf"), outcome("json")), (1.0, 0.0), "{text}");
    // Each bidder under its label (no `encoding` label there, as on `/decode`): the malformed body as `malformed`.
    assert_eq!(
        series(
            &text,
            "bidscan_bidder_outcomes_total{bidder=\"other\",outcome=\"bid\"}"
        ),
        1.0
    );
    assert_eq!(
        series(
            &text,
            "bidscan_bidder_outcomes_total{bidder=\"other\",outcome=\"malformed\"}"
        ),
        1.0
    );
}

#[tokio::test]
async fn validate_refuses_protobuf_pointing_at_the_auction_route() {
    let server = server(None).await;
    let (pb, _) = twin("aax_exemplary-multi-imps");
    let res = server
        .post(
            "/validate",
            &[("content-type", "application/x-protobuf")],
            pb,
        )
        .await;
    assert_eq!(res.status(), 415);
    let v = json(res).await;
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.contains("POST /validate/auction"), "{message}");
    assert!(message.contains("application/x-protobuf"), "{message}");
}

#[tokio::test]
async fn a_captured_protobuf_part_says_it_is_protobuf() {
    let tmp = tempfile::tempdir().unwrap();
    let server = server(Some(tmp.path())).await;
    let request = request_of("aax_multi-imps.json");
    let (adpone_pb, _) = twin("adpone_exemplary-simple-banner");
    let (_, adpone_json) = twin("adpone_exemplary-simple-banner");
    let body = multipart(&[
        ("request", None, vec![], request),
        // Both have a bid rejected (an imp the request does not have): both are captured.
        (
            "pb",
            Some("application/x-protobuf"),
            vec![],
            adpone_pb.clone(),
        ),
        ("js", Some("application/json"), vec![], adpone_json),
    ]);
    let (status, answer) = post_auction(&server, "/validate/auction", &[], body).await;
    assert_eq!(status, 200, "{answer}");
    // A malformed protobuf body on `/decode`: refused (400), captured, its section protobuf too.
    let broken = not_utf8(&adpone_pb);
    let res = server
        .post(
            "/decode",
            &[
                ("content-type", "application/x-protobuf"),
                ("x-bidder", "dec"),
            ],
            broken.clone(),
        )
        .await;
    assert_eq!(res.status(), 400);
    let deadline = Instant::now() + Duration::from_secs(10);
    let metas = loop {
        let metas: Vec<(Value, Vec<u8>)> = std::fs::read_dir(tmp.path())
            .unwrap()
            .filter_map(|e| {
                let bytes = std::fs::read(e.unwrap().path()).ok()?;
                let cut = bytes.iter().position(|&b| b == b'\n')?;
                let meta = serde_json::from_slice(&bytes[..cut]).ok()?;
                Some((meta, bytes[cut + 1..].to_vec()))
            })
            .collect();
        if metas.len() >= 3 || Instant::now() > deadline {
            break metas;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(metas.len(), 3, "{metas:?}");
    let find = |name: &str| metas.iter().find(|m| m.0["bidder_name"] == name).unwrap();
    let (meta, bytes) = find("pb");
    assert_eq!(
        meta["sections"],
        serde_json::json!([{"name": "response", "format": "protobuf", "encoding": null, "bytes": adpone_pb.len()}])
    );
    assert_eq!(bytes, &adpone_pb);
    let (meta, _) = find("js");
    assert!(meta["sections"][0].get("format").is_none(), "{meta}");
    let (meta, bytes) = find("dec");
    assert_eq!(meta["verdict"]["error"], "malformed_protobuf");
    assert_eq!(meta["sections"][0]["format"], "protobuf", "{meta}");
    assert_eq!(bytes, &broken);
}
