//! [`Drain`]: closes every connection gracefully when the server drains, as hyper-util's `GracefulShutdown`
//! does, except that a connection is always polled once before the drain reaches it.
//!
//! Why not hyper-util's: its watcher calls `graceful_shutdown` on a connection as soon as the drain has begun,
//! even before the connection was first polled. hyper-util's auto builder starts every connection by reading the
//! bytes that tell HTTP/1 from h2c, and a graceful shutdown in that state cancels the connection outright: a
//! request accepted (and already sent) just before the listener closed was dropped unanswered, its client seeing
//! a reset (`tests/drain.rs` caught it once the accept loop handed connections to worker threads, which widens
//! the gap between accept and first poll). Polled once, a connection whose request bytes are there has read
//! them, and a graceful shutdown then means "answer it with `Connection: close`", as for any request in flight.

use std::future::Future;
use std::pin::Pin;
use std::task::Context;

use tokio::sync::watch;

/// The drain signal and the count of connections still open under it.
pub struct Drain {
    tx: watch::Sender<()>,
}

/// One connection's view of the drain (taken when it is accepted).
pub struct Watcher {
    rx: watch::Receiver<()>,
}

impl Drain {
    /// A drain not yet begun.
    pub fn new() -> Drain {
        Drain {
            tx: watch::channel(()).0,
        }
    }

    /// A watcher for a connection just accepted.
    pub fn watcher(&self) -> Watcher {
        Watcher {
            rx: self.tx.subscribe(),
        }
    }

    /// Connections (watchers) still open.
    pub fn count(&self) -> usize {
        self.tx.receiver_count()
    }

    /// Tells every connection to finish its request in flight and close, then waits until all have.
    pub async fn shutdown(self) {
        let _ = self.tx.send(());
        self.tx.closed().await;
    }
}

impl Default for Drain {
    fn default() -> Self {
        Drain::new()
    }
}

impl Watcher {
    /// Resolves once the drain has begun (at once if it has).
    pub async fn draining(&self) {
        let mut rx = self.rx.clone();
        // `changed` errs only when the `Drain` is gone, which ends the server anyway.
        let _ = rx.changed().await;
    }

    /// Serves `conn` to its end, calling `graceful_shutdown` on it once the drain begins — but not before its
    /// first poll (see the module docs).
    pub async fn watch<C: Future>(
        self,
        conn: C,
        graceful_shutdown: impl Fn(Pin<&mut C>),
    ) -> C::Output {
        let mut rx = self.rx;
        let mut conn = std::pin::pin!(conn);
        let changed = rx.changed();
        let mut changed = std::pin::pin!(changed);
        let (mut polled, mut draining) = (false, false);
        std::future::poll_fn(|cx: &mut Context<'_>| {
            if polled && !draining && changed.as_mut().poll(cx).is_ready() {
                draining = true;
                graceful_shutdown(conn.as_mut());
            }
            let done = conn.as_mut().poll(cx);
            if !polled && done.is_pending() {
                polled = true;
                // Look at the drain at once, now that the connection has read what was there.
                cx.waker().wake_by_ref();
            }
            done
        })
        .await
    }
}
