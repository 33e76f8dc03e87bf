//! [`HeadTimer`]: the timer behind hyper's HTTP/1 header-read timeout (`server.header_read_timeout_secs`), a coarse
//! one in place of tokio's.
//!
//! hyper starts that timer for every request head it reads (the idle time of a kept-alive connection included) and
//! drops it when the head is in. With `TokioTimer` that is, per request, a boxed tokio `Sleep` put into tokio's
//! timer wheel on its first poll and taken out again on drop: about 1 k instructions of a 25 k no-bid request
//! (callgrind), for a timer that, on real traffic, never fires.
//!
//! Here a sleep is a deadline and a waker in a slot of a small table ([`SHARDS`] mutexes, one per worker thread as
//! threads are counted, so workers do not share a lock); a ticker thread wakes the sleeps whose deadline has passed
//! every [`TICK`]. A sleep therefore ends between its deadline and one tick after it, **never before it** (the
//! timeout is whole seconds). Registering and removing are a lock that no other thread holds and a slot reused from
//! a free list. Only hyper's head timer uses it; HTTP/2's keep-alive pings keep `TokioTimer`.

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

/// The target of this module's log lines (`log.level` filters name it; docs/operations.md, "Logs").
const LOG_TARGET: &str = "bidscan_server::conn::head_timer";

/// How often the ticker looks for sleeps past their deadline: the most a sleep ends late.
pub const TICK: Duration = Duration::from_millis(100);

/// How many tables the sleeps are spread over, by the thread that first polls them.
pub const SHARDS: usize = 16;

/// hyper's [`hyper::rt::Timer`] for HTTP/1 connections: see the module docs.
#[derive(Clone, Copy, Debug, Default)]
pub struct HeadTimer;

impl hyper::rt::Timer for HeadTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn hyper::rt::Sleep>> {
        self.sleep_until(Instant::now() + duration)
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn hyper::rt::Sleep>> {
        Box::pin(HeadSleep { deadline, at: None })
    }
}

/// One sleep: registered in a table at its first `Pending` poll, removed when dropped.
struct HeadSleep {
    deadline: Instant,
    /// `(shard, slot)` once registered.
    at: Option<(usize, usize)>,
}

impl hyper::rt::Sleep for HeadSleep {}

impl Future for HeadSleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        match self.at {
            Some((shard, slot)) => {
                let mut table = lock(shard);
                let entry = &mut table.slots[slot];
                if entry.fired {
                    return Poll::Ready(());
                }
                if entry
                    .waker
                    .as_ref()
                    .is_some_and(|w| w.will_wake(cx.waker()))
                {
                    return Poll::Pending;
                }
                let old = entry.waker.replace(cx.waker().clone());
                // Dropped outside the lock (see `Drop`).
                drop(table);
                drop(old);
                Poll::Pending
            }
            None => {
                let shard = own_shard();
                let slot = lock(shard).insert(self.deadline, cx.waker().clone());
                self.at = Some((shard, slot));
                ticker();
                Poll::Pending
            }
        }
    }
}

impl Drop for HeadSleep {
    fn drop(&mut self) {
        if let Some((shard, slot)) = self.at {
            // The entry's waker is dropped after the lock is released: dropping the last waker of a task drops the
            // task, whose future may hold a sleep of this same table.
            let entry = lock(shard).remove(slot);
            drop(entry);
        }
    }
}

/// One table of sleeps.
#[derive(Default)]
struct Table {
    slots: Vec<Entry>,
    /// Indices of `slots` that hold no sleep.
    free: Vec<usize>,
}

#[derive(Default)]
struct Entry {
    deadline: Option<Instant>,
    waker: Option<Waker>,
    fired: bool,
}

impl Table {
    fn insert(&mut self, deadline: Instant, waker: Waker) -> usize {
        let entry = Entry {
            deadline: Some(deadline),
            waker: Some(waker),
            fired: false,
        };
        match self.free.pop() {
            Some(slot) => {
                self.slots[slot] = entry;
                slot
            }
            None => {
                self.slots.push(entry);
                self.slots.len() - 1
            }
        }
    }

    /// Frees `slot`, handing back what it held (to be dropped once the lock is released).
    fn remove(&mut self, slot: usize) -> Entry {
        self.free.push(slot);
        std::mem::take(&mut self.slots[slot])
    }

    /// Marks every sleep past its deadline at `now` as fired and moves its waker to `wake`.
    fn fire(&mut self, now: Instant, wake: &mut Vec<Waker>) {
        for entry in &mut self.slots {
            if !entry.fired && entry.deadline.is_some_and(|d| d <= now) {
                entry.fired = true;
                wake.extend(entry.waker.take());
            }
        }
    }
}

