//! [`Engine`]: the one function that turns a document's bytes into the answer JSON, shared by `POST /decode`,
//! `POST /decode/batch` and `bidscan decode` (and, in [`crate::engine::validate`], by the `/validate` routes and
//! `bidscan validate`), and the per-worker pools of decode state behind it.
//!
//! # Where the pooled buffer is filled, and why there
//! A [`Pool`] is per worker thread (`thread_local!`) and its [`Checkout`](bidscan_pool::Checkout) guard borrows
//! it, so a checkout can only live inside one synchronous stretch on one thread. Tokio may move a task to another
//! worker at every `.await`, and an axum handler future must be `Send`, so the guard cannot be held while body
//! frames arrive. The HTTP side therefore receives the body as the frames hyper (or the decompressor) already
//! allocated — reference-counted [`Bytes`](bytes::Bytes), no copy — counting them against the size limit, and
//! only then calls [`Engine::answer`], which in one synchronous block checks the state out, copies the frames into
//! the pooled input buffer (the one copy any in-place decoder needs: frames are immutable and not contiguous),
//! decodes in place, renders the answer to bytes and checks the state back in. Knowing the total length before
//! copying also lets the buffer grow once, to the exact size, instead of doubling its way up.
//!
//! Decoding runs on the async worker thread itself: it takes microseconds to a few milliseconds (bounded by the
//! 4 MiB body limit), less than a `spawn_blocking` round trip, and it keeps the pool thread-local.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::Instant;

use bidscan_json::{Reader, ReaderConfig, Stats};
use bidscan_openrtb::rules::Policy;
use bidscan_openrtb::{Decoded, Inspector, Mode, ProtobufLimits, Status};
use bidscan_pool::{Budget, Pool, PoolConfig, Reusable};
use serde::{Deserialize, Serialize};

use crate::engine::render::{self, Envelope};
use crate::error::{ApiError, ErrorCode};
use crate::gate::{self, Gate, SharedGate};
use crate::metrics::{BidderMetrics, INPUT_BUFFER, Metrics, PoolMetrics};

/// The target of this module's log lines (`log.level` filters name it; docs/operations.md, "Logs").
const LOG_TARGET: &str = "bidscan_server::engine";

/// Which parts of the answer to include.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum View {
    /// `status`, `response` (canonical), `summary`, `issues`, `stats`.
    #[default]
    Full,
    /// Everything but `response`.
    Summary,
}

/// Whether to read each bid's ad markup (bidscan-markup: VAST, native, HTML).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Inspect {
    /// Inspect every bid's `adm`: the summary's `adm` objects carry the details, findings are issues at
    /// `…/bid/N/adm`, and `bidscan_adm_total` counts the bids.
    #[default]
    All,
    /// Only sniff the kind and count the bytes (`{"kind","bytes"}`).
    None,
}

/// How a document is encoded, from its `Content-Type` (`routes::pipeline`) or its file name (`bidscan decode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Encoding {
    /// JSON (RFC 8259): [`bidscan_openrtb::decode`].
    #[default]
    Json,
    /// A protobuf `BidResponse` (IAB Tech Lab's OpenRTB 2.6 schema): [`bidscan_openrtb::decode_protobuf`].
    Protobuf,
}

impl Encoding {
    /// The `encoding` label of `bidscan_decode_outcomes_total`: `json` or `protobuf`.
    pub const fn label(self) -> &'static str {
        match self {
            Encoding::Json => "json",
            Encoding::Protobuf => "protobuf",
        }
    }
}

