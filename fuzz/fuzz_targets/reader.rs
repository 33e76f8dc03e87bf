//! Fuzz target `reader`: bidscan-json on arbitrary bytes: every decode path and scanner agrees, nothing panics.
//! Properties: see `bidscan_fuzz::reader`. Run with scripts/fuzz.sh (stable Rust) or `cargo fuzz run -s none reader`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    bidscan_fuzz::reader(data);
});
