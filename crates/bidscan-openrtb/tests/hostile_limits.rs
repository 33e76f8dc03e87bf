//! Memory bounds on hostile documents: a body made of tiny bids or of dropped elements must not make decoding
//! allocate hundreds of times its size: unbounded, a 4 MiB body of `{}` bids would decode into 1.4 million
//! ~700-byte `Bid`s plus five validation issues each — over 4 GB allocated for one request. A document holds at most [`MAX_OBJECTS`] seat bids and
//! bids and [`MAX_COERCIONS`] coercions; past either it is refused as not a bid response, early.
//!
//! Allocation is measured with `stats_alloc` (bytes allocated during the decode: an upper bound of the peak).
//! This file holds a single test so nothing else allocates while it counts.

use std::alloc::System;

use bidscan_openrtb::{DecodeError, MAX_COERCIONS, MAX_OBJECTS, Mode, Status, decode};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

const FOUR_MIB: usize = 4 * 1024 * 1024;

/// `{"id":"r","seatbid":[{"bid":[E,E,…]}]}` with `n` copies of `element`.
fn one_seat(element: &str, n: usize) -> Vec<u8> {
    let mut doc = String::from(r#"{"id":"r","seatbid":[{"bid":["#);
    for i in 0..n {
        if i > 0 {
            doc.push(',');
        }
        doc.push_str(element);
    }
    doc.push_str("]}]}");
    doc.into_bytes()
}

/// Elements of `element` filling about `bytes` bytes.
fn filling(element: &str, bytes: usize) -> usize {
    bytes / (element.len() + 1)
}

/// Decodes `doc` leniently; returns the outcome's summary and the bytes allocated meanwhile.
fn decode_counting(doc: &[u8]) -> (Result<(Status, usize), DecodeError>, usize) {
    let mut reader = bidscan_json::Reader::default();
    let mut input = doc.to_vec();
    let region = Region::new(GLOBAL);
    let outcome = decode(&mut reader, &mut input, Mode::Lenient).map(|d| {
        // The answer's issues are rendered too: they are part of what one request costs.
        serde_json::to_vec(&d.issues).unwrap();
        (d.status, d.bid_count())
    });
    let allocated = region.change().bytes_allocated;
    eprintln!(
        "{} byte body: {} bytes allocated, {:?}",
        doc.len(),
        allocated,
        outcome.as_ref().map_err(DecodeError::code)
    );
    (outcome, allocated)
}

fn refused(doc: &[u8], what: &str, limit: usize) {
    let (outcome, allocated) = decode_counting(doc);
    match outcome {
        Err(DecodeError::NotABidResponse { message, .. }) => {
            assert!(message.contains(what), "{message}");
        }
        other => panic!("expected not_a_bid_response ({what}), got {other:?}"),
    }
    assert!(
        allocated < limit,
        "{what}: {allocated} bytes allocated for a {} byte body",
        doc.len()
    );
}

#[test]
fn tiny_bids_and_dropped_elements_are_bounded() {
    // 1.4 million empty bids in 4 MiB: refused after MAX_OBJECTS, having allocated little.
    let n = filling("{}", FOUR_MIB);
    refused(&one_seat("{}", n), "seat bids and bids", 64 << 20);

    // The count is per document: 10,000 seats of 100 bids each.
    let seat = format!(r#"{{"bid":[{}]}}"#, vec!["{}"; 100].join(","));
    let doc = format!(
        r#"{{"seatbid":[{}]}}"#,
        vec![seat.as_str(); 10_000].join(",")
    );
    assert!(doc.len() < FOUR_MIB);
    refused(doc.as_bytes(), "seat bids and bids", 64 << 20);

    // 800,000 `null` bids (each a dropped element and a coercion record): refused after MAX_COERCIONS.
    let n = filling("null", FOUR_MIB);
    refused(&one_seat("null", n), "deviations", 64 << 20);

    // A million numbers in a list of strings (`cat`): one coercion record each, so refused the same way.
    let cat = vec!["1"; 1_000_000].join(",");
    let doc =
        format!(r#"{{"seatbid":[{{"bid":[{{"id":"b","impid":"1","price":1,"cat":[{cat}]}}]}}]}}"#);
    refused(doc.as_bytes(), "deviations", 64 << 20);

    // At the limits exactly, documents decode.
    let max = MAX_OBJECTS as usize;
    let bid = r#"{"id":"b","impid":"1","price":1,"crid":"c","adm":"a"}"#;
    let (outcome, _) = decode_counting(&one_seat(bid, max - 1));
    assert_eq!(
        outcome.unwrap(),
        (Status::Bid, max - 1),
        "one seat + {} bids",
        max - 1
    );
    let (outcome, _) = decode_counting(&one_seat(bid, max));
    assert!(matches!(outcome, Err(DecodeError::NotABidResponse { .. })));
    let (outcome, _) = decode_counting(&one_seat("null", MAX_COERCIONS as usize));
    assert_eq!(outcome.unwrap(), (Status::NoBid, 0));
    let (outcome, _) = decode_counting(&one_seat("null", MAX_COERCIONS as usize + 1));
    assert!(matches!(outcome, Err(DecodeError::NotABidResponse { .. })));
}
