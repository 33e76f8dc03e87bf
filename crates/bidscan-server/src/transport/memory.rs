//! [`MemoryBudget`]: `server.max_inflight_bytes`, the one cap on the bytes that requests hold in memory at once —
//! bodies as they arrive (a compressed body's decoders' working memory too, as its stream declares it), every
//! document route's answer and every `/metrics` answer until it is sent ([`hold`]), held batch answers. A request takes a [`Reservation`] and grows it before it holds more; one
//! that cannot is shed with 503 (`bidscan_shed_total{reason="memory"}`). The bytes go back when the reservation
//! drops, whatever ends the request (answered, timed out, the client gone).
//!
//! So memory is bounded by bytes, not by request count: `server.max_concurrency` requests each holding a body of
//! `server.max_body_bytes` would be 1 GiB at the defaults. What the budget does not count (the pooled decode
//! buffers, at most `pool.global_retained_bytes` idle plus one per worker in use; the connections' read buffers;
//! the process's baseline) is the rest of the sum in docs/operations.md, "Memory sizing".
//!
//! Reservations are a compare-and-swap loop on one atomic counter, so the total never passes the cap, not even
//! briefly. They grow in steps of [`STEP`] bytes, so a 4 MiB body costs 64 atomic updates, not one per frame.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use axum::body::Body;
use bytes::Bytes;
use http_body::{Frame, SizeHint};
use pin_project_lite::pin_project;
use tower::BoxError;

/// The step a reservation grows by, in bytes: 64 KiB, a few of hyper's read chunks.
pub const STEP: usize = 64 * 1024;

/// The cap on the bytes held by requests in flight, shared (through an `Arc`) by every worker.
#[derive(Debug)]
pub struct MemoryBudget {
    /// The cap, in bytes (`server.max_inflight_bytes`).
    cap: usize,
    /// Bytes reserved now; always `<= cap`.
    used: AtomicUsize,
}

impl MemoryBudget {
    /// A budget of `cap` bytes.
    pub fn new(cap: usize) -> Arc<MemoryBudget> {
        Arc::new(MemoryBudget {
            cap,
            used: AtomicUsize::new(0),
        })
    }

    /// Bytes reserved now by all requests (`bidscan_inflight_bytes`).
    pub fn in_use(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    /// A reservation of `bytes`, or `None` (nothing reserved) when that would pass the cap.
    pub fn try_reserve(self: &Arc<Self>, bytes: usize) -> Option<Reservation> {
        self.add(bytes).then(|| Reservation {
            budget: self.clone(),
            bytes,
        })
    }

    /// An empty reservation, grown with [`Reservation::cover`].
    pub fn reservation(self: &Arc<Self>) -> Reservation {
        Reservation {
            budget: self.clone(),
            bytes: 0,
        }
    }

    /// Adds `bytes` if that keeps the total within the cap. Relaxed ordering suffices: the counter guards no other
    /// memory, and read-modify-writes of one atomic are totally ordered.
    fn add(&self, bytes: usize) -> bool {
        self.used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                used.checked_add(bytes).filter(|&next| next <= self.cap)
            })
            .is_ok()
    }
}

/// The error of a body whose reading could not reserve its bytes: answered 503 `overloaded` with `Retry-After`
/// ([`crate::transport::body::read_error`]).
#[derive(Clone, Copy, Debug, thiserror::Error)]
#[error("server.max_inflight_bytes has no room for the body's decoder")]
pub struct OverBudget;

/// Bytes reserved in a [`MemoryBudget`], given back when dropped.
#[derive(Debug)]
pub struct Reservation {
    budget: Arc<MemoryBudget>,
    /// Bytes this reservation holds of the budget.
    bytes: usize,
}

impl Reservation {
    /// Grows the reservation to at least `needed` bytes: to the next multiple of [`STEP`] if the budget has room
    /// for it, else to exactly `needed`. `false` (the reservation unchanged) when the budget has room for
    /// neither.
    pub fn cover(&mut self, needed: usize) -> bool {
        if needed <= self.bytes {
            return true;
        }
        let stepped = needed.div_ceil(STEP).saturating_mul(STEP);
        for want in [stepped, needed] {
            if self.budget.add(want - self.bytes) {
                self.bytes = want;
                return true;
            }
        }
        false
    }

    /// The bytes this reservation holds of the budget.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Takes over `other`'s bytes (of the same budget), which then gives back nothing when dropped.
    pub fn join(&mut self, mut other: Reservation) {
        debug_assert!(Arc::ptr_eq(&self.budget, &other.budget));
        self.bytes += std::mem::take(&mut other.bytes);
    }

    /// Gives back what is held past `needed` bytes rounded up to [`STEP`] (a buffer that shrank).
    pub fn trim(&mut self, needed: usize) {
        let keep = needed.div_ceil(STEP).saturating_mul(STEP);
        if keep < self.bytes {
            self.budget
                .used
                .fetch_sub(self.bytes - keep, Ordering::Relaxed);
            self.bytes = keep;
        }
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.budget.used.fetch_sub(self.bytes, Ordering::Relaxed);
    }
}

pin_project! {
    /// A response body that holds `reservation` until it is sent or dropped.
    struct Held<B> {
        #[pin]
        body: B,
        reservation: Reservation,
    }
}

impl<B: http_body::Body<Data = Bytes>> http_body::Body for Held<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        self.project().body.poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// `body`, holding `reservation` until the body has been sent (or the connection dropped it). One allocation, as
/// `Body::from` a buffer: `body` is boxed with the reservation, not boxed first and then again.
pub fn hold<B>(body: B, reservation: Reservation) -> Body
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    Body::new(Held { body, reservation })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_stay_within_the_cap_and_give_back_on_drop() {
        let budget = MemoryBudget::new(3 * STEP);
        let mut a = budget.reservation();
        assert!(a.cover(1));
        assert_eq!((a.bytes, budget.in_use()), (STEP, STEP));
        assert!(a.cover(STEP + 1));
        assert_eq!(budget.in_use(), 2 * STEP);
        let b = budget.try_reserve(STEP).unwrap();
        assert!(budget.try_reserve(1).is_none());
        // No room for a step, none for the exact bytes either: unchanged.
        assert!(!a.cover(2 * STEP + 1));
        assert_eq!(a.bytes, 2 * STEP);
        drop(b);
        // Room for the exact bytes but not the step past them.
        let small = budget.try_reserve(STEP / 2).unwrap();
        assert!(a.cover(2 * STEP + 10));
        assert_eq!(a.bytes, 2 * STEP + 10);
        a.trim(10);
        assert_eq!((a.bytes, budget.in_use()), (STEP, STEP + STEP / 2));
        drop((a, small));
        assert_eq!(budget.in_use(), 0);
    }

    #[tokio::test]
    async fn a_held_body_gives_back_once_dropped() {
        use http_body_util::BodyExt;
        let budget = MemoryBudget::new(STEP);
        let body = hold(Body::from("answer"), budget.try_reserve(100).unwrap());
        assert_eq!(budget.in_use(), 100);
        let bytes = body.collect().await.unwrap().to_bytes();
        assert_eq!(&bytes[..], b"answer");
        assert_eq!(budget.in_use(), 0);
    }
}