/// What a decode should do.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Options {
    /// Lenient or strict.
    pub mode: Mode,
    /// Full or summary.
    pub view: View,
    /// `/decode`: read the ad markup or not. `/validate` always reads it (a malformed VAST or native markup
    /// must reach the rules); there `None` only leaves the details out of the summary's `adm` objects.
    pub inspect: Inspect,
    /// The policy `/validate` judges under, chosen when the request's head was read (`?profile=`, see
    /// `gate::Gate::select`); `None`: the gate's base policy when the document is judged. Unused by decode.
    pub policy: Option<Arc<Policy>>,
    /// The handles of the request's bidder (`?bidder=`, `X-Bidder`: `unknown` when it names none), resolved
    /// when the request's head was read; `None` (the command line): nothing is counted by bidder.
    pub bidder: Option<Arc<BidderMetrics>>,
    /// How the body is encoded (`/decode` only; `/validate` and the batch routes read JSON).
    pub encoding: Encoding,
    /// How `/decode` and `/validate/auction` answer (from `Accept`, `routes::negotiate`): the JSON envelope, or
    /// protobuf ([`Answer::json`] then holds `/decode`'s canonical `BidResponse` as protobuf, or the auction's
    /// multipart body of one protobuf `BidResponse` per bidder).
    pub answer: Encoding,
}

/// The answer of a successful decode, as rendered: the JSON bytes plus what callers count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// `{"status", "response"?, "summary", "issues", "stats"}`, compact, one line; with
    /// [`Options::answer`] protobuf, the protobuf bytes instead (see [`Options::answer`]).
    pub json: Vec<u8>,
    /// Bid or no-bid.
    pub status: Status,
    /// Issues reported (errors and warnings).
    pub issues: usize,
    /// Of `issues`, the errors.
    pub errors: usize,
}

/// The number of errors among `issues`.
pub(crate) fn errors(issues: &[bidscan_openrtb::Issue]) -> usize {
    issues
        .iter()
        .filter(|i| i.severity == bidscan_openrtb::Severity::Error)
        .count()
}

/// What one pool item holds: the reader (scratch, config), the markup inspector (its own reader and a scratch
/// buffer of at most 256 KiB kept, `bidscan_markup::MAX_RETAINED_SCRATCH`) and the input buffer the
/// document is decoded in.
#[derive(Debug)]
pub struct DecodeState {
    reader: Reader,
    inspector: Inspector,
    /// The document; strings are decoded over their escaped form, so it is rewritten by each decode.
    input: Vec<u8>,
    /// A protobuf document's `ext` and `adm_native` rendered to JSON (`decode_protobuf`'s `rendered`), which
    /// the model borrows; empty for JSON documents.
    rendered: String,
    /// Length of the last document, kept across `reset` for the retention policy.
    needed: usize,
}

impl DecodeState {
    fn new() -> DecodeState {
        DecodeState {
            reader: Reader::default(),
            inspector: Inspector::new(),
            input: Vec::new(),
            rendered: String::new(),
            needed: 0,
        }
    }
}

impl Reusable for DecodeState {
    fn capacity_bytes(&self) -> usize {
        self.input.capacity() + self.rendered.capacity()
    }
    fn needed_bytes(&self) -> usize {
        self.needed
    }
    fn shrink_to(&mut self, bytes: usize) {
        self.input.shrink_to(bytes);
        self.rendered
            .shrink_to(bytes.saturating_sub(self.input.capacity()));
    }
    fn reset(&mut self) {
        self.input.clear();
        self.rendered.clear();
    }
}

static NEXT_ENGINE: AtomicU64 = AtomicU64::new(1);

/// A thread's pool for one engine: the engine's liveness token, its id, the pool.
type EnginePool = (Weak<()>, u64, Rc<Pool<DecodeState>>);

thread_local! {
    /// This thread's pools, one per live engine (normally exactly one; tests run several servers per process).
    static POOLS: RefCell<Vec<EnginePool>> = const { RefCell::new(Vec::new()) };
}

/// Decodes documents with pooled state and counts what it does. Cheap to clone; share one per process.
#[derive(Clone)]
pub struct Engine {
    id: u64,
    /// Dropped with the last clone; lets threads forget pools of dead engines.
    alive: Arc<()>,
    pool_config: PoolConfig,
    reader_config: ReaderConfig,
    budget: Arc<Budget>,
    observer: Arc<PoolMetrics>,
    metrics: Arc<Metrics>,
    /// The policies `validate` applies (`[validate]` and its profiles, rates laid out), swapped whole on a
    /// reload or a rates refresh.
    gate: SharedGate,
}

