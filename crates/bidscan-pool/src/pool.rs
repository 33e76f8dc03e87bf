//! [`Pool`]: one worker's idle items, and the [`Checkout`] guard that returns an item on drop.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;
use std::time::Instant;

use crate::budget::Budget;
use crate::clock::{Clock, SystemClock};
use crate::config::PoolConfig;
use crate::event::{DropReason, Event, Observer};
use crate::policy::{Decision, RetentionPolicy, Sizing};
use crate::reusable::Reusable;

/// An item and its sizing history, which travel together in and out of the pool.
struct Slot<T> {
    item: T,
    sizing: Sizing,
}

/// An item waiting in the pool.
struct Idle<T> {
    slot: Slot<T>,
    /// Its capacity when checked in, as reserved in the budget and counted in `Pool::retained`.
    capacity: usize,
    /// Start of its idle time: the instant of the check-out that preceded the check-in (see `Pool::checkout`).
    since: Instant,
}

/// The pool of one worker thread: idle items of type `T`, handed out by [`checkout`](Pool::checkout) and taken back
/// when the [`Checkout`] guard drops, at which point the [`RetentionPolicy`] decides whether to keep, shrink or drop
/// the item.
///
/// Not `Sync` (it uses `Cell`s): keep one per worker, e.g. in a `thread_local!`; [`checkout`](Pool::checkout) takes
/// `&self` for that reason. Items are reused most-recently-returned first, so the warmest item serves each request.
pub struct Pool<T: Reusable> {
    /// Name given to the observer (the `buffer` label).
    name: &'static str,
    config: PoolConfig,
    policy: RetentionPolicy,
    budget: Arc<Budget>,
    observer: Arc<dyn Observer>,
    factory: fn() -> T,
    clock: Box<dyn Clock>,
    /// Idle items in check-in order (the last is reused first); at most `config.max_idle_items`.
    idle: RefCell<Vec<Idle<T>>>,
    /// Sum of `capacity` over `idle`; that much of `budget` is reserved by this pool.
    retained: Cell<usize>,
}

impl<T: Reusable> Pool<T> {
    /// An empty pool named `name` (the observer's `buffer`), following `config`, retaining within `budget`, reporting
    /// to `observer`, building new items with `factory`. Uses the [`SystemClock`].
    ///
    /// `config.global_retained_bytes` is not read here: the cap is the `budget`'s (see [`Budget::from_config`]).
    pub fn new(
        name: &'static str,
        config: PoolConfig,
        budget: Arc<Budget>,
        observer: Arc<dyn Observer>,
        factory: fn() -> T,
    ) -> Pool<T> {
        Pool {
            name,
            policy: RetentionPolicy::from_config(&config),
            config,
            budget,
            observer,
            factory,
            clock: Box::new(SystemClock),
            idle: RefCell::new(Vec::new()),
            retained: Cell::new(0),
        }
    }

    /// The same pool taking time from `clock` (e.g. a [`ManualClock`](crate::ManualClock) in tests).
    pub fn with_clock(mut self, clock: impl Clock + 'static) -> Pool<T> {
        self.clock = Box::new(clock);
        self
    }

    /// The pool's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The pool's config.
    pub fn config(&self) -> &PoolConfig {
        &self.config
    }

    /// The budget shared with other pools.
    pub fn budget(&self) -> &Arc<Budget> {
        &self.budget
    }

    /// Bytes held by this pool's idle items (their capacities when checked in).
    pub fn retained_bytes(&self) -> usize {
        self.retained.get()
    }

    /// Number of idle items.
    pub fn idle_len(&self) -> usize {
        self.idle.borrow().len()
    }

    /// Sums [`Reusable::capacity_bytes`] over the idle items afresh; equals [`retained_bytes`](Pool::retained_bytes)
    /// (the bookkeeping), a check for tests.
    pub fn measure_idle_bytes(&self) -> usize {
        self.idle
            .borrow()
            .iter()
            .map(|idle| idle.slot.item.capacity_bytes())
            .sum()
    }

