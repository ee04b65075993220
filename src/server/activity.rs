//! What one connection is doing, as its watchdog
//! ([`connection`](super::connection)) needs to know: how many requests are
//! in flight and when the last one started or ended. Only requests count:
//! HTTP/2 PINGs and other control frames never reach the service, so a
//! client answering PINGs is still idle.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The requests of one connection.
#[derive(Debug)]
pub(crate) struct Activity {
    /// When the connection was accepted; times below are counted from it.
    epoch: Instant,
    in_flight: AtomicUsize,
    /// Requests started so far.
    started: AtomicU64,
    /// Nanoseconds from `epoch` to the last start or end of a request.
    last: AtomicU64,
}

/// What the watchdog sees at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Snapshot {
    pub in_flight: usize,
    pub started: u64,
    /// The last start or end of a request (the accept time if none).
    pub last: Instant,
}

impl Activity {
    /// A connection accepted now.
    pub(crate) fn new() -> Self {
        Activity {
            epoch: Instant::now(),
            in_flight: AtomicUsize::new(0),
            started: AtomicU64::new(0),
            last: AtomicU64::new(0),
        }
    }

    /// When the connection was accepted.
    pub(crate) fn epoch(&self) -> Instant {
        self.epoch
    }

    /// A request starts.
    pub(crate) fn start(&self) {
        self.in_flight.fetch_add(1, Ordering::Relaxed);
        self.started.fetch_add(1, Ordering::Relaxed);
        self.touch();
    }

    /// A request ends (answered, or dropped by the connection).
    pub(crate) fn end(&self) {
        self.touch();
        self.in_flight.fetch_sub(1, Ordering::Release);
    }

    fn touch(&self) {
        let now = crate::web::serve::clock::recent();
        let since = now.saturating_duration_since(self.epoch).as_nanos();
        let since = u64::try_from(since).unwrap_or(u64::MAX);
        self.last.fetch_max(since, Ordering::Relaxed);
    }

    /// The state now.
    pub(crate) fn snapshot(&self) -> Snapshot {
        let in_flight = self.in_flight.load(Ordering::Acquire);
        Snapshot {
            in_flight,
            started: self.started.load(Ordering::Relaxed),
            last: self.epoch + Duration::from_nanos(self.last.load(Ordering::Relaxed)),
        }
    }
}

impl Default for Activity {
    fn default() -> Self {
        Activity::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_counted_in_flight_until_they_end() {
        let a = Activity::new();
        assert_eq!(a.snapshot().started, 0);
        assert_eq!(a.snapshot().last, a.epoch());
        a.start();
        a.start();
        a.end();
        let s = a.snapshot();
        assert_eq!((s.in_flight, s.started), (1, 2));
        assert!(s.last >= a.epoch());
        a.end();
        assert_eq!(a.snapshot().in_flight, 0);
    }
}
