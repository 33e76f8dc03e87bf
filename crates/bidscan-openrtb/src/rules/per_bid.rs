//! The rules applied to each bid, in the order of the table in [`super`].

use std::fmt::Write as _;

use super::validated::PairRef;
use crate::checks::issue::{Issue, Severity};
use crate::checks::markup::Markup;
use crate::checks::paths::{self, Object};
use crate::model::adm::{Adm, AdmKind};
use crate::model::bid::Bid;
use crate::model::request::{Imp, Video};
use crate::model::response::BidResponse;
use crate::model::status::Status;

use std::borrow::Cow;
use std::cell::{OnceCell, RefCell};

use bidscan_markup::vast::VastInfo;
use std::collections::{HashMap, HashSet};

use super::blocklists::{self, Blocklists};
use super::insecure::{insecure_markup, is_http};
use crate::checks::{DuplicateIds, is_blank};
use crate::model::lists::CreativeAttribute;

use super::bid_ext::{self, DSA_TEXT_BYTES, DsaFault};
use super::media::{self, Media, markup_media};
use super::policy::{Action, Policy};
use super::table::Rule;
use super::verdict::{BidStatus, Findings, Verdict, Verdicts};

/// One piece of a finding's message: text as is, or a value quoted as `{:?}` quotes it.
#[derive(Clone, Copy)]
pub(super) enum Part<'s> {
    Text(&'s str),
    Quoted(&'s str),
}

/// A finding's message from its pieces, in one allocation of the exact size (for plain values), without the
/// `fmt` machinery, which cost ~700 instructions a message, most of it `{:?}`'s character-by-character escape
/// of the quoted ids. Byte for byte what `format!` with `{}` and `{:?}` writes.
pub(super) fn message(parts: &[Part<'_>]) -> String {
    let len = parts
        .iter()
        .map(|p| match p {
            Part::Text(t) => t.len(),
            Part::Quoted(q) => q.len() + 2,
        })
        .sum();
    let mut out = String::with_capacity(len);
    for part in parts {
        match *part {
            Part::Text(t) => out.push_str(t),
            Part::Quoted(q) => quote(&mut out, q),
        }
    }
    out
}

/// Appends `value` as `{:?}` writes it: in double quotes, as is when it is printable ASCII without `"` or `\`
/// (every id in the real pairs), else escaped by `Debug` itself.
fn quote(out: &mut String, value: &str) {
    if value
        .bytes()
        .all(|b| matches!(b, b' '..=b'~') && b != b'"' && b != b'\\')
    {
        out.push('"');
        out.push_str(value);
        out.push('"');
    } else {
        // Writing into a `String` cannot fail.
        let _ = write!(out, "{value:?}");
    }
}

/// The imps of the request by id: up to [`ImpIndex::SCAN`] imps (most requests offer one or two) are searched in
/// request order where they lie, without an index; more are sorted for lookup (a response may hold thousands of
/// bids). Either way, with two imps of one id the first in the request wins.
enum ImpIndex<'r, 'a> {
    Scan(&'r [Imp<'a>]),
    Sorted(Vec<(&'r str, &'r Imp<'a>)>),
}

impl<'r, 'a> ImpIndex<'r, 'a> {
    /// Most imps searched linearly.
    const SCAN: usize = 8;

    fn new(imps: &'r [Imp<'a>]) -> Self {
        if imps.len() <= Self::SCAN {
            return ImpIndex::Scan(imps);
        }
        let mut index: Vec<(&str, &Imp<'a>)> = imps
            .iter()
            .filter_map(|imp| imp.id.as_deref().map(|id| (id, imp)))
            .collect();
        // Stable: with two imps of one id, the first in the request wins.
        index.sort_by_key(|(id, _)| *id);
        ImpIndex::Sorted(index)
    }

    fn get(&self, id: &str) -> Option<&'r Imp<'a>> {
        match self {
            ImpIndex::Scan(imps) => imps.iter().find(|imp| imp.id.as_deref() == Some(id)),
            ImpIndex::Sorted(index) => {
                let at = index.partition_point(|(k, _)| *k < id);
                index.get(at).filter(|(k, _)| *k == id).map(|(_, imp)| *imp)
            }
        }
    }
}

/// Applies the rules to every bid of `pair`, reporting findings into `out` and one verdict per bid, in document
/// order, into `verdicts`. `duplicates_found`: decode reported a `duplicate_bid_id` (else no bid repeats an id,
/// and they are not looked for again). `claims`: the rule each bid's errors from decoding reject it by (empty:
/// none has any).
pub(super) fn check(
    pair: PairRef<'_, '_>,
    policy: &Policy,
    duplicates_found: bool,
    claims: &[Option<Rule>],
    out: &mut Findings<'_>,
    verdicts: &mut Verdicts,
) {
    let request = &pair.request;
    let response = &pair.decoded.response;
    // An empty or absent `cur` is USD (OpenRTB 2.6 §4.2.1 default; Prebid Server reads `""` so too).
    let cur = response
        .cur
        .as_deref()
        .filter(|c| !c.is_empty())
        .unwrap_or("USD");
    let has_bids = pair.decoded.status == Status::Bid;
    // An empty `request.cur` allows USD only: OpenRTB 2.6 §3.2.1 leaves it to the exchange, and this is Prebid
    // Server's policy (`exchange/bidder_validate_bids.go`).
    let currency_refused = has_bids
        && if request.cur.is_empty() {
            cur != "USD"
        } else {
            !request.cur.iter().any(|c| currency_key(c) == cur)
        };
    let action = policy.action(Rule::Currency);
    if currency_refused && action != Action::Skip {
        let message = if request.cur.is_empty() {
            format!(
                "the response currency {cur} is not allowed: the request names no cur, which allows USD only"
            )
        } else {
            let allowed: Vec<&str> = request.cur.iter().map(|c| &**c).collect();
            format!("the response currency {cur} is not among the request's cur {allowed:?}")
        };
        let path = paths::field(response, Object::Response, "cur");
        out.rule(
            Rule::Currency,
            action,
            path,
            "currency_not_allowed",
            message,
        );
    }
    // OpenRTB 2.6 §4.2.1: the response's `id` is "the ID of the bid request to which this is a response". A
    // warning: it judges no bid, but a response to another request is worth knowing of.
    if let (Some(asked), Some(answered)) = (request.id.as_deref(), response.id.as_deref())
        && asked != answered
        && !answered.is_empty()
    {
        // Quoted up to ID_QUOTED bytes each: ids have no length bound.
        let (asked, answered) = (clipped(asked), clipped(answered));
        let issue = Issue {
            path: paths::field(response, Object::Response, "id"),
            code: "response_id_mismatch",
            severity: Severity::Warning,
            message: message(&[
                Part::Text("the response's id "),
                Part::Quoted(&answered),
                Part::Text(" is not the request's id "),
                Part::Quoted(&asked),
                Part::Text(" (OpenRTB 2.6 §4.2.1)"),
            ])
            .into(),
        };
        out.push(issue, None);
    }
    let imps = ImpIndex::new(&request.imp);
    let blocklists = Blocklists::new(&request.badv, &request.bcat, &request.bapp);
    let allowed_categories =
        (!request.acat.is_empty()).then(|| Blocklists::new(&[], &request.acat, &[]));
    let battr_sets = RefCell::new(HashMap::new());
    let size_sets = RefCell::new(HashMap::new());
    let duplicates = if duplicates_found {
        DuplicateIds::find(response)
    } else {
        DuplicateIds::NONE
    };
    let seat_lists = SeatLists::new(&request.bseat, &request.wseat);
    let mut position = 0;
    for (si, seat) in response.seatbid.iter().enumerate() {
        let first = position;
        let seat_fault = seat_lists.fault(seat.seat.as_deref().unwrap_or(""));
        for (bi, bid) in seat.bid.iter().enumerate() {
            let mut one = OneBid {
                response,
                cur,
                policy,
                out: &mut *out,
                object: Object::Bid(si, bi),
                bid,
                markup: pair.decoded.markup.get(position),
                battr_sets: &battr_sets,
                size_sets: &size_sets,
                rule: claims.get(position).copied().flatten(),
                own_vast: OnceCell::new(),
            };
            one.run(
                pair,
                (si, seat_fault),
                &imps,
                (&blocklists, allowed_categories.as_ref()),
                currency_refused,
                duplicates.contains(position),
            );
            verdicts.push(Verdict {
                status: if one.rule.is_some() {
                    BidStatus::Rejected
                } else {
                    BidStatus::Accepted
                },
                rule: one.rule,
            });
            position += 1;
        }
        if seat.group == Some(1) {
            group(response, si, policy, out, &mut verdicts[first..position]);
        }
    }
}

/// Why a seat's bids are refused (OpenRTB 2.6 §3.2.1 `bseat`, `wseat`).
#[derive(Clone, Copy)]
enum SeatFault {
    /// The seat is in `bseat`.
    Blocked,
    /// `wseat` is set and the seat (or a seat bid without one) is not in it.
    NotAllowed,
}

/// The request's `bseat` and `wseat`, searched when short, as sets when longer than [`blocklists::SCAN`] (a
/// search per bid of a 800,000-entry `bseat` held a worker for 15 s). Seat ids compare
/// exactly.
struct SeatLists<'r> {
    bseat: &'r [Cow<'r, str>],
    wseat: &'r [Cow<'r, str>],
    sets: Option<(HashSet<&'r str>, HashSet<&'r str>)>,
}

