//! One test per validation rule (`bidscan_openrtb::rules`): an accepted case and a rejected one, with the
//! verdict, the status code and the finding's pointer asserted; then `warn` and `skip`.

use crate::pair_common;

use bidscan_openrtb::Severity;
use bidscan_openrtb::rules::{Action, Policy, Rule};
use pair_common::*;
use serde_json::{Value, json};

const B0: &str = "/seatbid/0/bid/0";

/// Asserts that the only bid is accepted and nothing carries a status code.
fn accepts(request: &Value, response: &Value) {
    let o = validate(request, response);
    assert_eq!(o.verdicts, vec![ACCEPTED], "{o:?}");
    assert_eq!(o.coded(), vec![], "{o:?}");
}

/// Asserts that the only bid is rejected with `statuscode` and that finding `code` is reported at `path` as an
/// error with that status code.
fn rejects(request: &Value, response: &Value, path: &str, code: &str, statuscode: u16) {
    let o = validate(request, response);
    assert_eq!(o.verdicts, vec![rejected(statuscode)], "{o:?}");
    let found = o
        .findings
        .iter()
        .any(|f| f.0 == path && f.1 == code && f.2 == Severity::Error && f.3 == Some(statuscode));
    assert!(found, "no {code} at {path} with {statuscode}: {o:?}");
}

/// The message of the first finding `code` of the pair (default policy); panics when there is none.
fn message_of(request: &Value, response: &Value, code: &str) -> String {
    let mut text = envelope(request, response).into_bytes();
    let mut reader = bidscan_json::Reader::default();
    let pair = bidscan_openrtb::decode_pair(&mut reader, &mut text, bidscan_openrtb::Mode::Lenient)
        .expect("decodes");
    let validated = bidscan_openrtb::rules::Validated::new(pair, &Policy::default());
    let issue = validated
        .pair
        .decoded
        .issues
        .iter()
        .find(|i| i.code == code);
    issue
        .unwrap_or_else(|| panic!("no {code}"))
        .message
        .to_string()
}

fn with_bid(change: impl FnOnce(&mut Value)) -> Value {
    let mut r = response();
    change(bid0(&mut r));
    r
}

fn with_request(change: impl FnOnce(&mut Value)) -> Value {
    let mut r = request();
    change(&mut r);
    r
}

#[test]
fn the_base_pair_is_accepted() {
    accepts(&request(), &response());
}

#[test]
fn unknown_imp_300() {
    accepts(&request(), &with_bid(|b| b["impid"] = json!("1")));
    rejects(
        &request(),
        &with_bid(|b| b["impid"] = json!("9")),
        &format!("{B0}/impid"),
        "unknown_impid",
        300,
    );
}

#[test]
fn invalid_bid_300() {
    accepts(&request(), &with_bid(|b| b["price"] = json!("1.25")));
    let no_price = with_bid(|b| {
        b.as_object_mut().unwrap().remove("price");
    });
    rejects(
        &request(),
        &no_price,
        &format!("{B0}/price"),
        "missing_price",
        300,
    );
    let no_id = with_bid(|b| b["id"] = json!(""));
    rejects(&request(), &no_id, &format!("{B0}/id"), "missing_id", 300);
    let mut bad_cur = response();
    bad_cur["cur"] = json!("US");
    rejects(&request(), &bad_cur, "/cur", "invalid_currency", 300);
}

#[test]
fn currency_300() {
    let usd_eur = with_request(|r| r["cur"] = json!(["EUR", "USD"]));
    accepts(&usd_eur, &response());
    let mut no_cur = response();
    no_cur.as_object_mut().unwrap().remove("cur");
    accepts(&usd_eur, &no_cur);
    let eur = with_request(|r| r["cur"] = json!(["EUR"]));
    rejects(&eur, &no_cur, "/cur", "currency_not_allowed", 300);
    rejects(&eur, &response(), "/cur", "currency_not_allowed", 300);
    // The request's codes in another case are the same currencies.
    accepts(
        &with_request(|r| r["cur"] = json!(["eur", " usd "])),
        &response(),
    );
}

#[test]
fn floor_301() {
    accepts(&request(), &with_bid(|b| b["price"] = json!(0.5)));
    rejects(
        &request(),
        &with_bid(|b| b["price"] = json!(0.49)),
        &format!("{B0}/price"),
        "below_floor",
        301,
    );
}

#[test]
fn floor_in_another_currency_uses_the_rates_or_rejects() {
    let eur_floor = with_request(|r| {
        r["imp"][0]["bidfloor"] = json!(1.0);
        r["imp"][0]["bidfloorcur"] = json!("EUR");
    });
    let text = envelope(&eur_floor, &response());
    // No rate: the floor cannot be compared, and the bid does not pass (floor_rate, 300).
    rejects(
        &eur_floor,
        &response(),
        &format!("{B0}/price"),
        "floor_rate_missing",
        300,
    );
    let mut warned = Policy::default();
    warned.set(Rule::FloorRate, Action::Warn);
    let o = validate_text(&text, &warned).unwrap();
    assert_eq!(o.verdicts, vec![ACCEPTED], "{o:?}");
    let warning = (
        format!("{B0}/price"),
        "floor_rate_missing",
        Severity::Warning,
        Some(300),
    );
    assert!(o.findings.contains(&warning), "{o:?}");

    let mut policy = Policy::default();
    let usd = policy.rates.0.entry("USD".into()).or_default();
    usd.insert("EUR".into(), 0.5); // 1 EUR = 2 USD: a 1 EUR floor is 2 USD
    let o = validate_text(&text, &policy).unwrap();
    assert_eq!(o.verdicts, vec![rejected(301)], "{o:?}");
    let cleared = envelope(&eur_floor, &with_bid(|b| b["price"] = json!(2.0)));
    let o = validate_text(&cleared, &policy).unwrap();
    assert_eq!(o.verdicts, vec![ACCEPTED], "{o:?}");
    // A lower-case `bidfloorcur` finds the same rate.
    let lower = with_request(|r| {
        r["imp"][0]["bidfloor"] = json!(1.0);
        r["imp"][0]["bidfloorcur"] = json!("eur");
    });
    let o = validate_text(&envelope(&lower, &response()), &policy).unwrap();
    assert_eq!(o.verdicts, vec![rejected(301)], "{o:?}");
}

#[test]
fn duplicate_id_302() {
    let mut two = response();
    let mut second = bid0(&mut two).clone();
    second["id"] = json!("b2");
    two["seatbid"][0]["bid"]
        .as_array_mut()
        .unwrap()
        .push(second.clone());
    let o = validate(&request(), &two);
    assert_eq!(o.verdicts, vec![ACCEPTED, ACCEPTED]);
    second["id"] = json!("b1");
    two["seatbid"][0]["bid"][1] = second;
    let o = validate(&request(), &two);
    assert_eq!(o.verdicts, vec![ACCEPTED, rejected(302)], "the later one");
    let finding = (
        "/seatbid/0/bid/1/id".to_owned(),
        "duplicate_bid_id",
        Severity::Error,
        Some(302),
    );
    assert!(o.findings.contains(&finding), "{o:?}");
}

