//! Answer compression ([`layer`]): tower-http's `CompressionLayer` (gzip, deflate, br, zstd, chosen from the
//! request's `Accept-Encoding` with its q-values, RFC 9110 §12.5.3; `Vary: accept-encoding` added), for answers
//! larger than [`COMPRESS_ABOVE`] bytes, at the fastest level.
//!
//! Used on `/metrics` and `/openapi.json`. Not yet on `/decode`, whose stack (`app::DecodeLayers`, served by
//! `dispatch`) has a fixed `Response<Body>` type that the compression body does not fit without a box per
//! request. Not on `/decode/batch`: a compressor holds output back until its window fills, which would delay
//! each streamed answer line.

use tower_http::CompressionLevel;
use tower_http::compression::CompressionLayer;
use tower_http::compression::predicate::SizeAbove;

/// Answers of at most this many bytes are sent as they are (nginx's `gzip_min_length` is 20; 1 KiB keeps the
/// no-bid and small error answers, which gain nothing from compression, off the compressor).
pub const COMPRESS_ABOVE: u64 = 1024;

/// The compression layer of the routes named in the module docs.
pub fn layer() -> CompressionLayer<SizeAbove> {
    CompressionLayer::new()
        .quality(CompressionLevel::Fastest)
        .compress_when(SizeAbove::new(COMPRESS_ABOVE))
}
