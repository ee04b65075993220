//! The batch slots: how many batch answers (`POST /api/v1/ip`) may be built
//! or waiting to be sent at once, and the answer body that keeps its slot
//! until the client has taken the answer.
//!
//! A batch answer is large (about 280 bytes per entry as JSON, so about
//! 0.3 MB for 1,000 entries) and costs its sender a small body: a client that
//! posts batches on HTTP/2 streams and never reads (a zero flow-control
//! window) would otherwise pin one answer per stream until the send deadline
//! resets it; 200 such streams took 55 MB. `--max-in-flight` does not bound
//! this, because a request leaves its slot when its answer is ready, not when
//! it is sent.
//!
//! So a batch takes one of `--batch-max-in-flight` slots once its body is
//! read and checked (a slow body holds no batch slot), waits for one at most
//! `--queue-timeout` (then 503 `overloaded` with `Retry-After`), and gives it
//! back when its answer body is dropped: sent whole, reset by the HTTP/2 send
//! deadline, or its connection closed. The body hands the answer to hyper in
//! [`CHUNK`]-byte pieces, so on HTTP/1.1 the slot is held until the last
//! piece is taken, which happens once the earlier ones are written out.
//! Memory held by batch answers is therefore at most the slots times the
//! largest answer (`--batch-limit` entries).

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Bytes;
use http_body::{Frame, SizeHint};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Default of `--batch-max-in-flight`.
pub const DEFAULT_BATCH_MAX_IN_FLIGHT: usize = 16;
/// The range `--batch-max-in-flight` is checked against.
pub const BATCH_MAX_IN_FLIGHT_RANGE: std::ops::RangeInclusive<u64> = 1..=10_000;
/// The piece of an answer given to hyper at a time.
pub const CHUNK: usize = 64 * 1024;

/// The batch slots of one server.
#[derive(Debug, Clone)]
pub struct BatchSlots {
    slots: Arc<Semaphore>,
    wait: Duration,
}

/// A batch slot, held until dropped.
#[derive(Debug)]
pub struct Slot(#[allow(dead_code)] OwnedSemaphorePermit);

impl BatchSlots {
    /// `count` slots; a batch waits at most `wait` for one.
    pub fn new(count: usize, wait: Duration) -> Self {
        BatchSlots {
            slots: Arc::new(Semaphore::new(count.max(1))),
            wait,
        }
    }

    /// A slot, or `None` when none freed up within the wait.
    pub async fn take(&self) -> Option<Slot> {
        let acquire = self.slots.clone().acquire_owned();
        match tokio::time::timeout(self.wait, acquire).await {
            Ok(Ok(permit)) => Some(Slot(permit)),
            // The semaphore is never closed; a timeout is the only refusal.
            Ok(Err(_)) | Err(_) => None,
        }
    }

    /// Slots free now.
    pub fn available(&self) -> usize {
        self.slots.available_permits()
    }
}

/// An answer body that holds its batch slot until the client has taken it
/// (or the body is dropped), given out [`CHUNK`] bytes at a time.
#[derive(Debug)]
pub struct SlotBody {
    rest: Bytes,
    slot: Option<Slot>,
}

impl SlotBody {
    pub fn new(answer: Vec<u8>, slot: Slot) -> Self {
        SlotBody {
            rest: Bytes::from(answer),
            slot: Some(slot),
        }
    }
}

impl http_body::Body for SlotBody {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        if this.rest.is_empty() {
            this.slot = None;
            return Poll::Ready(None);
        }
        let piece = this.rest.split_to(this.rest.len().min(CHUNK));
        Poll::Ready(Some(Ok(Frame::data(piece))))
    }

    fn is_end_stream(&self) -> bool {
        self.rest.is_empty()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.rest.len() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_slot_comes_back_when_the_body_is_read_or_dropped() {
        let slots = BatchSlots::new(1, Duration::from_millis(20));
        let slot = slots.take().await.expect("a free slot");
        assert!(slots.take().await.is_none(), "the only slot is held");
        let body = SlotBody::new(vec![7; CHUNK * 2 + 5], slot);
        assert_eq!(
            http_body::Body::size_hint(&body).exact(),
            Some((CHUNK * 2 + 5) as u64)
        );
        let bytes = axum::body::to_bytes(axum::body::Body::new(body), usize::MAX)
            .await
            .expect("infallible");
        assert_eq!(bytes.len(), CHUNK * 2 + 5);
        assert_eq!(slots.available(), 1, "read whole: the slot is back");

        let slot = slots.take().await.expect("the slot again");
        drop(SlotBody::new(vec![1; 10], slot));
        assert_eq!(slots.available(), 1, "dropped unread: the slot is back");
    }
}
