//! The protobuf answer of `/validate/auction` (`Accept` preferring protobuf, `routes::negotiate`): a
//! `multipart/form-data` body (RFC 7578) with one part per bidder, in the order sent, each holding what the
//! exchange may forward of that bidder as a protobuf `BidResponse` (IAB Tech Lab's OpenRTB 2.6 schema, written by
//! [`encode_protobuf`]):
//! - a bidder with a usable response (`bid`, `nobid`): its response with the rejected bids removed (a seat with
//!   no bid left is left out), and `ext.seatnonbid` set to its non-bids (an `ext.seatnonbid` of its own is
//!   replaced; without non-bids and without `ext`, none is added);
//! - a bidder without one (`invalid`, `timeout`, `unreachable`, `error`), or whose response the wire cannot carry
//!   (an integer outside int32): `{id: the request's id, ext: {seatnonbid}}`, no bid and no `nbr` (bidscan does
//!   not know the bidder's reason), the non-bids one seat, the bidder's name, with the bidder's code (100–103;
//!   102 when not encodable) for every imp.
//!
//! The non-bids are the entries the JSON answer gives the bidder: `{seat, nonbid: [{impid, statuscode}]}`, a seat
//! without a name under the bidder's name (as the JSON answer's auction-wide `seatnonbid` names it); the rejected
//! bid itself (the JSON answer's `nonbid[].ext.prebid.bid`) is left out, as the schema's `NonBid.Ext` declares no
//! field for it.
//!
//! Each part's headers: `Content-Disposition: form-data; name="BIDDER"`, `Content-Type: application/x-protobuf`,
//! `X-Bidscan-Status` (the JSON answer's `status`, or `invalid` when not encodable), `X-Bidscan-Issues`,
//! `X-Bidscan-Errors` (the bidder's issue counts, as the JSON answer lists them), `X-Bidscan-Accepted`,
//! `X-Bidscan-Rejected` (its bids' verdicts), and for a response the wire cannot carry `X-Bidscan-Error:
//! not_encodable` with `X-Bidscan-Error-Path` (the member's JSON pointer, bytes outside visible ASCII and `%`
//! percent-encoded). RFC 7578 §4.8 lets generic readers ignore the `X-` part headers: the status codes they need
//! are in each part's `ext.seatnonbid` too.
//!
//! The boundary is `bidscan-` and 32 random hex digits (UUID v4), drawn again in the unlikely case it occurs in a
//! part; the body's first line names it ([`boundary`]).

use std::fmt::Write as _;

use bidscan_json::RawJson;
use bidscan_openrtb::rules::BidStatus;
use bidscan_openrtb::{Auction, BidResponse, Bidder, BidderStatus, EncodeError, SeatBid};
use serde::Serialize;

use super::growing::{Growing, Refused};

/// The media type of each part.
const PART_TYPE: &str = "application/x-protobuf";

/// One seat's non-bids in `BidResponse.Ext.seatnonbid` (the JSON form `encode_protobuf` reads).
#[derive(Serialize)]
struct SeatNonBid<'s> {
    seat: &'s str,
    nonbid: Vec<NonBid<'s>>,
}

/// One non-bid: the imp and the IAB seat-non-bid status code.
#[derive(Serialize)]
struct NonBid<'s> {
    #[serde(skip_serializing_if = "Option::is_none")]
    impid: Option<&'s str>,
    statuscode: u16,
}

/// One bidder's part, encoded.
struct Part<'a> {
    name: &'a str,
    status: &'static str,
    issues: usize,
    errors: usize,
    accepted: usize,
    rejected: usize,
    /// Why the bidder's response could not be encoded.
    error: Option<EncodeError>,
    body: Vec<u8>,
}

/// The protobuf answer of `auction` (see the module docs): the multipart body, its boundary on its first line.
/// The server writes the same parts a bidder at a time with `ProtobufWriter`.
pub fn write_auction_protobuf(auction: &Auction<'_>) -> Vec<u8> {
    let mut unbounded = |_| true;
    let Ok(mut out) = Growing::with_capacity(0, &mut unbounded) else {
        return Vec::new();
    };
    let mut writer = ProtobufWriter::new();
    for b in &auction.bidders {
        // An unbounded hold refuses nothing.
        let _ = writer.bidder(auction, b, &mut out);
    }
    let _ = writer.end(&mut out);
    out.into_inner()
}

