//! Each document timed alone, every decoder side by side: the way the real-traffic figures are made.
//! For each document and decoder, a batch of decodes long enough to time (~`BATCH_NS`) after two untimed ones;
//! decoders alternate document by document, round after round, and each keeps its minimum per document. A
//! corpus's total is the sum of its documents' minima; "slower than a peer" counts documents where bidscan's
//! minimum is above the fastest peer's.
//!
//! `per_document [ROUNDS] [CORPUS...]` — ROUNDS default 5; CORPUS any of `synthetic`, `real`, `real_compact`
//! (default all three). Real corpora are the bodies every decoder decodes to bidscan's values
//! ([`bidscan_bench::real`]). `WORST=N` also lists the N documents where bidscan compares worst. Markdown out.
#![forbid(unsafe_code)]

use std::hint::black_box;
use std::time::Instant;

use bidscan_bench::Real;
use bidscan_bench::decoders::{Decoder, Decoders};

const BATCH_NS: f64 = 4_000.0;

const TIMED: [Decoder; 6] = [
    Decoder::Bidscan,
    Decoder::BidscanMirror,
    Decoder::SerdeJson,
    Decoder::SonicRs,
    Decoder::SimdJson,
    Decoder::Jiter,
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rounds: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(5);
    let mut wanted: Vec<&str> = args.iter().skip(1).map(String::as_str).collect();
    if wanted.is_empty() {
        wanted = vec!["synthetic", "real", "real_compact"];
    }
    let worst: usize = std::env::var("WORST")
        .ok()
        .and_then(|w| w.parse().ok())
        .unwrap_or(0);
    let cols: Vec<&str> = TIMED.iter().map(|d| d.name()).collect();
    let mut table = vec![
        format!(
            "| corpus (docs, bytes) | {} | fastest peer | bidscan vs it | docs slower than a peer |",
            cols.join(" | ")
        ),
        format!("|---|{}---|---:|---:|", "---:|".repeat(cols.len())),
    ];
    let mut decoders = Decoders::default();
    for name in wanted {
        let docs = match name {
            "synthetic" => bidscan_bench::corpus(),
            "real" => bidscan_bench::real(Real::Fetched),
            "real_compact" => bidscan_bench::real(Real::Compact),
            other => {
                eprintln!("unknown corpus {other} (synthetic, real, real_compact)");
                std::process::exit(2);
            }
        };
        let mins = measure(&mut decoders, &docs, rounds);
        let bytes: usize = docs.iter().map(|(_, d)| d.len()).sum();
        let totals: Vec<f64> = (0..TIMED.len())
            .map(|k| mins.iter().map(|m| m[k]).sum())
            .collect();
        let peer_ks = 2..TIMED.len();
        let best = peer_ks
            .clone()
            .min_by(|&a, &b| totals[a].total_cmp(&totals[b]))
            .unwrap_or(2);
        let fastest_peer = |m: &[f64]| peer_ks.clone().map(|k| m[k]).fold(f64::INFINITY, f64::min);
        let slower = mins.iter().filter(|m| m[0] > fastest_peer(m)).count();
        let cells: Vec<String> = totals.iter().map(|&t| fmt(t)).collect();
        table.push(format!(
            "| {name} ({}, {bytes}) | {} | {} | {:.2}× | {slower} ({:.1}%) |",
            docs.len(),
            cells.join(" | "),
            TIMED[best].name(),
            totals[best] / totals[0],
            100.0 * slower as f64 / docs.len() as f64,
        ));
        if worst > 0 {
            let mut order: Vec<usize> = (0..docs.len()).collect();
            order.sort_by(|&a, &b| {
                let r = |i: usize| fastest_peer(&mins[i]) / mins[i][0];
                r(a).total_cmp(&r(b))
            });
            eprintln!("worst documents in {name} (fastest peer ÷ bidscan):");
            for &i in order.iter().take(worst) {
                eprintln!(
                    "  {:.2}×  {} ({} B): bidscan {} peer {}",
                    fastest_peer(&mins[i]) / mins[i][0],
                    docs[i].0,
                    docs[i].1.len(),
                    fmt(mins[i][0]),
                    fmt(fastest_peer(&mins[i]))
                );
            }
        }
    }
    for line in table {
        println!("{line}");
    }
    println!(
        "\nCells: sum over the documents of each one's minimum decode time alone, {rounds} rounds; \
         `bidscan` = bidscan_openrtb::decode (model, issues, validation), the others decode the peers' model."
    );
}

/// Per document, per decoder in [`TIMED`] order: the minimum time of one decode, in nanoseconds.
fn measure(decoders: &mut Decoders, docs: &[(String, Vec<u8>)], rounds: usize) -> Vec<Vec<f64>> {
    let reps: Vec<Vec<usize>> = docs
        .iter()
        .map(|(_, doc)| {
            TIMED
                .iter()
                .map(|&d| {
                    black_box(decoders.run(d, doc));
                    let t = Instant::now();
                    for _ in 0..4 {
                        black_box(decoders.run(d, black_box(doc)));
                    }
                    let ns = t.elapsed().as_nanos() as f64 / 4.0;
                    ((BATCH_NS / ns.max(1.0)) as usize).clamp(1, 10_000)
                })
                .collect()
        })
        .collect();
    let mut mins = vec![vec![f64::INFINITY; TIMED.len()]; docs.len()];
    for _ in 0..rounds {
        for (i, (_, doc)) in docs.iter().enumerate() {
            for (k, &d) in TIMED.iter().enumerate() {
                black_box(decoders.run(d, doc));
                black_box(decoders.run(d, doc));
                let n = reps[i][k];
                let t = Instant::now();
                for _ in 0..n {
                    black_box(decoders.run(d, black_box(doc)));
                }
                let ns = t.elapsed().as_nanos() as f64 / n as f64;
                mins[i][k] = mins[i][k].min(ns);
            }
        }
    }
    mins
}

fn fmt(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.1} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}
