//! bidscan-json's integration tests, one test binary: each file of `tests/` is a module of it (one file's tests:
//! `cargo test -p bidscan-json --test tests MODULE::`).

mod common;

mod bid_responses;
mod differential;
mod errors;
mod fuzz_regressions;
mod jsontestsuite;
mod raw_json;
mod serde_compat;
mod skip_index;
mod strings;
