//! [`Blocklists`]: the request's `badv`, `bcat` and `bapp` (OpenRTB 2.6 §3.2.1), looked up per bid.
//!
//! A list of up to [`SCAN`] entries (nearly every real request) is searched where it lies. A longer one is indexed
//! once per envelope by its ASCII-lower-cased entries as paths of labels (`Labels`), so that each bid costs one
//! walk down the labels of its domain (its category), which meets the entries equal to it and to each of its
//! parents, instead of a comparison per entry, which for a 1 MB envelope of 50,000 `badv` entries and 1,000 bids of 20
//! `adomain`s each would hold a worker for seconds. Both ways give the same answer: the first blocked `adomain` (or
//! `cat`) of the bid, with the first entry of the request's list that blocks it.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

/// Lists of at most this many entries are searched without an index.
pub(super) const SCAN: usize = 16;

/// The request's block lists, searched or indexed.
pub(super) struct Blocklists<'r> {
    badv: List<'r>,
    bcat: List<'r>,
    /// `bapp` as a set of trimmed, lower-cased entries, when longer than [`SCAN`].
    bapp: Option<HashSet<String>>,
    bapp_list: &'r [Cow<'r, str>],
}

/// One list and, when long, its index ([`Labels`]).
struct List<'r> {
    entries: &'r [Cow<'r, str>],
    index: Option<Labels>,
}

impl<'r> List<'r> {
    /// `entries`, indexed by `key` (the entry as compared; an empty key never matches) when long.
    fn new(entries: &'r [Cow<'r, str>], key: fn(&str) -> &str, order: Order) -> List<'r> {
        let index = (entries.len() > SCAN).then(|| {
            let mut index = Labels::new(order);
            for (at, entry) in entries.iter().enumerate() {
                let key = key(entry);
                if !key.is_empty() {
                    index.insert(&key.to_ascii_lowercase(), at);
                }
            }
            index
        });
        List { entries, index }
    }
}

/// Which end of a key its labels are read from: a domain's parent is its tail (`ford.com` of `shop.ford.com`),
/// a category's its head (`IAB1` of `IAB1-5`).
#[derive(Clone, Copy)]
enum Order {
    /// Labels split at `.`, the last first.
    Domain,
    /// Labels split at `-`, the first first.
    Category,
}

/// A long list's index: the entries' lower-cased keys as paths of labels in a trie, each node holding the first
/// entry (in request order) whose key ends there. A candidate's key and all its parents are one walk down its
/// labels, so a lookup costs the key's length once. (Looking up the key and each parent whole hashed every parent
/// again: a 320 KB `adomain` of 160,000 labels took 5.5 s against a 20-entry `badv`.)
struct Labels {
    order: Order,
    /// (parent node, label) → child node; the key's bytes are the parent's number (4 bytes) and the label.
    children: HashMap<Vec<u8>, u32>,
    /// Per node (0 is the root): the first entry whose key ends there, `usize::MAX` for none.
    first: Vec<usize>,
}

impl Labels {
    fn new(order: Order) -> Labels {
        Labels {
            order,
            children: HashMap::new(),
            first: vec![usize::MAX],
        }
    }

    /// The labels of `key` in walking order.
    fn labels(order: Order, key: &str) -> impl Iterator<Item = &str> {
        let (domain, category) = match order {
            Order::Domain => (Some(key.rsplit('.')), None),
            Order::Category => (None, Some(key.split('-'))),
        };
        domain
            .into_iter()
            .flatten()
            .chain(category.into_iter().flatten())
    }

    /// The key of the edge from `node` by `label`, written into `edge`.
    fn edge(edge: &mut Vec<u8>, node: u32, label: &str) {
        edge.clear();
        edge.extend_from_slice(&node.to_le_bytes());
        edge.extend_from_slice(label.as_bytes());
    }

    /// Indexes the lower-cased `key` of the entry at `at` (an earlier entry with the same key stays).
    fn insert(&mut self, key: &str, at: usize) {
        let mut node = 0u32;
        let mut edge = Vec::new();
        for label in Self::labels(self.order, key) {
            Self::edge(&mut edge, node, label);
            let next = self.first.len() as u32;
            node = *self.children.entry(edge.clone()).or_insert(next);
            if node == next {
                self.first.push(usize::MAX);
            }
        }
        let first = &mut self.first[node as usize];
        *first = (*first).min(at);
    }

    /// The first entry whose key is the lower-cased `key` or one of its parents (whole labels).
    fn first_of(&self, key: &str) -> Option<usize> {
        let mut node = 0u32;
        let mut best = usize::MAX;
        let mut edge = Vec::new();
        for label in Self::labels(self.order, key) {
            Self::edge(&mut edge, node, label);
            let Some(&next) = self.children.get(&edge[..]) else {
                break;
            };
            node = next;
            best = best.min(self.first[node as usize]);
        }
        (best != usize::MAX).then_some(best)
    }
}