/// A table on its own cache line, so that two workers' locks do not share one.
#[repr(align(64))]
#[derive(Default)]
struct Shard(Mutex<Table>);

fn tables() -> &'static [Shard; SHARDS] {
    static TABLES: OnceLock<[Shard; SHARDS]> = OnceLock::new();
    TABLES.get_or_init(Default::default)
}

/// The table `shard`; a table whose lock was poisoned is still consistent (every change is one assignment).
fn lock(shard: usize) -> MutexGuard<'static, Table> {
    tables()[shard]
        .0
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The shard of the calling thread: threads are numbered as they first register a sleep.
fn own_shard() -> usize {
    static THREADS: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static OWN: Cell<Option<usize>> = const { Cell::new(None) };
    }
    OWN.with(|own| match own.get() {
        Some(shard) => shard,
        None => {
            let shard = THREADS.fetch_add(1, Ordering::Relaxed) % SHARDS;
            own.set(Some(shard));
            shard
        }
    })
}

/// Starts the ticker thread once per process.
fn ticker() {
    static STARTED: OnceLock<()> = OnceLock::new();
    STARTED.get_or_init(|| {
        let started = std::thread::Builder::new()
            .name("bidscan-head-timer".into())
            .spawn(|| {
                let mut wake = Vec::new();
                loop {
                    std::thread::sleep(TICK);
                    let now = Instant::now();
                    for shard in 0..SHARDS {
                        lock(shard).fire(now, &mut wake);
                        // Woken outside the lock: a waker may run code that polls a sleep of this table.
                        wake.drain(..).for_each(Waker::wake);
                    }
                }
            });
        if let Err(e) = started {
            tracing::error!(target: LOG_TARGET, error = %e, "cannot start the header-read timer's thread");
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::rt::Timer;

    #[tokio::test]
    async fn a_sleep_ends_after_its_deadline_and_within_a_tick_or_so() {
        let timer = HeadTimer;
        for wait in [Duration::from_millis(0), Duration::from_millis(250)] {
            let start = Instant::now();
            timer.sleep(wait).await;
            let took = start.elapsed();
            assert!(took >= wait, "ended after {took:?}, before {wait:?}");
            // One tick late at most, plus scheduling; generous for a loaded machine.
            assert!(took < wait + TICK * 20, "ended after {took:?}");
        }
    }

    #[tokio::test]
    async fn dropped_sleeps_free_their_slots_for_the_next() {
        let timer = HeadTimer;
        let shard = own_shard();
        let before = lock(shard).slots.len();
        for _ in 0..100 {
            let mut sleep = timer.sleep(Duration::from_secs(60));
            // Registered by a poll, then dropped before its deadline.
            let waker = std::task::Waker::noop();
            assert!(
                sleep
                    .as_mut()
                    .poll(&mut Context::from_waker(waker))
                    .is_pending()
            );
        }
        let table = lock(shard);
        // One slot reused by all hundred (other tests of this thread may hold a few more).
        assert!(
            table.slots.len() <= before + 1,
            "{} slots",
            table.slots.len()
        );
        assert!(table.slots.iter().all(|e| e.deadline.is_none() || !e.fired));
    }

    /// A waker that owns a sleep, as a task's waker owns the task's future.
    struct OwnsSleep {
        _sleep: Pin<Box<dyn hyper::rt::Sleep>>,
    }

    impl std::task::Wake for OwnsSleep {
        fn wake(self: std::sync::Arc<Self>) {}
    }

    #[test]
    fn dropping_a_sleep_whose_waker_owns_another_sleep_does_not_deadlock() {
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let timer = HeadTimer;
            let noop = Waker::noop();
            // `inner` registered in this thread's table, then owned by the waker `outer` is polled with.
            let mut inner = timer.sleep(Duration::from_secs(60));
            assert!(
                inner
                    .as_mut()
                    .poll(&mut Context::from_waker(noop))
                    .is_pending()
            );
            let owner = std::sync::Arc::new(OwnsSleep { _sleep: inner });
            let waker = Waker::from(owner);
            let mut outer = timer.sleep(Duration::from_secs(60));
            assert!(
                outer
                    .as_mut()
                    .poll(&mut Context::from_waker(&waker))
                    .is_pending()
            );
            // The table now holds the last waker: dropping `outer` drops it, which drops `inner` (same table).
            drop(waker);
            drop(outer);
            let _ = done.send(());
        });
        if finished.recv_timeout(Duration::from_secs(10)).is_err() {
            // A deadlocked table also stops the ticker, which would hang every other test of this binary.
            eprintln!("dropping a sleep deadlocked its table");
            std::process::exit(101);
        }
    }
}
