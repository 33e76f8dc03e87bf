//! Interop with standard clients: what a reqwest/hyper client, a raw socket and curl see for
//! compression edge cases, error shapes, protocol variants and the metrics that count them. Each test runs the
//! real server on a loopback port.

use crate::common;

use std::time::Duration;

use common::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A response read off a raw socket: status, headers (lowercased names), body.
struct Raw {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Raw {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "not JSON ({e}): status {} {:?}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }
}

/// Sends `parts` on a fresh connection, one write each with a pause between them, and reads the answer to EOF
/// (requests should say `Connection: close`).
async fn raw(server: &TestServer, parts: &[&[u8]]) -> Raw {
    let addr = server.base.trim_start_matches("http://");
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.set_nodelay(true).unwrap();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
        // A write may fail once the server has answered and closed; the answer is still read below.
        if s.write_all(part).await.is_err() {
            break;
        }
    }
    let mut out = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut out)).await;
    assert!(read.is_ok(), "no EOF within 10 s");
    parse_response(&out)
}

fn parse_response(out: &[u8]) -> Raw {
    let text_end = out
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no response head in {:?}", String::from_utf8_lossy(out)));
    let head = String::from_utf8_lossy(&out[..text_end]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().split(' ').nth(1).unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let mut body = out[text_end + 4..].to_vec();
    if let Some(len) = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse::<usize>().ok())
    {
        body.truncate(len);
    }
    Raw {
        status: status.parse().unwrap(),
        headers,
        body,
    }
}

/// The head of a `POST /decode` with `encoding` and a body of `len` bytes.
fn post_head(encoding: &str, len: usize) -> Vec<u8> {
    format!(
        "POST /decode HTTP/1.1\r\nhost: x\r\ncontent-encoding: {encoding}\r\ncontent-length: {len}\r\nconnection: close\r\n\r\n"
    )
    .into_bytes()
}

/// Bytes after the end of a compressed stream are refused with 400 whether they arrive in the same
/// write as the stream's end or later; a second gzip member is decoded (its document then trails the first).
#[tokio::test]
async fn trailing_bytes_after_compressed_body_are_400_however_split() {
    let server = start(config()).await;
    let doc = corpus_file("nurl_only.json");
    let junk = b"trailing junk".to_vec();
    let cases: Vec<(&str, Vec<u8>, Vec<u8>, &str)> = vec![
        ("gzip", gzip(&doc), junk.clone(), "bad_encoding"),
        ("gzip", gzip(&doc), gzip(&doc), "malformed_json"),
        ("deflate", deflate(&doc), junk.clone(), "bad_encoding"),
        ("deflate", deflate(&doc), deflate(&doc), "bad_encoding"),
        ("br", brotli(&doc), junk.clone(), "bad_encoding"),
        ("zstd", zstd(&doc), junk.clone(), "bad_encoding"),
        ("zstd", zstd(&doc), zstd(&doc), "malformed_json"),
    ];
    for (encoding, stream, trailer, code) in cases {
        let body = [stream.clone(), trailer.clone()].concat();
        let head = post_head(encoding, body.len());
        let whole = [head.clone(), body.clone()].concat();
        let splits: [Vec<&[u8]>; 3] = [
            vec![&whole],
            vec![&head, &body],
            vec![&head, &stream, &trailer],
        ];
        for parts in splits {
            let res = raw(&server, &parts).await;
            let v = res.json();
            assert_eq!(
                (res.status, v["error"]["code"].as_str()),
                (400, Some(code)),
                "{encoding} + {} trailing bytes in {} writes: {v}",
                trailer.len(),
                parts.len()
            );
        }
    }
    // Two gzip members that together hold one document are one body (RFC 1952 §2.2).
    let (a, b) = doc.split_at(doc.len() / 2);
    let body = [gzip(a), gzip(b)].concat();
    let (code, v) = json(
        server
            .post("/decode", &[("content-encoding", "gzip")], body)
            .await,
    )
    .await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["status"], "bid");
}

