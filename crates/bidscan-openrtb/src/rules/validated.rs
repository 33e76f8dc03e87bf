//! [`Validated`]: a response validated against its request, made by applying every rule of a [`Policy`].

use super::per_bid;
use super::policy::{Action, Policy};
use super::table::{Rule, rule_of};
use super::verdict::{BidStatus, Findings, StatusCodes, Verdicts, note_left_out};
use bidscan_json::Reader;
use bidscan_markup::Inspector;

use crate::checks::issue::{Issue, Severity, Unlisted};
use crate::checks::paths::{self, Object};
use crate::decode::pair::{self, Pair};
use crate::decode::{DecodeError, Decoded, Mode};
use crate::model::request::BidRequest;
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

    /// The rules of `policy` applied to `self.pair` ([`judge`]).
    #[inline(always)]
    fn apply(&mut self, policy: &Policy) {
        self.nonbid_markup = policy.nonbid_markup;
        let Validated {
            pair,
            statuscodes,
            verdicts,
            ..
        } = self;
        judge(
            &pair.request,
            &mut pair.decoded,
            statuscodes,
            verdicts,
            policy,
        );
    }

    /// Number of rejected bids.
    pub fn rejected(&self) -> usize {
        self.verdicts
            .iter()
            .filter(|v| v.status == BidStatus::Rejected)
            .count()
    }
}

/// A request and a decoded response, borrowed: what the per-bid rules read.
#[derive(Clone, Copy)]
pub(crate) struct PairRef<'r, 'a> {
    pub(crate) request: &'r BidRequest<'a>,
    pub(crate) decoded: &'r Decoded<'a>,
}

/// The rules of `policy` applied to `decoded` against `request`: its issues get the findings, `statuscodes`
/// (empty) and `verdicts` (empty) their entries, each written where it stays. Shared by [`Validated`] and the
/// auction's bidders, so a response is judged alike against a request decoded with it or once for many.
#[inline(always)]
pub(crate) fn judge(
    request: &BidRequest<'_>,
    decoded: &mut Decoded<'_>,
    statuscodes: &mut StatusCodes,
    verdicts: &mut Verdicts,
    policy: &Policy,
) {
    let mut issues = std::mem::take(&mut decoded.issues);
    let mut duplicates_found = false;
    let mut errors = false;
    statuscodes.extend(issues.iter().map(|i| {
        let rule = rule_of(i);
        errors |= rule.is_some();
        duplicates_found |= rule == Some(Rule::DuplicateId);
        rule.filter(|r| policy.action(*r) != Action::Skip)
            .map(Rule::statuscode)
    }));
    let mut unlisted = std::mem::take(&mut decoded.unlisted);
    // Past `MAX_ISSUES`, decode's findings are counted, not listed.
    duplicates_found |= unlisted
        .iter()
        .any(|(code, _, _)| code == "duplicate_bid_id");
    // Every error on a bid rejects it (the rule claiming it decides); errors found but not listed could be
    // any bid's, so then every bid is the general rule's.
    let claims = if errors || unlisted.count(Severity::Error) > 0 {
        claims(&decoded.response, &issues, &unlisted, policy)
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
        PairRef {
            request,
            decoded: &*decoded,
        },
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
    decoded.issues = issues;
    decoded.unlisted = unlisted;
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
    let total: usize = response.seatbid.iter().map(|s| s.bid.len()).sum();
    let mut claims: Vec<Option<Rule>> = vec![None; total];
    let mut claim = |range: std::ops::Range<usize>, rule: Rule| {
        for slot in &mut claims[range] {
            if slot.is_none_or(|r| rule < r) {
                *slot = Some(rule);
            }
        }
    };
    if unlisted.count(Severity::Error) > 0 && enforced(Rule::InvalidBid) {
        claim(0..total, Rule::InvalidBid);
    }
    // The pointers of the seat bids and bids, made only if an issue's own indexes do not name its object (an
    // element dropped before it shifts the pointers of those after it).
    let mut table: Option<Vec<SeatPointers>> = None;
    for (issue, rule) in issues.iter().filter_map(|i| Some((i, rule_of(i)?))) {
        if !enforced(rule) {
            continue;
        }
        let path = issue.path.as_str();
        if !under(path, "/seatbid") {
            claim(0..total, rule);
            continue;
        }
        if let Some(range) = named(response, path) {
            claim(range, rule);
            continue;
        }
        let table = table.get_or_insert_with(|| pointers(response));
        let Some((seat_path, range, bids)) = table.iter().find(|(p, _, _)| under(path, p)) else {
            continue;
        };
        let in_seat = &path[seat_path.len()..];
        if under(in_seat, "/bid") {
            if let Some(bi) = bids.iter().position(|p| under(path, p)) {
                claim(range.start + bi..range.start + bi + 1, rule);
            }
        } else {
            claim(range.clone(), rule);
        }
    }
    claims
}

/// `path` is `prefix` or under it.
fn under(path: &str, prefix: &str) -> bool {
    path.strip_prefix(prefix)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// The bids (positions in document order) an error at `path` is about, when the indexes written in `path` are
/// those of a seat bid (`/seatbid/i/…`: its bids) or a bid (`/seatbid/i/bid/j…`) of the typed response, checked
/// against the object's own pointer; `None` when they are not (an element was dropped before it).
fn named(response: &BidResponse<'_>, path: &str) -> Option<std::ops::Range<usize>> {
    let (si, rest) = index(path.strip_prefix("/seatbid/")?)?;
    let seat = response.seatbid.get(si)?;
    let first: usize = response.seatbid[..si].iter().map(|s| s.bid.len()).sum();
    if let Some(bid) = rest.strip_prefix("/bid/") {
        let (bi, _) = index(bid)?;
        (bi < seat.bid.len() && under(path, &paths::object(response, Object::Bid(si, bi))))
            .then(|| first + bi..first + bi + 1)
    } else {
        (!under(rest, "/bid") && under(path, &paths::object(response, Object::Seat(si))))
            .then(|| first..first + seat.bid.len())
    }
}

/// The decimal index at the start of `text` (a JSON pointer's array index: digits up to the next `/` or the
/// end) and what follows it.
fn index(text: &str) -> Option<(usize, &str)> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let rest = &text[digits..];
    if digits == 0 || !(rest.is_empty() || rest.starts_with('/')) {
        return None;
    }
    Some((text[..digits].parse().ok()?, rest))
}

/// A seat bid's pointer, the positions of its bids (document order), and their pointers.
type SeatPointers = (String, std::ops::Range<usize>, Vec<String>);

/// Every seat bid's pointer, the positions of its bids, and their pointers.
fn pointers(response: &BidResponse<'_>) -> Vec<SeatPointers> {
    let mut from = 0;
    response
        .seatbid
        .iter()
        .enumerate()
        .map(|(si, seat)| {
            let range = from..from + seat.bid.len();
            from = range.end;
            let bids = (0..seat.bid.len())
                .map(|bi| paths::object(response, Object::Bid(si, bi)))
                .collect();
            (paths::object(response, Object::Seat(si)), range, bids)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::index;

    #[test]
    fn index_reads_a_pointer_segment() {
        assert_eq!(index("12/bid/3"), Some((12, "/bid/3")));
        assert_eq!(index("0"), Some((0, "")));
        assert_eq!(index("x/1"), None);
        assert_eq!(index("1x"), None);
        assert_eq!(index(""), None);
        assert_eq!(index("/1"), None);
    }
}
