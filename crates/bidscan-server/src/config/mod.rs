//! Configuration: the compiled-in default (`config/bidscan.toml`), then a file, then `BIDSCAN__SECTION__KEY`
//! environment variables, merged with figment. Every key is documented in `config/bidscan.toml` itself.

pub mod reload;

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use figment::Figment;
use figment::providers::{Env, Format, Toml};
use serde::{Deserialize, Serialize};

pub use crate::capture::config::CaptureConfig;
pub use crate::gate::config::ValidateConfig;
use crate::metrics::bidders::SERIES_PER_BIDDER;
use crate::transport::tls::{TlsConfig, empty_as_none};

/// The default configuration, compiled into the binary.
pub const DEFAULT_TOML: &str = include_str!("../../../../config/bidscan.toml");

/// Prefix of the environment variables that override the configuration (`BIDSCAN__SERVER__LISTEN`).
pub const ENV_PREFIX: &str = "BIDSCAN__";

/// The whole configuration. Unknown keys are rejected, so a misspelt override fails loudly.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// `[server]`: listening, limits, draining.
    pub server: ServerConfig,
    /// `[decode]`: reader and model defaults.
    pub decode: DecodeConfig,
    /// `[pool]`: retention of the per-worker decode buffers.
    pub pool: PoolSection,
    /// `[log]`: log format and level.
    pub log: LogConfig,
    /// `[validate]`: `skip | warn | enforce` per response-validation rule, `[validate.rates]` for floors in
    /// another currency (`POST /validate`; see `bidscan_openrtb::rules`), `[validate.profiles.NAME]` and the
    /// rates source (see `ValidateConfig`). The one section a reload applies live.
    #[serde(default)]
    pub validate: ValidateConfig,
    /// `[capture]`: sampled capture of bad answers (`crate::capture`); off unless `capture.dir` is set.
    #[serde(default)]
    pub capture: CaptureConfig,
}

/// `[server]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    /// Address to listen on.
    pub listen: SocketAddr,
    /// Largest `/decode` body, in bytes, on the wire and after decompression.
    pub max_body_bytes: usize,
    /// Largest `/validate/auction` body, in bytes, every part together, on the wire (413). Each part is also held
    /// to `max_body_bytes`.
    pub max_auction_bytes: usize,
    /// Most parts of one `/validate/auction` body, the `request` part included (400 `too_many_parts`).
    pub max_auction_parts: usize,
    /// Largest `/decode/batch` and `/validate/batch` body, in bytes, on the wire (413) and after decompression
    /// (an error line ends the stream).
    pub max_batch_bytes: usize,
    /// Most lines one `/decode/batch` or `/validate/batch` answers; past it an error line ends the stream.
    pub max_batch_lines: usize,
    /// Most bytes of answer lines one batch writes; the line that would pass it is replaced by an error line
    /// that ends the stream (a batch's answer can be far larger than its body).
    pub max_batch_answer_bytes: usize,
    /// When true, `/decode/batch` and `/validate/batch` read the whole body (answering its lines as they
    /// arrive, held in memory, at most `max_batch_answer_bytes`) before the answer's head and lines are sent.
    /// Needed behind a proxy that stops forwarding a request body once the answer has begun (nginx), and for
    /// clients that send the whole body before reading. Default false: the answer streams as lines complete.
    pub batch_answer_after_body: bool,
    /// Most bytes of batch answers held in memory at once, all batches together, under
    /// `batch_answer_after_body`; a batch whose answer would pass it ends with an `overloaded` error line.
    pub max_held_answer_bytes: usize,
    /// Most bytes requests hold in memory at once, all together ([`crate::transport::memory`]): bodies as they
    /// arrive, view=full answers, held batch answers. A request that cannot get its bytes is shed with 503.
    pub max_inflight_bytes: usize,
    /// Decode requests served at once before shedding with 503.
    pub max_concurrency: usize,
    /// Seconds a decode request may take (body received and answer started) before 408.
    pub request_timeout_secs: u64,
    /// Milliseconds a decode request's body may take to arrive while it holds a permit of `max_concurrency`
    /// (default 1,000). A body still arriving then gives its permit back and finishes in the slow lane of at most
    /// `max_concurrency` bodies, or is answered 408 `timeout` at once when that lane is full
    /// ([`crate::routes::pipeline`], step 9). 0: a body keeps its permit until it has arrived.
    pub body_grace_ms: u64,
    /// Client connections open at once, operational routes included (default 1,024). At the limit the server
    /// stops accepting: new connections wait in the kernel's accept queue until one closes (see
    /// [`crate::transport::server`]). Also sizes the listen backlog (at least 1,024).
    pub max_connections: usize,
    /// Seconds a connection may take to send a complete request head, counted from its accept, or from the end
    /// of the previous answer on a kept-alive connection; then it is closed without an answer
    /// (default 30, hyper's own default). So it is also the idle timeout of kept-alive connections.
    pub header_read_timeout_secs: u64,
    /// Seconds a client may take no byte of an answer being sent; then its connection is reset (default 10;
    /// [`crate::transport::conn::send_timeout`]).
    pub send_timeout_secs: u64,
    /// Seconds from the shutdown signal to exit, at most.
    pub drain_timeout_secs: u64,
    /// Seconds after the signal during which `/readyz` says 503 while connections are still accepted.
    pub drain_grace_secs: u64,
    /// `Retry-After` seconds sent with 503.
    pub retry_after_secs: u64,
    /// Worker threads, each a current-thread runtime with its own decode pool ([`crate::transport::workers`]); 0 = one per core.
    pub worker_threads: usize,
    /// Bidder names kept as the `bidder` label (`crate::metrics::bidders`): any other is `other`. At most
    /// [`MAX_BIDDERS`], each a name of 1 to 64 of `A-Z a-z 0-9 _ . -`. Applied again on reload.
    pub bidders: Vec<String>,
    /// `[server.tls]`: TLS on `listen` (and `ops_listen`) when `cert` and `key` are set; cleartext by default
    /// ([`crate::transport::tls`]).
    #[serde(default)]
    pub tls: TlsConfig,
    /// A second address serving only the operational routes (`/healthz`, `/readyz`, `/metrics`, `/`,
    /// `/openapi.json`), with TLS but never a client certificate when TLS is on; none by default (`""`).
    #[serde(default, deserialize_with = "empty_as_none")]
    pub ops_listen: Option<SocketAddr>,
}