/// The protobuf answer of an auction written a bidder at a time into a [`Growing`] buffer, as each bidder is
/// judged: [`bidder`](Self::bidder) per bidder, then [`end`](Self::end). The boundary is drawn first; should a
/// later part hold it, another is drawn that neither that part nor anything written holds, and written over the
/// first where it was used (every boundary has the same length).
pub struct ProtobufWriter {
    boundary: String,
    /// Where each use of the boundary starts in the answer (after its `--`).
    uses: Vec<usize>,
}

impl ProtobufWriter {
    /// A writer with a fresh boundary.
    pub fn new() -> ProtobufWriter {
        ProtobufWriter {
            boundary: draw(),
            uses: Vec::new(),
        }
    }

    /// Appends bidder `b`'s part to `out`: why its response could not be encoded, when it could not (its part
    /// then `invalid`, `X-Bidscan-Error: not_encodable`).
    ///
    /// # Errors
    /// [`Refused`] when `out`'s hold has no room for it.
    pub fn bidder(
        &mut self,
        auction: &Auction<'_>,
        b: &Bidder<'_>,
        out: &mut Growing<'_>,
    ) -> Result<Option<EncodeError>, Refused> {
        let p = bidder_part(auction, b);
        if memchr::memmem::find(&p.body, self.boundary.as_bytes()).is_some() {
            self.redraw(out, &p.body);
        }
        let mut head = String::with_capacity(320);
        // Names are `[A-Za-z0-9_.-]` (`routes::auction_parts::multipart`): nothing to quote.
        let _ = write!(
            head,
            "--{}\r\nContent-Disposition: form-data; name=\"{}\"\r\nContent-Type: {PART_TYPE}\r\n\
             X-Bidscan-Status: {}\r\nX-Bidscan-Issues: {}\r\nX-Bidscan-Errors: {}\r\n\
             X-Bidscan-Accepted: {}\r\nX-Bidscan-Rejected: {}\r\n",
            self.boundary, p.name, p.status, p.issues, p.errors, p.accepted, p.rejected
        );
        if let Some(e) = &p.error {
            let _ = write!(
                head,
                "X-Bidscan-Error: not_encodable\r\nX-Bidscan-Error-Path: {}\r\n",
                header_text(&e.path)
            );
        }
        head.push_str("\r\n");
        let beside = p.body.capacity() + head.capacity();
        let at = out.len() + 2;
        out.reserve(head.len() + p.body.len() + 2, beside)?;
        out.append(head.as_bytes(), beside)?;
        out.append(&p.body, beside)?;
        out.append(b"\r\n", beside)?;
        self.uses.push(at);
        Ok(p.error)
    }

    /// Appends the closing delimiter to `out`.
    ///
    /// # Errors
    /// [`Refused`] when `out`'s hold has no room for it.
    pub fn end(self, out: &mut Growing<'_>) -> Result<(), Refused> {
        out.append(format!("--{}--\r\n", self.boundary).as_bytes(), 0)
    }

    /// A boundary found neither in `body` nor in what `out` holds, written over the one used so far.
    fn redraw(&mut self, out: &mut Growing<'_>, body: &[u8]) {
        let boundary = loop {
            let boundary = draw();
            let finder = memchr::memmem::Finder::new(boundary.as_bytes());
            if finder.find(body).is_none() && finder.find(out.written()).is_none() {
                break boundary;
            }
        };
        let written = out.written_mut(0);
        for &at in &self.uses {
            if let Some(old) = written.get_mut(at..at + boundary.len()) {
                old.copy_from_slice(boundary.as_bytes());
            }
        }
        self.boundary = boundary;
    }
}

/// A boundary: `bidscan-` and 32 random hex digits (UUID v4), always 41 bytes.
fn draw() -> String {
    format!("bidscan-{}", uuid::Uuid::new_v4().simple())
}

