//! bidscan-markup's integration tests, one test binary: each file of `tests/` is a module of it (one file's tests:
//! `cargo test -p bidscan-markup --test tests MODULE::`).

mod html_differential;
mod properties;
mod vast_differential;
mod vast_samples;