/// The most names `server.bidders` may list: each costs [`SERIES_PER_BIDDER`] series.
pub const MAX_BIDDERS: usize = 1000;

/// The most `server.worker_threads` accepted: far above any core count a pod gets, far below what exhausts
/// memory (each thread is a 2 MiB stack and a decode pool; 100,000 took 537 MB within 4 s and never listened).
pub const MAX_WORKER_THREADS: usize = 1024;

/// The most `server.max_concurrency` and `server.max_connections` accepted: each is a tokio semaphore, which
/// panics past `usize::MAX >> 3` permits; 2^30 is far above any machine's sockets and keeps the check simple.
pub const MAX_PERMITS: usize = 1 << 30;

/// The largest `decode.max_depth` accepted: far below what overflows a 2 MiB tokio worker stack (between 10,000
/// and 30,000 levels measured) and above any real bid response (a handful of levels; `ext` rarely passes 10).
pub const MAX_DEPTH_LIMIT: usize = 1024;

/// The longest timeout, grace or idle time accepted, in seconds: one day. Longer is surely a mistake (a
/// drain nobody waits for, a `Retry-After` no client honours), and durations near `u64::MAX` seconds overflow
/// `Instant` arithmetic.
pub const MAX_SECS: u64 = 86_400;

/// The largest `server.max_body_bytes` and `pool.max_retained_bytes` accepted: 1 GiB. A body is held in memory
/// whole while it is decoded, so a limit past the memory of any pod is no limit.
pub const MAX_BODY_BYTES: usize = 1 << 30;

/// The largest `server.max_batch_bytes`, `server.max_batch_answer_bytes` and `pool.global_retained_bytes`
/// accepted: 1 TiB (streamed, so not bounded by memory, but still bounded).
pub const MAX_STREAM_BYTES: usize = 1 << 40;

/// The most `server.max_batch_lines` accepted: 2^32.
pub const MAX_BATCH_LINES: usize = 1 << 32;

/// An upper bound, why it is there, and the keys (with their values) it holds for.
type Bound<'k> = (u64, &'static str, &'k [(&'static str, u64)]);

/// `[decode]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecodeConfig {
    /// Mode used when a request names none.
    pub mode: ModeName,
    /// Nesting depth limit of the reader (containers), 1..=[`MAX_DEPTH_LIMIT`]. Each level is a stack frame of
    /// the decoding thread, so the limit is bounded: a configured 1,000,000 let one 60 KB request overflow a
    /// worker's stack.
    pub max_depth: usize,
}

impl DecodeConfig {
    /// The reader's config: `max_depth`, and a number past `f64`'s range (`1e400`) read as infinity
    /// ([`FloatOverflow::Infinity`](bidscan_json::FloatOverflow::Infinity)), so it is an `out_of_range` finding
    /// on its member (the bid's `price`: the bid is rejected) or kept verbatim in a raw `ext`, and never fails
    /// the whole response.
    pub fn reader_config(&self) -> bidscan_json::ReaderConfig {
        bidscan_json::ReaderConfig {
            max_depth: self.max_depth,
            float_overflow: bidscan_json::FloatOverflow::Infinity,
        }
    }
}

/// A decoding mode as written in config and query strings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ModeName {
    /// Coerce and report deviations (OpenRTB lenient decoding).
    #[default]
    Lenient,
    /// Fail on the first deviation (422).
    Strict,
}

