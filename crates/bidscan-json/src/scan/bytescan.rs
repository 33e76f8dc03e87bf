//! Byte-class kernels for the markup inspectors (`bidscan-markup`'s VAST and HTML fast paths), here because the
//! scanner is the only module of the workspace allowed `unsafe` (vector loads). Two operations:
//!
//! - [`name_stops`]: the 16 to 64 bytes at an offset as a bit mask of where an XML name stops (which is also
//!   where an attribute value ends or needs a closer look), so a start tag that fits in them (most VAST tags:
//!   `<Tracking event="start">`) is read with shifts and `tzcnt` instead of a search per name and value;
//! - [`find_byte`]: the first occurrence of one byte, 32 bytes per step with AVX2 (runtime-detected), else 16
//!   with SSE2 (baseline on x86_64), else a byte loop: the end of a CDATA section or comment.
//!
//! - [`find_pairs`]: the first place where either of two byte pairs starts (for HTML: `<s`/`<S` of a
//!   `<script` and `:/` of a `://`), 32 places per step with AVX2, else a byte loop.
//!
//! All are exact: `tests` hold every kernel to a byte-at-a-time reference for every byte value in every lane.

/// True for a byte that ends a name on the markup fast path: ASCII other than letters, digits, `-`, `.`,
/// `[\]^_` and `` `{|}~ `` / DEL — so whitespace, `/`, `>`, `<`, quotes, `=`, `&` and `:` among them; bytes 0x80
/// and above (UTF-8) are name bytes. (XML 1.0 §2.3 `NameChar` is wider; a caller treats a name that stops early
/// as one it cannot read fast.) Every byte that ends or needs a closer look in an attribute value (`"`, `'`,
/// `<`, `&`) is one too, so the same mask serves the values.
#[inline(always)]
pub fn is_name_stop(c: u8) -> bool {
    c < 0x80 && (c < 0x2D || c == 0x2F || (0x3A..=0x40).contains(&c))
}

/// The [`is_name_stop`] mask of the `N` bytes `window`, `N` 16, 32, 48 or 64: bit `i` set where `window[i]`
/// is a name stop, the bits past `N` clear.
#[inline(always)]
pub fn name_stops<const N: usize>(window: &[u8; N]) -> u64 {
    const { assert!(N.is_multiple_of(16) && N <= 64) };
    let mut mask = 0;
    for (k, chunk) in window.chunks_exact(16).enumerate() {
        if let Ok(chunk) = chunk.try_into() {
            mask |= u64::from(name16(chunk)) << (16 * k);
        }
    }
    mask
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn name16(chunk: &[u8; 16]) -> u16 {
    // SAFETY: SSE2 is part of the x86_64 baseline: every x86_64 CPU has it.
    unsafe { sse2::name16(chunk) }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn name16(chunk: &[u8; 16]) -> u16 {
    reference_stops(chunk) as u16
}

/// The byte-at-a-time definition of [`name_stops`] (the portable body, and the tests' reference).
#[cfg(any(test, not(target_arch = "x86_64")))]
fn reference_stops(window: &[u8]) -> u64 {
    let mut mask = 0;
    for (i, &c) in window.iter().enumerate() {
        mask |= u64::from(is_name_stop(c)) << i;
    }
    mask
}

/// The mask of the places where `a` and `b` hold the same byte: bit `i` set when `a[i] == b[i]` (an end tag's
/// name against its start tag's, 16 bytes in one compare).
#[inline(always)]
pub fn equal16(a: &[u8; 16], b: &[u8; 16]) -> u16 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of the x86_64 baseline: every x86_64 CPU has it.
        unsafe { sse2::equal16(a, b) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut mask = 0;
        for i in 0..16 {
            mask |= u16::from(a[i] == b[i]) << i;
        }
        mask
    }
}

/// The offset of the first `byte` at or after `from` in `b`; `None` when there is none (or `from` is past the
/// end).
#[inline(always)]
pub fn find_byte(b: &[u8], from: usize, byte: u8) -> Option<usize> {
    let hay = b.get(from..)?;
    #[cfg(target_arch = "x86_64")]
    {
        if hay.len() >= 32 && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 was detected on this CPU just above.
            return unsafe { avx2::find(hay, byte) }.map(|i| from + i);
        }
        // SAFETY: SSE2 is part of the x86_64 baseline: every x86_64 CPU has it.
        unsafe { sse2::find(hay, byte) }.map(|i| from + i)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        hay.iter().position(|&c| c == byte).map(|i| from + i)
    }
}

