//! Where VAST inspection's time goes, without the decode around it: `bidscan_markup::vast::inspect`
//! over the corpus's VAST markup (every `adm` of `corpus/bid-responses/` that starts with `<VAST` or `<?xml`,
//! decoded by serde_json once at start-up) as sent and with every CDATA section emptied (the difference is what
//! scanning the sections' content costs; the rest is the work per construct), then per construct: one piece
//! repeated 5,000 times inside `<VAST version="4.2"><Ad><InLine>…</InLine></Ad></VAST>`. Short alternating
//! slices, round after round, min and median (as `inspect` and `interleaved`).
//!
//! `vast_cost [ROUNDS] [SET...]` (default 40 rounds, every set; `corpus`, `corpus_no_cdata`, or a piece's
//! name), markdown on stdout. Instructions per piece: callgrind at 1 and 2 rounds of one set, difference ÷
//! (20 passes × 5,000 pieces).
#![forbid(unsafe_code)]

use std::hint::black_box;
use std::time::Instant;

/// Pieces repeated per synthetic document.
const PIECES: usize = 5_000;
/// Passes per slice for a synthetic document (callgrind's arithmetic above depends on it).
const SYNTHETIC_PASSES: usize = 20;
const SLICE_US: f64 = 2_000.0;

/// (name, piece): the constructs of the corpus's VAST, simplest first.
const SYNTHETIC: &[(&str, &str)] = &[
    ("empty_tag", "<a/>"),
    ("start_end", "<a></a>"),
    ("attribute", "<Tracking event=\"start\"></Tracking>"),
    ("empty_cdata", "<![CDATA[]]>"),
    (
        "tracking",
        "<Tracking event=\"start\"><![CDATA[https://trk.example-adserver.com/vast/ev/c?crid=e6cf8d08af921ebae&\
         ts=7a6124068d650&gdpr=8b30791837&dev=7879d82b686b0fb870691&us_privacy=8f12978f&cb=04ed555c8b99e05b&\
         price=${AUCTION_PRICE}&err=[ERRORCODE]]]></Tracking>",
    ),
    (
        "long_tag",
        "<MediaFile delivery=\"progressive\" type=\"video/mp4\" width=\"1920\" height=\"1080\"></MediaFile>",
    ),
    ("comment", "<!---->"),
];

/// Every CDATA section of `markup` emptied (`<![CDATA[]]>`); an unclosed one left as it is.
fn without_cdata(markup: &str) -> String {
    let mut out = String::with_capacity(markup.len());
    let mut rest = markup;
    while let Some(open) = rest.find("<![CDATA[") {
        let Some(close) = rest[open..].find("]]>").map(|c| c + open) else {
            break;
        };
        out.push_str(&rest[..open + 9]);
        out.push_str("]]>");
        rest = &rest[close + 3..];
    }
    out.push_str(rest);
    out
}

/// The VAST `adm` strings of the corpus, in corpus order.
fn corpus_vast() -> Vec<String> {
    let mut out = Vec::new();
    for (_, doc) in bidscan_bench::corpus() {
        let Ok(value) = serde_json::from_slice::<serde_json::Value>(&doc) else {
            continue;
        };
        for seat in value["seatbid"].as_array().into_iter().flatten() {
            for bid in seat["bid"].as_array().into_iter().flatten() {
                if let Some(adm) = bid["adm"].as_str() {
                    let body = adm.trim_start();
                    if body.starts_with("<VAST") || body.starts_with("<?xml") {
                        out.push(adm.to_owned());
                    }
                }
            }
        }
    }
    out
}

/// One set of documents timed as a pass, with what a row reports per piece.
struct Set {
    name: &'static str,
    docs: Vec<String>,
    /// Pieces per pass (synthetic sets), or 0.
    pieces: usize,
    /// Passes per slice.
    reps: usize,
}

fn pass(docs: &[String]) -> usize {
    docs.iter()
        .map(|d| black_box(bidscan_markup::vast::inspect(black_box(d))).ads)
        .sum()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rounds: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(40);
    let wanted: Vec<&str> = args.iter().skip(1).map(String::as_str).collect();
    let vast = corpus_vast();
    let mut sets = vec![
        Set {
            name: "corpus",
            docs: vast.clone(),
            pieces: 0,
            reps: 0,
        },
        Set {
            name: "corpus_no_cdata",
            docs: vast.iter().map(|m| without_cdata(m)).collect(),
            pieces: 0,
            reps: 0,
        },
    ];
    for &(name, piece) in SYNTHETIC {
        let doc = format!(
            "<VAST version=\"4.2\"><Ad><InLine>{}</InLine></Ad></VAST>",
            piece.repeat(PIECES)
        );
        let info = bidscan_markup::vast::inspect(&doc);
        assert!(info.well_formed, "{name}: {:?}", info.error);
        sets.push(Set {
            name,
            docs: vec![doc],
            pieces: PIECES,
            reps: SYNTHETIC_PASSES,
        });
    }
    sets.retain(|s| wanted.is_empty() || wanted.contains(&s.name));
    for set in &mut sets {
        if set.reps == 0 {
            pass(&set.docs);
            let t = Instant::now();
            pass(&set.docs);
            let us = t.elapsed().as_secs_f64() * 1e6;
            set.reps = ((SLICE_US / us.max(0.01)) as usize).clamp(1, 100_000);
        }
    }
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(rounds); sets.len()];
    for _ in 0..rounds {
        for (k, set) in sets.iter().enumerate() {
            let t = Instant::now();
            for _ in 0..set.reps {
                black_box(pass(&set.docs));
            }
            samples[k].push(t.elapsed().as_secs_f64() * 1e9 / set.reps as f64);
        }
    }
    println!("| set | bytes | per pass: min | median | per piece: min |");
    println!("|---|---:|---:|---:|---:|");
    for (set, s) in sets.iter().zip(&mut samples) {
        s.sort_by(f64::total_cmp);
        let (min, median) = (s[0], s[s.len() / 2]);
        let bytes: usize = set.docs.iter().map(String::len).sum();
        let per_piece = if set.pieces > 0 {
            format!("{:.1} ns", min / set.pieces as f64)
        } else {
            String::from("–")
        };
        println!(
            "| {} | {bytes} | {:.1} µs | {:.1} µs | {per_piece} |",
            set.name,
            min / 1e3,
            median / 1e3
        );
    }
    println!("\n{rounds} interleaved rounds.");
}
