//! Decodes the whole corpus (or one family) N times with one decoder: the workload for callgrind instruction
//! counts, which are repeatable where wall-clock timing on a shared machine is not.
//!
//! `corpus_loop DECODER [PASSES] [FAMILY]` — DECODER is one of memcpy, bidscan, bidscan-mirror, serde_json, sonic-rs,
//! simd-json, jiter; PASSES defaults to 10; FAMILY (e.g. `vast`, default `corpus`) as in the criterion groups, or `real` /
//! `real_compact` (the real bodies, see `bidscan_bench::real`).
//! One untimed pass runs first (reused buffers grow, lazy CPU-feature detection happens). Instructions per pass
//! = (Ir at PASSES=11 − Ir at PASSES=1) / 10, which cancels start-up and corpus loading:
//!
//! `valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.%p target/release/corpus_loop bidscan 11`
#![forbid(unsafe_code)]

use std::hint::black_box;

use bidscan_bench::decoders::{Decoder, Decoders};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: corpus_loop DECODER [PASSES] [FAMILY]";
    let Some(decoder) = args.first().and_then(|a| Decoder::from_name(a)) else {
        eprintln!(
            "{usage}; DECODER one of memcpy bidscan bidscan-mirror serde_json sonic-rs simd-json jiter"
        );
        std::process::exit(2);
    };
    let passes: usize = match args.get(1).map(|p| p.parse()) {
        None => 10,
        Some(Ok(p)) => p,
        Some(Err(_)) => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    };
    let family_name = args.get(2).map_or("corpus", String::as_str);
    let Some(family) = bidscan_bench::family_docs(family_name) else {
        eprintln!("no family {family_name}");
        std::process::exit(2);
    };
    let docs: Vec<&[u8]> = family.iter().map(|(_, d)| d.as_slice()).collect();
    let mut decoders = Decoders::default();
    let mut total = 0usize;
    for doc in &docs {
        total += decoders.run(decoder, doc);
    }
    for _ in 0..passes {
        total += run_passes(&mut decoders, decoder, &docs);
    }
    println!(
        "{} {family_name} passes={passes} checksum={total}",
        decoder.name()
    );
}

#[inline(never)]
fn run_passes(decoders: &mut Decoders, decoder: Decoder, docs: &[&[u8]]) -> usize {
    let mut n = 0;
    for doc in docs {
        n += decoders.run(decoder, black_box(doc));
    }
    n
}
