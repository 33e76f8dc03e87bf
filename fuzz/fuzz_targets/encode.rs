//! Fuzz target `encode`: bidscan-openrtb `encode_protobuf` on the model of arbitrary JSON, checked against prost,
//! `decode_protobuf` and the JSON model. Properties: see `bidscan_fuzz::encode`. Run with scripts/fuzz.sh (stable
//! Rust) or `cargo fuzz run -s none encode`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    bidscan_fuzz::encode(data);
});
