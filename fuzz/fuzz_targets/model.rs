//! Fuzz target `model`: bidscan-openrtb decode, lenient and strict, on arbitrary bytes.
//! Properties: see `bidscan_fuzz::model`. Run with scripts/fuzz.sh (stable Rust) or `cargo fuzz run -s none model`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    bidscan_fuzz::model(data);
});
