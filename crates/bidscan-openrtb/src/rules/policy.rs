//! What to do with each rule ([`Policy`], [`Action`]) and the currency rates floors are converted with
//! ([`Rates`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::table::Rule;

/// What a rule's finding does to the bid.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// The rule is not checked.
    Skip,
    /// A finding is reported (severity warning, with its status code); the bid stays accepted.
    Warn,
    /// A finding is reported (severity error) and rejects the bid. The default of most rules
    /// ([`Rule::default_action`]).
    #[default]
    Enforce,
}

fn skip() -> Action {
    Action::Skip
}

fn warn() -> Action {
    Action::Warn
}

/// One [`Action`] per rule (`skip | warn | enforce`; defaults from [`Rule::default_action`]), the floor-conversion
/// [`Rates`] and whether a non-bid keeps its markup: the `[validate]` section of the server's configuration, and
/// each of its profiles. Member names are [`Rule::name`]s.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Policy {
    /// Rule `unknown_imp` (300).
    pub unknown_imp: Action,
    /// Rule `creative` (350).
    pub creative: Action,
    /// Rule `mtype` (353).
    pub mtype: Action,
    /// Rule `invalid_bid` (300).
    pub invalid_bid: Action,
    /// Rule `currency` (300).
    pub currency: Action,
    /// Rule `floor` (301).
    pub floor: Action,
    /// Rule `floor_rate` (300).
    pub floor_rate: Action,
    /// Rule `duplicate_id` (302).
    pub duplicate_id: Action,
    /// Rule `deal` (300).
    pub deal: Action,
    /// Rule `deal_floor` (304); absent: the action of `deal`, so an existing `deal = "warn"` sets both.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deal_floor: Option<Action>,
    /// Rule `blocked_attribute` (350).
    pub blocked_attribute: Action,
    /// Rule `duration` (350).
    pub duration: Action,
    /// Rule `video_format` (350).
    pub video_format: Action,
    /// Rule `size` (351).
    pub size: Action,
    /// Rule `secure` (352).
    pub secure: Action,
    /// Rule `media_type` (353).
    pub media_type: Action,
    /// Rule `blocked_advertiser` (356).
    pub blocked_advertiser: Action,
    /// Rule `unknown_adomain` (356); `skip` unless configured.
    #[serde(default = "skip")]
    pub unknown_adomain: Action,
    /// Rule `unknown_bundle` (356); `skip` unless configured.
    #[serde(default = "skip")]
    pub unknown_bundle: Action,
    /// Rule `category_taxonomy` (303).
    pub category_taxonomy: Action,
    /// Rule `blocked_category` (357).
    pub blocked_category: Action,
    /// Rule `seat` (300).
    pub seat: Action,
    /// Rule `dsa` (300).
    pub dsa: Action,
    /// Rule `group` (300).
    pub group: Action,
    /// Rule `duplicate_id_across_bidders` (302), applied by an [`Auction`](crate::Auction); `warn`
    /// unless configured.
    #[serde(default = "warn")]
    pub duplicate_id_across_bidders: Action,
    /// Rates for comparing a price with a floor in another currency.
    pub rates: Rates,
    /// `true`: a `seatnonbid` entry's bid keeps its `adm`; `false` (the default): the markup is left out, as
    /// Prebid Server trims it.
    pub nonbid_markup: bool,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy {
            unknown_imp: Rule::UnknownImp.default_action(),
            creative: Rule::Creative.default_action(),
            mtype: Rule::Mtype.default_action(),
            invalid_bid: Rule::InvalidBid.default_action(),
            currency: Rule::Currency.default_action(),
            floor: Rule::Floor.default_action(),
            floor_rate: Rule::FloorRate.default_action(),
            duplicate_id: Rule::DuplicateId.default_action(),
            deal: Rule::Deal.default_action(),
            blocked_attribute: Rule::BlockedAttribute.default_action(),
            duration: Rule::Duration.default_action(),
            video_format: Rule::VideoFormat.default_action(),
            size: Rule::Size.default_action(),
            secure: Rule::Secure.default_action(),
            media_type: Rule::MediaType.default_action(),
            blocked_advertiser: Rule::BlockedAdvertiser.default_action(),
            unknown_adomain: Rule::UnknownAdomain.default_action(),
            unknown_bundle: Rule::UnknownBundle.default_action(),
            category_taxonomy: Rule::CategoryTaxonomy.default_action(),
            blocked_category: Rule::BlockedCategory.default_action(),
            seat: Rule::Seat.default_action(),
            dsa: Rule::Dsa.default_action(),
            group: Rule::Group.default_action(),
            duplicate_id_across_bidders: Rule::DuplicateIdAcrossBidders.default_action(),
            deal_floor: None,
            rates: Rates::default(),
            nonbid_markup: false,
        }
    }
}

