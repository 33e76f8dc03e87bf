//! Strings: decode in place (each string written over its own escaped form), or skip (find the end, check the
//! escapes), both driven by the stop-byte scanner: after an escape the block scan resumes — there is no
//! per-character loop — and each plain run after the first escape moves in one go ([`move_run`]).
//!
//! All functions take `buf` starting at the opening quote and `origin`, the absolute offset of `buf[0]`; errors
//! are `(kind, index into buf)`.

use crate::error::ErrorKind;
use crate::escape::{HEX, SIMPLE};
use crate::scan::{Kernel, KernelFn, Scanner};
use crate::stats::Stats;

/// A failure inside a string: what, and the index into `buf` where.
pub(crate) type StrError = (ErrorKind, usize);

/// Decodes the string starting at `buf[0] == b'"'` in place. Returns `(len, end)`: the decoded string is
/// `buf[1..1 + len]` and the closing quote is at `end - 1`.
///
/// Callers try [`short_plain`] first, inlined where they are. This part (a plain string within 32 bytes,
/// [`plain32`]) is inlined into the caller's out-of-line long-string reader, so a 16–31-byte id or a string at
/// the document's end costs no further call; the kernels' loops stay out of line in [`decode_escaped`], so the
/// short strings do not pay its register saves.
#[inline(always)]
pub(crate) fn decode_in_place(
    buf: &mut [u8],
    origin: usize,
    scan: &mut Scanner,
    stats: &mut Stats,
) -> Result<(usize, usize), StrError> {
    if let Some(len) = plain32(buf, stats) {
        return Ok((len, len + 2));
    }
    decode_escaped(buf, origin, scan, stats)
}

/// [`decode_in_place`] past [`plain32`]: escapes, strings of 32 bytes and more, errors, by the chosen kernel.
#[inline(never)]
fn decode_escaped(
    buf: &mut [u8],
    origin: usize,
    scan: &mut Scanner,
    stats: &mut Stats,
) -> Result<(usize, usize), StrError> {
    let kernel = scan.kernel();
    kernel.run(Decode {
        buf,
        origin,
        scan,
        stats,
    })
}

/// [`decode_in_place`]'s work for [`Kernels::run`](crate::scan::Kernels::run).
struct Decode<'a, 's> {
    buf: &'a mut [u8],
    origin: usize,
    scan: &'s mut Scanner,
    stats: &'s mut Stats,
}

impl KernelFn for Decode<'_, '_> {
    type Output = Result<(usize, usize), StrError>;
    #[inline(always)]
    fn call<K: Kernel>(self, kernel: K) -> Self::Output {
        let Decode {
            buf,
            origin,
            scan,
            stats,
        } = self;
        #[cfg(target_arch = "x86_64")]
        if let Some(avx512) = kernel.avx512() {
            return decode_blocks(avx512, buf, origin, scan, stats);
        }
        decode_with(kernel, buf, origin, scan, stats)
    }
}

/// The length of the string starting at `buf[0] == b'"'` when it ends within its first 16 bytes without an
/// escape (recorded in `stats`), else `None`. Keys, ids and codes mostly do: one inlined SSE2 compare instead of
/// the scanner's dispatch and block cache. (The cache stays valid without this string: it only flags bytes at or
/// after a resume point, and those are never rewritten.) Inlined into the reader's string readers, in front
/// of the out-of-line [`decode_in_place`] and [`skip`].
#[inline(always)]
pub(crate) fn short_plain(buf: &[u8], stats: &mut Stats) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        let chunk = buf.get(1..17)?.first_chunk::<16>()?;
        let len = crate::scan::stops16(chunk).trailing_zeros() as usize;
        if chunk.get(len) == Some(&b'"') {
            stats.string(len, 0);
            return Some(len);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (buf, stats);
    None
}

/// [`short_plain`] for strings that end within their first 32 bytes without an escape: two SSE2 compares, no
/// kernel dispatch or block cache. Where [`decode_in_place`] and [`skip`] start (the inlined 16-byte look has
/// already failed for most of their strings): 16–31-byte ids, hashes, URLs and the longer keys are 6% of a real
/// bid response's strings, and the kernel path cost them ~100 instructions more. A string in the document's last
/// 32 bytes goes to [`plain_tail`].
#[inline(always)]
fn plain32(buf: &[u8], stats: &mut Stats) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if let Some(chunk) = buf.get(1..33).and_then(|c| c.first_chunk::<32>()) {
        let (lo, hi) = chunk.split_at(16);
        let lo = crate::scan::stops16(lo.first_chunk::<16>()?);
        let hi = crate::scan::stops16(hi.first_chunk::<16>()?);
        let len = (lo | hi << 16).trailing_zeros() as usize;
        if chunk.get(len) == Some(&b'"') {
            stats.string(len, 0);
            return Some(len);
        }
        return None;
    }
    plain_tail(buf, stats)
}

