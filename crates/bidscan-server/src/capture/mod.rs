//! Sampled capture of bad answers (`[capture]`): with `capture.dir` set, the body of a document that was refused
//! or had a bid rejected is written there, at most `capture.per_minute` per bidder label, within
//! `capture.max_bytes`, off the request path. docs/operations.md, "Captures", says what a file may hold.
//!
//! - [`Capture`]: the per-bidder budget ([`limit`]), the bounded queue (`std::sync::mpsc::sync_channel` of
//!   `capture.queue`) and the writer thread `bidscan-capture` ([`writer`]) that owns the directory;
//! - the pipeline hands a capture each answer ([`Capture::judged`], [`Capture::refused`], [`Capture::auction`]);
//!   only a bad one makes a `Ticket`: the request's id, query and headers, taken then.
//!
//! # What costs what
//! Off, the pipeline holds `None` and takes no copy. On, a good answer costs a match (`/validate`: a look at its
//! answer's end for `seatnonbid`; `/validate/auction`: a look at each bidder's verdicts as the engine judged them,
//! `Engine::auction_judged`, the same for a JSON and a protobuf answer), and a body is never copied on the request path: the
//! frames a plain body arrived in are immutable, reference-counted [`Bytes`] (the engine decodes a copy of them,
//! `Engine::with_input`), so a sample holds references to them. Only a compressed body needs its wire frames
//! kept while it inflates ([`tee::Tee`]), and only when the bidder's budget has room. The budget is taken when
//! the answer is bad; an over-budget bidder costs a lock and a count. Rendering, `/validate`'s envelope cut to its
//! response, and the write happen on the writer thread.
//!
//! # Wire bytes
//! A body is captured as received: before its `Content-Encoding` is undone (recorded as the section's
//! `encoding`), so a body that fails to inflate is captured too. The exception is `/validate` with
//! `capture.include_request` off: its wire bytes hold the request, so the `response` member of the inflated
//! envelope is written instead (`encoding` `null`), and an envelope that does not inflate is withheld, as is an
//! auction's multipart body that does not inflate.

pub mod config;
pub mod limit;
pub mod sample;
pub mod tee;
pub mod writer;

use std::io;
use std::sync::Arc;
use std::sync::mpsc::{SyncSender, TrySendError, sync_channel};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::extract::Query;
use axum::http::{HeaderMap, HeaderValue, Uri, header};
use bytes::Bytes;
use prometheus::IntCounter;
use serde::Deserialize;

use crate::engine::auction::BidderVerdict;
use crate::engine::{Answer, Encoding, Options, Work};
use crate::error::{ApiError, ErrorCode};
use crate::metrics::{BidderMetrics, Metrics};
use crate::routes::auction_parts::{multipart, part_encoding};
use crate::routes::layers::request::current;
use crate::transport::body::{Frames, protobuf_type};
pub use config::CaptureConfig;
use limit::Limiter;
use sample::{NonBid, Sample, Section, Verdict};

/// A running capture: the budgets, the queue to the writer thread, the counters. Shared (`Arc`) by the routes.
pub struct Capture {
    limiter: Limiter,
    queue: SyncSender<Sample>,
    include_request: bool,
    metrics: Arc<Metrics>,
    rate: IntCounter,
    queue_full: IntCounter,
}

impl Capture {
    /// Starts capturing as `config` says, counting into `metrics`: `None` when `capture.dir` is unset. Opens
    /// (or makes, mode 0700) the directory, counts its capture files and starts the writer thread.
    ///
    /// # Errors
    /// The directory cannot be made or listed, or the thread cannot be started.
    pub fn start(
        config: &CaptureConfig,
        metrics: &Arc<Metrics>,
    ) -> io::Result<Option<Arc<Capture>>> {
        let Some(path) = &config.dir else {
            return Ok(None);
        };
        let dir = writer::Dir::open(path, config.max_bytes)?;
        let (queue, rx) = sync_channel(config.queue);
        let dropped = |reason: &str| metrics.capture_dropped.with_label_values(&[reason]);
        let counters = writer::Counters {
            written: metrics.capture_written.clone(),
            deleted: metrics.capture_deleted.clone(),
            bytes: metrics.capture_bytes.clone(),
            too_large: dropped("too_large"),
            disk: dropped("disk"),
        };
        std::thread::Builder::new()
            .name("bidscan-capture".to_owned())
            .spawn(move || writer::run(rx, dir, counters))?;
        Ok(Some(Arc::new(Capture::with_queue(config, queue, metrics))))
    }

