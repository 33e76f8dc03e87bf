//! `BidResponse` (OpenRTB 2.6 §4.2.1) and `SeatBid` (§4.2.2).

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use bidscan_json::RawJson;
use serde::Serialize;
use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::checks::issue::Coercion;
use crate::lenient::{
    self, Deferred, Doc, Foreign, FromMap, Ident, Int, MAX_COERCIONS, NOT_A_BID_RESPONSE, Refusal,
    Standalone, Text, defer, members, refuse,
};
use crate::model::bid::Bid;
use crate::model::lists::NoBidReason;

/// The top-level bid response object (OpenRTB 2.6 §4.2.1), every 2.6 member in spec order.
///
/// A no-bid may be an empty body, `{}`, a response without bids, or one with `nbr` (§4.2.1, §7.1); see
/// [`Status`](crate::Status). An object with neither `seatbid` nor `nbr` and a member that is not one of these
/// (a bidder's `{"error":"timeout"}`, an OpenRTB 3.0 `{"openrtb": …}`) is refused as not a bid response.
/// Canonical output writes the members in this order and omits absent ones.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BidResponse<'a> {
    /// ID of the bid request this responds to. Required (validation: `missing_id` when the response has bids).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<Cow<'a, str>>,
    /// Seat bids; 1+ required to bid. Empty when absent, `null` or `[]` (a no-bid).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub seatbid: Vec<SeatBid<'a>>,
    /// Bidder-generated response ID for logging/tracking (the `${AUCTION_BID_ID}` macro, §4.4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bidid: Option<Cow<'a, str>>,
    /// Bid currency, an ISO-4217 alpha code; USD when absent (§4.2.1 default) or empty (`""`, as Prebid Server
    /// reads it). Once checked ([`Decoded`](crate::Decoded)) it holds the code as exchanges read it: `""` as
    /// `"USD"`, three letters in another case upper-cased (`"eur"` as `"EUR"`, an owned string, warning
    /// `currency_case`), anything else as sent (error `invalid_currency`); see [`checks`](crate::checks).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cur: Option<Cow<'a, str>>,
    /// Data for the exchange's cookie (base85 cookie-safe characters).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub customdata: Option<Cow<'a, str>>,
    /// Reason for not bidding (OpenRTB 3.0 "List: No-Bid Reason Codes").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nbr: Option<NoBidReason>,
    /// Bidder-specific extensions, verbatim (written compact: see [`crate::output::compact`]).
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::output::compact::ext"
    )]
    pub ext: Option<RawJson<'a>>,
    /// Coercions applied to this object's own members while decoding. Not serialized.
    #[serde(skip)]
    pub coercions: Vec<Coercion>,
}

/// Bids made on behalf of one buyer seat (OpenRTB 2.6 §4.2.2), every 2.6 member in spec order.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SeatBid<'a> {
    /// The bids; "1+ required" by the spec, but an empty or `null` array is read as a no-bid seat.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bid: Vec<Bid<'a>>,
    /// ID of the buyer seat (e.g. advertiser, agency) the bids are made for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seat: Option<Cow<'a, str>>,
    /// 0 (default): impressions can be won individually; 1: won or lost as a group (`true`/`false` read as 1/0,
    /// `bool_as_flag`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<i64>,
    /// Bidder-specific extensions, verbatim (written compact: see [`crate::output::compact`]).
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::output::compact::ext"
    )]
    pub ext: Option<RawJson<'a>>,
    /// Coercions applied to this object's own members while decoding. Not serialized.
    #[serde(skip)]
    pub coercions: Vec<Coercion>,
}

members! {
    /// The members of `BidResponse`.
    ResponseMember {
        Id = "id", Seatbid = "seatbid", Bidid = "bidid", Cur = "cur", Customdata = "customdata", Nbr = "nbr",
        Ext = "ext",
    }
}

members! {
    /// The members of `SeatBid`.
    SeatBidMember { Bid = "bid", Seat = "seat", Group = "group", Ext = "ext", }
}

