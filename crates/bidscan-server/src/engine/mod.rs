//! The engine: a document's bytes to the answer JSON, with no HTTP in it. The routes, the batch routes and the
//! command line all call [`Engine::run`] with the [`Work`] they do.
//! - [`decode`]: [`Engine`] and its per-worker pools of decode state; `/decode`'s answer;
//! - [`validate`]: a bid response judged against its bid request; `/validate`'s answer;
//! - [`auction`]: one bid request and every bidder's answer judged together; `/validate/auction`'s answer;
//! - [`render`]: `/decode`'s and `/validate/auction`'s 200 bodies written straight into bytes.

pub mod auction;
pub mod decode;
pub mod render;
pub mod validate;

pub use decode::{Answer, Encoding, Engine, Inspect, Options, View};

use crate::error::{ApiError, ErrorCode};

/// What a route or command does with each document. A new kind of document route is one more variant here and
/// one more arm in [`Engine::run`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Work {
    /// Decode a bid response (`/decode`).
    #[default]
    Decode,
    /// Validate a bid response against its request (`/validate`).
    Validate,
    /// Validate every bidder's answer of an auction against its request (`/validate/auction`). Its document is
    /// a multipart body the route reads into parts first (inflating compressed parts is asynchronous), so the
    /// route calls [`Engine::auction`] with the parts rather than [`Engine::run`].
    Auction,
}

impl Engine {
    /// Runs `work` on the document made of `chunks` (`len` bytes in all): [`answer`](Engine::answer) or
    /// [`validate`](Engine::validate). [`Work::Auction`] is judged by [`Engine::auction`] over its parts, not
    /// here.
    ///
    /// # Errors
    /// The [`ApiError`] of the work: see each; [`Work::Auction`]: 500 `internal` (a caller's bug).
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
            Work::Auction => Err(ApiError::new(
                ErrorCode::Internal,
                "an auction is judged over its parts (Engine::auction)",
            )),
        }
    }
}
