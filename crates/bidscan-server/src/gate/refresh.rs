//! The rates source's schedule: a fetch at once, then every `validate.rates_refresh_secs`; the source's rates
//! dropped when `validate.rates_max_age_secs` pass without a successful fetch; the schedule restarted (with a
//! fetch at once) when a reload changes the source settings. One task per server, started by [`Live::start`].

use std::sync::Arc;
use std::time::Instant;

use tokio::sync::watch;
use tokio::time::sleep_until;

use super::config::SourceConfig;
use super::fetch::Fetcher;
use super::live::Live;

/// Runs until the settings channel closes (the [`Live`] is dropped) or the task is aborted.
pub(super) async fn run(live: Arc<Live>, mut settings: watch::Receiver<SourceConfig>) {
    loop {
        let config = settings.borrow_and_update().clone();
        let Ok(Some(location)) = config.location() else {
            live.no_attempt();
            if settings.changed().await.is_err() {
                return;
            }
            continue;
        };
        let fetcher = Fetcher::new(location, &config);
        let mut next = tokio::time::Instant::now();
        loop {
            let stale_at = live.stale_at(config.max_age());
            tokio::select! {
                biased;
                changed = settings.changed() => {
                    if changed.is_err() {
                        return;
                    }
                    break;
                }
                () = sleep_until(next) => {
                    let result = fetcher.fetch().await;
                    live.fetched(fetcher.location(), result);
                    next = tokio::time::Instant::now() + config.refresh();
                }
                () = at(stale_at) => live.drop_if_stale(config.max_age()),
            }
        }
    }
}

/// Resolves at `when`, never for `None`.
async fn at(when: Option<Instant>) {
    match when {
        Some(when) => sleep_until(tokio::time::Instant::from_std(when)).await,
        None => std::future::pending().await,
    }
}
