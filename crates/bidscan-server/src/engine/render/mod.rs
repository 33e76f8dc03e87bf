//! The 200 body of `/decode`, written straight into bytes: `{"status", "response"?, "summary", "issues",
//! "stats"}`, byte for byte what `serde_json::to_writer` makes of [`Envelope`] (the tests check it on every corpus
//! document, both views).
//!
//! Why not serde_json for all of it: the envelope of a no-bid is ~290 bytes of short keys, small integers and
//! short strings, and serde_json's derive path (a call per key through the `Serializer` traits, a byte-by-byte
//! escape loop) costs ~5.6 k instructions per no-bid on it (callgrind) — more than decoding the document. Here keys are literals, integers go through `itoa`, and a string is copied in one piece when it
//! holds nothing to escape. The canonical `response` (full view), the issues and the floats still go through
//! serde_json, so those rules live in one place.
//!
//! [`write_auction`]: `/validate/auction`'s 200 body, from the same pieces (`auction.rs`);
//! [`write_auction_protobuf`]: its protobuf answer, one multipart part per bidder (`auction_protobuf.rs`); the
//! server writes both a bidder at a time into a buffer whose memory is held as it grows (`growing.rs`).

mod auction;
mod auction_protobuf;
mod growing;

pub use auction::write_auction;
pub(crate) use auction::{AuctionWriter, Unwritten};
pub(crate) use auction_protobuf::ProtobufWriter;
pub use auction_protobuf::{boundary, write_auction_protobuf};
pub(crate) use growing::{Growing, Refused};

use bidscan_json::Stats;
use bidscan_openrtb::markup::{AdmSummary, Markup};
use bidscan_openrtb::{AdmKind, BidResponse, BidSummary, Issue, Status, Summary};
use serde::Serialize;

/// The 200 body. `response` is omitted with `view=summary`. Rendered by [`write()`]; `Serialize` is the reference
/// it is tested against.
#[derive(Serialize)]
pub struct Envelope<'a> {
    /// Bid or no-bid.
    pub status: Status,
    /// The canonical response (full view only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response: Option<&'a BidResponse<'a>>,
    /// One line per bid.
    pub summary: Summary<'a>,
    /// Issues found (errors and warnings): coercions and type errors in document order, then validation findings
    /// in document order, then markup findings (see `bidscan_openrtb::Decoded::issues`).
    pub issues: &'a [Issue],
    /// The reader's counters for the document.
    pub stats: Stats,
}

/// Appends `envelope` as compact JSON to `out`.
///
/// # Errors
/// Only what serde_json reports for the response or the issues (a failing `Serialize` impl; the model has none).
pub fn write(out: &mut Vec<u8>, envelope: &Envelope<'_>) -> serde_json::Result<()> {
    out.extend_from_slice(b"{\"status\":");
    status(out, envelope.status);
    if let Some(response) = envelope.response {
        out.extend_from_slice(b",\"response\":");
        serde_json::to_writer(&mut *out, response)?;
    }
    out.extend_from_slice(b",\"summary\":");
    summary(out, &envelope.summary);
    out.extend_from_slice(b",\"issues\":");
    if envelope.issues.is_empty() {
        out.extend_from_slice(b"[]");
    } else {
        serde_json::to_writer(&mut *out, envelope.issues)?;
    }
    out.extend_from_slice(b",\"stats\":");
    stats(out, &envelope.stats);
    out.push(b'}');
    Ok(())
}

fn status(out: &mut Vec<u8>, status: Status) {
    out.extend_from_slice(match status {
        Status::Bid => b"\"bid\"",
        Status::NoBid => b"\"nobid\"",
    });
}

/// A `Summary`'s members before its bids (`{"status"` to `"warnings"`), shared by `/decode`'s summary and the
/// auction's `ValidatedSummary`, which adds its counts of verdicts after them.
fn summary_head(out: &mut Vec<u8>, s: &Summary<'_>) {
    out.extend_from_slice(b"{\"status\":");
    status(out, s.status);
    out.extend_from_slice(b",\"id\":");
    opt_str(out, s.id);
    out.extend_from_slice(b",\"cur\":");
    string(out, s.cur);
    out.extend_from_slice(b",\"nbr\":");
    match s.nbr {
        Some(nbr) => int(out, nbr.0),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"seats\":");
    int(out, s.seats);
    out.extend_from_slice(b",\"bid_count\":");
    int(out, s.bid_count);
    out.extend_from_slice(b",\"errors\":");
    int(out, s.errors);
    out.extend_from_slice(b",\"warnings\":");
    int(out, s.warnings);
}

fn summary(out: &mut Vec<u8>, s: &Summary<'_>) {
    summary_head(out, s);
    out.extend_from_slice(b",\"bids\":[");
    for (i, bid) in s.bids.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        bid_summary(out, bid);
    }
    out.extend_from_slice(b"]}");
}

fn bid_summary(out: &mut Vec<u8>, b: &BidSummary<'_>) {
    bid_summary_members(out, b);
    out.push(b'}');
}

