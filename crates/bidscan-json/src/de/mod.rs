//! The serde `Deserializer` over `&'de mut [u8]`: cursor state, whitespace, errors with place and path, and the
//! token readers (string, number, literal). The serde trait impl is in `impls.rs`, the `SeqAccess`/`MapAccess`
//! helpers in `access.rs`, skipping and raw capture in `skip.rs`, skipped containers in `walk.rs` (token by
//! token) and `index.rs` (over the structural index).
//!
//! Ownership: `input` is the not-yet-consumed tail of the document. Handing out a string (or raw text) splits the
//! tail at the string's end with `split_at_mut`; the prefix becomes a shared `&'de` borrow given to serde, the rest
//! stays ours. That is how in-place decoding stays in safe Rust.

mod access;
mod impls;
mod index;
mod skip;
mod walk;

use std::borrow::Cow;

use serde::de::DeserializeSeed;

use crate::error::{Error, ErrorKind, Place, Result};
use crate::number::FloatOverflow;
use crate::number::{self, Number};
use crate::path::{Seg, render};
use crate::scan::{self, Scanner, str_from_validated};
use crate::stats::Stats;
use crate::string;

/// Nesting levels whose indentation `newline_indent` predicts (deeper levels are counted every time).
const INDENT_LEVELS: usize = 16;

/// No prediction: more than any indentation `newline_indent` checks (64 bytes).
const NO_INDENT: usize = 0xff;

/// Whether `indent` spaces and then a byte that is not a space start the 64 bytes whose non-space bytes are the
/// set bits of `others`: bits `0..=indent` of `others` are exactly bit `indent`. False for `indent >= 64`.
#[inline(always)]
fn fits(others: u64, indent: usize) -> bool {
    indent < 64 && others << (63 - indent) == 1 << 63
}

/// The decoder for one document.
pub(crate) struct Deserializer<'de> {
    /// Unconsumed tail of the document (everything before it may be borrowed by decoded values).
    input: &'de mut [u8],
    /// Read position in `input`; always `<= input.len()`.
    idx: usize,
    /// Absolute offset of `input[0]` in the document.
    origin: usize,
    scan: Scanner,
    /// Containers currently open.
    depth: usize,
    max_depth: usize,
    /// Newlines seen so far (only whitespace may hold raw newlines) and the offset just after the last one:
    /// enough to give an error its line and column without re-reading the (rewritten) prefix.
    line: usize,
    line_start: usize,
    /// Predicted indentation (spaces after a newline) of the tokens at each nesting level (`[level]`: the
    /// members of a container opened at depth `level`, and the bracket closing the one at `level + 1`), or
    /// `NO_INDENT`; learnt as the document goes (see `newline_indent`).
    indents: [u8; INDENT_LEVELS],
    /// One segment per open container, rendered only for errors.
    path: Vec<Seg<'de>>,
    stats: Stats,
    /// Whether a number past `f64`'s range is read as ±infinity (`ReaderConfig::float_overflow`).
    infinity: bool,
}

impl<'de> Deserializer<'de> {
    pub(crate) fn new(
        input: &'de mut [u8],
        max_depth: usize,
        scan: Scanner,
        path: Vec<Seg<'de>>,
    ) -> Self {
        let stats = Stats {
            bytes: input.len(),
            buffer_bytes_needed: input.len(),
            ..Stats::default()
        };
        Deserializer {
            input,
            idx: 0,
            origin: 0,
            scan,
            depth: 0,
            max_depth,
            line: 0,
            line_start: 0,
            indents: [NO_INDENT as u8; INDENT_LEVELS],
            path,
            stats,
            infinity: false,
        }
    }

    /// Applies `ReaderConfig::float_overflow` (default: [`FloatOverflow::Error`]).
    pub(crate) fn set_float_overflow(&mut self, choice: FloatOverflow) {
        self.infinity = choice == FloatOverflow::Infinity;
    }

