//! The one response body that follows an admission guard: it hands the
//! answer over in pieces of at most a given size and keeps its guard (a
//! batch slot, an unsent answer's charge) until the body has ended or is
//! dropped (sent whole, its stream reset, its connection gone), so what
//! the guard counts is held exactly as long as the answer is.

use std::pin::Pin;
use std::task::{Context, Poll, ready};

use axum::body::{Body, Bytes};
use http_body::{Frame, SizeHint};

use super::Refusal;

/// What a [`Guarded`] body holds.
pub trait Guard: Send + Unpin + 'static {
    /// The body has given `handed` bytes in all: whether that may be held
    /// (a charge grows with a body of unknown size); false ends the body
    /// with the [`Refusal`] error.
    fn cover(&mut self, handed: usize) -> Result<(), Refusal> {
        let _ = handed;
        Ok(())
    }
}

/// `body`, handed over in pieces of at most `piece` bytes, holding `guard`
/// until it has ended or is dropped.
pub struct Guarded<G> {
    body: Body,
    /// What the body gave that is not handed over yet.
    rest: Bytes,
    /// Bytes the body has given so far.
    handed: usize,
    piece: usize,
    guard: Option<G>,
}

impl<G: Guard> Guarded<G> {
    /// `body` in pieces of at most `piece` bytes (at least one), with `guard`.
    pub fn new(body: Body, piece: usize, guard: G) -> Self {
        Guarded {
            body,
            rest: Bytes::new(),
            handed: 0,
            piece: piece.max(1),
            guard: Some(guard),
        }
    }

    /// As a response body.
    pub fn into_body(self) -> Body {
        Body::new(self)
    }
}

impl<G: Guard> http_body::Body for Guarded<G> {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = &mut *self;
        loop {
            if !this.rest.is_empty() {
                let piece = this.rest.split_to(this.rest.len().min(this.piece));
                return Poll::Ready(Some(Ok(Frame::data(piece))));
            }
            let frame = match ready!(Pin::new(&mut this.body).poll_frame(cx)) {
                Some(Ok(frame)) => frame,
                None => {
                    // Ended: what it held is given back now.
                    this.guard = None;
                    return Poll::Ready(None);
                }
                Some(Err(e)) => return Poll::Ready(Some(Err(e))),
            };
            match frame.into_data() {
                Ok(data) => {
                    this.handed = this.handed.saturating_add(data.len());
                    if let Some(guard) = &mut this.guard
                        && let Err(refusal) = guard.cover(this.handed)
                    {
                        return Poll::Ready(Some(Err(axum::Error::new(refusal))));
                    }
                    this.rest = data;
                }
                Err(trailers) => return Poll::Ready(Some(Ok(trailers))),
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.rest.is_empty() && self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        let hint = self.body.size_hint();
        let rest = self.rest.len() as u64;
        let mut sum = SizeHint::new();
        // (The upper bound first: a lower bound above it would panic.)
        if let Some(upper) = hint.upper() {
            sum.set_upper(upper.saturating_add(rest));
        }
        sum.set_lower(hint.lower().saturating_add(rest));
        sum
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// Counts itself while alive.
    struct Alive(Arc<AtomicUsize>);

    impl Guard for Alive {}

    impl Drop for Alive {
        fn drop(&mut self) {
            self.0.fetch_sub(1, Ordering::SeqCst);
        }
    }

    fn alive() -> (Arc<AtomicUsize>, Alive) {
        let count = Arc::new(AtomicUsize::new(1));
        (count.clone(), Alive(count))
    }

    #[tokio::test]
    async fn the_guard_goes_when_the_body_ends_or_is_dropped() {
        let (held, guard) = alive();
        let body = Guarded::new(Body::from(vec![7u8; 2 * 1024 + 5]), 1024, guard);
        assert_eq!(
            http_body::Body::size_hint(&body).exact(),
            Some(2 * 1024 + 5)
        );
        let mut body = body.into_body();
        let mut pieces = Vec::new();
        while let Some(frame) =
            std::future::poll_fn(|cx| http_body::Body::poll_frame(Pin::new(&mut body), cx)).await
        {
            pieces.push(frame.unwrap().into_data().unwrap().len());
        }
        assert_eq!(pieces, [1024, 1024, 5]);
        assert_eq!(held.load(Ordering::SeqCst), 0, "ended: given back");
        drop(body);

        let (held, guard) = alive();
        let body = Guarded::new(Body::from("unread"), 1024, guard);
        assert_eq!(held.load(Ordering::SeqCst), 1);
        drop(body);
        assert_eq!(held.load(Ordering::SeqCst), 0, "dropped: given back");
    }
}
