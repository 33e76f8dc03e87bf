//! POST /decode against the real server: the corpus (plain and compressed), and every error status.

mod common;

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
            "bidscan_decode_outcomes_total{outcome=\"too_large\"}"
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
/// router's compressed routes alike (found by a fresh tester, session 8).
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