impl<'r> SeatLists<'r> {
    fn new(bseat: &'r [Cow<'r, str>], wseat: &'r [Cow<'r, str>]) -> Self {
        let sets = (bseat.len() > blocklists::SCAN || wseat.len() > blocklists::SCAN).then(|| {
            (
                bseat.iter().map(|s| &**s).collect(),
                wseat.iter().map(|s| &**s).collect(),
            )
        });
        SeatLists { bseat, wseat, sets }
    }

    /// What refuses seat `name`'s bids, if anything.
    fn fault(&self, name: &str) -> Option<SeatFault> {
        let (blocked, allowed) = match &self.sets {
            Some((b, w)) => (b.contains(name), w.contains(name)),
            None => (
                self.bseat.iter().any(|b| **b == *name),
                self.wseat.iter().any(|w| **w == *name),
            ),
        };
        if blocked {
            Some(SeatFault::Blocked)
        } else if !self.wseat.is_empty() && !allowed {
            Some(SeatFault::NotAllowed)
        } else {
            None
        }
    }
}

/// Bytes of an id a message quotes (then `…`).
const ID_QUOTED: usize = 64;

/// `id` cut to at most [`ID_QUOTED`] bytes at a character boundary, with `…` when cut.
pub(super) fn clipped(id: &str) -> Cow<'_, str> {
    if id.len() <= ID_QUOTED {
        return Cow::Borrowed(id);
    }
    let mut end = ID_QUOTED;
    while !id.is_char_boundary(end) {
        end -= 1;
    }
    Cow::Owned(format!("{}…", &id[..end]))
}

