//! [`Workers`]: the threads that serve connections, each a tokio current-thread runtime.
//!
//! With `server.worker_threads` = N (0: one per core), N threads named `bidscan-w0` … `bidscan-w{N-1}` each run
//! a current-thread runtime. The one accept loop ([`crate::transport::server`]) hands every accepted connection to the
//! worker with the fewest open connections ([`Workers::serve`]), and the connection lives on that thread until
//! it closes: its requests, its decodes (so each worker's decode pool, a `thread_local!` of [`crate::engine::decode`],
//! stays warm and is never shared), its timers and its lingering close.
//!
//! Why not tokio's multi-thread runtime: its work stealing may move a connection's task to another thread at any
//! `.await` (and with it the decode pool it uses), and its shared queues and wake-ups are per-request work a
//! connection that stays on one thread does not need. Why not one
//! `SO_REUSEPORT` listener per worker: the kernel spreads connections by a hash of their addresses, not by load
//! (16 connections from one client were split 11 to 5), and each socket has its own accept queue, so the
//! connection cap and the drain would have to be kept per socket.
//!
//! A connection handed to a worker leaves the accept loop's runtime as a `std` socket and is registered with the
//! worker's (two `epoll_ctl` calls per connection, not per request).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot};

/// The target of this module's log lines (`log.level` filters name it; docs/operations.md, "Logs").
const LOG_TARGET: &str = "bidscan_server::workers";

/// The stack of a worker thread: tokio's default for its own workers (`decode.max_depth` is bounded for it).
pub const WORKER_STACK: usize = 2 * 1024 * 1024;

/// What a worker does with a connection handed to it: a future serving the stream, spawned on the worker.
pub type Serve = Box<dyn FnOnce(TcpStream) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send>;

/// A connection on its way to a worker.
struct Job {
    stream: std::net::TcpStream,
    serve: Serve,
    /// Held while the connection is open: the worker's count of open connections.
    open: Open,
}

/// One worker's share of the open connections; decremented when dropped (the connection ended, or was never
/// served because the worker stopped).
struct Open(Arc<AtomicUsize>);

impl Drop for Open {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The accept loop's handle on one worker thread.
struct Worker {
    jobs: mpsc::UnboundedSender<Job>,
    open: Arc<AtomicUsize>,
    /// Resolves (with an error) when the worker's runtime has been dropped, its connections with it.
    done: oneshot::Receiver<()>,
}

/// The worker threads (see the module docs). Dropping it stops them: each drops its runtime, closing the
/// connections it still serves; [`Workers::stop`] also waits for that.
pub struct Workers {
    workers: Vec<Worker>,
}

impl Workers {
    /// Starts `count` workers (0: one per core, as `std::thread::available_parallelism` counts them).
    ///
    /// # Errors
    /// When a runtime or a thread cannot be created (out of memory or threads); the workers already started stop.
    pub fn start(count: usize) -> std::io::Result<Workers> {
        let count = if count == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            count
        };
        let mut workers = Vec::with_capacity(count);
        for index in 0..count {
            workers.push(Worker::start(index)?);
        }
        Ok(Workers { workers })
    }

    /// How many workers there are.
    pub fn len(&self) -> usize {
        self.workers.len()
    }

    /// Hands `stream` to the worker with the fewest open connections (the lowest index on a tie), which spawns
    /// `serve(stream)` on its runtime. Dropped (the client sees the connection closed) when the socket cannot
    /// leave this runtime or join the worker's, or the worker has stopped.
    pub fn serve(&self, stream: TcpStream, serve: Serve) {
        let Some(worker) = self
            .workers
            .iter()
            .min_by_key(|w| w.open.load(Ordering::Relaxed))
        else {
            return;
        };
        let stream = match stream.into_std() {
            Ok(stream) => stream,
            Err(e) => {
                tracing::debug!(target: LOG_TARGET, error = %e, "accepted connection could not leave the accept loop");
                return;
            }
        };
        worker.open.fetch_add(1, Ordering::Relaxed);
        let open = Open(worker.open.clone());
        if worker
            .jobs
            .send(Job {
                stream,
                serve,
                open,
            })
            .is_err()
        {
            tracing::debug!(target: LOG_TARGET, "a worker has stopped; connection dropped");
        }
    }

    /// Stops the workers and waits until each has dropped its runtime (and the connections on it).
    pub async fn stop(self) {
        let mut done = Vec::with_capacity(self.workers.len());
        for worker in self.workers {
            drop(worker.jobs);
            done.push(worker.done);
        }
        for d in done {
            let _ = d.await;
        }
    }
}

impl Worker {
    fn start(index: usize) -> std::io::Result<Worker> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let (jobs, mut queue) = mpsc::unbounded_channel::<Job>();
        let (finished, done) = oneshot::channel();
        std::thread::Builder::new()
            .name(format!("bidscan-w{index}"))
            .stack_size(WORKER_STACK)
            .spawn(move || {
                runtime.block_on(async move {
                    while let Some(job) = queue.recv().await {
                        run(job);
                    }
                });
                // Connections still open (a drain past its deadline) end here.
                drop(runtime);
                drop(finished);
            })?;
        Ok(Worker {
            jobs,
            open: Arc::new(AtomicUsize::new(0)),
            done,
        })
    }
}

/// Registers the job's socket with this worker's runtime and spawns its connection there.
fn run(job: Job) {
    let Job {
        stream,
        serve,
        open,
    } = job;
    match TcpStream::from_std(stream) {
        Ok(stream) => {
            let conn = serve(stream);
            tokio::spawn(async move {
                conn.await;
                drop(open);
            });
        }
        Err(e) => {
            tracing::debug!(target: LOG_TARGET, error = %e, "connection could not join its worker")
        }
    }
}
