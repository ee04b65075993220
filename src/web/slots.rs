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
//!
//! Slots bound how many answers are held, not how large they are: that is
//! the data's doing (a city name of 1,000,000 characters made one answer of
//! 1,000 entries 1 GB, and 16 slots about 16 GB). So each slot also carries
//! a [`Meter`]: the answer's bytes, charged as it is built (the batch
//! writer's buffer, the MCP tool's entries times [`MCP_COPIES`]) against the
//! client's share (a quarter of the budget, as with slots) and the budget
//! of all answers (`--batch-answer-mib`; by default `--batch-max-in-flight`
//! times `--batch-limit` times [`ENTRY_BYTES`], 64 MiB), and given back
//! with the slot. An answer that would pass its share is abandoned at
//! once ([`Spent`]), so memory held by answers is at most the budget plus
//! one entry per slot, whatever the data holds.

use std::collections::HashMap;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
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
/// Bytes of answer budgeted per entry of `--batch-limit` when
/// `--batch-answer-mib` is not given: an entry is about 470 bytes as JSON
/// and 3 KB as an MCP result ([`MCP_COPIES`]) with real data.
pub const ENTRY_BYTES: usize = 4 * 1024;
/// The range `--batch-answer-mib` is checked against.
pub const BATCH_ANSWER_MIB_RANGE: std::ops::RangeInclusive<u64> = 1..=1024 * 1024;
/// How many times over an MCP `lookup_ips` answer is held while the MCP
/// library builds it: the entries, their JSON value tree (several times
/// their text), its text as the result's content, and the JSON-RPC body
/// holding both. Its entries are charged this many times their JSON size
/// (measured: 130 answers of 1,000 entries, about 0.47 MB of JSON each,
/// took 370 MB, 2.85 MB or 6 times each).
pub const MCP_COPIES: usize = 6;

/// The entries of a batch [`BatchSlots::new`] budgets for: the default of
/// `--batch-limit` (`batch::DEFAULT_BATCH_LIMIT`, which a test of `batch`
/// holds equal).
pub const DEFAULT_ENTRIES: usize = 1000;

/// The default answer budget: `slots` answers of `entries` entries of
/// [`ENTRY_BYTES`].
pub fn default_answer_bytes(slots: usize, entries: usize) -> usize {
    slots.saturating_mul(entries).saturating_mul(ENTRY_BYTES)
}

/// The batch slots of one server.
#[derive(Debug, Clone)]
pub struct BatchSlots {
    slots: Arc<Semaphore>,
    wait: Duration,
    /// Slots and bytes held per client (IPv6 clients by their /64), and
    /// bytes held in all.
    books: Arc<Mutex<Books>>,
    /// The most slots one client may hold.
    per_client: usize,
    /// The byte budgets: all answers', one client's.
    bytes: usize,
    bytes_per_client: usize,
}

/// What is held, per client and in all.
#[derive(Debug, Default)]
struct Books {
    clients: HashMap<IpAddr, Account>,
    bytes: usize,
}

/// One client's slots and bytes.
#[derive(Debug, Default, Clone, Copy)]
struct Account {
    slots: usize,
    bytes: usize,
}

/// A batch slot, held until dropped, and the meter of its answer.
#[derive(Debug)]
pub struct Slot {
    _permit: OwnedSemaphorePermit,
    meter: Meter,
}

impl Slot {
    /// The meter the answer's bytes are charged to (given back when the
    /// slot and every copy of the meter are dropped).
    pub fn meter(&self) -> Meter {
        self.meter.clone()
    }
}

/// Why no slot was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Busy {
    /// The client holds [`BatchSlots::per_client`] slots already.
    Client(usize),
    /// The client's answers hold its share of bytes already.
    ClientBytes(usize),
    /// No slot freed up within the wait.
    All,
}

/// Why an answer may grow no further.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spent {
    /// The answer alone would pass one client's share (the bytes): it can
    /// never be built; fewer addresses might.
    Answer(usize),
    /// With the client's other answers, it would pass the client's share.
    Client(usize),
    /// With every client's answers, it would pass the budget.
    All,
}

