//! Numbers: strict RFC 8259 §6 grammar (`-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`), integers as
//! `u64`/`i64` when they fit, everything else as `f64`, rounded exactly as std's parser does: plain integers
//! skip the grammar pass, and floats of at most 15 digits with a power of ten within ±22 take Clinger's exact
//! fast path before std's parser. A value that rounds to ±infinity is an error, as in serde_json ("number out of
//! range"), unless the reader's [`FloatOverflow`] says otherwise. For an `f32` target a float is rounded once,
//! straight to `f32` ([`parse_f32`]).

use crate::error::ErrorKind;

/// How the reader treats a number that rounds to ±infinity as `f64` (RFC 8259 §6 lets an implementation limit
/// the range; serde_json rejects such numbers). Whatever the choice, the number's grammar is checked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FloatOverflow {
    /// The document fails: [`ErrorKind::InvalidNumber`](crate::ErrorKind::InvalidNumber), "number out of
    /// range", at the number's first byte.
    #[default]
    Error,
    /// The number is handed to the target as `f64::INFINITY` or `f64::NEG_INFINITY` (`f32` ones for an `f32`
    /// target), and accepted as is when skipped or captured raw ([`RawJson`](crate::RawJson) keeps its text):
    /// the target decides. bidscan-openrtb records it as an `out_of_range` finding on its member, so one
    /// overflowing number never fails a bid response.
    Infinity,
}

/// A decoded number, typed as serde_json types it: non-negative integers `U64`, negative ones `I64`, the rest
/// (fractions, exponents, `-0`, integers beyond 64 bits) `F64`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Number {
    U64(u64),
    I64(i64),
    F64(f64),
}

