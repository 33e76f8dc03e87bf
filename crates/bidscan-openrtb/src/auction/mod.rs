//! [`Auction`]: one bid request and every bidder's answer to it, each judged as
//! [`Validated`](crate::rules::Validated) judges one response, the request decoded once for all of them.
//!
//! A bidder's answer is a [`Reply`]: the body it sent (decompressed), or why there is none. Each bidder gets a
//! [`BidderStatus`]:
//! - a body is decoded as [`decode_inspected`](crate::decode_inspected) decodes it (an empty body, `{}` and an
//!   `nbr` are no-bids), then judged by the rules of the [`Policy`]: `bid` (whatever the rules rejected) or
//!   `nobid`; its findings, verdicts and non-bids are those `/validate` gives the same request and response;
//! - a protobuf body ([`Reply::Protobuf`], IAB Tech Lab's OpenRTB 2.6 schema) is decoded as
//!   [`decode_protobuf_inspected`](crate::decode_protobuf_inspected) decodes it, then judged the same way: the
//!   findings and verdicts of the JSON rendered from the same `BidResponse`;
//! - a body that is not JSON, not well-formed protobuf (`malformed_protobuf`, with the byte offset and field
//!   path), not a bid response (`not_a_bid_response`, `openrtb3_not_supported`) or fails strict mode, or that
//!   could not be read ([`Reply::Unreadable`]: too large, not decompressable), is `invalid`: IAB seat-non-bid
//!   code 102 ("Error - Invalid Bid Response") for every imp of the request, and one finding, the decode error's
//!   code, message and path;
//! - no body: [`Reply::Timeout`] is `timeout` with 101 ("Error - Timed Out") for every imp,
//!   [`Reply::Unreachable`] `unreachable` with 103 ("Error - Bidder Unreachable"), [`Reply::HttpStatus`] `error`
//!   with 100 ("Error - General"), but 204 No Content, a no-bid (OpenRTB 2.6 §7.1).
//!
//! The seat-non-bid codes are the openrtb `extensions/community_extensions/seat-non-bid.md` list.
//!
//! The request is JSON ([`Auction::decode_request`]) or protobuf ([`Auction::decode_request_protobuf`]); either
//! way the bidders' bodies may be either.
//!
//! Between the bidders, rule `duplicate_id_across_bidders` (302, `warn` by default): a bid `id` an earlier
//! bidder used is a finding on the later bid.

mod answer;

use std::collections::HashMap;

use bidscan_json::Reader;
use bidscan_markup::Inspector;
use bidscan_proto::Limits;
use serde::Serialize;

use crate::checks::issue::{Issue, Severity, Unlisted};
use crate::decode::pair::{fill_request, without_imp};
use crate::decode::protobuf::{
    ProtobufError, decode_protobuf, decode_protobuf_inspected, decode_request_protobuf,
};
use crate::decode::{self, DecodeError, Decoded, Mode};
use crate::model::request::BidRequest;
use crate::model::response::BidResponse;
use crate::model::status::Status;
use crate::rules::{Policy, StatusCodes, Verdicts};

pub use answer::{AuctionAnswer, AuctionRequest, BidderAnswer};

/// What a bidder answered, as the exchange got it.
#[derive(Debug)]
pub enum Reply<'a> {
    /// The response body as received, its `Content-Encoding` undone; decoded in place (strings borrow from it).
    /// An empty body is a no-bid.
    Body(&'a mut [u8]),
    /// A protobuf `BidResponse` (IAB Tech Lab's OpenRTB 2.6 schema) as received, its `Content-Encoding` undone:
    /// decoded by [`decode_protobuf_inspected`](crate::decode_protobuf_inspected) under the default
    /// [`ProtobufLimits`](crate::ProtobufLimits) (nesting 128; lengths bounded by the body's end, so the caller
    /// bounds the body), strings borrowed from `body`. An empty body is the empty message: a no-bid.
    Protobuf {
        /// The body.
        body: &'a [u8],
        /// Where the body's `ext` and `adm_native` are rendered as JSON (cleared first; allocates only for
        /// them), which the bidder's response borrows.
        rendered: &'a mut String,
    },
    /// The bidder did not answer in time: 101 for every imp.
    Timeout,
    /// The bidder could not be reached (refused connection, failed name lookup, TLS): 103 for every imp.
    Unreachable,
    /// The bidder answered with this HTTP status instead of a bid response: 100 for every imp; 204 (No Content)
    /// is a no-bid.
    HttpStatus(u16),
    /// A body that could not be read as received: too large, or not decompressable: 102 for every imp, with
    /// `code` and `message` as the bidder's finding (e.g. `body_too_large`, "the part is over 1048576 bytes").
    Unreadable {
        /// The finding's code.
        code: &'static str,
        /// What was wrong.
        message: String,
    },
}

