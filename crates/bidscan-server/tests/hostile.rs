//! Hostile bodies against the real server (in process, `127.0.0.1:0`): each case has one stated answer, listed
//! in RELIABILITY.md §2. After every case the server must still answer a normal request (nothing crashed, nothing
//! stuck). The memory-heavy cases (gzip bomb, 50 MB `adm`, a million bids) are in `hostile_memory.rs`, slow
//! clients in `hostile_slow.rs`.

use crate::common;

use common::*;
use serde_json::Value;

/// POSTs `body` to `/decode` + `query` and returns status and JSON.
async fn decode(server: &TestServer, query: &str, body: impl Into<Vec<u8>>) -> (u16, Value) {
    json(
        server
            .post(&format!("/decode{query}"), &[], body.into())
            .await,
    )
    .await
}

/// The server still decodes a corpus document.
async fn still_serves(server: &TestServer) {
    let (code, v) = decode(server, "?view=summary", corpus_file("banner_go_004k.json")).await;
    assert_eq!(code, 200, "{v}");
}

/// A bid response with one bid whose members are `members` (raw JSON text, without braces).
fn one_bid(members: &str) -> Vec<u8> {
    format!(r#"{{"id":"r","seatbid":[{{"seat":"s","bid":[{{"id":"b","impid":"1","crid":"c",{members}}}]}}]}}"#)
        .into_bytes()
}

fn assert_error(code: u16, v: &Value, status: u16, error: &str) {
    assert_eq!(code, status, "{v}");
    assert_eq!(v["error"]["code"], error, "{v}");
}

fn issue_codes(v: &Value) -> Vec<String> {
    v["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            format!(
                "{} {}",
                i["code"].as_str().unwrap(),
                i["path"].as_str().unwrap()
            )
        })
        .collect()
}

