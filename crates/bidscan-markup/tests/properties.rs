//! Inspection never panics, on any string and on mangled real markup, and its offsets stay inside the markup.

use bidscan_markup::{Inspector, Location, html, vast};
use proptest::prelude::*;

const SEED: &str = r#"<VAST version="4.2"><Ad id="1"><Wrapper><Impression><![CDATA[https://i/]]></Impression>
<VASTAdTagURI>https://w/?a=1&amp;b=2</VASTAdTagURI></Wrapper></Ad><Ad><InLine><Creatives><Creative><Linear>
<Duration>00:00:30</Duration><MediaFiles><MediaFile>https://m/</MediaFile></MediaFiles></Linear></Creative>
</Creatives></InLine></Ad></VAST>"#;

const NATIVE: &str =
    r#"{"native":{"ver":"1.2","assets":[{"id":1}],"link":{"url":"u"},"eventtrackers":[{}]}}"#;

fn check_all(text: &str) {
    let info = vast::inspect(text);
    assert_eq!(info.well_formed, info.error.is_none());
    if let Some(e) = &info.error {
        assert!(e.at.byte <= text.len());
        assert_eq!(e.at, Location::of(text, e.at.byte));
    }
    for (_, at) in info.warnings.iter() {
        assert!(at <= text.len());
    }
    let native = Inspector::new().native(text);
    assert_eq!(native.well_formed, native.error.is_none());
    if let Some(e) = &native.error {
        assert!(e.byte <= text.len(), "{e:?}");
    }
    let h = html::inspect(text);
    assert_eq!(h.secure, h.first_insecure.is_none());
    if let Some(at) = h.first_insecure {
        assert!(text[at..].to_ascii_lowercase().starts_with("http://"));
    }
}

/// Strings made of the characters markup parsers care about.
fn markupish() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("<".to_owned()),
            Just(">".to_owned()),
            Just("</".to_owned()),
            Just("/>".to_owned()),
            Just("&".to_owned()),
            Just(";".to_owned()),
            Just("\"".to_owned()),
            Just("'".to_owned()),
            Just("=".to_owned()),
            Just("<![CDATA[".to_owned()),
            Just("]]>".to_owned()),
            Just("<!--".to_owned()),
            Just("-->".to_owned()),
            Just("<?xml ?>".to_owned()),
            Just("VAST".to_owned()),
            Just("Ad".to_owned()),
            Just("Linear".to_owned()),
            Just("Duration".to_owned()),
            Just("MediaFile".to_owned()),
            Just("Wrapper".to_owned()),
            Just("version".to_owned()),
            Just("src=".to_owned()),
            Just("url(".to_owned()),
            Just("http://".to_owned()),
            Just("{".to_owned()),
            Just("}".to_owned()),
            Just("[".to_owned()),
            Just(":".to_owned()),
            Just(",".to_owned()),
            Just("\\".to_owned()),
            Just("#x".to_owned()),
            Just("\u{feff}".to_owned()),
            Just(" ".to_owned()),
            Just("\n".to_owned()),
            "[a-z0-9.]{1,4}",
            "\\PC{1,2}",
        ],
        0..48,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn never_panics_on_any_string(text in "\\PC{0,200}") {
        check_all(&text);
    }

    #[test]
    fn never_panics_on_markup_like_strings(text in markupish()) {
        check_all(&text);
        check_all(&format!("<VAST>{text}</VAST>"));
    }

    #[test]
    fn never_panics_on_mangled_samples(cut in 0..SEED.len(), insert in markupish(), which in 0..2usize) {
        let seed = if which == 0 { SEED } else { NATIVE };
        let cut = (0..=cut.min(seed.len())).rev().find(|&c| seed.is_char_boundary(c)).unwrap();
        check_all(&seed[..cut]);
        check_all(&format!("{}{insert}{}", &seed[..cut], &seed[cut..]));
    }
}