impl<'r> Blocklists<'r> {
    /// The lists of a request.
    pub fn new(
        badv: &'r [Cow<'r, str>],
        bcat: &'r [Cow<'r, str>],
        bapp: &'r [Cow<'r, str>],
    ) -> Blocklists<'r> {
        Blocklists {
            badv: List::new(badv, domain_key, Order::Domain),
            bcat: List::new(bcat, str::trim_ascii, Order::Category),
            bapp: (bapp.len() > SCAN).then(|| {
                bapp.iter()
                    .map(|a| a.trim_ascii().to_ascii_lowercase())
                    .collect()
            }),
            bapp_list: bapp,
        }
    }

    /// The first `badv` entry that blocks `domain`: equal to it or to one of its parent domains, ASCII
    /// case-insensitively, both read by [`domain_key`] (OpenRTB 2.6 §3.2.1 `badv`).
    pub fn domain(&self, domain: &str) -> Option<&'r str> {
        let Some(index) = &self.badv.index else {
            return self
                .badv
                .entries
                .iter()
                .find(|b| domain_blocked(domain, b))
                .map(|b| &**b);
        };
        let at = index.first_of(&domain_key(domain).to_ascii_lowercase())?;
        Some(&self.badv.entries[at])
    }

    /// The first `bcat` entry that blocks `cat`: equal to it or to a category it is under (`IAB1` blocks
    /// `IAB1-5`), ASCII case-insensitively (OpenRTB 2.6 §3.2.1 `bcat`).
    pub fn category(&self, cat: &str) -> Option<&'r str> {
        let Some(index) = &self.bcat.index else {
            return self
                .bcat
                .entries
                .iter()
                .find(|b| category_blocked(cat, b))
                .map(|b| &**b);
        };
        let at = index.first_of(&cat.trim_ascii().to_ascii_lowercase())?;
        Some(&self.bcat.entries[at])
    }

    /// Whether `bundle` is in `bapp` (OpenRTB 2.6 §3.2.1 `bapp`), surrounding whitespace ignored and ASCII
    /// case-insensitively (store ids are not told apart by case).
    pub fn app(&self, bundle: &str) -> bool {
        let bundle = bundle.trim_ascii();
        match &self.bapp {
            Some(set) => set.contains(&bundle.to_ascii_lowercase()),
            None => self
                .bapp_list
                .iter()
                .any(|a| a.trim_ascii().eq_ignore_ascii_case(bundle)),
        }
    }
}

/// A domain as `badv` and `adomain` are compared: surrounding whitespace removed; written as a URL
/// (`https://ford.com/landing`, `ford.com:443`, `ford.com/`, `ford.com?x`), its host only — bidders send
/// `adomain` so, and a blocklist must not be passed by the form; one trailing dot (the DNS root of a fully
/// qualified name, RFC 1034 §3.1: `ford.com.` is `ford.com`) removed.
pub(super) fn domain_key(domain: &str) -> &str {
    let mut domain = domain.trim_ascii();
    // Most values are a bare domain: no byte of a URL's scheme, port, userinfo, path, query or fragment.
    if !domain
        .bytes()
        .any(|b| matches!(b, b':' | b'/' | b'?' | b'#' | b'@'))
    {
        return domain.strip_suffix('.').unwrap_or(domain);
    }
    if let Some(at) = domain.find("://") {
        domain = &domain[at + 3..];
    }
    // Userinfo (`user@host`) is part of a URL's authority, not its host.
    let authority_end = domain.find(['/', '?', '#']).unwrap_or(domain.len());
    if let Some(at) = domain[..authority_end].rfind('@') {
        domain = &domain[at + 1..];
    }
    let host_end = domain.find(['/', '?', '#', ':']).unwrap_or(domain.len());
    let domain = &domain[..host_end];
    domain.strip_suffix('.').unwrap_or(domain)
}

/// `domain` is `blocked` or one of its subdomains (ASCII case-insensitive, both read by [`domain_key`]).
pub(super) fn domain_blocked(domain: &str, blocked: &str) -> bool {
    let (d, b) = (domain_key(domain), domain_key(blocked));
    if b.is_empty() || d.len() < b.len() {
        return false;
    }
    let tail = &d.as_bytes()[d.len() - b.len()..];
    tail.eq_ignore_ascii_case(b.as_bytes())
        && (d.len() == b.len() || d.as_bytes()[d.len() - b.len() - 1] == b'.')
}

