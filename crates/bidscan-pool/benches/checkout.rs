//! Check-out/check-in cost of a pooled body, beside allocating a fresh `Vec` of the same size.
//!
//! `checkout_checkin`: the pool round trip (real clock, no-op observer), the same with a frozen clock (to show the
//! cost of the one clock read), and `Vec::with_capacity` + drop.
//! `checkout_fill`: the same, writing the whole body, as a request does (a fresh allocation pays its page faults).
//!
//! Run: `cargo bench -p bidscan-pool -- --warm-up-time 1 --measurement-time 2`

use std::hint::black_box;
use std::sync::Arc;

use std::time::Instant;

use bidscan_pool::{Budget, Clock, NoopObserver, Pool, PoolConfig, Reusable};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

/// A body whose need the bench sets without writing it, so the policy keeps it at its size.
#[derive(Default)]
struct Body {
    buf: Vec<u8>,
    needed: usize,
}

impl Reusable for Body {
    fn capacity_bytes(&self) -> usize {
        self.buf.capacity()
    }
    fn needed_bytes(&self) -> usize {
        self.needed.max(self.buf.len())
    }
    fn shrink_to(&mut self, bytes: usize) {
        self.buf.shrink_to(bytes);
    }
    fn reset(&mut self) {
        self.buf.clear();
    }
}

const SIZES: [(usize, &str); 3] = [
    (4 * 1024, "4KiB"),
    (100 * 1024, "100KiB"),
    (1024 * 1024, "1MiB"),
];

/// A clock that always answers the same instant: shows what the real clock read costs.
struct FrozenClock(Instant);

impl Clock for FrozenClock {
    fn now(&self) -> Instant {
        self.0
    }
}

/// A pool holding one warm body of `size` bytes.
fn warm_pool(size: usize) -> Pool<Body> {
    let pool = Pool::new(
        "bench",
        PoolConfig::default(),
        Arc::new(Budget::default()),
        Arc::new(NoopObserver),
        Body::default,
    );
    {
        let mut body = pool.checkout();
        body.buf.reserve_exact(size);
        body.needed = size;
    }
    pool
}

fn checkout_checkin(c: &mut Criterion) {
    let mut group = c.benchmark_group("checkout_checkin");
    for (size, label) in SIZES {
        let pool = warm_pool(size);
        group.bench_function(BenchmarkId::new("pool", label), |b| {
            b.iter(|| {
                let mut body = pool.checkout();
                body.needed = size;
                black_box(body.buf.as_mut_ptr());
            })
        });
        let frozen = warm_pool(size).with_clock(FrozenClock(Instant::now()));
        group.bench_function(BenchmarkId::new("pool_frozen_clock", label), |b| {
            b.iter(|| {
                let mut body = frozen.checkout();
                body.needed = size;
                black_box(body.buf.as_mut_ptr());
            })
        });
        group.bench_function(BenchmarkId::new("vec_with_capacity", label), |b| {
            b.iter(|| black_box(Vec::<u8>::with_capacity(black_box(size))))
        });
    }
    group.finish();
}

fn checkout_fill(c: &mut Criterion) {
    let mut group = c.benchmark_group("checkout_fill");
    for (size, label) in SIZES {
        let pool = warm_pool(size);
        group.bench_function(BenchmarkId::new("pool", label), |b| {
            b.iter(|| {
                let mut body = pool.checkout();
                body.buf.resize(size, 1);
                black_box(body.buf.as_ptr());
            })
        });
        group.bench_function(BenchmarkId::new("vec_with_capacity", label), |b| {
            b.iter(|| {
                let mut buf = Vec::<u8>::with_capacity(black_box(size));
                buf.resize(size, 1);
                black_box(buf)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, checkout_checkin, checkout_fill);
criterion_main!(benches);
