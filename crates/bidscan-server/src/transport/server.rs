//! Running and draining: [`serve`] and [`shutdown_signal`].
//!
//! Connections are served by hyper's HTTP/1.1 and HTTP/2 (h2c, prior knowledge) servers (`protocols`), driven
//! here rather than by `axum::serve`, which has neither a connection limit nor timeouts. One accept loop, on the
//! runtime `serve` is awaited on, hands each connection to one of `server.worker_threads` threads, each a
//! current-thread runtime ([`crate::transport::workers`]: the one with the fewest open connections), where it is served
//! until it closes.
//! - at most `server.max_connections` are open at once. At the limit the accept loop stops accepting until one
//!   closes, as HAProxy's `maxconn`, Tomcat's `maxConnections` and Go's `netutil.LimitListener` do: further
//!   connections wait in the kernel's accept queue (its length is the listen backlog, capped by
//!   `net.core.somaxconn`), which costs the server no memory, and are served in arrival order as slots free up;
//!   once that queue is full the kernel drops new SYNs and clients retry or time out. (The alternative,
//!   accepting and closing at once as Envoy does, fails clients faster but turns every burst into errors.)
//! - a connection must deliver a complete request head within `server.header_read_timeout_secs` of being
//!   accepted, or of the end of its previous answer (so the same timeout closes idle kept-alive connections);
//!   otherwise hyper closes it without an answer. Slowloris connections thus hold a slot for a bounded time.
//! - an HTTP/2 connection has the same time without an open stream, from its accept or the end of its last
//!   stream, or it is shut down gracefully (`GOAWAY`) and closed ([`crate::transport::conn::h2_idle`]): PINGs,
//!   `WINDOW_UPDATE`s and SETTINGS do not keep it open.
//! - a client that takes no byte of an answer for `server.send_timeout_secs` is reset ([`crate::transport::conn::send_timeout`]).
//! - a connection ends with a lingering close ([`crate::transport::conn::linger`]), so an answer sent before the request body was
//!   read reaches the client instead of being destroyed by a TCP reset.
//! - a request head hyper refuses itself (too large, invalid) is answered in the JSON error shape, with an
//!   `x-request-id`, and counted ([`crate::transport::conn::rejects`]).
//! - with `[server.tls]`, each connection's TLS handshake runs on its worker ([`crate::transport::tls`]) within
//!   what is left of `server.header_read_timeout_secs` since the accept, and the first bytes that tell HTTP/1
//!   from the h2 preface must arrive by the same deadline; a failed handshake is counted
//!   (`bidscan_tls_handshake_failures_total{reason}`), logged at DEBUG and the connection dropped.
//! - with `server.ops_listen`, a second accept loop serves the operational routes alone there, under its own cap
//!   of [`OPS_MAX_CONNECTIONS`], over TLS without a client certificate when TLS is on; it drains with the main one.
//!
//! Draining, from the moment the shutdown future resolves (SIGTERM/SIGINT for `bidscan serve`):
//! 1. `/readyz` answers 503 at once; everything else keeps working.
//! 2. For `server.drain_grace_secs` new connections are still accepted, so a load balancer polling `/readyz`
//!    takes the instance out of rotation before it stops listening.
//! 3. Then the listener closes (the connections the kernel already completed are accepted first, so none is
//!    reset with it), idle keep-alive connections are closed, and in-flight requests finish (each
//!    answered with `Connection: close`), watched by [`crate::transport::conn::drain::Drain`] (hyper-util's `GracefulShutdown`, but a
//!    connection accepted before the close is polled once, so the request it already sent is answered).
//! 4. `serve` returns when the last one is done, or at `server.drain_timeout_secs` after the signal, whichever
//!    comes first (the grace period counts toward it).

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use axum::serve::Listener;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};

use futures_util::FutureExt;

use crate::capture::Capture;
use crate::config::reload::Reloads;
use crate::config::{Config, ServerConfig};
use crate::metrics::Metrics;
use crate::routes::{self, AppState};
use crate::transport::conn::drain::{Drain, Watcher};
use crate::transport::conn::h2_idle::IdleClose;
use crate::transport::conn::head_timer::HeadTimer;
use crate::transport::conn::linger::{LINGER_TIME, Lingering};
use crate::transport::conn::rejects::Rejects;
use crate::transport::conn::replay::Replay;
use crate::transport::conn::send_timeout::SendTimeout;
use crate::transport::conn::stream_deadline::{PacedService, StreamDeadlines};
use crate::transport::tls::{FailureReason, Tls, TlsMetrics};

