//! POST /decode against the real server: the corpus (plain and compressed), and every error status.

use crate::common;

use common::*;

#[tokio::test]
async fn every_corpus_file_decodes_plain_and_gzip() {
    let server = start(config()).await;
    for (name, doc) in corpus() {
        let bids = expected_bids(&doc);
        let status = if bids > 0 { "bid" } else { "nobid" };
        for (encoding, body) in [("identity", doc.clone()), ("gzip", gzip(&doc))] {
            let res = server
                .post(
                    "/decode",
                    &[
                        ("content-type", "application/json"),
                        ("content-encoding", encoding),
                    ],
                    body,
                )
                .await;
            let (code, v) = json(res).await;
            assert_eq!(code, 200, "{name} ({encoding}): {v}");
            assert_eq!(v["status"], status, "{name} ({encoding})");
            assert_eq!(v["summary"]["bid_count"], bids, "{name} ({encoding})");
            let seat_bids: usize = v["response"]["seatbid"].as_array().map_or(0, |s| {
                s.iter().map(|s| s["bid"].as_array().unwrap().len()).sum()
            });
            assert_eq!(seat_bids, bids, "{name} ({encoding}): canonical response");
            assert_eq!(
                v["stats"]["bytes"],
                doc.len(),
                "{name} ({encoding}): decompressed size"
            );
            assert!(v["issues"].is_array());
        }
    }
}

#[tokio::test]
async fn deflate_br_and_zstd_bodies_decode() {
    let server = start(config()).await;
    let doc = corpus_file("vast_php_020k.json");
    let bids = expected_bids(&doc);
    for (encoding, body) in [
        ("deflate", deflate(&doc)),
        ("br", brotli(&doc)),
        ("zstd", zstd(&doc)),
    ] {
        let (code, v) = json(
            server
                .post("/decode", &[("content-encoding", encoding)], body)
                .await,
        )
        .await;
        assert_eq!(code, 200, "{encoding}: {v}");
        assert_eq!(v["summary"]["bid_count"], bids, "{encoding}");
        assert_eq!(v["stats"]["bytes"], doc.len(), "{encoding}");
    }
}

#[tokio::test]
async fn malformed_json_is_400_with_position() {
    let server = start(config()).await;
    let body = b"{\"id\": \"r1\",\n  \"seatbid\": [{\"bid\": [{\"id\": \"1\", \"price\": 1.5,}]}]}"
        .to_vec();
    let (code, v) = json(server.post("/decode", &[], body).await).await;
    assert_eq!(code, 400, "{v}");
    let e = &v["error"];
    assert_eq!(e["code"], "malformed_json");
    assert_eq!(e["line"], 2);
    assert!(e["byte"].as_u64().unwrap() > 13, "{e}");
    assert!(e["column"].as_u64().unwrap() > 1, "{e}");
    assert!(e["message"].as_str().unwrap().contains("line 2"), "{e}");
    assert!(e.get("path").is_some());
}

#[tokio::test]
async fn five_megabyte_body_is_413() {
    let server = start(config()).await;
    let mut body = b"{\"id\":\"".to_vec();
    body.resize(5 * 1024 * 1024, b'a');
    body.extend_from_slice(b"\"}");
    let (code, v) = json(server.post("/decode", &[], body.clone()).await).await;
    assert_eq!(code, 413, "{v}");
    assert_eq!(v["error"]["code"], "payload_too_large");

    // The same without Content-Length (chunked): refused while streaming.
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        body.chunks(64 * 1024).map(|c| Ok(c.to_vec())).collect();
    let res = server
        .client
        .post(server.url("/decode"))
        .body(reqwest::Body::wrap_stream(futures_util::stream::iter(
            chunks,
        )))
        .send()
        .await
        .unwrap();
    let (code, v) = json(res).await;
    assert_eq!(code, 413, "{v}");
    assert_eq!(v["error"]["code"], "payload_too_large");
}

#[tokio::test]
async fn small_gzip_inflating_past_the_limit_is_413() {
    let server = start(config()).await;
    let mut doc = b"{\"id\":\"x\"".to_vec();
    doc.resize(6 * 1024 * 1024, b' ');
    doc.push(b'}');
    let body = gzip(&doc);
    assert!(body.len() < 64 * 1024, "compressed {} bytes", body.len());
    let (code, v) = json(
        server
            .post("/decode", &[("content-encoding", "gzip")], body)
            .await,
    )
    .await;
    assert_eq!(code, 413, "{v}");
    assert_eq!(v["error"]["code"], "payload_too_large");
    let metrics = server.metrics().await;
    assert_eq!(
        value(
            &metrics,
            "bidscan_decode_outcomes_total{encoding=\"json\",outcome=\"too_large\"}"
        ),
        1.0
    );
}