impl BatchSlots {
    /// `count` slots, at most a quarter of them (at least one) per client;
    /// a batch waits at most `wait` for one. The answers may hold the
    /// default budget for batches of [`DEFAULT_ENTRIES`] entries
    /// ([`BatchSlots::with_answer_bytes`] to set it).
    pub fn new(count: usize, wait: Duration) -> Self {
        let count = count.max(1);
        BatchSlots {
            slots: Arc::new(Semaphore::new(count)),
            wait,
            books: Arc::default(),
            per_client: (count / 4).max(1),
            bytes: 0,
            bytes_per_client: 0,
        }
        .with_answer_bytes(default_answer_bytes(count, DEFAULT_ENTRIES))
    }

    /// The same slots, their answers holding at most `bytes` in all and a
    /// quarter of that (at least one [`CHUNK`]) per client.
    pub fn with_answer_bytes(mut self, bytes: usize) -> Self {
        self.bytes = bytes.max(CHUNK);
        self.bytes_per_client = (self.bytes / 4).max(CHUNK);
        self
    }

    /// A slot for a batch of `client`: refused at once when the client
    /// holds its share, else waited for up to the wait.
    pub async fn take(&self, client: IpAddr) -> Result<Slot, Busy> {
        let meter = self.hold(client)?;
        let acquire = self.slots.clone().acquire_owned();
        match tokio::time::timeout(self.wait, acquire).await {
            Ok(Ok(permit)) => Ok(Slot {
                _permit: permit,
                meter,
            }),
            // The semaphore is never closed; a timeout is the only refusal.
            Ok(Err(_)) | Err(_) => Err(Busy::All),
        }
    }

    /// Counts one more slot for `client`, unless it holds its share of
    /// slots or of bytes.
    fn hold(&self, client: IpAddr) -> Result<Meter, Busy> {
        let key = bucket_key(client);
        let mut books = self.books.lock().unwrap_or_else(PoisonError::into_inner);
        let account = books.clients.entry(key).or_default();
        if account.slots >= self.per_client {
            return Err(Busy::Client(self.per_client));
        }
        if account.bytes >= self.bytes_per_client {
            return Err(Busy::ClientBytes(self.bytes_per_client));
        }
        account.slots += 1;
        Ok(Meter(Arc::new(Held {
            slots: self.clone(),
            key,
            charged: AtomicUsize::new(0),
        })))
    }

    /// Slots free now.
    pub fn available(&self) -> usize {
        self.slots.available_permits()
    }

    /// The most slots one client may hold.
    pub fn per_client(&self) -> usize {
        self.per_client
    }

    /// Bytes answers hold now, in all.
    pub fn bytes_held(&self) -> usize {
        self.books
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .bytes
    }

    /// The byte budgets: all answers', one client's.
    pub fn answer_bytes(&self) -> (usize, usize) {
        (self.bytes, self.bytes_per_client)
    }
}

/// The bytes of one answer, charged to its client's share and to the
/// budget of all answers as it grows; shared by the slot's body and the
/// code that builds the answer, given back when the last copy is dropped.
#[derive(Debug, Clone)]
pub struct Meter(Arc<Held>);

impl Meter {
    /// Charges the answer up to `total` bytes in all (more than before; a
    /// smaller total changes nothing), or says why it may not grow: then
    /// nothing more is charged, and the caller abandons the answer.
    pub fn charge_to(&self, total: usize) -> Result<(), Spent> {
        let held = &*self.0;
        let slots = &held.slots;
        let mut books = slots.books.lock().unwrap_or_else(PoisonError::into_inner);
        let charged = held.charged.load(Ordering::Relaxed);
        let Some(more) = total.checked_sub(charged).filter(|m| *m > 0) else {
            return Ok(());
        };
        if total > slots.bytes_per_client {
            return Err(Spent::Answer(slots.bytes_per_client));
        }
        if books.bytes.saturating_add(more) > slots.bytes {
            return Err(Spent::All);
        }
        let account = books.clients.entry(held.key).or_default();
        if account.bytes.saturating_add(more) > slots.bytes_per_client {
            return Err(Spent::Client(slots.bytes_per_client));
        }
        account.bytes += more;
        books.bytes += more;
        held.charged.store(total, Ordering::Relaxed);
        Ok(())
    }

