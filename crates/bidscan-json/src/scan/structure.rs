//! The structural index (simdjson's stage 1) over 64-byte blocks: per block, the bytes a grammar walk must
//! look at — structural bytes `{}[]:,` outside strings, every unescaped quote, the first byte of every scalar
//! (number or literal), and each escape's backslash inside strings — plus the newlines (for error places) and
//! the control bytes inside strings (always an error). Whitespace and the bytes inside strings are not in it.
//!
//! Each ISA kernel classifies a block's bytes ([`Classes`], one compare pass per class, `vpshufb` look-ups where
//! the ISA has them); [`index`] turns the classes into a [`Block`] with the carries from the block before
//! ([`Carry`]): an odd run of backslashes escapes the byte after it, across block ends too ([`escaped_bytes`]);
//! the in-string mask is the prefix XOR of the unescaped quotes (a carry-less multiply by all ones where the
//! CPU has `pclmulqdq`, six shift-XORs elsewhere). [`Tokens`] walks a document's blocks bit by bit.
//!
//! Safe code: the ISA kernels are in `x86.rs`, `avx512.rs` and `swar.rs` (NEON uses the SWAR body).

use super::Kernel;

/// Bytes per block of the index.
pub(crate) const BLOCK: usize = 64;

/// The byte classes of one 64-byte block: bit `i` of each mask describes byte `i`. Exact for every byte value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Classes {
    /// `"`.
    pub(crate) quote: u64,
    /// `\`.
    pub(crate) backslash: u64,
    /// JSON whitespace: space, `\t`, `\n`, `\r` (RFC 8259 §2).
    pub(crate) ws: u64,
    /// `\n`.
    pub(crate) newline: u64,
    /// `{`, `}`, `[`, `]`, `:`, `,`.
    pub(crate) op: u64,
    /// Bytes below 0x20.
    pub(crate) ctrl: u64,
}

/// What one block carries into the next: whether its last byte escapes the next block's first, whether it
/// ends inside a string (all ones) or not (zero), and whether its last byte belongs to a scalar.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Carry {
    /// 1 when the next block's byte 0 is escaped (an odd run of backslashes ends this block), else 0.
    pub(crate) escaped: u64,
    /// All ones when the block ends inside a string, else 0.
    pub(crate) inside: u64,
    /// 1 when the block's last byte is part of a scalar, else 0.
    pub(crate) scalar: u64,
}

/// One block of the index: bit `i` of each mask describes byte `i`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Block {
    /// The bytes to walk: `{}[]:,` outside strings, unescaped quotes (opening and closing), the first byte of
    /// each run of other bytes outside strings (a scalar, or garbage the walk rejects), and the backslashes
    /// inside strings that start an escape.
    pub(crate) tokens: u64,
    /// `\n` bytes.
    pub(crate) newlines: u64,
    /// Bytes below 0x20 inside strings (from an opening quote up to its closing one).
    pub(crate) bad: u64,
}

/// The bytes of a block escaped by a backslash: in each run of backslashes the first, third, ... start an
/// escape and the byte after each is escaped; `carry` says whether byte 0 is escaped by the block before, and
/// is set for the next block. No loop over the backslashes: the carries of one subtraction pair them
/// (simdjson's `json_escape_scanner`).
#[inline(always)]
pub(crate) fn escaped_bytes(backslash: u64, carry: &mut u64) -> u64 {
    const ODD: u64 = 0xaaaa_aaaa_aaaa_aaaa;
    if backslash == 0 {
        return std::mem::take(carry);
    }
    // A backslash escaped by the block before starts nothing.
    let potential = backslash & !*carry;
    // Odd bits, and the bytes after each potential escape; subtracting the backslashes flips the runs that
    // start on even bits, so that after the XOR with the odd bits each escape and the byte it escapes are set.
    let codes = ((potential << 1 | ODD).wrapping_sub(potential)) ^ ODD;
    let escaped = codes ^ (backslash | *carry);
    *carry = (codes & backslash) >> 63;
    escaped
}