/// [`plain32`] for a string starting in the document's last 32 bytes (fewer than 32 bytes after its quote): a
/// byte loop to the first stop byte, no kernel. Every document ends with one or two such strings (`"cur":"USD"}`),
/// and a tiny one (`{"data":null}`, the 13–45-byte error bodies) holds nothing else; the kernel's path (dispatch,
/// the overlapping end-of-input loads, the block cache) cost such a string ~100 instructions more. `None` (with
/// nothing recorded) for a longer tail, an escape, a control byte or no closing quote: the kernel's path decides
/// those.
#[inline(always)]
fn plain_tail(buf: &[u8], stats: &mut Stats) -> Option<usize> {
    let rest = buf.get(1..).filter(|r| r.len() < 32)?;
    let len = rest
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
    if rest[len] != b'"' {
        return None;
    }
    stats.string(len, 0);
    Some(len)
}

/// [`decode_in_place`] with AVX-512: up to the first stop with the AVX2 scan and its block cache (most strings
/// have no escape: keys, ids, URLs), then whole blocks of plain bytes and escapes at a time
/// (`Avx512::unescape`); `\uXXXX` escapes above 0x7f or cut by a block end, errors and the end of input go
/// through the scalar [`unescape`].
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn decode_blocks(
    kernel: crate::scan::Avx512,
    buf: &mut [u8],
    origin: usize,
    scan: &mut Scanner,
    stats: &mut Stats,
) -> Result<(usize, usize), StrError> {
    let stop = match first_stop(kernel.avx2(), buf, origin, scan, stats)? {
        First::Plain(done) => return Ok(done),
        First::Escape { stop, .. } => stop,
    };
    scan.forget();
    let (mut read, mut write, mut escapes) = (stop, stop, 0u64);
    loop {
        let (r, w, e, ended) = kernel.unescape(buf, read, write);
        (read, write) = (r, w);
        escapes += e;
        if ended {
            stats.string(read - 1, escapes);
            return Ok((write - 1, read + 1));
        }
        match buf.get(read) {
            Some(b'\\') => {
                read = unescape(buf, read, &mut write)?;
                escapes += 1;
            }
            Some(_) => return Err((ErrorKind::ControlCharacter, read)),
            None => return Err((ErrorKind::Eof, buf.len())),
        }
    }
}

/// [`decode_in_place`] for one kernel. Walks the stop flags of each loaded block itself: after an escape the
/// flags before the read position are cleared and the next set bit is the next stop, so a block is loaded once
/// however many escapes it holds, and the block scan resumes after the last one.
#[inline(always)]
fn decode_with<B: Kernel>(
    kernel: B,
    buf: &mut [u8],
    origin: usize,
    scan: &mut Scanner,
    stats: &mut Stats,
) -> Result<(usize, usize), StrError> {
    // `block` is the index of the loaded block's first byte (wrapping: a reused block may start before buf[0]);
    // bit `i << B::SHIFT` of `mask` flags `buf[block + i]`.
    let (mut block, mut mask, mut stop) = match first_stop(kernel, buf, origin, scan, stats)? {
        First::Plain(done) => return Ok(done),
        First::Escape { block, mask, stop } => (block, mask, stop),
    };
    // `write` is where the next decoded byte goes; it never passes the read position.
    let mut write = stop;
    let mut escapes = 0u64;
    loop {
        // Here buf[stop] == b'\\'.
        let read = unescape(buf, stop, &mut write)?;
        escapes += 1;
        (block, mask) = stops_from(kernel, buf, block, mask, read);
        if mask == 0 {
            return Err((ErrorKind::Eof, buf.len()));
        }
        stop = block.wrapping_add((mask.trailing_zeros() >> B::SHIFT) as usize);
        let Some(&byte) = buf.get(stop) else {
            return Err((ErrorKind::Eof, buf.len()));
        };
        if byte < 0x20 {
            return Err((ErrorKind::ControlCharacter, stop));
        }
        move_run(buf, read, stop - read, write);
        write += stop - read;
        if byte == b'"' {
            scan.keep(origin, block, mask);
            stats.string(stop - 1, escapes);
            return Ok((write - 1, stop + 1));
        }
    }
}

