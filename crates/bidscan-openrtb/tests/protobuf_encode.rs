//! `encode_protobuf`: the model written as a protobuf `BidResponse`.
//! - Every twin of `corpus/real-fixtures-protobuf` and `corpus/protobuf-features` (made by
//!   `scripts/openrtb_protobuf.py`): decoded, encoded, decoded again, the model is unchanged; the JSON rendered
//!   from the twin encodes to the twin's own bytes (the reference converter's).
//! - Every real fixture's JSON: encoded and decoded, it reads as the JSON minus the members warned about.
//! - An integer outside int32 is an error naming its path; free-form `ext` members are warned about by path.

use crate::common;

use std::path::PathBuf;

use bidscan_openrtb::{
    Adm, BidResponse, EncodeWarning, Mode, ProtobufLimits, decode_protobuf, encode_protobuf,
};

fn corpus(dir: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpus")).join(dir)
}

fn names(dir: &PathBuf, ext: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(ext).map(str::to_owned))
        .collect();
    names.sort();
    names
}

/// Decodes a protobuf body (lenient), leaking what the model borrows.
fn from_pb(body: &[u8]) -> BidResponse<'static> {
    let body: &'static [u8] = Box::leak(body.to_vec().into_boxed_slice());
    let rendered: &'static mut String = Box::leak(Box::default());
    decode_protobuf(body, rendered, Mode::Lenient, ProtobufLimits::default())
        .unwrap_or_else(|e| panic!("decode: {e}"))
        .response
}

fn from_json(json: &str) -> Option<BidResponse<'static>> {
    bidscan_openrtb::decode(&mut common::reader(), common::leak(json), Mode::Lenient)
        .ok()
        .map(|d| d.response)
}

fn encode(r: &BidResponse<'_>) -> (Vec<u8>, Vec<EncodeWarning>) {
    let mut out = Vec::new();
    let warnings = encode_protobuf(r, &mut out).unwrap_or_else(|e| panic!("encode: {e}"));
    (out, warnings)
}

/// Over the twins of `dir`: (twins, twins whose JSON encodes to the twin's bytes).
fn twins_round_trip(dir: &str) -> (usize, usize) {
    let dir = corpus(dir);
    let names = names(&dir, ".pb");
    let mut same_bytes = 0;
    for name in &names {
        let twin = std::fs::read(dir.join(format!("{name}.pb"))).unwrap();
        let model = from_pb(&twin);
        let (bytes, warnings) = encode(&model);
        assert_eq!(
            warnings,
            [],
            "{name}: a twin's model carries nothing the wire cannot"
        );
        assert_eq!(
            from_pb(&bytes),
            model,
            "{name}: decode(encode(model)) == model"
        );
        let json = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
        let from_its_json = from_json(&json).unwrap_or_else(|| panic!("{name}: its JSON"));
        let (bytes, _) = encode(&from_its_json);
        if bytes == twin {
            same_bytes += 1;
        } else {
            // Not the reference's bytes (a map's or a `Struct`'s entries in another order): the same content.
            let value = |r: &BidResponse<'_>| serde_json::to_value(r).unwrap();
            assert_eq!(value(&from_pb(&bytes)), value(&from_pb(&twin)), "{name}");
        }
    }
    (names.len(), same_bytes)
}

#[test]
fn every_twin_round_trips_and_its_json_encodes_to_the_twins_bytes() {
    // The three others (kueezrtb's) send `"cur":""`, which the checks read as `"USD"`: the model, encoded,
    // holds `USD` where the twin holds the empty string.
    assert_eq!(twins_round_trip("real-fixtures-protobuf"), (1118, 1115));
    // seatnonbid-igi-ext: a `Struct`'s entries in the JSON's order, where the reference writes its own.
    assert_eq!(twins_round_trip("protobuf-features"), (3, 2));
}

/// Removes the member at JSON pointer `path` from `v`.
fn remove(v: &mut serde_json::Value, path: &str) {
    let (parent, last) = path.rsplit_once('/').expect("a pointer");
    let last = last.replace("~1", "/").replace("~0", "~");
    match v.pointer_mut(parent) {
        Some(serde_json::Value::Object(m)) => {
            m.remove(&last);
        }
        other => panic!("{path}: parent is {other:?}"),
    }
}

