//! Validation rules run after decoding. A finding never fails the decode (in either mode) and one bad bid never
//! hides the others: each rule adds an [`Issue`] with the JSON pointer of the value.
//!
//! | code | severity | pointer | rule | source |
//! |---|---|---|---|---|
//! | `missing_id` | error | `/id` | response with bids has no (or an empty) `id` | OpenRTB 2.6 §4.2.1: `id` "string; required" |
//! | `invalid_currency` | error | `/cur` | `cur` is neither three ASCII letters nor empty | §4.2.1: `cur` uses "ISO-4217 alpha codes" |
//! | `currency_case` | warning | `/cur` | `cur` is three ASCII letters not all upper case (`"eur"`): read as the upper-case code (`EUR`), which the canonical output and the rules see | §4.2.1 (ISO 4217 alpha codes are upper case); exchanges read the code case-insensitively (Prebid Server's currency conversion upper-cases it) |
//! | `nbr_with_bids` | warning | `/nbr` | `nbr` present although the response has bids | §4.2.1: `nbr` is the "reason for not bidding" |
//! | `missing_id` | error | `…/bid/N/id` | bid has no (or an empty) `id` | §4.2.3: `id` "string; required" |
//! | `duplicate_bid_id` | error | `…/bid/N/id` | bid `id` equals an earlier bid's `id` in the response | §4.2.3: `id` is the bid's ID "for logging/tracking"; win/billing/loss notices (§4.4) cannot tell two bids with one id apart |
//! | `missing_impid` | error | `…/bid/N/impid` | no (or an empty) `impid` | §4.2.3: `impid` "string; required" |
//! | `missing_price` | error | `…/bid/N/price` | no `price` | §4.2.3: `price` "float; required" |
//! | `price_not_finite` | error | `…/bid/N/price` | `price` is NaN or infinite (e.g. `"1e999"`) | §4.2.3: `price` is a CPM amount |
//! | `negative_price` | error | `…/bid/N/price` | `price` < 0 | §4.2.3: `price` is an offer to pay |
//! | `zero_price` | error | `…/bid/N/price` | `price` = 0 and no `dealid` | §4.2.3 (an offer to buy "for a given price"); a zero price only makes sense under deal terms (§7.3 PMP & Direct Deals); Prebid Server rejects such a bid (`exchange/bidder_validate_bids.go`) |
//! | `missing_crid` | error | `…/bid/N/crid` | no (or an empty) `crid` | §4.2.3: `crid` "to assist with ad quality checking"; Prebid Server rejects a bid without one (`exchange/bidder_validate_bids.go`) |
//! | `missing_markup` | error | `…/bid/N` | neither a non-empty `adm` nor `nurl` | §4.3: markup is served in the bid (`adm`, §4.3.2) or on the win notice (`nurl`, §4.3.1) |
//! | `invalid_mtype` | error | `…/bid/N/mtype` | `mtype` outside 1–4 | §4.2.3: `mtype` values 1 banner, 2 video, 3 audio, 4 native |
//! | `invalid_size` | error | `…/bid/N/w`, `…/h` | `w` or `h` present and ≤ 0 | §4.2.3: `w`/`h` are the creative's size in device-independent pixels |
//! | `issues_truncated` | warning | `` (root) | more than [`MAX_ISSUES`] issues: the first `MAX_ISSUES` are listed, this one counts the rest | bidscan's own bound: an answer stays proportional to a real response, not to 10,000 empty bids × 5 findings |
//!
//! The response currency is read as exchanges read it: an absent `cur` is USD (§4.2.1 default), and so is an
//! empty one (`"cur": ""`), which is read as `"USD"` without an issue, as Prebid Server reads it
//! (`exchange/bidder.go`: an empty currency becomes the default, `USD`); three letters in another case are read
//! upper-cased (`currency_case`). The model holds the code read, so the canonical output, the summary and the
//! rules against the request all see it.

pub(crate) mod issue;
pub mod markup;
pub(crate) mod paths;

use std::borrow::Cow;

/// At most this many issues are listed per document (coercions and validation findings together); past it the
/// list ends with one `issues_truncated` warning giving the number left out. Without a bound, 30 KB of `{}` bids
/// produced a 9 MB answer with 49,990 issues.
pub const MAX_ISSUES: usize = 1000;

/// Applies [`MAX_ISSUES`]: keeps the first ones (document order is kept), tallies the rest in `unlisted` and
/// appends their count.
pub(crate) fn truncate(issues: &mut Vec<Issue>, unlisted: &mut Unlisted) {
    if issues.len() <= MAX_ISSUES {
        return;
    }
    for issue in &issues[MAX_ISSUES..] {
        unlisted.add(issue.code, issue.severity);
    }
    let left_out = issues.len() - MAX_ISSUES;
    issues.truncate(MAX_ISSUES);
    issues.shrink_to_fit();
    push(
        issues,
        String::new(),
        "issues_truncated",
        Severity::Warning,
        format!("{left_out} more issues not listed (at most {MAX_ISSUES} per document)"),
    );
}