/// How a string starts: it ends at its first stop (`(len, end)` as [`decode_in_place`] returns them; recorded in
/// `stats`, the block kept in the scanner's cache), or its first stop is a backslash at `buf[stop]`, in the block
/// at `block` with flags `mask` (as in [`decode_with`]).
enum First {
    Plain((usize, usize)),
    Escape {
        block: usize,
        mask: u64,
        stop: usize,
    },
}

/// The first stop of the string at `buf[0] == b'"'`, shared by the decode loops; errors for a control byte or the
/// end of input before any escape.
#[inline(always)]
fn first_stop<B: Kernel>(
    kernel: B,
    buf: &[u8],
    origin: usize,
    scan: &mut Scanner,
    stats: &mut Stats,
) -> Result<First, StrError> {
    let (block, mask) = scan.resume(kernel, buf, origin, 1);
    let stop = block.wrapping_add((mask.trailing_zeros() >> B::SHIFT) as usize);
    match buf.get(stop) {
        Some(b'"') if mask != 0 => {
            scan.keep(origin, block, mask);
            stats.string(stop - 1, 0);
            Ok(First::Plain((stop - 1, stop + 1)))
        }
        Some(b'\\') if mask != 0 => Ok(First::Escape { block, mask, stop }),
        Some(_) if mask != 0 => Err((ErrorKind::ControlCharacter, stop)),
        _ => Err((ErrorKind::Eof, buf.len())),
    }
}

/// The stop flags at or after `read`: the loaded block's (`block`, `mask`, as in [`decode_with`]) with the flags
/// before `read` cleared while any are left, else the next block holding a stop (mask 0: none before the end).
#[inline(always)]
fn stops_from<B: Kernel>(
    kernel: B,
    buf: &[u8],
    block: usize,
    mask: u64,
    read: usize,
) -> (usize, u64) {
    let into = read.wrapping_sub(block);
    if into < B::WIDTH {
        let rest = mask & (u64::MAX << (into << B::SHIFT));
        if rest != 0 {
            return (block, rest);
        }
        return kernel.find(buf, block.wrapping_add(B::WIDTH));
    }
    kernel.find(buf, read)
}

/// Decodes the escape whose backslash is at `buf[at]` to `buf[*write..]` (`*write <= at`: a decoded escape is
/// never longer than its JSON form) and advances `*write`. Returns the index after the escape.
#[inline(always)]
fn unescape(buf: &mut [u8], at: usize, write: &mut usize) -> Result<usize, StrError> {
    if let Some(&c) = buf.get(at + 1) {
        let decoded = SIMPLE[usize::from(c)];
        if decoded != 0 {
            if let Some(slot) = buf.get_mut(*write) {
                *slot = decoded;
            }
            *write += 1;
            return Ok(at + 2);
        }
    }
    unescape_unicode(buf, at, write)
}

/// [`unescape`] for `\uXXXX` (and invalid escapes): one- and two-byte UTF-8 results (Go's `\u003c`, `\u0026`;
/// Latin-1 letters) are written directly; the rest go through `char`.
#[inline]
fn unescape_unicode(buf: &mut [u8], at: usize, write: &mut usize) -> Result<usize, StrError> {
    if buf.get(at + 1) == Some(&b'u') {
        let code = hex4(buf, at + 2)?;
        let w = *write;
        if code < 0x80 {
            if let Some(slot) = buf.get_mut(w) {
                *slot = code as u8;
            }
            *write = w + 1;
            return Ok(at + 6);
        }
        if code < 0x800 {
            if let Some([a, b]) = buf.get_mut(w..w + 2) {
                *a = 0xc0 | (code >> 6) as u8;
                *b = 0x80 | (code & 0x3f) as u8;
            }
            *write = w + 2;
            return Ok(at + 6);
        }
    }
    let (c, read) = read_escape(buf, at)?;
    *write += c.encode_utf8(&mut buf[*write..]).len();
    Ok(read)
}

