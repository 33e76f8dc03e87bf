//! `bidscan decode FILE|DIR|-` and `bidscan validate FILE|DIR|-`: the service's decode and validation, offline,
//! through the same [`Engine::answer`], [`Engine::validate`] and [`Engine::auction`].
//!
//! Output on stdout is exactly what the service answers, one compact JSON line per document: the `/decode`
//! (or `/validate`) answer, or `{"error": ...}` for a document that fails. Documents come in a stable order: a directory's files
//! sorted by name (`*.json`, `*.ndjson`, `*.jsonl`; for `decode`, protobuf `BidResponse`s `*.pb`, `*.bin` too,
//! read as `POST /decode` reads a protobuf `Content-Type`; `--encoding` decides for every input), the lines of an NDJSON input in order. For `validate`, a
//! directory's subdirectories holding a `request.json` are auctions, in the same name order: the bid request and
//! one `BIDDER.json` (or protobuf `BIDDER.pb`/`.bin`) per bidder (the file's stem the bidder, as a
//! `/validate/auction` part's name), answered as
//! `/validate/auction` answers. A one-line note per
//! failure names the input on stderr, and a progress bar (stderr, only on a terminal) shows runs of more than
//! [`PROGRESS_ABOVE`] documents.
//!
//! Exit status: 0 when every document decoded (bid or no-bid; issues do not count unless `--fail-on-issues`),
//! 1 when any did not, 2 when an input cannot be read or the configuration is invalid.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::args::{DecodeArgs, EXIT_USAGE};
use crate::config::Config;
use bidscan_openrtb::Reply;

use crate::engine::{Encoding, Engine, Options, Work};
use crate::error::ApiError;
use crate::gate::{self, Gate};
use crate::metrics::Metrics;
use crate::routes::auction_parts::multipart;

/// Runs above this many documents show a progress bar.
pub const PROGRESS_ABOVE: usize = 8;

/// One document to decode: where it came from and its bytes.
struct Doc {
    name: String,
    bytes: Vec<u8>,
    /// An auction's bidders, `(name, body, encoding)` by name; `bytes` then is its bid request.
    auction: Option<Vec<(String, Vec<u8>, Encoding)>>,
    /// How `bytes` is encoded: `--encoding`, else the file's extension (`.pb`, `.bin`: protobuf).
    encoding: Encoding,
}