use crate::transport::conn::limits::H2_MAX_HEADER_LIST;
pub use crate::transport::conn::limits::{MAX_HEADERS, MAX_READ_BUFFER};
pub use crate::transport::workers::Workers;

/// The target of this module's log lines (`log.level` filters name it; docs/operations.md, "Logs").
const LOG_TARGET: &str = "bidscan_server::server";

/// Most concurrent HTTP/2 streams (requests) on one connection (RFC 9113 §5.1.2, sent in SETTINGS); the
/// connection cap times this bounds requests in flight from HTTP/2 clients, as the decode permits bound decodes.
pub const MAX_STREAMS: u32 = 128;

/// How often an HTTP/2 connection is pinged, and how long a ping may go unanswered before the connection is
/// closed: a peer that vanished without a FIN frees its slot.
pub const H2_KEEP_ALIVE: Duration = Duration::from_secs(20);

/// The accept queue (listen backlog) asked of the kernel when `server.max_connections` is smaller: connections
/// past the cap wait there.
pub const MIN_BACKLOG: u32 = 1024;

/// Most connections open at once on `server.ops_listen`: probes and scrapes need a handful.
pub const OPS_MAX_CONNECTIONS: usize = 64;

/// Binds `server.listen` with `SO_REUSEADDR` and a listen backlog of `server.max_connections`, at least
/// [`MIN_BACKLOG`] (as HAProxy sizes it from `maxconn`); the kernel caps it at `net.core.somaxconn` (4096 by
/// default since Linux 5.4). `TcpListener::bind` would ask for 128, which makes a burst past the connection cap
/// overflow the queue at once, and clients then wait for SYN retries (1 s, 3 s, ...).
///
/// # Errors
/// When the socket cannot be created, bound (address in use, no permission) or put to listening.
pub fn bind(server: &ServerConfig) -> std::io::Result<TcpListener> {
    let socket = if server.listen.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(server.listen)?;
    let backlog = u32::try_from(server.max_connections)
        .unwrap_or(u32::MAX)
        .max(MIN_BACKLOG);
    socket.listen(backlog)
}

/// Binds `server.ops_listen` (`addr`) with `SO_REUSEADDR`.
fn bind_ops(addr: std::net::SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(MIN_BACKLOG)
}

/// Serves the application on `listener` until `shutdown` resolves, then drains (see the module docs); no
/// reloads. Tests call it with a listener on `127.0.0.1:0`.
///
/// # Errors
/// As [`serve_with`].
pub async fn serve(
    config: Config,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    serve_with(config, listener, shutdown, None).await
}