use crate::checks::issue::{Issue, Severity, Unlisted};
use crate::model::adm::Adm;
use crate::model::bid::Bid;
use crate::model::response::BidResponse;
use crate::model::status::Status;
use paths::Object;

fn push(
    issues: &mut Vec<Issue>,
    path: String,
    code: &'static str,
    severity: Severity,
    message: impl Into<Cow<'static, str>>,
) {
    issues.push(Issue {
        path,
        code,
        severity,
        message: message.into(),
    });
}

/// Absent, empty or whitespace only.
pub(crate) fn is_blank(v: Option<&str>) -> bool {
    v.is_none_or(|v| v.trim_ascii().is_empty())
}

/// True when `cur` is an ISO 4217 alpha code in form: exactly three ASCII uppercase letters.
pub fn is_currency_code(cur: &str) -> bool {
    cur.len() == 3 && cur.bytes().all(|b| b.is_ascii_uppercase())
}

/// Runs every rule of the table above, appending findings to `issues` in document order; reads `cur` as
/// exchanges do (see the module docs), the one change it makes to `response`.
pub(crate) fn validate(response: &mut BidResponse<'_>, status: Status, issues: &mut Vec<Issue>) {
    if status == Status::Bid && is_blank(response.id.as_deref()) {
        let message = "the bid response has bids but no id (OpenRTB 2.6 §4.2.1: required)";
        let path = paths::field(response, Object::Response, "id");
        push(issues, path, "missing_id", Severity::Error, message);
    }
    // `"USD"` or absent, nearly every response: one compare of three bytes, nothing written.
    if response
        .cur
        .as_deref()
        .is_some_and(|c| !is_currency_code(c))
    {
        read_currency(response, issues);
    }
    let response = &*response;
    let at = |field: &str| paths::field(response, Object::Response, field);
    if let (Some(nbr), Status::Bid) = (response.nbr, status) {
        let message = format!(
            "nbr {} (a reason for not bidding) is present although the response has bids",
            nbr.0
        );
        push(
            issues,
            at("nbr"),
            "nbr_with_bids",
            Severity::Warning,
            message,
        );
    }

    let duplicates = DuplicateIds::find(response);
    let mut position = 0;
    for (si, seat) in response.seatbid.iter().enumerate() {
        for (bi, bid) in seat.bid.iter().enumerate() {
            let duplicate = duplicates.contains(position);
            validate_bid(response, Object::Bid(si, bi), bid, duplicate, issues);
            position += 1;
        }
    }
}

/// Reads a `cur` that is not an ISO 4217 alpha code in form ([`is_currency_code`]): empty is `"USD"`; three
/// ASCII letters are upper-cased (`currency_case`, a warning); anything else stays as sent (`invalid_currency`,
/// an error).
#[cold]
#[inline(never)]
fn read_currency(response: &mut BidResponse<'_>, issues: &mut Vec<Issue>) {
    let Some(cur) = response.cur.as_deref() else {
        return;
    };
    if cur.is_empty() {
        response.cur = Some(Cow::Borrowed("USD"));
        return;
    }
    let path = paths::field(response, Object::Response, "cur");
    if cur.len() == 3 && cur.bytes().all(|b| b.is_ascii_alphabetic()) {
        let upper = cur.to_ascii_uppercase();
        let message = format!(
            "cur {cur:?} is not upper case; read as {upper:?} (ISO 4217 alpha codes are upper case)"
        );
        response.cur = Some(Cow::Owned(upper));
        push(issues, path, "currency_case", Severity::Warning, message);
    } else {
        let message = format!(
            "cur {cur:?} is not an ISO 4217 alpha code (three letters; an empty cur is USD)"
        );
        push(issues, path, "invalid_currency", Severity::Error, message);
    }
}

/// The bids whose (non-empty) `id` equals the `id` of an earlier bid of the response, as a bit set over bid
/// positions in document order (all seat bids' bids in a row).
///
/// Found by sorting `(fingerprint, id, position)` and flagging every entry after the first of a run of equal
/// ids: O(n log n) whatever the ids (ids with equal fingerprints only cost string comparisons, never a quadratic
/// scan), and no hasher state. The entries live on the stack up to [`DuplicateIds::STACK`] bids; the bit set is
/// allocated only when a duplicate is found (when an issue is reported anyway). Up to
/// [`DuplicateIds::PAIRWISE`] bids, each id is compared with the earlier ones instead (same result).
pub(crate) struct DuplicateIds(Vec<u64>);

