//! The `protobuf_request` target: bidscan-openrtb's `decode_request_protobuf` against prost on arbitrary bytes.
//!
//! The reference is prost (its derive; no protoc) into structs with the field numbers and types of IAB Tech
//! Lab's `openrtb.proto` (`crates/bidscan-proto/proto/bidrequest.proto`) for the fields the request view reads:
//! `BidRequest` `id` 1, `imp` 2, `site` 3 / `app` 4 (one oneof), `tmax` 8, `wseat` 9, `cur` 11, `bcat` 12,
//! `badv` 13, `regs` 14, `bapp` 16, `bseat` 17, `cattax` 21, `acat` 23; `Imp`, `Banner`, `Format`, `Video`,
//! `Audio`, `Native`, `Pmp`, `Deal`, `Regs` → `Ext` → `DsaRequest` as the view reads them. The rest of the schema is left undeclared, so
//! both decoders skip it as unknown fields.
//!
//! Property: both accept exactly the same bodies and, when both do, read the same values (a message sent twice
//! merged, a singular scalar's last value kept, repeated scalars packed or not). Known differences, skipped:
//! - `site` and `app` are `bytes` here: the view notes only whether `app` was the one sent, and neither decoder
//!   reads their contents;
//! - depth: prost's recursion limit (100) and `decode_request_protobuf`'s (128, counted from the top message)
//!   differ, which deep unknown groups reach;
//! - `decode_request_protobuf` refuses more than 10,000 impressions, formats, companions and deals, as JSON
//!   does (`ProtobufError::Decode`).

use bidscan_openrtb::{
    Banner, BidRequest, Deal, Format, Imp, Pmp, ProtobufError, ProtobufLimits, Video,
    WireErrorKind, decode_request_protobuf,
};

/// `BidRequest`, the fields the view reads.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PbRequest {
    #[prost(string, optional, tag = "1")]
    pub id: Option<String>,
    #[prost(message, repeated, tag = "2")]
    pub imp: Vec<PbImp>,
    #[prost(oneof = "PbChannel", tags = "3, 4")]
    pub channel: Option<PbChannel>,
    #[prost(int32, optional, tag = "8")]
    pub tmax: Option<i32>,
    #[prost(string, repeated, tag = "9")]
    pub wseat: Vec<String>,
    #[prost(string, repeated, tag = "11")]
    pub cur: Vec<String>,
    #[prost(string, repeated, tag = "12")]
    pub bcat: Vec<String>,
    #[prost(string, repeated, tag = "13")]
    pub badv: Vec<String>,
    #[prost(message, optional, tag = "14")]
    pub regs: Option<PbRegs>,
    #[prost(string, repeated, tag = "16")]
    pub bapp: Vec<String>,
    #[prost(string, repeated, tag = "17")]
    pub bseat: Vec<String>,
    #[prost(int32, optional, tag = "21")]
    pub cattax: Option<i32>,
    #[prost(string, repeated, tag = "23")]
    pub acat: Vec<String>,
}

/// `BidRequest`'s `distributionchannel_oneof`: `site` 3 or `app` 4, the last one sent winning.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum PbChannel {
    /// `site`, as bytes.
    #[prost(bytes, tag = "3")]
    Site(Vec<u8>),
    /// `app`, as bytes.
    #[prost(bytes, tag = "4")]
    App(Vec<u8>),
}

/// `BidRequest.Regs`: `ext` only.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PbRegs {
    #[prost(message, optional, tag = "99")]
    pub ext: Option<PbRegsExt>,
}

/// `BidRequest.Regs.Ext`: `dsa` only.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PbRegsExt {
    #[prost(message, optional, tag = "4")]
    pub dsa: Option<PbDsa>,
}

/// `BidRequest.DsaRequest`: `dsarequired`, `pubrender`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PbDsa {
    #[prost(int32, optional, tag = "1")]
    pub dsarequired: Option<i32>,
    #[prost(int32, optional, tag = "2")]
    pub pubrender: Option<i32>,
}

/// `BidRequest.Imp`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PbImp {
    #[prost(string, optional, tag = "1")]
    pub id: Option<String>,
    #[prost(message, optional, tag = "2")]
    pub banner: Option<PbBanner>,
    #[prost(message, optional, tag = "3")]
    pub video: Option<PbVideo>,
    #[prost(message, optional, tag = "15")]
    pub audio: Option<PbAudio>,
    #[prost(message, optional, tag = "13")]
    pub native: Option<PbNative>,
    #[prost(message, optional, tag = "11")]
    pub pmp: Option<PbPmp>,
    #[prost(double, optional, tag = "8")]
    pub bidfloor: Option<f64>,
    #[prost(string, optional, tag = "9")]
    pub bidfloorcur: Option<String>,
    #[prost(bool, optional, tag = "12")]
    pub secure: Option<bool>,
}