/// [`serve`], reloading `[validate]` on each of `reloads` ([`Reloads`](crate::Reloads); `bidscan serve`: `SIGHUP`). The
/// rates source, when configured, is read before the first connection is accepted (waiting at most
/// `validate.rates_timeout_secs`), then on its schedule (`crate::gate`).
///
/// This is the library entry of `bidscan serve`.
///
/// # Errors
/// When the metrics registry cannot be built, the TLS files do not load (a [`TlsError`](crate::transport::tls::TlsError),
/// which `bidscan serve` turns into exit status 2) or `server.ops_listen` cannot be bound. Accept errors are
/// logged and retried (after 1 s when the process is out of file descriptors), never returned.
pub async fn serve_with(
    config: Config,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
    reloads: Option<Reloads>,
) -> anyhow::Result<()> {
    let grace = Duration::from_secs(config.server.drain_grace_secs);
    let deadline = Duration::from_secs(config.server.drain_timeout_secs);
    let grace = grace.min(deadline);
    let first_bytes = config.header_read_timeout();
    let config_send_timeout = config.send_timeout();
    let slots = Arc::new(Semaphore::new(config.server.max_connections.max(1)));
    warn_if_over_fd_limit(config.server.max_connections);
    let tls = if config.server.tls.is_enabled() {
        Some(Arc::new(Tls::load(&config.server.tls)?))
    } else {
        None
    };
    let ops_listener = match config.server.ops_listen {
        Some(addr) => Some(
            bind_ops(addr)
                .map_err(|e| anyhow::anyhow!("cannot listen on server.ops_listen {addr}: {e}"))?,
        ),
        None => None,
    };
    let workers = Workers::start(config.server.worker_threads)
        .map_err(|e| anyhow::anyhow!("cannot start the worker threads: {e}"))?;
    let running = config.clone();
    let mut state = AppState::new(config)?;
    state.capture = Capture::start(&state.config.capture, state.metrics()).map_err(|e| {
        let dir = state.config.capture.dir.clone().unwrap_or_default();
        anyhow::anyhow!("cannot capture into capture.dir {}: {e}", dir.display())
    })?;
    let tls = match tls {
        Some(tls) => {
            let metrics = TlsMetrics::register(state.metrics().registry(), tls.clone())?;
            Some((tls, Arc::new(metrics)))
        }
        None => None,
    };
    let http = protocols(&running, state.metrics().send_timeouts.clone());
    let refresher = state.gate.start().await;
    let reloader = reloads.map(|r| {
        let tls = tls.as_ref().map(|(tls, _)| tls.clone());
        tokio::spawn(crate::config::reload::run(r, running, state.clone(), tls))
    });
    let conns = Connections {
        app: routes::app(state.clone()),
        http: http.clone(),
        slots,
        metrics: state.metrics().clone(),
        graceful: Drain::new(),
        last_warning: None,
        first_bytes,
        send_timeout: config_send_timeout,
        tls: tls.clone(),
        ops: false,
    };
    let ops = ops_listener.map(|listener| {
        let conns = Connections {
            app: routes::ops_app(state.clone()),
            http,
            slots: Arc::new(Semaphore::new(OPS_MAX_CONNECTIONS)),
            metrics: state.metrics().clone(),
            graceful: Drain::new(),
            last_warning: None,
            first_bytes,
            send_timeout: config_send_timeout,
            tls: tls.clone(),
            ops: true,
        };
        (conns, listener)
    });
    if let Ok(addr) = listener.local_addr() {
        tracing::info!(target: LOG_TARGET, %addr, tls = tls.is_some(), version = env!("CARGO_PKG_VERSION"), workers = workers.len(), "bidscan listening");
    }
    if let Some(Ok(addr)) = ops.as_ref().map(|(_, l)| l.local_addr()) {
        tracing::info!(target: LOG_TARGET, %addr, tls = tls.is_some(), "operational routes listening");
    }

    let (began, mut drain_started) = watch::channel(false);
    let (stop_tx, stop_rx) = watch::channel(false);
    let stopped = |mut rx: watch::Receiver<bool>| async move {
        let _ = rx.wait_for(|stop| *stop).await;
    };
    let draining = state.draining.clone();
    let stop_accepting = async move {
        shutdown.await;
        draining.store(true, Ordering::SeqCst);
        let _ = began.send(true);
        tracing::info!(
            target: LOG_TARGET, grace_secs = grace.as_secs(),
            "shutdown signal: readiness is 503, draining"
        );
        tokio::time::sleep(grace).await;
        tracing::info!(target: LOG_TARGET, "no longer accepting connections; finishing in-flight requests");
        let _ = stop_tx.send(true);
    };
    let main = conns.run(listener, &workers, stopped(stop_rx.clone()));
    let ops = async {
        if let Some((conns, listener)) = ops {
            conns
                .run(listener, &workers, stopped(stop_rx.clone()))
                .await;
        }
    };
    let server = async {
        tokio::join!(stop_accepting, main, ops);
    };
    let hard_stop = async move {
        if drain_started.wait_for(|started| *started).await.is_err() {
            std::future::pending::<()>().await;
        }
        tokio::time::sleep(deadline).await;
    };
    let drained = tokio::select! {
        () = server => {
            tracing::info!(target: LOG_TARGET, "drained; exiting");
            true
        }
        () = hard_stop => {
            tracing::warn!(target: LOG_TARGET, deadline_secs = deadline.as_secs(), "drain deadline passed; exiting with requests in flight");
            false
        }
    };
    refresher.abort();
    if let Some(reloader) = reloader {
        reloader.abort();
    }
    if drained {
        workers.stop().await;
    } else if tokio::time::timeout(WORKER_STOP_GRACE, workers.stop())
        .await
        .is_err()
    {
        // A worker still inside a request's synchronous work (decoding, rendering) cannot be interrupted; the
        // process exits without it (its thread ends with the process) rather than outlive the deadline.
        tracing::warn!(
            target: LOG_TARGET, grace_ms = WORKER_STOP_GRACE.as_millis() as u64,
            "a worker is still busy past the drain deadline; exiting without waiting for it"
        );
    }
    Ok(())
}