impl Engine {
    /// An engine with these pool limits and reader limits, counting into `metrics`.
    pub fn new(
        pool_config: PoolConfig,
        reader_config: ReaderConfig,
        metrics: Arc<Metrics>,
    ) -> Engine {
        let budget = Arc::new(Budget::from_config(&pool_config));
        let observer = Arc::new(PoolMetrics::new(metrics.clone(), budget.clone()));
        Engine {
            id: NEXT_ENGINE.fetch_add(1, Ordering::Relaxed),
            alive: Arc::new(()),
            pool_config,
            reader_config,
            budget,
            observer,
            metrics,
            gate: gate::shared(Gate::default()),
        }
    }

    /// This engine validating with the policies of `gate` (as they are each time a document is judged).
    pub fn with_gate(mut self, gate: SharedGate) -> Engine {
        self.gate = gate;
        self
    }

    /// The policies `validate` applies.
    pub fn gate(&self) -> &SharedGate {
        &self.gate
    }

    /// The metrics this engine counts into.
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    /// This thread's pool for this engine, created on first use.
    fn pool(&self) -> Rc<Pool<DecodeState>> {
        POOLS.with(|cell| {
            let mut pools = cell.borrow_mut();
            if let Some((_, _, pool)) = pools.iter().find(|(_, id, _)| *id == self.id) {
                return pool.clone();
            }
            pools.retain(|(alive, _, _)| alive.strong_count() > 0);
            let pool = Rc::new(Pool::new(
                INPUT_BUFFER,
                self.pool_config.clone(),
                self.budget.clone(),
                self.observer.clone(),
                DecodeState::new,
            ));
            pools.push((Arc::downgrade(&self.alive), self.id, pool.clone()));
            pool
        })
    }

