//! bidscan-pool's integration tests, one test binary: each file of `tests/` is a module of it (one file's tests:
//! `cargo test -p bidscan-pool --test tests MODULE::`).

mod common;

mod concurrent;
mod idle;
mod properties;
mod retention;
