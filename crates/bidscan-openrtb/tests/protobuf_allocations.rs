//! Allocation calls of `decode_protobuf` against `decode` of the same content: for every twin of
//! `corpus/real-fixtures-protobuf`, the protobuf decode of the twin and the JSON decode of the JSON rendered from
//! it (both lenient, checked, not inspected) are counted with `stats_alloc`'s instrumented system allocator (one
//! test in this binary, so nothing else allocates while it counts; the least of three counts is kept). A body
//! without `ext` takes no more calls than its JSON; rendering an `ext` takes a few more (its text, small vectors).

use std::alloc::System;

use bidscan_openrtb::{Mode, ProtobufLimits, decode, decode_protobuf};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

fn least(mut count: impl FnMut() -> usize) -> usize {
    (0..3).map(|_| count()).min().unwrap()
}

#[test]
fn protobuf_allocates_no_more_than_json() {
    let dir = std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../corpus/real-fixtures-protobuf"
    ));
    let mut reader = bidscan_json::Reader::default();
    let (mut pb_total, mut json_total, mut documents, mut more) = (0, 0, 0, Vec::new());
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pb"))
        .collect();
    names.sort();
    for path in names {
        let twin = std::fs::read(&path).unwrap();
        let json = std::fs::read(path.with_extension("json")).unwrap();
        let pb = least(|| {
            let mut rendered = String::new();
            let region = Region::new(GLOBAL);
            let d = decode_protobuf(
                &twin,
                &mut rendered,
                Mode::Lenient,
                ProtobufLimits::default(),
            );
            let change = region.change();
            drop(d);
            change.allocations + change.reallocations
        });
        let js = least(|| {
            let mut input = json.clone();
            let region = Region::new(GLOBAL);
            let d = decode(&mut reader, &mut input, Mode::Lenient);
            let change = region.change();
            drop(d);
            change.allocations + change.reallocations
        });
        pb_total += pb;
        json_total += js;
        documents += 1;
        if pb > js {
            // Only where an `ext` is rendered (`render.rs` builds its JSON text: a few small vectors and the text).
            assert!(
                std::str::from_utf8(&json).unwrap().contains("\"ext\""),
                "{}: {pb} calls against {js} and no ext",
                path.display()
            );
            more.push((
                path.file_name().unwrap().to_string_lossy().into_owned(),
                pb,
                js,
            ));
        }
    }
    eprintln!(
        "{documents} documents: protobuf {pb_total} allocation calls, JSON {json_total}; more for protobuf: {more:?}"
    );
    assert_eq!(documents, 1118);
    assert!(pb_total <= json_total, "{pb_total} > {json_total}");
}
