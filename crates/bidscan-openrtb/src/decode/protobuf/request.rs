//! The bid request view ([`BidRequest`]) read from a protobuf `BidRequest`, by the field numbers of IAB Tech Lab's
//! `openrtb.proto`: what response validation needs (`id` 1, `imp` 2, `app` 4 present, `tmax` 8, `wseat` 9,
//! `cur` 11, `bcat` 12, `badv` 13, `regs` 14 → `ext` 99 → `dsa` 4, `bapp` 16, `bseat` 17, `cattax` 21, `acat`
//! 23; `Imp`, `Banner`, `Format`, `Video`, `Audio`, `Native`, `Pmp`, `Deal` as below). Everything else is skipped.
//!
//! As for a JSON request, nothing is reported (a singular field sent twice keeps its last value, an embedded
//! message sent twice is merged); the wire rules are the response's, with the field path.

use std::borrow::Cow;

use std::cell::Cell;

use bidscan_proto::{Error, ErrorKind, Field, Limits, Message};

use crate::lenient::MAX_OBJECTS;

use crate::model::inline::{InlineItem, InlineVec};
use crate::model::request::{Banner, BidRequest, Deal, Dsa, Format, Imp, Native, Pmp, Video};

/// The limits, and the impressions, formats, companions and deals read so far (bounded by [`MAX_OBJECTS`], as
/// a JSON request's are).
pub(crate) struct Cx {
    pub(crate) limits: Limits,
    pub(crate) objects: Cell<u32>,
    /// Set when [`MAX_OBJECTS`] was passed: the error that stopped the reading is only its carrier.
    pub(crate) too_many: Cell<bool>,
}

impl Cx {
    fn count(&self, f: &Field<'_>) -> Result<(), Error> {
        self.objects.set(self.objects.get() + 1);
        if self.objects.get() > MAX_OBJECTS {
            self.too_many.set(true);
            return Err(Error::new(ErrorKind::LengthPastLimit, f.offset));
        }
        Ok(())
    }
}

/// Reads every field of `m` with `read`, which returns the field's name for the path of its errors (`None` for
/// a field skipped).
fn fields<'a>(
    mut m: Message<'a>,
    mut read: impl FnMut(&Field<'a>) -> (Option<&'static str>, Result<(), Error>),
) -> Result<(), Error> {
    while let Some(f) = m.next()? {
        if let (Some(name), Err(e)) = read(&f) {
            return Err(e.within(name, None));
        }
    }
    Ok(())
}

fn text<'a>(f: &Field<'a>, to: &mut Option<Cow<'a, str>>) -> Result<(), Error> {
    *to = Some(Cow::Borrowed(f.str()?));
    Ok(())
}

fn int(f: &Field<'_>, to: &mut Option<i64>) -> Result<(), Error> {
    *to = Some(i64::from(f.int32()?));
    Ok(())
}

fn double(f: &Field<'_>, to: &mut Option<f64>) -> Result<(), Error> {
    *to = Some(f.double()?);
    Ok(())
}

fn texts<'a, const N: usize>(
    f: &Field<'a>,
    to: &mut InlineVec<Cow<'a, str>, N>,
) -> Result<(), Error> {
    // The element's index: the caller puts the field's name before it.
    let s = f.str().map_err(|e| e.within(&to.len().to_string(), None))?;
    to.push(Cow::Borrowed(s));
    Ok(())
}

fn codes<T: From<i64> + InlineItem, const N: usize>(
    f: &Field<'_>,
    to: &mut InlineVec<T, N>,
) -> Result<(), Error> {
    for v in f.varints()? {
        let v = v.map_err(|e| e.within(&to.len().to_string(), None))?;
        to.push(T::from(i64::from(v as i32)));
    }
    Ok(())
}

