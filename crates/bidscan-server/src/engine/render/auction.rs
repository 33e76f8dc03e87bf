//! The 200 body of `/validate/auction`, written straight into bytes: byte for byte what `serde_json::to_writer`
//! makes of [`AuctionAnswer`] (`tests/render.rs` checks it on auctions of every real validate pair, both views).
//!
//! Why not serde_json: an auction's answer is five `/validate` answers' summaries, issues and seat non-bids, and
//! serde_json's derive path costs most where they are densest — `ValidatedBid` and `ValidatedIssue` are
//! `#[serde(flatten)]`, serialized through a map with a call per key — 39% of an auction over HTTP
//! (BENCHMARKS.md, "The service: an auction against one call per bidder"). The pieces are the parent module's; the
//! canonical `response` (full view), the rejected bids under `ext.prebid.bid` and each bid's `adm` object still go
//! through serde_json, so those rules live in one place. The answer lists every rejected bid twice (under its
//! bidder and in the auction's `seatnonbid`); the second list is a copy of the first's bytes when it is equal.

use std::ops::Range;

use bidscan_openrtb::rules::{BidStatus, NonBid, ValidatedIssue, ValidatedSummary};
use bidscan_openrtb::{AuctionAnswer, BidderAnswer, BidderStatus, Severity};

use super::{bid_summary_members, int, opt_str, status, string};

/// Appends `answer` as compact JSON to `out`.
///
/// # Errors
/// Only what serde_json reports for a response or a rejected bid (a failing `Serialize` impl; the model has
/// none).
pub fn write_auction<'s>(out: &mut Vec<u8>, answer: &AuctionAnswer<'s>) -> serde_json::Result<()> {
    out.extend_from_slice(b"{\"request\":{\"id\":");
    opt_str(out, answer.request.id);
    out.extend_from_slice(b",\"imps\":[");
    for (i, imp) in answer.request.imps.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        opt_str(out, *imp);
    }
    out.extend_from_slice(b"]},\"bidders\":[");
    // Where each bidder's seats' `nonbid` arrays were written, in order: the answer's own `seatnonbid` holds the
    // same lists again, and a list equal to the one written there is copied rather than serialized twice.
    let mut written: Vec<(&[NonBid<'s>], Range<usize>)> = Vec::new();
    for (i, bidder) in answer.bidders.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        bidder_answer(out, bidder, &mut written)?;
    }
    out.extend_from_slice(b"],\"seatnonbid\":[");
    for (i, seat) in answer.seatnonbid.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"seat\":");
        string(out, seat.seat);
        out.extend_from_slice(b",\"nonbid\":");
        match written.get(i) {
            Some((nonbid, range)) if *nonbid == seat.nonbid.as_slice() => {
                out.extend_from_within(range.clone());
            }
            _ => nonbid_list(out, &seat.nonbid)?,
        }
        out.push(b'}');
    }
    out.extend_from_slice(b"]}");
    Ok(())
}

/// `b`, the place of each of its seats' `nonbid` array pushed on `written`.
fn bidder_answer<'a, 's>(
    out: &mut Vec<u8>,
    b: &'a BidderAnswer<'s>,
    written: &mut Vec<(&'a [NonBid<'s>], Range<usize>)>,
) -> serde_json::Result<()> {
    out.extend_from_slice(b"{\"bidder\":");
    string(out, b.bidder);
    out.extend_from_slice(b",\"status\":");
    out.extend_from_slice(match b.status {
        BidderStatus::Bid => b"\"bid\"",
        BidderStatus::Nobid => b"\"nobid\"",
        BidderStatus::Invalid => b"\"invalid\"",
        BidderStatus::Timeout => b"\"timeout\"",
        BidderStatus::Unreachable => b"\"unreachable\"",
        BidderStatus::Error => b"\"error\"",
    });
    if let Some(response) = b.response {
        out.extend_from_slice(b",\"response\":");
        serde_json::to_writer(&mut *out, response)?;
    }
    out.extend_from_slice(b",\"summary\":");
    summary(out, &b.summary);
    out.extend_from_slice(b",\"issues\":[");
    for (i, issue) in b.issues.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        validated_issue(out, issue);
    }
    out.extend_from_slice(b"],\"seatnonbid\":[");
    for (i, seat) in b.seatnonbid.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"seat\":");
        string(out, seat.seat);
        out.extend_from_slice(b",\"nonbid\":");
        let start = out.len();
        nonbid_list(out, &seat.nonbid)?;
        written.push((&seat.nonbid, start..out.len()));
        out.push(b'}');
    }
    out.extend_from_slice(b"]}");
    Ok(())
}