#[tokio::test]
async fn nesting_100_000_deep_is_400_wherever_it_is() {
    let server = start(config()).await;
    let deep =
        |open: &str, close: &str| format!("{}{}", open.repeat(100_000), close.repeat(100_000));
    let arrays = deep("[", "]");
    let objects = deep(r#"{"a":"#, "}");
    let cases = [
        // Inside `ext` (kept as raw JSON: validated by the raw path).
        format!(r#"{{"id":"r","ext":{{"x":{arrays}}}}}"#),
        // Inside an unknown member (skipped, yet validated).
        format!(r#"{{"id":"r","unknown":{objects}}}"#),
        // Inside a bid's ext.
        String::from_utf8(one_bid(&format!(r#""price":1,"ext":{{"x":{arrays}}}"#))).unwrap(),
        // Never closed.
        format!(r#"{{"id":"r","ext":{{"x":{}"#, "[".repeat(100_000)),
    ];
    for (i, body) in cases.into_iter().enumerate() {
        let (code, v) = decode(&server, "", body).await;
        assert_error(code, &v, 400, "malformed_json");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(message.contains("recursion limit"), "case {i}: {message}");
        // The depth limit (128) is met long before the end: the error is near the start.
        assert!(
            v["error"]["byte"].as_u64().unwrap() < 1_000,
            "case {i}: {v}"
        );
    }
    // A top-level array is read (grammar and depth checked, as any JSON) before its shape is refused, so one
    // this deep is malformed too; a shallow one is not a bid response.
    let (code, v) = decode(&server, "", arrays).await;
    assert_error(code, &v, 400, "malformed_json");
    assert!(v["error"]["byte"].as_u64().unwrap() < 1_000, "{v}");
    let (code, v) = decode(&server, "", format!("{}{}", "[".repeat(10), "]".repeat(10))).await;
    assert_error(code, &v, 422, "not_a_bid_response");
    // Deep but within the limit decodes (121 levels: the answer's envelope adds two, and a serde_json client
    // reads at most 127).
    let (code, v) = decode(
        &server,
        "",
        format!(r#"{{"id":"r","ext":{}}}"#, deep_within(120)),
    )
    .await;
    assert_eq!(code, 200, "{v}");
    still_serves(&server).await;
}

/// An object nested `levels` deep: `{"a":{"a":…{}…}}`.
fn deep_within(levels: usize) -> String {
    format!(
        "{}{{}}{}",
        r#"{"a":"#.repeat(levels - 1),
        "}".repeat(levels - 1)
    )
}

#[tokio::test]
async fn invalid_utf8_is_400_at_its_byte() {
    let server = start(config()).await;
    for bad in [
        &b"\xff"[..],             // never valid
        &b"\xc0\xaf"[..],         // overlong '/'
        &b"\xed\xa0\x80"[..],     // a surrogate encoded in UTF-8
        &b"\xf4\x90\x80\x80"[..], // past U+10FFFF
        &b"\xe2\x82"[..],         // truncated sequence
    ] {
        for member in ["adm", "unknown"] {
            let mut doc = format!(
                r#"{{"id":"r","seatbid":[{{"bid":[{{"id":"b","impid":"1","price":1,"{member}":"ok "#
            )
            .into_bytes();
            let offset = doc.len();
            doc.extend_from_slice(bad);
            doc.extend_from_slice(br#""}]}]}"#);
            let (code, v) = decode(&server, "", doc).await;
            assert_error(code, &v, 400, "malformed_json");
            assert!(
                v["error"]["message"].as_str().unwrap().contains("UTF-8"),
                "{v}"
            );
            assert_eq!(v["error"]["byte"], offset, "{bad:?} in {member}: {v}");
        }
    }
    still_serves(&server).await;
}

#[tokio::test]
async fn lone_surrogates_are_400_and_pairs_decode() {
    let server = start(config()).await;
    for escaped in [
        r"\ud800",
        r"\udfff",
        r"\udc00\ud800",
        r"\ud800x",
        r"\ud800\u0041",
    ] {
        for member in [r#""adm""#, r#""ext":{"x""#, r#""unknown""#] {
            let close = if member.contains('{') { "}" } else { "" };
            let body = one_bid(&format!(r#""price":1,{member}:"a{escaped}b"{close}"#));
            let (code, v) = decode(&server, "", body).await;
            assert_error(code, &v, 400, "malformed_json");
            assert!(
                v["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("surrogate"),
                "{escaped} in {member}: {v}"
            );
        }
    }
    let (code, v) = decode(
        &server,
        "",
        one_bid(r#""price":1,"adm":"\ud83d\ude00 \uD834\uDD1E""#),
    )
    .await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(
        v["response"]["seatbid"][0]["bid"][0]["adm"],
        "\u{1F600} \u{1D11E}"
    );
    still_serves(&server).await;
}

#[tokio::test]
async fn nul_bytes_raw_are_400_escaped_are_kept() {
    let server = start(config()).await;
    // A raw NUL inside a string is a control character (RFC 8259 §7).
    let mut body = one_bid(r#""price":1,"adm":"a"#);
    body.truncate(body.len() - 6); // drop `"}]}]}`
    let at = body.len();
    body.extend_from_slice(b"\0b\"}]}]}");
    let (code, v) = decode(&server, "", body).await;
    assert_error(code, &v, 400, "malformed_json");
    assert_eq!(v["error"]["byte"], at, "{v}");
    // Between tokens, after the document, or the whole body.
    for body in [
        b"{\"id\":\0\"r\"}".to_vec(),
        b"{\"id\":\"r\"}\0".to_vec(),
        vec![0u8; 1024],
    ] {
        let (code, v) = decode(&server, "", body).await;
        assert_error(code, &v, 400, "malformed_json");
    }
    // Escaped, it is a character like any other: kept, and escaped again in the output.
    let (code, v) = decode(&server, "", one_bid(r#""price":1,"adm":"a\u0000b""#)).await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["response"]["seatbid"][0]["bid"][0]["adm"], "a\u{0}b");
    still_serves(&server).await;
}

#[tokio::test]
async fn duplicate_keys_last_wins_with_a_warning_and_fail_in_strict_mode() {
    let server = start(config()).await;
    let body = br#"{"id":"first","id":"second","seatbid":[{"bid":[{"id":"b","impid":"1","crid":"c","adm":"a","price":1,"price":2}]}]}"#;
    let (code, v) = decode(&server, "", body.to_vec()).await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["response"]["id"], "second", "{v}");
    assert_eq!(v["response"]["seatbid"][0]["bid"][0]["price"], 2.0, "{v}");
    let codes = issue_codes(&v);
    assert!(
        codes.contains(&"duplicate_field /id".to_owned()),
        "{codes:?}"
    );
    assert!(
        codes.contains(&"duplicate_field /seatbid/0/bid/0/price".to_owned()),
        "{codes:?}"
    );
    let (code, v) = decode(&server, "?mode=strict", body.to_vec()).await;
    assert_eq!(code, 422, "{v}");
    assert_eq!(v["error"]["path"], "/id", "{v}");
    still_serves(&server).await;
}

#[tokio::test]
async fn extreme_numbers_have_stated_answers() {
    let server = start(config()).await;
    // Out of f64 range (RFC 8259 §6 lets a reader limit the range): the number is read as infinity, so it is a
    // finding on its member and never fails the response. A price: `price_not_finite`, written as null, the bid
    // invalid; an integer member: `out_of_range`; a skipped member: accepted.
    for (members, finding) in [
        (
            r#""adm":"a","price":1e400"#,
            Some("price_not_finite /seatbid/0/bid/0/price"),
        ),
        (
            r#""adm":"a","price":-1e400"#,
            Some("price_not_finite /seatbid/0/bid/0/price"),
        ),
        (
            r#""adm":"a","price":1,"w":1e400"#,
            Some("out_of_range /seatbid/0/bid/0/w"),
        ),
        (r#""adm":"a","price":1,"unknown":[1e400, -2E+999]"#, None),
    ] {
        let (code, v) = decode(&server, "", one_bid(members)).await;
        assert_eq!(code, 200, "{members}: {v}");
        let codes = issue_codes(&v);
        let bid = &v["response"]["seatbid"][0]["bid"][0];
        match finding {
            Some(finding) => assert!(codes.contains(&finding.to_owned()), "{members}: {codes:?}"),
            None => assert!(codes.is_empty(), "{members}: {codes:?}"),
        }
        if finding.is_some_and(|f| f.starts_with("price")) {
            assert!(bid["price"].is_null(), "{members}: {v}");
        } else {
            assert_eq!(bid["price"], 1.0, "{members}: {v}");
        }
        let (code, _) = decode(&server, "?mode=strict", one_bid(members)).await;
        // Strict mode fails on a coercion (`out_of_range`), not on a rule's finding (`price_not_finite`).
        let coerced = finding.is_some_and(|f| f.starts_with("out_of_range"));
        let strict = if coerced { 422 } else { 200 };
        assert_eq!(code, strict, "{members}");
    }
    // A raw `ext` is answered verbatim (valid JSON text, though a serde_json client refuses it too).
    let res = server
        .post(
            "/decode",
            &[],
            one_bid(r#""adm":"a","price":1,"ext":{"x":1e400}"#),
        )
        .await;
    assert_eq!(res.status().as_u16(), 200);
    let text = res.text().await.unwrap();
    assert!(text.contains(r#""ext":{"x":1e400}"#), "{text}");
    // Still malformed: a number that breaks the grammar, past the range or not.
    for members in [
        r#""price":1e"#,
        r#""price":-"#,
        r#""price":1e400.5"#,
        r#""price":01e400"#,
    ] {
        let (code, v) = decode(&server, "", one_bid(members)).await;
        assert_error(code, &v, 400, "malformed_json");
    }
    // Underflow rounds to zero (exactly as serde_json and strtod do): a zero price without a deal is an error issue.
    let (code, v) = decode(&server, "", one_bid(r#""adm":"a","price":1e-400"#)).await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["response"]["seatbid"][0]["bid"][0]["price"], 0.0);
    assert!(
        issue_codes(&v).iter().any(|c| c.starts_with("zero_price")),
        "{v}"
    );
    // -0 is zero.
    let (code, v) = decode(&server, "", one_bid(r#""adm":"a","price":-0"#)).await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(
        v["response"]["seatbid"][0]["bid"][0]["price"].as_f64(),
        Some(0.0),
        "{v}"
    );
    assert!(
        issue_codes(&v).iter().any(|c| c.starts_with("zero_price")),
        "{v}"
    );
    // A string that overflows (lenient: numbers as strings are read as numbers): infinity, reported as an error
    // issue, and written as null (JSON has no infinity).
    let (code, v) = decode(&server, "", one_bid(r#""adm":"a","price":"1e400""#)).await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(
        issue_codes(&v),
        [
            "number_as_string /seatbid/0/bid/0/price",
            "price_not_finite /seatbid/0/bid/0/price"
        ],
        "{v}"
    );
    assert!(
        v["response"]["seatbid"][0]["bid"][0]["price"].is_null(),
        "{v}"
    );
    let (code, _) = decode(
        &server,
        "?mode=strict",
        one_bid(r#""adm":"a","price":"1e400""#),
    )
    .await;
    assert_eq!(code, 422);
    // Integers past 64 bits where an integer is expected: out of range, an error issue.
    let (code, v) = decode(
        &server,
        "",
        one_bid(r#""adm":"a","price":1,"w":18446744073709551616,"h":-0"#),
    )
    .await;
    assert_eq!(code, 200, "{v}");
    let codes = issue_codes(&v);
    assert!(codes.iter().any(|c| c.ends_with("/w")), "{codes:?}");
    still_serves(&server).await;
}

/// An error answered before the body was read reaches hyper's client (reqwest) as the
/// status, not as `IncompleteMessage`: the answer says `Connection: close` and the server reads and discards
/// the rest of the body before closing (lingering close), so no TCP reset destroys the answer. An error answered
/// after the whole body was read keeps the connection alive.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn early_answers_reach_hyper_clients_and_close_the_connection() {
    let mut c = config();
    c.server.max_body_bytes = 64 * 1024;
    let server = start(c).await;
    let big = vec![b' '; 8 << 20]; // 8 MiB, refused from its Content-Length
    for _ in 0..10 {
        let res = server.post("/decode", &[], big.clone()).await;
        assert_eq!(res.headers()["connection"], "close");
        let (code, v) = json(res).await;
        assert_error(code, &v, 413, "payload_too_large");
    }
    // Under the limit but refused from its Content-Type, before the body is read.
    let res = server
        .post(
            "/decode",
            &[("content-type", "text/xml")],
            vec![b' '; 60 * 1024],
        )
        .await;
    assert_eq!(res.headers()["connection"], "close");
    let (code, v) = json(res).await;
    assert_error(code, &v, 415, "unsupported_media_type");
    // The body was read to its end: the connection stays open for the next request.
    let res = server.post("/decode", &[], b"{".to_vec()).await;
    assert!(
        !res.headers().contains_key("connection"),
        "{:?}",
        res.headers()
    );
    assert_eq!(res.status(), 400);
    still_serves(&server).await;
}

/// A request head larger than the connection's read buffer (64 KiB) is refused with 431, whatever the route.
#[tokio::test]
async fn a_request_head_over_64_kib_is_431() {
    let server = start(config()).await;
    let res = server
        .client
        .get(server.url("/healthz"))
        .header("x-padding", "a".repeat(100 * 1024))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 431);
    let res = server
        .client
        .get(server.url("/healthz"))
        .header("x-padding", "a".repeat(16 * 1024))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    still_serves(&server).await;
}