/// `(fingerprint, id, position)` of one bid.
type IdEntry<'r> = (u64, &'r str, usize);

impl DuplicateIds {
    /// Up to this many bids, each id is compared with the earlier ones (the common case: one to a few bids).
    const PAIRWISE: usize = 8;
    /// Bids whose ids are sorted on the stack (2 KiB); more are sorted in a `Vec`.
    const STACK: usize = 64;

    /// No bid repeats an id.
    pub(crate) const NONE: DuplicateIds = DuplicateIds(Vec::new());

    pub(crate) fn find(response: &BidResponse<'_>) -> DuplicateIds {
        let mut flags = DuplicateIds(Vec::new());
        let bids: usize = response.seatbid.iter().map(|s| s.bid.len()).sum();
        if bids < 2 {
            return flags;
        }
        let ids = || {
            response
                .seatbid
                .iter()
                .flat_map(|s| &s.bid)
                .map(|b| b.id.as_deref().filter(|id| !id.is_empty()))
        };
        if bids <= Self::PAIRWISE {
            // At most 28 comparisons, and no 2 KiB table to initialise (~32 cache lines written per call).
            for (position, id) in ids().enumerate() {
                if id.is_some() && ids().take(position).any(|earlier| earlier == id) {
                    flags.insert(position);
                }
            }
            return flags;
        }
        let mut stack: [IdEntry<'_>; Self::STACK] = [(0, "", 0); Self::STACK];
        let mut heap: Vec<IdEntry<'_>> = Vec::new();
        let slots: &mut [IdEntry<'_>] = if bids <= Self::STACK {
            &mut stack[..bids]
        } else {
            heap.resize(bids, (0, "", 0));
            &mut heap
        };
        let mut used = 0;
        for (position, id) in ids().enumerate() {
            if let Some(id) = id {
                slots[used] = (fingerprint(id), id, position);
                used += 1;
            }
        }
        let entries = &mut slots[..used];
        entries.sort_unstable();
        for pair in entries.windows(2) {
            let ((f0, id0, _), (f1, id1, later)) = (pair[0], pair[1]);
            if f0 == f1 && id0 == id1 {
                flags.insert(later);
            }
        }
        flags
    }

    fn insert(&mut self, position: usize) {
        let word = position / 64;
        if self.0.len() <= word {
            self.0.resize(word + 1, 0);
        }
        self.0[word] |= 1 << (position % 64);
    }

    pub(crate) fn contains(&self, position: usize) -> bool {
        self.0
            .get(position / 64)
            .is_some_and(|w| w & (1 << (position % 64)) != 0)
    }
}

/// A cheap fingerprint of an id (multiply-rotate over 8-byte words, like rustc's FxHash), so that most
/// comparisons while sorting ids are integer comparisons.
fn fingerprint(id: &str) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mix = |h: u64, word: [u8; 8]| (h.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(K);
    let (words, rest) = id.as_bytes().as_chunks::<8>();
    let mut h = words.iter().fold(id.len() as u64, |h, w| mix(h, *w));
    if !rest.is_empty() {
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        h = mix(h, last);
    }
    h
}

fn validate_bid(
    response: &BidResponse<'_>,
    object: Object,
    bid: &Bid<'_>,
    duplicate: bool,
    issues: &mut Vec<Issue>,
) {
    // Each finding's pointer is built in one allocation, only when there is something to report.
    let at = |field: &str| {
        if field.is_empty() {
            paths::object(response, object)
        } else {
            paths::field(response, object, field)
        }
    };

    if is_blank(bid.id.as_deref()) {
        let message = "bid has no id (OpenRTB 2.6 §4.2.3: required)";
        push(issues, at("id"), "missing_id", Severity::Error, message);
    } else if duplicate {
        let id = bid.id.as_deref().unwrap_or_default();
        let message = format!("bid id {id:?} is already used by an earlier bid of this response");
        push(
            issues,
            at("id"),
            "duplicate_bid_id",
            Severity::Error,
            message,
        );
    }
    if is_blank(bid.impid.as_deref()) {
        let message = "bid has no impid (OpenRTB 2.6 §4.2.3: required)";
        push(
            issues,
            at("impid"),
            "missing_impid",
            Severity::Error,
            message,
        );
    }
    match bid.price {
        None => {
            let message = "bid has no price (OpenRTB 2.6 §4.2.3: required)";
            push(
                issues,
                at("price"),
                "missing_price",
                Severity::Error,
                message,
            );
        }
        Some(p) if !p.is_finite() => {
            let message = format!("price {p} is not a finite number");
            push(
                issues,
                at("price"),
                "price_not_finite",
                Severity::Error,
                message,
            );
        }
        Some(p) if p < 0.0 => {
            let message = format!("price {p} is negative");
            push(
                issues,
                at("price"),
                "negative_price",
                Severity::Error,
                message,
            );
        }
        Some(p) if p == 0.0 && is_blank(bid.dealid.as_deref()) => {
            let message = "price is 0 and the bid is not under a deal (no dealid)";
            push(issues, at("price"), "zero_price", Severity::Error, message);
        }
        Some(_) => {}
    }
    if is_blank(bid.crid.as_deref()) {
        let message = "bid has no crid (creative ID for ad-quality checks, OpenRTB 2.6 §4.2.3)";
        push(issues, at("crid"), "missing_crid", Severity::Error, message);
    }
    let has_adm = match &bid.adm {
        Some(Adm::Markup(text)) => !text.trim_ascii().is_empty(),
        Some(Adm::Object(_)) => true,
        None => false,
    };
    if !has_adm && is_blank(bid.nurl.as_deref()) {
        let message = "bid has neither adm nor nurl: no markup to serve (OpenRTB 2.6 §4.3)";
        push(issues, at(""), "missing_markup", Severity::Error, message);
    }
    if let Some(mtype) = bid.mtype.filter(|m| !(1..=4).contains(&m.0)) {
        let message = format!(
            "mtype {} is outside 1–4 (banner, video, audio, native)",
            mtype.0
        );
        push(
            issues,
            at("mtype"),
            "invalid_mtype",
            Severity::Error,
            message,
        );
    }
    for (field, value) in [("w", bid.w), ("h", bid.h)] {
        if let Some(v) = value.filter(|v| *v <= 0) {
            let message =
                format!("{field} {v} is not a positive size in device-independent pixels");
            push(issues, at(field), "invalid_size", Severity::Error, message);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(ids: &[&[Option<&'static str>]]) -> BidResponse<'static> {
        let mut r = BidResponse::default();
        for seat in ids {
            let mut s = crate::SeatBid::default();
            for id in *seat {
                s.bid.push(Bid {
                    id: id.map(Cow::Borrowed),
                    ..Bid::default()
                });
            }
            r.seatbid.push(s);
        }
        r
    }

    fn flagged(r: &BidResponse<'_>) -> Vec<usize> {
        let d = DuplicateIds::find(r);
        let n: usize = r.seatbid.iter().map(|s| s.bid.len()).sum();
        (0..n).filter(|&i| d.contains(i)).collect()
    }

    #[test]
    fn duplicates_after_the_first_across_seats() {
        let r = response(&[
            &[Some("a"), Some("b"), None, Some("")],
            &[Some("b"), Some("a"), Some("c"), Some(""), None, Some("a")],
        ]);
        assert_eq!(flagged(&r), vec![4, 5, 9]);
    }

    #[test]
    fn pairwise_sorted_and_spilled_paths_agree_with_the_definition() {
        // Every count across the three paths (pairwise, stack, heap), ids from alphabets of 1 to 5 names,
        // empty and missing ids among them.
        let names = ["a", "b", "", "c", "d"];
        for n in 0..80 {
            for k in 1..=names.len() {
                let ids: Vec<Option<&'static str>> = (0..n)
                    .map(|i| (i % 7 != 3).then_some(names[(i * 3 + i / k) % k]))
                    .collect();
                let expected: Vec<usize> = (0..n)
                    .filter(|&i| {
                        ids[i].is_some_and(|id| !id.is_empty()) && ids[..i].contains(&ids[i])
                    })
                    .collect();
                let half = n / 2;
                let r = response(&[&ids[..half], &ids[half..]]);
                assert_eq!(flagged(&r), expected, "n {n} k {k}");
            }
        }
    }

    #[test]
    fn many_bids_spill_to_the_heap_alike() {
        let ids: Vec<Option<&'static str>> = (0..200)
            .map(|i| Some(&*String::from(["x", "y", "longer-identifier-01234567"][i % 3]).leak()))
            .collect();
        let r = response(&[&ids[..100], &ids[100..]]);
        assert_eq!(flagged(&r), (3..200).collect::<Vec<_>>());
        let unique: Vec<Option<&'static str>> = (0..130)
            .map(|i| Some(&*format!("bid-{i:04}").leak()))
            .collect();
        assert!(flagged(&response(&[&unique])).is_empty());
    }

    #[test]
    fn fingerprint_covers_every_byte() {
        assert_ne!(fingerprint("bid-0001"), fingerprint("bid-0002"));
        assert_ne!(fingerprint("abcdefgh1"), fingerprint("abcdefgh2"));
        assert_ne!(fingerprint("a"), fingerprint("a\0"));
        assert_eq!(fingerprint("same id"), fingerprint("same id"));
    }
}
