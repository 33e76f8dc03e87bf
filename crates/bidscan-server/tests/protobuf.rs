//! Protobuf bid responses served: `POST /decode` with a protobuf `Content-Type` answers as the JSON rendered from
//! the same `BidResponse` (the twins of `corpus/real-fixtures-protobuf`), compressed or not; a malformed body is a
//! 400 with its offset and path; `/validate` and the batch routes refuse protobuf by name; the outcome metric
//! counts under `encoding`.

use crate::common;

use common::*;
use serde_json::Value;

/// The protobuf twins, with the JSON rendered from each.
const TWINS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../corpus/real-fixtures-protobuf"
);

/// Every `step`-th twin `(name, protobuf, json)`, by name.
fn twins(step: usize) -> Vec<(String, Vec<u8>, Vec<u8>)> {
    let mut names: Vec<String> = std::fs::read_dir(TWINS)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".pb").map(str::to_owned)
        })
        .collect();
    names.sort();
    assert!(names.len() > 1000, "twins missing: {}", names.len());
    names
        .into_iter()
        .step_by(step)
        .map(|name| {
            let pb = std::fs::read(format!("{TWINS}/{name}.pb")).unwrap();
            let json = std::fs::read(format!("{TWINS}/{name}.json")).unwrap();
            (name, pb, json)
        })
        .collect()
}

/// An answer without what must differ between the encodings: `stats` (JSON's reader counters; protobuf's body
/// is another length), the `adm_object` warning (JSON's for an object `adm`; protobuf's `adm_native` is the
/// schema's own field) and the warning count it adds to.
fn comparable(mut v: Value) -> Value {
    let obj = v.as_object_mut().unwrap();
    obj.remove("stats");
    let mut dropped = 0;
    if let Some(Value::Array(issues)) = obj.get_mut("issues") {
        let before = issues.len();
        issues.retain(|i| i["code"] != "adm_object");
        dropped = before - issues.len();
    }
    if dropped > 0
        && let Some(w) = obj
            .get_mut("summary")
            .and_then(|s| s.get_mut("warnings"))
            .and_then(|w| w.as_u64().map(|n| (w, n)))
    {
        *w.0 = Value::from(w.1 - dropped as u64);
    }
    v
}

#[tokio::test]
async fn protobuf_twins_answer_as_their_json_plain_and_gzip() {
    let server = start(config()).await;
    let sample = twins(23);
    assert!(sample.len() >= 40, "{}", sample.len());
    let mut bids = 0;
    for (i, (name, pb, json_doc)) in sample.iter().enumerate() {
        let (code, from_json) = json(
            server
                .post(
                    "/decode",
                    &[("content-type", "application/json")],
                    json_doc.clone(),
                )
                .await,
        )
        .await;
        assert_eq!(code, 200, "{name} (json): {from_json}");
        // Every accepted spelling, parameters and case included, and gzip on every other twin.
        let content_type = [
            "application/x-protobuf",
            "application/protobuf",
            "Application/Vnd.Google.Protobuf; proto=com.iabtechlab.openrtb.v2.BidResponse",
        ][i % 3];
        let gzipped = i % 2 == 1;
        let (body, coding) = if gzipped {
            (gzip(pb), "gzip")
        } else {
            (pb.clone(), "identity")
        };
        let (code, from_pb) = json(
            server
                .post(
                    "/decode",
                    &[("content-type", content_type), ("content-encoding", coding)],
                    body,
                )
                .await,
        )
        .await;
        assert_eq!(code, 200, "{name} ({content_type}, {coding}): {from_pb}");
        assert_eq!(
            from_pb["stats"]["bytes"],
            pb.len(),
            "{name}: the protobuf body's size, decompressed"
        );
        bids += from_pb["summary"]["bid_count"].as_u64().unwrap();
        assert_eq!(
            comparable(from_pb),
            comparable(from_json),
            "{name} ({content_type}, {coding})"
        );
    }
    assert!(bids > 0, "the sample holds bids");
    let m = server.metrics().await;
    assert!(
        value(
            &m,
            "bidscan_decode_outcomes_total{encoding=\"protobuf\",outcome=\"bid\"}"
        ) > 0.0,
        "{m}"
    );
    assert_eq!(
        value(
            &m,
            "bidscan_decode_outcomes_total{encoding=\"protobuf\",outcome=\"malformed\"}"
        ),
        0.0
    );
}

