//! The stop-byte scanner: finds the next `"`, `\` or control byte (< 0x20) a block at a time, with one kernel per
//! instruction set (SWAR everywhere; SSE2 and runtime-detected AVX2 and AVX-512 on x86_64; NEON on aarch64), and
//! remembers the last block's stop mask so a scan resumed inside that block (after an escape or a short string)
//! costs a shift instead of a reload. With AVX-512 (VBMI2) escaped strings are decoded a whole block at a time
//! (`avx512::unescape`). The same kernels also classify 64-byte blocks for the structural index that skipped
//! containers are walked over (`structure.rs`).
//!
//! This is the only module of the crate allowed `unsafe`: vector loads and stores, the AVX2/AVX-512 calls behind
//! runtime detection, the in-place decoder's chunked run move ([`move_down_in_chunks`]) and
//! [`str_from_validated`]. Each block carries a `// SAFETY:` note. The tests at the bottom force every kernel
//! available on the machine over the same inputs and compare them with a byte-at-a-time reference; the crate's
//! integration tests run every decode through every available kernel.

#[cfg(target_arch = "x86_64")]
mod avx512;
pub mod bytescan;
#[cfg(target_arch = "aarch64")]
mod neon;
mod swar;
#[cfg(target_arch = "x86_64")]
mod x86;

use std::sync::OnceLock;

mod kernel;
mod pad;
pub(crate) mod structure;
#[cfg(target_arch = "aarch64")]
pub(crate) use kernel::Neon;
pub(crate) use kernel::Swar;
#[cfg(target_arch = "x86_64")]
pub(crate) use kernel::{Avx2, Avx512, Sse2};
pub(crate) use kernel::{Kernel, KernelFn, Kernels};

/// A stop-byte scanner implementation.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScanImpl {
    /// Portable: eight bytes per `u64` word. Available everywhere.
    Swar,
    /// x86_64 SSE2, 64-byte blocks of four 16-byte compares (baseline on x86_64).
    Sse2,
    /// x86_64 AVX2, 64-byte blocks of two 32-byte compares (runtime-detected, with `pclmulqdq`, which every
    /// AVX2 CPU has: the structural index's in-string mask is a carry-less multiply).
    Avx2,
    /// x86_64 AVX-512 (F, BW, VBMI, VBMI2, with AVX2 and `pclmulqdq`; runtime-detected): strings are scanned
    /// with the AVX2 kernel up to their first escape, then decoded a 64-byte block at a time (the escapes'
    /// backslashes compressed out, their characters translated by permutes).
    Avx512,
    /// aarch64 NEON, 16 bytes per block (baseline on aarch64).
    Neon,
}

impl ScanImpl {
    /// The fastest implementation this CPU runs (detected once, then cached).
    pub fn detected() -> ScanImpl {
        static DETECTED: OnceLock<ScanImpl> = OnceLock::new();
        *DETECTED.get_or_init(|| {
            [
                ScanImpl::Avx512,
                ScanImpl::Avx2,
                ScanImpl::Neon,
                ScanImpl::Sse2,
            ]
            .into_iter()
            .find(|imp| imp.is_available())
            .unwrap_or(ScanImpl::Swar)
        })
    }

    /// Whether this CPU can run `self`.
    pub fn is_available(self) -> bool {
        match self {
            ScanImpl::Swar => true,
            ScanImpl::Sse2 => cfg!(target_arch = "x86_64"),
            #[cfg(target_arch = "x86_64")]
            ScanImpl::Avx2 => {
                std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("pclmulqdq")
            }
            #[cfg(not(target_arch = "x86_64"))]
            ScanImpl::Avx2 => false,
            #[cfg(target_arch = "x86_64")]
            ScanImpl::Avx512 => {
                std::is_x86_feature_detected!("avx2")
                    && std::is_x86_feature_detected!("pclmulqdq")
                    && std::is_x86_feature_detected!("avx512f")
                    && std::is_x86_feature_detected!("avx512bw")
                    && std::is_x86_feature_detected!("avx512vbmi")
                    && std::is_x86_feature_detected!("avx512vbmi2")
                    && std::is_x86_feature_detected!("popcnt")
                    && std::is_x86_feature_detected!("bmi1")
            }
            #[cfg(not(target_arch = "x86_64"))]
            ScanImpl::Avx512 => false,
            ScanImpl::Neon => cfg!(target_arch = "aarch64"),
        }
    }

    /// Every implementation this CPU can run, portable first.
    pub fn available() -> Vec<ScanImpl> {
        [
            ScanImpl::Swar,
            ScanImpl::Sse2,
            ScanImpl::Avx2,
            ScanImpl::Avx512,
            ScanImpl::Neon,
        ]
        .into_iter()
        .filter(|imp| imp.is_available())
        .collect()
    }
}

