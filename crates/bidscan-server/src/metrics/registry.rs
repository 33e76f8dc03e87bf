//! [`Metrics`]: the server's Prometheus registry — one [`Registry`] per server (not the global default, so several
//! servers can live in one process, as in tests) — with every metric named in docs/metrics.md, the outcome and issue
//! series resolved once, and the text exposition.

use std::sync::{Arc, RwLock};

use crate::metrics::bidders::{BidderMetrics, BidderVecs, Bidders, PRICE_BUCKETS_USD};
use bidscan_openrtb::{AdmKind, Severity};
use bidscan_pool::DropReason;
use prometheus::{
    Encoder, Gauge, Histogram, HistogramVec, IntCounter, IntCounterVec, IntGauge, IntGaugeVec,
    Registry, TextEncoder, register_gauge_with_registry, register_histogram_vec_with_registry,
    register_histogram_with_registry, register_int_counter_vec_with_registry,
    register_int_counter_with_registry, register_int_gauge_vec_with_registry,
    register_int_gauge_with_registry,
};

/// The `kind` labels of `bidscan_adm_total`, in the order of [`adm_index`]; every pair of kind and
/// well-formedness is a series from the first scrape.
const ADM_KINDS: [&str; 4] = ["vast", "native", "html", "none"];

/// Where `kind`'s label is in [`ADM_KINDS`].
fn adm_index(kind: AdmKind) -> usize {
    match kind {
        AdmKind::Vast => 0,
        AdmKind::Native => 1,
        AdmKind::Html => 2,
        AdmKind::None => 3,
    }
}

/// The `reason` labels of `bidscan_capture_dropped_total` (`crate::capture`), every one a series from the start.
pub const CAPTURE_DROP_REASONS: [&str; 4] = ["rate", "queue_full", "disk", "too_large"];

/// Name of the pool of decode buffers (the `buffer` label).
pub const INPUT_BUFFER: &str = "input";

/// Why a request was shed (`bidscan_shed_total{reason}`): `concurrency`, no permit of `server.max_concurrency`
/// was free; `memory`, its bytes did not fit `server.max_inflight_bytes`.
pub const SHED_REASONS: [&str; 2] = ["concurrency", "memory"];

/// What became of a body still arriving after `server.body_grace_ms` (`bidscan_slow_bodies_total{outcome}`):
/// `moved`, its permit given back and the body finished in the slow lane; `refused`, the lane was full, 408.
pub const SLOW_BODY_OUTCOMES: [&str; 2] = ["moved", "refused"];

/// How a decoded document was encoded (`bidscan_decode_outcomes_total{encoding}`): its `Content-Type`'s
/// reading (`engine::Encoding::label`).
pub const ENCODINGS: [&str; 2] = ["json", "protobuf"];