impl From<ModeName> for bidscan_openrtb::Mode {
    fn from(mode: ModeName) -> Self {
        match mode {
            ModeName::Lenient => bidscan_openrtb::Mode::Lenient,
            ModeName::Strict => bidscan_openrtb::Mode::Strict,
        }
    }
}

/// `[pool]`: see `bidscan_pool::PoolConfig` for the meaning of each limit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoolSection {
    /// Documents per sizing window.
    pub window: u32,
    /// Capacity past which a buffer is dropped after use, in bytes.
    pub max_retained_bytes: usize,
    /// Bytes all idle buffers together may hold.
    pub global_retained_bytes: usize,
    /// Seconds a buffer may stay idle.
    pub idle_release_secs: u64,
    /// Idle buffers kept per worker.
    pub max_idle_items: usize,
}

impl PoolSection {
    /// The pool crate's config for these values.
    pub fn to_pool_config(&self) -> bidscan_pool::PoolConfig {
        bidscan_pool::PoolConfig {
            window: self.window,
            max_retained_bytes: self.max_retained_bytes,
            global_retained_bytes: self.global_retained_bytes,
            idle_release: Duration::from_secs(self.idle_release_secs),
            max_idle_items: self.max_idle_items,
        }
    }
}

/// `[log]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogConfig {
    /// Output format.
    pub format: LogFormat,
    /// `tracing_subscriber::EnvFilter` directive (`RUST_LOG` wins when set).
    pub level: String,
}

/// Log output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// One JSON object per line (for log shippers).
    Json,
    /// Human-readable, multi-line.
    Pretty,
}

impl Config {
    /// The compiled-in default alone.
    ///
    /// # Errors
    /// Only if the compiled-in file were invalid (a test guards against it).
    pub fn default_config() -> Result<Config, Box<figment::Error>> {
        Ok(Figment::from(Toml::string(DEFAULT_TOML)).extract()?)
    }

    /// Default, then `file` (which must exist when given), then the process environment.
    ///
    /// # Errors
    /// A missing or unreadable file, invalid TOML, an unknown key or a value of the wrong type; the message
    /// names the key and where its value came from.
    pub fn load(file: Option<&Path>) -> Result<Config, Box<figment::Error>> {
        if let Some(message) = single_underscore_override(std::env::vars_os().map(|(k, _)| k))
            .or_else(|| malformed_override(std::env::vars_os().map(|(k, _)| k)))
        {
            return Err(Box::new(figment::Error::from(message)));
        }
        // `RUST_LOG` wins over `log.level` when set (`cli::init_logging`), so it is held to the same rule, for
        // every command alike.
        if let Ok(filter) = std::env::var("RUST_LOG")
            && !filter.is_empty()
        {
            check_filter("RUST_LOG", &filter).map_err(|e| Box::new(figment::Error::from(e)))?;
        }
        // `ValidateConfig` upper-cases currency codes (environment variable names arrive lower-cased).
        let config: Config = Self::figment(file).extract()?;
        config
            .validate()
            .map_err(|e| Box::new(figment::Error::from(e)))?;
        Ok(config)
    }

