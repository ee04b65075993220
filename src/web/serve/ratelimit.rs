//! Optional per-caller rate limit (`--rate-limit`): a token bucket per caller
//! address (IPv6 callers by their /64), as resolved through trusted proxies,
//! and for IPv6 a second, wider bucket per /48, so a client that owns a /48
//! (65,536 /64s, a common end-site allocation) cannot multiply its limit by
//! rotating through its /64s. The /48 bucket refills [`PREFIX_FACTOR`] times
//! faster than a /64's and holds [`PREFIX_FACTOR`] times its burst: 16 busy
//! /64s of one /48 (a small office) each get their own full limit, a 17th
//! and later ones share what is left. A request takes a token from both of
//! its buckets, or from neither.
//!
//! Buckets live in two bounded caches (at most `capacity` callers each), so
//! memory stays bounded however many callers there are; a bucket evicted for
//! room simply starts full again.
//!
//! This is only the bucket arithmetic: which routes it applies to is the
//! route table's ([`crate::web::routes::Route::limited`]), and the 429 answer is
//! built with the other refusals ([`super::refusal`]).

use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use moka::sync::Cache;

use super::admission::client_key;

/// Requests per second and burst size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateLimit {
    pub per_second: f64,
    pub burst: u32,
}

#[derive(Debug)]
struct Bucket {
    tokens: f64,
    updated: Instant,
}

/// How many times a /64's rate and burst one IPv6 /48 gets in all.
pub const PREFIX_FACTOR: u32 = 16;

/// Buckets by key (an address or a prefix).
/// Buckets by caller: [`client_key`] (IPv4 addresses, IPv6 /64s), or an IPv6 /48.
type Buckets = Cache<u128, Arc<Mutex<Bucket>>>;

/// The buckets of every recent caller.
#[derive(Clone)]
pub struct RateLimiter {
    limit: RateLimit,
    /// Per IPv4 address and per IPv6 /64.
    callers: Buckets,
    /// Per IPv6 /48, with the limit times [`PREFIX_FACTOR`].
    prefixes: Buckets,
}

impl std::fmt::Debug for RateLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimiter")
            .field("limit", &self.limit)
            .finish_non_exhaustive()
    }
}

impl RateLimit {
    /// The limit of a whole IPv6 /48: this one times [`PREFIX_FACTOR`].
    pub fn prefix(&self) -> RateLimit {
        RateLimit {
            per_second: self.per_second * f64::from(PREFIX_FACTOR),
            burst: self.burst.max(1).saturating_mul(PREFIX_FACTOR),
        }
    }

    /// Tokens a bucket holds when full.
    fn capacity(&self) -> f64 {
        f64::from(self.burst.max(1))
    }

    /// Tokens added per second, never zero.
    fn rate(&self) -> f64 {
        self.per_second.max(0.001)
    }
}

impl RateLimiter {
    /// A limiter remembering at most `capacity` callers (IPv4 addresses and
    /// IPv6 /64s) and at most `capacity` IPv6 /48s.
    pub fn new(limit: RateLimit, capacity: u64) -> Self {
        RateLimiter {
            limit,
            callers: buckets(&limit, capacity),
            prefixes: buckets(&limit.prefix(), capacity),
        }
    }

    /// The most tokens one caller's bucket ever holds: a batch of more
    /// addresses never succeeds, however long it waits.
    pub fn burst(&self) -> u32 {
        self.limit.burst.max(1)
    }

    /// Takes a token for `caller` (and for its /48 if IPv6); `Err(wait)`
    /// when a bucket is empty, and then no token is taken.
    pub fn check(&self, caller: IpAddr) -> Result<(), Duration> {
        self.check_n(caller, 1)
    }

    /// Takes `n` tokens for `caller` (and for its /48 if IPv6) at once, as
    /// a batch of `n` addresses costs; `Err(wait)` when a bucket holds
    /// fewer, and then none is taken. More than the burst never succeeds.
    pub fn check_n(&self, caller: IpAddr, n: u32) -> Result<(), Duration> {
        if n == 0 {
            return Ok(());
        }
        let n = f64::from(n);
        let now = Instant::now();
        let own = bucket(&self.callers, client_key(caller), &self.limit);
        let mut own = own
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        own.refill(now, &self.limit);
        let Some(prefix_key) = prefix_key(caller) else {
            return own.take(&self.limit, n);
        };
        let wide = self.limit.prefix();
        let shared = bucket(&self.prefixes, prefix_key, &wide);
        // Always locked in this order (own, then shared): no deadlock.
        let mut shared = shared
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        shared.refill(now, &wide);
        match (own.wait(&self.limit, n), shared.wait(&wide, n)) {
            (None, None) => {
                own.tokens -= n;
                shared.tokens -= n;
                Ok(())
            }
            (a, b) => Err(a.max(b).unwrap_or_default()),
        }
    }

    /// Callers currently remembered (approximate): IPv4 addresses and IPv6
    /// /64s, plus IPv6 /48s.
    pub fn tracked(&self) -> u64 {
        self.callers.run_pending_tasks();
        self.prefixes.run_pending_tasks();
        self.callers.entry_count() + self.prefixes.entry_count()
    }
}

/// A cache of at most `capacity` buckets of `limit`.
fn buckets(limit: &RateLimit, capacity: u64) -> Buckets {
    // A bucket left alone this long is full again: forgetting it changes nothing.
    let refill = Duration::from_secs_f64((limit.capacity() / limit.rate()).min(3600.0));
    Cache::builder()
        // LRU, not the default TinyLFU: a new caller must always get a bucket,
        // or a flood of other callers would leave it unlimited.
        .eviction_policy(moka::policy::EvictionPolicy::lru())
        .max_capacity(capacity)
        .time_to_idle(refill + Duration::from_secs(1))
        .build()
}