    /// Validates UTF-8, decodes one `T`, and checks that only whitespace follows it.
    pub(crate) fn decode_document<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value> {
        // A short document is checked as ASCII first: simdutf8 hands inputs under 64 bytes to std's
        // `from_utf8`, a few times slower on a 50-byte no-bid.
        let short_ascii = self.input.len() < 64 && self.input.is_ascii();
        if !short_ascii && simdutf8::basic::from_utf8(self.input).is_err() {
            let valid =
                simdutf8::compat::from_utf8(self.input).map_or_else(|e| e.valid_up_to(), |_| 0);
            let place = self.place_by_counting(valid);
            return Err(Error::at(
                ErrorKind::InvalidUtf8,
                "invalid UTF-8",
                place,
                None,
            ));
        }
        let value = seed.deserialize(&mut *self).map_err(|e| self.fix(e))?;
        match self.ws() {
            None => Ok(value),
            Some(_) => {
                Err(self.error_without_path(ErrorKind::TrailingCharacters, "trailing characters"))
            }
        }
    }

    /// Stats and the path stack (for reuse) once decoding is over.
    pub(crate) fn finish(self) -> (Stats, Vec<Seg<'de>>) {
        (self.stats, self.path)
    }

    /// Absolute offset of the read position.
    #[inline]
    fn pos(&self) -> usize {
        self.origin + self.idx
    }

    /// Skips JSON whitespace (RFC 8259 §2) and returns the next byte, if any.
    ///
    /// Bid responses are mostly sent without whitespace, so the common case is one compare: every whitespace byte
    /// is at most `b' '`. (A single `match` over all bytes compiled, once inlined into the callers' own matches,
    /// to an indirect jump per token, which the branch predictor often got wrong.)
    #[inline]
    fn ws(&mut self) -> Option<u8> {
        let next = *self.input.get(self.idx)?;
        if next > b' ' {
            return Some(next);
        }
        self.skip_ws()
    }

    /// [`ws`](Self::ws) once the next byte may be whitespace. A single space before a token (`"key": value`,
    /// the pretty printers' colon) is settled here; longer runs go to [`skip_ws_run`](Self::skip_ws_run).
    #[inline(always)]
    fn skip_ws(&mut self) -> Option<u8> {
        if let Some(&[b' ', next]) = self.input.get(self.idx..self.idx + 2).map(|p| p as &[u8])
            && next > b' '
        {
            self.idx += 1;
            return Some(next);
        }
        self.skip_ws_run()
    }

    /// Skips a whitespace run: a pretty printer's newline and indentation by
    /// [`newline_indent`](Self::newline_indent), anything else by [`skip_ws_steps`](Self::skip_ws_steps).
    /// (Inlined into every caller instead, the newline step cost more: the callers' code grew and the compact
    /// bodies slowed down.)
    #[inline(never)]
    fn skip_ws_run(&mut self) -> Option<u8> {
        if let Some(next) = self.newline_indent() {
            return Some(next);
        }
        self.skip_ws_steps()
    }

