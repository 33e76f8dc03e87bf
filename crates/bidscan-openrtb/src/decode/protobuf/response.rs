//! `BidResponse`, `SeatBid` and `Bid` read from the wire straight into the typed model, by the field numbers of
//! IAB Tech Lab's `openrtb.proto` (`BidResponse` 1–6 and 99, `SeatBid` 1–3 and 99, `Bid` 1–33, 50 and 99).
//!
//! Strings are borrowed from the body once UTF-8-checked. `ext` and `adm_native` are not read here: their
//! occurrences are noted ([`Pending`]) and rendered to JSON afterwards (`mod.rs`), because the model keeps them
//! as JSON text.

use std::borrow::Cow;

use bidscan_json::RawJson;
use bidscan_proto::{Error, ErrorKind, Field, Limits, Message};

use crate::checks::issue::{Coercion, CoercionKind};
use crate::lenient::{MAX_COERCIONS, MAX_OBJECTS, ObjList};
use crate::model::adm::Adm;
use crate::model::bid::Bid;
use crate::model::inline::{InlineItem, InlineVec};
use crate::model::lists::NoBidReason;
use crate::model::response::{BidResponse, SeatBid};

/// Where a message kept as JSON text goes once rendered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Slot {
    /// `BidResponse.ext`.
    Response,
    /// `seatbid[i].ext`.
    Seat(usize),
    /// `seatbid[i].bid[j].ext`.
    Bid(usize, usize),
    /// `seatbid[i].bid[j].adm_native`.
    Native(usize, usize),
}

/// One occurrence of a message kept as JSON text: where it goes and its `LEN` field (occurrences of one slot are
/// merged when rendered).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pending<'a> {
    pub(crate) slot: Slot,
    pub(crate) field: Field<'a>,
}

/// What reading a response collects besides the model.
pub(crate) struct State<'a> {
    pub(crate) limits: Limits,
    /// Document-wide order of coercions.
    pub(crate) order: u32,
    /// Seat bids and bids read so far.
    pub(crate) objects: u32,
    /// `ext` and `adm_native` occurrences, in wire order.
    pub(crate) pending: Vec<Pending<'a>>,
    /// Set when the body holds more than [`MAX_OBJECTS`] seat bids and bids: the error that stops the reading
    /// then is only its carrier (the caller refuses the body as not a bid response, as JSON's limit does).
    pub(crate) too_many: bool,
}

impl State<'_> {
    /// Counts one more seat bid or bid (the tag at `offset`); past [`MAX_OBJECTS`], stops the reading.
    fn count_object(&mut self, offset: usize) -> Result<(), Error> {
        self.objects += 1;
        if self.objects > MAX_OBJECTS {
            self.too_many = true;
            return Err(Error::new(ErrorKind::LengthPastLimit, offset));
        }
        Ok(())
    }

    fn duplicate(&mut self, coercions: &mut Vec<Coercion>, field: &'static str) {
        self.order += 1;
        if self.order > MAX_COERCIONS {
            // Counted, not recorded: the caller refuses the body (memory stays bounded, as JSON's limit keeps it).
            return;
        }
        coercions.push(Coercion {
            field,
            index: None,
            kind: CoercionKind::DuplicateField,
            order: self.order,
        });
    }
}

/// Notes a singular field's bit; a second sighting is the `duplicate_field` warning JSON gets for a member given
/// twice (the last value wins, as protobuf reads it).
#[inline(always)]
fn seen<'a>(
    seen: &mut u64,
    bit: u32,
    state: &mut State<'a>,
    coercions: &mut Vec<Coercion>,
    name: &'static str,
) {
    let mask = 1u64 << bit;
    if *seen & mask != 0 {
        state.duplicate(coercions, name);
    }
    *seen |= mask;
}

#[inline(always)]
fn text<'a>(f: &Field<'a>) -> Result<Option<Cow<'a, str>>, Error> {
    Ok(Some(Cow::Borrowed(f.str()?)))
}

#[inline(always)]
fn int<'a>(f: &Field<'a>) -> Result<Option<i64>, Error> {
    Ok(Some(i64::from(f.int32()?)))
}

#[inline(always)]
fn code<'a, T: From<i64>>(f: &Field<'a>) -> Result<Option<T>, Error> {
    Ok(Some(T::from(i64::from(f.int32()?))))
}