    /// A capture feeding `queue` (whoever reads it), for `start` and the tests.
    fn with_queue(
        config: &CaptureConfig,
        queue: SyncSender<Sample>,
        metrics: &Arc<Metrics>,
    ) -> Capture {
        let dropped = |reason: &str| metrics.capture_dropped.with_label_values(&[reason]);
        Capture {
            limiter: Limiter::new(config.per_minute),
            queue,
            include_request: config.include_request,
            metrics: metrics.clone(),
            rate: dropped("rate"),
            queue_full: dropped("queue_full"),
        }
    }

    /// Whether `label` has budget left this minute (nothing taken).
    fn has_room(&self, label: &str) -> bool {
        self.limiter.has_room(label, minute(now_ms()))
    }

    /// Takes one of `label`'s samples of this minute; counts `rate` when its budget is spent.
    fn take(&self, label: &str) -> bool {
        let ok = self.limiter.take(label, minute(now_ms()));
        if !ok {
            self.rate.inc();
        }
        ok
    }

    /// A sink for a compressed body's wire frames ([`tee::Tee`]) while it inflates, when they may be written
    /// (on `/validate` and `/validate/auction` they hold the request: only with `capture.include_request`) and
    /// `bidder`'s budget has room now; `None` otherwise.
    pub fn wire_sink(&self, work: Work, bidder: Option<&BidderMetrics>) -> Option<tee::Seen> {
        let wanted = work == Work::Decode || self.include_request;
        (wanted && self.has_room(label(bidder))).then(tee::Seen::default)
    }

    /// A body of `work` to `route` refused while it was received (`e`): captured when it failed to inflate (400
    /// `bad_encoding`), as far as it arrived (`wire`, from [`wire_sink`](Self::wire_sink)). `headers`: the
    /// request's.
    pub fn refused(
        self: &Arc<Self>,
        route: &'static str,
        work: Work,
        e: &ApiError,
        options: &Options,
        headers: &HeaderMap,
        wire: Option<tee::Seen>,
    ) {
        if e.code == ErrorCode::BadEncoding && self.take(label(options.bidder.as_deref())) {
            Ticket::now(self, route, headers, wire).refused(work, e, options);
        }
    }

    /// The answer `result` of `work` (`/decode`, `/validate`) to `route` on the body `frames` (its codings undone;
    /// `wire`, from [`wire_sink`](Self::wire_sink), its wire frames): captured when it is 400 or 422, or
    /// (`/validate`) a bid was rejected. A good answer costs a match (on `/validate`, a look at its end).
    #[allow(clippy::too_many_arguments)]
    pub fn judged(
        self: &Arc<Self>,
        route: &'static str,
        work: Work,
        result: &Result<Answer, ApiError>,
        frames: &Frames,
        options: &Options,
        headers: &HeaderMap,
        wire: Option<tee::Seen>,
    ) {
        // The budget is taken before anything is made: an over-budget bidder costs a lock and a count.
        let verdict = match result {
            Err(e) if e.status.as_u16() == 400 || e.status.as_u16() == 422 => {
                if !self.take(label(options.bidder.as_deref())) {
                    return;
                }
                error_verdict(e)
            }
            Ok(answer) if work == Work::Validate => match rejections(&answer.json) {
                Some(nonbid) if self.take(label(options.bidder.as_deref())) => Verdict {
                    status: 200,
                    nonbid,
                    ..Verdict::default()
                },
                _ => return,
            },
            _ => return,
        };
        Ticket::now(self, route, headers, wire).judged(work, verdict, frames, options);
    }