/// Moves the plain run `buf[from..from + len]` down to `buf[to..]` (`to < from`: decoding only shrinks); the
/// byte at `from + len` is the stop that ended the run.
///
/// Once a string has shrunk by 16 bytes or more (`from - to >= 16`: after 16 `\"`, say — the common case in
/// VAST and HTML `adm`), the run moves as whole 16-byte chunks, front to back: each chunk is loaded before any
/// store can reach it, and the last chunk's overshoot lands below the stop byte (`to + len + 15 < from + len`),
/// so nothing not yet read is touched. Reading that chunk may look up to 15 bytes past the stop, so this needs
/// 16 bytes of document after it; otherwise, and before the gap is 16, [`move_run_exact`] moves exactly `len`
/// bytes.
#[inline(always)]
fn move_run(buf: &mut [u8], from: usize, len: usize, to: usize) {
    let gap = from - to;
    if len > 256 || gap < 16 || !crate::scan::move_down_in_chunks(&mut buf[to..], gap, len) {
        move_run_exact(buf, from, len, to);
    }
}

/// Moves exactly the plain run `buf[from..from + len]` down to `buf[to..]` (`to < from`).
///
/// Runs up to 32 bytes — the common case between escapes — move as two overlapping fixed-size chunks (the first
/// and last 16/8/4 bytes), both loaded before either is stored, so the copy is exact and inlined; longer runs
/// take one `copy_within` (memmove).
#[inline(always)]
fn move_run_exact(buf: &mut [u8], from: usize, len: usize, to: usize) {
    fn chunk<const N: usize>(buf: &[u8], at: usize) -> [u8; N] {
        buf.get(at..at + N)
            .and_then(|b| b.first_chunk::<N>())
            .copied()
            .unwrap_or([0; N])
    }
    fn put<const N: usize>(buf: &mut [u8], at: usize, bytes: [u8; N]) {
        if let Some(dst) = buf.get_mut(at..at + N) {
            dst.copy_from_slice(&bytes);
        }
    }
    fn pair<const N: usize>(buf: &mut [u8], from: usize, len: usize, to: usize) {
        let head = chunk::<N>(buf, from);
        let tail = chunk::<N>(buf, from + len - N);
        put(buf, to, head);
        put(buf, to + len - N, tail);
    }
    match len {
        0 => {}
        1..=3 => {
            let (a, b, c) = (buf[from], buf[from + len / 2], buf[from + len - 1]);
            buf[to] = a;
            buf[to + len / 2] = b;
            buf[to + len - 1] = c;
        }
        4..=7 => pair::<4>(buf, from, len, to),
        8..=15 => pair::<8>(buf, from, len, to),
        16..=32 => pair::<16>(buf, from, len, to),
        _ => buf.copy_within(from..from + len, to),
    }
}

/// Finds the end of the string starting at `buf[0] == b'"'` without decoding it, checking escapes (including
/// surrogate pairing, so a document's validity does not depend on which fields the target type knows) and control
/// bytes. Returns the index after the closing quote. Out of line, as [`decode_in_place`].
#[inline(never)]
pub(crate) fn skip(
    buf: &[u8],
    origin: usize,
    scan: &mut Scanner,
    stats: &mut Stats,
) -> Result<usize, StrError> {
    if let Some(len) = plain32(buf, stats) {
        return Ok(len + 2);
    }
    let kernel = scan.kernel();
    kernel.run(Skip {
        buf,
        origin,
        scan,
        stats,
    })
}

/// [`skip`]'s work for [`Kernels::run`](crate::scan::Kernels::run).
struct Skip<'a, 's> {
    buf: &'a [u8],
    origin: usize,
    scan: &'s mut Scanner,
    stats: &'s mut Stats,
}

impl KernelFn for Skip<'_, '_> {
    type Output = Result<usize, StrError>;
    #[inline(always)]
    fn call<K: Kernel>(self, kernel: K) -> Self::Output {
        skip_with(kernel, self.buf, self.origin, self.scan, self.stats)
    }
}

/// [`skip`] for one kernel, walking each block's stop flags as [`decode_with`] does.
#[inline(always)]
fn skip_with<B: Kernel>(
    kernel: B,
    buf: &[u8],
    origin: usize,
    scan: &mut Scanner,
    stats: &mut Stats,
) -> Result<usize, StrError> {
    let (mut block, mut mask) = scan.resume(kernel, buf, origin, 1);
    let mut escapes = 0u64;
    loop {
        if mask == 0 {
            return Err((ErrorKind::Eof, buf.len()));
        }
        let stop = block.wrapping_add((mask.trailing_zeros() >> B::SHIFT) as usize);
        let read = match buf.get(stop) {
            Some(b'"') => {
                scan.keep(origin, block, mask);
                stats.string(stop - 1, escapes);
                return Ok(stop + 1);
            }
            Some(b'\\') => match buf.get(stop + 1) {
                Some(&c) if SIMPLE[usize::from(c)] != 0 => stop + 2,
                _ => read_escape(buf, stop)?.1,
            },
            Some(_) => return Err((ErrorKind::ControlCharacter, stop)),
            None => return Err((ErrorKind::Eof, buf.len())),
        };
        escapes += 1;
        (block, mask) = stops_from(kernel, buf, block, mask, read);
    }
}

