//! The transport: what carries requests and answers, on hyper and tokio; it imports no OpenRTB crate.
//! - [`server`]: the accept loop, the connection cap, the drain ([`serve`](server::serve));
//! - [`workers`]: the threads that serve connections, each a current-thread runtime;
//! - [`conn`]: what wraps each connection (header-read timer, send timeout, lingering close, hyper's own
//!   rejections as JSON, the drain);
//! - [`tls`]: `[server.tls]`, the rustls configurations a reload swaps, the handshake, the TLS metrics;
//! - [`head`]: the request headers the pipeline reads, found in one pass;
//! - [`body`]: request bodies received under the size limits, NDJSON lines, the `Content-Type` rule;
//! - [`memory`]: `server.max_inflight_bytes`, the byte budget of requests in flight.

pub mod body;
pub mod conn;
pub(crate) mod head;
pub mod memory;
pub mod server;
pub mod tls;
pub mod workers;
