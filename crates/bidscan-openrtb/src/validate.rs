//! Validation rules run after decoding. A finding never fails the decode (in either mode) and one bad bid never
//! hides the others: each rule adds an [`Issue`] with the JSON pointer of the value.
//!
//! | code | severity | pointer | rule | source |
//! |---|---|---|---|---|
//! | `missing_id` | error | `/id` | response with bids has no (or an empty) `id` | OpenRTB 2.6 §4.2.1: `id` "string; required" |
//! | `invalid_currency` | error | `/cur` | `cur` is not three uppercase ASCII letters | §4.2.1: `cur` uses "ISO-4217 alpha codes" |
//! | `nbr_with_bids` | warning | `/nbr` | `nbr` present although the response has bids | §4.2.1: `nbr` is the "reason for not bidding" |
//! | `missing_id` | error | `…/bid/N/id` | bid has no (or an empty) `id` | §4.2.3: `id` "string; required" |
//! | `duplicate_bid_id` | error | `…/bid/N/id` | bid `id` equals an earlier bid's `id` in the response | §4.2.3: `id` is the bid's ID "for logging/tracking"; win/billing/loss notices (§4.4) cannot tell two bids with one id apart |
//! | `missing_impid` | error | `…/bid/N/impid` | no (or an empty) `impid` | §4.2.3: `impid` "string; required" |
//! | `missing_price` | error | `…/bid/N/price` | no `price` | §4.2.3: `price` "float; required" |
//! | `price_not_finite` | error | `…/bid/N/price` | `price` is NaN or infinite (e.g. `"1e999"`) | §4.2.3: `price` is a CPM amount |
//! | `negative_price` | error | `…/bid/N/price` | `price` < 0 | §4.2.3: `price` is an offer to pay |
//! | `zero_price` | warning | `…/bid/N/price` | `price` = 0 and no `dealid` | §4.2.3 (an offer to buy "for a given price"); a zero price only makes sense under deal terms (§7.3 PMP & Direct Deals) |
//! | `missing_crid` | warning | `…/bid/N/crid` | no (or an empty) `crid` | §4.2.3: `crid` "to assist with ad quality checking"; exchanges commonly require it for creative review |
//! | `missing_markup` | error | `…/bid/N` | neither a non-empty `adm` nor `nurl` | §4.3: markup is served in the bid (`adm`, §4.3.2) or on the win notice (`nurl`, §4.3.1) |
//! | `invalid_mtype` | error | `…/bid/N/mtype` | `mtype` outside 1–4 | §4.2.3: `mtype` values 1 banner, 2 video, 3 audio, 4 native |
//! | `invalid_size` | error | `…/bid/N/w`, `…/h` | `w` or `h` present and ≤ 0 | §4.2.3: `w`/`h` are the creative's size in device-independent pixels |

use std::collections::HashSet;

use crate::bid::Bid;
use crate::decode::Status;
use crate::issue::{Issue, Severity};
use crate::paths;
use crate::response::BidResponse;

/// Above this many bids, duplicate ids are found with a hash set instead of pairwise comparison.
const PAIRWISE_LIMIT: usize = 64;

fn push(
    issues: &mut Vec<Issue>,
    path: String,
    code: &'static str,
    severity: Severity,
    message: String,
) {
    issues.push(Issue {
        path,
        code,
        severity,
        message,
    });
}

fn is_blank(v: Option<&str>) -> bool {
    v.is_none_or(str::is_empty)
}

/// True when `cur` is an ISO 4217 alpha code in form: exactly three ASCII uppercase letters.
pub fn is_currency_code(cur: &str) -> bool {
    cur.len() == 3 && cur.bytes().all(|b| b.is_ascii_uppercase())
}

/// Runs every rule of the table above, appending findings to `issues` in document order.
pub(crate) fn validate(response: &BidResponse<'_>, status: Status, issues: &mut Vec<Issue>) {
    if status == Status::Bid && is_blank(response.id.as_deref()) {
        let message =
            "the bid response has bids but no id (OpenRTB 2.6 §4.2.1: required)".to_owned();
        push(
            issues,
            "/id".to_owned(),
            "missing_id",
            Severity::Error,
            message,
        );
    }
    if let Some(cur) = response.cur.as_deref().filter(|c| !is_currency_code(c)) {
        let message =
            format!("cur {cur:?} is not an ISO 4217 alpha code (three uppercase letters)");
        push(
            issues,
            "/cur".to_owned(),
            "invalid_currency",
            Severity::Error,
            message,
        );
    }
    if let (Some(nbr), Status::Bid) = (response.nbr, status) {
        let message = format!(
            "nbr {} (a reason for not bidding) is present although the response has bids",
            nbr.0
        );
        push(
            issues,
            "/nbr".to_owned(),
            "nbr_with_bids",
            Severity::Warning,
            message,
        );
    }

    let total: usize = response.seatbid.iter().map(|s| s.bid.len()).sum();
    let mut ids: Option<HashSet<&str>> = (total > PAIRWISE_LIMIT).then(HashSet::new);
    for (si, seat) in response.seatbid.iter().enumerate() {
        for (bi, bid) in seat.bid.iter().enumerate() {
            let duplicate = match (bid.id.as_deref().filter(|id| !id.is_empty()), ids.as_mut()) {
                (Some(id), Some(set)) => !set.insert(id),
                (Some(id), None) => earlier_has_id(response, si, bi, id),
                (None, _) => false,
            };
            validate_bid(response, si, bi, bid, duplicate, issues);
        }
    }
}

fn earlier_has_id(response: &BidResponse<'_>, si: usize, bi: usize, id: &str) -> bool {
    response.seatbid[..=si].iter().enumerate().any(|(s, seat)| {
        let end = if s == si { bi } else { seat.bid.len() };
        seat.bid[..end].iter().any(|b| b.id.as_deref() == Some(id))
    })
}

fn validate_bid(
    response: &BidResponse<'_>,
    si: usize,
    bi: usize,
    bid: &Bid<'_>,
    duplicate: bool,
    issues: &mut Vec<Issue>,
) {
    // The bid's pointer is only built when there is something to report.
    let mut prefix: Option<String> = None;
    let mut at = |field: &str| {
        let p = prefix.get_or_insert_with(|| paths::bid(response, si, bi));
        if field.is_empty() {
            p.clone()
        } else {
            paths::field(p, field)
        }
    };

    if is_blank(bid.id.as_deref()) {
        push(
            issues,
            at("id"),
            "missing_id",
            Severity::Error,
            "bid has no id (OpenRTB 2.6 §4.2.3: required)".into(),
        );
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
        let message = "bid has no impid (OpenRTB 2.6 §4.2.3: required)".to_owned();
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
            let message = "bid has no price (OpenRTB 2.6 §4.2.3: required)".to_owned();
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
            let message = "price is 0 and the bid is not under a deal (no dealid)".to_owned();
            push(
                issues,
                at("price"),
                "zero_price",
                Severity::Warning,
                message,
            );
        }
        Some(_) => {}
    }
    if is_blank(bid.crid.as_deref()) {
        let message =
            "bid has no crid (creative ID for ad-quality checks, OpenRTB 2.6 §4.2.3)".to_owned();
        push(
            issues,
            at("crid"),
            "missing_crid",
            Severity::Warning,
            message,
        );
    }
    let has_adm = bid.adm.as_ref().is_some_and(|a| !a.is_empty());
    if !has_adm && is_blank(bid.nurl.as_deref()) {
        let message =
            "bid has neither adm nor nurl: no markup to serve (OpenRTB 2.6 §4.3)".to_owned();
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