    /// The run most tokens of a pretty-printed body follow: one `\n`, then spaces, then a token. `None`, with
    /// nothing consumed, for any other run (tabs, CRLF, blank lines, the document's last bytes):
    /// [`skip_ws_steps`](Self::skip_ws_steps) takes it from the same place.
    ///
    /// With 64 bytes after the newline the indentation is **predicted** (`indents`: two candidates)
    /// and only checked ([`indented`](Self::indented): one 32-byte compare shared by both candidates, another
    /// for 32 spaces or more): the next read position is the newline's plus the prediction, so it waits for no load → compare
    /// → movemask → `tzcnt` chain, and a correct prediction costs one well-predicted branch. A wrong or missing prediction goes to
    /// [`learn_indent`](Self::learn_indent), which counts the spaces and remembers them. Nearer the end, one
    /// 32-byte compare counts them (up to 32).
    #[inline(always)]
    fn newline_indent(&mut self) -> Option<u8> {
        let at = self.idx;
        let (&first, after) = self.input.get(at..)?.split_first()?;
        if first != b'\n' {
            return None;
        }
        let Some(chunk) = after.first_chunk::<64>() else {
            return self.newline_indent_near_end(at);
        };
        // Space flags of the 32 bytes after the newline, shared by both candidates' checks.
        let low = chunk.first_chunk::<32>().map_or(0, scan::spaces32);
        // Two candidates, no look at the byte before the newline: the members of the innermost open container,
        // or the bracket closing it (indented as the members one level out).
        let member = self.indent_of(self.depth);
        if Self::indented(chunk, low, member) {
            let next = chunk[member];
            return self.after_indent(at, member, next);
        }
        let closing = self.indent_of(self.depth.wrapping_sub(1));
        if Self::indented(chunk, low, closing) {
            let next = chunk[closing];
            return self.after_indent(at, closing, next);
        }
        self.learn_indent(at, low)
    }

    /// Whether the 64 bytes `chunk` after a newline start with exactly `indent` spaces and then a byte that is
    /// not a space; `low`: the space flags of the first 32 ([`scan::spaces32`]), enough under 32 spaces (bits
    /// `0..=indent` of the non-space flags are exactly bit `indent`). Otherwise the last 32 bytes' flags too. It
    /// decides a branch only: the read position never waits on it.
    #[inline(always)]
    fn indented(chunk: &[u8; 64], low: u32, indent: usize) -> bool {
        if indent < 32 {
            return (!low) << (31 - indent) == 1 << 31;
        }
        let high = chunk.last_chunk::<32>().map_or(0, scan::spaces32);
        fits(!(u64::from(low) | u64::from(high) << 32), indent)
    }

    /// The predicted indentation of the members of containers opened at depth `level` (`NO_INDENT`: none).
    #[inline(always)]
    fn indent_of(&self, level: usize) -> usize {
        self.indents
            .get(level)
            .map_or(NO_INDENT, |&g| usize::from(g))
    }

    /// `next`, the byte after a newline at `at` and `indent` spaces (checked to be spaces), as the next token;
    /// `None`, nothing consumed, when it is whitespace too.
    #[inline(always)]
    fn after_indent(&mut self, at: usize, indent: usize, next: u8) -> Option<u8> {
        if next > b' ' {
            self.passed_newline(at, indent);
            return Some(next);
        }
        None
    }

    /// The level whose indentation the token after the newline at `at` should have. Pretty printers break a
    /// line after `{`, `[` and `,` (the next token is a member or element of the innermost open container) and
    /// before a closing `}` / `]` (the next token closes it, indented as the members one level out): the byte
    /// before the newline tells which. At `at == 0` that byte was handed out with a string, a value (not a key:
    /// a colon would follow it), so a closing bracket follows.
    fn indent_level(&self, at: usize) -> usize {
        let opens = at
            .checked_sub(1)
            .and_then(|before| self.input.get(before))
            .is_some_and(|&b| matches!(b, b',' | b'{' | b'['));
        if opens {
            self.depth
        } else {
            self.depth.wrapping_sub(1)
        }
    }