#[test]
fn json_encodes_to_itself_minus_the_members_warned_about() {
    let dir = corpus("real-fixtures");
    let (mut encoded, mut overflow, mut warned, mut adm_text) = (0, 0, 0, 0);
    for name in names(&dir, ".json") {
        let json = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
        let Some(model) = from_json(&json) else {
            continue;
        };
        let mut out = Vec::new();
        let warnings = match encode_protobuf(&model, &mut out) {
            Ok(w) => w,
            Err(e) => {
                assert!(e.message.contains("outside int32"), "{name}: {e}");
                assert!(
                    serde_json::from_str::<serde_json::Value>(&json)
                        .unwrap()
                        .pointer(&e.path)
                        .is_some_and(|v| v.as_i64().is_some_and(|n| i32::try_from(n).is_err())),
                    "{name}: {e} names a member outside int32"
                );
                overflow += 1;
                continue;
            }
        };
        encoded += 1;
        warned += usize::from(!warnings.is_empty());
        let mut expected = serde_json::to_value(&model).unwrap();
        for w in &warnings {
            remove(&mut expected, &w.path);
        }
        let back = from_pb(&out);
        let mut got = serde_json::to_value(&back).unwrap();
        // An object `adm` that is no native response travels as its text.
        for (si, seat) in model.seatbid.iter().enumerate() {
            for (bi, bid) in seat.bid.iter().enumerate() {
                if let (Some(Adm::Object(_)), Some(Adm::Markup(text))) =
                    (&bid.adm, &back.seatbid[si].bid[bi].adm)
                {
                    adm_text += 1;
                    got["seatbid"][si]["bid"][bi]["adm"] = serde_json::from_str(text).unwrap();
                }
            }
        }
        assert_eq!(got, expected, "{name}: warnings {warnings:?}");
    }
    // The real fixtures: their `ext`s are mostly free-form (`prebid`, bidders' own), warned about and dropped.
    assert_eq!((encoded, overflow, warned, adm_text), (1025, 0, 439, 0));
}

