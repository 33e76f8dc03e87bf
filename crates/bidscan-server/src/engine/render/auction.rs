//! The 200 body of `/validate/auction`, written straight from the [`Auction`] into bytes: byte for byte what
//! `serde_json::to_writer` makes of [`Auction::answer`] (`tests/render.rs` checks it on auctions of every real
//! validate pair, both views).
//!
//! Why not serde_json: an auction's answer is five `/validate` answers' summaries, issues and seat non-bids, and
//! serde_json's derive path costs most where they are densest — `ValidatedBid` and `ValidatedIssue` are
//! `#[serde(flatten)]`, serialized through a map with a call per key, and a rejected bid's canonical copy is a
//! call per member. Nor is [`Auction::answer`] built: its lists (each bid's verdict, each issue's code, every
//! rejected bid, a copy of a bid without its `adm`) are walked where they lie. The pieces are the parent
//! module's; the canonical `response` (full view) and a rejected bid's `adm` (kept by
//! the policy's `nonbid_markup`) still go through serde_json, so those rules live in one place. The answer lists
//! every rejected bid twice (under its bidder and in the auction's `seatnonbid`); the second list is a copy of
//! the first's bytes.

use std::ops::Range;

use bidscan_openrtb::compact::compact;
use bidscan_openrtb::rules::{BidStatus, Verdicts};
use bidscan_openrtb::{Auction, Bid, Bidder, BidderStatus, Decoded, Issue, SeatBid, Severity};

use super::growing::{Growing, Refused};
use super::{bid_summary_members, int, opt_str, string, summary_head};

/// Appends the answer of `auction` as compact JSON to `out`: what `serde_json::to_writer` makes of
/// `auction.answer(echo_response)`. The server writes the same bytes a bidder at a time with `AuctionWriter`.
///
/// # Errors
/// Only what serde_json reports for a response or a markup (a failing `Serialize` impl; the model has none).
pub fn write_auction(
    out: &mut Vec<u8>,
    auction: &Auction<'_>,
    echo_response: bool,
) -> serde_json::Result<()> {
    let mut unbounded = |_| true;
    let start = out.len();
    let mut growing = Growing::with_capacity(0, &mut unbounded).map_err(unwritten)?;
    let result = (|| {
        let mut writer = AuctionWriter::begin(auction, echo_response, &mut growing)?;
        for bidder in &auction.bidders {
            writer.bidder(auction, bidder, &mut growing)?;
        }
        writer.end(&mut growing)
    })();
    match result {
        Ok(()) => {
            out.extend_from_slice(growing.written());
            Ok(())
        }
        Err(Unwritten::Json(e)) => {
            out.truncate(start);
            Err(e)
        }
        Err(Unwritten::Refused) => Err(unwritten(Refused)),
    }
}

fn unwritten(_: Refused) -> serde_json::Error {
    <serde_json::Error as serde::ser::Error>::custom("an unbounded hold refused")
}

/// Why a piece of an answer was not written.
#[derive(Debug)]
pub enum Unwritten {
    /// The answer's hold had no room for it.
    Refused,
    /// What serde_json reports for a response or a markup.
    Json(serde_json::Error),
}

impl From<Refused> for Unwritten {
    fn from(_: Refused) -> Unwritten {
        Unwritten::Refused
    }
}

impl From<serde_json::Error> for Unwritten {
    fn from(e: serde_json::Error) -> Unwritten {
        Unwritten::Json(e)
    }
}

/// The JSON answer of an auction written a bidder at a time into a [`Growing`] buffer, as each bidder is judged,
/// so that a judged bidder's model can be dropped before the next is decoded and the answer's memory is held as
/// it grows: [`begin`](Self::begin) (the request), [`bidder`](Self::bidder) per bidder, [`end`](Self::end) (the
/// auction's `seatnonbid`). Each bidder is written into a scratch buffer first (its answer's size is known only
/// once written) and appended, the scratch held beside the answer meanwhile.
pub struct AuctionWriter {
    echo_response: bool,
    scratch: Vec<u8>,
    /// Each seat's `nonbid` array as written under its bidder (where in the answer), with the seat's name in the
    /// auction's list (the bidder's name for a seat without one): the auction's own `seatnonbid` is the same
    /// arrays again.
    seats: Vec<(String, Range<usize>)>,
    bidders: usize,
}

