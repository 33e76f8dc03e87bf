//! Each document's decode time alone (the same document decoded over and over, so branch predictors and caches
//! have learned it) against its time inside a pass over the whole corpus (the documents one after another, as
//! a server sees them). The difference is what a family-by-family bench cannot show: mispredicted branches and
//! cold caches when the document changes.
//!
//! `in_context [DECODER] [ROUNDS] [CORPUS]` (default `bidscan`, 200 rounds, the synthetic `corpus`; CORPUS may
//! be any family, `real` or `real_compact`): per document, the minimum over the rounds of one decode timed alone
//! (after 3 untimed decodes of it) and inside a corpus pass; markdown on stdout (per document for up to 40
//! documents, then the totals).
#![forbid(unsafe_code)]

use std::hint::black_box;
use std::time::Instant;

use bidscan_bench::decoders::{Decoder, Decoders};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args.first().map_or("bidscan", String::as_str);
    let Some(decoder) = Decoder::from_name(name) else {
        eprintln!("unknown decoder {name}");
        std::process::exit(2);
    };
    let rounds: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(200);
    let which = args.get(2).map_or("corpus", String::as_str);
    let Some(corpus) = bidscan_bench::family_docs(which) else {
        eprintln!("unknown corpus {which}");
        std::process::exit(2);
    };
    let mut decoders = Decoders::default();
    let mut alone = vec![f64::MAX; corpus.len()];
    let mut in_pass = vec![f64::MAX; corpus.len()];
    let time = |decoders: &mut Decoders, doc: &[u8]| {
        let t = Instant::now();
        black_box(decoders.run(decoder, black_box(doc)));
        t.elapsed().as_nanos() as f64
    };
    for _ in 0..rounds {
        for (i, (_, doc)) in corpus.iter().enumerate() {
            for _ in 0..3 {
                black_box(decoders.run(decoder, doc));
            }
            alone[i] = alone[i].min(time(&mut decoders, doc));
        }
        for (i, (_, doc)) in corpus.iter().enumerate() {
            in_pass[i] = in_pass[i].min(time(&mut decoders, doc));
        }
    }
    println!("| document ({name}) | alone ns | in a corpus pass ns | ratio |");
    println!("|---|---:|---:|---:|");
    for (i, (doc, _)) in corpus.iter().enumerate().filter(|_| corpus.len() <= 40) {
        println!(
            "| {doc} | {:.0} | {:.0} | {:.2} |",
            alone[i],
            in_pass[i],
            in_pass[i] / alone[i]
        );
    }
    let (a, p): (f64, f64) = (alone.iter().sum(), in_pass.iter().sum());
    println!("| **sum** | {a:.0} | {p:.0} | {:.2} |", p / a);
}