#[test]
fn an_integer_outside_int32_is_an_error_naming_its_path() {
    for (json, path) in [
        (
            r#"{"id":"r","seatbid":[{"bid":[{"id":"b","impid":"1","price":1,"w":3000000000}]}]}"#,
            "/seatbid/0/bid/0/w",
        ),
        (
            r#"{"id":"r","seatbid":[{"bid":[{"id":"b","impid":"1","price":1,"attr":[1,-2147483649]}]}]}"#,
            "/seatbid/0/bid/0/attr/1",
        ),
        (r#"{"id":"r","nbr":2147483648}"#, "/nbr"),
        (
            r#"{"id":"r","seatbid":[{"bid":[{"id":"b","impid":"1","price":1,"ext":{"dsa":{"transparency":[{"domain":"d","dsaparams":[1,4294967296]}]}}}]}]}"#,
            "/seatbid/0/bid/0/ext/dsa/transparency/0/dsaparams/1",
        ),
    ] {
        let model = from_json(json).expect(json);
        let e = encode_protobuf(&model, &mut Vec::new()).expect_err(json);
        assert_eq!(e.path, path, "{json}");
        assert!(e.message.contains("outside int32"), "{e}");
    }
    // The bounds themselves fit.
    let model = from_json(
        r#"{"id":"r","seatbid":[{"bid":[{"id":"b","impid":"1","price":1,"w":2147483647,"h":-2147483648}]}]}"#,
    )
    .unwrap();
    let (bytes, _) = encode(&model);
    let back = from_pb(&bytes);
    assert_eq!(back.seatbid[0].bid[0].w, Some(2_147_483_647));
    assert_eq!(back.seatbid[0].bid[0].h, Some(-2_147_483_648));
}

#[test]
fn declared_ext_members_encode_and_free_form_ones_are_warned_about() {
    let json = r#"{"id":"r","cur":"USD","seatbid":[{"seat":"s","group":1,"ext":{"x":1},"bid":[{"id":"b","impid":"1","price":1.25,
        "adm":{"ver":"1.2","assets":[{"id":1,"required":1,"title":{"text":"T"}}],"link":{"url":"https://a"}},
        "ext":{"foo":{"a":1},"dsa":{"behalf":"B","paid":"P","adrender":1,"transparency":[{"domain":"d","dsaparams":[1,2]}],"zz":3},"scid":"c","[1001]":[{"varint":5},{"len":"aGk="}]}}]}],
        "ext":{"seatnonbid":[{"seat":"x","nonbid":[{"impid":"1","statuscode":301}]}],"igi":[{"impid":"1","igb":[{"origin":"https://o","maxbid":1.5,"ps":{"k":2.5},"pbs":{"b":[1,"s",true,null],"a":{}}}]}],"debug":true}}"#;
    let model = from_json(json).unwrap();
    let (bytes, warnings) = encode(&model);
    let paths: Vec<&str> = warnings.iter().map(|w| w.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "/seatbid/0/bid/0/ext/dsa/zz",
            "/seatbid/0/bid/0/ext/foo",
            "/seatbid/0/ext/x",
            "/ext/debug"
        ]
    );
    assert!(
        warnings[2]
            .to_string()
            .contains("Bid.Ext declares no such field"),
        "{}",
        warnings[2]
    );
    let back = from_pb(&bytes);
    let bid = &back.seatbid[0].bid[0];
    let ext: serde_json::Value = serde_json::from_str(bid.ext.unwrap().get()).unwrap();
    assert_eq!(
        ext,
        serde_json::json!({"dsa":{"behalf":"B","paid":"P","transparency":[{"domain":"d","dsaparams":[1,2]}],"adrender":1},
            "scid":"c","[1001]":[{"varint":5},{"len":"aGk="}]})
    );
    assert!(matches!(bid.adm, Some(Adm::Object(_))), "adm_native");
    assert_eq!(back.seatbid[0].group, Some(1));
    let ext: serde_json::Value = serde_json::from_str(back.ext.unwrap().get()).unwrap();
    assert_eq!(ext["seatnonbid"][0]["nonbid"][0]["statuscode"], 301);
    assert_eq!(
        ext["igi"][0]["igb"][0]["pbs"],
        serde_json::json!({"b":[1.0,"s",true,null],"a":{}})
    );
    assert_eq!(ext["igi"][0]["igb"][0]["ps"], serde_json::json!({"k":2.5}));
    // What was decoded encodes again to the same bytes.
    assert_eq!(encode(&back), (bytes, vec![]));
}

#[test]
fn a_flag_other_than_0_or_1_is_dropped_with_a_warning() {
    let model =
        from_json(r#"{"id":"r","seatbid":[{"group":2,"bid":[{"id":"b","impid":"1","price":1}]}]}"#)
            .unwrap();
    let (bytes, warnings) = encode(&model);
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0].path, "/seatbid/0/group");
    assert_eq!(from_pb(&bytes).seatbid[0].group, None);
}

