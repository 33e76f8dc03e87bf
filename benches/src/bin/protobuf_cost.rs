//! Protobuf decoding against JSON decoding and against prost, like for like: every protobuf twin of
//! `corpus/real-fixtures-protobuf/` (`NAME.pb`) and the compact JSON rendered from it (`NAME.json`, same content,
//! `ext` included), the pairs that all three decoders accept.
//!
//! - `json`: `bidscan_openrtb::decode` of the JSON (reused reader, the body copied into a reused buffer first, as
//!   the server decodes in place);
//! - `protobuf`: `bidscan_openrtb::decode_protobuf` of the twin (reused `String` for the rendered `ext`);
//! - `prost`: `prost::Message::decode` of the twin into prost's derived types for `BidResponse`, `SeatBid` and
//!   `Bid` (`crates/bidscan-openrtb/tests/protobuf_reference.rs`, the schema's field numbers and types; `ext` and
//!   `adm_native` as `bytes`, so prost copies them instead of decoding their messages: less work than the full
//!   generated types);
//! - `json-inspected`, `protobuf-inspected`: `decode_inspected` / `decode_protobuf_inspected` (every bid's markup
//!   read by a reused `Inspector`).
//!
//! `protobuf_cost MODE [PASSES]` (default 10): that work over every pair PASSES times, for callgrind
//! (instructions per pass = (Ir at 5 − Ir at 1) / 4):
//! `BIDSCAN_SCAN=avx2 valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.%p target/release/protobuf_cost protobuf 5`
//!
//! `protobuf_cost time [ROUNDS]` (default 20): each document timed alone, per_document-style (a batch of ~4 µs
//! after two untimed decodes; the decoders alternate document by document, round after round; each keeps its
//! minimum per document); prints the sums of the minima, their ratios, and the spread of per-document ratios;
//! `WORST=N` lists on stderr the N documents where protobuf compares worst against JSON and against prost.
//!
//! `protobuf_cost alloc`: allocation calls (`alloc` + `realloc`) and bytes requested per document, after 3
//! warm-up decodes (20 counted), by a counting global allocator (`stats_alloc`; it is in place in every mode and
//! adds a few instructions per allocation to the callgrind counts). Markdown out.
#![forbid(unsafe_code)]

use std::alloc::System;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use bidscan_openrtb::{Inspector, Mode, ProtobufLimits};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[path = "../../../crates/bidscan-openrtb/tests/protobuf_reference.rs"]
mod reference;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// One pair: the JSON rendered from the twin and the twin.
struct Twin {
    name: String,
    json: Vec<u8>,
    pb: Vec<u8>,
}

/// The decoders compared.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Way {
    Json,
    Protobuf,
    Prost,
    JsonInspected,
    ProtobufInspected,
}

impl Way {
    const ALL: [Way; 5] = [
        Way::Json,
        Way::Protobuf,
        Way::Prost,
        Way::JsonInspected,
        Way::ProtobufInspected,
    ];

    fn name(self) -> &'static str {
        match self {
            Way::Json => "json",
            Way::Protobuf => "protobuf",
            Way::Prost => "prost",
            Way::JsonInspected => "json-inspected",
            Way::ProtobufInspected => "protobuf-inspected",
        }
    }
}

/// The state each decoder reuses between documents.
struct Work {
    reader: bidscan_json::Reader,
    inspector: Inspector,
    buf: Vec<u8>,
    rendered: String,
}

impl Work {
    fn new() -> Work {
        Work {
            reader: bidscan_bench::decoders::bench_reader(),
            inspector: Inspector::new(),
            buf: Vec::new(),
            rendered: String::new(),
        }
    }

