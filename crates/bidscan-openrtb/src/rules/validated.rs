//! [`Validated`]: a response validated against its request, made by applying every rule of a [`Policy`].

use super::bid;
use super::policy::{Action, Policy};
use super::table::Rule;
use super::verdict::{BidStatus, Findings, Verdict, note_left_out};
use crate::pair::Pair;

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
        let mut unlisted = std::mem::take(&mut pair.decoded.unlisted);
        let mut findings = Findings {
            issues: &mut issues,
            statuscodes: &mut statuscodes,
            left_out: 0,
            unlisted: &mut unlisted,
        };
        let verdicts = bid::check(&pair, policy, &mut findings);
        let left_out = findings.left_out;
        if left_out > 0 {
            note_left_out(&mut issues, &mut statuscodes, left_out);
        }
        pair.decoded.issues = issues;
        pair.decoded.unlisted = unlisted;
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
