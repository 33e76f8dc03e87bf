//! bidscan-json against serde_json, decoding each bid-response corpus file into the same typed model
//! (`bidscan_bench::model`). bidscan's time includes copying the body into a reused buffer (its input must be
//! mutable); serde_json reads the bytes where they are and borrows what it can.
//!
//! `cargo bench -p bidscan-bench --bench reader_vs_serde_json -- --warm-up-time 1 --measurement-time 2`

use std::hint::black_box;

use bidscan_bench::model::BidResponse;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn decode(c: &mut Criterion) {
    let mut reader = bidscan_json::Reader::default();
    let mut buf: Vec<u8> = Vec::new();
    for (name, bytes) in bidscan_bench::corpus() {
        let mut group = c.benchmark_group(name.as_str());
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function("bidscan", |b| {
            b.iter(|| {
                buf.clear();
                buf.extend_from_slice(black_box(&bytes));
                let response: BidResponse = reader.decode(&mut buf).expect("corpus decodes");
                black_box(&response);
            })
        });
        group.bench_function("serde_json", |b| {
            b.iter(|| {
                let response: BidResponse =
                    serde_json::from_slice(black_box(&bytes)).expect("corpus decodes");
                black_box(&response);
            })
        });
        group.finish();
    }
}

criterion_group!(benches, decode);
criterion_main!(benches);
