//! Decoding a document in the spec's shape allocates only the model's own vectors: nothing for coercions,
//! issues, pointers or member names. Counted with `stats_alloc`'s instrumented system allocator (this file holds
//! a single test, so no other test allocates while it counts).

use std::alloc::System;

use bidscan_openrtb::{BidResponse, Mode, decode};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Vectors of the model that hold something: each costs one allocation (growth counts as reallocations).
fn model_vectors(r: &BidResponse<'_>) -> usize {
    let mut n = usize::from(!r.seatbid.is_empty());
    for s in &r.seatbid {
        n += usize::from(!s.bid.is_empty());
        for b in &s.bid {
            n += [b.adomain.len(), b.cat.len(), b.attr.len(), b.apis.len()]
                .iter()
                .filter(|l| **l > 0)
                .count();
        }
    }
    n
}

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
        let used = region.change().allocations;
        if decoded.issues.is_empty() {
            assert_eq!(used, model_vectors(&decoded.response), "{}", path.display());
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} documents without issues");
}
