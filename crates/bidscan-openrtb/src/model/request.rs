//! `BidRequest` (OpenRTB 2.6 §3.2.1): the typed view of the request a response is validated against.
//!
//! Only the members response validation needs are read; every other member (`site`, `app`, `device`, `user`,
//! `regs`, `ext`, …) is skipped undecoded. Decoding is lenient like the response's (numbers as strings, `null`,
//! single values for arrays, numeric ids are accepted), but nothing is reported: a request is the exchange's own
//! document, and a value of the wrong type is simply read as absent, so the rule that needs it does not apply.

use std::borrow::Cow;

use serde::de::MapAccess;

use crate::checks::issue::{CoercionKind, JsonType};
use crate::lenient::{self, Ctx, Doc, FromMap, members};
use crate::model::bid::{codes, ident, int, text, texts};
use crate::model::inline::{InlineItem, InlineVec};
use crate::model::lists::{CategoryTaxonomy, CreativeAttribute, Protocol};

/// The top-level bid request (OpenRTB 2.6 §3.2.1): what response validation needs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BidRequest<'a> {
    /// ID of the bid request; a response's `id` should echo it.
    pub id: Option<Cow<'a, str>>,
    /// The impressions offered; 1+ required (a request without any is refused: `request_without_imp`).
    pub imp: Vec<Imp<'a>>,
    /// Currencies allowed for bids, ISO-4217 alpha codes (§3.2.1 `cur`). OpenRTB leaves an empty list to the
    /// exchange; the gate allows USD only then, as Prebid Server does.
    pub cur: InlineVec<Cow<'a, str>, 2>,
    /// Blocked advertiser categories, in the `cattax` taxonomy (§3.2.1 `bcat`).
    pub bcat: InlineVec<Cow<'a, str>, 2>,
    /// Blocked advertiser domains (§3.2.1 `badv`); a domain also blocks its subdomains.
    pub badv: InlineVec<Cow<'a, str>, 2>,
    /// Blocked apps by store id, e.g. `com.foo.mygame` (§3.2.1 `bapp`).
    pub bapp: InlineVec<Cow<'a, str>, 1>,
    /// Taxonomy of `bcat`; 1 (IAB Content Taxonomy 1.0) when absent (§3.2.1 `cattax`).
    pub cattax: Option<CategoryTaxonomy>,
    /// Time the exchange waits for bids, in milliseconds (§3.2.1 `tmax`).
    pub tmax: Option<i64>,
    /// Allowed advertiser categories, in the `cattax` taxonomy (§3.2.1 `acat`); empty: any.
    pub acat: InlineVec<Cow<'a, str>, 2>,
    /// Buyer seats allowed to bid (§3.2.1 `wseat`); empty: any.
    pub wseat: InlineVec<Cow<'a, str>, 1>,
    /// Buyer seats blocked from bidding (§3.2.1 `bseat`).
    pub bseat: InlineVec<Cow<'a, str>, 1>,
    /// The request is for an app (§3.2.1 `app` present, §3.2.14); its members are not read.
    pub app: bool,
    /// The DSA transparency terms of `regs.ext.dsa` (IAB Tech Lab, "DSA Transparency" OpenRTB extension).
    pub dsa: Option<Dsa>,
}

/// The request's DSA transparency terms (`regs.ext.dsa`, IAB Tech Lab "DSA Transparency" extension).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dsa {
    /// 0 not required, 1 supported, 2 required, 3 required and the publisher is an online platform.
    pub dsarequired: Option<i64>,
    /// 0 the publisher cannot render the DSA transparency, 1 could, 2 will render it.
    pub pubrender: Option<i64>,
}

impl Dsa {
    /// `dsarequired` is 2 or 3: every bid must carry its DSA transparency (`bid.ext.dsa`).
    pub fn required(&self) -> bool {
        matches!(self.dsarequired, Some(2 | 3))
    }
}

