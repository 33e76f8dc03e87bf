//! The auction's multipart body (`bidscan_server::auction_parts`): the reader's grammar and errors, each part's
//! decompression and limits, the replies judged by `bidscan_openrtb::Auction` from real pairs of
//! `corpus/validate-pairs/`, and the reader against multer (axum's) on generated bodies.

use std::io::Write;
use std::path::PathBuf;

use bidscan_json::Reader;
use bidscan_openrtb::rules::{Policy, Validated};
use bidscan_openrtb::{Auction, Inspector, Mode};
use bidscan_server::auction_parts::multipart::{self, BidderStatus, Error};
use bidscan_server::auction_parts::{AuctionParts, CallError, Limits};
use futures_util::FutureExt;
use proptest::prelude::*;
use serde_json::Value;

const BOUNDARY: &str = "XyZ-7d3c";

const LIMITS: Limits = Limits {
    max_parts: 16,
    max_part_bytes: 4096,
};

/// One part: name, extra header lines, content.
type Part<'p> = (&'p str, &'p [&'p str], &'p [u8]);

/// A multipart body of `parts` delimited by [`BOUNDARY`].
fn body(parts: &[Part<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, headers, content) in parts {
        write!(
            out,
            "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n"
        )
        .unwrap();
        for h in *headers {
            write!(out, "{h}\r\n").unwrap();
        }
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(content);
        out.extend_from_slice(b"\r\n");
    }
    write!(out, "--{BOUNDARY}--\r\n").unwrap();
    out
}

fn read(body: &[u8]) -> Result<multipart::Parts, Error> {
    multipart::read(body, BOUNDARY, LIMITS.max_parts)
}

/// A real pair's request and response bytes.
fn pair(name: &str) -> (Vec<u8>, Vec<u8>) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../corpus/validate-pairs")
        .join(name);
    let v: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    (
        serde_json::to_vec(&v["request"]).unwrap(),
        serde_json::to_vec(&v["response"]).unwrap(),
    )
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

#[test]
fn the_boundary_comes_from_the_content_type() {
    assert_eq!(
        multipart::boundary("multipart/form-data; boundary=abc"),
        Ok("abc")
    );
    assert_eq!(
        multipart::boundary("Multipart/Form-Data;charset=utf-8; BOUNDARY=\"a b\""),
        Ok("a b")
    );
    for bad in [
        "application/json",
        "multipart/form-data",
        "multipart/form-data; boundary=",
        "multipart/mixed; boundary=abc",
    ] {
        assert!(
            matches!(multipart::boundary(bad), Err(Error::NotMultipart(_))),
            "{bad}"
        );
    }
    let long = format!("multipart/form-data; boundary={}", "a".repeat(71));
    assert!(multipart::boundary(&long).is_err());
}

#[test]
fn parts_are_located_named_and_the_request_found_anywhere() {
    let b = body(&[
        ("a.b-c_1", &[], b"{\"x\":1}"),
        (
            "request",
            &["Content-Type: application/json"],
            b"{\"id\":\"r\"}",
        ),
        ("empty", &[], b""),
        ("slow", &["x-bidder-status: Timeout"], b""),
        ("gone", &["X-Bidder-Status: unreachable"], b""),
        ("failing", &["X-Bidder-Status: http-503"], b""),
        ("zipped", &["Content-Encoding: gzip"], b"\x1f\x8b"),
    ]);
    let parts = read(&b).unwrap();
    assert_eq!(&b[parts.request.clone()], b"{\"id\":\"r\"}");
    assert_eq!(parts.request_encoding, None);
    let names: Vec<&str> = parts.bidders.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        ["a.b-c_1", "empty", "slow", "gone", "failing", "zipped"]
    );
    assert_eq!(&b[parts.bidders[0].content.clone()], b"{\"x\":1}");
    assert!(parts.bidders[1].content.is_empty());
    let statuses: Vec<Option<BidderStatus>> = parts.bidders.iter().map(|p| p.status).collect();
    assert_eq!(
        statuses,
        [
            None,
            None,
            Some(BidderStatus::Timeout),
            Some(BidderStatus::Unreachable),
            Some(BidderStatus::Http(503)),
            None
        ]
    );
    assert_eq!(parts.bidders[5].content_encoding.as_deref(), Some("gzip"));
    // A preamble, transport padding, a token name and an epilogue.
    let text = format!(
        "preamble\r\n--{BOUNDARY}  \r\ncontent-disposition: form-data; name=request\r\n\r\n{{}}\r\n--{BOUNDARY}--epilogue"
    );
    let parts = read(text.as_bytes()).unwrap();
    assert_eq!(&text.as_bytes()[parts.request], b"{}");
}

