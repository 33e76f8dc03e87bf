//! The corpus families the benches group documents by (see `corpus/bid-responses/MANIFEST.tsv`).

/// One benchmark group: a name and the corpus file stems it decodes, all in one iteration.
#[derive(Clone, Debug)]
pub struct Family {
    /// Group name, e.g. `vast`, `banner_go`, `corpus`.
    pub name: &'static str,
    /// What the documents are, for tables.
    pub what: &'static str,
    /// Indices into [`corpus`](crate::corpus) of the documents, in corpus order.
    pub docs: Vec<usize>,
}

/// (group name, description, file-stem predicate), in table order.
type Rule = (&'static str, &'static str, fn(&str) -> bool);

const RULES: &[Rule] = &[
    ("vast", "VAST 12-110 KB (vast_0*, vast_1*)", |n| {
        n.starts_with("vast_0") || n.starts_with("vast_1")
    }),
    ("vast_php", "PHP-escaped VAST (`\\/`)", |n| {
        n.starts_with("vast_php_")
    }),
    ("vast_intl", "non-ASCII VAST (`\\u` and raw UTF-8)", |n| {
        n.starts_with("vast_intl_")
    }),
    ("banner_go", "Go-escaped HTML (`\\u003c`)", |n| {
        n.starts_with("banner_go_")
    }),
    ("banner_plain", "plain HTML banners", |n| {
        n.starts_with("banner_plain_")
    }),
    ("native", "native (JSON in a string)", |n| {
        n.starts_with("native_")
    }),
    ("multiseat", "48 bids over several seats", |n| {
        n.starts_with("multiseat_")
    }),
    ("nobid", "no-bid + nurl_only (tiny)", |n| {
        n.starts_with("nobid_") || n == "nurl_only"
    }),
    ("seed_no_escape", "20 KB adm, no escape", |n| {
        n == "seed_no_escape"
    }),
    (
        "seed_escape_at_end",
        "20 KB adm, one escape at the end",
        |n| n == "seed_escape_at_end",
    ),
    (
        "seed_escape_at_1",
        "20 KB adm, one escape at the start",
        |n| n == "seed_escape_at_1",
    ),
    ("seed_106_escapes", "20 KB adm, 106 escapes", |n| {
        n == "seed_106_escapes"
    }),
];

/// The families of `names` (corpus file stems, in corpus order), in table order, then `corpus` (every document).
///
/// Panics if a document belongs to no family or to two: the grouping must cover the corpus exactly once.
pub fn families(names: &[&str]) -> Vec<Family> {
    let mut out: Vec<Family> = RULES
        .iter()
        .map(|(name, what, _)| Family {
            name,
            what,
            docs: Vec::new(),
        })
        .collect();
    for (i, n) in names.iter().enumerate() {
        let hits: Vec<usize> = RULES
            .iter()
            .enumerate()
            .filter(|(_, r)| (r.2)(n))
            .map(|(k, _)| k)
            .collect();
        assert_eq!(
            hits.len(),
            1,
            "{n} must be in exactly one family, is in {hits:?}"
        );
        out[hits[0]].docs.push(i);
    }
    out.retain(|f| !f.docs.is_empty());
    out.push(Family {
        name: "corpus",
        what: "all documents",
        docs: (0..names.len()).collect(),
    });
    out
}
