//! The HTTP limits of one connection that hyper enforces and [`crate::transport::conn::rejects`] reports: a leaf shared by
//! [`crate::transport::server`] (which configures hyper with them) and `rejects` (which names them in its answers).

/// Largest request head (request line and headers) and read buffer of one connection, in bytes: 64 KiB (hyper's
/// default buffer is ~400 KB and its head limit that buffer). A larger head is answered 431 and the connection
/// closed, so a connection that has not sent its head holds about this much at most, and
/// `server.max_connections` × 64 KiB bounds the memory of request heads. Bodies are read through the same buffer.
/// nginx allows 32 KiB of headers by default (`large_client_header_buffers 4 8k`).
pub const MAX_READ_BUFFER: usize = 64 * 1024;

/// Most header fields in one HTTP/1 request head (hyper's default, made explicit); more are answered 431.
pub const MAX_HEADERS: usize = 100;
