//! What a pool reports: [`Event`], [`DropReason`], the [`Observer`] that receives them, and two observers
//! ([`NoopObserver`], [`Recorder`]).

use std::fmt;
use std::sync::{Mutex, PoisonError};

/// Something that happened to a pooled item. Sizes are capacities in bytes
/// ([`Reusable::capacity_bytes`](crate::Reusable::capacity_bytes)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The item's capacity grew while checked out: `from` at check-out, `to` at check-in.
    Grow {
        /// Capacity at check-out.
        from: usize,
        /// Capacity at check-in.
        to: usize,
    },
    /// The retention policy shrank the item at check-in: `from` the capacity at check-in, `to` the capacity after
    /// [`Reusable::shrink_to`](crate::Reusable::shrink_to).
    Shrink {
        /// Capacity before shrinking.
        from: usize,
        /// Capacity after shrinking.
        to: usize,
    },
    /// The item was dropped instead of kept; `bytes` is the capacity released.
    Drop {
        /// Why it was dropped.
        reason: DropReason,
        /// Capacity released, in bytes.
        bytes: usize,
    },
    /// A check-out was served by an idle item.
    CheckoutHit,
    /// A check-out found no idle item and built a new one.
    CheckoutMiss,
}

/// Why an item was dropped rather than kept. Label values come from [`DropReason::as_str`].
///
/// Non-exhaustive: match with a wildcard arm, or use [`as_str`](DropReason::as_str) as a metric label.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// Its capacity exceeded [`PoolConfig::max_retained_bytes`](crate::PoolConfig::max_retained_bytes).
    TooLarge,
    /// Keeping it would have taken the shared [`Budget`](crate::Budget) over its cap.
    GlobalCap,
    /// It sat idle longer than [`PoolConfig::idle_release`](crate::PoolConfig::idle_release).
    Idle,
    /// The pool already held [`PoolConfig::max_idle_items`](crate::PoolConfig::max_idle_items) idle items.
    PoolFull,
}

impl DropReason {
    /// The snake_case name: `"too_large"`, `"global_cap"`, `"idle"` or `"pool_full"`.
    pub fn as_str(self) -> &'static str {
        match self {
            DropReason::TooLarge => "too_large",
            DropReason::GlobalCap => "global_cap",
            DropReason::Idle => "idle",
            DropReason::PoolFull => "pool_full",
        }
    }
}

impl fmt::Display for DropReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Receives a pool's events; the server implements it with Prometheus counters.
///
/// Called synchronously on the worker thread, in the order things happen, so implementations should be cheap
/// (an atomic increment). `buffer` is the pool's name (from [`Pool::new`](crate::Pool::new)).
pub trait Observer: Send + Sync {
    /// One event.
    fn on_event(&self, buffer: &'static str, event: &Event);

    /// The bytes held by this pool's idle items changed to `total_bytes` (this pool only: several worker pools
    /// may share one name; the total across all pools of a budget is [`Budget::retained`](crate::Budget::retained)).
    fn on_retained(&self, buffer: &'static str, total_bytes: usize);
}

/// An observer that ignores everything.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoopObserver;

impl Observer for NoopObserver {
    fn on_event(&self, _: &'static str, _: &Event) {}
    fn on_retained(&self, _: &'static str, _: usize) {}
}

/// One call an observer received, as kept by [`Recorder`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Record {
    /// [`Observer::on_event`].
    Event(&'static str, Event),
    /// [`Observer::on_retained`].
    Retained(&'static str, usize),
}

/// An observer that keeps every call in memory, in order; for tests and debugging.
#[derive(Debug, Default)]
pub struct Recorder {
    records: Mutex<Vec<Record>>,
}

impl Recorder {
    /// An empty recorder.
    pub fn new() -> Recorder {
        Recorder::default()
    }

    /// Everything recorded so far, leaving the recorder empty.
    pub fn take(&self) -> Vec<Record> {
        std::mem::take(&mut *self.lock())
    }

    /// The events recorded so far (without the retained totals), leaving the recorder empty.
    pub fn take_events(&self) -> Vec<Event> {
        self.take()
            .into_iter()
            .filter_map(|record| match record {
                Record::Event(_, event) => Some(event),
                Record::Retained(..) => None,
            })
            .collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Record>> {
        self.records.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Observer for Recorder {
    fn on_event(&self, buffer: &'static str, event: &Event) {
        self.lock().push(Record::Event(buffer, *event));
    }

    fn on_retained(&self, buffer: &'static str, total_bytes: usize) {
        self.lock().push(Record::Retained(buffer, total_bytes));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_have_snake_case_labels() {
        assert_eq!(DropReason::TooLarge.as_str(), "too_large");
        assert_eq!(DropReason::GlobalCap.to_string(), "global_cap");
        assert_eq!(DropReason::Idle.as_str(), "idle");
        assert_eq!(DropReason::PoolFull.as_str(), "pool_full");
    }

    #[test]
    fn recorder_keeps_calls_in_order_and_empties_on_take() {
        let recorder = Recorder::new();
        recorder.on_event("input", &Event::CheckoutMiss);
        recorder.on_retained("input", 4096);
        assert_eq!(
            recorder.take(),
            [
                Record::Event("input", Event::CheckoutMiss),
                Record::Retained("input", 4096)
            ]
        );
        assert!(recorder.take().is_empty());
    }
}