#[test]
fn call_level_errors() {
    let too_long = "a".repeat(65);
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (body(&[("b", &[], b"{}")]), "missing_request"),
        (
            body(&[("request", &[], b"{}"), ("b c", &[], b"{}")]),
            "bad_bidder_name",
        ),
        (
            body(&[("request", &[], b"{}"), (&too_long, &[], b"{}")]),
            "bad_bidder_name",
        ),
        (
            body(&[("request", &[], b"{}"), ("", &[], b"{}")]),
            "bad_bidder_name",
        ),
        (
            body(&[
                ("request", &[], b"{}"),
                ("b", &[], b"{}"),
                ("b", &[], b"{}"),
            ]),
            "duplicate_bidder",
        ),
        (
            body(&[("request", &[], b"{}"), ("request", &[], b"{}")]),
            "duplicate_bidder",
        ),
        (
            body(&[
                ("request", &[], b"{}"),
                ("b", &["X-Bidder-Status: late"], b""),
            ]),
            "bad_bidder_status",
        ),
        (
            body(&[
                ("request", &[], b"{}"),
                ("b", &["X-Bidder-Status: http-99"], b""),
            ]),
            "bad_bidder_status",
        ),
        (
            body(&[("request", &["X-Bidder-Status: timeout"], b"{}")]),
            "bad_bidder_status",
        ),
        (b"no delimiter at all".to_vec(), "malformed_multipart"),
        (
            format!("--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"request\"\r\n\r\n{{}}")
                .into_bytes(),
            "malformed_multipart",
        ),
        (
            format!("--{BOUNDARY}\r\nContent-Type: text/plain\r\n\r\n{{}}\r\n--{BOUNDARY}--")
                .into_bytes(),
            "malformed_multipart",
        ),
        (
            format!("--{BOUNDARY}\r\nno colon\r\n\r\n{{}}\r\n--{BOUNDARY}--").into_bytes(),
            "malformed_multipart",
        ),
    ];
    for (b, code) in cases {
        let e = read(&b).unwrap_err();
        assert_eq!(e.code(), code, "{e} in {:?}", String::from_utf8_lossy(&b));
        assert!(!e.to_string().is_empty());
    }
    let many: Vec<String> = (0..16).map(|i| format!("b{i}")).collect();
    let mut parts: Vec<Part<'_>> = vec![("request", &[], b"{}")];
    parts.extend(many.iter().map(|n| (n.as_str(), &[][..], &b"{}"[..])));
    assert_eq!(read(&body(&parts)).unwrap_err(), Error::TooManyParts(16));
    parts.pop();
    assert!(read(&body(&parts)).is_ok());
}

