//! Validation of a bid response against the bid request it answers: each bid accepted or rejected, with the IAB
//! seat-non-bid status code of the first enforced rule that rejects it (openrtb `extensions/community_extensions/
//! seat-non-bid.md`, "List: Non-Bid Status Codes").
//!
//! Every rule is `skip | warn | enforce` in a [`Policy`] (default `enforce`). A finding is an [`Issue`] with the
//! rule's status code; with `enforce` it has severity error and rejects the bid, with `warn` it is a warning and the
//! bid stays accepted. One bad bid never fails the response: rejected bids stay in the answer, marked. Rules are
//! applied in this order; the first enforced one that finds something gives the bid its `statuscode`.
//!
//! | rule | code | finding | pointer | when | source |
//! |---|---|---|---|---|---|
//! | `unknown_imp` | 300 | `unknown_impid` | `…/bid/N/impid` | `impid` is not the `id` of an `imp` of the request | OpenRTB 2.6 §4.2.3: `impid` is the "ID of the Imp object in the related bid request" |
//! | `invalid_bid` | 300 | `missing_id`, `missing_impid`, `missing_price`, `price_not_finite`, `negative_price` (decode's findings), `invalid_currency`, `missing_id` at `/id` | as decoded | the response-only rules of [`validate`](crate::validate); the response-level ones reject every bid | §4.2.1, §4.2.3 (required members) |
//! | `currency` | 300 | `currency_not_allowed` | `/cur` | the response currency (`cur`, `USD` when absent) is not in a non-empty `request.cur`; rejects every bid | §3.2.1: `cur` "array of allowed currencies for bids on this bid request" |
//! | `floor` | 301 | `below_floor` | `…/price` | `price` < `imp.bidfloor`, converted from `bidfloorcur` (default `USD`) with [`Rates`]; no rate: warning `floor_rate_missing` (no status code); not applied to a bid under a deal of the imp | §3.2.4: `bidfloor` "minimum bid for this impression expressed in CPM" |
//! | `duplicate_id` | 302 | `duplicate_bid_id` (decode's finding) | `…/id` | the same bid `id` as an earlier bid of the response (the later one) | §4.2.3 `id` (the bid's ID "for logging/tracking"); 302 as issue 14 assigns it |
//! | `deal` | 304 | `unknown_deal`, `deal_required`, `below_deal_floor` | `…/dealid`, `…/price` | `dealid` not among `imp.pmp.deals`; no `dealid` when `pmp.private_auction` = 1; `price` < the deal's `bidfloor` | §3.2.11 `private_auction`, §3.2.12 `bidfloor`, §4.2.3 `dealid` |
//! | `blocked_attribute` | 350 | `blocked_attribute` | `…/attr` | `attr` ∩ the `battr` of the imp's slot for the bid's media type | §3.2.6/7/8/9 `battr`; 350 "Creative Filtered - General" |
//! | `duration` | 350 | `duration_out_of_range` | `…/dur` | video/audio `dur` < `minduration` or > `maxduration` | §3.2.7, §3.2.8 |
//! | `size` | 351 | `size_not_allowed` | `…/w` | banner `w`×`h` is neither a `format` entry nor `banner.w`×`banner.h` | §3.2.6, §3.2.10; 351 "Creative Filtered - Size Not Allowed"; prebid-server's banner-creative-max-size |
//! | `secure` | 352 | `insecure_markup`, `insecure_url` | `…/adm`, `…/nurl`, `…/burl`, `…/iurl` | `imp.secure` = 1 and an `http://` URL in the markup's `src`/`href`/`url(...)` (HTML; in VAST or native markup any `http://`), or `nurl`/`burl`/`iurl` | §3.2.4 `secure`; 352 "Creative Filtered - Not Secure"; prebid-server's secure-markup validation |
//! | `media_type` | 353 | `media_type_not_offered`, `markup_contradicts_mtype` | `…/mtype`, `…/adm` | `mtype` (or, without it, VAST or native markup) names a slot the imp does not offer; markup sniffed as another kind than `mtype` | §4.2.3 `mtype`; 353 "Creative Filtered - Incorrect Creative Format" |
//! | `blocked_advertiser` | 356 | `blocked_advertiser`, `blocked_app` | `…/adomain`, `…/bundle` | an `adomain` equal to, or a subdomain of, a `badv` entry (ASCII case-insensitive); `bundle` in `bapp` | §3.2.1 `badv`, `bapp`; 356 "Creative Filtered - Advertiser Blocked" |
//! | `blocked_category` | 357 | `blocked_category` | `…/cat` | a `cat` in `bcat`, or under one (`IAB1` blocks `IAB1-5`), when bid and request use the same `cattax` (default 1) | §3.2.1 `bcat`; 357 "Creative Filtered - Category Blocked" |
//!
//! Media type of a bid: `mtype` when 1–4; else from the markup (VAST: video, or audio on an audio-only imp;
//! native JSON: native; `<`-led HTML: banner); else the imp's only slot, if it offers one.

