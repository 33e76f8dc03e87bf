//! `Reader`: the reusable entry point (config, scratch, stats of the last document).

use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::DeserializeSeed;

use crate::de::Deserializer;
use crate::error::Error;
use crate::number::FloatOverflow;
use crate::path::{Seg, recycle};
use crate::scan::{ScanImpl, Scanner};
use crate::stats::Stats;

/// Limits and choices applied while decoding. Build with `ReaderConfig { max_depth: 64, ..Default::default() }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReaderConfig {
    /// Deepest nesting of arrays and objects accepted, counted in containers (`[[1]]` is depth 2). Default
    /// [`ReaderConfig::DEFAULT_MAX_DEPTH`]. Checked before entering a container, so a hostile `[[[[…` is a
    /// [`DepthLimit`](crate::ErrorKind::DepthLimit) error, never a stack overflow. Decoding recurses once per
    /// level (as serde does), so values far above the default need a correspondingly large thread stack.
    pub max_depth: usize,
    /// What a number whose magnitude rounds past `f64` (`1e400`, valid RFC 8259 text) becomes. Default
    /// [`FloatOverflow::Error`] (serde_json's "number out of range").
    pub float_overflow: FloatOverflow,
}

impl ReaderConfig {
    /// The default nesting limit: 128 levels (serde_json's limit, which rejects the 128th level, is one lower).
    pub const DEFAULT_MAX_DEPTH: usize = 128;
}

impl Default for ReaderConfig {
    fn default() -> Self {
        ReaderConfig {
            max_depth: Self::DEFAULT_MAX_DEPTH,
            float_overflow: FloatOverflow::Error,
        }
    }
}

/// A reusable decoder: holds the config, the scratch kept between documents (the path stack's capacity) and the
/// stats of the last document. Create one per worker and reuse it; it is cheap to create but not free.
///
/// ```
/// let mut reader = bidscan_json::Reader::default();
/// let mut body = br#"{"id":"a\"b","price":1.5}"#.to_vec();
/// let v: std::collections::BTreeMap<&str, serde::de::IgnoredAny> = reader.decode(&mut body).unwrap();
/// assert_eq!(v.len(), 2);
/// assert_eq!(reader.stats().escapes, 1);
/// ```
pub struct Reader {
    config: ReaderConfig,
    /// Stop-byte scanner with an empty block cache, copied into each document's decoder: made by
    /// `Scanner::new`, so its implementation is one that [`ScanImpl::is_available`] (checked once here, not
    /// per document: seven feature tests, ~20 instructions of a 13-byte error body).
    scan: Scanner,
    /// Path stack scratch: always empty between decodes, capacity kept.
    path: Vec<Seg<'static>>,
    stats: Stats,
}

impl Reader {
    /// A reader with `config`, using the fastest scanner this CPU supports.
    pub fn new(config: ReaderConfig) -> Reader {
        Reader {
            config,
            scan: Scanner::new(ScanImpl::detected()),
            path: Vec::new(),
            stats: Stats::default(),
        }
    }

    /// Decodes one document. Every string is decoded in place inside `input` and borrowed from it, so `T` may hold
    /// `&'de str` or `Cow<'de, str>` for any string, escaped or not. `input` is left rewritten (not valid JSON any
    /// more) whether the decode succeeds or not.
    ///
    /// Errors: any RFC 8259 violation, the depth limit, trailing non-whitespace, or the target type's own errors —
    /// each with byte offset, line, column and JSON pointer ([`Error`]). Never panics on input.
    pub fn decode<'de, T: Deserialize<'de>>(&mut self, input: &'de mut [u8]) -> Result<T, Error> {
        self.decode_seed(input, PhantomData::<T>)
    }

    /// [`decode`](Self::decode) through a serde [`DeserializeSeed`]: for a target that fills a place its caller
    /// owns (`Value = ()`) instead of returning a value to be moved through every `Result` on the way out. Same
    /// input, errors and stats as `decode`.
    pub fn decode_seed<'de, S: DeserializeSeed<'de>>(
        &mut self,
        input: &'de mut [u8],
        seed: S,
    ) -> Result<S::Value, Error> {
        let path: Vec<Seg<'de>> = recycle(std::mem::take(&mut self.path));
        let mut de = Deserializer::new(input, self.config.max_depth, self.scan, path);
        de.set_float_overflow(self.config.float_overflow);
        let result = de.decode_document(seed);
        let (stats, path) = de.finish();
        self.stats = stats;
        self.path = recycle(path);
        result
    }

