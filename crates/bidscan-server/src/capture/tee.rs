//! [`Tee`]: a request body that keeps a reference to each data frame it passes on (a reference-counted
//! [`Bytes`], not a copy), so the wire bytes of a compressed body are still there once it has been inflated —
//! or failed to.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use pin_project_lite::pin_project;

/// The frames a [`Tee`] saw, in order.
pub type Seen = Arc<Mutex<Vec<Bytes>>>;

pin_project! {
    /// `inner`, each data frame also pushed to `seen` when there is one (none: a plain pass-through).
    pub struct Tee<B> {
        #[pin]
        inner: B,
        seen: Option<Seen>,
    }
}

impl<B> Tee<B> {
    /// `inner`, its frames kept in `seen` if given.
    pub fn new(inner: B, seen: Option<Seen>) -> Tee<B> {
        Tee { inner, seen }
    }
}

impl<B: Body<Data = Bytes>> Body for Tee<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let this = self.project();
        let frame = std::task::ready!(this.inner.poll_frame(cx));
        if let (Some(seen), Some(Ok(frame))) = (this.seen.as_ref(), frame.as_ref())
            && let Some(data) = frame.data_ref()
            && !data.is_empty()
        {
            seen.lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(data.clone());
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
