//! The multipart target: the auction's `multipart/form-data` reader (the server's leaf module
//! `crates/bidscan-server/src/routes/auction_parts/multipart.rs`, included by path) on arbitrary bytes, against multer
//! (axum's reader): never a panic; every range it gives lies inside the body, in order, and never overlaps
//! another; a bidder's name is 1–64 bytes of `[A-Za-z0-9_.-]`; and where both readers accept a body that opens
//! with its first delimiter and spells `name` once per part, in lower case (the known differences, below), the
//! same parts (names and contents, in order).
//!
//! The first line of the input (up to 70 bytes, without CR or LF) is the boundary; the rest is the body.

#[path = "../../crates/bidscan-server/src/routes/auction_parts/multipart.rs"]
#[allow(dead_code, missing_docs)]
mod reader;

use futures_util::FutureExt;

/// Checks the properties on `data` (see the module docs); panics on a violation.
pub fn multipart(data: &[u8]) {
    let Some(eol) = data.iter().position(|&b| b == b'\n') else {
        return;
    };
    let Ok(boundary) = std::str::from_utf8(&data[..eol]) else {
        return;
    };
    if boundary.is_empty() || boundary.len() > reader::MAX_BOUNDARY || boundary.contains('\r') {
        return;
    }
    let body = &data[eol + 1..];
    let ours = reader::read(body, boundary, 32);
    let Ok(parts) = ours else {
        return;
    };
    let mut ranges = vec![parts.request.clone()];
    ranges.extend(parts.bidders.iter().map(|p| p.content.clone()));
    let mut sorted = ranges.clone();
    sorted.sort_by_key(|r| r.start);
    let mut end = 0;
    for r in &sorted {
        assert!(
            r.start >= end && r.start <= r.end && r.end <= body.len(),
            "{r:?}"
        );
        end = r.end;
    }
    for p in &parts.bidders {
        assert!((1..=reader::MAX_NAME).contains(&p.name.len()));
        assert!(
            p.name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b))
        );
        assert_ne!(p.name, "request");
    }
    // The mutable slices are the same bytes.
    let mut copy = body.to_vec();
    let slices = reader::split_mut(&mut copy, &sorted);
    for (slice, r) in slices.iter().zip(&sorted) {
        assert_eq!(&**slice, &body[r.clone()]);
    }
    // A known difference: after a preamble, multer takes `--BOUNDARY` anywhere (after a bare LF, or mid-line) as
    // the first delimiter; RFC 2046 §5.1.1 and this reader need it at the start of the body or after CRLF.
    if !body.starts_with(format!("--{boundary}").as_bytes()) {
        return;
    }
    // Others: multer finds `name` by substring search, in lower case only (parameter names are case-insensitive:
    // RFC 7578 §4.2 after RFC 2183 §2), also inside another parameter's key or quoted value
    // (`x name=a; name=b`, `filename="name=a"`), where this reader reads the parameters in turn. Compared only where
    // each part's headers spell `name` once, in lower case.
    let names = body
        .windows(4)
        .filter(|w| w.eq_ignore_ascii_case(b"name"))
        .count();
    // And multer ends a token value at a space or `;`, not at a tab (optional whitespace, RFC 9110 §5.6.3): no tab.
    if names != parts.bidders.len() + 1
        || body.contains(&b'\t')
        || body
            .windows(4)
            .any(|w| w.eq_ignore_ascii_case(b"name") && w != b"name")
    {
        return;
    }
    let Some(theirs) = with_multer(body, boundary) else {
        return;
    };
    let mut mine: Vec<(String, Vec<u8>)> = parts
        .bidders
        .iter()
        .map(|p| (p.name.clone(), body[p.content.clone()].to_vec()))
        .collect();
    let Some(at) = theirs.iter().position(|(n, _)| n == "request") else {
        panic!("multer found no request part: {theirs:?}");
    };
    mine.insert(at, ("request".to_owned(), body[parts.request].to_vec()));
    assert_eq!(mine, theirs);
}

/// Every part's name and content as multer reads `body`, or `None` when it refuses it.
fn with_multer(body: &[u8], boundary: &str) -> Option<Vec<(String, Vec<u8>)>> {
    let bytes = bytes::Bytes::copy_from_slice(body);
    let stream =
        futures_util::stream::once(
            async move { Ok::<bytes::Bytes, std::convert::Infallible>(bytes) },
        );
    let mut parts = multer::Multipart::new(stream, boundary);
    let mut out = Vec::new();
    loop {
        match parts.next_field().now_or_never()? {
            Ok(Some(field)) => {
                let name = field.name()?.to_owned();
                let content = field.bytes().now_or_never()?.ok()?;
                out.push((name, content.to_vec()));
            }
            Ok(None) => return Some(out),
            Err(_) => return None,
        }
    }
}
