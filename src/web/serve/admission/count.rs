//! The two counts every limit of admission is made of: a budget drawn on
//! and given back ([`Share`]: bytes, or requests), and what each client
//! holds ([`PerClient`]: how many holders, and what they share, such as a
//! connection's [`Address`]), which forgets a client once it holds nothing,
//! so it holds only clients that hold something.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use super::Refusal;

/// A budget, drawn on and given back.
#[derive(Debug)]
pub struct Share {
    cap: usize,
    used: AtomicUsize,
}

impl Share {
    /// A budget of `cap`.
    pub fn new(cap: usize) -> Self {
        Share {
            cap,
            used: AtomicUsize::new(0),
        }
    }

    /// Takes `n`, unless that would pass the cap.
    pub fn take(&self, n: usize) -> bool {
        let mut used = self.used.load(Ordering::Relaxed);
        loop {
            let Some(next) = used.checked_add(n).filter(|m| *m <= self.cap) else {
                return false;
            };
            match self
                .used
                .compare_exchange_weak(used, next, Ordering::AcqRel, Ordering::Relaxed)
            {
                Ok(_) => return true,
                Err(now) => used = now,
            }
        }
    }

    /// Gives back `n` taken before.
    pub fn give_back(&self, n: usize) {
        self.used.fetch_sub(n, Ordering::AcqRel);
    }

    /// Taken now.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    /// The cap.
    pub fn cap(&self) -> usize {
        self.cap
    }
}

/// What the connections of one client share (`super::connections`).
#[derive(Debug)]
pub struct Address {
    /// Its requests in flight (a count).
    pub requests: Share,
    /// Its HTTP/2 answers waiting to be sent (bytes, `super::unsent`).
    pub unsent: Share,
}

/// What each client holds: how many holders (connections, batch slots),
/// at most `max` per client, and a `T` they share (made when the client's
/// first holder enters, dropped with its last).
#[derive(Debug)]
pub struct PerClient<T> {
    max: usize,
    /// Refused with this when a client has `max` holders.
    over: Refusal,
    clients: Mutex<HashMap<u128, (usize, Arc<T>)>>,
}

impl<T> PerClient<T> {
    /// At most `max` (at least one) holders per client; more are refused with `over`.
    pub fn new(max: usize, over: Refusal) -> Self {
        PerClient {
            max: max.max(1),
            over,
            clients: Mutex::new(HashMap::new()),
        }
    }

    /// The most holders of one client.
    pub fn max(&self) -> usize {
        self.max
    }

    /// Clients that hold something now.
    pub fn clients(&self) -> usize {
        self.lock().len()
    }

    /// One more holder for the client `key`, unless it has `max`, or
    /// `admit` refuses given what its holders share (`make` makes that for
    /// a client's first holder). Held until the [`Holder`] is dropped.
    pub fn enter(
        self: &Arc<Self>,
        key: u128,
        make: impl FnOnce() -> T,
        admit: impl FnOnce(&T) -> Result<(), Refusal>,
    ) -> Result<Holder<T>, Refusal> {
        let mut clients = self.lock();
        let (count, shared) = clients.entry(key).or_insert_with(|| (0, Arc::new(make())));
        let refused = if *count >= self.max {
            Err(self.over)
        } else {
            admit(shared)
        };
        if let Err(refusal) = refused {
            if *count == 0 {
                clients.remove(&key);
            }
            return Err(refusal);
        }
        *count += 1;
        Ok(Holder {
            shared: shared.clone(),
            clients: self.clone(),
            key,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u128, (usize, Arc<T>)>> {
        self.clients.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// One holder of a client in a [`PerClient`], counted until dropped.
#[derive(Debug)]
pub struct Holder<T> {
    shared: Arc<T>,
    clients: Arc<PerClient<T>>,
    key: u128,
}

impl<T> Holder<T> {
    /// What the client's holders share.
    pub fn shared(&self) -> &Arc<T> {
        &self.shared
    }
}

impl<T> Drop for Holder<T> {
    fn drop(&mut self) {
        let mut clients = self.clients.lock();
        if let Some((count, _)) = clients.get_mut(&self.key) {
            *count -= 1;
            if *count == 0 {
                clients.remove(&self.key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_share_holds_its_cap() {
        let share = Share::new(10);
        assert!(share.take(7) && !share.take(4) && share.take(3));
        share.give_back(5);
        assert_eq!(share.used(), 5);
    }

    #[test]
    fn a_client_has_at_most_max_holders_and_is_forgotten_at_none() {
        let per = Arc::new(PerClient::new(2, Refusal::ConnectionsPerClient));
        let make = || Share::new(1);
        let one = per.enter(1, make, |_| Ok(())).unwrap();
        let two = per.enter(1, make, |_| Ok(())).unwrap();
        assert!(Arc::ptr_eq(one.shared(), two.shared()), "shared");
        assert_eq!(
            per.enter(1, make, |_| Ok(())).unwrap_err(),
            Refusal::ConnectionsPerClient
        );
        let other = per.enter(2, make, |_| Err(Refusal::BatchSlots));
        assert_eq!(other.unwrap_err(), Refusal::BatchSlots);
        assert_eq!(per.clients(), 1, "a refused first holder leaves nothing");
        drop((one, two));
        assert_eq!(per.clients(), 0);
    }
}