/// After the drain deadline, how long the workers get to close their connections before the process exits
/// without them.
const WORKER_STOP_GRACE: Duration = Duration::from_millis(500);

/// HTTP/1.1 and HTTP/2 over cleartext with prior knowledge (h2c, RFC 9113 §3.3: what Envoy and service meshes
/// speak to upstreams), told apart by the connection preface. HTTP/1 has the head timeout and size limits above
/// and answers a request whose client half-closed the connection after sending it;
/// HTTP/2 has at most [`MAX_STREAMS`] streams per connection, header lists of at most [`MAX_READ_BUFFER`] bytes
/// (a JSON 431 up to [`H2_MAX_HEADER_LIST`], a bare one from h2 past it: `crate::routes::dispatch`),
/// hyper's flow-control windows (so a connection buffers at most about 1 MiB of unread request bodies) and
/// [`H2_KEEP_ALIVE`] pings. `Upgrade: h2c` from HTTP/1.1 is not offered (RFC 9113 deprecates it).
fn protocols(
    config: &Config,
    send_timeouts: prometheus::IntCounter,
) -> auto::Builder<StreamDeadlines> {
    let mut http = auto::Builder::new(StreamDeadlines::new(config.send_timeout(), send_timeouts));
    http.http1()
        .timer(HeadTimer)
        .header_read_timeout(config.header_read_timeout())
        .max_buf_size(MAX_READ_BUFFER)
        .max_headers(MAX_HEADERS)
        .keep_alive(true)
        // A client may shut its write side right after its request (`nc -N`, some proxies): end-of-input then
        // means "no more requests", and the request in flight is still answered (hyper's default drops it).
        .half_close(true);
    http.http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(MAX_STREAMS)
        .max_header_list_size(H2_MAX_HEADER_LIST as u32)
        .keep_alive_interval(H2_KEEP_ALIVE)
        .keep_alive_timeout(H2_KEEP_ALIVE);
    http
}

/// The open connections and what serving one needs.
struct Connections {
    app: routes::App,
    /// Configured once, used for every connection.
    http: auto::Builder<StreamDeadlines>,
    /// One permit per open connection, `server.max_connections` in all.
    slots: Arc<Semaphore>,
    metrics: Arc<Metrics>,
    /// Watches every connection, to close them gracefully when draining.
    graceful: Drain,
    /// When "connection limit reached" was last logged (at most once per [`WARN_EVERY`]).
    last_warning: Option<Instant>,
    /// How long a new connection may stay silent (`server.header_read_timeout_secs`): see [`sent_first_bytes`].
    first_bytes: Duration,
    /// How long a client may take no byte of an answer (`server.send_timeout_secs`): see [`SendTimeout`].
    send_timeout: Duration,
    /// The certificates and their metrics when TLS is on.
    tls: Option<(Arc<Tls>, Arc<TlsMetrics>)>,
    /// Whether this is `server.ops_listen`'s loop (TLS without client certificates).
    ops: bool,
}

/// Shortest time between two "connection limit reached" warnings; the counter
/// `bidscan_http_connection_limit_reached_total` counts every time.
const WARN_EVERY: Duration = Duration::from_secs(10);

impl Connections {
    /// Accepts connections until `stop` resolves, then closes the listener and waits for the open connections
    /// to finish (idle ones are closed at once, busy ones after their answer).
    async fn run(
        mut self,
        mut listener: TcpListener,
        workers: &Workers,
        stop: impl Future<Output = ()>,
    ) {
        let mut stop = pin!(stop);
        loop {
            let slot = tokio::select! {
                biased;
                () = &mut stop => break,
                slot = self.slot() => slot,
            };
            let Some(slot) = slot else { break };
            let (stream, _) = tokio::select! {
                biased;
                () = &mut stop => break,
                accepted = Listener::accept(&mut listener) => accepted,
            };
            let accepted = tokio::time::Instant::now();
            workers.serve(stream, self.connection(slot, accepted));
        }
        // The connections the kernel has completed but not handed over yet are served, not reset with the
        // listener (their clients may have sent a request already).
        while let Some(Ok((stream, _))) =
            std::future::poll_fn(|cx| listener.poll_accept(cx)).now_or_never()
        {
            let Ok(slot) = self.slots.clone().try_acquire_owned() else {
                break;
            };
            let accepted = tokio::time::Instant::now();
            workers.serve(stream, self.connection(slot, accepted));
        }
        drop(listener);
        tracing::debug!(
            target: LOG_TARGET, open = self.graceful.count(),
            "closing idle connections, waiting for busy ones"
        );
        self.graceful.shutdown().await;
    }

