//! [`Sample`]: one captured answer as the request path hands it to the writer — metadata and the body's frames
//! (reference-counted [`Bytes`], never copied on the request path) — and [`Sample::render`], the file it becomes,
//! made on the writer thread.
//!
//! # The file
//! One line of JSON (the metadata, below), a `\n`, then each section's bytes exactly as captured, one after the
//! other; the metadata's `sections` give each one's `name`, `format` (`"protobuf"` for a protobuf body, absent for
//! JSON), `encoding` (the `Content-Encoding` its bytes are in;
//! `null`: none) and length in `bytes`, in file order. The raw bytes need not be UTF-8, hence not in the JSON.
//!
//! ```text
//! {"request_id":"…","time_unix_ms":…,"route":"/decode","bidder":"other","bidder_name":"acme",
//!  "content_encoding":"gzip","verdict":{"status":400,"error":"malformed_json","message":"…"},
//!  "sections":[{"name":"response","encoding":"gzip","bytes":123}]}
//! <123 bytes>
//! ```

use bytes::Bytes;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::engine::Encoding;

/// One captured body's part: the bid response, `/validate`'s envelope, an auction's request part.
#[derive(Debug)]
pub struct Section {
    /// `response`, `request` or `envelope`.
    pub name: &'static str,
    /// The `Content-Encoding` the bytes are in (`None`: as decoded JSON).
    pub encoding: Option<String>,
    /// How the body is encoded once its `Content-Encoding` is undone: JSON, or protobuf (a body sent with a
    /// protobuf `Content-Type`: `/decode`'s, an auction part's).
    pub format: Encoding,
    /// The bytes, in order.
    pub chunks: Vec<Bytes>,
}

/// Why the answer was captured: the answer's status and, by kind, its error or its rejections.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Verdict {
    /// The HTTP status of the answer (an auction: 200, the bidder's verdict is in `bidder_status`).
    pub status: u16,
    /// The error's code (`malformed_json`, `not_a_bid_response`, `bad_encoding`, …) when the answer is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'static str>,
    /// The error's message (with its position, for malformed JSON).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// An auction bidder's `status` (`invalid`, `bid`, `nobid`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bidder_status: Option<&'static str>,
    /// Each rejected bid's imp and IAB seat-non-bid code, as the answer's `seatnonbid` lists them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub nonbid: Vec<NonBid>,
}

/// One rejection of an answer's `seatnonbid`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NonBid {
    /// The imp the bid was for.
    #[serde(default)]
    pub impid: String,
    /// The IAB seat-non-bid status code.
    pub statuscode: u16,
}

/// One captured answer, as queued.
#[derive(Debug)]
pub struct Sample {
    /// The request's `x-request-id` (the one echoed).
    pub request_id: String,
    /// The route template (`/decode`, `/validate`, `/validate/auction`).
    pub route: &'static str,
    /// The bidder label the budget was taken from (`server.bidders` name, `other`, `unknown`).
    pub bidder: String,
    /// The bidder's name as sent (`?bidder=`, `X-Bidder`, an auction part's name), if any.
    pub bidder_name: Option<String>,
    /// The request's `Content-Encoding`, as sent.
    pub content_encoding: Option<String>,
    /// Why it was captured.
    pub verdict: Verdict,
    /// The bodies, in file order.
    pub sections: Vec<Section>,
    /// The `envelope` section is `/validate`'s decoded envelope and only its `response` member may be written
    /// (`capture.include_request` is off): [`render`](Sample::render) cuts it out.
    pub response_only: bool,
    /// Why no body is written, when none may be (a compressed envelope that did not inflate, with
    /// `capture.include_request` off).
    pub withheld: Option<&'static str>,
    /// When the answer was judged, in milliseconds since the Unix epoch.
    pub time_unix_ms: u64,
}

#[derive(Serialize)]
struct Meta<'a> {
    request_id: &'a str,
    time_unix_ms: u64,
    route: &'a str,
    bidder: &'a str,
    bidder_name: Option<&'a str>,
    content_encoding: Option<&'a str>,
    verdict: &'a Verdict,
    sections: Vec<SectionMeta<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    withheld: Option<&'a str>,
}

#[derive(Serialize)]
struct SectionMeta<'a> {
    name: &'a str,
    /// `"protobuf"` for a protobuf body; absent for JSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    format: Option<&'a str>,
    encoding: Option<&'a str>,
    bytes: usize,
}

/// `/validate`'s envelope, its `response` member as it is in the body.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    response: &'a RawValue,
}

