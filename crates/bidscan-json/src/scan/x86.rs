//! x86_64 kernels: SSE2 (baseline on x86_64) and AVX2 (runtime-detected). Both produce the stop mask of a
//! 64-byte block (four 16-byte or two 32-byte compares), so one load covers a typical run between escapes and
//! the cached mask serves every resume inside it. Mask layout: bit `i` flags byte `i` (`SHIFT` = 0).

use std::arch::x86_64::*;

use super::pad::PAD;
use super::structure::{self, Block, Carry, Classes};

/// Bytes per block (both kernels).
pub(super) const WIDTH: usize = 64;

/// Whitespace by look-up on the low nibble (simdjson's table): a byte is whitespace iff it equals its
/// entry; bytes >= 0x80 look up 0.
pub(super) const WS_TABLE: [u8; 16] = [
    b' ', 100, 100, 100, 17, 100, 113, 2, 100, b'\t', b'\n', 112, 100, b'\r', 100, 100,
];
/// `{}[]:,` by look-up on the low nibble: a byte is one iff the byte with bit 5 set equals its entry — or it
/// is 0x0c or 0x1a (`,` and `:` with bit 5 clear), which the control mask removes.
pub(super) const OP_TABLE: [u8; 16] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, b':', b'{', b',', b'}', 0, 0];

/// Prefix XOR by one carry-less multiply with all ones (bit `i`: the XOR of bits `0..=i`).
#[inline]
#[target_feature(enable = "pclmulqdq")]
pub(super) fn prefix_xor(x: u64) -> u64 {
    let product = _mm_clmulepi64_si128(_mm_set_epi64x(0, x as i64), _mm_set1_epi8(-1), 0);
    _mm_cvtsi128_si64(product) as u64
}

/// SSE2: always available on x86_64.
pub(super) mod sse2 {
    use super::*;

    /// Stop flags of 16 bytes: `"`, `\`, or `<= 0x1f` (unsigned: `min(b, 0x1f) == b`).
    #[inline]
    #[target_feature(enable = "sse2")]
    pub(in crate::scan) fn mask16(block: &[u8; 16]) -> u64 {
        // SAFETY: `block` is 16 readable bytes; `loadu` has no alignment requirement.
        let v = unsafe { _mm_loadu_si128(block.as_ptr().cast::<__m128i>()) };
        let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        let control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
        let any = _mm_or_si128(_mm_or_si128(quote, backslash), control);
        u64::from(_mm_movemask_epi8(any) as u16)
    }

    /// Whitespace flags of 16 bytes: `(whitespace, newlines)`, bit `i` set when `block[i]` is JSON whitespace
    /// (space, `\t`, `\n`, `\r`; RFC 8259 §2), resp. `\n`.
    #[inline]
    #[target_feature(enable = "sse2")]
    pub(in crate::scan) fn whitespace16(block: &[u8; 16]) -> (u32, u32) {
        // SAFETY: `block` is 16 readable bytes; `loadu` has no alignment requirement.
        let v = unsafe { _mm_loadu_si128(block.as_ptr().cast::<__m128i>()) };
        let space = _mm_cmpeq_epi8(v, _mm_set1_epi8(b' ' as i8));
        let newline = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\n' as i8));
        let tab = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\t' as i8));
        let cr = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\r' as i8));
        let ws = _mm_or_si128(_mm_or_si128(space, newline), _mm_or_si128(tab, cr));
        (
            u32::from(_mm_movemask_epi8(ws) as u16),
            u32::from(_mm_movemask_epi8(newline) as u16),
        )
    }

