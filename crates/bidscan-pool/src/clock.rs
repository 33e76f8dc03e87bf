//! [`Clock`]: where a pool takes the time from, so idle release can be tested without sleeping.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// A source of monotonic time.
pub trait Clock: Send {
    /// The current instant.
    fn now(&self) -> Instant;
}

/// The real clock: [`Instant::now`]. The default for a [`Pool`](crate::Pool).
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
}

/// A clock that only moves when told to; clones share the same time. For tests.
#[derive(Clone, Debug)]
pub struct ManualClock {
    now: Arc<Mutex<Instant>>,
}

impl Default for ManualClock {
    fn default() -> ManualClock {
        ManualClock::new(Instant::now())
    }
}

impl ManualClock {
    /// A clock standing at `start`.
    pub fn new(start: Instant) -> ManualClock {
        ManualClock {
            now: Arc::new(Mutex::new(start)),
        }
    }

    /// Moves the clock (and all its clones) forward by `by`.
    pub fn advance(&self, by: Duration) {
        let mut now = self.now.lock().unwrap_or_else(PoisonError::into_inner);
        *now += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Instant {
        *self.now.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_clock_moves_only_when_advanced_and_clones_share_it() {
        let clock = ManualClock::default();
        let start = clock.now();
        let other = clock.clone();
        assert_eq!(other.now(), start);
        clock.advance(Duration::from_secs(3));
        assert_eq!(other.now(), start + Duration::from_secs(3));
    }
}