    /// Checks the values no type can express: limits and timeouts must be positive.
    ///
    /// # Errors
    /// The first key that is out of range, named.
    pub fn validate(&self) -> Result<(), String> {
        let s = &self.server;
        let positive = [
            ("server.max_body_bytes", s.max_body_bytes as u64),
            ("server.max_auction_bytes", s.max_auction_bytes as u64),
            ("server.max_auction_parts", s.max_auction_parts as u64),
            ("server.max_batch_bytes", s.max_batch_bytes as u64),
            ("server.max_batch_lines", s.max_batch_lines as u64),
            (
                "server.max_batch_answer_bytes",
                s.max_batch_answer_bytes as u64,
            ),
            (
                "server.max_held_answer_bytes",
                s.max_held_answer_bytes as u64,
            ),
            ("server.max_inflight_bytes", s.max_inflight_bytes as u64),
            ("server.max_concurrency", s.max_concurrency as u64),
            ("server.request_timeout_secs", s.request_timeout_secs),
            ("server.max_connections", s.max_connections as u64),
            (
                "server.header_read_timeout_secs",
                s.header_read_timeout_secs,
            ),
            ("server.send_timeout_secs", s.send_timeout_secs),
            ("server.drain_timeout_secs", s.drain_timeout_secs),
            ("server.retry_after_secs", s.retry_after_secs),
            ("decode.max_depth", self.decode.max_depth as u64),
            ("pool.window", u64::from(self.pool.window)),
            (
                "pool.max_retained_bytes",
                self.pool.max_retained_bytes as u64,
            ),
            (
                "pool.global_retained_bytes",
                self.pool.global_retained_bytes as u64,
            ),
            ("pool.idle_release_secs", self.pool.idle_release_secs),
            ("pool.max_idle_items", self.pool.max_idle_items as u64),
        ];
        if let Some((key, _)) = positive.iter().find(|(_, v)| *v == 0) {
            return Err(format!("{key} must be greater than 0"));
        }
        if s.body_grace_ms > MAX_SECS * 1000 {
            return Err(format!(
                "server.body_grace_ms must be at most {} (one day)",
                MAX_SECS * 1000
            ));
        }
        self.capture.check()?;
        let p = &self.pool;
        let (permits, secs) = (MAX_PERMITS as u64, MAX_SECS);
        let (body, stream) = (MAX_BODY_BYTES as u64, MAX_STREAM_BYTES as u64);
        let bounded: [Bound<'_>; 6] = [
            (
                permits,
                "a semaphore's permits",
                &[
                    ("server.max_concurrency", s.max_concurrency as u64),
                    ("server.max_connections", s.max_connections as u64),
                    ("pool.max_idle_items", p.max_idle_items as u64),
                ],
            ),
            (
                secs,
                "one day",
                &[
                    ("server.request_timeout_secs", s.request_timeout_secs),
                    (
                        "server.header_read_timeout_secs",
                        s.header_read_timeout_secs,
                    ),
                    ("server.send_timeout_secs", s.send_timeout_secs),
                    ("server.drain_timeout_secs", s.drain_timeout_secs),
                    ("server.retry_after_secs", s.retry_after_secs),
                    ("pool.idle_release_secs", p.idle_release_secs),
                ],
            ),
            (
                body,
                "1 GiB: held in memory whole",
                &[
                    ("server.max_body_bytes", s.max_body_bytes as u64),
                    ("server.max_auction_bytes", s.max_auction_bytes as u64),
                    ("pool.max_retained_bytes", p.max_retained_bytes as u64),
                ],
            ),
            (
                stream,
                "1 TiB",
                &[
                    ("server.max_batch_bytes", s.max_batch_bytes as u64),
                    (
                        "server.max_batch_answer_bytes",
                        s.max_batch_answer_bytes as u64,
                    ),
                    ("pool.global_retained_bytes", p.global_retained_bytes as u64),
                    (
                        "server.max_held_answer_bytes",
                        s.max_held_answer_bytes as u64,
                    ),
                    ("server.max_inflight_bytes", s.max_inflight_bytes as u64),
                ],
            ),
            (
                MAX_BATCH_LINES as u64,
                "2^32",
                &[
                    ("server.max_batch_lines", s.max_batch_lines as u64),
                    ("server.max_auction_parts", s.max_auction_parts as u64),
                ],
            ),
            (
                MAX_WORKER_THREADS as u64,
                "0 = one per core",
                &[("server.worker_threads", s.worker_threads as u64)],
            ),
        ];
        for (max, why, keys) in bounded {
            if let Some((key, value)) = keys.iter().find(|(_, v)| v > &max) {
                return Err(format!("{key} must be at most {max} ({why}), got {value}"));
            }
        }
        if s.drain_grace_secs > s.drain_timeout_secs {
            return Err(format!(
                "server.drain_grace_secs ({}) must be at most server.drain_timeout_secs ({}): the grace is part of the drain",
                s.drain_grace_secs, s.drain_timeout_secs
            ));
        }
        s.tls.check().map_err(|e| e.to_string())?;
        if s.ops_listen == Some(s.listen) {
            return Err(format!(
                "server.ops_listen ({}) must differ from server.listen",
                s.listen
            ));
        }
        check_log_level(&self.log.level)?;
        check_bidders(&s.bidders)?;
        self.validate.check()?;
        if self.decode.max_depth > MAX_DEPTH_LIMIT {
            return Err(format!(
                "decode.max_depth must be at most {MAX_DEPTH_LIMIT} (each level uses stack), got {}",
                self.decode.max_depth
            ));
        }
        Ok(())
    }

    /// The figment behind [`Config::load`], for callers that add providers.
    pub fn figment(file: Option<&Path>) -> Figment {
        let mut figment = Figment::from(Toml::string(DEFAULT_TOML));
        if let Some(file) = file {
            figment = figment.merge(Toml::file_exact(file));
        }
        figment.merge(Env::prefixed(ENV_PREFIX).split("__"))
    }

    /// Request timeout as a duration.
    pub fn request_timeout(&self) -> Duration {
        Duration::from_secs(self.server.request_timeout_secs)
    }

    /// Header-read (and keep-alive idle) timeout as a duration.
    pub fn header_read_timeout(&self) -> Duration {
        Duration::from_secs(self.server.header_read_timeout_secs)
    }

    /// The body grace (`server.body_grace_ms`) as a duration; `None` when it is 0 (off).
    pub fn body_grace(&self) -> Option<Duration> {
        (self.server.body_grace_ms > 0).then(|| Duration::from_millis(self.server.body_grace_ms))
    }

    /// Send timeout as a duration.
    pub fn send_timeout(&self) -> Duration {
        Duration::from_secs(self.server.send_timeout_secs)
    }
}

/// The sections of the configuration, as they appear in an override's name (`BIDSCAN__SERVER__LISTEN`).
const SECTIONS: [&str; 5] = ["SERVER", "DECODE", "POOL", "LOG", "VALIDATE"];

