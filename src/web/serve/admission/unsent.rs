//! HTTP/2 answers waiting to be sent, charged to the client's share.
//!
//! A client that announces a zero flow-control window can open up to
//! `server::connection::MAX_CONCURRENT_STREAMS` streams on each of its
//! connections and read none of the answers; each answer then waits in
//! memory until the send deadline resets its stream. One address with 40
//! such connections of 100 HTML pages held 78 MB, and the per-address
//! connection cap (256 by default) would let it hold about 500 MB. So every
//! HTTP/2 answer larger than [`SMALL`] takes its size from two budgets
//! ([`Share`]): its client's ([`PER_ADDRESS_UNSENT`], shared by all the
//! client's connections, [`Address`]; none for trusted
//! proxies, which read what they ask for) and all connections'
//! ([`TOTAL_UNSENT`]), and gives it back when its body has ended or is
//! dropped: sent whole, reset, or its connection gone. A body of unknown
//! size is charged piece by piece as it is produced. Charged answers are
//! handed to hyper in [`PIECE`]s ([`Guarded`]), so that one the client reads
//! a few bytes at a time stays within reach of the send deadline
//! (`server::deadline`) instead of sitting whole in h2's buffers, uncharged.
//! An answer that does not fit is not sent: its stream is reset
//! (`RST_STREAM`, [`Refusal::Unsent`]), which frees it at once (a 503 in its
//! place would wait unsent like the answer), so the client that holds the
//! memory is refused, and other addresses are served. HTTP/1.1 needs no
//! share: one answer at a time per connection, mostly in the kernel's socket
//! buffer, which `server::socket` bounds (256 KiB, reset after
//! `--request-timeout` without progress).

use std::sync::Arc;

use axum::response::Response;

use super::Refusal;
use super::body::{Guard, Guarded};
use super::count::{Address, Share};

/// Bytes of answers to one client that may wait to be sent at once.
pub const PER_ADDRESS_UNSENT: usize = 8 * 1024 * 1024;
/// Bytes of answers to all clients that may wait to be sent at once.
pub const TOTAL_UNSENT: usize = 128 * 1024 * 1024;

/// Answers up to this size are not charged: a lookup's JSON (about 650
/// bytes) never is.
pub const SMALL: u64 = 4 * 1024;

/// The most of a charged answer handed to hyper at once. hyper gives each
/// piece whole to h2 as soon as the client's window has room for one byte,
/// and ends the stream's task once the body has none left: an answer handed
/// over whole would then wait in h2's buffers, out of reach of the send
/// deadline and of its charge, for as long as a client that reads a few
/// bytes a second cares to take. In pieces, the task waits for the window
/// between them, so the deadline can reset the stream and the charge holds
/// until the last piece is handed over.
pub const PIECE: usize = 16 * 1024;

/// The shares one connection's answers are charged to: all connections'
/// and (unless it comes from a trusted proxy) its client's.
#[derive(Debug, Clone)]
pub struct Shares {
    pub total: Arc<Share>,
    pub address: Option<Arc<Address>>,
}

impl Shares {
    /// `response` with its size charged to the shares until its body has
    /// ended or is dropped, or [`Refusal::Unsent`] when it does not fit:
    /// hyper then resets the stream (`RST_STREAM`), which frees it at once.
    /// A body of unknown size is charged as it is produced, and reset the
    /// same way when its next piece does not fit.
    pub fn charge(&self, response: Response) -> Result<Response, Refusal> {
        let hint = http_body::Body::size_hint(response.body());
        let size = match hint.exact() {
            Some(size) if size <= SMALL => return Ok(response),
            Some(size) => usize::try_from(size).unwrap_or(usize::MAX),
            None => 0,
        };
        let charge = self.take(size).ok_or_else(refused)?;
        Ok(response.map(|body| Guarded::new(body, PIECE, charge).into_body()))
    }

    /// `bytes` taken from both shares, or none of them.
    fn take(&self, bytes: usize) -> Option<Charge> {
        self.reserve(bytes).then(|| Charge {
            shares: self.clone(),
            bytes,
        })
    }

    fn reserve(&self, bytes: usize) -> bool {
        if let Some(address) = &self.address
            && !address.unsent.take(bytes)
        {
            return false;
        }
        if !self.total.take(bytes) {
            if let Some(address) = &self.address {
                address.unsent.give_back(bytes);
            }
            return false;
        }
        true
    }
}

/// Counts a refusal.
fn refused() -> Refusal {
    metrics::counter!("iplookup_http2_unsent_refused_total").increment(1);
    Refusal::Unsent
}

/// Bytes taken from the shares, given back on drop.
#[derive(Debug)]
struct Charge {
    shares: Shares,
    bytes: usize,
}

impl Guard for Charge {
    /// Charges up to `total` bytes in all; refused when they do not fit.
    fn cover(&mut self, total: usize) -> Result<(), Refusal> {
        let more = total.saturating_sub(self.bytes);
        if more == 0 || self.shares.reserve(more) {
            self.bytes += more;
            return Ok(());
        }
        Err(refused())
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        self.shares.total.give_back(self.bytes);
        if let Some(address) = &self.shares.address {
            address.unsent.give_back(self.bytes);
        }
    }
}