#[test]
fn deal_304() {
    let pmp = with_request(|r| {
        r["imp"][0]["pmp"] = json!({"private_auction": 1, "deals": [
            {"id": "deal-a", "bidfloor": 2.0, "bidfloorcur": "USD"}, {"id": "deal-b"}
        ]})
    });
    // Under a deal, the deal's floor applies and the imp's does not (0.3 < imp floor 0.5).
    accepts(
        &pmp,
        &with_bid(|b| {
            b["dealid"] = json!("deal-b");
            b["price"] = json!(0.3)
        }),
    );
    accepts(
        &pmp,
        &with_bid(|b| {
            b["dealid"] = json!("deal-a");
            b["price"] = json!(2.0)
        }),
    );
    rejects(
        &pmp,
        &with_bid(|b| b["dealid"] = json!("deal-z")),
        &format!("{B0}/dealid"),
        "unknown_deal",
        300,
    );
    rejects(
        &pmp,
        &response(),
        &format!("{B0}/dealid"),
        "deal_required",
        300,
    );
    rejects(
        &pmp,
        &with_bid(|b| {
            b["dealid"] = json!("deal-a");
            b["price"] = json!(1.99)
        }),
        &format!("{B0}/price"),
        "below_deal_floor",
        304,
    );
    rejects(
        &request(),
        &with_bid(|b| b["dealid"] = json!("deal-a")),
        &format!("{B0}/dealid"),
        "unknown_deal",
        300,
    );
    // `"private_auction": true` is the flag set, as `"secure": true` is.
    let as_true = with_request(|r| {
        r["imp"][0]["pmp"] = json!({"private_auction": true, "deals": [{"id": "d"}]})
    });
    rejects(
        &as_true,
        &response(),
        &format!("{B0}/dealid"),
        "deal_required",
        300,
    );
    let as_false = with_request(|r| {
        r["imp"][0]["pmp"] = json!({"private_auction": false, "deals": [{"id": "d"}]})
    });
    accepts(&as_false, &response());
}

#[test]
fn blocked_attribute_350() {
    let battr = with_request(|r| r["imp"][0]["banner"]["battr"] = json!([3, 6]));
    accepts(&battr, &with_bid(|b| b["attr"] = json!([1, 2])));
    rejects(
        &battr,
        &with_bid(|b| b["attr"] = json!([1, 6])),
        &format!("{B0}/attr"),
        "blocked_attribute",
        350,
    );
    // The video slot's battr does not apply to a banner bid.
    let video_battr = with_request(|r| r["imp"][0]["video"] = json!({"battr": [1]}));
    accepts(&video_battr, &response());
}

fn video_bid(dur: i64) -> Value {
    with_bid(|b| {
        b["impid"] = json!("2");
        b["mtype"] = json!(2);
        b["dur"] = json!(dur);
        b["adm"] = json!("<VAST version=\"4.0\"><Ad/></VAST>");
        b.as_object_mut().unwrap().remove("w");
        b.as_object_mut().unwrap().remove("h");
    })
}

#[test]
fn duration_350() {
    accepts(&request(), &video_bid(30));
    accepts(&request(), &video_bid(5));
    rejects(
        &request(),
        &video_bid(31),
        &format!("{B0}/dur"),
        "duration_out_of_range",
        350,
    );
    rejects(
        &request(),
        &video_bid(4),
        &format!("{B0}/dur"),
        "duration_out_of_range",
        350,
    );
}

/// Without `dur`, the VAST markup's own `Duration` is checked (leaving `dur` out does not let
/// any length through); with or without inspection alike.
#[test]
fn duration_350_from_the_vast_when_dur_is_absent() {
    let vast = |duration: &str| {
        let mut bid = video_bid(0);
        let b = bid0(&mut bid);
        b.as_object_mut().unwrap().remove("dur");
        b["adm"] = json!(format!(
            "<VAST version=\"4.0\"><Ad><InLine><Impression>https://i</Impression><Creatives><Creative><Linear>\
             <Duration>{duration}</Duration><MediaFiles><MediaFile type=\"video/mp4\">https://m.mp4</MediaFile></MediaFiles>\
             </Linear></Creative></Creatives></InLine></Ad></VAST>"
        ));
        bid
    };
    accepts(&request(), &vast("00:00:30"));
    // An unreadable Duration does not pass a slot that bounds the duration.
    rejects(
        &request(),
        &vast("not a duration"),
        &format!("{B0}/adm"),
        "duration_unknown",
        350,
    );
    for long in ["00:00:45", "00:00:30.500", "00:00:04"] {
        rejects(
            &request(),
            &vast(long),
            &format!("{B0}/adm"),
            "duration_out_of_range",
            350,
        );
        let text = envelope(&request(), &vast(long));
        for inspect in [false, true] {
            let mut buf = text.clone().into_bytes();
            let mut reader = bidscan_json::Reader::default();
            let mut inspector = bidscan_markup::Inspector::default();
            let pair = if inspect {
                bidscan_openrtb::decode_pair_inspected(
                    &mut reader,
                    &mut buf,
                    bidscan_openrtb::Mode::Lenient,
                    &mut inspector,
                )
            } else {
                bidscan_openrtb::decode_pair(&mut reader, &mut buf, bidscan_openrtb::Mode::Lenient)
            };
            let validated =
                bidscan_openrtb::rules::Validated::new(pair.expect("decodes"), &Policy::default());
            assert_eq!(validated.rejected(), 1, "{long} inspect={inspect}");
        }
    }
    // A `dur` in range does not pass a longer creative: the markup is what plays.
    let mut with_dur = vast("00:00:45");
    bid0(&mut with_dur)["dur"] = json!(30);
    rejects(
        &request(),
        &with_dur,
        &format!("{B0}/adm"),
        "duration_out_of_range",
        350,
    );
}

#[test]
fn size_351() {
    accepts(
        &request(),
        &with_bid(|b| {
            b["w"] = json!(728);
            b["h"] = json!(90)
        }),
    );
    let exact = with_request(|r| r["imp"][0]["banner"] = json!({"w": 320, "h": 50}));
    accepts(
        &exact,
        &with_bid(|b| {
            b["w"] = json!(320);
            b["h"] = json!(50)
        }),
    );
    rejects(
        &request(),
        &with_bid(|b| b["h"] = json!(90)),
        &format!("{B0}/w"),
        "size_not_allowed",
        351,
    );
    rejects(
        &exact,
        &response(),
        &format!("{B0}/w"),
        "size_not_allowed",
        351,
    );
}

