//! IAB Tech Lab's VAST samples (corpus/vast-samples, VAST 1.0/2.0–4.2): each read as EXPECTED.tsv says (made by
//! Python's ElementTree, see expected.py), then truncated and corrupted, which must be reported as malformed
//! with the right place.

use std::path::PathBuf;

use bidscan_markup::Location;
use bidscan_markup::vast::{self, VastInfo, Warning};

struct Sample {
    file: String,
    text: String,
    version: Option<String>,
    ads: usize,
    wrapper: bool,
    duration: Option<f64>,
    media_files: usize,
    impressions: usize,
    error_urls: usize,
    wrapper_uri: Option<String>,
}

fn samples() -> Vec<Sample> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus/vast-samples");
    let table = std::fs::read_to_string(dir.join("EXPECTED.tsv")).expect("EXPECTED.tsv");
    let opt = |s: &str| (s != "-").then(|| s.to_owned());
    let samples: Vec<Sample> = table
        .lines()
        .map(|line| {
            let c: Vec<&str> = line.split('\t').collect();
            assert_eq!(c.len(), 9, "{line}");
            Sample {
                file: c[0].to_owned(),
                text: std::fs::read_to_string(dir.join(c[0])).expect(c[0]),
                version: opt(c[1]),
                ads: c[2].parse().unwrap(),
                wrapper: c[3] == "true",
                duration: opt(c[4]).map(|d| d.parse().unwrap()),
                media_files: c[5].parse().unwrap(),
                impressions: c[6].parse().unwrap(),
                error_urls: c[7].parse().unwrap(),
                wrapper_uri: opt(c[8]),
            }
        })
        .collect();
    assert_eq!(samples.len(), 75, "every sample of the corpus is listed");
    samples
}

#[test]
fn every_sample_reads_as_the_oracle_says() {
    for s in samples() {
        let info = vast::inspect(&s.text);
        let f = &s.file;
        assert!(info.well_formed, "{f}: {:?}", info.error);
        assert_eq!(info.error, None, "{f}");
        assert_eq!(info.version.map(str::to_owned), s.version, "{f} version");
        assert_eq!(info.ads, s.ads, "{f} ads");
        assert_eq!(info.wrapper, s.wrapper, "{f} wrapper");
        assert_eq!(info.duration_secs, s.duration, "{f} duration");
        assert_eq!(info.media_files, s.media_files, "{f} media files");
        assert_eq!(info.impressions, s.impressions, "{f} impressions");
        assert_eq!(info.error_urls, s.error_urls, "{f} error urls");
        assert_eq!(
            info.wrapper_uri.as_deref(),
            s.wrapper_uri.as_deref(),
            "{f} wrapper uri"
        );
        // VAST 1.0 documents (no version, root VideoAdServingTemplate) are flagged; the rest are not.
        let v1 = s.version.is_none();
        assert_eq!(
            info.warnings.first(Warning::BadVersion).is_some(),
            v1,
            "{f}"
        );
        if s.wrapper {
            assert_eq!(info.warnings.first(Warning::WrapperWithoutUri), None, "{f}");
        }
    }
}

#[test]
fn the_versions_2_0_to_4_2_are_all_there() {
    let samples = samples();
    for version in ["2.0", "3.0", "4.0", "4.1", "4.2"] {
        let n = samples
            .iter()
            .filter(|s| s.version.as_deref() == Some(version))
            .count();
        assert!(n >= 6, "{version}: {n} samples");
        let wrappers = samples
            .iter()
            .filter(|s| s.version.as_deref() == Some(version) && s.wrapper)
            .count();
        assert!(wrappers >= 1, "{version}: no wrapper sample");
    }
}

/// The byte just after the root's end tag: truncating anywhere before it must be an error.
fn root_end(text: &str) -> usize {
    text.trim_end().len()
}

fn assert_malformed(info: &VastInfo<'_>, text: &str, what: &str) {
    assert!(!info.well_formed, "{what}: read as well-formed");
    let error = info
        .error
        .as_ref()
        .unwrap_or_else(|| panic!("{what}: no error"));
    assert!(error.at.byte <= text.len(), "{what}: {error:?}");
    assert_eq!(
        error.at,
        Location::of(text, error.at.byte),
        "{what}: line/column"
    );
    assert!(!error.message.is_empty(), "{what}");
}

#[test]
fn every_truncation_is_malformed() {
    for s in samples() {
        let end = root_end(&s.text);
        let mut cuts: Vec<usize> = (1..16).map(|k| end * k / 16).collect();
        cuts.extend([0, end - 1]);
        for cut in cuts {
            let cut = (0..=cut)
                .rev()
                .find(|&c| s.text.is_char_boundary(c))
                .unwrap();
            let text = &s.text[..cut];
            let info = vast::inspect(text);
            assert_malformed(&info, text, &format!("{} cut at {cut}", s.file));
            assert!(info.ads <= s.ads, "{}", s.file);
        }
    }
}

/// `text` with the first occurrence of `from` (searched after `after`) replaced by `to`, and the byte where it was.
fn corrupt(text: &str, after: &str, from: &str, to: &str) -> Option<(String, usize)> {
    let start = text.find(after)?;
    let at = start + text[start..].find(from)?;
    Some((
        format!("{}{to}{}", &text[..at], &text[at + from.len()..]),
        at,
    ))
}

#[test]
fn every_corruption_is_malformed_at_its_place() {
    for s in samples() {
        let f = &s.file;
        let root = if s.version.is_some() {
            "VAST"
        } else {
            "VideoAdServingTemplate"
        };
        // A mismatched end tag: reported on the line of the end tag.
        let (text, at) = corrupt(&s.text, "<Ad", "</Ad>", "</Ax>").expect(f);
        let info = vast::inspect(&text);
        assert_malformed(&info, &text, &format!("{f} mismatched"));
        let error = info.error.unwrap();
        assert_eq!(
            error.at.line,
            Location::of(&text, at).line,
            "{f}: {}",
            error.message
        );
        // An unknown entity inside the first Ad.
        let (text, _) = corrupt(&s.text, "<Ad", ">", ">&nbsp;").expect(f);
        assert_malformed(&vast::inspect(&text), &text, &format!("{f} entity"));
        // A bare ampersand.
        let (text, _) = corrupt(&s.text, "<Ad", ">", "> & ").expect(f);
        assert_malformed(&vast::inspect(&text), &text, &format!("{f} bare &"));
        // '<' inside an attribute value.
        let (text, _) = corrupt(&s.text, "<Ad", "<Ad", "<Ad x=\"<\"").expect(f);
        assert_malformed(&vast::inspect(&text), &text, &format!("{f} < in attribute"));
        // A second root, and text after the root.
        for tail in [format!("<{root}/>"), "junk".to_owned()] {
            let text = format!("{}{tail}", s.text);
            let info = vast::inspect(&text);
            assert_malformed(&info, &text, &format!("{f} + {tail}"));
            assert_eq!(info.error.unwrap().at.byte, s.text.len(), "{f} + {tail}");
        }
        // An unclosed element: the root's end tag removed.
        let close = format!("</{root}>");
        let cut = s.text.rfind(&close).expect(f);
        let text = format!("{}{}", &s.text[..cut], &s.text[cut + close.len()..]);
        assert_malformed(&vast::inspect(&text), &text, &format!("{f} unclosed"));
    }
}