/// Runs `bidscan decode` (`work` = decode) or `bidscan validate`.
pub fn run(args: &DecodeArgs, work: Work) -> ExitCode {
    let config = match Config::load(args.config.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("bidscan: configuration error: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let forced = args.encoding.map(Encoding::from);
    if work != Work::Decode && forced == Some(Encoding::Protobuf) {
        eprintln!("bidscan: --encoding protobuf: only `bidscan decode` reads protobuf bodies");
        return ExitCode::from(EXIT_USAGE);
    }
    let docs = match gather(&args.input, args.ndjson, work, forced) {
        Ok(docs) if docs.is_empty() && args.input.is_dir() => {
            eprintln!(
                "bidscan: {}: no *.json, *.ndjson or *.jsonl documents{} in the directory",
                args.input.display(),
                if work == Work::Decode {
                    " (nor *.pb, *.bin)"
                } else {
                    ""
                }
            );
            return ExitCode::from(EXIT_USAGE);
        }
        Ok(docs) => docs,
        Err(e) => {
            eprintln!("bidscan: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let metrics = match Metrics::new() {
        Ok(m) => Arc::new(m),
        Err(e) => {
            eprintln!("bidscan: {e}");
            return ExitCode::FAILURE;
        }
    };
    let reader = config.decode.reader_config();
    // The configured rates only: the rates source is the server's (it is read on a schedule).
    let gate = Gate::build(&config.validate, None);
    let policy = match work {
        Work::Decode => None,
        Work::Validate | Work::Auction => match gate.select(args.profile.as_deref()) {
            Ok(policy) => Some(policy),
            Err(e) => {
                eprintln!("bidscan: --profile: {}", e.message);
                return ExitCode::from(EXIT_USAGE);
            }
        },
    };
    let engine =
        Engine::new(config.pool.to_pool_config(), reader, metrics).with_gate(gate::shared(gate));
    let options = Options {
        // `--strict`, else `decode.mode` of the config, as the server uses it for a request naming no mode.
        mode: if args.strict {
            bidscan_openrtb::Mode::Strict
        } else {
            config.decode.mode.into()
        },
        view: args.view.into(),
        inspect: args.inspect.into(),
        policy,
        bidder: None,
        encoding: Encoding::Json,
        answer: Encoding::Json,
    };
    let tally = decode_all(&engine, &docs, &options, work);
    if let Some(e) = &tally.write_error {
        eprintln!(
            "bidscan: cannot write to stdout: {e}; stopped after {} of {} documents (their answers are incomplete)",
            tally.done,
            docs.len()
        );
    }
    if docs.len() > 1 {
        eprintln!(
            "bidscan: {} documents: {} decoded ({} with issues), {} failed{}",
            docs.len(),
            tally.done - tally.failed,
            tally.with_issues,
            tally.failed,
            match docs.len() - tally.done {
                0 => String::new(),
                n => format!(", {n} not decoded (stdout failed)"),
            }
        );
    }
    let write_failed = tally.write_error.is_some();
    if write_failed || tally.failed > 0 || (args.fail_on_issues && tally.with_issues > 0) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

#[derive(Default)]
struct Tally {
    /// Documents decoded (all of them unless stdout failed); `failed` of them failed.
    done: usize,
    failed: usize,
    with_issues: usize,
    /// Why stdout could not take the answers (closed pipe, full disk), if it could not.
    write_error: Option<std::io::Error>,
}

fn decode_all(engine: &Engine, docs: &[Doc], options: &Options, work: Work) -> Tally {
    let bar = progress(docs.len());
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut tally = Tally::default();
    for doc in docs {
        tally.done += 1;
        let answered = match &doc.auction {
            Some(bidders) => auction(engine, doc, bidders, options),
            None if doc.encoding != options.encoding => {
                let options = Options {
                    encoding: doc.encoding,
                    ..options.clone()
                };
                engine.run(work, [doc.bytes.as_slice()], doc.bytes.len(), &options)
            }
            None => engine.run(work, [doc.bytes.as_slice()], doc.bytes.len(), options),
        };
        let line = match answered {
            Ok(answer) => {
                tally.with_issues += usize::from(answer.issues > 0);
                answer.json
            }
            Err(e) => {
                tally.failed += 1;
                bar.suspend(|| eprintln!("bidscan: {}: {} ({})", doc.name, e.message, e.code));
                e.to_json()
            }
        };
        let written = bar.suspend(|| out.write_all(&line).and_then(|()| out.write_all(b"\n")));
        if let Err(e) = written {
            // stdout closed (e.g. piped into `head`) or full: stop, say so, report failure.
            tally.write_error = Some(e);
            break;
        }
        bar.inc(1);
    }
    if let Err(e) = out.flush() {
        tally.write_error.get_or_insert(e);
    }
    bar.finish_and_clear();
    tally
}

/// The answer to the auction of `doc` (its bid request) and `bidders`, each bidder's body decoded in a copy.
fn auction(
    engine: &Engine,
    doc: &Doc,
    bidders: &[(String, Vec<u8>, Encoding)],
    options: &Options,
) -> Result<crate::engine::Answer, ApiError> {
    let mut request = doc.bytes.clone();
    let mut bodies: Vec<Vec<u8>> = bidders.iter().map(|(_, body, _)| body.clone()).collect();
    let mut rendered: Vec<String> = bidders.iter().map(|_| String::new()).collect();
    let replies = bidders
        .iter()
        .zip(bodies.iter_mut())
        .zip(rendered.iter_mut())
        .map(|(((name, _, encoding), body), rendered)| {
            let reply = match encoding {
                Encoding::Protobuf => Reply::Protobuf {
                    body: body.as_slice(),
                    rendered,
                },
                Encoding::Json => Reply::Body(body),
            };
            (name.as_str(), reply)
        })
        .collect();
    engine.auction(&mut request, replies, options)
}

fn progress(len: usize) -> ProgressBar {
    if len <= PROGRESS_ABOVE || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} documents")
    {
        bar.set_style(style);
    }
    bar
}

/// Reads the documents of `input` (for [`Work::Validate`], a directory's auctions too).
/// `forced`: `--encoding`, for every document; without it, a file's extension decides (`decode` only).
fn gather(
    input: &Path,
    ndjson: bool,
    work: Work,
    forced: Option<Encoding>,
) -> Result<Vec<Doc>, String> {
    if input == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| format!("stdin: {e}"))?;
        return Ok(split("stdin", bytes, ndjson, forced.unwrap_or_default()));
    }
    let meta = std::fs::metadata(input).map_err(|e| format!("{}: {e}", input.display()))?;
    if !meta.is_dir() {
        return read_file(input, ndjson, work, forced);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(input)
        .map_err(|e| format!("{}: {e}", input.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        // Every entry named as a document: one that cannot be read as a file (a dangling link, a directory
        // named `x.json`) is an error naming it, not skipped.
        .filter(|p| match extension(p) {
            Some("protobuf") => work == Work::Decode,
            Some(_) => true,
            None => work == Work::Validate && p.join("request.json").is_file(),
        })
        .collect();
    files.sort();
    let mut docs = Vec::new();
    for file in files {
        if extension(&file).is_none() {
            docs.push(read_auction(&file)?);
        } else {
            docs.extend(read_file(&file, ndjson, work, forced)?);
        }
    }
    Ok(docs)
}

/// The auction of directory `dir`: `request.json`, and each other `*.json` file a bidder's body, by name; a
/// `*.pb` or `*.bin` file is a bidder's protobuf `BidResponse` (as a part typed `application/x-protobuf`).
///
/// # Errors
/// An unreadable file, a file stem that is not a bidder's name (1–64 of `A-Z a-z 0-9 _ . -`), or two files of one
/// bidder, named.
fn read_auction(dir: &Path) -> Result<Doc, String> {
    let request = dir.join("request.json");
    let bytes = std::fs::read(&request).map_err(|e| format!("{}: {e}", request.display()))?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| matches!(extension(p), Some("json" | "protobuf")) && *p != request)
        .collect();
    files.sort();
    let mut bidders = Vec::with_capacity(files.len());
    for file in files {
        let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned());
        let name = stem.unwrap_or_default();
        multipart::bidder_name(name.as_bytes()).map_err(|e| format!("{}: {e}", file.display()))?;
        if bidders.iter().any(|(seen, _, _)| *seen == name) {
            return Err(format!(
                "{}: a second file of bidder {name:?}",
                file.display()
            ));
        }
        let body = std::fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let encoding = match extension(&file) {
            Some("protobuf") => Encoding::Protobuf,
            _ => Encoding::Json,
        };
        bidders.push((name, body, encoding));
    }
    Ok(Doc {
        name: dir.display().to_string(),
        bytes,
        auction: Some(bidders),
        encoding: Encoding::Json,
    })
}

/// `json`, `ndjson` or `protobuf` for the extensions a directory scan takes.
fn extension(path: &Path) -> Option<&'static str> {
    match path.extension()?.to_str()? {
        "json" => Some("json"),
        "ndjson" | "jsonl" => Some("ndjson"),
        "pb" | "bin" => Some("protobuf"),
        _ => None,
    }
}

/// The documents of the file `path`: one protobuf body (`decode` of a `.pb`/`.bin` file, or `--encoding
/// protobuf`), else one JSON document or one per line.
fn read_file(
    path: &Path,
    ndjson: bool,
    work: Work,
    forced: Option<Encoding>,
) -> Result<Vec<Doc>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let encoding = forced.unwrap_or(
        if work == Work::Decode && extension(path) == Some("protobuf") {
            Encoding::Protobuf
        } else {
            Encoding::Json
        },
    );
    let lines = encoding == Encoding::Json && (ndjson || extension(path) == Some("ndjson"));
    Ok(split(&path.display().to_string(), bytes, lines, encoding))
}

/// One document, or one per line (a trailing newline does not make an extra empty document).
fn split(name: &str, bytes: Vec<u8>, lines: bool, encoding: Encoding) -> Vec<Doc> {
    if !lines {
        return vec![Doc {
            name: name.to_owned(),
            bytes,
            auction: None,
            encoding,
        }];
    }
    let body = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
    body.split(|&b| b == b'\n')
        .enumerate()
        .map(|(i, line)| Doc {
            name: format!("{name}:{}", i + 1),
            bytes: line.strip_suffix(b"\r").unwrap_or(line).to_vec(),
            auction: None,
            encoding,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ndjson_split_keeps_one_document_per_line() {
        let docs = split(
            "x",
            b"{}\r\n\n{\"id\":\"1\"}\n".to_vec(),
            true,
            Encoding::Json,
        );
        let lines: Vec<&[u8]> = docs.iter().map(|d| d.bytes.as_slice()).collect();
        assert_eq!(lines, vec![&b"{}"[..], b"", b"{\"id\":\"1\"}"]);
        assert_eq!(docs[2].name, "x:3");
        assert_eq!(split("x", b"{}\n".to_vec(), false, Encoding::Json).len(), 1);
    }

    #[test]
    fn directory_scan_takes_json_files_only() {
        assert_eq!(extension(Path::new("a/b.json")), Some("json"));
        assert_eq!(extension(Path::new("a/b.jsonl")), Some("ndjson"));
        assert_eq!(extension(Path::new("a/b.pb")), Some("protobuf"));
        assert_eq!(extension(Path::new("a/MANIFEST.tsv")), None);
    }
}