/// The bucket of `key`, full if new.
fn bucket(buckets: &Buckets, key: u128, limit: &RateLimit) -> Arc<Mutex<Bucket>> {
    buckets.get_with(key, || {
        Arc::new(Mutex::new(Bucket {
            tokens: limit.capacity(),
            updated: Instant::now(),
        }))
    })
}

impl Bucket {
    /// Adds the tokens earned since the last update.
    fn refill(&mut self, now: Instant, limit: &RateLimit) {
        let earned = now.saturating_duration_since(self.updated).as_secs_f64() * limit.rate();
        self.tokens = (self.tokens + earned).min(limit.capacity());
        self.updated = now;
    }

    /// `None` if `n` tokens are there, else how long until they are.
    fn wait(&self, limit: &RateLimit, n: f64) -> Option<Duration> {
        (self.tokens < n).then(|| Duration::from_secs_f64((n - self.tokens) / limit.rate()))
    }

    /// Takes `n` tokens, or says how long until they are there.
    fn take(&mut self, limit: &RateLimit, n: f64) -> Result<(), Duration> {
        match self.wait(limit, n) {
            None => {
                self.tokens -= n;
                Ok(())
            }
            Some(wait) => Err(wait),
        }
    }
}

/// The /48 of an IPv6 caller; `None` for IPv4.
fn prefix_key(ip: IpAddr) -> Option<u128> {
    match ip.to_canonical() {
        IpAddr::V6(v6) => Some(u128::from(v6) & !((1u128 << 80) - 1)),
        IpAddr::V4(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv6Addr;

    use super::*;

    #[test]
    fn bucket_allows_burst_then_refuses() {
        let l = RateLimiter::new(
            RateLimit {
                per_second: 1.0,
                burst: 3,
            },
            100,
        );
        let ip: IpAddr = "192.0.2.1".parse().unwrap();
        for _ in 0..3 {
            assert!(l.check(ip).is_ok());
        }
        let wait = l.check(ip).unwrap_err();
        assert!(wait <= Duration::from_secs(1));
        assert!(l.check("192.0.2.2".parse().unwrap()).is_ok());
    }

    #[test]
    fn many_tokens_are_taken_all_or_none() {
        let l = RateLimiter::new(
            RateLimit {
                per_second: 0.001,
                burst: 10,
            },
            100,
        );
        for ip in ["192.0.2.1", "2001:db8::1"] {
            let ip: IpAddr = ip.parse().unwrap();
            assert!(l.check_n(ip, 0).is_ok());
            assert!(l.check_n(ip, 11).is_err());
            assert!(l.check_n(ip, 7).is_ok());
            assert!(l.check_n(ip, 4).is_err());
            assert!(l.check_n(ip, 3).is_ok());
            assert!(l.check(ip).is_err());
        }
    }

    #[test]
    fn ipv6_callers_share_their_slash_64() {
        let l = RateLimiter::new(
            RateLimit {
                per_second: 0.01,
                burst: 1,
            },
            100,
        );
        assert!(l.check("2001:db8::1".parse().unwrap()).is_ok());
        assert!(l.check("2001:db8::2".parse().unwrap()).is_err());
        assert!(l.check("2001:db8:0:1::1".parse().unwrap()).is_ok());
    }

    #[test]
    fn rotating_slash_64s_is_bounded_by_the_slash_48() {
        let limit = RateLimit {
            per_second: 0.001,
            burst: 2,
        };
        let l = RateLimiter::new(limit, 100_000);
        let wide = u64::from(limit.prefix().burst);
        assert_eq!(wide, 32);
        // One request from each of many /64s of 2001:db8:7::/48.
        let served = (0..1000u128)
            .filter(|i| {
                let ip = Ipv6Addr::from((0x2001_0db8_0007u128 << 80) | (i << 64) | 1);
                l.check(IpAddr::V6(ip)).is_ok()
            })
            .count();
        assert_eq!(served as u64, wide);
        // Another /48 has its own bucket.
        assert!(l.check("2001:db8:8::1".parse().unwrap()).is_ok());
    }

    #[test]
    fn a_refused_request_takes_no_token() {
        let l = RateLimiter::new(
            RateLimit {
                per_second: 0.001,
                burst: 1,
            },
            100,
        );
        // Empty the /48 from 16 /64s (burst 1 each, 16 for the /48).
        for i in 0..16u128 {
            let ip = Ipv6Addr::from((0x2001_0db8_0009u128 << 80) | (i << 64));
            assert!(l.check(IpAddr::V6(ip)).is_ok(), "{ip}");
        }
        // A fresh /64 is refused by the /48 and keeps its own token...
        let fresh: IpAddr = "2001:db8:9:ff::1".parse().unwrap();
        assert!(l.check(fresh).is_err());
        let own = bucket(&l.callers, client_key(fresh), &l.limit);
        let tokens = own.lock().unwrap().tokens;
        assert!(tokens >= 1.0, "{tokens}");
    }

    #[test]
    fn memory_is_bounded() {
        let l = RateLimiter::new(
            RateLimit {
                per_second: 10.0,
                burst: 10,
            },
            1000,
        );
        for i in 0..20_000u32 {
            let _ = l.check(IpAddr::from(i.to_be_bytes()));
            // IPv6 callers, each in its own /48: both maps fill.
            let v6 = Ipv6Addr::from((0x2001_0db8u128 << 96) | (u128::from(i) << 80));
            let _ = l.check(IpAddr::V6(v6));
        }
        assert!(l.tracked() <= 2200, "{}", l.tracked());
    }
}
