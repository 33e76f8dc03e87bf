//! Fuzz target `multipart`: the auction's multipart reader on arbitrary bytes, against multer. Properties: see
//! `bidscan_fuzz::multipart`. Run with scripts/fuzz.sh (stable Rust) or `cargo fuzz run -s none multipart`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    bidscan_fuzz::multipart(data);
});
