//! Decodes one corpus document N times with one decoder: a target for `perf record` and
//! `valgrind --tool=callgrind` on a single document (instructions per document = (Ir at 2N − Ir at N) / N).
//!
//! `one_doc DECODER DOCUMENT N` (DOCUMENT: a file stem of `corpus/bid-responses`, e.g. `nobid_nbr`, or the path
//! of any file, e.g. `corpus/real-fixtures/pubrise_exemplary-simple-native.json`); prints the mean time per
//! decode to stderr.
#![forbid(unsafe_code)]

use std::hint::black_box;
use std::time::Instant;

use bidscan_bench::decoders::{Decoder, Decoders};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(decoder), Some(name), Some(n)) = (
        args.first().and_then(|d| Decoder::from_name(d)),
        args.get(1),
        args.get(2).and_then(|n| n.parse::<usize>().ok()),
    ) else {
        eprintln!("usage: one_doc DECODER DOCUMENT N");
        std::process::exit(2);
    };
    let corpus = bidscan_bench::corpus();
    let from_file = std::fs::read(name).ok();
    let Some(doc) = from_file
        .as_ref()
        .or_else(|| corpus.iter().find(|(stem, _)| stem == name).map(|(_, d)| d))
    else {
        eprintln!("no document {name} in the corpus, and no such file");
        std::process::exit(2);
    };
    let mut decoders = Decoders::default();
    let t = Instant::now();
    for _ in 0..n {
        black_box(decoders.run(decoder, black_box(doc)));
    }
    eprintln!(
        "{:.1} ns per decode",
        t.elapsed().as_nanos() as f64 / n.max(1) as f64
    );
}