/// Reads a protobuf `BidRequest` body into `request`.
pub(crate) fn request<'a>(
    body: Message<'a>,
    request: &mut BidRequest<'a>,
    cx: &Cx,
) -> Result<(), Error> {
    let r = request;
    fields(body, |f| match f.number {
        1 => (Some("id"), text(f, &mut r.id)),
        2 => {
            let i = r.imp.len();
            let mut one = Imp::default();
            let read = cx
                .count(f)
                .and_then(|()| f.message(&cx.limits))
                .and_then(|m| imp(m, &mut one, cx));
            r.imp.push(one);
            (
                Some("imp"),
                read.map_err(|e| e.within(&i.to_string(), None)),
            )
        }
        // `site` and `app` are one oneof (`distributionchannel_oneof`): the last one sent wins.
        3 => {
            r.app = false;
            (Some("site"), f.bytes().map(|_| ()))
        }
        4 => {
            r.app = true;
            (Some("app"), f.bytes().map(|_| ()))
        }
        8 => (Some("tmax"), int(f, &mut r.tmax)),
        9 => (Some("wseat"), texts(f, &mut r.wseat)),
        11 => (Some("cur"), texts(f, &mut r.cur)),
        12 => (Some("bcat"), texts(f, &mut r.bcat)),
        13 => (Some("badv"), texts(f, &mut r.badv)),
        14 => (
            Some("regs"),
            f.message(&cx.limits).and_then(|m| regs(m, r, cx)),
        ),
        16 => (Some("bapp"), texts(f, &mut r.bapp)),
        17 => (Some("bseat"), texts(f, &mut r.bseat)),
        21 => (
            Some("cattax"),
            f.int32().map(|v| r.cattax = Some(i64::from(v).into())),
        ),
        23 => (Some("acat"), texts(f, &mut r.acat)),
        _ => (None, Ok(())),
    })
}

/// `Regs`: only `ext` (99) → `dsa` (4) → `dsarequired` (1), `pubrender` (2).
fn regs<'a>(m: Message<'a>, r: &mut BidRequest<'a>, cx: &Cx) -> Result<(), Error> {
    fields(m, |f| match f.number {
        99 => (
            Some("ext"),
            f.message(&cx.limits).and_then(|m| {
                fields(m, |f| match f.number {
                    4 => (
                        Some("dsa"),
                        f.message(&cx.limits).and_then(|m| {
                            let dsa = r.dsa.get_or_insert_with(Dsa::default);
                            fields(m, |f| match f.number {
                                1 => (Some("dsarequired"), int(f, &mut dsa.dsarequired)),
                                2 => (Some("pubrender"), int(f, &mut dsa.pubrender)),
                                _ => (None, Ok(())),
                            })
                        }),
                    ),
                    _ => (None, Ok(())),
                })
            }),
        ),
        _ => (None, Ok(())),
    })
}

fn imp<'a>(m: Message<'a>, imp: &mut Imp<'a>, cx: &Cx) -> Result<(), Error> {
    fields(m, |f| match f.number {
        1 => (Some("id"), text(f, &mut imp.id)),
        2 => (
            Some("banner"),
            f.message(&cx.limits)
                .and_then(|m| banner(m, imp.banner.get_or_insert_with(Banner::default), cx)),
        ),
        3 => (
            Some("video"),
            f.message(&cx.limits)
                .and_then(|m| video(m, imp.video.get_or_insert_with(Video::default), cx, VIDEO)),
        ),
        15 => (
            Some("audio"),
            f.message(&cx.limits)
                .and_then(|m| video(m, imp.audio.get_or_insert_with(Video::default), cx, AUDIO)),
        ),
        13 => (
            Some("native"),
            f.message(&cx.limits).and_then(|m| {
                let native = imp.native.get_or_insert_with(Native::default);
                fields(m, |f| match f.number {
                    4 => (Some("battr"), codes(f, &mut native.battr)),
                    _ => (None, Ok(())),
                })
            }),
        ),
        11 => (
            Some("pmp"),
            f.message(&cx.limits)
                .and_then(|m| pmp(m, imp.pmp.get_or_insert_with(Pmp::default), cx)),
        ),
        8 => (Some("bidfloor"), double(f, &mut imp.bidfloor)),
        9 => (Some("bidfloorcur"), text(f, &mut imp.bidfloorcur)),
        12 => (
            Some("secure"),
            f.bool().map(|v| imp.secure = Some(i64::from(v))),
        ),
        _ => (None, Ok(())),
    })
}