/// Prefix XOR by six shift-XORs: bit `i` of the result is the XOR of bits `0..=i` of `x`. The kernels with a
/// carry-less multiply use that instead.
#[inline(always)]
pub(crate) fn prefix_xor_shifts(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// A block's index from its classes and the carries of the block before (updated for the next one);
/// `prefix_xor` is the kernel's.
#[inline(always)]
pub(crate) fn index(c: Classes, carry: &mut Carry, prefix_xor: impl Fn(u64) -> u64) -> Block {
    let escaped = escaped_bytes(c.backslash, &mut carry.escaped);
    let quotes = c.quote & !escaped;
    // From each opening quote up to (not including) its closing one.
    let inside = prefix_xor(quotes) ^ carry.inside;
    carry.inside = ((inside as i64) >> 63) as u64;
    let scalar = !(c.op | c.ws | inside | quotes);
    let starts = scalar & !(scalar << 1 | carry.scalar);
    carry.scalar = scalar >> 63;
    let escapes = c.backslash & !escaped & inside;
    Block {
        tokens: (c.op & !inside) | quotes | starts | escapes,
        newlines: c.newline,
        bad: c.ctrl & inside,
    }
}

/// [`index`] of a block's classes shifted down by `skip` lanes (`skip < 64`), the lanes vacated at the top
/// counted as whitespace: the last bytes of a document read by a load ending at its end.
#[inline(always)]
pub(crate) fn index_shifted(
    c: Classes,
    skip: u32,
    carry: &mut Carry,
    prefix_xor: impl Fn(u64) -> u64,
) -> Block {
    let shifted = Classes {
        quote: c.quote >> skip,
        backslash: c.backslash >> skip,
        ws: c.ws >> skip | !(u64::MAX >> skip),
        newline: c.newline >> skip,
        op: c.op >> skip,
        ctrl: c.ctrl >> skip,
    };
    index(shifted, carry, prefix_xor)
}

/// The tokens of a document (or of its tail from a container's opening bracket), in order, with what the walk
/// needs besides: the newlines and the first control byte inside a string. Blocks are indexed as the walk
/// reaches them; the last partial block is read by one load ending at the document's end (shifted into place,
/// the bytes past the end counted as whitespace), or from a copy padded with spaces in a document of fewer
/// than 64 bytes.
pub(crate) struct Tokens<'a, 'c, K: Kernel> {
    kernel: K,
    buf: &'a [u8],
    /// Index in `buf` of the current block's byte 0.
    at: usize,
    /// The current block's tokens not yet handed out.
    bits: u64,
    /// The current block's newlines.
    newlines: u64,
    /// Newlines in the blocks before the current one, and the index after the last of them (0: none).
    lines_before: usize,
    line_start_before: usize,
    /// Index of the first control byte inside a string (`usize::MAX`: none so far).
    first_bad: usize,
    /// The carries into the next block: outside the token state, which stays in registers while the carries
    /// go through memory into the kernel's out-of-line `structure`.
    carry: &'c mut Carry,
}

impl<'a, 'c, K: Kernel> Tokens<'a, 'c, K> {
    /// The index of `buf`, whose byte 0 must lie outside any string and escape (a container's opening bracket);
    /// `carry` must be `Carry::default()`.
    #[inline(always)]
    pub(crate) fn new(kernel: K, buf: &'a [u8], carry: &'c mut Carry) -> Self {
        let mut tokens = Tokens {
            kernel,
            buf,
            at: 0,
            bits: 0,
            newlines: 0,
            lines_before: 0,
            line_start_before: 0,
            first_bad: usize::MAX,
            carry,
        };
        tokens.load();
        tokens
    }

    /// The index in `buf` of the next token, or `None` past the end.
    #[inline(always)]
    pub(crate) fn next(&mut self) -> Option<usize> {
        while self.bits == 0 {
            if !self.advance() {
                return None;
            }
        }
        let i = self.bits.trailing_zeros() as usize;
        self.bits &= self.bits - 1;
        Some(self.at + i)
    }

    /// Moves to the next block; false at the end of `buf`. Inlined, so that the walk keeps the token state in
    /// registers (only the carries go through memory, into the kernel's out-of-line `structure`).
    #[inline(always)]
    fn advance(&mut self) -> bool {
        if self.at + BLOCK >= self.buf.len() {
            return false;
        }
        if self.newlines != 0 {
            self.lines_before += self.newlines.count_ones() as usize;
            self.line_start_before = self.at + BLOCK - self.newlines.leading_zeros() as usize;
        }
        self.at += BLOCK;
        self.load();
        true
    }

    /// Indexes the block at `self.at` (which is inside `buf`, or 0 for an empty `buf`).
    #[inline(always)]
    fn load(&mut self) {
        let block = if let Some(block) = self.buf.get(self.at..).and_then(|b| b.first_chunk()) {
            self.kernel.structure(block, self.carry)
        } else {
            partial(self.kernel, self.buf, self.at, self.carry)
        };
        self.bits = block.tokens;
        self.newlines = block.newlines;
        if block.bad != 0 && self.first_bad == usize::MAX {
            self.first_bad = self.at + block.bad.trailing_zeros() as usize;
        }
    }

    /// Closes the walk at `end` (an index in the current block, or just past it): `None` when a control byte
    /// inside a string lies before `end`; else the newlines before `end` and the index just after the last of
    /// them (0 when there is none).
    #[inline(always)]
    pub(crate) fn finish(&self, end: usize) -> Option<(usize, usize)> {
        if self.first_bad < end {
            return None;
        }
        let before = self.newlines & lanes(end - self.at);
        if before == 0 {
            return Some((self.lines_before, self.line_start_before));
        }
        Some((
            self.lines_before + before.count_ones() as usize,
            self.at + BLOCK - before.leading_zeros() as usize,
        ))
    }
}

/// `Tokens::load` for the last `1..64` bytes of `buf` from `at`: one load ending at its end, shifted into
/// place; or, when `buf` is shorter than a block, a copy padded with spaces.
#[inline(never)]
fn partial<K: Kernel>(kernel: K, buf: &[u8], at: usize, carry: &mut Carry) -> Block {
    let tail = buf.get(at..).unwrap_or_default();
    if let Some(last) = buf.last_chunk::<BLOCK>() {
        let skip = (BLOCK - tail.len()) as u32;
        return kernel.structure_shifted(last, skip, carry);
    }
    let mut block = [b' '; BLOCK];
    block[..tail.len()].copy_from_slice(tail);
    kernel.structure(&block, carry)
}

/// Lanes `0..n` of a 64-lane mask (`n <= 64`).
#[inline(always)]
fn lanes(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}