/// `BidRequest.Banner`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PbBanner {
    #[prost(message, repeated, tag = "15")]
    pub format: Vec<PbFormat>,
    #[prost(int32, optional, tag = "1")]
    pub w: Option<i32>,
    #[prost(int32, optional, tag = "2")]
    pub h: Option<i32>,
    #[prost(int32, repeated, tag = "6")]
    pub battr: Vec<i32>,
}

/// `BidRequest.Format`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PbFormat {
    #[prost(int32, optional, tag = "1")]
    pub w: Option<i32>,
    #[prost(int32, optional, tag = "2")]
    pub h: Option<i32>,
}

/// `BidRequest.Video`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PbVideo {
    #[prost(string, repeated, tag = "1")]
    pub mimes: Vec<String>,
    #[prost(int32, optional, tag = "3")]
    pub minduration: Option<i32>,
    #[prost(int32, optional, tag = "4")]
    pub maxduration: Option<i32>,
    #[prost(int32, repeated, tag = "21")]
    pub protocols: Vec<i32>,
    #[prost(int32, repeated, tag = "10")]
    pub battr: Vec<i32>,
    #[prost(message, repeated, tag = "18")]
    pub companionad: Vec<PbBanner>,
}

/// `BidRequest.Audio` (the view reads it into the same shape as `Video`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct PbAudio {
    #[prost(string, repeated, tag = "1")]
    pub mimes: Vec<String>,
    #[prost(int32, optional, tag = "2")]
    pub minduration: Option<i32>,
    #[prost(int32, optional, tag = "3")]
    pub maxduration: Option<i32>,
    #[prost(int32, repeated, tag = "4")]
    pub protocols: Vec<i32>,
    #[prost(int32, repeated, tag = "7")]
    pub battr: Vec<i32>,
    #[prost(message, repeated, tag = "12")]
    pub companionad: Vec<PbBanner>,
}

/// `BidRequest.Native`: `battr` only.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PbNative {
    #[prost(int32, repeated, tag = "4")]
    pub battr: Vec<i32>,
}

/// `BidRequest.Pmp`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PbPmp {
    #[prost(bool, optional, tag = "1")]
    pub private_auction: Option<bool>,
    #[prost(message, repeated, tag = "2")]
    pub deals: Vec<PbDeal>,
}

/// `BidRequest.Deal`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PbDeal {
    #[prost(string, optional, tag = "1")]
    pub id: Option<String>,
    #[prost(double, optional, tag = "2")]
    pub bidfloor: Option<f64>,
    #[prost(string, optional, tag = "3")]
    pub bidfloorcur: Option<String>,
}

/// What [`check_request`] found on one input.
#[derive(Debug, PartialEq, Eq)]
pub enum RequestOutcome {
    /// Both accepted, with the same values.
    BothAccepted,
    /// Both refused.
    BothRefused,
    /// A known difference (see the module docs).
    Known,
}

/// Checks the property on `data` (panics on a violation). See the module docs.
pub fn protobuf_request(data: &[u8]) {
    check_request(data);
}

/// Decodes `body` with both decoders and checks the property (panics with the first difference).
pub fn check_request(body: &[u8]) -> RequestOutcome {
    let ours = decode_request_protobuf(body, ProtobufLimits::default());
    let theirs = <PbRequest as prost::Message>::decode(body);
    match (&ours, &theirs) {
        (Ok(r), Ok(p)) => {
            same_request(r, p);
            RequestOutcome::BothAccepted
        }
        (Err(e), Err(_)) => {
            if let ProtobufError::Malformed(w) = e {
                assert!(
                    w.offset() <= body.len(),
                    "offset {} past the body",
                    w.offset()
                );
                assert!(
                    w.path().is_empty() || w.path().starts_with('/'),
                    "path {:?}",
                    w.path()
                );
            }
            RequestOutcome::BothRefused
        }
        (Err(ProtobufError::Malformed(w)), Ok(_)) if w.kind() == WireErrorKind::DepthLimit => {
            RequestOutcome::Known
        }
        (Err(ProtobufError::Decode(_)), Ok(_)) => RequestOutcome::Known,
        (Ok(_), Err(e)) if e.to_string().contains("recursion limit") => RequestOutcome::Known,
        (Err(e), Ok(_)) => panic!("decode_request_protobuf refused what prost accepts: {e}"),
        (Ok(_), Err(e)) => panic!("decode_request_protobuf accepted what prost refuses: {e}"),
    }
}

