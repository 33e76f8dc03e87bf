//! `Auction` with protobuf bodies (`Reply::Protobuf`) and a protobuf request (`Auction::decode_request_protobuf`),
//! built from the real pairs of `corpus/validate-pairs/` and their twins: a bidder's protobuf twin
//! (`corpus/real-fixtures-protobuf/`) gets the verdicts, findings and non-bids of the JSON rendered from it; a
//! request's protobuf twin (`corpus/validate-pairs-protobuf/`) gives the answer its rendered JSON gives; a
//! malformed protobuf body makes its bidder `invalid` (102 for every imp, the wire error's offset and path), the
//! other bidders unaffected; a malformed protobuf request fails the auction.

use std::collections::HashMap;
use std::path::PathBuf;

use bidscan_json::Reader;
use bidscan_openrtb::rules::Policy;
use bidscan_openrtb::{
    Auction, DecodeError, Inspector, Mode, ProtobufError, ProtobufLimits, Reply,
};
use serde_json::Value;

fn corpus(dir: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../corpus")
        .join(dir)
}

/// A real pair whose response has a protobuf twin: (pair name, request JSON, twin's rendered JSON, twin).
struct Twinned {
    name: String,
    request: Vec<u8>,
    json: Vec<u8>,
    pb: Vec<u8>,
}