impl Policy {
    /// The action configured for `rule`.
    pub fn action(&self, rule: Rule) -> Action {
        match rule {
            Rule::DealFloor => self.deal_floor.unwrap_or(self.deal),
            Rule::UnknownImp => self.unknown_imp,
            Rule::Creative => self.creative,
            Rule::Mtype => self.mtype,
            Rule::InvalidBid => self.invalid_bid,
            Rule::Currency => self.currency,
            Rule::Floor => self.floor,
            Rule::FloorRate => self.floor_rate,
            Rule::DuplicateId => self.duplicate_id,
            Rule::Deal => self.deal,
            Rule::BlockedAttribute => self.blocked_attribute,
            Rule::Duration => self.duration,
            Rule::VideoFormat => self.video_format,
            Rule::Size => self.size,
            Rule::Secure => self.secure,
            Rule::MediaType => self.media_type,
            Rule::BlockedAdvertiser => self.blocked_advertiser,
            Rule::UnknownAdomain => self.unknown_adomain,
            Rule::UnknownBundle => self.unknown_bundle,
            Rule::CategoryTaxonomy => self.category_taxonomy,
            Rule::BlockedCategory => self.blocked_category,
            Rule::Seat => self.seat,
            Rule::Dsa => self.dsa,
            Rule::Group => self.group,
            Rule::DuplicateIdAcrossBidders => self.duplicate_id_across_bidders,
        }
    }

    /// A policy with every rule at `action` (and no rates).
    pub fn all(action: Action) -> Policy {
        let mut p = Policy::default();
        for rule in Rule::ALL {
            p.set(rule, action);
        }
        p
    }

    /// Sets the action of `rule`.
    pub fn set(&mut self, rule: Rule, action: Action) {
        let slot = match rule {
            Rule::DealFloor => {
                self.deal_floor = Some(action);
                return;
            }
            Rule::UnknownImp => &mut self.unknown_imp,
            Rule::Creative => &mut self.creative,
            Rule::Mtype => &mut self.mtype,
            Rule::InvalidBid => &mut self.invalid_bid,
            Rule::Currency => &mut self.currency,
            Rule::Floor => &mut self.floor,
            Rule::FloorRate => &mut self.floor_rate,
            Rule::DuplicateId => &mut self.duplicate_id,
            Rule::Deal => &mut self.deal,
            Rule::BlockedAttribute => &mut self.blocked_attribute,
            Rule::Duration => &mut self.duration,
            Rule::VideoFormat => &mut self.video_format,
            Rule::Size => &mut self.size,
            Rule::Secure => &mut self.secure,
            Rule::MediaType => &mut self.media_type,
            Rule::BlockedAdvertiser => &mut self.blocked_advertiser,
            Rule::UnknownAdomain => &mut self.unknown_adomain,
            Rule::UnknownBundle => &mut self.unknown_bundle,
            Rule::CategoryTaxonomy => &mut self.category_taxonomy,
            Rule::BlockedCategory => &mut self.blocked_category,
            Rule::Seat => &mut self.seat,
            Rule::Dsa => &mut self.dsa,
            Rule::Group => &mut self.group,
            Rule::DuplicateIdAcrossBidders => &mut self.duplicate_id_across_bidders,
        };
        *slot = action;
    }
}

/// Currency rates as `FROM → TO → rate`: 1 unit of `FROM` is `rate` units of `TO` (the shape of prebid-server's
/// currency `conversions` file). A rate given one way is used the other way as its inverse. In TOML:
/// `[validate.rates.USD]` then `EUR = 0.92`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Rates(pub BTreeMap<String, BTreeMap<String, f64>>);