/// Where the last block load started when nothing is cached: far enough from any real offset that
/// `offset - NO_BLOCK` (wrapping) is never below a block width (at most 64).
const NO_BLOCK: usize = usize::MAX - 128;

/// A scanner's choice of kernel plus the last block it loaded. Offsets in the cache are absolute (from the start of
/// the document), so the cache stays valid while the caller hands out suffixes of its buffer: bytes at or after
/// the resume point are never rewritten before they are scanned (in-place decoding only writes behind its read
/// position).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scanner {
    /// Only ever an implementation that `is_available()`.
    imp: ScanImpl,
    /// Absolute offset of the cached block's first byte (or `NO_BLOCK`).
    base: usize,
    /// Stop flags of the cached block, in `imp`'s layout (flags before the last resume point may be cleared).
    mask: u64,
    /// Whether skipped containers are walked over the structural index (`structure.rs`; default) or token by
    /// token.
    index: bool,
}

impl Scanner {
    /// A scanner with an empty cache. `imp` must be available (checked: falls back to SWAR otherwise).
    pub(crate) fn new(imp: ScanImpl) -> Scanner {
        let imp = if imp.is_available() {
            imp
        } else {
            ScanImpl::Swar
        };
        Scanner {
            imp,
            base: NO_BLOCK,
            mask: 0,
            index: true,
        }
    }

    /// Whether skipped containers go over the structural index: when it is on and the kernel classifies a
    /// block by `vpshufb` look-ups and finds strings by a carry-less multiply (AVX2, AVX-512). The other
    /// classifications cost more than the index saves: over the real bodies, per pass, SSE2 (compares, shift
    /// prefix XOR) 11.27 M → 11.77 M instructions, SWAR (and NEON, which uses it) 11.64 M → 14.48 M.
    #[inline(always)]
    pub(crate) fn indexes(&self) -> bool {
        self.index && matches!(self.imp, ScanImpl::Avx2 | ScanImpl::Avx512)
    }

    /// Turns the structural index for skipped containers on or off.
    pub(crate) fn set_index(&mut self, index: bool) {
        self.index = index;
    }

    /// Whether the structural index is on (whatever the kernel).
    pub(crate) fn index_chosen(&self) -> bool {
        self.index
    }

    /// The implementation this scanner runs (always an available one).
    pub(crate) fn imp(&self) -> ScanImpl {
        self.imp
    }

    /// The kernel to run.
    #[inline(always)]
    pub(crate) fn kernel(&self) -> Kernels {
        match self.imp {
            #[cfg(target_arch = "x86_64")]
            ScanImpl::Avx2 => Kernels::Avx2(Avx2(())),
            #[cfg(target_arch = "x86_64")]
            ScanImpl::Avx512 => Kernels::Avx512(Avx512(())),
            #[cfg(target_arch = "x86_64")]
            ScanImpl::Sse2 => Kernels::Sse2(Sse2),
            #[cfg(target_arch = "aarch64")]
            ScanImpl::Neon => Kernels::Neon(Neon),
            _ => Kernels::Swar(Swar),
        }
    }

    /// The block holding the first stop at or after `from` in `buf` (whose `buf[0]` is at absolute offset
    /// `origin`; `buf` ends where the document ends): `(block, mask)` where `block` is the index of the block's
    /// first byte — wrapping: it may lie before `buf[0]` when the cached block is reused — and `mask` its flags
    /// with those before `from` cleared. `mask == 0` means there is no stop before the end.
    #[inline(always)]
    pub(crate) fn resume<B: Kernel>(
        &self,
        kernel: B,
        buf: &[u8],
        origin: usize,
        from: usize,
    ) -> (usize, u64) {
        let mut at = from;
        let into_block = origin.wrapping_add(from).wrapping_sub(self.base);
        if into_block < B::WIDTH {
            let rest = self.mask & (u64::MAX << (into_block << B::SHIFT));
            if rest != 0 {
                return (self.base.wrapping_sub(origin), rest);
            }
            at = from + (B::WIDTH - into_block);
        }
        kernel.find(buf, at)
    }

    /// Drops the cached block (after a decode that did not go through it).
    #[inline(always)]
    pub(crate) fn forget(&mut self) {
        self.base = NO_BLOCK;
    }

    /// Remembers the block at index `block` of a `buf` starting at absolute `origin`, and its mask (flags before
    /// the caller's position may be cleared: resumes only look at or after it).
    #[inline(always)]
    pub(crate) fn keep(&mut self, origin: usize, block: usize, mask: u64) {
        self.base = origin.wrapping_add(block);
        self.mask = mask;
    }

