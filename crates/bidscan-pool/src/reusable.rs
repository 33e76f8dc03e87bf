//! [`Reusable`]: what a pool can keep.

/// Something a pool keeps between documents: a buffer, or a struct of buffers (the server's decode state).
///
/// Sizes are in bytes and only need to be consistent with each other: the pool compares
/// [`capacity_bytes`](Reusable::capacity_bytes) before and after use, and with
/// [`needed_bytes`](Reusable::needed_bytes) and the limits of its [`PoolConfig`](crate::PoolConfig).
pub trait Reusable {
    /// Bytes currently reserved (e.g. `Vec::capacity`).
    fn capacity_bytes(&self) -> usize;

    /// Bytes the last document needed (e.g. the body length). Read at check-in, before [`reset`](Reusable::reset).
    fn needed_bytes(&self) -> usize;

    /// Releases capacity down to about `bytes` (at least `bytes` may remain, as with `Vec::shrink_to`).
    /// Called after [`reset`](Reusable::reset).
    fn shrink_to(&mut self, bytes: usize);

    /// Clears the content, keeping the capacity.
    fn reset(&mut self);
}

/// A byte buffer: capacity is `capacity()`, the need is `len()`.
impl Reusable for Vec<u8> {
    fn capacity_bytes(&self) -> usize {
        self.capacity()
    }

    fn needed_bytes(&self) -> usize {
        self.len()
    }

    fn shrink_to(&mut self, bytes: usize) {
        Vec::shrink_to(self, bytes);
    }

    fn reset(&mut self) {
        self.clear();
    }
}