impl AuctionWriter {
    /// Writes the answer's head (`{"request":{id, imps},"bidders":[`) to `out`.
    ///
    /// # Errors
    /// [`Unwritten::Refused`] when `out`'s hold has no room for it.
    pub fn begin(
        auction: &Auction<'_>,
        echo_response: bool,
        out: &mut Growing<'_>,
    ) -> Result<AuctionWriter, Unwritten> {
        let mut scratch = Vec::new();
        scratch.extend_from_slice(b"{\"request\":{\"id\":");
        opt_str(&mut scratch, auction.request.id.as_deref());
        scratch.extend_from_slice(b",\"imps\":[");
        for (i, imp) in auction.request.imp.iter().enumerate() {
            if i > 0 {
                scratch.push(b',');
            }
            opt_str(&mut scratch, imp.id.as_deref());
        }
        scratch.extend_from_slice(b"]},\"bidders\":[");
        out.append(&scratch, scratch.capacity())?;
        scratch.clear();
        Ok(AuctionWriter {
            echo_response,
            scratch,
            seats: Vec::new(),
            bidders: 0,
        })
    }

    /// Appends bidder `b`'s answer (`BidderAnswer`) to `out`.
    ///
    /// # Errors
    /// [`Unwritten`]: `out`'s hold has no room for it, or serde_json failed on the response or a markup.
    pub fn bidder(
        &mut self,
        auction: &Auction<'_>,
        b: &Bidder<'_>,
        out: &mut Growing<'_>,
    ) -> Result<(), Unwritten> {
        self.scratch.clear();
        if self.bidders > 0 {
            self.scratch.push(b',');
        }
        self.bidders += 1;
        let mut written = Vec::new();
        bidder_answer(
            &mut self.scratch,
            auction,
            b,
            self.echo_response,
            &mut written,
        )?;
        let at = out.len();
        out.append(&self.scratch, self.scratch.capacity())?;
        self.seats.extend(
            written
                .into_iter()
                .map(|(seat, range)| (seat.to_owned(), range.start + at..range.end + at)),
        );
        Ok(())
    }

    /// Appends the answer's end (`],"seatnonbid":[…]}`) to `out`: each seat's `nonbid` array copied from its
    /// bidder's answer.
    ///
    /// # Errors
    /// [`Unwritten::Refused`] when `out`'s hold has no room for it.
    pub fn end(self, out: &mut Growing<'_>) -> Result<(), Unwritten> {
        // The bidders' scratch is given back first: the end is small.
        drop(self.scratch);
        let mut scratch = Vec::new();
        scratch.extend_from_slice(b"],\"seatnonbid\":[");
        for (i, (seat, range)) in self.seats.into_iter().enumerate() {
            if i > 0 {
                scratch.push(b',');
            }
            scratch.extend_from_slice(b"{\"seat\":");
            string(&mut scratch, &seat);
            scratch.extend_from_slice(b",\"nonbid\":");
            out.append(&scratch, scratch.capacity())?;
            scratch.clear();
            out.append_within(range)?;
            scratch.push(b'}');
        }
        scratch.extend_from_slice(b"]}");
        out.append(&scratch, scratch.capacity())?;
        Ok(())
    }
}

