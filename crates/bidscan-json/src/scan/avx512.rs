//! AVX-512 (F, BW, VBMI, VBMI2): only called after runtime detection said yes (see `ScanImpl::is_available`).
//! It decodes escaped strings a whole 64-byte block at a time ([`unescape`]): the escapes' backslashes are
//! dropped and their characters translated by one compress and permutes, instead of one trip through the scalar
//! loop per escape. (Finding stops is left to the AVX2 kernel.)

use std::arch::x86_64::*;

use super::structure::{self, Block, Carry, Classes};
use super::x86;
use crate::escape::{HEX, SIMPLE};

/// Bytes per block.
const WIDTH: usize = 64;

/// Lanes `0..n` of a 64-lane mask (`n <= 64`).
#[inline(always)]
fn lanes(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

/// The bytes of a block that follow an escape's backslash, given the block's backslashes (`block[i] == b'\\'`
/// sets bit `i`) and a block starting outside any escape: in each run of backslashes the first, third, ...
/// start escapes and the byte after each is escaped (`\\\\\"` escapes the second backslash and the quote). No
/// loop over the backslashes: carries of one addition pair them (the method of simdjson's string scanner).
#[inline(always)]
pub(crate) fn escaped_bytes(backslash: u64) -> u64 {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    let follows = backslash << 1;
    // Runs starting on an odd bit, added to the backslashes: each carry ripples through its run and lands
    // one past it; runs starting on even bits are flipped by the `EVEN ^` below instead.
    let odd_starts = backslash & !EVEN & !follows;
    let carried = odd_starts.wrapping_add(backslash);
    (EVEN ^ (carried << 1)) & follows
}

/// Permute indexes moving every byte one lane up (lane 0 repeats).
static SHIFT_UP: [u8; 64] = {
    let mut idx = [0u8; 64];
    let mut i = 1;
    while i < 64 {
        idx[i] = i as u8 - 1;
        i += 1;
    }
    idx
};

/// Loads the first 128 bytes of a byte table (the string decoder's tables, indexed by a byte; `permutex2var`
/// uses an index's low seven bits, so bytes >= 0x80 are masked out by the callers).
#[inline]
#[target_feature(enable = "avx512f")]
fn halves(table: &[u8; 256]) -> (__m512i, __m512i) {
    // SAFETY: `table` is 256 readable bytes, of which the first 128 are loaded; `loadu` has no alignment
    // requirement.
    unsafe {
        (
            _mm512_loadu_si512(table.as_ptr().cast()),
            _mm512_loadu_si512(table.as_ptr().add(64).cast()),
        )
    }
}

/// Decodes an escaped string in place, a 64-byte block per step, from `read` (just after the opening quote or
/// an escape; never inside one) writing to `write` (`write <= read`). Handles plain runs and the eight
/// one-byte escapes; stops at anything else. Returns `(read, write, escapes, ended)`:
/// - `ended`: `buf[read]` is the closing quote; the decoded string ends at `write`. Nothing at or after `read`
///   was written.
/// - otherwise `buf[read]` is what the scalar code must handle: a backslash starting a `\u` or invalid escape
///   (or a one-byte escape split across blocks), a control byte, or `read == buf.len()` (end of input).
///   Everything before `read` is decoded to `buf[..write]`.
///
/// Callers must have checked that the CPU has AVX-512 F, BW, VBMI and VBMI2.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,popcnt,bmi1")]
pub(in crate::scan) fn unescape(
    buf: &mut [u8],
    mut read: usize,
    mut write: usize,
) -> (usize, usize, u64, bool) {
    // `SIMPLE` gives a one-byte escape's decoded byte (non-zero) or 0; `HEX` a hex digit's value or 0xff.
    let (decoded_lo, decoded_hi) = halves(&SIMPLE);
    let (hex_lo, hex_hi) = halves(&HEX);
    // SAFETY: `SHIFT_UP` is 64 readable bytes; `loadu` has no alignment requirement.
    let shift_up = unsafe { _mm512_loadu_si512(SHIFT_UP.as_ptr().cast()) };
    let mut escapes = 0u64;
    while read < buf.len() {
        // Masked loads and stores cost several times a plain one here: only the last block and a string's
        // final store use them.
        let whole = buf.len() - read >= WIDTH;
        let valid = lanes(buf.len() - read);
        let v = if whole {
            // SAFETY: `read + 64 <= buf.len()`: 64 readable bytes; `loadu` has no alignment requirement.
            unsafe { _mm512_loadu_si512(buf.as_ptr().add(read).cast()) }
        } else {
            // SAFETY: `read < buf.len()`; the masked load reads only the `valid` lanes, all inside `buf`.
            unsafe { _mm512_maskz_loadu_epi8(valid, buf.as_ptr().add(read).cast::<i8>()) }
        };
        let quote = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'"' as i8));
        let backslash = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'\\' as i8));
        let control = _mm512_mask_cmplt_epu8_mask(valid, v, _mm512_set1_epi8(0x20));
        if whole && quote | backslash | control == 0 {
            // A plain block: a branch (not a data dependency) decides where the next load starts, so loads
            // of following blocks issue before this block's compares finish.
            if write != read {
                // SAFETY: `write < read` and `read + 64 <= buf.len()`: the store covers `write..write + 64`,
                // inside `buf` and before `read + 64`; every byte there at or after `read` was loaded into
                // `v` already, so nothing not yet read changes. `storeu` needs no alignment.
                unsafe { _mm512_storeu_si512(buf.as_mut_ptr().add(write).cast(), v) };
            }
            read += WIDTH;
            write += WIDTH;
            continue;
        }
        let escaped = escaped_bytes(backslash);
        let starts = backslash & !escaped;
        let mut stop = (quote & !escaped) | control | (starts & (1 << 63));
        // Bytes not copied (each escape's backslash, and `u00X` of a `\u00XX`), and the decoded block.
        let mut dropped = starts;
        let mut out = v;
        if starts != 0 {
            let high = _mm512_movepi8_mask(v);
            let translated = _mm512_permutex2var_epi8(decoded_lo, v, decoded_hi);
            let simple = _mm512_test_epi8_mask(translated, translated) & !high;
            let u = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'u' as i8)) & escaped;
            let mut bad = escaped & !simple & !u;
            if u != 0 {
                // `\u00XX` with XX < 0x80, wholly inside the block: its byte replaces the last hex digit
                // and the four bytes before it (after the backslash) are dropped. Other `\u` escapes stop.
                let digits = _mm512_permutex2var_epi8(hex_lo, v, hex_hi);
                let hex = _mm512_testn_epi8_mask(digits, _mm512_set1_epi8(0xf0_u8 as i8)) & !high;
                let zero = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'0' as i8));
                let below_8 = hex & _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(b'8' as i8));
                let ascii =
                    u & (zero >> 1) & (zero >> 2) & (below_8 >> 3) & (hex >> 4) & (u64::MAX >> 5);
                bad |= u & !ascii;
                if ascii != 0 {
                    // previous[i] = digits[i - 1]; byte = previous << 4 | digits at the last digit.
                    let previous = _mm512_permutexvar_epi8(shift_up, digits);
                    let high_nibble = _mm512_and_si512(
                        _mm512_slli_epi16::<4>(previous),
                        _mm512_set1_epi8(0xf0_u8 as i8),
                    );
                    let byte = _mm512_or_si512(high_nibble, digits);
                    out = _mm512_mask_mov_epi8(out, ascii << 4, byte);
                    dropped |= ascii | ascii << 1 | ascii << 2 | ascii << 3;
                }
            }
            stop |= bad >> 1;
            out = _mm512_mask_mov_epi8(out, escaped & !u, translated);
        }
        if stop == 0 && whole {
            // A whole block of plain runs and escapes: again a branch, so the next load's address
            // (`read + 64`) does not wait for this block's masks.
            let keep = !dropped;
            let packed = _mm512_maskz_compress_epi8(keep, out);
            // SAFETY: `write <= read` and `read + 64 <= buf.len()`: the store covers `write..write + 64`,
            // inside `buf` and at or before `read + 64`; every byte there at or after `read` was loaded into
            // `v` already, so nothing not yet read changes (bytes past `write + produced` are rewritten by
            // the next block or lie past the decoded string). `storeu` needs no alignment.
            unsafe { _mm512_storeu_si512(buf.as_mut_ptr().add(write).cast(), packed) };
            escapes += u64::from(starts.count_ones());
            write += keep.count_ones() as usize;
            read += WIDTH;
            continue;
        }
        // The block holding a stop, or the end of the input: decode up to it.
        let limit = if stop != 0 {
            stop.trailing_zeros() as usize
        } else {
            buf.len() - read
        };
        let range = lanes(limit);
        let keep = range & !dropped;
        let produced = keep.count_ones() as usize;
        if starts & range != 0 || write != read {
            let packed = _mm512_maskz_compress_epi8(keep, out);
            if write + WIDTH <= read + limit {
                // SAFETY: the whole store `write..write + 64` ends at or before `read + limit <= buf.len()`:
                // only bytes already decoded are overwritten (once a string has shrunk by 64 bytes this
                // avoids the masked store, several times slower here). `storeu` needs no alignment.
                unsafe { _mm512_storeu_si512(buf.as_mut_ptr().add(write).cast(), packed) };
            } else {
                // SAFETY: the store writes only lanes `0..produced` at `write`, and
                // `write + produced <= read + limit <= buf.len()` (each kept byte comes from
                // `read..read + limit` and `write <= read`); `storeu` has no alignment requirement. Those
                // bytes are all before `read + limit`, so no byte not yet loaded is written.
                unsafe {
                    _mm512_mask_storeu_epi8(
                        buf.as_mut_ptr().add(write).cast::<i8>(),
                        lanes(produced),
                        packed,
                    )
                };
            }
        }
        escapes += u64::from((starts & range).count_ones());
        write += produced;
        read += limit;
        if stop != 0 {
            let first = stop & stop.wrapping_neg();
            return (read, write, escapes, first & quote & !escaped != 0);
        }
    }
    (read, write, escapes, false)
}

