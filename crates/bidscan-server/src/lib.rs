//! bidscan-server: the `bidscan` binary — an HTTP service (axum) that decodes OpenRTB bid responses, its
//! configuration, metrics and command line. Wiring only: decoding is bidscan-openrtb's, the reader bidscan-json's,
//! buffer retention bidscan-pool's.
//!
//! # Main pieces
//! - [`serve`]: runs the service on a listener until a shutdown future resolves, then drains (the library entry
//!   that `bidscan serve` and the integration tests both use); caps connections and times out slow request
//!   heads ([`server`]), hands each connection to one of the worker threads ([`workers`]), and closes
//!   connections with a lingering close; [`conn`]: what wraps each connection (send timeout, lingering close,
//!   hyper's own rejections as JSON, the drain).
//! - [`decoding::Engine`]: the one function from document bytes to answer JSON, over per-worker pools of decode
//!   state; shared by `POST /decode`, `POST /decode/batch` and `bidscan decode`; [`validation`] adds the one
//!   behind `POST /validate`, `POST /validate/batch` and `bidscan validate`.
//! - [`app`]: the router, assembled from the tower layers of [`layers`] and tower's own; [`hot`]: `POST /decode`
//!   as one service, the same steps folded; [`routes`]: the handlers; [`body`]: receiving bodies
//!   under the size limits; [`error::ApiError`]: every error and its one `IntoResponse`.
//! - [`config::Config`]: compiled-in default, file, `BIDSCAN__SECTION__KEY` environment (figment).
//! - [`gate`]: the policies `/validate` judges under (the base, one per `?profile=`), swapped whole, read with one
//!   atomic load per request; the rates source they take rates from (a file or an HTTP(S) URL, refreshed);
//!   [`reload`]: `SIGHUP` re-reads the configuration and puts `[validate]` in force.
//! - [`tls`]: `[server.tls]` — the rustls server configurations (ALPN `h2` and `http/1.1`, TLS 1.2 and 1.3,
//!   client certificates verified against `client_ca`), held for a swap on reload, the handshake under a
//!   deadline with its failure reason, and the TLS metrics.
//! - [`metrics`]: the Prometheus registry ([`metrics::Metrics`]), the HTTP metrics' per-route handles and the pool
//!   observer feeding the buffer metrics.
//! - [`cli`]: `bidscan serve | decode | validate | health`; [`cli::decode`] and [`cli::health`] implement the offline subcommands and the probe.
//!
//! # What it deliberately does not do
//! Parse JSON or know the OpenRTB model beyond calling `bidscan_openrtb::decode`; terminate TLS (put it behind a
//! proxy; the rates source's HTTPS client is the one TLS it speaks); queue requests past the concurrency limit (they are shed with 503); hold a pooled buffer across an
//! `.await` (see [`decoding`]).
#![forbid(unsafe_code)]

pub mod app;
pub mod body;
pub mod cli;
pub mod config;
pub mod conn;
pub mod decoding;
pub mod dispatch;
#[cfg(test)]
mod doc_tests;
pub mod error;
pub mod error_code;
pub mod gate;
mod head;
pub mod hot;
pub mod layers;
pub mod log_fields;
pub mod metrics;
pub mod openapi;
#[cfg(target_os = "linux")]
pub mod process;
pub mod reload;
pub mod render;
pub mod routes;
pub mod server;
pub mod state;
pub mod tls;
pub mod validation;
pub mod workers;

pub use config::Config;
pub use server::{serve, serve_with, shutdown_signal};