/// An auction of a real pair's request and bidders answering in every way a part can, judged: each bidder's
/// status, its codes for every imp, and the good bodies' verdicts equal `/validate`'s for the same pair.
#[tokio::test]
async fn every_kind_of_part_gets_its_bidder_status() {
    let (request, response) = pair("aax_multi-imps.json");
    let zipped = gzip(&response);
    let oversized = vec![b' '; LIMITS.max_part_bytes + 1];
    // A gzip body that inflates past the part limit: a bomb stays a bidder's problem.
    let bomb = gzip(&vec![b' '; LIMITS.max_part_bytes * 4]);
    let truncated = &response[..response.len() / 2];
    let b = body(&[
        ("good", &[], &response),
        ("empty", &[], b""),
        ("html", &[], b"<html><body>Bad Gateway</body></html>"),
        ("truncated", &[], truncated),
        ("request", &[], &request),
        ("zipped", &["Content-Encoding: gzip"], &zipped),
        ("oversized", &[], &oversized),
        ("bomb", &["Content-Encoding: gzip"], &bomb),
        ("garbled", &["Content-Encoding: gzip"], b"not gzip"),
        ("unknown-coding", &["Content-Encoding: compress"], b"x"),
        ("slow", &["X-Bidder-Status: timeout"], b""),
        ("gone", &["X-Bidder-Status: unreachable"], b""),
        ("failing", &["X-Bidder-Status: http-500"], b""),
    ]);
    let limits = Limits {
        max_parts: 16,
        ..LIMITS
    };
    let content_type = format!("multipart/form-data; boundary={BOUNDARY}");
    let mut parts = AuctionParts::read(b, &content_type, limits).await.unwrap();
    let (request_bytes, replies) = parts.replies();
    let mut reader = Reader::default();
    let mut inspector = Inspector::new();
    let policy = Policy::default();
    let mut auction = Auction::decode_request(&mut reader, request_bytes).unwrap();
    for (name, reply) in replies {
        auction.add(
            &mut reader,
            name,
            reply,
            Mode::Lenient,
            Some(&mut inspector),
            &policy,
        );
    }
    let answer = serde_json::to_value(auction.answer(false)).unwrap();
    let expect = [
        ("good", "bid", None),
        ("empty", "nobid", None),
        ("html", "invalid", Some(("not_a_bid_response", 102))),
        ("truncated", "invalid", Some(("malformed_json", 102))),
        ("zipped", "bid", None),
        ("oversized", "invalid", Some(("body_too_large", 102))),
        ("bomb", "invalid", Some(("body_too_large", 102))),
        ("garbled", "invalid", Some(("bad_encoding", 102))),
        (
            "unknown-coding",
            "invalid",
            Some(("unsupported_encoding", 102)),
        ),
        ("slow", "timeout", Some(("bidder_timeout", 101))),
        ("gone", "unreachable", Some(("bidder_unreachable", 103))),
        ("failing", "error", Some(("bidder_http_status", 100))),
    ];
    let bidders = answer["bidders"].as_array().unwrap();
    assert_eq!(bidders.len(), expect.len());
    let validated = validate(&request, &response);
    for (bidder, (name, status, finding)) in bidders.iter().zip(expect) {
        assert_eq!(bidder["bidder"], name);
        assert_eq!(bidder["status"], status, "{bidder}");
        match finding {
            Some((code, statuscode)) => {
                assert_eq!(bidder["issues"][0]["code"], code, "{bidder}");
                let nonbid = bidder["seatnonbid"][0]["nonbid"].as_array().unwrap();
                assert_eq!(nonbid.len(), 2, "one per imp");
                assert!(nonbid.iter().all(|n| n["statuscode"] == statuscode));
            }
            None if status == "bid" => {
                let mine = serde_json::json!({
                    "summary": bidder["summary"], "issues": bidder["issues"],
                    "seatnonbid": bidder["seatnonbid"],
                });
                if name == "good" {
                    assert_eq!(mine, validated);
                } else {
                    // The same response a second time: its bid id repeats the first bidder's (a warning).
                    let codes: Vec<&Value> = bidder["issues"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|i| &i["code"])
                        .collect();
                    assert!(codes.contains(&&Value::from("duplicate_id_across_bidders")));
                    assert_eq!(bidder["summary"]["bids"], validated["summary"]["bids"]);
                }
            }
            None => assert_eq!(bidder["seatnonbid"], serde_json::json!([])),
        }
    }
}

/// `/validate`'s `{summary, issues, seatnonbid}` for the envelope of `request` and `response`.
fn validate(request: &[u8], response: &[u8]) -> Value {
    let mut buf = b"{\"request\":".to_vec();
    buf.extend_from_slice(request);
    buf.extend_from_slice(b",\"response\":");
    buf.extend_from_slice(response);
    buf.push(b'}');
    let mut reader = Reader::default();
    let mut inspector = Inspector::new();
    let v = Validated::decode_inspected(
        &mut reader,
        &mut buf,
        Mode::Lenient,
        &mut inspector,
        &Policy::default(),
    )
    .unwrap();
    serde_json::json!({"summary": v.summary(), "issues": v.issues(), "seatnonbid": v.seatnonbid()})
}

#[tokio::test]
async fn a_request_part_that_does_not_inflate_fails_the_call() {
    let content_type = format!("multipart/form-data; boundary={BOUNDARY}");
    let b = body(&[("request", &["Content-Encoding: gzip"], b"not gzip")]);
    let e = AuctionParts::read(b, &content_type, LIMITS)
        .await
        .unwrap_err();
    assert_eq!(e.status(), 400);
    let big = gzip(&vec![b' '; LIMITS.max_part_bytes * 2]);
    let b = body(&[("request", &["Content-Encoding: gzip"], &big)]);
    let e = AuctionParts::read(b, &content_type, LIMITS)
        .await
        .unwrap_err();
    assert_eq!(e.status(), 413);
    let e = AuctionParts::read(Vec::new(), "application/json", LIMITS)
        .await
        .unwrap_err();
    assert!(matches!(e, CallError::Multipart(Error::NotMultipart(_))));
    // A compressed request that inflates is read.
    let small = gzip(b"{\"id\":\"r\",\"imp\":[{\"id\":\"1\"}]}");
    let b = body(&[("request", &["Content-Encoding: gzip"], &small)]);
    let mut parts = AuctionParts::read(b, &content_type, LIMITS).await.unwrap();
    assert_eq!(
        parts.replies().0,
        b"{\"id\":\"r\",\"imp\":[{\"id\":\"1\"}]}"
    );
}