fn texts<'a>(list: impl IntoIterator<Item = &'a std::borrow::Cow<'a, str>>) -> Vec<&'a str> {
    list.into_iter().map(|c| &**c).collect()
}

fn ints(v: Option<i32>) -> Option<i64> {
    v.map(i64::from)
}

fn codes(v: &[i32]) -> Vec<i64> {
    v.iter().map(|&c| i64::from(c)).collect()
}

fn flag(v: Option<bool>) -> Option<i64> {
    v.map(i64::from)
}

/// Asserts `r` holds what `p` holds.
fn same_request(r: &BidRequest<'_>, p: &PbRequest) {
    assert_eq!(r.id.as_deref(), p.id.as_deref(), "id");
    assert_eq!(r.app, matches!(p.channel, Some(PbChannel::App(_))), "app");
    assert_eq!(r.tmax, ints(p.tmax), "tmax");
    assert_eq!(r.cattax.map(|c| c.0), ints(p.cattax), "cattax");
    let lists = [
        ("wseat", texts(&r.wseat), &p.wseat),
        ("cur", texts(&r.cur), &p.cur),
        ("bcat", texts(&r.bcat), &p.bcat),
        ("badv", texts(&r.badv), &p.badv),
        ("bapp", texts(&r.bapp), &p.bapp),
        ("bseat", texts(&r.bseat), &p.bseat),
        ("acat", texts(&r.acat), &p.acat),
    ];
    for (name, ours, theirs) in lists {
        assert_eq!(ours, *theirs, "{name}");
    }
    let dsa = p
        .regs
        .as_ref()
        .and_then(|r| r.ext.as_ref())
        .and_then(|e| e.dsa.as_ref());
    assert_eq!(r.dsa.is_some(), dsa.is_some(), "regs/ext/dsa");
    if let (Some(ours), Some(theirs)) = (&r.dsa, dsa) {
        assert_eq!(
            ours.dsarequired,
            ints(theirs.dsarequired),
            "regs/ext/dsa/dsarequired"
        );
        assert_eq!(
            ours.pubrender,
            ints(theirs.pubrender),
            "regs/ext/dsa/pubrender"
        );
    }
    assert_eq!(r.imp.len(), p.imp.len(), "imp");
    for (i, (imp, pimp)) in r.imp.iter().zip(&p.imp).enumerate() {
        same_imp(imp, pimp, &format!("imp/{i}"));
    }
}

fn same_imp(imp: &Imp<'_>, p: &PbImp, at: &str) {
    assert_eq!(imp.id.as_deref(), p.id.as_deref(), "{at}/id");
    assert_eq!(
        imp.bidfloor.map(f64::to_bits),
        p.bidfloor.map(f64::to_bits),
        "{at}/bidfloor"
    );
    assert_eq!(
        imp.bidfloorcur.as_deref(),
        p.bidfloorcur.as_deref(),
        "{at}/bidfloorcur"
    );
    assert_eq!(imp.secure, flag(p.secure), "{at}/secure");
    assert_eq!(imp.banner.is_some(), p.banner.is_some(), "{at}/banner");
    if let (Some(b), Some(pb)) = (&imp.banner, &p.banner) {
        same_banner(b, pb, &format!("{at}/banner"));
    }
    assert_eq!(imp.video.is_some(), p.video.is_some(), "{at}/video");
    if let (Some(v), Some(pv)) = (&imp.video, &p.video) {
        same_video(
            v,
            (
                &pv.mimes,
                pv.minduration,
                pv.maxduration,
                &pv.protocols,
                &pv.battr,
                &pv.companionad,
            ),
            &format!("{at}/video"),
        );
    }
    assert_eq!(imp.audio.is_some(), p.audio.is_some(), "{at}/audio");
    if let (Some(a), Some(pa)) = (&imp.audio, &p.audio) {
        same_video(
            a,
            (
                &pa.mimes,
                pa.minduration,
                pa.maxduration,
                &pa.protocols,
                &pa.battr,
                &pa.companionad,
            ),
            &format!("{at}/audio"),
        );
    }
    assert_eq!(imp.native.is_some(), p.native.is_some(), "{at}/native");
    if let (Some(n), Some(pn)) = (&imp.native, &p.native) {
        let battr: Vec<i64> = n.battr.iter().map(|c| c.0).collect();
        assert_eq!(battr, codes(&pn.battr), "{at}/native/battr");
    }
    assert_eq!(imp.pmp.is_some(), p.pmp.is_some(), "{at}/pmp");
    if let (Some(m), Some(pm)) = (&imp.pmp, &p.pmp) {
        same_pmp(m, pm, &format!("{at}/pmp"));
    }
}

