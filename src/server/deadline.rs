//! The send deadline of HTTP/2 responses: a stream whose response is ready
//! but not sent within the limit (`--request-timeout`) is reset
//! (`RST_STREAM`, CANCEL) and its memory freed.
//!
//! hyper runs each HTTP/2 stream (the handler's future, then the copy of the
//! body into the stream as the client's flow-control window allows) as a
//! task of the connection's executor. [`StreamExecutor`] is that executor: it
//! wraps each stream in a timer armed when the response is ready. A client
//! that announces a zero window and never opens it would otherwise hold the
//! whole response in memory for as long as the connection lives. Dropping
//! the stream's task drops its body and its half of the h2 stream, and h2
//! resets a stream nobody holds any more.
//!
//! How the task learns when its response was ready: hyper calls the
//! connection's service and hands the returned future to the executor right
//! after, on the connection's task, with nothing in between; the service
//! ([`service`](super::service)) leaves a [`Stamp`] in the connection's
//! [`Handoff`] and the executor takes it for the task it spawns.

use std::future::{Future, poll_fn};
use std::pin::{Pin, pin};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::task::Poll;
use std::time::{Duration, Instant};

/// When a stream's response was ready (set once, by the service's future).
#[derive(Debug, Clone, Default)]
pub(crate) struct Stamp(Arc<OnceLock<Instant>>);

impl Stamp {
    /// The response is ready now.
    pub(crate) fn ready(&self) {
        let _ = self.0.set(Instant::now());
    }

    fn at(&self) -> Option<Instant> {
        self.0.get().copied()
    }
}

/// The stamp of the stream being created on one connection.
#[derive(Debug, Default)]
pub(crate) struct Handoff(Mutex<Option<Stamp>>);

impl Handoff {
    /// A new stamp for the stream about to be spawned.
    pub(crate) fn give(&self) -> Stamp {
        let stamp = Stamp::default();
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(stamp.clone());
        stamp
    }

    fn take(&self) -> Option<Stamp> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

/// The executor of one connection's HTTP/2 streams.
#[derive(Debug, Clone)]
pub(crate) struct StreamExecutor {
    handoff: Arc<Handoff>,
    limit: Duration,
}

impl StreamExecutor {
    /// Streams of the connection whose service fills `handoff`; a response
    /// has `limit` to be sent once ready.
    pub(crate) fn new(handoff: Arc<Handoff>, limit: Duration) -> Self {
        StreamExecutor { handoff, limit }
    }
}

impl<F> hyper::rt::Executor<F> for StreamExecutor
where
    F: Future<Output = ()> + Send + 'static,
{
    fn execute(&self, stream: F) {
        let stamp = self.handoff.take();
        tokio::spawn(with_deadline(stream, stamp, self.limit));
    }
}

/// Runs `stream` until it ends, or until `limit` after its stamp.
async fn with_deadline<F: Future<Output = ()>>(stream: F, stamp: Option<Stamp>, limit: Duration) {
    let mut stream = pin!(stream);
    // Armed the first time the stream waits after its response is ready
    // (never, for a response sent at once).
    let mut timer: Option<Pin<Box<tokio::time::Sleep>>> = None;
    poll_fn(|cx| {
        if stream.as_mut().poll(cx).is_ready() {
            return Poll::Ready(());
        }
        if timer.is_none() {
            timer = stamp
                .as_ref()
                .and_then(Stamp::at)
                .map(|at| Box::pin(tokio::time::sleep_until((at + limit).into())));
        }
        let expired = timer
            .as_mut()
            .is_some_and(|t| t.as_mut().poll(cx).is_ready());
        if expired {
            metrics::counter!("iplookup_http2_streams_reset_total").increment(1);
            tracing::debug!(?limit, "HTTP/2 response not sent in time: stream reset");
            return Poll::Ready(());
        }
        Poll::Pending
    })
    .await;
}
