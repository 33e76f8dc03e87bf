//! The `BidRequest` view and the envelope decode: lenient request members, either member order, one buffer,
//! and the errors with `/request` and `/response` pointers.

use std::borrow::Cow;

use bidscan_json::Reader;
use bidscan_openrtb::{DecodeError, Mode, Status, decode_pair};

fn pair(text: &str) -> Result<bidscan_openrtb::Pair<'static>, DecodeError> {
    let buf: &'static mut [u8] = Box::leak(text.as_bytes().to_vec().into_boxed_slice());
    decode_pair(&mut Reader::default(), buf, Mode::Lenient)
}

#[test]
fn the_request_view_reads_what_validation_needs_leniently_in_place() {
    let text = r#"{"request":{"id":"r\u0031","site":{"page":"https://p.example/","content":{"x":[1,2,{"y":null}]}},
      "imp":[{"id":1,"bidfloor":"0.75","bidfloorcur":"EUR","secure":1,"tagid":"t",
              "banner":{"w":300,"h":"250","format":{"w":728,"h":90},"battr":[1,"2",null]},
              "video":{"mimes":"video/mp4","minduration":5,"maxduration":30,"protocols":[2,3],"battr":[6]},
              "audio":{"maxduration":60}, "native":{"request":"{}","battr":[4]},
              "pmp":{"private_auction":1,"deals":[{"id":"d1","bidfloor":2,"bidfloorcur":"USD"},7]}},
             {"id":"2","banner":"wrong"}],
      "cur":"USD","bcat":["IAB25"],"badv":["b.example"],"bapp":["com.x"],"cattax":2,"tmax":"120","ext":{"a":1}},
      "response":{"id":"r1","seatbid":[]}}"#;
    let p = pair(text).unwrap();
    let q = &p.request;
    assert_eq!(q.id.as_deref(), Some("r1"));
    assert!(
        matches!(q.id, Some(Cow::Borrowed(_))),
        "decoded in place and borrowed"
    );
    assert_eq!(q.imp.len(), 2);
    let imp = &q.imp[0];
    assert_eq!(imp.id.as_deref(), Some("1"), "numeric id as text");
    assert_eq!(imp.bidfloor, Some(0.75));
    assert_eq!(imp.bidfloorcur.as_deref(), Some("EUR"));
    assert!(imp.is_secure());
    let banner = imp.banner.as_ref().unwrap();
    assert_eq!((banner.w, banner.h), (Some(300), Some(250)));
    assert_eq!(banner.format.len(), 1, "a single object read as a list");
    assert_eq!(
        (banner.format[0].w, banner.format[0].h),
        (Some(728), Some(90))
    );
    assert_eq!(
        banner.battr.iter().map(|a| a.0).collect::<Vec<_>>(),
        vec![1, 2]
    );
    let video = imp.video.as_ref().unwrap();
    assert_eq!(video.mimes.len(), 1);
    assert_eq!((video.minduration, video.maxduration), (Some(5), Some(30)));
    assert_eq!(video.protocols.len(), 2);
    assert_eq!(imp.audio.as_ref().unwrap().maxduration, Some(60));
    assert_eq!(imp.native.as_ref().unwrap().battr.len(), 1);
    let pmp = imp.pmp.as_ref().unwrap();
    assert_eq!(pmp.private_auction, Some(1));
    assert_eq!(
        pmp.deals.len(),
        1,
        "a deal that is not an object is dropped"
    );
    assert_eq!(pmp.deals[0].bidfloor, Some(2.0));
    assert!(q.imp[1].banner.is_none(), "a wrong-typed slot is absent");
    assert_eq!(q.cur.len(), 1);
    assert_eq!(q.cattax.map(|c| c.0), Some(2));
    assert_eq!(q.tmax, Some(120));
    assert_eq!(p.decoded.status, Status::NoBid);
    assert!(
        p.decoded.issues.is_empty(),
        "the request's coercions are not reported"
    );
}