/// The boundary of a body [`write_auction_protobuf`] wrote: its first line, without the leading `--` (and the
/// closing `--` of a body with no part).
pub fn boundary(body: &[u8]) -> Option<&str> {
    let line = body.strip_prefix(b"--")?;
    let end = memchr::memchr(b'\r', line)?;
    let line = &line[..end];
    let line = line.strip_suffix(b"--").unwrap_or(line);
    std::str::from_utf8(line).ok()
}

/// `bidder`'s part: its response without the rejected bids and with its non-bids, or the part of a bidder
/// without a usable response.
fn bidder_part<'a>(auction: &Auction<'_>, b: &'a Bidder<'_>) -> Part<'a> {
    let issues = b.decoded.issues.len();
    let errors = crate::engine::decode::errors(&b.decoded.issues);
    let rejected = b
        .verdicts
        .iter()
        .filter(|v| v.status == BidStatus::Rejected)
        .count();
    let judged = b.verdicts.len().min(bid_count(&b.decoded.response));
    let mut part = Part {
        name: &b.bidder,
        status: status(b.status),
        issues,
        errors,
        accepted: judged.saturating_sub(rejected),
        rejected,
        error: None,
        body: Vec::new(),
    };
    if let Some(code) = b.status.statuscode() {
        part.body = every_imp(auction, &b.bidder, code);
        return part;
    }
    match kept(b) {
        Ok(body) => part.body = body,
        Err(e) => {
            part.status = status(BidderStatus::Invalid);
            part.body = every_imp(
                auction,
                &b.bidder,
                BidderStatus::Invalid.statuscode().unwrap_or(102),
            );
            part.error = Some(e);
        }
    }
    part
}

/// The bidder's response, its rejected bids removed, its non-bids in `ext.seatnonbid`, encoded.
fn kept(b: &Bidder<'_>) -> Result<Vec<u8>, EncodeError> {
    let response = &b.decoded.response;
    let code = |k: usize| b.verdicts.get(k).and_then(|v| v.statuscode());
    let mut seatbid = Vec::with_capacity(response.seatbid.len());
    let mut nonbids: Vec<SeatNonBid<'_>> = Vec::new();
    let mut k = 0;
    for seat in &response.seatbid {
        let name = match seat.seat.as_deref() {
            Some(name) if !name.is_empty() => name,
            _ => b.bidder.as_str(),
        };
        let mut bids = Vec::with_capacity(seat.bid.len());
        for bid in &seat.bid {
            match code(k) {
                Some(statuscode) => {
                    let entry = NonBid {
                        impid: bid.impid.as_deref(),
                        statuscode,
                    };
                    // Seats in order of their first rejected bid, a seat's bids from every seatbid of its name.
                    match nonbids.iter_mut().find(|s| s.seat == name) {
                        Some(s) => s.nonbid.push(entry),
                        None => nonbids.push(SeatNonBid {
                            seat: name,
                            nonbid: vec![entry],
                        }),
                    }
                }
                None => bids.push(bid.clone()),
            }
            k += 1;
        }
        if !bids.is_empty() {
            seatbid.push(SeatBid {
                bid: bids,
                seat: seat.seat.clone(),
                group: seat.group,
                ext: seat.ext,
                coercions: Vec::new(),
            });
        }
    }
    let ext_text = ext_with(response.ext, &nonbids);
    let out = BidResponse {
        id: response.id.clone(),
        seatbid,
        bidid: response.bidid.clone(),
        cur: response.cur.clone(),
        customdata: response.customdata.clone(),
        nbr: response.nbr,
        ext: match &ext_text {
            Some(text) => Some(RawJson::from_validated(text)),
            None => response.ext,
        },
        coercions: Vec::new(),
    };
    let mut body = Vec::new();
    bidscan_openrtb::encode_protobuf(&out, &mut body)?;
    Ok(body)
}

