//! The reference decoder for `decode_protobuf`: prost (its derive; no protoc) into structs with the field numbers
//! and types of IAB Tech Lab's `openrtb.proto` for `BidResponse`, `SeatBid` and `Bid`, and [`check`], the
//! differential property: on any bytes, `decode_protobuf` accepts exactly what prost accepts and, when both do,
//! reads the same values. Shared by the proptest (`tests/protobuf.rs`) and the `protobuf` fuzz target (included
//! by path).
//!
//! Known differences, skipped by [`check`]:
//! - `ext` and `adm_native` are `bytes` here (prost would need the whole schema): prost accepts any content,
//!   `decode_protobuf` checks it (a malformed `ext` is refused at `…/ext…`, a malformed `adm_native` at `…/adm…`),
//!   and a second occurrence merges in `decode_protobuf` where `bytes` keeps the last;
//! - depth: prost's recursion limit (100) and `decode_protobuf`'s (128, counted from the top message) differ;
//! - `decode_protobuf` refuses more than 10,000 seat bids and bids, or 10,000 duplicate fields, as JSON does;
//! - `cur` is read as exchanges read it after decoding (`""` as `USD`, three letters upper-cased).
#![allow(dead_code)]

use bidscan_openrtb::{
    Adm, BidResponse, Decoded, Mode, ProtobufError, ProtobufLimits, WireErrorKind, decode_protobuf,
};

/// `BidResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PbResponse {
    #[prost(string, optional, tag = "1")]
    pub id: Option<String>,
    #[prost(message, repeated, tag = "2")]
    pub seatbid: Vec<PbSeatBid>,
    #[prost(string, optional, tag = "3")]
    pub bidid: Option<String>,
    #[prost(string, optional, tag = "4")]
    pub cur: Option<String>,
    #[prost(string, optional, tag = "5")]
    pub customdata: Option<String>,
    #[prost(int32, optional, tag = "6")]
    pub nbr: Option<i32>,
    #[prost(bytes = "vec", optional, tag = "99")]
    pub ext: Option<Vec<u8>>,
}

/// `BidResponse.SeatBid`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PbSeatBid {
    #[prost(message, repeated, tag = "1")]
    pub bid: Vec<PbBid>,
    #[prost(string, optional, tag = "2")]
    pub seat: Option<String>,
    #[prost(bool, optional, tag = "3")]
    pub group: Option<bool>,
    #[prost(bytes = "vec", optional, tag = "99")]
    pub ext: Option<Vec<u8>>,
}

/// `BidResponse.Bid`'s `adm_oneof`.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum PbAdm {
    #[prost(string, tag = "6")]
    Adm(String),
    #[prost(bytes, tag = "50")]
    AdmNative(Vec<u8>),
}

/// `BidResponse.Bid`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PbBid {
    #[prost(string, optional, tag = "1")]
    pub id: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub impid: Option<String>,
    #[prost(double, optional, tag = "3")]
    pub price: Option<f64>,
    #[prost(string, optional, tag = "5")]
    pub nurl: Option<String>,
    #[prost(string, optional, tag = "22")]
    pub burl: Option<String>,
    #[prost(string, optional, tag = "23")]
    pub lurl: Option<String>,
    #[prost(oneof = "PbAdm", tags = "6, 50")]
    pub adm: Option<PbAdm>,
    #[prost(string, optional, tag = "4")]
    pub adid: Option<String>,
    #[prost(string, repeated, tag = "7")]
    pub adomain: Vec<String>,
    #[prost(string, optional, tag = "14")]
    pub bundle: Option<String>,
    #[prost(string, optional, tag = "8")]
    pub iurl: Option<String>,
    #[prost(string, optional, tag = "9")]
    pub cid: Option<String>,
    #[prost(string, optional, tag = "10")]
    pub crid: Option<String>,
    #[prost(string, optional, tag = "24")]
    pub tactic: Option<String>,
    #[prost(int32, optional, tag = "30")]
    pub cattax: Option<i32>,
    #[prost(string, repeated, tag = "15")]
    pub cat: Vec<String>,
    #[prost(int32, repeated, tag = "11")]
    pub attr: Vec<i32>,
    #[prost(int32, repeated, tag = "31")]
    pub apis: Vec<i32>,
    #[prost(int32, optional, tag = "18")]
    pub api: Option<i32>,
    #[prost(int32, optional, tag = "19")]
    pub protocol: Option<i32>,
    #[prost(int32, optional, tag = "20")]
    pub qagmediarating: Option<i32>,
    #[prost(string, optional, tag = "25")]
    pub language: Option<String>,
    #[prost(string, optional, tag = "29")]
    pub langb: Option<String>,
    #[prost(string, optional, tag = "13")]
    pub dealid: Option<String>,
    #[prost(int32, optional, tag = "16")]
    pub w: Option<i32>,
    #[prost(int32, optional, tag = "17")]
    pub h: Option<i32>,
    #[prost(int32, optional, tag = "26")]
    pub wratio: Option<i32>,
    #[prost(int32, optional, tag = "27")]
    pub hratio: Option<i32>,
    #[prost(int32, optional, tag = "21")]
    pub exp: Option<i32>,
    #[prost(int32, optional, tag = "32")]
    pub dur: Option<i32>,
    #[prost(int32, optional, tag = "33")]
    pub mtype: Option<i32>,
    #[prost(int32, optional, tag = "28")]
    pub slotinpod: Option<i32>,
    #[prost(bytes = "vec", optional, tag = "99")]
    pub ext: Option<Vec<u8>>,
}

