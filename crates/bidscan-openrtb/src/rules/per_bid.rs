//! The rules applied to each bid, in the order of the table in [`super`].

use std::fmt::Write as _;

use crate::checks::issue::{Issue, Severity};
use crate::checks::markup::Markup;
use crate::checks::paths::{self, Object};
use crate::decode::pair::Pair;
use crate::model::adm::{Adm, AdmKind};
use crate::model::bid::Bid;
use crate::model::request::{Imp, Video};
use crate::model::response::BidResponse;
use crate::model::status::Status;

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use super::blocklists::{self, Blocklists};
use super::insecure::{insecure_markup, is_http};
use crate::checks::{DuplicateIds, is_currency_code};
use crate::model::lists::CreativeAttribute;

use super::policy::{Action, Policy};
use super::table::Rule;
use super::verdict::{BidStatus, Findings, Verdict, Verdicts};

/// The slot a bid fills.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Media {
    Banner,
    Video,
    Audio,
    Native,
}

impl Media {
    fn of_mtype(mtype: i64) -> Option<Media> {
        Some(match mtype {
            1 => Media::Banner,
            2 => Media::Video,
            3 => Media::Audio,
            4 => Media::Native,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Media::Banner => "banner",
            Media::Video => "video",
            Media::Audio => "audio",
            Media::Native => "native",
        }
    }

    fn offered(self, imp: &Imp<'_>) -> bool {
        match self {
            Media::Banner => imp.banner.is_some(),
            Media::Video => imp.video.is_some(),
            Media::Audio => imp.audio.is_some(),
            Media::Native => imp.native.is_some(),
        }
    }
}

/// What the markup itself says the bid is: VAST, native JSON, or `<`-led HTML; `None` for no markup or text that
/// is none of these (`"some-test-ad"`), which contradicts nothing.
fn markup_media(adm: Option<&Adm<'_>>, imp: &Imp<'_>) -> Option<Media> {
    let adm = adm?;
    match adm.kind() {
        AdmKind::Vast if imp.video.is_none() && imp.audio.is_some() => Some(Media::Audio),
        AdmKind::Vast => Some(Media::Video),
        AdmKind::Native => Some(Media::Native),
        AdmKind::Html
            if adm
                .as_markup()
                .is_some_and(|t| t.trim_start().starts_with('<')) =>
        {
            Some(Media::Banner)
        }
        AdmKind::Html | AdmKind::None => None,
    }
}

/// The bid's media type: `mtype`, else the markup's, else the imp's only slot.
fn media(bid: &Bid<'_>, imp: &Imp<'_>) -> Option<Media> {
    if let Some(m) = bid.mtype.and_then(|m| Media::of_mtype(m.0)) {
        return Some(m);
    }
    if let Some(m) = markup_media(bid.adm.as_ref(), imp) {
        return Some(m);
    }
    let mut offered = [Media::Banner, Media::Video, Media::Audio, Media::Native]
        .into_iter()
        .filter(|m| m.offered(imp));
    match (offered.next(), offered.next()) {
        (Some(only), None) => Some(only),
        _ => None,
    }
}

/// One piece of a finding's message: text as is, or a value quoted as `{:?}` quotes it.
#[derive(Clone, Copy)]
enum Part<'s> {
    Text(&'s str),
    Quoted(&'s str),
}

/// A finding's message from its pieces, in one allocation of the exact size (for plain values), without the
/// `fmt` machinery, which cost ~700 instructions a message, most of it `{:?}`'s character-by-character escape
/// of the quoted ids. Byte for byte what `format!` with `{}` and `{:?}` writes.
fn message(parts: &[Part<'_>]) -> String {
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

fn is_blank(v: Option<&str>) -> bool {
    v.is_none_or(str::is_empty)
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
/// and they are not looked for again).
pub(super) fn check(
    pair: &Pair<'_>,
    policy: &Policy,
    duplicates_found: bool,
    out: &mut Findings<'_>,
    verdicts: &mut Verdicts,
) {
    let request = &pair.request;
    let response = &pair.decoded.response;
    let cur = response.cur.as_deref().unwrap_or("USD");
    let has_bids = pair.decoded.status == Status::Bid;
    let response_invalid = (has_bids && is_blank(response.id.as_deref()))
        || response
            .cur
            .as_deref()
            .is_some_and(|c| !is_currency_code(c));
    let currency_refused =
        has_bids && !request.cur.is_empty() && !request.cur.iter().any(|c| currency_key(c) == cur);
    let action = policy.action(Rule::Currency);
    if currency_refused && action != Action::Skip {
        let allowed: Vec<&str> = request.cur.iter().map(|c| &**c).collect();
        let message =
            format!("the response currency {cur} is not among the request's cur {allowed:?}");
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
    // warning: it judges no bid, but a response to another request is worth knowing of (a fresh tester).
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
    let battr_sets = RefCell::new(HashMap::new());
    let size_sets = RefCell::new(HashMap::new());
    let duplicates = if duplicates_found {
        DuplicateIds::find(response)
    } else {
        DuplicateIds::NONE
    };
    let mut position = 0;
    for (si, seat) in response.seatbid.iter().enumerate() {
        let first = position;
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
                rule: None,
            };
            one.run(
                pair,
                &imps,
                &blocklists,
                response_invalid,
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

/// Bytes of an id a message quotes (then `…`).
const ID_QUOTED: usize = 64;

/// `id` cut to at most [`ID_QUOTED`] bytes at a character boundary, with `…` when cut.
fn clipped(id: &str) -> Cow<'_, str> {
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
fn group(
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

/// Sizes a `size_not_allowed` message names before "and N more" (a tester's 9,000 `format`s made each message
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
    /// the list's address, made when a bid first meets one (9,000 formats × 5,000 bids took 2.2 s, a fresh tester).
    size_sets: &'c RefCell<HashMap<usize, HashSet<(i64, i64)>>>,
    /// The first enforced rule that rejected the bid.
    rule: Option<Rule>,
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

    /// Rejects the bid for `rule` when it is enforced (its finding is already reported).
    fn reject(&mut self, rule: Rule) {
        if self.policy.action(rule) == Action::Enforce && self.rule.is_none() {
            self.rule = Some(rule);
        }
    }

    fn run(
        &mut self,
        pair: &Pair<'_>,
        imps: &ImpIndex<'_, '_>,
        blocklists: &Blocklists<'_>,
        response_invalid: bool,
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
        let price = bid.price.filter(|p| p.is_finite() && *p >= 0.0);
        if response_invalid || is_blank(bid.id.as_deref()) || impid.is_none() || price.is_none() {
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
            let floorcur = currency_key(imp.bidfloorcur.as_deref().unwrap_or("USD"));
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
            let media = media(bid, imp);
            self.attributes(imp, media);
            self.duration(imp, media);
            self.size(imp, media);
            self.secure(imp);
            self.media_type(imp);
        }
        self.advertiser(blocklists);
        self.category(pair, blocklists);
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
                let issue = Issue {
                    path: self.path("price"),
                    code: "floor_rate_missing",
                    severity: Severity::Warning,
                    message: format!(
                        "the {what} {floor} {floorcur} cannot be compared with a price in {cur}: no rate in validate.rates"
                    )
                    .into(),
                };
                self.out.push(issue, None);
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
                    let floorcur = currency_key(deal.bidfloorcur.as_deref().unwrap_or("USD"));
                    self.floor(
                        Rule::Deal,
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
        let battr = match media {
            Some(Media::Banner) => imp.banner.as_ref().map(|b| &b.battr[..]),
            Some(Media::Video) => imp.video.as_ref().map(|v| &v.battr[..]),
            Some(Media::Audio) => imp.audio.as_ref().map(|v| &v.battr[..]),
            Some(Media::Native) => imp.native.as_ref().map(|n| &n.battr[..]),
            None => None,
        };
        let Some(battr) = battr else { return };
        let blocked = if battr.len() > blocklists::SCAN {
            let mut sets = self.battr_sets.borrow_mut();
            let set = sets
                .entry(battr.as_ptr() as usize)
                .or_insert_with(|| battr.iter().copied().collect());
            self.bid.attr.iter().find(|a| set.contains(a)).copied()
        } else {
            self.bid.attr.iter().find(|a| battr.contains(a)).copied()
        };
        if let Some(a) = blocked {
            let media = media.map_or("", Media::name);
            let message = format!(
                "creative attribute {} is blocked by the imp's {media}.battr",
                a.0
            );
            self.flag(Rule::BlockedAttribute, "attr", "blocked_attribute", message);
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
        if let Some(dur) = self.bid.dur {
            if dur < min || max.is_some_and(|m| dur > m) {
                let message = format!(
                    "dur {dur} s is outside the slot's minduration {min} s and maxduration {} s",
                    max_text()
                );
                self.flag(Rule::Duration, "dur", "duration_out_of_range", message);
            }
            return;
        }
        // Without `dur` (recommended, not required: §4.2.3), the VAST markup's own duration (a fresh tester:
        // leaving `dur` out let any length through). The same with or without inspection.
        let Some(secs) = self.vast_duration() else {
            return;
        };
        if secs < min as f64 || max.is_some_and(|m| secs > m as f64) {
            let message = format!(
                "the VAST Duration of {secs} s (bid.dur absent) is outside the slot's minduration {min} s and \
                 maxduration {} s",
                max_text()
            );
            self.flag(Rule::Duration, "adm", "duration_out_of_range", message);
        }
    }

    /// The first `Linear`'s `Duration` in seconds of the bid's VAST markup (`VastInfo::duration_secs`): from the
    /// inspection when the pair was decoded with one, else read here.
    fn vast_duration(&self) -> Option<f64> {
        if let Some(Markup::Vast(info)) = self.markup {
            return info.duration_secs;
        }
        match self.bid.adm.as_ref() {
            Some(Adm::Markup(text)) if matches!(AdmKind::sniff(text), AdmKind::Vast) => {
                bidscan_markup::vast::inspect(text).duration_secs
            }
            _ => None,
        }
    }

    fn size(&mut self, imp: &Imp<'_>, media: Option<Media>) {
        let (Some(Media::Banner), Some(banner)) = (media, imp.banner.as_ref()) else {
            return;
        };
        let (Some(w), Some(h)) = (self.bid.w, self.bid.h) else {
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
        if allowed().next().is_none() {
            return;
        }
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

    fn media_type(&mut self, imp: &Imp<'_>) {
        let bid = self.bid;
        let declared = bid.mtype.and_then(|m| Media::of_mtype(m.0));
        let from_markup = markup_media(bid.adm.as_ref(), imp);
        match (declared, from_markup) {
            (Some(m), _) if !m.offered(imp) => {
                let message = format!(
                    "mtype {} ({}) is not offered by the imp",
                    bid.mtype.map_or(0, |m| m.0),
                    m.name()
                );
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
            (None, Some(k))
                if k != Media::Banner
                    && !k.offered(imp)
                    && !(k == Media::Video && imp.audio.is_some()) =>
            {
                let message = message(&[
                    Part::Text("the markup is "),
                    Part::Text(k.name()),
                    Part::Text(" and the imp offers no "),
                    Part::Text(k.name()),
                    Part::Text(" slot"),
                ]);
                self.flag(Rule::MediaType, "adm", "media_type_not_offered", message);
            }
            _ => {}
        }
    }

    fn advertiser(&mut self, blocklists: &Blocklists<'_>) {
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
    }

    fn category(&mut self, pair: &Pair<'_>, blocklists: &Blocklists<'_>) {
        let request = &pair.request;
        let bid = self.bid;
        let same_taxonomy = bid.cattax.map_or(1, |t| t.0) == request.cattax.map_or(1, |t| t.0);
        if !same_taxonomy {
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
