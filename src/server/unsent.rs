//! HTTP/2 answers waiting to be sent, charged to the client's share.
//!
//! A client that announces a zero flow-control window can open up to
//! [`MAX_CONCURRENT_STREAMS`](super::connection::MAX_CONCURRENT_STREAMS)
//! streams on each of its connections and read none of the answers; each
//! answer then waits in memory until the send deadline resets its stream.
//! One address with 40 such connections of 100 HTML pages held 78 MB, and the
//! per-address connection cap (256 by default) would let it hold about
//! 500 MB. So every HTTP/2 answer larger than [`SMALL`] takes its size from
//! two budgets ([`Share`]): its address's ([`PER_ADDRESS_UNSENT`], shared by
//! all the address's connections; none for trusted proxies, which read what
//! they ask for) and all connections' ([`TOTAL_UNSENT`]), and gives it back
//! when its body is dropped: sent whole, reset, or its connection gone.
//! An answer that does not fit is not sent: its stream is reset
//! (`RST_STREAM`, [`Shed`]), which frees it at once (a 503 in its place
//! would wait unsent like the answer), so the client that holds the memory
//! is refused, and other addresses are served. HTTP/1.1 needs no share: one answer at a
//! time per connection, mostly in the kernel's socket buffer.
//!
//! [`PER_ADDRESS_UNSENT`]: crate::connections::PER_ADDRESS_UNSENT
//! [`TOTAL_UNSENT`]: crate::connections::TOTAL_UNSENT

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::response::Response;
use http_body::{Frame, SizeHint};

use crate::connections::{Address, Share};

/// Answers up to this size are not charged: a lookup's JSON (about 650
/// bytes) never is.
pub const SMALL: u64 = 4 * 1024;

/// The shares one connection's answers are charged to: all connections'
/// and (unless it comes from a trusted proxy) its address's.
#[derive(Debug, Clone)]
pub struct Shares {
    pub total: Arc<Share>,
    pub address: Option<Arc<Address>>,
}

impl Shares {
    /// `response` with its size charged to the shares until its body is
    /// dropped, or [`Shed`] when it does not fit: hyper then resets the
    /// stream (`RST_STREAM`), which frees it at once.
    pub fn charge(&self, response: Response) -> Result<Response, Shed> {
        let size = http_body::Body::size_hint(response.body()).lower();
        if size <= SMALL {
            return Ok(response);
        }
        let bytes = usize::try_from(size).unwrap_or(usize::MAX);
        let Some(charge) = self.take(bytes) else {
            metrics::counter!("iplookup_http2_unsent_refused_total").increment(1);
            return Err(Shed);
        };
        Ok(response.map(|body| {
            Body::new(Charged {
                body,
                _charge: charge,
            })
        }))
    }

    fn take(&self, bytes: usize) -> Option<Charge> {
        if let Some(address) = &self.address
            && !address.unsent.take(bytes)
        {
            return None;
        }
        if !self.total.take(bytes) {
            if let Some(address) = &self.address {
                address.unsent.give_back(bytes);
            }
            return None;
        }
        Some(Charge {
            shares: self.clone(),
            bytes,
        })
    }
}

/// Bytes taken from the shares, given back on drop.
#[derive(Debug)]
struct Charge {
    shares: Shares,
    bytes: usize,
}

impl Drop for Charge {
    fn drop(&mut self) {
        self.shares.total.give_back(self.bytes);
        if let Some(address) = &self.shares.address {
            address.unsent.give_back(self.bytes);
        }
    }
}

/// An answer's body and its charge.
struct Charged {
    body: Body,
    _charge: Charge,
}

impl http_body::Body for Charged {
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

/// An HTTP/2 answer that did not fit its client's share: the stream is reset.
#[derive(Debug, thiserror::Error)]
#[error("the client's share of unsent answers is spent: stream reset")]
pub struct Shed;