    /// One decode of `twin` by `way`: the bid count, or `None` when it refuses the body.
    fn run(&mut self, way: Way, twin: &Twin) -> Option<usize> {
        match way {
            Way::Json | Way::JsonInspected => {
                self.buf.clear();
                self.buf.extend_from_slice(&twin.json);
                let decoded = if way == Way::Json {
                    bidscan_openrtb::decode(&mut self.reader, &mut self.buf, Mode::Lenient)
                } else {
                    bidscan_openrtb::decode_inspected(
                        &mut self.reader,
                        &mut self.buf,
                        Mode::Lenient,
                        &mut self.inspector,
                    )
                };
                decoded.ok().map(|d| black_box(&d).bid_count())
            }
            Way::Protobuf | Way::ProtobufInspected => {
                let decoded = if way == Way::Protobuf {
                    bidscan_openrtb::decode_protobuf(
                        &twin.pb,
                        &mut self.rendered,
                        Mode::Lenient,
                        ProtobufLimits::default(),
                    )
                } else {
                    bidscan_openrtb::decode_protobuf_inspected(
                        &twin.pb,
                        &mut self.rendered,
                        Mode::Lenient,
                        ProtobufLimits::default(),
                        &mut self.inspector,
                    )
                };
                decoded.ok().map(|d| black_box(&d).bid_count())
            }
            Way::Prost => <reference::PbResponse as prost::Message>::decode(&twin.pb[..])
                .ok()
                .map(|r| black_box(&r).seatbid.iter().map(|s| s.bid.len()).sum()),
        }
    }
}