impl Rates {
    /// `amount` of `from` in `to` (ISO-4217 codes, compared exactly), or `None` when no rate links them. A
    /// direct rate (either way) is used first; else a cross rate through USD, then through each other currency
    /// of the table in code order, as Prebid Server's currency converter does.
    pub fn convert(&self, amount: f64, from: &str, to: &str) -> Option<f64> {
        if from == to {
            return Some(amount);
        }
        if let Some(r) = self.rate(from, to) {
            return Some(amount * r).filter(|a| a.is_finite());
        }
        let cross = |via: &str| {
            if via == from || via == to {
                return None;
            }
            Some(amount * self.rate(from, via)? * self.rate(via, to)?)
        };
        cross("USD")
            .or_else(|| self.codes().into_iter().find_map(cross))
            .filter(|a| a.is_finite())
    }

    /// The direct rate `from` → `to`: as given, or the inverse of `to` → `from`.
    fn rate(&self, from: &str, to: &str) -> Option<f64> {
        let given = |a: &str, b: &str| self.0.get(a).and_then(|m| m.get(b)).copied();
        given(from, to).or_else(|| given(to, from).map(|r| 1.0 / r))
    }

    /// Every currency code of the table, in code order.
    fn codes(&self) -> std::collections::BTreeSet<&str> {
        self.0
            .iter()
            .flat_map(|(from, to)| {
                std::iter::once(from.as_str()).chain(to.keys().map(String::as_str))
            })
            .collect()
    }

    /// These rates with `over`'s laid over them: a pair `over` gives wins (the server lays the configured
    /// `[validate.rates]` over a rates source's).
    pub fn overlaid_with(&self, over: &Rates) -> Rates {
        let mut all = self.clone();
        for (from, to) in &over.0 {
            all.0
                .entry(from.clone())
                .or_default()
                .extend(to.iter().map(|(k, v)| (k.clone(), *v)));
        }
        all
    }

    /// Whether the table holds no rate.
    pub fn is_empty(&self) -> bool {
        self.0.values().all(BTreeMap::is_empty)
    }

    /// The same rates with every code upper-cased (a code given in two cases keeps the lower-case one's rate, so
    /// an environment override wins over the file's upper-case key). A
    /// configuration's environment variable names arrive lower-cased (figment's `Env`: `BIDSCAN__VALIDATE__RATES__
    /// USD__EUR` is `usd.eur`), and ISO 4217 alpha codes are upper case, so the server applies this before [`check`](Self::check).
    pub fn with_upper_case_codes(self) -> Rates {
        Rates(
            self.0
                .into_iter()
                .map(|(from, to)| {
                    let to = to
                        .into_iter()
                        .map(|(code, rate)| (code.to_ascii_uppercase(), rate))
                        .collect::<BTreeMap<_, _>>();
                    (from.to_ascii_uppercase(), to)
                })
                .fold(BTreeMap::new(), |mut all, (from, to)| {
                    all.entry(from).or_insert_with(BTreeMap::new).extend(to);
                    all
                }),
        )
    }

