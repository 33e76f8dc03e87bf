//! The request steps of ours, one per file, in the order a request meets them ([`crate::routes::router`] stacks
//! them as tower layers; [`crate::routes::pipeline`] calls their pieces as steps of one future):
//! - [`request`]: `RequestLayer`, the outermost — request id, the request's (lazy) span, the id echoed;
//! - [`track`]: `TrackLayer`, the HTTP metrics under the matched route template;
//! - [`unread`]: `CloseIfUnreadLayer`, `Connection: close` on an error answered before the body was read;
//! - [`host`]: `RequireHostLayer`, RFC 9112 §3.2's `Host` rule;
//! - [`inflate`]: `InflateLayer`, the wire-size limit and `Content-Encoding` of request bodies;
//! - [`compress`]: answer compression (tower-http's `Compression`, from 1 KiB).
//!
//! What wraps a connection rather than a request (lingering close, send timeout, hyper's own rejections, the
//! drain) is in [`crate::transport::conn`].

pub mod compress;
pub mod host;
pub mod inflate;
pub mod request;
pub mod track;
pub mod unread;
