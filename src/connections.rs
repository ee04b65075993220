//! Who may open a connection: at most `max_connections` open at once in all,
//! and at most `max_connections_per_ip` from one address (IPv6 counted per
//! /64, IPv4-mapped IPv6 as IPv4). A connection over either cap is closed on
//! arrival and counted in `iplookup_connections_refused_total{reason}`.
//! Trusted proxies (`--trusted-proxy`) carry many callers on their
//! connections: only the global cap applies to them.
//!
//! The connections of one address also share its [`Address`] budgets:
//! requests in flight (`max_requests_per_ip`; more get 503 at once, see
//! `server::service`), and answers waiting to be sent ([`PER_ADDRESS_UNSENT`]
//! bytes, beside the global [`TOTAL_UNSENT`]; see `server::unsent`).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::web::client::TrustedProxies;

/// Why a connection was refused (the `reason` label of the metric).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// `--max-connections` connections are open.
    MaxConnections,
    /// `--max-connections-per-ip` connections are open from this address.
    MaxConnectionsPerIp,
}

impl Refused {
    /// The label value of `iplookup_connections_refused_total`.
    pub fn reason(self) -> &'static str {
        match self {
            Refused::MaxConnections => "max_connections",
            Refused::MaxConnectionsPerIp => "max_connections_per_ip",
        }
    }
}

/// Bytes of answers to one address that may wait to be sent at once.
pub const PER_ADDRESS_UNSENT: usize = 8 * 1024 * 1024;
/// Bytes of answers to all addresses that may wait to be sent at once.
pub const TOTAL_UNSENT: usize = 128 * 1024 * 1024;

/// A budget of bytes, drawn on and given back.
#[derive(Debug)]
pub struct Share {
    cap: usize,
    used: AtomicUsize,
}

impl Share {
    /// A budget of `cap` bytes.
    pub fn new(cap: usize) -> Self {
        Share {
            cap,
            used: AtomicUsize::new(0),
        }
    }

