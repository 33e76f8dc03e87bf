//! The differential target: bidscan-json against serde_json on arbitrary bytes.

use bidscan_json::ErrorKind;
use bidscan_openrtb::{BidResponse, DecodeError, Decoded, Mode};
use serde_json::Value;

use crate::text_nesting;

/// Where bidscan-json and serde_json are allowed to differ. Each is documented in RELIABILITY.md §1 and in
/// `crates/bidscan-json/tests/differential.rs`; anything else is a bug.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KnownDifference {
    /// Nesting: bidscan-json accepts up to `max_depth` (128) containers, serde_json only 127 (its recursion
    /// limit of 128 also counts the top-level value). A document nested exactly 128 deep is accepted by
    /// bidscan-json alone.
    Depth128,
}

/// serde_json's error for nesting past its recursion limit.
fn is_recursion_limit(e: &serde_json::Error) -> bool {
    e.to_string().contains("recursion limit exceeded")
}

/// Checks agreement with serde_json on `data` (panics on a difference that is not a [`KnownDifference`]).
/// Returns the known difference met, if any.
pub fn differential(data: &[u8]) -> Option<KnownDifference> {
    let mut buf = data.to_vec();
    let ours: Result<Value, bidscan_json::Error> = bidscan_json::from_slice_mut(&mut buf);
    let theirs: Result<Value, serde_json::Error> = serde_json::from_slice(data);
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a, b, "different values");
            let (ta, tb) = (a.to_string(), b.to_string());
            assert_eq!(ta, tb, "same value, different text (integer vs float, -0)");
            model(data);
            None
        }
        (Err(_), Err(_)) => None,
        (Ok(_), Err(e)) if is_recursion_limit(e) && text_nesting(data) == 128 => {
            Some(KnownDifference::Depth128)
        }
        (Ok(_), Err(e)) => panic!("bidscan-json accepts, serde_json rejects: {e}"),
        (Err(e), Ok(_)) => {
            assert_ne!(
                e.kind(),
                ErrorKind::Custom,
                "a type error on serde_json::Value"
            );
            panic!("serde_json accepts, bidscan-json rejects: {e}")
        }
    }
}

/// On a document both accept: the OpenRTB model decoded by each reader gives the same `Decoded` (or the same
/// error code), in both modes.
fn model(data: &[u8]) {
    for mode in [Mode::Lenient, Mode::Strict] {
        let mut buf = data.to_vec();
        let ours = bidscan_openrtb::decode(&mut bidscan_json::Reader::default(), &mut buf, mode);
        let theirs = via_serde_json(data, mode);
        match (&ours, &theirs) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{mode:?}: bidscan-json and serde_json disagree"),
            (Err(a), Err(b)) => assert_eq!(a.code(), b.code(), "{mode:?}: {a} vs {b}"),
            (a, b) => panic!(
                "{mode:?}: bidscan-json {:?} vs serde_json {:?}",
                a.as_ref().err(),
                b.as_ref().err()
            ),
        }
    }
}

/// `bidscan_openrtb::decode`'s answer, with serde_json as the reader (structural errors mapped like `decode`).
fn via_serde_json(data: &[u8], mode: Mode) -> Result<Decoded<'_>, DecodeError> {
    match serde_json::from_slice::<BidResponse<'_>>(data) {
        Ok(r) => Decoded::from_response(r, mode),
        Err(e) if e.to_string().contains("not a bid response") => {
            Err(DecodeError::NotABidResponse {
                message: e.to_string(),
                path: String::new(),
            })
        }
        Err(e) if e.to_string().contains("an OpenRTB 3.0 document") => {
            Err(DecodeError::Openrtb3NotSupported {
                message: e.to_string(),
                path: String::new(),
            })
        }
        Err(e) => panic!("serde_json: valid JSON but the model fails: {e}"),
    }
}