/// A seat that bids as a group (OpenRTB 2.6 §4.2.2 `group` = 1: "impressions must be won or lost as a group"):
/// once one of its bids is rejected, the group cannot be won, so each of its other bids gets a `group_rejected`
/// finding (after the seat's other findings) and, when the rule is enforced, is rejected too.
pub(super) fn group(
    response: &BidResponse<'_>,
    seat: usize,
    policy: &Policy,
    out: &mut Findings<'_>,
    verdicts: &mut [Verdict],
) {
    let action = policy.action(Rule::Group);
    let Some(lost) = verdicts
        .iter()
        .position(|v| v.status == BidStatus::Rejected)
    else {
        return;
    };
    if action == Action::Skip {
        return;
    }
    let lost_path = paths::object(response, Object::Bid(seat, lost));
    for (bi, verdict) in verdicts.iter_mut().enumerate() {
        if verdict.status == BidStatus::Rejected {
            continue;
        }
        let message = message(&[
            Part::Text("the seat bids as a group (seatbid.group = 1) and its bid at "),
            Part::Text(&lost_path),
            Part::Text(" was rejected"),
        ]);
        let path = paths::object(response, Object::Bid(seat, bi));
        out.rule(Rule::Group, action, path, "group_rejected", message);
        if action == Action::Enforce {
            *verdict = Verdict {
                status: BidStatus::Rejected,
                rule: Some(Rule::Group),
            };
        }
    }
}

/// Sizes a `size_not_allowed` message names before "and N more" (9,000 `format`s made each message
/// ~97 KB and a 50 KB gzip request a 97 MB answer).
const SIZES_LISTED: usize = 10;

/// The rules applied to one bid.
struct OneBid<'c, 'f, 'r, 'a> {
    response: &'r BidResponse<'a>,
    /// The response currency (`USD` when absent).
    cur: &'r str,
    policy: &'c Policy,
    out: &'c mut Findings<'f>,
    object: Object,
    bid: &'r Bid<'a>,
    /// The bid's markup inspection, when the pair was decoded with one (`decode_pair_inspected`).
    markup: Option<&'r Markup<'a>>,
    /// The imps' `battr` lists longer than [`blocklists::SCAN`] as sets, by the list's address, made when a bid
    /// first meets one (a search per entry made 100,000 `battr` × 1,000 bids × 20 `attr` cost 0.62 s).
    battr_sets: &'c RefCell<HashMap<usize, HashSet<CreativeAttribute>>>,
    /// The imps' banner sizes (`format` and `w`×`h`) as sets when `format` is longer than [`blocklists::SCAN`], by
    /// the list's address, made when a bid first meets one (9,000 formats × 5,000 bids took 2.2 s).
    size_sets: &'c RefCell<HashMap<usize, HashSet<(i64, i64)>>>,
    /// The first enforced rule that rejected the bid.
    rule: Option<Rule>,
    /// The bid's VAST inspection when the pair has none, made on first use (`with_vast`).
    own_vast: OnceCell<Option<VastInfo<'r>>>,
}

impl OneBid<'_, '_, '_, '_> {
    fn path(&self, field: &str) -> String {
        paths::field(self.response, self.object, field)
    }

    /// Reports a finding of `rule` (unless skipped); an enforced one rejects the bid.
    fn flag(&mut self, rule: Rule, field: &str, code: &'static str, message: String) {
        let action = self.policy.action(rule);
        if action == Action::Skip {
            return;
        }
        let path = self.path(field);
        self.out.rule(rule, action, path, code, message);
        self.reject(rule);
    }

    /// Rejects the bid for `rule` when it is enforced (its finding is already reported); of several, the first
    /// in table order gives the bid its status code.
    fn reject(&mut self, rule: Rule) {
        if self.policy.action(rule) == Action::Enforce && self.rule.is_none_or(|r| rule < r) {
            self.rule = Some(rule);
        }
    }

