//! Properties: the verdicts and findings of `/validate` do not depend on the order of members (the envelope's
//! `request`/`response` and every object's) or on whitespace; a damaged real pair never panics.

use crate::pair_common;

use std::fmt::Write;

use bidscan_openrtb::rules::Policy;
use pair_common::*;
use proptest::prelude::*;
use serde_json::{Value, json};

/// One bid's choices, each drawn from values that do and do not pass a rule.
#[derive(Clone, Debug)]
struct BidChoice {
    impid: &'static str,
    price: f64,
    size: (i64, i64),
    adomain: &'static str,
    cat: &'static str,
    mtype: i64,
    nurl: &'static str,
    dealid: Option<&'static str>,
    id: &'static str,
}

fn bid_choice() -> impl Strategy<Value = BidChoice> {
    (
        prop::sample::select(vec!["1", "2", "9"]),
        prop::sample::select(vec![0.1, 0.5, 1.25, 3.0]),
        prop::sample::select(vec![(300, 250), (728, 90), (1, 1)]),
        prop::sample::select(vec!["brand.example", "x.blocked.example"]),
        prop::sample::select(vec!["IAB2", "IAB25-1"]),
        1..=4i64,
        prop::sample::select(vec!["https://n.example/w", "http://n.example/w"]),
        prop::sample::select(vec![None, Some("deal-a"), Some("deal-z")]),
        prop::sample::select(vec!["a", "b", "c"]),
    )
        .prop_map(
            |(impid, price, size, adomain, cat, mtype, nurl, dealid, id)| BidChoice {
                impid,
                price,
                size,
                adomain,
                cat,
                mtype,
                nurl,
                dealid,
                id,
            },
        )
}

fn bid(c: &BidChoice) -> Value {
    let mut b = json!({
        "id": c.id, "impid": c.impid, "price": c.price, "crid": "cr", "w": c.size.0, "h": c.size.1,
        "adomain": [c.adomain], "cat": [c.cat], "mtype": c.mtype, "nurl": c.nurl,
        "adm": "<div>ad \"quoted\" \\ é</div>", "ext": {"k": [1, {"n": null}]}
    });
    if let Some(d) = c.dealid {
        b["dealid"] = json!(d);
    }
    b
}

fn pair(seats: &[Vec<BidChoice>], secure: bool) -> (Value, Value) {
    let mut req = request();
    req["imp"][0]["secure"] = json!(u8::from(secure));
    req["imp"][1]["pmp"] = json!({"deals": [{"id": "deal-a", "bidfloor": 2.0}]});
    req["badv"] = json!(["blocked.example"]);
    req["bcat"] = json!(["IAB25"]);
    let seatbid: Vec<Value> = seats
        .iter()
        .enumerate()
        .map(|(i, bids)| json!({"seat": format!("s{i}"), "bid": bids.iter().map(bid).collect::<Vec<_>>()}))
        .collect();
    let res = json!({"id": "req-1", "cur": "USD", "seatbid": seatbid});
    (req, res)
}

/// A tiny deterministic generator for member orders and whitespace.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn ws(&mut self, out: &mut String) {
        for _ in 0..self.next() % 3 {
            out.push([' ', '\n', '\t', '\r'][(self.next() % 4) as usize]);
        }
    }
}

/// `v` as JSON text with each object's members in a shuffled order and random whitespace between tokens.
fn render(v: &Value, mix: &mut Mix, out: &mut String) {
    mix.ws(out);
    match v {
        Value::Object(map) => {
            let mut members: Vec<(&String, &Value)> = map.iter().collect();
            for i in (1..members.len()).rev() {
                members.swap(i, (mix.next() % (i as u64 + 1)) as usize);
            }
            out.push('{');
            for (i, (k, v)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                mix.ws(out);
                write!(out, "{}", Value::String(k.clone())).unwrap();
                mix.ws(out);
                out.push(':');
                render(v, mix, out);
            }
            mix.ws(out);
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                render(item, mix, out);
            }
            mix.ws(out);
            out.push(']');
        }
        other => write!(out, "{other}").unwrap(),
    }
    mix.ws(out);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn verdicts_do_not_depend_on_member_order_or_whitespace(
        seats in prop::collection::vec(prop::collection::vec(bid_choice(), 1..4), 1..3),
        secure in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let (req, res) = pair(&seats, secure);
        let policy = Policy::default();
        let plain = validate_text(&envelope(&req, &res), &policy).unwrap();

        let mut mix = Mix(seed);
        let (mut a, mut b) = (String::new(), String::new());
        render(&req, &mut mix, &mut a);
        render(&res, &mut mix, &mut b);
        let reversed = format!("{{ \"response\" :{b},\n\"request\":{a} }}");
        let mixed = validate_text(&reversed, &policy).unwrap();
        prop_assert_eq!(&plain, &mixed, "{}", reversed);

        let pretty = format!(
            "{{\"request\": {},\n \"response\": {}}}",
            serde_json::to_string_pretty(&req).unwrap(),
            serde_json::to_string_pretty(&res).unwrap()
        );
        prop_assert_eq!(&plain, &validate_text(&pretty, &policy).unwrap());
        prop_assert_eq!(plain.verdicts.len(), seats.iter().map(Vec::len).sum::<usize>());
    }
}

/// The real pairs (`corpus/validate-pairs/`), for damaging.
fn real_pairs() -> &'static [String] {
    static PAIRS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    PAIRS.get_or_init(|| {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpus/validate-pairs");
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        files
            .iter()
            .map(|p| std::fs::read_to_string(p).unwrap())
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// A damaged real envelope (cut short, or one byte replaced) validates or fails with an error; never a panic,
    /// and a success keeps the answer's invariants (checked by `validate_text`).
    #[test]
    fn damaged_real_pairs_never_panic(pick in any::<prop::sample::Index>(), at in any::<prop::sample::Index>(),
                                      byte in any::<u8>(), cut in any::<bool>()) {
        let text = pick.get(real_pairs());
        let mut bytes = text.as_bytes().to_vec();
        let i = at.index(bytes.len());
        if cut {
            bytes.truncate(i);
        } else {
            bytes[i] = byte;
        }
        let mut reader = bidscan_json::Reader::default();
        if let Ok(pair) = bidscan_openrtb::decode_pair(&mut reader, &mut bytes, bidscan_openrtb::Mode::Lenient) {
            let v = bidscan_openrtb::rules::Validated::new(pair, &Policy::default());
            prop_assert_eq!(v.statuscodes.len(), v.pair.decoded.issues.len());
            prop_assert_eq!(v.verdicts.len(), v.pair.decoded.bid_count());
            let _ = (v.summary(), v.issues(), v.seatnonbid());
        }
    }
}
