//! The rule between the bidders of an auction: `duplicate_id_across_bidders` (302), a bid `id` that an earlier
//! bidder's response already used.
//!
//! Bid ids are each bidder's own (OpenRTB 2.6 §4.2.3 `id`: "Bidder generated bid ID to assist with logging/
//! tracking"), so two bidders' ids may legitimately collide: the rule is `warn` by default. Where an exchange keys
//! bids by id alone, it enforces the rule, and the later bid is rejected with 302 ("Response Rejected -
//! Duplicate"). The rule is applied after every other rule of the bid, so it only rejects a bid no other rule
//! rejected; a seat that bids as a group (`seatbid.group` = 1) then loses its other bids by `group`, as within one
//! response.

use super::per_bid::{Part, clipped, group, message};
use super::policy::{Action, Policy};
use super::table::Rule;
use super::verdict::{BidStatus, Findings, StatusCodes, Verdict, Verdicts, note_left_out};
use crate::checks::paths::{self, Object};
use crate::decode::Decoded;

/// Applies `duplicate_id_across_bidders` to a response judged by the other rules (`statuscodes` one per issue of
/// `decoded`, `verdicts` one per bid): each bid whose `id` an earlier bidder used (`earlier` gives that bidder's
/// name) gets a finding at its `id` (severity warning with `warn`, error with `enforce`, status code 302 either
/// way) and, enforced, is rejected unless another rule rejected it already. Findings past
/// [`MAX_ISSUES`](crate::checks::MAX_ISSUES) are counted, not listed.
pub(crate) fn duplicate_ids<'n>(
    decoded: &mut Decoded<'_>,
    statuscodes: &mut StatusCodes,
    verdicts: &mut Verdicts,
    policy: &Policy,
    earlier: impl Fn(&str) -> Option<&'n str>,
) {
    let action = policy.action(Rule::DuplicateIdAcrossBidders);
    if action == Action::Skip {
        return;
    }
    let Decoded {
        response,
        issues,
        unlisted,
        ..
    } = decoded;
    let mut findings = Findings {
        issues,
        statuscodes,
        left_out: 0,
        unlisted,
    };
    let mut position = 0;
    for (si, seat) in response.seatbid.iter().enumerate() {
        let first = position;
        let mut lost = false;
        let had_lost = verdicts[first..first + seat.bid.len()]
            .iter()
            .any(|v| v.status == BidStatus::Rejected);
        for (bi, bid) in seat.bid.iter().enumerate() {
            let at = position;
            position += 1;
            let Some(id) = bid.id.as_deref().filter(|id| !id.is_empty()) else {
                continue;
            };
            let Some(bidder) = earlier(id) else {
                continue;
            };
            let text = message(&[
                Part::Text("the bid id "),
                Part::Quoted(&clipped(id)),
                Part::Text(" is also a bid id of bidder "),
                Part::Quoted(&clipped(bidder)),
                Part::Text(", an earlier part of the auction"),
            ]);
            let path = paths::field(response, Object::Bid(si, bi), "id");
            findings.rule(
                Rule::DuplicateIdAcrossBidders,
                action,
                path,
                "duplicate_id_across_bidders",
                text,
            );
            if action == Action::Enforce && verdicts[at].status == BidStatus::Accepted {
                verdicts[at] = Verdict {
                    status: BidStatus::Rejected,
                    rule: Some(Rule::DuplicateIdAcrossBidders),
                };
                lost = true;
            }
        }
        // A group that had lost a bid already got its `group` findings from the other rules.
        if lost && !had_lost && seat.group == Some(1) {
            group(
                response,
                si,
                policy,
                &mut findings,
                &mut verdicts[first..position],
            );
        }
    }
    let left_out = findings.left_out;
    if left_out > 0 {
        note_left_out(issues, statuscodes, left_out);
    }
}
