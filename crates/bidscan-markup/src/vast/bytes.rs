//! Byte classes of the fast path ([`scan`](super::scan)), eight bytes at a time in a `u64` word (SWAR, safe
//! code): where a name ends, where an attribute value ends or needs a closer look, and short names compared a
//! word at a time. Each word function has a byte-at-a-time twin used near the end of the markup (fewer than
//! eight bytes left), and the tests hold the two to the same answers for every byte in every lane.
//!
//! In a mask, the high bit of byte `k` stands for byte `k` of the word (little-endian: the first byte of the
//! markup is byte 0); the lowest set bit is the first byte of the class (the higher ones may be spurious after
//! it, which is why only the lowest is ever used).

/// `0x01` in every byte.
const LO: u64 = 0x0101_0101_0101_0101;
/// `0x80` in every byte.
const HI: u64 = 0x8080_8080_8080_8080;

/// `byte` in every byte of a word.
const fn splat(byte: u8) -> u64 {
    LO * byte as u64
}

/// The `N` bytes at `at`; `None` when fewer are left. (Two length checks and no overflow check, where
/// `b.get(at..at + N)` needs a third for `at + N` wrapping.)
#[inline(always)]
pub(super) fn window<const N: usize>(b: &[u8], at: usize) -> Option<&[u8; N]> {
    b.get(at..)?.first_chunk::<N>()
}

/// The eight bytes at `at` as a little-endian word; `None` when fewer than eight are left.
#[inline(always)]
fn word(b: &[u8], at: usize) -> Option<u64> {
    window::<8>(b, at).map(|w| u64::from_le_bytes(*w))
}

/// Index (0–7) of the first byte a non-zero mask marks.
#[inline(always)]
fn first(mask: u64) -> usize {
    (mask.trailing_zeros() / 8) as usize
}

/// The byte rule of a name's end on the fast path, shared with the vector masks of
/// [`bytescan::name_stops`](bidscan_json::bytescan::name_stops) that reads the short start tags: ASCII other than
/// letters, digits, `-`, `.` and `[\]^_`{|}~` / DEL; bytes 0x80 and above (UTF-8) are name bytes.
pub(super) use bidscan_json::bytescan::is_name_stop;

/// quick-xml's whitespace inside tags (`is_whitespace`: space, tab, CR, LF), for both tokenizers.
#[inline(always)]
pub(super) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// True when `c` may start a name: a `NameStartChar` of XML 1.0 §2.3 among ASCII bytes (a letter, `_`, `:`),
/// or the first byte of a non-ASCII character (not checked further, as quick-xml does not).
#[inline(always)]
pub(super) fn is_name_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b':' || c >= 0x80
}

/// The mask of [`is_name_stop`] bytes in `w`.
#[inline(always)]
fn name_stops(w: u64) -> u64 {
    let low7 = w & !HI;
    // High bit of each byte set where its low seven bits are >= k (no carry leaves a byte: 0x7F + 0x80 - k
    // stays below 0x100 for k >= 1).
    let at_least = |k: u8| low7.wrapping_add(splat(0x80 - k));
    let stops =
        !at_least(0x2D) | (at_least(0x2F) & !at_least(0x30)) | (at_least(0x3A) & !at_least(0x41));
    stops & !w & HI
}

/// The first [`is_name_stop`] byte at or after `from`, or `b.len()`.
#[inline(always)]
pub(super) fn name_stop(b: &[u8], from: usize) -> usize {
    let mut i = from;
    while let Some(w) = word(b, i) {
        let stops = name_stops(w);
        if stops != 0 {
            return i + first(stops);
        }
        i += 8;
    }
    while let Some(&c) = b.get(i) {
        if is_name_stop(c) {
            return i;
        }
        i += 1;
    }
    b.len()
}

/// The mask of the bytes of `w` equal to `byte` (exact up to the first one).
#[inline(always)]
fn equal(w: u64, byte: u8) -> u64 {
    let x = w ^ splat(byte);
    x.wrapping_sub(LO) & !x & HI
}

/// The first byte at or after `from` that is `quote`, `<` or `&` (the end of an attribute value, or a byte
/// that needs a closer look in it); `None` when there is none.
#[inline(always)]
pub(super) fn value_stop(b: &[u8], from: usize, quote: u8) -> Option<usize> {
    let mut i = from;
    while let Some(w) = word(b, i) {
        let stops = equal(w, quote) | equal(w, b'<') | equal(w, b'&');
        if stops != 0 {
            return Some(i + first(stops));
        }
        i += 8;
    }
    b.get(i..)?
        .iter()
        .position(|&c| c == quote || c == b'<' || c == b'&')
        .map(|k| i + k)
}

