//! [`Inspector`]: the reusable state behind the inspectors that need any (the native JSON scratch copy and its
//! reader).

use bidscan_json::Reader;

use crate::native::{self, NativeInfo};
use crate::vast::{self, VastInfo};

/// A scratch buffer grown past this by one native document is freed after it (a native response is a few
/// KiB; a 4 MiB one should not stay in every worker).
pub const MAX_RETAINED_SCRATCH: usize = 256 * 1024;

/// Reusable inspection state: create one per worker (or per pooled decode state) and reuse it for every bid.
/// Holds a bidscan-json [`Reader`] of its own (so the outer document's reader keeps its stats) and the scratch
/// buffer native JSON is copied into and decoded in place (the bid response's `adm` stays intact for output).
#[derive(Debug, Default)]
pub struct Inspector {
    reader: Reader,
    /// Always empty between calls; capacity kept up to [`MAX_RETAINED_SCRATCH`].
    scratch: Vec<u8>,
}

impl Inspector {
    /// A new inspector with an empty scratch buffer.
    pub fn new() -> Inspector {
        Inspector::default()
    }

    /// Inspects VAST markup (see [`vast::inspect`]).
    pub fn vast<'a>(&mut self, markup: &'a str) -> VastInfo<'a> {
        vast::inspect(markup)
    }

    /// Inspects native markup sent as a string: copies it into the scratch buffer and decodes it there in place.
    /// Error offsets are bytes into `markup`.
    pub fn native<'a>(&mut self, markup: &'a str) -> NativeInfo<'a> {
        self.scratch.extend_from_slice(markup.as_bytes());
        let info = native::decode(&mut self.reader, &mut self.scratch, Some(markup));
        self.recycle();
        info
    }

    /// Inspects native markup that `write` writes into the scratch buffer (e.g. an `adm` sent as a JSON object,
    /// serialized back to text). Error offsets are bytes into what `write` wrote.
    pub fn native_with(&mut self, write: impl FnOnce(&mut Vec<u8>)) -> NativeInfo<'static> {
        write(&mut self.scratch);
        let info = native::decode(&mut self.reader, &mut self.scratch, None);
        self.recycle();
        info
    }

    /// Bytes held by the scratch buffer between calls.
    pub fn retained_bytes(&self) -> usize {
        self.scratch.capacity()
    }

    fn recycle(&mut self) {
        self.scratch.clear();
        if self.scratch.capacity() > MAX_RETAINED_SCRATCH {
            self.scratch = Vec::new();
        }
    }
}
