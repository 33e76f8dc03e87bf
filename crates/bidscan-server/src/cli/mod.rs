//! The command line: `bidscan serve | decode | validate | transcode | health`.
//!
//! Exit status: 0 success; 1 failure (a document that could not be decoded, an unhealthy server, a server that
//! could not start); 2 usage errors (bad arguments, bad configuration, unreadable input path). Never a panic.

mod args;
pub mod decode;
pub mod health;
pub mod log_fields;
pub mod transcode;

use std::process::ExitCode;

use clap::Parser;

use args::{Cli, Command, EXIT_USAGE, ServeArgs};

use crate::config::{Config, LogFormat};
use crate::engine::Work;

/// The target of this module's log lines (`log.level` filters name it; docs/operations.md, "Logs").
const LOG_TARGET: &str = "bidscan_server::cli";

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
        Command::Decode(args) => decode::run(&args, Work::Decode),
        Command::Validate(args) => decode::run(&args, Work::Validate),
        Command::Transcode(args) => transcode::run(&args),
        Command::Health(args) => health::run(&args),
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
    // The accept loop, the signals and the drain; connections are served on the worker threads that `serve`
    // starts (`server.worker_threads`, see `crate::transport::workers`).
    let mut builder = tokio::runtime::Builder::new_current_thread();
    builder.enable_all();
    let runtime = match builder.build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("bidscan: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    // A reload reads the configuration as this start did: the same file, the environment, `--listen`.
    let (file, listen) = (args.config.clone(), args.listen);
    let load: crate::config::reload::Loader = std::sync::Arc::new(move || {
        let mut config = Config::load(file.as_deref()).map_err(|e| e.to_string())?;
        if let Some(listen) = listen {
            config.server.listen = listen;
        }
        Ok(config)
    });
    let result = runtime.block_on(async move {
        let reloads = reloads(load);
        let listener = crate::transport::server::bind(&config.server)
            .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", config.server.listen))?;
        crate::transport::server::serve_with(
            config,
            listener,
            crate::transport::server::shutdown_signal(),
            reloads,
        )
        .await
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(target: LOG_TARGET, error = %e, "server failed");
            eprintln!("bidscan: {e:#}");
            // TLS files that do not load are a configuration error, as a bad key is.
            if e.downcast_ref::<crate::transport::tls::TlsError>()
                .is_some()
            {
                ExitCode::from(EXIT_USAGE)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

/// Reloads on `SIGHUP` (Unix); none where it cannot be listened for (logged).
fn reloads(load: crate::config::reload::Loader) -> Option<crate::config::reload::Reloads> {
    #[cfg(unix)]
    match crate::config::reload::Reloads::on_sighup(load) {
        Ok(reloads) => Some(reloads),
        Err(e) => {
            tracing::error!(target: LOG_TARGET, error = %e, "cannot listen for SIGHUP: no configuration reloads");
            None
        }
    }
    #[cfg(not(unix))]
    {
        drop(load);
        None
    }
}

/// Installs the global tracing subscriber: JSON lines or pretty, filtered by `RUST_LOG` or else `level`.
///
/// # Errors
/// An invalid filter directive, or a subscriber already installed.
pub fn init_logging(format: LogFormat, level: &str) -> anyhow::Result<()> {
    use tracing_subscriber::EnvFilter;
    let filter = match std::env::var("RUST_LOG") {
        // Checked as `log.level` is by `Config::load`.
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
            .fmt_fields(crate::cli::log_fields::JsonSpanFields)
            .try_init(),
        LogFormat::Pretty => builder.pretty().try_init(),
    };
    result.map_err(|e| anyhow::anyhow!(e))
}

#[cfg(test)]
mod tests {
    use super::args::ViewArg;
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