    /// A free connection slot, waiting (and saying so, once per wait) when there is none. `None` only if the
    /// semaphore were closed, which nothing does.
    async fn slot(&mut self) -> Option<OwnedSemaphorePermit> {
        if let Ok(slot) = self.slots.clone().try_acquire_owned() {
            return Some(slot);
        }
        self.metrics.connection_limit_reached.inc();
        if self.last_warning.is_none_or(|t| t.elapsed() >= WARN_EVERY) {
            self.last_warning = Some(Instant::now());
            tracing::warn!(
                target: LOG_TARGET, open = self.metrics.connections.get(),
                times = self.metrics.connection_limit_reached.get(),
                "connection limit reached; new connections wait in the accept queue"
            );
        }
        self.slots.clone().acquire_owned().await.ok()
    }

    /// What serves one connection, on the worker it is handed to ([`Workers::serve`]); its slot is given back
    /// when it ends. The client has `server.header_read_timeout_secs` from `accepted` to finish the TLS handshake
    /// (with TLS) and send enough bytes to tell HTTP/1 from the h2 preface ([`sent_first_bytes`], [`open_tls`]);
    /// hyper's own head timer covers HTTP/1 from then on.
    fn connection(
        &self,
        slot: OwnedSemaphorePermit,
        accepted: tokio::time::Instant,
    ) -> crate::transport::workers::Serve {
        let http = self.http.clone();
        let app = self.app.clone();
        let watcher = self.graceful.watcher();
        let metrics = self.metrics.clone();
        let deadline = accepted + self.first_bytes;
        let send_timeout = self.send_timeout;
        let tls = self.tls.clone();
        let ops = self.ops;
        let idle = H2Idle {
            accepted,
            limit: self.first_bytes,
            closes: self.metrics.h2_idle_closes.clone(),
        };
        let open = self.metrics.connections.clone();
        open.inc();
        let open = OpenGauge(open);
        Box::new(move |stream: TcpStream| {
            Box::pin(async move {
                let stream = SendTimeout::new(stream, send_timeout, metrics.send_timeouts.clone());
                match tls {
                    None => {
                        // A connection that has sent nothing when the drain begins is closed then: it holds no
                        // request, and waiting for its first bytes (up to the header-read timeout) would hold the
                        // whole drain to its deadline. Bytes already there are read first (`biased`), so a
                        // request sent just before the drain is still answered.
                        let sent = tokio::select! {
                            biased;
                            sent = sent_first_bytes(stream.get_ref(), deadline) => sent,
                            () = watcher.draining() => None,
                        };
                        if let Some(h2) = sent {
                            let idle = h2.then(|| idle.clone());
                            let io = Rejects::new(Lingering::new(stream, LINGER_TIME), metrics);
                            serve_io(io, &http, app, watcher, idle).await;
                        } else {
                            tracing::debug!(
                                target: LOG_TARGET, "connection closed: nothing to tell HTTP/1 from h2c within the header-read timeout"
                            );
                        }
                    }
                    Some((tls, tls_metrics)) => {
                        // As in cleartext, a connection still in its handshake when the drain begins has sent
                        // no request yet: it is closed then.
                        let io = Lingering::new(stream, LINGER_TIME);
                        let opened = tokio::select! {
                            biased;
                            opened = open_tls(&tls, &tls_metrics, io, ops, deadline) => opened,
                            () = watcher.draining() => None,
                        };
                        if let Some((io, h2)) = opened {
                            let idle = h2.then(|| idle.clone());
                            serve_io(Rejects::new(io, metrics), &http, app, watcher, idle).await;
                        }
                    }
                }
                drop(open);
                drop(slot);
            })
        })
    }
}