    /// Index of the first stop byte in `buf` at or after `from`, or `buf.len()` if there is none (`origin` as
    /// for [`Scanner::resume`]); caches the block. The string loops walk masks themselves; this is the one-stop
    /// form the tests compare with a reference.
    #[cfg(test)]
    pub(crate) fn next_stop(&mut self, buf: &[u8], origin: usize, from: usize) -> usize {
        struct NextStop<'a, 'b> {
            scan: &'a mut Scanner,
            buf: &'b [u8],
            origin: usize,
            from: usize,
        }
        impl KernelFn for NextStop<'_, '_> {
            type Output = usize;
            fn call<B: Kernel>(self, kernel: B) -> usize {
                let NextStop {
                    scan,
                    buf,
                    origin,
                    from,
                } = self;
                let (block, mask) = scan.resume(kernel, buf, origin, from);
                scan.keep(origin, block, mask);
                if mask == 0 {
                    buf.len()
                } else {
                    block.wrapping_add((mask.trailing_zeros() >> B::SHIFT) as usize)
                }
            }
        }
        let kernel = self.kernel();
        kernel.run(NextStop {
            scan: self,
            buf,
            origin,
            from,
        })
    }

    /// `Kernel::find` of this scanner's kernel, with its geometry: `(block, mask, width, shift)`.
    #[cfg(test)]
    fn find(&self, buf: &[u8], at: usize) -> (usize, u64, usize, u32) {
        struct Find<'b>(&'b [u8], usize);
        impl KernelFn for Find<'_> {
            type Output = (usize, u64, usize, u32);
            fn call<B: Kernel>(self, kernel: B) -> Self::Output {
                let (block, mask) = kernel.find(self.0, self.1);
                (block, mask, B::WIDTH, B::SHIFT)
            }
        }
        self.kernel().run(Find(buf, at))
    }
}

/// Stop flags of 16 bytes (bit `i`: `chunk[i]` is `"`, `\\` or below 0x20), with SSE2, part of the x86_64
/// baseline: inlined anywhere, no runtime dispatch. The string decoder's first look at a string, since most
/// strings (keys, ids, codes) end within 16 bytes without an escape.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn stops16(chunk: &[u8; 16]) -> u64 {
    // SAFETY: SSE2 is part of the x86_64 baseline: every x86_64 CPU has it.
    unsafe { x86::sse2::mask16(chunk) }
}

/// Whitespace flags of 16 bytes: `(whitespace, newlines)`, bit `i` set when `chunk[i]` is JSON whitespace
/// (space, `\t`, `\n`, `\r`; RFC 8259 §2), resp. a `\n`. One SSE2 pass on x86_64 (baseline, inlined anywhere);
/// a byte loop the compiler vectorises elsewhere. The reader's whitespace skip: pretty-printed kernels put a
/// newline and 8–40 bytes of indentation before most tokens.
#[inline(always)]
pub(crate) fn whitespace16(chunk: &[u8; 16]) -> (u32, u32) {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of the x86_64 baseline: every x86_64 CPU has it.
        unsafe { x86::sse2::whitespace16(chunk) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        whitespace16_portable(chunk)
    }
}

/// [`whitespace16`] over 32 bytes (two 16-byte passes joined): bit `i` of each mask flags `chunk[i]`. Most of a
/// pretty printer's runs (a newline and 8-40 spaces of indentation) end within one such step.
#[inline(always)]
pub(crate) fn whitespace32(chunk: &[u8; 32]) -> (u64, u64) {
    let (lo, hi) = chunk.split_at(16);
    let lo = lo.first_chunk::<16>().map_or((0, 0), whitespace16);
    let hi = hi.first_chunk::<16>().map_or((0, 0), whitespace16);
    (
        u64::from(lo.0) | u64::from(hi.0) << 16,
        u64::from(lo.1) | u64::from(hi.1) << 16,
    )
}

/// Space flags of 32 bytes: bit `i` set when `chunk[i]` is `b' '`. The reader's step over a pretty printer's
/// indentation right after its newline (`"\n"` + 8–40 spaces before most tokens): one compare per byte where
/// [`whitespace32`] needs four plus the newline mask. Two SSE2 passes on x86_64; a byte loop elsewhere.
#[inline(always)]
pub(crate) fn spaces32(chunk: &[u8; 32]) -> u32 {
    let (lo, hi) = chunk.split_at(16);
    let lo = lo.first_chunk::<16>().map_or(0, spaces16);
    let hi = hi.first_chunk::<16>().map_or(0, spaces16);
    lo | hi << 16
}

