//! bidscan-server: the `bidscan` binary — an HTTP service that decodes OpenRTB bid responses and validates them
//! against their bid requests — with its configuration, metrics and command line. Decoding is bidscan-openrtb's,
//! the reader bidscan-json's, buffer retention bidscan-pool's; this crate is the service around them.
//!
//! # Layout, by job
//! - `transport/`: the accept loop under the connection cap and the drain ([`serve`]), the worker threads, what
//!   wraps each connection (header-read timer, send timeout, lingering close, hyper's own rejections as JSON),
//!   TLS (`[server.tls]`, the operational listener `server.ops_listen`), the request head read in one pass, request bodies received under the size limits. It is built on
//!   hyper and tokio and imports no OpenRTB crate.
//! - `routes/`: the application each connection calls. A document route (`/decode`, `/validate`) passes its
//!   pipeline, the one stack whose steps each have a one-line reason, generalised over the route's work; the
//!   operational and batch routes pass the axum router and its tower layers; handlers, the query, `AppState`,
//!   the OpenAPI document.
//! - `engine/`: a document's bytes to the answer JSON with per-worker pools of decode state (decode, validate,
//!   render); shared by the routes and `bidscan decode | validate`. No HTTP.
//! - `error.rs`, `error_code.rs`: every error the service answers, its catalogue and its one JSON shape.
//! - `config/`: [`Config`] (compiled-in default, file, `BIDSCAN__SECTION__KEY` environment) and `SIGHUP`
//!   reloads ([`Reloads`]).
//! - `gate/`: the policies `/validate` judges under and the rates source they take rates from, swapped whole
//!   and read with one atomic load per request.
//! - `metrics/`: the Prometheus registry, the HTTP metrics' per-route handles, the pool observer, the process
//!   collector.
//! - `capture/`: `[capture]`, a sample of the bodies of bad answers written to a directory off the request path
//!   (per-bidder budget, bounded queue, a writer thread keeping the directory within its byte bound).
//! - `cli/`: `bidscan serve | decode | validate | health` ([`run`]).
//!
//! Modules are private; what the binary and the tests use is the `pub use` list below.
//!
//! # What it deliberately does not do
//! Parse JSON or know the OpenRTB model beyond calling `bidscan_openrtb`; speak TLS unless `[server.tls]` is set
//! (cleartext is the default: a mesh or proxy terminates TLS, or `transport::tls` does with rustls); queue
//! requests past the concurrency limit or the memory budget, `server.max_inflight_bytes` (they are shed with
//! 503); hold a pooled buffer across an `.await`.
#![forbid(unsafe_code)]

mod capture;
mod cli;
mod config;
#[cfg(test)]
mod doc_tests;
mod engine;
mod error;
mod error_code;
mod gate;
mod metrics;
mod routes;
mod transport;

pub use cli::run;
pub use config::Config;
pub use config::reload::{Loader, Reloads};
pub use engine::render;
/// The auction's `multipart/form-data` body: its parts, each bidder's reply (re-exported for its tests).
pub use routes::auction_parts;
/// Request-body content codings and the working memory their decoders hold (measured in tests/decoder_memory.rs).
pub use routes::layers::inflate::{Coding, decoder_memory};
pub use transport::server::{serve, serve_with, shutdown_signal};
/// Serving TLS: the `[server.tls]` settings, the certificates a reload swaps, the handshake, the TLS metrics.
pub use transport::tls;
