//! Fuzz target `protobuf`: bidscan-openrtb `decode_protobuf` against prost on arbitrary bytes.
//! Properties: see `bidscan_fuzz::protobuf`. Run with scripts/fuzz.sh (stable Rust) or `cargo fuzz run -s none protobuf`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    bidscan_fuzz::protobuf(data);
});
