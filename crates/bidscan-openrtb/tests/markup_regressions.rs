//! Markup inputs kept for the fuzz target `markup` (`fuzz/regressions/markup/*`, see `fuzz/regressions/README.md`),
//! replayed on every `cargo test`: each inspector never panics and reports `well_formed` exactly without an
//! error, with offsets inside the markup; `decode_inspected` of the same bytes adds one entry per bid and leaves
//! the response as plain decoding gives it. Some inputs also pin what is found.

use bidscan_markup::{Inspector, Location, html, vast};
use bidscan_openrtb::markup::Markup;
use bidscan_openrtb::{Mode, decode, decode_inspected};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/regressions/markup");

fn read(name: &str) -> String {
    String::from_utf8(std::fs::read(format!("{DIR}/{name}")).unwrap()).unwrap()
}

#[test]
fn markup_inputs_keep_their_properties() {
    let mut names: Vec<String> = std::fs::read_dir(DIR)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 8, "{names:?}");
    let mut inspector = Inspector::new();
    for name in &names {
        let text = read(name);
        let v = vast::inspect(&text);
        assert_eq!(v.well_formed, v.error.is_none(), "{name}");
        if let Some(e) = &v.error {
            assert_eq!(e.at, Location::of(&text, e.at.byte), "{name}");
        }
        let n = inspector.native(&text);
        assert_eq!(n.well_formed, n.error.is_none(), "{name}");
        assert!(
            n.error.as_ref().is_none_or(|e| e.byte <= text.len()),
            "{name}"
        );
        let h = html::inspect(&text);
        assert_eq!(h.secure, h.first_insecure.is_none(), "{name}");
        if let Some(at) = h.first_insecure {
            let url = text.as_bytes().get(at..at + 7).unwrap_or_default();
            assert!(
                url.len() == 7
                    && url[..5].eq_ignore_ascii_case(b"http:")
                    && url[5..].iter().all(|&c| c == b'/' || c == b'\\'),
                "{name}: {at}"
            );
        }
        let (mut a, mut b) = (text.clone().into_bytes(), text.clone().into_bytes());
        let mut reader = bidscan_json::Reader::default();
        if let (Ok(plain), Ok(inspected)) = (
            decode(&mut reader, &mut a, Mode::Lenient),
            decode_inspected(&mut reader, &mut b, Mode::Lenient, &mut inspector),
        ) {
            assert_eq!(plain.response, inspected.response, "{name}");
            assert_eq!(inspected.markup.len(), inspected.bid_count(), "{name}");
        }
    }
}

#[test]
fn pinned_answers() {
    let text = read("vast_uri_in_pieces.xml");
    assert_eq!(
        vast::inspect(&text).wrapper_uri.as_deref(),
        Some("a&b\u{1F600}c")
    );
    let text = read("vast_multibyte_then_bad_entity.xml");
    let e = vast::inspect(&text).error.unwrap();
    assert_eq!(
        (e.at.byte, e.at.line, e.at.column),
        (8, 1, 9),
        "columns count bytes"
    );
    let text = read("vast_bom_and_decl.xml");
    let v = vast::inspect(&text);
    assert!(v.well_formed, "{:?}", v.error);
    assert_eq!(v.version, Some("2.0"));
    let text = read("vast_truncated_in_cdata.xml");
    assert!(!vast::inspect(&text).well_formed);
    let text = read("native_escaped_ver.json");
    let n = Inspector::new().native(&text);
    assert_eq!((n.ver.as_deref(), n.assets, n.link), (Some("1.2"), 1, true));
    let text = read("html_backslash_slashes.html");
    assert_eq!(html::inspect(&text).first_insecure, text.find("http:"));
    let h = html::inspect(&read("html_http_at_end.html"));
    assert_eq!(
        h.first_insecure,
        Some(read("html_http_at_end.html").rfind("http://").unwrap())
    );

    let mut input = read("response_mtype4_vast_and_object_native.json").into_bytes();
    let mut inspector = Inspector::new();
    let d = decode_inspected(
        &mut bidscan_json::Reader::default(),
        &mut input,
        Mode::Lenient,
        &mut inspector,
    )
    .unwrap();
    match (&d.markup[0], &d.markup[1]) {
        (Markup::Native(vast_as_native), Markup::Native(object)) => {
            assert!(
                !vast_as_native.well_formed,
                "mtype 4 reads the markup as native JSON"
            );
            assert!(object.well_formed && object.legacy_root && object.link);
            assert_eq!(object.ver.as_deref(), Some("1.2"));
        }
        other => panic!("{other:?}"),
    }
}