/// The first environment variable that looks like an override written with single underscores
/// (`BIDSCAN_SERVER_LISTEN`), which figment would silently ignore, as an error naming the right spelling.
/// Other `BIDSCAN_*` variables (`BIDSCAN_SCAN`, test harness settings) are not settings and pass.
fn single_underscore_override(names: impl Iterator<Item = std::ffi::OsString>) -> Option<String> {
    names.filter_map(|n| n.into_string().ok()).find_map(|name| {
        let rest = name.strip_prefix("BIDSCAN_")?;
        if rest.starts_with('_') {
            return None;
        }
        let section = SECTIONS
            .into_iter()
            .find(|s| rest.len() > s.len() && rest.starts_with(s) && rest.as_bytes()[s.len()] == b'_')?;
        let key = rest[section.len() + 1..].trim_start_matches('_');
        Some(format!(
            "environment variable {name} is not read: overrides use two underscores, {ENV_PREFIX}{section}__{key}"
        ))
    })
}

/// The first `BIDSCAN__…` variable whose name figment would split into an empty or underscore-led part
/// (`BIDSCAN__SERVER____MAX_BODY_BYTES`, `BIDSCAN____SERVER__LISTEN`, a trailing `__`, `BIDSCAN__` alone) and so
/// silently ignore or misread, as an error naming it.
fn malformed_override(names: impl Iterator<Item = std::ffi::OsString>) -> Option<String> {
    names.filter_map(|n| n.into_string().ok()).find_map(|name| {
        let rest = name.strip_prefix(ENV_PREFIX)?;
        let parts: Vec<&str> = rest.split("__").collect();
        let bad = parts.len() < 2
            || parts
                .iter()
                .any(|p| p.is_empty() || p.starts_with('_') || p.ends_with('_'));
        bad.then(|| {
            format!(
                "environment variable {name} is not a setting: overrides are {ENV_PREFIX}SECTION__KEY, two \
                 underscores between the parts, e.g. {ENV_PREFIX}SERVER__MAX_BODY_BYTES"
            )
        })
    })
}

/// Checks `log.level` as `tracing_subscriber::EnvFilter` reads it (see [`check_filter`]).
/// `server.bidders`: at most [`MAX_BIDDERS`] names, each 1 to 64 of `A-Z a-z 0-9 _ . -`.
fn check_bidders(names: &[String]) -> Result<(), String> {
    if names.len() > MAX_BIDDERS {
        return Err(format!(
            "server.bidders lists {} names; at most {MAX_BIDDERS} (each is {SERIES_PER_BIDDER} series)",
            names.len()
        ));
    }
    match names.iter().find(|n| !ValidateConfig::is_profile_name(n)) {
        Some(name) => Err(format!(
            "server.bidders: {name:?} is not a bidder name (1 to 64 of A-Z a-z 0-9 _ . -)"
        )),
        None => Ok(()),
    }
}

fn check_log_level(level: &str) -> Result<(), String> {
    check_filter("log.level", level)
}

/// Checks a log filter (`log.level`, or `RUST_LOG`, named `what`) as `tracing_subscriber::EnvFilter` reads it,
/// and refuses a bare word that is not a level (the filter would take `loud` as a target name at TRACE and so
/// silence every other log line) and a filter with no directive (`""`, `","`: every line, errors included,
/// would be dropped).
///
/// # Errors
/// The directive that is neither a level nor `target=level`, an empty filter, or the filter's own parse error.
pub fn check_filter(what: &str, level: &str) -> Result<(), String> {
    const LEVELS: [&str; 6] = ["trace", "debug", "info", "warn", "error", "off"];
    let mut directives = 0;
    for directive in level.split(',').map(str::trim).filter(|d| !d.is_empty()) {
        directives += 1;
        let bare = !directive.contains(['=', '[', ':']);
        if bare && !LEVELS.iter().any(|l| directive.eq_ignore_ascii_case(l)) {
            return Err(format!(
                "{what} {directive:?} is not a level ({}); a target takes one: \"{directive}=debug\"",
                LEVELS.join(", ")
            ));
        }
    }
    if directives == 0 {
        return Err(format!(
            "{what} {level:?} names no level ({}); \"off\" turns logging off",
            LEVELS.join(", ")
        ));
    }
    tracing_subscriber::EnvFilter::try_new(level)
        .map(drop)
        .map_err(|e| format!("{what} {level:?}: {e}"))
}

#[cfg(test)]
#[allow(clippy::result_large_err)] // figment::Jail's closures return figment::Result
mod tests {
    use super::*;