/// A bid whose members are `bid` (JSON members after `price`), encoded: the warnings' paths and the model read back.
fn encode_bid(bid: &str) -> (Vec<String>, BidResponse<'static>, Vec<u8>) {
    let json =
        format!(r#"{{"id":"r","seatbid":[{{"bid":[{{"id":"b","impid":"1","price":1{bid}}}]}}]}}"#);
    let model = from_json(&json).expect(&json);
    let (bytes, warnings) = encode(&model);
    let back = from_pb(&bytes);
    assert_eq!(
        encode(&back),
        (bytes.clone(), vec![]),
        "{json}: a fixed point"
    );
    (warnings.into_iter().map(|w| w.path).collect(), back, bytes)
}

fn bid_ext(r: &BidResponse<'_>) -> serde_json::Value {
    serde_json::from_str(r.seatbid[0].bid[0].ext.expect("ext").get()).unwrap()
}

#[test]
fn a_name_sent_twice_is_written_once_with_its_last_value() {
    let (warned, back, _) = encode_bid(
        r#","ext":{"[1001]":[{"varint":5}],"[1001]":[{"varint":6}],"dsa":{"transparency":[]}}"#,
    );
    assert_eq!(warned, Vec::<String>::new());
    assert_eq!(bid_ext(&back)["[1001]"], serde_json::json!([{"varint": 6}]));
    let model = from_json(
        r#"{"id":"r","ext":{"igi":[{"igb":[{"ps":{"x":1.5,"y":1,"x":-2},"pbs":{"a":1,"a":[2]}}]}]}}"#,
    )
    .unwrap();
    let (bytes, _) = encode(&model);
    let back = from_pb(&bytes);
    assert_eq!(encode(&back), (bytes, vec![]));
    let ext: serde_json::Value = serde_json::from_str(back.ext.unwrap().get()).unwrap();
    assert_eq!(
        ext["igi"][0]["igb"][0]["ps"],
        serde_json::json!({"y":1.0,"x":-2.0})
    );
    assert_eq!(
        ext["igi"][0]["igb"][0]["pbs"],
        serde_json::json!({"a":[2.0]})
    );
}

#[test]
fn a_single_value_for_a_list_is_named_by_its_own_path() {
    let model = from_json(
        r#"{"id":"r","seatbid":[{"bid":[{"id":"b","impid":"1","price":1,"ext":{"dsa":{"transparency":[{"domain":"d","dsaparams":4294967296}]}}}]}]}"#,
    )
    .unwrap();
    let e = encode_protobuf(&model, &mut Vec::new()).unwrap_err();
    assert_eq!(e.path, "/seatbid/0/bid/0/ext/dsa/transparency/0/dsaparams");
    let (warned, _, _) =
        encode_bid(r#","ext":{"dsa":{"transparency":[{"domain":"d","dsaparams":"x"}]}}"#);
    assert_eq!(
        warned,
        ["/seatbid/0/bid/0/ext/dsa/transparency/0/dsaparams"]
    );
}

#[test]
fn a_double_past_its_range_is_dropped_with_a_warning() {
    let model = from_json(r#"{"id":"r","ext":{"igi":[{"igb":[{"maxbid":"1e400","cur":"EUR"}]}]}}"#)
        .unwrap();
    let (bytes, warnings) = encode(&model);
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0].path, "/ext/igi/0/igb/0/maxbid");
    let back = from_pb(&bytes);
    assert_eq!(encode(&back), (bytes, vec![]));
    let ext: serde_json::Value = serde_json::from_str(back.ext.unwrap().get()).unwrap();
    assert_eq!(ext["igi"][0]["igb"][0], serde_json::json!({"cur":"EUR"}));
}

#[test]
fn raw_forms_write_only_what_reads_back_the_same() {
    // A group's base64 that holds no fields, names the decoder would render otherwise: dropped.
    let (warned, back, _) = encode_bid(
        r#","ext":{"[1001]":[{"group":"AAAA"}],"[01002]":[{"varint":1}],"[+1003]":[{"varint":1}],"[1004]":[{"group":"CAU="},{"group":""}]}"#,
    );
    assert_eq!(
        warned,
        [
            "/seatbid/0/bid/0/ext/[1001]",
            "/seatbid/0/bid/0/ext/[01002]",
            "/seatbid/0/bid/0/ext/[+1003]"
        ]
    );
    assert_eq!(
        bid_ext(&back),
        serde_json::json!({"[1004]":[{"group":"CAU="},{"group":""}]})
    );
}

#[test]
fn an_empty_object_adm_is_an_empty_adm_native() {
    for adm in [r#","adm":{}"#, r#","adm":{"link":"not an object"}"#] {
        let (_, back, _) = encode_bid(adm);
        let bid = &back.seatbid[0].bid[0];
        assert!(
            matches!(&bid.adm, Some(Adm::Object(o)) if o.members.is_empty()),
            "{adm}: {:?}",
            bid.adm
        );
    }
}

#[test]
fn nesting_past_the_recursion_limit_is_dropped_with_a_warning() {
    let nested = |depth: usize| format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth));
    // `pbs` is a Value at depth 5 (BidResponse, Ext, igi, igb, pbs); each object adds three levels.
    for (depth, kept) in [(31, true), (32, false), (100, false)] {
        let json = format!(
            r#"{{"id":"r","ext":{{"igi":[{{"igb":[{{"cur":"EUR","pbs":{}}}]}}]}}}}"#,
            nested(depth)
        );
        let model = from_json(&json).unwrap();
        let (bytes, warnings) = encode(&model);
        assert_eq!(warnings.is_empty(), kept, "{depth}: {warnings:?}");
        if !kept {
            assert_eq!(warnings[0].path, "/ext/igi/0/igb/0/pbs");
        }
        let back = from_pb(&bytes);
        let ext: serde_json::Value = serde_json::from_str(back.ext.unwrap().get()).unwrap();
        assert_eq!(
            ext["igi"][0]["igb"][0].get("pbs").is_some(),
            kept,
            "{depth}"
        );
    }
    // Groups nested in a raw form count too.
    use base64::Engine as _;
    for (depth, kept) in [(90, true), (120, false)] {
        let group = [vec![0x0b; depth - 1], vec![0x0c; depth - 1]].concat();
        let b64 = base64::engine::general_purpose::STANDARD.encode(group);
        let (warned, _, _) = encode_bid(&format!(r#","ext":{{"[1001]":[{{"group":"{b64}"}}]}}"#));
        assert_eq!(warned.is_empty(), kept, "{depth}");
    }
}

mod generated {
    use super::*;
    use proptest::prelude::*;

    /// One bid as JSON: typed members over their whole int32 range, lists, a flag, and an `ext` holding a declared
    /// member (`dsa`), raw-form fields and a free-form member.
    fn bid() -> impl Strategy<Value = String> {
        (
            "[a-z0-9]{1,8}",
            0.0f64..1e6,
            any::<i32>(),
            any::<i32>(),
            proptest::collection::vec(any::<i32>(), 0..4),
            proptest::option::of(any::<i32>()),
            proptest::collection::vec("[a-z.]{1,10}", 0..3),
            (any::<u64>(), 500u32..2000, proptest::bool::ANY),
            "[ -~]{0,12}",
        )
            .prop_map(|(id, price, w, h, attr, dur, adomain, (raw, number, adrender), adm)| {
                let dur = dur.map(|d| format!(r#","dur":{d}"#)).unwrap_or_default();
                format!(
                    r#"{{"id":{id:?},"impid":"1","price":{price},"w":{w},"h":{h},"attr":{attr:?},"adomain":{adomain:?}{dur},"adm":{adm},"crid":"c","ext":{{"dsa":{{"paid":"p","adrender":{}}},"[{number}]":[{{"varint":{raw}}},{{"len":"aGk="}}],"free":{{"x":1}}}}}}"#,
                    u8::from(adrender),
                    adm = serde_json::to_string(&adm).unwrap(),
                )
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn json_encodes_and_decodes_to_itself_minus_the_free_form_member(
            bids in proptest::collection::vec(bid(), 0..4),
            group in 0i64..2,
        ) {
            let json = format!(
                r#"{{"id":"r","cur":"EUR","seatbid":[{{"seat":"s","group":{group},"bid":[{}]}}]}}"#,
                bids.join(",")
            );
            let model = from_json(&json).expect("decodes");
            let (bytes, warnings) = encode(&model);
            prop_assert_eq!(warnings.len(), bids.len(), "one free-form member per bid");
            let mut expected = serde_json::to_value(&model).unwrap();
            for w in &warnings {
                prop_assert!(w.path.ends_with("/ext/free"), "{}", w);
                remove(&mut expected, &w.path);
            }
            let back = from_pb(&bytes);
            prop_assert_eq!(serde_json::to_value(&back).unwrap(), expected);
            // What was decoded encodes to the same bytes again.
            prop_assert_eq!(encode(&back), (bytes, vec![]));
        }
    }
}