#[tokio::test]
async fn unsupported_type_and_encoding_are_415() {
    let server = start(config()).await;
    let doc = corpus_file("nurl_only.json");
    let (code, v) = json(
        server
            .post("/decode", &[("content-type", "text/xml")], doc.clone())
            .await,
    )
    .await;
    assert_eq!(code, 415, "{v}");
    assert_eq!(v["error"]["code"], "unsupported_media_type");

    let res = server
        .post("/decode", &[("content-encoding", "compress")], doc.clone())
        .await;
    assert!(res.headers().contains_key("accept-encoding"));
    let (code, v) = json(res).await;
    assert_eq!(code, 415, "{v}");
    assert_eq!(v["error"]["code"], "unsupported_encoding");

    // Coding names are case-insensitive, x-gzip is gzip, an empty Content-Encoding is none (RFC 9110 §8.4.1).
    for encoding in ["GZIP", "x-gzip", " Gzip "] {
        let res = server
            .post("/decode", &[("content-encoding", encoding)], gzip(&doc))
            .await;
        assert_eq!(res.status(), 200, "{encoding:?}");
    }
    let res = server
        .post("/decode", &[("content-encoding", "")], doc.clone())
        .await;
    assert_eq!(res.status(), 200);

    // What curl --data-binary sends by default is accepted.
    let res = server
        .post(
            "/decode",
            &[("content-type", "application/x-www-form-urlencoded")],
            doc,
        )
        .await;
    assert_eq!(res.status(), 200);
}

#[tokio::test]
async fn top_level_array_is_422() {
    let server = start(config()).await;
    let (code, v) = json(
        server
            .post("/decode", &[], b"[{\"id\":\"1\"}]".to_vec())
            .await,
    )
    .await;
    assert_eq!(code, 422, "{v}");
    assert_eq!(v["error"]["code"], "not_a_bid_response");
    assert_eq!(v["error"]["path"], "");
}

#[tokio::test]
async fn price_as_string_is_422_in_strict_mode_and_a_warning_in_lenient() {
    let server = start(config()).await;
    let doc = br#"{"id":"r","seatbid":[{"bid":[{"id":"b","impid":"1","price":"1.5","crid":"c","adm":"<a/>"}]}]}"#;
    let (code, v) = json(server.post("/decode?mode=strict", &[], doc.to_vec()).await).await;
    assert_eq!(code, 422, "{v}");
    assert_eq!(v["error"]["path"], "/seatbid/0/bid/0/price");
    assert_ne!(v["error"]["code"], "not_a_bid_response");

    let (code, v) = json(server.post("/decode?mode=lenient", &[], doc.to_vec()).await).await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["response"]["seatbid"][0]["bid"][0]["price"], 1.5);
    let issue = v["issues"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["path"] == "/seatbid/0/bid/0/price")
        .expect("a coercion issue for price");
    assert_eq!(issue["severity"], "warning");
}

#[tokio::test]
async fn summary_view_bad_query_and_openrtb_version_echo() {
    let server = start(config()).await;
    let doc = corpus_file("multiseat_48bids.json");
    let res = server
        .post(
            "/decode?view=summary",
            &[("x-openrtb-version", "2.6")],
            doc.clone(),
        )
        .await;
    assert_eq!(res.headers()["x-openrtb-version"], "2.6");
    let (code, v) = json(res).await;
    assert_eq!(code, 200);
    assert!(v.get("response").is_none(), "summary view has no response");
    assert_eq!(v["summary"]["bid_count"], expected_bids(&doc));

    let (code, v) = json(server.post("/decode?mode=fast", &[], doc).await).await;
    assert_eq!(code, 400);
    assert_eq!(v["error"]["code"], "invalid_query");
}

#[tokio::test]
async fn empty_body_is_a_nobid() {
    let server = start(config()).await;
    let (code, v) = json(server.post("/decode", &[], Vec::new()).await).await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["status"], "nobid");
    assert_eq!(v["stats"]["bytes"], 0);
}

/// An `Accept-Encoding` that accepts no coding (`identity;q=0`) is ignored, as nginx does: the answer with its own
/// status and no coding — not a 406 carrying the answer (tower-http's choice), on the hot `/decode` path and the
/// router's compressed routes alike.
#[tokio::test]
async fn an_accept_encoding_that_accepts_nothing_is_ignored() {
    let server = start(config()).await;
    let doc = corpus_file("vast_020k.json");
    for nothing in ["identity;q=0", "*;q=0"] {
        let headers = [
            ("content-type", "application/json"),
            ("accept-encoding", nothing),
        ];
        let res = server
            .post("/decode?view=summary", &headers, doc.clone())
            .await;
        assert_eq!(res.status(), 200, "{nothing}");
        assert!(res.headers().get("content-encoding").is_none());
        let (_, v) = json(res).await;
        assert_eq!(v["status"], "bid", "{nothing}");
        let res = server.post("/decode", &headers, b"{\"id\":".to_vec()).await;
        assert_eq!(res.status(), 400, "{nothing}: an error keeps its status");
        let res = server
            .client
            .get(server.url("/metrics"))
            .header("accept-encoding", nothing)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "{nothing}");
        assert!(res.headers().get("content-encoding").is_none());
        assert!(
            res.text()
                .await
                .unwrap()
                .contains("bidscan_decode_outcomes_total")
        );
    }
    // A coding that is accepted is still used.
    let res = server
        .post("/decode", &[("accept-encoding", "identity;q=0, gzip")], doc)
        .await;
    assert_eq!(res.headers()["content-encoding"], "gzip");
}