#[test]
fn either_member_order_gives_the_same_pair() {
    let req = r#"{"id":"r","imp":[{"id":"1","bidfloor":1}]}"#;
    let res = r#"{"id":"r","seatbid":[{"bid":[{"id":"b","impid":"1","price":"2","crid":"c","adm":"<a/>"}]}]}"#;
    let a = pair(&format!(r#"{{"request":{req},"response":{res}}}"#)).unwrap();
    let b = pair(&format!(
        r#"{{"meta":{{"n":1}}, "response" : {res} ,"request":{req}}}"#
    ))
    .unwrap();
    assert_eq!(a, b);
    assert_eq!(a.decoded.status, Status::Bid);
    let codes: Vec<&str> = a.decoded.issues.iter().map(|i| i.code).collect();
    assert_eq!(codes, vec!["number_as_string"]);
    assert_eq!(
        a.decoded.issues[0].path, "/seatbid/0/bid/0/price",
        "relative to the response"
    );
    let nobid = pair(&format!(r#"{{"request":{req},"response":null}}"#)).unwrap();
    assert_eq!(nobid.decoded.status, Status::NoBid);
}

fn error(text: &str) -> (String, String) {
    let e = pair(text).unwrap_err();
    (e.code().to_owned(), e.path().unwrap_or("").to_owned())
}

#[test]
fn errors_name_the_part_they_are_in() {
    let req = r#"{"id":"r","imp":[{"id":"1"}]}"#;
    let res = r#"{"id":"r","seatbid":[]}"#;
    let cases = [
        (
            format!(r#"{{"request":{{"imp":[{{"id":"1",]}},"response":{res}}}"#),
            "malformed_json",
            "/request/imp/0/id",
        ),
        (
            format!(r#"{{"response":{{"seatbid":[{{"bid":[{{"id":x}}]}}]}},"request":{req}}}"#),
            "malformed_json",
            "/response/seatbid/0/bid/0/id",
        ),
        (
            format!(r#"{{"request":{req},"response":{{"seatbid":"s"}}}}"#),
            "not_a_bid_response",
            "/response/seatbid",
        ),
        (
            format!(r#"{{"request":{req},"response":[1]}}"#),
            "not_a_bid_response",
            "/response",
        ),
        (
            format!(r#"{{"request":"x","response":{res}}}"#),
            "not_a_bid_request",
            "/request",
        ),
        (
            format!(r#"{{"request":{{"id":"r","imp":[]}},"response":{res}}}"#),
            "request_without_imp",
            "/request/imp",
        ),
        (
            format!(r#"{{"request":{{"id":"r"}},"response":{res}}}"#),
            "request_without_imp",
            "/request/imp",
        ),
        (format!(r#"{{"request":{req}}}"#), "not_an_envelope", ""),
        ("[]".to_owned(), "not_an_envelope", ""),
        // A second member is refused, not silently taken over the first (paths: where the second one is).
        (
            format!(r#"{{"request":{req},"response":{res},"request":{req}}}"#),
            "not_an_envelope",
            "/request",
        ),
        (
            format!(r#"{{"response":null,"request":{req},"response":{res}}}"#),
            "not_an_envelope",
            "/response",
        ),
    ];
    for (text, code, path) in cases {
        assert_eq!(error(&text), (code.to_owned(), path.to_owned()), "{text}");
    }
    let strict = format!(
        r#"{{"request":{req},"response":{{"id":"r","seatbid":[{{"bid":[{{"id":"b","impid":"1","price":"1"}}]}}]}}}}"#
    );
    let buf: &'static mut [u8] = Box::leak(strict.into_bytes().into_boxed_slice());
    let e = decode_pair(&mut Reader::default(), buf, Mode::Strict).unwrap_err();
    assert_eq!(
        (e.code(), e.path()),
        ("number_as_string", Some("/response/seatbid/0/bid/0/price"))
    );
}

/// A request past the object bound is refused as a request (`not_a_bid_request`, the message naming
/// impressions), not with the response's code and its "seat bids and bids" message.
#[test]
fn a_request_past_the_object_bound_is_named_a_request() {
    let imps = vec![r#"{"id":"1"}"#; bidscan_openrtb::MAX_OBJECTS as usize + 1].join(",");
    let text = format!(r#"{{"request":{{"id":"r","imp":[{imps}]}},"response":{{"id":"r"}}}}"#);
    let buf: &'static mut [u8] = Box::leak(text.into_bytes().into_boxed_slice());
    let e = decode_pair(&mut Reader::default(), buf, Mode::Lenient).unwrap_err();
    assert_eq!(e.code(), "not_a_bid_request", "{e}");
    assert!(e.to_string().contains("impressions"), "{e}");
    assert!(e.path().unwrap_or("").starts_with("/request"), "{e:?}");
    // At the bound itself the request is read.
    let imps = vec![r#"{"id":"1"}"#; bidscan_openrtb::MAX_OBJECTS as usize].join(",");
    let text = format!(r#"{{"request":{{"id":"r","imp":[{imps}]}},"response":{{"id":"r"}}}}"#);
    let buf: &'static mut [u8] = Box::leak(text.into_bytes().into_boxed_slice());
    let p = decode_pair(&mut Reader::default(), buf, Mode::Lenient).unwrap();
    assert_eq!(p.request.imp.len(), bidscan_openrtb::MAX_OBJECTS as usize);
}

/// `decode_pair_inspected` inspects each bid's markup as `decode_inspected` does; rule 352
/// then reads the HTML inspection's `secure` and flags the same bids as the rule's own scan.
#[test]
fn the_inspected_pair_has_each_bids_markup_and_its_findings() {
    use bidscan_openrtb::rules::{Policy, Validated};
    use bidscan_openrtb::{AdmKind, Inspector, decode_pair_inspected};
    let text = r#"{"request":{"id":"q","imp":[{"id":"1","secure":1,"banner":{}}]},"response":{"id":"q","seatbid":[{"bid":[
      {"id":"a","impid":"1","price":1,"crid":"k","adm":"<VAST version=\"3.0\"><Ad>"},
      {"id":"b","impid":"1","price":1,"crid":"k","adm":"<a href=\"http://x.example/\">x</a>"},
      {"id":"c","impid":"1","price":1,"crid":"k","adm":"<a href=\"https://x.example/\">http://x.example/ as text</a>"}]}]}}"#;
    let mut inspector = Inspector::new();
    let mut buf = text.as_bytes().to_vec();
    let p = decode_pair_inspected(
        &mut Reader::default(),
        &mut buf,
        Mode::Lenient,
        &mut inspector,
    )
    .unwrap();
    let kinds: Vec<AdmKind> = p.decoded.markup.iter().map(|m| m.kind()).collect();
    assert_eq!(kinds, [AdmKind::Vast, AdmKind::Html, AdmKind::Html]);
    assert!(!p.decoded.markup[0].well_formed());
    let malformed: Vec<&str> = p
        .decoded
        .issues
        .iter()
        .filter(|i| i.code == "vast_malformed")
        .map(|i| i.path.as_str())
        .collect();
    assert_eq!(malformed, ["/seatbid/0/bid/0/adm"]);
    let inspected = Validated::new(p, &Policy::default());
    let mut plain_buf = text.as_bytes().to_vec();
    let plain = pair_of(&mut plain_buf);
    assert!(
        plain.decoded.markup.is_empty(),
        "decode_pair does not inspect"
    );
    assert!(
        plain
            .decoded
            .issues
            .iter()
            .all(|i| i.code != "vast_malformed")
    );
    let plain = Validated::new(plain, &Policy::default());
    let codes = |v: &Validated<'_>| -> Vec<Option<u16>> {
        v.verdicts
            .iter()
            .map(|x| x.rule.map(|r| r.statuscode()))
            .collect()
    };
    // a's VAST is malformed: the creative rule's 350 once inspected (the server always inspects on /validate);
    // b loads over http (352); c only mentions http:// in its text, which is no load.
    assert_eq!(codes(&inspected), [Some(350), Some(352), None]);
    assert_eq!(codes(&plain)[1..], codes(&inspected)[1..]);
}

fn pair_of(buf: &mut [u8]) -> bidscan_openrtb::Pair<'_> {
    decode_pair(&mut Reader::default(), buf, Mode::Lenient).unwrap()
}

/// A `request` that is not an object is named for what it is (not "invalid type: null, expected not a bid
/// request: a JSON object").
#[test]
fn a_request_that_is_not_an_object_is_named_for_what_it_is() {
    for (value, found) in [
        ("null", "null"),
        ("[1]", "an array"),
        ("\"x\"", "a string"),
        ("7", "a number"),
        ("true", "a boolean"),
    ] {
        let text = format!(r#"{{"request":{value},"response":{{"id":"r"}}}}"#);
        let e = pair(&text).unwrap_err();
        assert_eq!(e.code(), "not_a_bid_request", "{value}: {e}");
        assert_eq!(e.path(), Some("/request"), "{value}: {e}");
        assert!(
            e.to_string()
                .contains(&format!("`request` is {found}, not a JSON object")),
            "{value}: {e}"
        );
    }
}

/// An array where an object belongs is read to its end first, so a malformed one (`[1,`) is malformed JSON (400
/// with a position), and only a well-formed one is the wrong shape (no
/// JSONTestSuite `n_*` file is answered 422).
#[test]
fn a_malformed_array_is_malformed_json_not_a_wrong_shape() {
    let mut reader = Reader::default();
    for (text, code) in [
        ("[1,", "malformed_json"),
        ("[1,]", "malformed_json"),
        ("[1,2]", "not_a_bid_response"),
        ("[]", "not_a_bid_response"),
    ] {
        let mut buf = text.as_bytes().to_vec();
        let e = bidscan_openrtb::decode(&mut reader, &mut buf, Mode::Lenient).unwrap_err();
        assert_eq!(e.code(), code, "{text}: {e}");
    }
    for (text, code) in [
        (r#"{"request":[1,"#, "malformed_json"),
        (r#"{"request":[1],"response":{}}"#, "not_a_bid_request"),
        (
            r#"{"request":{"imp":[{"id":"1"}]},"response":[{"#,
            "malformed_json",
        ),
    ] {
        let e = pair(text).unwrap_err();
        assert_eq!(e.code(), code, "{text}: {e}");
    }
}

/// An `imp` that was sent but holds no impression is named for what it held (was "offers no impression" for
/// `"imp":5` too, unlike the `seatbid` refusal); still `request_without_imp`, pointing at the value.
#[test]
fn an_imp_without_an_object_is_named_for_what_it_holds() {
    let res = r#"{"id":"r"}"#;
    for (imp, path, names) in [
        (
            "5",
            "/request/imp",
            "`imp` is a number, not an array of objects",
        ),
        (
            "\"x\"",
            "/request/imp",
            "`imp` is a string, not an array of objects",
        ),
        (
            "true",
            "/request/imp",
            "`imp` is a boolean, not an array of objects",
        ),
        (
            "null",
            "/request/imp",
            "`imp` is null, not an array of objects",
        ),
        (
            "[5]",
            "/request/imp/0",
            "element 0 of `imp` is a number, not an object",
        ),
        (
            "[null,\"y\"]",
            "/request/imp/0",
            "element 0 of `imp` is null, not an object",
        ),
        (
            "[[{}]]",
            "/request/imp/0",
            "element 0 of `imp` is an array, not an object",
        ),
        // The last `imp` member is the one read: its values name the fault.
        ("[{}],\"imp\":5", "/request/imp", "`imp` is a number"),
        (
            "5,\"imp\":[]",
            "/request/imp",
            "offers no impression (OpenRTB",
        ),
        ("[]", "/request/imp", "offers no impression (OpenRTB"),
    ] {
        let text = format!(r#"{{"request":{{"id":"r","imp":{imp}}},"response":{res}}}"#);
        let e = pair(&text).unwrap_err();
        assert_eq!(e.code(), "request_without_imp", "{imp}: {e}");
        assert_eq!(e.path(), Some(path), "{imp}: {e}");
        assert!(e.to_string().contains(names), "{imp}: {e}");
        assert!(e.to_string().contains("§3.2.1"), "{imp}: {e}");
    }
    // An imp among values that are not is read, and the pair is validated.
    let text = format!(r#"{{"request":{{"id":"r","imp":[5,{{"id":"1"}}]}},"response":{res}}}"#);
    assert_eq!(pair(&text).unwrap().request.imp.len(), 1);
}

/// A `response` that is not an object is named as `request` is ("`response` is a number"), not "the body" as
/// for `/decode`, where the response is the whole body.
#[test]
fn a_response_that_is_not_an_object_is_named_for_what_it_is() {
    let req = r#"{"id":"r","imp":[{"id":"1"}]}"#;
    for (value, found) in [
        ("[1]", "an array"),
        ("\"x\"", "a string"),
        ("7", "a number"),
        ("true", "a boolean"),
    ] {
        for text in [
            format!(r#"{{"request":{req},"response":{value}}}"#),
            format!(r#"{{"response":{value},"request":{req}}}"#),
        ] {
            let e = pair(&text).unwrap_err();
            assert_eq!(e.code(), "not_a_bid_response", "{text}: {e}");
            assert_eq!(e.path(), Some("/response"), "{text}: {e}");
            let message = e.to_string();
            assert!(
                message.contains(&format!("`response` is {found}, not a JSON object")),
                "{text}: {e}"
            );
            assert!(!message.contains("the body"), "{text}: {e}");
        }
        let mut body = value.as_bytes().to_vec();
        let e =
            bidscan_openrtb::decode(&mut Reader::default(), &mut body, Mode::Lenient).unwrap_err();
        assert!(
            e.to_string()
                .contains(&format!("the body is {found}, not a JSON object")),
            "{value}: {e}"
        );
    }
}

/// Malformed JSON anywhere in the envelope is `malformed_json` (400, as `/decode` answers it), never one of the 422
/// shape codes, even where a shape would be refused (a top-level array, a second member). The path is the
/// reader's: the value being read, so under `/request` or `/response` inside them; after a complete member (a
/// truncated envelope) the member last read, as for `/decode` (`{"id":"r"` is at `/id`); `""` before any member
/// or after the envelope; `/0` inside a top-level array.
#[test]
fn malformed_json_anywhere_in_the_envelope_is_malformed_json() {
    let req = r#"{"id":"r","imp":[{"id":"1"}]}"#;
    let res = r#"{"id":"r","seatbid":[{"bid":[{"id":"b","impid":"1","price":1}]}]}"#;
    let cases = [
        (r#"{"request":{"imp":[}"#.to_owned(), "/request/imp/0"),
        (
            r#"{"request":{"imp":[{"id":"1"}],"#.to_owned(),
            "/request/imp",
        ),
        (
            r#"{"request":{"imp":[{"id":"1"#.to_owned(),
            "/request/imp/0/id",
        ),
        (r#"{"request":[1,"#.to_owned(), "/request/0"),
        (
            r#"{"request":{"site":{"page":tru}},"response":{}}"#.to_owned(),
            "/request/site",
        ),
        (r#"{"response":[1,"#.to_owned(), "/response/0"),
        (
            r#"{"response":{"seatbid":[{"bid":[{"price":1.}]}]}}"#.to_owned(),
            "/response/seatbid/0/bid/0/price",
        ),
        (
            format!(r#"{{"request":{req},"response":{{"id":"r""#),
            "/response/id",
        ),
        (
            format!(r#"{{"response":{res},"request":{{"imp":[{{"id":1e}}]}}}}"#),
            "/request/imp/0/id",
        ),
        // Truncated envelopes.
        (format!(r#"{{"request":{req}"#), "/request"),
        (
            format!(r#"{{"request":{req},"response":{res}"#),
            "/response",
        ),
        (
            format!(r#"{{"request":{req},"response":{res},"#),
            "/response",
        ),
        (format!(r#"{{"request":{req},"response""#), "/response"),
        (r#"{"request""#.to_owned(), "/request"),
        ("{".to_owned(), ""),
        // A bad top level.
        ("[1,".to_owned(), "/0"),
        ("[1,]".to_owned(), "/0"),
        ("[{\"request\":".to_owned(), "/0"),
        ("tru".to_owned(), ""),
        ("\"x".to_owned(), ""),
        (format!(r#"{{"request":{req},"response":{res}}}x"#), ""),
        (format!(r#"{{"request":{req},"response":{res}}},"#), ""),
        // Junk after a top level that is not an object.
        ("[1]x".to_owned(), ""),
        ("\"s\"x".to_owned(), ""),
        ("7 7".to_owned(), ""),
        // Junk after a wrongly shaped member, or a second one.
        (format!(r#"{{"request":5,"response":{res}}}x"#), ""),
        (format!(r#"{{"request":{req},"response":5}}x"#), ""),
        (format!(r#"{{"request":{req},"response":[1]}}x"#), ""),
        (
            format!(r#"{{"request":{req},"response":{{"seatbid":5}},"x":}}"#),
            "/x",
        ),
        (
            format!(r#"{{"request":{req},"response":{res},"request":{req}}}x"#),
            "",
        ),
        (
            format!(r#"{{"request":{req} "response":{res}}}"#),
            "/request",
        ),
        (
            format!(r#"{{"request":{req},"response":{res},"x":[1,}}"#),
            "/x",
        ),
        // A second member whose value is malformed: the syntax fault, not the repeated name.
        (
            format!(r#"{{"request":{req},"response":{res},"request":{{"imp":[}}}}"#),
            "/request",
        ),
        (
            format!(r#"{{"request":{req},"response":{res},"response":[1,}}"#),
            "/response",
        ),
    ];
    for (text, path) in cases {
        let e = pair(&text).unwrap_err();
        assert_eq!(e.code(), "malformed_json", "{text}: {e}");
        assert!(matches!(e, DecodeError::Malformed(_)), "{text}: {e:?}");
        assert_eq!(e.path().unwrap_or(""), path, "{text}: {e}");
    }
    // Well-formed wrong shapes stay 422 with their codes.
    for (text, code) in [
        ("[]".to_owned(), "not_an_envelope"),
        ("[1,2]".to_owned(), "not_an_envelope"),
        ("7".to_owned(), "not_an_envelope"),
        (
            format!(r#"{{"request":{req},"response":{res},"request":{req}}}"#),
            "not_an_envelope",
        ),
    ] {
        assert_eq!(pair(&text).unwrap_err().code(), code, "{text}");
    }
}

#[test]
fn a_response_that_is_no_bid_response_is_refused_at_response() {
    let req = r#"{"id":"r","imp":[{"id":"1"}]}"#;
    for (res, code) in [
        (r#"{"error":"timeout","id":"r"}"#, "not_a_bid_response"),
        (r#"{"openrtb":{"ver":"3.0"}}"#, "openrtb3_not_supported"),
    ] {
        for text in [
            format!(r#"{{"request":{req},"response":{res}}}"#),
            format!(r#"{{"response":{res},"request":{req}}}"#),
        ] {
            for mode in [Mode::Lenient, Mode::Strict] {
                let buf: &'static mut [u8] = Box::leak(text.as_bytes().to_vec().into_boxed_slice());
                let e = decode_pair(&mut Reader::default(), buf, mode).unwrap_err();
                assert_eq!((e.code(), e.path()), (code, Some("/response")), "{text}");
                assert!(e.to_string().contains("`response`"), "{e}");
            }
        }
    }
    // Bid response members only, or an unknown member beside `seatbid`: a no-bid, as before.
    for res in [r#"{"id":"r"}"#, r#"{"id":"r","seatbid":[],"error":"x"}"#] {
        let p = pair(&format!(r#"{{"request":{req},"response":{res}}}"#)).unwrap();
        assert_eq!(p.decoded.status, Status::NoBid, "{res}");
    }
}