#[test]
fn secure_352() {
    let secure = with_request(|r| r["imp"][0]["secure"] = json!(1));
    accepts(
        &secure,
        &with_bid(|b| b["nurl"] = json!("https://win.example/n?p=${AUCTION_PRICE}")),
    );
    // A plain-HTTP link in text that is not a src/href/url(...) is not loaded by the creative.
    accepts(
        &secure,
        &with_bid(|b| b["adm"] = json!("<div>see http://x.example</div>")),
    );
    rejects(
        &secure,
        &with_bid(|b| b["adm"] = json!("<img src=\"http://cdn.example/a.png\">")),
        &format!("{B0}/adm"),
        "insecure_markup",
        352,
    );
    for field in ["nurl", "burl", "iurl"] {
        let res = with_bid(|b| b[field] = json!("http://tracker.example/x"));
        rejects(&secure, &res, &format!("{B0}/{field}"), "insecure_url", 352);
    }
    // `"secure": true` is the flag set; `false` is not.
    let insecure = with_bid(|b| b["nurl"] = json!("http://tracker.example/x"));
    let as_true = with_request(|r| r["imp"][0]["secure"] = json!(true));
    rejects(
        &as_true,
        &insecure,
        &format!("{B0}/nurl"),
        "insecure_url",
        352,
    );
    accepts(
        &with_request(|r| r["imp"][0]["secure"] = json!(false)),
        &insecure,
    );
    // Markup that only shows an `http://` in another attribute's value or in a textarea is not insecure.
    accepts(
        &secure,
        &with_bid(|b| {
            b["adm"] = json!(
                "<img alt=\"src=http://x\" src=\"https://y\"><textarea><img src=http://z></textarea>"
            )
        }),
    );
    // Not a secure imp: the same markup is accepted.
    accepts(
        &request(),
        &with_bid(|b| b["nurl"] = json!("http://tracker.example/x")),
    );
}

#[test]
fn media_type_353() {
    accepts(&request(), &video_bid(10));
    rejects(
        &request(),
        &with_bid(|b| b["mtype"] = json!(2)),
        &format!("{B0}/mtype"),
        "media_type_not_offered",
        353,
    );
    // Video markup on the banner-only imp, with or without mtype.
    let vast = "<VAST version=\"4.0\"><Ad/></VAST>";
    let no_mtype = with_bid(|b| {
        b["adm"] = json!(vast);
        b.as_object_mut().unwrap().remove("mtype");
    });
    rejects(
        &request(),
        &no_mtype,
        &format!("{B0}/adm"),
        "media_type_not_offered",
        353,
    );
    let contradicts = with_bid(|b| b["adm"] = json!(vast));
    rejects(
        &request(),
        &contradicts,
        &format!("{B0}/adm"),
        "markup_contradicts_mtype",
        353,
    );
    // Ambiguous text contradicts nothing.
    accepts(&request(), &with_bid(|b| b["adm"] = json!("some-test-ad")));
}

#[test]
fn blocked_advertiser_356() {
    let badv = with_request(|r| {
        r["badv"] = json!(["blocked.example"]);
        r["bapp"] = json!(["com.blocked.app"]);
    });
    accepts(
        &badv,
        &with_bid(|b| {
            b["adomain"] = json!(["notblocked.example"]);
            b["bundle"] = json!("com.ok")
        }),
    );
    rejects(
        &badv,
        &with_bid(|b| b["adomain"] = json!(["shop.Blocked.example"])),
        &format!("{B0}/adomain"),
        "blocked_advertiser",
        356,
    );
    rejects(
        &badv,
        &with_bid(|b| b["bundle"] = json!("com.blocked.app")),
        &format!("{B0}/bundle"),
        "blocked_app",
        356,
    );
}

#[test]
fn blocked_category_357() {
    let bcat = with_request(|r| r["bcat"] = json!(["IAB25", "IAB7-39"]));
    accepts(&bcat, &with_bid(|b| b["cat"] = json!(["IAB7", "IAB250"])));
    rejects(
        &bcat,
        &with_bid(|b| b["cat"] = json!(["IAB25-3"])),
        &format!("{B0}/cat"),
        "blocked_category",
        357,
    );
    rejects(
        &bcat,
        &with_bid(|b| b["cat"] = json!(["IAB7-39"])),
        &format!("{B0}/cat"),
        "blocked_category",
        357,
    );
    // Another taxonomy (cattax 2 on the bid, 1 by default on the request): not comparable, so rejected by
    // category_taxonomy (303) whatever the categories, and accepted when that rule is skipped.
    let other_taxonomy = with_bid(|b| {
        b["cat"] = json!(["IAB25-3"]);
        b["cattax"] = json!(2)
    });
    rejects(
        &bcat,
        &other_taxonomy,
        &format!("{B0}/cattax"),
        "category_taxonomy_mismatch",
        303,
    );
    let mut policy = Policy::default();
    policy.set(Rule::CategoryTaxonomy, Action::Skip);
    let o = validate_text(&envelope(&bcat, &other_taxonomy), &policy).unwrap();
    assert_eq!(o.verdicts, vec![ACCEPTED], "{o:?}");
}

#[test]
fn the_first_enforced_rule_gives_the_code_and_warn_or_skip_keep_the_bid() {
    // Below the floor (301) and a blocked category (357): 301 comes first.
    let req = with_request(|r| r["bcat"] = json!(["IAB2"]));
    let res = with_bid(|b| b["price"] = json!(0.1));
    assert_eq!(validate(&req, &res).verdicts, vec![rejected(301)]);

    let text = envelope(&req, &res);
    let warn_floor = Policy {
        floor: Action::Warn,
        ..Policy::default()
    };
    let o = validate_text(&text, &warn_floor).unwrap();
    assert_eq!(o.verdicts, vec![rejected(357)], "{o:?}");
    let warning = (
        format!("{B0}/price"),
        "below_floor",
        Severity::Warning,
        Some(301),
    );
    assert!(o.findings.contains(&warning), "{o:?}");

    let o = validate_text(&text, &Policy::all(Action::Warn)).unwrap();
    assert_eq!(o.verdicts, vec![ACCEPTED]);
    assert_eq!(o.coded().len(), 2, "{o:?}");

    let o = validate_text(&text, &Policy::all(Action::Skip)).unwrap();
    assert_eq!(o.verdicts, vec![ACCEPTED]);
    assert_eq!(o.coded(), vec![], "{o:?}");
}

#[test]
fn every_rule_is_in_the_policy_and_has_a_code() {
    for rule in Rule::ALL {
        assert!((300..400).contains(&rule.statuscode()), "{rule:?}");
        assert!(!rule.name().is_empty());
    }
}