    /// [`newline_indent`](Self::newline_indent) after a wrong or missing prediction: the indentation counted
    /// from `low` (the space flags of the 32 bytes after the newline at `at`) or, when those are all spaces,
    /// by one 64-byte compare, remembered for its level
    /// ([`indent_level`](Self::indent_level)), and a first guess for the level inside it (one more step of the
    /// same width).
    #[inline(never)]
    fn learn_indent(&mut self, at: usize, low: u32) -> Option<u8> {
        let level = self.indent_level(at);
        // 64 when all 64 bytes are spaces: a run longer than this step checks, left to `skip_ws_steps`.
        let indent = if low == u32::MAX {
            let chunk = self.input.get(at + 1..)?.first_chunk::<64>()?;
            (!scan::spaces64(chunk)).trailing_zeros() as usize
        } else {
            (!low).trailing_zeros() as usize
        };
        if indent >= 64 {
            return None;
        }
        let next = *self.input.get(at + 1 + indent)?;
        if next <= b' ' {
            return None;
        }
        if let Some(slot) = self.indents.get_mut(level) {
            *slot = u8::try_from(indent).unwrap_or(u8::MAX);
            let outer = level
                .checked_sub(1)
                .and_then(|l| self.indents.get(l))
                .map_or(0, |&o| usize::from(o));
            let step = indent.saturating_sub(outer).max(1);
            if let Some(inner) = self.indents.get_mut(level + 1)
                && usize::from(*inner) == NO_INDENT
            {
                *inner = u8::try_from(indent + step).unwrap_or(u8::MAX);
            }
        }
        self.passed_newline(at, indent);
        Some(next)
    }

    /// [`newline_indent`](Self::newline_indent) with fewer than 64 bytes after the newline: up to 32 spaces
    /// counted by one 32-byte compare, no prediction.
    #[inline(always)]
    fn newline_indent_near_end(&mut self, at: usize) -> Option<u8> {
        let after = self.input.get(at + 1..)?;
        let indent = (!scan::spaces32(after.first_chunk::<32>()?)).trailing_zeros() as usize;
        let next = *after.get(indent)?;
        if next <= b' ' {
            return None;
        }
        self.passed_newline(at, indent);
        Some(next)
    }

    /// Moves the read position past the newline at `at` and `indent` spaces, counting the line.
    #[inline(always)]
    fn passed_newline(&mut self, at: usize, indent: usize) {
        self.line += 1;
        self.line_start = self.origin + at + 1;
        self.idx = at + 1 + indent;
    }

    /// Skips a whitespace run 32 bytes at a time (one compare pass finds the first non-whitespace byte and the
    /// newlines before it, for error places). Near the document's end the last 32 (or 16) bytes are read by one
    /// load ending at the end, shifted into place, when the unconsumed tail holds that many; else from a 16-byte
    /// copy of the tail padded with a non-whitespace byte.
    #[inline(never)]
    fn skip_ws_steps(&mut self) -> Option<u8> {
        loop {
            let rest = self.input.get(self.idx..)?;
            // Bits from `rest.len()` on come out 0 (not whitespace) in the shifted cases, so a run stops at the
            // end; `width` is the step when the run goes on.
            let (ws, newlines, width) = if let Some(chunk) = rest.first_chunk::<32>() {
                let (ws, newlines) = scan::whitespace32(chunk);
                (ws, newlines, 32)
            } else if let Some(last) = self.input.last_chunk::<32>() {
                let (ws, newlines) = scan::whitespace32(last);
                let gone = 32 - rest.len() as u32;
                (ws >> gone, newlines >> gone, 32)
            } else if let Some(chunk) = rest.first_chunk::<16>() {
                let (ws, newlines) = scan::whitespace16(chunk);
                (u64::from(ws), u64::from(newlines), 16)
            } else if let Some(last) = self.input.last_chunk::<16>() {
                let (ws, newlines) = scan::whitespace16(last);
                let gone = 16 - rest.len() as u32;
                (u64::from(ws >> gone), u64::from(newlines >> gone), 16)
            } else {
                // Fewer than 16 bytes in all (the tail after the last string handed out, `\n}\n`): a copy
                // padded with a non-whitespace byte, so the run stops at the end (~50 instructions instead of
                // a ~150-instruction byte loop, once in most real bodies).
                let mut block = [b'x'; 16];
                let n = rest.len().min(16);
                block[..n].copy_from_slice(&rest[..n]);
                let (ws, newlines) = scan::whitespace16(&block);
                (u64::from(ws), u64::from(newlines), 16)
            };
            // At most `width`: `!ws` has bit `width` and above set.
            let run = (!ws).trailing_zeros();
            let passed = newlines & !(u64::MAX << run);
            if passed != 0 {
                self.line_start = self.pos() + (64 - passed.leading_zeros()) as usize;
                self.line += 1;
                if passed & (passed - 1) != 0 {
                    self.more_newlines(passed);
                }
            }
            self.idx += run as usize;
            if run < width {
                return self.input.get(self.idx).copied();
            }
        }
    }

