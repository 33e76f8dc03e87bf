//! Idle release, driven by a manual clock: no sleeps.

use crate::common;

use std::time::Duration;

use bidscan_pool::{DropReason, Event, PoolConfig, Record};
use common::{Harness, KIB, fill};

const IDLE: Duration = Duration::from_secs(30);

#[test]
fn an_item_idle_longer_than_the_limit_is_released_explicitly() {
    let h = Harness::new(PoolConfig::default());
    h.document(20_000);
    h.recorder.take();
    h.clock.advance(IDLE);
    // Exactly 30 s is not longer than 30 s.
    assert_eq!(h.pool.release_idle(bidscan_pool::Clock::now(&h.clock)), 0);
    assert!(h.recorder.take().is_empty());
    h.clock.advance(Duration::from_nanos(1));
    assert_eq!(h.pool.release_idle(bidscan_pool::Clock::now(&h.clock)), 1);
    assert_eq!(
        h.recorder.take(),
        [
            Record::Event(
                "input",
                Event::Drop {
                    reason: DropReason::Idle,
                    bytes: 32 * KIB
                }
            ),
            Record::Retained("input", 0),
        ]
    );
    assert_eq!(h.pool.idle_len(), 0);
    assert_eq!(h.budget.retained(), 0);
}

#[test]
fn checkout_releases_expired_items_first_and_keeps_fresh_ones() {
    let h = Harness::new(PoolConfig::default());
    let (mut a, mut b) = (h.pool.checkout(), h.pool.checkout());
    fill(&mut a, 20_000);
    fill(&mut b, 50_000);
    h.clock.advance(Duration::from_secs(20));
    let mut c = h.pool.checkout(); // a miss: a and b are still out
    fill(&mut c, 100_000);
    drop(a);
    drop(b);
    drop(c); // idle time counts from check-out: c's is 20 s shorter
    assert_eq!(h.pool.idle_len(), 3);
    assert_eq!(h.pool.retained_bytes(), (32 + 64 + 128) * KIB);
    h.recorder.take();

    h.clock.advance(Duration::from_secs(11)); // the first two: 31 s idle; the third: 11 s
    {
        let body = h.pool.checkout();
        assert_eq!(body.capacity(), 128 * KIB, "the freshest item is reused");
    }
    let events = h.events();
    assert_eq!(
        events,
        [
            Event::Drop {
                reason: DropReason::Idle,
                bytes: 32 * KIB
            },
            Event::Drop {
                reason: DropReason::Idle,
                bytes: 64 * KIB
            },
            Event::CheckoutHit,
        ]
    );
    assert_eq!(h.pool.idle_len(), 1);
    assert_eq!(h.budget.retained(), 128 * KIB);
    assert_eq!(h.pool.measure_idle_bytes(), 128 * KIB);
}

#[test]
fn idle_time_counts_from_checkout_whatever_the_checkin_order() {
    let h = Harness::new(PoolConfig::default());
    let mut long = h.pool.checkout(); // out at t = 0
    fill(&mut long, 20_000);
    h.clock.advance(Duration::from_secs(20));
    h.document(100_000); // out and in at t = 20
    drop(long); // in last, so reused first, but idle since t = 0
    h.recorder.take();
    h.clock.advance(Duration::from_secs(11));
    {
        let body = h.pool.checkout();
        assert_eq!(body.capacity(), 128 * KIB);
    }
    assert_eq!(
        h.events(),
        [
            Event::Drop {
                reason: DropReason::Idle,
                bytes: 32 * KIB
            },
            Event::CheckoutHit,
        ]
    );
    assert_eq!(h.budget.retained(), 128 * KIB);
}

#[test]
fn a_busy_pool_never_releases_its_item() {
    let h = Harness::new(PoolConfig::default());
    for _ in 0..1_000 {
        h.document(20_000);
        h.clock.advance(Duration::from_secs(29));
    }
    let events = h.events();
    assert!(!events.iter().any(|e| matches!(e, Event::Drop { .. })));
    assert_eq!(
        events.iter().filter(|e| **e == Event::CheckoutMiss).count(),
        1
    );
}

#[test]
fn idle_release_follows_the_config() {
    let h = Harness::new(PoolConfig::builder().idle_release(Duration::ZERO).build());
    h.document(20_000);
    h.clock.advance(Duration::from_nanos(1));
    h.document(20_000);
    let events = h.events();
    assert_eq!(
        events[2..],
        [
            Event::Drop {
                reason: DropReason::Idle,
                bytes: 32 * KIB
            },
            Event::CheckoutMiss,
            Event::Grow {
                from: 0,
                to: 32 * KIB
            },
        ]
    );
}
