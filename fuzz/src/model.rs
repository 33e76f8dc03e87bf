//! The model target: bidscan-openrtb `decode` on arbitrary bytes, lenient and strict.

use bidscan_json::Reader;
use bidscan_openrtb::{CoercionKind, DecodeError, Decoded, Mode, Status};
use serde::de::IgnoredAny;

/// Checks every property of the model on `data` (panics on a violation). See the crate docs.
pub fn model(data: &[u8]) {
    let mut reader = Reader::default();
    let mut lenient_buf = data.to_vec();
    let lenient = bidscan_openrtb::decode(&mut reader, &mut lenient_buf, Mode::Lenient);
    let mut strict_buf = data.to_vec();
    let strict = bidscan_openrtb::decode(&mut reader, &mut strict_buf, Mode::Strict);
    let mut buf = data.to_vec();
    let json_ok = bidscan_json::from_slice_mut::<IgnoredAny>(&mut buf).is_ok();

    match &lenient {
        Ok(d) => check_decoded(d),
        Err(DecodeError::Strict { .. }) => panic!("lenient decode failed with a strict-mode error"),
        Err(DecodeError::ByteOrderMark) => panic!("lenient decode refused a byte order mark"),
        Err(DecodeError::Malformed(e)) => {
            assert!(!json_ok, "valid JSON reported as malformed: {e}");
        }
        Err(
            DecodeError::NotABidResponse { path, .. }
            | DecodeError::Openrtb3NotSupported { path, .. },
        ) => {
            assert!(path.is_empty() || path.starts_with('/'), "{path:?}");
        }
        Err(DecodeError::InvalidEnvelope { .. }) => {
            panic!("decode of a bid response failed with an envelope error")
        }
    }
    if let Err(e) = &lenient {
        let _ = e.to_string();
        assert!(!e.code().is_empty());
    }
    match (&lenient, &strict) {
        (Ok(l), Ok(s)) => {
            assert_eq!(
                l, s,
                "strict succeeded, so nothing was coerced: same answer"
            );
        }
        (Ok(_), Err(DecodeError::Strict { path, code, .. })) => {
            assert!(path.is_empty() || path.starts_with('/'), "{path:?}");
            let l = lenient.as_ref().expect("matched Ok");
            assert!(
                l.issues.iter().any(|i| i.code == *code && i.path == *path),
                "strict failure {code} at {path} is not a lenient issue: {:?}",
                l.issues
            );
        }
        (Ok(l), Err(DecodeError::ByteOrderMark)) => {
            assert!(data.starts_with(bidscan_openrtb::BOM));
            assert_eq!(l.issues.first().map(|i| i.code), Some("utf8_bom"));
        }
        // Strict mode refuses a byte order mark before anything else, whatever follows it.
        (Err(_), Err(DecodeError::ByteOrderMark)) => {
            assert!(data.starts_with(bidscan_openrtb::BOM));
        }
        (Err(l), Err(s)) => assert_eq!(l.code(), s.code(), "same failure in both modes"),
        (l, s) => panic!(
            "lenient {:?} vs strict {:?}",
            l.as_ref().err(),
            s.as_ref().err()
        ),
    }
}

/// Status, summary, issues and the canonical output of a successful decode.
fn check_decoded(d: &Decoded<'_>) {
    let bids = d.bid_count();
    assert_eq!(
        d.status == Status::Bid,
        bids > 0,
        "status vs bid count {bids}"
    );
    let summary = d.summary();
    serde_json::to_vec(&summary).expect("summary serializes");
    for issue in &d.issues {
        assert!(
            issue.path.is_empty() || issue.path.starts_with('/'),
            "{issue:?}"
        );
        assert!(
            !issue.code.is_empty() && !issue.message.is_empty(),
            "{issue:?}"
        );
    }
    let text = serde_json::to_vec(&d.response).expect("canonical output serializes");
    let finite = d
        .response
        .seatbid
        .iter()
        .flat_map(|s| &s.bid)
        .all(|b| b.price.is_none_or(f64::is_finite));
    if !finite {
        return; // serde_json writes a non-finite float as null: not a round trip
    }
    let mut again_buf = text.clone();
    let mut reader = Reader::default();
    let again =
        bidscan_openrtb::decode(&mut reader, &mut again_buf, Mode::Lenient).unwrap_or_else(|e| {
            panic!(
                "canonical output does not decode ({e}): {}",
                String::from_utf8_lossy(&text)
            )
        });
    let leftover = again
        .response
        .seatbid
        .iter()
        .flat_map(|s| s.bid.iter().flat_map(|b| &b.coercions))
        .chain(again.response.coercions.iter())
        .chain(again.response.seatbid.iter().flat_map(|s| &s.coercions));
    for c in leftover {
        assert_eq!(
            c.kind,
            CoercionKind::AdmObject,
            "canonical output has a deviation: {}",
            String::from_utf8_lossy(&text)
        );
    }
    // Canonical output is compact (verbatim `ext` and object `adm` lose the whitespace between tokens), so the
    // round trip is checked as a fixed point: the canonical output of the re-decoded response is the same text.
    let text_again = serde_json::to_vec(&again.response).expect("canonical output serializes");
    assert_eq!(
        String::from_utf8_lossy(&text_again),
        String::from_utf8_lossy(&text),
        "canonical output decodes to another response"
    );
}