/// Every part's name and content as multer reads `body`, or `None` when it refuses it.
fn multer_parts(body: &[u8]) -> Option<Vec<(String, Vec<u8>)>> {
    let bytes = bytes::Bytes::copy_from_slice(body);
    let stream =
        futures_util::stream::once(
            async move { Ok::<bytes::Bytes, std::convert::Infallible>(bytes) },
        );
    let mut parts = multer::Multipart::new(stream, BOUNDARY);
    let mut out = Vec::new();
    loop {
        match parts.next_field().now_or_never()? {
            Ok(Some(field)) => {
                let name = field.name()?.to_owned();
                let content = field.bytes().now_or_never()?.ok()?;
                out.push((name, content.to_vec()));
            }
            Ok(None) => return Some(out),
            Err(_) => return None,
        }
    }
}

/// A part's content: any bytes, including CR, LF, dashes and a prefix of the delimiter, but never the whole
/// delimiter (RFC 2046 §5.1.1: the sender picks a boundary that does not occur in the content).
fn content() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..40),
        Just(b"\r\n".to_vec()),
        Just(b"\r\n--".to_vec()),
        Just(format!("\r\n--{}", &BOUNDARY[..4]).into_bytes()),
        Just(b"--".to_vec()),
    ];
    proptest::collection::vec(piece, 0..6)
        .prop_map(|pieces| pieces.concat())
        .prop_filter("holds the delimiter", |c| {
            let d = format!("\r\n--{BOUNDARY}");
            !c.windows(d.len()).any(|w| w == d.as_bytes())
                && !c.ends_with(b"\r")
                && !c.starts_with(format!("--{BOUNDARY}").as_bytes())
        })
}

fn name() -> impl Strategy<Value = String> {
    "[A-Za-z0-9_.-]{1,12}"
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// On bodies in the grammar (names, header case, padding, contents with delimiter look-alikes), the reader
    /// finds what multer finds: every part's name and content, in order.
    #[test]
    fn the_reader_agrees_with_multer(
        parts in proptest::collection::vec((name(), content(), any::<bool>(), any::<bool>()), 0..6),
        request in content(),
        at in 0usize..6,
        epilogue in proptest::collection::vec(any::<u8>(), 0..10),
    ) {
        let mut all: Vec<(String, Vec<u8>, bool, bool)> = parts;
        all.insert(at.min(all.len()), ("request".to_owned(), request, false, false));
        let mut b = Vec::new();
        for (name, content, upper, quoted) in &all {
            let field = if *upper { "CONTENT-DISPOSITION" } else { "Content-Disposition" };
            let name = if *quoted { name.clone() } else { format!("\"{name}\"") };
            write!(b, "--{BOUNDARY}\r\n{field}: form-data; name={name}\r\nContent-Type: application/json\r\n\r\n").unwrap();
            b.extend_from_slice(content);
            b.extend_from_slice(b"\r\n");
        }
        write!(b, "--{BOUNDARY}--").unwrap();
        b.extend_from_slice(&epilogue);
        let theirs = multer_parts(&b);
        let ours = multipart::read(&b, BOUNDARY, 64);
        match (ours, theirs) {
            (Ok(p), Some(theirs)) => {
                let mut mine: Vec<(String, Vec<u8>)> = p.bidders.iter()
                    .map(|x| (x.name.clone(), b[x.content.clone()].to_vec()))
                    .collect();
                let request_at = theirs.iter().position(|(n, _)| n == "request").unwrap();
                mine.insert(request_at, ("request".to_owned(), b[p.request.clone()].to_vec()));
                prop_assert_eq!(mine, theirs);
            }
            // Names repeated by the generator: ours refuses them (an auction's rule), multer reads them.
            (Err(Error::DuplicateName(_)), Some(_)) => {}
            (ours, theirs) => prop_assert!(false, "ours {:?}, multer {:?}", ours, theirs.is_some()),
        }
    }

    /// Any bytes: the reader never panics, and every range it gives lies in the body, in order.
    #[test]
    fn the_reader_never_panics(body in proptest::collection::vec(any::<u8>(), 0..300)) {
        if let Ok(p) = multipart::read(&body, "b", 8) {
            let mut ranges = vec![p.request.clone()];
            ranges.extend(p.bidders.iter().map(|x| x.content.clone()));
            for r in &ranges {
                prop_assert!(r.start <= r.end && r.end <= body.len());
            }
        }
    }
}