#[inline(always)]
fn push_text<'a, const N: usize>(
    list: &mut InlineVec<Cow<'a, str>, N>,
    f: &Field<'a>,
    name: &'static str,
) -> Result<(), Error> {
    let s = f.str().map_err(|e| e.within(name, Some(list.len())))?;
    list.push(Cow::Borrowed(s));
    Ok(())
}

#[inline(always)]
fn push_codes<T: From<i64> + InlineItem, const N: usize>(
    list: &mut InlineVec<T, N>,
    f: &Field<'_>,
    name: &'static str,
) -> Result<(), Error> {
    for v in f.varints().map_err(|e| e.within(name, None))? {
        let v = v.map_err(|e| e.within(name, Some(list.len())))?;
        list.push(T::from(i64::from(v as i32)));
    }
    Ok(())
}

/// Reads a `BidResponse` body into `response`.
pub(crate) fn response<'a>(
    body: Message<'a>,
    response: &mut BidResponse<'a>,
    state: &mut State<'a>,
) -> Result<(), Error> {
    let mut m = body;
    let mut bits = 0u64;
    let r = response;
    while let Some(f) = m.next()? {
        let (name, result) = match f.number {
            1 => {
                seen(&mut bits, 1, state, &mut r.coercions, "id");
                ("id", text(&f).map(|v| r.id = v))
            }
            2 => {
                let si = r.seatbid.len();
                // Read in place, as a bid is (`seat_bid`).
                let read = f.message(&state.limits).and_then(|m| {
                    state.count_object(f.offset)?;
                    seat_bid(m, r.seatbid.add(0), si, state)
                });
                if let Err(e) = read {
                    return Err(e.within("seatbid", Some(si)));
                }
                continue;
            }
            3 => {
                seen(&mut bits, 3, state, &mut r.coercions, "bidid");
                ("bidid", text(&f).map(|v| r.bidid = v))
            }
            4 => {
                seen(&mut bits, 4, state, &mut r.coercions, "cur");
                ("cur", text(&f).map(|v| r.cur = v))
            }
            5 => {
                seen(&mut bits, 5, state, &mut r.coercions, "customdata");
                ("customdata", text(&f).map(|v| r.customdata = v))
            }
            6 => {
                seen(&mut bits, 6, state, &mut r.coercions, "nbr");
                (
                    "nbr",
                    f.int32().map(|v| r.nbr = Some(NoBidReason(i64::from(v)))),
                )
            }
            99 => ("ext", ext(&f, &mut r.ext, Slot::Response, state)),
            _ => continue,
        };
        result.map_err(|e| e.within(name, None))?;
    }
    Ok(())
}

/// Notes an occurrence of a message kept as JSON text (its wire type checked now, its contents when rendered).
/// An `ext` occurrence: an empty one (the usual `"ext":{}` of a converted body) is `{}` at once, with no text
/// to render and nothing noted; any other is noted (the rendered text replaces the `{}`, empty occurrences adding
/// nothing to a merge).
#[inline(always)]
fn ext<'a>(
    f: &Field<'a>,
    to: &mut Option<RawJson<'a>>,
    slot: Slot,
    state: &mut State<'a>,
) -> Result<(), Error> {
    if f.bytes()?.is_empty() {
        if to.is_none() {
            *to = Some(RawJson::from_validated("{}"));
        }
        return Ok(());
    }
    pend(*f, slot, state)
}

/// Takes the field by value: a reference would make the loop's field escape, kept in memory for every field.
#[inline(never)]
fn pend<'a>(f: Field<'a>, slot: Slot, state: &mut State<'a>) -> Result<(), Error> {
    f.bytes()?;
    state.pending.push(Pending { slot, field: f });
    Ok(())
}

/// The number of `bid` fields (1) of a `SeatBid` message, at least 1: a look over its tags and lengths, so the
/// list of bids is allocated once (JSON's reader sizes it from the previous document's count). Stops at a
/// malformed field: the reading proper reports it.
fn bid_count(mut m: Message<'_>) -> usize {
    let mut n = 0;
    while let Ok(Some(f)) = m.next() {
        n += usize::from(f.number == 1);
    }
    n.clamp(1, MAX_OBJECTS as usize)
}

