//! `[capture]` (a leaf): where sampled bad answers are written, how many and how much. Read once at start: a
//! reload logs a changed key as needing a restart (`crate::config::reload`).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::transport::tls::empty_as_none;

/// The largest `capture.queue`: each queued sample holds its body (at most `server.max_body_bytes`).
pub const MAX_QUEUE: usize = 4096;

/// The largest `capture.per_minute`.
pub const MAX_PER_MINUTE: u32 = 1_000_000;

/// `[capture]`: see docs/configuration.md and docs/operations.md, "Captures".
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CaptureConfig {
    /// `capture.dir`: the directory the samples are written to (created with mode 0700 if missing); `None`
    /// (`""`): capture is off and no body is ever kept for it.
    #[serde(deserialize_with = "empty_as_none")]
    pub dir: Option<PathBuf>,
    /// `capture.per_minute`: most samples taken per bidder label per minute (a fixed window of the server's
    /// clock); the rest are counted `dropped{reason="rate"}`.
    pub per_minute: u32,
    /// `capture.max_bytes`: most bytes the capture files together hold; the oldest are deleted to make room.
    pub max_bytes: u64,
    /// `capture.queue`: samples waiting for the writer thread at most; a sample past it is counted
    /// `dropped{reason="queue_full"}`.
    pub queue: usize,
    /// `capture.include_request`: also write the bid request (`/validate`'s whole envelope, the auction's
    /// `request` part). Off: `/validate` keeps only the envelope's `response`.
    pub include_request: bool,
}

impl Default for CaptureConfig {
    fn default() -> Self {
        CaptureConfig {
            dir: None,
            per_minute: 10,
            max_bytes: 100 * 1024 * 1024,
            queue: 64,
            include_request: false,
        }
    }
}

impl CaptureConfig {
    /// Checks the values no type expresses.
    ///
    /// # Errors
    /// The key out of range, named: `per_minute`, `max_bytes` and `queue` must be positive, `queue` at most
    /// [`MAX_QUEUE`], `per_minute` at most [`MAX_PER_MINUTE`].
    pub fn check(&self) -> Result<(), String> {
        for (key, value) in [
            ("capture.per_minute", u64::from(self.per_minute)),
            ("capture.max_bytes", self.max_bytes),
            ("capture.queue", self.queue as u64),
        ] {
            if value == 0 {
                return Err(format!("{key} must be greater than 0"));
            }
        }
        if self.queue > MAX_QUEUE {
            return Err(format!(
                "capture.queue must be at most {MAX_QUEUE} (each queued sample holds its body), got {}",
                self.queue
            ));
        }
        if self.per_minute > MAX_PER_MINUTE {
            return Err(format!(
                "capture.per_minute must be at most {MAX_PER_MINUTE}, got {}",
                self.per_minute
            ));
        }
        Ok(())
    }
}
