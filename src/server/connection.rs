//! Serving one accepted connection: HTTP/1.1 or HTTP/2 (chosen by the
//! client's first bytes: the HTTP/2 preface, after TLS, or in clear text as
//! h2c prior knowledge with `--h2c`; without it a clear-text connection is
//! HTTP/1.1 only, served by hyper directly), with its limits, and a watchdog
//! that closes it:
//!
//! - no request started within `header_timeout` of the accept: closed;
//! - idle (no request in flight, none started or ended) for `idle_timeout`:
//!   closed gracefully (HTTP/2 `GOAWAY`; HTTP/1.1 closes at once). Only
//!   requests count, so an HTTP/2 client answering PINGs is idle;
//! - on shutdown: closed gracefully;
//! - a connection asked to close that has not closed `grace` later (a
//!   response it does not read, `drain` at shutdown): dropped.
//!
//! Within a connection, hyper enforces the header read timeout (on one timer
//! entry per connection, [`header_timer`](super::header_timer)) and the
//! header size limit (HTTP/1.1, 431 above it), and HTTP/2's limits: 100
//! concurrent streams, the header list size, keep-alive PINGs; each HTTP/2
//! response must be sent within `request_timeout` ([`deadline`](super::deadline))
//! and fit its address's share of unsent answers ([`unsent`](crate::web::serve::admission::unsent)).

use std::future::Future;
use std::net::SocketAddr;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hyper::rt::{Read, Write};
use hyper::server::conn::http1;
use hyper_util::rt::TokioTimer;
use hyper_util::server::conn::auto;
use tokio::sync::watch;

use super::activity::{Activity, Snapshot};
use super::deadline::{Handoff, StreamExecutor};
use super::header_timer::{HeaderTimer, Scoped};
use super::service::ConnService;
use super::when_woken::WhenWoken;
use crate::web::hot::Routes;
use crate::web::serve::admission::unsent::Shares;

/// Concurrent HTTP/2 streams per connection (as most servers: nginx 128, Envoy 100).
pub(crate) const MAX_CONCURRENT_STREAMS: u32 = 100;

/// The limits of every connection.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    /// For the request headers (HTTP/1.1), and for the first request to start.
    pub header_timeout: Duration,
    /// Closed after this long without a request.
    pub idle_timeout: Duration,
    /// For an HTTP/2 response to be sent once ready; also how long a
    /// connection asked to close when idle may take to close.
    pub request_timeout: Duration,
    /// Largest request head (HTTP/1.1) or header list (HTTP/2).
    pub max_header_bytes: usize,
    /// How long connections may take to close at shutdown.
    pub drain: Duration,
}

/// Serves `io`, a connection from `peer`, until it closes, the watchdog
/// closes it, or `shutdown` turns true; its HTTP/2 answers are charged to
/// `shares` ([`unsent`](crate::web::serve::admission::unsent)). With `detect_h2` (TLS, or
/// `--h2c` in clear text) the client's first bytes choose HTTP/1.1 or
/// HTTP/2; without it the connection is HTTP/1.1 only.
pub(crate) async fn serve<I>(
    io: I,
    peer: SocketAddr,
    routes: Routes,
    shares: Shares,
    settings: &Settings,
    detect_h2: bool,
    shutdown: watch::Receiver<bool>,
) where
    I: Read + Write + Unpin + Send + 'static,
{
    let activity = Arc::new(Activity::new());
    let handoff = Arc::new(Handoff::default());
    let service = ConnService::new(routes, peer, activity.clone(), handoff.clone(), shares);
    if detect_h2 {
        let builder = builder(settings, handoff);
        let conn = pin!(builder.serve_connection(io, service));
        supervise(conn, peer, &activity, settings, shutdown).await;
    } else {
        let conn = pin!(http1_builder(settings).serve_connection(io, service));
        supervise(conn, peer, &activity, settings, shutdown).await;
    }
}

/// A connection that can be asked to close once its requests are answered.
trait Graceful {
    fn graceful_shutdown(self: Pin<&mut Self>);
}

impl<I> Graceful for auto::Connection<'_, I, ConnService, StreamExecutor>
where
    I: Read + Write + Unpin + Send + 'static,
{
    fn graceful_shutdown(self: Pin<&mut Self>) {
        auto::Connection::graceful_shutdown(self);
    }
}

impl<I> Graceful for http1::Connection<I, ConnService>
where
    I: Read + Write + Unpin + Send + 'static,
{
    fn graceful_shutdown(self: Pin<&mut Self>) {
        http1::Connection::graceful_shutdown(self);
    }
}

