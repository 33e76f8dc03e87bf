//! x86_64 bodies: SSE2 (baseline on x86_64, 16 bytes per block) and AVX2 (32 bytes, runtime-detected).
//! Mask layout: bit `i` flags byte `i` (`SHIFT` = 0).

use std::arch::x86_64::*;

use super::PAD;

/// SSE2: always available on x86_64.
pub(super) mod sse2 {
    use super::*;

    /// Bytes per block.
    pub(super) const WIDTH: usize = 16;

    /// Stop flags of 16 bytes: `"`, `\`, or `<= 0x1f` (unsigned: `min(b, 0x1f) == b`).
    #[inline]
    #[target_feature(enable = "sse2")]
    fn block_mask(block: &[u8; WIDTH]) -> u64 {
        // SAFETY: `block` is 16 readable bytes; `loadu` has no alignment requirement.
        let v = unsafe { _mm_loadu_si128(block.as_ptr().cast::<__m128i>()) };
        let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        let control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
        let any = _mm_or_si128(_mm_or_si128(quote, backslash), control);
        u64::from(_mm_movemask_epi8(any) as u16)
    }

    /// First stop at or after `at`; see `Scanner::find`. (SSE2 is part of the x86_64 baseline.)
    #[target_feature(enable = "sse2")]
    pub(in crate::scan) fn find(buf: &[u8], at: usize) -> (usize, usize, u64) {
        let mut i = at;
        while let Some(block) = buf.get(i..).and_then(|b| b.first_chunk::<WIDTH>()) {
            let mask = block_mask(block);
            if mask != 0 {
                return (i + mask.trailing_zeros() as usize, i, mask);
            }
            i += WIDTH;
        }
        if i < buf.len() {
            let mut block = [PAD; WIDTH];
            block[..buf.len() - i].copy_from_slice(&buf[i..]);
            let mask = block_mask(&block);
            if mask != 0 {
                return (i + mask.trailing_zeros() as usize, i, mask);
            }
        }
        (buf.len(), i, 0)
    }
}

/// AVX2: only called after `is_x86_feature_detected!("avx2")` said yes (see `ScanImpl::is_available`).
pub(super) mod avx2 {
    use super::*;

    /// Bytes per block.
    pub(super) const WIDTH: usize = 32;

    #[inline]
    #[target_feature(enable = "avx2")]
    fn block_mask(block: &[u8; WIDTH]) -> u64 {
        // SAFETY: `block` is 32 readable bytes; `loadu` has no alignment requirement.
        let v = unsafe { _mm256_loadu_si256(block.as_ptr().cast::<__m256i>()) };
        let quote = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'"' as i8));
        let backslash = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\\' as i8));
        let control = _mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(0x1f)), v);
        let any = _mm256_or_si256(_mm256_or_si256(quote, backslash), control);
        u64::from(_mm256_movemask_epi8(any) as u32)
    }

    /// First stop at or after `at`; see `Scanner::find`. Callers must have checked that the CPU has AVX2.
    #[target_feature(enable = "avx2")]
    pub(in crate::scan) fn find(buf: &[u8], at: usize) -> (usize, usize, u64) {
        let mut i = at;
        while let Some(block) = buf.get(i..).and_then(|b| b.first_chunk::<WIDTH>()) {
            let mask = block_mask(block);
            if mask != 0 {
                return (i + mask.trailing_zeros() as usize, i, mask);
            }
            i += WIDTH;
        }
        if i < buf.len() {
            let mut block = [PAD; WIDTH];
            block[..buf.len() - i].copy_from_slice(&buf[i..]);
            let mask = block_mask(&block);
            if mask != 0 {
                return (i + mask.trailing_zeros() as usize, i, mask);
            }
        }
        (buf.len(), i, 0)
    }
}
