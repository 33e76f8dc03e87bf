//! [`Stats`]: counters of one decoded document, filled by the string reader and read through `Reader::stats`. A
//! leaf: it imports nothing from the crate.

/// Counters for one decoded document (the last one a [`Reader`](crate::Reader) saw, filled as far as it got when it failed).
///
/// Strings are counted wherever they occur: decoded, skipped (unknown fields) or inside a captured
/// [`RawJson`](crate::RawJson). Keys are strings too.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// Length of the input in bytes.
    pub bytes: usize,
    /// Number of strings (keys and values) read.
    pub strings: u64,
    /// Strings holding at least one escape.
    pub escaped_strings: u64,
    /// Escapes read (`\n` and `\u00e9` count one each; a surrogate pair `\uD83D\uDE00` counts one).
    pub escapes: u64,
    /// Length in bytes of the longest string, measured as sent (escaped form, quotes excluded).
    pub longest_string: usize,
    /// Bytes of buffer the document needed. Strings are decoded in place, so this is the input length: the reader
    /// needs no buffer beyond the caller's input (a pool sizes its input buffers by it).
    pub buffer_bytes_needed: usize,
}

impl Stats {
    /// Records one string of `len` bytes (escaped form) holding `escapes` escapes.
    #[inline]
    pub(crate) fn string(&mut self, len: usize, escapes: u64) {
        self.strings += 1;
        self.escapes += escapes;
        self.escaped_strings += u64::from(escapes != 0);
        self.longest_string = self.longest_string.max(len);
    }
}
