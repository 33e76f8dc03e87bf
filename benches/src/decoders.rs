//! The decoders under comparison, each with the state it keeps between documents, behind one
//! [`Decoders::run`] so the criterion benches, the allocation report and the callgrind loop time exactly the
//! same code.

use std::hint::black_box;

use crate::mirror::{self, Skipped, SonicRaw};

/// One decoder (or the memcpy floor).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Decoder {
    /// Copy the document into a reused buffer, nothing else: the floor.
    Memcpy,
    /// `bidscan_openrtb::decode` (reused `Reader`, document copied into a reused buffer first; the decode
    /// includes issue collection and validation).
    Bidscan,
    /// bidscan's reader alone (`bidscan_json::Reader::decode`, reused, document copied into a reused buffer)
    /// into the peers' mirror model with `ext` skipped — the same target as simd-json and jiter, so the reader
    /// is compared with them without the OpenRTB layer (lenient visitors, `ext` capture, validation).
    BidscanMirror,
    /// `bidscan_openrtb::decode_inspected`: [`Bidscan`](Decoder::Bidscan) plus reading every bid's `adm`
    /// (bidscan-markup, reused `Inspector`). Not in [`ALL`](Decoder::ALL): timed against `bidscan` by the
    /// `inspect` binary.
    BidscanInspect,
    /// `serde_json::from_slice` into `bidscan_openrtb::BidResponse` (the real model; no validation).
    SerdeJson,
    /// `sonic_rs::from_slice` into the mirror model, `ext` kept as `LazyValue`.
    SonicRs,
    /// `simd_json::serde::from_slice_with_buffers` (reused `Buffers`, document copied into a reused buffer)
    /// into the mirror model, `ext` skipped.
    SimdJson,
    /// `jiter::serde::from_slice` into the mirror model, `ext` skipped.
    Jiter,
}

impl Decoder {
    /// Every decoder, floor first, in table order.
    pub const ALL: [Decoder; 7] = [
        Decoder::Memcpy,
        Decoder::Bidscan,
        Decoder::BidscanMirror,
        Decoder::SerdeJson,
        Decoder::SonicRs,
        Decoder::SimdJson,
        Decoder::Jiter,
    ];

    /// The peers (every decoder but bidscan's two and the floor).
    pub const PEERS: [Decoder; 4] = [
        Decoder::SerdeJson,
        Decoder::SonicRs,
        Decoder::SimdJson,
        Decoder::Jiter,
    ];

    /// Name used for criterion ids, table columns and the command line.
    pub fn name(self) -> &'static str {
        match self {
            Decoder::Memcpy => "memcpy",
            Decoder::Bidscan => "bidscan",
            Decoder::BidscanMirror => "bidscan-mirror",
            Decoder::BidscanInspect => "bidscan+inspect",
            Decoder::SerdeJson => "serde_json",
            Decoder::SonicRs => "sonic-rs",
            Decoder::SimdJson => "simd-json",
            Decoder::Jiter => "jiter",
        }
    }

    /// The decoder called `name` (see [`name`](Self::name)), [`BidscanInspect`](Decoder::BidscanInspect)
    /// included.
    pub fn from_name(name: &str) -> Option<Decoder> {
        Decoder::ALL
            .into_iter()
            .chain([Decoder::BidscanInspect])
            .find(|d| d.name() == name)
    }
}

/// The state every decoder reuses between documents: bidscan's reader, the input buffer (bidscan and
/// simd-json decode in place, so each run copies the document into it), simd-json's buffers.
///
/// bidscan's reader is [`bench_reader`]'s (`BIDSCAN_SCAN`, `BIDSCAN_SKIP_INDEX`).
pub struct Decoders {
    reader: bidscan_json::Reader,
    inspector: bidscan_openrtb::Inspector,
    input: Vec<u8>,
    simd: simd_json::Buffers,
}

