//! The structural index of every kernel available here against a byte-at-a-time reference: the classes of
//! every byte value in every lane, the blocks' masks with their carries (backslash runs of every length across
//! block ends, strings across blocks), the shifted last block, and the token walk over whole buffers.

use super::structure::{self, BLOCK, Block, Carry, Classes, Tokens};
use super::*;

/// The classes of one byte, one rule per class (RFC 8259 §2 whitespace, the six structural bytes).
fn class_of(b: u8) -> Classes {
    Classes {
        quote: u64::from(b == b'"'),
        backslash: u64::from(b == b'\\'),
        ws: u64::from(matches!(b, b' ' | b'\t' | b'\n' | b'\r')),
        newline: u64::from(b == b'\n'),
        op: u64::from(matches!(b, b'{' | b'}' | b'[' | b']' | b':' | b',')),
        ctrl: u64::from(b < 0x20),
    }
}

fn reference_classes(block: &[u8; BLOCK]) -> Classes {
    let mut c = Classes::default();
    for (i, &b) in block.iter().enumerate() {
        let one = class_of(b);
        c.quote |= one.quote << i;
        c.backslash |= one.backslash << i;
        c.ws |= one.ws << i;
        c.newline |= one.newline << i;
        c.op |= one.op << i;
        c.ctrl |= one.ctrl << i;
    }
    c
}

/// What the index says of each byte of `buf`, byte by byte: `(token, newline, bad)`. A byte is escaped when an
/// odd run of backslashes precedes it (anywhere: the index does not know where strings start before it knows
/// the escapes); an unescaped quote toggles "inside", which holds from an opening quote up to, not including,
/// its closing one; a scalar starts at a byte that is no whitespace, structural byte, quote or string byte
/// after one that is.
fn reference(buf: &[u8]) -> Vec<(bool, bool, bool)> {
    let (mut escaped, mut inside, mut scalar_before) = (false, false, false);
    buf.iter()
        .map(|&b| {
            let c = class_of(b);
            let this_escaped = escaped;
            escaped = b == b'\\' && !this_escaped;
            let quote = b == b'"' && !this_escaped;
            inside ^= quote;
            let scalar = c.op == 0 && c.ws == 0 && !inside && !quote;
            let start = scalar && !scalar_before;
            scalar_before = scalar;
            let escape = b == b'\\' && !this_escaped && inside;
            let token = (c.op != 0 && !inside) || quote || start || escape;
            (token, b == b'\n', c.ctrl != 0 && inside)
        })
        .collect()
}

/// `reference` as blocks' masks, from byte `from` of `buf` (the last block padded with whitespace).
fn reference_blocks(buf: &[u8]) -> Vec<Block> {
    let bytes = reference(buf);
    bytes
        .chunks(BLOCK)
        .map(|chunk| {
            let mut b = Block::default();
            for (i, &(token, newline, bad)) in chunk.iter().enumerate() {
                b.tokens |= u64::from(token) << i;
                b.newlines |= u64::from(newline) << i;
                b.bad |= u64::from(bad) << i;
            }
            b
        })
        .collect()
}

/// Runs `f` with the kernel of `imp`.
fn with_kernel<T>(imp: ScanImpl, f: impl KernelFn<Output = T>) -> T {
    Scanner::new(imp).kernel().run(f)
}

struct ClassifyAll<'a>(&'a [u8; BLOCK]);
impl KernelFn for ClassifyAll<'_> {
    type Output = Classes;
    fn call<K: Kernel>(self, kernel: K) -> Classes {
        kernel.classify(self.0)
    }
}

/// Every full block of `buf` through `Kernel::structure` with the carries; a last partial block as
/// `Tokens` reads it (the load ending at the end, shifted), or padded when `buf` is shorter than a block.
struct Blocks<'a>(&'a [u8]);
impl KernelFn for Blocks<'_> {
    type Output = Vec<Block>;
    fn call<K: Kernel>(self, kernel: K) -> Vec<Block> {
        let buf = self.0;
        let mut carry = Carry::default();
        let mut out = Vec::new();
        let mut at = 0;
        while at < buf.len() {
            let block = match buf[at..].first_chunk::<BLOCK>() {
                Some(block) => kernel.structure(block, &mut carry),
                None => match buf.last_chunk::<BLOCK>() {
                    Some(last) => kernel.structure_shifted(
                        last,
                        (BLOCK - (buf.len() - at)) as u32,
                        &mut carry,
                    ),
                    None => {
                        let mut block = [b' '; BLOCK];
                        block[..buf.len()].copy_from_slice(buf);
                        kernel.structure(&block, &mut carry)
                    }
                },
            };
            out.push(block);
            at += BLOCK;
        }
        out
    }
}

/// The token positions `Tokens` hands out over `buf`, and `finish(buf.len())`.
struct Walk<'a>(&'a [u8]);
impl KernelFn for Walk<'_> {
    type Output = (Vec<usize>, Option<(usize, usize)>);
    fn call<K: Kernel>(self, kernel: K) -> Self::Output {
        let mut carry = Carry::default();
        let mut tokens = Tokens::new(kernel, self.0, &mut carry);
        let mut out = Vec::new();
        while let Some(i) = tokens.next() {
            out.push(i);
        }
        (out, tokens.finish(self.0.len()))
    }
}

