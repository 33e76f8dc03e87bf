//! `bidscan transcode [--from json|protobuf] [--to json|protobuf] IN [-o OUT]`: one bid response converted
//! between OpenRTB JSON and its protobuf encoding (IAB Tech Lab's OpenRTB 2.6 schema), both ways.
//!
//! The document is decoded (lenient, as `POST /decode` reads it by default) into the model, then written:
//! - as JSON: the canonical bid response, the `response` member of `/decode`'s full view (OpenRTB 2.6 member
//!   order, `ext` kept, a protobuf body's `adm_native` as an object `adm` and its undeclared `Ext` fields in the
//!   raw form of docs/api.md), which transcodes back to the same protobuf bytes;
//! - as protobuf: by [`bidscan_openrtb::encode_protobuf`]. An integer outside `int32` fails the document (exit 1,
//!   the member's JSON pointer on stderr); every member dropped (a free-form `ext` member, which no field of the
//!   schema carries) is named on stderr, one `warning:` line each.
//!
//! The direction: `--from`, else IN's extension (`.pb`, `.bin`: protobuf; else JSON); `--to`, else OUT's
//! extension (`.pb`, `.bin`: protobuf; `.json`: JSON), else the other encoding. Bid requests are not transcoded:
//! the request model holds only what response validation reads, so a request written from it would lose the rest.
//!
//! Exit status: 0 written (warnings or not), 1 the document cannot be decoded or encoded, 2 usage errors
//! (unreadable input, unwritable output, `--kind request`).

use std::io::{Read, Write};
use std::path::Path;
use std::process::ExitCode;

use bidscan_openrtb::{BidResponse, Mode, ProtobufLimits};

use super::args::{EXIT_USAGE, EncodingArg, KindArg, TranscodeArgs};

/// Runs `bidscan transcode`.
pub fn run(args: &TranscodeArgs) -> ExitCode {
    if args.kind == KindArg::Request {
        eprintln!(
            "bidscan: --kind request: bid requests are not transcoded (the request model holds only what response \
             validation reads)"
        );
        return ExitCode::from(EXIT_USAGE);
    }
    let stdin = args.input.as_os_str() == "-";
    let from = args.from.unwrap_or_else(|| {
        if !stdin && is_protobuf(&args.input) {
            EncodingArg::Protobuf
        } else {
            EncodingArg::Json
        }
    });
    let to = args.to.unwrap_or_else(|| match args.output.as_deref() {
        Some(out) if is_protobuf(out) => EncodingArg::Protobuf,
        Some(out) if out.extension().is_some_and(|e| e == "json") => EncodingArg::Json,
        _ => match from {
            EncodingArg::Json => EncodingArg::Protobuf,
            EncodingArg::Protobuf => EncodingArg::Json,
        },
    });
    let mut body = Vec::new();
    let read = if stdin {
        std::io::stdin().read_to_end(&mut body).map(|_| ())
    } else {
        std::fs::read(&args.input).map(|b| body = b)
    };
    if let Err(e) = read {
        eprintln!("bidscan: {}: {e}", args.input.display());
        return ExitCode::from(EXIT_USAGE);
    }
    let name = args.input.display();
    let mut rendered = String::new();
    let decoded = match from {
        EncodingArg::Json => bidscan_openrtb::decode(
            &mut bidscan_json::Reader::default(),
            &mut body,
            Mode::Lenient,
        )
        .map_err(|e| e.to_string()),
        EncodingArg::Protobuf => bidscan_openrtb::decode_protobuf(
            &body,
            &mut rendered,
            Mode::Lenient,
            ProtobufLimits::default(),
        )
        .map_err(|e| e.to_string()),
    };
    let decoded = match decoded {
        Ok(d) => d,
        Err(e) => {
            eprintln!("bidscan: {name}: cannot decode: {e}");
            return ExitCode::FAILURE;
        }
    };
    let out = match write(&decoded.response, to) {
        Ok((out, warnings)) => {
            for w in warnings {
                eprintln!("bidscan: {name}: warning: {w}");
            }
            out
        }
        Err(e) => {
            eprintln!("bidscan: {name}: cannot encode as protobuf: {e}");
            return ExitCode::FAILURE;
        }
    };
    let written = match args.output.as_deref() {
        Some(path) if path.as_os_str() != "-" => {
            std::fs::write(path, &out).map_err(|e| format!("{}: {e}", path.display()))
        }
        _ => {
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(&out)
                .and_then(|()| stdout.flush())
                .map_err(|e| format!("stdout: {e}"))
        }
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bidscan: cannot write {e}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// `response` written as `to`: the bytes and the members dropped.
fn write(
    response: &BidResponse<'_>,
    to: EncodingArg,
) -> Result<(Vec<u8>, Vec<bidscan_openrtb::EncodeWarning>), bidscan_openrtb::EncodeError> {
    match to {
        EncodingArg::Protobuf => {
            let mut out = Vec::new();
            let warnings = bidscan_openrtb::encode_protobuf(response, &mut out)?;
            Ok((out, warnings))
        }
        EncodingArg::Json => {
            // The model serializes to memory without failing (see `engine::decode::render_failed`).
            let mut out = serde_json::to_vec(response).unwrap_or_default();
            out.push(b'\n');
            Ok((out, Vec::new()))
        }
    }
}

/// Whether a path names a protobuf file (`.pb`, `.bin`), as `bidscan decode` reads them.
fn is_protobuf(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "pb" || e == "bin")
}