mod bid;
mod policy;
mod view;

use serde::Serialize;

use crate::issue::{Issue, Severity};
use crate::pair::Pair;
use crate::validate::MAX_ISSUES;

pub use policy::{Action, Policy, Rates};
pub use view::{NonBid, NonBidExt, SeatNonBid, ValidatedBid, ValidatedIssue, ValidatedSummary};

/// A response-validation rule (see the table in the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// `impid` not an `imp.id` of the request (300).
    UnknownImp,
    /// Missing or invalid price, id, impid, currency (decode's own rules, 300).
    InvalidBid,
    /// Response currency not allowed by the request (300).
    Currency,
    /// Price below the imp's floor (301).
    Floor,
    /// A bid id used twice (302).
    DuplicateId,
    /// Deal unknown, required, or its floor not met (304).
    Deal,
    /// A creative attribute the slot blocks (350).
    BlockedAttribute,
    /// Video/audio duration outside the slot's range (350).
    Duration,
    /// Banner size not allowed (351).
    Size,
    /// Insecure URL on a secure impression (352).
    Secure,
    /// Media type not offered, or markup of another kind (353).
    MediaType,
    /// Advertiser domain or app blocked (356).
    BlockedAdvertiser,
    /// Category blocked (357).
    BlockedCategory,
}

impl Rule {
    /// Every rule, in the order they are applied.
    pub const ALL: [Rule; 13] = [
        Rule::UnknownImp,
        Rule::InvalidBid,
        Rule::Currency,
        Rule::Floor,
        Rule::DuplicateId,
        Rule::Deal,
        Rule::BlockedAttribute,
        Rule::Duration,
        Rule::Size,
        Rule::Secure,
        Rule::MediaType,
        Rule::BlockedAdvertiser,
        Rule::BlockedCategory,
    ];

    /// The rule's name in configuration and metrics, e.g. `"floor"`.
    pub fn name(self) -> &'static str {
        match self {
            Rule::UnknownImp => "unknown_imp",
            Rule::InvalidBid => "invalid_bid",
            Rule::Currency => "currency",
            Rule::Floor => "floor",
            Rule::DuplicateId => "duplicate_id",
            Rule::Deal => "deal",
            Rule::BlockedAttribute => "blocked_attribute",
            Rule::Duration => "duration",
            Rule::Size => "size",
            Rule::Secure => "secure",
            Rule::MediaType => "media_type",
            Rule::BlockedAdvertiser => "blocked_advertiser",
            Rule::BlockedCategory => "blocked_category",
        }
    }

    /// The seat-non-bid status code of a bid this rule rejects, from the extension's "List: Non-Bid Status
    /// Codes": 300 Response Rejected (general), 301 below floor, 350 Creative Filtered (general), 351 size not
    /// allowed, 352 not secure, 353 incorrect creative format, 356 advertiser blocked, 357 category blocked; 302
    /// (duplicate bid id) and 304 (deal) as issue 14 assigns them.
    pub fn statuscode(self) -> u16 {
        match self {
            Rule::UnknownImp | Rule::InvalidBid | Rule::Currency => 300,
            Rule::Floor => 301,
            Rule::DuplicateId => 302,
            Rule::Deal => 304,
            Rule::BlockedAttribute | Rule::Duration => 350,
            Rule::Size => 351,
            Rule::Secure => 352,
            Rule::MediaType => 353,
            Rule::BlockedAdvertiser => 356,
            Rule::BlockedCategory => 357,
        }
    }

    /// The rule behind one of decode's own findings (see [`validate`](crate::validate)), if one.
    fn of_decode_finding(code: &str) -> Option<Rule> {
        match code {
            "missing_id" | "missing_impid" | "missing_price" | "price_not_finite"
            | "negative_price" | "invalid_currency" => Some(Rule::InvalidBid),
            "duplicate_bid_id" => Some(Rule::DuplicateId),
            _ => None,
        }
    }
}