    /// Hands out an idle item (a hit) or a new one from the factory (a miss), after releasing items idle for longer
    /// than [`PoolConfig::idle_release`]. The item goes back to the pool when the guard drops.
    ///
    /// The clock is read once per round trip, here: the same instant later starts the item's idle time at check-in.
    /// So idle time counts from the check-out, longer than the true idle time by how long the item was out (a
    /// synchronous decode, microseconds to milliseconds, against an `idle_release` of seconds); a clock read costs
    /// about as much as the rest of the round trip.
    pub fn checkout(&self) -> Checkout<'_, T> {
        let now = self.clock.now();
        self.release_idle(now);
        let popped = self.idle.borrow_mut().pop();
        let slot = match popped {
            Some(idle) => {
                self.forget(idle.capacity);
                self.emit(Event::CheckoutHit);
                self.report_retained();
                idle.slot
            }
            None => {
                self.emit(Event::CheckoutMiss);
                Slot {
                    item: (self.factory)(),
                    sizing: Sizing::new(),
                }
            }
        };
        Checkout {
            pool: self,
            capacity: slot.item.capacity_bytes(),
            checked_out: now,
            slot: Some(slot),
        }
    }

    /// Drops the items that have been idle for longer than [`PoolConfig::idle_release`] at `now` (reason `idle`);
    /// returns how many. Done on every check-out; call it from a timer to release memory of a pool nobody uses.
    pub fn release_idle(&self, now: Instant) -> usize {
        let after = self.config.idle_release;
        // Not necessarily a prefix: idle time starts at check-out, and items come back in any order.
        let released: Vec<Idle<T>> = self
            .idle
            .borrow_mut()
            .extract_if(.., |idle| now.saturating_duration_since(idle.since) > after)
            .collect();
        for idle in &released {
            self.forget(idle.capacity);
            self.emit(Event::Drop {
                reason: DropReason::Idle,
                bytes: idle.capacity,
            });
        }
        if !released.is_empty() {
            self.report_retained();
        }
        released.len()
    }

    /// Takes an item back: reports growth, applies the policy, then keeps the item if the pool and the budget have
    /// room for it.
    fn check_in(&self, mut slot: Slot<T>, capacity_at_checkout: usize, since: Instant) {
        let mut capacity = slot.item.capacity_bytes();
        if capacity > capacity_at_checkout {
            self.emit(Event::Grow {
                from: capacity_at_checkout,
                to: capacity,
            });
        }
        let needed = slot.item.needed_bytes();
        let decision = self.policy.check_in(&mut slot.sizing, capacity, needed);
        if let Decision::Drop(reason) = decision {
            return self.drop_item(reason, capacity);
        }
        slot.item.reset();
        if let Decision::Shrink(target) = decision {
            slot.item.shrink_to(target);
            let shrunk = slot.item.capacity_bytes();
            if shrunk < capacity {
                self.emit(Event::Shrink {
                    from: capacity,
                    to: shrunk,
                });
            }
            capacity = shrunk;
        }
        if self.idle_len() >= self.config.max_idle_items {
            return self.drop_item(DropReason::PoolFull, capacity);
        }
        if !self.budget.try_reserve(capacity) {
            return self.drop_item(DropReason::GlobalCap, capacity);
        }
        self.retained.set(self.retained.get() + capacity);
        self.idle.borrow_mut().push(Idle {
            slot,
            capacity,
            since,
        });
        self.report_retained();
    }

    fn drop_item(&self, reason: DropReason, bytes: usize) {
        self.emit(Event::Drop { reason, bytes });
    }

    /// Stops counting `bytes` of an item leaving the idle list, here and in the budget.
    fn forget(&self, bytes: usize) {
        self.retained.set(self.retained.get() - bytes);
        self.budget.release(bytes);
    }

    fn emit(&self, event: Event) {
        self.observer.on_event(self.name, &event);
    }

    fn report_retained(&self) {
        self.observer.on_retained(self.name, self.retained.get());
    }
}

impl<T: Reusable> Drop for Pool<T> {
    /// Gives the idle items' bytes back to the budget and reports a retained total of 0 (no drop events: the items
    /// go with the pool, e.g. when a worker thread ends).
    fn drop(&mut self) {
        if self.retained.get() > 0 || !self.idle.get_mut().is_empty() {
            self.budget.release(self.retained.get());
            self.retained.set(0);
            self.idle.get_mut().clear();
            self.report_retained();
        }
    }
}

impl<T: Reusable> fmt::Debug for Pool<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pool")
            .field("name", &self.name)
            .field("config", &self.config)
            .field("idle", &self.idle_len())
            .field("retained", &self.retained.get())
            .finish_non_exhaustive()
    }
}

/// An item checked out of a [`Pool`]; derefs to it. Dropping the guard checks the item back in.
pub struct Checkout<'a, T: Reusable> {
    pool: &'a Pool<T>,
    /// Capacity at check-out, to detect growth at check-in.
    capacity: usize,
    /// When it was checked out; the start of its idle time once checked in.
    checked_out: Instant,
    /// Always `Some` until the guard drops.
    slot: Option<Slot<T>>,
}

impl<T: Reusable> Checkout<'_, T> {
    /// The item's capacity when it was checked out, in bytes.
    pub fn capacity_at_checkout(&self) -> usize {
        self.capacity
    }
}

impl<T: Reusable> Deref for Checkout<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        match &self.slot {
            Some(slot) => &slot.item,
            None => unreachable!("the slot is only taken when the guard drops"),
        }
    }
}

impl<T: Reusable> DerefMut for Checkout<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        match &mut self.slot {
            Some(slot) => &mut slot.item,
            None => unreachable!("the slot is only taken when the guard drops"),
        }
    }
}

impl<T: Reusable> Drop for Checkout<'_, T> {
    fn drop(&mut self) {
        if let Some(slot) = self.slot.take() {
            self.pool.check_in(slot, self.capacity, self.checked_out);
        }
    }
}

impl<T: Reusable + fmt::Debug> fmt::Debug for Checkout<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Checkout")
            .field("pool", &self.pool.name)
            .field("item", &**self)
            .finish()
    }
}