    #[test]
    fn malformed_overrides_are_named() {
        let names = |v: &[&str]| {
            v.iter()
                .map(std::ffi::OsString::from)
                .collect::<Vec<_>>()
                .into_iter()
        };
        for bad in [
            "BIDSCAN__SERVER____MAX_BODY_BYTES",
            "BIDSCAN____SERVER__MAX_BODY_BYTES",
            "BIDSCAN__SERVER__MAX_BODY_BYTES__",
            "BIDSCAN__",
            "BIDSCAN__SERVER",
            "BIDSCAN__SERVER___LISTEN",
        ] {
            let message = malformed_override(names(&["PATH", bad])).expect(bad);
            assert!(message.contains(bad), "{message}");
        }
        assert_eq!(
            malformed_override(names(&[
                "BIDSCAN__SERVER__LISTEN",
                "BIDSCAN__VALIDATE__RATES__USD__EUR",
                "BIDSCAN_SCAN"
            ])),
            None
        );
        let message = single_underscore_override(names(&["BIDSCAN_SERVER__LISTEN"])).unwrap();
        assert!(message.ends_with("BIDSCAN__SERVER__LISTEN"), "{message}");
    }

    #[test]
    fn empty_log_filters_are_refused() {
        for level in ["", " ", ",", " , "] {
            let e = check_filter("log.level", level).unwrap_err();
            assert!(e.contains("names no level"), "{e}");
        }
        assert!(
            check_filter("RUST_LOG", "verbose")
                .unwrap_err()
                .starts_with("RUST_LOG \"verbose\"")
        );
        for ok in ["info", "off", "bidscan=debug,warn", "WARN"] {
            check_filter("log.level", ok).unwrap();
        }
    }

    /// The keys of a TOML table as dotted paths with their values as `docs/configuration.md` writes them
    /// (numbers and booleans as written, a string as itself, an empty string as `""`); an empty table is one
    /// entry with the value `None`.
    fn flatten(prefix: &str, dict: &figment::value::Dict, out: &mut Vec<(String, Option<String>)>) {
        use figment::value::Value;
        if dict.is_empty() && !prefix.is_empty() {
            out.push((prefix.to_owned(), None));
        }
        for (key, value) in dict {
            let path = if prefix.is_empty() {
                key.clone()
            } else {
                format!("{prefix}.{key}")
            };
            let text = match value {
                Value::Dict(_, inner) => {
                    flatten(&path, inner, out);
                    continue;
                }
                Value::String(_, s) if s.is_empty() => "\"\"".to_owned(),
                Value::String(_, s) => s.clone(),
                Value::Bool(_, b) => b.to_string(),
                Value::Array(_, a) if a.is_empty() => "[]".to_owned(),
                Value::Num(_, n) => n
                    .to_u128()
                    .map(|u| u.to_string())
                    .or_else(|| n.to_i128().map(|i| i.to_string()))
                    .or_else(|| n.to_f64().map(|f| f.to_string()))
                    .expect("a number"),
                other => panic!("{path}: a value the doc test does not read: {other:?}"),
            };
            out.push((path, Some(text)));
        }
    }

    #[test]
    fn the_configuration_doc_lists_every_default_key() {
        use crate::doc_tests::{code_spans, first_code, read, table_rows};
        let doc = read("docs/configuration.md");
        let rows: std::collections::BTreeMap<String, String> =
            table_rows(&doc, &["key", "default", "meaning"])
                .into_iter()
                .map(|row| (first_code(&row[0]).to_owned(), row[1].clone()))
                .collect();
        let default: figment::value::Dict =
            Figment::from(Toml::string(DEFAULT_TOML)).extract().unwrap();
        let mut keys = Vec::new();
        flatten("", &default, &mut keys);
        // The rules' table is docs/validation-rules.md (its own test holds it to the registry); here one
        // `validate.RULE` row gives the default most rules have and names every rule that has another.
        let rule = &rows["validate.RULE"];
        let rule_default = first_code(rule);
        let mut documented = std::collections::BTreeSet::new();
        for (key, value) in &keys {
            let (row_key, default) = match (key.as_str(), value.as_deref()) {
                ("validate.rates", None) => ("validate.rates.FROM.TO", "none"),
                ("validate.profiles", None) => ("validate.profiles.NAME.KEY", "none"),
                (k, Some(v))
                    if k.starts_with("validate.") && ["skip", "warn", "enforce"].contains(&v) =>
                {
                    let name = k.trim_start_matches("validate.");
                    assert!(
                        v == rule_default || code_spans(rule).contains(&name),
                        "validate.{name} defaults to {v}: name it in the validate.RULE row"
                    );
                    assert!(
                        read("docs/validation-rules.md").contains(&format!("| `{name}` |")),
                        "validate.{name} is not in docs/validation-rules.md"
                    );
                    documented.insert("validate.RULE".to_owned());
                    continue;
                }
                (k, Some(v)) => (k, v),
                (k, None) => panic!("{k}: an empty table the doc test does not map"),
            };
            let cell = rows
                .get(row_key)
                .unwrap_or_else(|| panic!("{row_key} is not in docs/configuration.md"));
            let written = code_spans(cell).into_iter().next().unwrap_or(cell.as_str());
            assert_eq!(
                written, default,
                "default of {row_key} in docs/configuration.md"
            );
            documented.insert(row_key.to_owned());
        }
        let extra: Vec<_> = rows.keys().filter(|k| !documented.contains(*k)).collect();
        assert!(
            extra.is_empty(),
            "in docs/configuration.md but not in config/bidscan.toml: {extra:?}"
        );
    }

