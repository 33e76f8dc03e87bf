//! The engine: a document's bytes to the answer JSON, with no HTTP in it. The routes, the batch routes and the
//! command line all call [`Engine::run`] with the [`Work`] they do.
//! - [`decode`]: [`Engine`] and its per-worker pools of decode state; `/decode`'s answer;
//! - [`validate`]: a bid response judged against its bid request; `/validate`'s answer;
//! - [`render`]: `/decode`'s 200 body written straight into bytes.

pub mod decode;
pub mod render;
pub mod validate;

pub use decode::{Answer, Engine, Inspect, Options, View};

use crate::error::ApiError;

/// What a route or command does with each document. A new kind of document route is one more variant here and
/// one more arm in [`Engine::run`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Work {
    /// Decode a bid response (`/decode`).
    #[default]
    Decode,
    /// Validate a bid response against its request (`/validate`).
    Validate,
}

impl Engine {
    /// Runs `work` on the document made of `chunks` (`len` bytes in all): [`answer`](Engine::answer) or
    /// [`validate`](Engine::validate).
    ///
    /// # Errors
    /// The [`ApiError`] of the work: see each.
    pub fn run<'c>(
        &self,
        work: Work,
        chunks: impl IntoIterator<Item = &'c [u8]>,
        len: usize,
        options: &Options,
    ) -> Result<Answer, ApiError> {
        match work {
            Work::Decode => self.answer(chunks, len, options),
            Work::Validate => self.validate(chunks, len, options),
        }
    }
}
