//! [`Live`]: the inputs of the gate — the configured `[validate]` and the rates source's last good rates — and
//! the one place that rebuilds the [`Gate`] from them and swaps it in.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::config::{SourceConfig, SourceLocation, ValidateConfig};
use super::fetch::{CurrencyFile, FetchError};
use super::{Gate, SharedGate, shared};
use crate::metrics::Metrics;

/// The log target of the gate's lines.
const LOG_TARGET: &str = "bidscan_server::gate";

/// The gate in force and what it is built from. Shared by the server (`AppState`), the rates refresher and the
/// reload; requests only read [`Live::gate`].
pub struct Live {
    /// What requests load.
    current: SharedGate,
    metrics: Arc<Metrics>,
    /// Held only while inputs change and the gate is rebuilt, never by a request.
    inputs: Mutex<Inputs>,
    /// The source settings in force; the refresher restarts its schedule when they change.
    settings: watch::Sender<SourceConfig>,
    /// Fetch attempts made since start (the first one is awaited before serving).
    attempts: watch::Sender<u64>,
}

struct Inputs {
    config: ValidateConfig,
    /// The source's last good rates; `None` before the first success, once stale, and without a source.
    source: Option<CurrencyFile>,
    /// When the source was last read successfully (kept when its rates go stale, for the age gauge).
    last_ok: Option<Instant>,
}

impl Live {
    /// The gate of `config` without source rates (until the first fetch), counting into `metrics`.
    pub fn new(config: ValidateConfig, metrics: Arc<Metrics>) -> Arc<Live> {
        let current = shared(Gate::build(&config, None));
        let (settings, _) = watch::channel(config.source.clone());
        let (attempts, _) = watch::channel(0);
        let live = Arc::new(Live {
            current,
            metrics,
            inputs: Mutex::new(Inputs {
                config,
                source: None,
                last_ok: None,
            }),
            settings,
            attempts,
        });
        live.update_gauges();
        live
    }

    /// The gate requests read.
    pub fn gate(&self) -> &SharedGate {
        &self.current
    }

    /// Starts the rates refresher on the current runtime (it fetches at once when a source is configured) and
    /// waits for its first fetch to end, at most the fetch timeout (so serving starts with the source's rates
    /// when it answers in time, and never later than that timeout). Abort the handle to stop it.
    pub async fn start(self: &Arc<Self>) -> JoinHandle<()> {
        let mut attempts = self.attempts.subscribe();
        let source = self.settings.borrow().clone();
        let task = tokio::spawn(super::refresh::run(self.clone(), self.settings.subscribe()));
        if matches!(source.location(), Ok(Some(_))) {
            let wait = source.timeout() + Duration::from_millis(250);
            let _ = tokio::time::timeout(wait, attempts.wait_for(|n| *n > 0)).await;
        }
        task
    }

    /// Puts `config` (already checked) in force: the gate rebuilt with the source's rates, the refresher told of
    /// changed source settings (it then fetches at once). Without a source any more, its rates are dropped.
    pub fn reconfigure(&self, config: ValidateConfig) {
        let mut inputs = self.lock();
        if !matches!(config.source.location(), Ok(Some(_))) {
            inputs.source = None;
            inputs.last_ok = None;
        }
        let source = config.source.clone();
        inputs.config = config;
        self.rebuild(&inputs);
        drop(inputs);
        self.settings.send_if_modified(|s| {
            let changed = *s != source;
            *s = source;
            changed
        });
        self.update_gauges();
    }

    /// Records the end of a fetch of `from`: counted; on success its rates are put in force; on failure the last
    /// good ones are kept. A result for a source no longer configured (a reload came first) is dropped.
    pub(super) fn fetched(&self, from: &SourceLocation, result: Result<CurrencyFile, FetchError>) {
        self.apply_fetch(from, result);
        // After the gate is rebuilt, so that `start` serves with the rates it waited for.
        self.attempts.send_modify(|n| *n += 1);
        self.update_gauges();
    }

    fn apply_fetch(&self, from: &SourceLocation, result: Result<CurrencyFile, FetchError>) {
        let label = result.as_ref().map_or_else(FetchError::label, |_| "ok");
        self.metrics.rates_fetches.with_label_values(&[label]).inc();
        let mut inputs = self.lock();
        if inputs.config.source.location().ok().flatten().as_ref() != Some(from) {
            return;
        }
        match result {
            Ok(file) => {
                tracing::info!(target: LOG_TARGET, source = %from, currencies = file.rates.0.len(),
                    data_as_of = file.data_as_of, "rates source read");
                self.metrics
                    .rates_data_as_of
                    .set(file.data_as_of.map_or(0.0, |s| s as f64));
                inputs.source = Some(file);
                inputs.last_ok = Some(Instant::now());
                self.rebuild(&inputs);
            }
            Err(e) => {
                let kept = if inputs.source.is_some() {
                    "the last good rates stay in force"
                } else {
                    "no source rates: floors in another currency without a configured rate reject"
                };
                tracing::warn!(target: LOG_TARGET, source = %from, result = label, error = %e,
                    "rates source not read; {kept}");
            }
        }
    }

    /// Counts an attempt that could not be made (no source), so that [`start`](Self::start) does not wait.
    pub(super) fn no_attempt(&self) {
        self.attempts.send_modify(|n| *n += 1);
    }

    /// When the source's rates go stale (last success + `max_age`), while they are held.
    pub(super) fn stale_at(&self, max_age: Duration) -> Option<Instant> {
        let inputs = self.lock();
        inputs.source.as_ref()?;
        inputs.last_ok.map(|t| t + max_age)
    }

    /// Drops the source's rates if they are older than `max_age`, rebuilding the gate without them.
    pub(super) fn drop_if_stale(&self, max_age: Duration) {
        let mut inputs = self.lock();
        let stale = inputs.last_ok.is_some_and(|t| t.elapsed() >= max_age);
        if stale && inputs.source.take().is_some() {
            tracing::warn!(target: LOG_TARGET, max_age_secs = max_age.as_secs(),
                "rates source stale: its rates are dropped until it is read again");
            self.rebuild(&inputs);
        }
    }

    /// Sets `bidscan_rates_age_seconds`: seconds since the last successful fetch, `+Inf` before the first one,
    /// 0 without a source. Called on each scrape of `/metrics` and after each fetch.
    pub fn update_gauges(&self) {
        let inputs = self.lock();
        let age = if matches!(inputs.config.source.location(), Ok(Some(_))) {
            inputs
                .last_ok
                .map_or(f64::INFINITY, |t| t.elapsed().as_secs_f64())
        } else {
            0.0
        };
        self.metrics.rates_age.set(age);
        if inputs.last_ok.is_none() {
            self.metrics.rates_data_as_of.set(0.0);
        }
    }

    fn rebuild(&self, inputs: &Inputs) {
        let source = inputs.source.as_ref().map(|f| &f.rates);
        self.current
            .store(Arc::new(Gate::build(&inputs.config, source)));
    }

    fn lock(&self) -> MutexGuard<'_, Inputs> {
        // A panic while holding the lock leaves consistent inputs (each change is one assignment).
        self.inputs.lock().unwrap_or_else(|e| e.into_inner())
    }
}
