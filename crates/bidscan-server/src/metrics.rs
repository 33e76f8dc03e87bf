//! Prometheus metrics: one [`Registry`] per server (not the global default, so several servers can live in one
//! process, as in tests), every metric named in DESIGN.md, and the pool [`Observer`] that feeds the buffer metrics.
//!
//! Label cardinality is bounded: `route` is the route template (`/decode`, never a raw path; unmatched requests
//! are `"unmatched"`), `status` a status code, `code` an issue code from a fixed list in bidscan-openrtb.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock, RwLock};
use std::task::{Context, Poll, ready};
use std::time::{Duration, Instant};

use axum::extract::MatchedPath;
use axum::http::{Request, Response, StatusCode};
use bidscan_openrtb::Severity;
use bidscan_pool::{Budget, DropReason, Event, Observer};
use pin_project_lite::pin_project;
use prometheus::{
    Encoder, Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge,
    IntGaugeVec, Opts, Registry, TextEncoder,
};
use tower::{Layer, Service};

/// Name of the pool of decode buffers (the `buffer` label).
pub const INPUT_BUFFER: &str = "input";

/// Every outcome of a decode (`bidscan_decode_outcomes_total{outcome}`).
pub const OUTCOMES: [&str; 8] = [
    "bid",
    "nobid",
    "malformed",
    "not_a_bid_response",
    "invalid_envelope",
    "strict",
    "too_large",
    "internal",
];

