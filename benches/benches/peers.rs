//! bidscan against its peers (serde_json, sonic-rs, simd-json, jiter) and the memcpy floor, one group per corpus
//! family plus `corpus` (all 24 documents per iteration, the headline). Every decoder decodes the same bytes into
//! the OpenRTB model (serde_json the real `bidscan_openrtb::BidResponse`, the others its mirror — see
//! `bidscan_bench::mirror`); throughput is in input bytes. bidscan and simd-json copy each document into a
//! reused buffer first (they decode in place) and that copy is timed.
//!
//! Before timing, every decoder's values are checked against bidscan's on every document (the bench aborts on a
//! mismatch).
//!
//! `cargo bench -p bidscan-bench --bench peers -- --warm-up-time 1 --measurement-time 3`
#![forbid(unsafe_code)]

use std::hint::black_box;

use bidscan_bench::decoders::{Decoder, Decoders};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn peers(c: &mut Criterion) {
    let corpus = bidscan_bench::corpus();
    if let Err(problems) = bidscan_bench::verify::check_corpus(&corpus) {
        panic!("decoders disagree with bidscan, nothing timed:\n{problems}");
    }
    let names: Vec<&str> = corpus.iter().map(|(n, _)| n.as_str()).collect();
    let mut decoders = Decoders::default();
    for family in bidscan_bench::families::families(&names) {
        let docs: Vec<&[u8]> = family
            .docs
            .iter()
            .map(|&i| corpus[i].1.as_slice())
            .collect();
        let bytes: usize = docs.iter().map(|d| d.len()).sum();
        let mut group = c.benchmark_group(family.name);
        group.throughput(Throughput::Bytes(bytes as u64));
        for decoder in Decoder::ALL {
            group.bench_function(decoder.name(), |b| {
                b.iter(|| {
                    let mut n = 0;
                    for doc in &docs {
                        n += decoders.run(decoder, black_box(doc));
                    }
                    n
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, peers);
criterion_main!(benches);