#[test]
fn content_types_are_located_and_a_repeated_one_is_malformed() {
    let b = body(&[
        (
            "request",
            &["Content-Type:  application/x-protobuf \t"],
            b"\x0a\x01r",
        ),
        (
            "a",
            &["content-type: application/json; charset=utf-8"],
            b"{}",
        ),
        ("b", &[], b"{}"),
        ("c", &["CONTENT-TYPE:"], b"{}"),
    ]);
    let parts = read(&b).unwrap();
    let at = |r: Option<std::ops::Range<usize>>| r.map(|r| &b[r]);
    assert_eq!(
        at(parts.request_content_type.clone()),
        Some(&b"application/x-protobuf"[..])
    );
    let types: Vec<Option<&[u8]>> = parts
        .bidders
        .iter()
        .map(|p| at(p.content_type.clone()))
        .collect();
    assert_eq!(
        types,
        [
            Some(&b"application/json; charset=utf-8"[..]),
            None,
            Some(&b""[..])
        ]
    );
    for twice in [
        body(&[(
            "request",
            &[
                "Content-Type: application/json",
                "content-type: application/json",
            ],
            b"{}",
        )]),
        body(&[
            ("request", &[], b"{}"),
            (
                "b",
                &[
                    "Content-Type: a/b",
                    "Content-Encoding: gzip",
                    "Content-Type: a/b",
                ],
                b"{}",
            ),
        ]),
    ] {
        assert_eq!(read(&twice).unwrap_err().code(), "malformed_multipart");
    }
}

/// A header the reader uses, sent twice in a part, or a disposition naming the part twice, is refused rather than
/// one value chosen; so is a control byte but HTAB in a header line (RFC 9110 §5.5); a header block of 1 MiB
/// without a line end is named as over 8 KiB.
#[test]
fn ambiguous_or_control_byte_part_headers_are_malformed() {
    let cases: [(&[u8], &str); 7] = [
        (
            b"Content-Disposition: form-data; name=\"b\"\r\nX-Bidder-Status: timeout\r\nX-Bidder-Status: http-204\r\n",
            "two X-Bidder-Status",
        ),
        (
            b"Content-Disposition: form-data; name=\"a\"\r\nContent-Disposition: form-data; name=\"b\"\r\n",
            "two Content-Disposition",
        ),
        (
            b"Content-Disposition: form-data; name=\"a\"; name=\"b\"\r\n",
            "two name parameters",
        ),
        (
            b"Content-Disposition: form-data; NAME=a; filename=\"x\"; Name=\"b\"\r\n",
            "two name parameters",
        ),
        (
            b"Content-Disposition: form-data; name=\"b\"\r\nX-Bidder-Status: timeout\0\r\n",
            "control byte",
        ),
        (
            b"Content-Disposition: form-data; name=\"b\"\r\nX-Note: a\x01b\r\n",
            "control byte",
        ),
        (
            b"Content-Disposition: form-data; name=\"b\"\x7f\r\n",
            "control byte",
        ),
    ];
    for (headers, want) in cases {
        let mut b = body(&[("request", &[], b"{}")]);
        b.truncate(b.len() - format!("--{BOUNDARY}--\r\n").len());
        write!(b, "--{BOUNDARY}\r\n").unwrap();
        b.extend_from_slice(headers);
        write!(b, "\r\n{{}}\r\n--{BOUNDARY}--\r\n").unwrap();
        let e = read(&b).unwrap_err();
        assert_eq!(e.code(), "malformed_multipart", "{want}");
        assert!(e.to_string().contains(want), "{want}: {e}");
    }
    // HTAB is allowed in a value.
    let tab = body(&[
        ("request", &[], b"{}"),
        ("b", &["X-Bidder-Status:\ttimeout\t", "X-Note: a\tb"], b""),
    ]);
    assert_eq!(read(&tab).unwrap().bidders.len(), 1);
    // A 1 MiB header line is over the 8 KiB of a part's head.
    let mut long =
        format!("--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"request\"\r\nX-Pad: ")
            .into_bytes();
    long.resize(long.len() + (1 << 20), b'a');
    write!(long, "\r\n\r\n{{}}\r\n--{BOUNDARY}--\r\n").unwrap();
    let e = read(&long).unwrap_err();
    assert!(e.to_string().contains("over 8 KiB"), "{e}");
}

