//! hyper's timer for one HTTP/1.1 connection, which hyper uses only for the
//! header read timeout (`--header-timeout`): from the moment hyper starts
//! reading a request head, the head must be whole within the timeout.
//!
//! hyper asks its timer for a new sleep for each request head and drops it
//! once the head is read, so with tokio's timer each request registered a
//! timer entry and removed it again (a lock of the timer driver each way).
//! Here every sleep of a connection drives one tokio sleep kept for the
//! connection's life: a new deadline moves that entry later, which tokio
//! does without touching the driver, and the entry fires only when a
//! deadline is really reached (or, once in a while, at a deadline already
//! moved: tokio then files it again). The deadlines and the answer
//! (hyper's header timeout error, which closes the connection) are as before.
//!
//! `now` is the request clock's last read ([`clock::recent`]): after a
//! response, the instant its request ended in the same poll of the
//! connection ([`Scoped`]), so the next head's deadline costs no read.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use hyper::rt::{Sleep, Timer};

use crate::web::serve::clock;

/// The timer of one connection.
#[derive(Clone, Default)]
pub(crate) struct HeaderTimer {
    entry: Arc<Mutex<Option<Pin<Box<tokio::time::Sleep>>>>>,
}

impl HeaderTimer {
    pub(crate) fn new() -> Self {
        HeaderTimer::default()
    }
}

impl Timer for HeaderTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn Sleep>> {
        self.sleep_until(self.now() + duration)
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn Sleep>> {
        Box::pin(HeaderSleep {
            entry: self.entry.clone(),
            deadline,
        })
    }

    fn now(&self) -> Instant {
        clock::recent()
    }

    fn reset(&self, sleep: &mut Pin<Box<dyn Sleep>>, new_deadline: Instant) {
        match sleep.as_mut().downcast_mut_pin::<HeaderSleep>() {
            Some(sleep) => sleep.get_mut().deadline = new_deadline,
            None => *sleep = self.sleep_until(new_deadline),
        }
    }
}

/// One deadline, on the connection's tokio sleep.
struct HeaderSleep {
    entry: Arc<Mutex<Option<Pin<Box<tokio::time::Sleep>>>>>,
    deadline: Instant,
}

impl Future for HeaderSleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let deadline = tokio::time::Instant::from_std(self.deadline);
        let mut entry = self.entry.lock().unwrap_or_else(PoisonError::into_inner);
        let sleep = entry.get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        if sleep.deadline() != deadline {
            sleep.as_mut().reset(deadline);
        }
        sleep.as_mut().poll(cx)
    }
}

impl Sleep for HeaderSleep {}

/// A connection's future, each poll in a scope of the request clock (see
/// [`clock`]): the end of a request read in one poll is the start of the
/// next head's deadline.
pub(crate) struct Scoped<F>(pub F);

impl<F: Future + Unpin> Future for Scoped<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let _clock = clock::scope();
        Pin::new(&mut self.0).poll(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// Sleeps of one timer fire at their own deadlines, one after another
    /// on the same entry: later than the last, earlier than one dropped
    /// before it fired, and moved by `reset`.
    #[tokio::test]
    async fn each_sleep_fires_at_its_deadline_and_not_before() {
        let timer = HeaderTimer::new();
        for wait in [30, 60, 20] {
            let start = Instant::now();
            timer.sleep_until(start + ms(wait)).await;
            let took = start.elapsed();
            assert!(took >= ms(wait), "{took:?} < {wait} ms");
            assert!(took < ms(wait + 500), "{took:?}");
        }
        // Entered at a far deadline, dropped, then a nearer one.
        let mut far = timer.sleep(Duration::from_secs(3600));
        let pending = std::future::poll_fn(|cx| Poll::Ready(far.as_mut().poll(cx).is_pending()));
        assert!(pending.await);
        drop(far);
        let start = Instant::now();
        let near = tokio::time::timeout(Duration::from_secs(5), timer.sleep_until(start + ms(40)));
        assert!(near.await.is_ok(), "the nearer deadline fired");
        assert!(start.elapsed() >= ms(40));
        // Moved by `reset`, later.
        let start = Instant::now();
        let mut moved = timer.sleep_until(start + ms(10));
        timer.reset(&mut moved, start + ms(80));
        moved.await;
        assert!(start.elapsed() >= ms(80), "{:?}", start.elapsed());
        // Not before its deadline.
        let mut later = timer.sleep(Duration::from_secs(3600));
        let early = tokio::time::timeout(ms(50), later.as_mut()).await;
        assert!(early.is_err());
    }
}