    /// Decodes the document made of `chunks` (in order; `len` bytes in all) and renders the answer.
    /// Synchronous: the pooled state is checked out and back in within this call. Counts the outcome, size,
    /// escapes, bids, issues and duration.
    ///
    /// # Errors
    /// [`ApiError`] 400 (malformed JSON, with position) or 422 (not a bid response, strict-mode failure).
    pub fn answer<'c>(
        &self,
        chunks: impl IntoIterator<Item = &'c [u8]>,
        len: usize,
        options: &Options,
    ) -> Result<Answer, ApiError> {
        if options.encoding == Encoding::Protobuf {
            return self.answer_protobuf(chunks, len, options);
        }
        let result = self.with_input(chunks, len, |reader, inspector, input| {
            // bidscan_openrtb::decode resets the reader's stats when it answers without running it (blank body,
            // `{}`, XML/HTML, a strict-mode BOM), so they are always this document's. The inspector has a reader of its own.
            let result = match options.inspect {
                Inspect::All => {
                    bidscan_openrtb::decode_inspected(reader, input, options.mode, inspector)
                }
                Inspect::None => bidscan_openrtb::decode(reader, input, options.mode),
            };
            let stats = reader.stats();
            let result = result.map_err(ApiError::from).and_then(|decoded| {
                self.observe(&decoded);
                if let Some(bidder) = &options.bidder {
                    self.observe_prices(bidder, &decoded.response, options.policy.as_deref());
                }
                render(&decoded, stats, options)
            });
            (result, stats)
        });
        self.count_bidder(options, &result, len);
        result
    }

    /// [`answer`](Self::answer) for a protobuf `BidResponse`: decoded by `decode_protobuf(_inspected)` from the
    /// pooled input buffer (its `ext` and `adm_native` rendered into the pooled `rendered` string), then answered,
    /// counted and rendered as a JSON document is. `stats` holds the body's `bytes` (and `buffer_bytes_needed`);
    /// the string counters are JSON's and stay 0.
    fn answer_protobuf<'c>(
        &self,
        chunks: impl IntoIterator<Item = &'c [u8]>,
        len: usize,
        options: &Options,
    ) -> Result<Answer, ApiError> {
        let result = self.with_input_rendered(chunks, len, |inspector, input, rendered| {
            let stats = Stats {
                bytes: input.len(),
                buffer_bytes_needed: input.len(),
                ..Stats::default()
            };
            let body: &[u8] = input;
            // The body's end bounds every length: the body limit was applied as it was received.
            let limits = ProtobufLimits::default();
            let result = match options.inspect {
                Inspect::All => bidscan_openrtb::decode_protobuf_inspected(
                    body,
                    rendered,
                    options.mode,
                    limits,
                    inspector,
                ),
                Inspect::None => {
                    bidscan_openrtb::decode_protobuf(body, rendered, options.mode, limits)
                }
            };
            let result = result.map_err(ApiError::from).and_then(|decoded| {
                self.observe(&decoded);
                if let Some(bidder) = &options.bidder {
                    self.observe_prices(bidder, &decoded.response, options.policy.as_deref());
                }
                render(&decoded, stats, options)
            });
            (result, stats)
        });
        self.count_bidder(options, &result, len);
        result
    }

    /// Counts the bid prices of `response` for `bidder`, converted with `policy`'s rates (the gate's base
    /// policy when `None`, loaded only for a currency other than USD).
    pub(crate) fn observe_prices(
        &self,
        bidder: &BidderMetrics,
        response: &bidscan_openrtb::BidResponse<'_>,
        policy: Option<&Policy>,
    ) {
        let loaded;
        let rates = match policy {
            Some(policy) => Some(&policy.rates),
            None if BidderMetrics::needs_rates(response) => {
                loaded = self.gate.load();
                Some(&loaded.base().rates)
            }
            None => None,
        };
        bidder.observe_bid_prices(response, rates);
    }

    /// Counts the outcome of a document of `len` bytes for the request's bidder, if it names one, and a 422
    /// `not_encodable` in `bidscan_bidder_not_encodable_total`.
    pub(crate) fn count_bidder(
        &self,
        options: &Options,
        result: &Result<Answer, ApiError>,
        len: usize,
    ) {
        if let Some(bidder) = &options.bidder {
            bidder.observe_response(outcome(result), len);
            if let Err(e) = result
                && matches!(e.code, ErrorCode::NotEncodable { .. })
            {
                bidder.observe_not_encodable();
            }
        }
    }

    /// Runs `work` on this thread's pooled reader, markup inspector and input buffer, the buffer holding the document made of
    /// `chunks` (`len` bytes in all), then checks the state back in and counts the outcome, size, escapes and
    /// duration from what `work` returns. Shared by [`answer`](Self::answer) and `validate`.
    pub(crate) fn with_input<'c>(
        &self,
        chunks: impl IntoIterator<Item = &'c [u8]>,
        len: usize,
        work: impl FnOnce(&mut Reader, &mut Inspector, &mut [u8]) -> (Result<Answer, ApiError>, Stats),
    ) -> Result<Answer, ApiError> {
        let started = Instant::now();
        let pool = self.pool();
        let mut state = pool.checkout();
        if state.reader.config() != &self.reader_config {
            state.reader = Reader::new(self.reader_config.clone());
        }
        let DecodeState {
            reader,
            inspector,
            input,
            needed,
            ..
        } = &mut *state;
        input.clear();
        input.reserve(len);
        for chunk in chunks {
            input.extend_from_slice(chunk);
        }
        *needed = input.len();
        let (result, stats) = work(reader, inspector, input);
        drop(state);
        self.count(&result, stats, started);
        result
    }

    /// [`with_input`](Self::with_input) for a protobuf document: `work` gets the inspector, the input buffer and
    /// the pooled string a protobuf document's `ext` and `adm_native` are rendered into (no reader: the wire
    /// reader keeps no state).
    fn with_input_rendered<'c>(
        &self,
        chunks: impl IntoIterator<Item = &'c [u8]>,
        len: usize,
        work: impl FnOnce(
            &mut Inspector,
            &mut Vec<u8>,
            &mut String,
        ) -> (Result<Answer, ApiError>, Stats),
    ) -> Result<Answer, ApiError> {
        let started = Instant::now();
        let pool = self.pool();
        let mut state = pool.checkout();
        let DecodeState {
            inspector,
            input,
            rendered,
            needed,
            ..
        } = &mut *state;
        input.clear();
        input.reserve(len);
        for chunk in chunks {
            input.extend_from_slice(chunk);
        }
        *needed = input.len();
        let (result, stats) = work(inspector, input, rendered);
        *needed += rendered.len();
        drop(state);
        self.count_encoded(&result, stats, started, Encoding::Protobuf);
        result
    }

    /// Runs `work` on this thread's pooled reader and markup inspector (not its input buffer: an auction's bodies
    /// are decoded where the route read them), then checks the state back in. The caller counts.
    pub(crate) fn with_state<T>(&self, work: impl FnOnce(&mut Reader, &mut Inspector) -> T) -> T {
        let pool = self.pool();
        let mut state = pool.checkout();
        if state.reader.config() != &self.reader_config {
            state.reader = Reader::new(self.reader_config.clone());
        }
        let DecodeState {
            reader, inspector, ..
        } = &mut *state;
        work(reader, inspector)
    }

    pub(crate) fn count(&self, result: &Result<Answer, ApiError>, stats: Stats, started: Instant) {
        self.count_encoded(result, stats, started, Encoding::Json);
    }

    /// [`count`](Self::count) for a document of `encoding`: the outcome counted under its `encoding` label.
    pub(crate) fn count_encoded(
        &self,
        result: &Result<Answer, ApiError>,
        stats: Stats,
        started: Instant,
        encoding: Encoding,
    ) {
        let m = &self.metrics;
        m.decode_duration.observe(started.elapsed().as_secs_f64());
        m.document_bytes.observe(stats.bytes as f64);
        m.document_escapes.observe(stats.escapes as f64);
        m.count_outcome(outcome(result), encoding.label());
    }

    /// Counts a document refused before or instead of decoding (too large, a batch past its bounds) under its
    /// error's outcome ([`ErrorCode::outcome`]); an error that is no decode outcome (a timeout, bad
    /// compression) is not counted.
    pub fn count_refused(&self, e: &ApiError) {
        self.count_refused_as(e, Encoding::Json);
    }

    /// [`count_refused`](Self::count_refused) for a document in `encoding`.
    fn count_refused_as(&self, e: &ApiError, encoding: Encoding) {
        if let Some(outcome) = e.outcome() {
            self.metrics.count_outcome(outcome, encoding.label());
        }
    }

    /// [`count_refused`](Self::count_refused) for a document in `encoding`, and under `bidder` too.
    pub fn count_refused_by(
        &self,
        e: &ApiError,
        bidder: Option<&BidderMetrics>,
        encoding: Encoding,
    ) {
        self.count_refused_as(e, encoding);
        if let (Some(outcome), Some(bidder)) = (e.outcome(), bidder) {
            bidder.observe_outcome(outcome);
        }
    }

    /// Counts the bids and issues of a successful decode.
    pub(crate) fn observe(&self, decoded: &Decoded<'_>) {
        self.metrics.bids.inc_by(decoded.bid_count() as u64);
        for issue in &decoded.issues {
            self.metrics.count_issue(issue.code, issue.severity);
        }
        // Past the list's bound too: the metric counts every issue found.
        for (code, severity, n) in decoded.unlisted.iter() {
            self.metrics.count_issues(code, severity, n as u64);
        }
        for markup in &decoded.markup {
            self.metrics.count_adm(markup.kind(), markup.well_formed());
        }
    }
}

