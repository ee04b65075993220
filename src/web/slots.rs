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
//!
//! One client (as resolved through trusted proxies; IPv6 by its /64) holds
//! at most a quarter of the slots (at least one): more is refused with 503
//! at once. Otherwise 16 one-address batches on HTTP/2 streams it never
//! reads would hold every slot until the send deadline, and renewed every
//! deadline, under any rate limit, keep the batch route from everyone.

use std::collections::HashMap;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Bytes;
use http_body::{Frame, SizeHint};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::ratelimit::bucket_key;

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
    /// Slots held per client (IPv6 clients by their /64), and the most one
    /// client may hold.
    held: Arc<Mutex<HashMap<IpAddr, usize>>>,
    per_client: usize,
}

/// A batch slot, held until dropped.
#[derive(Debug)]
pub struct Slot {
    _permit: OwnedSemaphorePermit,
    _client: Held,
}

/// Why no slot was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Busy {
    /// The client holds [`BatchSlots::per_client`] slots already.
    Client(usize),
    /// No slot freed up within the wait.
    All,
}

impl BatchSlots {
    /// `count` slots, at most a quarter of them (at least one) per client;
    /// a batch waits at most `wait` for one.
    pub fn new(count: usize, wait: Duration) -> Self {
        let count = count.max(1);
        BatchSlots {
            slots: Arc::new(Semaphore::new(count)),
            wait,
            held: Arc::default(),
            per_client: (count / 4).max(1),
        }
    }

    /// A slot for a batch of `client`: refused at once when the client
    /// holds its share, else waited for up to the wait.
    pub async fn take(&self, client: IpAddr) -> Result<Slot, Busy> {
        let held = self.hold(client)?;
        let acquire = self.slots.clone().acquire_owned();
        match tokio::time::timeout(self.wait, acquire).await {
            Ok(Ok(permit)) => Ok(Slot {
                _permit: permit,
                _client: held,
            }),
            // The semaphore is never closed; a timeout is the only refusal.
            Ok(Err(_)) | Err(_) => Err(Busy::All),
        }
    }

    /// Counts one more slot for `client`, unless it holds its share.
    fn hold(&self, client: IpAddr) -> Result<Held, Busy> {
        let key = bucket_key(client);
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        let count = held.entry(key).or_insert(0);
        if *count >= self.per_client {
            return Err(Busy::Client(self.per_client));
        }
        *count += 1;
        Ok(Held {
            held: self.held.clone(),
            key,
        })
    }

    /// Slots free now.
    pub fn available(&self) -> usize {
        self.slots.available_permits()
    }

    /// The most slots one client may hold.
    pub fn per_client(&self) -> usize {
        self.per_client
    }
}

/// One slot counted for a client, uncounted on drop (the client's entry
/// goes when it holds none: the map holds only clients with slots).
#[derive(Debug)]
struct Held {
    held: Arc<Mutex<HashMap<IpAddr, usize>>>,
    key: IpAddr,
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(count) = held.get_mut(&self.key) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                held.remove(&self.key);
            }
        }
    }
}

/// A response body that holds a batch slot until it is dropped: sent whole,
/// reset, or its connection gone (an MCP answer of many addresses, built
/// and serialised by the MCP library, see `web::mcp`).
pub struct Holding {
    body: axum::body::Body,
    _slot: Slot,
}

impl Holding {
    pub fn new(body: axum::body::Body, slot: Slot) -> Self {
        Holding { body, _slot: slot }
    }
}

impl http_body::Body for Holding {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
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
        let (a, b) = ("192.0.2.1".parse().unwrap(), "192.0.2.2".parse().unwrap());
        let slot = slots.take(a).await.expect("a free slot");
        assert_eq!(
            slots.take(b).await.err(),
            Some(Busy::All),
            "the only slot is held"
        );
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

        let slot = slots.take(a).await.expect("the slot again");
        drop(SlotBody::new(vec![1; 10], slot));
        assert_eq!(slots.available(), 1, "dropped unread: the slot is back");
    }

    /// One client holds at most a quarter of the slots (IPv6: its /64),
    /// refused at once beyond; others are served; a slot given back is
    /// the client's again, and clients without slots are forgotten.
    #[tokio::test]
    async fn one_client_holds_at_most_a_quarter_of_the_slots() {
        let slots = BatchSlots::new(8, Duration::from_secs(5));
        assert_eq!(slots.per_client(), 2);
        let ip = |s: &str| -> IpAddr { s.parse().unwrap() };
        let first = slots.take(ip("2001:db8::1")).await.expect("a slot");
        let _second = slots.take(ip("2001:db8::ffff:2")).await.expect("a slot");
        let refused =
            tokio::time::timeout(Duration::from_millis(100), slots.take(ip("2001:db8::3")));
        let refused = refused.await.expect("refused at once, not after the wait");
        assert_eq!(refused.err(), Some(Busy::Client(2)), "the same /64");
        let _other = slots
            .take(ip("2001:db8:0:1::1"))
            .await
            .expect("another /64");
        let _v4 = slots.take(ip("192.0.2.1")).await.expect("an IPv4 client");
        drop(first);
        let _again = slots.take(ip("2001:db8::4")).await.expect("given back");
        drop((_second, _again, _other, _v4));
        assert!(slots.held.lock().unwrap().is_empty());
        assert_eq!(slots.available(), 8);
        assert_eq!(BatchSlots::new(3, Duration::ZERO).per_client(), 1);
    }
}
