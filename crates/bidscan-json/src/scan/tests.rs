//! Every scanner kernel available here against a byte-at-a-time reference, with and without the block cache.

use super::*;

fn reference(buf: &[u8], from: usize) -> usize {
    buf[from.min(buf.len())..]
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        .map_or(buf.len(), |i| from + i)
}

/// Deterministic pseudo-random bytes (xorshift), biased towards stop bytes and UTF-8 lead/continuation bytes.
fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match x % 16 {
                0 => b'"',
                1 => b'\\',
                2 => (x >> 8) as u8 % 0x20,
                3 => 0x80 | (x >> 8) as u8,
                4 => 0x1f,
                5 => 0x20,
                _ => b'a' + (x >> 8) as u8 % 26,
            }
        })
        .collect()
}

/// The stop `find` reports, checking the block it returns is consistent.
fn first_stop(scanner: &Scanner, buf: &[u8], from: usize) -> usize {
    let (block, mask, width, shift) = scanner.find(buf, from);
    assert!(block >= from);
    if mask == 0 {
        assert!(block + width >= buf.len());
        return buf.len();
    }
    block + (mask.trailing_zeros() >> shift) as usize
}

#[test]
fn every_body_finds_the_reference_stop_from_every_offset() {
    for imp in ScanImpl::available() {
        for (len, seed) in [
            (0, 1),
            (1, 2),
            (7, 3),
            (31, 4),
            (32, 5),
            (33, 6),
            (100, 7),
            (257, 8),
        ] {
            let buf = noise(len, seed);
            let scanner = Scanner::new(imp);
            for from in 0..=len {
                assert_eq!(
                    first_stop(&scanner, &buf, from),
                    reference(&buf, from),
                    "{imp:?} len {len} from {from}"
                );
            }
        }
    }
}

#[test]
fn every_body_handles_sparse_stops_and_every_stop_byte_value() {
    for imp in ScanImpl::available() {
        for stop in (0u8..0x20).chain([b'"', b'\\']) {
            for pos in 0..70 {
                let mut buf = vec![b'x'; 70];
                buf[3] = 0xc3; // bytes >= 0x80 are never stops
                buf[pos] = stop;
                let mut scanner = Scanner::new(imp);
                assert_eq!(
                    scanner.next_stop(&buf, 0, 0),
                    pos,
                    "{imp:?} {stop:#x} {pos}"
                );
            }
        }
        for b in 0x20..=0xffu8 {
            if b != b'"' && b != b'\\' {
                let buf = vec![b; 45];
                assert_eq!(
                    first_stop(&Scanner::new(imp), &buf, 0),
                    45,
                    "{imp:?} {b:#x}"
                );
            }
        }
    }
}

#[test]
fn cached_masks_give_the_same_stops_as_fresh_scans() {
    for imp in ScanImpl::available() {
        for seed in 1..40 {
            let buf = noise(300, seed);
            // Walk stop to stop, as the string decoder does, with views of the buffer starting at various origins.
            let mut scanner = Scanner::new(imp);
            let mut from = 0;
            let mut cut = 0;
            while from < buf.len() {
                if seed % 3 == 0 && from > cut + 5 {
                    cut = from - 2; // hand out a prefix: origin moves, absolute offsets stay
                }
                let got = cut + scanner.next_stop(&buf[cut..], cut, from - cut);
                assert_eq!(
                    got,
                    reference(&buf, from),
                    "{imp:?} seed {seed} from {from}"
                );
                from = got + 1 + (seed as usize % 3);
            }
        }
    }
}

#[test]
fn swar_word_mask_is_exact_per_byte() {
    for b in 0..=255u8 {
        for lane in 0..8 {
            let mut bytes = [b'x'; 8];
            bytes[lane] = b;
            let mask = swar::word_mask(u64::from_le_bytes(bytes));
            let want = if b == b'"' || b == b'\\' || b < 0x20 {
                0x80u64 << (8 * lane)
            } else {
                0
            };
            assert_eq!(mask, want, "byte {b:#x} lane {lane}");
        }
    }
    // A zero byte below a quote must not hide or invent flags in other lanes (no borrow carries).
    let mask = swar::word_mask(u64::from_le_bytes([
        0, b'"', b'a', 0x1f, 0x20, b'\\', 0xff, 0x7f,
    ]));
    assert_eq!(mask, 0x0000_8000_8000_8080);
}

#[test]
fn detected_is_available() {
    assert!(ScanImpl::detected().is_available());
    assert!(ScanImpl::available().contains(&ScanImpl::Swar));
}

