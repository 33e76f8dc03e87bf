//! Markup inspection through `decode_inspected`: the summary's `adm` objects and the issues at `…/adm`.

use bidscan_openrtb::markup::Markup;
use bidscan_openrtb::{Decoded, Inspector, Mode, Severity, decode, decode_inspected};
use serde_json::{Value, json};

fn inspected(json: &str) -> Decoded<'static> {
    let input: &'static mut [u8] = Box::leak(json.as_bytes().to_vec().into_boxed_slice());
    decode_inspected(
        &mut bidscan_json::Reader::default(),
        input,
        Mode::Lenient,
        &mut Inspector::new(),
    )
    .unwrap()
}

/// A response with one bid per `(adm JSON value, extra members)`.
fn response(bids: &[(Value, &str)]) -> String {
    let bids: Vec<String> = bids
        .iter()
        .enumerate()
        .map(|(i, (adm, extra))| {
            format!(r#"{{"id":"b{i}","impid":"1","price":1,"crid":"c","adm":{adm}{extra}}}"#)
        })
        .collect();
    format!(
        r#"{{"id":"r","seatbid":[{{"seat":"s","bid":[{}]}}]}}"#,
        bids.join(",")
    )
}

fn adm_summaries(d: &Decoded<'_>) -> Vec<Value> {
    d.summary()
        .bids
        .iter()
        .map(|b| serde_json::to_value(b.adm).unwrap())
        .collect()
}

fn adm_issues(d: &Decoded<'_>) -> Vec<(String, &'static str, Severity)> {
    d.issues
        .iter()
        .filter(|i| i.path.ends_with("/adm"))
        .map(|i| (i.path.clone(), i.code, i.severity))
        .collect()
}

const VAST: &str = r#"<VAST version="4.2"><Ad><InLine><Impression>https://i/</Impression><Error>https://e/</Error>
<Creatives><Creative><Linear><Duration>00:00:30</Duration><MediaFiles><MediaFile>https://m/a.mp4</MediaFile>
</MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>"#;

#[test]
fn vast_bids_get_their_details_and_findings() {
    let wrapper = r#"<?xml version="1.0"?><VAST version="3.0"><Ad><Wrapper><Impression>x</Impression><VASTAdTagURI><![CDATA[ https://w.example/v ]]></VASTAdTagURI></Wrapper></Ad></VAST>"#;
    let broken = "<VAST version=\"4.0\"><Ad>\n<InLine></Ad></VAST>";
    let d = inspected(&response(&[
        (json!(VAST), r#","dur":30"#),
        (json!(wrapper), ""),
        (json!(VAST), r#","dur":15"#),
        (json!(broken), ""),
    ]));
    let s = adm_summaries(&d);
    assert_eq!(
        s[0],
        json!({"kind":"vast","bytes":VAST.len(),"version":"4.2","well_formed":true,"ads":1,"wrapper":false,
               "wrapper_uri":null,"duration_secs":30.0,"media_files":1,"impressions":1,"error_urls":1})
    );
    assert_eq!(s[1]["wrapper"], true);
    assert_eq!(s[1]["wrapper_uri"], "https://w.example/v");
    assert_eq!(s[3]["well_formed"], false);
    assert_eq!(
        adm_issues(&d),
        vec![
            (
                "/seatbid/0/bid/2/adm".to_owned(),
                "vast_duration_mismatch",
                Severity::Warning
            ),
            (
                "/seatbid/0/bid/3/adm".to_owned(),
                "vast_malformed",
                Severity::Error
            ),
        ]
    );
    let malformed = d
        .issues
        .iter()
        .find(|i| i.code == "vast_malformed")
        .unwrap();
    assert!(
        malformed.message.contains("line 2, column 9"),
        "{}",
        malformed.message
    );
    assert_eq!(d.summary().errors, 1);
}

#[test]
fn native_as_a_string_as_an_object_and_broken() {
    let native = r#"{"ver":"1.2","assets":[{"id":1},{"id":2},{"id":3}],"link":{"url":"https://c/"},"eventtrackers":[{"event":1,"method":1}]}"#;
    let legacy = json!({"native": {"ver": "1.1", "assets": [{"id": 1}], "link": {"url": "u"}, "imptrackers": ["a", "b"]}});
    let d = inspected(&response(&[
        (json!(native), ""),
        (legacy, ""),
        (json!(r#"{"ver":"1.2","assets":[{"id":1},]}"#), ""),
        (json!("not json at all"), r#","mtype":4"#),
        (json!(r#"{"ver":"1.2","assets":[]}"#), ""),
    ]));
    let s = adm_summaries(&d);
    assert_eq!(
        s[0],
        json!({"kind":"native","bytes":native.len(),"well_formed":true,"ver":"1.2","assets":3,"link":true,"trackers":1})
    );
    assert_eq!(
        (
            &s[1]["kind"],
            &s[1]["ver"],
            &s[1]["assets"],
            &s[1]["trackers"]
        ),
        (&json!("native"), &json!("1.1"), &json!(1), &json!(2))
    );
    assert_eq!(
        (&s[2]["well_formed"], &s[3]["kind"], &s[3]["well_formed"]),
        (&json!(false), &json!("native"), &json!(false))
    );
    let issues = adm_issues(&d);
    assert_eq!(
        issues,
        vec![
            (
                "/seatbid/0/bid/1/adm".to_owned(),
                "adm_object",
                Severity::Warning
            ),
            (
                "/seatbid/0/bid/2/adm".to_owned(),
                "native_malformed",
                Severity::Error
            ),
            (
                "/seatbid/0/bid/3/adm".to_owned(),
                "native_malformed",
                Severity::Error
            ),
            (
                "/seatbid/0/bid/4/adm".to_owned(),
                "native_missing_link",
                Severity::Warning
            ),
        ]
    );
    let m = &d
        .issues
        .iter()
        .find(|i| i.path == "/seatbid/0/bid/2/adm")
        .unwrap()
        .message;
    assert!(m.contains("at byte 32"), "{m}"); // the `]` after the trailing comma
    // The response's adm strings are left as sent (native JSON is decoded in a copy).
    let bid = &d.response.seatbid[0].bid[0];
    assert_eq!(bid.adm.as_ref().unwrap().as_markup(), Some(native));
}

#[test]
fn secure_and_insecure_html() {
    let secure = r#"<a href="https://c.example/"><img src="https://i.example/a.png"></a><script src="//t.example/t.js"></script>"#;
    let insecure = r#"<div style="background:url(http://i.example/bg.png)"><script>x()</script><script>y()</script></div>"#;
    let d = inspected(&response(&[(json!(secure), ""), (json!(insecure), "")]));
    let s = adm_summaries(&d);
    assert_eq!(
        s[0],
        json!({"kind":"html","bytes":secure.len(),"secure":true,"scripts":1})
    );
    assert_eq!(
        s[1],
        json!({"kind":"html","bytes":insecure.len(),"secure":false,"scripts":2})
    );
    assert!(adm_issues(&d).is_empty());
}

#[test]
fn without_inspection_the_adm_object_has_kind_and_bytes_only() {
    let json = response(&[
        (json!(VAST), ""),
        (json!("<b>x</b>"), ""),
        (json!(""), r#","nurl":"u""#),
    ]);
    let mut input = json.clone().into_bytes();
    let d = decode(
        &mut bidscan_json::Reader::default(),
        &mut input,
        Mode::Lenient,
    )
    .unwrap();
    assert!(d.markup.is_empty());
    assert_eq!(
        adm_summaries(&d),
        vec![
            json!({"kind":"vast","bytes":VAST.len()}),
            json!({"kind":"html","bytes":8}),
            json!({"kind":"none","bytes":0})
        ]
    );
    let d = inspected(&json);
    assert_eq!(d.markup.len(), 3);
    assert!(matches!(d.markup[2], Markup::None));
    assert_eq!(adm_summaries(&d)[2], json!({"kind":"none","bytes":0}));
}

#[test]
fn one_bad_markup_never_fails_the_response_and_strict_mode_is_unaffected() {
    let json = response(&[(json!("<VAST><Ad>"), ""), (json!(VAST), "")]);
    let input: &'static mut [u8] = Box::leak(json.into_bytes().into_boxed_slice());
    let d = decode_inspected(
        &mut bidscan_json::Reader::default(),
        input,
        Mode::Strict,
        &mut Inspector::new(),
    )
    .unwrap();
    assert_eq!(d.markup.len(), 2);
    assert!(!d.markup[0].well_formed() && d.markup[1].well_formed());
}