    /// Bytes charged so far.
    pub fn charged(&self) -> usize {
        self.0.charged.load(Ordering::Relaxed)
    }
}

/// One slot counted for a client and the bytes its answer holds, uncounted
/// on drop (the client's entry goes when it holds none: the map holds only
/// clients with slots).
#[derive(Debug)]
struct Held {
    slots: BatchSlots,
    key: IpAddr,
    /// Changed only under the books' lock.
    charged: AtomicUsize,
}

impl Drop for Held {
    fn drop(&mut self) {
        let charged = *self.charged.get_mut();
        let mut books = self
            .slots
            .books
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        books.bytes = books.bytes.saturating_sub(charged);
        if let Some(account) = books.clients.get_mut(&self.key) {
            account.slots = account.slots.saturating_sub(1);
            account.bytes = account.bytes.saturating_sub(charged);
            if account.slots == 0 {
                books.clients.remove(&self.key);
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

    /// An answer's bytes are charged to its client's share (a quarter of
    /// the budget) and to the budget, refused past either, and given back
    /// when the slot and every copy of its meter are gone.
    #[tokio::test]
    async fn answers_are_charged_by_bytes_to_their_client_and_to_all() {
        let slots = BatchSlots::new(16, Duration::from_millis(20)).with_answer_bytes(4 * CHUNK);
        assert_eq!(slots.answer_bytes(), (4 * CHUNK, CHUNK));
        let ip = |s: &str| -> IpAddr { s.parse().unwrap() };
        let a = slots.take(ip("192.0.2.1")).await.expect("a slot");
        let meter = a.meter();
        assert_eq!(meter.charge_to(CHUNK + 1), Err(Spent::Answer(CHUNK)));
        meter.charge_to(CHUNK / 2).expect("within the share");
        meter.charge_to(CHUNK / 4).expect("smaller: nothing more");
        assert_eq!(meter.charged(), CHUNK / 2);
        let second = slots.take(ip("192.0.2.1")).await.expect("a second slot");
        assert_eq!(
            second.meter().charge_to(CHUNK / 2 + 1),
            Err(Spent::Client(CHUNK)),
            "the client's first answer holds half its share"
        );
        second.meter().charge_to(CHUNK / 2).expect("the rest of it");
        assert_eq!(
            slots.take(ip("192.0.2.1")).await.err(),
            Some(Busy::ClientBytes(CHUNK)),
            "a client whose answers hold its share gets no slot"
        );
        let mut others = Vec::new();
        for i in 2..5 {
            let slot = slots.take(ip(&format!("192.0.2.{i}"))).await.unwrap();
            slot.meter().charge_to(CHUNK).expect("each its share");
            others.push(slot);
        }
        assert_eq!(slots.bytes_held(), 4 * CHUNK);
        let last = slots.take(ip("192.0.2.9")).await.expect("a slot");
        assert_eq!(
            last.meter().charge_to(1),
            Err(Spent::All),
            "the budget is spent"
        );
        drop((a, meter, second, others));
        assert_eq!(slots.bytes_held(), 0, "given back");
        last.meter().charge_to(CHUNK).expect("room again");
        let copy = last.meter();
        drop(last);
        assert_eq!(slots.bytes_held(), CHUNK, "a copy of the meter holds it");
        drop(copy);
        assert_eq!(slots.bytes_held(), 0);
        assert!(slots.books.lock().unwrap().clients.is_empty());
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
        assert!(slots.books.lock().unwrap().clients.is_empty());
        assert_eq!(slots.available(), 8);
        assert_eq!(BatchSlots::new(3, Duration::ZERO).per_client(), 1);
    }
}