    fn run(
        &mut self,
        pair: PairRef<'_, '_>,
        (seat, seat_fault): (usize, Option<SeatFault>),
        imps: &ImpIndex<'_, '_>,
        (blocklists, allowed_categories): (&Blocklists<'_>, Option<&Blocklists<'_>>),
        currency_refused: bool,
        duplicate: bool,
    ) {
        let bid = self.bid;
        let impid = bid.impid.as_deref().filter(|i| !i.is_empty());
        let imp = impid.and_then(|id| imps.get(id));
        if let (Some(id), None) = (impid, imp) {
            let message = message(&[
                Part::Text("impid "),
                Part::Quoted(id),
                Part::Text(" is not the id of an imp of the bid request"),
            ]);
            self.flag(Rule::UnknownImp, "impid", "unknown_impid", message);
        }
        // Decode reports these as errors, which reject the bid through `claims`; they are checked here again so
        // that a bid past the listed issues is judged the same.
        let price = bid.price.filter(|p| p.is_finite() && *p >= 0.0);
        if is_blank(bid.id.as_deref()) || impid.is_none() || price.is_none() {
            self.reject(Rule::InvalidBid);
        }
        if currency_refused {
            self.reject(Rule::Currency);
        }
        let dealid = bid.dealid.as_deref().filter(|d| !d.is_empty());
        let deals = imp
            .and_then(|i| i.pmp.as_ref())
            .map_or(&[][..], |p| &p.deals[..]);
        let deal = dealid.and_then(|id| deals.iter().find(|d| d.id.as_deref() == Some(id)));
        let floor = imp.and_then(|i| i.bidfloor.filter(|f| *f > 0.0).map(|f| (i, f)));
        if let (Some((imp, floor)), Some(price), None) = (floor, price, deal) {
            let floorcur = floor_currency(imp.bidfloorcur.as_deref());
            self.floor(
                Rule::Floor,
                price,
                floor,
                &floorcur,
                "below_floor",
                "imp.bidfloor",
            );
        }
        if duplicate {
            self.reject(Rule::DuplicateId);
        }
        if let Some(imp) = imp {
            self.deal(imp, dealid, deal, price);
            let declared = if bid.mtype.is_none() {
                bid_ext::prebid_type(bid.ext.as_ref())
            } else {
                None
            };
            let from_markup = markup_media(bid.adm.as_ref(), imp);
            let media = media::infer(bid, declared, from_markup, imp);
            self.attributes(imp, media);
            self.duration(imp, media);
            self.video_format(imp, media);
            self.size(imp, media);
            self.secure(imp);
            self.media_type(imp, declared, from_markup);
        }
        self.advertiser(pair, blocklists);
        self.category(pair, blocklists, allowed_categories);
        self.seat(seat, seat_fault);
        self.dsa(pair);
    }

    /// `price` against `floor` in `floorcur`; a floor in another currency without a rate is a warning.
    fn floor(
        &mut self,
        rule: Rule,
        price: f64,
        floor: f64,
        floorcur: &str,
        code: &'static str,
        what: &str,
    ) {
        let action = self.policy.action(rule);
        if action == Action::Skip {
            return;
        }
        let cur = self.cur;
        match self.policy.rates.convert(floor, floorcur, cur) {
            // A converted floor carries rounding: a price equal to it within 1e-9 relative clears it.
            Some(f)
                if (floorcur == cur && price < f)
                    || (floorcur != cur && price < f * (1.0 - 1e-9)) =>
            {
                let message = if floorcur == cur {
                    format!("price {price} {cur} is below the {what} {floor} {floorcur}")
                } else {
                    format!(
                        "price {price} {cur} is below the {what} {floor} {floorcur} ({f} {cur})"
                    )
                };
                self.flag(rule, "price", code, message);
            }
            Some(_) => {}
            None => {
                let message = format!(
                    "the {what} {floor} {floorcur} cannot be compared with a price in {cur}: no rate (validate.rates \
                     or a fresh rates source)"
                );
                self.flag(Rule::FloorRate, "price", "floor_rate_missing", message);
            }
        }
    }

    fn deal(
        &mut self,
        imp: &Imp<'_>,
        dealid: Option<&str>,
        deal: Option<&crate::model::request::Deal<'_>>,
        price: Option<f64>,
    ) {
        match (dealid, deal) {
            (Some(id), None) => {
                let message = message(&[
                    Part::Text("dealid "),
                    Part::Quoted(id),
                    Part::Text(" is not a deal of imp "),
                    Part::Quoted(imp.id.as_deref().unwrap_or("")),
                ]);
                self.flag(Rule::Deal, "dealid", "unknown_deal", message);
            }
            (Some(_), Some(deal)) => {
                if let (Some(price), Some(floor)) = (price, deal.bidfloor.filter(|f| *f > 0.0)) {
                    let floorcur = floor_currency(deal.bidfloorcur.as_deref());
                    self.floor(
                        Rule::DealFloor,
                        price,
                        floor,
                        &floorcur,
                        "below_deal_floor",
                        "deal's bidfloor",
                    );
                }
            }
            (None, _) => {
                if imp
                    .pmp
                    .as_ref()
                    .is_some_and(|p| p.private_auction == Some(1))
                {
                    let message = "the imp is a private auction (pmp.private_auction = 1) and the bid names no deal";
                    self.flag(Rule::Deal, "dealid", "deal_required", message.to_owned());
                }
            }
        }
    }