/// Every part's `Content-Type` as multer reads `body` (its text, as `mime` keeps it), or `None` when it refuses
/// the body.
fn multer_content_types(body: &[u8]) -> Option<Vec<Option<String>>> {
    let bytes = bytes::Bytes::copy_from_slice(body);
    let stream =
        futures_util::stream::once(
            async move { Ok::<bytes::Bytes, std::convert::Infallible>(bytes) },
        );
    let mut parts = multer::Multipart::new(stream, BOUNDARY);
    let mut out = Vec::new();
    loop {
        match parts.next_field().now_or_never()? {
            Ok(Some(field)) => out.push(field.content_type().map(|m| m.as_ref().to_owned())),
            Ok(None) => return Some(out),
            Err(_) => return None,
        }
    }
}

/// A `Content-Type` value: a media type, in any ASCII case, with spaces around it.
fn media_type() -> impl Strategy<Value = String> {
    let kind = prop_oneof![
        Just("application/json"),
        Just("application/x-protobuf"),
        Just("application/octet-stream"),
        Just("text/plain; charset=utf-8"),
    ];
    (kind, any::<u64>(), 0usize..3, 0usize..3).prop_map(|(kind, case, before, after)| {
        let cased: String = kind
            .chars()
            .enumerate()
            .map(|(i, c)| {
                if case >> (i % 64) & 1 == 1 {
                    c.to_ascii_uppercase()
                } else {
                    c
                }
            })
            .collect();
        format!("{}{cased}{}", " ".repeat(before), " ".repeat(after))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Each part's `Content-Type`, where it has one, is the value multer reads (ASCII case aside: `mime` lowers
    /// it), and absent where multer finds none.
    #[test]
    fn content_types_agree_with_multer(
        types in proptest::collection::vec(proptest::option::of(media_type()), 1..6),
        at in 0usize..6,
    ) {
        let mut b = Vec::new();
        let request = at.min(types.len() - 1);
        for (i, kind) in types.iter().enumerate() {
            let name = if i == request { "request".to_owned() } else { format!("b{i}") };
            write!(b, "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n").unwrap();
            if let Some(kind) = kind {
                write!(b, "Content-Type:{kind}\r\n").unwrap();
            }
            write!(b, "\r\n{{}}\r\n").unwrap();
        }
        write!(b, "--{BOUNDARY}--\r\n").unwrap();
        let theirs = multer_content_types(&b).unwrap();
        let p = multipart::read(&b, BOUNDARY, 64).unwrap();
        let mut mine: Vec<Option<String>> = p.bidders.iter()
            .map(|x| x.content_type.clone().map(|r| String::from_utf8_lossy(&b[r]).into_owned()))
            .collect();
        mine.insert(request, p.request_content_type.map(|r| String::from_utf8_lossy(&b[r]).into_owned()));
        prop_assert_eq!(mine.len(), theirs.len());
        for (ours, theirs) in mine.iter().zip(&theirs) {
            match (ours, theirs) {
                (Some(o), Some(t)) => prop_assert!(o.eq_ignore_ascii_case(t), "{:?} {:?}", o, t),
                (None, None) => {}
                _ => prop_assert!(false, "ours {:?}, multer {:?}", ours, theirs),
            }
        }
    }
}

/// Every input of `fuzz/regressions/multipart/` (first line the boundary, the rest the body) reads without a
/// panic, its ranges inside the body.
#[test]
fn the_fuzz_regressions_read() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions/multipart");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let data = std::fs::read(entry.unwrap().path()).unwrap();
        let eol = data.iter().position(|&b| b == b'\n').unwrap();
        let boundary = std::str::from_utf8(&data[..eol]).unwrap();
        let body = &data[eol + 1..];
        if let Ok(p) = multipart::read(body, boundary, 32) {
            assert!(p.request.end <= body.len());
            assert!(p.bidders.iter().all(|b| b.content.end <= body.len()));
        }
        seen += 1;
    }
    assert!(seen > 0);
}