impl Sample {
    /// The file's bytes: the metadata line, then each section's bytes (see the module docs). With
    /// `response_only`, the envelope section becomes its `response` member, byte for byte; an envelope that is
    /// not JSON with a `response` member is withheld (the request may be in it).
    pub fn render(mut self) -> Vec<Bytes> {
        if self.response_only {
            for section in &mut self.sections {
                if section.name != "envelope" {
                    continue;
                }
                let whole = concat(&section.chunks);
                match serde_json::from_slice::<Envelope<'_>>(&whole) {
                    Ok(envelope) => {
                        let raw = envelope.response.get().as_bytes();
                        let start = raw.as_ptr() as usize - whole.as_ptr() as usize;
                        section.chunks = vec![whole.slice(start..start + raw.len())];
                        section.name = "response";
                    }
                    Err(_) => {
                        section.chunks.clear();
                        self.withheld = Some(
                            "the envelope is not JSON with a response member, and capture.include_request is off",
                        );
                    }
                }
            }
            self.sections
                .retain(|s| !s.chunks.is_empty() || s.name != "envelope");
        }
        let meta = Meta {
            request_id: &self.request_id,
            time_unix_ms: self.time_unix_ms,
            route: self.route,
            bidder: &self.bidder,
            bidder_name: self.bidder_name.as_deref(),
            content_encoding: self.content_encoding.as_deref(),
            verdict: &self.verdict,
            sections: self
                .sections
                .iter()
                .map(|s| SectionMeta {
                    name: s.name,
                    format: (s.format == Encoding::Protobuf).then_some(s.format.label()),
                    encoding: s.encoding.as_deref(),
                    bytes: s.chunks.iter().map(Bytes::len).sum(),
                })
                .collect(),
            withheld: self.withheld,
        };
        let mut line = serde_json::to_vec(&meta).unwrap_or_else(|_| b"{}".to_vec());
        line.push(b'\n');
        let mut out =
            Vec::with_capacity(1 + self.sections.iter().map(|s| s.chunks.len()).sum::<usize>());
        out.push(Bytes::from(line));
        for section in self.sections {
            out.extend(section.chunks);
        }
        out
    }
}

/// `chunks` as one buffer (no copy for one chunk).
fn concat(chunks: &[Bytes]) -> Bytes {
    match chunks {
        [one] => one.clone(),
        _ => {
            let mut all = Vec::with_capacity(chunks.iter().map(Bytes::len).sum());
            for chunk in chunks {
                all.extend_from_slice(chunk);
            }
            Bytes::from(all)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(sections: Vec<Section>, response_only: bool) -> Sample {
        Sample {
            request_id: "r-1".into(),
            route: "/validate",
            bidder: "other".into(),
            bidder_name: Some("acme".into()),
            content_encoding: None,
            verdict: Verdict {
                status: 200,
                nonbid: vec![NonBid {
                    impid: "1".into(),
                    statuscode: 301,
                }],
                ..Verdict::default()
            },
            sections,
            response_only,
            withheld: None,
            time_unix_ms: 1,
        }
    }

    fn file(parts: Vec<Bytes>) -> (serde_json::Value, Vec<u8>) {
        let all: Vec<u8> = parts.iter().flat_map(|b| b.iter().copied()).collect();
        let nl = all.iter().position(|&b| b == b'\n').unwrap();
        (
            serde_json::from_slice(&all[..nl]).unwrap(),
            all[nl + 1..].to_vec(),
        )
    }

    #[test]
    fn the_response_is_cut_out_of_the_envelope_byte_for_byte() {
        let envelope = br#"{"request":{"id":"u","user":{"id":"secret"}}, "response" : {"id":"u", "seatbid":[]} }"#;
        let (a, b) = envelope.split_at(20);
        let chunks = vec![Bytes::from_static(a), Bytes::from_static(b)];
        let s = sample(
            vec![Section {
                name: "envelope",
                encoding: None,
                format: Encoding::Json,
                chunks,
            }],
            true,
        );
        let (meta, body) = file(s.render());
        assert_eq!(body, br#"{"id":"u", "seatbid":[]}"#);
        assert_eq!(meta["sections"][0]["name"], "response");
        assert_eq!(meta["sections"][0]["bytes"], body.len());
        assert_eq!(meta["verdict"]["nonbid"][0]["statuscode"], 301);
        assert_eq!(meta["bidder_name"], "acme");

        let bad = sample(
            vec![Section {
                name: "envelope",
                encoding: None,
                format: Encoding::Json,
                chunks: vec![Bytes::from_static(b"{\"request\":{\"user\":1},")],
            }],
            true,
        );
        let (meta, body) = file(bad.render());
        assert!(body.is_empty(), "nothing of a request may be written");
        assert!(meta["withheld"].is_string());
        assert_eq!(meta["sections"], serde_json::json!([]));
    }
}
