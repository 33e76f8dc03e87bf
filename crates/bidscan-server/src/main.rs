//! `bidscan`: see `bidscan --help` and the README.
#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    bidscan_server::cli::run()
}