/// One impression offered (OpenRTB 2.6 §3.2.4).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Imp<'a> {
    /// Identifier of the impression within the request; a bid's `impid` names it.
    pub id: Option<Cow<'a, str>>,
    /// Minimum bid, CPM, in `bidfloorcur`; 0 when absent.
    pub bidfloor: Option<f64>,
    /// Currency of `bidfloor`; `"USD"` when absent.
    pub bidfloorcur: Option<Cow<'a, str>>,
    /// 1: the impression requires secure (HTTPS) creative assets and markup; 0 or absent: not required.
    /// `true`/`false` are read as 1/0.
    pub secure: Option<i64>,
    /// Offered as a banner (§3.2.6).
    pub banner: Option<Banner>,
    /// Offered as video (§3.2.7).
    pub video: Option<Video<'a>>,
    /// Offered as audio (§3.2.8); the members validation needs are video's.
    pub audio: Option<Video<'a>>,
    /// Offered as native (§3.2.9).
    pub native: Option<Native>,
    /// Private marketplace deals (§3.2.11).
    pub pmp: Option<Pmp<'a>>,
}

/// A banner slot (OpenRTB 2.6 §3.2.6).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Banner {
    /// Exact width in device-independent pixels (used when `format` is empty).
    pub w: Option<i64>,
    /// Exact height in device-independent pixels.
    pub h: Option<i64>,
    /// The sizes allowed (§3.2.10); the first is the preferred one. Up to two are held inline (most banners
    /// offer one or two).
    pub format: InlineVec<Format, 2>,
    /// Blocked creative attributes (AdCOM "Creative Attributes").
    pub battr: InlineVec<CreativeAttribute, 4>,
}

/// One allowed banner size (OpenRTB 2.6 §3.2.10).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Format {
    /// Width in device-independent pixels.
    pub w: Option<i64>,
    /// Height in device-independent pixels.
    pub h: Option<i64>,
}

impl crate::model::inline::sealed::Sealed for Format {}

impl InlineItem for Format {
    const UNUSED: Self = Format { w: None, h: None };
}

/// A video slot (OpenRTB 2.6 §3.2.7); also read for `imp.audio` (§3.2.8 has the same members).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Video<'a> {
    /// MIME types supported, e.g. `video/mp4`.
    pub mimes: InlineVec<Cow<'a, str>, 2>,
    /// Minimum creative duration, seconds.
    pub minduration: Option<i64>,
    /// Maximum creative duration, seconds.
    pub maxduration: Option<i64>,
    /// Supported response protocols (AdCOM "Creative Subtypes - Audio/Video").
    pub protocols: InlineVec<Protocol, 4>,
    /// Blocked creative attributes.
    pub battr: InlineVec<CreativeAttribute, 4>,
    /// Companion banners offered with the video (§3.2.7 `companionad`); their `battr` also binds the bid.
    pub companionad: Vec<Banner>,
}

/// A native slot (OpenRTB 2.6 §3.2.9): only its blocked attributes matter here.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Native {
    /// Blocked creative attributes.
    pub battr: InlineVec<CreativeAttribute, 4>,
}

/// Private marketplace terms of an impression (OpenRTB 2.6 §3.2.11).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pmp<'a> {
    /// 1: only bids under one of `deals` are accepted; 0 or absent: all bids are (`true`/`false` read as 1/0).
    pub private_auction: Option<i64>,
    /// The deals offered.
    pub deals: Vec<Deal<'a>>,
}

/// One deal (OpenRTB 2.6 §3.2.12).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Deal<'a> {
    /// Deal id; a bid's `dealid` names it.
    pub id: Option<Cow<'a, str>>,
    /// Minimum bid for the deal, CPM, in `bidfloorcur`; 0 when absent.
    pub bidfloor: Option<f64>,
    /// Currency of `bidfloor`; `"USD"` when absent.
    pub bidfloorcur: Option<Cow<'a, str>>,
}

impl Imp<'_> {
    /// True when `imp.secure` is 1.
    pub fn is_secure(&self) -> bool {
        self.secure == Some(1)
    }
}

