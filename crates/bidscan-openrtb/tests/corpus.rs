//! The whole corpus (`corpus/bid-responses`): decodes with bidscan-json with every string borrowed, decodes with
//! serde_json to equal values, and round-trips through the canonical output. The real bodies
//! (`corpus/real-fixtures`, as fetched and compacted) keep the status recorded for each in `STATUS.tsv` there
//! (written by `BIDSCAN_BLESS=1 cargo test -p bidscan-openrtb --test corpus`, and reviewed).

use crate::common;

use std::borrow::Cow;
use std::path::PathBuf;

use bidscan_openrtb::{Adm, BidResponse, Decoded, Mode, Status};

fn corpus() -> Vec<(String, String)> {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../corpus/bid-responses"
    ));
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    files.sort();
    assert_eq!(files.len(), 24, "the corpus has 24 documents");
    files
}

fn decode_ours(json: &str) -> Decoded<'static> {
    bidscan_openrtb::decode(&mut common::reader(), common::leak(json), Mode::Strict)
        .unwrap_or_else(|e| panic!("strict decode failed: {e}"))
}

/// Every string of the response, with where it is.
fn strings<'r>(r: &'r BidResponse<'r>) -> Vec<(String, &'r Cow<'r, str>)> {
    let mut out = Vec::new();
    let mut add = |name: String, v: Option<&'r Cow<'r, str>>| {
        if let Some(v) = v {
            out.push((name, v));
        }
    };
    for (f, v) in [
        ("id", &r.id),
        ("bidid", &r.bidid),
        ("cur", &r.cur),
        ("customdata", &r.customdata),
    ] {
        add(f.to_owned(), v.as_ref());
    }
    for (si, s) in r.seatbid.iter().enumerate() {
        add(format!("seatbid/{si}/seat"), s.seat.as_ref());
        for (bi, b) in s.bid.iter().enumerate() {
            let p = format!("seatbid/{si}/bid/{bi}");
            let single = [
                ("id", &b.id),
                ("impid", &b.impid),
                ("nurl", &b.nurl),
                ("burl", &b.burl),
                ("lurl", &b.lurl),
                ("adid", &b.adid),
                ("bundle", &b.bundle),
                ("iurl", &b.iurl),
                ("cid", &b.cid),
                ("crid", &b.crid),
                ("tactic", &b.tactic),
                ("language", &b.language),
                ("langb", &b.langb),
                ("dealid", &b.dealid),
            ];
            for (f, v) in single {
                add(format!("{p}/{f}"), v.as_ref());
            }
            match &b.adm {
                Some(Adm::Markup(m)) => add(format!("{p}/adm"), Some(m)),
                Some(Adm::Object(o)) => o
                    .members
                    .iter()
                    .for_each(|(k, _)| add(format!("{p}/adm/{k}"), Some(k))),
                None => {}
            }
            b.adomain
                .iter()
                .enumerate()
                .for_each(|(i, v)| add(format!("{p}/adomain/{i}"), Some(v)));
            b.cat
                .iter()
                .enumerate()
                .for_each(|(i, v)| add(format!("{p}/cat/{i}"), Some(v)));
        }
    }
    out
}

#[test]
fn every_document_decodes_strictly_with_every_string_borrowed() {
    for (name, json) in corpus() {
        let d = decode_ours(&json);
        let expected = if name.starts_with("nobid") {
            Status::NoBid
        } else {
            Status::Bid
        };
        assert_eq!(d.status, expected, "{name}");
        let errors: Vec<_> = d
            .issues
            .iter()
            .filter(|i| i.severity == bidscan_openrtb::Severity::Error)
            .map(|i| (i.path.as_str(), i.code))
            .collect();
        // `nurl_only` serves its markup on the win notice and has no creative id: an error, as exchanges
        // require one (Prebid Server's `exchange/bidder_validate_bids.go`).
        let expected_errors = if name == "nurl_only.json" {
            vec![("/seatbid/0/bid/0/crid", "missing_crid")]
        } else {
            vec![]
        };
        assert_eq!(errors, expected_errors, "{name}");
        let strings = strings(&d.response);
        if expected == Status::Bid {
            assert!(strings.len() > 3, "{name}");
        }
        for (path, s) in strings {
            assert!(matches!(s, Cow::Borrowed(_)), "{name}: {path} is owned");
        }
    }
}

#[test]
fn serde_json_decodes_to_equal_values() {
    for (name, json) in corpus() {
        let ours = decode_ours(&json);
        let theirs =
            common::via_serde(&json, Mode::Strict).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(ours, theirs, "{name}");
    }
}

#[test]
fn canonical_output_round_trips() {
    for (name, json) in corpus() {
        let first = decode_ours(&json);
        let canonical = serde_json::to_vec(&first.response).unwrap();
        let text = String::from_utf8(canonical).unwrap();
        let second = decode_ours(&text);
        assert_eq!(first, second, "{name}");
        // Canonical output is a fixed point.
        assert_eq!(
            serde_json::to_string(&second.response).unwrap(),
            text,
            "{name}"
        );
    }
}

#[test]
fn summary_sniffs_markup_kinds() {
    for (name, json) in corpus() {
        let d = decode_ours(&json);
        let s = d.summary();
        assert_eq!(s.bid_count, d.bid_count(), "{name}");
        for b in &s.bids {
            let kind = serde_json::to_value(b.adm.kind).unwrap();
            let expected = match &name[..] {
                n if n.starts_with("vast") => "vast",
                n if n.starts_with("native") => "native",
                n if n.starts_with("banner") => "html",
                "nurl_only.json" => "none",
                _ => continue,
            };
            assert_eq!(kind, expected, "{name} {}", b.path);
        }
    }
}

/// `bid`, `nobid`, or the error code of `decode` on `bytes` in `mode`.
fn status_of(bytes: &[u8], mode: Mode) -> &'static str {
    let mut input = bytes.to_vec();
    match bidscan_openrtb::decode(&mut common::reader(), &mut input, mode) {
        Ok(d) if d.status == Status::Bid => "bid",
        Ok(_) => "nobid",
        Err(e) => e.code(),
    }
}

#[test]
fn every_real_body_keeps_its_recorded_status() {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpus"));
    let mut names: Vec<String> = std::fs::read_dir(root.join("real-fixtures"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 1155);
    let mut table = String::from("file\tlenient\tstrict\n");
    for name in &names {
        let mut row = Vec::new();
        for dir in ["real-fixtures", "real-fixtures-compact"] {
            let bytes = std::fs::read(root.join(dir).join(name)).unwrap();
            row.push([
                status_of(&bytes, Mode::Lenient),
                status_of(&bytes, Mode::Strict),
            ]);
        }
        assert_eq!(row[0], row[1], "{name}: the compact twin decodes alike");
        table.push_str(&format!("{name}\t{}\t{}\n", row[0][0], row[0][1]));
    }
    let path = root.join("real-fixtures/STATUS.tsv");
    if std::env::var_os("BIDSCAN_BLESS").is_some() {
        std::fs::write(&path, &table).unwrap();
    }
    let recorded = std::fs::read_to_string(&path).unwrap();
    for (want, got) in recorded.lines().zip(table.lines()) {
        assert_eq!(want, got);
    }
    assert_eq!(recorded.lines().count(), table.lines().count());
}