    fn attributes(&mut self, imp: &Imp<'_>, media: Option<Media>) {
        // The slot's own `battr`, then its companion banners' (Google openrtb's validator: battr on every slot,
        // companions included); with the media type unknown, every offered slot's.
        let want = |m: Media| media.is_none_or(|x| x == m);
        let mut blocked = None;
        let mut look = |name: &'static str, battr: &[CreativeAttribute]| {
            if blocked.is_none() {
                blocked = self.blocked_attribute(battr).map(|a| (name, a));
            }
        };
        if let Some(b) = imp.banner.as_ref().filter(|_| want(Media::Banner)) {
            look("banner", &b.battr);
        }
        for (m, name, slot) in [
            (Media::Video, "video", imp.video.as_ref()),
            (Media::Audio, "audio", imp.audio.as_ref()),
        ] {
            if let Some(v) = slot.filter(|_| want(m)) {
                look(name, &v.battr);
                for companion in &v.companionad {
                    look("companionad", &companion.battr);
                }
            }
        }
        if let Some(n) = imp.native.as_ref().filter(|_| want(Media::Native)) {
            look("native", &n.battr);
        }
        if let Some((name, a)) = blocked {
            let message = format!(
                "creative attribute {} is blocked by the imp's {name}.battr",
                a.0
            );
            self.flag(Rule::BlockedAttribute, "attr", "blocked_attribute", message);
        }
    }

    /// The first of the bid's `attr` in `battr` (long lists searched through a set made once per list).
    fn blocked_attribute(&self, battr: &[CreativeAttribute]) -> Option<CreativeAttribute> {
        if battr.is_empty() {
            return None;
        }
        if battr.len() > blocklists::SCAN {
            let mut sets = self.battr_sets.borrow_mut();
            let set = sets
                .entry(battr.as_ptr() as usize)
                .or_insert_with(|| battr.iter().copied().collect());
            self.bid.attr.iter().find(|a| set.contains(a)).copied()
        } else {
            self.bid.attr.iter().find(|a| battr.contains(a)).copied()
        }
    }

    fn duration(&mut self, imp: &Imp<'_>, media: Option<Media>) {
        let slot: Option<&Video<'_>> = match media {
            Some(Media::Video) => imp.video.as_ref(),
            Some(Media::Audio) => imp.audio.as_ref(),
            _ => None,
        };
        let Some(slot) = slot else {
            return;
        };
        let min = slot.minduration.unwrap_or(0);
        let max = slot.maxduration.filter(|m| *m > 0);
        let max_text = || max.map_or("none".to_owned(), |m| m.to_string());
        if let Some(dur) = self.bid.dur
            && (dur < min || max.is_some_and(|m| dur > m))
        {
            let message = format!(
                "dur {dur} s is outside the slot's minduration {min} s and maxduration {} s",
                max_text()
            );
            self.flag(Rule::Duration, "dur", "duration_out_of_range", message);
        }
        if min <= 0 && max.is_none() {
            return;
        }
        // The VAST markup's own duration is checked too, with or without `dur` (recommended, not required:
        // §4.2.3): a `dur` in range must not pass a longer creative. A `Linear` whose `Duration` cannot be read
        // does not pass a slot that bounds the duration.
        let Some((secs, unreadable)) = self.with_vast(|info| {
            let unreadable = info
                .warnings
                .first(bidscan_markup::vast::Warning::BadDuration)
                .is_some();
            (info.duration_secs, unreadable)
        }) else {
            return;
        };
        match secs {
            Some(secs) if secs < min as f64 || max.is_some_and(|m| secs > m as f64) => {
                let message = format!(
                    "the VAST Duration of {secs} s is outside the slot's minduration {min} s and maxduration {} s",
                    max_text()
                );
                self.flag(Rule::Duration, "adm", "duration_out_of_range", message);
            }
            None if unreadable && (min > 0 || max.is_some()) => {
                let message = format!(
                    "the VAST Linear's Duration cannot be read, and the slot's minduration is {min} s and \
                     maxduration {} s",
                    max_text()
                );
                self.flag(Rule::Duration, "adm", "duration_unknown", message);
            }
            _ => {}
        }
    }

    /// `video_format`: a video or audio bid's VAST must be one the slot plays (OpenRTB 2.6 §3.2.7, §3.2.8): its
    /// version, as an AdCOM protocol (inline or wrapper), among the slot's `protocols`, and, for inline markup with
    /// media files, one `MediaFile` of a type among its `mimes`. Markup that is not VAST, or not well-formed (the `creative`
    /// rule's), is not judged here.
    fn video_format(&mut self, imp: &Imp<'_>, media: Option<Media>) {
        let (slot, video) = match media {
            Some(Media::Video) => ("video", imp.video.as_ref()),
            Some(Media::Audio) => ("audio", imp.audio.as_ref()),
            _ => return,
        };
        let Some(video) = video else {
            return;
        };
        if (video.mimes.is_empty() && video.protocols.is_empty())
            || self.policy.action(Rule::VideoFormat) == Action::Skip
        {
            return;
        }
        let finding = self.with_vast(|info| {
            if !info.well_formed {
                return None;
            }
            if !video.protocols.is_empty() {
                let protocol = info
                    .version
                    .and_then(|v| media::vast_protocol(v, info.wrapper));
                if !protocol.is_some_and(|p| video.protocols.contains(&p)) {
                    let kind = if info.wrapper { "wrapper" } else { "inline" };
                    let offered: Vec<i64> = video.protocols.iter().map(|p| p.0).collect();
                    let message = match (info.version, protocol) {
                        (Some(v), Some(p)) => format!(
                            "VAST {v} {kind} (protocol {}) is not among the imp's {slot}.protocols {offered:?}",
                            p.0
                        ),
                        (Some(v), None) => format!(
                            "VAST version {v:?} is no protocol of the imp's {slot}.protocols {offered:?}"
                        ),
                        (None, _) => format!(
                            "the VAST root has no version, so it matches none of the imp's {slot}.protocols {offered:?}"
                        ),
                    };
                    return Some(("vast_version_not_offered", message));
                }
            }
            // Inline markup with media files: one must be of a type the slot plays. More types than the
            // inspection keeps cannot be judged, and pass.
            let types = &info.media_types;
            if !info.wrapper
                && !video.mimes.is_empty()
                && info.media_files > 0
                && !types.more()
                && !types.any(|t| {
                    video
                        .mimes
                        .iter()
                        .any(|m| bidscan_markup::vast::mime_matches(m, t))
                })
            {
                let offered: Vec<&str> = video.mimes.iter().map(|m| &**m).collect();
                let sent: Vec<&str> = types.iter().collect();
                let message = format!(
                    "no MediaFile of the VAST is of a type among the imp's {slot}.mimes {offered:?} (types: {sent:?})"
                );
                return Some(("vast_media_type_not_offered", message));
            }
            None
        });
        if let Some(Some((code, message))) = finding {
            self.flag(Rule::VideoFormat, "adm", code, message);
        }
    }

    /// `f` of the bid's VAST inspection: the pair's when it was decoded with one, else made here once per bid;
    /// `None` when the markup is not VAST.
    fn with_vast<R>(&self, f: impl FnOnce(&VastInfo<'_>) -> R) -> Option<R> {
        if let Some(Markup::Vast(info)) = self.markup {
            return Some(f(info));
        }
        let bid = self.bid;
        self.own_vast
            .get_or_init(|| match bid.adm.as_ref() {
                Some(Adm::Markup(text)) if matches!(AdmKind::sniff(text), AdmKind::Vast) => {
                    Some(bidscan_markup::vast::inspect(text))
                }
                _ => None,
            })
            .as_ref()
            .map(f)
    }

    fn size(&mut self, imp: &Imp<'_>, media: Option<Media>) {
        let (Some(Media::Banner), Some(banner)) = (media, imp.banner.as_ref()) else {
            return;
        };
        // Iterated again rather than collected: an accepted size allocates nothing.
        let allowed = || {
            banner
                .format
                .iter()
                .filter_map(|f| Some((f.w?, f.h?)))
                .chain(banner.w.zip(banner.h))
        };
        let Some(first) = allowed().next() else {
            return;
        };
        let (Some(w), Some(h)) = (self.bid.w, self.bid.h) else {
            // Without its size a bid could fill any of several sizes (Prebid Server Java's
            // `ResponseBidValidator`: a banner bid needs its size): rejected where the imp offers two or more.
            if allowed().any(|s| s != first) {
                let message =
                    "the bid gives no w and h and the imp offers several banner sizes".to_owned();
                self.flag(Rule::Size, "w", "size_missing", message);
            }
            return;
        };
        let listed = if banner.format.len() > blocklists::SCAN {
            let mut sets = self.size_sets.borrow_mut();
            sets.entry(banner.format.as_ptr() as usize)
                .or_insert_with(|| allowed().collect())
                .contains(&(w, h))
        } else {
            allowed().any(|s| s == (w, h))
        };
        if listed {
            return;
        }
        // At most SIZES_LISTED sizes named: one message per rejected bid, and `format` has no length bound.
        let mut message = format!("banner size {w}x{h} is not among the imp's sizes ");
        let count = allowed().count();
        for (i, (w, h)) in allowed().take(SIZES_LISTED).enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            // Writing into a `String` cannot fail.
            let _ = write!(message, "{sep}{w}x{h}");
        }
        if count > SIZES_LISTED {
            let _ = write!(message, " and {} more", count - SIZES_LISTED);
        }
        self.flag(Rule::Size, "w", "size_not_allowed", message);
    }

    fn secure(&mut self, imp: &Imp<'_>) {
        if !imp.is_secure() {
            return;
        }
        let bid = self.bid;
        let insecure = match self.markup {
            // The inspection already read the HTML's `src`/`href`/`srcset`/`url(...)`: not scanned twice.
            Some(Markup::Html(info)) => !info.secure,
            _ => bid.adm.as_ref().is_some_and(insecure_markup),
        };
        if insecure {
            let message = "the imp requires secure creatives (imp.secure = 1) and the markup loads an http:// URL";
            self.flag(Rule::Secure, "adm", "insecure_markup", message.to_owned());
        }
        for (field, url) in [
            ("nurl", &bid.nurl),
            ("burl", &bid.burl),
            ("iurl", &bid.iurl),
        ] {
            if url.as_deref().is_some_and(is_http) {
                let message = message(&[
                    Part::Text("the imp requires secure creatives (imp.secure = 1) and "),
                    Part::Text(field),
                    Part::Text(" is http://"),
                ]);
                self.flag(Rule::Secure, field, "insecure_url", message);
            }
        }
    }

    fn media_type(
        &mut self,
        imp: &Imp<'_>,
        prebid_type: Option<Media>,
        from_markup: Option<Media>,
    ) {
        let bid = self.bid;
        let declared = bid.mtype.and_then(|m| Media::of_mtype(m.0)).or(prebid_type);
        match (declared, from_markup) {
            (Some(m), _) if !m.offered(imp) => {
                let message = match bid.mtype {
                    Some(mtype) => {
                        format!("mtype {} ({}) is not offered by the imp", mtype.0, m.name())
                    }
                    None => format!("ext.prebid.type {} is not offered by the imp", m.name()),
                };
                self.flag(Rule::MediaType, "mtype", "media_type_not_offered", message);
            }
            (Some(m), Some(k)) if m != k && !(m == Media::Audio && k == Media::Video) => {
                let message = message(&[
                    Part::Text("the markup is "),
                    Part::Text(k.name()),
                    Part::Text(" but mtype says "),
                    Part::Text(m.name()),
                ]);
                self.flag(Rule::MediaType, "adm", "markup_contradicts_mtype", message);
            }
            (None, Some(k)) if !(k.offered(imp) || k == Media::Video && imp.audio.is_some()) => {
                let message = message(&[
                    Part::Text("the markup is "),
                    Part::Text(k.name()),
                    Part::Text(" and the imp offers no "),
                    Part::Text(k.name()),
                    Part::Text(" slot"),
                ]);
                self.flag(Rule::MediaType, "adm", "media_type_not_offered", message);
            }
            // Nothing tells which of several slots the bid fills (no mtype, no ext.prebid.type, markup served on
            // the win notice or of no kind): the slots' rules could not be applied, so the bid does not pass.
            (None, None) if media::offered_slots(imp) >= 2 => {
                let message = "the bid has no mtype or ext.prebid.type, its markup does not tell its media type, \
                               and the imp offers several slots"
                    .to_owned();
                self.flag(Rule::MediaType, "mtype", "media_type_unknown", message);
            }
            _ => {}
        }
    }

    fn advertiser(&mut self, pair: PairRef<'_, '_>, blocklists: &Blocklists<'_>) {
        let request = &pair.request;
        let bid = self.bid;
        let blocked = bid
            .adomain
            .iter()
            .find_map(|d| blocklists.domain(d).map(|b| (d, b)));
        if let Some((d, b)) = blocked {
            let message = message(&[
                Part::Text("adomain "),
                Part::Quoted(d),
                Part::Text(" is blocked by badv "),
                Part::Quoted(b),
            ]);
            self.flag(
                Rule::BlockedAdvertiser,
                "adomain",
                "blocked_advertiser",
                message,
            );
        }
        if let Some(bundle) = bid.bundle.as_deref().filter(|b| blocklists.app(b)) {
            let message = message(&[
                Part::Text("bundle "),
                Part::Quoted(bundle),
                Part::Text(" is blocked by bapp"),
            ]);
            self.flag(Rule::BlockedAdvertiser, "bundle", "blocked_app", message);
        }
        // Leaving the member out must not pass a blocklist (Prebid's `ortb2blocking` `block_unknown_adomain`).
        if !request.badv.is_empty() && bid.adomain.iter().all(|d| d.is_empty()) {
            let message = "the request blocks advertisers (badv) and the bid names no adomain";
            self.flag(
                Rule::UnknownAdomain,
                "adomain",
                "unknown_adomain",
                message.to_owned(),
            );
        }
        if request.app && !request.bapp.is_empty() && is_blank(bid.bundle.as_deref()) {
            let message =
                "the request is for an app and blocks apps (bapp), and the bid names no bundle";
            self.flag(
                Rule::UnknownBundle,
                "bundle",
                "unknown_bundle",
                message.to_owned(),
            );
        }
    }

    fn category(
        &mut self,
        pair: PairRef<'_, '_>,
        blocklists: &Blocklists<'_>,
        allowed: Option<&Blocklists<'_>>,
    ) {
        let request = &pair.request;
        let bid = self.bid;
        if request.bcat.is_empty() && request.acat.is_empty() {
            return;
        }
        // Categories compare only within one taxonomy (§3.2.1, §4.2.3 `cattax`, 1 when absent): a bid in
        // another cannot be checked, so it does not pass (Prebid's `ortb2blocking`).
        let (theirs, ours) = (
            bid.cattax.map_or(1, |t| t.0),
            request.cattax.map_or(1, |t| t.0),
        );
        if theirs != ours {
            let message = format!(
                "the bid's categories are in cattax {theirs}, the request's bcat/acat in cattax {ours}"
            );
            self.flag(
                Rule::CategoryTaxonomy,
                "cattax",
                "category_taxonomy_mismatch",
                message,
            );
            return;
        }
        let blocked = bid
            .cat
            .iter()
            .find_map(|c| blocklists.category(c).map(|b| (c, b)));
        if let Some((c, b)) = blocked {
            let message = message(&[
                Part::Text("category "),
                Part::Quoted(c),
                Part::Text(" is blocked by bcat "),
                Part::Quoted(b),
            ]);
            self.flag(Rule::BlockedCategory, "cat", "blocked_category", message);
        }
        if let Some(allowed) = allowed
            && !bid.cat.iter().any(|c| allowed.category(c).is_some())
        {
            let message = if bid.cat.is_empty() {
                "the request allows only the categories of acat and the bid names no cat".to_owned()
            } else {
                "no cat of the bid is within the request's acat".to_owned()
            };
            self.flag(
                Rule::BlockedCategory,
                "cat",
                "category_not_allowed",
                message,
            );
        }
    }

    /// `bseat` and `wseat` (OpenRTB 2.6 §3.2.1): the seat's fault (worked out once per seat bid by
    /// [`SeatLists::fault`]) reported on each of its bids.
    fn seat(&mut self, seat: usize, fault: Option<SeatFault>) {
        let Some(fault) = fault else {
            return;
        };
        let action = self.policy.action(Rule::Seat);
        if action == Action::Skip {
            return;
        }
        let name = self.response.seatbid[seat].seat.as_deref().unwrap_or("");
        let (code, text) = match fault {
            SeatFault::Blocked => ("seat_blocked", " is in bseat"),
            SeatFault::NotAllowed => ("seat_not_allowed", " is not in wseat"),
        };
        let message = message(&[Part::Text("seat "), Part::Quoted(name), Part::Text(text)]);
        let path = paths::field(self.response, Object::Seat(seat), "seat");
        self.out.rule(Rule::Seat, action, path, code, message);
        self.reject(Rule::Seat);
    }

    /// DSA transparency (IAB Tech Lab "DSA Transparency" extension; Prebid Server's `dsa/validate.go`): where
    /// the request's `regs.ext.dsa.dsarequired` is 2 or 3, the bid's `ext.dsa` must be an object, `behalf` and
    /// `paid` at most 100 bytes, and `adrender` not contradict `pubrender` (0: the publisher cannot render, so the
    /// buyer must, `adrender` 1; 2: the publisher will, so the buyer must not, `adrender` not 1).
    fn dsa(&mut self, pair: PairRef<'_, '_>) {
        let Some(required) = pair.request.dsa.filter(|d| d.required()) else {
            return;
        };
        if self.policy.action(Rule::Dsa) == Action::Skip {
            return;
        }
        let problem = match bid_ext::dsa(self.bid.ext.as_ref()) {
            Err(DsaFault::Missing) => Some((
                "dsa_missing",
                "the request requires DSA transparency (regs.ext.dsa.dsarequired 2 or 3) and the bid has no ext.dsa"
                    .to_owned(),
            )),
            Err(DsaFault::NotAnObject) => Some((
                "dsa_invalid",
                "ext.dsa is not an object of the DSA transparency extension's shape".to_owned(),
            )),
            Ok(dsa) if dsa.behalf_bytes > DSA_TEXT_BYTES => Some((
                "dsa_invalid",
                format!("ext.dsa.behalf is {} bytes, more than {DSA_TEXT_BYTES}", dsa.behalf_bytes),
            )),
            Ok(dsa) if dsa.paid_bytes > DSA_TEXT_BYTES => Some((
                "dsa_invalid",
                format!("ext.dsa.paid is {} bytes, more than {DSA_TEXT_BYTES}", dsa.paid_bytes),
            )),
            Ok(dsa) => match (required.pubrender, dsa.adrender) {
                (Some(0), Some(ad)) if ad != 1 => Some((
                    "dsa_render_conflict",
                    format!("the publisher cannot render the DSA transparency (pubrender 0) and ext.dsa.adrender is {ad}, not 1"),
                )),
                (Some(2), Some(1)) => Some((
                    "dsa_render_conflict",
                    "the publisher will render the DSA transparency (pubrender 2) and ext.dsa.adrender is 1".to_owned(),
                )),
                _ => None,
            },
        };
        if let Some((code, message)) = problem {
            self.flag(Rule::Dsa, "ext", code, message);
        }
    }
}

