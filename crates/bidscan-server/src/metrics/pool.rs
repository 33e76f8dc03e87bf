//! [`PoolMetrics`]: the pool [`Observer`] that feeds the buffer metrics (`bidscan_buffer_*`,
//! `bidscan_pool_checkouts_total`) from bidscan-pool's events.

use std::sync::Arc;

use bidscan_pool::{Budget, Event, Observer};
use prometheus::{IntCounter, IntGauge};

use super::registry::{INPUT_BUFFER, Metrics};

/// Feeds pool events into [`Metrics`]. The retained-bytes gauge is the shared [`Budget`]'s total (all worker pools),
/// not the per-pool figure the observer is given.
pub struct PoolMetrics {
    metrics: Arc<Metrics>,
    budget: Arc<Budget>,
    /// `bidscan_pool_checkouts_total{result="hit"}` and `{result="miss"}`, resolved once (events come with every
    /// decode).
    hit: IntCounter,
    miss: IntCounter,
    /// The [`INPUT_BUFFER`] series of grow, shrink and retained bytes, resolved once.
    input_grow: IntCounter,
    input_shrink: IntCounter,
    input_retained: IntGauge,
}

impl PoolMetrics {
    /// An observer counting into `metrics`, reading totals from `budget`. Resolves only series that
    /// [`Metrics::new`] already created at zero.
    pub fn new(metrics: Arc<Metrics>, budget: Arc<Budget>) -> PoolMetrics {
        PoolMetrics {
            hit: metrics.checkouts.with_label_values(&["hit"]),
            miss: metrics.checkouts.with_label_values(&["miss"]),
            input_grow: metrics.buffer_grow.with_label_values(&[INPUT_BUFFER]),
            input_shrink: metrics.buffer_shrink.with_label_values(&[INPUT_BUFFER]),
            input_retained: metrics.buffer_retained.with_label_values(&[INPUT_BUFFER]),
            metrics,
            budget,
        }
    }
}

impl Observer for PoolMetrics {
    fn on_event(&self, buffer: &'static str, event: &Event) {
        let m = &self.metrics;
        let input = buffer == INPUT_BUFFER;
        match event {
            Event::Grow { .. } if input => self.input_grow.inc(),
            Event::Grow { .. } => m.buffer_grow.with_label_values(&[buffer]).inc(),
            Event::Shrink { .. } if input => self.input_shrink.inc(),
            Event::Shrink { .. } => m.buffer_shrink.with_label_values(&[buffer]).inc(),
            Event::Drop { reason, .. } => {
                m.buffer_drop
                    .with_label_values(&[buffer, reason.as_str()])
                    .inc();
            }
            Event::CheckoutHit => self.hit.inc(),
            Event::CheckoutMiss => self.miss.inc(),
        }
    }

    fn on_retained(&self, buffer: &'static str, _pool_total: usize) {
        let total = i64::try_from(self.budget.retained()).unwrap_or(i64::MAX);
        if buffer == INPUT_BUFFER {
            self.input_retained.set(total);
        } else {
            self.metrics
                .buffer_retained
                .with_label_values(&[buffer])
                .set(total);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bidscan_pool::DropReason;

    #[test]
    fn observer_counts_events_and_reads_the_budget() {
        let m = Arc::new(Metrics::new().unwrap());
        let budget = Arc::new(Budget::new(1 << 20));
        let obs = PoolMetrics::new(m.clone(), budget);
        obs.on_event(INPUT_BUFFER, &Event::Grow { from: 0, to: 10 });
        obs.on_event(
            INPUT_BUFFER,
            &Event::Drop {
                reason: DropReason::TooLarge,
                bytes: 10,
            },
        );
        obs.on_event(INPUT_BUFFER, &Event::CheckoutMiss);
        obs.on_retained(INPUT_BUFFER, 123);
        assert_eq!(m.buffer_grow.with_label_values(&[INPUT_BUFFER]).get(), 1);
        assert_eq!(
            m.buffer_drop
                .with_label_values(&[INPUT_BUFFER, "too_large"])
                .get(),
            1
        );
        assert_eq!(m.checkouts.with_label_values(&["miss"]).get(), 1);
        assert_eq!(
            m.buffer_retained.with_label_values(&[INPUT_BUFFER]).get(),
            0
        );
    }
}
