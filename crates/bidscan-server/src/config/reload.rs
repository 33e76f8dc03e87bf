//! Reloading the configuration while serving: the one reload mechanism, `SIGHUP` for `bidscan serve`.
//!
//! A reload reads the configuration again exactly as at start ([`Loader`]: the compiled-in default, the
//! file given with `--config`, the `BIDSCAN__…` environment, `--listen`), checks all of it as a start would
//! (`Config::load`), and then, only if it all loads:
//! - puts `[validate]` in force: the base policy, the profiles and the rates source's settings, as one new gate
//!   swapped in atomically (`gate::Live::reconfigure`): a request already being judged finishes under the gate
//!   it loaded, the next one loads the new one; no connection is dropped, no request waits;
//! - puts `server.bidders` in force: the names kept as the `bidder` label, their metric handles made and swapped
//!   in atomically (`metrics::Bidders::configure`), the series of names taken off the list removed;
//! - while TLS stays on, reads the files of `[server.tls]` again (`Tls::reload`): connections accepted from then
//!   on get the new certificates, open ones keep theirs; files that do not load fail the whole reload. Client
//!   certificates stay required, or not, as at start: a `client_ca` set or emptied is not applied (one edited line
//!   must not turn authentication off on a live server), a `client_ca` changed to another file is;
//! - logs every other key whose value changed as not applied: those (`server.*`, turning TLS on or off, client
//!   certificates on or off and `server.ops_listen` included, `decode.*`, `pool.*`, `log.*`, `capture.*`) are read once at start and need a restart.
//!
//! A reload that fails (unreadable file, bad TOML, an unknown key, a value out of range) changes nothing and
//! logs why. Each reload counts in `bidscan_config_reloads_total{result="ok"|"error"}`. Reloads asked for while
//! one runs are merged into one more.

use std::sync::Arc;

use serde_json::Value;
use tokio::sync::mpsc;

use crate::config::Config;
use crate::routes::state::AppState;
use crate::transport::tls::Tls;

/// The target of this module's log lines.
const LOG_TARGET: &str = "bidscan_server::reload";

/// Reads the configuration as the server read it at start.
pub type Loader = Arc<dyn Fn() -> Result<Config, String> + Send + Sync>;

/// What a server reloads on, and how it reads the configuration.
pub struct Reloads {
    /// One item per reload asked for.
    requests: mpsc::Receiver<()>,
    /// Reads the configuration again (file, environment, command-line overrides).
    load: Loader,
}

impl Reloads {
    /// Reloads asked for through the returned sender (tests, or any other trigger).
    pub fn channel(load: Loader) -> (mpsc::Sender<()>, Reloads) {
        let (tx, requests) = mpsc::channel(1);
        (tx, Reloads { requests, load })
    }

    /// Reloads on each `SIGHUP`. The handler is installed at once (from then on `SIGHUP` no longer ends the
    /// process); call it inside the runtime, before anything slow.
    ///
    /// # Errors
    /// When the signal handler cannot be installed.
    #[cfg(unix)]
    pub fn on_sighup(load: Loader) -> std::io::Result<Reloads> {
        use tokio::signal::unix::{SignalKind, signal};
        let mut hangups = signal(SignalKind::hangup())?;
        let (tx, reloads) = Reloads::channel(load);
        tokio::spawn(async move {
            while hangups.recv().await.is_some() {
                // Full: a reload is already pending, which will read the file as it is by then.
                if let Err(mpsc::error::TrySendError::Closed(())) = tx.try_send(()) {
                    return;
                }
            }
        });
        Ok(reloads)
    }
}

/// Runs reloads as they are asked for, until the sender side closes. `running` is the configuration the server
/// started with; `tls` its certificates when TLS is on.
pub async fn run(
    mut reloads: Reloads,
    mut running: Config,
    state: AppState,
    tls: Option<Arc<Tls>>,
) {
    while reloads.requests.recv().await.is_some() {
        let load = reloads.load.clone();
        let loaded = match tokio::task::spawn_blocking(move || load()).await {
            Ok(loaded) => loaded,
            Err(e) => Err(format!("the reload task failed: {e}")),
        };
        apply(loaded, &mut running, &state, tls.as_deref());
    }
}

