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
//! deadline, or its connection closed. The body ([`Guarded`]) hands the answer
//! to hyper in [`CHUNK`]-byte pieces, so on HTTP/1.1 the slot is held until the last
//! piece is taken, which happens once the earlier ones are written out.
//! Memory held by batch answers is therefore at most the slots times the
//! largest answer (`--batch-limit` entries).
//!
//! One client (as resolved through trusted proxies, [`super::client_key`]) holds
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
//! once ([`Refusal::AnswerTooLarge`], [`Refusal::AnswerBytesPerClient`],
//! [`Refusal::AnswerBytes`]), so memory held by answers is at most the budget plus
//! one entry per slot, whatever the data holds.

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::body::Body;
use axum::response::Response;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::body::{Guard, Guarded};
use super::count::{Holder, PerClient, Share};
use crate::web::serve::admission::{Refusal, client_key};

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
    /// Slots held per client, and the bytes their answers hold.
    clients: Arc<PerClient<Share>>,
    /// The bytes all answers hold.
    bytes: Arc<Share>,
    /// One client's share of the bytes.
    bytes_per_client: usize,
}

/// A batch slot, held until dropped, and the meter of its answer.
#[derive(Debug)]
pub struct BatchSlot {
    _permit: OwnedSemaphorePermit,
    meter: Meter,
}

impl BatchSlot {
    /// The meter the answer's bytes are charged to (given back when the
    /// slot and every copy of the meter are dropped).
    pub fn meter(&self) -> Meter {
        self.meter.clone()
    }

    /// `body` holding this slot until it has ended or is dropped, handed
    /// over [`CHUNK`] bytes at a time.
    pub fn follow(self, body: Body) -> Body {
        Guarded::new(body, CHUNK, self).into_body()
    }
}

impl Guard for BatchSlot {}

/// A large answer's charge ([`BatchSlots::charge_answer`]) holds its meter.
impl Guard for Meter {}

/// The largest answer [`BatchSlots::charge_answer`] leaves uncharged.
pub const LARGE_ANSWER: u64 = CHUNK as u64;

impl BatchSlots {
    /// `count` slots, at most a quarter of them (at least one) per client;
    /// a batch waits at most `wait` for one. The answers may hold the
    /// default budget for batches of [`DEFAULT_ENTRIES`] entries
    /// ([`BatchSlots::with_answer_bytes`] to set it).
    pub fn new(count: usize, wait: Duration) -> Self {
        let count = count.max(1);
        let per_client = (count / 4).max(1);
        BatchSlots {
            slots: Arc::new(Semaphore::new(count)),
            wait,
            clients: Arc::new(PerClient::new(
                per_client,
                Refusal::BatchSlotsPerClient(per_client),
            )),
            bytes: Arc::new(Share::new(0)),
            bytes_per_client: 0,
        }
        .with_answer_bytes(default_answer_bytes(count, DEFAULT_ENTRIES))
    }

    /// The same slots, their answers holding at most `bytes` in all and a
    /// quarter of that (at least one [`CHUNK`]) per client.
    pub fn with_answer_bytes(mut self, bytes: usize) -> Self {
        let bytes = bytes.max(CHUNK);
        self.bytes = Arc::new(Share::new(bytes));
        self.bytes_per_client = (bytes / 4).max(CHUNK);
        self
    }

    /// A slot for a batch of `client`: refused at once when the client
    /// holds its share, else waited for up to the wait.
    pub async fn take(&self, client: IpAddr) -> Result<BatchSlot, Refusal> {
        let meter = self.hold(client)?;
        let acquire = self.slots.clone().acquire_owned();
        match tokio::time::timeout(self.wait, acquire).await {
            Ok(Ok(permit)) => Ok(BatchSlot {
                _permit: permit,
                meter,
            }),
            // The semaphore is never closed; a timeout is the only refusal.
            Ok(Err(_)) | Err(_) => Err(Refusal::BatchSlots),
        }
    }

    /// Counts one more slot for `client`, unless it holds its share of
    /// slots or of bytes.
    fn hold(&self, client: IpAddr) -> Result<Meter, Refusal> {
        let per_client = self.bytes_per_client;
        let holder = self.clients.enter(
            client_key(client),
            || Share::new(per_client),
            |bytes| {
                if bytes.used() >= bytes.cap() {
                    return Err(Refusal::BatchBytesPerClient(bytes.cap()));
                }
                Ok(())
            },
        )?;
        Ok(Meter(Arc::new(Held {
            holder,
            all: self.bytes.clone(),
            charged: AtomicUsize::new(0),
        })))
    }

    /// `response` charged to `client`'s share of answer bytes and to the
    /// budget of all answers until its body has been taken whole or is
    /// dropped, handed over [`CHUNK`] bytes at a time, as a batch answer's
    /// (the large answers of the network view: an AS's prefixes CSV, a page
    /// of its prefixes, of a prefix's rows, of a country's ASes). It counts
    /// as one of the client's slots, without taking one of the server's:
    /// a client holds at most its share of slots' worth of large answers
    /// (a quarter of `--batch-max-in-flight`) and its share of bytes at
    /// once; more are refused at once with 503. Answers of [`LARGE_ANSWER`]
    /// bytes or less, and of unknown size, are not charged.
    pub fn charge_answer(&self, client: IpAddr, response: Response) -> Result<Response, Refusal> {
        let size = match http_body::Body::size_hint(response.body()).exact() {
            Some(n) if n > LARGE_ANSWER => usize::try_from(n).unwrap_or(usize::MAX),
            _ => return Ok(response),
        };
        let meter = self.hold(client)?;
        meter.charge_to(size)?;
        Ok(response.map(|body| Guarded::new(body, CHUNK, meter).into_body()))
    }

