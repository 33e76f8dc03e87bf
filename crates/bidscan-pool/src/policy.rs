//! [`RetentionPolicy`]: decides, at each check-in, whether an item is kept as is, shrunk, or dropped.
//!
//! The policy is pure: it sees the item's capacity and the bytes the last document needed, plus the item's
//! [`Sizing`] history, and returns a [`Decision`]. It never touches the item; the pool carries the decision out.

use crate::config::PoolConfig;
use crate::event::DropReason;

/// Shrink targets are rounded up to a multiple of this many bytes (4 KiB, the page size): allocations of this size
/// are page-granular anyway, and the slack absorbs documents a little larger than the window's high-water mark
/// without a re-grow.
pub const SHRINK_ROUNDING: usize = 4096;

/// What to do with an item at check-in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Keep it with its capacity.
    Keep,
    /// Shrink it to about this many bytes, then keep it.
    Shrink(usize),
    /// Drop it (the policy only ever answers [`DropReason::TooLarge`]).
    Drop(DropReason),
}

/// Per-item history the policy keeps between check-ins: the sizing window in progress.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sizing {
    /// Largest [`Reusable::needed_bytes`](crate::Reusable::needed_bytes) seen since the item was last sized
    /// (the start of the window in progress).
    high_water: usize,
    /// Documents checked in since the item was last sized; always below the policy's window after a check-in.
    documents: u32,
}

impl Sizing {
    /// A fresh item's history: no documents yet.
    pub fn new() -> Sizing {
        Sizing::default()
    }

    /// Largest number of bytes needed since the item was last sized.
    pub fn high_water(&self) -> usize {
        self.high_water
    }

    /// Documents seen since the item was last sized.
    pub fn documents(&self) -> u32 {
        self.documents
    }
}

/// The retention rule, applied at every check-in:
///
/// 1. Record the document: raise the high-water mark to `needed`, count the document.
/// 2. `capacity > max_retained_bytes` → [`Decision::Drop`]`(TooLarge)`.
/// 3. When `window` documents have passed since the item was last sized, size it: if
///    `capacity > 2 × high-water mark`, [`Decision::Shrink`] to the mark rounded up to [`SHRINK_ROUNDING`].
///    Either way a new window starts with a mark of zero.
/// 4. Otherwise [`Decision::Keep`].
///
/// So a steady stream of same-size documents never re-grows (the shrink target covers the whole window's mark),
/// sizes alternating within a window keep the larger capacity, and a one-off large document is given back at the
/// end of the window after the one it landed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetentionPolicy {
    /// Documents per sizing window; at least 1.
    window: u32,
    /// Largest capacity kept, in bytes.
    max_retained_bytes: usize,
}

impl Default for RetentionPolicy {
    fn default() -> RetentionPolicy {
        RetentionPolicy::from_config(&PoolConfig::default())
    }
}

impl RetentionPolicy {
    /// A policy sizing every `window` documents (0 behaves as 1) and keeping at most `max_retained_bytes`.
    pub fn new(window: u32, max_retained_bytes: usize) -> RetentionPolicy {
        RetentionPolicy {
            window: window.max(1),
            max_retained_bytes,
        }
    }

    /// The policy of a config: its `window` and `max_retained_bytes`.
    pub fn from_config(config: &PoolConfig) -> RetentionPolicy {
        RetentionPolicy::new(config.window, config.max_retained_bytes)
    }

    /// Documents per sizing window.
    pub fn window(&self) -> u32 {
        self.window
    }

    /// Largest capacity kept, in bytes.
    pub fn max_retained_bytes(&self) -> usize {
        self.max_retained_bytes
    }

    /// Records a document that needed `needed` bytes of an item of `capacity` bytes, and decides its fate.
    pub fn check_in(&self, sizing: &mut Sizing, capacity: usize, needed: usize) -> Decision {
        sizing.high_water = sizing.high_water.max(needed);
        sizing.documents = sizing.documents.saturating_add(1);
        if capacity > self.max_retained_bytes {
            return Decision::Drop(DropReason::TooLarge);
        }
        if sizing.documents < self.window {
            return Decision::Keep;
        }
        let mark = std::mem::take(sizing).high_water;
        let target = round_up(mark);
        if capacity > mark.saturating_mul(2) && target < capacity {
            Decision::Shrink(target)
        } else {
            Decision::Keep
        }
    }
}

