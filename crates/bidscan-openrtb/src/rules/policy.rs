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
    /// A finding is reported (severity error) and rejects the bid. The default.
    #[default]
    Enforce,
}

/// One [`Action`] per rule (`skip | warn | enforce`, default `enforce`) and the floor-conversion [`Rates`]: the
/// `[validate]` section of the server's configuration. Member names are [`Rule::name`]s.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Policy {
    /// Rule `unknown_imp` (300).
    pub unknown_imp: Action,
    /// Rule `invalid_bid` (300).
    pub invalid_bid: Action,
    /// Rule `currency` (300).
    pub currency: Action,
    /// Rule `floor` (301).
    pub floor: Action,
    /// Rule `duplicate_id` (302).
    pub duplicate_id: Action,
    /// Rule `deal` (304).
    pub deal: Action,
    /// Rule `blocked_attribute` (350).
    pub blocked_attribute: Action,
    /// Rule `duration` (350).
    pub duration: Action,
    /// Rule `size` (351).
    pub size: Action,
    /// Rule `secure` (352).
    pub secure: Action,
    /// Rule `media_type` (353).
    pub media_type: Action,
    /// Rule `blocked_advertiser` (356).
    pub blocked_advertiser: Action,
    /// Rule `blocked_category` (357).
    pub blocked_category: Action,
    /// Rule `group` (300).
    pub group: Action,
    /// Rates for comparing a price with a floor in another currency.
    pub rates: Rates,
}

impl Policy {
    /// The action configured for `rule`.
    pub fn action(&self, rule: Rule) -> Action {
        match rule {
            Rule::UnknownImp => self.unknown_imp,
            Rule::InvalidBid => self.invalid_bid,
            Rule::Currency => self.currency,
            Rule::Floor => self.floor,
            Rule::DuplicateId => self.duplicate_id,
            Rule::Deal => self.deal,
            Rule::BlockedAttribute => self.blocked_attribute,
            Rule::Duration => self.duration,
            Rule::Size => self.size,
            Rule::Secure => self.secure,
            Rule::MediaType => self.media_type,
            Rule::BlockedAdvertiser => self.blocked_advertiser,
            Rule::BlockedCategory => self.blocked_category,
            Rule::Group => self.group,
        }
    }

    /// A policy with every rule at `action` (and no rates).
    pub fn all(action: Action) -> Policy {
        let mut p = Policy::default();
        for rule in Rule::ALL {
            *p.action_mut(rule) = action;
        }
        p
    }

    /// The action of `rule`, to change it.
    pub fn action_mut(&mut self, rule: Rule) -> &mut Action {
        match rule {
            Rule::UnknownImp => &mut self.unknown_imp,
            Rule::InvalidBid => &mut self.invalid_bid,
            Rule::Currency => &mut self.currency,
            Rule::Floor => &mut self.floor,
            Rule::DuplicateId => &mut self.duplicate_id,
            Rule::Deal => &mut self.deal,
            Rule::BlockedAttribute => &mut self.blocked_attribute,
            Rule::Duration => &mut self.duration,
            Rule::Size => &mut self.size,
            Rule::Secure => &mut self.secure,
            Rule::MediaType => &mut self.media_type,
            Rule::BlockedAdvertiser => &mut self.blocked_advertiser,
            Rule::BlockedCategory => &mut self.blocked_category,
            Rule::Group => &mut self.group,
        }
    }
}

/// Currency rates as `FROM → TO → rate`: 1 unit of `FROM` is `rate` units of `TO` (the shape of prebid-server's
/// currency `conversions` file). A rate given one way is used the other way as its inverse. In TOML:
/// `[validate.rates.USD]` then `EUR = 0.92`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Rates(pub BTreeMap<String, BTreeMap<String, f64>>);

impl Rates {
    /// `amount` of `from` in `to` (ISO-4217 codes, compared exactly), or `None` when no rate links them.
    pub fn convert(&self, amount: f64, from: &str, to: &str) -> Option<f64> {
        if from == to {
            return Some(amount);
        }
        let rate = |a: &str, b: &str| self.0.get(a).and_then(|m| m.get(b)).copied();
        rate(from, to)
            .map(|r| amount * r)
            .or_else(|| rate(to, from).map(|r| amount / r))
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
                if !(rate.is_finite() && *rate > 0.0) {
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
        // A self-rate other than 1 would be ignored by `convert` (tester A, session 19): refused.
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
            let mut p = Policy::default();
            *p.action_mut(rule) = Action::Skip;
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
}