/// What an HTTP/2 connection's [`IdleClose`] needs: when it was accepted, `server.header_read_timeout_secs`, and
/// `bidscan_http2_idle_closes_total`.
#[derive(Clone)]
struct H2Idle {
    accepted: tokio::time::Instant,
    limit: Duration,
    closes: prometheus::IntCounter,
}

/// Serves `io` with hyper-util's auto builder to its end, watched by the drain, and by `idle` when it speaks
/// HTTP/2 (its first bytes were the preface).
async fn serve_io<I>(
    io: I,
    http: &auto::Builder<StreamDeadlines>,
    app: routes::App,
    watcher: Watcher,
    idle: Option<H2Idle>,
) where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let conn = http
        .serve_connection(TokioIo::new(io), PacedService(app))
        .into_owned();
    let ended = match idle {
        Some(idle) => {
            let conn = IdleClose::new(conn, idle.accepted, idle.limit, idle.closes);
            watcher
                .watch(conn, |c| c.graceful_shutdown())
                .await
                .unwrap_or(Ok(()))
        }
        None => watcher.watch(conn, |c| c.graceful_shutdown()).await,
    };
    if let Err(e) = ended {
        // Header-read timeouts, malformed heads, resets: the client's doing, not worth more than debug.
        tracing::debug!(target: LOG_TARGET, error = %e, "connection ended with an error");
    }
}

/// The TLS handshake of `io` (the operational listener's configuration when `ops`) and then, by `deadline`, the
/// first bytes that tell HTTP/1 from the h2 preface, read and handed back through [`Replay`], with whether they
/// were the preface (HTTP/2). `None` (the
/// connection is dropped) when the handshake fails — counted by its reason and logged at DEBUG — or the bytes do
/// not come in time.
async fn open_tls<IO>(
    tls: &Tls,
    metrics: &TlsMetrics,
    io: IO,
    ops: bool,
    deadline: tokio::time::Instant,
) -> Option<(Replay<tokio_rustls::server::TlsStream<IO>>, bool)>
where
    IO: AsyncRead + AsyncWrite + Unpin,
{
    let left = deadline.saturating_duration_since(tokio::time::Instant::now());
    let accepted = if ops {
        tls.accept_ops(io, left).await
    } else {
        tls.accept(io, left).await
    };
    let mut stream = match accepted {
        Ok(stream) => stream,
        Err(e) => {
            metrics.failed(e.reason);
            tracing::debug!(target: LOG_TARGET, error = %e, "TLS handshake failed; connection dropped");
            return None;
        }
    };
    let mut first = [0u8; H2_PREFACE.len()];
    let mut n = 0;
    while n == 0 || (n < first.len() && first[..n] == H2_PREFACE[..n]) {
        match tokio::time::timeout_at(deadline, stream.read(&mut first[n..])).await {
            Ok(Ok(read)) if read > 0 => n += read,
            _ => {
                tracing::debug!(
                    target: LOG_TARGET, "connection closed: nothing to tell HTTP/1 from h2 within the header-read timeout"
                );
                return None;
            }
        }
    }
    let h2 = first == *H2_PREFACE;
    // The protocol is the one ALPN chose (RFC 7301 §3.2; after `h2` the preface is required, RFC 9113 §3.4): a
    // client that speaks the other is refused, as a protocol error of its handshake. No ALPN: the first bytes say.
    let chosen = stream.get_ref().1.alpn_protocol().map(|p| p == b"h2");
    if chosen.is_some_and(|chosen| chosen != h2) {
        metrics.failed(FailureReason::Protocol);
        tracing::debug!(
            target: LOG_TARGET, h2_preface = h2, "connection closed: its first bytes are not the protocol ALPN chose"
        );
        return None;
    }
    Some((Replay::new(&first[..n], stream), h2))
}

/// `bidscan_http_connections` for one connection, decremented when dropped: when the connection ends, and also
/// when it never starts (its worker stopped) or is cancelled (a drain past its deadline).
struct OpenGauge(prometheus::IntGauge);

impl Drop for OpenGauge {
    fn drop(&mut self) {
        self.0.dec();
    }
}