/// Every real pair whose response equals the JSON rendered from a twin of `corpus/real-fixtures-protobuf/`.
fn twinned() -> Vec<Twinned> {
    let twins_dir = corpus("real-fixtures-protobuf");
    let mut twins: HashMap<String, PathBuf> = HashMap::new();
    for entry in std::fs::read_dir(&twins_dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "pb") {
            let json = std::fs::read(path.with_extension("json")).unwrap();
            let v: Value = serde_json::from_slice(&json).unwrap();
            twins.entry(v.to_string()).or_insert(path);
        }
    }
    let mut out = Vec::new();
    for entry in std::fs::read_dir(corpus("validate-pairs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let v: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        if let Some(twin) = twins.get(&v["response"].to_string()) {
            out.push(Twinned {
                name: path.file_name().unwrap().to_string_lossy().into_owned(),
                request: serde_json::to_vec(&v["request"]).unwrap(),
                json: std::fs::read(twin.with_extension("json")).unwrap(),
                pb: std::fs::read(twin).unwrap(),
            });
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// The answer of an auction of the JSON `request` and `bidders`, as JSON.
fn auction(request: &[u8], bidders: Vec<(&str, Reply<'_>)>, mode: Mode) -> Value {
    let mut request = request.to_vec();
    let mut reader = Reader::default();
    let mut inspector = Inspector::new();
    let policy = Policy::default();
    let mut auction = Auction::decode_request(&mut reader, &mut request).unwrap();
    for (name, reply) in bidders {
        auction.add(
            &mut reader,
            name,
            reply,
            mode,
            Some(&mut inspector),
            &policy,
        );
    }
    serde_json::to_value(auction.answer(false)).unwrap()
}

/// One bidder's `{status, summary, issues, seatnonbid}`, without the `adm_object` warning (JSON's for an object
/// `adm`; protobuf's `adm_native` is the schema's own field) and the warning it adds to the summary's count.
fn comparable(bidder: &Value) -> Value {
    let mut v = serde_json::json!({
        "status": bidder["status"],
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

#[test]
fn each_protobuf_twin_gets_the_verdicts_of_its_json_in_both_modes() {
    let pairs = twinned();
    assert!(pairs.len() >= 90, "{}", pairs.len());
    let mut rejected = 0;
    for mode in [Mode::Lenient, Mode::Strict] {
        for p in &pairs {
            let mut json = p.json.clone();
            let from_json = auction(&p.request, vec![("b", Reply::Body(&mut json))], mode);
            let mut rendered = String::new();
            let reply = Reply::Protobuf {
                body: &p.pb,
                rendered: &mut rendered,
            };
            let from_pb = auction(&p.request, vec![("b", reply)], mode);
            let (j, b) = (&from_json["bidders"][0], &from_pb["bidders"][0]);
            assert_eq!(comparable(b), comparable(j), "{} {mode:?}", p.name);
            assert_eq!(from_pb["seatnonbid"], from_json["seatnonbid"], "{}", p.name);
            rejected += usize::from(b["summary"]["rejected"].as_u64().unwrap_or(0) > 0);
        }
    }
    // The twins reach the rules: some bids are rejected.
    assert!(rejected > 20, "{rejected}");
}

#[test]
fn a_protobuf_request_gives_the_answer_of_its_rendered_json() {
    let dir = corpus("validate-pairs-protobuf");
    let mut compared = 0;
    for p in twinned() {
        let stem = p.name.strip_suffix(".json").unwrap();
        let pb = std::fs::read(dir.join(format!("{stem}.pb"))).unwrap();
        let rendered_request = std::fs::read(dir.join(format!("{stem}.json"))).unwrap();
        let expected = auction(
            &rendered_request,
            vec![
                ("b", Reply::Body(&mut p.json.clone())),
                ("t", Reply::Timeout),
            ],
            Mode::Lenient,
        );
        let mut reader = Reader::default();
        let mut inspector = Inspector::new();
        let policy = Policy::default();
        let mut auction = Auction::decode_request_protobuf(&pb, ProtobufLimits::default()).unwrap();
        let mut json = p.json.clone();
        for (name, reply) in [("b", Reply::Body(&mut json)), ("t", Reply::Timeout)] {
            auction.add(
                &mut reader,
                name,
                reply,
                Mode::Lenient,
                Some(&mut inspector),
                &policy,
            );
        }
        let got = serde_json::to_value(auction.answer(false)).unwrap();
        assert_eq!(got, expected, "{}", p.name);
        compared += 1;
    }
    assert!(compared >= 90, "{compared}");
}

#[test]
fn a_malformed_protobuf_body_makes_its_bidder_invalid_and_no_other() {
    let pairs = twinned();
    let p = pairs
        .iter()
        .find(|p| p.name == "aax_multi-imps.json")
        .unwrap();
    // The twin, then one more seat bid whose bid's `id` is not UTF-8: seatbid (2) { bid (1) { id (1): 0xFF } }.
    let mut bad = p.pb.clone();
    bad.extend_from_slice(&[0x12, 0x05, 0x0a, 0x03, 0x0a, 0x01, 0xff]);
    let seats = serde_json::from_slice::<Value>(&p.json).unwrap()["seatbid"]
        .as_array()
        .unwrap()
        .len();
    let mut rendered = String::new();
    let mut json = p.json.clone();
    let answer = auction(
        &p.request,
        vec![
            (
                "broken",
                Reply::Protobuf {
                    body: &bad,
                    rendered: &mut rendered,
                },
            ),
            ("fine", Reply::Body(&mut json)),
        ],
        Mode::Lenient,
    );
    let broken = &answer["bidders"][0];
    assert_eq!(broken["status"], "invalid");
    let finding = &broken["issues"][0];
    assert_eq!(finding["code"], "malformed_protobuf");
    assert_eq!(finding["statuscode"], 102);
    assert_eq!(finding["path"], format!("/seatbid/{seats}/bid/0/id"));
    let message = finding["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("at byte {}", p.pb.len() + 6)),
        "{message}"
    );
    let imps = answer["request"]["imps"].as_array().unwrap();
    assert_eq!(imps.len(), 2);
    let nonbid = &broken["seatnonbid"][0];
    assert_eq!(nonbid["seat"], "broken");
    let got: Vec<(Value, Value)> = nonbid["nonbid"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["impid"].clone(), n["statuscode"].clone()))
        .collect();
    let want: Vec<(Value, Value)> = imps.iter().map(|i| (i.clone(), Value::from(102))).collect();
    assert_eq!(got, want);
    // The JSON bidder after it is judged as if alone.
    let mut json = p.json.clone();
    let alone = auction(
        &p.request,
        vec![("fine", Reply::Body(&mut json))],
        Mode::Lenient,
    );
    assert_eq!(answer["bidders"][1], alone["bidders"][0]);
    assert_eq!(answer["bidders"][1]["status"], "bid");
}

#[test]
fn an_empty_protobuf_body_is_a_no_bid() {
    let p = &twinned()[0];
    let mut rendered = String::new();
    let answer = auction(
        &p.request,
        vec![(
            "b",
            Reply::Protobuf {
                body: &[],
                rendered: &mut rendered,
            },
        )],
        Mode::Strict,
    );
    assert_eq!(answer["bidders"][0]["status"], "nobid");
    assert_eq!(answer["seatnonbid"], Value::Array(Vec::new()));
}

#[test]
fn an_unusable_protobuf_request_fails_the_auction() {
    let limits = ProtobufLimits::default();
    // Field 2 (`imp`), length 5, with 2 bytes: past the end.
    let e = Auction::decode_request_protobuf(&[0x12, 0x05, 0x0a, 0x01], limits).unwrap_err();
    assert!(matches!(e, ProtobufError::Malformed(_)), "{e}");
    assert_eq!(e.code(), "malformed_protobuf");
    assert!(e.to_string().contains("at byte"), "{e}");
    // No impression (the empty message; an id only): refused as JSON refuses it.
    for body in [&[][..], &[0x0a, 0x01, b'r'][..]] {
        let e = Auction::decode_request_protobuf(body, limits).unwrap_err();
        let refused = matches!(
            &e,
            ProtobufError::Decode(DecodeError::InvalidEnvelope { .. })
        );
        assert!(refused, "{e}");
        assert_eq!(e.code(), "request_without_imp");
        assert_eq!(e.path(), Some("/imp"));
    }
    // An imp with an id: a request.
    let auction =
        Auction::decode_request_protobuf(&[0x12, 0x03, 0x0a, 0x01, b'1'], limits).unwrap();
    assert_eq!(auction.request.imp.len(), 1);
}