impl<'de> FromMap<'de> for BidResponse<'de> {
    fn read_map<A: MapAccess<'de>>(&mut self, map: A, doc: &mut Doc) -> Result<(), A::Error> {
        // `move`: one captured `&mut` (see `Bid::read_map`).
        let r = &mut *self;
        let mut foreign = Foreign::default();
        let (coercions, seen) = lenient::read_members_noting(
            map,
            doc,
            Some(&mut foreign),
            move |m, c, member: ResponseMember, f| {
                match member {
                    ResponseMember::Id => {
                        r.id = lenient::scalar::<A, Ident<'de>>(m, c, f)?.map(|v| v.0)
                    }
                    ResponseMember::Seatbid => r.seatbid = lenient::objects(m, c, f, true)?,
                    ResponseMember::Bidid => {
                        r.bidid = lenient::scalar::<A, Ident<'de>>(m, c, f)?.map(|v| v.0)
                    }
                    ResponseMember::Cur => {
                        r.cur = lenient::scalar::<A, Text<'de>>(m, c, f)?.map(|v| v.0)
                    }
                    ResponseMember::Customdata => {
                        r.customdata = lenient::scalar::<A, Text<'de>>(m, c, f)?.map(|v| v.0)
                    }
                    ResponseMember::Nbr => {
                        r.nbr = lenient::scalar::<A, Int>(m, c, f)?.map(|v| NoBidReason(v.0))
                    }
                    ResponseMember::Ext => r.ext = lenient::raw_object(m, c, f)?,
                }
                Ok(())
            },
        )?;
        self.coercions = coercions;
        if foreign.first.is_some()
            && !seen.has(ResponseMember::Seatbid as u8)
            && !seen.has(ResponseMember::Nbr as u8)
        {
            not_a_bid_response(doc, &foreign);
        }
        Ok(())
    }
}

/// Notes the refusal of a response object that has neither `seatbid` nor `nbr` and a member that is no bid
/// response's ([`Foreign`]): an OpenRTB 3.0 document when one is `openrtb` ([`Refusal::Openrtb3`]), else not a
/// bid response ([`Refusal::Response`]: a bidder's error object such as `{"error":"timeout"}`, another
/// protocol). OpenRTB 2.6 §4.2.1 and §7.1 make an object with bid response members and no bids a no-bid; an
/// object that says nothing a bid response says is not one, and answering it as a no-bid would hide a broken
/// bidder. The refusal is made once the whole input is read ([`Deferred`]).
#[cold]
#[inline(never)]
fn not_a_bid_response(doc: &mut Doc, foreign: &Foreign) {
    let whole = if doc.base.is_empty() {
        "the body"
    } else {
        "`response`"
    };
    let first = foreign
        .first
        .map(|name| name.to_string())
        .unwrap_or_default();
    let (refusal, message) = if foreign.openrtb {
        (
            Refusal::Openrtb3,
            format!(
                "an OpenRTB 3.0 document: {whole} has a top-level `openrtb` member and no `seatbid` or `nbr`; \
                 bidscan reads OpenRTB 2.5 and 2.6 bid responses"
            ),
        )
    } else {
        (
            Refusal::Response,
            format!(
                "{NOT_A_BID_RESPONSE}: {whole} has no `seatbid` and no `nbr`, and its member `{first}` is not a \
                 bid response member (OpenRTB 2.6 §4.2.1)"
            ),
        )
    };
    defer(
        &mut doc.deferred,
        Deferred {
            refusal,
            message,
            path: doc.base.to_owned(),
        },
    );
}

impl<'de> FromMap<'de> for SeatBid<'de> {
    fn read_map<A: MapAccess<'de>>(&mut self, map: A, doc: &mut Doc) -> Result<(), A::Error> {
        // `move`: one captured `&mut` (see `Bid::read_map`).
        let s = &mut *self;
        let coercions = lenient::read_members(
            map,
            doc,
            #[inline(always)]
            move |m, c, member: SeatBidMember, f| {
                match member {
                    SeatBidMember::Bid => s.bid = lenient::objects(m, c, f, false)?,
                    SeatBidMember::Seat => {
                        s.seat = lenient::scalar::<A, Ident<'de>>(m, c, f)?.map(|v| v.0)
                    }
                    SeatBidMember::Group => {
                        s.group = lenient::scalar::<A, lenient::Flag>(m, c, f)?.map(|v| v.0)
                    }
                    SeatBidMember::Ext => s.ext = lenient::raw_object(m, c, f)?,
                }
                Ok(())
            },
        )?;
        self.coercions = coercions;
        Ok(())
    }
}

impl<'de> Deserialize<'de> for SeatBid<'de> {
    /// Decodes one seat bid object leniently; anything but an object fails.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(Standalone::<SeatBid<'de>>(PhantomData))
    }
}