// Out of line: inlined into `response`, the whole reading is one function whose registers spill (+3% instructions).
#[inline(never)]
fn seat_bid<'a>(
    mut m: Message<'a>,
    seat: &mut SeatBid<'a>,
    si: usize,
    state: &mut State<'a>,
) -> Result<(), Error> {
    let mut bits = 0u64;
    let bids = bid_count(m.clone());
    while let Some(f) = m.next()? {
        let (name, result) = match f.number {
            1 => {
                let bi = seat.bid.len();
                // Read in place (`ObjList`: a `Bid` is large), the list sized once for the seat's bids. On an
                // error the whole body is refused, so a half-read bid is never seen.
                let read = f.message(&state.limits).and_then(|m| {
                    state.count_object(f.offset)?;
                    bid(m, seat.bid.add(bids), si, bi, state)
                });
                if let Err(e) = read {
                    return Err(e.within("bid", Some(bi)));
                }
                continue;
            }
            2 => {
                seen(&mut bits, 2, state, &mut seat.coercions, "seat");
                ("seat", text(&f).map(|v| seat.seat = v))
            }
            3 => {
                seen(&mut bits, 3, state, &mut seat.coercions, "group");
                ("group", f.bool().map(|v| seat.group = Some(i64::from(v))))
            }
            99 => ("ext", ext(&f, &mut seat.ext, Slot::Seat(si), state)),
            _ => continue,
        };
        result.map_err(|e| e.within(name, None))?;
    }
    Ok(())
}

/// `Bid`'s plain singular string fields with a one-byte tag: `id` 1, `impid` 2, `adid` 4, `nurl` 5, `iurl` 8,
/// `cid` 9, `crid` 10, `dealid` 13, `bundle` 14 (bit N for field N).
const SHORT_STRINGS: u16 =
    1 << 1 | 1 << 2 | 1 << 4 | 1 << 5 | 1 << 8 | 1 << 9 | 1 << 10 | 1 << 13 | 1 << 14;

/// Where `Bid`'s plain singular string field `number` goes, and its name; `None` for the other fields.
#[inline(always)]
fn bid_string<'b, 'a>(
    bid: &'b mut Bid<'a>,
    number: u32,
) -> Option<(&'b mut Option<Cow<'a, str>>, &'static str)> {
    Some(match number {
        1 => (&mut bid.id, "id"),
        2 => (&mut bid.impid, "impid"),
        10 => (&mut bid.crid, "crid"),
        9 => (&mut bid.cid, "cid"),
        4 => (&mut bid.adid, "adid"),
        13 => (&mut bid.dealid, "dealid"),
        5 => (&mut bid.nurl, "nurl"),
        22 => (&mut bid.burl, "burl"),
        23 => (&mut bid.lurl, "lurl"),
        14 => (&mut bid.bundle, "bundle"),
        8 => (&mut bid.iurl, "iurl"),
        24 => (&mut bid.tactic, "tactic"),
        25 => (&mut bid.language, "language"),
        29 => (&mut bid.langb, "langb"),
        _ => return None,
    })
}