/// `b`'s object without its closing brace: `{"path":…,"adm":{…}`, so that a verdict can follow its members.
fn bid_summary_members(out: &mut Vec<u8>, b: &BidSummary<'_>) {
    out.extend_from_slice(b"{\"path\":");
    string(out, &b.path);
    out.extend_from_slice(b",\"id\":");
    opt_str(out, b.id);
    out.extend_from_slice(b",\"impid\":");
    opt_str(out, b.impid);
    out.extend_from_slice(b",\"price\":");
    opt_float(out, b.price);
    out.extend_from_slice(b",\"cur\":");
    string(out, b.cur);
    out.extend_from_slice(b",\"seat\":");
    opt_str(out, b.seat);
    out.extend_from_slice(b",\"adomain\":[");
    for (i, domain) in b.adomain.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        string(out, domain);
    }
    out.extend_from_slice(b"],\"crid\":");
    opt_str(out, b.crid);
    out.extend_from_slice(b",\"dealid\":");
    opt_str(out, b.dealid);
    out.extend_from_slice(b",\"mtype\":");
    match b.mtype {
        Some(mtype) => int(out, mtype.0),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"w\":");
    opt_int(out, b.w);
    out.extend_from_slice(b",\"h\":");
    opt_int(out, b.h);
    out.extend_from_slice(b",\"adm\":");
    adm_summary(out, &b.adm);
}

/// The summary's `adm` object as its `Serialize` (`bidscan_openrtb::markup::AdmSummary`) writes it: `kind` and
/// `bytes`, then the members of what inspection found.
fn adm_summary(out: &mut Vec<u8>, a: &AdmSummary<'_>) {
    out.extend_from_slice(match a.kind {
        AdmKind::Vast => b"{\"kind\":\"vast\",\"bytes\":",
        AdmKind::Html => b"{\"kind\":\"html\",\"bytes\":",
        AdmKind::Native => b"{\"kind\":\"native\",\"bytes\":",
        AdmKind::None => b"{\"kind\":\"none\",\"bytes\":",
    });
    int(out, a.bytes);
    match a.markup {
        Some(Markup::Vast(v)) => {
            out.extend_from_slice(b",\"version\":");
            opt_str(out, v.version);
            out.extend_from_slice(b",\"well_formed\":");
            boolean(out, v.well_formed);
            out.extend_from_slice(b",\"ads\":");
            int(out, v.ads);
            out.extend_from_slice(b",\"wrapper\":");
            boolean(out, v.wrapper);
            out.extend_from_slice(b",\"wrapper_uri\":");
            opt_str(out, v.wrapper_uri.as_deref());
            out.extend_from_slice(b",\"duration_secs\":");
            opt_float(out, v.duration_secs);
            out.extend_from_slice(b",\"media_files\":");
            int(out, v.media_files);
            out.extend_from_slice(b",\"impressions\":");
            int(out, v.impressions);
            out.extend_from_slice(b",\"error_urls\":");
            int(out, v.error_urls);
        }
        Some(Markup::Native(n)) => {
            out.extend_from_slice(b",\"well_formed\":");
            boolean(out, n.well_formed);
            out.extend_from_slice(b",\"ver\":");
            opt_str(out, n.ver.as_deref());
            out.extend_from_slice(b",\"assets\":");
            int(out, n.assets);
            out.extend_from_slice(b",\"link\":");
            boolean(out, n.link);
            out.extend_from_slice(b",\"trackers\":");
            int(out, n.trackers);
        }
        Some(Markup::Html(h)) => {
            out.extend_from_slice(b",\"secure\":");
            boolean(out, h.secure);
            out.extend_from_slice(b",\"scripts\":");
            int(out, h.scripts);
        }
        Some(Markup::None) | None => {}
    }
    out.push(b'}');
}

fn boolean(out: &mut Vec<u8>, b: bool) {
    out.extend_from_slice(if b { b"true" } else { b"false" });
}

/// serde_json's float formatting (shortest round-trip; non-finite as null), not a copy of it.
fn opt_float(out: &mut Vec<u8>, f: Option<f64>) {
    match f {
        Some(f) => serde_json::to_writer(&mut *out, &f).unwrap_or(()),
        None => out.extend_from_slice(b"null"),
    }
}

fn stats(out: &mut Vec<u8>, s: &Stats) {
    out.extend_from_slice(b"{\"bytes\":");
    int(out, s.bytes);
    out.extend_from_slice(b",\"strings\":");
    int(out, s.strings);
    out.extend_from_slice(b",\"escaped_strings\":");
    int(out, s.escaped_strings);
    out.extend_from_slice(b",\"escapes\":");
    int(out, s.escapes);
    out.extend_from_slice(b",\"longest_string\":");
    int(out, s.longest_string);
    out.extend_from_slice(b",\"buffer_bytes_needed\":");
    int(out, s.buffer_bytes_needed);
    out.push(b'}');
}

fn int(out: &mut Vec<u8>, n: impl itoa::Integer) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

