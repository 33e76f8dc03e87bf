//! Fuzz target `differential`: bidscan-json against serde_json: same accept/reject, same values, same OpenRTB answer.
//! Properties: see `bidscan_fuzz::differential`. Run with scripts/fuzz.sh (stable Rust) or `cargo fuzz run -s none differential`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = bidscan_fuzz::differential(data);
});