/// The `outcome` label of a document's result (one of [`crate::metrics::registry::OUTCOMES`]).
fn outcome(result: &Result<Answer, ApiError>) -> &'static str {
    match result {
        Ok(answer) if answer.status == Status::Bid => "bid",
        Ok(_) => "nobid",
        Err(e) => e.outcome().unwrap_or("internal"),
    }
}

/// Renders the 200 body of `decoded`: the JSON envelope, or with [`Options::answer`] protobuf the canonical
/// response encoded (`bidscan_openrtb::encode_protobuf`; members no field carries are left out, an integer outside
/// int32 is a 422 `not_encodable`).
fn render(decoded: &Decoded<'_>, stats: Stats, options: &Options) -> Result<Answer, ApiError> {
    if options.answer == Encoding::Protobuf {
        let mut out = Vec::with_capacity(stats.bytes + 64);
        bidscan_openrtb::encode_protobuf(&decoded.response, &mut out).map_err(|e| {
            ApiError::new(
                ErrorCode::NotEncodable {
                    bid: decoded.status == Status::Bid,
                },
                format!(
                    "the response cannot be answered as protobuf: {e}; ask for application/json"
                ),
            )
            .with_path(e.path)
        })?;
        return Ok(Answer {
            json: out,
            status: decoded.status,
            issues: decoded.issues.len(),
            errors: errors(&decoded.issues),
        });
    }
    let envelope = Envelope {
        status: decoded.status,
        response: (options.view == View::Full).then_some(&decoded.response),
        summary: decoded.summary(),
        issues: &decoded.issues,
        stats,
    };
    // Usually one allocation: the full view echoes the response (about the input's size) plus the summary, issues
    // and stats; `to_vec` would start at 128 bytes and grow by copying (two reallocations even for a 49-byte
    // no-bid's 290-byte answer). The summary view does not hold the response, so it does not reserve for it.
    let echoed = if envelope.response.is_some() {
        stats.bytes
    } else {
        0
    };
    let mut json = Vec::with_capacity(echoed + 1024);
    render::write(&mut json, &envelope).map_err(render_failed)?;
    Ok(Answer {
        json,
        status: decoded.status,
        issues: decoded.issues.len(),
        errors: errors(&decoded.issues),
    })
}

