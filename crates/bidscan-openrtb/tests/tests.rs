//! bidscan-openrtb's integration tests, one test binary: each file of `tests/` is a module of it (one file's tests:
//! `cargo test -p bidscan-openrtb --test tests MODULE::`).
//!
//! Tests that measure the whole process are binaries of their own (`[[test]]` in Cargo.toml): `allocations`,
//! `markup_allocations` and `hostile_limits` install a counting `#[global_allocator]` (stats_alloc) and assert on
//! what the whole process allocates.

mod common;
mod pair_common;

mod auction;
mod auction_protobuf;
mod bom;
mod corpus;
mod fuzz_regressions;
mod issue_codes;
mod lenient;
mod markup;
mod markup_regressions;
mod nobid;
mod pair;
mod properties;
mod protobuf;
mod protobuf_encode;
mod protobuf_encode_property;
mod protobuf_reference;
mod robustness;
mod rules;
mod rules_corpus;
mod rules_properties;
mod validation;