    /// Space flags of 16 bytes: bit `i` set when `block[i]` is `b' '` (a pretty printer's indentation).
    #[inline]
    #[target_feature(enable = "sse2")]
    pub(in crate::scan) fn spaces16(block: &[u8; 16]) -> u32 {
        // SAFETY: `block` is 16 readable bytes; `loadu` has no alignment requirement.
        let v = unsafe { _mm_loadu_si128(block.as_ptr().cast::<__m128i>()) };
        u32::from(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b' ' as i8))) as u16)
    }

    #[inline]
    #[target_feature(enable = "sse2")]
    fn mask64(block: &[u8; WIDTH]) -> u64 {
        let (a, rest) = block.split_first_chunk::<16>().unwrap_or((&[PAD; 16], &[]));
        let (b, rest) = rest.split_first_chunk::<16>().unwrap_or((&[PAD; 16], &[]));
        let (c, d) = rest.split_first_chunk::<16>().unwrap_or((&[PAD; 16], &[]));
        let d = d.first_chunk::<16>().unwrap_or(&[PAD; 16]);
        mask16(a) | (mask16(b) << 16) | (mask16(c) << 32) | (mask16(d) << 48)
    }

    /// The stop flags of `rest`, the last 1..=63 bytes of a document (bit `i` flags `rest[i]`), without copying
    /// them into a padded block: a copy followed by a wider load stalls store forwarding, a cost every small
    /// document pays on every string near its end. 16-byte loads from the front while whole ones fit, one ending
    /// exactly at the end (overlapping, shifted into place), byte by byte below 16 bytes.
    #[target_feature(enable = "sse2")]
    pub(super) fn tail(rest: &[u8]) -> u64 {
        let n = rest.len();
        let Some(last) = rest.last_chunk::<16>() else {
            return rest
                .iter()
                .enumerate()
                .map(|(k, &b)| u64::from(b == b'"' || b == b'\\' || b < 0x20) << k)
                .fold(0, |mask, bit| mask | bit);
        };
        let mut mask = mask16(last) << (n - 16);
        let mut at = 0;
        while let Some(chunk) = rest.get(at..).and_then(|r| r.first_chunk::<16>()) {
            mask |= mask16(chunk) << at;
            at += 16;
        }
        mask
    }

    /// Lanes of `v` equal to `byte`.
    #[inline]
    #[target_feature(enable = "sse2")]
    fn eq(v: __m128i, byte: u8) -> __m128i {
        _mm_cmpeq_epi8(v, _mm_set1_epi8(byte as i8))
    }

    /// The structural index's classes of 16 bytes (`structure::Classes`, bits `0..16`): ten compares, no
    /// look-up (`pshufb` is SSSE3, not baseline).
    #[inline]
    #[target_feature(enable = "sse2")]
    fn classes16(block: &[u8; 16]) -> [u64; 6] {
        // SAFETY: `block` is 16 readable bytes; `loadu` has no alignment requirement.
        let v = unsafe { _mm_loadu_si128(block.as_ptr().cast::<__m128i>()) };
        let newline = eq(v, b'\n');
        let ws = _mm_or_si128(
            _mm_or_si128(eq(v, b' '), newline),
            _mm_or_si128(eq(v, b'\t'), eq(v, b'\r')),
        );
        // `[` and `]` are `{` and `}` with bit 5 clear; no other byte is.
        let curly = _mm_or_si128(v, _mm_set1_epi8(0x20));
        let op = _mm_or_si128(
            _mm_or_si128(eq(curly, b'{'), eq(curly, b'}')),
            _mm_or_si128(eq(v, b':'), eq(v, b',')),
        );
        let ctrl = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
        let bits = |m: __m128i| u64::from(_mm_movemask_epi8(m) as u16);
        [
            bits(eq(v, b'"')),
            bits(eq(v, b'\\')),
            bits(ws),
            bits(newline),
            bits(op),
            bits(ctrl),
        ]
    }

    /// The structural index's classes of a 64-byte block (`structure::Classes`), 16 bytes at a time.
    #[target_feature(enable = "sse2")]
    pub(in crate::scan) fn classify(block: &[u8; WIDTH]) -> Classes {
        let mut m = [0u64; 6];
        for (k, chunk) in block.chunks_exact(16).enumerate() {
            let c = classes16(chunk.try_into().unwrap_or(&[PAD; 16]));
            for (all, part) in m.iter_mut().zip(c) {
                *all |= part << (16 * k);
            }
        }
        let [quote, backslash, ws, newline, op, ctrl] = m;
        Classes {
            quote,
            backslash,
            ws,
            newline,
            op,
            ctrl,
        }
    }

    /// The first block at or after `at` holding a stop; see `Scanner::find`. (SSE2 is part of the x86_64
    /// baseline.)
    #[target_feature(enable = "sse2")]
    pub(in crate::scan) fn find(buf: &[u8], at: usize) -> (usize, u64) {
        let mut i = at;
        while let Some(block) = buf.get(i..).and_then(|b| b.first_chunk::<WIDTH>()) {
            let mask = mask64(block);
            if mask != 0 {
                return (i, mask);
            }
            i += WIDTH;
        }
        if i < buf.len() {
            return (i, tail(&buf[i..]));
        }
        (i, 0)
    }
}

/// AVX2: only called after `is_x86_feature_detected!("avx2")` said yes (see `ScanImpl::is_available`).
pub(super) mod avx2 {
    use super::*;

