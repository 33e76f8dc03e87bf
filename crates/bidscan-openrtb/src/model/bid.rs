//! `Bid`: OpenRTB 2.6 §4.2.3 "Object: Bid".

use std::borrow::Cow;
use std::marker::PhantomData;

use bidscan_json::RawJson;
use serde::Serialize;
use serde::de::{Deserialize, Deserializer, MapAccess};

use crate::checks::issue::Coercion;
use crate::lenient::{self, Ctx, Doc, FromMap, Ident, Int, Standalone, Text, members};
use crate::model::adm::{self, Adm};
use crate::model::inline::{InlineItem, InlineVec};
use crate::model::lists::{
    ApiFramework, CategoryTaxonomy, CreativeAttribute, MarkupType, MediaRating, Protocol,
    SlotPositionInPod,
};

/// An offer to buy one impression (OpenRTB 2.6 §4.2.3), with every 2.6 (2.6-202409) member in spec order.
///
/// Absent members are `None` or empty; canonical output (`Serialize`) writes the members in this order and omits
/// absent ones. Identifiers are strings by the spec; a number sent instead is kept as its decimal text
/// (`numeric_id`). `ext` is kept verbatim.
///
/// # Lists
/// The array members are [`InlineVec`]s: their first items live inside the `Bid` and move to the heap only past
/// that: `adomain` 1, `cat` 2, `attr` 4, `apis` 3 items. The corpus (`corpus/bid-responses`, made by the shared
/// `tools/gen_corpus.py`) sends one advertiser domain, two categories and two attributes per bid, so a
/// typical bid allocates nothing for its lists; `attr` and `apis` hold 8-byte codes, where 4 and 3 inline items
/// cost 16 and 8 bytes over a `Vec`. An `InlineVec` reads like a slice (`bid.cat.len()`, `bid.attr.iter()`,
/// `&bid.adomain[..]`) and serializes as a JSON array, like a `Vec`. A `Bid` is 776 bytes (712 with `Vec`s).
///
/// # Array capacity
/// The seat bids of one response tend to carry alike numbers of bids, so a `bid` array starts with the length of
/// the last non-empty `bid` array before it in the document, or with room for one bid when there was none (the
/// usual response has one bid per seat bid): with 4 seat bids of 12 bids, the first array grows 1 → 4 → 8 → 16
/// and the next three allocate once, exactly (an empty array still allocates nothing). The
/// capacities asked for up front add up to at most the number of bids in the document.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Bid<'a> {
    /// Bidder-generated bid ID for logging/tracking. Required (validation: `missing_id`, `duplicate_bid_id`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<Cow<'a, str>>,
    /// ID of the `Imp` in the bid request this bid is for. Required (validation: `missing_impid`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub impid: Option<Cow<'a, str>>,
    /// Bid price as CPM, in the response's currency. Required (validation: `missing_price`, `price_not_finite`,
    /// `negative_price`, `zero_price`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price: Option<f64>,
    /// Win notice URL; may carry substitution macros (§4.4) and may serve the markup (§4.3.1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nurl: Option<Cow<'a, str>>,
    /// Billing notice URL (§4.4 macros allowed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub burl: Option<Cow<'a, str>>,
    /// Loss notice URL (§4.4 macros allowed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lurl: Option<Cow<'a, str>>,
    /// Ad markup (§4.3.2); supersedes markup served on the win notice.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adm: Option<Adm<'a>>,
    /// ID of a preloaded ad to serve if the bid wins.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adid: Option<Cow<'a, str>>,
    /// Advertiser domains for block-list checking (e.g. `"ford.com"`).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub adomain: InlineVec<Cow<'a, str>, 1>,
    /// Store ID of the advertised app (e.g. `com.foo.mygame`, or a numeric Apple ID).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bundle: Option<Cow<'a, str>>,
    /// URL of an image representative of the campaign, for ad-quality checks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iurl: Option<Cow<'a, str>>,
    /// Campaign ID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cid: Option<Cow<'a, str>>,
    /// Creative ID (validation: `missing_crid`, an error).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crid: Option<Cow<'a, str>>,
    /// Tactic ID, for reporting.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tactic: Option<Cow<'a, str>>,
    /// Taxonomy of `cat`; 1 (Content Taxonomy 1.0) when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cattax: Option<CategoryTaxonomy>,
    /// Content categories of the creative, in the `cattax` taxonomy.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub cat: InlineVec<Cow<'a, str>, 2>,
    /// Attributes describing the creative (AdCOM "Creative Attributes").
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub attr: InlineVec<CreativeAttribute, 4>,
    /// APIs the markup supports (AdCOM "API Frameworks").
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub apis: InlineVec<ApiFramework, 3>,
    /// Deprecated in 2.6 in favour of `apis`: the API the markup requires.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api: Option<ApiFramework>,
    /// Video/audio response protocol (AdCOM "Creative Subtypes - Audio/Video").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<Protocol>,
    /// Creative media rating per IQG guidelines (AdCOM "Media Ratings").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qagmediarating: Option<MediaRating>,
    /// Language of the creative, ISO-639-1-alpha-2 (or `"xx"` for none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<Cow<'a, str>>,
    /// Language of the creative, IETF BCP 47 (only one of `language`, `langb` should be present).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub langb: Option<Cow<'a, str>>,
    /// `deal.id` from the bid request when the bid is under a private-marketplace deal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dealid: Option<Cow<'a, str>>,
    /// Width of the creative in device-independent pixels (validation: `invalid_size` when ≤ 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub w: Option<i64>,
    /// Height of the creative in device-independent pixels (validation: `invalid_size` when ≤ 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub h: Option<i64>,
    /// Relative width when the size is a ratio (Flex Ads).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wratio: Option<i64>,
    /// Relative height when the size is a ratio (Flex Ads).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hratio: Option<i64>,
    /// Seconds the bidder is willing to wait between the auction and the impression.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exp: Option<i64>,
    /// Duration of the video or audio creative in seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dur: Option<i64>,
    /// Markup type: 1 banner, 2 video, 3 audio, 4 native (validation: `invalid_mtype` outside 1–4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mtype: Option<MarkupType>,
    /// Pod position the bid is eligible for (AdCOM "Slot Position in Pod"); 0 (any) when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slotinpod: Option<SlotPositionInPod>,
    /// Bidder-specific extensions, verbatim (written compact: see [`crate::output::compact`]).
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::output::compact::ext"
    )]
    pub ext: Option<RawJson<'a>>,
    /// Coercions applied while decoding this bid (empty for a bid in the spec's shape). Not serialized.
    #[serde(skip)]
    pub coercions: Vec<Coercion>,
}

