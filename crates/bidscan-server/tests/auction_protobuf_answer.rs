//! `POST /validate/auction`'s protobuf answer over a real server on 127.0.0.1: with `Accept` preferring protobuf
//! (q-values honoured, JSON on ties, 406 when nothing fits), a `multipart/form-data` body, read here with
//! `multer`, of one protobuf `BidResponse` per bidder in the order sent, each decoded with the library's
//! decoder and held against the JSON answer to the same auction: the bids kept are exactly the ones accepted, the
//! rejected ones are gone, `ext.seatnonbid` holds the bidder's non-bids, the part headers its status and counts.
//! A bidder without a usable response, or whose response the wire cannot carry, gets the request's id and its
//! code for every imp.

use std::collections::HashMap;
use std::io::Write;

use bidscan_openrtb::{Mode, ProtobufLimits};
use serde_json::Value;

use crate::common::{TestServer, config, start};

const BOUNDARY: &str = "bidscan-pb-answer-31f";

const REQUEST: &str = r#"{"id":"req-1","imp":[{"id":"1","banner":{"w":300,"h":250}},{"id":"2","banner":{"w":300,"h":250}}],"cur":["USD"]}"#;

/// Two seats: `a1` accepted, `a2` and `a3` for an imp the request does not have (rejected; seat `s2` is left with
/// no bid).
const ALPHA: &str = r#"{"id":"req-1","cur":"USD","seatbid":[{"seat":"s1","bid":[{"id":"a1","impid":"1","price":1.5,"crid":"c1","w":300,"h":250,"adm":"<div>a</div>"},{"id":"a2","impid":"9","price":1.2,"crid":"c2","w":300,"h":250,"adm":"<div>b</div>"}]},{"seat":"s2","bid":[{"id":"a3","impid":"9","price":1.1,"crid":"c3","w":300,"h":250,"adm":"<div>c</div>"}]}]}"#;

/// Sent as protobuf: `b1` accepted, `b2` rejected, in a seat without a name.
const BETA: &str = r#"{"id":"req-1","cur":"USD","seatbid":[{"bid":[{"id":"b1","impid":"2","price":2.0,"crid":"c4","w":300,"h":250,"adm":"<div>d</div>"},{"id":"b2","impid":"7","price":2.5,"crid":"c5","w":300,"h":250,"adm":"<div>e</div>"}]}]}"#;

/// An accepted bid with an integer outside int32 (`exp`): its response cannot be answered as protobuf.
const HUGE: &str = r#"{"id":"req-1","cur":"USD","seatbid":[{"seat":"s9","bid":[{"id":"h1","impid":"1","price":1.0,"crid":"c6","w":300,"h":250,"exp":3000000000,"adm":"<div>f</div>"}]}]}"#;

/// A no-bid with a reason.
const NONE: &str = r#"{"id":"req-1","nbr":2}"#;

/// One part: name, `Content-Type`, one more header line, content.
type Part<'a> = (&'a str, Option<&'a str>, Option<&'a str>, Vec<u8>);

/// A `multipart/form-data` body of `parts`.
fn multipart(parts: &[Part<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, content_type, header, content) in parts {
        write!(
            out,
            "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n"
        )
        .unwrap();
        if let Some(t) = content_type {
            write!(out, "Content-Type: {t}\r\n").unwrap();
        }
        if let Some(h) = header {
            write!(out, "{h}\r\n").unwrap();
        }
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(content);
        out.extend_from_slice(b"\r\n");
    }
    write!(out, "--{BOUNDARY}--\r\n").unwrap();
    out
}

/// `json`'s canonical response as protobuf, made by the server's own `/decode`.
async fn protobuf_of(server: &TestServer, json: &str) -> Vec<u8> {
    let res = server
        .post(
            "/decode",
            &[("accept", "application/x-protobuf")],
            json.as_bytes().to_vec(),
        )
        .await;
    assert_eq!(res.status(), 200);
    res.bytes().await.unwrap().to_vec()
}

async fn auction_body(server: &TestServer) -> Vec<u8> {
    let beta = protobuf_of(server, BETA).await;
    multipart(&[
        ("request", Some("application/json"), None, REQUEST.into()),
        ("alpha", Some("application/json"), None, ALPHA.into()),
        ("beta", Some("application/x-protobuf"), None, beta),
        ("broken", None, None, b"{\"seatbid\":".to_vec()),
        ("slow", None, Some("X-Bidder-Status: timeout"), Vec::new()),
        ("none", None, None, NONE.into()),
        ("huge", None, None, HUGE.into()),
    ])
}

async fn post(server: &TestServer, accept: Option<&str>, body: Vec<u8>) -> reqwest::Response {
    let content_type = format!("multipart/form-data; boundary={BOUNDARY}");
    let mut headers = vec![("content-type", content_type.as_str())];
    if let Some(a) = accept {
        headers.push(("accept", a));
    }
    server.post("/validate/auction", &headers, body).await
}

