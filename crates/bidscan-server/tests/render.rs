//! The hand-written answer renderers against serde_json's rendering of the same answer, byte for byte:
//! `/decode`'s (`bidscan_server::render::write`) on every document of both corpora (synthetic and real, as
//! fetched and compacted), in both views and both modes; `/validate/auction`'s (`render::write_auction`) on an
//! auction per real validate pair, with bidders that bid on other imps, failed, timed out or sent escapes.

use std::path::Path;

use bidscan_json::Reader;
use bidscan_openrtb::rules::Policy;
use bidscan_openrtb::{Auction, Inspector, Mode, Reply, decode};
use bidscan_server::render::{Envelope, write, write_auction};
use serde_json::Value;

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

/// Each real validate pair's request and response.
fn validate_pairs() -> Vec<(String, Vec<u8>, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/validate-pairs");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let v: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let part = |key: &str| serde_json::to_vec(&v[key]).unwrap();
            (name, part("request"), part("response"))
        })
        .collect()
}

#[test]
fn the_auction_answer_is_what_serde_json_writes_for_every_real_pair() {
    let pairs = validate_pairs();
    assert!(pairs.len() >= 200, "{} validate pairs", pairs.len());
    let mut reader = Reader::default();
    let mut inspector = Inspector::new();
    let keep_markup = Policy {
        nonbid_markup: true,
        ..Policy::default()
    };
    let (mut checked, mut rejected) = (0, 0);
    for (at, (name, request, response)) in pairs.iter().enumerate() {
        // The next pair's response bids on imps of another request: rejected bids, each under `ext.prebid.bid`.
        let other = &pairs[(at + 1) % pairs.len()].2;
        for (mode, policy) in [
            (Mode::Lenient, &Policy::default()),
            (Mode::Strict, &keep_markup),
        ] {
            let mut request = request.clone();
            let Ok(mut auction) = Auction::decode_request(&mut reader, &mut request) else {
                continue;
            };
            let mut bodies = [
                response.clone(),
                other.clone(),
                b"{\"id\":".to_vec(),
                b"<html>\"bad\"\\gateway</html>".to_vec(),
                Vec::new(),
            ];
            let [own, next, cut, html, empty] = &mut bodies;
            let replies = [
                ("acme", Reply::Body(own)),
                ("esc\"aped\\ \u{1}\u{7f} é", Reply::Body(next)),
                ("cut", Reply::Body(cut)),
                ("html", Reply::Body(html)),
                ("empty", Reply::Body(empty)),
                ("slow", Reply::Timeout),
                ("gone", Reply::Unreachable),
                ("down", Reply::HttpStatus(503)),
                ("nocontent", Reply::HttpStatus(204)),
                (
                    "huge",
                    Reply::Unreadable {
                        code: "body_too_large",
                        message: "the part is \"over\" 8\t192\n bytes \\ \u{0}".into(),
                    },
                ),
            ];
            for (bidder, reply) in replies {
                auction.add(
                    &mut reader,
                    bidder,
                    reply,
                    mode,
                    Some(&mut inspector),
                    policy,
                );
            }
            for full in [true, false] {
                let mut ours = Vec::new();
                write_auction(&mut ours, &auction, full).unwrap();
                let reference = serde_json::to_vec(&auction.answer(full)).unwrap();
                assert!(
                    ours == reference,
                    "{name} ({mode:?}, full {full}):\n ours {}\n serde {}",
                    String::from_utf8_lossy(&ours),
                    String::from_utf8_lossy(&reference)
                );
                checked += 1;
                let ext = b"\"ext\":{\"prebid\":{\"bid\":";
                rejected += usize::from(ours.windows(ext.len()).any(|w| w == ext));
            }
        }
    }
    assert!(checked >= 4 * 200, "only {checked} auctions compared");
    assert!(
        rejected >= 200,
        "only {rejected} answers with a rejected bid"
    );
}
