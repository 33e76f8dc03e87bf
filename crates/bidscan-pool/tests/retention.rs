//! Deterministic sequences of document sizes through one pool, asserting the exact events.

use crate::common;

use bidscan_pool::{DropReason, Event, PoolConfig, Record};
use common::{Counts, Harness, KIB, MIB, counts, grown_capacity};

#[test]
fn a_steady_stream_grows_once_during_warm_up_and_never_after() {
    let h = Harness::new(PoolConfig::default());
    h.document(100_000);
    assert_eq!(
        h.events(),
        [
            Event::CheckoutMiss,
            Event::Grow {
                from: 0,
                to: 128 * KIB
            }
        ]
    );
    for _ in 1..10_000 {
        h.document(100_000);
    }
    let after_warm_up = h.events();
    assert_eq!(
        counts(&after_warm_up),
        Counts {
            hits: 9_999,
            ..Counts::default()
        }
    );
    assert!(
        after_warm_up
            .iter()
            .all(|event| *event == Event::CheckoutHit)
    );
    assert_eq!(h.pool.retained_bytes(), 128 * KIB);
    assert_eq!(h.budget.retained(), 128 * KIB);
}

#[test]
fn an_oversized_item_shrinks_once_to_the_stream_and_never_regrows() {
    let h = Harness::with_factory(PoolConfig::default(), || Vec::with_capacity(MIB));
    for _ in 0..10_000 {
        h.document(100_000);
    }
    let events = h.events();
    // Shrunk at the end of the first window (64 documents) to 100,000 rounded up to 4 KiB.
    let shrink = Event::Shrink {
        from: MIB,
        to: 100 * KIB,
    };
    assert_eq!(events.iter().position(|e| *e == shrink), Some(64));
    assert_eq!(
        counts(&events),
        Counts {
            hits: 9_999,
            misses: 1,
            shrinks: 1,
            ..Counts::default()
        }
    );
    assert_eq!(h.pool.retained_bytes(), 100 * KIB);
}

/// 100 documents of 20 KB, one `big` document, then 200 of 20 KB; returns the events around the big one.
fn spike(h: &Harness, big: usize) -> Vec<Event> {
    for _ in 0..100 {
        h.document(20_000);
    }
    assert_eq!(
        counts(&h.events()),
        Counts {
            hits: 99,
            misses: 1,
            grows: 1,
            ..Counts::default()
        }
    );
    h.document(big);
    let mut events = h.events();
    for _ in 0..200 {
        h.document(20_000);
    }
    events.extend(h.events());
    events
}

#[test]
fn a_document_above_the_retained_maximum_is_dropped_after_use() {
    let h = Harness::new(PoolConfig::default());
    let events = spike(&h, 5_000_000);
    let grown = grown_capacity(5_000_000);
    assert_eq!(grown, 8 * MIB);
    assert_eq!(
        events[..5],
        [
            Event::CheckoutHit,
            Event::Grow {
                from: 32 * KIB,
                to: grown
            },
            Event::Drop {
                reason: DropReason::TooLarge,
                bytes: grown
            },
            Event::CheckoutMiss,
            Event::Grow {
                from: 0,
                to: 32 * KIB
            },
        ]
    );
    assert_eq!(
        counts(&events),
        Counts {
            hits: 200,
            misses: 1,
            grows: 2,
            drops: 1,
            ..Counts::default()
        }
    );
    assert_eq!(h.budget.retained(), 32 * KIB);
    assert!(h.budget.retained() < 2 * 20_000);
}

#[test]
fn a_large_document_below_the_maximum_is_shrunk_by_the_end_of_the_next_window() {
    let h = Harness::new(PoolConfig::default());
    // The 3 MB document is number 101, in the window of documents 65..=128; that window's mark is 3 MB, so the
    // next window (129..=192) is the first whose mark (20,000) is below half the capacity.
    let events = spike(&h, 3_000_000);
    assert_eq!(
        events[..2],
        [
            Event::CheckoutHit,
            Event::Grow {
                from: 32 * KIB,
                to: 4 * MIB
            }
        ]
    );
    let shrink = Event::Shrink {
        from: 4 * MIB,
        to: 20 * KIB,
    };
    // Document 192 is the 92nd after the big one: its check-in holds the shrink.
    let hits_before = events.iter().position(|e| *e == shrink).map(|at| {
        events[..at]
            .iter()
            .filter(|e| **e == Event::CheckoutHit)
            .count()
    });
    assert_eq!(hits_before, Some(92));
    assert_eq!(
        counts(&events),
        Counts {
            hits: 201,
            grows: 1,
            shrinks: 1,
            ..Counts::default()
        }
    );
    assert_eq!(h.budget.retained(), 20 * KIB);
    assert!(h.budget.retained() < 2 * 20_000);
}

