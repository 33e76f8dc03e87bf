//! Inspecting markup adds a constant number of allocation calls per document, whatever the markup's length:
//! the per-bid `markup` list only. Well-formed VAST is read by bidscan-markup's own tokenizer (a
//! fixed stack of name slices; quick-xml, which allocates its name buffers, reads only malformed documents),
//! native JSON is decoded in the inspector's reused scratch buffer, HTML allocates nothing. Counted with `stats_alloc` (this file holds a single test).

use std::alloc::System;

use bidscan_openrtb::{Inspector, Mode, decode, decode_inspected};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Allocation calls (`alloc` + `realloc`) inspection may add to a clean single-bid VAST document: the `markup`
/// list and the bid's boxed `VastInfo` (the fast path's tokenizer allocates nothing; quick-xml's name buffers
/// took 6 calls before it).
const MAX_EXTRA_VAST: u64 = 2;
/// … to a clean native or HTML document: the `markup` list only.
const MAX_EXTRA_OTHER: u64 = 1;

/// The fewest allocation calls (`alloc` + `realloc`) of three runs of `f`. The process-wide counter also sees
/// calls another thread makes meanwhile (seen on a loaded machine: 4–6 stray calls), which only ever add, while
/// a decode of the same bytes allocates the same each time; so the fewest is `f`'s own count.
fn calls(mut f: impl FnMut()) -> u64 {
    (0..3)
        .map(|_| {
            let region = Region::new(GLOBAL);
            f();
            let change = region.change();
            (change.allocations + change.reallocations) as u64
        })
        .min()
        .unwrap()
}

#[test]
fn inspection_adds_a_constant_number_of_allocations() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpus/bid-responses");
    let mut reader = bidscan_json::Reader::default();
    let mut inspector = Inspector::new();
    let mut vast_extra = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let original = std::fs::read(&path).unwrap();
        // Warm up both (the readers and the inspector's scratch size themselves once).
        drop(
            decode_inspected(
                &mut reader,
                &mut original.clone(),
                Mode::Lenient,
                &mut inspector,
            )
            .unwrap(),
        );
        // Each run decodes a fresh copy, made before the region opens (in-place decoding changes the bytes).
        let mut copies = vec![original.clone(); 3];
        let plain = calls(|| {
            let mut input = copies.pop().unwrap();
            drop(decode(&mut reader, &mut input, Mode::Lenient).unwrap());
            copies.insert(0, input);
        });
        let mut copies = vec![original.clone(); 3];
        let mut issues = 0;
        let inspected = calls(|| {
            let mut input = copies.pop().unwrap();
            let d =
                decode_inspected(&mut reader, &mut input, Mode::Lenient, &mut inspector).unwrap();
            issues = d.issues.len();
            drop(d);
            copies.insert(0, input);
        });
        let extra = inspected - plain;
        if issues > 0 {
            continue; // an issue allocates its pointer and message; the corpus documents are clean
        }
        let bound = if name.starts_with("vast") {
            MAX_EXTRA_VAST
        } else {
            MAX_EXTRA_OTHER
        };
        let bids = if name.starts_with("multiseat") { 48 } else { 1 };
        if bids == 1 {
            assert!(
                extra <= bound,
                "{name}: {extra} extra allocation calls (bound {bound})"
            );
        }
        if name.starts_with("vast_0") || name.starts_with("vast_1") {
            vast_extra.push((name, extra));
        }
    }
    // vast_012k … vast_110k: the same markup structure at 14 KB to 113 KB costs the same allocations.
    assert!(vast_extra.len() >= 6, "{vast_extra:?}");
    assert!(
        vast_extra.windows(2).all(|w| w[0].1 == w[1].1),
        "grows with length: {vast_extra:?}"
    );
}