/// Two bytes in a row: [`Pair::first`], then one of [`Pair::second`] (the same byte twice for one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pair {
    /// The first byte.
    pub first: u8,
    /// Either of these is the second byte.
    pub second: [u8; 2],
}

impl Pair {
    fn at(self, b: &[u8], i: usize) -> bool {
        b.get(i) == Some(&self.first) && b.get(i + 1).is_some_and(|c| self.second.contains(c))
    }
}

/// The offset of the first place at or after `from` in `b` where either of `pairs` starts (`<s`/`<S` of a
/// `<script` and `:/` of a `://` for the HTML inspector's one pass); `None` when there is none.
#[inline]
pub fn find_pairs(b: &[u8], from: usize, pairs: [Pair; 2]) -> Option<usize> {
    let mut at = from;
    #[cfg(target_arch = "x86_64")]
    {
        if b.len().saturating_sub(at) >= 33 && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 was detected on this CPU just above.
            match unsafe { avx2::find_pairs(b, at, pairs) } {
                Ok(found) => return Some(found),
                Err(resume) => at = resume,
            }
        }
    }
    (at..b.len()).find(|&i| pairs[0].at(b, i) || pairs[1].at(b, i))
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::*;

    /// The [`is_name_stop`](super::is_name_stop) flags of 16 bytes (bit `i` for `block[i]`).
    #[inline]
    #[target_feature(enable = "sse2")]
    pub(super) fn name16(block: &[u8; 16]) -> u16 {
        // SAFETY: `block` is 16 readable bytes; `loadu` has no alignment requirement.
        let v = unsafe { _mm_loadu_si128(block.as_ptr().cast::<__m128i>()) };
        // Unsigned `v <= 0x2C` (`min(v, 0x2C) == v`), which leaves out the bytes >= 0x80.
        let below_2d = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x2C)), v);
        let slash = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x2F));
        // 0x3A..=0x40 moved to 0x80..=0x86 (the most negative bytes) by adding 0x46, then one signed compare.
        let punct = _mm_cmplt_epi8(
            _mm_add_epi8(v, _mm_set1_epi8(0x46)),
            _mm_set1_epi8(0x87u8 as i8),
        );
        _mm_movemask_epi8(_mm_or_si128(below_2d, _mm_or_si128(slash, punct))) as u16
    }

    /// Flags of the places where `a` and `b` hold the same byte.
    #[inline]
    #[target_feature(enable = "sse2")]
    pub(super) fn equal16(a: &[u8; 16], b: &[u8; 16]) -> u16 {
        // SAFETY: `a` and `b` are 16 readable bytes each; `loadu` has no alignment requirement.
        let (x, y) = unsafe {
            (
                _mm_loadu_si128(a.as_ptr().cast::<__m128i>()),
                _mm_loadu_si128(b.as_ptr().cast::<__m128i>()),
            )
        };
        _mm_movemask_epi8(_mm_cmpeq_epi8(x, y)) as u16
    }

    /// The first `byte` in `hay`, 16 bytes per step, the last step overlapping the one before.
    #[inline]
    #[target_feature(enable = "sse2")]
    pub(super) fn find(hay: &[u8], byte: u8) -> Option<usize> {
        if hay.len() < 16 {
            return hay.iter().position(|&c| c == byte);
        }
        let needle = _mm_set1_epi8(byte as i8);
        let mut i = 0;
        loop {
            let at = i.min(hay.len() - 16);
            let block: &[u8; 16] = hay[at..at + 16].try_into().ok()?;
            // SAFETY: `block` is 16 readable bytes; `loadu` has no alignment requirement.
            let v = unsafe { _mm_loadu_si128(block.as_ptr().cast::<__m128i>()) };
            let mask = _mm_movemask_epi8(_mm_cmpeq_epi8(v, needle)) as u32;
            if mask != 0 {
                return Some(at + mask.trailing_zeros() as usize);
            }
            if at + 16 == hay.len() {
                return None;
            }
            i = at + 16;
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    /// [`find_pairs`](super::find_pairs) over the places `from..` that have 32 bytes after them: `Ok` with the
    /// first pair found there, else `Err` with the first place not looked at (fewer than 33 bytes from it).
    #[target_feature(enable = "avx2")]
    pub(super) fn find_pairs(
        b: &[u8],
        from: usize,
        pairs: [super::Pair; 2],
    ) -> Result<usize, usize> {
        let [p, q] = pairs;
        let (p0, p1, p2) = (splat(p.first), splat(p.second[0]), splat(p.second[1]));
        let (q0, q1, q2) = (splat(q.first), splat(q.second[0]), splat(q.second[1]));
        // The pairs starting in the 32 bytes at `at` (which has 33 readable bytes).
        let pairs_at = |at: usize| -> u32 {
            debug_assert!(at + 33 <= b.len());
            // SAFETY: the callers keep `at + 33 <= b.len()`, so both 32-byte loads are in `b`; `loadu` has no
            // alignment requirement. AVX2 is enabled in this function, which the closure inherits.
            let (v, w) = unsafe {
                let here = b.as_ptr().add(at);
                (
                    _mm256_loadu_si256(here.cast::<__m256i>()),
                    _mm256_loadu_si256(here.add(1).cast::<__m256i>()),
                )
            };
            let p_at = _mm256_and_si256(
                _mm256_cmpeq_epi8(v, p0),
                _mm256_or_si256(_mm256_cmpeq_epi8(w, p1), _mm256_cmpeq_epi8(w, p2)),
            );
            let q_at = _mm256_and_si256(
                _mm256_cmpeq_epi8(v, q0),
                _mm256_or_si256(_mm256_cmpeq_epi8(w, q1), _mm256_cmpeq_epi8(w, q2)),
            );
            _mm256_movemask_epi8(_mm256_or_si256(p_at, q_at)) as u32
        };
        let mut at = from;
        while at + 65 <= b.len() {
            let (lo, hi) = (pairs_at(at), pairs_at(at + 32));
            if lo | hi != 0 {
                let both = u64::from(lo) | u64::from(hi) << 32;
                return Ok(at + both.trailing_zeros() as usize);
            }
            at += 64;
        }
        while at + 33 <= b.len() {
            let mask = pairs_at(at);
            if mask != 0 {
                return Ok(at + mask.trailing_zeros() as usize);
            }
            at += 32;
        }
        Err(at)
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn splat(c: u8) -> __m256i {
        _mm256_set1_epi8(c as i8)
    }

    /// The first `byte` in `hay` (at least 32 bytes): 128 bytes per step (four compares, one test), then 32,
    /// the last step overlapping the one before.
    #[target_feature(enable = "avx2")]
    pub(super) fn find(hay: &[u8], byte: u8) -> Option<usize> {
        let needle = splat(byte);
        // The flags of the needle in the 32 bytes at `at`.
        let eq_at = |at: usize| -> __m256i {
            debug_assert!(at + 32 <= hay.len());
            // SAFETY: the callers keep `at + 32 <= hay.len()`, so the load is in `hay`; `loadu` has no alignment
            // requirement. AVX2 is enabled in this function, which the closure inherits.
            let v = unsafe { _mm256_loadu_si256(hay.as_ptr().add(at).cast::<__m256i>()) };
            _mm256_cmpeq_epi8(v, needle)
        };
        let flags = |eq: __m256i| _mm256_movemask_epi8(eq) as u32;
        let mut at = 0;
        // 128 bytes per step: four compares folded into one test (a CDATA section's URL is 100–300 bytes).
        while at + 128 <= hay.len() {
            let [a, b, c, d] = [eq_at(at), eq_at(at + 32), eq_at(at + 64), eq_at(at + 96)];
            let any = _mm256_or_si256(_mm256_or_si256(a, b), _mm256_or_si256(c, d));
            if flags(any) != 0 {
                let low = u64::from(flags(a)) | u64::from(flags(b)) << 32;
                if low != 0 {
                    return Some(at + low.trailing_zeros() as usize);
                }
                let high = u64::from(flags(c)) | u64::from(flags(d)) << 32;
                return Some(at + 64 + high.trailing_zeros() as usize);
            }
            at += 128;
        }
        let last = hay.len().checked_sub(32)?;
        loop {
            let from = at.min(last);
            let mask = flags(eq_at(from));
            if mask != 0 {
                return Some(from + mask.trailing_zeros() as usize);
            }
            if from == last {
                return None;
            }
            at = from + 32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_stops_agree_with_the_byte_rule_for_every_byte_in_every_lane() {
        for lane in 0..64 {
            for c in 0..=255u8 {
                let mut window = [b'a'; 64];
                window[lane] = c;
                let expected = u64::from(is_name_stop(c)) << lane;
                assert_eq!(reference_stops(&window), expected, "{c:#04x} in {lane}");
                assert_eq!(name_stops(&window), expected, "{c:#04x} in {lane}");
                let narrow = |n: usize| expected & ((1u64 << n) - 1);
                let w16: &[u8; 16] = window[..16].try_into().expect("16 bytes");
                let w32: &[u8; 32] = window[..32].try_into().expect("32 bytes");
                let w48: &[u8; 48] = window[..48].try_into().expect("48 bytes");
                assert_eq!(name_stops(w16), narrow(16), "{c:#04x} in {lane}");
                assert_eq!(name_stops(w32), narrow(32), "{c:#04x} in {lane}");
                assert_eq!(name_stops(w48), narrow(48), "{c:#04x} in {lane}");
            }
        }
        for c in b" \t\r\n/><\"'=&:".iter() {
            assert!(is_name_stop(*c), "{c:#04x}");
        }
        for c in b"azAZ09-._\x80\xff".iter() {
            assert!(!is_name_stop(*c), "{c:#04x}");
        }
        assert_eq!(name_stops(b"<a b='c'/>......"), 0b11_1011_0101);
    }

    #[test]
    fn equal16_flags_every_equal_place() {
        for lane in 0..16 {
            for c in 0..=255u8 {
                let a = [b'a'; 16];
                let mut b = a;
                b[lane] = c;
                let expected = if c == b'a' { u16::MAX } else { !(1u16 << lane) };
                assert_eq!(equal16(&a, &b), expected, "{c:#04x} in {lane}");
                assert_eq!(equal16(&b, &a), expected, "{c:#04x} in {lane}");
            }
        }
        assert_eq!(equal16(&[0; 16], &[0x80; 16]), 0);
    }

    #[test]
    fn find_byte_finds_the_first_occurrence_at_every_place_and_length() {
        for len in 0..200usize {
            let hay = vec![b'x'; len];
            assert_eq!(find_byte(&hay, 0, b'>'), None, "len {len}");
            for at in 0..len {
                let mut hay = vec![b'x'; len];
                hay[at] = b'>';
                if at + 3 < len {
                    hay[at + 3] = b'>';
                }
                for from in 0..=len {
                    let expected = if from <= at {
                        Some(at)
                    } else if from <= at + 3 && at + 3 < len {
                        Some(at + 3)
                    } else {
                        None
                    };
                    assert_eq!(
                        find_byte(&hay, from, b'>'),
                        expected,
                        "len {len} at {at} from {from}"
                    );
                }
            }
        }
        assert_eq!(find_byte(b"abc", 4, b'a'), None);
        // Bytes that differ from the needle only in the high bit are not it.
        assert_eq!(find_byte(&[0xBE; 40], 0, 0x3E), None);
        assert_eq!(find_byte(&[0xBE; 40], 0, b'>'), None);
    }

    #[test]
    fn find_pairs_finds_the_first_of_either_pair_at_every_place_and_length() {
        let script = Pair {
            first: b'<',
            second: [b's', b'S'],
        };
        let scheme = Pair {
            first: b':',
            second: [b'/', b'/'],
        };
        let reference = |b: &[u8], from: usize| {
            (from..b.len().saturating_sub(1)).find(|&i| {
                (b[i] == b'<' && matches!(b[i + 1], b's' | b'S'))
                    || (b[i] == b':' && b[i + 1] == b'/')
            })
        };
        for len in 0..120usize {
            for at in 0..len {
                for (lead, second) in [
                    (b'<', b's'),
                    (b'<', b'S'),
                    (b'<', b'x'),
                    (b':', b'/'),
                    (b':', b':'),
                ] {
                    // Decoys just before the pair (`<` and `:` without their second byte), one at the very end.
                    let mut b = vec![b'.'; len];
                    b[at] = lead;
                    if at + 1 < len {
                        b[at + 1] = second;
                    }
                    if at >= 2 {
                        b[at - 2] = b'<';
                    }
                    if at >= 4 {
                        b[at - 4] = b':';
                    }
                    *b.last_mut().unwrap_or(&mut 0) = b'<';
                    for from in [0, at.saturating_sub(1), at, at + 1, len] {
                        assert_eq!(
                            find_pairs(&b, from, [script, scheme]),
                            reference(&b, from),
                            "len {len} at {at} {lead} {second} from {from}"
                        );
                    }
                }
            }
        }
        assert_eq!(find_pairs(b"<s", 5, [script, scheme]), None);
    }
}