    /// Counts the newlines of a run beyond its first (kept out of line: mostly a pretty printer's run holds
    /// one, and this spares the common case a population count, which baseline x86_64 does in software).
    #[cold]
    #[inline(never)]
    fn more_newlines(&mut self, passed: u64) {
        self.line += passed.count_ones() as usize - 1;
    }

    /// Place of absolute offset `byte`, which must not lie before the last newline passed.
    fn place_of(&self, byte: usize) -> Place {
        Place {
            byte,
            line: self.line + 1,
            column: byte.saturating_sub(self.line_start) + 1,
        }
    }

    /// Place of `byte` found by counting newlines: only valid before decoding has rewritten anything.
    fn place_by_counting(&self, byte: usize) -> Place {
        let before = &self.input[..byte.min(self.input.len())];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        Place {
            byte,
            line,
            column: byte - start + 1,
        }
    }

    #[cold]
    fn error_at(
        &self,
        kind: ErrorKind,
        message: impl Into<Cow<'static, str>>,
        byte: usize,
    ) -> Error {
        Error::at(kind, message, self.place_of(byte), Some(render(&self.path)))
    }

    #[cold]
    fn error(&self, kind: ErrorKind, message: &'static str) -> Error {
        self.error_at(kind, message, self.pos())
    }

    #[cold]
    fn error_without_path(&self, kind: ErrorKind, message: &'static str) -> Error {
        Error::at(kind, message, self.place_of(self.pos()), None)
    }

    #[cold]
    fn eof(&self, inside: &'static str) -> Error {
        self.error(ErrorKind::Eof, inside)
    }

    /// Gives a visitor's unplaced error (serde `custom`, invalid type...) the current place and path.
    #[inline]
    fn fix(&self, error: Error) -> Error {
        if error.is_positioned() {
            error
        } else {
            self.fix_slow(error)
        }
    }

    #[cold]
    fn fix_slow(&self, error: Error) -> Error {
        error.with_place(self.place_of(self.pos()), Some(render(&self.path)))
    }

    /// Enters a container whose opening byte is at the read position: checks the depth limit first.
    #[inline]
    fn enter(&mut self) -> Result<()> {
        if self.depth >= self.max_depth {
            return Err(self.error(ErrorKind::DepthLimit, "recursion limit exceeded"));
        }
        self.depth += 1;
        self.idx += 1;
        Ok(())
    }

