//! Conformance harness: `cargo run -q -p bidscan-json --example validate -- FILE`.
//!
//! Exit status: 0 when FILE is one valid JSON document (RFC 8259, as bidscan-json reads it), 1 when it is not
//! (the error goes to stderr), 2 for usage errors (no argument, unreadable file). Never panics.
//!
//! The document is decoded as `serde::de::IgnoredAny`, i.e. through the reader's validating skip path, which
//! checks exactly what decoding checks (grammar, UTF-8, escapes and surrogates, control bytes, number range,
//! depth) without building anything.

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let (Some(path), None) = (args.next(), args.next()) else {
        eprintln!("usage: validate FILE");
        return ExitCode::from(2);
    };
    let mut bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("{}: {e}", path.to_string_lossy());
            return ExitCode::from(2);
        }
    };
    match bidscan_json::from_slice_mut::<serde::de::IgnoredAny>(&mut bytes) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{}: {e}", path.to_string_lossy());
            ExitCode::from(1)
        }
    }
}