/// The `ext` text with `seatnonbid` set to `nonbids` (the last member, which `encode_protobuf` keeps over an
/// earlier one of the same name); `None` when there is nothing to set (no non-bids and no `ext`, or an `ext`
/// without a `seatnonbid` of its own).
fn ext_with(ext: Option<RawJson<'_>>, nonbids: &[SeatNonBid<'_>]) -> Option<String> {
    let list = serde_json::to_string(nonbids).unwrap_or_else(|_| "[]".to_owned());
    let member = format!("\"seatnonbid\":{list}");
    let object = ext
        .map(|e| e.get().trim())
        .and_then(|t| t.strip_prefix('{')?.strip_suffix('}'))
        .map(str::trim);
    match object {
        None | Some("") if nonbids.is_empty() => {
            // No `ext`, or one that is not an object (`encode_protobuf` drops it with a warning): left as is.
            None
        }
        Some(inner) if nonbids.is_empty() && !inner.contains("\"seatnonbid\"") => None,
        Some("") | None => Some(format!("{{{member}}}")),
        Some(inner) => Some(format!("{{{inner},{member}}}")),
    }
}

/// `{id: request.id, ext: {seatnonbid: [{seat: bidder, nonbid: [{impid, statuscode: code}, …]}]}}`, encoded.
fn every_imp(auction: &Auction<'_>, bidder: &str, code: u16) -> Vec<u8> {
    let nonbids = [SeatNonBid {
        seat: bidder,
        nonbid: auction
            .request
            .imp
            .iter()
            .map(|imp| NonBid {
                impid: imp.id.as_deref(),
                statuscode: code,
            })
            .collect(),
    }];
    let ext_text = ext_with(None, &nonbids);
    let response = BidResponse {
        id: auction.request.id.clone(),
        ext: ext_text.as_deref().map(RawJson::from_validated),
        ..BidResponse::default()
    };
    let mut body = Vec::new();
    // Strings and codes under 1000 only: nothing outside int32.
    let _ = bidscan_openrtb::encode_protobuf(&response, &mut body);
    body
}

fn bid_count(r: &BidResponse<'_>) -> usize {
    r.seatbid.iter().map(|s| s.bid.len()).sum()
}

/// The JSON answer's name of `status`.
fn status(status: BidderStatus) -> &'static str {
    match status {
        BidderStatus::Bid => "bid",
        BidderStatus::Nobid => "nobid",
        BidderStatus::Invalid => "invalid",
        BidderStatus::Timeout => "timeout",
        BidderStatus::Unreachable => "unreachable",
        BidderStatus::Error => "error",
    }
}

/// `text` as a header value: visible ASCII but `%` kept, every other byte percent-encoded (RFC 3986 §2.1).
fn header_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for &b in text.as_bytes() {
        if b.is_ascii_graphic() && b != b'%' {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_boundary_is_read_back_from_the_first_line() {
        assert_eq!(boundary(b"--bidscan-ab\r\nContent"), Some("bidscan-ab"));
        assert_eq!(boundary(b"--bidscan-ab--\r\n"), Some("bidscan-ab"));
        assert_eq!(boundary(b"bidscan"), None);
    }

    #[test]
    fn seatnonbid_is_added_last_or_replaces_nothing() {
        let one = [SeatNonBid {
            seat: "s",
            nonbid: vec![NonBid {
                impid: Some("1"),
                statuscode: 301,
            }],
        }];
        let n = r#""seatnonbid":[{"seat":"s","nonbid":[{"impid":"1","statuscode":301}]}]"#;
        assert_eq!(ext_with(None, &one), Some(format!("{{{n}}}")));
        let ext = RawJson::from_validated(r#"{ "a": 1 }"#);
        assert_eq!(
            ext_with(Some(ext), &one),
            Some(format!(r#"{{"a": 1,{n}}}"#))
        );
        assert_eq!(ext_with(Some(ext), &[]), None);
        assert_eq!(ext_with(None, &[]), None);
        let own = RawJson::from_validated(r#"{"seatnonbid":[{"seat":"x"}]}"#);
        assert_eq!(
            ext_with(Some(own), &[]),
            Some(r#"{"seatnonbid":[{"seat":"x"}],"seatnonbid":[]}"#.to_owned())
        );
    }

    #[test]
    fn header_text_is_visible_ascii() {
        assert_eq!(header_text("/seatbid/0/bid/1/w"), "/seatbid/0/bid/1/w");
        assert_eq!(header_text("/ext/a b%é"), "/ext/a%20b%25%C3%A9");
    }
}