fn summary(out: &mut Vec<u8>, s: &ValidatedSummary<'_>) {
    out.extend_from_slice(b"{\"status\":");
    status(out, s.status);
    out.extend_from_slice(b",\"id\":");
    opt_str(out, s.id);
    out.extend_from_slice(b",\"cur\":");
    string(out, s.cur);
    out.extend_from_slice(b",\"nbr\":");
    match s.nbr {
        Some(nbr) => int(out, nbr.0),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"seats\":");
    int(out, s.seats);
    out.extend_from_slice(b",\"bid_count\":");
    int(out, s.bid_count);
    out.extend_from_slice(b",\"errors\":");
    int(out, s.errors);
    out.extend_from_slice(b",\"warnings\":");
    int(out, s.warnings);
    out.extend_from_slice(b",\"accepted\":");
    int(out, s.accepted);
    out.extend_from_slice(b",\"rejected\":");
    int(out, s.rejected);
    out.extend_from_slice(b",\"bids\":[");
    for (i, bid) in s.bids.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        // `ValidatedBid`: the summary line's members, then its verdict (`#[serde(flatten)]`).
        bid_summary_members(out, &bid.bid);
        out.extend_from_slice(match bid.status {
            BidStatus::Accepted => b",\"status\":\"accepted\",\"statuscode\":",
            BidStatus::Rejected => b",\"status\":\"rejected\",\"statuscode\":",
        });
        opt_code(out, bid.statuscode);
        out.push(b'}');
    }
    out.extend_from_slice(b"]}");
}

/// `ValidatedIssue`: the issue's members, then its status code (`#[serde(flatten)]`).
fn validated_issue(out: &mut Vec<u8>, v: &ValidatedIssue<'_>) {
    out.extend_from_slice(b"{\"path\":");
    string(out, &v.issue.path);
    out.extend_from_slice(b",\"code\":");
    string(out, v.issue.code);
    out.extend_from_slice(match v.issue.severity {
        Severity::Error => b",\"severity\":\"error\",\"message\":",
        Severity::Warning => b",\"severity\":\"warning\",\"message\":",
    });
    string(out, &v.issue.message);
    out.extend_from_slice(b",\"statuscode\":");
    opt_code(out, v.statuscode);
    out.push(b'}');
}

fn nonbid_list(out: &mut Vec<u8>, nonbid: &[NonBid<'_>]) -> serde_json::Result<()> {
    out.push(b'[');
    for (i, n) in nonbid.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        nonbid_entry(out, n)?;
    }
    out.push(b']');
    Ok(())
}

fn nonbid_entry(out: &mut Vec<u8>, n: &NonBid<'_>) -> serde_json::Result<()> {
    out.extend_from_slice(b"{\"impid\":");
    opt_str(out, n.impid);
    out.extend_from_slice(b",\"statuscode\":");
    int(out, n.statuscode);
    if let Some(ext) = &n.ext {
        out.extend_from_slice(b",\"ext\":{\"prebid\":{\"bid\":");
        serde_json::to_writer(&mut *out, &*ext.prebid.bid)?;
        out.extend_from_slice(b"}}");
    }
    out.push(b'}');
    Ok(())
}

fn opt_code(out: &mut Vec<u8>, code: Option<u16>) {
    match code {
        Some(code) => int(out, code),
        None => out.extend_from_slice(b"null"),
    }
}
