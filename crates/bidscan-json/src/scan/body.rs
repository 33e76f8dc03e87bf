//! The scanner bodies as types ([`Body`]), so the string loops are compiled once per body, and [`Bodies`], the
//! value a scanner hands out to pick one. Constructing `Avx2`/`Avx512` is the proof that the CPU has them.

#[cfg(target_arch = "aarch64")]
use super::neon;
use super::swar;
#[cfg(target_arch = "x86_64")]
use super::{avx512, x86};

/// One scanner body with its geometry fixed at compile time, so the string loops in `string.rs` are compiled
/// once per body (the body is picked once per string by `Scanner::body`) and keep the mask arithmetic in
/// registers.
///
/// A mask flags stop bytes: bit `i << SHIFT` (and possibly the `1 << SHIFT` bits from there) stands for byte
/// `i` of the block.
pub(crate) trait Body: Copy {
    /// Bytes per block.
    const WIDTH: usize;
    /// log2 of mask bits per byte.
    const SHIFT: u32;
    /// The first block at or after `at` holding a stop, and its mask; or, when there is none, the start of the
    /// last block looked at (at or past `buf.len()` - `WIDTH`) and 0. The block past the end of `buf` is padded
    /// with non-stop bytes. (Two values, so they come back in registers.)
    fn find(self, buf: &[u8], at: usize) -> (usize, u64);
}

/// The portable SWAR body.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Swar;

impl Body for Swar {
    const WIDTH: usize = swar::WIDTH;
    const SHIFT: u32 = swar::SHIFT;
    #[inline(always)]
    fn find(self, buf: &[u8], at: usize) -> (usize, u64) {
        swar::find(buf, at)
    }
}

/// The SSE2 body (x86_64 baseline).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sse2;

#[cfg(target_arch = "x86_64")]
impl Body for Sse2 {
    const WIDTH: usize = x86::WIDTH;
    const SHIFT: u32 = 0;
    #[inline(always)]
    fn find(self, buf: &[u8], at: usize) -> (usize, u64) {
        // SAFETY: SSE2 is part of the x86_64 baseline: every x86_64 CPU has it.
        unsafe { x86::sse2::find(buf, at) }
    }
}

/// The AVX2 body. The field, private to `scan`, makes it a proof of detection: only `Scanner::body` makes one, for a
/// scanner whose `imp` passed `is_available()`.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2(pub(super) ());

#[cfg(target_arch = "x86_64")]
impl Body for Avx2 {
    const WIDTH: usize = x86::WIDTH;
    const SHIFT: u32 = 0;
    #[inline(always)]
    fn find(self, buf: &[u8], at: usize) -> (usize, u64) {
        // SAFETY: an `Avx2` value exists only when `is_x86_feature_detected!("avx2")` said yes (`Scanner::new`
        // keeps only available implementations; `Scanner::body` is the only constructor).
        unsafe { x86::avx2::find(buf, at) }
    }
}

/// The AVX-512 body. The field, private to `scan`, makes it a proof of detection: only `Scanner::body` makes
/// one, for a scanner whose `imp` passed `is_available()`.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512(pub(super) ());

#[cfg(target_arch = "x86_64")]
impl Body for Avx512 {
    const WIDTH: usize = x86::WIDTH;
    const SHIFT: u32 = 0;
    #[inline(always)]
    fn find(self, buf: &[u8], at: usize) -> (usize, u64) {
        // Finding the next stop is the AVX2 scan's job (measured faster here than a 64-byte AVX-512 compare
        // loop); AVX-512 pays off only where a block's escapes are decoded together (`unescape`).
        self.avx2().find(buf, at)
    }
}

#[cfg(target_arch = "x86_64")]
impl Avx512 {
    /// The AVX2 body: a CPU passing the AVX-512 check has AVX2 too (`ScanImpl::is_available` checks both).
    #[inline(always)]
    pub(crate) fn avx2(self) -> Avx2 {
        Avx2(())
    }

    /// Block-at-a-time in-place decode of an escaped string's plain runs and one-byte escapes; see
    /// `avx512::unescape` for the contract. Returns `(read, write, escapes, ended)`.
    #[inline(always)]
    pub(crate) fn unescape(
        self,
        buf: &mut [u8],
        read: usize,
        write: usize,
    ) -> (usize, usize, u64, bool) {
        // SAFETY: as for `find`: this value proves the CPU has AVX-512 F, BW, VBMI and VBMI2.
        unsafe { avx512::unescape(buf, read, write) }
    }
}

/// The NEON body (aarch64 baseline).
#[cfg(target_arch = "aarch64")]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Neon;

#[cfg(target_arch = "aarch64")]
impl Body for Neon {
    const WIDTH: usize = neon::WIDTH;
    const SHIFT: u32 = neon::SHIFT;
    #[inline(always)]
    fn find(self, buf: &[u8], at: usize) -> (usize, u64) {
        // SAFETY: NEON is part of the aarch64 baseline: every aarch64 CPU has it.
        unsafe { neon::find(buf, at) }
    }
}

/// The body a scanner runs, as a value to `match` on once per string.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Bodies {
    /// [`Swar`].
    Swar(Swar),
    /// [`Sse2`].
    #[cfg(target_arch = "x86_64")]
    Sse2(Sse2),
    /// [`Avx2`].
    #[cfg(target_arch = "x86_64")]
    Avx2(Avx2),
    /// [`Avx512`].
    #[cfg(target_arch = "x86_64")]
    Avx512(Avx512),
    /// [`Neon`].
    #[cfg(target_arch = "aarch64")]
    Neon(Neon),
}