/// Lists long enough to be indexed (more than 16 entries: `rules/blocklists.rs`, the `battr` sets) give the
/// verdicts of short ones: the blocked entry found wherever it is in the list, nothing blocked otherwise.
#[test]
fn long_block_lists_reject_and_accept_as_short_ones() {
    let pad = |f: &dyn Fn(usize) -> Value| (0..40).map(f).collect::<Vec<Value>>();
    let long = with_request(|r| {
        let mut badv = pad(&|i| json!(format!("pad{i}.example")));
        badv.insert(25, json!("Blocked.example"));
        r["badv"] = json!(badv);
        let mut bcat = pad(&|i| json!(format!("IAB{}", 100 + i)));
        bcat.insert(30, json!("IAB7"));
        r["bcat"] = json!(bcat);
        let mut bapp = pad(&|i| json!(format!("com.pad{i}")));
        bapp.push(json!("com.blocked.app"));
        r["bapp"] = json!(bapp);
        let mut battr = pad(&|i| json!(100 + i));
        battr.push(json!(6));
        r["imp"][0]["banner"]["battr"] = json!(battr);
    });
    accepts(
        &long,
        &with_bid(|b| {
            b["adomain"] = json!(["blocked.example.org", "pad3.example.net"]);
            b["cat"] = json!(["IAB77", "IAB1-7"]);
            b["bundle"] = json!("com.pad1x");
            b["attr"] = json!([1, 2, 3]);
        }),
    );
    let cases: [(&str, Value, &str, u16); 4] = [
        (
            "adomain",
            json!(["ok.example", "a.shop.BLOCKED.example"]),
            "blocked_advertiser",
            356,
        ),
        ("cat", json!(["IAB1", "iab7-3"]), "blocked_category", 357),
        ("bundle", json!("com.blocked.app"), "blocked_app", 356),
        ("attr", json!([1, 139, 6]), "blocked_attribute", 350),
    ];
    for (field, value, code, statuscode) in cases {
        rejects(
            &long,
            &with_bid(|b| b[field] = value.clone()),
            &format!("{B0}/{field}"),
            code,
            statuscode,
        );
    }
}

/// A `format` list longer than the scan bound is looked up as a set, with the same verdicts, and the message of
/// a rejection names at most ten sizes (9,000 `format`s would make each message ~97 KB).
#[test]
fn long_format_lists_accept_reject_and_name_ten_sizes() {
    let long = with_request(|r| {
        let format: Vec<Value> = (0..40).map(|i| json!({"w": 100 + i, "h": 50})).collect();
        r["imp"][0]["banner"] = json!({"format": format});
    });
    accepts(
        &long,
        &with_bid(|b| {
            b["w"] = json!(139);
            b["h"] = json!(50)
        }),
    );
    let small = with_bid(|b| {
        b["w"] = json!(1);
        b["h"] = json!(1)
    });
    rejects(&long, &small, &format!("{B0}/w"), "size_not_allowed", 351);
    assert_eq!(
        message_of(&long, &small, "size_not_allowed"),
        "banner size 1x1 is not among the imp's sizes 100x50, 101x50, 102x50, 103x50, 104x50, 105x50, \
         106x50, 107x50, 108x50, 109x50 and 30 more"
    );
}

/// A response whose `id` is not the request's (OpenRTB 2.6 §4.2.1) is reported as a warning and judges no bid.
#[test]
fn a_response_to_another_request_is_a_warning() {
    let other = {
        let mut r = response();
        r["id"] = json!("req-2");
        r
    };
    accepts(&request(), &other);
    let o = validate(&request(), &other);
    let warning = (
        "/id".to_owned(),
        "response_id_mismatch",
        Severity::Warning,
        None,
    );
    assert!(o.findings.contains(&warning), "{o:?}");
    let o = validate(&request(), &response());
    assert!(
        !o.findings.iter().any(|f| f.1 == "response_id_mismatch"),
        "{o:?}"
    );
    // A no-bid answers a request too; a long id is quoted cut (1 MB ids would make a 2 MB message).
    let long = "x".repeat(100_000);
    let nobid = json!({"id": long, "nbr": 2});
    assert_eq!(
        message_of(&request(), &nobid, "response_id_mismatch"),
        format!(
            "the response's id \"{}…\" is not the request's id \"req-1\" (OpenRTB 2.6 §4.2.1)",
            "x".repeat(64)
        )
    );
}

/// A seat that bids as a group (`seatbid.group` = 1, OpenRTB 2.6 §4.2.2) is won or lost as one: once a bid of it
/// is rejected, its other bids are too (300, `group_rejected` at the bid); without `group` they stand alone.
#[test]
fn group_300() {
    let two = |group: Option<i64>| {
        let mut r = response();
        let mut low = bid0(&mut r).clone();
        low["id"] = json!("b2");
        low["price"] = json!(0.1);
        r["seatbid"][0]["bid"].as_array_mut().unwrap().push(low);
        if let Some(g) = group {
            r["seatbid"][0]["group"] = json!(g);
        }
        r
    };
    for alone in [None, Some(0)] {
        let o = validate(&request(), &two(alone));
        assert_eq!(o.verdicts, vec![ACCEPTED, rejected(301)], "{o:?}");
    }
    let o = validate(&request(), &two(Some(1)));
    assert_eq!(o.verdicts, vec![rejected(300), rejected(301)], "{o:?}");
    let finding = (B0.to_owned(), "group_rejected", Severity::Error, Some(300));
    assert!(o.findings.contains(&finding), "{o:?}");
    // `"group": true` is the flag set, as `imp.secure` and `private_auction` are.
    let o = validate(&request(), &{
        let mut r = two(None);
        r["seatbid"][0]["group"] = json!(true);
        r
    });
    assert_eq!(o.verdicts, vec![rejected(300), rejected(301)], "{o:?}");
    // Every bid accepted: the group stands.
    let mut fine = two(Some(1));
    fine["seatbid"][0]["bid"][1]["price"] = json!(2.0);
    assert_eq!(
        validate(&request(), &fine).verdicts,
        vec![ACCEPTED, ACCEPTED]
    );
    // `warn`: reported with its code, the bid stays accepted.
    let mut policy = Policy::default();
    policy.set(Rule::Group, Action::Warn);
    let text = envelope(&request(), &two(Some(1)));
    let o = validate_text(&text, &policy).unwrap();
    assert_eq!(o.verdicts, vec![ACCEPTED, rejected(301)], "{o:?}");
    let warned = (
        B0.to_owned(),
        "group_rejected",
        Severity::Warning,
        Some(300),
    );
    assert!(o.findings.contains(&warned), "{o:?}");
}

/// `docs/validation-rules.md`'s rule table is the registry: every rule in order, with its code and default.
#[test]
fn the_rule_table_in_the_docs_is_the_registry() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/validation-rules.md"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let rows: Vec<(String, String, String)> = text
        .lines()
        .skip_while(|l| !l.starts_with("| rule | code | default |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (
                cells[1].trim_matches('`').to_owned(),
                cells[2].to_owned(),
                cells[3].to_owned(),
            )
        })
        .collect();
    let policy = Policy::default();
    let registry: Vec<(String, String, String)> = Rule::ALL
        .iter()
        .map(|r| {
            let default = match r {
                Rule::DealFloor => "`deal`'s".to_owned(),
                _ => format!("{:?}", policy.action(*r)).to_lowercase(),
            };
            (r.name().to_owned(), r.statuscode().to_string(), default)
        })
        .collect();
    assert_eq!(rows, registry);
}

