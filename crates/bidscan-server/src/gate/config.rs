//! `[validate]` of the configuration as the server reads it ([`ValidateConfig`]): the base policy
//! (`bidscan_openrtb::rules::Policy`'s keys), its profiles (`[validate.profiles.NAME]`) and the rates source's
//! settings (`rates_source`, `rates_*`). A leaf: imports nothing of the crate.
//!
//! `Policy` refuses unknown keys, and serde's `flatten` cannot be combined with that, so the section is read as
//! a table first: the server's own keys are taken out, the rest is the base policy (its unknown keys still
//! refused by `Policy` itself), and each profile is the base's table with the profile's keys laid over it, read
//! as a `Policy` again. So a profile may set any key the base may (a rule, `nonbid_markup`, `rates`), a key it
//! does not give keeps the base's value, and a misspelt key in a profile is an error too.

use std::collections::BTreeMap;
use std::time::Duration;

use bidscan_openrtb::rules::{Policy, Rates};
use figment::value::{Dict, Value};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Longest a profile name may be, in bytes.
pub const MAX_PROFILE_NAME: usize = 64;

/// The longest `rates_*_secs` accepted, in seconds: one day (as every other `*_secs` of the configuration).
pub const MAX_RATES_SECS: u64 = 86_400;

/// The largest `rates_max_bytes` accepted: 1 GiB (the file is held in memory while it is read).
pub const MAX_RATES_BYTES: usize = 1 << 30;

/// `[validate]`: the policies `/validate` judges under and where their rates come from.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ValidateConfig {
    /// The policy a request without `?profile=` is judged under; its `rates` are the configured
    /// `[validate.rates]`, codes upper-cased.
    pub base: Policy,
    /// `[validate.profiles.NAME]`: each the base with the profile's keys laid over it (`rates` pair by pair:
    /// the base's rates with the profile's pairs winning), by name.
    pub profiles: BTreeMap<String, Policy>,
    /// Where rates come from besides the configuration, and how often.
    pub source: SourceConfig,
}

/// The rates source's settings: `validate.rates_source` and `validate.rates_*`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceConfig {
    /// A file path or an `http://` / `https://` URL of a currency file in Prebid Server's format
    /// (`{"dataAsOf", "generatedAt", "conversions": {FROM: {TO: rate}}}`); empty: no source.
    #[serde(default)]
    pub rates_source: String,
    /// Seconds between two fetches (default 1800).
    #[serde(default = "default_refresh")]
    pub rates_refresh_secs: u64,
    /// Seconds one fetch may take, connection and body included (default 5).
    #[serde(default = "default_timeout")]
    pub rates_timeout_secs: u64,
    /// Largest body accepted, in bytes (default 1 MiB).
    #[serde(default = "default_max_bytes")]
    pub rates_max_bytes: usize,
    /// Seconds after the last successful fetch past which the source's rates are stale and dropped (default
    /// 86400).
    #[serde(default = "default_max_age")]
    pub rates_max_age_secs: u64,
}

fn default_refresh() -> u64 {
    1800
}
fn default_timeout() -> u64 {
    5
}
fn default_max_bytes() -> usize {
    1 << 20
}
fn default_max_age() -> u64 {
    86_400
}

impl Default for SourceConfig {
    fn default() -> SourceConfig {
        SourceConfig {
            rates_source: String::new(),
            rates_refresh_secs: default_refresh(),
            rates_timeout_secs: default_timeout(),
            rates_max_bytes: default_max_bytes(),
            rates_max_age_secs: default_max_age(),
        }
    }
}

/// Where a rates source is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceLocation {
    /// A file, read whole at each refresh.
    File(std::path::PathBuf),
    /// An `http://` or `https://` URL, fetched with a GET at each refresh.
    Url(hyper::Uri),
}

impl std::fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SourceLocation::File(path) => write!(f, "{}", path.display()),
            SourceLocation::Url(uri) => write!(f, "{uri}"),
        }
    }
}

impl SourceConfig {
    /// The source's location, `None` when `rates_source` is empty.
    ///
    /// # Errors
    /// A value with a scheme other than `http` or `https`, or a URL that does not parse.
    pub fn location(&self) -> Result<Option<SourceLocation>, String> {
        let s = self.rates_source.trim();
        if s.is_empty() {
            return Ok(None);
        }
        let lower = s.get(..8).unwrap_or(s).to_ascii_lowercase();
        if lower.starts_with("http://") || lower.starts_with("https://") {
            let uri: hyper::Uri = s
                .parse()
                .map_err(|e| format!("validate.rates_source {s:?} is not a URL: {e}"))?;
            if uri.host().is_none_or(str::is_empty) {
                return Err(format!("validate.rates_source {s:?} has no host"));
            }
            return Ok(Some(SourceLocation::Url(uri)));
        }
        if s.contains("://") {
            return Err(format!(
                "validate.rates_source {s:?} is neither a file path nor an http:// or https:// URL"
            ));
        }
        Ok(Some(SourceLocation::File(s.into())))
    }