/// The escaped bytes by pairing backslashes left to right, one at a time (the reference).
#[cfg(target_arch = "x86_64")]
fn escaped_one_by_one(backslash: u64) -> u64 {
    let (mut rest, mut escaped) = (backslash, 0u64);
    while rest != 0 {
        let first = rest & rest.wrapping_neg();
        escaped |= first << 1;
        rest &= !(first | first << 1);
    }
    escaped
}

#[test]
#[cfg(target_arch = "x86_64")]
fn escaped_bytes_pairs_backslashes_like_the_reference() {
    // Every pattern of the low 16 bits, shifted to every position, and pseudo-random dense masks.
    for low in 0..=u16::MAX as u64 {
        for shift in [0, 1, 24, 48] {
            let mask = low << shift;
            assert_eq!(
                avx512::escaped_bytes(mask),
                escaped_one_by_one(mask),
                "{mask:#066b}"
            );
        }
    }
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..200_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        for mask in [
            x,
            x | x.rotate_left(1),
            x & x.rotate_left(3),
            !x,
            u64::MAX,
            u64::MAX << 1,
        ] {
            assert_eq!(
                avx512::escaped_bytes(mask),
                escaped_one_by_one(mask),
                "{mask:#066b}"
            );
        }
    }
}

#[test]
fn whitespace16_matches_the_byte_reference_on_every_byte_value() {
    for b in 0..=255u8 {
        for k in 0..16 {
            let mut chunk = [b'a'; 16];
            chunk[k] = b;
            chunk[(k + 5) % 16] = b'\n';
            assert_eq!(
                super::whitespace16(&chunk),
                super::whitespace16_portable(&chunk),
                "byte {b:#04x} at {k}"
            );
        }
    }
    let (ws, nl) = super::whitespace16(b"\n  \t\r\"a\" :  \n  }");
    let bits = |ks: &[u32]| ks.iter().fold(0u32, |m, &k| m | (1 << k));
    assert_eq!(ws, bits(&[0, 1, 2, 3, 4, 8, 10, 11, 12, 13, 14]));
    assert_eq!(nl, bits(&[0, 12]));
}

#[test]
fn whitespace32_is_both_halves_of_the_byte_reference() {
    let text = noise(32 * 40, 99);
    for (k, window) in text.windows(32).enumerate() {
        let mut chunk = [0u8; 32];
        chunk.copy_from_slice(window);
        // Whitespace bytes in the noise: turn some letters into spaces, tabs, CR and LF.
        for (i, b) in chunk.iter_mut().enumerate() {
            if (i + k) % 3 == 0 {
                *b = [b' ', b'\t', b'\r', b'\n'][(i + k) % 4];
            }
        }
        let (lo, hi) = chunk.split_at(16);
        let (lo_ws, lo_nl) = super::whitespace16_portable(lo.try_into().unwrap());
        let (hi_ws, hi_nl) = super::whitespace16_portable(hi.try_into().unwrap());
        assert_eq!(
            super::whitespace32(&chunk),
            (
                u64::from(lo_ws) | u64::from(hi_ws) << 16,
                u64::from(lo_nl) | u64::from(hi_nl) << 16
            ),
            "window {k}"
        );
    }
}

#[test]
fn spaces32_flags_exactly_the_spaces_on_every_byte_value() {
    for b in 0..=255u8 {
        for k in 0..32 {
            let mut chunk = [b' '; 32];
            chunk[k] = b;
            chunk[(k + 7) % 32] = b'\n';
            let (lo, hi) = chunk.split_at(16);
            let want = super::spaces16_portable(lo.try_into().unwrap())
                | super::spaces16_portable(hi.try_into().unwrap()) << 16;
            assert_eq!(super::spaces32(&chunk), want, "byte {b:#04x} at {k}");
            let mut by_byte = 0u32;
            for (i, &c) in chunk.iter().enumerate() {
                by_byte |= u32::from(c == b' ') << i;
            }
            assert_eq!(want, by_byte, "byte {b:#04x} at {k}");
        }
    }
}

#[test]
fn spaces64_flags_exactly_the_spaces_on_every_byte_value() {
    for b in 0..=255u8 {
        for k in 0..64 {
            let mut chunk = [b' '; 64];
            chunk[k] = b;
            chunk[(k + 29) % 64] = b'\n';
            let mut by_byte = 0u64;
            for (i, &c) in chunk.iter().enumerate() {
                by_byte |= u64::from(c == b' ') << i;
            }
            assert_eq!(super::spaces64(&chunk), by_byte, "byte {b:#04x} at {k}");
        }
    }
}
