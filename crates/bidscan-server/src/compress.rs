//! Answer compression ([`layer`]): tower-http's `CompressionLayer` (gzip, deflate, br, zstd, chosen from the
//! request's `Accept-Encoding` with its q-values, RFC 9110 §12.5.3; `Vary: accept-encoding` added), for answers
//! larger than [`COMPRESS_ABOVE`] bytes, at the fastest level.
//!
//! Used on `/decode`, `/metrics` and `/openapi.json`. Not on `/decode/batch`: a compressor holds output back
//! until its window fills, which would delay each streamed answer line. A no-bid answer (~300 bytes) is under
//! the threshold, so the no-bid path pays only the `Accept-Encoding` lookup; compressing a 20 KB answer costs
//! more CPU than decoding it, which is the client's trade to make by asking.

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