    /// Takes `bytes`, unless that would pass the cap.
    pub fn take(&self, bytes: usize) -> bool {
        let mut used = self.used.load(Ordering::Relaxed);
        loop {
            let Some(next) = used.checked_add(bytes).filter(|n| *n <= self.cap) else {
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

    /// Gives back `bytes` taken before.
    pub fn give_back(&self, bytes: usize) {
        self.used.fetch_sub(bytes, Ordering::AcqRel);
    }

    /// Bytes taken now.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }
}

/// What the connections of one address share.
#[derive(Debug)]
pub struct Address {
    /// Its requests in flight (a count).
    pub requests: Share,
    /// Its HTTP/2 answers waiting to be sent (bytes).
    pub unsent: Share,
}

/// The two caps, shared by every accepted connection.
#[derive(Debug, Clone)]
pub struct Admission {
    global: Arc<Semaphore>,
    per_ip: Arc<PerIp>,
    exempt: Arc<TrustedProxies>,
    unsent: Arc<Share>,
}

/// Open connections and their shares by address key.
#[derive(Debug)]
struct PerIp {
    max: u32,
    max_requests: usize,
    open: Mutex<HashMap<u128, (u32, Arc<Address>)>>,
}

impl Admission {
    /// At most `max` connections in all and `max_per_ip` per address, and
    /// `max_requests_per_ip` requests in flight per address; the addresses
    /// in `exempt` only count against `max`.
    pub fn new(
        max: usize,
        max_per_ip: usize,
        max_requests_per_ip: usize,
        exempt: Arc<TrustedProxies>,
    ) -> Self {
        Admission {
            global: Arc::new(Semaphore::new(max.max(1))),
            per_ip: Arc::new(PerIp {
                max: u32::try_from(max_per_ip.max(1)).unwrap_or(u32::MAX),
                max_requests: max_requests_per_ip.max(1),
                open: Mutex::new(HashMap::new()),
            }),
            exempt,
            unsent: Arc::new(Share::new(TOTAL_UNSENT)),
        }
    }

    /// Admits a connection from `peer`, or says which cap refuses it (and
    /// counts the refusal). The connection holds the [`Admitted`] until it closes.
    pub fn admit(&self, peer: IpAddr) -> Result<Admitted, Refused> {
        let result = self.try_admit(peer);
        if let Err(refused) = result {
            metrics::counter!("iplookup_connections_refused_total", "reason" => refused.reason())
                .increment(1);
        }
        result
    }

    fn try_admit(&self, peer: IpAddr) -> Result<Admitted, Refused> {
        let global = self
            .global
            .clone()
            .try_acquire_owned()
            .map_err(|_| Refused::MaxConnections)?;
        let peer = peer.to_canonical();
        let slot = if self.exempt.contains(peer) {
            None
        } else {
            Some(self.per_ip.take(key(peer))?)
        };
        Ok(Admitted {
            _global: global,
            unsent: self.unsent.clone(),
            slot: slot.map(|(key, address)| (self.per_ip.clone(), key, address)),
        })
    }
}

impl PerIp {
    /// Counts one more connection for `key`, unless it is at the cap; the
    /// key and what the address's connections share.
    fn take(&self, key: u128) -> Result<(u128, Arc<Address>), Refused> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let (count, address) = open.entry(key).or_insert_with(|| {
            let address = Address {
                requests: Share::new(self.max_requests),
                unsent: Share::new(PER_ADDRESS_UNSENT),
            };
            (0, Arc::new(address))
        });
        if *count >= self.max {
            return Err(Refused::MaxConnectionsPerIp);
        }
        *count += 1;
        Ok((key, address.clone()))
    }

    /// Counts one connection of `key` fewer (forgets the key at zero).
    fn give_back(&self, key: u128) {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((count, _)) = open.get_mut(&key) {
            *count -= 1;
            if *count == 0 {
                open.remove(&key);
            }
        }
    }
}

/// The key an address is counted under: IPv4 addresses whole (as their
/// IPv4-mapped form), IPv6 addresses by their /64.
fn key(ip: IpAddr) -> u128 {
    match ip {
        IpAddr::V4(v4) => u128::from(v4.to_ipv6_mapped()),
        IpAddr::V6(v6) => u128::from(v6) & !u128::from(u64::MAX),
    }
}

/// An admitted connection's place under both caps, given back on drop.
#[derive(Debug)]
pub struct Admitted {
    _global: OwnedSemaphorePermit,
    unsent: Arc<Share>,
    slot: Option<(Arc<PerIp>, u128, Arc<Address>)>,
}

impl Admitted {
    /// The budgets this connection draws on: all connections' share of
    /// unsent answers and, unless it comes from a trusted proxy, what its
    /// address's connections share.
    pub fn shares(&self) -> (Arc<Share>, Option<Arc<Address>>) {
        let address = self.slot.as_ref().map(|(_, _, address)| address.clone());
        (self.unsent.clone(), address)
    }
}

impl Drop for Admitted {
    fn drop(&mut self) {
        if let Some((per_ip, key, _)) = &self.slot {
            per_ip.give_back(*key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn admission(max: usize, per_ip: usize, exempt: &[&str]) -> Admission {
        let nets = exempt.iter().map(|n| n.parse().unwrap()).collect();
        Admission::new(max, per_ip, 4, Arc::new(TrustedProxies::new(nets)))
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn one_address_is_capped_and_others_are_not() {
        let a = admission(10, 2, &[]);
        let first = [a.admit(ip("192.0.2.1")), a.admit(ip("192.0.2.1"))];
        assert!(first.iter().all(Result::is_ok));
        assert_eq!(
            a.admit(ip("192.0.2.1")).unwrap_err(),
            Refused::MaxConnectionsPerIp
        );
        assert!(a.admit(ip("192.0.2.2")).is_ok());
        drop(first);
        assert!(a.admit(ip("192.0.2.1")).is_ok(), "slots are given back");
    }

    #[test]
    fn ipv6_counts_per_64_and_mapped_ipv4_as_ipv4() {
        let a = admission(10, 1, &[]);
        let _one = a.admit(ip("2001:db8:1:2::1")).unwrap();
        assert!(a.admit(ip("2001:db8:1:2:ffff::9")).is_err(), "same /64");
        let _other = a.admit(ip("2001:db8:1:3::1")).expect("another /64");
        let _v4 = a.admit(ip("198.51.100.7")).unwrap();
        assert!(a.admit(ip("::ffff:198.51.100.7")).is_err(), "mapped");
    }

    #[test]
    fn the_global_cap_holds_and_proxies_skip_the_per_address_cap() {
        let a = admission(3, 1, &["10.0.0.0/8"]);
        let held: Vec<_> = (0..3).map(|_| a.admit(ip("10.1.2.3")).unwrap()).collect();
        assert_eq!(
            a.admit(ip("192.0.2.9")).unwrap_err(),
            Refused::MaxConnections
        );
        drop(held);
        assert!(a.admit(ip("192.0.2.9")).is_ok());
    }

    #[test]
    fn connections_of_one_address_share_one_budget_and_proxies_have_none() {
        let a = admission(10, 5, &["10.0.0.0/8"]);
        let one = a.admit(ip("192.0.2.1")).unwrap();
        let two = a.admit(ip("192.0.2.1")).unwrap();
        let (total, mine) = one.shares();
        let (_, also_mine) = two.shares();
        let (mine, also_mine) = (mine.unwrap(), also_mine.unwrap());
        assert!(Arc::ptr_eq(&mine, &also_mine));
        assert!(mine.unsent.take(PER_ADDRESS_UNSENT));
        assert!(!also_mine.unsent.take(1), "the address's budget is spent");
        assert!((0..4).all(|_| mine.requests.take(1)) && !also_mine.requests.take(1));
        let other = a.admit(ip("192.0.2.2")).unwrap();
        let theirs = other.shares().1.unwrap();
        assert!(
            theirs.unsent.take(1) && theirs.requests.take(1),
            "another address has its own"
        );
        mine.unsent.give_back(PER_ADDRESS_UNSENT);
        assert!(also_mine.unsent.take(1));
        assert!(
            total.take(TOTAL_UNSENT) && !total.take(1),
            "the total caps all"
        );
        let proxy = a.admit(ip("10.1.2.3")).unwrap();
        assert!(
            proxy.shares().1.is_none(),
            "a proxy only draws on the total"
        );
    }
}
