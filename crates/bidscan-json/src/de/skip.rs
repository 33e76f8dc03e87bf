//! Skipping a value (unknown fields, `IgnoredAny`) and capturing one verbatim (`RawJson`): full RFC 8259
//! validation — depth limit, escapes, control bytes, number grammar and range (unless `FloatOverflow::Infinity`)
//! — but nothing is decoded or rewritten. Works by index on the tail; only `raw_value` splits it to hand the
//! text out. Containers are walked without recursion by `walk.rs`.

use super::Deserializer;
use crate::error::{ErrorKind, Result};
use crate::number;
use crate::scan::str_from_validated;
use crate::string;

impl<'de> Deserializer<'de> {
    /// Skips one value (after optional whitespace). Containers go to [`skip_container`](Self::skip_container).
    pub(super) fn skip_value(&mut self) -> Result<()> {
        match self.ws() {
            Some(b'"') => self.skip_str(),
            Some(b'{' | b'[') => self.skip_container(),
            Some(b'-' | b'0'..=b'9') => self.skip_number(),
            Some(b't') => self.parse_literal(b"true"),
            Some(b'f') => self.parse_literal(b"false"),
            Some(b'n') => self.parse_literal(b"null"),
            Some(_) => Err(self.error(ErrorKind::Syntax, "expected value")),
            None => Err(self.eof("EOF while parsing a value")),
        }
    }

    /// Skips the number at the read position (grammar and range checked).
    #[inline(always)]
    pub(super) fn skip_number(&mut self) -> Result<()> {
        match number::skip(self.input, self.idx) {
            Ok(end) => {
                self.idx = end;
                Ok(())
            }
            Err(error) => self.skip_number_failed(error),
        }
    }

    /// [`skip_number`](Self::skip_number)'s error path, out of line so the token walk's loop stays small: a
    /// number past `f64` accepted under `FloatOverflow::Infinity`, else the error.
    #[cold]
    #[inline(never)]
    fn skip_number_failed(&mut self, error: number::NumError) -> Result<()> {
        match self.overflowed(&error) {
            Some((_, end)) => {
                self.idx = end;
                Ok(())
            }
            None => Err(self.error_at(error.0, error.2, self.origin + error.1)),
        }
    }

    /// Skips the string whose opening quote is at the read position: a short plain one inline, the rest out of
    /// line.
    #[inline(always)]
    pub(super) fn skip_str(&mut self) -> Result<()> {
        let at = self.idx;
        if let Some(len) = self
            .input
            .get(at..)
            .and_then(|buf| string::short_plain(buf, &mut self.stats))
        {
            self.idx = at + len + 2;
            return Ok(());
        }
        match string::skip(
            &self.input[at..],
            self.origin + at,
            &mut self.scan,
            &mut self.stats,
        ) {
            Ok(end) => {
                self.idx = at + end;
                Ok(())
            }
            Err((kind, i)) => Err(self.string_error(kind, self.origin + at + i)),
        }
    }

    /// Consumes the `:` after a key.
    #[inline(always)]
    pub(super) fn colon(&mut self) -> Result<()> {
        match self.ws() {
            Some(b':') => {
                self.idx += 1;
                Ok(())
            }
            Some(_) => Err(self.error(ErrorKind::Syntax, "expected `:`")),
            None => Err(self.eof("EOF while parsing an object")),
        }
    }

    /// Validates one value and returns its exact text (whitespace around it excluded), strings left as sent.
    pub(super) fn raw_value(&mut self) -> Result<&'de str> {
        self.ws();
        let start = self.idx;
        self.skip_value()?;
        let end = self.idx;
        let buf = std::mem::take(&mut self.input);
        let (head, tail) = buf.split_at_mut(end);
        self.input = tail;
        self.origin += end;
        self.idx = 0;
        let head: &'de [u8] = head;
        Ok(str_from_validated(&head[start..end]))
    }
}