/// Reads the escape whose backslash is at `buf[at]`: returns the character and the index after the escape
/// (RFC 8259 §7). A high surrogate must be followed by `\u` + low surrogate; they combine into one character.
#[inline]
pub(crate) fn read_escape(buf: &[u8], at: usize) -> Result<(char, usize), StrError> {
    let c = match buf.get(at + 1) {
        Some(b'"') => '"',
        Some(b'\\') => '\\',
        Some(b'/') => '/',
        Some(b'b') => '\u{8}',
        Some(b'f') => '\u{c}',
        Some(b'n') => '\n',
        Some(b'r') => '\r',
        Some(b't') => '\t',
        Some(b'u') => return read_unicode(buf, at),
        Some(_) => return Err((ErrorKind::InvalidEscape, at + 1)),
        None => return Err((ErrorKind::Eof, buf.len())),
    };
    Ok((c, at + 2))
}

/// `\uXXXX` at `buf[at]`, possibly the first half of a surrogate pair.
#[inline]
fn read_unicode(buf: &[u8], at: usize) -> Result<(char, usize), StrError> {
    let code = hex4(buf, at + 2)?;
    let (code, end) = match code {
        0xd800..=0xdbff => {
            if buf.get(at + 6..at + 8) != Some(b"\\u") {
                return Err((ErrorKind::LoneSurrogate, at));
            }
            let low = hex4(buf, at + 8)?;
            if !(0xdc00..=0xdfff).contains(&low) {
                return Err((ErrorKind::LoneSurrogate, at));
            }
            (0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00), at + 12)
        }
        code => (code, at + 6),
    };
    // Only lone low surrogates (0xdc00..=0xdfff) are left that are not chars.
    match char::from_u32(code) {
        Some(c) => Ok((c, end)),
        None => Err((ErrorKind::LoneSurrogate, at)),
    }
}

/// Four hex digits at `buf[at..at + 4]`, by table.
#[inline]
fn hex4(buf: &[u8], at: usize) -> Result<u32, StrError> {
    let Some(&[a, b, c, d]) = buf.get(at..).and_then(|s| s.first_chunk::<4>()) else {
        return Err(hex_error(buf, at));
    };
    let (a, b, c, d) = (
        HEX[usize::from(a)],
        HEX[usize::from(b)],
        HEX[usize::from(c)],
        HEX[usize::from(d)],
    );
    if (a | b | c | d) & 0xf0 != 0 {
        return Err(hex_error(buf, at));
    }
    Ok(u32::from(a) << 12 | u32::from(b) << 8 | u32::from(c) << 4 | u32::from(d))
}