/// The server's metrics. Cheap to share (`Arc`); all updates are atomic.
pub struct Metrics {
    registry: Registry,
    /// `bidscan_http_requests_total{route,status}`.
    pub http_requests: IntCounterVec,
    /// `bidscan_http_request_duration_seconds{route}`: until the response head is ready.
    pub http_duration: HistogramVec,
    /// `bidscan_http_connections`: client connections open now (at most `server.max_connections`).
    pub connections: IntGauge,
    /// `bidscan_http_connection_limit_reached_total`: times every connection slot was taken, so accepting
    /// waited for one to free up.
    pub connection_limit_reached: IntCounter,
    /// `bidscan_http_send_timeouts_total`: connections reset because the client took no byte of an answer for
    /// `server.send_timeout_secs` ([`crate::send_timeout`]).
    pub send_timeouts: IntCounter,
    /// `bidscan_decode_duration_seconds`: the synchronous decode and rendering of one document.
    pub decode_duration: Histogram,
    /// `bidscan_document_bytes`: size of each decoded document (after decompression).
    pub document_bytes: Histogram,
    /// `bidscan_document_escapes`: escapes in each decoded document.
    pub document_escapes: Histogram,
    /// `bidscan_decode_outcomes_total{outcome}`, outcome in [`OUTCOMES`].
    pub outcomes: IntCounterVec,
    /// `bidscan_bids_total`: bids in successfully decoded documents.
    pub bids: IntCounter,
    /// `bidscan_validation_issues_total{code,severity}`.
    pub issues: IntCounterVec,
    /// `bidscan_bid_rejections_total{rule,statuscode}`: bids rejected by `/validate`, under the first enforced rule
    /// that rejected each (`bidscan_openrtb::rules`).
    pub bid_rejections: IntCounterVec,
    /// `bidscan_adm_total{kind, well_formed}`: bids whose markup was inspected.
    pub adm: IntCounterVec,
    /// `bidscan_buffer_grow_total{buffer}`.
    pub buffer_grow: IntCounterVec,
    /// `bidscan_buffer_shrink_total{buffer}`.
    pub buffer_shrink: IntCounterVec,
    /// `bidscan_buffer_drop_total{buffer,reason}`.
    pub buffer_drop: IntCounterVec,
    /// `bidscan_buffer_retained_bytes{buffer}`: bytes held by idle buffers of all worker pools.
    pub buffer_retained: IntGaugeVec,
    /// `bidscan_pool_checkouts_total{result}`, result `hit` or `miss`.
    pub checkouts: IntCounterVec,
    /// The series of `outcomes`, one per [`OUTCOMES`] entry (in that order), resolved once: counting a decode
    /// then hashes no label.
    outcome_counters: Vec<IntCounter>,
    /// The series of `issues` used so far, found by code and severity without hashing labels.
    issue_counters: RwLock<Vec<(&'static str, Severity, IntCounter)>>,
}

fn histogram(name: &str, help: &str, buckets: Vec<f64>) -> prometheus::Result<Histogram> {
    Histogram::with_opts(HistogramOpts::new(name, help).buckets(buckets))
}

impl Metrics {
    /// Creates and registers every metric, with the process collector (RSS, CPU, fds) on Linux.
    ///
    /// # Errors
    /// Only on a duplicate registration, which would be a bug.
    pub fn new() -> prometheus::Result<Metrics> {
        let registry = Registry::new();
        let seconds = prometheus::exponential_buckets(1e-5, 2.5, 16)?; // 10 µs .. ~9.3 s
        let bytes = prometheus::exponential_buckets(256.0, 4.0, 9)?; // 256 B .. 16 MiB
        let escapes = prometheus::exponential_buckets(1.0, 4.0, 10)?; // 1 .. 262144
        let mut m = Metrics {
            http_requests: IntCounterVec::new(
                Opts::new(
                    "bidscan_http_requests_total",
                    "HTTP requests by route template and status code.",
                ),
                &["route", "status"],
            )?,
            http_duration: HistogramVec::new(
                HistogramOpts::new(
                    "bidscan_http_request_duration_seconds",
                    "Time from request to response head, by route template, in seconds.",
                )
                .buckets(seconds.clone()),
                &["route"],
            )?,
            connections: IntGauge::new("bidscan_http_connections", "Client connections open now.")?,
            send_timeouts: IntCounter::new(
                "bidscan_http_send_timeouts_total",
                "Connections reset because the client took no byte of an answer for server.send_timeout_secs.",
            )?,
            connection_limit_reached: IntCounter::new(
                "bidscan_http_connection_limit_reached_total",
                "Times every connection slot (server.max_connections) was taken and accepting waited.",
            )?,
            decode_duration: histogram(
                "bidscan_decode_duration_seconds",
                "Time to decode, validate and render one document, in seconds.",
                seconds,
            )?,
            document_bytes: histogram(
                "bidscan_document_bytes",
                "Size of each document decoded (after decompression), in bytes.",
                bytes,
            )?,
            document_escapes: histogram(
                "bidscan_document_escapes",
                "JSON escapes in each document decoded.",
                escapes,
            )?,
            outcomes: IntCounterVec::new(
                Opts::new(
                    "bidscan_decode_outcomes_total",
                    "Decode results by outcome.",
                ),
                &["outcome"],
            )?,
            bids: IntCounter::new("bidscan_bids_total", "Bids in the documents decoded.")?,
            issues: IntCounterVec::new(
                Opts::new(
                    "bidscan_validation_issues_total",
                    "Issues reported, by code and severity.",
                ),
                &["code", "severity"],
            )?,
            bid_rejections: IntCounterVec::new(
                Opts::new(
                    "bidscan_bid_rejections_total",
                    "Bids rejected by /validate, by the first enforced rule and its seat-non-bid status code.",
                ),
                &["rule", "statuscode"],
            )?,
            adm: IntCounterVec::new(
                Opts::new(
                    "bidscan_adm_total",
                    "Bids whose ad markup was inspected, by kind (vast, native, html, none) and well_formed \
                     (false: VAST that is not well-formed XML, native that is not a native response).",
                ),
                &["kind", "well_formed"],
            )?,
            buffer_grow: IntCounterVec::new(
                Opts::new(
                    "bidscan_buffer_grow_total",
                    "Pooled buffers that grew while decoding.",
                ),
                &["buffer"],
            )?,
            buffer_shrink: IntCounterVec::new(
                Opts::new(
                    "bidscan_buffer_shrink_total",
                    "Pooled buffers shrunk by the retention policy.",
                ),
                &["buffer"],
            )?,
            buffer_drop: IntCounterVec::new(
                Opts::new(
                    "bidscan_buffer_drop_total",
                    "Pooled buffers released instead of kept, by reason.",
                ),
                &["buffer", "reason"],
            )?,
            buffer_retained: IntGaugeVec::new(
                Opts::new(
                    "bidscan_buffer_retained_bytes",
                    "Bytes held by idle pooled buffers, all workers together.",
                ),
                &["buffer"],
            )?,
            checkouts: IntCounterVec::new(
                Opts::new(
                    "bidscan_pool_checkouts_total",
                    "Pool check-outs: hit (reused) or miss (new).",
                ),
                &["result"],
            )?,
            registry,
            outcome_counters: Vec::new(),
            issue_counters: RwLock::new(Vec::new()),
        };
        m.register_all()?;
        m.initialize_labels();
        m.outcome_counters = OUTCOMES
            .iter()
            .map(|o| m.outcomes.with_label_values(&[o]))
            .collect();
        Ok(m)
    }

