//! The tower layers of ours, and the answer compression configured from tower-http's, in the order a request
//! meets them on the router ([`crate::routes::app`] assembles them; [`crate::routes::pipeline`] folds the same steps into one service
//! for `POST /decode`):
//! - [`request`]: `RequestLayer`, the outermost — request id, the request's (lazy) span, the id echoed;
//! - [`track`]: `TrackLayer`, the HTTP metrics under the matched route template;
//! - [`unread`]: `CloseIfUnreadLayer`, `Connection: close` on an error answered before the body was read;
//! - [`host`]: `RequireHostLayer`, RFC 9112 §3.2's `Host` rule;
//! - [`answer_errors`]: `AnswerErrorsLayer`, shed → 503 and timeout → 408 on the decode routes;
//! - [`inflate`]: `InflateLayer`, the wire-size limit and `Content-Encoding` of request bodies;
//! - [`compress`]: answer compression (tower-http's `Compression`, from 1 KiB).
//!
//! What wraps a connection rather than a request (lingering close, send timeout, hyper's own rejections, the
//! drain) is in [`crate::transport::conn`].

pub mod answer_errors;
pub mod compress;
pub mod host;
pub mod inflate;
pub mod request;
pub mod track;
pub mod unread;