/// The structural index's classes of a 64-byte block (`structure::Classes`): one load, compares straight into
/// mask registers, whitespace and structural bytes by `vpshufb` look-ups (the tables of `x86::avx2`).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub(crate) fn classify(block: &[u8; WIDTH]) -> Classes {
    // SAFETY: `block` is 64 readable bytes and each table 16; `loadu` has no alignment requirement.
    let (v, ws_table, op_table) = unsafe {
        (
            _mm512_loadu_si512(block.as_ptr().cast()),
            _mm512_broadcast_i32x4(_mm_loadu_si128(x86::WS_TABLE.as_ptr().cast())),
            _mm512_broadcast_i32x4(_mm_loadu_si128(x86::OP_TABLE.as_ptr().cast())),
        )
    };
    let eq = |byte: u8| _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(byte as i8));
    let ctrl = _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(0x20));
    let curly = _mm512_or_si512(v, _mm512_set1_epi8(0x20));
    Classes {
        quote: eq(b'"'),
        backslash: eq(b'\\'),
        ws: _mm512_cmpeq_epi8_mask(v, _mm512_shuffle_epi8(ws_table, v)),
        newline: eq(b'\n'),
        op: _mm512_cmpeq_epi8_mask(curly, _mm512_shuffle_epi8(op_table, v)) & !ctrl,
        ctrl,
    }
}

/// A block's structural index (`Kernel::structure`): [`classify`] and the in-string mask by a carry-less
/// multiply, in one call. Callers must have checked AVX-512 F and BW and `pclmulqdq`.
#[target_feature(enable = "avx512f,avx512bw,pclmulqdq")]
pub(crate) fn structure(block: &[u8; WIDTH], carry: &mut Carry) -> Block {
    structure::index(classify(block), carry, |x| x86::prefix_xor(x))
}

/// [`structure`] of the classes shifted down by `skip` lanes (`Kernel::structure_shifted`).
#[target_feature(enable = "avx512f,avx512bw,pclmulqdq")]
pub(crate) fn structure_shifted(block: &[u8; WIDTH], skip: u32, carry: &mut Carry) -> Block {
    structure::index_shifted(classify(block), skip, carry, |x| x86::prefix_xor(x))
}
