//! Prometheus metrics, in three parts:
//! - [`registry`]: [`Metrics`], the server's registry with every metric named in docs/metrics.md, the decode outcome
//!   and issue counters, and the text exposition of `GET /metrics`;
//! - [`http`]: [`HttpMetrics`], the per-route handles of the HTTP metrics, counted by
//!   [`crate::routes::layers::track::TrackLayer`] and by [`crate::routes::pipeline`];
//! - [`pool`]: [`PoolMetrics`], the pool observer feeding the buffer metrics;
//! - [`bidders`]: [`Bidders`], the metrics labelled by bidder, each bidder's handles resolved once per
//!   configuration of `server.bidders`.
//!
//! Label cardinality is bounded: `route` is the route template (`/decode`, never a raw path; unmatched requests
//! are `"unmatched"`), `status` a status code, `code` an issue code from a fixed list in bidscan-openrtb, `bidder` a
//! name of `server.bidders`, `other` or `unknown`.

pub mod bidders;
pub mod http;
pub mod pool;
#[cfg(target_os = "linux")]
pub mod process;
pub mod registry;

pub use bidders::BidderMetrics;
pub use http::HttpMetrics;
pub use pool::PoolMetrics;
pub use registry::{INPUT_BUFFER, Metrics};