/// The reader the benches run: the fastest scanner body the CPU has, unless `BIDSCAN_SCAN` names another
/// (`swar`, `sse2`, `avx2`, `avx512`, `neon`; ignored when not available), to compare bodies in one run; and
/// skipped containers over the structural index unless `BIDSCAN_SKIP_INDEX=0` (the token walk, to compare
/// both in one build).
pub fn bench_reader() -> bidscan_json::Reader {
    let mut reader = bidscan_json::Reader::default();
    if let Ok(name) = std::env::var("BIDSCAN_SCAN") {
        let wanted = bidscan_json::ScanImpl::available()
            .into_iter()
            .find(|imp| format!("{imp:?}").eq_ignore_ascii_case(&name));
        if let Some(imp) = wanted {
            reader.set_scan_impl(imp);
        }
    }
    if std::env::var("BIDSCAN_SKIP_INDEX").is_ok_and(|v| v == "0") {
        reader.set_skip_index(false);
    }
    reader
}

impl Default for Decoders {
    fn default() -> Decoders {
        let reader = bench_reader();
        Decoders {
            reader,
            inspector: bidscan_openrtb::Inspector::new(),
            input: Vec::new(),
            simd: simd_json::Buffers::default(),
        }
    }
}

impl Decoders {
    /// Decodes `doc` with `decoder` into its model, drops the value, and returns the number of bids (the memcpy
    /// floor returns the number of bytes copied). Panics if the document does not decode: the corpus must.
    #[inline]
    pub fn run(&mut self, decoder: Decoder, doc: &[u8]) -> usize {
        match decoder {
            Decoder::Memcpy => {
                self.copy_in(doc);
                black_box(&self.input).len()
            }
            Decoder::Bidscan => {
                self.copy_in(doc);
                let decoded = bidscan_openrtb::decode(
                    &mut self.reader,
                    &mut self.input,
                    bidscan_openrtb::Mode::Lenient,
                )
                .expect("bidscan decodes the corpus");
                black_box(&decoded).bid_count()
            }
            Decoder::BidscanInspect => {
                self.copy_in(doc);
                let decoded = bidscan_openrtb::decode_inspected(
                    &mut self.reader,
                    &mut self.input,
                    bidscan_openrtb::Mode::Lenient,
                    &mut self.inspector,
                )
                .expect("bidscan decodes the corpus");
                black_box(&decoded).bid_count()
            }
            Decoder::BidscanMirror => {
                self.copy_in(doc);
                let response: mirror::BidResponse<'_, Skipped> = self
                    .reader
                    .decode(&mut self.input)
                    .expect("bidscan decodes the corpus");
                black_box(&response).bid_count()
            }
            Decoder::SerdeJson => {
                let response: bidscan_openrtb::BidResponse<'_> =
                    serde_json::from_slice(doc).expect("serde_json decodes the corpus");
                black_box(&response)
                    .seatbid
                    .iter()
                    .map(|s| s.bid.len())
                    .sum()
            }
            Decoder::SonicRs => {
                let response: mirror::BidResponse<'_, SonicRaw<'_>> =
                    sonic_rs::from_slice(doc).expect("sonic-rs decodes the corpus");
                black_box(&response).bid_count()
            }
            Decoder::SimdJson => {
                self.copy_in(doc);
                let response: mirror::BidResponse<'_, Skipped> =
                    simd_json::serde::from_slice_with_buffers(&mut self.input, &mut self.simd)
                        .expect("simd-json decodes the corpus");
                black_box(&response).bid_count()
            }
            Decoder::Jiter => {
                let response: mirror::BidResponse<'_, Skipped> =
                    jiter::serde::from_slice(doc).expect("jiter decodes the corpus");
                black_box(&response).bid_count()
            }
        }
    }

    #[inline]
    fn copy_in(&mut self, doc: &[u8]) {
        self.input.clear();
        self.input.extend_from_slice(doc);
    }
}