#[tokio::test]
async fn malformed_protobuf_is_400_with_offset_and_path_and_octet_stream_stays_json() {
    let server = start(config()).await;
    // seatbid (field 2, 3 bytes) holding a bid (field 1) whose length, 9, runs past the seat bid's end.
    let body = vec![0x12, 0x03, 0x0a, 0x09, 0x00];
    let (code, v) = json(
        server
            .post(
                "/decode",
                &[("content-type", "application/x-protobuf")],
                body.clone(),
            )
            .await,
    )
    .await;
    assert_eq!(code, 400, "{v}");
    assert_eq!(v["error"]["code"], "malformed_protobuf", "{v}");
    assert_eq!(v["error"]["byte"], 3, "{v}: the length at fault");
    let path = v["error"]["path"].as_str().unwrap();
    assert!(path.starts_with("/seatbid/0"), "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("past the end of its message"),
        "{v}"
    );
    assert!(v["error"]["line"].is_null(), "{v}");
    let m = server.metrics().await;
    assert_eq!(
        value(
            &m,
            "bidscan_decode_outcomes_total{encoding=\"protobuf\",outcome=\"malformed\"}"
        ),
        1.0
    );
    // application/octet-stream is read as JSON.
    let (code, v) = json(
        server
            .post(
                "/decode",
                &[("content-type", "application/octet-stream")],
                body,
            )
            .await,
    )
    .await;
    assert_eq!(code, 400, "{v}");
    assert_eq!(v["error"]["code"], "malformed_json", "{v}");
}

#[tokio::test]
async fn validate_and_the_batch_routes_refuse_protobuf_by_name() {
    let server = start(config()).await;
    for (path, names) in [
        ("/validate", "/decode"),
        ("/decode/batch", "/decode"),
        ("/validate/batch", "/decode"),
    ] {
        let (code, v) = json(
            server
                .post(
                    path,
                    &[("content-type", "application/x-protobuf")],
                    vec![0x08, 0x01],
                )
                .await,
        )
        .await;
        assert_eq!(code, 415, "{path}: {v}");
        assert_eq!(v["error"]["code"], "unsupported_media_type", "{path}");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("application/x-protobuf"),
            "{path}: {message}"
        );
        assert!(message.contains(names), "{path}: {message}");
    }
}

/// `bidscan` with `args`, `stdin` piped in.
fn bidscan(args: &[&str], stdin: &[u8]) -> std::process::Output {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_bidscan"))
        .args(args)
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

#[tokio::test]
async fn cli_decode_reads_pb_files_and_encoding_overrides() {
    let server = start(config()).await;
    let (name, pb, _) = twins(97).into_iter().nth(1).unwrap();
    let http = server
        .post(
            "/decode",
            &[("content-type", "application/x-protobuf")],
            pb.clone(),
        )
        .await
        .bytes()
        .await
        .unwrap();
    let path = format!("{TWINS}/{name}.pb");
    let (by_name, by_flag, as_json, validate) = tokio::task::spawn_blocking(move || {
        (
            bidscan(&["decode", &path], b""),
            bidscan(&["decode", "--encoding", "protobuf", "-"], &pb),
            bidscan(&["decode", "--encoding", "json", &path], b""),
            bidscan(&["validate", "--encoding", "protobuf", &path], b""),
        )
    })
    .await
    .unwrap();
    for (what, out) in [("FILE.pb", &by_name), ("--encoding protobuf -", &by_flag)] {
        assert_eq!(
            out.status.code(),
            Some(0),
            "{what}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            out.stdout.strip_suffix(b"\n").unwrap(),
            &http[..],
            "{what}: same bytes as POST /decode with a protobuf Content-Type"
        );
    }
    assert_eq!(
        as_json.status.code(),
        Some(1),
        "a .pb file read as JSON fails"
    );
    assert_eq!(validate.status.code(), Some(2), "validate reads JSON only");
}