    /// Sets the stats to those of a `bytes`-long document that was answered without decoding it (a caller's fast
    /// path: a blank body, `{}`), so [`stats`](Self::stats) never reports the previous document's counters.
    pub fn reset_stats(&mut self, bytes: usize) {
        self.stats = Stats {
            bytes,
            buffer_bytes_needed: bytes,
            ..Stats::default()
        };
    }

    /// Stats of the last [`decode`](Self::decode), complete or not.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// The config this reader applies.
    pub fn config(&self) -> &ReaderConfig {
        &self.config
    }

    /// The stop-byte scanner in use.
    pub fn scan_impl(&self) -> ScanImpl {
        self.scan.imp()
    }

    /// Forces a scanner implementation (for tests and benches). Returns `false`, changing nothing, when this CPU
    /// cannot run it. Keeps the [`set_skip_index`](Self::set_skip_index) choice.
    pub fn set_scan_impl(&mut self, scan: ScanImpl) -> bool {
        let ok = scan.is_available();
        if ok {
            let index = self.scan.index_chosen();
            self.scan = Scanner::new(scan);
            self.scan.set_index(index);
        }
        ok
    }

    /// Whether skipped and raw-captured pretty-printed containers may be walked over the structural index
    /// (`true`, the default; used with the AVX2 and AVX-512 scanners) or always token by token (`false`;
    /// for tests and benches). Both accept the same documents and report the same errors at the same places
    /// (the index walk hands every error to the token walk); only speed differs.
    pub fn set_skip_index(&mut self, on: bool) {
        self.scan.set_index(on);
    }

    /// Whether skipped containers may be walked over the structural index: [`set_skip_index`]'s choice and a
    /// scanner that classifies blocks by look-ups (AVX2, AVX-512; see [`set_skip_index`]).
    ///
    /// [`set_skip_index`]: Self::set_skip_index
    pub fn skip_index(&self) -> bool {
        self.scan.indexes()
    }
}

impl Default for Reader {
    fn default() -> Self {
        Reader::new(ReaderConfig::default())
    }
}

impl std::fmt::Debug for Reader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader")
            .field("config", &self.config)
            .field("scan", &self.scan.imp())
            .field("path_capacity", &self.path.capacity())
            .field("stats", &self.stats)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::IgnoredAny;

    #[test]
    fn path_scratch_capacity_is_kept_between_documents() {
        let mut reader = Reader::default();
        let mut doc = br#"{"a":[[[{"b":1}]]]}"#.to_vec();
        let _: IgnoredAny = reader.decode(&mut doc).unwrap();
        let mut doc = br#"{"a":{"b":{"c":[1,2]}}}"#.to_vec();
        let _: serde::de::IgnoredAny = reader.decode(&mut doc).unwrap();
        let mut doc = br#"{"a":{"b":{"c":[1,2]}}}"#.to_vec();
        let _: std::collections::BTreeMap<&str, std::collections::BTreeMap<&str, IgnoredAny>> =
            reader.decode(&mut doc).unwrap();
        let cap = reader.path.capacity();
        assert!(cap >= 2, "capacity {cap}");
        let mut doc = br#"{"x":{"y":1}}"#.to_vec();
        let _: std::collections::BTreeMap<&str, std::collections::BTreeMap<&str, u8>> =
            reader.decode(&mut doc).unwrap();
        assert_eq!(reader.path.capacity(), cap);
        assert!(reader.path.is_empty());
    }

    #[test]
    fn reset_stats_forgets_the_previous_document() {
        let mut reader = Reader::default();
        let mut doc = br#"["a\nb"]"#.to_vec();
        let _: Vec<&str> = reader.decode(&mut doc).unwrap();
        assert_eq!(reader.stats().escapes, 1);
        reader.reset_stats(7);
        let s = reader.stats();
        assert_eq!(
            (s.bytes, s.buffer_bytes_needed, s.strings, s.escapes),
            (7, 7, 0, 0)
        );
    }

    #[test]
    fn stats_are_filled_when_the_decode_fails() {
        let mut reader = Reader::default();
        let mut doc = br#"["a\nb", "c", tru]"#.to_vec();
        let err = reader.decode::<Vec<&str>>(&mut doc).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::Syntax);
        let s = reader.stats();
        assert_eq!(
            (
                s.bytes,
                s.strings,
                s.escaped_strings,
                s.escapes,
                s.longest_string
            ),
            (18, 2, 1, 1, 4)
        );
    }
}