/// A 413 decided from `Content-Length`, before the handler runs, counts as outcome `too_large`, and has
/// the JSON error shape.
#[tokio::test]
async fn content_length_413_counts_as_too_large() {
    let mut c = config();
    c.server.max_body_bytes = 1000;
    let server = start(c).await;
    let res = server.post("/decode", &[], vec![b' '; 5000]).await;
    assert!(res.headers().contains_key("x-request-id"));
    let (code, v) = json(res).await;
    assert_eq!(code, 413, "{v}");
    assert_eq!(v["error"]["code"], "payload_too_large");
    let series = "bidscan_decode_outcomes_total{encoding=\"json\",outcome=\"too_large\"}";
    assert_eq!(value(&server.metrics().await, series), 1.0);
    // Chunked (no Content-Length): refused while reading, counted once as well.
    let stream = futures_util::stream::iter(
        (0..5).map(|_| Ok::<_, std::io::Error>(bytes::Bytes::from(vec![b' '; 1000]))),
    );
    let res = server
        .client
        .post(server.url("/decode"))
        .body(reqwest::Body::wrap_stream(stream))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 413);
    assert_eq!(value(&server.metrics().await, series), 2.0);
}

/// A UTF-8 byte order mark before the document is ignored with a `utf8_bom` warning (RFC 8259 §8.1);
/// strict mode answers 400 naming it.
#[tokio::test]
async fn utf8_bom_is_a_warning_or_a_strict_400() {
    let server = start(config()).await;
    let doc = corpus_file("nurl_only.json");
    let body = [b"\xEF\xBB\xBF".to_vec(), doc.clone()].concat();
    let (code, v) = json(server.post("/decode", &[], body.clone()).await).await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["status"], "bid");
    assert_eq!(v["issues"][0]["code"], "utf8_bom", "{v}");
    assert_eq!(v["issues"][0]["severity"], "warning");
    assert_eq!(v["issues"][0]["path"], "");
    let (_, plain) = json(server.post("/decode", &[], doc).await).await;
    assert_eq!(
        v["response"], plain["response"],
        "the BOM changes nothing else"
    );
    assert_eq!(
        v["stats"]["bytes"],
        plain["stats"]["bytes"].as_u64().unwrap() + 3
    );

    let (code, v) = json(server.post("/decode?mode=strict", &[], body).await).await;
    assert_eq!(code, 400, "{v}");
    assert_eq!(v["error"]["code"], "malformed_json");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("byte order mark"),
        "{v}"
    );
    assert_eq!(
        (v["error"]["byte"].as_u64(), v["error"]["line"].as_u64()),
        (Some(0), Some(1))
    );
    // A BOM alone is a blank body: a no-bid.
    let (code, v) = json(
        server
            .post("/decode", &[], b"\xEF\xBB\xBF\n".to_vec())
            .await,
    )
    .await;
    assert_eq!((code, v["status"].as_str()), (200, Some("nobid")), "{v}");
}

/// A pretty-printed bid response whose `ext` and object `adm` hold layout, escapes and number text.
const PRETTY: &str = r#"{
  "id": "r1",
  "seatbid": [
    {
      "bid": [
        {
          "id": "b1",
          "impid": "1",
          "price": 1.5,
          "crid": "c1",
          "adm": { "native": { "ver": "1.2", "assets": [ { "id": 1, "title": { "text": "a  b" } } ] } },
          "ext": {
            "prebid": { "type": "native" },
            "s": "x\u003cy \/ \"q\"",
            "n": [ 1.50, 1e3, -0 ]
          }
        }
      ]
    }
  ],
  "ext": {
    "tmax": 200
  }
}"#;

