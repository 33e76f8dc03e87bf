//! [`Rule`]: the rule table of [`super`] (names, order, seat-non-bid status codes, sources). A leaf.

use serde::Serialize;

/// A response-validation rule (see the table in the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// `impid` not an `imp.id` of the request (300).
    UnknownImp,
    /// Missing or invalid price, id, impid, currency (decode's own rules, 300).
    InvalidBid,
    /// Response currency not allowed by the request (300).
    Currency,
    /// Price below the imp's floor (301).
    Floor,
    /// A bid id used twice (302).
    DuplicateId,
    /// Deal unknown, required, or its floor not met (304).
    Deal,
    /// A creative attribute the slot blocks (350).
    BlockedAttribute,
    /// Video/audio duration outside the slot's range (350).
    Duration,
    /// Banner size not allowed (351).
    Size,
    /// Insecure URL on a secure impression (352).
    Secure,
    /// Media type not offered, or markup of another kind (353).
    MediaType,
    /// Advertiser domain or app blocked (356).
    BlockedAdvertiser,
    /// Category blocked (357).
    BlockedCategory,
    /// Another bid of a seat that bids as a group (`seatbid.group` = 1) was rejected (300).
    Group,
}

impl Rule {
    /// Every rule, in the order they are applied.
    pub const ALL: [Rule; 14] = [
        Rule::UnknownImp,
        Rule::InvalidBid,
        Rule::Currency,
        Rule::Floor,
        Rule::DuplicateId,
        Rule::Deal,
        Rule::BlockedAttribute,
        Rule::Duration,
        Rule::Size,
        Rule::Secure,
        Rule::MediaType,
        Rule::BlockedAdvertiser,
        Rule::BlockedCategory,
        Rule::Group,
    ];

    /// The rule's name in configuration and metrics, e.g. `"floor"`.
    pub fn name(self) -> &'static str {
        match self {
            Rule::UnknownImp => "unknown_imp",
            Rule::InvalidBid => "invalid_bid",
            Rule::Currency => "currency",
            Rule::Floor => "floor",
            Rule::DuplicateId => "duplicate_id",
            Rule::Deal => "deal",
            Rule::BlockedAttribute => "blocked_attribute",
            Rule::Duration => "duration",
            Rule::Size => "size",
            Rule::Secure => "secure",
            Rule::MediaType => "media_type",
            Rule::BlockedAdvertiser => "blocked_advertiser",
            Rule::BlockedCategory => "blocked_category",
            Rule::Group => "group",
        }
    }

    /// The seat-non-bid status code of a bid this rule rejects, from the extension's "List: Non-Bid Status
    /// Codes": 300 Response Rejected (general), 301 below floor, 350 Creative Filtered (general), 351 size not
    /// allowed, 352 not secure, 353 incorrect creative format, 356 advertiser blocked, 357 category blocked; 302
    /// (duplicate bid id) and 304 (deal) as issue 14 assigns them.
    pub fn statuscode(self) -> u16 {
        match self {
            Rule::UnknownImp | Rule::InvalidBid | Rule::Currency | Rule::Group => 300,
            Rule::Floor => 301,
            Rule::DuplicateId => 302,
            Rule::Deal => 304,
            Rule::BlockedAttribute | Rule::Duration => 350,
            Rule::Size => 351,
            Rule::Secure => 352,
            Rule::MediaType => 353,
            Rule::BlockedAdvertiser => 356,
            Rule::BlockedCategory => 357,
        }
    }

    /// The rule behind one of decode's own findings (see [`validate`](crate::checks)), if one.
    pub(super) fn of_decode_finding(code: &str) -> Option<Rule> {
        match code {
            "missing_id" | "missing_impid" | "missing_price" | "price_not_finite"
            | "negative_price" | "invalid_currency" => Some(Rule::InvalidBid),
            "duplicate_bid_id" => Some(Rule::DuplicateId),
            _ => None,
        }
    }
}
