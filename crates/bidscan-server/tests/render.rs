//! The hand-written answer renderer (`bidscan_server::render::write`) against serde_json's rendering of the same
//! envelope, byte for byte, on every document of both corpora (synthetic and real, as fetched and compacted),
//! in both views and both modes.

use std::path::Path;

use bidscan_json::Reader;
use bidscan_openrtb::{Mode, decode};
use bidscan_server::render::{Envelope, write};

const CORPORA: [&str; 3] = [
    "../../corpus/bid-responses",
    "../../corpus/real-fixtures",
    "../../corpus/real-fixtures-compact",
];

#[test]
fn the_answer_is_what_serde_json_writes_for_every_corpus_document() {
    let mut reader = Reader::default();
    let mut checked = 0;
    for dir in CORPORA {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        assert!(
            files.len() >= 20,
            "{} holds {} documents",
            dir.display(),
            files.len()
        );
        for path in files {
            let original = std::fs::read(&path).unwrap();
            for mode in [Mode::Lenient, Mode::Strict] {
                let mut input = original.clone();
                let Ok(decoded) = decode(&mut reader, &mut input, mode) else {
                    continue;
                };
                for full in [true, false] {
                    let envelope = Envelope {
                        status: decoded.status,
                        response: full.then_some(&decoded.response),
                        summary: decoded.summary(),
                        issues: &decoded.issues,
                        stats: reader.stats(),
                    };
                    let mut ours = Vec::new();
                    write(&mut ours, &envelope).unwrap();
                    let reference = serde_json::to_vec(&envelope).unwrap();
                    assert!(
                        ours == reference,
                        "{} ({mode:?}, full {full}):\n ours {}\n serde {}",
                        path.display(),
                        String::from_utf8_lossy(&ours),
                        String::from_utf8_lossy(&reference)
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 4000, "only {checked} answers compared");
}
