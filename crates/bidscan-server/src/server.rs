//! Running and draining: [`serve`] and [`shutdown_signal`].
//!
//! Draining, from the moment the shutdown future resolves (SIGTERM/SIGINT for `bidscan serve`):
//! 1. `/readyz` answers 503 at once; everything else keeps working.
//! 2. For `server.drain_grace_secs` new connections are still accepted, so a load balancer polling `/readyz`
//!    takes the instance out of rotation before it stops listening.
//! 3. Then the listener closes, idle keep-alive connections are closed, and in-flight requests finish.
//! 4. `serve` returns when the last one is done, or at `server.drain_timeout_secs` after the signal, whichever
//!    comes first (the grace period counts toward it).

use std::future::{Future, IntoFuture};
use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::app::{self, AppState};
use crate::config::Config;

/// Serves the application on `listener` until `shutdown` resolves, then drains (see the module docs).
///
/// This is the library entry of `bidscan serve`; tests call it with a listener on `127.0.0.1:0`.
///
/// # Errors
/// When the metrics registry cannot be built or the listener fails.
pub async fn serve(
    config: Config,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let grace = Duration::from_secs(config.server.drain_grace_secs);
    let deadline = Duration::from_secs(config.server.drain_timeout_secs);
    let grace = grace.min(deadline);
    let state = AppState::new(config)?;
    let app = app::router(state.clone());
    if let Ok(addr) = listener.local_addr() {
        tracing::info!(%addr, version = env!("CARGO_PKG_VERSION"), "bidscan listening");
    }

    let (began, mut drain_started) = watch::channel(false);
    let draining = state.draining.clone();
    let stop_accepting = async move {
        shutdown.await;
        draining.store(true, Ordering::SeqCst);
        let _ = began.send(true);
        tracing::info!(
            grace_secs = grace.as_secs(),
            "shutdown signal: readiness is 503, draining"
        );
        tokio::time::sleep(grace).await;
        tracing::info!("no longer accepting connections; finishing in-flight requests");
    };
    let server = axum::serve(listener, app)
        .with_graceful_shutdown(stop_accepting)
        .into_future();
    let hard_stop = async move {
        if drain_started.wait_for(|started| *started).await.is_err() {
            std::future::pending::<()>().await;
        }
        tokio::time::sleep(deadline).await;
    };
    tokio::select! {
        result = server => {
            result?;
            tracing::info!("drained; exiting");
        }
        () = hard_stop => {
            tracing::warn!(deadline_secs = deadline.as_secs(), "drain deadline passed; exiting with requests in flight");
        }
    }
    Ok(())
}

/// Resolves on SIGINT (Ctrl-C) or, on Unix, SIGTERM. If a handler cannot be installed, that signal is ignored
/// (logged) rather than stopping the server.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!(error = %e, "cannot listen for SIGINT");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
}