/// Where four hex digits at `buf[at..]` go wrong.
#[cold]
fn hex_error(buf: &[u8], at: usize) -> StrError {
    for i in at..at + 4 {
        match buf.get(i) {
            None => return (ErrorKind::Eof, buf.len()),
            Some(&b) if HEX[usize::from(b)] > 0xf => return (ErrorKind::InvalidEscape, i),
            Some(_) => {}
        }
    }
    (ErrorKind::InvalidEscape, at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::ScanImpl;

    fn decode(input: &str) -> Result<String, StrError> {
        let mut buf = input.as_bytes().to_vec();
        let mut scan = Scanner::new(ScanImpl::Swar);
        let mut stats = Stats::default();
        let (len, end) = decode_in_place(&mut buf, 0, &mut scan, &mut stats)?;
        let mut scan = Scanner::new(ScanImpl::Swar);
        assert_eq!(skip(input.as_bytes(), 0, &mut scan, &mut stats), Ok(end));
        Ok(String::from_utf8(buf[1..1 + len].to_vec()).unwrap())
    }

    #[test]
    fn move_run_is_a_memmove_that_never_touches_unread_bytes() {
        // Bytes between the new end (`to + len`) and the stop (`from + len`) are dead and may be overwritten;
        // everything from the stop on is unread and must not change. Gaps below and above 16, lengths across
        // every chunk class, and runs ending right at the end of the buffer (no 16 bytes after the stop).
        for len in 0..300 {
            for gap in 1..40 {
                for tail in [0, 1, 15, 16, 40] {
                    let (from, to) = (50 + gap, 50);
                    let original: Vec<u8> =
                        (0..from + len + tail).map(|i| (i % 251) as u8).collect();
                    let mut want = original.clone();
                    want.copy_within(from..from + len, to);
                    for exact in [false, true] {
                        let mut got = original.clone();
                        if exact {
                            move_run_exact(&mut got, from, len, to);
                        } else {
                            move_run(&mut got, from, len, to);
                        }
                        let case = format!("len {len} gap {gap} tail {tail} exact {exact}");
                        assert_eq!(got[..to + len], want[..to + len], "{case}");
                        assert_eq!(
                            got[from + len..],
                            original[from + len..],
                            "{case}: unread bytes touched"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn decodes_every_escape() {
        assert_eq!(
            decode(r#""a\"\\\/\b\f\n\r\tz""#).unwrap(),
            "a\"\\/\u{8}\u{c}\n\r\tz"
        );
        assert_eq!(decode(r#""\u00e9\u20AC\uD83D\uDE00x""#).unwrap(), "é€😀x");
        assert_eq!(decode(r#""\u0000""#).unwrap(), "\0");
        assert_eq!(decode(r#""plain" tail"#).unwrap(), "plain");
    }

    #[test]
    fn rejects_bad_escapes_with_position() {
        assert_eq!(decode(r#""ab\x""#), Err((ErrorKind::InvalidEscape, 4)));
        assert_eq!(decode(r#""\u12G4""#), Err((ErrorKind::InvalidEscape, 5)));
        assert_eq!(decode(r#""\uD800""#), Err((ErrorKind::LoneSurrogate, 1)));
        assert_eq!(
            decode(r#""\uD800\u0041""#),
            Err((ErrorKind::LoneSurrogate, 1))
        );
        assert_eq!(decode(r#""\uDC00""#), Err((ErrorKind::LoneSurrogate, 1)));
        assert_eq!(decode("\"a\u{1}\""), Err((ErrorKind::ControlCharacter, 2)));
        assert_eq!(decode(r#""abc"#), Err((ErrorKind::Eof, 4)));
        assert_eq!(decode(r#""abc\"#), Err((ErrorKind::Eof, 5)));
        assert_eq!(decode(r#""\u12"#), Err((ErrorKind::Eof, 5)));
    }

    /// Strings starting in the buffer's last 32 bytes (`plain_tail`) and just before them (`plain32`, the kernel):
    /// plain, ending in an escape, a control byte, unterminated, followed by 0–40 bytes. The result and `stats`
    /// are those of the kernel path, which sees every string that `plain_tail` leaves.
    #[test]
    fn strings_at_the_end_of_the_buffer_match_the_kernel_path() {
        for len in 0..40 {
            let body = "k".repeat(len);
            for ending in ["\"", "\\n\"", "\u{1}\"", "", "\\", "\\u00e9\""] {
                for after in ["", "}", ":null}", &" ".repeat(40)] {
                    let input = format!("\"{body}{ending}{after}");
                    let mut stats = Stats::default();
                    let got = plain_tail(input.as_bytes(), &mut stats);
                    let tail_short = input.len() - 1 < 32;
                    let mut buf = input.clone().into_bytes();
                    let mut kernel_stats = Stats::default();
                    let mut scan = Scanner::new(ScanImpl::Swar);
                    let kernel = scan.kernel();
                    let want = kernel.run(Decode {
                        buf: &mut buf,
                        origin: 0,
                        scan: &mut scan,
                        stats: &mut kernel_stats,
                    });
                    match got {
                        Some(n) => {
                            assert!(tail_short, "{input:?}");
                            assert_eq!(want, Ok((n, n + 2)), "{input:?}");
                            assert_eq!(stats, kernel_stats, "{input:?}");
                        }
                        None => assert!(
                            !(tail_short && ending == "\""),
                            "{input:?}: plain_tail left a plain string in the last 32 bytes"
                        ),
                    }
                    assert_eq!(
                        decode(&input),
                        want.map(|(n, _)| { String::from_utf8(buf[1..1 + n].to_vec()).unwrap() }),
                        "{input:?}"
                    );
                }
            }
        }
    }
}