/// Runs `conn` under the watchdog (see the module documentation).
async fn supervise<C, E>(
    mut conn: Pin<&mut C>,
    peer: SocketAddr,
    activity: &Activity,
    settings: &Settings,
    shutdown: watch::Receiver<bool>,
) where
    C: Future<Output = Result<(), E>> + Graceful,
    E: std::fmt::Display,
{
    let first_look = settings.header_timeout.min(settings.idle_timeout);
    let timer = tokio::time::sleep_until((activity.epoch() + first_look).into());
    let mut timer = pin!(timer);
    let mut closing = false;
    // Looked at when the signal fires, not on every wake of the connection.
    // (A copy of the receiver: the connection holds `shutdown` until it
    // ends, which is how the server knows when every connection is gone.)
    let mut signal = shutdown.clone();
    let mut stop = WhenWoken::new(async move {
        let _ = signal.wait_for(|stop| *stop).await;
    });
    loop {
        tokio::select! {
            biased;
            result = Scoped(conn.as_mut()) => {
                if let Err(e) = result {
                    tracing::debug!(%peer, error = %e, "connection ended with an error");
                }
                return;
            }
            () = &mut stop, if !closing => {
                conn.as_mut().graceful_shutdown();
                closing = true;
                timer.as_mut().reset((Instant::now() + settings.drain).into());
            }
            () = timer.as_mut() => {
                if closing {
                    tracing::debug!(%peer, "connection did not close in time: dropped");
                    return;
                }
                match decide(&activity.snapshot(), Instant::now(), settings) {
                    Verdict::Wait(until) => timer.as_mut().reset(until.into()),
                    Verdict::Drop => {
                        tracing::debug!(%peer, "no request within the header timeout: closed");
                        return;
                    }
                    Verdict::Close => {
                        tracing::debug!(%peer, "idle connection closed");
                        metrics::counter!("iplookup_connections_idle_closed_total").increment(1);
                        conn.as_mut().graceful_shutdown();
                        closing = true;
                        timer.as_mut().reset((Instant::now() + settings.request_timeout).into());
                    }
                }
            }
        }
    }
}

/// hyper's HTTP/1.1 connection builder with the limits of `settings` (the
/// same as [`builder`]'s for HTTP/1.1).
fn http1_builder(settings: &Settings) -> http1::Builder {
    let mut builder = http1::Builder::new();
    builder
        .timer(HeaderTimer::new())
        .header_read_timeout(settings.header_timeout)
        .max_buf_size(settings.max_header_bytes.max(8192));
    builder
}

/// hyper's connection builder with the limits of `settings`.
fn builder(settings: &Settings, handoff: Arc<Handoff>) -> auto::Builder<StreamExecutor> {
    let mut builder = auto::Builder::new(StreamExecutor::new(handoff, settings.request_timeout));
    builder
        .http1()
        .timer(HeaderTimer::new())
        .header_read_timeout(settings.header_timeout)
        .max_buf_size(settings.max_header_bytes.max(8192));
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_header_list_size(u32::try_from(settings.max_header_bytes).unwrap_or(u32::MAX))
        .max_concurrent_streams(MAX_CONCURRENT_STREAMS)
        .keep_alive_interval(Some(Duration::from_secs(30)))
        .keep_alive_timeout(Duration::from_secs(10));
    builder
}

/// What the watchdog does when its timer fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// Look again then.
    Wait(Instant),
    /// Close at once: no request came.
    Drop,
    /// Close gracefully: idle.
    Close,
}

/// The watchdog's verdict on a connection in state `s` at `now`.
fn decide(s: &Snapshot, now: Instant, settings: &Settings) -> Verdict {
    if s.started == 0 {
        let first_by = s.last + settings.header_timeout;
        return if now >= first_by {
            Verdict::Drop
        } else {
            Verdict::Wait(first_by)
        };
    }
    if s.in_flight > 0 {
        return Verdict::Wait(now + settings.idle_timeout);
    }
    let idle_at = s.last + settings.idle_timeout;
    if now >= idle_at {
        Verdict::Close
    } else {
        Verdict::Wait(idle_at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> Settings {
        Settings {
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            request_timeout: Duration::from_secs(10),
            max_header_bytes: 16 * 1024,
            drain: Duration::from_secs(10),
        }
    }

    fn snapshot(in_flight: usize, started: u64, last: Instant) -> Snapshot {
        Snapshot {
            in_flight,
            started,
            last,
        }
    }

    #[test]
    fn a_connection_without_a_request_is_dropped_after_the_header_timeout() {
        let t0 = Instant::now();
        let s = snapshot(0, 0, t0);
        let at = t0 + Duration::from_secs(10);
        assert_eq!(decide(&s, t0, &settings()), Verdict::Wait(at));
        assert_eq!(decide(&s, at, &settings()), Verdict::Drop);
    }

    #[test]
    fn an_idle_connection_is_closed_and_a_busy_one_is_not() {
        let t0 = Instant::now();
        let last = t0 + Duration::from_secs(5);
        let idle = snapshot(0, 3, last);
        let at = last + Duration::from_secs(60);
        assert_eq!(decide(&idle, last, &settings()), Verdict::Wait(at));
        assert_eq!(decide(&idle, at, &settings()), Verdict::Close);
        let busy = snapshot(1, 3, last);
        assert_eq!(
            decide(&busy, at, &settings()),
            Verdict::Wait(at + Duration::from_secs(60))
        );
    }
}
