//! The engine: a document's bytes to the answer JSON, with no HTTP in it.
//! - [`decode`]: [`Engine`](decode::Engine) and its per-worker pools; `/decode`'s answer;
//! - [`validate`]: a bid response judged against its bid request; [`Work`](validate::Work), what a route or
//!   command does with each document;
//! - [`render`]: `/decode`'s 200 body written straight into bytes.

pub mod decode;
pub mod render;
pub mod validate;