    /// An auction to `route` on its multipart body `wire` (its HTTP codings undone), sent with `headers`, whose
    /// answer turned down the bidders `turned` (`Engine::auction_judged`, from the judged auction whichever
    /// encoding the answer has): see [`Ticket::auction`]. Nothing turned down (a good auction, a call-level
    /// error) costs nothing more.
    pub fn auction(
        self: &Arc<Self>,
        route: &'static str,
        turned: Vec<BidderVerdict>,
        wire: &[Bytes],
        headers: &HeaderMap,
        max_parts: usize,
    ) {
        if turned.is_empty() {
            return;
        }
        let content_type = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        Ticket::now(self, route, headers, None).auction(turned, wire, content_type, max_parts);
    }

    /// Queues `sample` for the writer, or counts it `queue_full`.
    fn send(&self, sample: Sample) {
        match self.queue.try_send(sample) {
            Ok(()) => {}
            // The writer thread gone (it never returns while a sender lives): counted as a full queue.
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => self.queue_full.inc(),
        }
    }
}

/// What a capture takes of a request once its answer is known to be bad: the request's id and query (from its
/// scope, `routes::layers::request::current`), headers, and the wire frames of a compressed body.
struct Ticket {
    capture: Arc<Capture>,
    id: HeaderValue,
    route: &'static str,
    uri: Uri,
    x_bidder: Option<HeaderValue>,
    content_encoding: Option<HeaderValue>,
    /// The body's format: protobuf under a protobuf `Content-Type` (`/decode`), else JSON.
    format: Encoding,
    /// A compressed body's wire frames, kept by [`tee::Tee`] when the budget had room.
    wire: Option<tee::Seen>,
}

impl Ticket {
    /// The ticket of the request being served on this thread, to `route`, with `headers`.
    fn now(
        capture: &Arc<Capture>,
        route: &'static str,
        headers: &HeaderMap,
        wire: Option<tee::Seen>,
    ) -> Ticket {
        let (id, uri) = current().unwrap_or_else(|| (HeaderValue::from_static(""), Uri::default()));
        Ticket {
            capture: capture.clone(),
            id,
            route,
            uri,
            x_bidder: headers.get("x-bidder").cloned(),
            content_encoding: headers.get(header::CONTENT_ENCODING).cloned(),
            format: match protobuf_type(headers) {
                Some(_) => Encoding::Protobuf,
                None => Encoding::Json,
            },
            wire,
        }
    }

    /// A body that failed to inflate, as far as it arrived; its budget taken.
    fn refused(self, work: Work, e: &ApiError, options: &Options) {
        let bidder = label(options.bidder.as_deref());
        let wire = self.wire_frames();
        let (sections, withheld) = match (work, self.capture.include_request) {
            (Work::Validate | Work::Auction, false) => (
                Vec::new(),
                Some("the body did not inflate, and capture.include_request is off"),
            ),
            _ => (vec![self.wire_section(work, wire)], None),
        };
        let sample = self.sample(bidder, error_verdict(e), sections, false, withheld);
        self.capture.send(sample);
    }

    /// A bad answer of `work` (`/decode`, `/validate`), `verdict`, on the body `frames` (its codings undone); its
    /// budget taken.
    fn judged(self, work: Work, verdict: Verdict, frames: &Frames, options: &Options) {
        let bidder = label(options.bidder.as_deref());
        let response_only = work == Work::Validate && !self.capture.include_request;
        let section = if response_only {
            Section {
                name: "envelope",
                encoding: None,
                format: Encoding::Json,
                chunks: frames.chunks.clone(),
            }
        } else {
            match self.wire_frames() {
                Some(wire) => self.wire_section(work, Some(wire)),
                None => Section {
                    name: section_name(work),
                    encoding: None,
                    format: self.format,
                    chunks: frames.chunks.clone(),
                },
            }
        };
        let sample = self.sample(bidder, verdict, vec![section], response_only, None);
        self.capture.send(sample);
    }

