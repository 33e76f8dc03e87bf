//! bidscan-server's integration tests, one test binary: each file of `tests/` is a module of it (one file's tests:
//! `cargo test -p bidscan-server --test tests MODULE::`).
//!
//! Tests that assume they own their process are binaries of their own (`[[test]]` in Cargo.toml):
//! - `hostile_memory` resets and reads this process's peak RSS (`/proc/self/clear_refs`, `VmHWM`);
//! - `overload` resets and bounds this process's peak RSS while its in-process server is at twice capacity;
//! - `workers` installs the process-wide tracing subscriber and counts the DEBUG events of every thread.

mod common;
mod hostile_common;

mod auction;
mod auction_memory;
mod auction_parts;
mod auction_protobuf;
mod auction_protobuf_answer;
mod bidders;
mod capture;
mod cli;
mod clients;
mod decode;
mod drain;
mod gate;
mod h2_idle;
mod half_close;
mod head_rules;
mod hostile;
mod hostile_slow;
mod interop;
mod markup;
mod memory_budget;
mod ops_memory;
mod pool;
mod protobuf;
mod protobuf_out;
mod render;
mod request_logs;
mod send_timeout;
mod service;
mod soak;
mod stream_deadline;
mod tls;
mod tls_server;
mod validate;