members! {
    /// The members of `BidRequest` that are read.
    RequestMember {
        Id = "id", Imp = "imp", Cur = "cur", Bcat = "bcat", Badv = "badv", Bapp = "bapp", Cattax = "cattax",
        Tmax = "tmax", Acat = "acat", Wseat = "wseat", Bseat = "bseat", App = "app", Regs = "regs",
    }
}

members! {
    /// The members of `Imp` that are read.
    ImpMember {
        Id = "id", Bidfloor = "bidfloor", Bidfloorcur = "bidfloorcur", Secure = "secure", Banner = "banner",
        Video = "video", Audio = "audio", Native = "native", Pmp = "pmp",
    }
}

members! {
    /// The members of `Banner`, `Format`, `Video`/audio and `Native` that are read.
    SlotMember {
        W = "w", H = "h", Format = "format", Battr = "battr", Mimes = "mimes", Minduration = "minduration",
        Maxduration = "maxduration", Protocols = "protocols", Companionad = "companionad",
    }
}

members! {
    /// The members of `regs`, its `ext` and the `dsa` object that are read.
    RegsMember {
        Ext = "ext", Dsa = "dsa", Dsarequired = "dsarequired", Pubrender = "pubrender",
    }
}

members! {
    /// The members of `Pmp` and `Deal` that are read.
    DealMember {
        PrivateAuction = "private_auction", Deals = "deals", Id = "id", Bidfloor = "bidfloor",
        Bidfloorcur = "bidfloorcur",
    }
}

fn float<'de, A: MapAccess<'de>>(
    m: &mut A,
    c: &mut Ctx<'_>,
    f: &'static str,
) -> Result<Option<f64>, A::Error> {
    Ok(lenient::scalar::<A, lenient::Float>(m, c, f)?.map(|t| t.0))
}

/// Why a request's `imp` holds no impression although the member was sent: the first value of the last `imp`
/// member that is not an impression (for the `request_without_imp` message).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ImpFault {
    /// The element of the `imp` array (`None`: the member itself).
    pub(crate) index: Option<u32>,
    /// What was sent there (`null`, a number, a string, …).
    pub(crate) found: JsonType,
}

impl<'de> BidRequest<'de> {
    /// Reads the request's members into `self` (a default value), as [`FromMap::read_map`] does for the other
    /// objects, and returns
    /// what made `imp` empty when the member was sent with no object in it ([`ImpFault`]).
    pub(crate) fn read_request<A: MapAccess<'de>>(
        &mut self,
        map: A,
        doc: &mut Doc,
    ) -> Result<Option<ImpFault>, A::Error> {
        let r = self;
        // The order of the first coercion the last `imp` member may note: only those name its fault.
        let mut imp_from = None;
        // The request's coercions are not reported (see the module docs); they still count against the
        // document's bound on coercions.
        let coercions = lenient::read_members(map, doc, |m, c, member: RequestMember, f| {
            match member {
                RequestMember::Id => r.id = ident(m, c, f)?,
                RequestMember::Imp => {
                    imp_from = Some(c.doc.order);
                    r.imp = lenient::objects(m, c, f, false)?;
                }
                RequestMember::Cur => r.cur = texts(m, c, f)?,
                RequestMember::Bcat => r.bcat = texts(m, c, f)?,
                RequestMember::Badv => r.badv = texts(m, c, f)?,
                RequestMember::Bapp => r.bapp = texts(m, c, f)?,
                RequestMember::Cattax => r.cattax = int(m, c, f)?.map(CategoryTaxonomy),
                RequestMember::Tmax => r.tmax = int(m, c, f)?,
                RequestMember::Acat => r.acat = texts(m, c, f)?,
                RequestMember::Wseat => r.wseat = texts(m, c, f)?,
                RequestMember::Bseat => r.bseat = texts(m, c, f)?,
                RequestMember::App => {
                    m.next_value::<serde::de::IgnoredAny>()?;
                    r.app = true;
                }
                RequestMember::Regs => {
                    let mut regs: Option<Regs> = None;
                    lenient::object(m, c, f, &mut regs)?;
                    r.dsa = regs.and_then(|r| r.dsa);
                }
            }
            Ok(())
        })?;
        let Some(from) = imp_from.filter(|_| r.imp.is_empty()) else {
            return Ok(None);
        };
        // The `imp` array's own coercions (of the member, and of elements dropped) land in this object's list;
        // an impression's own members have theirs.
        Ok(coercions
            .iter()
            .filter(|c| c.field == "imp" && c.order >= from)
            .find_map(|c| {
                let found = match c.kind {
                    CoercionKind::InvalidType { found, .. } => found,
                    CoercionKind::Null => JsonType::Null,
                    _ => return None,
                };
                Some(ImpFault {
                    index: c.index,
                    found,
                })
            }))
    }
}

