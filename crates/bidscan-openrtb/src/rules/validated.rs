//! [`Validated`]: a response validated against its request, made by applying every rule of a [`Policy`].

use super::per_bid;
use super::policy::{Action, Policy};
use super::table::Rule;
use super::verdict::{BidStatus, Findings, StatusCodes, Verdicts, note_left_out};
use bidscan_json::Reader;
use bidscan_markup::Inspector;

use crate::decode::pair::{self, Pair};
use crate::decode::{DecodeError, Mode};

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
    /// [`Validated::decode`] does both steps without moving the pair.
    pub fn new(pair: Pair<'a>, policy: &Policy) -> Validated<'a> {
        let mut validated = Validated {
            pair,
            statuscodes: StatusCodes::new(),
            verdicts: Verdicts::new(),
        };
        validated.apply(policy);
        validated
    }

    /// [`decode_pair`](crate::decode_pair) of the envelope in `input`, then [`Validated::new`] with `policy`,
    /// the pair decoded where it stays (a `Pair` is hundreds of bytes; moved out of `decode_pair`'s `Result`
    /// and into the `Validated` it was two copies: 36 k instructions a pass over the 249 real pairs).
    ///
    /// # Errors
    /// As [`decode_pair`](crate::decode_pair).
    #[inline]
    pub fn decode(
        reader: &mut Reader,
        input: &'a mut [u8],
        mode: Mode,
        policy: &Policy,
    ) -> Result<Validated<'a>, DecodeError> {
        Self::decode_with(reader, input, mode, None, policy)
    }

    /// [`Validated::decode`] with every bid's `adm` inspected, as
    /// [`decode_pair_inspected`](crate::decode_pair_inspected) does.
    ///
    /// # Errors
    /// As [`decode_pair`](crate::decode_pair).
    pub fn decode_inspected(
        reader: &mut Reader,
        input: &'a mut [u8],
        mode: Mode,
        inspector: &mut Inspector,
        policy: &Policy,
    ) -> Result<Validated<'a>, DecodeError> {
        Self::decode_with(reader, input, mode, Some(inspector), policy)
    }

    #[inline]
    fn decode_with(
        reader: &mut Reader,
        input: &'a mut [u8],
        mode: Mode,
        inspector: Option<&mut Inspector>,
        policy: &Policy,
    ) -> Result<Validated<'a>, DecodeError> {
        let mut validated = Validated {
            pair: Pair::empty(),
            statuscodes: StatusCodes::new(),
            verdicts: Verdicts::new(),
        };
        pair::fill(reader, input, mode, inspector, &mut validated.pair)?;
        validated.apply(policy);
        Ok(validated)
    }

    /// The rules of `policy` applied to `self.pair`: its issues get the findings, `statuscodes` (empty) and
    /// `verdicts` (empty) their entries, each written where it stays.
    fn apply(&mut self, policy: &Policy) {
        let Validated {
            pair,
            statuscodes,
            verdicts,
        } = self;
        let mut issues = std::mem::take(&mut pair.decoded.issues);
        let mut duplicates_found = false;
        statuscodes.extend(issues.iter().map(|i| {
            let rule =
                (i.severity == crate::Severity::Error).then(|| super::table::claiming(i.code));
            duplicates_found |= rule == Some(Rule::DuplicateId);
            rule.filter(|r| policy.action(*r) != Action::Skip)
                .map(Rule::statuscode)
        }));
        let mut unlisted = std::mem::take(&mut pair.decoded.unlisted);
        // Past `MAX_ISSUES`, decode's findings are counted, not listed.
        duplicates_found |= unlisted
            .iter()
            .any(|(code, _, _)| code == "duplicate_bid_id");
        let mut findings = Findings {
            issues: &mut issues,
            statuscodes,
            left_out: 0,
            unlisted: &mut unlisted,
        };
        per_bid::check(pair, policy, duplicates_found, &mut findings, verdicts);
        let left_out = findings.left_out;
        if left_out > 0 {
            note_left_out(&mut issues, statuscodes, left_out);
        }
        pair.decoded.issues = issues;
        pair.decoded.unlisted = unlisted;
    }

    /// Number of rejected bids.
    pub fn rejected(&self) -> usize {
        self.verdicts
            .iter()
            .filter(|v| v.status == BidStatus::Rejected)
            .count()
    }
}
