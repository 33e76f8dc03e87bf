//! Per-worker pools of reusable decode state, with an adaptive retention policy.
//!
//! A server decodes each request with a buffer (and scratch) that it would rather not allocate every time, yet
//! must not let one huge document pin memory forever. This crate keeps, per worker thread, a [`Pool`] of such
//! [`Reusable`] items:
//!
//! - [`Pool::checkout`] hands out an idle item (or builds one) inside a [`Checkout`] guard; dropping the guard checks
//!   the item back in.
//! - At check-in the [`RetentionPolicy`] tracks, per item, the high-water mark of bytes needed over a window of
//!   documents ([`PoolConfig::window`], default 64) and shrinks an item whose capacity exceeds twice that mark;
//!   items above [`PoolConfig::max_retained_bytes`] (default 4 MiB) are dropped.
//! - A [`Budget`] shared by all pools caps the bytes held by idle items (default 64 MiB), with exact atomic
//!   accounting; items idle longer than [`PoolConfig::idle_release`] (default 30 s) are released.
//! - Every grow, shrink, drop and check-out hit/miss, and every change of a pool's retained bytes, goes to an
//!   [`Observer`] (the server counts them in Prometheus).
//!
//! ```
//! use std::sync::Arc;
//! use bidscan_pool::{Budget, NoopObserver, Pool, PoolConfig};
//!
//! let pool: Pool<Vec<u8>> = Pool::new(
//!     "input", PoolConfig::default(), Arc::new(Budget::default()), Arc::new(NoopObserver), Vec::new,
//! );
//! {
//!     let mut body = pool.checkout();
//!     body.extend_from_slice(br#"{"id":"1"}"#);
//! } // checked back in here
//! assert_eq!(pool.idle_len(), 1);
//! ```
//!
//! What it deliberately does not do: know JSON or metrics, share items between threads (a pool is not `Sync`;
//! only the [`Budget`] is shared), or count checked-out items against the budget (see [`Budget`]). Time comes
//! from a [`Clock`], so tests run without sleeping.

#![forbid(unsafe_code)]

mod budget;
mod clock;
mod config;
mod event;
mod policy;
mod pool;
mod reusable;

pub use budget::Budget;
pub use clock::{Clock, ManualClock, SystemClock};
pub use config::{
    DEFAULT_GLOBAL_RETAINED_BYTES, DEFAULT_IDLE_RELEASE, DEFAULT_MAX_IDLE_ITEMS,
    DEFAULT_MAX_RETAINED_BYTES, DEFAULT_WINDOW, PoolConfig, PoolConfigBuilder,
};
pub use event::{DropReason, Event, NoopObserver, Observer, Record, Recorder};
pub use policy::{Decision, RetentionPolicy, SHRINK_ROUNDING, Sizing, round_up};
pub use pool::{Checkout, Pool};
pub use reusable::Reusable;