fn bid<'a>(
    mut m: Message<'a>,
    bid: &mut Bid<'a>,
    si: usize,
    bi: usize,
    state: &mut State<'a>,
) -> Result<(), Error> {
    let mut bits = 0u64;
    let mut coercions = std::mem::take(&mut bid.coercions);
    // `adm_native` occurrences of this bid noted before `native_cut` lost to a later `adm`; whether the last
    // `adm`/`adm_native` was `adm_native`. Settled once the bid is read, so a hostile bid costs one pass.
    let first_pending = state.pending.len();
    let mut native_cut = first_pending;
    let mut native_run = false;
    let mut natives = false;
    // Singular fields: the bit is the field number (all below 64 but `adm_native`, 50, which shares `adm`'s bit:
    // one oneof, one JSON member).
    macro_rules! one {
        ($bit:expr, $name:literal, $read:expr) => {{
            seen(&mut bits, $bit, state, &mut coercions, $name);
            ($name, $read)
        }};
    }
    let result = (|| -> Result<(), Error> {
        loop {
            // The plain singular strings numbered 1 to 15 (most of a bid's fields) are read without building a
            // `Field`; the others, and these sent otherwise (a wrong wire type, a longer tag), as any field is.
            if let Some((number, bytes, offset)) = m.next_len_in(SHORT_STRINGS)? {
                let Some((to, name)) = bid_string(bid, number) else {
                    continue; // Not in `SHORT_STRINGS`: never handed out.
                };
                seen(&mut bits, number, state, &mut coercions, name);
                match Field::str_at(bytes, offset) {
                    Ok(s) => *to = Some(Cow::Borrowed(s)),
                    Err(e) => return Err(e.within(name, None)),
                }
                continue;
            }
            let Some(f) = m.next()? else {
                break;
            };
            // The plain singular strings share one read, inlined once.
            let string = bid_string(bid, f.number);
            if let Some((to, name)) = string {
                // Field numbers below 64: the number is the bit.
                seen(&mut bits, f.number, state, &mut coercions, name);
                match f.str() {
                    Ok(s) => *to = Some(Cow::Borrowed(s)),
                    Err(e) => return Err(e.within(name, None)),
                }
                continue;
            }
            let (name, result): (&'static str, Result<(), Error>) = match f.number {
                3 => one!(3, "price", f.double().map(|v| bid.price = Some(v))),
                6 => one!(6, "adm", {
                    // The oneof's other member sent before is dropped (the last one wins): its occurrences so far
                    // are cut once the bid is read.
                    if natives {
                        native_cut = state.pending.len();
                    }
                    native_run = false;
                    text(&f).map(|v| bid.adm = v.map(Adm::Markup))
                }),
                50 => {
                    // Sent twice in a row, `adm_native` merges (an embedded message); after `adm`, it replaces it.
                    if !native_run {
                        seen(&mut bits, 6, state, &mut coercions, "adm");
                    }
                    native_run = true;
                    natives = true;
                    bid.adm = None;
                    ("adm", pend(f, Slot::Native(si, bi), state))
                }
                7 => {
                    // A list names its element itself (`/adomain/2`).
                    push_text(&mut bid.adomain, &f, "adomain")?;
                    continue;
                }
                30 => one!(30, "cattax", code(&f).map(|v| bid.cattax = v)),
                15 => {
                    // A list names its element itself (`/cat/2`).
                    push_text(&mut bid.cat, &f, "cat")?;
                    continue;
                }
                11 => {
                    // A list names its element itself (`/attr/2`).
                    push_codes(&mut bid.attr, &f, "attr")?;
                    continue;
                }
                31 => {
                    // A list names its element itself (`/apis/2`).
                    push_codes(&mut bid.apis, &f, "apis")?;
                    continue;
                }
                18 => one!(18, "api", code(&f).map(|v| bid.api = v)),
                19 => one!(19, "protocol", code(&f).map(|v| bid.protocol = v)),
                20 => one!(
                    20,
                    "qagmediarating",
                    code(&f).map(|v| bid.qagmediarating = v)
                ),
                16 => one!(16, "w", int(&f).map(|v| bid.w = v)),
                17 => one!(17, "h", int(&f).map(|v| bid.h = v)),
                26 => one!(26, "wratio", int(&f).map(|v| bid.wratio = v)),
                27 => one!(27, "hratio", int(&f).map(|v| bid.hratio = v)),
                21 => one!(21, "exp", int(&f).map(|v| bid.exp = v)),
                32 => one!(32, "dur", int(&f).map(|v| bid.dur = v)),
                33 => one!(33, "mtype", code(&f).map(|v| bid.mtype = v)),
                28 => one!(28, "slotinpod", code(&f).map(|v| bid.slotinpod = v)),
                99 => ("ext", ext(&f, &mut bid.ext, Slot::Bid(si, bi), state)),
                _ => continue,
            };
            result.map_err(|e| e.within(name, None))?;
        }
        Ok(())
    })();
    bid.coercions = coercions;
    if native_cut > first_pending {
        let tail = state.pending.split_off(first_pending);
        state.pending.extend(
            tail.into_iter()
                .enumerate()
                .filter(|(k, p)| {
                    !(p.slot == Slot::Native(si, bi) && first_pending + k < native_cut)
                })
                .map(|(_, p)| p),
        );
    }
    result
}