/// Every outcome of a decode (`bidscan_decode_outcomes_total{outcome}`).
pub const OUTCOMES: [&str; 9] = [
    "bid",
    "nobid",
    "malformed",
    "not_a_bid_response",
    "openrtb3_not_supported",
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
    /// `server.send_timeout_secs` ([`crate::transport::conn::send_timeout`]).
    pub send_timeouts: IntCounter,
    /// `bidscan_http2_idle_closes_total`: HTTP/2 connections shut down (`GOAWAY`) because no stream was open for
    /// `server.header_read_timeout_secs` ([`crate::transport::conn::h2_idle`]).
    pub h2_idle_closes: IntCounter,
    /// `bidscan_shed_total{reason}`: requests answered 503 because a limit was reached, reason in
    /// [`SHED_REASONS`].
    pub shed: IntCounterVec,
    /// `bidscan_slow_bodies_total{outcome}`: bodies still arriving after `server.body_grace_ms`, outcome in
    /// [`SLOW_BODY_OUTCOMES`].
    pub slow_bodies: IntCounterVec,
    /// `bidscan_inflight_bytes`: bytes held by requests in flight under `server.max_inflight_bytes`
    /// ([`crate::transport::memory`]); set on each scrape.
    pub inflight_bytes: IntGauge,
    /// `bidscan_decode_duration_seconds`: the synchronous decode and rendering of one document.
    pub decode_duration: Histogram,
    /// `bidscan_document_bytes`: size of each decoded document (after decompression).
    pub document_bytes: Histogram,
    /// `bidscan_document_escapes`: escapes in each decoded document.
    pub document_escapes: Histogram,
    /// `bidscan_decode_outcomes_total{outcome,encoding}`, outcome in [`OUTCOMES`], encoding in [`ENCODINGS`].
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
    /// `bidscan_rates_fetches_total{result}`: reads of the rates source, by result
    /// ([`RESULTS`](crate::gate::fetch::RESULTS)).
    pub rates_fetches: IntCounterVec,
    /// `bidscan_rates_age_seconds`: seconds since the rates source was last read successfully (`+Inf` before
    /// the first success, 0 without a source); set on each scrape.
    pub rates_age: Gauge,
    /// `bidscan_rates_data_as_of_seconds`: the last good currency file's `dataAsOf`, Unix seconds (0 before
    /// the first success or when the file gives none).
    pub rates_data_as_of: Gauge,
    /// `bidscan_config_reloads_total{result}`: `SIGHUP` reloads, `ok` or `error` (the running configuration
    /// kept).
    pub config_reloads: IntCounterVec,
    /// `bidscan_build_info{version,rustc,target}`: 1, labelled with the build.
    pub build_info: IntGaugeVec,
    /// `bidscan_capture_written_total`: capture files written (`crate::capture`).
    pub capture_written: IntCounter,
    /// `bidscan_capture_dropped_total{reason}`: samples not written, by [`CAPTURE_DROP_REASONS`].
    pub capture_dropped: IntCounterVec,
    /// `bidscan_capture_deleted_total`: capture files deleted to keep `capture.max_bytes`.
    pub capture_deleted: IntCounter,
    /// `bidscan_capture_bytes`: bytes of the capture directory's capture files now.
    pub capture_bytes: IntGauge,
    /// The bidder dimension: each `bidder` label value's handles, resolved when `server.bidders` is configured.
    pub bidders: Bidders,
    /// The series of `outcomes`, one per [`OUTCOMES`] entry (in that order) and, within it, per [`ENCODINGS`]
    /// entry, resolved once: counting a decode
    /// then hashes no label.
    outcome_counters: Vec<IntCounter>,
    /// The series of `adm`, two per [`ADM_KINDS`] entry (well-formed, then not), resolved once: counting a bid's
    /// markup then hashes no label (it did once per bid: a lock, a hash and an `Arc` clone).
    adm_counters: Vec<IntCounter>,
    /// The series of `issues` used so far, found by code and severity without hashing labels.
    issue_counters: RwLock<Vec<(&'static str, Severity, IntCounter)>>,
}

impl Metrics {
    /// Creates and registers every metric (the prometheus crate's `register_*_with_registry!` macros), with the
    /// process collector (RSS, CPU, fds) on Linux.
    ///
    /// # Errors
    /// Only on a duplicate registration, which would be a bug.
    pub fn new() -> prometheus::Result<Metrics> {
        let registry = Registry::new();
        let r = &registry;
        let seconds = prometheus::exponential_buckets(1e-5, 2.5, 16)?; // 10 µs .. ~9.3 s
        let bytes = prometheus::exponential_buckets(256.0, 4.0, 9)?; // 256 B .. 16 MiB
        let escapes = prometheus::exponential_buckets(1.0, 4.0, 10)?; // 1 .. 262144
        let bidder_vecs = BidderVecs {
            outcomes: register_int_counter_vec_with_registry!(
                "bidscan_bidder_outcomes_total",
                "Decode results by bidder (server.bidders; other, unknown) and outcome.",
                &["bidder", "outcome"],
                r
            )?,
            rejections: register_int_counter_vec_with_registry!(
                "bidscan_bidder_rejections_total",
                "Bids rejected (and, in an auction, imps not bid), by bidder and seat-non-bid status code.",
                &["bidder", "statuscode"],
                r
            )?,
            price_usd: register_histogram_vec_with_registry!(
                "bidscan_bidder_bid_price_usd",
                "Bid prices by bidder, converted to USD with the gate's rates.",
                &["bidder"],
                PRICE_BUCKETS_USD.to_vec(),
                r
            )?,
            unconverted: register_int_counter_vec_with_registry!(
                "bidscan_bidder_bid_price_unconverted_total",
                "Bids whose price could not be converted to USD (no price, or no rate from its currency), by bidder.",
                &["bidder"],
                r
            )?,
            response_bytes: register_histogram_vec_with_registry!(
                "bidscan_bidder_response_bytes",
                "Size of each bidder's response (after decompression), in bytes.",
                &["bidder"],
                bytes.clone(),
                r
            )?,
            not_encodable: register_int_counter_vec_with_registry!(
                "bidscan_bidder_not_encodable_total",
                "Responses that could not be answered as protobuf (an integer outside int32), by bidder.",
                &["bidder"],
                r
            )?,
        };
        let mut m = Metrics {
            http_requests: register_int_counter_vec_with_registry!(
                "bidscan_http_requests_total",
                "HTTP requests by route template and status code.",
                &["route", "status"],
                r
            )?,
            http_duration: register_histogram_vec_with_registry!(
                "bidscan_http_request_duration_seconds",
                "Time from request to response head, by route template, in seconds.",
                &["route"],
                seconds.clone(),
                r
            )?,
            connections: register_int_gauge_with_registry!(
                "bidscan_http_connections",
                "Client connections open now.",
                r
            )?,
            connection_limit_reached: register_int_counter_with_registry!(
                "bidscan_http_connection_limit_reached_total",
                "Times every connection slot (server.max_connections) was taken and accepting waited.",
                r
            )?,
            send_timeouts: register_int_counter_with_registry!(
                "bidscan_http_send_timeouts_total",
                "Connections reset because the client took no byte of an answer for server.send_timeout_secs.",
                r
            )?,
            h2_idle_closes: register_int_counter_with_registry!(
                "bidscan_http2_idle_closes_total",
                "HTTP/2 connections closed (GOAWAY) after server.header_read_timeout_secs without an open stream.",
                r
            )?,
            shed: register_int_counter_vec_with_registry!(
                "bidscan_shed_total",
                "Requests answered 503 because a limit was reached, by reason (concurrency, memory).",
                &["reason"],
                r
            )?,
            slow_bodies: register_int_counter_vec_with_registry!(
                "bidscan_slow_bodies_total",
                "Decode request bodies still arriving after server.body_grace_ms: moved to the slow lane, or refused (408) when it was full.",
                &["outcome"],
                r
            )?,
            inflight_bytes: register_int_gauge_with_registry!(
                "bidscan_inflight_bytes",
                "Bytes held by requests in flight, under server.max_inflight_bytes.",
                r
            )?,
            decode_duration: register_histogram_with_registry!(
                "bidscan_decode_duration_seconds",
                "Time to decode, validate and render one document, in seconds.",
                seconds,
                r
            )?,
            document_bytes: register_histogram_with_registry!(
                "bidscan_document_bytes",
                "Size of each document decoded (after decompression), in bytes.",
                bytes.clone(),
                r
            )?,
            document_escapes: register_histogram_with_registry!(
                "bidscan_document_escapes",
                "JSON escapes in each document decoded.",
                escapes,
                r
            )?,
            outcomes: register_int_counter_vec_with_registry!(
                "bidscan_decode_outcomes_total",
                "Decode results by outcome and body encoding.",
                &["outcome", "encoding"],
                r
            )?,
            bids: register_int_counter_with_registry!(
                "bidscan_bids_total",
                "Bids in the documents decoded.",
                r
            )?,
            issues: register_int_counter_vec_with_registry!(
                "bidscan_validation_issues_total",
                "Issues reported, by code and severity.",
                &["code", "severity"],
                r
            )?,
            bid_rejections: register_int_counter_vec_with_registry!(
                "bidscan_bid_rejections_total",
                "Bids rejected by /validate, by the first enforced rule and its seat-non-bid status code.",
                &["rule", "statuscode"],
                r
            )?,
            adm: register_int_counter_vec_with_registry!(
                "bidscan_adm_total",
                "Bids whose ad markup was inspected, by kind (vast, native, html, none) and well_formed \
                 (false: VAST that is not well-formed XML, native that is not a native response).",
                &["kind", "well_formed"],
                r
            )?,
            buffer_grow: register_int_counter_vec_with_registry!(
                "bidscan_buffer_grow_total",
                "Pooled buffers that grew while decoding.",
                &["buffer"],
                r
            )?,
            buffer_shrink: register_int_counter_vec_with_registry!(
                "bidscan_buffer_shrink_total",
                "Pooled buffers shrunk by the retention policy.",
                &["buffer"],
                r
            )?,
            buffer_drop: register_int_counter_vec_with_registry!(
                "bidscan_buffer_drop_total",
                "Pooled buffers released instead of kept, by reason.",
                &["buffer", "reason"],
                r
            )?,
            buffer_retained: register_int_gauge_vec_with_registry!(
                "bidscan_buffer_retained_bytes",
                "Bytes held by idle pooled buffers, all workers together.",
                &["buffer"],
                r
            )?,
            checkouts: register_int_counter_vec_with_registry!(
                "bidscan_pool_checkouts_total",
                "Pool check-outs: hit (reused) or miss (new).",
                &["result"],
                r
            )?,
            rates_fetches: register_int_counter_vec_with_registry!(
                "bidscan_rates_fetches_total",
                "Reads of the rates source (validate.rates_source), by result: ok, http_error, timeout, \
                 too_large, invalid, io.",
                &["result"],
                r
            )?,
            rates_age: register_gauge_with_registry!(
                "bidscan_rates_age_seconds",
                "Seconds since the rates source was last read successfully (+Inf before the first success, 0 \
                 without a source).",
                r
            )?,
            rates_data_as_of: register_gauge_with_registry!(
                "bidscan_rates_data_as_of_seconds",
                "The dataAsOf of the last good currency file, in Unix seconds (0 before the first success).",
                r
            )?,
            config_reloads: register_int_counter_vec_with_registry!(
                "bidscan_config_reloads_total",
                "Configuration reloads (SIGHUP), by result: ok, or error (the running configuration kept).",
                &["result"],
                r
            )?,
            build_info: register_int_gauge_vec_with_registry!(
                "bidscan_build_info",
                "1, labelled with the version, the rustc that compiled it and the target triple.",
                &["version", "rustc", "target"],
                r
            )?,
            capture_written: register_int_counter_with_registry!(
                "bidscan_capture_written_total",
                "Capture files written to capture.dir.",
                r
            )?,
            capture_dropped: register_int_counter_vec_with_registry!(
                "bidscan_capture_dropped_total",
                "Captures not written, by reason: rate (the bidder's per-minute budget spent), queue_full, disk (a failed write), too_large (larger than capture.max_bytes).",
                &["reason"],
                r
            )?,
            capture_deleted: register_int_counter_with_registry!(
                "bidscan_capture_deleted_total",
                "Capture files deleted, oldest first, to keep capture.max_bytes.",
                r
            )?,
            capture_bytes: register_int_gauge_with_registry!(
                "bidscan_capture_bytes",
                "Bytes of the capture files in capture.dir now.",
                r
            )?,
            bidders: Bidders::new(bidder_vecs),
            outcome_counters: Vec::new(),
            adm_counters: Vec::new(),
            issue_counters: RwLock::new(Vec::new()),
            registry,
        };
        #[cfg(target_os = "linux")]
        m.registry.register(Box::new(
            crate::metrics::process::ProcessMetrics::for_self()?
        ))?;
        m.initialize_labels();
        m.build_info
            .with_label_values(&[
                env!("CARGO_PKG_VERSION"),
                env!("BIDSCAN_RUSTC_VERSION"),
                env!("BIDSCAN_TARGET"),
            ])
            .set(1);
        m.outcome_counters = OUTCOMES
            .iter()
            .flat_map(|o| ENCODINGS.map(|e| (o, e)))
            .map(|(o, e)| m.outcomes.with_label_values(&[o, e]))
            .collect();
        m.adm_counters = ADM_KINDS
            .iter()
            .flat_map(|kind| [(kind, "true"), (kind, "false")])
            .map(|(kind, well_formed)| m.adm.with_label_values(&[kind, well_formed]))
            .collect();
        Ok(m)
    }

    /// The handles of the bidder named `name` (`None`: `unknown`; a name `server.bidders` does not list:
    /// `other`), from the table in force. For several bidders of one request, take [`Bidders::table`] once and
    /// call its `get` for each.
    pub fn bidder(&self, name: Option<&str>) -> Arc<BidderMetrics> {
        self.bidders.resolve(name)
    }

    /// Counts one decode with `outcome` (one of [`OUTCOMES`]; another name goes through the label lookup) of a
    /// body in `encoding` (one of [`ENCODINGS`]).
    pub fn count_outcome(&self, outcome: &str, encoding: &str) {
        match (
            OUTCOMES.iter().position(|&o| o == outcome),
            ENCODINGS.iter().position(|&e| e == encoding),
        ) {
            (Some(i), Some(j)) => self.outcome_counters[i * ENCODINGS.len() + j].inc(),
            _ => self.outcomes.with_label_values(&[outcome, encoding]).inc(),
        }
    }

    /// Counts one bid whose markup was inspected as `kind` (`bidscan_adm_total{kind,well_formed}`).
    pub fn count_adm(&self, kind: AdmKind, well_formed: bool) {
        self.adm_counters[2 * adm_index(kind) + usize::from(!well_formed)].inc();
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

    /// Creates the known label sets at zero, so every series exists from the first scrape.
    fn initialize_labels(&self) {
        for outcome in OUTCOMES {
            for encoding in ENCODINGS {
                self.outcomes.with_label_values(&[outcome, encoding]);
            }
        }
        for result in crate::gate::fetch::RESULTS {
            self.rates_fetches.with_label_values(&[result]);
        }
        for result in ["ok", "error"] {
            self.config_reloads.with_label_values(&[result]);
        }
        for reason in SHED_REASONS {
            self.shed.with_label_values(&[reason]);
        }
        for outcome in SLOW_BODY_OUTCOMES {
            self.slow_bodies.with_label_values(&[outcome]);
        }
        for reason in CAPTURE_DROP_REASONS {
            self.capture_dropped.with_label_values(&[reason]);
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

    /// The registry, for collectors registered outside this file (the TLS metrics, `crate::transport::tls`).
    pub fn registry(&self) -> &Registry {
        &self.registry
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_adm_series_are_the_labelled_ones_and_exist_from_the_start() {
        let m = Metrics::new().unwrap();
        let text = m.render().unwrap();
        for kind in ADM_KINDS {
            for wf in ["true", "false"] {
                let series = format!("bidscan_adm_total{{kind=\"{kind}\",well_formed=\"{wf}\"}} 0");
                assert!(text.contains(&series), "{series} missing");
            }
        }
        let kinds = [AdmKind::Vast, AdmKind::Native, AdmKind::Html, AdmKind::None];
        // Count kind i well-formed i+1 times and not well-formed 10*(i+1) times.
        for (i, kind) in kinds.into_iter().enumerate() {
            for _ in 0..=i {
                m.count_adm(kind, true);
            }
            for _ in 0..10 * (i + 1) {
                m.count_adm(kind, false);
            }
        }
        let got = |kind, wf| m.adm.with_label_values(&[kind, wf]).get();
        for (i, label) in ["vast", "native", "html", "none"].into_iter().enumerate() {
            let n = i as u64 + 1;
            assert_eq!(
                (got(label, "true"), got(label, "false")),
                (n, 10 * n),
                "{label}"
            );
        }
    }

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
        m.count_outcome("nobid", "json");
        m.count_outcome("nobid", "json");
        m.count_outcome("too_large", "json");
        m.count_outcome("not_in_the_list", "json");
        m.count_outcome("bid", "protobuf");
        let issues = |severity| {
            m.issues
                .with_label_values(&["missing_crid", severity])
                .get()
        };
        assert_eq!((issues("warning"), issues("error")), (2, 1));
        let outcome = |o| m.outcomes.with_label_values(&[o, "json"]).get();
        assert_eq!(outcome("nobid"), 2);
        assert_eq!(outcome("too_large"), 1);
        assert_eq!(outcome("not_in_the_list"), 1);
        assert_eq!(outcome("bid"), 0);
        assert_eq!(m.outcomes.with_label_values(&["bid", "protobuf"]).get(), 1);
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

    /// `(name, type, labels)` of every `register_*_with_registry!` call in this file's code, read from its
    /// source: every metric [`Metrics::new`] registers, whatever the fields are.
    fn registered() -> Vec<(String, &'static str, Vec<String>)> {
        let source = crate::doc_tests::read("crates/bidscan-server/src/metrics/registry.rs");
        let code = source.split("#[cfg(test)]").next().unwrap();
        let mut found = Vec::new();
        for (before, after) in code
            .split("_with_registry!(")
            .zip(code.split("_with_registry!(").skip(1))
        {
            let kind = before.rsplit("register_").next().unwrap();
            let kind = if kind.contains("histogram") {
                "histogram"
            } else if kind.contains("counter") {
                "counter"
            } else if kind.contains("gauge") {
                "gauge"
            } else {
                panic!("register_{kind}: a kind the doc test does not know")
            };
            let name = after.split('"').nth(1).unwrap().to_owned();
            // The help text: the next literal, which may hold escaped quotes; the labels follow it, if any.
            let help_and_rest = after.splitn(3, '"').nth(2).unwrap();
            let help_start = help_and_rest.find('"').unwrap() + 1;
            let mut escaped = false;
            let help_end = help_and_rest[help_start..]
                .char_indices()
                .find(|&(_, c)| {
                    let close = c == '"' && !escaped;
                    escaped = c == '\\' && !escaped;
                    close
                })
                .unwrap()
                .0;
            let rest = help_and_rest[help_start + help_end + 1..]
                .trim_start()
                .trim_start_matches(',')
                .trim_start();
            let labels = match rest.strip_prefix("&[") {
                Some(list) => list
                    .split(']')
                    .next()
                    .unwrap()
                    .split('"')
                    .skip(1)
                    .step_by(2)
                    .map(str::to_owned)
                    .collect(),
                None => Vec::new(),
            };
            found.push((name, kind, labels));
        }
        found
    }

    #[test]
    fn the_metrics_doc_is_the_registry() {
        use crate::doc_tests::{code_spans, first_code, read, table_rows};
        let doc = read("docs/metrics.md");
        let documented: std::collections::BTreeMap<String, (String, Vec<String>)> =
            table_rows(&doc, &["metric", "type", "labels", "meaning"])
                .into_iter()
                .map(|row| {
                    let labels = code_spans(&row[2]).into_iter().map(str::to_owned).collect();
                    (first_code(&row[0]).to_owned(), (row[1].clone(), labels))
                })
                .collect();
        let mut expected: std::collections::BTreeMap<String, (String, Vec<String>)> = registered()
            .into_iter()
            .map(|(name, kind, labels)| (name, (kind.to_owned(), labels)))
            .collect();
        assert!(
            expected.len() >= 20,
            "too few registrations read: {expected:?}"
        );
        #[cfg(target_os = "linux")]
        {
            use prometheus::core::Collector;
            use prometheus::proto::MetricType;
            // Names from the descriptors (a series such as `process_virtual_memory_max_bytes` is only collected
            // where the limit is set); types from what is collected here, the doc's for the rest.
            let process = crate::metrics::process::ProcessMetrics::for_self().unwrap();
            let types: std::collections::BTreeMap<String, &str> = process
                .collect()
                .iter()
                .map(|family| {
                    let kind = match family.get_field_type() {
                        MetricType::COUNTER => "counter",
                        MetricType::GAUGE => "gauge",
                        other => panic!("{}: {other:?}", family.name()),
                    };
                    (family.name().to_owned(), kind)
                })
                .collect();
            for desc in process.desc() {
                let name = desc.fq_name.clone();
                let kind = types
                    .get(&name)
                    .map(|k| (*k).to_owned())
                    .or_else(|| documented.get(&name).map(|(k, _)| k.clone()))
                    .unwrap_or_else(|| panic!("{name} is not in docs/metrics.md"));
                expected.insert(name, (kind, desc.variable_labels.clone()));
            }
        }
        // The TLS metrics, from a real registration on a server's registry and its scrape.
        let m = Metrics::new().unwrap();
        {
            use prometheus::proto::MetricType;
            let dir = tempfile::tempdir().unwrap();
            let cert = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
            let config = crate::transport::tls::TlsConfig {
                cert: Some(dir.path().join("tls.crt")),
                key: Some(dir.path().join("tls.key")),
                client_ca: None,
            };
            std::fs::write(config.cert.as_ref().unwrap(), cert.cert.pem()).unwrap();
            std::fs::write(
                config.key.as_ref().unwrap(),
                cert.signing_key.serialize_pem(),
            )
            .unwrap();
            let tls = std::sync::Arc::new(crate::transport::tls::Tls::load(&config).unwrap());
            crate::transport::tls::TlsMetrics::register(m.registry(), tls).unwrap();
            for family in m.registry().gather() {
                let name = family.name().to_owned();
                if !name.starts_with("bidscan_tls_") {
                    continue;
                }
                let kind = match family.get_field_type() {
                    MetricType::COUNTER => "counter",
                    MetricType::GAUGE => "gauge",
                    other => panic!("{name}: {other:?}"),
                };
                let labels = family.get_metric()[0]
                    .get_label()
                    .iter()
                    .map(|l| l.name().to_owned())
                    .collect();
                expected.insert(name, (kind.to_owned(), labels));
            }
        }
        // Every registered metric is exposed (the labelled ones once they have a series).
        let text = m.render().unwrap();
        for (name, (kind, labels)) in &expected {
            if labels.is_empty() {
                assert!(
                    text.contains(&format!("# TYPE {name} {kind}")),
                    "{name} not exposed"
                );
            }
        }
        assert_eq!(
            documented, expected,
            "docs/metrics.md's tables are not the registry (name, type, labels)"
        );
    }
}