fn opt_int(out: &mut Vec<u8>, n: Option<i64>) {
    match n {
        Some(n) => int(out, n),
        None => out.extend_from_slice(b"null"),
    }
}

fn opt_str(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => string(out, s),
        None => out.extend_from_slice(b"null"),
    }
}

/// A JSON string as serde_json writes it: `"`, `\` and control characters escaped (`\b \f \n \r \t` short,
/// others `\u00XX`), everything else (non-ASCII included) as is.
fn string(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    // Most strings (ids, paths, currencies, domains, messages) hold nothing to escape: one scan, one copy.
    if any_needs_escape(bytes) {
        escaped(out, bytes);
    } else {
        out.extend_from_slice(bytes);
    }
    out.push(b'"');
}

/// The body of a string holding a byte to escape (the opening quote written, the closing one not).
#[cold]
#[inline(never)]
fn escaped(out: &mut Vec<u8>, bytes: &[u8]) {
    let mut plain = 0;
    let mut i = 0;
    while i < bytes.len() {
        // Eight bytes at a time while none needs an escape (most strings: ids, paths, currencies, domains).
        if let Some(word) = bytes[i..].first_chunk::<8>()
            && !needs_escape(u64::from_le_bytes(*word))
        {
            i += 8;
            continue;
        }
        let b = bytes[i];
        if b >= 0x20 && b != b'"' && b != b'\\' {
            i += 1;
            continue;
        }
        out.extend_from_slice(&bytes[plain..i]);
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(&[
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[usize::from(b >> 4)],
                    HEX[usize::from(b & 0xf)],
                ]);
            }
        }
        i += 1;
        plain = i;
    }
    out.extend_from_slice(&bytes[plain..]);
}

/// Whether any byte of `bytes` needs an escape: eight bytes at a time, the last (partial) word read as words
/// overlapping bytes already seen, so a string of any length costs no byte-by-byte loop.
fn any_needs_escape(bytes: &[u8]) -> bool {
    let n = bytes.len();
    match n {
        0 => false,
        1..=3 => {
            // Bytes 0, n/2 and n-1 cover every byte of a string of one to three.
            let spread = [bytes[0], bytes[n / 2], bytes[n - 1]];
            spread.iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\')
        }
        4..=7 => {
            let head = bytes.first_chunk::<4>().copied().unwrap_or_default();
            let tail = bytes.last_chunk::<4>().copied().unwrap_or_default();
            let word =
                u64::from(u32::from_le_bytes(head)) | u64::from(u32::from_le_bytes(tail)) << 32;
            needs_escape(word)
        }
        _ => {
            let clean = |w: &[u8; 8]| !needs_escape(u64::from_le_bytes(*w));
            !(bytes
                .chunks_exact(8)
                .all(|c| c.first_chunk::<8>().is_some_and(clean))
                && bytes.last_chunk::<8>().is_some_and(clean))
        }
    }
}

/// Whether any of the eight bytes of `word` is a control character (below 0x20), `"` or `\\` (exact: the
/// "has a byte less than n" and "has a zero byte" word tests, which have no false positives as a whole).
fn needs_escape(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |w: u64| w.wrapping_sub(ONES) & !w & HIGH;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGH;
    below_space | zero(word ^ (ONES * u64::from(b'"'))) | zero(word ^ (ONES * u64::from(b'\\')))
        != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_to_escape_at_every_place_escapes_as_serde_json_does() {
        // Each escaped byte (and a non-ASCII character and plain bytes for contrast) at each position of strings
        // of 0 to 40 bytes: the word step and the byte step must agree with serde_json wherever it falls.
        let mut specials: Vec<String> = (0u8..0x20).map(|b| char::from(b).to_string()).collect();
        specials.extend(["\"", "\\", "é", "\u{7f}", " ", "~"].map(String::from));
        for len in 0..40 {
            for at in 0..=len {
                for special in &specials {
                    let s = format!("{}{special}{}", "a".repeat(at), "b".repeat(len - at));
                    let mut ours = Vec::new();
                    string(&mut ours, &s);
                    assert_eq!(ours, serde_json::to_vec(&s).unwrap(), "{s:?}");
                }
            }
        }
        for word in [
            0u64,
            u64::MAX,
            0x2020_2020_2020_2020,
            0x1f20_2020_2020_2020,
            0x2121_2121_2121_2122,
        ] {
            let bytes = word.to_le_bytes();
            let expected = bytes.iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\');
            assert_eq!(needs_escape(word), expected, "{word:#x}");
        }
    }

    #[test]
    fn strings_escape_as_serde_json_does() {
        for s in [
            "",
            "plain",
            "q\"b\\s/",
            "\u{0}\u{1}\u{8}\u{9}\u{a}\u{c}\u{d}\u{1f}\u{7f}",
            "é€😀",
            "end\n",
        ] {
            let mut ours = Vec::new();
            string(&mut ours, s);
            assert_eq!(ours, serde_json::to_vec(s).unwrap(), "{s:?}");
        }
    }
}
