//! What `/validate` costs against `/decode` of the same response, at the library level.
//!
//! `validate_cost time [ROUNDS]` (default 200): for every real pair of `corpus/validate-pairs/`, interleaved,
//! the minimum over the rounds of one `bidscan_openrtb::decode` of the response and of one `Validated::decode`
//! (`decode_pair` and the rules) of the envelope; prints the sums and the ratio, and the spread of per-pair ratios.
//!
//! `validate_cost decode|validate|validate-inspected|pair [PASSES]` (default 10): that work over every pair PASSES
//! times, for callgrind (instructions per pass = (Ir at PASSES=5 − Ir at PASSES=1) / 4). `decode` is
//! `bidscan_openrtb::decode` of the response; `validate` is `Validated::decode` of the envelope (no markup
//! inspection); `validate-inspected` is `Validated::decode_inspected` with a reused `Inspector` (every bid's markup
//! inspected, as the server's `/validate` does by default); `pair` is `decode_pair` alone, the envelope read
//! without the rules:
//! `BIDSCAN_SCAN=avx2 valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.%p \
//!     target/release/validate_cost validate-inspected 5`
//!
//! `validate_cost auction|auction-validate [PASSES]`: the benchmark auction of 5 bidders (`bidscan_bench::auction`)
//! PASSES times: `auction` is `Auction::decode_request` then `Auction::add` for each bidder (markup inspected);
//! `auction-validate` is one `Validated::decode_inspected` per bidder, of the envelope of the request and its
//! response: what five `/validate` calls cost. `BIDSCAN_AUCTION_PAIR=FILE` opens the auction with another pair.
#![forbid(unsafe_code)]

use std::hint::black_box;
use std::time::Instant;

use bidscan_bench::pairs::{Work, pairs};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let what = args.first().map_or("time", String::as_str);
    let n: usize = args
        .get(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(match what {
            "time" => 200,
            _ => 10,
        });
    let pairs = pairs();
    let mut work = Work::default();
    match what {
        "decode" | "validate" | "validate-inspected" | "pair" => {
            for _ in 0..n {
                for p in &pairs {
                    match what {
                        "decode" => black_box(work.decode(black_box(&p.response))),
                        "pair" => black_box(work.read_pair(black_box(&p.envelope))),
                        "validate-inspected" => {
                            black_box(work.validate_inspected(black_box(&p.envelope)))
                        }
                        _ => black_box(work.validate(black_box(&p.envelope))),
                    };
                }
            }
        }
        "auction" | "auction-validate" => {
            let primary = std::env::var("BIDSCAN_AUCTION_PAIR")
                .unwrap_or_else(|_| bidscan_bench::auction::PRIMARY.to_owned());
            let auction = bidscan_bench::auction::bench_auction(&pairs, &primary, 5);
            for _ in 0..n {
                if what == "auction" {
                    black_box(work.auction(black_box(&auction)));
                } else {
                    for envelope in &auction.envelopes {
                        black_box(work.validate_inspected(black_box(envelope)));
                    }
                }
            }
        }
        "time" => time(&pairs, &mut work, n),
        _ => {
            eprintln!(
                "usage: validate_cost time|decode|validate|validate-inspected|pair|auction|auction-validate [N]"
            );
            std::process::exit(2);
        }
    }
}

fn time(pairs: &[bidscan_bench::pairs::Pair], work: &mut Work, rounds: usize) {
    let mut decode = vec![f64::MAX; pairs.len()];
    let mut validate = vec![f64::MAX; pairs.len()];
    for _ in 0..rounds {
        for (i, p) in pairs.iter().enumerate() {
            let t = Instant::now();
            black_box(work.decode(black_box(&p.response)));
            decode[i] = decode[i].min(t.elapsed().as_nanos() as f64);
            let t = Instant::now();
            black_box(work.validate(black_box(&p.envelope)));
            validate[i] = validate[i].min(t.elapsed().as_nanos() as f64);
        }
    }
    let (d, v): (f64, f64) = (decode.iter().sum(), validate.iter().sum());
    let mut ratios: Vec<f64> = validate.iter().zip(&decode).map(|(v, d)| v / d).collect();
    ratios.sort_by(f64::total_cmp);
    let at = |q: f64| ratios[((ratios.len() - 1) as f64 * q) as usize];
    let bytes = |f: fn(&bidscan_bench::pairs::Pair) -> usize| pairs.iter().map(f).sum::<usize>();
    println!(
        "| {} pairs, min of {rounds} interleaved rounds | decode (response) | validate (envelope) | ratio |",
        pairs.len()
    );
    println!("|---|---:|---:|---:|");
    println!(
        "| bytes | {} | {} | {:.2} |",
        bytes(|p| p.response.len()),
        bytes(|p| p.envelope.len()),
        bytes(|p| p.envelope.len()) as f64 / bytes(|p| p.response.len()) as f64
    );
    println!(
        "| sum of per-pair minimum µs | {:.1} | {:.1} | **{:.3}** |",
        d / 1e3,
        v / 1e3,
        v / d
    );
    println!(
        "\nPer-pair ratio: min {:.2}, p25 {:.2}, median {:.2}, p75 {:.2}, p90 {:.2}, max {:.2}",
        at(0.0),
        at(0.25),
        at(0.5),
        at(0.75),
        at(0.9),
        at(1.0)
    );
}