    /// Every rate is finite and > 0 (1 from a currency to itself), and every code three uppercase letters;
    /// otherwise which one is not.
    pub fn check(&self) -> Result<(), String> {
        for (from, to) in &self.0 {
            for (code, rate) in to {
                for c in [from, code] {
                    if !crate::checks::is_currency_code(c) {
                        return Err(format!(
                            "validate.rates: {c:?} is not an ISO 4217 alpha code"
                        ));
                    }
                }
                // Normal and with a normal inverse: a subnormal rate (1e-320) has an infinite inverse, which would
                // make any floor converted the other way infinite or zero.
                if !(rate.is_normal() && *rate > 0.0 && (1.0 / rate).is_normal()) {
                    return Err(format!(
                        "validate.rates.{from}.{code} = {rate} is not a positive rate"
                    ));
                }
                // A currency converts to itself at 1 (`convert`); another self-rate would be ignored silently.
                if from == code && *rate != 1.0 {
                    return Err(format!(
                        "validate.rates.{from}.{code} = {rate}: a currency's rate to itself is 1"
                    ));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_convert_both_ways_and_check() {
        let mut rates = Rates::default();
        rates
            .0
            .entry("USD".into())
            .or_default()
            .insert("EUR".into(), 0.5);
        assert_eq!(rates.convert(2.0, "USD", "EUR"), Some(1.0));
        assert_eq!(rates.convert(1.0, "EUR", "USD"), Some(2.0));
        assert_eq!(rates.convert(1.0, "EUR", "EUR"), Some(1.0));
        assert_eq!(rates.convert(1.0, "GBP", "USD"), None);
        // Cross rates: through USD first, then through other codes in order.
        let mut cross = rates.clone();
        cross
            .0
            .entry("GBP".into())
            .or_default()
            .insert("USD".into(), 1.25);
        cross
            .0
            .entry("JPY".into())
            .or_default()
            .insert("CHF".into(), 0.01);
        cross
            .0
            .entry("CHF".into())
            .or_default()
            .insert("EUR".into(), 1.0);
        assert_eq!(cross.convert(1.0, "GBP", "EUR"), Some(1.25 * 0.5));
        assert_eq!(cross.convert(100.0, "JPY", "EUR"), Some(1.0));
        assert_eq!(cross.convert(1.0, "JPY", "GBP"), None);
        // A pair of the overlay wins over the base's.
        let mut over = Rates::default();
        over.0
            .entry("EUR".into())
            .or_default()
            .insert("USD".into(), 4.0);
        let both = cross.overlaid_with(&over);
        assert_eq!(both.convert(1.0, "EUR", "USD"), Some(4.0));
        assert_eq!(both.convert(1.0, "GBP", "USD"), Some(1.25));
        assert!(rates.check().is_ok());
        rates
            .0
            .entry("usd".into())
            .or_default()
            .insert("EUR".into(), 1.0);
        assert!(rates.check().is_err());
        let mut bad = Rates::default();
        bad.0
            .entry("USD".into())
            .or_default()
            .insert("EUR".into(), 0.0);
        assert!(bad.check().unwrap_err().contains("not a positive rate"));
        for tiny in [1e-320, f64::MIN_POSITIVE / 2.0, f64::MAX] {
            let mut bad = Rates::default();
            bad.0
                .entry("USD".into())
                .or_default()
                .insert("EUR".into(), tiny);
            assert!(bad.check().is_err(), "{tiny}");
        }
        // A self-rate other than 1 would be ignored by `convert`: refused.
        let mut own = Rates::default();
        own.0
            .entry("USD".into())
            .or_default()
            .insert("USD".into(), 2.0);
        assert!(own.check().unwrap_err().contains("rate to itself is 1"));
        own.0
            .entry("USD".into())
            .or_default()
            .insert("USD".into(), 1.0);
        assert!(own.check().is_ok());
    }

    #[test]
    fn every_rule_has_its_own_action() {
        for rule in Rule::ALL {
            let mut p = Policy::all(Action::Enforce);
            p.set(rule, Action::Skip);
            let skipped: Vec<Rule> = Rule::ALL
                .into_iter()
                .filter(|r| p.action(*r) == Action::Skip)
                .collect();
            assert_eq!(skipped, vec![rule]);
        }
        assert!(
            Rule::ALL
                .iter()
                .all(|r| Policy::all(Action::Warn).action(*r) == Action::Warn)
        );
    }

    #[test]
    fn defaults_and_deal_floor_following_deal() {
        let p = Policy::default();
        for rule in Rule::ALL {
            assert_eq!(p.action(rule), rule.default_action(), "{rule:?}");
        }
        assert_eq!(p.action(Rule::UnknownAdomain), Action::Skip);
        let warned: Policy = serde_json::from_str(r#"{"deal":"warn"}"#).unwrap();
        assert_eq!(warned.action(Rule::DealFloor), Action::Warn);
        let split: Policy =
            serde_json::from_str(r#"{"deal":"warn","deal_floor":"enforce"}"#).unwrap();
        assert_eq!(split.action(Rule::DealFloor), Action::Enforce);
        assert_eq!(split.action(Rule::Deal), Action::Warn);
        let skipped: Policy = serde_json::from_str(r#"{"unknown_adomain":"enforce"}"#).unwrap();
        assert_eq!(skipped.action(Rule::UnknownAdomain), Action::Enforce);
        assert_eq!(skipped.action(Rule::UnknownBundle), Action::Skip);
    }
}
