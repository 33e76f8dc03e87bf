//! aarch64 kernel: NEON (baseline on aarch64), 16 bytes per block. Mask layout: the "shift right and narrow"
//! movemask, four bits per byte, so bit `4 * i` flags byte `i` (`SHIFT` = 2).

use std::arch::aarch64::*;

use super::pad::PAD;

/// Bytes per block.
pub(super) const WIDTH: usize = 16;
/// log2 of mask bits per byte.
pub(super) const SHIFT: u32 = 2;

#[inline]
#[target_feature(enable = "neon")]
fn block_mask(block: &[u8; WIDTH]) -> u64 {
    // SAFETY: `block` is 16 readable bytes; `vld1q_u8` has no alignment requirement beyond `u8`.
    let v = unsafe { vld1q_u8(block.as_ptr()) };
    let quote = vceqq_u8(v, vdupq_n_u8(b'"'));
    let backslash = vceqq_u8(v, vdupq_n_u8(b'\\'));
    let control = vcltq_u8(v, vdupq_n_u8(0x20));
    let any = vorrq_u8(vorrq_u8(quote, backslash), control);
    let nibbles = vshrn_n_u16::<4>(vreinterpretq_u16_u8(any));
    vget_lane_u64::<0>(vreinterpret_u64_u8(nibbles))
}

/// The first block at or after `at` holding a stop; see `Scanner::find`. (NEON is part of the aarch64 baseline.)
#[target_feature(enable = "neon")]
pub(super) fn find(buf: &[u8], at: usize) -> (usize, u64) {
    let mut i = at;
    while let Some(block) = buf.get(i..).and_then(|b| b.first_chunk::<WIDTH>()) {
        let mask = block_mask(block);
        if mask != 0 {
            return (i, mask);
        }
        i += WIDTH;
    }
    if i < buf.len() {
        let mut block = [PAD; WIDTH];
        block[..buf.len() - i].copy_from_slice(&buf[i..]);
        return (i, block_mask(&block));
    }
    (i, 0)
}