/// Deterministic pseudo-random bytes (xorshift) biased towards what the index classifies.
fn noise(len: usize, seed: u64) -> Vec<u8> {
    const PICKS: &[u8] = b"\"\"\\\\\\{}[]:, \n\t\r0-atx\x01\x1f\x0c\x1a\xc3\xa9";
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            PICKS[(x % PICKS.len() as u64) as usize]
        })
        .collect()
}

#[test]
fn every_body_classifies_every_byte_value_in_every_lane() {
    for imp in ScanImpl::available() {
        for background in [b'x', b' ', b'"', 0x80] {
            for lane in 0..BLOCK {
                for value in 0..=255u8 {
                    let mut block = [background; BLOCK];
                    block[lane] = value;
                    assert_eq!(
                        with_kernel(imp, ClassifyAll(&block)),
                        reference_classes(&block),
                        "{imp:?}: byte {value:#04x} in lane {lane} of {background:#04x}"
                    );
                }
            }
        }
    }
}

#[test]
fn every_body_classifies_noise_like_the_reference() {
    for imp in ScanImpl::available() {
        for seed in 1..200 {
            let buf = noise(BLOCK, seed);
            let block = buf.first_chunk::<BLOCK>().unwrap();
            assert_eq!(
                with_kernel(imp, ClassifyAll(block)),
                reference_classes(block),
                "{imp:?} seed {seed}"
            );
        }
    }
}

#[test]
fn prefix_xor_by_shifts_is_the_running_parity() {
    for seed in 1..1000u64 {
        let x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (seed << 40);
        let mut parity = 0;
        let mut want = 0u64;
        for i in 0..64 {
            parity ^= (x >> i) & 1;
            want |= parity << i;
        }
        assert_eq!(structure::prefix_xor_shifts(x), want, "{x:#x}");
    }
}

#[test]
fn every_body_indexes_noise_across_blocks_like_the_reference() {
    for imp in ScanImpl::available() {
        for (len, seed) in (0..300)
            .map(|n| (n, n as u64 + 1))
            .chain((1..40).map(|s| (700, s)))
        {
            let buf = noise(len, seed);
            assert_eq!(
                with_kernel(imp, Blocks(&buf)),
                reference_blocks(&buf),
                "{imp:?} len {len} seed {seed}: {:?}",
                String::from_utf8_lossy(&buf)
            );
        }
    }
}

#[test]
fn backslash_runs_of_every_length_escape_across_block_ends() {
    // A run of `n` backslashes starting at `start` (across the first block's end for most), then a quote, in a
    // string or not: odd runs escape the quote, even runs do not; the byte after the run is what it escapes.
    for imp in ScanImpl::available() {
        for n in 0..12 {
            for start in 52..70 {
                for opened in [false, true] {
                    for after in [b'"', b'n', b'\\', b'{'] {
                        let mut buf = vec![b'a'; 140];
                        if opened {
                            buf[10] = b'"';
                        }
                        for b in &mut buf[start..start + n] {
                            *b = b'\\';
                        }
                        buf[start + n] = after;
                        buf[start + n + 1] = b'"';
                        buf[130] = b'}';
                        assert_eq!(
                            with_kernel(imp, Blocks(&buf)),
                            reference_blocks(&buf),
                            "{imp:?} run {n} at {start}, string {opened}, then {after:?}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn strings_across_block_ends_hide_their_structural_bytes() {
    for imp in ScanImpl::available() {
        for open in 0..130 {
            for len in [0, 1, 63, 64, 65, 127, 200] {
                let mut buf: Vec<u8> = b"{[:, \n1]}".iter().copied().cycle().take(400).collect();
                let close = (open + len + 1).min(399);
                buf[open] = b'"';
                buf[close] = b'"';
                for (i, b) in buf.iter_mut().enumerate().take(close).skip(open + 1) {
                    if *b == b'"' || *b == b'\\' || i % 7 == 0 {
                        *b = b'\x01';
                    }
                }
                assert_eq!(
                    with_kernel(imp, Blocks(&buf)),
                    reference_blocks(&buf),
                    "{imp:?} string at {open}..={close}"
                );
            }
        }
    }
}

#[test]
fn tokens_walk_every_flagged_byte_and_count_the_newlines() {
    for imp in ScanImpl::available() {
        for (len, seed) in (1..260).map(|n| (n, 3 * n as u64 + 7)) {
            let mut buf = noise(len, seed);
            // A container's bracket first: byte 0 lies outside strings and escapes.
            buf[0] = b'[';
            let bytes = reference(&buf);
            let want: Vec<usize> = (0..len).filter(|&i| bytes[i].0).collect();
            let lines = buf.iter().filter(|&&b| b == b'\n').count();
            let line_start = buf.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let clean = !bytes.iter().any(|b| b.2);
            let (got, finish) = with_kernel(imp, Walk(&buf));
            assert_eq!(got, want, "{imp:?} len {len} seed {seed}");
            assert_eq!(
                finish,
                clean.then_some((lines, line_start)),
                "{imp:?} len {len} seed {seed}"
            );
        }
    }
}
