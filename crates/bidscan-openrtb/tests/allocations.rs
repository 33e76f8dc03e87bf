//! Decoding a document in the spec's shape allocates only the model's own vectors (`seatbid`, each `bid` array,
//! and a bid's list only past its inline capacity): nothing for coercions, issues, pointers or member names; and
//! no corpus document takes more than 8 allocation calls (issue 6). Counted with `stats_alloc`'s instrumented
//! system allocator (this file holds a single test, so no other test allocates while it counts).

use std::alloc::System;

use bidscan_openrtb::{BidResponse, Mode, decode};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Heap vectors of the model: each costs one allocation (growth counts as reallocations). A bid's lists are on the
/// heap only once they outgrow their inline capacity.
fn model_vectors(r: &BidResponse<'_>) -> usize {
    let mut n = usize::from(!r.seatbid.is_empty());
    for s in &r.seatbid {
        n += usize::from(!s.bid.is_empty());
        for b in &s.bid {
            n += [
                b.adomain.spilled(),
                b.cat.spilled(),
                b.attr.spilled(),
                b.apis.spilled(),
            ]
            .iter()
            .filter(|spilled| **spilled)
            .count();
        }
    }
    n
}

/// Issue 6: at most this many allocation calls (`alloc` + `realloc`) per corpus document after warm-up.
const MAX_CALLS: u64 = 8;

#[test]
fn clean_documents_allocate_only_model_vectors() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpus/bid-responses");
    let mut reader = bidscan_json::Reader::default();
    let mut checked = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let original = std::fs::read(&path).unwrap();
        // Warm the reader up (it may size its own scratch once), then count a second decode.
        let mut warm = original.clone();
        drop(decode(&mut reader, &mut warm, Mode::Strict).unwrap());
        let mut input = original.clone();
        let region = Region::new(GLOBAL);
        let decoded = decode(&mut reader, &mut input, Mode::Strict).unwrap();
        let change = region.change();
        let used = change.allocations;
        let calls = (change.allocations + change.reallocations) as u64;
        assert!(
            calls <= MAX_CALLS,
            "{}: {calls} allocation calls",
            path.display()
        );
        if decoded.issues.is_empty() {
            assert_eq!(used, model_vectors(&decoded.response), "{}", path.display());
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} documents without issues");

    // A `bid` array starts with the last non-empty one's length (or 1 for the first), once it gets an element:
    // seat bids of 3, 0, 3 and 2 bids cost `seatbid`, the first array (capacity 1, grown once to 4), the third
    // and the fourth (capacity 3 each, never grown); the empty one allocates nothing. A list past its inline capacity allocates once: `cat` (2 inline)
    // with 3 items, in the last 2 bids.
    let mut next = 0;
    let mut seat = |n: usize, extra: &str| {
        let bids: Vec<String> = (0..n)
            .map(|_| {
                next += 1;
                format!(r#"{{"id":"{next}","impid":"1","price":1,"crid":"c","nurl":"u"{extra}}}"#)
            })
            .collect();
        format!(r#"{{"bid":[{}]}}"#, bids.join(","))
    };
    let seats = [
        seat(3, ""),
        seat(0, ""),
        seat(3, ""),
        seat(2, r#","cat":["a","b","c"]"#),
    ];
    let json = format!(r#"{{"id":"r","seatbid":[{}]}}"#, seats.join(","));
    let mut input = json.clone().into_bytes();
    let region = Region::new(GLOBAL);
    let decoded = decode(&mut reader, &mut input, Mode::Strict).unwrap();
    let change = region.change();
    assert_eq!(
        (decoded.bid_count(), decoded.issues.len()),
        (8, 0),
        "{json}"
    );
    assert_eq!(
        (change.allocations, change.reallocations),
        (4 + 2, 1),
        "{json}"
    );
}
