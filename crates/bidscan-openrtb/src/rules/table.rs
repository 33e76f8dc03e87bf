//! [`Rule`]: the rule table of [`super`] (names, order, defaults, seat-non-bid status codes). A leaf.

use serde::Serialize;

use super::policy::Action;
use crate::checks::issue::{Issue, Severity};

/// A response-validation rule (see the table in the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// `impid` not an `imp.id` of the request (300).
    UnknownImp,
    /// No markup (`missing_markup`), or malformed VAST or native markup (350 Invalid Creative).
    Creative,
    /// `mtype` outside 1–4 (353 Incorrect Format).
    Mtype,
    /// Any other error on the bid: no `id`/`impid`/`price`, no `crid`, price ≤ 0 without a deal, price not finite, wrong types (300).
    InvalidBid,
    /// Response currency not allowed by the request (`request.cur`, USD only when empty) (300).
    Currency,
    /// Price below the imp's floor (301).
    Floor,
    /// A floor in a currency with no rate to the bid's (300).
    FloorRate,
    /// A bid id used twice (302).
    DuplicateId,
    /// A `dealid` the imp does not offer, or no deal in a private auction (300).
    Deal,
    /// Price below the deal's floor (304 Below Deal Floor); follows `deal` unless set.
    DealFloor,
    /// A creative attribute the slot blocks (350).
    BlockedAttribute,
    /// Video/audio duration outside the slot's range (350).
    Duration,
    /// No VAST `MediaFile` of a type in `imp.video.mimes`, or a VAST version outside `imp.video.protocols` (350).
    VideoFormat,
    /// Banner size not allowed, or not given where the imp offers several (351).
    Size,
    /// Insecure URL on a secure impression (352).
    Secure,
    /// Media type not offered, or markup of another kind (353).
    MediaType,
    /// Advertiser domain or app blocked (356).
    BlockedAdvertiser,
    /// No `adomain` where the request sets `badv` (356; Prebid's `block_unknown_adomain`).
    UnknownAdomain,
    /// An app bid without `bundle` where the request sets `bapp` (356).
    UnknownBundle,
    /// A bid `cattax` other than the request's where `bcat` or `acat` is set (303 Category Mapping Invalid).
    CategoryTaxonomy,
    /// A category in `bcat`, or none within a set `acat` (357).
    BlockedCategory,
    /// A `seat` in `bseat`, or not in a set `wseat` (300).
    Seat,
    /// DSA transparency missing or inconsistent where `regs.ext.dsa.dsarequired` is 2 or 3 (300).
    Dsa,
    /// Another bid of a seat that bids as a group (`seatbid.group` = 1) was rejected (300).
    Group,
    /// In an auction, a bid `id` an earlier bidder's response already used (302); `warn` by default.
    DuplicateIdAcrossBidders,
}

impl Rule {
    /// Every rule, in the order they are applied.
    pub const ALL: [Rule; 25] = [
        Rule::UnknownImp,
        Rule::Creative,
        Rule::Mtype,
        Rule::InvalidBid,
        Rule::Currency,
        Rule::Floor,
        Rule::FloorRate,
        Rule::DuplicateId,
        Rule::Deal,
        Rule::DealFloor,
        Rule::BlockedAttribute,
        Rule::Duration,
        Rule::VideoFormat,
        Rule::Size,
        Rule::Secure,
        Rule::MediaType,
        Rule::BlockedAdvertiser,
        Rule::UnknownAdomain,
        Rule::UnknownBundle,
        Rule::CategoryTaxonomy,
        Rule::BlockedCategory,
        Rule::Seat,
        Rule::Dsa,
        Rule::Group,
        Rule::DuplicateIdAcrossBidders,
    ];