/// The 500 for an answer that could not be serialized. Serializing to memory fails only for non-string map keys
/// or a failing Serialize impl; the model has neither.
pub(crate) fn render_failed(e: serde_json::Error) -> ApiError {
    crate::routes::layers::request::in_span(
        || tracing::error!(target: LOG_TARGET, error = %e, "cannot render an answer"),
    );
    ApiError::new(ErrorCode::Internal, "the answer could not be rendered")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine() -> Engine {
        Engine::new(
            PoolConfig::default(),
            ReaderConfig::default(),
            Arc::new(Metrics::new().unwrap()),
        )
    }

    const DOC: &[u8] = br#"{"id":"r","seatbid":[{"bid":[{"id":"b","impid":"1","price":1.5,"crid":"c","adm":"<a href=\"x\"/>"}]}]}"#;

    #[test]
    fn answers_from_chunks_and_reuses_the_buffer() {
        let e = engine();
        let (a, b) = DOC.split_at(17);
        let first = e.answer([a, b], DOC.len(), &Options::default()).unwrap();
        let second = e.answer([DOC], DOC.len(), &Options::default()).unwrap();
        assert_eq!(first, second, "chunking does not change the answer");
        assert_eq!(first.status, Status::Bid);
        let v: serde_json::Value = serde_json::from_slice(&first.json).unwrap();
        assert_eq!(v["stats"]["escapes"], 2);
        assert_eq!(
            v["response"]["seatbid"][0]["bid"][0]["adm"],
            "<a href=\"x\"/>"
        );
        let m = e.metrics();
        assert_eq!(m.checkouts.with_label_values(&["miss"]).get(), 1);
        assert_eq!(m.checkouts.with_label_values(&["hit"]).get(), 1);
        assert_eq!(m.bids.get(), 2);
    }

    #[test]
    fn summary_view_and_stats_of_bodies_the_reader_never_sees() {
        let e = engine();
        let summary = Options {
            view: View::Summary,
            ..Options::default()
        };
        let a = e.answer([DOC], DOC.len(), &summary).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&a.json).unwrap();
        assert!(v.get("response").is_none());

        let xml = b"  <VAST version=\"4.0\"/>";
        let err = e.answer([&xml[..]], xml.len(), &summary).unwrap_err();
        assert_eq!(err.code.as_str(), "not_a_bid_response");
        let blank = e.answer([&b" \n"[..]], 2, &summary).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&blank.json).unwrap();
        assert_eq!(v["status"], "nobid");
        assert_eq!(v["stats"]["bytes"], 2);
        assert_eq!(
            v["stats"]["escapes"], 0,
            "not the previous document's stats"
        );
        let m = e.metrics();
        assert_eq!(
            m.outcomes
                .with_label_values(&["not_a_bid_response", "json"])
                .get(),
            1
        );
        assert_eq!(m.document_escapes.get_sample_sum(), 2.0);
    }
}
