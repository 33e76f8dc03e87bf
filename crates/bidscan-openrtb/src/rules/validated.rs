//! [`Validated`]: a response validated against its request, made by applying every rule of a [`Policy`].

use super::bid;
use super::policy::{Action, Policy};
use super::table::Rule;
use super::verdict::{BidStatus, Findings, StatusCodes, Verdicts, note_left_out};
use crate::pair::Pair;

/// A response validated against its request.
#[derive(Clone, Debug, PartialEq)]
pub struct Validated<'a> {
    /// The request and decoded response; `pair.decoded.issues` holds decode's issues, then the rules' findings.
    pub pair: Pair<'a>,
    /// The status code of each issue of `pair.decoded.issues` (same length): the rule's code for a rule's finding
    /// (`warn` or `enforce`), `None` for coercions, for warnings no rule stands behind, and for a skipped rule.
    pub statuscodes: StatusCodes,
    /// One per bid, in document order (all seat bids' bids in a row).
    pub verdicts: Verdicts,
}

impl<'a> Validated<'a> {
    /// Applies every rule of `policy` to `pair` (see the module docs). Never fails, never panics.
    ///
    /// `pair` is as [`decode_pair`](crate::decode_pair) gives it: the `duplicate_id` rule stands behind decode's
    /// `duplicate_bid_id` findings, so which bids repeat an id is only worked out again when decode found one.
    // Inlined: the `Pair` (hundreds of bytes) is then moved into the `Validated` in the caller's frame, not
    // copied into an out-of-line call and out again (12 k instructions a pass over the 249 real pairs).
    #[inline]
    pub fn new(mut pair: Pair<'a>, policy: &Policy) -> Validated<'a> {
        let mut issues = std::mem::take(&mut pair.decoded.issues);
        let mut duplicates_found = false;
        let mut statuscodes: StatusCodes = issues
            .iter()
            .map(|i| {
                let rule = Rule::of_decode_finding(i.code);
                duplicates_found |= rule == Some(Rule::DuplicateId);
                rule.filter(|r| policy.action(*r) != Action::Skip)
                    .map(Rule::statuscode)
            })
            .collect();
        let mut unlisted = std::mem::take(&mut pair.decoded.unlisted);
        // Past `MAX_ISSUES`, decode's findings are counted, not listed.
        duplicates_found |= unlisted
            .iter()
            .any(|(code, _, _)| Rule::of_decode_finding(code) == Some(Rule::DuplicateId));
        let mut findings = Findings {
            issues: &mut issues,
            statuscodes: &mut statuscodes,
            left_out: 0,
            unlisted: &mut unlisted,
        };
        let verdicts = bid::check(&pair, policy, duplicates_found, &mut findings);
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
