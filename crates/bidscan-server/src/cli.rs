//! The command line: `bidscan serve | decode | validate | health`.
//!
//! Exit status: 0 success; 1 failure (a document that could not be decoded, an unhealthy server, a server that
//! could not start); 2 usage errors (bad arguments, bad configuration, unreadable input path). Never a panic.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::config::{Config, LogFormat};
use crate::engine::{Inspect, View};
use crate::validation::Work;

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
    /// JSON as POST /validate, under the [validate] rules of the configuration.
    Validate(DecodeArgs),
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
    /// Fail on the first deviation from the spec's shape instead of coercing it.
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
    /// Exit 1 when any document has validation issues, not only when one fails to decode.
    #[arg(long)]
    pub fail_on_issues: bool,
    /// TOML file for the decode and pool settings.
    #[arg(long, short = 'c', value_name = "FILE")]
    pub config: Option<PathBuf>,
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
    /// URL to GET (http only).
    #[arg(long, default_value = "http://127.0.0.1:8080/healthz")]
    pub url: String,
    /// Seconds to wait for the answer.
    #[arg(long, default_value_t = 3)]
    pub timeout_secs: u64,
}

/// Parses the command line and runs it.
pub fn run() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version print and exit 0; real usage errors exit 2.
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(EXIT_USAGE));
        }
    };
    match cli.command {
        Command::Serve(args) => serve(args),
        Command::Decode(args) => crate::offline::run(&args, Work::Decode),
        Command::Validate(args) => crate::offline::run(&args, Work::Validate),
        Command::Health(args) => crate::health::run(&args),
    }
}

fn serve(args: ServeArgs) -> ExitCode {
    let mut config = match Config::load(args.config.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("bidscan: configuration error: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    if let Some(listen) = args.listen {
        config.server.listen = listen;
    }
    if let Err(e) = init_logging(config.log.format, &config.log.level) {
        eprintln!("bidscan: log setup: {e}");
        return ExitCode::from(EXIT_USAGE);
    }
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    builder.enable_all();
    if config.server.worker_threads > 0 {
        builder.worker_threads(config.server.worker_threads);
    }
    let runtime = match builder.build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("bidscan: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async move {
        let listener = crate::server::bind(&config.server)
            .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", config.server.listen))?;
        crate::serve(config, listener, crate::shutdown_signal()).await
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = %e, "server failed");
            eprintln!("bidscan: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Installs the global tracing subscriber: JSON lines or pretty, filtered by `RUST_LOG` or else `level`.
///
/// # Errors
/// An invalid filter directive, or a subscriber already installed.
pub fn init_logging(format: LogFormat, level: &str) -> anyhow::Result<()> {
    use tracing_subscriber::EnvFilter;
    let filter = match std::env::var("RUST_LOG") {
        Ok(v) if !v.is_empty() => EnvFilter::try_new(v)?,
        _ => EnvFilter::try_new(level)?,
    };
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    let result = match format {
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            // The per-request span's fields written straight to JSON (see log_fields.rs).
            .fmt_fields(crate::log_fields::JsonSpanFields)
            .try_init(),
        LogFormat::Pretty => builder.pretty().try_init(),
    };
    result.map_err(|e| anyhow::anyhow!(e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_valid() {
        Cli::command().debug_assert();
    }

    #[test]
    fn parses_each_subcommand() {
        let c = Cli::try_parse_from(["bidscan", "serve", "--listen", "127.0.0.1:9"]).unwrap();
        assert!(matches!(
            c.command,
            Command::Serve(ServeArgs {
                listen: Some(_),
                ..
            })
        ));
        let c = Cli::try_parse_from(["bidscan", "decode", "-", "--strict", "--view", "summary"])
            .unwrap();
        match c.command {
            Command::Decode(d) => assert!(d.strict && d.view == ViewArg::Summary),
            other => panic!("{other:?}"),
        }
        let e = Cli::try_parse_from(["bidscan", "decode", "x", "--view", "nope"]).unwrap_err();
        assert_eq!(e.exit_code(), 2);
    }
}
