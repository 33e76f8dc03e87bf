//! Fuzz target `protobuf_request`: bidscan-openrtb `decode_request_protobuf` against prost on arbitrary bytes.
//! Properties: see `bidscan_fuzz::protobuf_request`. Run with scripts/fuzz.sh (stable Rust) or
//! `cargo fuzz run -s none protobuf_request`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    bidscan_fuzz::protobuf_request(data);
});
