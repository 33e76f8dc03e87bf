//! Skipping a container over the structural index (`scan::structure`): the walk visits only the bytes the
//! index flags — structural bytes, quotes, the first byte of each scalar, escapes — so whitespace and the
//! inside of strings cost nothing per byte, and checks on them the grammar [`walk.rs`](super::walk) checks:
//! containers balanced and of the right kind, string keys, `:` after each key, `,` between members and
//! elements and none trailing, each scalar a number by `number::skip` (grammar and range) or `true`, `false`,
//! `null`, ending where a token may follow it; strings without control bytes, each escape checked where its
//! backslash is (`\"\\/bfnrt`, `\u` with four hex digits and surrogates paired); the depth limit.
//!
//! It only ever *accepts*: on anything it does not vouch for (an error, the end of input inside the
//! container, more than 64 levels open, the depth limit within reach) it gives up having changed nothing,
//! and the token walk runs from the container's start and reports the exact error and place. Accepted, it
//! leaves the decoder as the token walk would: read position, line count, `Stats`.

use super::Deserializer;
use crate::escape::SIMPLE;
use crate::number;
use crate::scan::structure::{Carry, Tokens};
use crate::scan::{Kernel, KernelFn};
use crate::string;

/// Open containers the walk keeps in its bit stack; deeper ones are left to the token walk.
const LEVELS: usize = 64;

impl Deserializer<'_> {
    /// Skips the object or array whose opening byte is at the read position over the structural index; false,
    /// with nothing changed, when the walk gives up (see the module docs).
    #[inline(always)]
    pub(super) fn skip_indexed(&mut self) -> bool {
        let room = self.max_depth.saturating_sub(self.depth).min(LEVELS);
        let Some(done) = self.scan.kernel().run(Walk {
            buf: &self.input[self.idx..],
            room,
        }) else {
            return false;
        };
        let s = &mut self.stats;
        s.strings += done.strings.strings;
        s.escaped_strings += done.strings.escaped;
        s.escapes += done.strings.escapes;
        s.longest_string = s.longest_string.max(done.strings.longest);
        if done.lines != 0 {
            self.line += done.lines;
            self.line_start = self.origin + self.idx + done.line_start;
        }
        self.idx += done.end;
        true
    }
}

/// A container skipped: the index just past its closing bracket, the newlines in it and the index just after
/// the last of them (both relative to its opening bracket), its strings.
struct Done {
    end: usize,
    lines: usize,
    line_start: usize,
    strings: Strings,
}

/// What the walk adds to `Stats` (kept in registers during the walk, added once at its end).
#[derive(Default)]
struct Strings {
    strings: u64,
    escaped: u64,
    escapes: u64,
    longest: usize,
}

impl Strings {
    /// As `Stats::string`.
    #[inline(always)]
    fn string(&mut self, len: usize, escapes: u64) {
        self.strings += 1;
        self.escapes += escapes;
        self.escaped += u64::from(escapes != 0);
        self.longest = self.longest.max(len);
    }
}

/// The walk's work for `Kernels::run`.
struct Walk<'a> {
    /// The document from the container's opening bracket on.
    buf: &'a [u8],
    /// Containers that may be open at once (the depth limit, at most [`LEVELS`]).
    room: usize,
}

impl KernelFn for Walk<'_> {
    type Output = Option<Done>;
    #[inline(always)]
    fn call<K: Kernel>(self, kernel: K) -> Option<Done> {
        walk(kernel, self.buf, self.room)
    }
}

