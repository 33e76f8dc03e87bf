//! bidscan-proto's integration tests: one binary, one module per file.

mod rules;