/// Accepted or rejected. Serializes as `"accepted"` or `"rejected"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BidStatus {
    /// No enforced rule rejects the bid.
    Accepted,
    /// An enforced rule rejects the bid.
    Rejected,
}

/// What happened to one bid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Verdict {
    /// Accepted or rejected.
    pub status: BidStatus,
    /// The first enforced rule that rejects the bid (`None` when accepted).
    pub rule: Option<Rule>,
}

impl Verdict {
    /// The seat-non-bid status code of [`rule`](Self::rule); `None` when accepted.
    pub fn statuscode(&self) -> Option<u16> {
        self.rule.map(Rule::statuscode)
    }
}

/// A response validated against its request.
#[derive(Clone, Debug, PartialEq)]
pub struct Validated<'a> {
    /// The request and decoded response; `pair.decoded.issues` holds decode's issues, then the rules' findings.
    pub pair: Pair<'a>,
    /// The status code of each issue of `pair.decoded.issues` (same length): the rule's code for a rule's finding
    /// (`warn` or `enforce`), `None` for coercions, for warnings no rule stands behind, and for a skipped rule.
    pub statuscodes: Vec<Option<u16>>,
    /// One per bid, in document order (all seat bids' bids in a row).
    pub verdicts: Vec<Verdict>,
}

impl<'a> Validated<'a> {
    /// Applies every rule of `policy` to `pair` (see the module docs). Never fails, never panics.
    pub fn new(mut pair: Pair<'a>, policy: &Policy) -> Validated<'a> {
        let mut issues = std::mem::take(&mut pair.decoded.issues);
        let mut statuscodes: Vec<Option<u16>> = issues
            .iter()
            .map(|i| {
                Rule::of_decode_finding(i.code)
                    .filter(|r| policy.action(*r) != Action::Skip)
                    .map(Rule::statuscode)
            })
            .collect();
        let mut findings = Findings {
            issues: &mut issues,
            statuscodes: &mut statuscodes,
            left_out: 0,
        };
        let verdicts = bid::check(&pair, policy, &mut findings);
        let left_out = findings.left_out;
        if left_out > 0 {
            note_left_out(&mut issues, &mut statuscodes, left_out);
        }
        pair.decoded.issues = issues;
        Validated {
            pair,
            statuscodes,
            verdicts,
        }
    }

    /// Number of rejected bids.
    pub fn rejected(&self) -> usize {
        self.verdicts
            .iter()
            .filter(|v| v.status == BidStatus::Rejected)
            .count()
    }
}

/// Where the rules' findings go, bounded by [`MAX_ISSUES`] like decode's.
pub(crate) struct Findings<'f> {
    issues: &'f mut Vec<Issue>,
    statuscodes: &'f mut Vec<Option<u16>>,
    left_out: usize,
}

impl Findings<'_> {
    fn push(&mut self, issue: Issue, statuscode: Option<u16>) {
        if self.issues.len() >= MAX_ISSUES {
            self.left_out += 1;
            return;
        }
        self.issues.push(issue);
        self.statuscodes.push(statuscode);
    }

    /// Reports a finding of `rule` at `path` under `action` (never `Skip`).
    fn rule(
        &mut self,
        rule: Rule,
        action: Action,
        path: String,
        code: &'static str,
        message: String,
    ) {
        let severity = if action == Action::Enforce {
            Severity::Error
        } else {
            Severity::Warning
        };
        let issue = Issue {
            path,
            code,
            severity,
            message: message.into(),
        };
        self.push(issue, Some(rule.statuscode()));
    }
}

/// Ends the list with the count of findings left out (in the `issues_truncated` warning decode wrote, if any).
fn note_left_out(issues: &mut Vec<Issue>, statuscodes: &mut Vec<Option<u16>>, left_out: usize) {
    let text =
        format!("{left_out} validation findings not listed (at most {MAX_ISSUES} per document)");
    match issues.last_mut() {
        Some(last) if last.code == "issues_truncated" => {
            last.message = format!("{}; {text}", last.message).into();
        }
        _ => {
            issues.push(Issue {
                path: String::new(),
                code: "issues_truncated",
                severity: Severity::Warning,
                message: text.into(),
            });
            statuscodes.push(None);
        }
    }
}
