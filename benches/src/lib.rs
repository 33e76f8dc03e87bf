//! bidscan-bench: shared pieces of the benches — the bid-response corpus loader, the corpus families, the
//! decoders under comparison ([`decoders`]: bidscan, serde_json, sonic-rs, simd-json, jiter, memcpy), the peers'
//! copy of the OpenRTB model ([`mirror`]), the check that every decoder yields the same values ([`verify`]),
//! and the small reduced model of the reader-only bench ([`model`]).
//!
//! Criterion benches live in `benches/benches/` (`peers`, `reader_vs_serde_json`); the allocation report, the
//! callgrind loop and the HTTP baseline server in `src/bin/`; the HTTP load script in `http/`. Figures and the
//! commands that made them: `BENCHMARKS.md` at the repository root.
//!
//! Not a library for anything but benches: it panics on a missing or undecodable corpus.
#![forbid(unsafe_code)]

pub mod auction;
pub mod decoders;
pub mod families;
pub mod mirror;
pub mod model;
pub mod pairs;
pub mod verify;

use std::path::PathBuf;

/// The bid-response corpus (`corpus/bid-responses/*.json`) as (file stem, bytes), sorted by name.
///
/// Panics if the corpus directory is missing: benches cannot run without it.
pub fn corpus() -> Vec<(String, Vec<u8>)> {
    load_dir("bid-responses")
}

/// Which copy of the real bodies (`corpus/real-fixtures/`, prebid-server's adapter fixtures) to load.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Real {
    /// As fetched: 97% pretty-printed (`corpus/real-fixtures/`).
    Fetched,
    /// The compact twin (`corpus/real-fixtures-compact/`, whitespace outside strings removed).
    Compact,
}

impl Real {
    /// Family name in tables: `real` or `real_compact`.
    pub fn name(self) -> &'static str {
        match self {
            Real::Fetched => "real",
            Real::Compact => "real_compact",
        }
    }
}

/// Every real body of `which` (1,155, invalid ones included) as (file stem, bytes), sorted by name.
///
/// Panics if the directory is missing.
pub fn real_all(which: Real) -> Vec<(String, Vec<u8>)> {
    load_dir(match which {
        Real::Fetched => "real-fixtures",
        Real::Compact => "real-fixtures-compact",
    })
}

/// The real bodies of `which` that every decoder decodes to bidscan's values ([`verify::check_document`]:
/// bidscan in strict mode, the peers' strict derives): the ones a speed comparison can use. The others need a
/// lenient coercion (numbers as strings, ...), are not bid responses, or are not JSON.
pub fn real(which: Real) -> Vec<(String, Vec<u8>)> {
    real_all(which)
        .into_iter()
        .filter(|(name, doc)| verify::check_document(name, doc).is_empty())
        .collect()
}

/// The documents of the family or corpus called `name`: a synthetic family (`vast`, `nobid`, ..., `corpus`; see
/// [`families`]), `real` or `real_compact` (see [`real`]). `None` for an unknown name.
pub fn family_docs(name: &str) -> Option<Vec<(String, Vec<u8>)>> {
    match name {
        "real" => return Some(real(Real::Fetched)),
        "real_compact" => return Some(real(Real::Compact)),
        _ => {}
    }
    let corpus = corpus();
    let names: Vec<&str> = corpus.iter().map(|(n, _)| n.as_str()).collect();
    let family = families::families(&names)
        .into_iter()
        .find(|f| f.name == name)?;
    Some(family.docs.iter().map(|&i| corpus[i].clone()).collect())
}

fn load_dir(sub: &str) -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus")).join(sub);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter_map(|p| {
            let name = p.file_stem()?.to_string_lossy().into_owned();
            Some((name, std::fs::read(&p).ok()?))
        })
        .collect();
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_corpus_file_decodes_into_the_model_with_both_decoders_alike() {
        let files = corpus();
        assert_eq!(files.len(), 24);
        let mut reader = bidscan_json::Reader::default();
        for (name, bytes) in files {
            let theirs: model::BidResponse = serde_json::from_slice(&bytes).unwrap();
            let mut buf = bytes.clone();
            let ours: model::BidResponse = reader.decode(&mut buf).unwrap();
            assert_eq!(ours, theirs, "{name}");
            assert!(ours.borrows_every_string(), "{name}");
        }
    }

    #[test]
    fn every_decoder_yields_bidscans_values_on_every_corpus_file() {
        let files = corpus();
        verify::check_corpus(&files).unwrap();
    }

    #[test]
    fn a_changed_value_is_caught() {
        let doc =
            br#"{"id":"r","seatbid":[{"bid":[{"id":"b","impid":"1","price":1.5,"ext":{"a":1}}]}]}"#;
        assert!(verify::check_document("ok", doc).is_empty());
        let ours = verify::canonical(decoders::Decoder::Bidscan, doc)
            .unwrap()
            .unwrap()
            .0;
        let other = br#"{"id":"r","seatbid":[{"bid":[{"id":"b","impid":"1","price":1.25}]}]}"#;
        let theirs = verify::canonical(decoders::Decoder::Jiter, other)
            .unwrap()
            .unwrap()
            .0;
        assert_ne!(ours, theirs);
    }

    #[test]
    fn families_cover_the_corpus_once() {
        let files = corpus();
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        let fams = families::families(&names);
        let total: usize = fams
            .iter()
            .filter(|f| f.name != "corpus")
            .map(|f| f.docs.len())
            .sum();
        assert_eq!(total, 24);
        assert_eq!(fams.len(), 13);
        assert_eq!(fams.last().unwrap().docs.len(), 24);
    }

    #[test]
    fn most_real_bodies_are_comparable_and_both_copies_keep_the_same_ones() {
        let fetched = real(Real::Fetched);
        let compact = real(Real::Compact);
        assert_eq!(real_all(Real::Fetched).len(), 1155);
        assert!(fetched.len() > 900, "{}", fetched.len());
        let names = |v: &[(String, Vec<u8>)]| v.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        assert_eq!(names(&fetched), names(&compact));
    }

    #[test]
    fn every_decoder_runs_and_counts_bids() {
        let files = corpus();
        let mut d = decoders::Decoders::default();
        let multiseat = &files
            .iter()
            .find(|(n, _)| n == "multiseat_48bids")
            .unwrap()
            .1;
        for decoder in decoders::Decoder::ALL {
            let n = d.run(decoder, multiseat);
            let want = if decoder == decoders::Decoder::Memcpy {
                multiseat.len()
            } else {
                48
            };
            assert_eq!(n, want, "{decoder:?}");
        }
    }
}