/// `cat` is `blocked` or under it (`IAB1` blocks `IAB1-5`), ASCII case-insensitive, surrounding whitespace
/// ignored on both.
pub(super) fn category_blocked(cat: &str, blocked: &str) -> bool {
    let (c, b) = (cat.trim_ascii().as_bytes(), blocked.trim_ascii().as_bytes());
    !b.is_empty()
        && c.len() >= b.len()
        && c[..b.len()].eq_ignore_ascii_case(b)
        && (c.len() == b.len() || c[b.len()] == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cows<'s>(items: &[&'s str]) -> Vec<Cow<'s, str>> {
        items.iter().map(|s| Cow::Borrowed(*s)).collect()
    }

    /// The indexed lookups give the scans' answers (the first blocked entry in request order) for lists long
    /// enough to be indexed, on domains and categories built from the same pieces as the entries.
    #[test]
    fn adomain_as_a_url_is_its_host() {
        for form in [
            "https://blocked.com",
            "http://www.blocked.com/landing",
            "blocked.com:443",
            "blocked.com/",
            "blocked.com?x",
            "https://user@blocked.com:8443/a?b#c",
            " BLOCKED.com. ",
        ] {
            assert!(domain_blocked(form, "blocked.com"), "{form}");
        }
        assert!(!domain_blocked(
            "https://notblocked.com/blocked.com",
            "blocked.com"
        ));
        assert!(category_blocked(" IAB25-3\t", "IAB25"));
    }

    #[test]
    fn the_index_answers_as_the_scan() {
        let domain_parts = [
            "ford.com",
            "Ford.COM",
            " shop.ford.com ",
            "com",
            ".com",
            "",
            " ",
            "a..com",
            "é.com",
            "x.org",
            "ford.com.",
            " FORD.com. ",
            ".",
            "com..",
        ];
        let cat_parts = [
            "IAB1", "iab1-5", "IAB1-5-2", "IAB2", "", "IAB", "-", "IAB1-",
        ];
        // Lists longer than SCAN: the pieces in two orders, padded with entries that block nothing here.
        let pad: Vec<String> = (0..=SCAN).map(|i| format!("pad{i}.net")).collect();
        let pad: Vec<&str> = pad.iter().map(String::as_str).collect();
        for reversed in [false, true] {
            let mut badv: Vec<&str> = domain_parts.to_vec();
            let mut bcat: Vec<&str> = cat_parts.to_vec();
            if reversed {
                badv.reverse();
                bcat.reverse();
            }
            badv.extend(&pad);
            bcat.extend(&pad);
            let (badv, bcat, bapp) = (cows(&badv), cows(&bcat), cows(&pad));
            let lists = Blocklists::new(&badv, &bcat, &bapp);
            assert!(
                lists.badv.index.is_some() && lists.bcat.index.is_some() && lists.bapp.is_some()
            );
            for d in domain_parts.iter().chain(
                [
                    "shop.ford.com",
                    "Shop.Ford.Com",
                    "notford.com",
                    "b.a..com",
                    "é.COM",
                    "Shop.Ford.Com.",
                    "shop.ford.com..",
                ]
                .iter(),
            ) {
                let scan = badv.iter().find(|b| domain_blocked(d, b)).map(|b| &**b);
                assert_eq!(lists.domain(d), scan, "{d:?} reversed={reversed}");
            }
            // Many labels (hashing each parent whole would take seconds on a 160,000-label `adomain`).
            let deep = format!("{}Ford.com", "a.".repeat(5_000));
            let scan = badv.iter().find(|b| domain_blocked(&deep, b)).map(|b| &**b);
            assert!(scan.is_some());
            assert_eq!(lists.domain(&deep), scan);
            assert_eq!(
                lists.domain(&format!("{}x.org.", "b.".repeat(5_000))),
                Some("x.org")
            );
            let deep_cat = format!("IAB1{}", "-1".repeat(5_000));
            let scan = bcat
                .iter()
                .find(|b| category_blocked(&deep_cat, b))
                .map(|b| &**b);
            assert!(scan.is_some());
            assert_eq!(lists.category(&deep_cat), scan);
            for c in cat_parts
                .iter()
                .chain(["IAB1-5-2-9", "iab2-1", "IAB12", "IAB1--"].iter())
            {
                let scan = bcat.iter().find(|b| category_blocked(c, b)).map(|b| &**b);
                assert_eq!(lists.category(c), scan, "{c:?} reversed={reversed}");
            }
            assert!(lists.app("pad3.net") && lists.app(" PAD3.net") && !lists.app("pad3.ne"));
        }
    }

    #[test]
    fn short_lists_are_scanned() {
        let (badv, bcat, bapp) = (cows(&["ford.com"]), cows(&["IAB1"]), cows(&["com.foo"]));
        let lists = Blocklists::new(&badv, &bcat, &bapp);
        assert!(lists.badv.index.is_none() && lists.bapp.is_none());
        assert_eq!(lists.domain("Shop.FORD.com"), Some("ford.com"));
        assert_eq!(lists.category("iab1-2"), Some("IAB1"));
        assert!(lists.app("com.foo"));
    }
}
