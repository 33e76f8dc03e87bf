//! The scanner's ISA kernels as types ([`Kernel`]), so the string loops are compiled once per kernel, and
//! [`Kernels`], the value a scanner hands out to pick one, with the crate's one ISA dispatch
//! ([`Kernels::run`]). Constructing `Avx2`/`Avx512` is the proof that the CPU has them.

#[cfg(target_arch = "aarch64")]
use super::neon;
use super::structure::{self, Block, Carry, Classes};
use super::swar;
#[cfg(target_arch = "x86_64")]
use super::{avx512, x86};

/// One scanner kernel (an ISA's stop-byte finder) with its geometry fixed at compile time, so the string loops
/// in `string.rs` are compiled once per kernel (the kernel is picked once per string by `Scanner::kernel`) and
/// keep the mask arithmetic in registers.
///
/// A mask flags stop bytes: bit `i << SHIFT` (and possibly the `1 << SHIFT` bits from there) stands for byte
/// `i` of the block.
pub(crate) trait Kernel: Copy {
    /// Bytes per block.
    const WIDTH: usize;
    /// log2 of mask bits per byte.
    const SHIFT: u32;
    /// The first block at or after `at` holding a stop, and its mask; or, when there is none, the start of the
    /// last block looked at (at or past `buf.len()` - `WIDTH`) and 0. The block past the end of `buf` is padded
    /// with non-stop bytes. (Two values, so they come back in registers.)
    fn find(self, buf: &[u8], at: usize) -> (usize, u64);

    /// The byte classes of a 64-byte block for the structural index (`structure::Classes`, exact for every byte
    /// value).
    fn classify(self, block: &[u8; 64]) -> Classes;

    /// The structural index of `block` (`structure::index`), given the carries of the block before and
    /// updating them. The default computes the in-string mask by shift-XORs; the AVX2 and AVX-512 kernels by a
    /// carry-less multiply, inlined with their classification.
    #[inline(always)]
    fn structure(self, block: &[u8; 64], carry: &mut Carry) -> Block {
        structure::index(self.classify(block), carry, structure::prefix_xor_shifts)
    }

    /// [`structure`](Self::structure) of `block`'s classes shifted down by `skip < 64` lanes, the vacated
    /// lanes whitespace (`structure::index_shifted`: a document's last bytes, read by a load ending at its
    /// end).
    #[inline(always)]
    fn structure_shifted(self, block: &[u8; 64], skip: u32, carry: &mut Carry) -> Block {
        structure::index_shifted(
            self.classify(block),
            skip,
            carry,
            structure::prefix_xor_shifts,
        )
    }

    /// The AVX-512 kernel, when this is it: the string decoder then decodes escaped strings a block at a time
    /// (`Avx512::unescape`). A constant per kernel, so the test compiles away.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn avx512(self) -> Option<Avx512> {
        None
    }
}

/// Work to run with whichever kernel a scanner picked: [`Kernels::run`] calls `call` with it, so code generic
/// over [`Kernel`] is dispatched in one place.
pub(crate) trait KernelFn {
    /// What the work returns.
    type Output;
    /// Runs the work with `kernel`.
    fn call<K: Kernel>(self, kernel: K) -> Self::Output;
}

/// The portable SWAR kernel.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Swar;

impl Kernel for Swar {
    const WIDTH: usize = swar::WIDTH;
    const SHIFT: u32 = swar::SHIFT;
    #[inline(always)]
    fn find(self, buf: &[u8], at: usize) -> (usize, u64) {
        swar::find(buf, at)
    }
    #[inline(always)]
    fn classify(self, block: &[u8; 64]) -> Classes {
        swar::classify(block)
    }
}

/// The SSE2 kernel (x86_64 baseline).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sse2;

#[cfg(target_arch = "x86_64")]
impl Kernel for Sse2 {
    const WIDTH: usize = x86::WIDTH;
    const SHIFT: u32 = 0;
    #[inline(always)]
    fn find(self, buf: &[u8], at: usize) -> (usize, u64) {
        // SAFETY: SSE2 is part of the x86_64 baseline: every x86_64 CPU has it.
        unsafe { x86::sse2::find(buf, at) }
    }
    #[inline(always)]
    fn classify(self, block: &[u8; 64]) -> Classes {
        // SAFETY: SSE2 is part of the x86_64 baseline: every x86_64 CPU has it.
        unsafe { x86::sse2::classify(block) }
    }
}

/// The AVX2 kernel. The field, private to `scan`, makes it a proof of detection: only `Scanner::kernel` makes one, for a
/// scanner whose `imp` passed `is_available()`.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2(pub(super) ());

