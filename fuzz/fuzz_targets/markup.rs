//! Fuzz target `markup`: bidscan-markup's inspectors and bidscan-openrtb's `decode_inspected` on arbitrary bytes.
//! Properties: see `bidscan_fuzz::markup`. Run with scripts/fuzz.sh (stable Rust) or `cargo fuzz run -s none markup`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    bidscan_fuzz::markup(data);
});