/// What [`check`] found on one input.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Both accepted, with the same values.
    BothAccepted,
    /// Both refused.
    BothRefused,
    /// A known difference (see the module docs).
    Known,
}

/// Decodes `body` with both decoders and checks the property (panics with the first difference).
pub fn check(body: &[u8]) -> Outcome {
    let mut rendered = String::new();
    let ours = decode_protobuf(
        body,
        &mut rendered,
        Mode::Lenient,
        ProtobufLimits::default(),
    );
    let theirs = <PbResponse as prost::Message>::decode(body);
    match (&ours, &theirs) {
        (Ok(d), Ok(r)) => {
            same(d, r);
            Outcome::BothAccepted
        }
        (Err(e), Err(_)) => {
            if let ProtobufError::Malformed(w) = e {
                assert!(
                    w.offset() <= body.len(),
                    "offset {} past the body",
                    w.offset()
                );
            }
            Outcome::BothRefused
        }
        (Err(ProtobufError::Malformed(w)), Ok(_))
            if w.kind() == WireErrorKind::DepthLimit
                || w.path().contains("/ext")
                || w.path().contains("/adm") =>
        {
            Outcome::Known
        }
        (Err(ProtobufError::Decode(_)), Ok(_)) => Outcome::Known,
        (Ok(_), Err(e)) if e.to_string().contains("recursion limit") => Outcome::Known,
        (Err(e), Ok(_)) => panic!("decode_protobuf refused what prost accepts: {e}"),
        (Ok(_), Err(e)) => panic!("decode_protobuf accepted what prost refuses: {e}"),
    }
}

fn s<'a>(v: &'a Option<std::borrow::Cow<'a, str>>) -> Option<&'a str> {
    v.as_deref()
}

/// `cur` as the checks leave it (the currency reading of the checks).
fn cur_as_read(cur: &Option<String>) -> Option<String> {
    cur.as_ref().map(|c| {
        if c.is_empty() {
            "USD".to_owned()
        } else if c.len() == 3 && c.bytes().all(|b| b.is_ascii_alphabetic()) {
            c.to_ascii_uppercase()
        } else {
            c.clone()
        }
    })
}

fn ints(v: Option<i32>) -> Option<i64> {
    v.map(i64::from)
}