/// The docs' table of seat-non-bid codes names, for each code of the rule registry, every rule that gives it, and
/// no rule that does not.
#[test]
fn the_status_code_table_in_the_docs_names_each_rules_code() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/validation-rules.md"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut listed: Vec<(u16, String)> = text
        .lines()
        .skip_while(|l| !l.starts_with("| code | IAB name | given by |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .flat_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let code: u16 = cells[1].parse().unwrap();
            cells[3]
                .split(", ")
                .filter(|r| r.starts_with('`'))
                .map(|r| (code, r.trim_matches('`').to_owned()))
                .collect::<Vec<_>>()
        })
        .collect();
    let mut registry: Vec<(u16, String)> = Rule::ALL
        .iter()
        .map(|r| (r.statuscode(), r.name().to_owned()))
        .collect();
    listed.sort();
    registry.sort();
    assert_eq!(listed, registry);
}

/// Inline VAST of `version` with one 15 s linear of `media_type`.
fn vast(version: &str, media_type: &str) -> String {
    format!(
        "<VAST version=\"{version}\"><Ad><InLine><Impression>https://i.example/</Impression><Creatives><Creative>\
         <Linear><Duration>00:00:15</Duration><MediaFiles><MediaFile type=\"{media_type}\">https://m.example/a\
         </MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>"
    )
}

/// The base response's bid moved to the video imp `"2"` with `adm` as its markup.
fn vast_bid(adm: &str) -> Value {
    with_bid(|b| {
        let bid = b.as_object_mut().unwrap();
        for k in ["w", "h", "attr"] {
            bid.remove(k);
        }
        bid.insert("impid".into(), json!("2"));
        bid.insert("mtype".into(), json!(2));
        bid.insert("adm".into(), json!(adm));
    })
}

#[test]
fn every_error_on_a_bid_rejects_it() {
    // No markup: creative (350).
    let no_markup = with_bid(|b| {
        b.as_object_mut().unwrap().remove("adm");
    });
    rejects(&request(), &no_markup, B0, "missing_markup", 350);
    // Malformed VAST: creative (350), found by the markup inspection.
    rejects(
        &request(),
        &vast_bid("<VAST version=\"4.0\"><Ad><InLine></Ad></VAST>"),
        &format!("{B0}/adm"),
        "vast_malformed",
        350,
    );
    // Malformed native: creative (350).
    let native = with_request(|r| r["imp"][0]["native"] = json!({"request": "{}"}));
    rejects(
        &native,
        &with_bid(|b| {
            b["mtype"] = json!(4);
            b["adm"] = json!("{\"native\":{\"assets\":5}}");
        }),
        &format!("{B0}/adm"),
        "native_malformed",
        350,
    );
    // mtype 9: mtype (353).
    rejects(
        &request(),
        &with_bid(|b| b["mtype"] = json!(9)),
        &format!("{B0}/mtype"),
        "invalid_mtype",
        353,
    );
    // A wrong type on a member: the general rule (300).
    rejects(
        &request(),
        &with_bid(|b| b["w"] = json!({})),
        &format!("{B0}/w"),
        "invalid_type",
        300,
    );
    // An error on the seat bid's own member rejects its bids; an error on a dropped element names none.
    let mut seat_error = response();
    seat_error["seatbid"][0]["seat"] = json!({});
    let o = validate(&request(), &seat_error);
    assert_eq!(o.verdicts, vec![rejected(300)], "{o:?}");
    let mut dropped = response();
    dropped["seatbid"][0]["bid"]
        .as_array_mut()
        .unwrap()
        .insert(0, json!(5));
    let o = validate(&request(), &dropped);
    assert_eq!(o.verdicts, vec![ACCEPTED], "{o:?}");
    // warn keeps the bid, with the code on the finding; skip drops the code.
    let mut policy = Policy::default();
    policy.set(Rule::Creative, Action::Warn);
    let o = validate_text(&envelope(&request(), &no_markup), &policy).unwrap();
    assert_eq!(o.verdicts, vec![ACCEPTED], "{o:?}");
    assert!(
        o.findings
            .iter()
            .any(|f| f.1 == "missing_markup" && f.3 == Some(350))
    );
    policy.set(Rule::Creative, Action::Skip);
    let o = validate_text(&envelope(&request(), &no_markup), &policy).unwrap();
    assert_eq!(o.verdicts, vec![ACCEPTED], "{o:?}");
    assert_eq!(o.coded(), vec![], "{o:?}");
}

#[test]
fn currency_empty_request_cur_allows_usd_only() {
    let mut eur = response();
    eur["cur"] = json!("EUR");
    rejects(&request(), &eur, "/cur", "currency_not_allowed", 300);
    let message = message_of(&request(), &eur, "currency_not_allowed");
    assert!(message.contains("allows USD only"), "{message}");
    let eur_allowed = with_request(|r| {
        r["cur"] = json!(["EUR"]);
        r["imp"][0].as_object_mut().unwrap().remove("bidfloor");
    });
    accepts(&eur_allowed, &eur);
    // An empty response cur is USD.
    let mut empty = response();
    empty["cur"] = json!("");
    let o = validate(&request(), &empty);
    assert!(
        !o.findings.iter().any(|f| f.1 == "currency_not_allowed"),
        "{o:?}"
    );
    rejects(
        &with_request(|r| r["cur"] = json!(["EUR"])),
        &empty,
        "/cur",
        "currency_not_allowed",
        300,
    );
}

#[test]
fn floor_rate_300_and_cross_rates() {
    let jpy_floor = with_request(|r| {
        r["imp"][0]["bidfloor"] = json!(5.0);
        r["imp"][0]["bidfloorcur"] = json!("JPY");
    });
    rejects(
        &jpy_floor,
        &response(),
        &format!("{B0}/price"),
        "floor_rate_missing",
        300,
    );
    // JPY → GBP → USD: no direct rate, none through USD from JPY, one through GBP.
    let mut policy = Policy::default();
    policy
        .rates
        .0
        .entry("JPY".into())
        .or_default()
        .insert("GBP".into(), 0.005);
    policy
        .rates
        .0
        .entry("GBP".into())
        .or_default()
        .insert("USD".into(), 1.25);
    // 5 JPY = 0.025 GBP = 0.03125 USD: a 1.25 USD bid clears it.
    let o = validate_text(&envelope(&jpy_floor, &response()), &policy).unwrap();
    assert_eq!(o.verdicts, vec![ACCEPTED], "{o:?}");
    let big = with_request(|r| {
        r["imp"][0]["bidfloor"] = json!(500.0);
        r["imp"][0]["bidfloorcur"] = json!("JPY");
    });
    let o = validate_text(&envelope(&big, &response()), &policy).unwrap();
    assert_eq!(o.verdicts, vec![rejected(301)], "{o:?}");
    // A deal's floor in a currency without a rate: floor_rate too.
    let deal = with_request(|r| {
        r["imp"][0]["pmp"] = json!({"deals": [{"id": "d", "bidfloor": 1.0, "bidfloorcur": "CHF"}]})
    });
    rejects(
        &deal,
        &with_bid(|b| b["dealid"] = json!("d")),
        &format!("{B0}/price"),
        "floor_rate_missing",
        300,
    );
}

