//! Every bid response in corpus/bid-responses decodes to the value serde_json gives (through every scanner
//! implementation, and the skip and raw paths accept it too), and a typed model borrows every string.

use crate::common;

use std::borrow::Cow;

use bidscan_json::{RawJson, ReaderConfig};
use serde::Deserialize;

fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpus/bid-responses");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("corpus/bid-responses")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            (
                p.file_stem().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

#[test]
fn every_bid_response_decodes_to_serde_json_s_value() {
    let files = corpus();
    assert_eq!(files.len(), 24);
    for (name, bytes) in &files {
        let ours = common::decode_value(bytes, &ReaderConfig::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let theirs: serde_json::Value = serde_json::from_slice(bytes).unwrap();
        assert_eq!(ours, theirs, "{name}");
    }
}

/// Every body of `corpus/SUB` (the real fixtures as fetched, or their compact twin).
fn real(sub: &str) -> Vec<(String, Vec<u8>)> {
    let dir = format!("{}/../../corpus/{sub}", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

#[test]
fn every_real_body_decodes_to_serde_json_s_value_or_both_reject_it() {
    for sub in ["real-fixtures", "real-fixtures-compact"] {
        let files = real(sub);
        assert_eq!(files.len(), 1155, "{sub}");
        let mut rejected = 0;
        for (name, bytes) in &files {
            // Every scanner body, and the value, skip and raw paths (`common::decode_value`).
            let ours = common::decode_value(bytes, &ReaderConfig::default());
            let theirs = serde_json::from_slice::<serde_json::Value>(bytes);
            match (ours, theirs) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{sub}/{name}"),
                (Err(_), Err(_)) => rejected += 1,
                (a, b) => panic!("{sub}/{name}: ours {a:?}, serde_json {b:?}"),
            }
        }
        // The fixtures' authors left 17 bodies that are not JSON on purpose (corpus/real-fixtures/README.md).
        assert_eq!(rejected, 17, "{sub}");
    }
}

#[derive(Deserialize)]
struct Response<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(default, borrow)]
    seatbid: Vec<SeatBid<'a>>,
    #[serde(borrow)]
    ext: Option<RawJson<'a>>,
}

#[derive(Deserialize)]
struct SeatBid<'a> {
    #[serde(borrow)]
    bid: Vec<Bid<'a>>,
}

#[derive(Deserialize)]
struct Bid<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    price: f64,
    /// `Option<Cow<str>>` would not borrow (serde derive borrows only a bare `Cow<str>` field): wrap it.
    #[serde(borrow)]
    adm: Option<CowStr<'a>>,
}

#[derive(Deserialize)]
struct CowStr<'a>(#[serde(borrow)] Cow<'a, str>);

#[test]
fn typed_decode_borrows_every_string_and_counts_escapes() {
    // Through every scanner kernel the CPU has: the stats are the kernels' to count.
    for (kernel, mut reader) in common::readers(&ReaderConfig::default())
        .into_iter()
        .enumerate()
    {
        for (name, bytes) in corpus() {
            let name = format!("{name} (kernel {kernel})");
            let theirs: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
            let mut buf = bytes.clone();
            let response: Response = reader
                .decode(&mut buf)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(matches!(response.id, Cow::Borrowed(_)), "{name}");
            assert_eq!(response.id, theirs["id"].as_str().unwrap());
            for (s, seat) in response.seatbid.iter().enumerate() {
                for (b, bid) in seat.bid.iter().enumerate() {
                    let want = &theirs["seatbid"][s]["bid"][b];
                    assert_eq!(bid.price, want["price"].as_f64().unwrap(), "{name}");
                    assert_eq!(bid.id, want["id"].as_str().unwrap());
                    if let Some(CowStr(adm)) = &bid.adm {
                        assert!(matches!(adm, Cow::Borrowed(_)), "{name}: adm not borrowed");
                        assert_eq!(adm, want["adm"].as_str().unwrap(), "{name}");
                    }
                }
            }
            if let Some(ext) = response.ext {
                let raw: serde_json::Value = serde_json::from_str(ext.get()).unwrap();
                assert_eq!(raw, theirs["ext"], "{name}");
            }
            let stats = reader.stats();
            assert_eq!(stats.bytes, bytes.len());
            assert_eq!(stats.buffer_bytes_needed, bytes.len());
            // Every backslash in the corpus starts an escape, except those inside escapes (`\\`).
            let text = String::from_utf8(bytes).unwrap();
            let escapes = text.matches('\\').count() - 2 * text.matches(r"\\").count();
            assert_eq!(stats.escapes as usize, escapes, "{name}");
            assert!(stats.strings >= 1 && stats.escaped_strings <= stats.strings);
        }
    }
}
