//! Every issue code in the source is documented, and every documented code is in the source.
//!
//! The codes are `&'static str` literals spread over `checks/`, `decode/`, `rules/` and bidscan-markup's
//! `vast/`. Rather than a registry the hot paths would have to consult, this test reads the source: it gathers
//! every snake_case string literal (two words or more, outside comments and `#[cfg(test)]` modules) of
//! `crates/bidscan-openrtb/src` and `crates/bidscan-markup/src`, and each one must be one of
//! - an issue code `/decode` reports: a row of a table under `## Issue codes` in `docs/api.md`;
//! - an error code: a row of the table under `## Errors` in `docs/api.md`;
//! - a rule of `/validate` or one of its findings: the first and fourth columns of the table under
//!   `## The rules` in `docs/validation-rules.md`, or the finding named beside it (`response_id_mismatch`);
//! - a literal that is not a code, listed in [`NOT_CODES`] with what it is.
//!
//! So a new code literal anywhere in the two crates fails this test until it is documented (or listed as not a
//! code), and a documented issue code that no literal spells fails it too.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// snake_case literals of the two crates that are not codes, with what they are.
const NOT_CODES: &[(&str, &str)] = &[
    (
        "malformed_protobuf",
        "the code of `ProtobufError::Malformed` (decode/protobuf/mod.rs); a library error until a route answers \
         protobuf, then an error code of docs/api.md",
    ),
    (
        "duration_secs",
        "member of the `/decode` summary's markup entry (checks/markup.rs)",
    ),
    (
        "error_urls",
        "member of the `/decode` summary's markup entry (checks/markup.rs)",
    ),
    (
        "media_files",
        "member of the `/decode` summary's markup entry (checks/markup.rs)",
    ),
    (
        "well_formed",
        "member of the `/decode` summary's markup entry (checks/markup.rs)",
    ),
    (
        "wrapper_uri",
        "member of the `/decode` summary's markup entry (checks/markup.rs)",
    ),
    (
        "private_auction",
        "member of the bid request's `pmp` (model/request.rs)",
    ),
    (
        "snake_case",
        "word of a profile-parsing message (rules/table.rs)",
    ),
];

/// The workspace's root directory.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn is_code(s: &str) -> bool {
    s.contains('_')
        && !s.starts_with('_')
        && !s.ends_with('_')
        && !s.contains("__")
        && s.starts_with(|c: char| c.is_ascii_lowercase())
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// The snake_case literals of one source file: its test module (`#[cfg(test)] mod tests { … }` at the end, or
/// `mod tests;`) and its comment lines left out.
fn code_literals(source: &str) -> BTreeSet<String> {
    let code = source
        .split("#[cfg(test)]\nmod tests {")
        .next()
        .unwrap_or(source);
    let mut found = BTreeSet::new();
    for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
        for (i, piece) in line.split('"').enumerate() {
            if i % 2 == 1 && is_code(piece) {
                found.insert(piece.to_owned());
            }
        }
    }
    found
}

/// The literals of every source file of the two crates, each with the files it is in.
fn literals() -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for krate in ["bidscan-openrtb", "bidscan-markup"] {
        let src = root().join("crates").join(krate).join("src");
        for file in rust_files(&src) {
            let name = format!("{krate}/{}", file.strip_prefix(&src).unwrap().display());
            for literal in code_literals(&read(&file)) {
                out.entry(literal).or_default().insert(name.clone());
            }
        }
    }
    out
}

/// The cells of a Markdown table row, trimmed, without the outer empty cells.
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    inner.split(" | ").map(|c| c.trim().to_owned()).collect()
}

/// The body rows of every table in the section of `doc` under the heading `heading` (up to the next heading of
/// the same or a higher level), each as (column name, cell) pairs.
fn section_rows(doc: &str, heading: &str) -> Vec<BTreeMap<String, String>> {
    let level = heading.split(' ').next().unwrap().len();
    let mut rows = Vec::new();
    let mut inside = false;
    let mut header: Option<Vec<String>> = None;
    for line in doc.lines() {
        if line.starts_with('#') {
            let this = line.split(' ').next().unwrap().len();
            if line == heading {
                inside = true;
                continue;
            }
            if inside && this <= level {
                break;
            }
        }
        if !inside {
            continue;
        }
        if !line.starts_with('|') {
            header = None;
            continue;
        }
        let Some(names) = &header else {
            header = Some(cells(line));
            continue;
        };
        if line.starts_with("| ---") || line.starts_with("|---") {
            continue;
        }
        rows.push(names.iter().cloned().zip(cells(line)).collect());
    }
    assert!(!rows.is_empty(), "no table under {heading:?}");
    rows
}

/// The code spans of a cell.
fn spans(cell: &str) -> impl Iterator<Item = &str> {
    cell.split('`').skip(1).step_by(2)
}

#[test]
fn every_issue_code_literal_is_documented_and_every_documented_code_exists() {
    let api = read(&root().join("docs/api.md"));
    let rules = read(&root().join("docs/validation-rules.md"));

    let mut issue_codes = BTreeMap::new();
    for row in section_rows(&api, "## Issue codes") {
        let cell = |name: &str| row.get(name).map(String::as_str).unwrap_or_default();
        let code = spans(cell("code"))
            .next()
            .expect("a code in the first cell")
            .to_owned();
        assert!(
            matches!(cell("severity"), "error" | "warning"),
            "{code}: severity {:?}",
            cell("severity")
        );
        assert!(
            !cell("meaning").is_empty(),
            "{code} has no meaning in docs/api.md"
        );
        // The coercions' table has no source column: their meaning cites the rule the value breaks.
        let source = match row.get("source") {
            Some(source) => !source.is_empty(),
            None => cell("meaning").contains('§'),
        };
        assert!(source, "{code} has no source in docs/api.md");
        assert!(
            issue_codes.insert(code.clone(), row).is_none(),
            "{code} is listed twice in docs/api.md"
        );
    }
    let error_codes: BTreeSet<String> = section_rows(&api, "## Errors")
        .iter()
        .map(|row| spans(&row["code"]).next().unwrap().to_owned())
        .collect();
    let mut rule_words: BTreeSet<String> = section_rows(&rules, "## The rules")
        .iter()
        .flat_map(|row| {
            spans(&row["rule"])
                .chain(spans(&row["findings"]))
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect();
    rule_words.insert("response_id_mismatch".to_owned());
    assert!(rules.contains("`response_id_mismatch`"));

    let literals = literals();
    let not_codes: BTreeSet<&str> = NOT_CODES.iter().map(|(c, _)| *c).collect();
    let unknown: Vec<_> = literals
        .iter()
        .filter(|(l, _)| {
            !issue_codes.contains_key(l.as_str())
                && !error_codes.contains(l.as_str())
                && !rule_words.contains(l.as_str())
                && !not_codes.contains(l.as_str())
        })
        .collect();
    assert!(
        unknown.is_empty(),
        "snake_case literals documented nowhere (document the code in docs/api.md's Issue codes, or list it in \
         NOT_CODES): {unknown:?}"
    );
    let unused: Vec<_> = not_codes
        .iter()
        .filter(|c| !literals.contains_key(**c))
        .collect();
    assert!(
        unused.is_empty(),
        "NOT_CODES lists literals no longer in the source: {unused:?}"
    );
    let phantom: Vec<_> = issue_codes
        .keys()
        .filter(|c| !literals.contains_key(c.as_str()))
        .collect();
    assert!(
        phantom.is_empty(),
        "in docs/api.md's Issue codes but in no source literal: {phantom:?}"
    );
}
