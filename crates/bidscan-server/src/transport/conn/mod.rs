//! What wraps a client connection (the socket hyper reads and writes) rather than a request, as
//! [`crate::transport::server`] stacks them, the socket's own wrapper first (`Rejects(Lingering(SendTimeout(TcpStream)))`):
//! - [`send_timeout`]: `SendTimeout`, a client that takes no byte of an answer for `server.send_timeout_secs`
//!   is reset;
//! - [`stream_deadline`]: `StreamDeadlines`, the same limit for each HTTP/2 answer (hyper's executor of stream
//!   tasks): a stream whose client takes no chunk of its answer is reset alone;
//! - [`h2_idle`]: `IdleClose`, an HTTP/2 connection without an open stream for `server.header_read_timeout_secs`
//!   is shut down gracefully (its stream tasks counted by `StreamDeadlines`);
//! - [`linger`]: `Lingering`, the lingering close (read and discard what the client still sends, after our FIN);
//! - [`rejects`]: `Rejects`, hyper's own 400/414/431 answers given the JSON error shape, with [`limits`], the
//!   per-connection limits hyper enforces (a leaf);
//! - [`drain`]: `Drain`, closing every connection gracefully when the server drains;
//! - [`head_timer`]: `HeadTimer`, the coarse timer of hyper's HTTP/1 header-read timeout;
//! - [`replay`]: `Replay`, the first bytes read over TLS handed back to hyper.
//!
//! With TLS the socket wrappers stay under the TLS stream and `Rejects`, which reads HTTP, above it:
//! `Rejects(Replay(TlsStream(Lingering(SendTimeout(TcpStream)))))`.
//!
//! The tower layers around each request are in [`crate::routes::layers`].

pub mod drain;
pub mod h2_idle;
pub mod head_timer;
pub mod limits;
pub mod linger;
pub mod rejects;
pub mod replay;
pub mod send_timeout;
pub mod stream_deadline;