#[cfg(target_arch = "x86_64")]
impl Kernel for Avx2 {
    const WIDTH: usize = x86::WIDTH;
    const SHIFT: u32 = 0;
    #[inline(always)]
    fn find(self, buf: &[u8], at: usize) -> (usize, u64) {
        // SAFETY: an `Avx2` value exists only when `is_x86_feature_detected!("avx2")` said yes (`Scanner::new`
        // keeps only available implementations; `Scanner::kernel` is the only constructor).
        unsafe { x86::avx2::find(buf, at) }
    }
    #[inline(always)]
    fn classify(self, block: &[u8; 64]) -> Classes {
        // SAFETY: as for `find`.
        unsafe { x86::avx2::classify(block) }
    }
    #[inline(always)]
    fn structure(self, block: &[u8; 64], carry: &mut Carry) -> Block {
        // SAFETY: as for `find`; `ScanImpl::is_available` also checked `pclmulqdq` for AVX2.
        unsafe { x86::avx2::structure(block, carry) }
    }
    #[inline(always)]
    fn structure_shifted(self, block: &[u8; 64], skip: u32, carry: &mut Carry) -> Block {
        // SAFETY: as for `structure`.
        unsafe { x86::avx2::structure_shifted(block, skip, carry) }
    }
}

/// The AVX-512 kernel. The field, private to `scan`, makes it a proof of detection: only `Scanner::kernel` makes
/// one, for a scanner whose `imp` passed `is_available()`.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512(pub(super) ());

#[cfg(target_arch = "x86_64")]
impl Kernel for Avx512 {
    const WIDTH: usize = x86::WIDTH;
    const SHIFT: u32 = 0;
    #[inline(always)]
    fn find(self, buf: &[u8], at: usize) -> (usize, u64) {
        // Finding the next stop is the AVX2 scan's job (measured faster here than a 64-byte AVX-512 compare
        // loop); AVX-512 pays off only where a block's escapes are decoded together (`unescape`).
        self.avx2().find(buf, at)
    }
    #[inline(always)]
    fn avx512(self) -> Option<Avx512> {
        Some(self)
    }
    #[inline(always)]
    fn classify(self, block: &[u8; 64]) -> Classes {
        // SAFETY: this value proves the CPU has AVX-512 F and BW (see `Avx512`).
        unsafe { avx512::classify(block) }
    }
    #[inline(always)]
    fn structure(self, block: &[u8; 64], carry: &mut Carry) -> Block {
        // SAFETY: this value proves the CPU has AVX-512 F and BW and `pclmulqdq` (`ScanImpl::is_available`).
        unsafe { avx512::structure(block, carry) }
    }
    #[inline(always)]
    fn structure_shifted(self, block: &[u8; 64], skip: u32, carry: &mut Carry) -> Block {
        // SAFETY: as for `structure`.
        unsafe { avx512::structure_shifted(block, skip, carry) }
    }
}

#[cfg(target_arch = "x86_64")]
impl Avx512 {
    /// The AVX2 kernel: a CPU passing the AVX-512 check has AVX2 too (`ScanImpl::is_available` checks both).
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

/// The NEON kernel (aarch64 baseline).
#[cfg(target_arch = "aarch64")]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Neon;

#[cfg(target_arch = "aarch64")]
impl Kernel for Neon {
    const WIDTH: usize = neon::WIDTH;
    const SHIFT: u32 = neon::SHIFT;
    #[inline(always)]
    fn find(self, buf: &[u8], at: usize) -> (usize, u64) {
        // SAFETY: NEON is part of the aarch64 baseline: every aarch64 CPU has it.
        unsafe { neon::find(buf, at) }
    }
    /// The portable SWAR classification (a NEON body is not written: the structural index's blocks are
    /// classified eight bytes per word).
    #[inline(always)]
    fn classify(self, block: &[u8; 64]) -> Classes {
        swar::classify(block)
    }
}

/// The kernel a scanner runs, as a value to dispatch on once per string ([`run`](Kernels::run)).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kernels {
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

impl Kernels {
    /// Runs `work` with this kernel: the crate's one ISA dispatch.
    #[inline(always)]
    pub(crate) fn run<F: KernelFn>(self, work: F) -> F::Output {
        match self {
            Kernels::Swar(k) => work.call(k),
            #[cfg(target_arch = "x86_64")]
            Kernels::Sse2(k) => work.call(k),
            #[cfg(target_arch = "x86_64")]
            Kernels::Avx2(k) => work.call(k),
            #[cfg(target_arch = "x86_64")]
            Kernels::Avx512(k) => work.call(k),
            #[cfg(target_arch = "aarch64")]
            Kernels::Neon(k) => work.call(k),
        }
    }
}