#[test]
fn deal_floor_304_follows_deal_unless_set() {
    let pmp =
        with_request(|r| r["imp"][0]["pmp"] = json!({"deals": [{"id": "d", "bidfloor": 2.0}]}));
    let low = with_bid(|b| b["dealid"] = json!("d"));
    rejects(&pmp, &low, &format!("{B0}/price"), "below_deal_floor", 304);
    let mut policy = Policy::default();
    policy.set(Rule::Deal, Action::Warn);
    let o = validate_text(&envelope(&pmp, &low), &policy).unwrap();
    assert_eq!(o.verdicts, vec![ACCEPTED], "deal = warn sets both: {o:?}");
    policy.set(Rule::DealFloor, Action::Enforce);
    let o = validate_text(&envelope(&pmp, &low), &policy).unwrap();
    assert_eq!(o.verdicts, vec![rejected(304)], "{o:?}");
}

#[test]
fn category_acat_and_taxonomy() {
    let acat = with_request(|r| r["acat"] = json!(["IAB2"]));
    accepts(&acat, &with_bid(|b| b["cat"] = json!(["IAB2-1"])));
    rejects(
        &acat,
        &with_bid(|b| b["cat"] = json!(["IAB3"])),
        &format!("{B0}/cat"),
        "category_not_allowed",
        357,
    );
    rejects(
        &acat,
        &with_bid(|b| {
            b.as_object_mut().unwrap().remove("cat");
        }),
        &format!("{B0}/cat"),
        "category_not_allowed",
        357,
    );
    // A request cattax 6 (Content Taxonomy 3.0) against a bid without cattax (1).
    let v3 = with_request(|r| {
        r["bcat"] = json!(["1"]);
        r["cattax"] = json!(6)
    });
    rejects(
        &v3,
        &response(),
        &format!("{B0}/cattax"),
        "category_taxonomy_mismatch",
        303,
    );
    accepts(&v3, &with_bid(|b| b["cattax"] = json!(6)));
}

#[test]
fn unknown_adomain_and_bundle_356_when_enabled() {
    let badv = with_request(|r| r["badv"] = json!(["blocked.example"]));
    let no_adomain = with_bid(|b| {
        b.as_object_mut().unwrap().remove("adomain");
    });
    accepts(&badv, &no_adomain);
    let mut policy = Policy::default();
    policy.set(Rule::UnknownAdomain, Action::Enforce);
    policy.set(Rule::UnknownBundle, Action::Enforce);
    let o = validate_text(&envelope(&badv, &no_adomain), &policy).unwrap();
    assert_eq!(o.verdicts, vec![rejected(356)], "{o:?}");
    assert!(o.findings.iter().any(|f| f.1 == "unknown_adomain"));
    let app = with_request(|r| {
        r.as_object_mut().unwrap().remove("site");
        r["app"] = json!({"bundle": "com.pub.app"});
        r["bapp"] = json!(["com.blocked"]);
    });
    let o = validate_text(&envelope(&app, &response()), &policy).unwrap();
    assert_eq!(o.verdicts, vec![rejected(356)], "{o:?}");
    assert!(o.findings.iter().any(|f| f.1 == "unknown_bundle"));
    let o = validate_text(
        &envelope(&app, &with_bid(|b| b["bundle"] = json!("com.ok"))),
        &policy,
    )
    .unwrap();
    assert_eq!(o.verdicts, vec![ACCEPTED], "{o:?}");
}

#[test]
fn seat_300() {
    rejects(
        &with_request(|r| r["bseat"] = json!(["seat-a"])),
        &response(),
        "/seatbid/0/seat",
        "seat_blocked",
        300,
    );
    rejects(
        &with_request(|r| r["wseat"] = json!(["seat-b"])),
        &response(),
        "/seatbid/0/seat",
        "seat_not_allowed",
        300,
    );
    accepts(
        &with_request(|r| r["wseat"] = json!(["seat-a"])),
        &response(),
    );
}

#[test]
fn dsa_300_where_required() {
    let required =
        with_request(|r| r["regs"] = json!({"ext": {"dsa": {"dsarequired": 2, "pubrender": 0}}}));
    rejects(
        &required,
        &response(),
        &format!("{B0}/ext"),
        "dsa_missing",
        300,
    );
    let with_dsa = |dsa: Value| with_bid(|b| b["ext"] = json!({"dsa": dsa}));
    accepts(
        &required,
        &with_dsa(json!({"behalf": "Brand", "paid": "Agency", "adrender": 1})),
    );
    rejects(
        &required,
        &with_dsa(json!("yes")),
        &format!("{B0}/ext"),
        "dsa_invalid",
        300,
    );
    rejects(
        &required,
        &with_dsa(json!({"behalf": "x".repeat(101), "adrender": 1})),
        &format!("{B0}/ext"),
        "dsa_invalid",
        300,
    );
    rejects(
        &required,
        &with_dsa(json!({"behalf": "B", "adrender": 0})),
        &format!("{B0}/ext"),
        "dsa_render_conflict",
        300,
    );
    let publisher_renders =
        with_request(|r| r["regs"] = json!({"ext": {"dsa": {"dsarequired": 3, "pubrender": 2}}}));
    rejects(
        &publisher_renders,
        &with_dsa(json!({"adrender": 1})),
        &format!("{B0}/ext"),
        "dsa_render_conflict",
        300,
    );
    // Not required: not checked.
    accepts(
        &with_request(|r| r["regs"] = json!({"ext": {"dsa": {"dsarequired": 1}}})),
        &response(),
    );
}

#[test]
fn video_format_350_mimes() {
    accepts(
        &request(),
        &vast_bid(&vast("4.0", "video/MP4; codecs=avc1")),
    );
    rejects(
        &request(),
        &vast_bid(&vast("4.0", "video/webm")),
        &format!("{B0}/adm"),
        "vast_media_type_not_offered",
        350,
    );
    // No mimes offered: not judged.
    accepts(
        &with_request(|r| {
            r["imp"][1]["video"]
                .as_object_mut()
                .unwrap()
                .remove("mimes");
        }),
        &vast_bid(&vast("4.0", "video/webm")),
    );
}

#[test]
fn video_format_350_protocols() {
    accepts(&request(), &vast_bid(&vast("4.0", "video/mp4")));
    rejects(
        &request(),
        &vast_bid(&vast("4.2", "video/mp4")),
        &format!("{B0}/adm"),
        "vast_version_not_offered",
        350,
    );
    rejects(
        &with_request(|r| r["imp"][1]["video"]["protocols"] = json!([2, 3])),
        &vast_bid(&vast("4.0", "video/mp4")),
        &format!("{B0}/adm"),
        "vast_version_not_offered",
        350,
    );
}

#[test]
fn size_351_when_the_bid_leaves_its_size_out() {
    let no_size = with_bid(|b| {
        let bid = b.as_object_mut().unwrap();
        bid.remove("w");
        bid.remove("h");
    });
    // The base imp offers 300x250 and 728x90.
    rejects(
        &request(),
        &no_size,
        &format!("{B0}/w"),
        "size_missing",
        351,
    );
    let one = with_request(|r| r["imp"][0]["banner"] = json!({"format": [{"w": 300, "h": 250}]}));
    accepts(&one, &no_size);
}