    /// Decodes the string whose opening quote is at the read position and hands it out as a borrow. A string
    /// that ends within 16 bytes without an escape (most keys and codes) is settled inline; the rest go to the
    /// out-of-line decoder.
    #[inline(always)]
    fn parse_str(&mut self) -> Result<&'de str> {
        match self.short_str() {
            Some(s) => Ok(s),
            None => self.parse_str_long(),
        }
    }

    /// [`parse_str`](Self::parse_str)'s inline case alone: the string whose opening quote is at the read
    /// position when it ends within 16 bytes without an escape (consumed and handed out), else `None` with
    /// nothing consumed.
    #[inline(always)]
    fn short_str(&mut self) -> Option<&'de str> {
        let at = self.idx;
        let len = self
            .input
            .get(at..)
            .and_then(|buf| string::short_plain(buf, &mut self.stats))?;
        Some(self.split_off(at + 1, at + 1 + len, at + len + 2))
    }

    /// Hands out `input[from..to]` (valid UTF-8 by the crate's invariant, see `str_from_validated`) and makes
    /// `input[end..]` the new tail (`from <= to <= end <= input.len()`, checked).
    #[inline(always)]
    fn split_off(&mut self, from: usize, to: usize, end: usize) -> &'de str {
        // Checked before the tail is taken, so no panic can see `input` empty: the take's stores are dead.
        assert!(
            end <= self.input.len(),
            "a string's end lies within the input"
        );
        let buf = std::mem::take(&mut self.input);
        let (head, tail) = buf.split_at_mut(end);
        self.input = tail;
        self.origin += end;
        self.idx = 0;
        let head: &'de [u8] = head;
        str_from_validated(&head[from..to])
    }

    /// [`parse_str`](Self::parse_str) past the short case: escapes, long strings, errors.
    #[inline(never)]
    fn parse_str_long(&mut self) -> Result<&'de str> {
        let at = self.idx;
        let buf = std::mem::take(&mut self.input);
        match string::decode_in_place(
            &mut buf[at..],
            self.origin + at,
            &mut self.scan,
            &mut self.stats,
        ) {
            Ok((len, end)) => {
                let (head, tail) = buf.split_at_mut(at + end);
                self.input = tail;
                self.origin += at + end;
                self.idx = 0;
                let head: &'de [u8] = head;
                Ok(str_from_validated(&head[at + 1..at + 1 + len]))
            }
            Err((kind, i)) => {
                self.input = buf;
                Err(self.string_error(kind, self.origin + at + i))
            }
        }
    }

    #[cold]
    fn string_error(&self, kind: ErrorKind, byte: usize) -> Error {
        let message = match kind {
            ErrorKind::Eof => "EOF while parsing a string",
            ErrorKind::ControlCharacter => {
                "control character (\\u0000-\\u001F) found while parsing a string"
            }
            ErrorKind::LoneSurrogate => "lone surrogate in hex escape",
            _ => "invalid escape",
        };
        self.error_at(kind, message, byte)
    }

    /// Parses the number starting at the read position.
    #[inline]
    fn parse_number(&mut self) -> Result<Number> {
        match number::parse(self.input, self.idx) {
            Ok((n, end)) => {
                self.idx = end;
                Ok(n)
            }
            Err(error) => match self.overflowed(&error) {
                Some((negative, end)) => {
                    self.idx = end;
                    Ok(Number::F64(if negative {
                        f64::NEG_INFINITY
                    } else {
                        f64::INFINITY
                    }))
                }
                None => Err(self.error_at(error.0, error.2, self.origin + error.1)),
            },
        }
    }

    /// With `FloatOverflow::Infinity`, when `error` is the range error of the number at the read position:
    /// whether it is negative and the index after it. Out of line: the error path only.
    #[inline(never)]
    pub(super) fn overflowed(&self, error: &number::NumError) -> Option<(bool, usize)> {
        if !self.infinity {
            return None;
        }
        number::overflowed(self.input, self.idx, error)
    }

    /// Consumes `literal` (`true`, `false`, `null`) at the read position.
    #[inline]
    fn parse_literal(&mut self, literal: &'static [u8]) -> Result<()> {
        if self.input.get(self.idx..self.idx + literal.len()) == Some(literal) {
            self.idx += literal.len();
            return Ok(());
        }
        for (k, &expected) in literal.iter().enumerate() {
            match self.input.get(self.idx + k) {
                None => {
                    return Err(self.error_at(
                        ErrorKind::Eof,
                        "EOF while parsing a value",
                        self.pos() + k,
                    ));
                }
                Some(&b) if b != expected => {
                    return Err(self.error_at(ErrorKind::Syntax, "expected ident", self.pos() + k));
                }
                Some(_) => {}
            }
        }
        Err(self.error(ErrorKind::Syntax, "expected ident"))
    }

    /// Sets the innermost path segment (a container is open whenever this is called).
    #[inline]
    fn set_seg(&mut self, seg: Seg<'de>) {
        if let Some(top) = self.path.last_mut() {
            *top = seg;
        }
    }
}
