//! [`AppState`]: what every handler and the pipelines share, and the headers they echo. A leaf of the routes:
//! the router, the pipelines and the handlers import it (it imports the engine, the gate and the metrics).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use axum::http::HeaderName;
use tokio::sync::Semaphore;

use crate::capture::Capture;
use crate::config::Config;
use crate::engine::Engine;
use crate::error::ApiError;
use crate::gate::Live;
use crate::metrics::Metrics;
use crate::transport::memory::MemoryBudget;

/// Header echoed on decode responses when the request sends it.
pub const OPENRTB_VERSION: HeaderName = HeaderName::from_static("x-openrtb-version");

/// Header naming the bidder that sent the response (`?bidder=` wins over it).
pub const X_BIDDER: HeaderName = HeaderName::from_static("x-bidder");

/// What handlers share. Cheap to clone.
#[derive(Clone)]
pub struct AppState {
    /// The configuration the server started with. Its `[validate]` is the one of the start: the section in
    /// force is the gate's (`gate`), which a reload replaces.
    pub config: Arc<Config>,
    /// Decoding and its pools; it reads the policies from `gate`.
    pub engine: Engine,
    /// The gate's state: the policies in force, the rates source's rates, what a reload changes.
    pub gate: Arc<Live>,
    /// Set when the shutdown signal arrives: `/readyz` answers 503 from then on.
    pub draining: Arc<AtomicBool>,
    /// When the server started (for `/`).
    pub started: Instant,
    /// Document requests in flight, at most `server.max_concurrency`: a document route's request holds a permit
    /// (the pipeline's step 7) until its answer is ready, a batch until its stream ends.
    pub permits: Arc<Semaphore>,
    /// The slow lane: document requests whose bodies were still arriving after `server.body_grace_ms`, holding
    /// one of these instead of a permit, at most `server.max_concurrency`.
    pub slow_bodies: Arc<Semaphore>,
    /// Bytes of batch answers held in memory now, by batches under `server.batch_answer_after_body`, at most
    /// `server.max_held_answer_bytes` in all.
    pub held_answers: Arc<AtomicUsize>,
    /// Bytes held by requests in flight, at most `server.max_inflight_bytes`: bodies, view=full answers, held
    /// batch answers.
    pub memory: Arc<MemoryBudget>,
    /// `[capture]` when `capture.dir` is set (started by `serve`); `None`: off, no body kept for it.
    pub capture: Option<Arc<Capture>>,
}

impl AppState {
    /// State for `config` with a fresh metrics registry.
    ///
    /// # Errors
    /// Only if the metrics registry cannot be built (a bug).
    pub fn new(config: Config) -> prometheus::Result<AppState> {
        let metrics = Arc::new(Metrics::new()?);
        metrics.bidders.configure(&config.server.bidders);
        let reader = config.decode.reader_config();
        let gate = Live::new(config.validate.clone(), metrics.clone());
        Ok(AppState {
            engine: Engine::new(config.pool.to_pool_config(), reader, metrics)
                .with_gate(gate.gate().clone()),
            gate,
            permits: Arc::new(Semaphore::new(config.server.max_concurrency.max(1))),
            slow_bodies: Arc::new(Semaphore::new(config.server.max_concurrency.max(1))),
            memory: MemoryBudget::new(config.server.max_inflight_bytes),
            config: Arc::new(config),
            draining: Arc::new(AtomicBool::new(false)),
            held_answers: Arc::new(AtomicUsize::new(0)),
            capture: None,
            started: Instant::now(),
        })
    }

    /// The metrics registry.
    pub fn metrics(&self) -> &Arc<Metrics> {
        self.engine.metrics()
    }

    /// Whether the server is draining.
    pub fn is_draining(&self) -> bool {
        self.draining.load(Ordering::SeqCst)
    }

    /// 503 `overloaded` for a request whose bytes do not fit `server.max_inflight_bytes`, counted in
    /// `bidscan_shed_total{reason="memory"}`.
    pub fn shed_memory(&self) -> ApiError {
        self.metrics().shed.with_label_values(&["memory"]).inc();
        ApiError::memory(self.config.server.retry_after_secs)
    }

    /// 503 `overloaded` for a request that found no permit of `server.max_concurrency` free, counted in
    /// `bidscan_shed_total{reason="concurrency"}`.
    pub fn shed_concurrency(&self) -> ApiError {
        self.metrics()
            .shed
            .with_label_values(&["concurrency"])
            .inc();
        ApiError::overloaded(self.config.server.retry_after_secs)
    }
}