/// Canonical output is compact whatever the input's layout: `ext` and object `adm` lose the whitespace
/// outside strings and keep string escapes and number text as sent; `bidscan decode DIR` prints one line per
/// document.
#[tokio::test]
async fn pretty_printed_ext_and_object_adm_are_echoed_compact() {
    let server = start(config()).await;
    let res = server
        .post("/decode", &[], PRETTY.as_bytes().to_vec())
        .await;
    assert_eq!(res.status(), 200);
    let text = res.text().await.unwrap();
    assert!(!text.contains('\n'), "one line: {text}");
    assert!(
        text.contains(
            r#""ext":{"prebid":{"type":"native"},"s":"x\u003cy \/ \"q\"","n":[1.50,1e3,-0]}"#
        ),
        "{text}"
    );
    assert!(text.contains(r#""ext":{"tmax":200}"#), "{text}");
    assert!(
        text.contains(
            r#""adm":{"native":{"ver":"1.2","assets":[{"id":1,"title":{"text":"a  b"}}]}}"#
        ),
        "{text}"
    );

    let dir = tempfile::tempdir().unwrap();
    for i in 0..3 {
        std::fs::write(dir.path().join(format!("{i}.json")), PRETTY).unwrap();
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bidscan"))
        .args(["decode", dir.path().to_str().unwrap()])
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 3, "{stdout}");
    for line in stdout.lines() {
        assert_eq!(line, text, "the CLI prints what POST /decode answers");
    }
}

/// `identity` in a coding list is no coding; HTTP/1.1 without exactly one `Host` is 400; answers over
/// the threshold on `/metrics` and `/openapi.json` are compressed for clients that ask.
#[tokio::test]
async fn identity_lists_host_rule_and_answer_compression() {
    let server = start(config()).await;
    let doc = corpus_file("vast_020k.json");
    for encoding in ["identity, gzip", "gzip, identity", "identity,GZIP"] {
        let res = server
            .post("/decode", &[("content-encoding", encoding)], gzip(&doc))
            .await;
        assert_eq!(res.status(), 200, "{encoding}");
    }
    let (code, _) = json(
        server
            .post(
                "/decode",
                &[("content-encoding", "gzip, gzip")],
                gzip(&gzip(&doc)),
            )
            .await,
    )
    .await;
    assert_eq!(code, 200, "two codings, undone in reverse order");

    // RFC 9112 §3.2: no Host, or two, is 400; HTTP/1.0 may omit it.
    let body = b"{}";
    for head in [
        "POST /decode HTTP/1.1\r\ncontent-length: 2\r\nconnection: close\r\n\r\n",
        "POST /decode HTTP/1.1\r\nhost: a\r\nhost: b\r\ncontent-length: 2\r\nconnection: close\r\n\r\n",
    ] {
        let res = raw(&server, &[head.as_bytes(), body]).await;
        assert_eq!(res.status, 400, "{head:?}");
        assert_eq!(res.json()["error"]["code"], "bad_host");
        assert!(res.header("x-request-id").is_some());
    }
    let res = raw(
        &server,
        &[b"POST /decode HTTP/1.0\r\ncontent-length: 2\r\n\r\n", body],
    )
    .await;
    assert_eq!(res.status, 200);

    // Answers over 1 KiB of /openapi.json and /metrics are compressed when asked for.
    let plain = server
        .client
        .get(server.url("/openapi.json"))
        .send()
        .await
        .unwrap();
    assert!(plain.headers().get("content-encoding").is_none());
    let plain = plain.bytes().await.unwrap();
    let res = server
        .client
        .get(server.url("/openapi.json"))
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(res.headers()["content-encoding"], "gzip");
    assert!(
        res.headers()["vary"]
            .to_str()
            .unwrap()
            .contains("accept-encoding")
    );
    let packed = res.bytes().await.unwrap();
    assert!(
        packed.len() < plain.len() / 2,
        "{} vs {}",
        packed.len(),
        plain.len()
    );
    let mut unpacked = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(&packed[..]),
        &mut unpacked,
    )
    .unwrap();
    assert_eq!(unpacked, plain, "the same answer, compressed");
    for encoding in ["br", "zstd"] {
        let res = server
            .client
            .get(server.url("/openapi.json"))
            .header("accept-encoding", encoding)
            .send()
            .await
            .unwrap();
        assert_eq!(res.headers()["content-encoding"], encoding);
    }
    let (code, text) = server.get_text("/metrics").await;
    assert_eq!(code, 200);
    assert!(text.contains("bidscan_http_requests_total"));
    let res = server
        .client
        .get(server.url("/metrics"))
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(
        res.headers()["content-encoding"],
        "gzip",
        "scrapes compressed"
    );
}

/// User + system CPU ticks of this process (the server runs in it), from /proc/self/stat.
fn cpu_ticks() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    // Fields after the command name (which is in parentheses): state is field 3, utime 14, stime 15.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

/// `process_cpu_seconds_total` has the kernel's resolution (clock ticks), not whole seconds.
#[tokio::test]
async fn process_cpu_seconds_are_fractional() {
    let server = start(config()).await;
    // Burn CPU until the total is not a whole number of seconds (ticks are 1/100 s on Linux).
    let mut x = 0u64;
    while cpu_ticks().is_multiple_of(100) {
        for i in 0..1_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
    }
    std::hint::black_box(x);
    let before = cpu_ticks();
    let text = server.metrics().await;
    let after = cpu_ticks();
    let scraped = value(&text, "process_cpu_seconds_total");
    assert!(
        (before as f64 / 100.0 - 1e-9..=after as f64 / 100.0 + 1e-9).contains(&scraped),
        "scraped {scraped}, ticks {before}..{after}"
    );
    assert!(scraped.fract() != 0.0 || before != after, "{scraped}");
}

/// Heads hyper refuses itself get the JSON error shape, an `x-request-id`, and a count in
/// `bidscan_http_requests_total{route="unmatched"}`; a request line too long is 414.
#[tokio::test]
async fn refused_heads_have_the_error_shape_and_are_counted() {
    let server = start(config()).await;
    // A 100 KB header, with reqwest.
    let res = server
        .client
        .get(server.url("/healthz"))
        .header("x-big", "a".repeat(100_000))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 431);
    assert!(res.headers().contains_key("x-request-id"));
    let (_, v) = json(res).await;
    assert_eq!(v["error"]["code"], "header_fields_too_large", "{v}");
    assert!(v["error"].as_object().unwrap().contains_key("path"));

    // 2,000 headers.
    let mut req = server.client.get(server.url("/healthz"));
    for i in 0..2000 {
        req = req.header(format!("x-h{i}"), "1");
    }
    let res = req.send().await.unwrap();
    assert_eq!(res.status(), 431);
    assert!(res.headers().contains_key("x-request-id"));
    assert_eq!(
        json(res).await.1["error"]["code"],
        "header_fields_too_large"
    );

    // A NUL byte in a header value and a 70 KB request line, on raw sockets (clients refuse to send them).
    let res = raw(
        &server,
        &[b"GET /healthz HTTP/1.1\r\nhost: x\r\nx-nul: a\0b\r\nconnection: close\r\n\r\n"],
    )
    .await;
    assert_eq!(res.status, 400);
    assert!(res.header("x-request-id").is_some());
    assert_eq!(res.json()["error"]["code"], "bad_request");

    let line = format!(
        "GET /healthz?{} HTTP/1.1\r\nhost: x\r\n\r\n",
        "q".repeat(70_000)
    );
    let res = raw(&server, &[line.as_bytes()]).await;
    assert_eq!(res.status, 414);
    assert!(res.header("x-request-id").is_some());
    assert_eq!(res.json()["error"]["code"], "uri_too_long");

    let text = server.metrics().await;
    for (status, n) in [("431", 2.0), ("400", 1.0), ("414", 1.0)] {
        let series =
            format!("bidscan_http_requests_total{{route=\"unmatched\",status=\"{status}\"}}");
        assert_eq!(value(&text, &series), n, "{series}");
    }
    // Kept-alive connections still work after a refused head elsewhere, and answers of the service itself are
    // left alone.
    let (code, v) = json(server.post("/decode", &[], b"{\"id\":".to_vec()).await).await;
    assert_eq!(
        (code, v["error"]["code"].as_str()),
        (400, Some("malformed_json"))
    );
}