#[test]
fn media_type_inferred_so_omission_does_not_bypass_blocking() {
    // Without mtype, ext.prebid.type says video: the video slot's battr applies.
    let both = with_request(|r| {
        r["imp"][0]["video"] = json!({"mimes": ["video/mp4"], "battr": [6]});
        r["imp"][0]["banner"]["battr"] = json!([]);
    });
    let typed = with_bid(|b| {
        b.as_object_mut().unwrap().remove("mtype");
        b["attr"] = json!([6]);
        b["ext"] = json!({"prebid": {"type": "video"}});
    });
    rejects(
        &both,
        &typed,
        &format!("{B0}/attr"),
        "blocked_attribute",
        350,
    );
    // No type at all (no mtype, no ext.prebid.type, two slots, markup served on the win notice): the union of
    // the offered slots' battr.
    let untyped = with_bid(|b| {
        let bid = b.as_object_mut().unwrap();
        bid.remove("mtype");
        bid.remove("adm");
        bid.insert("nurl".into(), json!("https://win.example/"));
        bid.insert("attr".into(), json!([6]));
    });
    rejects(
        &both,
        &untyped,
        &format!("{B0}/attr"),
        "blocked_attribute",
        350,
    );
    // A companion banner's battr binds a video bid.
    let companion = with_request(|r| {
        r["imp"][1]["video"]["companionad"] = json!([{"w": 300, "h": 250, "battr": [9]}])
    });
    rejects(
        &companion,
        &vast_bid(&vast("4.0", "video/mp4")).tap(|r| bid0(r)["attr"] = json!([9])),
        &format!("{B0}/attr"),
        "blocked_attribute",
        350,
    );
}

/// `value` changed by `f`, for building test values inline.
trait Tap: Sized {
    fn tap(self, f: impl FnOnce(&mut Self)) -> Self;
}

impl Tap for Value {
    fn tap(mut self, f: impl FnOnce(&mut Self)) -> Self {
        f(&mut self);
        self
    }
}

#[test]
fn seatnonbid_carries_the_trimmed_bid_where_prebid_does() {
    let text = envelope(&request(), &with_bid(|b| b["price"] = json!(0.1)));
    let mut buf = text.into_bytes();
    let pair = bidscan_openrtb::decode_pair(
        &mut bidscan_json::Reader::default(),
        &mut buf,
        bidscan_openrtb::Mode::Lenient,
    )
    .unwrap();
    let v = bidscan_openrtb::rules::Validated::new(pair.clone(), &Policy::default());
    let json = serde_json::to_value(v.seatnonbid()).unwrap();
    assert_eq!(json[0]["seat"], "seat-a");
    assert_eq!(json[0]["nonbid"][0]["statuscode"], 301);
    let bid = &json[0]["nonbid"][0]["ext"]["prebid"]["bid"];
    assert_eq!(bid["id"], "b1");
    assert!(bid.get("adm").is_none(), "{bid}");
    let keep = Policy {
        nonbid_markup: true,
        ..Policy::default()
    };
    let v = bidscan_openrtb::rules::Validated::new(pair, &keep);
    let json = serde_json::to_value(v.seatnonbid()).unwrap();
    assert!(json[0]["nonbid"][0]["ext"]["prebid"]["bid"]["adm"].is_string());
}

/// The response currency as decode reads it (an empty `cur` is USD, `"eur"` is EUR with a warning), and decode's
/// `missing_crid` and `zero_price`, which are errors with the `invalid_bid` rule's status code: each reaches the
/// rules so.
#[test]
fn decode_reads_reach_the_rules() {
    let usd = with_request(|r| r["cur"] = json!(["USD"]));
    // No floor: a EUR bid against the base's USD floor would need a rate.
    let eur = with_request(|r| {
        r["cur"] = json!(["EUR"]);
        r["imp"][0].as_object_mut().unwrap().remove("bidfloor");
    });
    let mut empty = response();
    empty["cur"] = json!("");
    accepts(&usd, &empty);
    rejects(&eur, &empty, "/cur", "currency_not_allowed", 300);
    let mut lower = response();
    lower["cur"] = json!("eur");
    accepts(&eur, &lower);
    let o = validate(&eur, &lower);
    assert_eq!(
        o.findings[0],
        ("/cur".to_owned(), "currency_case", Severity::Warning, None),
        "{o:?}"
    );
    rejects(&usd, &lower, "/cur", "currency_not_allowed", 300);
    let no_crid = with_bid(|b| {
        b.as_object_mut().unwrap().remove("crid");
    });
    let zero = with_bid(|b| b["price"] = json!(0));
    for (response, field, code) in [
        (&no_crid, "crid", "missing_crid"),
        (&zero, "price", "zero_price"),
    ] {
        let o = validate(&request(), response);
        let finding = (format!("{B0}/{field}"), code, Severity::Error, Some(300));
        assert!(o.findings.contains(&finding), "{o:?}");
    }
}

/// A request with one imp `"1"` offering only `slot` (a JSON object).
fn only(slot: &str, value: Value) -> Value {
    json!({"id": "req-1", "imp": [{"id": "1", slot: value}]})
}

#[test]
fn markup_of_another_kind_than_the_only_slot_is_353() {
    let video = only(
        "video",
        json!({"mimes": ["video/mp4"], "protocols": [2], "maxduration": 30}),
    );
    // HTML on a video-only imp, without mtype.
    let html = with_bid(|b| {
        let bid = b.as_object_mut().unwrap();
        for k in ["mtype", "w", "h"] {
            bid.remove(k);
        }
    });
    rejects(
        &video,
        &html,
        &format!("{B0}/adm"),
        "media_type_not_offered",
        353,
    );
    let native = only("native", json!({"request": "{}"}));
    rejects(
        &native,
        &html,
        &format!("{B0}/adm"),
        "media_type_not_offered",
        353,
    );
    // VAST after a comment is VAST: the slot's rules see it (4.3 is not among protocols [2]).
    let commented = with_bid(|b| {
        let bid = b.as_object_mut().unwrap();
        for k in ["mtype", "w", "h", "attr"] {
            bid.remove(k);
        }
        bid.insert(
            "adm".into(),
            json!(format!(
                "<!-- x --><!DOCTYPE VAST>{}",
                vast("4.3", "video/mp4")
            )),
        );
    });
    rejects(
        &video,
        &commented,
        &format!("{B0}/adm"),
        "vast_version_not_offered",
        350,
    );
    // With mtype 2 and a right version, the same markup is accepted (no false 353).
    let fine = with_bid(|b| {
        let bid = b.as_object_mut().unwrap();
        for k in ["w", "h", "attr"] {
            bid.remove(k);
        }
        bid.insert("mtype".into(), json!(2));
        bid.insert(
            "adm".into(),
            json!(format!("<!-- x -->{}", vast("2.0", "video/mp4"))),
        );
    });
    accepts(&video, &fine);
}