/// One bidder (`BidderAnswer`), the place of each of its seats' `nonbid` array pushed on `written`.
fn bidder_answer<'a>(
    out: &mut Vec<u8>,
    auction: &'a Auction<'_>,
    b: &'a Bidder<'_>,
    echo_response: bool,
    written: &mut Vec<(&'a str, Range<usize>)>,
) -> serde_json::Result<()> {
    out.extend_from_slice(b"{\"bidder\":");
    string(out, &b.bidder);
    out.extend_from_slice(b",\"status\":");
    out.extend_from_slice(match b.status {
        BidderStatus::Bid => b"\"bid\"",
        BidderStatus::Nobid => b"\"nobid\"",
        BidderStatus::Invalid => b"\"invalid\"",
        BidderStatus::Timeout => b"\"timeout\"",
        BidderStatus::Unreachable => b"\"unreachable\"",
        BidderStatus::Error => b"\"error\"",
    });
    let usable = matches!(b.status, BidderStatus::Bid | BidderStatus::Nobid);
    if echo_response && usable {
        out.extend_from_slice(b",\"response\":");
        serde_json::to_writer(&mut *out, &b.decoded.response)?;
    }
    out.extend_from_slice(b",\"summary\":");
    summary(out, &b.decoded, &b.verdicts)?;
    out.extend_from_slice(b",\"issues\":[");
    for (i, (issue, code)) in b.decoded.issues.iter().zip(&b.statuscodes).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        validated_issue(out, issue, *code);
    }
    out.extend_from_slice(b"],\"seatnonbid\":[");
    match b.status.statuscode() {
        // An imp-wide code: one seat, the bidder's, with every imp of the request.
        Some(statuscode) => {
            out.extend_from_slice(b"{\"seat\":");
            string(out, &b.bidder);
            out.extend_from_slice(b",\"nonbid\":");
            let start = out.len();
            out.push(b'[');
            for (i, imp) in auction.request.imp.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(b"{\"impid\":");
                opt_str(out, imp.id.as_deref());
                out.extend_from_slice(b",\"statuscode\":");
                int(out, statuscode);
                out.push(b'}');
            }
            out.push(b']');
            written.push((&b.bidder, start..out.len()));
            out.push(b'}');
        }
        None => rejected_bids(out, b, written),
    }
    out.extend_from_slice(b"]}");
    Ok(())
}

/// The rejected bids by seat (`rules::view::seatnonbid`): seats in order of their first rejected bid, a seat's
/// bids from every `seatbid` of its name, in document order; each bid without its `adm` unless the policy's
/// `nonbid_markup` keeps it.
fn rejected_bids<'a>(
    out: &mut Vec<u8>,
    b: &'a Bidder<'_>,
    written: &mut Vec<(&'a str, Range<usize>)>,
) {
    let seatbids = &b.decoded.response.seatbid;
    let name = |seat: &'a SeatBid<'_>| seat.seat.as_deref().unwrap_or("");
    // The code of bid `k` (in document order over every seat) when rejected; bids beyond the verdicts have none.
    let code = |k: usize| b.verdicts.get(k).and_then(|v| v.statuscode());
    let rejects = |first: usize, seat: &SeatBid<'_>| {
        (first..first + seat.bid.len()).any(|k| code(k).is_some())
    };
    let mut first = 0; // the index of the first bid of seatbid `i`
    let mut seats = 0;
    for (i, seat) in seatbids.iter().enumerate() {
        let start_i = first;
        first += seat.bid.len();
        if !rejects(start_i, seat) {
            continue;
        }
        let seat_name = name(seat);
        // A seat already written with an earlier seatbid of the same name.
        let mut earlier = 0;
        let mut seen = false;
        for other in &seatbids[..i] {
            seen |= name(other) == seat_name && rejects(earlier, other);
            earlier += other.bid.len();
        }
        if seen {
            continue;
        }
        if seats > 0 {
            out.push(b',');
        }
        seats += 1;
        out.extend_from_slice(b"{\"seat\":");
        string(out, seat_name);
        out.extend_from_slice(b",\"nonbid\":[");
        let start = out.len() - 1;
        let mut entries = 0;
        let mut at = start_i;
        for other in &seatbids[i..] {
            let same = name(other) == seat_name;
            for bid in &other.bid {
                if let (true, Some(statuscode)) = (same, code(at)) {
                    if entries > 0 {
                        out.push(b',');
                    }
                    entries += 1;
                    nonbid_entry(out, bid, statuscode, b.nonbid_markup);
                }
                at += 1;
            }
        }
        out.push(b']');
        let auction_seat = if seat_name.is_empty() {
            b.bidder.as_str()
        } else {
            seat_name
        };
        written.push((auction_seat, start..out.len()));
        out.push(b'}');
    }
}