    #[inline]
    #[target_feature(enable = "avx2")]
    fn mask32(block: &[u8; 32]) -> u32 {
        // SAFETY: `block` is 32 readable bytes; `loadu` has no alignment requirement.
        let v = unsafe { _mm256_loadu_si256(block.as_ptr().cast::<__m256i>()) };
        let quote = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'"' as i8));
        let backslash = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\\' as i8));
        let control = _mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(0x1f)), v);
        let any = _mm256_or_si256(_mm256_or_si256(quote, backslash), control);
        _mm256_movemask_epi8(any) as u32
    }

    /// Both 32-byte masks joined. `black_box` keeps LLVM from fusing the two movemasks into one `<64 x i1>`
    /// bitcast, which AVX2 lowers to a few hundred byte inserts; it costs a register spill on the way out only.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn join(lo: u32, hi: u32) -> u64 {
        u64::from(lo) | (u64::from(std::hint::black_box(hi)) << 32)
    }

    /// The classes of 32 bytes (`structure::Classes`, bits `0..32`).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn classes32(block: &[u8; 32]) -> [u32; 6] {
        // SAFETY: `block` is 32 readable bytes and each table 16; `loadu` has no alignment requirement.
        let (v, ws_table, op_table) = unsafe {
            (
                _mm256_loadu_si256(block.as_ptr().cast::<__m256i>()),
                _mm256_broadcastsi128_si256(_mm_loadu_si128(WS_TABLE.as_ptr().cast())),
                _mm256_broadcastsi128_si256(_mm_loadu_si128(OP_TABLE.as_ptr().cast())),
            )
        };
        let eq = |byte: u8| _mm256_cmpeq_epi8(v, _mm256_set1_epi8(byte as i8));
        let ws = _mm256_cmpeq_epi8(v, _mm256_shuffle_epi8(ws_table, v));
        let curly = _mm256_or_si256(v, _mm256_set1_epi8(0x20));
        let op = _mm256_cmpeq_epi8(curly, _mm256_shuffle_epi8(op_table, v));
        let ctrl = _mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(0x1f)), v);
        let bits = |m: __m256i| _mm256_movemask_epi8(m) as u32;
        [
            bits(eq(b'"')),
            bits(eq(b'\\')),
            bits(ws),
            bits(eq(b'\n')),
            bits(_mm256_andnot_si256(ctrl, op)),
            bits(ctrl),
        ]
    }

    /// The structural index's classes of a 64-byte block (`structure::Classes`): two 32-byte passes, whitespace
    /// and structural bytes by `vpshufb` look-ups. Callers must have checked that the CPU has AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(in crate::scan) fn classify(block: &[u8; WIDTH]) -> Classes {
        let (lo, hi) = block.split_at(32);
        let lo = classes32(lo.first_chunk::<32>().unwrap_or(&[PAD; 32]));
        let hi = classes32(hi.first_chunk::<32>().unwrap_or(&[PAD; 32]));
        let m = |k: usize| u64::from(lo[k]) | u64::from(hi[k]) << 32;
        Classes {
            quote: m(0),
            backslash: m(1),
            ws: m(2),
            newline: m(3),
            op: m(4),
            ctrl: m(5),
        }
    }

    /// A block's structural index (`Kernel::structure`): [`classify`] and the in-string mask by
    /// [`prefix_xor`], in one call. Callers must have checked that the CPU has AVX2 and `pclmulqdq`.
    #[target_feature(enable = "avx2,pclmulqdq")]
    pub(in crate::scan) fn structure(block: &[u8; WIDTH], carry: &mut Carry) -> Block {
        structure::index(classify(block), carry, |x| prefix_xor(x))
    }

    /// [`structure`] of the classes shifted down by `skip` lanes (`Kernel::structure_shifted`).
    #[target_feature(enable = "avx2,pclmulqdq")]
    pub(in crate::scan) fn structure_shifted(
        block: &[u8; WIDTH],
        skip: u32,
        carry: &mut Carry,
    ) -> Block {
        structure::index_shifted(classify(block), skip, carry, |x| prefix_xor(x))
    }

    /// The first block at or after `at` holding a stop; see `Scanner::find`. Callers must have checked that the
    /// CPU has AVX2.
    #[target_feature(enable = "avx2")]
    pub(in crate::scan) fn find(buf: &[u8], at: usize) -> (usize, u64) {
        let halves = |block: &[u8; WIDTH]| {
            let (lo, hi) = block.split_at(32);
            let lo = mask32(lo.first_chunk::<32>().unwrap_or(&[PAD; 32]));
            let hi = mask32(hi.first_chunk::<32>().unwrap_or(&[PAD; 32]));
            (lo, hi)
        };
        let mut i = at;
        while let Some(block) = buf.get(i..).and_then(|b| b.first_chunk::<WIDTH>()) {
            let (lo, hi) = halves(block);
            if lo | hi != 0 {
                return (i, join(lo, hi));
            }
            i += WIDTH;
        }
        if i < buf.len() {
            // AVX2 implies SSE2 (and SSE2 is the x86_64 baseline).
            return (i, super::sse2::tail(&buf[i..]));
        }
        (i, 0)
    }
}