/// One part of the protobuf answer: name, headers, the `BidResponse` decoded to canonical JSON.
struct Answered {
    name: String,
    headers: HashMap<String, String>,
    response: Value,
}

async fn parts(res: reqwest::Response) -> Vec<Answered> {
    let content_type = res.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(
        content_type.starts_with("multipart/form-data; boundary="),
        "{content_type}"
    );
    let boundary = multer::parse_boundary(&content_type).unwrap();
    let body = res.bytes().await.unwrap();
    let stream = futures_util::stream::once(async move { Ok::<_, std::io::Error>(body) });
    let mut multipart = multer::Multipart::new(stream, boundary);
    let mut out = Vec::new();
    while let Some(field) = multipart.next_field().await.unwrap() {
        let name = field.name().unwrap().to_owned();
        assert_eq!(
            field.content_type().map(ToString::to_string).as_deref(),
            Some("application/x-protobuf")
        );
        let headers = field
            .headers()
            .iter()
            .map(|(k, v)| (k.as_str().to_owned(), v.to_str().unwrap().to_owned()))
            .collect();
        let pb = field.bytes().await.unwrap();
        let mut rendered = String::new();
        let decoded = bidscan_openrtb::decode_protobuf(
            &pb,
            &mut rendered,
            Mode::Lenient,
            ProtobufLimits::default(),
        )
        .unwrap_or_else(|e| panic!("part {name} decodes: {e}"));
        out.push(Answered {
            name,
            headers,
            response: serde_json::to_value(&decoded.response).unwrap(),
        });
    }
    out
}

/// `(seat, impid, statuscode)` of every non-bid of a seat-non-bid list, a seat without a name as `bidder`.
fn nonbids(list: &Value, bidder: &str) -> Vec<(String, Value, Value)> {
    let mut out = Vec::new();
    for seat in list.as_array().cloned().unwrap_or_default() {
        let name = match seat["seat"].as_str() {
            Some(s) if !s.is_empty() => s.to_owned(),
            _ => bidder.to_owned(),
        };
        for n in seat["nonbid"].as_array().unwrap() {
            out.push((name.clone(), n["impid"].clone(), n["statuscode"].clone()));
        }
    }
    out
}

