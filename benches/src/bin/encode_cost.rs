//! The cost of writing a bid response as protobuf (`bidscan_openrtb::encode_protobuf`), per document, against
//! writing the same model as JSON and against prost encoding its own types: every twin of
//! `corpus/real-fixtures-protobuf/` decoded once (not measured), then written PASSES times.
//!
//! - `encode`: `encode_protobuf` of the model into a reused `Vec` (what `/decode`'s protobuf answer and
//!   `bidscan transcode` do after decoding);
//! - `json`: `serde_json::to_writer` of the same model into a reused `Vec` (the canonical `response` of
//!   `/decode`'s JSON answer);
//! - `prost`: `prost::Message::encode` of the twin decoded into prost's derived types
//!   (`crates/bidscan-openrtb/tests/protobuf_reference.rs`: `ext` and `adm_native` held as bytes, so prost copies
//!   them where `encode_protobuf` writes them from their JSON text: less work);
//! - `none`: the setup only (the decodes), to subtract.
//!
//! `encode_cost MODE [PASSES]` (default 10); instructions per pass = (Ir at 5 − Ir at 1) / 4:
//! `BIDSCAN_SCAN=avx2 valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.%p target/release/encode_cost encode 5`
#![forbid(unsafe_code)]

use std::hint::black_box;
use std::path::PathBuf;

use bidscan_openrtb::{BidResponse, Mode, ProtobufLimits};

#[path = "../../../crates/bidscan-openrtb/tests/protobuf_reference.rs"]
mod reference;

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "encode".into());
    let passes: usize = args.next().and_then(|p| p.parse().ok()).unwrap_or(10);
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/real-fixtures-protobuf");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the corpus")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "pb"))
        .collect();
    names.sort();
    let bodies: Vec<&'static [u8]> = names
        .iter()
        .map(|p| &*Box::leak(std::fs::read(p).expect("a twin").into_boxed_slice()))
        .collect();
    let models: Vec<BidResponse<'static>> = bodies
        .iter()
        .map(|body| {
            let rendered: &'static mut String = Box::leak(Box::default());
            bidscan_openrtb::decode_protobuf(
                body,
                rendered,
                Mode::Lenient,
                ProtobufLimits::default(),
            )
            .expect("every twin decodes")
            .response
        })
        .collect();
    let prost: Vec<reference::PbResponse> = bodies
        .iter()
        .map(|b| <reference::PbResponse as prost::Message>::decode(*b).expect("prost decodes"))
        .collect();
    let mut out = Vec::with_capacity(1 << 16);
    let mut bytes = 0usize;
    for _ in 0..passes {
        for (model, pb) in models.iter().zip(&prost) {
            out.clear();
            match mode.as_str() {
                "encode" => {
                    let warnings = bidscan_openrtb::encode_protobuf(black_box(model), &mut out)
                        .expect("every twin encodes");
                    black_box(warnings);
                }
                "json" => serde_json::to_writer(&mut out, black_box(model)).expect("renders"),
                "prost" => prost::Message::encode(black_box(pb), &mut out).expect("encodes"),
                "none" => {}
                other => panic!("unknown mode {other}: encode, json, prost, none"),
            }
            bytes += black_box(&out).len();
        }
    }
    eprintln!(
        "{mode}: {} documents × {passes} passes, {bytes} bytes written",
        models.len()
    );
}
