//! Property tests: for random sequences of documents, the caps hold, the accounting is exact, and the events
//! agree with the capacities the test observed.

use crate::common;

use std::time::Duration;

use bidscan_pool::{
    Decision, DropReason, Event, PoolConfig, Record, RetentionPolicy, SHRINK_ROUNDING, Sizing,
};
use common::{Harness, KIB, fill};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Step {
    /// Check out one item per size, write a document of that size into each, check them in in order.
    Documents(Vec<usize>),
    /// Move the clock forward, in seconds.
    Wait(u64),
    /// Call `release_idle` explicitly.
    ReleaseIdle,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => prop::collection::vec(0usize..600_000, 1..=3).prop_map(Step::Documents),
        1 => (0u64..20).prop_map(Step::Wait),
        1 => Just(Step::ReleaseIdle),
    ]
}

fn config() -> impl Strategy<Value = PoolConfig> {
    (1u32..10, 16usize..1024, 0usize..2048, 1usize..4).prop_map(
        |(window, max_kib, global_kib, idle_items)| {
            PoolConfig::builder()
                .window(window)
                .max_retained_bytes(max_kib * KIB)
                .global_retained_bytes(global_kib * KIB)
                .idle_release(Duration::from_secs(10))
                .max_idle_items(idle_items)
                .build()
        },
    )
}

/// Checks the accounting invariants of the harness.
fn check_accounting(h: &Harness) -> Result<(), TestCaseError> {
    prop_assert_eq!(h.pool.retained_bytes(), h.pool.measure_idle_bytes());
    prop_assert_eq!(h.budget.retained(), h.pool.retained_bytes());
    prop_assert!(h.budget.retained() <= h.budget.cap());
    prop_assert!(h.budget.peak() <= h.budget.cap());
    prop_assert!(h.pool.idle_len() <= h.pool.config().max_idle_items);
    Ok(())
}

/// Checks the records of one check-in of an item that had `out` bytes at check-out and `now` at check-in.
fn check_check_in(
    h: &Harness,
    records: &[Record],
    out: usize,
    now: usize,
) -> Result<(), TestCaseError> {
    let config = h.pool.config();
    let mut rest = records;
    if now > out {
        prop_assert_eq!(
            rest.first(),
            Some(&Record::Event("input", Event::Grow { from: out, to: now }))
        );
        rest = &rest[1..];
    }
    let mut kept = now;
    if let Some(Record::Event(_, Event::Shrink { from, to })) = rest.first() {
        prop_assert_eq!(*from, now, "a shrink starts from the capacity at check-in");
        prop_assert!(to < from);
        kept = *to;
        rest = &rest[1..];
    }
    match rest {
        [Record::Event(_, Event::Drop { reason, bytes })] => {
            prop_assert_eq!(*bytes, kept);
            prop_assert_eq!(
                *reason == DropReason::TooLarge,
                now > config.max_retained_bytes
            );
            prop_assert!(matches!(
                reason,
                DropReason::TooLarge | DropReason::GlobalCap | DropReason::PoolFull
            ));
        }
        [Record::Retained(_, total)] => {
            prop_assert!(now <= config.max_retained_bytes);
            prop_assert_eq!(*total, h.pool.retained_bytes());
        }
        other => prop_assert!(false, "unexpected check-in records {:?}", other),
    }
    Ok(())
}

proptest! {
    // No regression files: integration tests have no lib.rs beside them for proptest to find.
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn caps_hold_accounting_is_exact_and_events_are_consistent(
        config in config(),
        steps in prop::collection::vec(step(), 1..60),
    ) {
        let h = Harness::new(config);
        for step in steps {
            match step {
                Step::Documents(sizes) => {
                    let mut bodies = Vec::new();
                    for &size in &sizes {
                        let mut body = h.pool.checkout();
                        let out = body.capacity();
                        prop_assert_eq!(out, body.capacity_at_checkout());
                        fill(&mut body, size);
                        let now = body.capacity();
                        bodies.push((body, out, now));
                    }
                    h.recorder.take();
                    for (body, out, now) in bodies {
                        drop(body);
                        check_check_in(&h, &h.recorder.take(), out, now)?;
                        check_accounting(&h)?;
                    }
                }
                Step::Wait(seconds) => h.clock.advance(Duration::from_secs(seconds)),
                Step::ReleaseIdle => {
                    let idle_before = h.pool.idle_len();
                    let released = h.pool.release_idle(bidscan_pool::Clock::now(&h.clock));
                    prop_assert_eq!(h.pool.idle_len(), idle_before - released);
                    let records = h.recorder.take();
                    let drops = records.iter().filter(|r| matches!(
                        r, Record::Event(_, Event::Drop { reason: DropReason::Idle, .. })
                    )).count();
                    prop_assert_eq!(drops, released);
                }
            }
            check_accounting(&h)?;
            let records = h.recorder.take();
            for record in &records {
                if let Record::Retained(_, total) = record {
                    prop_assert!(*total <= h.budget.cap());
                }
            }
        }
        drop(h.pool);
        prop_assert_eq!(h.budget.retained(), 0);
    }

    #[test]
    fn a_constant_stream_never_regrows_after_its_first_document(
        size in 0usize..2_000_000,
        initial in 0usize..4_000_000,
        window in 1u32..70,
    ) {
        let config = PoolConfig::builder().window(window).build();
        let h = Harness::new(config);
        // Start from an item of arbitrary capacity.
        { let mut body = h.pool.checkout(); body.reserve_exact(initial); }
        h.document(size);
        h.events();
        for _ in 0..3 * window as usize + 2 {
            h.document(size);
        }
        let events = h.events();
        // After the first document: never a grow, at most one shrink (to the stream's own size).
        prop_assert!(!events.iter().any(|e| matches!(e, Event::Grow { .. })), "{:?}", events);
        let shrinks = events.iter().filter(|e| matches!(e, Event::Shrink { .. })).count();
        prop_assert!(shrinks <= 1, "{:?}", events);
    }

    #[test]
    fn the_policy_shrinks_only_above_twice_the_mark_and_never_below_it(
        docs in prop::collection::vec((0usize..8_000_000, 0usize..4_000_000), 1..200),
        window in 1u32..20,
    ) {
        let policy = RetentionPolicy::new(window, 4 * 1024 * KIB);
        let mut sizing = Sizing::new();
        let mut mark = 0;
        let mut count = 0;
        for (capacity, needed) in docs {
            let needed = needed.min(capacity);
            mark = mark.max(needed);
            count += 1;
            let decision = policy.check_in(&mut sizing, capacity, needed);
            if capacity > 4 * 1024 * KIB {
                prop_assert_eq!(decision, Decision::Drop(DropReason::TooLarge));
                break; // the pool drops the item, and its history with it
            } else if count % window == 0 {
                match decision {
                    Decision::Shrink(to) => {
                        prop_assert!(capacity > 2 * mark);
                        prop_assert!(to >= mark && to < capacity && to % SHRINK_ROUNDING == 0);
                    }
                    Decision::Keep => prop_assert!(capacity <= 2 * mark || mark.next_multiple_of(SHRINK_ROUNDING) >= capacity),
                    Decision::Drop(_) => prop_assert!(false, "dropped below the maximum"),
                }
                prop_assert_eq!(sizing, Sizing::new());
                mark = 0;
            } else {
                prop_assert_eq!(decision, Decision::Keep);
                prop_assert_eq!((sizing.high_water(), sizing.documents()), (mark, count % window));
            }
        }
    }
}