/// `bytes` rounded up to a multiple of [`SHRINK_ROUNDING`], saturating at the largest such multiple.
pub fn round_up(bytes: usize) -> usize {
    bytes
        .checked_next_multiple_of(SHRINK_ROUNDING)
        .unwrap_or(usize::MAX - usize::MAX % SHRINK_ROUNDING)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KIB: usize = 1024;

    /// Feeds `(capacity, needed)` pairs to one item's history and returns the decisions.
    fn run(policy: &RetentionPolicy, docs: &[(usize, usize)]) -> Vec<Decision> {
        let mut sizing = Sizing::new();
        docs.iter()
            .map(|&(capacity, needed)| policy.check_in(&mut sizing, capacity, needed))
            .collect()
    }

    #[test]
    fn keeps_within_a_window_and_shrinks_at_its_end() {
        let policy = RetentionPolicy::new(4, 4096 * KIB);
        let decisions = run(&policy, &[(1024 * KIB, 20_000); 4]);
        assert_eq!(
            decisions,
            [
                Decision::Keep,
                Decision::Keep,
                Decision::Keep,
                Decision::Shrink(20 * KIB)
            ]
        );
    }

    #[test]
    fn the_mark_covers_the_whole_window() {
        let policy = RetentionPolicy::new(3, 4096 * KIB);
        let mut sizing = Sizing::new();
        assert_eq!(
            policy.check_in(&mut sizing, 256 * KIB, 200_000),
            Decision::Keep
        );
        assert_eq!(policy.check_in(&mut sizing, 256 * KIB, 10), Decision::Keep);
        assert_eq!(sizing.high_water(), 200_000);
        assert_eq!(sizing.documents(), 2);
        // 256 KiB <= 2 × 200,000: keep; the window restarts.
        assert_eq!(policy.check_in(&mut sizing, 256 * KIB, 10), Decision::Keep);
        assert_eq!(sizing, Sizing::new());
    }

    #[test]
    fn shrinks_only_above_twice_the_mark() {
        let policy = RetentionPolicy::new(1, usize::MAX);
        let mut sizing = Sizing::new();
        assert_eq!(
            policy.check_in(&mut sizing, 200_000, 100_000),
            Decision::Keep
        );
        assert_eq!(
            policy.check_in(&mut sizing, 200_001, 100_000),
            Decision::Shrink(100 * KIB)
        );
    }

    #[test]
    fn never_shrinks_to_its_own_size_or_more() {
        // 5,000 bytes needed, capacity 12,000 > 2 × 5,000, but the target (8 KiB) is below it: shrink.
        let policy = RetentionPolicy::new(1, usize::MAX);
        assert_eq!(
            run(&policy, &[(12_000, 5_000)]),
            [Decision::Shrink(8 * KIB)]
        );
        // Capacity 3 with mark 1: the target (4 KiB) would not be smaller: keep.
        assert_eq!(run(&policy, &[(3, 1)]), [Decision::Keep]);
    }

    #[test]
    fn an_unused_item_shrinks_to_nothing() {
        let policy = RetentionPolicy::new(2, usize::MAX);
        assert_eq!(
            run(&policy, &[(64 * KIB, 0); 2]),
            [Decision::Keep, Decision::Shrink(0)]
        );
    }

    #[test]
    fn drops_above_the_retained_maximum_at_once() {
        let policy = RetentionPolicy::new(64, 4096 * KIB);
        assert_eq!(
            run(
                &policy,
                &[(4096 * KIB, 3_000_000), (4096 * KIB + 1, 4_000_000)]
            ),
            [Decision::Keep, Decision::Drop(DropReason::TooLarge)]
        );
    }

    #[test]
    fn window_zero_behaves_as_one() {
        let policy = RetentionPolicy::new(0, usize::MAX);
        assert_eq!(policy.window(), 1);
        assert_eq!(run(&policy, &[(1 << 20, 1)]), [Decision::Shrink(4 * KIB)]);
    }

    #[test]
    fn defaults_come_from_the_config() {
        let policy = RetentionPolicy::default();
        assert_eq!(policy.window(), 64);
        assert_eq!(policy.max_retained_bytes(), 4 * 1024 * KIB);
    }

    #[test]
    fn rounds_up_to_pages_without_overflow() {
        assert_eq!(round_up(0), 0);
        assert_eq!(round_up(1), 4096);
        assert_eq!(round_up(4096), 4096);
        assert_eq!(round_up(100_000), 102_400);
        assert_eq!(round_up(usize::MAX), usize::MAX - usize::MAX % 4096);
    }
}
