//! A future that is polled again only when it asked to be: [`WhenWoken`]
//! gives its inner future a waker of its own, and passes on later polls of
//! the task (woken by something else) without touching it.
//!
//! A connection's task waits for its requests and, beside them, for the
//! shutdown signal; `select!` polls every branch on every wake, and each
//! poll of a `watch` receiver locks the channel's list of waiters, which
//! every connection shares. Wrapped in this, the signal is looked at once,
//! then only when it fires.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Wake, Waker};

/// See the module documentation.
pub(crate) struct WhenWoken<F> {
    inner: Pin<Box<F>>,
    waker: Arc<Flag>,
    /// The inner future's own waker (made once).
    own: Waker,
}

/// Set when the inner future is woken; wakes the task that polled last.
struct Flag {
    woken: AtomicBool,
    task: Mutex<Option<Waker>>,
}

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        let task = self.task.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(task) = task.as_ref() {
            task.wake_by_ref();
        }
    }
}

impl<F: Future> WhenWoken<F> {
    pub(crate) fn new(inner: F) -> Self {
        let waker = Arc::new(Flag {
            // Polled the first time.
            woken: AtomicBool::new(true),
            task: Mutex::new(None),
        });
        WhenWoken {
            inner: Box::pin(inner),
            own: Waker::from(waker.clone()),
            waker,
        }
    }
}

impl<F: Future> Future for WhenWoken<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        {
            let mut task = self
                .waker
                .task
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if !task.as_ref().is_some_and(|t| t.will_wake(cx.waker())) {
                *task = Some(cx.waker().clone());
            }
        }
        if !self.waker.woken.swap(false, Ordering::AcqRel) {
            return Poll::Pending;
        }
        let this = &mut *self;
        this.inner
            .as_mut()
            .poll(&mut Context::from_waker(&this.own))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// Counts its polls; ready once `ready` is set, waking through the
    /// waker of its last poll when set.
    struct Counted {
        polls: Arc<AtomicUsize>,
        ready: Arc<Mutex<(bool, Option<Waker>)>>,
    }

    impl Future for Counted {
        type Output = ();

        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            self.polls.fetch_add(1, Ordering::SeqCst);
            let mut ready = self.ready.lock().unwrap();
            if ready.0 {
                return Poll::Ready(());
            }
            ready.1 = Some(cx.waker().clone());
            Poll::Pending
        }
    }

    #[tokio::test]
    async fn the_inner_future_is_polled_only_when_woken() {
        let polls = Arc::new(AtomicUsize::new(0));
        let ready = Arc::new(Mutex::new((false, None::<Waker>)));
        let mut f = WhenWoken::new(Counted {
            polls: polls.clone(),
            ready: ready.clone(),
        });
        for _ in 0..5 {
            let pending =
                std::future::poll_fn(|cx| Poll::Ready(Pin::new(&mut f).poll(cx).is_pending()));
            assert!(pending.await);
        }
        assert_eq!(
            polls.load(Ordering::SeqCst),
            1,
            "polled once, then left alone"
        );
        let setter = {
            let ready = ready.clone();
            tokio::spawn(async move {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                let mut r = ready.lock().unwrap();
                r.0 = true;
                if let Some(w) = r.1.take() {
                    w.wake();
                }
            })
        };
        tokio::time::timeout(std::time::Duration::from_secs(5), &mut f)
            .await
            .expect("woken and ready");
        assert_eq!(polls.load(Ordering::SeqCst), 2);
        setter.await.unwrap();
    }
}
