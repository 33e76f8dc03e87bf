//! [`PoolConfig`]: the limits of a pool, their defaults and why, and a builder.

use std::time::Duration;

/// Default [`PoolConfig::window`]: 64 documents.
///
/// Long enough that a few large documents in a row are seen by one window (so alternating sizes keep the larger
/// capacity instead of shrinking and re-growing), short enough that a worker handling thousands of documents a second
/// gives back a spike's memory within tens of milliseconds.
pub const DEFAULT_WINDOW: u32 = 64;

/// Default [`PoolConfig::max_retained_bytes`]: 4 MiB.
///
/// The server's body limit (on the wire and decompressed) is 4 MiB, so no accepted document needs more; a buffer
/// that grew past it is not worth keeping for the next one.
pub const DEFAULT_MAX_RETAINED_BYTES: usize = 4 * 1024 * 1024;

/// Default [`PoolConfig::global_retained_bytes`]: 64 MiB.
///
/// Lets 16 workers each keep one buffer of the largest retained size (16 × 4 MiB), while bounding what idle pools
/// hold on a machine with more workers.
pub const DEFAULT_GLOBAL_RETAINED_BYTES: usize = 64 * 1024 * 1024;

/// Default [`PoolConfig::idle_release`]: 30 seconds.
///
/// Far longer than gaps in live bidding traffic (sub-second), so a busy worker never loses its warm buffer; short
/// enough that memory returns soon after traffic stops (end of a campaign, a load test).
pub const DEFAULT_IDLE_RELEASE: Duration = Duration::from_secs(30);

/// Default [`PoolConfig::max_idle_items`]: 4 items per pool.
///
/// The server holds one check-out at a time per worker (never across an `.await`), so one idle item is the steady
/// state; 4 leaves room for nested use without letting a pool pile up items.
pub const DEFAULT_MAX_IDLE_ITEMS: usize = 4;

/// The limits of a [`Pool`](crate::Pool). All sizes are in bytes, as reported by
/// [`Reusable::capacity_bytes`](crate::Reusable::capacity_bytes).
///
/// Build with [`PoolConfig::default`], struct update syntax, or [`PoolConfig::builder`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolConfig {
    /// Documents per sizing window ([`DEFAULT_WINDOW`]). At the end of each window an item whose capacity exceeds
    /// twice the window's high-water mark is shrunk. `0` behaves as `1`.
    pub window: u32,
    /// An item whose capacity exceeds this at check-in is dropped, reason `too_large`
    /// ([`DEFAULT_MAX_RETAINED_BYTES`]).
    pub max_retained_bytes: usize,
    /// Cap on the bytes held by idle items of all pools sharing one [`Budget`](crate::Budget)
    /// ([`DEFAULT_GLOBAL_RETAINED_BYTES`]). Read by [`Budget::from_config`](crate::Budget::from_config); a pool
    /// itself obeys the budget it was given.
    pub global_retained_bytes: usize,
    /// Items idle for longer than this are released, reason `idle` ([`DEFAULT_IDLE_RELEASE`]).
    pub idle_release: Duration,
    /// Most idle items one pool keeps; an item checked in beyond it is dropped, reason `pool_full`
    /// ([`DEFAULT_MAX_IDLE_ITEMS`]).
    pub max_idle_items: usize,
}

impl Default for PoolConfig {
    fn default() -> PoolConfig {
        PoolConfig {
            window: DEFAULT_WINDOW,
            max_retained_bytes: DEFAULT_MAX_RETAINED_BYTES,
            global_retained_bytes: DEFAULT_GLOBAL_RETAINED_BYTES,
            idle_release: DEFAULT_IDLE_RELEASE,
            max_idle_items: DEFAULT_MAX_IDLE_ITEMS,
        }
    }
}

impl PoolConfig {
    /// A builder starting from the defaults.
    pub fn builder() -> PoolConfigBuilder {
        PoolConfigBuilder::new()
    }
}

/// Builds a [`PoolConfig`], starting from the defaults.
#[derive(Clone, Debug, Default)]
pub struct PoolConfigBuilder {
    config: PoolConfig,
}

impl PoolConfigBuilder {
    /// A builder holding the defaults.
    pub fn new() -> PoolConfigBuilder {
        PoolConfigBuilder::default()
    }

    /// The finished config.
    pub fn build(&self) -> PoolConfig {
        self.config.clone()
    }

    /// Documents per sizing window; see [`PoolConfig::window`].
    pub fn window(&mut self, documents: u32) -> &mut PoolConfigBuilder {
        self.config.window = documents;
        self
    }

    /// Largest capacity kept after use, in bytes; see [`PoolConfig::max_retained_bytes`].
    pub fn max_retained_bytes(&mut self, bytes: usize) -> &mut PoolConfigBuilder {
        self.config.max_retained_bytes = bytes;
        self
    }

    /// Cap on bytes retained by all pools, in bytes; see [`PoolConfig::global_retained_bytes`].
    pub fn global_retained_bytes(&mut self, bytes: usize) -> &mut PoolConfigBuilder {
        self.config.global_retained_bytes = bytes;
        self
    }

    /// Idle time after which an item is released; see [`PoolConfig::idle_release`].
    pub fn idle_release(&mut self, after: Duration) -> &mut PoolConfigBuilder {
        self.config.idle_release = after;
        self
    }

    /// Most idle items per pool; see [`PoolConfig::max_idle_items`].
    pub fn max_idle_items(&mut self, items: usize) -> &mut PoolConfigBuilder {
        self.config.max_idle_items = items;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builder_starts_from_defaults_and_sets_fields() {
        assert_eq!(PoolConfig::builder().build(), PoolConfig::default());
        let config = PoolConfig::builder()
            .window(8)
            .max_retained_bytes(1 << 20)
            .global_retained_bytes(1 << 22)
            .idle_release(Duration::from_secs(5))
            .max_idle_items(2)
            .build();
        assert_eq!(config.window, 8);
        assert_eq!(config.max_retained_bytes, 1 << 20);
        assert_eq!(config.global_retained_bytes, 1 << 22);
        assert_eq!(config.idle_release, Duration::from_secs(5));
        assert_eq!(config.max_idle_items, 2);
    }
}