/// The ids of the bids of a canonical response.
fn bid_ids(response: &Value) -> Vec<Value> {
    response["seatbid"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .flat_map(|s| s["bid"].as_array().unwrap().clone())
        .map(|b| b["id"].clone())
        .collect()
}

#[tokio::test]
async fn each_bidder_is_its_accepted_bids_and_its_non_bids() {
    let server = start(config()).await;
    let body = auction_body(&server).await;
    let res = post(&server, None, body.clone()).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "application/json");
    let answer: Value = serde_json::from_slice(&res.bytes().await.unwrap()).unwrap();
    let bidders = answer["bidders"].as_array().unwrap();

    let res = post(&server, Some("application/x-protobuf"), body).await;
    assert_eq!(res.status(), 200);
    let h = res.headers().clone();
    assert!(h.get_all("vary").iter().any(|v| v == "accept"));
    let issues: usize = bidders
        .iter()
        .map(|b| b["issues"].as_array().unwrap().len())
        .sum();
    assert_eq!(h["x-bidscan-issues"], issues.to_string());
    let parts = parts(res).await;
    let names: Vec<&str> = parts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        ["alpha", "beta", "broken", "slow", "none", "huge"],
        "one part per bidder, in the order sent"
    );
    for (part, b) in parts.iter().zip(bidders) {
        let name = part.name.as_str();
        assert_eq!(b["bidder"], name);
        let errors = b["issues"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["severity"] == "error")
            .count();
        let header = |k: &str| part.headers.get(k).map(String::as_str);
        assert_eq!(
            header("x-bidscan-issues"),
            Some(b["issues"].as_array().unwrap().len().to_string().as_str()),
            "{name}"
        );
        assert_eq!(
            header("x-bidscan-errors"),
            Some(errors.to_string().as_str()),
            "{name}"
        );
        assert_eq!(
            header("x-bidscan-accepted"),
            Some(b["summary"]["accepted"].to_string().as_str()),
            "{name}"
        );
        assert_eq!(
            header("x-bidscan-rejected"),
            Some(b["summary"]["rejected"].to_string().as_str()),
            "{name}"
        );
        let seatnonbid = &part.response["ext"]["seatnonbid"];
        if name == "huge" {
            // Accepted in JSON, but `exp` does not fit int32: answered as an invalid bidder, the error named.
            assert_eq!(b["status"], "bid");
            assert_eq!(b["summary"]["accepted"], 1, "{b}");
            assert_eq!(header("x-bidscan-status"), Some("invalid"));
            assert_eq!(header("x-bidscan-error"), Some("not_encodable"));
            assert_eq!(header("x-bidscan-error-path"), Some("/seatbid/0/bid/0/exp"));
            assert_eq!(part.response["id"], "req-1");
            assert!(bid_ids(&part.response).is_empty());
            assert_eq!(
                nonbids(seatnonbid, name),
                [
                    ("huge".into(), "1".into(), 102.into()),
                    ("huge".into(), "2".into(), 102.into())
                ]
            );
            continue;
        }
        assert_eq!(header("x-bidscan-status"), b["status"].as_str(), "{name}");
        assert!(header("x-bidscan-error").is_none(), "{name}");
        // The non-bids are the JSON answer's for that bidder (seat, imp, code).
        assert_eq!(
            nonbids(seatnonbid, name),
            nonbids(&b["seatnonbid"], name),
            "{name}: {}",
            part.response
        );
        // The bids kept are exactly the accepted ones, in order.
        let accepted: Vec<Value> = b["summary"]["bids"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| x["status"] == "accepted")
            .map(|x| x["id"].clone())
            .collect();
        assert_eq!(bid_ids(&part.response), accepted, "{name}");
    }

    // What the fixtures are for: rejected bids gone, a seat left empty gone, codes carried.
    let by = |n: &str| parts.iter().find(|p| p.name == n).unwrap();
    let alpha = &by("alpha").response;
    assert_eq!(bid_ids(alpha), ["a1"]);
    assert_eq!(alpha["seatbid"].as_array().unwrap().len(), 1);
    assert_eq!(alpha["seatbid"][0]["seat"], "s1");
    let alpha_nonbids = nonbids(&alpha["ext"]["seatnonbid"], "alpha");
    assert_eq!(alpha_nonbids.len(), 2);
    assert_eq!(alpha_nonbids[0].0, "s1");
    assert_eq!(alpha_nonbids[1].0, "s2");
    assert!(alpha_nonbids.iter().all(|n| n.1 == "9"));
    let beta = &by("beta").response;
    assert_eq!(bid_ids(beta), ["b1"]);
    assert_eq!(beta["ext"]["seatnonbid"][0]["seat"], "beta");
    assert_eq!(beta["ext"]["seatnonbid"][0]["nonbid"][0]["impid"], "7");
    for (n, code) in [("broken", 102), ("slow", 101)] {
        let r = &by(n).response;
        assert_eq!(r["id"], "req-1", "{n}");
        assert_eq!(
            nonbids(&r["ext"]["seatnonbid"], n),
            [
                (n.to_owned(), "1".into(), code.into()),
                (n.to_owned(), "2".into(), code.into())
            ]
        );
    }
    let none = &by("none").response;
    assert_eq!(none["nbr"], 2);
    assert!(none.get("ext").is_none(), "{none}");
}

#[tokio::test]
async fn accept_picks_the_answer_and_406_stays_json() {
    let server = start(config()).await;
    let body = auction_body(&server).await;
    for accept in [
        "application/json;q=0.5, application/x-protobuf",
        "application/protobuf",
        "*/*;q=0.1, application/vnd.google.protobuf",
    ] {
        let res = post(&server, Some(accept), body.clone()).await;
        assert_eq!(res.status(), 200, "{accept}");
        assert_eq!(parts(res).await.len(), 6, "{accept}");
    }
    for accept in [
        "application/json",
        "application/x-protobuf, application/json",
        "*/*",
    ] {
        let res = post(&server, Some(accept), body.clone()).await;
        assert_eq!(res.status(), 200, "{accept}");
        assert_eq!(
            res.headers()["content-type"],
            "application/json",
            "{accept}"
        );
        let v: Value = serde_json::from_slice(&res.bytes().await.unwrap()).unwrap();
        assert_eq!(v["bidders"].as_array().unwrap().len(), 6);
    }
    let res = post(&server, Some("text/html"), body).await;
    assert_eq!(res.status(), 406);
    assert_eq!(res.headers()["content-type"], "application/json");
    let v: Value = serde_json::from_slice(&res.bytes().await.unwrap()).unwrap();
    assert_eq!(v["error"]["code"], "not_acceptable");
    // A call-level error stays JSON whatever was asked for.
    let res = post(
        &server,
        Some("application/x-protobuf"),
        multipart(&[("alpha", None, None, ALPHA.into())]),
    )
    .await;
    assert_eq!(res.status(), 400);
    assert_eq!(res.headers()["content-type"], "application/json");
    let v: Value = serde_json::from_slice(&res.bytes().await.unwrap()).unwrap();
    assert_eq!(v["error"]["code"], "missing_request");
}