members! {
    /// The members of `Bid`.
    BidMember {
        Id = "id", Impid = "impid", Price = "price", Nurl = "nurl", Burl = "burl", Lurl = "lurl", Adm = "adm",
        Adid = "adid", Adomain = "adomain", Bundle = "bundle", Iurl = "iurl", Cid = "cid", Crid = "crid",
        Tactic = "tactic", Cattax = "cattax", Cat = "cat", Attr = "attr", Apis = "apis", Api = "api",
        Protocol = "protocol", Qagmediarating = "qagmediarating", Language = "language", Langb = "langb",
        Dealid = "dealid", W = "w", H = "h", Wratio = "wratio", Hratio = "hratio", Exp = "exp", Dur = "dur",
        Mtype = "mtype", Slotinpod = "slotinpod", Ext = "ext",
    }
}

/// Reads the current member leniently (shared with the request view).
pub(crate) fn text<'de, A: MapAccess<'de>>(
    m: &mut A,
    c: &mut Ctx<'_>,
    f: &'static str,
) -> Result<Option<Cow<'de, str>>, A::Error> {
    Ok(lenient::scalar::<A, Text<'de>>(m, c, f)?.map(|t| t.0))
}

/// Reads the current member leniently (shared with the request view).
pub(crate) fn ident<'de, A: MapAccess<'de>>(
    m: &mut A,
    c: &mut Ctx<'_>,
    f: &'static str,
) -> Result<Option<Cow<'de, str>>, A::Error> {
    Ok(lenient::scalar::<A, Ident<'de>>(m, c, f)?.map(|t| t.0))
}

/// Reads the current member leniently (shared with the request view).
pub(crate) fn int<'de, A: MapAccess<'de>>(
    m: &mut A,
    c: &mut Ctx<'_>,
    f: &'static str,
) -> Result<Option<i64>, A::Error> {
    Ok(lenient::scalar::<A, Int>(m, c, f)?.map(|t| t.0))
}

fn code<'de, A: MapAccess<'de>, T: From<i64>>(
    m: &mut A,
    c: &mut Ctx<'_>,
    f: &'static str,
) -> Result<Option<T>, A::Error> {
    Ok(int(m, c, f)?.map(T::from))
}