/// The walk: the container at `buf[0]`, its end, or `None` to give up. Strings are counted in `stats`.
#[inline(never)]
fn walk<K: Kernel>(kernel: K, buf: &[u8], room: usize) -> Option<Done> {
    let mut carry = Carry::default();
    let mut tokens = Tokens::new(kernel, buf, &mut carry);
    let mut strings = Strings::default();
    let stats = &mut strings;
    // Bit k of `objects`: the container k levels out from the innermost open one is an object.
    let mut objects = 0u64;
    let mut open = 0usize;
    // The first byte of the next value.
    let mut at = tokens.next()?;
    loop {
        match *buf.get(at)? {
            b'"' => string(&mut tokens, buf, at, stats)?,
            opening @ (b'{' | b'[') => {
                if open == room {
                    return None;
                }
                let object = opening == b'{';
                let first = tokens.next()?;
                let byte = *buf.get(first)?;
                if byte == opening + 2 {
                    // Empty (`}` is `{` + 2, `]` is `[` + 2).
                    if open == 0 {
                        return done(&tokens, first, strings);
                    }
                } else {
                    objects = objects << 1 | u64::from(object);
                    open += 1;
                    at = if object {
                        key(&mut tokens, buf, first, stats)?
                    } else {
                        first
                    };
                    continue;
                }
            }
            b'-' | b'0'..=b'9' => {
                let end = number::skip(buf, at).ok()?;
                scalar_ends(buf, end)?;
            }
            b't' => literal(buf, at, b"true")?,
            b'f' => literal(buf, at, b"false")?,
            b'n' => literal(buf, at, b"null")?,
            _ => return None,
        }
        // A value has ended (`open >= 1`): a `,` and the next value, or the end of the innermost container
        // (and maybe of more around it).
        loop {
            let object = objects & 1 != 0;
            let next = tokens.next()?;
            match *buf.get(next)? {
                b',' => {
                    let after = tokens.next()?;
                    at = if object {
                        key(&mut tokens, buf, after, stats)?
                    } else {
                        after
                    };
                    break;
                }
                b'}' if object => {}
                b']' if !object => {}
                _ => return None,
            }
            objects >>= 1;
            open -= 1;
            if open == 0 {
                return done(&tokens, next, strings);
            }
        }
    }
}

/// The walk's end: the outermost container closes at `close`.
#[inline(always)]
fn done<K: Kernel>(tokens: &Tokens<'_, '_, K>, close: usize, strings: Strings) -> Option<Done> {
    let end = close + 1;
    let (lines, line_start) = tokens.finish(end)?;
    Some(Done {
        end,
        lines,
        line_start,
        strings,
    })
}

/// A member's key at `at` and its colon; returns the first byte of the member's value.
#[inline(always)]
fn key<K: Kernel>(
    tokens: &mut Tokens<'_, '_, K>,
    buf: &[u8],
    at: usize,
    stats: &mut Strings,
) -> Option<usize> {
    if buf.get(at) != Some(&b'"') {
        return None;
    }
    string(tokens, buf, at, stats)?;
    let colon = tokens.next()?;
    if buf.get(colon) != Some(&b':') {
        return None;
    }
    tokens.next()
}

/// The string whose opening quote is at `open`: the index's next tokens are its escapes' backslashes and its
/// closing quote. Each escape is checked as `string::skip` checks it and counted the same way (a surrogate
/// pair is one escape). Control bytes inside strings are the index's to report (`Tokens::finish`).
#[inline(always)]
fn string<K: Kernel>(
    tokens: &mut Tokens<'_, '_, K>,
    buf: &[u8],
    open: usize,
    stats: &mut Strings,
) -> Option<()> {
    let mut escapes = 0u64;
    loop {
        let at = tokens.next()?;
        match *buf.get(at)? {
            b'"' => {
                stats.string(at - open - 1, escapes);
                return Some(());
            }
            b'\\' => {
                escapes += 1;
                // A surrogate pair's second backslash is an escape the index flags too: taken here.
                if SIMPLE[usize::from(*buf.get(at + 1)?)] == 0
                    && escape(buf, at)?
                    && tokens.next()? != at + 6
                {
                    return None;
                }
            }
            _ => return None,
        }
    }
}

/// A `\u` escape (or an invalid one) at `at`: whether it is a surrogate pair (12 bytes), `None` when invalid.
#[inline(never)]
fn escape(buf: &[u8], at: usize) -> Option<bool> {
    let (_, end) = string::read_escape(buf, at).ok()?;
    Some(end == at + 12)
}

/// `literal` at `at`, ending where a token may follow it.
#[inline(always)]
fn literal(buf: &[u8], at: usize, literal: &[u8]) -> Option<()> {
    if buf.get(at..at + literal.len())? != literal {
        return None;
    }
    scalar_ends(buf, at + literal.len())
}

/// Whether the byte at `end`, just after a scalar, may follow one in a container: whitespace, `,`, `]` or `}`.
/// Anything else (a letter, a second `.`, a control byte) would make the index's scalar run longer than the
/// scalar, and the token walk reports it.
#[inline(always)]
fn scalar_ends(buf: &[u8], end: usize) -> Option<()> {
    matches!(
        buf.get(end)?,
        b',' | b']' | b'}' | b' ' | b'\n' | b'\r' | b'\t'
    )
    .then_some(())
}

#[cfg(test)]
mod tests;
