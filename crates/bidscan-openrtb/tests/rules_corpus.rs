//! Real pairs: `corpus/validate-pairs/` holds 249 request/response pairs from prebid-server's adapter fixtures
//! (what each adapter sent, what its bidder answered; see the directory's SOURCES.tsv, Apache-2.0). Every pair
//! validates without a panic and gives the verdicts recorded in `VERDICTS.tsv` (written by
//! `BIDSCAN_BLESS=1 cargo test -p bidscan-openrtb --test rules_corpus`, and reviewed); then each pair is mutated
//! once per rule on its first accepted bid, and that bid must be rejected with the rule's code.

use crate::pair_common;

use std::fmt::Write;
use std::path::PathBuf;

use bidscan_openrtb::rules::{BidStatus, Policy};
use pair_common::*;
use serde_json::{Value, json};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus/validate-pairs")
}

fn pairs() -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    files.sort();
    files
}

fn verdict_text(o: &Outcome) -> String {
    let parts: Vec<String> = o
        .verdicts
        .iter()
        .map(|(s, c)| match (s, c) {
            (BidStatus::Accepted, _) => "accepted".to_owned(),
            (BidStatus::Rejected, Some(c)) => c.to_string(),
            (BidStatus::Rejected, None) => "rejected?".to_owned(),
        })
        .collect();
    if parts.is_empty() {
        "nobid".to_owned()
    } else {
        parts.join(" ")
    }
}