/// HTTP/2 with prior knowledge (h2c), as Envoy and meshes speak to upstreams: the same answers as
/// HTTP/1.1, many streams on one connection.
#[tokio::test]
async fn h2c_prior_knowledge_is_served() {
    let server = start(config()).await;
    let h2 = crate::common::client_builder()
        .http2_prior_knowledge()
        .build()
        .unwrap();
    let doc = corpus_file("vast_020k.json");
    let res = h2
        .post(server.url("/decode"))
        .header("content-encoding", "gzip")
        .body(gzip(&doc))
        .send()
        .await
        .unwrap();
    assert_eq!(res.version(), reqwest::Version::HTTP_2);
    assert!(res.headers().contains_key("x-request-id"));
    let (code, v) = json(res).await;
    assert_eq!((code, v["status"].as_str()), (200, Some("bid")), "{v}");
    let (_, over_h1) = json(server.post("/decode", &[], doc.clone()).await).await;
    assert_eq!(v, over_h1, "the same answer as HTTP/1.1");

    // Concurrent streams on the one connection reqwest keeps.
    let answers = futures_util::future::join_all(
        (0..32).map(|_| h2.post(server.url("/decode")).body(doc.clone()).send()),
    )
    .await;
    for res in answers {
        let res = res.unwrap();
        assert_eq!(
            (res.version(), res.status().as_u16()),
            (reqwest::Version::HTTP_2, 200)
        );
    }
    let res = h2.get(server.url("/nope")).send().await.unwrap();
    assert_eq!(res.status(), 404);
    assert_eq!(json(res).await.1["error"]["code"], "not_found");
    let text = server.metrics().await;
    assert_eq!(
        value(
            &text,
            "bidscan_http_requests_total{route=\"/decode\",status=\"200\"}"
        ),
        34.0
    );

    // And curl, when it is installed (CI installs it): `--http2-prior-knowledge` gets the same 200.
    // (An async process: the server answers on this test's runtime thread.)
    if let Ok(out) = tokio::process::Command::new("curl")
        .args([
            "-sS",
            "--http2-prior-knowledge",
            "-o",
            "/dev/null",
            "-w",
            "%{http_version} %{http_code}",
        ])
        .arg(server.url("/healthz"))
        .output()
        .await
    {
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "2 200",
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// OpenAPI: no rustdoc link syntax in the text, positions counted from 1, every answer a route can give
/// listed with `x-request-id`, and the decode bodies optional (an empty body is a no-bid) with their content
/// types and examples.
#[tokio::test]
async fn openapi_document_matches_the_server() {
    let server = start(config()).await;
    let (code, text) = server.get_text("/openapi.json").await;
    assert_eq!(code, 200);
    assert!(!text.contains("[`"), "rustdoc links leak into the document");
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let fields = &doc["components"]["schemas"]["ErrorFields"]["properties"];
    assert_eq!(fields["line"]["minimum"], 1, "{fields}");
    assert_eq!(fields["column"]["minimum"], 1);
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let responses = op["responses"].as_object().unwrap();
            for status in ["405", "414", "431", "500"] {
                assert!(
                    responses.contains_key(status),
                    "{method} {path} lacks {status}"
                );
            }
            for (status, res) in responses {
                assert!(
                    res["headers"]["x-request-id"].is_object(),
                    "{method} {path} {status} lacks x-request-id"
                );
            }
        }
    }
    let decode = &doc["paths"]["/decode"]["post"];
    assert_eq!(decode["requestBody"]["required"], false);
    assert!(decode["requestBody"]["content"]["application/json"]["example"]["seatbid"].is_array());
    assert!(decode["responses"]["413"].is_object());
    let batch = &doc["paths"]["/decode/batch"]["post"]["requestBody"];
    assert_eq!(batch["required"], false);
    assert!(batch["content"]["application/x-ndjson"].is_object());
    assert!(doc["components"]["responses"]["NotFound"].is_object());
    // The example request is what the server decodes as a bid.
    let example =
        serde_json::to_vec(&decode["requestBody"]["content"]["application/json"]["example"])
            .unwrap();
    let (code, v) = json(server.post("/decode", &[], example).await).await;
    assert_eq!((code, v["status"].as_str()), (200, Some("bid")), "{v}");
    let (code, v) = json(server.post("/decode", &[], Vec::new()).await).await;
    assert_eq!(
        (code, v["status"].as_str()),
        (200, Some("nobid")),
        "an empty body is a no-bid"
    );
}