/// Asserts `decoded` holds what `reference` holds.
fn same(decoded: &Decoded<'_>, reference: &PbResponse) {
    let r: &BidResponse<'_> = &decoded.response;
    assert_eq!(s(&r.id), reference.id.as_deref(), "id");
    assert_eq!(s(&r.bidid), reference.bidid.as_deref(), "bidid");
    assert_eq!(
        s(&r.cur).map(str::to_owned),
        cur_as_read(&reference.cur),
        "cur"
    );
    assert_eq!(
        s(&r.customdata),
        reference.customdata.as_deref(),
        "customdata"
    );
    assert_eq!(r.nbr.map(|n| n.0), ints(reference.nbr), "nbr");
    assert_eq!(r.ext.is_some(), reference.ext.is_some(), "ext");
    assert_eq!(r.seatbid.len(), reference.seatbid.len(), "seatbid");
    for (si, (seat, pseat)) in r.seatbid.iter().zip(&reference.seatbid).enumerate() {
        assert_eq!(s(&seat.seat), pseat.seat.as_deref(), "seatbid/{si}/seat");
        assert_eq!(seat.group, pseat.group.map(i64::from), "seatbid/{si}/group");
        assert_eq!(seat.ext.is_some(), pseat.ext.is_some(), "seatbid/{si}/ext");
        assert_eq!(seat.bid.len(), pseat.bid.len(), "seatbid/{si}/bid");
        for (bi, (b, p)) in seat.bid.iter().zip(&pseat.bid).enumerate() {
            let at = format!("seatbid/{si}/bid/{bi}");
            let texts = [
                ("id", s(&b.id), &p.id),
                ("impid", s(&b.impid), &p.impid),
                ("nurl", s(&b.nurl), &p.nurl),
                ("burl", s(&b.burl), &p.burl),
                ("lurl", s(&b.lurl), &p.lurl),
                ("adid", s(&b.adid), &p.adid),
                ("bundle", s(&b.bundle), &p.bundle),
                ("iurl", s(&b.iurl), &p.iurl),
                ("cid", s(&b.cid), &p.cid),
                ("crid", s(&b.crid), &p.crid),
                ("tactic", s(&b.tactic), &p.tactic),
                ("language", s(&b.language), &p.language),
                ("langb", s(&b.langb), &p.langb),
                ("dealid", s(&b.dealid), &p.dealid),
            ];
            for (name, ours, theirs) in texts {
                assert_eq!(ours, theirs.as_deref(), "{at}/{name}");
            }
            assert_eq!(
                b.price.map(f64::to_bits),
                p.price.map(f64::to_bits),
                "{at}/price"
            );
            match (&b.adm, &p.adm) {
                (None, None) | (Some(Adm::Object(_)), Some(PbAdm::AdmNative(_))) => {}
                (Some(Adm::Markup(m)), Some(PbAdm::Adm(t))) => assert_eq!(m, t, "{at}/adm"),
                (a, t) => panic!("{at}/adm: {a:?} vs {t:?}"),
            }
            let adomain: Vec<&str> = b.adomain.iter().map(|c| &**c).collect();
            assert_eq!(adomain, p.adomain, "{at}/adomain");
            let cat: Vec<&str> = b.cat.iter().map(|c| &**c).collect();
            assert_eq!(cat, p.cat, "{at}/cat");
            let attr: Vec<i64> = b.attr.iter().map(|a| a.0).collect();
            assert_eq!(
                attr,
                p.attr.iter().map(|&a| i64::from(a)).collect::<Vec<_>>(),
                "{at}/attr"
            );
            let apis: Vec<i64> = b.apis.iter().map(|a| a.0).collect();
            assert_eq!(
                apis,
                p.apis.iter().map(|&a| i64::from(a)).collect::<Vec<_>>(),
                "{at}/apis"
            );
            let numbers = [
                ("cattax", b.cattax.map(|c| c.0), p.cattax),
                ("api", b.api.map(|c| c.0), p.api),
                ("protocol", b.protocol.map(|c| c.0), p.protocol),
                (
                    "qagmediarating",
                    b.qagmediarating.map(|c| c.0),
                    p.qagmediarating,
                ),
                ("w", b.w, p.w),
                ("h", b.h, p.h),
                ("wratio", b.wratio, p.wratio),
                ("hratio", b.hratio, p.hratio),
                ("exp", b.exp, p.exp),
                ("dur", b.dur, p.dur),
                ("mtype", b.mtype.map(|c| c.0), p.mtype),
                ("slotinpod", b.slotinpod.map(|c| c.0), p.slotinpod),
            ];
            for (name, ours, theirs) in numbers {
                assert_eq!(ours, ints(theirs), "{at}/{name}");
            }
            assert_eq!(b.ext.is_some(), p.ext.is_some(), "{at}/ext");
        }
    }
}