#[test]
fn every_real_pair_validates_with_the_recorded_verdicts() {
    let pairs = pairs();
    assert!(pairs.len() >= 50, "{} pairs", pairs.len());
    let mut table = String::from("file\tverdicts (per bid: accepted or the status code)\n");
    for (name, text) in &pairs {
        let o = validate_text(text, &Policy::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        writeln!(table, "{name}\t{}", verdict_text(&o)).unwrap();
    }
    let path = dir().join("VERDICTS.tsv");
    if std::env::var_os("BIDSCAN_BLESS").is_some() {
        std::fs::write(&path, &table).unwrap();
    }
    let recorded = std::fs::read_to_string(&path).unwrap();
    for (want, got) in recorded.lines().zip(table.lines()) {
        assert_eq!(want, got);
    }
    assert_eq!(recorded.lines().count(), table.lines().count());
}

/// The envelope of a pair as values.
fn split(text: &str) -> (Value, Value) {
    let v: Value = serde_json::from_str(text).unwrap();
    (v["request"].clone(), v["response"].clone())
}

/// Where the first accepted bid with a known imp is: (seat index, bid index, its verdict index, imp index).
fn target(req: &Value, res: &Value, o: &Outcome) -> Option<(usize, usize, usize, usize)> {
    let mut position = 0;
    for (si, seat) in res["seatbid"].as_array()?.iter().enumerate() {
        for (bi, bid) in seat["bid"].as_array()?.iter().enumerate() {
            if !bid.is_object() {
                return None; // dropped elements would shift positions: not a simple pair
            }
            let imp = req["imp"]
                .as_array()?
                .iter()
                .position(|imp| imp["id"].is_string() && imp["id"] == bid["impid"]);
            if let (Some(k), Some((BidStatus::Accepted, _))) = (imp, o.verdicts.get(position)) {
                return Some((si, bi, position, k));
            }
            position += 1;
        }
    }
    None
}

fn price(bid: &Value) -> f64 {
    bid["price"]
        .as_f64()
        .or_else(|| bid["price"].as_str().and_then(|s| s.parse().ok()))
        .unwrap()
}

/// The slots an imp offers, as (mtype, member).
fn slots(imp: &Value) -> Vec<(i64, &'static str)> {
    [(1, "banner"), (2, "video"), (3, "audio"), (4, "native")]
        .into_iter()
        .filter(|(_, m)| imp[*m].is_object())
        .collect()
}

type Mutation = fn(&mut Value, &mut Value, usize, usize, usize) -> Option<u16>;

/// Each rule's mutation: changes request and/or response so that bid (seat, bid) of imp `k` breaks only that
/// rule's check; returns the code expected, or `None` when the pair cannot be mutated for the rule.
const MUTATIONS: [(&str, Mutation); 27] = [
    ("unknown_imp", |_, r, s, b, _| {
        r["seatbid"][s]["bid"][b]["impid"] = json!("bidscan-no-such-imp");
        Some(300)
    }),
    ("invalid_bid", |_, r, s, b, _| {
        r["seatbid"][s]["bid"][b].as_object_mut()?.remove("price");
        Some(300)
    }),
    ("currency", |q, _, _, _, _| {
        q["cur"] = json!(["ZZZ"]);
        Some(300)
    }),
    ("floor", |q, r, s, b, k| {
        let cur = r["cur"].as_str().unwrap_or("USD").to_owned();
        let bid = &mut r["seatbid"][s]["bid"][b];
        bid.as_object_mut()?.remove("dealid");
        let floor = price(bid) * 2.0 + 1.0;
        q["imp"][k]["bidfloor"] = json!(floor);
        q["imp"][k]["bidfloorcur"] = json!(cur);
        Some(301)
    }),
    ("duplicate_id", |_, r, s, b, _| {
        let bid = r["seatbid"][s]["bid"][b].clone();
        r["seatbid"][s]["bid"].as_array_mut()?.push(bid);
        Some(302)
    }),
    ("deal", |q, r, s, b, k| {
        q["imp"][k].as_object_mut()?.remove("bidfloor");
        r["seatbid"][s]["bid"][b]["dealid"] = json!("bidscan-no-such-deal");
        Some(300)
    }),
    ("deal_floor", |q, r, s, b, k| {
        let cur = r["cur"]
            .as_str()
            .filter(|c| !c.is_empty())
            .unwrap_or("USD")
            .to_owned();
        let bid = &mut r["seatbid"][s]["bid"][b];
        let floor = price(bid) * 2.0 + 1.0;
        bid["dealid"] = json!("bidscan-deal");
        q["imp"][k]["pmp"] =
            json!({"deals": [{"id": "bidscan-deal", "bidfloor": floor, "bidfloorcur": cur}]});
        Some(304)
    }),
    ("floor_rate", |q, r, s, b, k| {
        r["seatbid"][s]["bid"][b].as_object_mut()?.remove("dealid");
        q["imp"][k]["bidfloor"] = json!(0.01);
        q["imp"][k]["bidfloorcur"] = json!("XTS");
        Some(300)
    }),
    ("creative", |_, r, s, b, _| {
        let bid = r["seatbid"][s]["bid"][b].as_object_mut()?;
        bid.remove("adm");
        bid.remove("nurl");
        Some(350)
    }),
    ("creative_vast", |q, r, s, b, k| {
        q["imp"][k]["video"].as_object()?;
        let bid = r["seatbid"][s]["bid"][b].as_object_mut()?;
        bid.insert("mtype".into(), json!(2));
        bid.insert(
            "adm".into(),
            json!("<VAST version=\"4.0\"><Ad><InLine></Ad></VAST>"),
        );
        Some(350)
    }),
    ("mtype", |_, r, s, b, _| {
        r["seatbid"][s]["bid"][b]["mtype"] = json!(9);
        Some(353)
    }),
    ("invalid_bid_crid", |_, r, s, b, _| {
        r["seatbid"][s]["bid"][b].as_object_mut()?.remove("crid");
        Some(300)
    }),
    ("invalid_bid_type", |_, r, s, b, _| {
        r["seatbid"][s]["bid"][b]["w"] = json!({});
        Some(300)
    }),
    ("currency_no_request_cur", |q, r, _, _, _| {
        q.as_object_mut()?.remove("cur");
        r["cur"] = json!("EUR");
        Some(300)
    }),
    ("blocked_attribute", |q, r, s, b, k| {
        let (mtype, slot) = *slots(&q["imp"][k]).first()?;
        q["imp"][k][slot]["battr"] = json!([6]);
        let bid = &mut r["seatbid"][s]["bid"][b];
        bid["mtype"] = json!(mtype);
        bid["attr"] = json!([6]);
        Some(350)
    }),
    ("duration", |q, r, s, b, k| {
        q["imp"][k]["video"]
            .as_object_mut()?
            .insert("maxduration".into(), json!(30));
        let bid = &mut r["seatbid"][s]["bid"][b];
        bid["mtype"] = json!(2);
        bid["dur"] = json!(100_000);
        Some(350)
    }),
    ("size", |q, r, s, b, k| {
        q["imp"][k]["banner"]
            .as_object_mut()?
            .insert("format".into(), json!([{"w": 300, "h": 250}]));
        let bid = r["seatbid"][s]["bid"][b].as_object_mut()?;
        bid.remove("attr");
        bid.insert("mtype".into(), json!(1));
        bid.insert("w".into(), json!(1));
        bid.insert("h".into(), json!(1));
        Some(351)
    }),
    ("secure", |q, r, s, b, k| {
        q["imp"][k]["secure"] = json!(1);
        r["seatbid"][s]["bid"][b]["nurl"] = json!("http://bidscan.invalid/win");
        Some(352)
    }),
    ("media_type", |q, r, s, b, k| {
        let offered: Vec<i64> = slots(&q["imp"][k]).iter().map(|(m, _)| *m).collect();
        let missing = (1..=4).find(|m| !offered.contains(m))?;
        r["seatbid"][s]["bid"][b]["mtype"] = json!(missing);
        Some(353)
    }),
    ("blocked_advertiser", |q, r, s, b, _| {
        q["badv"] = json!(["bidscan-blocked.example"]);
        r["seatbid"][s]["bid"][b]["adomain"] = json!(["ads.bidscan-blocked.example"]);
        Some(356)
    }),
    ("unknown_adomain", |q, r, s, b, _| {
        q["badv"] = json!(["bidscan-blocked.example"]);
        r["seatbid"][s]["bid"][b].as_object_mut()?.remove("adomain");
        Some(356)
    }),
    ("category_taxonomy", |q, r, s, b, _| {
        q.as_object_mut()?.remove("cattax");
        q["bcat"] = json!(["IAB25"]);
        r["seatbid"][s]["bid"][b]["cattax"] = json!(2);
        Some(303)
    }),
    ("category_acat", |q, r, s, b, _| {
        q.as_object_mut()?.remove("cattax");
        q["acat"] = json!(["IAB1"]);
        let bid = r["seatbid"][s]["bid"][b].as_object_mut()?;
        bid.remove("cattax");
        bid.insert("cat".into(), json!(["IAB2"]));
        Some(357)
    }),
    ("seat", |q, _, _, _, _| {
        q["wseat"] = json!(["bidscan-only-seat"]);
        Some(300)
    }),
    ("dsa", |q, r, s, b, _| {
        q["regs"] = json!({"ext": {"dsa": {"dsarequired": 2}}});
        if let Some(ext) = r["seatbid"][s]["bid"][b]["ext"].as_object_mut() {
            ext.remove("dsa");
        }
        Some(300)
    }),
    ("size_missing", |q, r, s, b, k| {
        q["imp"][k]["banner"].as_object_mut()?.insert(
            "format".into(),
            json!([{"w": 300, "h": 250}, {"w": 728, "h": 90}]),
        );
        let bid = r["seatbid"][s]["bid"][b].as_object_mut()?;
        bid.remove("attr");
        bid.remove("w");
        bid.remove("h");
        bid.insert("mtype".into(), json!(1));
        Some(351)
    }),
    ("blocked_category", |q, r, s, b, _| {
        q.as_object_mut()?.remove("cattax");
        q["bcat"] = json!(["IAB25"]);
        let bid = r["seatbid"][s]["bid"][b].as_object_mut()?;
        bid.remove("cattax");
        bid.insert("cat".into(), json!(["IAB25-3"]));
        Some(357)
    }),
];

#[test]
fn each_rule_rejects_a_mutated_real_pair_with_its_code() {
    // Every rule enforced, the opt-in ones (unknown_adomain) included.
    let policy = Policy::all(bidscan_openrtb::rules::Action::Enforce);
    let mut applied = [0usize; MUTATIONS.len()];
    for (name, text) in pairs() {
        let (req, res) = split(&text);
        let original = validate_text(&text, &policy).unwrap();
        let Some((s, b, position, k)) = target(&req, &res, &original) else {
            continue;
        };
        for (i, (rule, mutate)) in MUTATIONS.iter().enumerate() {
            let (mut q, mut r) = (req.clone(), res.clone());
            let Some(code) = mutate(&mut q, &mut r, s, b, k) else {
                continue;
            };
            let o = validate_text(&envelope(&q, &r), &policy)
                .unwrap_or_else(|e| panic!("{name} / {rule}: {e}"));
            let at = if *rule == "duplicate_id" {
                // The copy, appended to the target's seat bid.
                let before: usize = r["seatbid"].as_array().unwrap()[..=s]
                    .iter()
                    .map(|seat| seat["bid"].as_array().map_or(0, Vec::len))
                    .sum();
                before - 1
            } else {
                position
            };
            assert_eq!(o.verdicts[at], rejected(code), "{name} / {rule}: {o:?}");
            applied[i] += 1;
        }
    }
    for ((rule, _), n) in MUTATIONS.iter().zip(applied) {
        let least = match *rule {
            "duration" | "creative_vast" => 10,
            _ => 50,
        };
        assert!(n >= least, "{rule}: only {n} real pairs mutated");
    }
}

/// `Validated::decode` (the pair decoded where it stays, then the rules) gives what `decode_pair` then
/// `Validated::new` gives, with and without markup inspection, on every real pair and on envelopes it refuses.
#[test]
fn validated_decode_is_decode_pair_then_new() {
    use bidscan_json::Reader;
    use bidscan_openrtb::rules::Validated;
    use bidscan_openrtb::{Inspector, Mode, decode_pair, decode_pair_inspected};
    let policy = Policy::default();
    let mut reader = Reader::default();
    let mut inspector = Inspector::new();
    let mut texts: Vec<String> = pairs().into_iter().map(|(_, text)| text).collect();
    texts.push(r#"{"request":{"imp":5},"response":{}}"#.to_owned());
    texts.push(r#"{"request":{"imp":[{"id":"1"}]},"response":[1,"#.to_owned());
    for text in &texts {
        for mode in [Mode::Lenient, Mode::Strict] {
            let (mut a, mut b) = (text.clone().into_bytes(), text.clone().into_bytes());
            let one = Validated::decode(&mut reader, &mut a, mode, &policy);
            let two = decode_pair(&mut reader, &mut b, mode).map(|p| Validated::new(p, &policy));
            match (one, two) {
                (Ok(one), Ok(two)) => assert_eq!(one, two, "{text}"),
                (Err(one), Err(two)) => assert_eq!(one.to_string(), two.to_string(), "{text}"),
                (one, two) => panic!("{text}: {one:?} vs {two:?}"),
            }
            let (mut a, mut b) = (text.clone().into_bytes(), text.clone().into_bytes());
            let one =
                Validated::decode_inspected(&mut reader, &mut a, mode, &mut inspector, &policy);
            let one = one.map_err(|e| e.to_string());
            let two = decode_pair_inspected(&mut reader, &mut b, mode, &mut inspector)
                .map(|p| Validated::new(p, &policy))
                .map_err(|e| e.to_string());
            assert_eq!(one, two, "{text}");
        }
    }
}

/// The gate's other points on every real pair: a bidder's error object in place of the response is refused
/// (not a silent no-bid); a media type left to `ext.prebid.type` is still judged against the imp; a rejected
/// bid's non-bid entry carries it at `ext.prebid.bid` without its markup.
#[test]
fn real_pairs_mutated_for_the_gates_other_points() {
    use bidscan_json::Reader;
    use bidscan_openrtb::rules::Validated;
    use bidscan_openrtb::{Mode, decode_pair};
    let policy = Policy::default();
    let (mut refused, mut typed, mut trimmed) = (0, 0, 0);
    for (name, text) in pairs() {
        let (req, res) = split(&text);
        // Not silent: an error object where the bid response should be.
        let error = json!({"error": "timeout", "id": req["id"].clone()});
        let e = validate_text(&envelope(&req, &error), &policy).unwrap_err();
        assert_eq!(e.code(), "not_a_bid_response", "{name}");
        refused += 1;
        let original = validate_text(&text, &policy).unwrap();
        let Some((s, b, position, k)) = target(&req, &res, &original) else {
            continue;
        };
        // Media type from ext.prebid.type, naming a slot the imp does not offer.
        let offered: Vec<i64> = slots(&req["imp"][k]).iter().map(|(m, _)| *m).collect();
        if let Some(missing) = (1..=4).find(|m| !offered.contains(m)) {
            let kind = ["banner", "video", "audio", "native"][missing as usize - 1];
            let mut r = res.clone();
            let bid = r["seatbid"][s]["bid"][b].as_object_mut().unwrap();
            bid.remove("mtype");
            let ext = bid.entry("ext").or_insert_with(|| json!({}));
            if ext.is_object() {
                ext["prebid"] = json!({"type": kind});
                let o = validate_text(&envelope(&req, &r), &policy).unwrap();
                assert_eq!(o.verdicts[position], rejected(353), "{name}: {o:?}");
                typed += 1;
            }
        }
        // The non-bid of a bid rejected for its floor.
        let mut q = req.clone();
        let mut r = res.clone();
        let bid = &mut r["seatbid"][s]["bid"][b];
        bid.as_object_mut().unwrap().remove("dealid");
        let cur = r["cur"]
            .as_str()
            .filter(|c| !c.is_empty())
            .unwrap_or("USD")
            .to_owned();
        q["imp"][k]["bidfloor"] = json!(price(&r["seatbid"][s]["bid"][b]) * 2.0 + 1.0);
        q["imp"][k]["bidfloorcur"] = json!(cur);
        let mut buf = envelope(&q, &r).into_bytes();
        let pair = decode_pair(&mut Reader::default(), &mut buf, Mode::Lenient).unwrap();
        let v = Validated::new(pair, &policy);
        let seatnonbid = serde_json::to_value(v.seatnonbid()).unwrap();
        let nonbid = seatnonbid
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|seat| seat["nonbid"].as_array().unwrap().iter())
            .find(|n| n["ext"]["prebid"]["bid"]["id"] == r["seatbid"][s]["bid"][b]["id"])
            .unwrap_or_else(|| panic!("{name}: {seatnonbid}"));
        assert!(
            nonbid["ext"]["prebid"]["bid"].get("adm").is_none(),
            "{name}"
        );
        trimmed += 1;
    }
    assert!(
        refused >= 200 && typed >= 50 && trimmed >= 50,
        "{refused} {typed} {trimmed}"
    );
}