/// True when the `len` bytes at `a` equal the `len` bytes at `b_at` (both in `b`); false when either runs
/// past the end. Names up to 16 bytes are compared as one or two words.
#[inline(always)]
pub(super) fn same(b: &[u8], a: usize, b_at: usize, len: usize) -> bool {
    if len <= 8 {
        if let (Some(x), Some(y)) = (word(b, a), word(b, b_at)) {
            let mask = if len == 8 {
                u64::MAX
            } else {
                (1u64 << (len * 8)) - 1
            };
            return (x ^ y) & mask == 0;
        }
    } else if len <= 16
        && let (Some(x0), Some(y0), Some(x1), Some(y1)) = (
            word(b, a),
            word(b, b_at),
            word(b, a + len - 8),
            word(b, b_at + len - 8),
        )
    {
        return x0 == y0 && x1 == y1;
    }
    match (
        b.get(a..a.saturating_add(len)),
        b.get(b_at..b_at.saturating_add(len)),
    ) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// True when `b[at..]` starts with the end tag `</name>`, `name` being the `len` bytes at `name_at` (an open
/// element's name as its start tag wrote it), with nothing between the name and `>`. A name under 16 bytes is
/// compared in one 16-byte compare ([`bytescan::equal16`](bidscan_json::bytescan::equal16)).
#[inline(always)]
pub(super) fn closes(b: &[u8], at: usize, name_at: usize, len: usize) -> bool {
    if len < 16
        && let (Some(tag), Some(name)) = (window::<18>(b, at), window::<16>(b, name_at))
    {
        let [lt, slash, found @ ..] = tag;
        let equal = bidscan_json::bytescan::equal16(found, name);
        let wanted = (1u16 << len) - 1;
        return [*lt, *slash] == *b"</" && equal & wanted == wanted && tag[2 + len] == b'>';
    }
    window::<2>(b, at) == Some(b"</")
        && same(b, at + 2, name_at, len)
        && b.get(at + 2 + len) == Some(&b'>')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every byte value in every lane, the other lanes holding a name byte (`a`).
    fn lanes() -> impl Iterator<Item = ([u8; 8], usize, u8)> {
        (0..8).flat_map(|lane| {
            (0..=255u8).map(move |c| {
                let mut w = [b'a'; 8];
                w[lane] = c;
                (w, lane, c)
            })
        })
    }

    #[test]
    fn name_stops_agree_with_the_byte_rule() {
        for (w, lane, c) in lanes() {
            let found = name_stop(&w, 0);
            let expected = if is_name_stop(c) { lane } else { 8 };
            assert_eq!(found, expected, "byte {c:#04x} in lane {lane}");
            // The byte loop near the end gives the same answer.
            assert_eq!(name_stop(&w[lane..], 0), expected - lane, "tail {c:#04x}");
        }
        for c in [
            b' ', b'\t', b'\r', b'\n', b'/', b'>', b'<', b'"', b'\'', b'=', b'&', b':',
        ] {
            assert!(is_name_stop(c), "{c:#04x}");
        }
        for c in b"azAZ09-._\x80\xff".iter() {
            assert!(!is_name_stop(*c), "{c:#04x}");
        }
    }

    #[test]
    fn value_stops_agree_with_the_byte_rule() {
        for quote in [b'"', b'\''] {
            for (w, lane, c) in lanes() {
                let expected = matches!(c, b'<' | b'&').then_some(lane);
                let expected = if c == quote { Some(lane) } else { expected };
                assert_eq!(value_stop(&w, 0, quote), expected, "{c:#04x} in {lane}");
                assert_eq!(
                    value_stop(&w[lane..], 0, quote),
                    expected.map(|e| e - lane),
                    "tail {c:#04x}"
                );
            }
        }
        // The first of several, across words.
        let v = b"abcdefghij&k<\"";
        assert_eq!(value_stop(v, 0, b'"'), Some(10));
        assert_eq!(value_stop(v, 11, b'"'), Some(12));
        assert_eq!(value_stop(b"abc", 0, b'"'), None);
        assert_eq!(value_stop(b"abc", 9, b'"'), None);
    }

    #[test]
    fn end_tags_close_their_start_tags_at_every_length() {
        for len in 1..=24 {
            let name: String = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[..len].to_owned();
            for tail in ["", "_", "________________________"] {
                let doc = format!("<{name} a='1'></{name}>{tail}");
                let end = doc.find("</").unwrap_or(0);
                assert!(closes(doc.as_bytes(), end, 1, len), "{doc}");
                // One byte off anywhere in `</name>`, or a longer or shorter name.
                for i in end..end + len + 3 {
                    let mut bad = doc.clone().into_bytes();
                    bad[i] ^= 0x20;
                    assert!(!closes(&bad, end, 1, len), "{doc} byte {i}");
                }
                let spaced = format!("<{name}></{name} >{tail}");
                let end = spaced.find("</").unwrap_or(0);
                assert!(!closes(spaced.as_bytes(), end, 1, len), "{spaced}");
                assert!(!closes(
                    doc.as_bytes(),
                    doc.find("</").unwrap_or(0),
                    1,
                    len - 1
                ));
                // Cut short.
                let end = doc.find("</").unwrap_or(0);
                assert!(
                    !closes(&doc.as_bytes()[..end + len + 2], end, 1, len),
                    "{doc}"
                );
            }
        }
    }

    #[test]
    fn short_names_compare_by_words() {
        let text = b"<MediaFiles></MediaFiles><MediaFile></MediaFilf>__________________";
        assert!(same(text, 1, 14, 10));
        assert!(!same(text, 0, 13, 11));
        assert!(same(text, 26, 38, 8));
        assert!(!same(text, 26, 38, 9));
        for len in 0..=20 {
            for a in 0..text.len() {
                for b_at in [0, 13, 26, 40, text.len() - 3] {
                    let expected = match (text.get(a..a + len), text.get(b_at..b_at + len)) {
                        (Some(x), Some(y)) => x == y,
                        _ => false,
                    };
                    assert_eq!(same(text, a, b_at, len), expected, "{a} {b_at} {len}");
                }
            }
        }
    }
}