    #[test]
    fn compiled_in_default_parses() {
        let c = Config::default_config().unwrap();
        assert_eq!(c.server.listen.to_string(), "0.0.0.0:8080");
        assert_eq!(c.server.max_body_bytes, 4 * 1024 * 1024);
        assert_eq!(c.server.max_connections, 1024);
        assert_eq!(c.header_read_timeout(), Duration::from_secs(30));
        assert_eq!(c.decode.mode, ModeName::Lenient);
        assert_eq!(c.log.format, LogFormat::Json);
        assert_eq!(c.pool.to_pool_config().window, 64);
    }

    #[test]
    fn file_then_env_override() {
        figment::Jail::expect_with(|jail| {
            jail.create_file(
                "b.toml",
                "[server]\nmax_body_bytes = 10\n[pool]\nwindow = 3\n",
            )?;
            jail.set_env("BIDSCAN__POOL__WINDOW", "5");
            jail.set_env("BIDSCAN__LOG__FORMAT", "pretty");
            let c = Config::load(Some(Path::new("b.toml"))).map_err(|e| *e)?;
            assert_eq!(c.server.max_body_bytes, 10);
            assert_eq!(c.pool.window, 5);
            assert_eq!(c.log.format, LogFormat::Pretty);
            assert_eq!(c.server.max_concurrency, 256);
            Ok(())
        });
    }

    #[test]
    fn missing_file_and_unknown_key_are_errors() {
        figment::Jail::expect_with(|jail| {
            assert!(Config::load(Some(Path::new("nope.toml"))).is_err());
            jail.set_env("BIDSCAN__SERVER__LISTN", "1.2.3.4:5");
            let err = Config::load(None).unwrap_err();
            assert!(err.to_string().contains("listn"), "{err}");
            jail.clear_env();
            jail.set_env("BIDSCAN__SERVER__REQUEST_TIMEOUT_SECS", "0");
            let err = Config::load(None).unwrap_err();
            assert!(err.to_string().contains("request_timeout_secs"), "{err}");
            jail.clear_env();
            jail.set_env("BIDSCAN__SERVER__MAX_CONNECTIONS", "0");
            let err = Config::load(None).unwrap_err();
            assert!(err.to_string().contains("max_connections"), "{err}");
            jail.clear_env();
            // Past a semaphore's limit: a configuration error, not a panic at start.
            for key in ["MAX_CONCURRENCY", "MAX_CONNECTIONS"] {
                jail.set_env(format!("BIDSCAN__SERVER__{key}"), "2305843009213693952");
                let err = Config::load(None).unwrap_err();
                assert!(
                    err.to_string().contains(&key.to_lowercase())
                        && err.to_string().contains("at most"),
                    "{err}"
                );
                jail.clear_env();
            }
            jail.set_env("BIDSCAN__DECODE__MAX_DEPTH", "1000000");
            let err = Config::load(None).unwrap_err();
            assert!(
                err.to_string().contains("max_depth must be at most 1024"),
                "{err}"
            );
            jail.set_env("BIDSCAN__DECODE__MAX_DEPTH", "1024");
            assert_eq!(
                Config::load(None).map(|c| c.decode.max_depth).ok(),
                Some(1024)
            );
            Ok(())
        });
    }