fn banner(m: Message<'_>, banner: &mut Banner, cx: &Cx) -> Result<(), Error> {
    fields(m, |f| match f.number {
        15 => {
            let i = banner.format.len();
            let mut format = Format::default();
            let read = cx
                .count(f)
                .and_then(|()| f.message(&cx.limits))
                .and_then(|m| {
                    fields(m, |f| match f.number {
                        1 => (Some("w"), int(f, &mut format.w)),
                        2 => (Some("h"), int(f, &mut format.h)),
                        _ => (None, Ok(())),
                    })
                });
            banner.format.push(format);
            (
                Some("format"),
                read.map_err(|e| e.within(&i.to_string(), None)),
            )
        }
        1 => (Some("w"), int(f, &mut banner.w)),
        2 => (Some("h"), int(f, &mut banner.h)),
        6 => (Some("battr"), codes(f, &mut banner.battr)),
        _ => (None, Ok(())),
    })
}

/// Field numbers of `Video` and `Audio`, which differ: `mimes`, `minduration`, `maxduration`, `protocols`,
/// `battr`, `companionad`.
struct Numbers([u32; 6]);

const VIDEO: Numbers = Numbers([1, 3, 4, 21, 10, 18]);
const AUDIO: Numbers = Numbers([1, 2, 3, 4, 7, 12]);

fn video<'a>(
    m: Message<'a>,
    video: &mut Video<'a>,
    cx: &Cx,
    numbers: Numbers,
) -> Result<(), Error> {
    let [mimes, min, max, protocols, battr, companionad] = numbers.0;
    fields(m, |f| match f.number {
        n if n == mimes => (Some("mimes"), texts(f, &mut video.mimes)),
        n if n == min => (Some("minduration"), int(f, &mut video.minduration)),
        n if n == max => (Some("maxduration"), int(f, &mut video.maxduration)),
        n if n == protocols => (Some("protocols"), codes(f, &mut video.protocols)),
        n if n == battr => (Some("battr"), codes(f, &mut video.battr)),
        n if n == companionad => {
            let i = video.companionad.len();
            let mut one = Banner::default();
            let read = cx
                .count(f)
                .and_then(|()| f.message(&cx.limits))
                .and_then(|m| banner(m, &mut one, cx));
            video.companionad.push(one);
            (
                Some("companionad"),
                read.map_err(|e| e.within(&i.to_string(), None)),
            )
        }
        _ => (None, Ok(())),
    })
}

fn pmp<'a>(m: Message<'a>, pmp: &mut Pmp<'a>, cx: &Cx) -> Result<(), Error> {
    fields(m, |f| match f.number {
        1 => (
            Some("private_auction"),
            f.bool().map(|v| pmp.private_auction = Some(i64::from(v))),
        ),
        2 => {
            let i = pmp.deals.len();
            let mut deal = Deal::default();
            let read = cx
                .count(f)
                .and_then(|()| f.message(&cx.limits))
                .and_then(|m| {
                    fields(m, |f| match f.number {
                        1 => (Some("id"), text(f, &mut deal.id)),
                        2 => (Some("bidfloor"), double(f, &mut deal.bidfloor)),
                        3 => (Some("bidfloorcur"), text(f, &mut deal.bidfloorcur)),
                        _ => (None, Ok(())),
                    })
                });
            pmp.deals.push(deal);
            (
                Some("deals"),
                read.map_err(|e| e.within(&i.to_string(), None)),
            )
        }
        _ => (None, Ok(())),
    })
}