    /// Time between two fetches.
    pub fn refresh(&self) -> Duration {
        Duration::from_secs(self.rates_refresh_secs)
    }

    /// Time one fetch may take.
    pub fn timeout(&self) -> Duration {
        Duration::from_secs(self.rates_timeout_secs)
    }

    /// Age past which the source's rates are dropped.
    pub fn max_age(&self) -> Duration {
        Duration::from_secs(self.rates_max_age_secs)
    }

    /// Positive and bounded values, a usable location.
    fn check(&self) -> Result<(), String> {
        for (key, value, max) in [
            (
                "rates_refresh_secs",
                self.rates_refresh_secs,
                MAX_RATES_SECS,
            ),
            (
                "rates_timeout_secs",
                self.rates_timeout_secs,
                MAX_RATES_SECS,
            ),
            (
                "rates_max_age_secs",
                self.rates_max_age_secs,
                MAX_RATES_SECS,
            ),
            (
                "rates_max_bytes",
                self.rates_max_bytes as u64,
                MAX_RATES_BYTES as u64,
            ),
        ] {
            if value == 0 {
                return Err(format!("validate.{key} must be greater than 0"));
            }
            if value > max {
                return Err(format!("validate.{key} must be at most {max}, got {value}"));
            }
        }
        self.location().map(drop)
    }
}

impl ValidateConfig {
    /// Checks what types cannot: every policy's rates (base and profiles; see `Rates::check`), and the source's
    /// settings.
    ///
    /// # Errors
    /// The first value out of range, named with its key.
    pub fn check(&self) -> Result<(), String> {
        self.base.rates.check()?;
        for (name, policy) in &self.profiles {
            policy
                .rates
                .check()
                .map_err(|e| format!("validate.profiles.{name}: {e}"))?;
        }
        self.source.check()
    }

    /// Whether `name` is a profile name: 1 to [`MAX_PROFILE_NAME`] bytes of `A-Z a-z 0-9 _ . -`.
    pub fn is_profile_name(name: &str) -> bool {
        (1..=MAX_PROFILE_NAME).contains(&name.len())
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
    }
}

/// The keys of `[validate]` that are the server's, not a policy's.
const SOURCE_KEYS: [&str; 5] = [
    "rates_source",
    "rates_refresh_secs",
    "rates_timeout_secs",
    "rates_max_bytes",
    "rates_max_age_secs",
];

impl<'de> Deserialize<'de> for ValidateConfig {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ValidateConfig, D::Error> {
        let mut table = BTreeMap::<String, Value>::deserialize(deserializer)?;
        let profiles = match table.remove("profiles") {
            None => Dict::new(),
            Some(Value::Dict(_, profiles)) => profiles,
            Some(other) => {
                return Err(D::Error::custom(format!(
                    "validate.profiles must be a table of profiles, found {}",
                    other.to_actual()
                )));
            }
        };
        let source: Dict = SOURCE_KEYS
            .iter()
            .filter_map(|key| table.remove(*key).map(|v| ((*key).to_owned(), v)))
            .collect();
        let source: SourceConfig = Value::from(source)
            .deserialize()
            .map_err(|e| D::Error::custom(format!("validate: {e}")))?;
        let base: Dict = table.into_iter().collect();
        let mut base_policy: Policy = Value::from(base.clone())
            .deserialize()
            .map_err(|e| D::Error::custom(format!("validate: {e}")))?;
        // Environment variable names arrive lower-cased; currency codes are upper case.
        base_policy.rates = std::mem::take(&mut base_policy.rates).with_upper_case_codes();
        let mut out = BTreeMap::new();
        for (name, profile) in profiles {
            if !ValidateConfig::is_profile_name(&name) {
                return Err(D::Error::custom(format!(
                    "validate.profiles.{name:?}: a profile name is 1 to {MAX_PROFILE_NAME} of A-Z a-z 0-9 _ . -"
                )));
            }
            let policy = profile_policy(&base, &base_policy.rates, profile)
                .map_err(|e| D::Error::custom(format!("validate.profiles.{name}: {e}")))?;
            out.insert(name, policy);
        }
        Ok(ValidateConfig {
            base: base_policy,
            profiles: out,
            source,
        })
    }
}

