//! The cost of markup inspection, timed the `interleaved` way (short alternating slices, round after round, min and median):
//! per family, `bidscan` (decode alone), `bidscan+inspect` (`decode_inspected`: every bid's `adm` read by
//! bidscan-markup) and each peer's decode alone. Reports the cost of inspection (inspect ÷ decode)
//! and how much faster decode + inspection still is than the fastest peer's decode alone.
//!
//! `inspect [ROUNDS] [FAMILY...]` (default 60 rounds, every family and `corpus`), markdown on stdout.
#![forbid(unsafe_code)]

use std::hint::black_box;
use std::time::Instant;

use bidscan_bench::decoders::{Decoder, Decoders};

const SLICE_US: f64 = 2_000.0;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rounds: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(60);
    let wanted: Vec<&str> = args.iter().skip(1).map(String::as_str).collect();
    let corpus = bidscan_bench::corpus();
    if let Err(problems) = bidscan_bench::verify::check_corpus(&corpus) {
        eprintln!("decoders disagree with bidscan:\n{problems}");
        std::process::exit(1);
    }
    let names: Vec<&str> = corpus.iter().map(|(n, _)| n.as_str()).collect();
    let mut decoders = Decoders::default();
    let timed: Vec<Decoder> = [Decoder::Bidscan, Decoder::BidscanInspect]
        .into_iter()
        .chain(Decoder::PEERS)
        .collect();
    let cols: Vec<&str> = timed.iter().map(|d| d.name()).collect();
    println!(
        "| family (bytes) | {} | inspect ÷ decode: min | median | fastest peer (min) | peer ÷ (decode+inspect): min | median |",
        cols.join(" | ")
    );
    println!(
        "|---|{}---:|---:|---|---:|---:|",
        "---:|".repeat(cols.len())
    );
    for family in bidscan_bench::families::families(&names) {
        if !wanted.is_empty() && !wanted.contains(&family.name) {
            continue;
        }
        let docs: Vec<&[u8]> = family
            .docs
            .iter()
            .map(|&i| corpus[i].1.as_slice())
            .collect();
        let bytes: usize = docs.iter().map(|d| d.len()).sum();
        let pass = |decoders: &mut Decoders, d: Decoder| {
            docs.iter()
                .map(|doc| decoders.run(d, black_box(doc)))
                .sum::<usize>()
        };
        let reps: Vec<usize> = timed
            .iter()
            .map(|&d| {
                pass(&mut decoders, d);
                let t = Instant::now();
                pass(&mut decoders, d);
                let us = t.elapsed().as_secs_f64() * 1e6;
                ((SLICE_US / us.max(0.01)) as usize).clamp(1, 100_000)
            })
            .collect();
        let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(rounds); timed.len()];
        for _ in 0..rounds {
            for (k, &d) in timed.iter().enumerate() {
                let t = Instant::now();
                for _ in 0..reps[k] {
                    black_box(pass(&mut decoders, d));
                }
                samples[k].push(t.elapsed().as_secs_f64() * 1e9 / reps[k] as f64);
            }
        }
        let stats: Vec<(f64, f64)> = samples
            .iter_mut()
            .map(|s| {
                s.sort_by(f64::total_cmp);
                (s[0], s[s.len() / 2])
            })
            .collect();
        let (decode, inspect) = (stats[0], stats[1]);
        let peers = &stats[2..];
        let best = (0..peers.len())
            .min_by(|&a, &b| peers[a].0.total_cmp(&peers[b].0))
            .unwrap_or(0);
        let best_med = peers.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
        let cells: Vec<String> = stats
            .iter()
            .map(|&(min, med)| format!("{} / {}", fmt(min), fmt(med)))
            .collect();
        println!(
            "| {} ({bytes}) | {} | {:.2}× | {:.2}× | {} | {:.2}× | {:.2}× |",
            family.name,
            cells.join(" | "),
            inspect.0 / decode.0,
            inspect.1 / decode.1,
            Decoder::PEERS[best].name(),
            peers[best].0 / inspect.0,
            best_med / inspect.1,
        );
    }
    println!("\nCells: min / median time per pass over the family, {rounds} interleaved rounds.");
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
