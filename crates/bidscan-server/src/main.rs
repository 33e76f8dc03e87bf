//! `bidscan`: see `bidscan --help` and the README.
#![forbid(unsafe_code)]

/// mimalloc rather than glibc's malloc: per small request the service allocates and frees a few dozen small
/// blocks (request head, header maps, the answer, the span), on which glibc spends ~10 k instructions per no-bid
/// request (callgrind). Only the binary: the library and its tests use the
/// system allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    bidscan_server::run()
}