/// The base's table with `profile`'s keys laid over it, read as a `Policy`; its rates are `base_rates` with the
/// profile's pairs laid over them.
fn profile_policy(base: &Dict, base_rates: &Rates, profile: Value) -> Result<Policy, String> {
    let Value::Dict(_, mut profile) = profile else {
        return Err(format!(
            "a profile must be a table, found {}",
            profile.to_actual()
        ));
    };
    let rates: Rates = match profile.remove("rates") {
        Some(rates) => rates.deserialize().map_err(|e| format!("rates: {e}"))?,
        None => Rates::default(),
    };
    let mut merged = base.clone();
    merged.extend(profile);
    let mut policy: Policy = Value::from(merged)
        .deserialize()
        .map_err(|e| e.to_string())?;
    policy.rates = base_rates.overlaid_with(&rates.with_upper_case_codes());
    Ok(policy)
}

/// What [`ValidateConfig`] serializes as: the section as it could be written back (every profile whole).
#[derive(Serialize)]
struct Written<'a> {
    #[serde(flatten)]
    base: &'a Policy,
    #[serde(flatten)]
    source: &'a SourceConfig,
    profiles: &'a BTreeMap<String, Policy>,
}

impl Serialize for ValidateConfig {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Written {
            base: &self.base,
            source: &self.source,
            profiles: &self.profiles,
        }
        .serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bidscan_openrtb::rules::{Action, Rule};
    use figment::Figment;
    use figment::providers::{Format, Toml};

    fn read(toml: &str) -> Result<ValidateConfig, String> {
        Figment::from(Toml::string(toml))
            .extract_inner::<ValidateConfig>("validate")
            .map_err(|e| e.to_string())
            .and_then(|c| c.check().map(|()| c))
    }

    #[test]
    fn profiles_override_the_base_key_by_key() {
        let c = read(
            "[validate]\nfloor = \"warn\"\nsize = \"skip\"\nrates_source = \"rates.json\"\n\
             [validate.rates.USD]\nEUR = 0.5\n\
             [validate.profiles.acme]\nfloor = \"enforce\"\nnonbid_markup = true\n\
             [validate.profiles.acme.rates.usd]\njpy = 150.0\n\
             [validate.profiles.\"b-2.x\"]\n",
        )
        .unwrap();
        assert_eq!(c.base.action(Rule::Floor), Action::Warn);
        let acme = &c.profiles["acme"];
        assert_eq!(acme.action(Rule::Floor), Action::Enforce);
        assert_eq!(acme.action(Rule::Size), Action::Skip, "kept from the base");
        assert!(acme.nonbid_markup && !c.base.nonbid_markup);
        assert_eq!(acme.rates.convert(1.0, "USD", "EUR"), Some(0.5));
        assert_eq!(acme.rates.convert(1.0, "USD", "JPY"), Some(150.0));
        assert_eq!(c.base.rates.convert(1.0, "USD", "JPY"), None);
        assert_eq!(c.profiles["b-2.x"], c.base);
        assert_eq!(
            c.source.location().unwrap(),
            Some(SourceLocation::File("rates.json".into()))
        );
        assert_eq!(c.source.rates_refresh_secs, 1800);
    }

    #[test]
    fn unknown_keys_bad_names_and_bad_sources_are_errors() {
        for (toml, says) in [
            ("[validate]\nflor = \"warn\"\n", "flor"),
            (
                "[validate.profiles.a]\nflor = \"warn\"\n",
                "validate.profiles.a",
            ),
            (
                "[validate.profiles.a]\nrates_source = \"x\"\n",
                "rates_source",
            ),
            ("[validate.profiles.\"a b\"]\n", "profile name"),
            (
                &format!("[validate.profiles.{}]\n", "a".repeat(65)),
                "profile name",
            ),
            ("[validate]\nprofiles = 3\n", "table of profiles"),
            ("[validate]\nrates_source = \"ftp://x/y\"\n", "neither"),
            ("[validate]\nrates_refresh_secs = 0\n", "greater than 0"),
            ("[validate]\nrates_max_age_secs = 86401\n", "at most"),
            ("[validate.profiles.a.rates.USD]\nEU = 1.0\n", "ISO 4217"),
        ] {
            let e = read(toml).unwrap_err();
            assert!(e.contains(says), "{toml}: {e}");
        }
        assert!(read(&format!("[validate.profiles.{}]\n", "a".repeat(64))).is_ok());
        let url = read("[validate]\nrates_source = \"https://example.com/latest.json\"\n").unwrap();
        assert!(matches!(
            url.source.location(),
            Ok(Some(SourceLocation::Url(_)))
        ));
    }
}