#[test]
fn a_bid_of_unknown_type_on_a_multi_slot_imp_is_353() {
    let both = with_request(|r| {
        r["imp"][0]["video"] = json!({"mimes": ["video/mp4"], "maxduration": 30});
    });
    let nurl_only = with_bid(|b| {
        let bid = b.as_object_mut().unwrap();
        bid.remove("mtype");
        bid.remove("adm");
        bid.insert("nurl".into(), json!("https://win.example/adm"));
        bid.insert("dur".into(), json!(120));
    });
    rejects(
        &both,
        &nurl_only,
        &format!("{B0}/mtype"),
        "media_type_unknown",
        353,
    );
    // One slot: its type, and its rules (size) apply.
    let mut typed = nurl_only.clone();
    bid0(&mut typed)["mtype"] = json!(1);
    accepts(&request(), &typed);
}

#[test]
fn blank_markup_and_duplicate_members_reject() {
    rejects(
        &request(),
        &with_bid(|b| b["adm"] = json!("   ")),
        B0,
        "missing_markup",
        350,
    );
    rejects(
        &request(),
        &with_bid(|b| {
            b["adm"] = json!("");
            b["nurl"] = json!(" ");
        }),
        B0,
        "missing_markup",
        350,
    );
    // A member given twice: which value an exchange's reader keeps is unknown.
    let text = r#"{"request":{"id":"r","badv":["blocked.com"],"imp":[{"id":"1","banner":{"w":300,"h":250}}]},
        "response":{"id":"r","seatbid":[{"bid":[{"id":"b","impid":"1","price":0.1,"price":2,"crid":"c",
        "adomain":["blocked.com"],"adomain":["ok.com"],"adm":"<div></div>","w":300,"h":250}]}]}}"#;
    let o = validate_text(text, &Policy::default()).unwrap();
    assert_eq!(o.verdicts, vec![rejected(300)], "{o:?}");
    assert!(
        o.findings
            .iter()
            .any(|f| f.1 == "duplicate_field" && f.3 == Some(300)),
        "{o:?}"
    );
}

#[test]
fn blocklists_are_not_passed_by_the_form_of_a_value() {
    let bcat = with_request(|r| r["bcat"] = json!(["IAB25"]));
    for cat in ["IAB25 ", " IAB25-3", "IAB25\t"] {
        rejects(
            &bcat,
            &with_bid(|b| b["cat"] = json!([cat])),
            &format!("{B0}/cat"),
            "blocked_category",
            357,
        );
    }
    let badv = with_request(|r| r["badv"] = json!(["blocked.com"]));
    for domain in [
        "https://blocked.com",
        "www.blocked.com/landing",
        "blocked.com:443",
        "blocked.com?x",
    ] {
        rejects(
            &badv,
            &with_bid(|b| b["adomain"] = json!([domain])),
            &format!("{B0}/adomain"),
            "blocked_advertiser",
            356,
        );
    }
    let app = with_request(|r| r["bapp"] = json!(["com.bad.app"]));
    rejects(
        &app,
        &with_bid(|b| b["bundle"] = json!(" COM.BAD.APP")),
        &format!("{B0}/bundle"),
        "blocked_app",
        356,
    );
    // bseat and wseat longer than a scan: the same answers from their sets.
    let many: Vec<String> = (0..100).map(|i| format!("seat-{i}")).collect();
    let mut blocked = many.clone();
    blocked.push("seat-a".into());
    rejects(
        &with_request(|r| r["bseat"] = json!(blocked)),
        &response(),
        "/seatbid/0/seat",
        "seat_blocked",
        300,
    );
    rejects(
        &with_request(|r| r["wseat"] = json!(many)),
        &response(),
        "/seatbid/0/seat",
        "seat_not_allowed",
        300,
    );
}

#[test]
fn duration_from_the_vast_even_with_dur_and_when_unreadable() {
    let video_adm = |duration: &str| {
        format!(
            "<VAST version=\"3.0\"><Ad><InLine><Impression>https://i</Impression><Creatives><Creative><Linear>\
             <Duration>{duration}</Duration><MediaFiles><MediaFile type=\"video/mp4\">https://m</MediaFile>\
             </MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>"
        )
    };
    // dur 15 in range, the creative 45 s: the markup is what plays.
    let mut lying = vast_bid(&video_adm("00:00:45"));
    bid0(&mut lying)["dur"] = json!(15);
    rejects(
        &request(),
        &lying,
        &format!("{B0}/adm"),
        "duration_out_of_range",
        350,
    );
    for unreadable in ["0:0:45", "PT45S", "00:45"] {
        rejects(
            &request(),
            &vast_bid(&video_adm(unreadable)),
            &format!("{B0}/adm"),
            "duration_unknown",
            350,
        );
    }
    accepts(&request(), &vast_bid(&video_adm("00:00:15")));
}

#[test]
fn native_without_link_and_audio_formats_are_judged() {
    let native = only("native", json!({"request": "{}"}));
    let bid = |adm: &str| {
        with_bid(|b| {
            let bid = b.as_object_mut().unwrap();
            for k in ["w", "h"] {
                bid.remove(k);
            }
            bid.insert("mtype".into(), json!(4));
            bid.insert("adm".into(), json!(adm));
        })
    };
    // A warning of /decode that the gate decides on: the bid is rejected, the finding stays a warning.
    let o = validate(&native, &bid(r#"{"foo":1}"#));
    assert_eq!(o.verdicts, vec![rejected(350)], "{o:?}");
    assert!(
        o.findings.contains(&(
            format!("{B0}/adm"),
            "native_missing_link",
            Severity::Warning,
            Some(350)
        )),
        "{o:?}"
    );
    accepts(
        &native,
        &bid(r#"{"native":{"link":{"url":"https://x.example/"},"assets":[]}}"#),
    );
    let audio = only(
        "audio",
        json!({"mimes": ["audio/mp4"], "protocols": [2, 3]}),
    );
    let audio_bid = with_bid(|b| {
        let bid = b.as_object_mut().unwrap();
        for k in ["w", "h", "attr"] {
            bid.remove(k);
        }
        bid.insert("mtype".into(), json!(3));
        bid.insert("adm".into(), json!(vast("4.2", "audio/mp4")));
    });
    rejects(
        &audio,
        &audio_bid,
        &format!("{B0}/adm"),
        "vast_version_not_offered",
        350,
    );
}

#[test]
fn floors_in_a_blank_currency_are_usd() {
    let blank = with_request(|r| {
        r["imp"][0]["bidfloor"] = json!(1.0);
        r["imp"][0]["bidfloorcur"] = json!("");
    });
    accepts(&blank, &with_bid(|b| b["price"] = json!(2.0)));
    rejects(
        &blank,
        &with_bid(|b| b["price"] = json!(0.5)),
        &format!("{B0}/price"),
        "below_floor",
        301,
    );
}

#[test]
fn dsa_as_an_array_is_not_the_extension() {
    let required =
        with_request(|r| r["regs"] = json!({"ext": {"dsa": {"dsarequired": 3, "pubrender": 0}}}));
    for dsa in [json!([]), json!(["a", "b", 1])] {
        rejects(
            &required,
            &with_bid(|b| b["ext"] = json!({"dsa": dsa})),
            &format!("{B0}/ext"),
            "dsa_invalid",
            300,
        );
    }
}