impl<'de> FromMap<'de> for Imp<'de> {
    /// Most requests offer one imp: an `imp` array starts with room for exactly one (an `Imp` is 640 bytes, so
    /// `Vec`'s first growth to four would be a 2.5 KiB block, past the allocator's per-thread cache of small
    /// blocks, and slower to get and to free than the 640 bytes one imp needs).
    fn first_capacity(_doc: &Doc) -> usize {
        1
    }

    fn read_map<A: MapAccess<'de>>(&mut self, map: A, doc: &mut Doc) -> Result<(), A::Error> {
        let imp = self;
        lenient::read_members(map, doc, move |m, c, member: ImpMember, f| {
            match member {
                ImpMember::Id => imp.id = ident(m, c, f)?,
                ImpMember::Bidfloor => imp.bidfloor = float(m, c, f)?,
                ImpMember::Bidfloorcur => imp.bidfloorcur = text(m, c, f)?,
                ImpMember::Secure => {
                    imp.secure = lenient::scalar::<A, lenient::Flag>(m, c, f)?.map(|v| v.0);
                }
                ImpMember::Banner => lenient::object(m, c, f, &mut imp.banner)?,
                ImpMember::Video => lenient::object(m, c, f, &mut imp.video)?,
                ImpMember::Audio => lenient::object(m, c, f, &mut imp.audio)?,
                ImpMember::Native => lenient::object(m, c, f, &mut imp.native)?,
                ImpMember::Pmp => lenient::object(m, c, f, &mut imp.pmp)?,
            }
            Ok(())
        })?;
        Ok(())
    }
}

impl<'de> FromMap<'de> for Banner {
    fn read_map<A: MapAccess<'de>>(&mut self, map: A, doc: &mut Doc) -> Result<(), A::Error> {
        let b = self;
        lenient::read_members(map, doc, move |m, c, member: SlotMember, f| {
            match member {
                SlotMember::W => b.w = int(m, c, f)?,
                SlotMember::H => b.h = int(m, c, f)?,
                SlotMember::Format => b.format = lenient::objects(m, c, f, false)?,
                SlotMember::Battr => b.battr = codes(m, c, f)?,
                _ => m.next_value::<serde::de::IgnoredAny>().map(drop)?,
            }
            Ok(())
        })?;
        Ok(())
    }
}

impl<'de> FromMap<'de> for Format {
    fn read_map<A: MapAccess<'de>>(&mut self, map: A, doc: &mut Doc) -> Result<(), A::Error> {
        let s = self;
        lenient::read_members(map, doc, move |m, c, member: SlotMember, f| {
            match member {
                SlotMember::W => s.w = int(m, c, f)?,
                SlotMember::H => s.h = int(m, c, f)?,
                _ => m.next_value::<serde::de::IgnoredAny>().map(drop)?,
            }
            Ok(())
        })?;
        Ok(())
    }
}