/// A bidder's outcome in an auction. Serializes in lower case: `"bid"`, `"nobid"`, `"invalid"`, `"timeout"`,
/// `"unreachable"`, `"error"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BidderStatus {
    /// A bid response with at least one bid, whatever the rules rejected.
    Bid,
    /// A no-bid: an empty body, `{}`, no bids, an `nbr`, or HTTP 204.
    Nobid,
    /// A body that is not a usable bid response: 102 for every imp.
    Invalid,
    /// No answer in time: 101 for every imp.
    Timeout,
    /// Not reached: 103 for every imp.
    Unreachable,
    /// An HTTP error status: 100 for every imp.
    Error,
}

impl BidderStatus {
    /// The IAB seat-non-bid code every imp of the request gets from a bidder with this status: 100 (`error`),
    /// 101 (`timeout`), 102 (`invalid`), 103 (`unreachable`); `None` for `bid` and `nobid`, whose non-bids are
    /// their rejected bids.
    pub fn statuscode(self) -> Option<u16> {
        match self {
            BidderStatus::Bid | BidderStatus::Nobid => None,
            BidderStatus::Error => Some(100),
            BidderStatus::Timeout => Some(101),
            BidderStatus::Invalid => Some(102),
            BidderStatus::Unreachable => Some(103),
        }
    }
}

/// One bidder of an [`Auction`], judged.
#[derive(Clone, Debug, PartialEq)]
pub struct Bidder<'a> {
    /// The bidder's name (the exchange's; a multipart part's name).
    pub bidder: String,
    /// Its outcome.
    pub status: BidderStatus,
    /// Its response as [`decode_inspected`](crate::decode_inspected) gives it, `issues` holding decode's issues,
    /// then the rules' findings; for a bidder with no usable body, an empty no-bid whose one issue says why.
    pub decoded: Decoded<'a>,
    /// The status code of each issue of `decoded.issues` (as [`Validated::statuscodes`](crate::rules::Validated::statuscodes)).
    pub statuscodes: StatusCodes,
    /// One verdict per bid of `decoded.response`, in document order.
    pub verdicts: Verdicts,
    /// The policy's `nonbid_markup`: a rejected bid's non-bid keeps its `adm`.
    pub nonbid_markup: bool,
}

/// A bid request and the bidders that answered it (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct Auction<'a> {
    /// The request, decoded once (leniently, as `/validate` reads it).
    pub request: BidRequest<'a>,
    /// The bidders, in the order they were added.
    pub bidders: Vec<Bidder<'a>>,
    /// Every bid id of the bidders so far, with the index of the first bidder that sent it.
    ids: HashMap<String, usize>,
}

