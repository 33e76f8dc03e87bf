//! The query of the document and batch routes ([`DecodeParams`]) and the policy a validating request is judged
//! under ([`select_policy`]).

use std::sync::Arc;

use axum::extract::rejection::QueryRejection;
use bidscan_openrtb::rules::Policy;
use serde::Deserialize;

use crate::config::ModeName;
use crate::engine::{Encoding, Inspect, Options, View, Work};
use crate::error::{ApiError, ErrorCode};
use crate::routes::state::AppState;

/// Query parameters of the decode and validate routes.
#[derive(Clone, Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DecodeParams {
    /// `lenient` (coerce and report deviations) or `strict` (422 on the first); default from `decode.mode`.
    pub mode: Option<ModeName>,
    /// `full` (with the canonical `response`) or `summary` (without it). Default `full`.
    pub view: Option<View>,
    /// `all` (read every bid's ad markup: VAST, native, HTML) or `none` (only its kind and size). Default `all`.
    pub inspect: Option<Inspect>,
    /// `/validate` routes: the policy profile (`[validate.profiles.NAME]`) to judge under; default the base
    /// `[validate]` policy. Ignored by `/decode`. Documented per route by `openapi::document_with`, which lists
    /// the configured names.
    #[param(ignore)]
    pub profile: Option<String>,
    /// The bidder that sent the response (wins over the `X-Bidder` header): the `bidder` label of the
    /// `bidscan_bidder_*` metrics when `server.bidders` lists it, else `other`.
    pub bidder: Option<String>,
}

impl DecodeParams {
    /// The options for these parameters, with the server's defaults; for [`Work::Validate`] and [`Work::Auction`], the policy of
    /// `profile` chosen now from the gate in force ([`select_policy`]).
    ///
    /// # Errors
    /// 400 `unknown_profile` (validate only).
    pub fn options(mut self, state: &AppState, work: Work) -> Result<Options, ApiError> {
        let bidder = self.bidder.take();
        self.options_as(state, work, bidder.as_deref())
    }

    /// [`options`](Self::options) for a request whose bidder is `bidder` (`?bidder=`, else `X-Bidder`; `None`:
    /// `unknown`); `self.bidder` is not read.
    ///
    /// # Errors
    /// 400 `unknown_profile` (validate only).
    pub fn options_as(
        self,
        state: &AppState,
        work: Work,
        bidder: Option<&str>,
    ) -> Result<Options, ApiError> {
        let policy = match work {
            Work::Decode => None,
            Work::Validate | Work::Auction => Some(select_policy(state, self.profile.as_deref())?),
        };
        Ok(Options {
            mode: self.mode.unwrap_or(state.config.decode.mode).into(),
            view: self.view.unwrap_or_default(),
            inspect: self.inspect.unwrap_or_default(),
            policy,
            bidder: Some(state.metrics().bidder(bidder)),
            encoding: Encoding::Json,
            answer: Encoding::Json,
        })
    }
}

/// The policy a validating request naming `profile` (`?profile=`, or none) is judged under: one load of the gate
/// in force. Shared by every route that validates, so a request is judged under the gate of the moment its head
/// was read (a batch: of the moment it began).
///
/// # Errors
/// 400 `unknown_profile` when `profile` names no configured profile.
pub fn select_policy(state: &AppState, profile: Option<&str>) -> Result<Arc<Policy>, ApiError> {
    state.engine.gate().load().select(profile)
}

/// 400 `invalid_query` for a query string that does not parse (e.g. `mode=fast`).
pub fn invalid_query(e: QueryRejection) -> ApiError {
    ApiError::new(ErrorCode::InvalidQuery, e.body_text())
}
