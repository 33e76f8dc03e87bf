//! The markup target: bidscan-markup's inspectors on arbitrary text, and bidscan-openrtb's `decode_inspected`
//! on the same bytes as a bid response.

use bidscan_markup::{Inspector, Location, html, vast};
use bidscan_openrtb::{Mode, decode, decode_inspected};

/// `http:` (any case) and two slashes, each `/` or `\\` (as the URL parser reads them), at `at`.
fn is_http_at(text: &str, at: usize) -> bool {
    text.as_bytes().get(at..at + 7).is_some_and(|s| {
        s[..5].eq_ignore_ascii_case(b"http:") && s[5..].iter().all(|&c| c == b'/' || c == b'\\')
    })
}

/// Checks the inspectors on `data` (as UTF-8, lossily) and `decode_inspected` on `data` (panics on a
/// violation): never a panic; `well_formed` exactly when there is no error; every offset inside the markup and
/// every line/column the one of its offset; the VAST fast path (`vast::scan`), when it
/// answers, reports exactly what quick-xml's path does; an insecure HTML offset points at `http://` (slashes also
/// as backslashes);
/// inspecting a response changes none of what plain decoding finds and adds one entry per bid.
pub fn markup(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let info = vast::inspect(&text);
    assert_eq!(info.well_formed, info.error.is_none());
    if let Some(e) = &info.error {
        assert_eq!(e.at, Location::of(&text, e.at.byte), "{e:?}");
        assert!(!e.message.is_empty());
    }
    assert!(info.warnings.iter().all(|(_, at)| at <= text.len()));
    assert!(info.media_files <= text.len() && info.ads <= text.len());
    let exact = vast::inspect_with_quick_xml(&text);
    assert_eq!(info, exact, "inspect is not the exact path's reading");
    if let Some(fast) = vast::scan(&text) {
        assert_eq!(fast, exact, "the fast path differs from quick-xml's");
    }
    let mut inspector = Inspector::new();
    for _ in 0..2 {
        let native = inspector.native(&text);
        assert_eq!(native.well_formed, native.error.is_none());
        if let Some(e) = &native.error {
            assert!(e.byte <= text.len(), "{e:?}");
        }
    }
    let h = html::inspect(&text);
    assert_eq!(h.secure, h.first_insecure.is_none());
    if let Some(at) = h.first_insecure {
        assert!(is_http_at(&text, at), "{at}");
    }

    let mut reader = bidscan_json::Reader::default();
    let mut plain_buf = data.to_vec();
    let plain = decode(&mut reader, &mut plain_buf, Mode::Lenient);
    let mut buf = data.to_vec();
    let inspected = decode_inspected(&mut reader, &mut buf, Mode::Lenient, &mut inspector);
    match (plain, inspected) {
        (Ok(p), Ok(i)) => {
            assert_eq!(p.response, i.response, "inspection changed the response");
            assert_eq!(i.markup.len(), i.bid_count());
            let limit = bidscan_openrtb::checks::MAX_ISSUES;
            if i.issues.len() <= limit {
                assert!(
                    p.issues.iter().all(|issue| i.issues.contains(issue)),
                    "an issue was lost"
                );
                assert!(
                    i.issues[p.issues.len()..]
                        .iter()
                        .all(|issue| issue.path.ends_with("/adm"))
                );
            }
            let _ = serde_json::to_string(&i.summary()).expect("the summary serializes");
        }
        (Err(p), Err(i)) => assert_eq!(p.code(), i.code()),
        (p, i) => panic!("plain {:?} vs inspected {:?}", p.map(|_| ()), i.map(|_| ())),
    }
}