/// A floor's currency (`bidfloorcur`): USD when absent or blank (OpenRTB 2.6 §3.2.4, §3.2.12 default), else as
/// [`currency_key`] reads it.
fn floor_currency(code: Option<&str>) -> Cow<'_, str> {
    match code.map(str::trim) {
        None | Some("") => Cow::Borrowed("USD"),
        Some(code) => currency_key(code),
    }
}

/// A currency code of the request (`cur`, `bidfloorcur`) as compared with the response's `cur` and the configured
/// rates: trimmed and upper-cased (ISO 4217 alpha codes are upper case; the request is the exchange's own text,
/// read leniently, so `"eur"` is EUR). Borrowed when already so.
fn currency_key(code: &str) -> Cow<'_, str> {
    let code = code.trim();
    if code.bytes().any(|b| b.is_ascii_lowercase()) {
        Cow::Owned(code.to_ascii_uppercase())
    } else {
        Cow::Borrowed(code)
    }
}

#[cfg(test)]
mod tests {
    use super::super::blocklists::{category_blocked, domain_blocked};
    use super::*;

    #[test]
    fn request_currency_codes_in_any_case() {
        assert_eq!(currency_key("eur"), "EUR");
        assert_eq!(currency_key(" Gbp "), "GBP");
        assert!(matches!(currency_key("USD"), Cow::Borrowed("USD")));
    }

