//! The working memory of each request-body decoder (`Content-Encoding`), measured: a counting global allocator
//! (`stats_alloc` around the system allocator) records the bytes a decoder holds once it has read only its stream's
//! header (and, for br, a first meta-block header), built as `routes/layers/inflate.rs` builds it; zstd's own
//! memory is allocated in C, so it is read from the library (`ZSTD_sizeof_DCtx`). Each figure is checked against
//! the bound the server reserves for it in `server.max_inflight_bytes` ([`bidscan_server::decoder_memory`]).
//!
//! The figures (BENCHMARKS.md, "Request-body decoders: working memory"):
//! `cargo test -p bidscan-server --test decoder_memory -- --nocapture --test-threads 1`.

use std::alloc::System;
use std::time::Duration;

use async_compression::tokio::bufread::{BrotliDecoder, GzipDecoder, ZlibDecoder, ZstdDecoder};
use bidscan_server::{Coding, decoder_memory};
use bytes::Bytes;
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio_util::io::StreamReader;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Bytes held now that were not before `region`.
fn held(region: &Region<'_, System>) -> usize {
    let c = region.change();
    (c.bytes_allocated as isize + c.bytes_reallocated - c.bytes_deallocated as isize).max(0)
        as usize
}

/// A compressed stream that is `head`, then never more (the client stalls).
fn stalled(
    head: &[u8],
) -> StreamReader<impl futures_util::Stream<Item = std::io::Result<Bytes>> + use<>, Bytes> {
    let first = futures_util::stream::iter([Ok(Bytes::copy_from_slice(head))]);
    StreamReader::new(futures_util::StreamExt::chain(
        first,
        futures_util::stream::pending(),
    ))
}

/// Reads from `decoder` until it waits for more input, then the bytes allocated since `region` began.
async fn after_head(mut decoder: impl AsyncRead + Unpin, region: &Region<'_, System>) -> usize {
    let mut out = [0u8; 64];
    let read = tokio::time::timeout(Duration::from_millis(50), decoder.read(&mut out)).await;
    assert!(
        read.is_err(),
        "the decoder answered a bare header: {read:?}"
    );
    let bytes = held(region);
    drop(decoder);
    bytes
}

/// A brotli stream header declaring `wbits`, then (`mlen`) an uncompressed meta-block header of that many bytes
/// (RFC 7932 §9.1, §9.2), bits packed from the low bit of each byte.
fn brotli_head(wbits: u32, mlen: Option<u32>) -> Vec<u8> {
    let mut bits = Vec::new();
    let mut put = |value: u32, n: u32| bits.extend((0..n).map(|i| (value >> i) & 1));
    match wbits {
        16 => put(0, 1),
        17 => put(0b000_0001, 7),
        18..=24 => put(1 | ((wbits - 17) << 1), 4),
        _ => unreachable!(),
    }
    if let Some(mlen) = mlen {
        // ISLAST 0, MNIBBLES 6 (the value 2), MLEN-1 in 24 bits, ISUNCOMPRESSED 1.
        put(0, 1);
        put(2, 2);
        put(mlen - 1, 24);
        put(1, 1);
    }
    bits.chunks(8)
        .map(|byte| {
            byte.iter()
                .enumerate()
                .fold(0u8, |acc, (i, &b)| acc | ((b as u8) << i))
        })
        .collect()
}

/// A zstd frame header declaring a window of `2^log` bytes, no content size (RFC 8878 §3.1.1.1).
fn zstd_head(log: u32) -> Vec<u8> {
    let mut head = 0xFD2F_B528u32.to_le_bytes().to_vec();
    head.extend([0x00, ((log - 10) << 3) as u8]);
    head
}

fn line(what: &str, bytes: usize, bound: usize) {
    println!("{what:<44} {bytes:>10} B  (bound {bound} B)");
    assert!(bytes <= bound, "{what}: {bytes} B held, {bound} B reserved");
}

#[tokio::test]
async fn decoders_hold_no_more_than_is_reserved_for_them() {
    // gzip and deflate (zlib): the inflate state, whatever the header says.
    let region = Region::new(GLOBAL);
    let d = GzipDecoder::new(stalled(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]));
    line(
        "gzip, header",
        after_head(d, &region).await,
        decoder_memory(Coding::Gzip, 0),
    );
    let region = Region::new(GLOBAL);
    let d = ZlibDecoder::new(stalled(&[0x78, 0x9c]));
    line(
        "deflate, header",
        after_head(d, &region).await,
        decoder_memory(Coding::Deflate, 0),
    );

    // br: the state alone after the stream header; the ring buffer once a meta-block says how much it writes.
    for wbits in [16, 22, 24] {
        let region = Region::new(GLOBAL);
        let d = BrotliDecoder::new(stalled(&brotli_head(wbits, None)));
        let bound = decoder_memory(Coding::Brotli, 1 << wbits);
        line(
            &format!("br, lgwin {wbits}, header"),
            after_head(d, &region).await,
            bound,
        );
        let region = Region::new(GLOBAL);
        let d = BrotliDecoder::new(stalled(&brotli_head(wbits, Some(1 << 24))));
        let what = format!("br, lgwin {wbits}, 16 MiB meta-block header");
        line(&what, after_head(d, &region).await, bound);
    }

    // zstd: Rust's share (the wrapper) by the allocator, the C context by the library, as the server builds it.
    use zstd::zstd_safe::{DCtx, DParameter, InBuffer, OutBuffer};
    for log in [20, 23] {
        let head = zstd_head(log);
        let region = Region::new(GLOBAL);
        let d = ZstdDecoder::with_params(
            stalled(&head),
            &[async_compression::zstd::DParameter::window_log_max(23)],
        );
        let rust = after_head(d, &region).await;
        let mut dctx = DCtx::create();
        dctx.set_parameter(DParameter::WindowLogMax(23)).unwrap();
        let created = dctx.sizeof();
        let mut out = [0u8; 64];
        let mut input = InBuffer::around(&head);
        dctx.decompress_stream(&mut OutBuffer::around(&mut out[..]), &mut input)
            .unwrap();
        assert_eq!(input.pos(), head.len());
        let bound = decoder_memory(Coding::Zstd, 1 << log);
        let what = format!(
            "zstd, window {} MiB, header (C {created} B created)",
            (1 << log) >> 20
        );
        line(&what, rust + dctx.sizeof(), bound);
    }
    // A larger window is refused by the decoder as the server builds it, before any buffer is made.
    for log in [24, 27] {
        let mut dctx = DCtx::create();
        dctx.set_parameter(DParameter::WindowLogMax(23)).unwrap();
        let head = zstd_head(log);
        let mut out = [0u8; 64];
        let refused = dctx.decompress_stream(
            &mut OutBuffer::around(&mut out[..]),
            &mut InBuffer::around(&head),
        );
        assert!(refused.is_err(), "window 2^{log} taken");
        println!(
            "zstd, window {} MiB: refused, context {} B",
            (1 << log) >> 20,
            dctx.sizeof()
        );
    }
}
