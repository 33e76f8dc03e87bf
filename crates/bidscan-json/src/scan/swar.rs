//! Portable SWAR kernel: eight bytes per `u64`, exact per-byte flags (no borrow carries between bytes), so a block's
//! mask can be reused after its first stop. Mask layout: bit `8 * i + 7` flags byte `i` (`SHIFT` = 3).

use super::pad::PAD;

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
