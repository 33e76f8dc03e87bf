//! The global cap holds under concurrent check-outs: one pool per thread, one shared budget.

use crate::common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;

use bidscan_pool::{Budget, DropReason, Event, Pool, PoolConfig, Recorder};
use common::{KIB, fill};

const THREADS: usize = 4;
const ROUNDS: usize = 2_000;
const CAP: usize = 512 * KIB;

#[test]
fn the_global_cap_is_never_exceeded() {
    let budget = Arc::new(Budget::new(CAP));
    let recorder = Arc::new(Recorder::new());
    let barrier = Arc::new(Barrier::new(THREADS + 1));
    // Workers stop at `finished` with their pools alive, until the main thread has compared totals.
    let finished = Arc::new(Barrier::new(THREADS + 1));
    let checked = Arc::new(Barrier::new(THREADS + 1));
    let (totals, reports) = std::sync::mpsc::channel();
    let done = Arc::new(AtomicBool::new(false));
    let max_seen = Arc::new(AtomicUsize::new(0));

    // A watcher samples the shared total while the workers run.
    let watcher = {
        let (budget, barrier, done, max_seen) = (
            budget.clone(),
            barrier.clone(),
            done.clone(),
            max_seen.clone(),
        );
        thread::spawn(move || {
            barrier.wait();
            while !done.load(Ordering::Relaxed) {
                max_seen.fetch_max(budget.retained(), Ordering::Relaxed);
            }
        })
    };
    let workers: Vec<_> = (0..THREADS)
        .map(|worker| {
            let (budget, recorder, barrier) = (budget.clone(), recorder.clone(), barrier.clone());
            let (finished, checked, totals) = (finished.clone(), checked.clone(), totals.clone());
            thread::spawn(move || {
                let config = PoolConfig::builder().window(4).max_idle_items(8).build();
                let pool: Pool<Vec<u8>> = Pool::new("input", config, budget, recorder, Vec::new);
                barrier.wait();
                for round in 0..ROUNDS {
                    // 1 to 3 bodies out at once, of sizes that vary by worker and round (16 KiB to 256 KiB).
                    let held = 1 + (round + worker) % 3;
                    let mut bodies: Vec<_> = (0..held).map(|_| pool.checkout()).collect();
                    for (i, body) in bodies.iter_mut().enumerate() {
                        fill(body, (10_000 << ((round * 7 + worker * 3 + i) % 5)) + 1);
                    }
                    drop(bodies);
                    assert_eq!(pool.retained_bytes(), pool.measure_idle_bytes());
                }
                totals
                    .send(pool.retained_bytes())
                    .expect("main thread gone");
                finished.wait();
                checked.wait();
            })
        })
        .collect();

    finished.wait();
    let sum_of_pools: usize = reports.iter().take(THREADS).sum();
    // With every pool idle, the shared total is exactly the sum of the pools' idle bytes.
    assert_eq!(budget.retained(), sum_of_pools);
    checked.wait();
    for worker in workers {
        worker.join().expect("worker panicked");
    }
    // All pools are dropped by now: everything went back to the budget.
    assert_eq!(budget.retained(), 0);
    done.store(true, Ordering::Relaxed);
    watcher.join().expect("watcher panicked");

    assert!(sum_of_pools <= CAP);
    assert!(
        budget.peak() <= CAP,
        "peak {} above cap {CAP}",
        budget.peak()
    );
    assert!(max_seen.load(Ordering::Relaxed) <= CAP);
    // The cap was actually contended: the pools wanted more than it allows.
    assert!(budget.peak() > CAP - 256 * KIB, "peak {}", budget.peak());
    let global_cap_drops = recorder
        .take_events()
        .iter()
        .filter(|e| {
            matches!(
                e,
                Event::Drop {
                    reason: DropReason::GlobalCap,
                    ..
                }
            )
        })
        .count();
    assert!(global_cap_drops > 0);
}
