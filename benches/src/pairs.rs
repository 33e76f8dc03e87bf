//! The real request/response pairs of `corpus/validate-pairs/` for the `/validate` cost benches: each as the
//! envelope `POST /validate` takes and the response alone, byte for byte as it sits in the envelope.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::value::RawValue;

/// One pair.
pub struct Pair {
    /// File name.
    pub name: String,
    /// `{"request":…,"response":…}`.
    pub envelope: Vec<u8>,
    /// The response member's bytes.
    pub response: Vec<u8>,
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    #[allow(dead_code)]
    request: &'a RawValue,
    #[serde(borrow)]
    response: &'a RawValue,
}

/// Every pair, sorted by name. Panics when the directory is missing or a file is not an envelope.
pub fn pairs() -> Vec<Pair> {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../corpus/validate-pairs"
    ));
    let mut out: Vec<Pair> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let envelope = std::fs::read(&p).unwrap();
            let e: Envelope<'_> = serde_json::from_slice(&envelope).unwrap();
            let response = e.response.get().as_bytes().to_vec();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            Pair {
                name,
                envelope,
                response,
            }
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// The library calls compared: [`bidscan_openrtb::decode`] of the response, and
/// [`Validated::decode`](bidscan_openrtb::rules::Validated::decode) of the envelope (`decode_pair` and the rules)
/// or [`Validated::decode_inspected`](bidscan_openrtb::rules::Validated::decode_inspected) (each bid's markup
/// inspected too, with a reused [`Inspector`](bidscan_openrtb::Inspector)), each decoding a fresh copy of its
/// bytes in a reused buffer. Each returns a count (to keep the work alive).
pub struct Work {
    reader: bidscan_json::Reader,
    inspector: bidscan_openrtb::Inspector,
    buf: Vec<u8>,
    /// One buffer per bidder of an auction.
    bodies: Vec<Vec<u8>>,
    policy: bidscan_openrtb::rules::Policy,
}

impl Default for Work {
    /// The reader is [`bench_reader`](crate::decoders::bench_reader)'s (`BIDSCAN_SCAN`, `BIDSCAN_SKIP_INDEX`).
    fn default() -> Work {
        Work {
            reader: crate::decoders::bench_reader(),
            inspector: bidscan_openrtb::Inspector::new(),
            buf: Vec::new(),
            bodies: Vec::new(),
            policy: bidscan_openrtb::rules::Policy::default(),
        }
    }
}

impl Work {
    /// `/decode`'s library call on `response`.
    pub fn decode(&mut self, response: &[u8]) -> usize {
        self.buf.clear();
        self.buf.extend_from_slice(response);
        bidscan_openrtb::decode(
            &mut self.reader,
            &mut self.buf,
            bidscan_openrtb::Mode::Lenient,
        )
        .map_or(0, |d| d.bid_count())
    }

    /// [`bidscan_openrtb::decode_pair`] alone on `envelope` (no rules): what reading the envelope costs.
    pub fn read_pair(&mut self, envelope: &[u8]) -> usize {
        self.buf.clear();
        self.buf.extend_from_slice(envelope);
        bidscan_openrtb::decode_pair(
            &mut self.reader,
            &mut self.buf,
            bidscan_openrtb::Mode::Lenient,
        )
        .map_or(0, |p| p.decoded.bid_count() + 1)
    }

    /// `/validate`'s library calls on `envelope` without markup inspection.
    pub fn validate(&mut self, envelope: &[u8]) -> usize {
        self.buf.clear();
        self.buf.extend_from_slice(envelope);
        bidscan_openrtb::rules::Validated::decode(
            &mut self.reader,
            &mut self.buf,
            bidscan_openrtb::Mode::Lenient,
            &self.policy,
        )
        .map_or(0, |v| v.rejected() + 1)
    }

    /// `/validate`'s library calls on `envelope` with every bid's markup inspected (the server's default).
    pub fn validate_inspected(&mut self, envelope: &[u8]) -> usize {
        self.buf.clear();
        self.buf.extend_from_slice(envelope);
        bidscan_openrtb::rules::Validated::decode_inspected(
            &mut self.reader,
            &mut self.buf,
            bidscan_openrtb::Mode::Lenient,
            &mut self.inspector,
            &self.policy,
        )
        .map_or(0, |v| v.rejected() + 1)
    }

    /// The auction's library calls on `auction`: the request decoded once, then each response judged against it
    /// with every bid's markup inspected (as `/validate` does), the rule between bidders included.
    pub fn auction(&mut self, auction: &crate::auction::BenchAuction) -> usize {
        self.buf.clear();
        self.buf.extend_from_slice(&auction.request);
        self.bodies.resize_with(auction.responses.len(), Vec::new);
        for (body, (_, response)) in self.bodies.iter_mut().zip(&auction.responses) {
            body.clear();
            body.extend_from_slice(response);
        }
        let Ok(mut judged) =
            bidscan_openrtb::Auction::decode_request(&mut self.reader, &mut self.buf)
        else {
            return 0;
        };
        for (body, (bidder, _)) in self.bodies.iter_mut().zip(&auction.responses) {
            judged.add(
                &mut self.reader,
                bidder.as_str(),
                bidscan_openrtb::Reply::Body(body),
                bidscan_openrtb::Mode::Lenient,
                Some(&mut self.inspector),
                &self.policy,
            );
        }
        judged.bidders.iter().map(|b| b.verdicts.len()).sum()
    }
}