    /// The rule's name in configuration and metrics, e.g. `"floor"`.
    pub fn name(self) -> &'static str {
        match self {
            Rule::UnknownImp => "unknown_imp",
            Rule::Creative => "creative",
            Rule::Mtype => "mtype",
            Rule::InvalidBid => "invalid_bid",
            Rule::Currency => "currency",
            Rule::Floor => "floor",
            Rule::FloorRate => "floor_rate",
            Rule::DuplicateId => "duplicate_id",
            Rule::Deal => "deal",
            Rule::DealFloor => "deal_floor",
            Rule::BlockedAttribute => "blocked_attribute",
            Rule::Duration => "duration",
            Rule::VideoFormat => "video_format",
            Rule::Size => "size",
            Rule::Secure => "secure",
            Rule::MediaType => "media_type",
            Rule::BlockedAdvertiser => "blocked_advertiser",
            Rule::UnknownAdomain => "unknown_adomain",
            Rule::UnknownBundle => "unknown_bundle",
            Rule::CategoryTaxonomy => "category_taxonomy",
            Rule::BlockedCategory => "blocked_category",
            Rule::Seat => "seat",
            Rule::Dsa => "dsa",
            Rule::Group => "group",
            Rule::DuplicateIdAcrossBidders => "duplicate_id_across_bidders",
        }
    }

    /// The seat-non-bid status code of a bid this rule rejects, from the extension's "List: Non Bid Status Codes"
    /// (openrtb `extensions/community_extensions/seat-non-bid.md`), all "Response Rejected - …": 300 General, 301
    /// Below Floor, 302 Duplicate, 303 Category Mapping Invalid, 304 Below Deal Floor, 350 Invalid Creative, 351
    /// Invalid Creative (Size Not Allowed), 352 (Not Secure), 353 (Incorrect Format), 356 (Advertiser Blocked),
    /// 357 (Category Exclusion).
    pub fn statuscode(self) -> u16 {
        match self {
            Rule::UnknownImp
            | Rule::InvalidBid
            | Rule::Currency
            | Rule::FloorRate
            | Rule::Deal
            | Rule::Seat
            | Rule::Dsa
            | Rule::Group => 300,
            Rule::Floor => 301,
            Rule::DuplicateId | Rule::DuplicateIdAcrossBidders => 302,
            Rule::CategoryTaxonomy => 303,
            Rule::DealFloor => 304,
            Rule::Creative | Rule::BlockedAttribute | Rule::Duration | Rule::VideoFormat => 350,
            Rule::Size => 351,
            Rule::Secure => 352,
            Rule::Mtype | Rule::MediaType => 353,
            Rule::BlockedAdvertiser | Rule::UnknownAdomain | Rule::UnknownBundle => 356,
            Rule::BlockedCategory => 357,
        }
    }

    /// The action of the rule when the configuration names none: `enforce`, but `skip` for the rules that
    /// need an exchange's opt-in (`unknown_adomain`, `unknown_bundle`), as Prebid Server's defaults are, and
    /// `warn` for `duplicate_id_across_bidders` (bid ids are each bidder's own, so two bidders' ids may
    /// legitimately collide).
    pub fn default_action(self) -> Action {
        match self {
            Rule::UnknownAdomain | Rule::UnknownBundle => Action::Skip,
            Rule::DuplicateIdAcrossBidders => Action::Warn,
            _ => Action::Enforce,
        }
    }

    /// The rule with configuration name `name`.
    pub fn from_name(name: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.name() == name)
    }
}

/// The rule that claims an issue decode or the markup inspection reported on a bid, so that every error on a
/// bid rejects it: for an error, markup findings are `creative`'s, `invalid_mtype` is `mtype`'s, a repeated id
/// `duplicate_id`'s, and every other error (`missing_crid`, `zero_price`, `invalid_type`, …) the general rule
/// `invalid_bid`'s. Two warnings of `/decode` also decide here: a member given twice (`duplicate_field`: which
/// value the exchange's own reader keeps is unknown, so the bid is not judged on either; `invalid_bid`) and native
/// markup without its required `link` (`native_missing_link`, Native 1.2 §5.1; `creative`). Other warnings: none.
pub(super) fn rule_of(issue: &Issue) -> Option<Rule> {
    match (issue.severity, issue.code) {
        (Severity::Error, code) => Some(claiming(code)),
        (Severity::Warning, "duplicate_field") => Some(Rule::InvalidBid),
        (Severity::Warning, "native_missing_link") => Some(Rule::Creative),
        (Severity::Warning, _) => None,
    }
}

/// The rule that claims an error, by its code (see [`rule_of`]).
fn claiming(code: &str) -> Rule {
    match code {
        "missing_markup" | "vast_malformed" | "native_malformed" => Rule::Creative,
        "invalid_mtype" => Rule::Mtype,
        "duplicate_bid_id" => Rule::DuplicateId,
        _ => Rule::InvalidBid,
    }
}