    /// The bidders `turned` down by an auction's answer (`invalid`, or with a rejected bid), on its multipart body
    /// `wire` (its HTTP codings undone), sent with `content_type`: each is captured under its own budget, its
    /// part's bytes as in the body (a compressed part still compressed); the `request` part with it only with
    /// `capture.include_request`.
    fn auction(
        self,
        turned: Vec<BidderVerdict>,
        wire: &[Bytes],
        content_type: &str,
        max_parts: usize,
    ) {
        let capture = &self.capture;
        let table = capture.metrics.bidders.table();
        let bad: Vec<(BidderVerdict, &str)> = turned
            .into_iter()
            .filter_map(|b| {
                let label = table.get(Some(b.bidder.as_str())).label();
                capture.take(label).then_some((b, label))
            })
            .collect();
        if bad.is_empty() {
            return;
        }
        let mut body = Vec::with_capacity(wire.iter().map(Bytes::len).sum());
        for chunk in wire {
            body.extend_from_slice(chunk);
        }
        let body = Bytes::from(body);
        let Ok(boundary) = multipart::boundary(content_type) else {
            return;
        };
        let Ok(parts) = multipart::read(&body, boundary, max_parts) else {
            return;
        };
        for (judged, label) in bad {
            // A status part (timeout, unreachable) has no body to keep.
            let Some(part) = parts
                .bidders
                .iter()
                .find(|p| p.name == judged.bidder && p.status.is_none())
            else {
                continue;
            };
            let mut sections = Vec::with_capacity(2);
            if capture.include_request {
                sections.push(Section {
                    name: "request",
                    encoding: parts.request_encoding.clone(),
                    format: part_encoding(&body, parts.request_content_type.as_ref()),
                    chunks: vec![body.slice(parts.request.clone())],
                });
            }
            sections.push(Section {
                name: "response",
                encoding: part.content_encoding.clone(),
                format: part_encoding(&body, part.content_type.as_ref()),
                chunks: vec![body.slice(part.content.clone())],
            });
            let (error, message) = match judged.error {
                Some((code, message)) => (Some(code), Some(message)),
                None => (None, None),
            };
            let verdict = Verdict {
                status: 200,
                error,
                message,
                bidder_status: Some(judged.status),
                nonbid: judged
                    .nonbid
                    .into_iter()
                    .map(|(impid, statuscode)| NonBid {
                        impid: impid.unwrap_or_default(),
                        statuscode,
                    })
                    .collect(),
            };
            let mut sample = self.sample(label, verdict, sections, false, None);
            sample.bidder_name = Some(judged.bidder);
            capture.send(sample);
        }
    }

    fn wire_frames(&self) -> Option<Vec<Bytes>> {
        let seen = self.wire.as_ref()?;
        Some(std::mem::take(
            &mut *seen.lock().unwrap_or_else(|e| e.into_inner()),
        ))
    }

    /// The body as received: the kept wire frames in the request's `Content-Encoding`.
    fn wire_section(&self, work: Work, wire: Option<Vec<Bytes>>) -> Section {
        Section {
            name: section_name(work),
            encoding: self.content_encoding.as_ref().map(text),
            format: self.format,
            chunks: wire.unwrap_or_default(),
        }
    }

    fn sample(
        &self,
        bidder: &str,
        verdict: Verdict,
        sections: Vec<Section>,
        response_only: bool,
        withheld: Option<&'static str>,
    ) -> Sample {
        Sample {
            request_id: text(&self.id),
            route: self.route,
            bidder: bidder.to_owned(),
            bidder_name: self.bidder_name(),
            content_encoding: self.content_encoding.as_ref().map(text),
            verdict,
            sections,
            response_only,
            withheld,
            time_unix_ms: now_ms(),
        }
    }

    /// The bidder's name as sent: `?bidder=` (its first value), else `X-Bidder`.
    fn bidder_name(&self) -> Option<String> {
        #[derive(Deserialize)]
        struct Named {
            bidder: Option<String>,
        }
        let query = Query::<Named>::try_from_uri(&self.uri)
            .ok()
            .and_then(|q| q.0.bidder);
        query.or_else(|| self.x_bidder.as_ref().map(text))
    }
}

