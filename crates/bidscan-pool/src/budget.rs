//! [`Budget`]: the cap on bytes retained by all pools together.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::config::{DEFAULT_GLOBAL_RETAINED_BYTES, PoolConfig};

/// A cap on the bytes held by idle items across every pool that shares it (through an `Arc`).
///
/// **What counts**: only idle items, i.e. items sitting in a pool between a check-in and the next check-out. A
/// checked-out item is not counted (its bytes are in use, and the request that holds it is bounded elsewhere, by
/// the server's body limit and concurrency limit). A pool reserves an item's capacity when it checks the item in
/// and keeps it, and gives the bytes back when the item is checked out again, released, or the pool is dropped.
/// So [`retained`](Budget::retained) always equals the sum of the capacities of the idle items of all its pools.
///
/// Reservations are a compare-and-swap loop on one atomic counter, so concurrent pools never take it over the
/// cap, not even briefly; an item that does not fit is dropped by its pool (reason `global_cap`).
#[derive(Debug)]
pub struct Budget {
    /// The cap, in bytes.
    cap: usize,
    /// Bytes reserved by idle items; always `<= cap`.
    retained: AtomicUsize,
    /// Largest value `retained` has had; always `<= cap`.
    peak: AtomicUsize,
}

impl Default for Budget {
    /// A budget of [`DEFAULT_GLOBAL_RETAINED_BYTES`] (64 MiB).
    fn default() -> Budget {
        Budget::new(DEFAULT_GLOBAL_RETAINED_BYTES)
    }
}

impl Budget {
    /// A budget that lets idle items hold at most `cap` bytes in total.
    pub fn new(cap: usize) -> Budget {
        Budget {
            cap,
            retained: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
        }
    }

    /// A budget of [`PoolConfig::global_retained_bytes`].
    pub fn from_config(config: &PoolConfig) -> Budget {
        Budget::new(config.global_retained_bytes)
    }

    /// The cap, in bytes.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// Bytes currently held by idle items of all pools sharing this budget.
    pub fn retained(&self) -> usize {
        self.retained.load(Ordering::Relaxed)
    }

    /// The largest [`retained`](Budget::retained) has ever been; never above [`cap`](Budget::cap).
    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }

    /// Reserves `bytes` if that keeps the total within the cap; `false` (and nothing reserved) otherwise.
    ///
    /// Relaxed ordering suffices: the counter guards no other memory, and read-modify-writes of one atomic are
    /// totally ordered, so no two reservations can both see room for only one of them.
    pub(crate) fn try_reserve(&self, bytes: usize) -> bool {
        let mut current = self.retained.load(Ordering::Relaxed);
        loop {
            let Some(next) = current.checked_add(bytes).filter(|&next| next <= self.cap) else {
                return false;
            };
            match self.retained.compare_exchange_weak(
                current,
                next,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    // A plain load first: the peak rarely moves, and a load is cheaper than a read-modify-write.
                    if next > self.peak.load(Ordering::Relaxed) {
                        self.peak.fetch_max(next, Ordering::Relaxed);
                    }
                    return true;
                }
                Err(actual) => current = actual,
            }
        }
    }

    /// Gives back `bytes` reserved earlier.
    pub(crate) fn release(&self, bytes: usize) {
        let previous = self.retained.fetch_sub(bytes, Ordering::Relaxed);
        debug_assert!(previous >= bytes, "released more than was reserved");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserves_up_to_the_cap_exactly() {
        let budget = Budget::new(10_000);
        assert!(budget.try_reserve(6_000));
        assert!(!budget.try_reserve(4_001));
        assert_eq!(budget.retained(), 6_000);
        assert!(budget.try_reserve(4_000));
        assert_eq!(budget.retained(), 10_000);
        assert!(!budget.try_reserve(1));
        budget.release(6_000);
        assert_eq!(budget.retained(), 4_000);
        assert_eq!(budget.peak(), 10_000);
    }

    #[test]
    fn never_overflows() {
        let budget = Budget::new(usize::MAX);
        assert!(budget.try_reserve(usize::MAX - 1));
        assert!(!budget.try_reserve(2));
        assert_eq!(budget.retained(), usize::MAX - 1);
    }

    #[test]
    fn zero_bytes_always_fit() {
        let budget = Budget::new(0);
        assert!(budget.try_reserve(0));
        assert!(!budget.try_reserve(1));
        assert_eq!(Budget::default().cap(), 64 * 1024 * 1024);
    }
}