/// [`spaces32`] over 64 bytes: bit `i` set when `chunk[i]` is `b' '`. The reader's check of a predicted
/// indentation (see `de::Deserializer::newline_indent`): four SSE2 compares, off the reader's critical path when
/// the prediction holds.
#[inline(always)]
pub(crate) fn spaces64(chunk: &[u8; 64]) -> u64 {
    let (lo, hi) = chunk.split_at(32);
    let lo = lo.first_chunk::<32>().map_or(0, spaces32);
    let hi = hi.first_chunk::<32>().map_or(0, spaces32);
    u64::from(lo) | u64::from(hi) << 32
}

/// Space flags of 16 bytes: bit `i` set when `chunk[i]` is `b' '` (bits 16.. clear). The reader's check of a
/// predicted indentation under 32 spaces (see `de::Deserializer::newline_indent`): one SSE2 compare.
#[inline(always)]
pub(crate) fn spaces16(chunk: &[u8; 16]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of the x86_64 baseline: every x86_64 CPU has it.
        unsafe { x86::sse2::spaces16(chunk) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        spaces16_portable(chunk)
    }
}

/// [`spaces16`] byte by byte: the portable kernel and the tests' reference.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline]
pub(crate) fn spaces16_portable(chunk: &[u8; 16]) -> u32 {
    chunk
        .iter()
        .enumerate()
        .fold(0, |m, (k, &b)| m | u32::from(b == b' ') << k)
}

/// [`whitespace16`] byte by byte: the portable kernel and the tests' reference.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline]
pub(crate) fn whitespace16_portable(chunk: &[u8; 16]) -> (u32, u32) {
    let mut ws = 0;
    let mut newlines = 0;
    for (k, &b) in chunk.iter().enumerate() {
        ws |= u32::from(matches!(b, b' ' | b'\t' | b'\n' | b'\r')) << k;
        newlines |= u32::from(b == b'\n') << k;
    }
    (ws, newlines)
}

/// Moves `window[gap..gap + len]` down to `window[..len]` in whole 16-byte chunks, front to back, and returns
/// true; or returns false without touching anything unless `gap >= 16` and `window` holds at least 16 bytes
/// past the run (`window.len() >= gap + len + 16`).
///
/// The last chunk overshoots: up to 15 bytes after `window[len]` are overwritten and up to 15 bytes after the
/// run are read, all inside `window` and all below `gap + len` for the writes — so with `window[gap + len]` the
/// first byte not yet read by the caller, no unread byte changes. This is the in-place decoder's run move once a
/// string has shrunk by 16 bytes (see `string::move_run`).
#[inline(always)]
pub(crate) fn move_down_in_chunks(window: &mut [u8], gap: usize, len: usize) -> bool {
    if gap < 16 || window.len().saturating_sub(16).saturating_sub(gap) < len {
        return false;
    }
    let base = window.as_mut_ptr();
    let mut k = 0;
    while k < len {
        // SAFETY: `k < len` and `window.len() >= gap + len + 16` (checked above), so the source
        // `base[gap + k .. gap + k + 16]` and the destination `base[k .. k + 16]` both lie inside `window`
        // (`k + 16 <= len + 15 < window.len()`). Chunks go front to back and `gap >= 16`, so the 16 bytes stored
        // at `k` end at or before `gap + k`, the start of this chunk's source, which was already loaded; no later
        // source chunk (starting at `gap + k + 16` or beyond) is overwritten before it is read.
        // `read_unaligned`/`write_unaligned` have no alignment requirement.
        unsafe {
            let chunk = base.add(gap + k).cast::<[u8; 16]>().read_unaligned();
            base.add(k).cast::<[u8; 16]>().write_unaligned(chunk);
        }
        k += 16;
    }
    true
}

/// Views bytes as `str` without re-checking them.
///
/// Contract (upheld by the reader, asserted in debug builds): `bytes` is either a slice of the original input —
/// validated as UTF-8 as a whole before decoding started, and cut only next to ASCII bytes (quotes, stop bytes,
/// structural bytes), which are always character boundaries — or a decoded string: such slices concatenated
/// with escapes encoded by `char::encode_utf8`. Concatenations of valid UTF-8 are valid UTF-8.
#[inline]
pub(crate) fn str_from_validated(bytes: &[u8]) -> &str {
    debug_assert!(
        std::str::from_utf8(bytes).is_ok(),
        "reader bug: invalid UTF-8 produced"
    );
    // SAFETY: see the contract above; the reader validates the whole input with simdutf8 before it starts and
    // only produces slices of the shapes listed.
    unsafe { std::str::from_utf8_unchecked(bytes) }
}

#[cfg(test)]
mod structure_tests;
#[cfg(test)]
mod tests;