fn same_banner(b: &Banner, p: &PbBanner, at: &str) {
    assert_eq!(b.w, ints(p.w), "{at}/w");
    assert_eq!(b.h, ints(p.h), "{at}/h");
    let battr: Vec<i64> = b.battr.iter().map(|c| c.0).collect();
    assert_eq!(battr, codes(&p.battr), "{at}/battr");
    assert_eq!(b.format.len(), p.format.len(), "{at}/format");
    for (i, (f, pf)) in b.format.iter().zip(&p.format).enumerate() {
        same_format(f, pf, &format!("{at}/format/{i}"));
    }
}

fn same_format(f: &Format, p: &PbFormat, at: &str) {
    assert_eq!(f.w, ints(p.w), "{at}/w");
    assert_eq!(f.h, ints(p.h), "{at}/h");
}

/// `Video` and `Audio` as the view reads both: mimes, min and max duration, protocols, battr, companions.
type VideoFields<'p> = (
    &'p [String],
    Option<i32>,
    Option<i32>,
    &'p [i32],
    &'p [i32],
    &'p [PbBanner],
);

fn same_video(v: &Video<'_>, p: VideoFields<'_>, at: &str) {
    let (mimes, min, max, protocols, battr, companionad) = p;
    assert_eq!(texts(&v.mimes), mimes, "{at}/mimes");
    assert_eq!(v.minduration, ints(min), "{at}/minduration");
    assert_eq!(v.maxduration, ints(max), "{at}/maxduration");
    let ours: Vec<i64> = v.protocols.iter().map(|c| c.0).collect();
    assert_eq!(ours, codes(protocols), "{at}/protocols");
    let ours: Vec<i64> = v.battr.iter().map(|c| c.0).collect();
    assert_eq!(ours, codes(battr), "{at}/battr");
    assert_eq!(v.companionad.len(), companionad.len(), "{at}/companionad");
    for (i, (b, pb)) in v.companionad.iter().zip(companionad).enumerate() {
        same_banner(b, pb, &format!("{at}/companionad/{i}"));
    }
}

fn same_pmp(m: &Pmp<'_>, p: &PbPmp, at: &str) {
    assert_eq!(
        m.private_auction,
        flag(p.private_auction),
        "{at}/private_auction"
    );
    assert_eq!(m.deals.len(), p.deals.len(), "{at}/deals");
    for (i, (d, pd)) in m.deals.iter().zip(&p.deals).enumerate() {
        same_deal(d, pd, &format!("{at}/deals/{i}"));
    }
}

fn same_deal(d: &Deal<'_>, p: &PbDeal, at: &str) {
    assert_eq!(d.id.as_deref(), p.id.as_deref(), "{at}/id");
    assert_eq!(
        d.bidfloor.map(f64::to_bits),
        p.bidfloor.map(f64::to_bits),
        "{at}/bidfloor"
    );
    assert_eq!(
        d.bidfloorcur.as_deref(),
        p.bidfloorcur.as_deref(),
        "{at}/bidfloorcur"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every request twin of `corpus/validate-pairs-protobuf/` is accepted by both decoders with the same values.
    #[test]
    fn request_twins_agree_with_prost() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../corpus/validate-pairs-protobuf"
        );
        let mut n = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "pb") {
                let body = std::fs::read(&path).unwrap();
                assert_eq!(
                    check_request(&body),
                    RequestOutcome::BothAccepted,
                    "{}",
                    path.display()
                );
                n += 1;
            }
        }
        assert_eq!(n, 249);
    }

    /// A string that is not UTF-8, a wrong wire type, a truncated body: both refuse.
    #[test]
    fn malformed_requests_are_refused_by_both() {
        assert_eq!(
            check_request(&[0x0a, 0x01, 0xff]),
            RequestOutcome::BothRefused
        ); // `id` not UTF-8
        assert_eq!(check_request(&[0x08, 0x01]), RequestOutcome::BothRefused); // `id` as a varint
        assert_eq!(
            check_request(&[0x12, 0x05, 0x0a]),
            RequestOutcome::BothRefused
        ); // `imp` cut short
    }
}