/// Reads the current member leniently (shared with the request view).
pub(crate) fn codes<'de, A: MapAccess<'de>, T: From<i64> + InlineItem, const N: usize>(
    m: &mut A,
    c: &mut Ctx<'_>,
    f: &'static str,
) -> Result<InlineVec<T, N>, A::Error> {
    lenient::list(m, c, f, |t: Int| T::from(t.0))
}

/// Reads the current member leniently (shared with the request view).
pub(crate) fn texts<'de, A: MapAccess<'de>, const N: usize>(
    m: &mut A,
    c: &mut Ctx<'_>,
    f: &'static str,
) -> Result<InlineVec<Cow<'de, str>, N>, A::Error> {
    lenient::list(m, c, f, |t: Text<'de>| t.0)
}

impl<'de> FromMap<'de> for Bid<'de> {
    fn read_map<A: MapAccess<'de>>(&mut self, map: A, doc: &mut Doc) -> Result<(), A::Error> {
        // A `move` closure holds the one `&mut Bid`; a plain one captured each member's field as its own
        // reference, and built those ~33 pointers for every bid.
        let bid = &mut *self;
        let coercions = lenient::read_members(
            map,
            doc,
            #[inline(always)]
            move |m, c, member: BidMember, f| {
                match member {
                    BidMember::Id => bid.id = ident(m, c, f)?,
                    BidMember::Impid => bid.impid = ident(m, c, f)?,
                    BidMember::Price => {
                        bid.price = lenient::scalar::<A, lenient::Float>(m, c, f)?.map(|p| p.0)
                    }
                    BidMember::Nurl => bid.nurl = text(m, c, f)?,
                    BidMember::Burl => bid.burl = text(m, c, f)?,
                    BidMember::Lurl => bid.lurl = text(m, c, f)?,
                    BidMember::Adm => bid.adm = adm::read(m, c)?,
                    BidMember::Adid => bid.adid = ident(m, c, f)?,
                    BidMember::Adomain => bid.adomain = texts(m, c, f)?,
                    BidMember::Bundle => bid.bundle = text(m, c, f)?,
                    BidMember::Iurl => bid.iurl = text(m, c, f)?,
                    BidMember::Cid => bid.cid = ident(m, c, f)?,
                    BidMember::Crid => bid.crid = ident(m, c, f)?,
                    BidMember::Tactic => bid.tactic = ident(m, c, f)?,
                    BidMember::Cattax => bid.cattax = code(m, c, f)?,
                    BidMember::Cat => bid.cat = texts(m, c, f)?,
                    BidMember::Attr => bid.attr = codes(m, c, f)?,
                    BidMember::Apis => bid.apis = codes(m, c, f)?,
                    BidMember::Api => bid.api = code(m, c, f)?,
                    BidMember::Protocol => bid.protocol = code(m, c, f)?,
                    BidMember::Qagmediarating => bid.qagmediarating = code(m, c, f)?,
                    BidMember::Language => bid.language = text(m, c, f)?,
                    BidMember::Langb => bid.langb = text(m, c, f)?,
                    BidMember::Dealid => bid.dealid = ident(m, c, f)?,
                    BidMember::W => bid.w = int(m, c, f)?,
                    BidMember::H => bid.h = int(m, c, f)?,
                    BidMember::Wratio => bid.wratio = int(m, c, f)?,
                    BidMember::Hratio => bid.hratio = int(m, c, f)?,
                    BidMember::Exp => bid.exp = int(m, c, f)?,
                    BidMember::Dur => bid.dur = int(m, c, f)?,
                    BidMember::Mtype => bid.mtype = code(m, c, f)?,
                    BidMember::Slotinpod => bid.slotinpod = code(m, c, f)?,
                    BidMember::Ext => bid.ext = lenient::raw_object(m, c, f)?,
                }
                Ok(())
            },
        )?;
        self.coercions = coercions;
        Ok(())
    }

    /// See "Array capacity" on [`Bid`].
    fn first_capacity(doc: &Doc) -> usize {
        // One when nothing is known: `Vec` would start at four, 3 KiB of `Bid`s, past the allocator's
        // per-thread cache, for the usual single bid.
        doc.last_bids.max(1)
    }

    fn decoded_array(doc: &mut Doc, len: usize) {
        if len > 0 {
            doc.last_bids = len;
        }
    }
}

impl<'de> Deserialize<'de> for Bid<'de> {
    /// Decodes one bid object leniently (coercions recorded in [`Bid::coercions`]); anything but an object fails.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(Standalone::<Bid<'de>>(PhantomData))
    }
}
