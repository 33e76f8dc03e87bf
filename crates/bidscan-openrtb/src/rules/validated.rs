//! [`Validated`]: a response validated against its request, made by applying every rule of a [`Policy`].

use super::per_bid;
use super::policy::{Action, Policy};
use super::table::{Rule, claiming};
use super::verdict::{BidStatus, Findings, StatusCodes, Verdicts, note_left_out};
use bidscan_json::Reader;
use bidscan_markup::Inspector;

use crate::checks::issue::{Issue, Severity, Unlisted};
use crate::checks::paths::{self, Object};
use crate::decode::pair::{self, Pair};
use crate::decode::{DecodeError, Mode};
use crate::model::response::BidResponse;

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
    /// The policy's `nonbid_markup`: [`seatnonbid`](Validated::seatnonbid) keeps the rejected bids' `adm`.
    pub nonbid_markup: bool,
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
            nonbid_markup: false,
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
            nonbid_markup: false,
        };
        pair::fill(reader, input, mode, inspector, &mut validated.pair)?;
        validated.apply(policy);
        Ok(validated)
    }

    /// The rules of `policy` applied to `self.pair`: its issues get the findings, `statuscodes` (empty) and
    /// `verdicts` (empty) their entries, each written where it stays.
    fn apply(&mut self, policy: &Policy) {
        self.nonbid_markup = policy.nonbid_markup;
        let Validated {
            pair,
            statuscodes,
            verdicts,
            ..
        } = self;
        let mut issues = std::mem::take(&mut pair.decoded.issues);
        let mut duplicates_found = false;
        let mut errors = false;
        statuscodes.extend(issues.iter().map(|i| {
            let rule = (i.severity == Severity::Error).then(|| claiming(i.code));
            errors |= rule.is_some();
            duplicates_found |= rule == Some(Rule::DuplicateId);
            rule.filter(|r| policy.action(*r) != Action::Skip)
                .map(Rule::statuscode)
        }));
        let mut unlisted = std::mem::take(&mut pair.decoded.unlisted);
        // Past `MAX_ISSUES`, decode's findings are counted, not listed.
        duplicates_found |= unlisted
            .iter()
            .any(|(code, _, _)| code == "duplicate_bid_id");
        // Every error on a bid rejects it (the rule claiming it decides); errors found but not listed could be
        // any bid's, so then every bid is the general rule's.
        let claims = if errors || unlisted.count(Severity::Error) > 0 {
            claims(&pair.decoded.response, &issues, &unlisted, policy)
        } else {
            Vec::new()
        };
        let mut findings = Findings {
            issues: &mut issues,
            statuscodes,
            left_out: 0,
            unlisted: &mut unlisted,
        };
        per_bid::check(
            pair,
            policy,
            duplicates_found,
            &claims,
            &mut findings,
            verdicts,
        );
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

/// The enforced rule that rejects each bid (document order, all seat bids' bids in a row) for the errors decode
/// and the markup inspection reported, the first in table order where several do; `None`: no error claims it.
///
/// An error under `/seatbid/i/bid/j` is bid j's; an error on a seat bid's own member rejects the seat's bids, and
/// one on the response's own member every bid (`invalid_bid`): the answer the bids came in is not what the
/// bidder meant to send. An error at an array element that was dropped (`"bid": [5]`) names no bid. With errors
/// left unlisted (past `MAX_ISSUES`) every bid is rejected by `invalid_bid`.
fn claims(
    response: &BidResponse<'_>,
    issues: &[Issue],
    unlisted: &Unlisted,
    policy: &Policy,
) -> Vec<Option<Rule>> {
    let enforced = |rule: Rule| policy.action(rule) == Action::Enforce;
    let mut claims: Vec<Option<Rule>> = Vec::new();
    let mut seats: Vec<(String, std::ops::Range<usize>, Vec<String>)> = Vec::new();
    for (si, seat) in response.seatbid.iter().enumerate() {
        let from = claims.len();
        claims.extend(seat.bid.iter().map(|_| None));
        let bids = (0..seat.bid.len())
            .map(|bi| paths::object(response, Object::Bid(si, bi)))
            .collect();
        seats.push((
            paths::object(response, Object::Seat(si)),
            from..claims.len(),
            bids,
        ));
    }
    let mut claim = |at: usize, rule: Rule| {
        let slot = &mut claims[at];
        if slot.is_none_or(|r| rule < r) {
            *slot = Some(rule);
        }
    };
    let under = |path: &str, prefix: &str| {
        path.strip_prefix(prefix)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    };
    if unlisted.count(Severity::Error) > 0 && enforced(Rule::InvalidBid) {
        for at in 0..seats.last().map_or(0, |s| s.1.end) {
            claim(at, Rule::InvalidBid);
        }
    }
    for issue in issues.iter().filter(|i| i.severity == Severity::Error) {
        let rule = claiming(issue.code);
        if !enforced(rule) {
            continue;
        }
        let path = issue.path.as_str();
        if !under(path, "/seatbid") {
            for at in 0..seats.last().map_or(0, |s| s.1.end) {
                claim(at, rule);
            }
            continue;
        }
        let Some((seat_path, range, bids)) = seats.iter().find(|(p, _, _)| under(path, p)) else {
            continue;
        };
        let in_seat = &path[seat_path.len()..];
        if under(in_seat, "/bid") {
            if let Some(bi) = bids.iter().position(|p| under(path, p)) {
                claim(range.start + bi, rule);
            }
        } else {
            for at in range.clone() {
                claim(at, rule);
            }
        }
    }
    claims
}