/// Every pair of `corpus/real-fixtures-protobuf/` that every decoder accepts, sorted by name; the number left
/// out on stderr.
fn twins(work: &mut Work) -> Vec<Twin> {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../corpus/real-fixtures-protobuf"
    ));
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "pb"))
        .collect();
    names.sort();
    let all = names.len();
    let out: Vec<Twin> = names
        .into_iter()
        .map(|pb| Twin {
            name: pb.file_stem().unwrap().to_string_lossy().into_owned(),
            json: std::fs::read(pb.with_extension("json")).unwrap(),
            pb: std::fs::read(&pb).unwrap(),
        })
        .filter(|t| Way::ALL.iter().all(|&w| work.run(w, t).is_some()))
        .collect();
    if out.len() < all {
        eprintln!(
            "{} of {all} pairs left out: a decoder refused them",
            all - out.len()
        );
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let what = args.first().map_or("time", String::as_str);
    let n: usize = args
        .get(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(if what == "time" { 20 } else { 10 });
    let mut work = Work::new();
    let twins = twins(&mut work);
    if let Some(&way) = Way::ALL.iter().find(|w| w.name() == what) {
        for _ in 0..n {
            for t in &twins {
                black_box(work.run(way, black_box(t)));
            }
        }
        return;
    }
    match what {
        "time" => time(&twins, &mut work, n),
        "alloc" => alloc(&twins, &mut work),
        _ => {
            eprintln!(
                "usage: protobuf_cost json|protobuf|prost|json-inspected|protobuf-inspected|time|alloc [N]"
            );
            std::process::exit(2);
        }
    }
}

const BATCH_NS: f64 = 4_000.0;

fn time(twins: &[Twin], work: &mut Work, rounds: usize) {
    let ways = Way::ALL;
    let reps: Vec<Vec<usize>> = twins
        .iter()
        .map(|t| {
            ways.iter()
                .map(|&w| {
                    black_box(work.run(w, t));
                    let at = Instant::now();
                    for _ in 0..4 {
                        black_box(work.run(w, black_box(t)));
                    }
                    let ns = at.elapsed().as_nanos() as f64 / 4.0;
                    ((BATCH_NS / ns.max(1.0)) as usize).clamp(1, 10_000)
                })
                .collect()
        })
        .collect();
    let mut mins = vec![[f64::INFINITY; 5]; twins.len()];
    for _ in 0..rounds {
        for (i, t) in twins.iter().enumerate() {
            for (k, &w) in ways.iter().enumerate() {
                black_box(work.run(w, t));
                black_box(work.run(w, t));
                let n = reps[i][k];
                let at = Instant::now();
                for _ in 0..n {
                    black_box(work.run(w, black_box(t)));
                }
                let ns = at.elapsed().as_nanos() as f64 / n as f64;
                mins[i][k] = mins[i][k].min(ns);
            }
        }
    }
    let sum = |k: usize| mins.iter().map(|m| m[k]).sum::<f64>();
    let bytes = |f: fn(&Twin) -> usize| twins.iter().map(f).sum::<usize>();
    println!(
        "{} pairs ({} bytes of JSON, {} of protobuf); sum of per-document minima, {rounds} interleaved rounds:\n",
        twins.len(),
        bytes(|t| t.json.len()),
        bytes(|t| t.pb.len())
    );
    println!("| decoder | µs | ratio |");
    println!("|---|---:|---:|");
    let pb = sum(1);
    for (k, w) in ways.iter().enumerate() {
        let against = if k >= 3 { sum(4) } else { pb };
        println!(
            "| {} | {:.1} | {:.2}× |",
            w.name(),
            sum(k) / 1e3,
            sum(k) / against
        );
    }
    println!("\n(ratio: time ÷ protobuf's; the inspected rows ÷ protobuf-inspected)\n");
    for (label, k, base) in [
        ("json ÷ protobuf", 0, 1),
        ("prost ÷ protobuf", 2, 1),
        ("json-inspected ÷ protobuf-inspected", 3, 4),
    ] {
        let mut r: Vec<f64> = mins.iter().map(|m| m[k] / m[base]).collect();
        r.sort_by(f64::total_cmp);
        let at = |q: f64| r[((r.len() - 1) as f64 * q) as usize];
        let below = r.iter().filter(|&&x| x < 1.0).count();
        println!(
            "Per document, {label}: min {:.2}, p10 {:.2}, median {:.2}, p90 {:.2}, max {:.2} ({below} below 1)",
            at(0.0),
            at(0.1),
            at(0.5),
            at(0.9),
            at(1.0)
        );
    }
    let worst: usize = std::env::var("WORST")
        .ok()
        .and_then(|w| w.parse().ok())
        .unwrap_or(0);
    for (label, k) in [("json", 0), ("prost", 2)] {
        let mut order: Vec<usize> = (0..twins.len()).collect();
        order.sort_by(|&a, &b| (mins[a][k] / mins[a][1]).total_cmp(&(mins[b][k] / mins[b][1])));
        if worst > 0 {
            eprintln!("worst documents ({label} ÷ protobuf):");
        }
        for &i in order.iter().take(worst) {
            eprintln!(
                "  {:.2}×  {} ({} B protobuf, {} B JSON): protobuf {:.0} ns, {label} {:.0} ns",
                mins[i][k] / mins[i][1],
                twins[i].name,
                twins[i].pb.len(),
                twins[i].json.len(),
                mins[i][1],
                mins[i][k]
            );
        }
    }
}

fn alloc(twins: &[Twin], work: &mut Work) {
    const WARMUP: usize = 3;
    const ROUNDS: usize = 20;
    println!(
        "Allocation calls / bytes requested per document, mean over {} pairs, after {WARMUP} warm-up decodes \
         ({ROUNDS} counted):\n",
        twins.len()
    );
    println!("| decoder | calls per document | bytes per document | documents with 0 calls |");
    println!("|---|---:|---:|---:|");
    for w in Way::ALL {
        let (mut calls, mut bytes, mut zero) = (0.0, 0.0, 0);
        for t in twins {
            for _ in 0..WARMUP {
                black_box(work.run(w, t));
            }
            let region = Region::new(GLOBAL);
            for _ in 0..ROUNDS {
                black_box(work.run(w, t));
            }
            let s = region.change();
            let c = (s.allocations + s.reallocations) as f64 / ROUNDS as f64;
            calls += c;
            bytes += (s.bytes_allocated as f64 + s.bytes_reallocated.max(0) as f64) / ROUNDS as f64;
            zero += usize::from(c == 0.0);
        }
        let n = twins.len() as f64;
        println!(
            "| {} | {:.2} | {:.0} | {zero} |",
            w.name(),
            calls / n,
            bytes / n
        );
    }
}