    /// Slots free now.
    pub fn available(&self) -> usize {
        self.slots.available_permits()
    }

    /// The most slots one client may hold.
    pub fn per_client(&self) -> usize {
        self.clients.max()
    }

    /// Bytes answers hold now, in all.
    pub fn bytes_held(&self) -> usize {
        self.bytes.used()
    }

    /// The byte budgets: all answers', one client's.
    pub fn answer_bytes(&self) -> (usize, usize) {
        (self.bytes.cap(), self.bytes_per_client)
    }
}

/// The bytes of one answer, charged to its client's share and to the
/// budget of all answers as it grows; shared by the slot's body and the
/// code that builds the answer, given back when the last copy is dropped.
#[derive(Debug, Clone)]
pub struct Meter(Arc<Held>);

impl Meter {
    /// Charges the answer up to `total` bytes in all (more than before; a
    /// smaller total changes nothing), or says why it may not grow
    /// ([`Refusal::AnswerTooLarge`], [`Refusal::AnswerBytes`],
    /// [`Refusal::AnswerBytesPerClient`]): then nothing more is charged, and
    /// the caller abandons the answer.
    pub fn charge_to(&self, total: usize) -> Result<(), Refusal> {
        let held = &*self.0;
        let mine = held.holder.shared();
        let mut charged = held.charged.load(Ordering::Acquire);
        loop {
            let Some(more) = total.checked_sub(charged).filter(|m| *m > 0) else {
                return Ok(());
            };
            if total > mine.cap() {
                return Err(Refusal::AnswerTooLarge(mine.cap()));
            }
            if !held.all.take(more) {
                return Err(Refusal::AnswerBytes);
            }
            if !mine.take(more) {
                held.all.give_back(more);
                return Err(Refusal::AnswerBytesPerClient(mine.cap()));
            }
            match held
                .charged
                .compare_exchange(charged, total, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return Ok(()),
                // Another copy charged meanwhile: give this back, count again.
                Err(now) => {
                    held.all.give_back(more);
                    mine.give_back(more);
                    charged = now;
                }
            }
        }
    }

    /// Bytes charged so far.
    pub fn charged(&self) -> usize {
        self.0.charged.load(Ordering::Relaxed)
    }
}

/// One slot counted for a client and the bytes its answer holds, uncounted
/// on drop (the client is forgotten when it holds no slot).
#[derive(Debug)]
struct Held {
    holder: Holder<Share>,
    all: Arc<Share>,
    charged: AtomicUsize,
}

impl Drop for Held {
    fn drop(&mut self) {
        let charged = *self.charged.get_mut();
        self.all.give_back(charged);
        self.holder.shared().give_back(charged);
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
            Some(Refusal::BatchSlots),
            "the only slot is held"
        );
        let body = slot.follow(Body::from(vec![7; CHUNK * 2 + 5]));
        assert_eq!(
            http_body::Body::size_hint(&body).exact(),
            Some((CHUNK * 2 + 5) as u64)
        );
        let bytes = axum::body::to_bytes(body, usize::MAX).await.expect("read");
        assert_eq!(bytes.len(), CHUNK * 2 + 5);
        assert_eq!(slots.available(), 1, "read whole: the slot is back");

        let slot = slots.take(a).await.expect("the slot again");
        drop(slot.follow(Body::from(vec![1; 10])));
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
        assert_eq!(
            meter.charge_to(CHUNK + 1),
            Err(Refusal::AnswerTooLarge(CHUNK))
        );
        meter.charge_to(CHUNK / 2).expect("within the share");
        meter.charge_to(CHUNK / 4).expect("smaller: nothing more");
        assert_eq!(meter.charged(), CHUNK / 2);
        let second = slots.take(ip("192.0.2.1")).await.expect("a second slot");
        assert_eq!(
            second.meter().charge_to(CHUNK / 2 + 1),
            Err(Refusal::AnswerBytesPerClient(CHUNK)),
            "the client's first answer holds half its share"
        );
        second.meter().charge_to(CHUNK / 2).expect("the rest of it");
        assert_eq!(
            slots.take(ip("192.0.2.1")).await.err(),
            Some(Refusal::BatchBytesPerClient(CHUNK)),
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
            Err(Refusal::AnswerBytes),
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
        assert_eq!(slots.clients.clients(), 0);
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
        assert_eq!(
            refused.err(),
            Some(Refusal::BatchSlotsPerClient(2)),
            "the same /64"
        );
        let _other = slots
            .take(ip("2001:db8:0:1::1"))
            .await
            .expect("another /64");
        let _v4 = slots.take(ip("192.0.2.1")).await.expect("an IPv4 client");
        drop(first);
        let _again = slots.take(ip("2001:db8::4")).await.expect("given back");
        drop((_second, _again, _other, _v4));
        assert_eq!(slots.clients.clients(), 0);
        assert_eq!(slots.available(), 8);
        assert_eq!(BatchSlots::new(3, Duration::ZERO).per_client(), 1);
    }
}
