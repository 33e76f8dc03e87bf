//! The peers' copy of the OpenRTB 2.6 bid-response model: the same members, names and types as
//! `bidscan_openrtb::{BidResponse, SeatBid, Bid}`, with plain `serde` derive instead of the lenient hand-written
//! impls, and strings as [`CowStr`] (borrowed when the peer can hand out a borrow, owned otherwise).
//!
//! Why a copy: bidscan's model keeps `ext` as [`RawJson`](bidscan_json::RawJson), which rides on serde_json's
//! private raw-value protocol; sonic-rs, simd-json and jiter do not speak it (their `deserialize_newtype_struct`
//! ignores the name), so they cannot decode the real model. serde_json can and does decode the real model in the
//! benches. `ext` here is a type parameter: sonic-rs captures it verbatim ([`SonicRaw`], its own raw-value type),
//! simd-json and jiter skip it ([`Skipped`]: validated, not kept) — less work than bidscan's verbatim capture.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, Visitor};
use serde::{Serialize, Serializer};

/// A string that borrows from the input when the deserializer offers a borrow (`visit_borrowed_str`) and owns a
/// copy otherwise (escaped strings, for serde_json, sonic-rs and jiter). simd-json unescapes in place and always
/// borrows.
#[derive(Clone, Debug, PartialEq)]
pub struct CowStr<'a>(pub Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for CowStr<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CowStr<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(CowStr(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(CowStr(Cow::Owned(v.to_owned())))
            }
        }
        deserializer.deserialize_str(V)
    }
}

impl Serialize for CowStr<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

/// What a peer does with `ext`: keep it ([`CAPTURED`](Ext::CAPTURED)) or skip it. Serializing (for the value
/// comparison only, never timed) writes the kept value as JSON.
pub trait Ext: Serialize {
    /// Whether the value is kept; a skipped `ext` is left out of the comparison.
    const CAPTURED: bool;
}

/// `ext` skipped: validated by the peer, then dropped (serde's `IgnoredAny`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Skipped;

impl<'de> Deserialize<'de> for Skipped {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        IgnoredAny::deserialize(deserializer).map(|_| Skipped)
    }
}

impl Serialize for Skipped {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_unit()
    }
}

impl Ext for Skipped {
    const CAPTURED: bool = false;
}

/// `ext` kept verbatim by sonic-rs (`sonic_rs::LazyValue`: the value's raw text, borrowed when unescaped).
#[derive(Debug)]
pub struct SonicRaw<'a>(pub sonic_rs::LazyValue<'a>);

impl<'de: 'a, 'a> Deserialize<'de> for SonicRaw<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        sonic_rs::LazyValue::deserialize(deserializer).map(SonicRaw)
    }
}

impl Serialize for SonicRaw<'_> {
    /// Re-parses the raw text with serde_json (comparison only).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let value: serde_json::Value =
            serde_json::from_str(self.0.as_raw_str()).map_err(serde::ser::Error::custom)?;
        value.serialize(serializer)
    }
}

impl Ext for SonicRaw<'_> {
    const CAPTURED: bool = true;
}

fn skip_ext<X: Ext>(ext: &Option<X>) -> bool {
    !X::CAPTURED || ext.is_none()
}

/// OpenRTB 2.6 §4.2.1 BidResponse (mirror of `bidscan_openrtb::BidResponse`).
#[derive(Debug, Deserialize, Serialize)]
#[serde(bound(deserialize = "X: Deserialize<'de>", serialize = "X: Ext"))]
#[allow(missing_docs)]
pub struct BidResponse<'a, X> {
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub id: Option<CowStr<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Vec::is_empty")]
    pub seatbid: Vec<SeatBid<'a, X>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub bidid: Option<CowStr<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub cur: Option<CowStr<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub customdata: Option<CowStr<'a>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nbr: Option<i64>,
    #[serde(default, skip_serializing_if = "skip_ext")]
    pub ext: Option<X>,
}

/// OpenRTB 2.6 §4.2.2 SeatBid (mirror of `bidscan_openrtb::SeatBid`).
#[derive(Debug, Deserialize, Serialize)]
#[serde(bound(deserialize = "X: Deserialize<'de>", serialize = "X: Ext"))]
#[allow(missing_docs)]
pub struct SeatBid<'a, X> {
    #[serde(borrow, default, skip_serializing_if = "Vec::is_empty")]
    pub bid: Vec<Bid<'a, X>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<CowStr<'a>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<i64>,
    #[serde(default, skip_serializing_if = "skip_ext")]
    pub ext: Option<X>,
}

/// OpenRTB 2.6 §4.2.3 Bid (mirror of `bidscan_openrtb::Bid`, every 2.6 member; `adm` as a string only).
#[derive(Debug, Deserialize, Serialize)]
#[serde(bound(deserialize = "X: Deserialize<'de>", serialize = "X: Ext"))]
#[allow(missing_docs)]
pub struct Bid<'a, X> {
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub id: Option<CowStr<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub impid: Option<CowStr<'a>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<f64>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub nurl: Option<CowStr<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub burl: Option<CowStr<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub lurl: Option<CowStr<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub adm: Option<CowStr<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub adid: Option<CowStr<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Vec::is_empty")]
    pub adomain: Vec<CowStr<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub bundle: Option<CowStr<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub iurl: Option<CowStr<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub cid: Option<CowStr<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub crid: Option<CowStr<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub tactic: Option<CowStr<'a>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cattax: Option<i64>,
    #[serde(borrow, default, skip_serializing_if = "Vec::is_empty")]
    pub cat: Vec<CowStr<'a>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attr: Vec<i64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub apis: Vec<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qagmediarating: Option<i64>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub language: Option<CowStr<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub langb: Option<CowStr<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub dealid: Option<CowStr<'a>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub w: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub h: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wratio: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hratio: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exp: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dur: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtype: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slotinpod: Option<i64>,
    #[serde(default, skip_serializing_if = "skip_ext")]
    pub ext: Option<X>,
}

impl<X> BidResponse<'_, X> {
    /// Number of bids over all seat bids.
    pub fn bid_count(&self) -> usize {
        self.seatbid.iter().map(|s| s.bid.len()).sum()
    }
}