    /// Counts one decode with `outcome` (one of [`OUTCOMES`]; another name goes through the label lookup).
    pub fn count_outcome(&self, outcome: &str) {
        match OUTCOMES.iter().position(|&o| o == outcome) {
            Some(i) => self.outcome_counters[i].inc(),
            None => self.outcomes.with_label_values(&[outcome]).inc(),
        }
    }

    /// Counts one validation issue (`bidscan_validation_issues_total{code,severity}`). The series is created on
    /// first use, as the label lookup would; its handle is kept.
    pub fn count_issue(&self, code: &'static str, severity: Severity) {
        self.count_issues(code, severity, 1);
    }

    /// Counts `n` validation issues of `code` and `severity` (see [`count_issue`](Self::count_issue)).
    pub fn count_issues(&self, code: &'static str, severity: Severity, n: u64) {
        let found = |seen: &[(&'static str, Severity, IntCounter)]| {
            seen.iter()
                .find(|(c, s, _)| *s == severity && *c == code)
                .map(|(_, _, counter)| counter.clone())
        };
        let cached = self
            .issue_counters
            .read()
            .ok()
            .and_then(|seen| found(&seen));
        let counter = match cached {
            Some(counter) => counter,
            None => {
                let counter = self
                    .issues
                    .with_label_values(&[code, severity_label(severity)]);
                if let Ok(mut seen) = self.issue_counters.write()
                    && found(&seen).is_none()
                {
                    seen.push((code, severity, counter.clone()));
                }
                counter
            }
        };
        counter.inc_by(n);
    }

    fn register_all(&self) -> prometheus::Result<()> {
        let r = &self.registry;
        r.register(Box::new(self.http_requests.clone()))?;
        r.register(Box::new(self.http_duration.clone()))?;
        r.register(Box::new(self.connections.clone()))?;
        r.register(Box::new(self.connection_limit_reached.clone()))?;
        r.register(Box::new(self.send_timeouts.clone()))?;
        r.register(Box::new(self.decode_duration.clone()))?;
        r.register(Box::new(self.document_bytes.clone()))?;
        r.register(Box::new(self.document_escapes.clone()))?;
        r.register(Box::new(self.outcomes.clone()))?;
        r.register(Box::new(self.bids.clone()))?;
        r.register(Box::new(self.issues.clone()))?;
        r.register(Box::new(self.bid_rejections.clone()))?;
        r.register(Box::new(self.adm.clone()))?;
        r.register(Box::new(self.buffer_grow.clone()))?;
        r.register(Box::new(self.buffer_shrink.clone()))?;
        r.register(Box::new(self.buffer_drop.clone()))?;
        r.register(Box::new(self.buffer_retained.clone()))?;
        r.register(Box::new(self.checkouts.clone()))?;
        #[cfg(target_os = "linux")]
        r.register(Box::new(crate::process::ProcessMetrics::for_self()?))?;
        Ok(())
    }

    /// Creates the known label sets at zero, so every series exists from the first scrape.
    fn initialize_labels(&self) {
        for outcome in OUTCOMES {
            self.outcomes.with_label_values(&[outcome]);
        }
        self.buffer_grow.with_label_values(&[INPUT_BUFFER]);
        self.buffer_shrink.with_label_values(&[INPUT_BUFFER]);
        for reason in [
            DropReason::TooLarge,
            DropReason::GlobalCap,
            DropReason::Idle,
            DropReason::PoolFull,
        ] {
            self.buffer_drop
                .with_label_values(&[INPUT_BUFFER, reason.as_str()]);
        }
        self.buffer_retained.with_label_values(&[INPUT_BUFFER]);
        for result in ["hit", "miss"] {
            self.checkouts.with_label_values(&[result]);
        }
        for rule in bidscan_openrtb::rules::Rule::ALL {
            let code = rule.statuscode().to_string();
            self.bid_rejections.with_label_values(&[rule.name(), &code]);
        }
    }

    /// The registry in the Prometheus text exposition format (version 0.0.4).
    ///
    /// # Errors
    /// Only if encoding fails (it writes to memory).
    pub fn render(&self) -> prometheus::Result<String> {
        let mut out = Vec::with_capacity(16 * 1024);
        TextEncoder::new().encode(&self.registry.gather(), &mut out)?;
        String::from_utf8(out).map_err(|e| prometheus::Error::Msg(e.to_string()))
    }
}

/// The `severity` label of an issue.
pub fn severity_label(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// Status codes whose `bidscan_http_requests_total` series a [`RouteMetrics`] keeps a handle to once first used
/// (every status the service answers by itself); other codes go through the label lookup each time.
const COMMON_STATUSES: [u16; 11] = [200, 400, 404, 405, 408, 413, 415, 422, 431, 500, 503];

/// The HTTP metrics of one route template, with each series' handle resolved on first use, so that counting a
/// request does not hash label values. Series are created exactly when the label lookup would create them (on
/// the first request with that route and status), so the exposition is the same.
pub struct RouteMetrics {
    route: &'static str,
    duration: OnceLock<Histogram>,
    requests: [OnceLock<IntCounter>; COMMON_STATUSES.len()],
}

impl RouteMetrics {
    fn new(route: &'static str) -> RouteMetrics {
        RouteMetrics {
            route,
            duration: OnceLock::new(),
            requests: std::array::from_fn(|_| OnceLock::new()),
        }
    }

    /// Counts one request answered with `status` after `elapsed`.
    fn observe(&self, m: &Metrics, status: StatusCode, elapsed: Duration) {
        self.duration
            .get_or_init(|| m.http_duration.with_label_values(&[self.route]))
            .observe(elapsed.as_secs_f64());
        match COMMON_STATUSES.iter().position(|&s| s == status.as_u16()) {
            Some(i) => self.requests[i]
                .get_or_init(|| {
                    m.http_requests
                        .with_label_values(&[self.route, status.as_str()])
                })
                .inc(),
            None => m
                .http_requests
                .with_label_values(&[self.route, status.as_str()])
                .inc(),
        }
    }
}

/// `bidscan_http_requests_total{route,status}` and `bidscan_http_request_duration_seconds{route}` for a fixed set
/// of route templates plus `"unmatched"` (no route matched). A template outside the set is still counted, under
/// its own name, through the label lookup.
pub struct HttpMetrics {
    metrics: Arc<Metrics>,
    routes: Vec<RouteMetrics>,
    unmatched: RouteMetrics,
}

impl HttpMetrics {
    /// Handles for `routes` (route templates such as `/decode`) in `metrics`.
    pub fn new(metrics: Arc<Metrics>, routes: &[&'static str]) -> HttpMetrics {
        HttpMetrics {
            metrics,
            routes: routes.iter().map(|r| RouteMetrics::new(r)).collect(),
            unmatched: RouteMetrics::new("unmatched"),
        }
    }

    /// Counts one request to `route` (its template, `None` when no route matched).
    pub fn observe(&self, route: Option<&str>, status: StatusCode, elapsed: Duration) {
        let m = &self.metrics;
        let Some(route) = route else {
            return self.unmatched.observe(m, status, elapsed);
        };
        match self.routes.iter().find(|r| r.route == route) {
            Some(r) => r.observe(m, status, elapsed),
            None => {
                m.http_duration
                    .with_label_values(&[route])
                    .observe(elapsed.as_secs_f64());
                m.http_requests
                    .with_label_values(&[route, status.as_str()])
                    .inc();
            }
        }
    }
}

/// Layer counting every request into [`HttpMetrics`]: the route is the [`MatchedPath`] the router set (so it must
/// run inside the router, e.g. through `Router::layer`), the duration runs until the response head is ready.
#[derive(Clone)]
pub struct TrackLayer {
    http: Arc<HttpMetrics>,
    /// The route template of every request, when the layer serves one route outside the router.
    route: Option<&'static str>,
}

impl TrackLayer {
    /// Counts into `http`, under the route the router matched.
    pub fn new(http: Arc<HttpMetrics>) -> TrackLayer {
        TrackLayer { http, route: None }
    }

    /// Counts into `http`, every request under `route` (a layer around one route's service, outside the router).
    pub fn for_route(http: Arc<HttpMetrics>, route: &'static str) -> TrackLayer {
        TrackLayer {
            http,
            route: Some(route),
        }
    }
}

impl<S> Layer<S> for TrackLayer {
    type Service = Track<S>;

    fn layer(&self, inner: S) -> Track<S> {
        Track {
            inner,
            http: self.http.clone(),
            route: self.route,
        }
    }
}

/// The service of [`TrackLayer`].
#[derive(Clone)]
pub struct Track<S> {
    inner: S,
    http: Arc<HttpMetrics>,
    route: Option<&'static str>,
}

impl<S, B, R> Service<Request<B>> for Track<S>
where
    S: Service<Request<B>, Response = Response<R>>,
{
    type Response = Response<R>;
    type Error = S::Error;
    type Future = TrackFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        let route = match self.route {
            Some(route) => Route::Fixed(route),
            None => req
                .extensions()
                .get::<MatchedPath>()
                .cloned()
                .map_or(Route::Unmatched, Route::Matched),
        };
        TrackFuture {
            started: Instant::now(),
            inner: self.inner.call(req),
            http: self.http.clone(),
            route,
        }
    }
}

pin_project! {
    /// The response future of [`Track`].
    pub struct TrackFuture<F> {
        #[pin]
        inner: F,
        http: Arc<HttpMetrics>,
        route: Route,
        started: Instant,
    }
}

/// The route a [`TrackFuture`] counts under.
enum Route {
    Fixed(&'static str),
    Matched(MatchedPath),
    Unmatched,
}

impl<F, R, E> Future for TrackFuture<F>
where
    F: Future<Output = Result<Response<R>, E>>,
{
    type Output = Result<Response<R>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let res = ready!(this.inner.poll(cx));
        if let Ok(res) = &res {
            let route = match this.route {
                Route::Fixed(route) => Some(*route),
                Route::Matched(path) => Some(path.as_str()),
                Route::Unmatched => None,
            };
            this.http
                .observe(route, res.status(), this.started.elapsed());
        }
        Poll::Ready(res)
    }
}

/// Feeds pool events into [`Metrics`]. The retained-bytes gauge is the shared [`Budget`]'s total (all worker pools),
/// not the per-pool figure the observer is given.
pub struct PoolMetrics {
    metrics: Arc<Metrics>,
    budget: Arc<Budget>,
    /// `bidscan_pool_checkouts_total{result="hit"}` and `{result="miss"}`, resolved once (events come with every
    /// decode).
    hit: IntCounter,
    miss: IntCounter,
    /// The [`INPUT_BUFFER`] series of grow, shrink and retained bytes, resolved once.
    input_grow: IntCounter,
    input_shrink: IntCounter,
    input_retained: IntGauge,
}

impl PoolMetrics {
    /// An observer counting into `metrics`, reading totals from `budget`. Resolves only series that
    /// [`Metrics::new`] already created at zero.
    pub fn new(metrics: Arc<Metrics>, budget: Arc<Budget>) -> PoolMetrics {
        PoolMetrics {
            hit: metrics.checkouts.with_label_values(&["hit"]),
            miss: metrics.checkouts.with_label_values(&["miss"]),
            input_grow: metrics.buffer_grow.with_label_values(&[INPUT_BUFFER]),
            input_shrink: metrics.buffer_shrink.with_label_values(&[INPUT_BUFFER]),
            input_retained: metrics.buffer_retained.with_label_values(&[INPUT_BUFFER]),
            metrics,
            budget,
        }
    }
}

impl Observer for PoolMetrics {
    fn on_event(&self, buffer: &'static str, event: &Event) {
        let m = &self.metrics;
        let input = buffer == INPUT_BUFFER;
        match event {
            Event::Grow { .. } if input => self.input_grow.inc(),
            Event::Grow { .. } => m.buffer_grow.with_label_values(&[buffer]).inc(),
            Event::Shrink { .. } if input => self.input_shrink.inc(),
            Event::Shrink { .. } => m.buffer_shrink.with_label_values(&[buffer]).inc(),
            Event::Drop { reason, .. } => {
                m.buffer_drop
                    .with_label_values(&[buffer, reason.as_str()])
                    .inc();
            }
            Event::CheckoutHit => self.hit.inc(),
            Event::CheckoutMiss => self.miss.inc(),
        }
    }

    fn on_retained(&self, buffer: &'static str, _pool_total: usize) {
        let total = i64::try_from(self.budget.retained()).unwrap_or(i64::MAX);
        if buffer == INPUT_BUFFER {
            self.input_retained.set(total);
        } else {
            self.metrics
                .buffer_retained
                .with_label_values(&[buffer])
                .set(total);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_outcome_and_issue_series_are_the_labelled_ones() {
        let m = Metrics::new().unwrap();
        assert!(
            !m.render()
                .unwrap()
                .contains("bidscan_validation_issues_total{")
        );
        m.count_issue("missing_crid", Severity::Warning);
        m.count_issue("missing_crid", Severity::Warning);
        m.count_issue("missing_crid", Severity::Error);
        m.count_outcome("nobid");
        m.count_outcome("nobid");
        m.count_outcome("too_large");
        m.count_outcome("not_in_the_list");
        let issues = |severity| {
            m.issues
                .with_label_values(&["missing_crid", severity])
                .get()
        };
        assert_eq!((issues("warning"), issues("error")), (2, 1));
        let outcome = |o| m.outcomes.with_label_values(&[o]).get();
        assert_eq!(outcome("nobid"), 2);
        assert_eq!(outcome("too_large"), 1);
        assert_eq!(outcome("not_in_the_list"), 1);
        assert_eq!(outcome("bid"), 0);
    }

    #[test]
    fn every_design_metric_is_exposed() {
        let m = Metrics::new().unwrap();
        m.http_requests.with_label_values(&["/decode", "200"]).inc();
        m.http_duration
            .with_label_values(&["/decode"])
            .observe(0.001);
        m.issues
            .with_label_values(&["missing_crid", "warning"])
            .inc();
        let text = m.render().unwrap();
        for name in [
            "bidscan_http_requests_total",
            "bidscan_http_request_duration_seconds",
            "bidscan_decode_duration_seconds",
            "bidscan_document_bytes",
            "bidscan_document_escapes",
            "bidscan_decode_outcomes_total",
            "bidscan_bids_total",
            "bidscan_validation_issues_total",
            "bidscan_buffer_grow_total",
            "bidscan_buffer_shrink_total",
            "bidscan_buffer_drop_total",
            "bidscan_buffer_retained_bytes",
            "bidscan_pool_checkouts_total",
        ] {
            assert!(text.contains(&format!("# TYPE {name} ")), "{name} missing");
        }
        #[cfg(target_os = "linux")]
        assert!(text.contains("process_resident_memory_bytes"));
    }

    #[test]
    fn http_metrics_count_the_series_the_label_lookup_would() {
        let m = Arc::new(Metrics::new().unwrap());
        let http = HttpMetrics::new(m.clone(), &["/decode", "/decode/batch"]);
        let ms = Duration::from_millis(1);
        http.observe(Some("/decode"), StatusCode::OK, ms);
        http.observe(Some("/decode"), StatusCode::OK, ms);
        http.observe(Some("/decode"), StatusCode::IM_A_TEAPOT, ms);
        http.observe(Some("/other"), StatusCode::OK, ms);
        http.observe(None, StatusCode::NOT_FOUND, ms);
        let text = m.render().unwrap();
        assert!(
            !text.contains("route=\"/decode/batch\""),
            "no series before the first request"
        );
        let count =
            |route: &str, status: &str| m.http_requests.with_label_values(&[route, status]).get();
        assert_eq!(count("/decode", "200"), 2);
        assert_eq!(count("/decode", "418"), 1);
        assert_eq!(count("/other", "200"), 1);
        assert_eq!(count("unmatched", "404"), 1);
        let samples = |route: &str| {
            m.http_duration
                .with_label_values(&[route])
                .get_sample_count()
        };
        assert_eq!(samples("/decode"), 3);
        assert_eq!(samples("/other"), 1);
        assert_eq!(samples("unmatched"), 1);
    }

    #[test]
    fn observer_counts_events_and_reads_the_budget() {
        let m = Arc::new(Metrics::new().unwrap());
        let budget = Arc::new(Budget::new(1 << 20));
        let obs = PoolMetrics::new(m.clone(), budget);
        obs.on_event(INPUT_BUFFER, &Event::Grow { from: 0, to: 10 });
        obs.on_event(
            INPUT_BUFFER,
            &Event::Drop {
                reason: DropReason::TooLarge,
                bytes: 10,
            },
        );
        obs.on_event(INPUT_BUFFER, &Event::CheckoutMiss);
        obs.on_retained(INPUT_BUFFER, 123);
        assert_eq!(m.buffer_grow.with_label_values(&[INPUT_BUFFER]).get(), 1);
        assert_eq!(
            m.buffer_drop
                .with_label_values(&[INPUT_BUFFER, "too_large"])
                .get(),
            1
        );
        assert_eq!(m.checkouts.with_label_values(&["miss"]).get(), 1);
        assert_eq!(
            m.buffer_retained.with_label_values(&[INPUT_BUFFER]).get(),
            0
        );
    }
}