#[test]
fn alternating_sizes_settle_without_oscillating() {
    let h = Harness::new(PoolConfig::default());
    h.document(20_000);
    h.document(110_000);
    assert_eq!(
        h.events(),
        [
            Event::CheckoutMiss,
            Event::Grow {
                from: 0,
                to: 32 * KIB
            },
            Event::CheckoutHit,
            Event::Grow {
                from: 32 * KIB,
                to: 128 * KIB
            },
        ]
    );
    for _ in 0..5_000 {
        h.document(20_000);
        h.document(110_000);
    }
    assert_eq!(
        counts(&h.events()),
        Counts {
            hits: 10_000,
            ..Counts::default()
        }
    );
    assert_eq!(h.budget.retained(), 128 * KIB);
}

#[test]
fn without_a_window_alternating_sizes_would_oscillate() {
    // Why the window exists: sized after every document, the same traffic shrinks and re-grows each time.
    let h = Harness::new(PoolConfig::builder().window(1).build());
    for _ in 0..100 {
        h.document(20_000);
        h.document(110_000);
    }
    let events = counts(&h.events());
    // Every pair after the first: shrink to 20 KiB after the small one, re-grow for the large one.
    assert_eq!(events.shrinks, 99);
    assert_eq!(events.grows, 101);
}

#[test]
fn growth_is_reported_from_checkout_to_checkin_and_shrink_from_checkin() {
    let h = Harness::new(PoolConfig::builder().window(2).build());
    h.document(10_000);
    h.document(300_000);
    h.document(1_000);
    h.document(1_000);
    assert_eq!(
        h.recorder.take(),
        [
            Record::Event("input", Event::CheckoutMiss),
            Record::Event(
                "input",
                Event::Grow {
                    from: 0,
                    to: 16 * KIB
                }
            ),
            Record::Retained("input", 16 * KIB),
            Record::Event("input", Event::CheckoutHit),
            Record::Retained("input", 0),
            Record::Event(
                "input",
                Event::Grow {
                    from: 16 * KIB,
                    to: 512 * KIB
                }
            ),
            Record::Retained("input", 512 * KIB),
            Record::Event("input", Event::CheckoutHit),
            Record::Retained("input", 0),
            Record::Retained("input", 512 * KIB),
            Record::Event("input", Event::CheckoutHit),
            Record::Retained("input", 0),
            Record::Event(
                "input",
                Event::Shrink {
                    from: 512 * KIB,
                    to: 4 * KIB
                }
            ),
            Record::Retained("input", 4 * KIB),
        ]
    );
}

#[test]
fn items_beyond_the_idle_limit_are_dropped() {
    let h = Harness::new(PoolConfig::builder().max_idle_items(2).build());
    {
        let mut items: Vec<_> = (0..3).map(|_| h.pool.checkout()).collect();
        for item in &mut items {
            common::fill(item, 1_000);
        }
    }
    let events = h.events();
    assert_eq!(counts(&events).misses, 3);
    assert_eq!(
        events.last(),
        Some(&Event::Drop {
            reason: DropReason::PoolFull,
            bytes: 1_000
        })
    );
    assert_eq!(h.pool.idle_len(), 2);
    assert_eq!(h.budget.retained(), 2_000);
}

#[test]
fn an_item_over_the_global_cap_is_dropped_and_accounting_stays_exact() {
    let h = Harness::new(
        PoolConfig::builder()
            .global_retained_bytes(100 * KIB)
            .build(),
    );
    {
        let mut a = h.pool.checkout();
        let mut b = h.pool.checkout();
        common::fill(&mut a, 60_000); // 64 KiB
        common::fill(&mut b, 60_000); // 64 KiB: does not fit beside a
    }
    let events = h.events();
    assert_eq!(
        events.last(),
        Some(&Event::Drop {
            reason: DropReason::GlobalCap,
            bytes: 64 * KIB
        })
    );
    assert_eq!(h.budget.retained(), 64 * KIB);
    assert_eq!(h.pool.measure_idle_bytes(), 64 * KIB);
    drop(h.pool);
    assert_eq!(h.budget.retained(), 0);
    assert_eq!(h.recorder.take(), [Record::Retained("input", 0)]);
}
