//! Allocation report: heap allocations and bytes allocated per document for each decoder, after warm-up, per
//! corpus family and per document, as markdown tables on stdout.
//!
//! A counting global allocator (`stats_alloc` around the system allocator) counts every `alloc` and `realloc`
//! during `ROUNDS` decodes of each document, after `WARMUP` decodes that let reused state (bidscan's reader and
//! input buffer, simd-json's buffers) reach its size. Counted per document: allocation calls (`alloc` +
//! `realloc`) and bytes requested (allocated + net growth by `realloc`). Dropping the decoded value is counted
//! (frees are not shown; every decoder frees what it allocated).
//!
//! `cargo run --release -p bidscan-bench --bin alloc_report > alloc.md`
#![forbid(unsafe_code)]

use std::alloc::System;

use bidscan_bench::decoders::{Decoder, Decoders};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

const WARMUP: usize = 3;
const ROUNDS: usize = 20;

/// (allocation calls, bytes requested) per decode of `doc`, after warm-up.
fn measure(decoders: &mut Decoders, decoder: Decoder, doc: &[u8]) -> (f64, f64) {
    for _ in 0..WARMUP {
        decoders.run(decoder, doc);
    }
    let region = Region::new(GLOBAL);
    for _ in 0..ROUNDS {
        decoders.run(decoder, doc);
    }
    let s = region.change();
    let calls = (s.allocations + s.reallocations) as f64 / ROUNDS as f64;
    let bytes = (s.bytes_allocated as f64 + s.bytes_reallocated.max(0) as f64) / ROUNDS as f64;
    (calls, bytes)
}

fn cell((calls, bytes): (f64, f64)) -> String {
    let bytes = if bytes >= 10_240.0 {
        format!("{:.0} KiB", bytes / 1024.0)
    } else {
        format!("{bytes:.0} B")
    };
    format!("{calls:.1} / {bytes}")
}

fn header(first: &str) {
    let names: Vec<&str> = Decoder::ALL.iter().map(|d| d.name()).collect();
    println!("| {first} | {} |", names.join(" | "));
    println!("|---|{}", "---:|".repeat(names.len()));
}

fn main() {
    let corpus = bidscan_bench::corpus();
    if let Err(problems) = bidscan_bench::verify::check_corpus(&corpus) {
        eprintln!("decoders disagree with bidscan:\n{problems}");
        std::process::exit(1);
    }
    let names: Vec<&str> = corpus.iter().map(|(n, _)| n.as_str()).collect();
    let mut decoders = Decoders::default();
    // per_doc[doc][decoder]
    let per_doc: Vec<Vec<(f64, f64)>> = corpus
        .iter()
        .map(|(_, doc)| {
            Decoder::ALL
                .iter()
                .map(|&d| measure(&mut decoders, d, doc))
                .collect()
        })
        .collect();

    println!(
        "Allocation calls / bytes requested per document, after {WARMUP} warm-up decodes ({ROUNDS} counted).\n"
    );
    println!("Per family (mean over the family's documents):\n");
    header("family (docs)");
    for family in bidscan_bench::families::families(&names) {
        let n = family.docs.len() as f64;
        let cells: Vec<String> = (0..Decoder::ALL.len())
            .map(|k| {
                let (c, b) = family.docs.iter().fold((0.0, 0.0), |(c, b), &i| {
                    (c + per_doc[i][k].0, b + per_doc[i][k].1)
                });
                cell((c / n, b / n))
            })
            .collect();
        println!(
            "| {} ({}) | {} |",
            family.name,
            family.docs.len(),
            cells.join(" | ")
        );
    }
    // The real bodies (as fetched and compacted): means and the largest count seen on one document.
    for which in [bidscan_bench::Real::Fetched, bidscan_bench::Real::Compact] {
        let docs = bidscan_bench::real(which);
        let n = docs.len() as f64;
        let measured: Vec<Vec<(f64, f64)>> = docs
            .iter()
            .map(|(_, doc)| {
                Decoder::ALL
                    .iter()
                    .map(|&d| measure(&mut decoders, d, doc))
                    .collect()
            })
            .collect();
        let cells: Vec<String> = (0..Decoder::ALL.len())
            .map(|k| {
                let (c, b) = measured
                    .iter()
                    .fold((0.0, 0.0), |(c, b), m| (c + m[k].0, b + m[k].1));
                let most = measured.iter().map(|m| m[k].0).fold(0.0, f64::max);
                format!("{} (max {most:.0})", cell((c / n, b / n)))
            })
            .collect();
        println!(
            "| {} ({}) | {} |",
            which.name(),
            docs.len(),
            cells.join(" | ")
        );
    }
    println!("\nPer document:\n");
    header("document (bytes)");
    for (i, (name, doc)) in corpus.iter().enumerate() {
        let cells: Vec<String> = per_doc[i].iter().map(|&m| cell(m)).collect();
        println!("| {name} ({}) | {} |", doc.len(), cells.join(" | "));
    }
}
