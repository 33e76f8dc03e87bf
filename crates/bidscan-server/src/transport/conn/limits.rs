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

/// Largest HTTP/2 header list hyper's h2 decoder keeps (advertised as `SETTINGS_MAX_HEADER_LIST_SIZE`, RFC 9113
/// §6.5.2), in bytes: twice [`MAX_READ_BUFFER`]. A list over [`MAX_READ_BUFFER`] up to this size reaches the
/// service and is answered with the JSON 431 an HTTP/1.1 head of that size gets (`crate::routes::dispatch`); a
/// longer one is answered a bare 431 by h2 itself. An h2 connection thus holds at most this much of each
/// request's header fields.
pub const H2_MAX_HEADER_LIST: usize = 2 * MAX_READ_BUFFER;
