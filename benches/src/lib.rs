//! bidscan-bench: shared pieces of the criterion benches in `benches/` — the bid-response corpus loader and the
//! small typed model every decoder is measured on. The benches themselves live in `benches/benches/`; run them
//! with `cargo bench -p bidscan-bench`.
//!
//! Nothing here is timed and nothing here is used outside benches.
#![forbid(unsafe_code)]

pub mod model;

use std::path::PathBuf;

/// The bid-response corpus (`corpus/bid-responses/*.json`) as (file stem, bytes), sorted by name.
///
/// Panics if the corpus directory is missing: benches cannot run without it.
pub fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/bid-responses"));
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
}