/// `ValidatedSummary`: the response's summary, each bid with its verdict, and the counts of accepted and
/// rejected bids (`rules::view::summary`).
fn summary(
    out: &mut Vec<u8>,
    decoded: &Decoded<'_>,
    verdicts: &Verdicts,
) -> serde_json::Result<()> {
    let s = decoded.summary();
    let judged = s.bids.len().min(verdicts.len());
    let rejected = verdicts
        .iter()
        .filter(|v| v.status == BidStatus::Rejected)
        .count();
    summary_head(out, &s);
    out.extend_from_slice(b",\"accepted\":");
    int(out, judged.saturating_sub(rejected));
    out.extend_from_slice(b",\"rejected\":");
    int(out, rejected);
    out.extend_from_slice(b",\"bids\":[");
    for (i, (bid, verdict)) in s.bids.iter().zip(verdicts).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        // `ValidatedBid`: the summary line's members, then its verdict (`#[serde(flatten)]`).
        bid_summary_members(out, bid);
        out.extend_from_slice(match verdict.status {
            BidStatus::Accepted => b",\"status\":\"accepted\",\"statuscode\":",
            BidStatus::Rejected => b",\"status\":\"rejected\",\"statuscode\":",
        });
        opt_code(out, verdict.statuscode());
        out.push(b'}');
    }
    out.extend_from_slice(b"]}");
    Ok(())
}

/// `ValidatedIssue`: the issue's members, then its status code (`#[serde(flatten)]`).
fn validated_issue(out: &mut Vec<u8>, issue: &Issue, statuscode: Option<u16>) {
    out.extend_from_slice(b"{\"path\":");
    string(out, &issue.path);
    out.extend_from_slice(b",\"code\":");
    string(out, issue.code);
    out.extend_from_slice(match issue.severity {
        Severity::Error => b",\"severity\":\"error\",\"message\":",
        Severity::Warning => b",\"severity\":\"warning\",\"message\":",
    });
    string(out, &issue.message);
    out.extend_from_slice(b",\"statuscode\":");
    opt_code(out, statuscode);
    out.push(b'}');
}

/// `NonBid` of a rejected bid: `{impid, statuscode, ext: {prebid: {bid}}}`.
fn nonbid_entry(out: &mut Vec<u8>, bid: &Bid<'_>, statuscode: u16, with_adm: bool) {
    out.extend_from_slice(b"{\"impid\":");
    opt_str(out, bid.impid.as_deref());
    out.extend_from_slice(b",\"statuscode\":");
    int(out, statuscode);
    out.extend_from_slice(b",\"ext\":{\"prebid\":{\"bid\":");
    canonical_bid(out, bid, with_adm);
    out.extend_from_slice(b"}}}");
}