/// `/decode` and `/validate` answers (the pipeline's) over 1 KiB are compressed with the coding
/// the client's `Accept-Encoding` prefers, with `Vary`; the same answer once undone; small answers (a no-bid) and
/// clients that do not ask get the answer as it is.
#[tokio::test]
async fn decode_and_validate_answers_are_compressed_when_asked() {
    let server = start(config()).await;
    let doc = corpus_file("vast_020k.json");
    let plain = server.post("/decode", &[], doc.clone()).await;
    assert_eq!(plain.status(), 200);
    assert!(plain.headers().get("content-encoding").is_none());
    // Not asked for a coding, still an answer that varies by `Accept-Encoding` (as the router's routes say).
    assert_eq!(plain.headers()["vary"], "accept-encoding");
    let plain = plain.bytes().await.unwrap().to_vec();
    assert!(plain.len() > 1024, "{} bytes", plain.len());
    for coding in ["gzip", "br", "zstd", "deflate"] {
        let res = server
            .post("/decode", &[("accept-encoding", coding)], doc.clone())
            .await;
        assert_eq!(res.status(), 200, "{coding}");
        assert_eq!(res.headers()["content-encoding"], coding);
        assert!(
            res.headers()["vary"]
                .to_str()
                .unwrap()
                .contains("accept-encoding"),
            "{coding}"
        );
        assert!(res.headers().get("x-request-id").is_some(), "{coding}");
        let packed = res.bytes().await.unwrap();
        assert!(
            packed.len() < plain.len(),
            "{coding}: {} bytes",
            packed.len()
        );
        assert_eq!(undo(coding, &packed), plain, "{coding}: the same answer");
    }
    // q-values choose, q=0 refuses (RFC 9110 §12.5.3).
    let res = server
        .post(
            "/decode",
            &[("accept-encoding", "gzip;q=0.2, br;q=0.9")],
            doc.clone(),
        )
        .await;
    assert_eq!(res.headers()["content-encoding"], "br");
    let res = server
        .post("/decode", &[("accept-encoding", "gzip;q=0")], doc.clone())
        .await;
    assert!(res.headers().get("content-encoding").is_none());
    assert_eq!(res.bytes().await.unwrap().to_vec(), plain);

    // A no-bid's answer is under the threshold: sent as it is.
    let res = server
        .post(
            "/decode",
            &[("accept-encoding", "gzip")],
            br#"{"id":"1","nbr":2}"#.to_vec(),
        )
        .await;
    assert_eq!(res.status(), 200);
    assert!(res.headers().get("content-encoding").is_none());
    let (_, v) = json(res).await;
    assert_eq!(v["response"]["nbr"], 2, "{v}");

    // /validate: the envelope of a real pair with a VAST answer, compressed likewise.
    let pair = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../corpus/validate-pairs/adf_multi-format.json"
    ))
    .unwrap();
    let plain = server.post("/validate", &[], pair.clone()).await;
    assert_eq!(plain.status(), 200);
    assert_eq!(plain.headers()["vary"], "accept-encoding");
    let plain = plain.bytes().await.unwrap().to_vec();
    assert!(
        plain.len() > 1024,
        "the pair's answer: {} bytes",
        plain.len()
    );
    let res = server
        .post("/validate", &[("accept-encoding", "gzip")], pair)
        .await;
    assert_eq!(res.headers()["content-encoding"], "gzip");
    assert_eq!(undo("gzip", &res.bytes().await.unwrap()), plain);
}

/// `packed` decoded from `coding`.
fn undo(coding: &str, packed: &[u8]) -> Vec<u8> {
    use std::io::Read;
    let mut out = Vec::new();
    match coding {
        "gzip" => flate2::read::GzDecoder::new(packed)
            .read_to_end(&mut out)
            .map(|_| ()),
        "deflate" => flate2::read::ZlibDecoder::new(packed)
            .read_to_end(&mut out)
            .map(|_| ()),
        "br" => brotli::Decompressor::new(packed, 4096)
            .read_to_end(&mut out)
            .map(|_| ()),
        "zstd" => zstd::stream::read::Decoder::new(packed)
            .unwrap()
            .read_to_end(&mut out)
            .map(|_| ()),
        other => panic!("{other}"),
    }
    .unwrap();
    out
}