/// A body with neither `seatbid` nor `nbr` and a member that is no bid response's is refused in both modes, on
/// `/decode` and `/decode/batch`, with its own code and outcome; `{}`, bid response members only, and `nbr` stay
/// no-bids.
#[tokio::test]
async fn bodies_that_are_not_bid_responses_are_422_with_their_codes() {
    let server = start(config()).await;
    let refused = [
        (r#"{"error":"timeout","id":"r1"}"#, "not_a_bid_response"),
        (
            r#"{"openrtb":{"ver":"3.0","domainspec":"adcom","response":{"id":"r1"}}}"#,
            "openrtb3_not_supported",
        ),
    ];
    for (body, code) in refused {
        for mode in ["lenient", "strict"] {
            let route = format!("/decode?mode={mode}");
            let (status, v) = json(server.post(&route, &[], body.as_bytes().to_vec()).await).await;
            assert_eq!(status, 422, "{mode} {body}: {v}");
            assert_eq!(v["error"]["code"], code, "{mode} {body}: {v}");
            assert_eq!(v["error"]["path"], "", "{mode} {body}: {v}");
            assert!(v["error"]["byte"].is_null(), "{v}");
        }
    }
    let metrics = server.metrics().await;
    for (series, count) in [
        (
            "bidscan_decode_outcomes_total{encoding=\"json\",outcome=\"not_a_bid_response\"}",
            2.0,
        ),
        (
            "bidscan_decode_outcomes_total{encoding=\"json\",outcome=\"openrtb3_not_supported\"}",
            2.0,
        ),
        (
            "bidscan_http_requests_total{route=\"/decode\",status=\"422\"}",
            4.0,
        ),
    ] {
        assert_eq!(value(&metrics, series), count, "{series}");
    }
    for body in [
        "{}",
        r#"{"id":"r1"}"#,
        r#"{"error":"timeout","nbr":1}"#,
        r#"{"id":"r1","seatbid":[],"x":1}"#,
    ] {
        let (status, v) = json(server.post("/decode", &[], body.as_bytes().to_vec()).await).await;
        assert_eq!(
            (status, &v["status"]),
            (200, &"nobid".into()),
            "{body}: {v}"
        );
    }
    let batch = format!("{}\n{}\n{{\"id\":\"r1\"}}\n", refused[0].0, refused[1].0);
    let res = server
        .post(
            "/decode/batch",
            &[("content-type", "application/x-ndjson")],
            batch.into_bytes(),
        )
        .await;
    assert_eq!(res.status(), 200);
    let text = res.text().await.unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(lines[0]["error"]["code"], "not_a_bid_response");
    assert_eq!(lines[1]["error"]["code"], "openrtb3_not_supported");
    assert_eq!(lines[2]["status"], "nobid");
}

/// `missing_crid` and `zero_price` are errors; an empty `cur` is USD; `"eur"` is read as `EUR` with the warning
/// `currency_case`.
#[tokio::test]
async fn crid_price_and_currency_are_read_as_exchanges_read_them() {
    let server = start(config()).await;
    let doc = |cur: &str| {
        format!(
            r#"{{"id":"r","cur":{cur},"seatbid":[{{"bid":[{{"id":"b","impid":"1","price":0,"adm":"<a/>"}}]}}]}}"#
        )
        .into_bytes()
    };
    let issues = |v: &serde_json::Value| -> Vec<(String, String, String)> {
        v["issues"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                let s = |k: &str| i[k].as_str().unwrap().to_owned();
                (s("path"), s("code"), s("severity"))
            })
            .collect()
    };
    let bid_errors = [
        ("/seatbid/0/bid/0/price", "zero_price", "error"),
        ("/seatbid/0/bid/0/crid", "missing_crid", "error"),
    ]
    .map(|(p, c, s)| (p.to_owned(), c.to_owned(), s.to_owned()));
    let (status, v) = json(server.post("/decode", &[], doc(r#""""#)).await).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(issues(&v), bid_errors.to_vec(), "{v}");
    assert_eq!(v["response"]["cur"], "USD");
    assert_eq!(v["summary"]["cur"], "USD");
    assert_eq!(v["summary"]["errors"], 2);
    let (status, v) = json(
        server
            .post("/decode?mode=strict", &[], doc(r#""eur""#))
            .await,
    )
    .await;
    assert_eq!(status, 200, "a finding never fails a decode: {v}");
    let mut expected = vec![(
        "/cur".to_owned(),
        "currency_case".to_owned(),
        "warning".to_owned(),
    )];
    expected.extend(bid_errors.iter().cloned());
    assert_eq!(issues(&v), expected, "{v}");
    assert_eq!(v["response"]["cur"], "EUR");
    assert_eq!(v["summary"]["cur"], "EUR");
    assert!(
        v["issues"][0]["message"]
            .as_str()
            .unwrap()
            .contains("\"eur\"")
    );
}
