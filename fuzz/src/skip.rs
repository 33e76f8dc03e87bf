//! The skip target: a skipped payload (the whole document as `IgnoredAny`, a member of an object the target
//! type ignores, a `RawJson` capture) over the structural index and over the token walk (`Reader::
//! set_skip_index`), through every scanner: the same outcome (value, or error kind, place, path and message)
//! and the same `Stats`; and accepted exactly when serde_json accepts the document as a `serde_json::Value`
//! (which checks everything bidscan-json checks in skipped values; the one allowed difference: nesting of
//! exactly 128).

use bidscan_json::{RawJson, Reader, ScanImpl};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;

use crate::text_nesting;

/// An object whose every member is skipped.
#[derive(Debug, Deserialize)]
struct Nothing {}

/// An object whose member `r` is captured raw and the rest skipped.
#[derive(Debug, Deserialize)]
#[allow(dead_code)] // read only through Debug
struct Raw<'a> {
    #[serde(borrow)]
    r: Option<RawJson<'a>>,
}

/// One decode of a copy of `data` as `T`: its outcome printed (`Debug`) and the reader's stats.
fn outcome<'de, T: Deserialize<'de> + std::fmt::Debug>(
    reader: &mut Reader,
    buf: &'de mut Vec<u8>,
    data: &[u8],
) -> String {
    buf.clear();
    buf.extend_from_slice(data);
    let result = reader.decode::<T>(buf);
    format!("{result:?} {:?}", reader.stats())
}

/// Checks the properties above on `data`, and on `data` as the value of an ignored member (`{"a":` data `}`).
pub fn skip(data: &[u8]) {
    let wrapped = [b"{\"a\":".as_slice(), data, b"}"].concat();
    for doc in [data, wrapped.as_slice()] {
        check(doc);
    }
}

fn check(data: &[u8]) {
    let mut accepted = None;
    for scan in ScanImpl::available() {
        let mut outcomes = Vec::new();
        for index in [true, false] {
            let mut reader = Reader::default();
            assert!(reader.set_scan_impl(scan));
            reader.set_skip_index(index);
            let mut buf = Vec::new();
            let ignored = outcome::<IgnoredAny>(&mut reader, &mut buf, data);
            let nothing = outcome::<Nothing>(&mut reader, &mut buf, data);
            let mut raw_buf = data.to_vec();
            let raw = reader.decode::<Raw<'_>>(&mut raw_buf);
            let raw = format!("{raw:?} {:?}", reader.stats());
            outcomes.push((ignored, nothing, raw));
        }
        assert_eq!(outcomes[0], outcomes[1], "{scan:?}: index vs token walk");
        let ok = outcomes[0].0.starts_with("Ok");
        match accepted {
            None => accepted = Some(ok),
            Some(a) => assert_eq!(a, ok, "{scan:?} disagrees with the first scanner"),
        }
    }
    let ours = accepted.unwrap_or(false);
    let theirs = serde_json::from_slice::<Value>(data);
    match (&theirs, ours) {
        (Ok(_), true) | (Err(_), false) => {}
        (Err(e), true) if e.to_string().contains("recursion limit") && text_nesting(data) == 128 => {}
        (Err(e), true) => panic!("bidscan-json skips what serde_json rejects: {e}"),
        (Ok(_), false) => panic!("serde_json accepts what bidscan-json's skip rejects"),
    }
}
