//! Helpers shared by the integration tests: a pool of `Vec<u8>` bodies filled the way a server fills a body buffer
//! (frame by frame, so the `Vec` grows by doubling), with a recording observer and a manual clock.

#![allow(dead_code)] // each test binary uses a different subset

use std::sync::Arc;

use bidscan_pool::{Budget, Event, ManualClock, Pool, PoolConfig, Recorder};

pub const KIB: usize = 1024;
pub const MIB: usize = 1024 * KIB;

/// Size of one body frame.
pub const FRAME: usize = 8 * KIB;

/// Writes "a document of `bytes` bytes" into `body`, frame by frame, as the server does with body frames.
pub fn fill(body: &mut Vec<u8>, bytes: usize) {
    body.clear();
    while body.len() < bytes {
        let frame = FRAME.min(bytes - body.len());
        body.resize(body.len() + frame, b'x');
    }
}

/// A pool under test, with what it reports to.
pub struct Harness {
    pub pool: Pool<Vec<u8>>,
    pub recorder: Arc<Recorder>,
    pub budget: Arc<Budget>,
    pub clock: ManualClock,
}

impl Harness {
    /// A pool named "input" with `config`, its own budget of `config.global_retained_bytes`, empty `Vec`s.
    pub fn new(config: PoolConfig) -> Harness {
        Harness::with_factory(config, Vec::new)
    }

    /// The same with another factory.
    pub fn with_factory(config: PoolConfig, factory: fn() -> Vec<u8>) -> Harness {
        let recorder = Arc::new(Recorder::new());
        let budget = Arc::new(Budget::from_config(&config));
        let clock = ManualClock::default();
        let pool = Pool::new("input", config, budget.clone(), recorder.clone(), factory)
            .with_clock(clock.clone());
        Harness {
            pool,
            recorder,
            budget,
            clock,
        }
    }

    /// Checks a body out, writes a document of `bytes` bytes into it, checks it back in.
    pub fn document(&self, bytes: usize) {
        let mut body = self.pool.checkout();
        fill(&mut body, bytes);
    }

    /// The events since the last call.
    pub fn events(&self) -> Vec<Event> {
        self.recorder.take_events()
    }
}

/// Counts of each kind of event.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub hits: usize,
    pub misses: usize,
    pub grows: usize,
    pub shrinks: usize,
    pub drops: usize,
}

pub fn counts(events: &[Event]) -> Counts {
    let mut counts = Counts::default();
    for event in events {
        match event {
            Event::CheckoutHit => counts.hits += 1,
            Event::CheckoutMiss => counts.misses += 1,
            Event::Grow { .. } => counts.grows += 1,
            Event::Shrink { .. } => counts.shrinks += 1,
            Event::Drop { .. } => counts.drops += 1,
        }
    }
    counts
}

/// The capacity a fresh `Vec` reaches when [`fill`]ed with `bytes`: the first frame, doubled until it fits.
pub fn grown_capacity(bytes: usize) -> usize {
    let mut capacity = FRAME;
    while capacity < bytes {
        capacity *= 2;
    }
    capacity
}