    /// Zero drains, retry delays and pool limits, a grace longer than the drain, a level that is no level
    /// and a single-underscore override are errors naming the key.
    #[test]
    fn zero_limits_bad_levels_and_misspelt_overrides_are_errors() {
        figment::Jail::expect_with(|jail| {
            for key in [
                "SERVER__DRAIN_TIMEOUT_SECS",
                "SERVER__RETRY_AFTER_SECS",
                "SERVER__SEND_TIMEOUT_SECS",
                "POOL__WINDOW",
                "POOL__MAX_RETAINED_BYTES",
                "POOL__GLOBAL_RETAINED_BYTES",
                "POOL__IDLE_RELEASE_SECS",
                "POOL__MAX_IDLE_ITEMS",
            ] {
                jail.set_env(format!("BIDSCAN__{key}"), "0");
                let err = Config::load(None).unwrap_err().to_string();
                let name = key.to_lowercase().replace("__", ".");
                assert!(
                    err.contains(&format!("{name} must be greater than 0")),
                    "{key}: {err}"
                );
                jail.clear_env();
            }
            // A grace of 0 is no grace: allowed. Longer than the drain: refused.
            jail.set_env("BIDSCAN__SERVER__DRAIN_GRACE_SECS", "0");
            assert!(Config::load(None).is_ok());
            jail.set_env("BIDSCAN__SERVER__DRAIN_GRACE_SECS", "21");
            let err = Config::load(None).unwrap_err().to_string();
            assert!(
                err.contains("drain_grace_secs (21) must be at most"),
                "{err}"
            );
            jail.clear_env();
            for bad in ["loud", "info,bidscan", "bidscan=shout"] {
                jail.set_env("BIDSCAN__LOG__LEVEL", bad);
                let err = Config::load(None).unwrap_err().to_string();
                assert!(err.contains("log.level"), "{bad}: {err}");
            }
            for good in [
                "warn",
                "INFO",
                "info,bidscan_server=debug",
                "off",
                "hyper[conn]=trace",
            ] {
                jail.set_env("BIDSCAN__LOG__LEVEL", good);
                assert!(Config::load(None).is_ok(), "{good}");
            }
            jail.clear_env();
            for (var, bad, good) in [
                ("BIDSCAN__SERVER__DRAIN_TIMEOUT_SECS", "86401", "86400"),
                (
                    "BIDSCAN__SERVER__REQUEST_TIMEOUT_SECS",
                    "18446744073709551615",
                    "86400",
                ),
                ("BIDSCAN__SERVER__RETRY_AFTER_SECS", "86401", "86400"),
                ("BIDSCAN__POOL__IDLE_RELEASE_SECS", "86401", "86400"),
                (
                    "BIDSCAN__SERVER__MAX_BODY_BYTES",
                    "1073741825",
                    "1073741824",
                ),
                (
                    "BIDSCAN__SERVER__MAX_BATCH_LINES",
                    "4294967297",
                    "4294967296",
                ),
                (
                    "BIDSCAN__SERVER__MAX_BATCH_ANSWER_BYTES",
                    "18446744073709551615",
                    "1099511627776",
                ),
            ] {
                jail.set_env(var, bad);
                let err = Config::load(None).unwrap_err().to_string();
                let key = var[9..].replacen("__", ".", 1).to_lowercase();
                assert!(
                    err.contains(&format!("{key} must be at most")),
                    "{var}={bad}: {err}"
                );
                jail.set_env(var, good);
                assert!(Config::load(None).is_ok(), "{var}={good}");
                jail.clear_env();
            }
            jail.set_env("BIDSCAN_SERVER_LISTEN", "127.0.0.1:1");
            let err = Config::load(None).unwrap_err().to_string();
            assert!(err.contains("BIDSCAN__SERVER__LISTEN"), "{err}");
            jail.clear_env();
            jail.set_env("BIDSCAN_SCAN", "avx2");
            jail.set_env("BIDSCAN_DRAIN_CLIENTS", "8");
            assert!(Config::load(None).is_ok());
            Ok(())
        });
    }

    #[test]
    fn rates_from_the_environment_and_a_thread_bound() {
        figment::Jail::expect_with(|jail| {
            // Env names arrive lower-cased; the codes are upper-cased back before they are checked.
            jail.set_env("BIDSCAN__VALIDATE__RATES__USD__EUR", "0.92");
            let c = Config::load(None).map_err(|e| *e)?;
            assert_eq!(
                c.validate.base.rates.convert(100.0, "USD", "EUR"),
                Some(92.0)
            );
            jail.clear_env();
            // Profiles and the rates source from the environment too (names arrive lower-cased).
            jail.set_env("BIDSCAN__VALIDATE__RATES__USD__EUR", "0.92");
            jail.set_env("BIDSCAN__VALIDATE__PROFILES__ACME__FLOOR", "warn");
            jail.set_env("BIDSCAN__VALIDATE__PROFILES__ACME__RATES__USD__JPY", "150");
            jail.set_env(
                "BIDSCAN__VALIDATE__RATES_SOURCE",
                "https://rates.example/latest.json",
            );
            let c = Config::load(None).map_err(|e| *e)?;
            let acme = &c.validate.profiles["acme"];
            assert_eq!(
                acme.action(bidscan_openrtb::rules::Rule::Floor),
                bidscan_openrtb::rules::Action::Warn
            );
            assert_eq!(acme.rates.convert(1.0, "USD", "JPY"), Some(150.0));
            assert_eq!(acme.rates.convert(100.0, "USD", "EUR"), Some(92.0));
            assert!(c.validate.source.location().unwrap().is_some());
            jail.clear_env();
            jail.set_env("BIDSCAN__VALIDATE__RATES__USD__EU", "0.92");
            let err = Config::load(None).unwrap_err();
            assert!(
                err.to_string().contains("\"EU\" is not an ISO 4217"),
                "{err}"
            );
            jail.clear_env();
            jail.set_env("BIDSCAN__SERVER__WORKER_THREADS", "100000");
            let err = Config::load(None).unwrap_err();
            assert!(
                err.to_string()
                    .contains("worker_threads must be at most 1024"),
                "{err}"
            );
            jail.set_env("BIDSCAN__SERVER__WORKER_THREADS", "1024");
            assert_eq!(
                Config::load(None).map(|c| c.server.worker_threads).ok(),
                Some(1024)
            );
            Ok(())
        });
    }
}