/// Puts `loaded` in force over `running` (see the module docs), counted and logged.
fn apply(
    loaded: Result<Config, String>,
    running: &mut Config,
    state: &AppState,
    tls: Option<&Tls>,
) {
    let reloads = &state.metrics().config_reloads;
    let new = match loaded {
        Ok(new) => new,
        Err(e) => {
            reloads.with_label_values(&["error"]).inc();
            tracing::error!(target: LOG_TARGET, error = %e,
                "configuration not reloaded; the running configuration stays in force");
            return;
        }
    };
    // The certificates first: files that do not load fail the reload before anything is put in force.
    let tls_stays_on = tls.is_some() && new.server.tls.is_enabled();
    // Client certificates turned on or off: a restart; the running choice (and its CA file) is kept meanwhile.
    let client_ca_toggled =
        running.server.tls.client_ca.is_some() != new.server.tls.client_ca.is_some();
    let mut wanted = new.server.tls.clone();
    if client_ca_toggled {
        wanted.client_ca.clone_from(&running.server.tls.client_ca);
    }
    if let (Some(tls), true) = (tls, tls_stays_on) {
        if let Err(e) = tls.reload(&wanted) {
            reloads.with_label_values(&["error"]).inc();
            tracing::error!(target: LOG_TARGET, error = %e,
                "configuration not reloaded: the TLS files do not load; the running certificates stay in force");
            return;
        }
        running.server.tls = wanted;
    }
    let mut not_applied = restart_only_changes(running, &new);
    if tls.is_some() != new.server.tls.is_enabled() {
        // Turning TLS on or off changes what the listeners speak: a restart.
        not_applied.retain(|key| !key.starts_with("server.tls."));
        not_applied.push("server.tls (turning TLS on or off)".to_owned());
    } else if tls_stays_on && client_ca_toggled {
        not_applied.retain(|key| key != "server.tls.client_ca");
        not_applied.push("server.tls.client_ca (turning client certificates on or off)".to_owned());
    }
    for key in &not_applied {
        tracing::warn!(target: LOG_TARGET, key = %key,
            "configuration key changed but not applied: it needs a restart");
    }
    state.gate.reconfigure(new.validate.clone());
    state.metrics().bidders.configure(&new.server.bidders);
    running.validate = new.validate;
    running.server.bidders = new.server.bidders;
    reloads.with_label_values(&["ok"]).inc();
    tracing::info!(target: LOG_TARGET, profiles = running.validate.profiles.len(),
        rates_source = %running.validate.source.rates_source, not_applied = not_applied.len(),
        "configuration reloaded: [validate] in force");
}

/// The dotted keys outside `[validate]` and `server.bidders` whose values differ between `old` and `new`, sorted.
pub fn restart_only_changes(old: &Config, new: &Config) -> Vec<String> {
    let as_value = |c: &Config| {
        let mut v = serde_json::to_value(c).unwrap_or(Value::Null);
        if let Some(map) = v.as_object_mut() {
            map.remove("validate");
            if let Some(server) = map.get_mut("server").and_then(Value::as_object_mut) {
                server.remove("bidders");
            }
        }
        v
    };
    let mut keys = Vec::new();
    diff("", &as_value(old), &as_value(new), &mut keys);
    keys.sort();
    keys
}

fn diff(path: &str, old: &Value, new: &Value, out: &mut Vec<String>) {
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => {
            for key in a.keys().chain(b.keys().filter(|k| !a.contains_key(*k))) {
                let path = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                diff(
                    &path,
                    a.get(key).unwrap_or(&Value::Null),
                    b.get(key).unwrap_or(&Value::Null),
                    out,
                );
            }
        }
        _ if old != new => out.push(path.to_owned()),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_keys_outside_validate_are_named() {
        let old = Config::default_config().unwrap();
        let mut new = old.clone();
        new.server.max_body_bytes += 1;
        new.log.level = "debug".into();
        new.validate.base.nonbid_markup = true;
        assert_eq!(
            restart_only_changes(&old, &new),
            vec!["log.level".to_owned(), "server.max_body_bytes".to_owned()]
        );
        assert!(restart_only_changes(&old, &old).is_empty());
    }
}