impl<'de> Deserialize<'de> for BidResponse<'de> {
    /// Decodes a bid response leniently: coercions are recorded in the `coercions` of each object, wrong-typed
    /// members are recorded and read as absent. Fails only on the deserializer's own errors (syntax, depth) and
    /// when the value is not a bid response: not an object, `seatbid` a string, number or boolean, or an object
    /// with neither `seatbid` nor `nbr` and a member that is no bid response's. Those structural errors are
    /// custom errors whose message starts with "not a bid response", or with "an OpenRTB 3.0 document" when
    /// that member is `openrtb`.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut response = BidResponse::default();
        let mut deferred = None;
        ResponseSeed {
            response: &mut response,
            refused: &mut None,
            whole: "the body",
            path: "",
            deferred: &mut deferred,
        }
        .deserialize(deserializer)?;
        match deferred {
            Some(d) => Err(de::Error::custom(d.message)),
            None => Ok(response),
        }
    }
}

/// Decodes a bid response into the (default) response it holds, as [`BidResponse`]'s `Deserialize` does, so a
/// caller can decode straight into where the response lives (`decode` fills a `Decoded`): a response is
/// 176 bytes, and returning it through each layer's `Result` costs a copy per layer.
pub(crate) struct ResponseSeed<'p, 'de> {
    /// Where the response is decoded.
    pub(crate) response: &'p mut BidResponse<'de>,
    /// Set when the document is refused for its shape, so the caller maps the error by this value.
    pub(crate) refused: &'p mut Option<Refusal>,
    /// What the response is called in the refusal of a value that is not an object: `"the body"`, or
    /// `` "`response`" `` inside a validation envelope.
    pub(crate) whole: &'static str,
    /// JSON pointer of the response: `""`, or `"/response"` inside a validation envelope.
    pub(crate) path: &'static str,
    /// Where a refusal for a shape goes (a value that is not an object, a `seatbid` that is not an array):
    /// the caller makes it once the reader has checked the rest of the input ([`Deferred`]), so that `[1]x` is
    /// malformed JSON (400), not a wrong shape (422).
    pub(crate) deferred: &'p mut Option<Deferred>,
}

impl<'de> DeserializeSeed<'de> for ResponseSeed<'_, 'de> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl ResponseSeed<'_, '_> {
    fn not_object<E: de::Error>(self, found: &'static str) -> Result<(), E> {
        defer(
            self.deferred,
            Deferred {
                refusal: Refusal::Response,
                message: format!(
                    "{NOT_A_BID_RESPONSE}: {} is {found}, not a JSON object",
                    self.whole
                ),
                path: self.path.to_owned(),
            },
        );
        Ok(())
    }
}

impl<'de> Visitor<'de> for ResponseSeed<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a bid response object")
    }
    fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<Self::Value, M::Error> {
        let mut doc = Doc {
            base: self.path,
            ..Doc::default()
        };
        if let Err(e) = self.response.read_map(map, &mut doc) {
            *self.refused = doc.refused;
            return Err(e);
        }
        if let Some(d) = doc.deferred {
            defer(self.deferred, d);
        }
        if doc.order > MAX_COERCIONS {
            return Err(refuse(
                self.refused,
                Refusal::Response,
                format_args!(
                    "{NOT_A_BID_RESPONSE}: more than {MAX_COERCIONS} deviations from the spec's shape"
                ),
            ));
        }
        Ok(())
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
        // Read to its end first: a malformed array (`[1,`) is malformed JSON, not a wrong shape.
        while seq.next_element::<de::IgnoredAny>()?.is_some() {}
        self.not_object("an array")
    }
    fn visit_str<E: de::Error>(self, _v: &str) -> Result<Self::Value, E> {
        self.not_object("a string")
    }
    fn visit_bool<E: de::Error>(self, _v: bool) -> Result<Self::Value, E> {
        self.not_object("a boolean")
    }
    fn visit_i64<E: de::Error>(self, _v: i64) -> Result<Self::Value, E> {
        self.not_object("a number")
    }
    fn visit_u64<E: de::Error>(self, _v: u64) -> Result<Self::Value, E> {
        self.not_object("a number")
    }
    fn visit_f64<E: de::Error>(self, _v: f64) -> Result<Self::Value, E> {
        self.not_object("a number")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.not_object("null")
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.not_object("null")
    }
}
