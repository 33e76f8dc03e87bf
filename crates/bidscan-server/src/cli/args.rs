//! The command line's arguments (clap derive) and exit statuses: a leaf that [`super`] parses and the
//! subcommands' modules read.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::engine::{Encoding, Inspect, View};

/// Exit status for usage errors (bad arguments, configuration or input path).
pub const EXIT_USAGE: u8 = 2;

/// bidscan: decode OpenRTB bid responses, as a service or offline.
#[derive(Debug, Parser)]
#[command(name = "bidscan", version, about, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the HTTP service (compiled-in default config; a file and BIDSCAN__SECTION__KEY variables override it).
    Serve(ServeArgs),
    /// Decode files, a directory or stdin offline; prints the same JSON as POST /decode.
    Decode(DecodeArgs),
    /// Validate envelopes ({"request", "response"}) from files, a directory or stdin offline; prints the same
    /// JSON as POST /validate, under the `[validate]` rules of the configuration. A directory's subdirectories
    /// holding `request.json` are auctions (one `BIDDER.json`, or protobuf `BIDDER.pb`, per bidder), answered as POST
    /// /validate/auction.
    Validate(DecodeArgs),
    /// Convert one bid response between OpenRTB JSON and protobuf (IAB Tech Lab's OpenRTB 2.6 schema), both
    /// ways: JSON is the canonical response of POST /decode's full view.
    Transcode(TranscodeArgs),
    /// Probe a running instance: exit 0 when it answers 2xx, 1 otherwise.
    Health(HealthArgs),
}

/// `bidscan serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// TOML file overriding the compiled-in default (see config/bidscan.toml for every key).
    #[arg(long, short = 'c', value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Address to listen on; overrides server.listen from every other source.
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<SocketAddr>,
}

/// `bidscan decode`.
#[derive(Debug, clap::Args)]
pub struct DecodeArgs {
    /// A bid-response file (for `validate`: an envelope file), a directory of them (*.json, *.ndjson, *.jsonl;
    /// not recursive), or `-` for stdin.
    /// Files ending in .ndjson or .jsonl hold one document per line.
    #[arg(value_name = "FILE|DIR|-")]
    pub input: PathBuf,
    /// Fail on the first deviation from the spec's shape instead of coercing it (without it: `decode.mode` of
    /// the config, `lenient` by default).
    #[arg(long)]
    pub strict: bool,
    /// `full` (with the canonical response) or `summary`.
    #[arg(long, value_enum, default_value = "full")]
    pub view: ViewArg,
    /// `all` (read every bid's ad markup: VAST, native, HTML) or `none` (only its kind and size).
    #[arg(long, value_enum, default_value = "all")]
    pub inspect: InspectArg,
    /// Read stdin (or any file) as NDJSON: one document per line.
    #[arg(long)]
    pub ndjson: bool,
    /// `decode`: how the documents are encoded, for every input (stdin included). Without it, files ending in
    /// .pb or .bin are protobuf `BidResponse`s, the others JSON.
    #[arg(long, value_enum, value_name = "json|protobuf")]
    pub encoding: Option<EncodingArg>,
    /// Exit 1 when any document has validation issues, not only when one fails to decode.
    #[arg(long)]
    pub fail_on_issues: bool,
    /// `validate`: judge under the policy profile `[validate.profiles.NAME]` instead of the base `[validate]`
    /// (an unknown name is a usage error).
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
    /// TOML file for the decode and pool settings.
    #[arg(long, short = 'c', value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// `bidscan transcode`.
#[derive(Debug, clap::Args)]
pub struct TranscodeArgs {
    /// A bid-response file, or `-` for stdin.
    #[arg(value_name = "FILE|-")]
    pub input: PathBuf,
    /// Where to write (default: stdout).
    #[arg(long, short = 'o', value_name = "FILE|-")]
    pub output: Option<PathBuf>,
    /// The input's encoding. Without it: protobuf for a file ending in .pb or .bin, else JSON.
    #[arg(long, value_enum, value_name = "json|protobuf")]
    pub from: Option<EncodingArg>,
    /// The output's encoding. Without it: from the output file's extension (.pb, .bin, .json), else the other
    /// encoding than the input's.
    #[arg(long, value_enum, value_name = "json|protobuf")]
    pub to: Option<EncodingArg>,
    /// `response` (a bid response). `request` is refused: the request model holds only what response validation
    /// reads.
    #[arg(long, value_enum, default_value = "response")]
    pub kind: KindArg,
}

/// `--kind` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum KindArg {
    /// A bid response.
    Response,
    /// A bid request (refused).
    Request,
}

/// `--view` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ViewArg {
    /// Everything.
    Full,
    /// Without the canonical response.
    Summary,
}

impl From<ViewArg> for View {
    fn from(v: ViewArg) -> View {
        match v {
            ViewArg::Full => View::Full,
            ViewArg::Summary => View::Summary,
        }
    }
}

/// `--encoding` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EncodingArg {
    /// JSON (as `POST /decode` with `Content-Type: application/json`).
    Json,
    /// A protobuf `BidResponse` (as `POST /decode` with `Content-Type: application/x-protobuf`).
    Protobuf,
}

impl From<EncodingArg> for Encoding {
    fn from(v: EncodingArg) -> Encoding {
        match v {
            EncodingArg::Json => Encoding::Json,
            EncodingArg::Protobuf => Encoding::Protobuf,
        }
    }
}

/// `--inspect` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum InspectArg {
    /// Inspect every bid's markup.
    All,
    /// Do not.
    None,
}

impl From<InspectArg> for Inspect {
    fn from(v: InspectArg) -> Inspect {
        match v {
            InspectArg::All => Inspect::All,
            InspectArg::None => Inspect::None,
        }
    }
}

/// `bidscan health`.
#[derive(Debug, clap::Args)]
pub struct HealthArgs {
    /// URL to GET (`http://` or `https://`). Default: `/healthz` on the configured `server.ops_listen`, else
    /// `server.listen`, port (the compiled-in default and `BIDSCAN__SERVER__…`), over loopback when it listens on
    /// every address; `https://localhost:PORT` when `[server.tls]` is on.
    #[arg(long)]
    pub url: Option<String>,
    /// Seconds to wait for the answer, 1–3600.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub timeout_secs: u64,
    /// For an `https://` URL: PEM CA certificates the server's certificate must chain to (default: the
    /// system's CA certificates).
    #[arg(long, value_name = "FILE")]
    pub ca: Option<std::path::PathBuf>,
    /// For an `https://` URL: a PEM client certificate chain to present (with `--key`), for a server that
    /// requires client certificates.
    #[arg(long, value_name = "FILE", requires = "key")]
    pub cert: Option<std::path::PathBuf>,
    /// The PEM private key of `--cert`.
    #[arg(long, value_name = "FILE", requires = "cert")]
    pub key: Option<std::path::PathBuf>,
}