impl<'a> Auction<'a> {
    /// Decodes the bid request in `input` (the request alone, not an envelope) in place with `reader`: an auction
    /// with no bidder yet. Never panics on input.
    ///
    /// # Errors
    /// With paths relative to the request: [`DecodeError::Malformed`] (not JSON; a server answers 400), and
    /// [`DecodeError::InvalidEnvelope`] with code `not_a_bid_request` (not an object) or `request_without_imp`
    /// (no impression; OpenRTB 2.6 §3.2.1) (a server answers 422).
    pub fn decode_request(
        reader: &mut Reader,
        input: &'a mut [u8],
    ) -> Result<Auction<'a>, DecodeError> {
        let mut auction = Auction {
            request: BidRequest::default(),
            bidders: Vec::new(),
            ids: HashMap::new(),
        };
        fill_request(reader, input, &mut auction.request)?;
        Ok(auction)
    }

    /// Decodes the protobuf `BidRequest` in `input` (IAB Tech Lab's OpenRTB 2.6 schema) with
    /// [`decode_request_protobuf`](crate::decode_request_protobuf) under `limits`: an auction with no bidder yet,
    /// its request the one [`decode_request`](Self::decode_request) reads from the JSON rendered from the same
    /// `BidRequest`. Never panics on input.
    ///
    /// # Errors
    /// With paths relative to the request: [`ProtobufError::Malformed`] (not well-formed protobuf, with the byte
    /// offset and field path; a server answers 400, as for malformed JSON), and [`DecodeError::InvalidEnvelope`]
    /// (in [`ProtobufError::Decode`]) with code `not_a_bid_request` (more than [`MAX_OBJECTS`](crate::MAX_OBJECTS)
    /// impressions, formats and deals) or `request_without_imp` (no impression; OpenRTB 2.6 §3.2.1), as for
    /// JSON (a server answers 422). An empty body is the empty message, so `request_without_imp`.
    pub fn decode_request_protobuf(
        input: &'a [u8],
        limits: Limits,
    ) -> Result<Auction<'a>, ProtobufError> {
        let request = decode_request_protobuf(input, limits)?;
        if request.imp.is_empty() {
            return Err(ProtobufError::Decode(without_imp(None, "")));
        }
        Ok(Auction {
            request,
            bidders: Vec::new(),
            ids: HashMap::new(),
        })
    }

    /// Judges `reply`, bidder `bidder`'s answer, and adds it: a body is decoded with `reader` in `mode` (with
    /// `inspector`, every bid's markup inspected, as the server's `/validate` does), then judged by `policy`'s
    /// rules against the request, then by `duplicate_id_across_bidders` against the bidders added before.
    /// Never fails (a bad answer makes the bidder `invalid`), never panics on input. Returns the bidder.
    pub fn add(
        &mut self,
        reader: &mut Reader,
        bidder: impl Into<String>,
        reply: Reply<'a>,
        mode: Mode,
        inspector: Option<&mut Inspector>,
        policy: &Policy,
    ) -> &Bidder<'a> {
        let mut judged = Bidder {
            bidder: bidder.into(),
            status: BidderStatus::Nobid,
            decoded: no_bid(),
            statuscodes: StatusCodes::new(),
            verdicts: Verdicts::new(),
            nonbid_markup: policy.nonbid_markup,
        };
        match reply {
            Reply::Body(input) => match decode::decode_with(reader, input, mode, inspector) {
                Ok(decoded) => self.judge(&mut judged, decoded, policy),
                Err(e) => judged.refused(e.path(), e.code(), e.to_string()),
            },
            Reply::Protobuf { body, rendered } => {
                let limits = Limits::default();
                let result = match inspector {
                    Some(inspector) => {
                        decode_protobuf_inspected(body, rendered, mode, limits, inspector)
                    }
                    None => decode_protobuf(body, rendered, mode, limits),
                };
                match result {
                    Ok(decoded) => self.judge(&mut judged, decoded, policy),
                    Err(e) => judged.refused(e.path(), e.code(), e.to_string()),
                }
            }
            Reply::Timeout => judged.finding(
                BidderStatus::Timeout,
                String::new(),
                "bidder_timeout",
                "the bidder did not answer in time".to_owned(),
            ),
            Reply::Unreachable => judged.finding(
                BidderStatus::Unreachable,
                String::new(),
                "bidder_unreachable",
                "the bidder could not be reached".to_owned(),
            ),
            Reply::HttpStatus(204) => {}
            Reply::HttpStatus(code) => judged.finding(
                BidderStatus::Error,
                String::new(),
                "bidder_http_status",
                format!("the bidder answered HTTP status {code}, not a bid response"),
            ),
            Reply::Unreadable { code, message } => {
                judged.finding(BidderStatus::Invalid, String::new(), code, message);
            }
        }
        self.bidders.push(judged);
        &self.bidders[self.bidders.len() - 1]
    }

    /// Judges `decoded`, `judged`'s response, by `policy`'s rules against the request, then (when it bids) by
    /// `duplicate_id_across_bidders` against the bidders added before, and remembers its bid ids.
    fn judge(&mut self, judged: &mut Bidder<'a>, decoded: Decoded<'a>, policy: &Policy) {
        judged.decoded = decoded;
        crate::rules::judge(
            &self.request,
            &mut judged.decoded,
            &mut judged.statuscodes,
            &mut judged.verdicts,
            policy,
        );
        if judged.decoded.status == Status::Bid {
            judged.status = BidderStatus::Bid;
            let (ids, bidders) = (&self.ids, &self.bidders);
            crate::rules::duplicate_ids(
                &mut judged.decoded,
                &mut judged.statuscodes,
                &mut judged.verdicts,
                policy,
                |id| ids.get(id).map(|&k| bidders[k].bidder.as_str()),
            );
            self.remember_ids(&judged.decoded.response);
        }
    }

    /// The bid ids of the latest bidder's `response`, each kept with that bidder's index unless an earlier
    /// bidder sent it first.
    fn remember_ids(&mut self, response: &BidResponse<'_>) {
        let index = self.bidders.len();
        for bid in response.seatbid.iter().flat_map(|s| &s.bid) {
            if let Some(id) = bid.id.as_deref().filter(|id| !id.is_empty())
                && !self.ids.contains_key(id)
            {
                self.ids.insert(id.to_owned(), index);
            }
        }
    }
}

impl Bidder<'_> {
    /// The bidder's body could not be decoded: `invalid`, its one finding the decode error's `code` and `message`
    /// at `path` (the error's, relative to the response; the document's root when `None`).
    fn refused(&mut self, path: Option<&str>, code: &'static str, message: String) {
        let path = path.unwrap_or("").to_owned();
        self.finding(BidderStatus::Invalid, path, code, message);
    }

    /// The bidder gets `status` (one with a code for every imp) and one error finding, `code` at `path` with
    /// `message`, with that code.
    fn finding(&mut self, status: BidderStatus, path: String, code: &'static str, message: String) {
        self.status = status;
        self.decoded.issues.push(Issue {
            path,
            code,
            severity: Severity::Error,
            message: message.into(),
        });
        self.statuscodes.push(status.statuscode());
    }
}

/// An empty no-bid: what a bidder without a usable body is judged as.
fn no_bid<'a>() -> Decoded<'a> {
    Decoded {
        status: Status::NoBid,
        response: BidResponse::default(),
        issues: Vec::new(),
        markup: Vec::new(),
        unlisted: Unlisted::default(),
    }
}