/// The part of `/validate`'s answer a capture reads: the rejections of its `seatnonbid`, `None` when there are
/// none. `seatnonbid` is the answer's last member but `stats` (numbers only), so the key's last occurrence is
/// the answer's own, found from the end.
fn rejections(json: &[u8]) -> Option<Vec<NonBid>> {
    const KEY: &[u8] = b"\"seatnonbid\":";
    let at = memchr::memmem::rfind(json, KEY)? + KEY.len();
    if json[at..].starts_with(b"[]") {
        return None;
    }
    let mut de = serde_json::Deserializer::from_slice(&json[at..]);
    let seats = Vec::<SeatNonBid>::deserialize(&mut de).ok()?;
    let nonbid: Vec<NonBid> = seats.into_iter().flat_map(|s| s.nonbid).collect();
    (!nonbid.is_empty()).then_some(nonbid)
}

#[derive(Deserialize)]
struct SeatNonBid {
    #[serde(default)]
    nonbid: Vec<NonBid>,
}

fn error_verdict(e: &ApiError) -> Verdict {
    Verdict {
        status: e.status.as_u16(),
        error: Some(e.code.as_str()),
        message: Some(e.message.clone()),
        ..Verdict::default()
    }
}

/// The name of a whole body's section: `/validate`'s envelope, an auction's multipart body, a response.
fn section_name(work: Work) -> &'static str {
    match work {
        Work::Validate => "envelope",
        Work::Auction => "multipart",
        Work::Decode => "response",
    }
}

/// A request's bidder label: `unknown` when it names none (the command line never captures).
fn label(bidder: Option<&BidderMetrics>) -> &str {
    bidder.map_or(crate::metrics::bidders::UNKNOWN, BidderMetrics::label)
}

fn text(v: &HeaderValue) -> String {
    String::from_utf8_lossy(v.as_bytes()).into_owned()
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The minute (since the Unix epoch) of `ms`, the rate limit's window.
fn minute(ms: u64) -> u64 {
    ms / 60_000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_queue_drops_the_sample_and_counts_it() {
        let metrics = Arc::new(Metrics::new().unwrap());
        let config = CaptureConfig {
            queue: 1,
            ..CaptureConfig::default()
        };
        // A real bounded channel whose reader takes nothing: the writer thread busy.
        let (tx, rx) = sync_channel(config.queue);
        let capture = Capture::with_queue(&config, tx, &metrics);
        let sample = || Sample {
            request_id: "r".into(),
            route: "/decode",
            bidder: "unknown".into(),
            bidder_name: None,
            content_encoding: None,
            verdict: Verdict::default(),
            sections: Vec::new(),
            response_only: false,
            withheld: None,
            time_unix_ms: 0,
        };
        capture.send(sample());
        capture.send(sample());
        capture.send(sample());
        let full = metrics
            .capture_dropped
            .with_label_values(&["queue_full"])
            .get();
        assert_eq!(full, 2);
        assert_eq!(rx.try_iter().count(), 1, "the first waits for the writer");
    }

    #[test]
    fn rejections_are_read_from_the_answers_end() {
        let answer = br#"{"status":"bid","response":{"ext":{"seatnonbid":[{"nonbid":[{"impid":"x","statuscode":1}]}]}},"seatnonbid":[{"seat":"s","nonbid":[{"impid":"1","statuscode":301,"ext":{}},{"impid":"2","statuscode":352}]}],"stats":{"bytes":1}}"#;
        let got = rejections(answer).unwrap();
        assert_eq!(
            got.iter()
                .map(|n| (n.impid.as_str(), n.statuscode))
                .collect::<Vec<_>>(),
            [("1", 301), ("2", 352)]
        );
        assert!(rejections(br#"{"status":"bid","seatnonbid":[],"stats":{}}"#).is_none());
    }

    #[test]
    fn the_minute_window() {
        assert_eq!(minute(59_999), 0);
        assert_eq!(minute(60_000), 1);
    }
}