    #[test]
    fn domains_and_subdomains() {
        assert!(domain_blocked("ford.com", "ford.com"));
        assert!(domain_blocked("Shop.Ford.COM", "ford.com"));
        assert!(!domain_blocked("notford.com", "ford.com"));
        assert!(!domain_blocked("ford.com", ""));
        assert!(!domain_blocked("com", "ford.com"));
        // A fully qualified name's trailing dot (the DNS root) on either side is the same domain.
        assert!(domain_blocked("EX.COM.", "ex.com"));
        assert!(domain_blocked("shop.ex.com", "ex.com."));
        assert!(!domain_blocked("ex.com", "."));
        assert!(!domain_blocked("notex.com.", "ex.com"));
    }

    #[test]
    fn categories_and_subcategories() {
        assert!(category_blocked("IAB1", "IAB1"));
        assert!(category_blocked("IAB1-5", "IAB1"));
        assert!(category_blocked("iab1-5", "IAB1"));
        assert!(!category_blocked("IAB12", "IAB1"));
        assert!(!category_blocked("IAB1", "IAB1-5"));
    }

    #[test]
    fn messages_quote_as_debug_does() {
        for value in [
            "",
            "abc-123",
            "with space",
            "q\"uote",
            "back\\slash",
            "tab\there",
            "new\nline",
            "\u{7f}",
            "é",
            "日本",
            "\u{200b}zero-width",
            "\u{301}combining",
            "emoji 🙂",
        ] {
            let built = message(&[Part::Text("id "), Part::Quoted(value), Part::Text(" end")]);
            assert_eq!(built, format!("id {value:?} end"), "{value:?}");
        }
    }
}