/// `bid` as its `Serialize` writes it (the canonical output: spec member order, absent and empty members left
/// out, `ext` compact), `adm` only when `with_adm`.
fn canonical_bid(out: &mut Vec<u8>, bid: &Bid<'_>, with_adm: bool) {
    let mut m = Members { out, first: true };
    m.out.push(b'{');
    if let Some(v) = &bid.id {
        m.key(b"\"id\":");
        string(m.out, v);
    }
    if let Some(v) = &bid.impid {
        m.key(b"\"impid\":");
        string(m.out, v);
    }
    if let Some(v) = bid.price {
        m.key(b"\"price\":");
        // serde_json's float formatting (shortest round-trip; non-finite as null), not a copy of it.
        serde_json::to_writer(&mut *m.out, &v).unwrap_or(());
    }
    if let Some(v) = &bid.nurl {
        m.key(b"\"nurl\":");
        string(m.out, v);
    }
    if let Some(v) = &bid.burl {
        m.key(b"\"burl\":");
        string(m.out, v);
    }
    if let Some(v) = &bid.lurl {
        m.key(b"\"lurl\":");
        string(m.out, v);
    }
    if let (true, Some(v)) = (with_adm, &bid.adm) {
        m.key(b"\"adm\":");
        serde_json::to_writer(&mut *m.out, v).unwrap_or(());
    }
    if let Some(v) = &bid.adid {
        m.key(b"\"adid\":");
        string(m.out, v);
    }
    if !bid.adomain.is_empty() {
        m.key(b"\"adomain\":");
        list(m.out, &bid.adomain, |out, v| string(out, v));
    }
    if let Some(v) = &bid.bundle {
        m.key(b"\"bundle\":");
        string(m.out, v);
    }
    if let Some(v) = &bid.iurl {
        m.key(b"\"iurl\":");
        string(m.out, v);
    }
    if let Some(v) = &bid.cid {
        m.key(b"\"cid\":");
        string(m.out, v);
    }
    if let Some(v) = &bid.crid {
        m.key(b"\"crid\":");
        string(m.out, v);
    }
    if let Some(v) = &bid.tactic {
        m.key(b"\"tactic\":");
        string(m.out, v);
    }
    if let Some(v) = bid.cattax {
        m.key(b"\"cattax\":");
        int(m.out, v.0);
    }
    if !bid.cat.is_empty() {
        m.key(b"\"cat\":");
        list(m.out, &bid.cat, |out, v| string(out, v));
    }
    if !bid.attr.is_empty() {
        m.key(b"\"attr\":");
        list(m.out, &bid.attr, |out, v| int(out, v.0));
    }
    if !bid.apis.is_empty() {
        m.key(b"\"apis\":");
        list(m.out, &bid.apis, |out, v| int(out, v.0));
    }
    if let Some(v) = bid.api {
        m.key(b"\"api\":");
        int(m.out, v.0);
    }
    if let Some(v) = bid.protocol {
        m.key(b"\"protocol\":");
        int(m.out, v.0);
    }
    if let Some(v) = bid.qagmediarating {
        m.key(b"\"qagmediarating\":");
        int(m.out, v.0);
    }
    if let Some(v) = &bid.language {
        m.key(b"\"language\":");
        string(m.out, v);
    }
    if let Some(v) = &bid.langb {
        m.key(b"\"langb\":");
        string(m.out, v);
    }
    if let Some(v) = &bid.dealid {
        m.key(b"\"dealid\":");
        string(m.out, v);
    }
    if let Some(v) = bid.w {
        m.key(b"\"w\":");
        int(m.out, v);
    }
    if let Some(v) = bid.h {
        m.key(b"\"h\":");
        int(m.out, v);
    }
    if let Some(v) = bid.wratio {
        m.key(b"\"wratio\":");
        int(m.out, v);
    }
    if let Some(v) = bid.hratio {
        m.key(b"\"hratio\":");
        int(m.out, v);
    }
    if let Some(v) = bid.exp {
        m.key(b"\"exp\":");
        int(m.out, v);
    }
    if let Some(v) = bid.dur {
        m.key(b"\"dur\":");
        int(m.out, v);
    }
    if let Some(v) = bid.mtype {
        m.key(b"\"mtype\":");
        int(m.out, v.0);
    }
    if let Some(v) = bid.slotinpod {
        m.key(b"\"slotinpod\":");
        int(m.out, v.0);
    }
    if let Some(v) = &bid.ext {
        m.key(b"\"ext\":");
        // Verbatim but compact, as `output::compact::ext` serializes it.
        m.out.extend_from_slice(compact(v.get()).as_bytes());
    }
    m.out.push(b'}');
}

/// An object's members being written: `key` puts the comma before every member but the first.
struct Members<'o> {
    out: &'o mut Vec<u8>,
    first: bool,
}

impl Members<'_> {
    /// Writes `key` (`"name":`), after a comma unless it is the first member.
    fn key(&mut self, key: &[u8]) {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        self.out.extend_from_slice(key);
    }
}

/// `[a,b,…]`, each item by `item`.
fn list<T>(out: &mut Vec<u8>, items: &[T], item: impl Fn(&mut Vec<u8>, &T)) {
    out.push(b'[');
    for (i, v) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        item(out, v);
    }
    out.push(b']');
}

fn opt_code(out: &mut Vec<u8>, code: Option<u16>) {
    match code {
        Some(code) => int(out, code),
        None => out.extend_from_slice(b"null"),
    }
}
