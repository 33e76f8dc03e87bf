//! The gate's state: the policies `/validate` judges under, as they are in force now.
//!
//! - [`Gate`]: the effective policies — the base and one per profile — each with its rates already laid out
//!   (the rates source's, then the configured `[validate.rates]` over them, then a profile's own pairs), so a
//!   request reads them and computes nothing. Rebuilt whole, never changed in place.
//! - [`SharedGate`]: the `ArcSwap` the engine reads: **one atomic load per request** (`Gate::select` on the
//!   loaded gate), no lock on the request path; a rebuild stores a new `Gate` and requests already judging keep
//!   the one they loaded.
//! - [`Live`] (`live.rs`): what rebuilds it — the configured `[validate]` section, the rates source's last good
//!   rates — on a successful fetch, when those rates go stale, and on reload (`crate::config::reload`); `refresh.rs`
//!   runs the source's fetch schedule, `fetch.rs` reads the source (a file or an HTTP(S) URL in Prebid Server's
//!   currency-file format).
//! - `config.rs`: `[validate]` as configured ([`ValidateConfig`]): base policy, profiles, source settings.

pub mod config;
pub mod fetch;
mod live;
mod refresh;

use std::collections::HashMap;
use std::sync::Arc;

use arc_swap::ArcSwap;
use bidscan_openrtb::rules::{Policy, Rates};

pub use config::ValidateConfig;
pub use live::Live;

use crate::error::{ApiError, ErrorCode};

/// The gate as the engine reads it: swapped whole by [`Live`], loaded once per request.
pub type SharedGate = Arc<ArcSwap<Gate>>;

/// The effective policies: the base and each profile's, rates laid out.
#[derive(Debug, Default)]
pub struct Gate {
    base: Arc<Policy>,
    profiles: HashMap<String, Arc<Policy>>,
}

impl Gate {
    /// The gate of `config` with `source` rates (`None`: none, or stale): each policy's rates are the source's
    /// with the configured ones laid over them (the configuration wins for a pair both give).
    pub fn build(config: &ValidateConfig, source: Option<&Rates>) -> Gate {
        let effective = |policy: &Policy| {
            let mut policy = policy.clone();
            if let Some(source) = source {
                policy.rates = source.overlaid_with(&policy.rates);
            }
            Arc::new(policy)
        };
        Gate {
            base: effective(&config.base),
            profiles: config
                .profiles
                .iter()
                .map(|(name, policy)| (name.clone(), effective(policy)))
                .collect(),
        }
    }

    /// The policy of a request without `?profile=`.
    pub fn base(&self) -> &Arc<Policy> {
        &self.base
    }

    /// The configured profile names, sorted.
    pub fn profile_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.profiles.keys().map(String::as_str).collect();
        names.sort_unstable();
        names
    }

    /// The policy a request naming `profile` (or none) is judged under.
    ///
    /// # Errors
    /// 400 `unknown_profile` when `profile` names no configured profile.
    pub fn select(&self, profile: Option<&str>) -> Result<Arc<Policy>, ApiError> {
        match profile {
            None => Ok(self.base.clone()),
            Some(name) => self
                .profiles
                .get(name)
                .cloned()
                .ok_or_else(|| unknown_profile(name)),
        }
    }
}

/// 400 `unknown_profile` for `name` (quoted, at most 64 characters of it).
fn unknown_profile(name: &str) -> ApiError {
    let shown: String = name.chars().take(config::MAX_PROFILE_NAME).collect();
    let more = if shown.len() < name.len() { "…" } else { "" };
    ApiError::new(
        ErrorCode::UnknownProfile,
        format!("no profile {shown:?}{more} in validate.profiles"),
    )
}

/// A [`SharedGate`] holding `gate`.
pub fn shared(gate: Gate) -> SharedGate {
    Arc::new(ArcSwap::from_pointee(gate))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bidscan_openrtb::rules::{Action, Rule};

    #[test]
    fn configured_rates_win_over_the_source_and_profiles_are_selected() {
        let mut config = ValidateConfig::default();
        config
            .base
            .rates
            .0
            .entry("USD".into())
            .or_default()
            .insert("EUR".into(), 0.5);
        let mut acme = config.base.clone();
        acme.set(Rule::Floor, Action::Warn);
        config.profiles.insert("acme".into(), acme);
        let mut source = Rates::default();
        source
            .0
            .entry("USD".into())
            .or_default()
            .insert("EUR".into(), 0.9);
        source
            .0
            .entry("USD".into())
            .or_default()
            .insert("JPY".into(), 150.0);
        let gate = Gate::build(&config, Some(&source));
        assert_eq!(gate.base().rates.convert(1.0, "USD", "EUR"), Some(0.5));
        assert_eq!(gate.base().rates.convert(1.0, "USD", "JPY"), Some(150.0));
        let acme = gate.select(Some("acme")).unwrap();
        assert_eq!(acme.action(Rule::Floor), Action::Warn);
        assert_eq!(acme.rates.convert(1.0, "USD", "JPY"), Some(150.0));
        assert!(Arc::ptr_eq(&gate.select(None).unwrap(), gate.base()));
        let e = gate.select(Some("nope")).unwrap_err();
        assert_eq!(e.code, ErrorCode::UnknownProfile);
        let without = Gate::build(&config, None);
        assert_eq!(without.base().rates.convert(1.0, "USD", "JPY"), None);
        assert_eq!(without.profile_names(), vec!["acme"]);
    }
}
