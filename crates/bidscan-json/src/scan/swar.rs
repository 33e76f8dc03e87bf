//! Portable SWAR kernel: eight bytes per `u64`, exact per-byte flags (no borrow carries between bytes), so a block's
//! mask can be reused after its first stop. Mask layout: bit `8 * i + 7` flags byte `i` (`SHIFT` = 3).

use super::pad::PAD;
use super::structure::Classes;

/// Bytes per block.
pub(super) const WIDTH: usize = 8;
/// log2 of mask bits per byte.
pub(super) const SHIFT: u32 = 3;

const ONES: u64 = 0x0101_0101_0101_0101;
const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// High bit of each byte set iff that byte of `x` is non-zero. Exact: `(x & 0x7f) + 0x7f` never carries out.
#[inline(always)]
fn nonzero(x: u64) -> u64 {
    ((x & LOW7) + LOW7) | x
}

/// Stop flags of one little-endian word: `"`, `\`, or `< 0x20` (top three bits clear).
#[inline(always)]
pub(super) fn word_mask(word: u64) -> u64 {
    let quote = nonzero(word ^ (ONES * u64::from(b'"')));
    let backslash = nonzero(word ^ (ONES * u64::from(b'\\')));
    let control = nonzero(word & (ONES * 0xe0));
    !(quote & backslash & control) & HIGH
}

/// The first block at or after `at` holding a stop; see `Scanner::find`.
pub(super) fn find(buf: &[u8], at: usize) -> (usize, u64) {
    let mut i = at;
    while let Some(block) = buf.get(i..).and_then(|b| b.first_chunk::<WIDTH>()) {
        let mask = word_mask(u64::from_le_bytes(*block));
        if mask != 0 {
            return (i, mask);
        }
        i += WIDTH;
    }
    if i < buf.len() {
        let mut block = [PAD; WIDTH];
        block[..buf.len() - i].copy_from_slice(&buf[i..]);
        return (i, word_mask(u64::from_le_bytes(block)));
    }
    (i, 0)
}

/// High bit of each byte of `word` set iff that byte is `byte`.
#[inline(always)]
fn eq(word: u64, byte: u8) -> u64 {
    !nonzero(word ^ (ONES * u64::from(byte))) & HIGH
}

/// The high bits of a word's bytes (as `word_mask` sets them) gathered into bits `0..8`, byte `i` to bit `i`:
/// the multiply's partial products land at distinct bits, so nothing carries.
#[inline(always)]
fn gather(high: u64) -> u64 {
    (high >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// The structural index's byte classes of a 64-byte block (`structure::Classes`), eight bytes per word.
#[inline]
pub(super) fn classify(block: &[u8; 64]) -> Classes {
    let mut c = Classes::default();
    for (k, chunk) in block.chunks_exact(WIDTH).enumerate() {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or([PAD; WIDTH]));
        let newline = eq(word, b'\n');
        let ws = eq(word, b' ') | newline | eq(word, b'\t') | eq(word, b'\r');
        // `[` and `]` are `{` and `}` with bit 5 clear; no other byte is.
        let curly = word | (ONES * 0x20);
        let op = eq(curly, b'{') | eq(curly, b'}') | eq(word, b':') | eq(word, b',');
        let ctrl = !nonzero(word & (ONES * 0xe0)) & HIGH;
        let at = 8 * k as u32;
        c.quote |= gather(eq(word, b'"')) << at;
        c.backslash |= gather(eq(word, b'\\')) << at;
        c.ws |= gather(ws) << at;
        c.newline |= gather(newline) << at;
        c.op |= gather(op) << at;
        c.ctrl |= gather(ctrl) << at;
    }
    c
}
