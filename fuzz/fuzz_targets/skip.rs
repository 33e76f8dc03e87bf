//! Fuzz target `skip`: skipped and raw-captured payloads over the structural index against the token walk and
//! against serde_json's acceptance. Properties: see `bidscan_fuzz::skip`. Run with scripts/fuzz.sh (stable
//! Rust) or `cargo fuzz run -s none skip`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    bidscan_fuzz::skip(data);
});
