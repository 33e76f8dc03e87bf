//! The stop-byte scanner: finds the next `"`, `\` or control byte (< 0x20) a block at a time, with one body per
//! instruction set (SWAR everywhere, SSE2 and runtime-detected AVX2 on x86_64, NEON on aarch64), and remembers
//! the last block's stop mask so a scan resumed inside that block (after an escape or a short string) costs a
//! shift instead of a reload.
//!
//! This is the only module of the crate allowed `unsafe`: vector loads, the AVX2 call behind runtime detection,
//! and [`str_from_validated`]. Each block carries a `// SAFETY:` note. The tests at the bottom force every body
//! available on the machine over the same inputs and compare them with a byte-at-a-time reference.

#[cfg(target_arch = "aarch64")]
mod neon;
mod swar;
#[cfg(target_arch = "x86_64")]
mod x86;

use std::sync::OnceLock;

/// Filler for the last partial block: not a stop byte, so padding never reports a stop.
const PAD: u8 = b' ';

/// A stop-byte scanner implementation.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScanImpl {
    /// Portable: eight bytes per `u64` word. Available everywhere.
    Swar,
    /// x86_64 SSE2, 64-byte blocks of four 16-byte compares (baseline on x86_64).
    Sse2,
    /// x86_64 AVX2, 64-byte blocks of two 32-byte compares (runtime-detected).
    Avx2,
    /// aarch64 NEON, 16 bytes per block (baseline on aarch64).
    Neon,
}

impl ScanImpl {
    /// The fastest implementation this CPU runs (detected once, then cached).
    pub fn detected() -> ScanImpl {
        static DETECTED: OnceLock<ScanImpl> = OnceLock::new();
        *DETECTED.get_or_init(|| {
            [ScanImpl::Avx2, ScanImpl::Neon, ScanImpl::Sse2]
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
            ScanImpl::Avx2 => std::is_x86_feature_detected!("avx2"),
            #[cfg(not(target_arch = "x86_64"))]
            ScanImpl::Avx2 => false,
            ScanImpl::Neon => cfg!(target_arch = "aarch64"),
        }
    }

    /// Every implementation this CPU can run, portable first.
    pub fn available() -> Vec<ScanImpl> {
        [
            ScanImpl::Swar,
            ScanImpl::Sse2,
            ScanImpl::Avx2,
            ScanImpl::Neon,
        ]
        .into_iter()
        .filter(|imp| imp.is_available())
        .collect()
    }

    /// Bytes per block and log2 of mask bits per byte.
    fn geometry(self) -> (usize, u32) {
        match self {
            ScanImpl::Swar => (swar::WIDTH, swar::SHIFT),
            #[cfg(target_arch = "x86_64")]
            ScanImpl::Sse2 | ScanImpl::Avx2 => (x86::WIDTH, 0),
            #[cfg(not(target_arch = "x86_64"))]
            ScanImpl::Sse2 | ScanImpl::Avx2 => (64, 0),
            #[cfg(target_arch = "aarch64")]
            ScanImpl::Neon => (neon::WIDTH, neon::SHIFT),
            #[cfg(not(target_arch = "aarch64"))]
            ScanImpl::Neon => (16, 2),
        }
    }
}

/// Where the last block load started when nothing is cached: far enough from any real offset that
/// `offset - NO_BLOCK` (wrapping) is never below a block width (at most 64).
const NO_BLOCK: usize = usize::MAX - 128;

/// A scanner plus the last block it loaded. Offsets in the cache are absolute (from the start of the document),
/// so the cache stays valid while the caller hands out prefixes of its buffer: bytes at or after the resume point
/// are never rewritten before they are scanned (in-place decoding only writes behind its read position).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scanner {
    /// Only ever an implementation that `is_available()`.
    imp: ScanImpl,
    width: usize,
    shift: u32,
    /// Absolute offset of the cached block's first byte (or `NO_BLOCK`).
    base: usize,
    /// Stop flags of the cached block, in `imp`'s layout.
    mask: u64,
}

impl Scanner {
    /// A scanner with an empty cache. `imp` must be available (checked: falls back to SWAR otherwise).
    pub(crate) fn new(imp: ScanImpl) -> Scanner {
        let imp = if imp.is_available() {
            imp
        } else {
            ScanImpl::Swar
        };
        let (width, shift) = imp.geometry();
        Scanner {
            imp,
            width,
            shift,
            base: NO_BLOCK,
            mask: 0,
        }
    }

    /// Index of the first stop byte in `buf` at or after `from`, or `buf.len()` if there is none. `origin` is the
    /// absolute offset of `buf[0]`, and `buf` always ends where the document ends.
    #[inline]
    pub(crate) fn next_stop(&mut self, buf: &[u8], origin: usize, from: usize) -> usize {
        let mut at = from;
        let into_block = (origin + from).wrapping_sub(self.base);
        if into_block < self.width {
            let rest = self.mask >> (into_block << self.shift);
            if rest != 0 {
                return from + (rest.trailing_zeros() >> self.shift) as usize;
            }
            at = from + (self.width - into_block);
        }
        let (block, mask) = self.find(buf, at);
        self.base = origin + block;
        self.mask = mask;
        if mask == 0 {
            buf.len()
        } else {
            block + (mask.trailing_zeros() >> self.shift) as usize
        }
    }

    /// Scans from `at` with the chosen body. Returns the start of the first block (of this body's width) at or
    /// after `at` holding a stop byte, and that block's mask; or, when there is none, the start of the last block
    /// looked at and 0. The block past the end of `buf` is padded with non-stop bytes. (Two values, so they come
    /// back in registers.)
    #[inline]
    fn find(&self, buf: &[u8], at: usize) -> (usize, u64) {
        match self.imp {
            #[cfg(target_arch = "x86_64")]
            ScanImpl::Avx2 => {
                // SAFETY: a Scanner only holds Avx2 when `is_x86_feature_detected!("avx2")` said yes (`new`).
                unsafe { x86::avx2::find(buf, at) }
            }
            #[cfg(target_arch = "x86_64")]
            ScanImpl::Sse2 => {
                // SAFETY: SSE2 is part of the x86_64 baseline: every x86_64 CPU has it.
                unsafe { x86::sse2::find(buf, at) }
            }
            #[cfg(target_arch = "aarch64")]
            ScanImpl::Neon => {
                // SAFETY: NEON is part of the aarch64 baseline: every aarch64 CPU has it.
                unsafe { neon::find(buf, at) }
            }
            _ => swar::find(buf, at),
        }
    }
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
mod tests;
