//! Skipping a container (an ignored or raw-captured object or array) without recursion: first over the
//! structural index (`index.rs`), which only accepts; else, and for every error, one loop over its tokens,
//! the open containers' kinds kept as a bit stack. The checks, messages and places are those of a recursive
//! descent (RFC 8259 grammar, the depth limit, strings and numbers checked as when decoded); only the calls are
//! gone — a skipped `ext` of a real bid response is mostly short strings and small objects, where a call per
//! value and per container cost as much as reading the value.

use super::Deserializer;
use crate::error::{ErrorKind, Result};

/// Open containers one walk keeps in its bit stack; a container deeper than that is skipped by a nested walk,
/// so the machine stack grows one frame per 64 levels (and the depth limit bounds the levels).
const LEVELS: u32 = 64;

impl<'de> Deserializer<'de> {
    /// Skips the object or array whose opening byte is at the read position, and everything in it: a
    /// pretty-printed one (whitespace right after the bracket) over the structural index
    /// ([`skip_indexed`](Self::skip_indexed)) when the scanner's index is on, unless that walk gives up; the
    /// rest by [`walk_container`](Self::walk_container), which also reports every error. (Over compact
    /// containers the index walk is slower: a skipped compact container holds a few values, where classifying its
    /// blocks is pure overhead.)
    #[inline(never)]
    pub(super) fn skip_container(&mut self) -> Result<()> {
        if self.scan.indexes()
            && self.input.get(self.idx + 1).is_some_and(|&b| b <= b' ')
            && self.skip_indexed()
        {
            return Ok(());
        }
        self.walk_container()
    }

    /// [`skip_container`](Self::skip_container) token by token: the checks, messages and places of a recursive
    /// descent.
    #[inline(always)]
    pub(super) fn walk_container(&mut self) -> Result<()> {
        // Bit k of `objects` is set when the container k levels out from the innermost open one is an object;
        // `open` counts this walk's open containers.
        let mut objects = 0u64;
        let mut open = 0u32;
        // The byte starting the next value, at the read position (whitespace before it skipped).
        let mut next = self.input.get(self.idx).copied();
        loop {
            match next {
                Some(b'"') => self.skip_str()?,
                Some(opening @ (b'{' | b'[')) => {
                    if open == LEVELS {
                        self.skip_container()?;
                    } else {
                        self.enter()?;
                        let object = opening == b'{';
                        let first = self.ws();
                        if first == Some(if object { b'}' } else { b']' }) {
                            self.idx += 1;
                            self.depth -= 1;
                        } else {
                            objects = objects << 1 | u64::from(object);
                            open += 1;
                            next = if object { self.skip_key(first)? } else { first };
                            continue;
                        }
                    }
                }
                Some(b'-' | b'0'..=b'9') => self.skip_number()?,
                Some(b't') => self.parse_literal(b"true")?,
                Some(b'f') => self.parse_literal(b"false")?,
                Some(b'n') => self.parse_literal(b"null")?,
                Some(_) => return Err(self.error(ErrorKind::Syntax, "expected value")),
                None => return Err(self.eof("EOF while parsing a value")),
            }
            // A value has ended: a `,` and the next value, or the end of the innermost container (and maybe of
            // more around it).
            loop {
                if open == 0 {
                    return Ok(());
                }
                let object = objects & 1 != 0;
                match self.ws() {
                    Some(b',') => {
                        self.idx += 1;
                        let after = self.ws();
                        if after == Some(if object { b'}' } else { b']' }) {
                            return Err(self.error(ErrorKind::Syntax, "trailing comma"));
                        }
                        next = if object { self.skip_key(after)? } else { after };
                        break;
                    }
                    Some(b'}') if object => {}
                    Some(b']') if !object => {}
                    Some(_) if object => {
                        return Err(self.error(ErrorKind::Syntax, "expected `,` or `}`"));
                    }
                    Some(_) => return Err(self.error(ErrorKind::Syntax, "expected `,` or `]`")),
                    None if object => return Err(self.eof("EOF while parsing an object")),
                    None => return Err(self.eof("EOF while parsing a list")),
                }
                self.idx += 1;
                self.depth -= 1;
                objects >>= 1;
                open -= 1;
            }
        }
    }

    /// A skipped member's key and colon, `first` being the byte at the read position; returns the byte that
    /// starts the member's value (`None` at the end of input).
    #[inline(always)]
    fn skip_key(&mut self, first: Option<u8>) -> Result<Option<u8>> {
        match first {
            Some(b'"') => self.skip_str()?,
            Some(_) => return Err(self.error(ErrorKind::Syntax, "key must be a string")),
            None => return Err(self.eof("EOF while parsing an object")),
        }
        self.colon()?;
        Ok(self.ws())
    }
}