/// The HTTP/2 connection preface (RFC 9113 §3.4).
const H2_PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// Whether the client sent, by `deadline`, enough bytes to choose the protocol: one that cannot start the h2c
/// preface (HTTP/1, `Some(false)`), or the whole preface (`Some(true)`). `None` when it sent nothing, only a prefix
/// of the preface, or closed:
/// hyper-util's protocol detection has no timer of its own, so without this a silent connection would hold its
/// slot for ever (`server.max_connections` of them deny the service). Bytes are peeked, not consumed.
async fn sent_first_bytes(stream: &TcpStream, deadline: tokio::time::Instant) -> Option<bool> {
    let mut buf = [0u8; H2_PREFACE.len()];
    loop {
        match tokio::time::timeout_at(deadline, stream.peek(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) | Err(_) => return None,
            Ok(Ok(n)) if n == H2_PREFACE.len() || buf[..n] != H2_PREFACE[..n] => {
                return Some(buf == *H2_PREFACE);
            }
            // A prefix of the preface: `peek` answers at once while those bytes sit unread, so wait a little.
            Ok(Ok(_)) => {
                if tokio::time::timeout_at(deadline, tokio::time::sleep(Duration::from_millis(5)))
                    .await
                    .is_err()
                {
                    return None;
                }
            }
        }
    }
}

/// Logs a warning when `max_connections` does not fit under the soft open-file limit (Linux, from
/// `/proc/self/limits`; elsewhere nothing is checked): accepting would then fail with `EMFILE` (logged, retried
/// after 1 s) before the cap is reached.
fn warn_if_over_fd_limit(max_connections: usize) {
    let limit = std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("Max open files"))?;
            line.split_whitespace().nth(3)?.parse::<usize>().ok()
        });
    // A few descriptors are the runtime's and the listener's.
    if let Some(limit) = limit
        && max_connections + 32 > limit
    {
        tracing::warn!(
            target: LOG_TARGET, max_connections,
            open_file_limit = limit,
            "server.max_connections is above the open-file limit (ulimit -n); raise the limit or lower the cap"
        );
    }
}

/// Resolves on SIGINT (Ctrl-C) or, on Unix, SIGTERM. If a handler cannot be installed, that signal is ignored
/// (logged) rather than stopping the server.
///
/// From then on a second SIGINT or SIGTERM ends the process at once, without waiting for the drain, with exit
/// status 128 + the signal's number (130, 143) as a shell reports a process killed by it: an operator who
/// presses Ctrl-C twice, or an orchestrator that signals again, means "stop now".
pub async fn shutdown_signal() {
    let mut signals = Signals::new();
    let first = signals.next().await;
    tracing::info!(
        target: LOG_TARGET, signal = first,
        "shutdown signal; a second one exits at once"
    );
    tokio::spawn(async move {
        let second = signals.next().await;
        tracing::warn!(
            target: LOG_TARGET, signal = second,
            "second shutdown signal: exiting at once, requests in flight are dropped"
        );
        std::process::exit(128 + second);
    });
}

/// SIGINT and SIGTERM listeners, installed once so no signal between two waits is lost.
struct Signals {
    #[cfg(unix)]
    int: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    term: Option<tokio::signal::unix::Signal>,
}

impl Signals {
    fn new() -> Signals {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let listen = |kind: SignalKind, name: &str| match signal(kind) {
                Ok(s) => Some(s),
                Err(e) => {
                    tracing::error!(target: LOG_TARGET, error = %e, "cannot listen for {name}");
                    None
                }
            };
            Signals {
                int: listen(SignalKind::interrupt(), "SIGINT"),
                term: listen(SignalKind::terminate(), "SIGTERM"),
            }
        }
        #[cfg(not(unix))]
        Signals {}
    }

    /// The number of the next SIGINT (2) or SIGTERM (15); never resolves if neither can be listened for.
    async fn next(&mut self) -> i32 {
        #[cfg(unix)]
        {
            async fn recv(s: &mut Option<tokio::signal::unix::Signal>) {
                let delivered = match s {
                    Some(s) => s.recv().await.is_some(),
                    None => false,
                };
                if !delivered {
                    std::future::pending::<()>().await;
                }
            }
            tokio::select! {
                () = recv(&mut self.int) => 2,
                () = recv(&mut self.term) => 15,
            }
        }
        #[cfg(not(unix))]
        {
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
            2
        }
    }
}
