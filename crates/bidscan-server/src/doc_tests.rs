//! Tests that hold the reference in `docs/` to the code: the helpers that read a Markdown table out of a doc
//! (used by the tests next to the configuration, the error codes and the metrics), and the test of the issue
//! codes `/decode` reports, which come from another crate.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use bidscan_openrtb::{CoercionKind, JsonType, Severity};

/// The workspace's root directory.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The text of `path`, relative to the workspace's root; panics when it cannot be read.
pub(crate) fn read(path: &str) -> String {
    let full = root().join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

/// The cells of one table row: split at `|` (not at an escaped `\|`), trimmed, without the outer empty cells.
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    let mut out = vec![String::new()];
    let mut escaped = false;
    for c in inner.chars() {
        match c {
            '|' if !escaped => out.push(String::new()),
            _ => out.last_mut().expect("one cell at least").push(c),
        }
        escaped = c == '\\';
    }
    out.into_iter().map(|c| c.trim().to_owned()).collect()
}

/// The body rows, as cells, of every Markdown table in `doc` whose header row is exactly `header` (cells
/// compared trimmed). Panics when there is none, so a renamed column fails loudly.
pub(crate) fn table_rows(doc: &str, header: &[&str]) -> Vec<Vec<String>> {
    let lines: Vec<&str> = doc.lines().collect();
    let mut rows = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim();
        if line.starts_with('|') && cells(line) == header {
            i += 2; // the header and its `| --- |` line
            while i < lines.len() && lines[i].trim().starts_with('|') {
                rows.push(cells(lines[i]));
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    assert!(!rows.is_empty(), "no table with the header {header:?}");
    rows
}

/// The text of every code span (`` `…` ``) in `cell`, in order.
pub(crate) fn code_spans(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

/// The first code span of `cell`; panics when there is none.
pub(crate) fn first_code(cell: &str) -> &str {
    code_spans(cell)
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no `code` in the cell {cell:?}"))
}

/// Every [`CoercionKind`]: the match has no wildcard, so a new variant stops this from compiling until it is
/// added here (and then the test below asks for it in the doc).
fn every_coercion() -> Vec<CoercionKind> {
    let invalid = CoercionKind::InvalidType {
        expected: "a number",
        found: JsonType::String,
    };
    let all = [
        CoercionKind::NumberAsString,
        CoercionKind::FloatAsInteger,
        CoercionKind::Null,
        CoercionKind::SingleValue,
        CoercionKind::AdmObject,
        CoercionKind::NumericId,
        CoercionKind::DuplicateField,
        CoercionKind::MisnamedMember,
        CoercionKind::BoolAsFlag,
        invalid,
        CoercionKind::OutOfRange,
    ];
    for kind in all {
        match kind {
            CoercionKind::NumberAsString
            | CoercionKind::FloatAsInteger
            | CoercionKind::Null
            | CoercionKind::SingleValue
            | CoercionKind::AdmObject
            | CoercionKind::NumericId
            | CoercionKind::DuplicateField
            | CoercionKind::MisnamedMember
            | CoercionKind::BoolAsFlag
            | CoercionKind::InvalidType { .. }
            | CoercionKind::OutOfRange => {}
        }
    }
    all.to_vec()
}

fn severity_word(severity: Severity) -> &'static str {
    crate::metrics::registry::severity_label(severity)
}

/// The rows `| `code` | severity | …` of the rustdoc tables (`//! | code | severity | …`) in a source file.
fn rustdoc_table(source: &str) -> Vec<(String, String)> {
    source
        .lines()
        .filter_map(|l| l.strip_prefix("//! |"))
        .map(cells)
        .filter(|c| c.len() >= 2 && c[0].starts_with('`'))
        .map(|c| (first_code(&c[0]).to_owned(), c[1].clone()))
        .collect()
}

/// Issue codes pushed in `source` with a literal code and severity: a string literal followed by `,`, optional
/// `severity:`, then `Severity::Error` or `Severity::Warning` — the shape of every `push(…, "code",
/// Severity::…, …)` and `Issue { code: "…", severity: Severity::…, … }` in the decode path. Code before a
/// `#[cfg(test)]` line only.
fn pushed_literals(source: &str) -> Vec<(String, String)> {
    let code: String = source
        .split("#[cfg(test)]")
        .next()
        .unwrap_or(source)
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .flat_map(|l| [l, "\n"])
        .collect();
    let mut found = Vec::new();
    let mut rest = code.as_str();
    while let Some(start) = rest.find('"') {
        let after = &rest[start + 1..];
        // The closing quote: the first one not escaped.
        let Some(end) = after
            .char_indices()
            .scan(false, |escaped, (i, c)| {
                let close = c == '"' && !*escaped;
                *escaped = c == '\\' && !*escaped;
                Some((i, close))
            })
            .find_map(|(i, close)| close.then_some(i))
        else {
            break;
        };
        let literal = &after[..end];
        let tail = after[end + 1..].trim_start();
        rest = &after[end + 1..];
        let Some(tail) = tail.strip_prefix(',') else {
            continue;
        };
        let tail = tail.trim_start();
        let tail = tail.strip_prefix("severity:").unwrap_or(tail).trim_start();
        let severity = if tail.starts_with("Severity::Error") {
            "error"
        } else if tail.starts_with("Severity::Warning") {
            "warning"
        } else {
            continue;
        };
        if !literal.is_empty()
            && literal
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        {
            found.push((literal.to_owned(), severity.to_owned()));
        }
    }
    found
}

/// The `code` arms of `fn code` in the markup crate's VAST warnings (`"vast_…"`, all warnings).
fn vast_warning_codes(source: &str) -> Vec<(String, String)> {
    let body = source
        .split("pub fn code(self)")
        .nth(1)
        .and_then(|s| s.split("\n    }\n").next())
        .expect("bidscan-markup's vast::Warning::code");
    body.split("=> \"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .map(|c| (c.to_owned(), "warning".to_owned()))
        .collect()
}

/// Every issue code `/decode` can report, with its severity, gathered from the code:
/// - every [`CoercionKind`] (its `code()` and `severity()`, exhaustive by construction);
/// - the rustdoc rule tables of `bidscan_openrtb::checks` and `checks::markup`;
/// - the literal codes pushed with a literal severity in `checks/mod.rs`, `checks/markup.rs` and `decode/mod.rs`
///   (what the tables might have missed);
/// - the VAST warnings' `code()` arms (pushed through `warning.code()`, not as literals).
///
/// Not exhaustive by construction: a code built another way (a new helper, a code held in a variable) is seen
/// only if it is in one of the tables.
fn emitted_issue_codes() -> BTreeMap<String, String> {
    let openrtb = "crates/bidscan-openrtb/src/";
    let mut codes: Vec<(String, String)> = every_coercion()
        .into_iter()
        .map(|k| (k.code().to_owned(), severity_word(k.severity()).to_owned()))
        .collect();
    for file in ["checks/mod.rs", "checks/markup.rs"] {
        codes.extend(rustdoc_table(&read(&format!("{openrtb}{file}"))));
    }
    for file in ["checks/mod.rs", "checks/markup.rs", "decode/mod.rs"] {
        codes.extend(pushed_literals(&read(&format!("{openrtb}{file}"))));
    }
    codes.extend(vast_warning_codes(&read(
        "crates/bidscan-markup/src/vast/mod.rs",
    )));
    codes.extend(auction_findings(&read(&format!("{openrtb}auction/mod.rs"))));
    let mut by_code = BTreeMap::new();
    for (code, severity) in codes {
        if let Some(other) = by_code.insert(code.clone(), severity.clone()) {
            assert_eq!(other, severity, "{code} has two severities in the code");
        }
    }
    by_code
}

/// The codes of an auction bidder's one finding: the first string literal inside each `.finding(…)` call of
/// `auction/mod.rs` (calls passing a code held in a variable give none), whose `finding` pushes an error.
fn auction_findings(text: &str) -> Vec<(String, String)> {
    assert!(
        text.contains("severity: Severity::Error"),
        "auction findings are errors"
    );
    text.split(".finding(")
        .skip(1)
        .filter_map(|call| {
            // The call's arguments: up to the first line that closes it (`)` alone, or `);`).
            let end = call.find("\n            )").or_else(|| call.find(");"))?;
            let call = &call[..end];
            let start = call.find('"')? + 1;
            let len = call[start..].find('"')?;
            let code = &call[start..start + len];
            (!code.is_empty() && code.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
                .then(|| (code.to_owned(), "error".to_owned()))
        })
        .collect()
}

#[test]
fn the_api_doc_lists_every_issue_code() {
    let doc = read("docs/api.md");
    let mut documented = BTreeMap::new();
    let tables = [
        &["code", "severity", "path", "meaning", "source"][..],
        &["code", "severity", "meaning", "source"][..],
        &["code", "severity", "meaning"][..],
    ];
    for header in tables {
        for row in table_rows(&doc, header) {
            let code = first_code(&row[0]).to_owned();
            assert!(
                documented.insert(code.clone(), row[1].clone()).is_none(),
                "{code} is listed twice in docs/api.md"
            );
        }
    }
    let emitted = emitted_issue_codes();
    // The tables' rows were read from the code above, so a pattern that found nothing would pass silently.
    assert!(emitted.len() >= 30, "too few codes gathered: {emitted:?}");
    let missing: Vec<_> = emitted
        .iter()
        .filter(|(code, _)| !documented.contains_key(*code))
        .collect();
    assert!(missing.is_empty(), "not in docs/api.md: {missing:?}");
    let unknown: BTreeSet<_> = documented
        .keys()
        .filter(|code| !emitted.contains_key(*code))
        .collect();
    assert!(
        unknown.is_empty(),
        "in docs/api.md but not in the code: {unknown:?}"
    );
    for (code, severity) in &emitted {
        assert_eq!(
            &documented[code], severity,
            "severity of {code} in docs/api.md"
        );
    }
}

#[test]
fn table_cells_split_at_unescaped_bars() {
    assert_eq!(
        cells(r"| `a` | b \| c | d |"),
        vec!["`a`".to_owned(), r"b \| c".to_owned(), "d".to_owned()]
    );
    assert_eq!(code_spans("`x` (`y`)"), vec!["x", "y"]);
}
