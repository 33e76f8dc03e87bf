//! Interleaved timing for a noisy, shared machine: every decoder is timed in short alternating slices (one slice
//! = enough passes over a family to take ~`SLICE_US`), round after round, so a burst of load from other processes
//! hits all decoders alike instead of whichever criterion happened to be measuring. Reports, per family and
//! decoder, the minimum and the median time per pass over the family's documents, and bidscan's ratio to the
//! fastest peer on both. Same decoders and same `Decoders::run` as the criterion bench; values are checked first.
//!
//! `interleaved [ROUNDS] [FAMILY...]` (default 60 rounds, every family, `corpus`, then the real bodies as fetched,
//! `real`, and compacted, `real_compact`: those of [`bidscan_bench::real`]), markdown on stdout.
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
    let real = bidscan_bench::real(bidscan_bench::Real::Fetched);
    let real_compact = bidscan_bench::real(bidscan_bench::Real::Compact);
    let mut sets: Vec<(&str, Vec<&[u8]>)> = bidscan_bench::families::families(&names)
        .into_iter()
        .map(|f| {
            (
                f.name,
                f.docs.iter().map(|&i| corpus[i].1.as_slice()).collect(),
            )
        })
        .collect();
    for (name, docs) in [("real", &real), ("real_compact", &real_compact)] {
        sets.push((name, docs.iter().map(|(_, d)| d.as_slice()).collect()));
    }
    let mut decoders = Decoders::default();
    let peers = Decoder::PEERS;
    let cols: Vec<&str> = Decoder::ALL.iter().map(|d| d.name()).collect();
    println!(
        "| family (bytes) | {} | fastest peer (min) | bidscan vs it: min | median |",
        cols.join(" | ")
    );
    println!("|---|{}---|---:|---:|", "---:|".repeat(cols.len()));
    for (family, docs) in sets {
        if !wanted.is_empty() && !wanted.contains(&family) {
            continue;
        }
        let bytes: usize = docs.iter().map(|d| d.len()).sum();
        let pass = |decoders: &mut Decoders, d: Decoder| {
            docs.iter()
                .map(|doc| decoders.run(d, black_box(doc)))
                .sum::<usize>()
        };
        // Passes per slice, from a short calibration of each decoder.
        let reps: Vec<usize> = Decoder::ALL
            .iter()
            .map(|&d| {
                pass(&mut decoders, d);
                let t = Instant::now();
                pass(&mut decoders, d);
                let us = t.elapsed().as_secs_f64() * 1e6;
                ((SLICE_US / us.max(0.01)) as usize).clamp(1, 100_000)
            })
            .collect();
        let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(rounds); Decoder::ALL.len()];
        for _ in 0..rounds {
            for (k, &d) in Decoder::ALL.iter().enumerate() {
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
        let idx = |d: Decoder| Decoder::ALL.iter().position(|&x| x == d).unwrap_or(0);
        let best = peers
            .iter()
            .copied()
            .min_by(|a, b| stats[idx(*a)].0.total_cmp(&stats[idx(*b)].0))
            .unwrap_or(Decoder::SerdeJson);
        let best_med = peers
            .iter()
            .map(|&p| stats[idx(p)].1)
            .fold(f64::INFINITY, f64::min);
        let ours = stats[idx(Decoder::Bidscan)];
        let cells: Vec<String> = stats
            .iter()
            .map(|&(min, med)| format!("{} / {}", fmt(min), fmt(med)))
            .collect();
        println!(
            "| {} ({bytes}) | {} | {} | {:.2}× | {:.2}× |",
            family,
            cells.join(" | "),
            best.name(),
            stats[idx(best)].0 / ours.0,
            best_med / ours.1,
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