/// A failure inside a number: what, where (index into the buffer), and a message.
pub(crate) type NumError = (ErrorKind, usize, &'static str);

/// What a grammar pass learned about a number.
struct Shape {
    /// Index after the number.
    end: usize,
    negative: bool,
    /// The integer value, when the number has no fraction/exponent and fits in a u64.
    integer: Option<u64>,
    /// Upper bound of log10 of the magnitude (integer digits + exponent), saturating.
    magnitude: i64,
    /// The digits read as one decimal integer (integer part then fraction, without the point), exact when
    /// `digits <= 19`; with `digits` counted from the first non-zero integer digit (or the point).
    mantissa: u64,
    digits: i64,
    /// Power of ten to apply to `mantissa`: the exponent minus the number of fraction digits.
    scale: i64,
}

/// Powers of ten exactly representable as `f64` (10^0 ..= 10^22).
const EXACT_POWERS: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

impl Shape {
    /// The number as serde_json types an integer: non-negative `U64`, negative `I64`; `None` for a float, `-0`
    /// (-0.0) and integers beyond 64 bits.
    #[inline]
    fn typed_integer(&self) -> Option<Number> {
        match self.integer? {
            n if !self.negative => Some(Number::U64(n)),
            n if n != 0 && n <= 1 << 63 => Some(Number::I64((n as i64).wrapping_neg())),
            _ => None,
        }
    }

    /// The value without a text parse when it is exactly `mantissa × 10^scale` rounded once: a mantissa of at
    /// most 15 digits (below 2^53, so exact as `f64`) and `|scale| <= 22` (an exact power), one correctly
    /// rounded multiplication or division (Clinger, "How to Read Floating Point Numbers Accurately", 1990;
    /// also the first step of std's parser). `None`: take the exact parser.
    #[inline]
    fn fast_f64(&self) -> Option<f64> {
        if self.digits > 15 {
            return None;
        }
        let m = self.mantissa as f64;
        let value = match self.scale {
            0..=22 => m * EXACT_POWERS[self.scale as usize],
            -22..=-1 => m / EXACT_POWERS[(-self.scale) as usize],
            _ => return None,
        };
        Some(if self.negative { -value } else { value })
    }
}

/// Parses the number starting at `buf[at]` (a `-` or a digit). Returns it and the index after it.
#[inline]
pub(crate) fn parse(buf: &[u8], at: usize) -> Result<(Number, usize), NumError> {
    if let Some(plain) = plain_integer(buf, at) {
        return Ok(plain);
    }
    if let Some(decimal) = short_decimal(buf, at) {
        return Ok(decimal);
    }
    let shape = grammar(buf, at)?;
    let number = match shape.typed_integer() {
        Some(integer) => integer,
        None => match shape.fast_f64() {
            Some(value) => Number::F64(value),
            None => Number::F64(exact(buf, at, shape.end, f64::is_finite)?),
        },
    };
    Ok((number, shape.end))
}

/// The common case first (`w`, `h`, `mtype`, codes): 1 to 19 digits, not starting with 0, followed by neither a
/// digit, `.`, `e` nor `E` — a `u64` that cannot overflow. `None` for anything else, which takes [`grammar`].
#[inline]
fn plain_integer(buf: &[u8], at: usize) -> Option<(Number, usize)> {
    let first = buf.get(at).filter(|b| matches!(b, b'1'..=b'9'))?;
    let mut value = u64::from(first - b'0');
    let mut i = at + 1;
    while let Some(d) = digit(buf, i) {
        if i - at == 19 {
            return None;
        }
        value = value * 10 + u64::from(d);
        i += 1;
    }
    match buf.get(i) {
        Some(b'.' | b'e' | b'E') => None,
        _ => Some((Number::U64(value), i)),
    }
}

/// The next common case (`price`, ratios): `-?(0|[1-9][0-9]*)\.[0-9]+` of at most 15 digits in all, followed by
/// neither a digit nor `e`/`E` — exactly `mantissa / 10^fraction digits` with both operands exact in `f64`, so
/// one correctly rounded division (Clinger's fast path, as [`Shape::fast_f64`] takes it after the grammar pass,
/// with the same result bit for bit). `None` for anything else, which takes [`grammar`].
#[inline]
fn short_decimal(buf: &[u8], at: usize) -> Option<(Number, usize)> {
    let negative = buf.get(at) == Some(&b'-');
    let start = at + usize::from(negative);
    let first = digit(buf, start)?;
    let mut mantissa = u64::from(first);
    let mut i = start + 1;
    if first != 0 {
        while let Some(d) = digit(buf, i) {
            if i - start == 15 {
                return None;
            }
            mantissa = mantissa * 10 + u64::from(d);
            i += 1;
        }
    }
    if buf.get(i) != Some(&b'.') {
        return None;
    }
    // Digits counted towards the 15: the integer part's unless it is the single `0`.
    let integer_digits = if first == 0 { 0 } else { i - start };
    i += 1;
    let fraction_start = i;
    while let Some(d) = digit(buf, i) {
        if integer_digits + (i - fraction_start) == 15 {
            return None;
        }
        mantissa = mantissa * 10 + u64::from(d);
        i += 1;
    }
    let fraction = i - fraction_start;
    if fraction == 0 || matches!(buf.get(i), Some(b'e' | b'E')) {
        return None;
    }
    let value = mantissa as f64 / EXACT_POWERS[fraction];
    Some((Number::F64(if negative { -value } else { value }), i))
}

/// The number at `buf[at]` for an `f32` target, when it is not an integer by the grammar: rounded once, straight to
/// `f32` by std's parser (through `f64` it could round twice, e.g. `1.0000000596046448`), with the index after it;
/// "number out of range" when it rounds to ±infinity. `Ok(None)` for integers, which `parse` types as usual.
pub(crate) fn parse_f32(buf: &[u8], at: usize) -> Result<Option<(f32, usize)>, NumError> {
    if plain_integer(buf, at).is_some() {
        return Ok(None);
    }
    let shape = grammar(buf, at)?;
    if shape.typed_integer().is_some() {
        return Ok(None);
    }
    Ok(Some((
        exact(buf, at, shape.end, f32::is_finite)?,
        shape.end,
    )))
}

/// Checks the number starting at `buf[at]` without converting it (unless its magnitude might overflow `f64`).
/// Returns the index after it.
///
/// A number without an exponent and with at most 308 integer digits (nearly every number a skipped `ext` or
/// request member holds) is settled by [`skip_plain`], a digit scan without the grammar pass's arithmetic;
/// anything else, errors included, goes through [`grammar`], so the result and every error are the same.
#[inline]
pub(crate) fn skip(buf: &[u8], at: usize) -> Result<usize, NumError> {
    match skip_plain(buf, at) {
        Some(end) => Ok(end),
        None => skip_checked(buf, at),
    }
}

/// The end of the number at `buf[at]` when it is `-`? (`0` | `[1-9][0-9]*`) (`.` `[0-9]+`)? (RFC 8259 §6
/// without the exponent), with at most 308 integer digits (below 10^308 < `f64::MAX`, so in range), and not
/// followed by an exponent; `None` for anything else, valid or not.
#[inline(always)]
fn skip_plain(buf: &[u8], at: usize) -> Option<usize> {
    let is_digit = |i: usize| buf.get(i).is_some_and(u8::is_ascii_digit);
    let mut i = at + usize::from(buf.get(at) == Some(&b'-'));
    match buf.get(i)? {
        b'0' => {
            i += 1;
            if is_digit(i) {
                return None;
            }
        }
        b'1'..=b'9' => {
            let first = i;
            i += 1;
            while is_digit(i) {
                i += 1;
            }
            if i - first > 308 {
                return None;
            }
        }
        _ => return None,
    }
    if buf.get(i) == Some(&b'.') {
        i += 1;
        let first = i;
        while is_digit(i) {
            i += 1;
        }
        if i == first {
            return None;
        }
    }
    (!matches!(buf.get(i), Some(b'e' | b'E'))).then_some(i)
}

/// [`skip`] by the grammar pass, with the range check for a magnitude past 308.
#[inline(never)]
fn skip_checked(buf: &[u8], at: usize) -> Result<usize, NumError> {
    let shape = grammar(buf, at)?;
    // |value| < 10^magnitude, and 10^308 < f64::MAX: only larger magnitudes can round to infinity.
    if shape.integer.is_none() && shape.magnitude > 308 {
        exact(buf, at, shape.end, f64::is_finite)?;
    }
    Ok(shape.end)
}

/// The text of the number at `buf[at]` when it is an integer (no fraction, no exponent) by the grammar; for
/// 128-bit targets, which serde_json also reads exactly. Returns the text and the index after it.
pub(crate) fn integer_text(buf: &[u8], at: usize) -> Option<(&str, usize)> {
    let shape = grammar(buf, at).ok()?;
    let text = std::str::from_utf8(&buf[at..shape.end]).ok()?;
    (!text.contains(['.', 'e', 'E'])).then_some((text, shape.end))
}

/// std's exactly rounding parse of the number `buf[at..end]` (checked by the grammar) as `f64` or `f32`; "number
/// out of range" when it rounds to ±infinity.
fn exact<F: std::str::FromStr + Copy>(
    buf: &[u8],
    at: usize,
    end: usize,
    is_finite: fn(F) -> bool,
) -> Result<F, NumError> {
    let text = std::str::from_utf8(&buf[at..end])
        .map_err(|_| (ErrorKind::InvalidNumber, at, "invalid number"))?;
    match text.parse::<F>() {
        Ok(value) if is_finite(value) => Ok(value),
        _ => Err((ErrorKind::InvalidNumber, at, OUT_OF_RANGE)),
    }
}

/// The message of a number that rounds to ±infinity (serde_json's wording).
pub(crate) const OUT_OF_RANGE: &str = "number out of range";

/// For [`FloatOverflow::Infinity`](crate::FloatOverflow::Infinity): when `error` is the range error of the number
/// at `buf[at]` (and of nothing else: every grammar error stays an error), whether it is negative and the index
/// after it. Called on the error path only.
pub(crate) fn overflowed(buf: &[u8], at: usize, error: &NumError) -> Option<(bool, usize)> {
    if error.0 != ErrorKind::InvalidNumber || error.2 != OUT_OF_RANGE {
        return None;
    }
    let shape = grammar(buf, at).ok()?;
    Some((buf.get(at) == Some(&b'-'), shape.end))
}

#[inline]
fn digit(buf: &[u8], i: usize) -> Option<u8> {
    match buf.get(i) {
        Some(&b @ b'0'..=b'9') => Some(b - b'0'),
        _ => None,
    }
}

/// The grammar pass.
#[inline]
fn grammar(buf: &[u8], at: usize) -> Result<Shape, NumError> {
    let mut i = at;
    let negative = buf.get(i) == Some(&b'-');
    i += usize::from(negative);
    let mut integer = Some(0u64);
    let mut digits = 0i64;
    let mut mantissa = 0u64;
    match digit(buf, i) {
        Some(0) => {
            i += 1;
            if digit(buf, i).is_some() {
                return Err((ErrorKind::InvalidNumber, i, "invalid number: leading zero"));
            }
        }
        Some(_) => {
            while let Some(d) = digit(buf, i) {
                integer = integer
                    .and_then(|n| n.checked_mul(10))
                    .and_then(|n| n.checked_add(u64::from(d)));
                mantissa = mantissa.wrapping_mul(10).wrapping_add(u64::from(d));
                digits += 1;
                i += 1;
            }
        }
        None => return Err(expect_digit(buf, i)),
    }
    let mut fraction = 0i64;
    if buf.get(i) == Some(&b'.') {
        i += 1;
        integer = None;
        if digit(buf, i).is_none() {
            return Err(expect_digit(buf, i));
        }
        let first = i;
        while let Some(d) = digit(buf, i) {
            mantissa = mantissa.wrapping_mul(10).wrapping_add(u64::from(d));
            i += 1;
        }
        fraction = (i - first) as i64;
    }
    let mut exponent = 0i64;
    if let Some(b'e' | b'E') = buf.get(i) {
        i += 1;
        integer = None;
        let exp_negative = buf.get(i) == Some(&b'-');
        if let Some(b'+' | b'-') = buf.get(i) {
            i += 1;
        }
        if digit(buf, i).is_none() {
            return Err(expect_digit(buf, i));
        }
        while let Some(d) = digit(buf, i) {
            exponent = (exponent * 10 + i64::from(d)).min(1 << 40);
            i += 1;
        }
        if exp_negative {
            exponent = -exponent;
        }
    }
    Ok(Shape {
        end: i,
        negative,
        integer,
        magnitude: digits.max(1) + exponent,
        mantissa,
        digits: digits + fraction,
        scale: exponent - fraction,
    })
}

fn expect_digit(buf: &[u8], i: usize) -> NumError {
    if i < buf.len() {
        (ErrorKind::InvalidNumber, i, "invalid number")
    } else {
        (ErrorKind::Eof, i, "EOF while parsing a number")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The digit-scan skip gives the grammar pass's answer (end or error, with its place) on every string of up
    /// to six bytes over the bytes that matter to a number, after every prefix and before every suffix, and on
    /// integer parts around the 308-digit range bound.
    #[test]
    fn the_plain_skip_agrees_with_the_grammar() {
        const BYTES: &[u8] = b"019-.eE+x";
        let mut texts: Vec<Vec<u8>> = vec![Vec::new()];
        let mut layer = vec![Vec::new()];
        for _ in 0..6 {
            layer = layer
                .iter()
                .flat_map(|t: &Vec<u8>| {
                    BYTES.iter().map(move |&b| {
                        let mut t = t.clone();
                        t.push(b);
                        t
                    })
                })
                .collect();
            texts.extend(layer.iter().cloned());
        }
        for digits in [307, 308, 309, 400] {
            let long = "7".repeat(digits);
            for text in [
                long.clone(),
                format!("-{long}"),
                format!("{long}.5"),
                format!("{long}e-400"),
            ] {
                texts.push(text.into_bytes());
            }
        }
        for text in &texts {
            for (prefix, suffix) in [(&b""[..], &b""[..]), (b"[", b","), (b"  ", b"}")] {
                let buf = [prefix, text.as_slice(), suffix].concat();
                let at = prefix.len();
                let checked = skip_checked(&buf, at);
                assert_eq!(
                    skip(&buf, at),
                    checked,
                    "{:?}",
                    String::from_utf8_lossy(&buf)
                );
                if let Some(end) = skip_plain(&buf, at) {
                    assert_eq!(checked, Ok(end), "{:?}", String::from_utf8_lossy(&buf));
                }
            }
        }
    }

    fn num(text: &str) -> Result<Number, ErrorKind> {
        let parsed = parse(text.as_bytes(), 0).map_err(|e| e.0);
        let skipped = skip(text.as_bytes(), 0).map_err(|e| e.0);
        assert_eq!(parsed.map(|p| p.1), skipped, "{text}");
        let (n, end) = parsed?;
        assert_eq!(end, text.len(), "{text}");
        Ok(n)
    }

    #[test]
    fn types_like_serde_json() {
        assert_eq!(num("0"), Ok(Number::U64(0)));
        assert_eq!(num("18446744073709551615"), Ok(Number::U64(u64::MAX)));
        // Around the plain-integer path's 19-digit limit, and what stops it.
        assert_eq!(
            num("9999999999999999999"),
            Ok(Number::U64(9_999_999_999_999_999_999))
        );
        assert_eq!(
            num("10000000000000000000"),
            Ok(Number::U64(10_000_000_000_000_000_000))
        );
        assert_eq!(num("300"), Ok(Number::U64(300)));
        assert_eq!(num("300.0"), Ok(Number::F64(300.0)));
        assert_eq!(num("3e2"), Ok(Number::F64(300.0)));
        assert_eq!(parse(b"250,", 0), Ok((Number::U64(250), 3)));
        assert_eq!(
            num("18446744073709551616"),
            Ok(Number::F64(18446744073709551616.0))
        );
        assert_eq!(num("-9223372036854775808"), Ok(Number::I64(i64::MIN)));
        assert_eq!(
            num("-9223372036854775809"),
            Ok(Number::F64(-9223372036854775809.0))
        );
        assert_eq!(num("-1"), Ok(Number::I64(-1)));
        let Ok(Number::F64(z)) = num("-0") else {
            panic!("-0")
        };
        assert!(z == 0.0 && z.is_sign_negative());
        assert_eq!(num("1.5e3"), Ok(Number::F64(1500.0)));
        assert_eq!(num("1E-2"), Ok(Number::F64(0.01)));
        assert_eq!(num("123e-10000000"), Ok(Number::F64(0.0)));
    }

    /// The fast path (and the exact parser behind it) against std's parser, bit for bit, on prices, short and
    /// long mantissas, leading zeros in the fraction and exponents around the fast path's limits.
    #[test]
    fn floats_round_like_std() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        for _ in 0..300_000 {
            let int_digits = next(19) as usize;
            let frac_digits = next(19) as usize;
            let mut text = String::new();
            if next(4) == 0 {
                text.push('-');
            }
            if int_digits == 0 {
                text.push('0');
            } else {
                text.push(char::from(b'1' + next(9) as u8));
                (1..int_digits).for_each(|_| text.push(char::from(b'0' + next(10) as u8)));
            }
            if frac_digits > 0 || int_digits == 0 {
                text.push('.');
                let zeros = next(6) as usize;
                (0..zeros).for_each(|_| text.push('0'));
                (0..frac_digits.max(1)).for_each(|_| text.push(char::from(b'0' + next(10) as u8)));
            }
            if next(3) == 0 {
                text.push_str(&format!("e{}", next(61) as i64 - 30));
            }
            let want: f64 = text.parse().unwrap();
            match num(&text) {
                Ok(Number::F64(got)) => assert_eq!(got.to_bits(), want.to_bits(), "{text}"),
                // No fraction, no exponent: an integer, typed as one.
                Ok(Number::U64(_) | Number::I64(_)) if !text.contains(['.', 'e']) => {}
                other => panic!("{text}: {other:?}"),
            }
        }
        for text in [
            "9.4267",
            "0.1",
            "0.3",
            "1.5",
            "123456789012345.6",
            "1234567890123456.7",
            "9007199254740993.0",
            "1e22",
            "1e23",
            "4.35e-22",
            "1.7976931348623157e308",
            "5e-324",
            "-0.0",
            "0.0e5",
        ] {
            let want: f64 = text.parse().unwrap();
            let Ok(Number::F64(got)) = num(text) else {
                panic!("{text}")
            };
            assert_eq!(got.to_bits(), want.to_bits(), "{text}");
        }
    }

    #[test]
    fn rejects_outside_the_grammar_and_overflow() {
        for bad in ["01", "-", "-a", "1.", "1.e3", "1e", "1e+", ".5"] {
            assert!(
                num(bad).is_err() || parse(bad.as_bytes(), 0).unwrap().1 != bad.len(),
                "{bad}"
            );
        }
        assert_eq!(num("1e309"), Err(ErrorKind::InvalidNumber));
        assert_eq!(num("-1.5e+9999"), Err(ErrorKind::InvalidNumber));
        assert_eq!(num("1"), Ok(Number::U64(1)));
        assert_eq!(num("1e308"), Ok(Number::F64(1e308)));
        assert_eq!(num("1"), Ok(Number::U64(1)));
        assert_eq!(num("1."), Err(ErrorKind::Eof));
        assert_eq!(num("1.x").unwrap_err(), ErrorKind::InvalidNumber);
    }

    /// Every decimal the short path takes, and those around its limits it must leave to the grammar: the
    /// same bits as std's parser, the same end, and errors where the grammar has them.
    #[test]
    fn short_decimals_round_like_std() {
        let mut texts: Vec<String> = [
            "0.5",
            "-0.0",
            "0.1",
            "1.5",
            "2.25",
            "0.000000000000001",
            "999999999999999.0",
            "0.30000000000000004",
            "123456789012345.6",
            "12345678901234.56",
            "1.000000000000000",
            "-7.125",
            "3.14159265358979",
        ]
        .iter()
        .map(|t| t.to_string())
        .collect();
        for int in ["0", "1", "7", "10", "99", "1234567", "99999999999999"] {
            for frac in [
                "0",
                "1",
                "05",
                "5",
                "25",
                "999",
                "0000001",
                "33333333333333",
                "1234567890123456789",
            ] {
                texts.push(format!("{int}.{frac}"));
                texts.push(format!("-{int}.{frac}"));
            }
        }
        for text in &texts {
            let Ok(Number::F64(value)) = num(text) else {
                panic!("{text}")
            };
            let want: f64 = text.parse().unwrap();
            assert_eq!(value.to_bits(), want.to_bits(), "{text}");
            let taken = short_decimal(text.as_bytes(), 0);
            let digits = text.bytes().filter(u8::is_ascii_digit).count();
            if digits <= 15 {
                assert_eq!(taken.map(|t| t.1), Some(text.len()), "{text}");
            }
        }
        for text in ["01.5", "1.", "-.5", "1.e5", "-"] {
            assert!(num(text).is_err(), "{text}");
            assert_eq!(short_decimal(text.as_bytes(), 0), None, "{text}");
        }
        // A decimal followed by an exponent, or ending at a second point, is the grammar's.
        assert_eq!(short_decimal(b"1.5e3", 0), None);
        assert_eq!(num("1.5e3"), Ok(Number::F64(1500.0)));
        assert_eq!(parse(b"1.5.3", 0), Ok((Number::F64(1.5), 3)));
    }
}