impl<'de> FromMap<'de> for Video<'de> {
    fn read_map<A: MapAccess<'de>>(&mut self, map: A, doc: &mut Doc) -> Result<(), A::Error> {
        let v = self;
        lenient::read_members(map, doc, move |m, c, member: SlotMember, f| {
            match member {
                SlotMember::Mimes => v.mimes = texts(m, c, f)?,
                SlotMember::Minduration => v.minduration = int(m, c, f)?,
                SlotMember::Maxduration => v.maxduration = int(m, c, f)?,
                SlotMember::Protocols => v.protocols = codes(m, c, f)?,
                SlotMember::Battr => v.battr = codes(m, c, f)?,
                SlotMember::Companionad => v.companionad = lenient::objects(m, c, f, false)?,
                _ => m.next_value::<serde::de::IgnoredAny>().map(drop)?,
            }
            Ok(())
        })?;
        Ok(())
    }
}

/// `regs` and `regs.ext`: only the DSA terms are read, from `regs.ext.dsa` (also `regs.dsa`).
#[derive(Default)]
struct Regs {
    dsa: Option<Dsa>,
}

impl<'de> FromMap<'de> for Regs {
    fn read_map<A: MapAccess<'de>>(&mut self, map: A, doc: &mut Doc) -> Result<(), A::Error> {
        let r = self;
        lenient::read_members(map, doc, move |m, c, member: RegsMember, f| {
            match member {
                RegsMember::Ext => {
                    let mut ext: Option<Regs> = None;
                    lenient::object(m, c, f, &mut ext)?;
                    if let Some(dsa) = ext.and_then(|e| e.dsa) {
                        r.dsa = Some(dsa);
                    }
                }
                RegsMember::Dsa => lenient::object(m, c, f, &mut r.dsa)?,
                _ => m.next_value::<serde::de::IgnoredAny>().map(drop)?,
            }
            Ok(())
        })?;
        Ok(())
    }
}

impl<'de> FromMap<'de> for Dsa {
    fn read_map<A: MapAccess<'de>>(&mut self, map: A, doc: &mut Doc) -> Result<(), A::Error> {
        let d = self;
        lenient::read_members(map, doc, move |m, c, member: RegsMember, f| {
            match member {
                RegsMember::Dsarequired => d.dsarequired = int(m, c, f)?,
                RegsMember::Pubrender => d.pubrender = int(m, c, f)?,
                _ => m.next_value::<serde::de::IgnoredAny>().map(drop)?,
            }
            Ok(())
        })?;
        Ok(())
    }
}

impl<'de> FromMap<'de> for Native {
    fn read_map<A: MapAccess<'de>>(&mut self, map: A, doc: &mut Doc) -> Result<(), A::Error> {
        let n = self;
        lenient::read_members(map, doc, move |m, c, member: SlotMember, f| {
            match member {
                SlotMember::Battr => n.battr = codes(m, c, f)?,
                _ => m.next_value::<serde::de::IgnoredAny>().map(drop)?,
            }
            Ok(())
        })?;
        Ok(())
    }
}

impl<'de> FromMap<'de> for Pmp<'de> {
    fn read_map<A: MapAccess<'de>>(&mut self, map: A, doc: &mut Doc) -> Result<(), A::Error> {
        let p = self;
        lenient::read_members(map, doc, move |m, c, member: DealMember, f| {
            match member {
                DealMember::PrivateAuction => {
                    p.private_auction = lenient::scalar::<A, lenient::Flag>(m, c, f)?.map(|v| v.0)
                }
                DealMember::Deals => p.deals = lenient::objects(m, c, f, false)?,
                _ => m.next_value::<serde::de::IgnoredAny>().map(drop)?,
            }
            Ok(())
        })?;
        Ok(())
    }
}

impl<'de> FromMap<'de> for Deal<'de> {
    fn read_map<A: MapAccess<'de>>(&mut self, map: A, doc: &mut Doc) -> Result<(), A::Error> {
        let d = self;
        lenient::read_members(map, doc, move |m, c, member: DealMember, f| {
            match member {
                DealMember::Id => d.id = ident(m, c, f)?,
                DealMember::Bidfloor => d.bidfloor = float(m, c, f)?,
                DealMember::Bidfloorcur => d.bidfloorcur = text(m, c, f)?,
                _ => m.next_value::<serde::de::IgnoredAny>().map(drop)?,
            }
            Ok(())
        })?;
        Ok(())
    }
}
