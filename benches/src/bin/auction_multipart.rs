//! What reading an auction's `multipart/form-data` body costs, against the auction's validation: the server's
//! reader (`crates/bidscan-server/src/routes/auction_parts/multipart.rs`, a leaf module included here by path) and
//! `multer` (axum's reader), over the benchmark auction of 5 bidders (`bidscan_bench::auction`) sent as one
//! multipart body (the request part first, then one part per bidder).
//!
//! `auction_multipart own|multer [PASSES]` (default 10): that reader over the body PASSES times, for callgrind
//! (instructions per pass = (Ir at PASSES=5 − Ir at PASSES=1) / 4):
//! `BIDSCAN_SCAN=avx2 valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.%p target/release/auction_multipart own 5`
//! Compare with `validate_cost auction` (the auction's validation, the same bodies).
//!
//! `auction_multipart write DIR` writes the benchmark auction's files for the HTTP runs
//! (`benches/http/auction_callgrind.sh`): `auction.multipart` (the body; `boundary.txt` its boundary),
//! `response-K.json` and `envelope-K.json` (bidder K's response, and the `/validate` envelope of the request and it).
#![forbid(unsafe_code)]

#[path = "../../../crates/bidscan-server/src/routes/auction_parts/multipart.rs"]
#[allow(dead_code)]
mod multipart;

use std::convert::Infallible;
use std::hint::black_box;

use bytes::Bytes;
use futures_util::FutureExt;

/// The multipart boundary of the benchmark body.
const BOUNDARY: &str = "bidscan-auction-7d3c9e1f";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let what = args.first().map_or("own", String::as_str);
    let n: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(10);
    let pairs = bidscan_bench::pairs::pairs();
    let primary = std::env::var("BIDSCAN_AUCTION_PAIR")
        .unwrap_or_else(|_| bidscan_bench::auction::PRIMARY.to_owned());
    let auction = bidscan_bench::auction::bench_auction(&pairs, &primary, 5);
    let body = body(&auction);
    let shared = Bytes::from(body.clone());
    match what {
        "own" => {
            for _ in 0..n {
                black_box(own(black_box(&body)));
            }
        }
        "multer" => {
            for _ in 0..n {
                black_box(with_multer(black_box(shared.clone())));
            }
        }
        "write" => {
            let dir = std::path::PathBuf::from(args.get(1).map_or(".", String::as_str));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("auction.multipart"), &body).unwrap();
            std::fs::write(dir.join("boundary.txt"), BOUNDARY).unwrap();
            for (k, ((_, response), envelope)) in
                auction.responses.iter().zip(&auction.envelopes).enumerate()
            {
                std::fs::write(dir.join(format!("response-{k}.json")), response).unwrap();
                std::fs::write(dir.join(format!("envelope-{k}.json")), envelope).unwrap();
            }
        }
        "size" => println!(
            "{} bytes, {} parts",
            body.len(),
            auction.responses.len() + 1
        ),
        _ => {
            eprintln!("usage: auction_multipart own|multer|size [N] | write DIR");
            std::process::exit(2);
        }
    }
}

/// The auction as a multipart body, as `curl -F request=@… -F b0=@…` sends it.
fn body(auction: &bidscan_bench::auction::BenchAuction) -> Vec<u8> {
    let mut out = Vec::new();
    let mut part = |name: &str, content: &[u8]| {
        out.extend_from_slice(format!("--{BOUNDARY}\r\n").as_bytes());
        out.extend_from_slice(
            format!(
                "Content-Disposition: form-data; name=\"{name}\"; filename=\"{name}.json\"\r\n\
                 Content-Type: application/json\r\n\r\n"
            )
            .as_bytes(),
        );
        out.extend_from_slice(content);
        out.extend_from_slice(b"\r\n");
    };
    part("request", &auction.request);
    for (bidder, response) in &auction.responses {
        part(bidder, response);
    }
    out.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    out
}

/// The server's reader: every part located, named and checked.
fn own(body: &[u8]) -> usize {
    match multipart::read(body, BOUNDARY, 64) {
        Ok(parts) => parts.bidders.len() + parts.request.len(),
        Err(_) => 0,
    }
}

/// multer over the body as one chunk: every field's name and bytes. Its futures are ready at once (the stream
/// holds the whole body), so they are polled once, without a runtime.
fn with_multer(body: Bytes) -> usize {
    let stream = futures_util::stream::once(async move { Ok::<Bytes, Infallible>(body) });
    let mut parts = multer::Multipart::new(stream, BOUNDARY);
    let mut total = 0;
    while let Some(Ok(Some(field))) = parts.next_field().now_or_never() {
        total += field.name().map_or(0, str::len);
        if let Some(Ok(bytes)) = field.bytes().now_or_never() {
            total += bytes.len();
        }
    }
    total
}
