//! HTTP handlers: extract, call the engine, map the result. The layers around them are in [`crate::app`].

pub mod batch;
pub mod decode;
pub mod ops;

use axum::extract::rejection::QueryRejection;
use axum::http::StatusCode;
use serde::Deserialize;

use crate::app::AppState;
use crate::config::ModeName;
use crate::engine::{Options, View};
use crate::error::ApiError;

/// Query parameters of the decode routes.
#[derive(Clone, Copy, Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DecodeParams {
    /// `lenient` (coerce and report deviations) or `strict` (422 on the first); default from `decode.mode`.
    pub mode: Option<ModeName>,
    /// `full` (with the canonical `response`) or `summary` (without it). Default `full`.
    pub view: Option<View>,
}

impl DecodeParams {
    /// The options for these parameters, with the server's defaults.
    pub fn options(self, state: &AppState) -> Options {
        Options {
            mode: self.mode.unwrap_or(state.config.decode.mode).into(),
            view: self.view.unwrap_or_default(),
        }
    }
}

/// 400 `invalid_query` for a query string that does not parse (e.g. `mode=fast`).
pub fn invalid_query(e: QueryRejection) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, "invalid_query", e.body_text())
}
