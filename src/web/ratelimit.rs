//! Optional per-caller rate limit (`--rate-limit`): a token bucket per caller
//! address (IPv6 callers by their /64), as resolved through trusted proxies.
//! Buckets live in a bounded cache, so memory stays bounded however many
//! callers there are; a bucket evicted for room simply starts full again.

use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, Request};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use moka::sync::Cache;

use super::AppState;
use super::client::client_addr;
use super::negotiate::Format;
use super::render::ErrorPage;
use super::respond::{Wants, error};
use crate::model;

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

/// The buckets of every recent caller.
#[derive(Clone)]
pub struct RateLimiter {
    limit: RateLimit,
    buckets: Cache<IpAddr, Arc<Mutex<Bucket>>>,
}

impl std::fmt::Debug for RateLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimiter")
            .field("limit", &self.limit)
            .finish_non_exhaustive()
    }
}

impl RateLimiter {
    /// A limiter remembering at most `capacity` callers.
    pub fn new(limit: RateLimit, capacity: u64) -> Self {
        let refill = Duration::from_secs_f64(
            (f64::from(limit.burst.max(1)) / limit.per_second.max(0.001)).min(3600.0),
        );
        let buckets = Cache::builder()
            // LRU, not the default TinyLFU: a new caller must always get a bucket,
            // or a flood of other callers would leave it unlimited.
            .eviction_policy(moka::policy::EvictionPolicy::lru())
            .max_capacity(capacity)
            .time_to_idle(refill + Duration::from_secs(1))
            .build();
        RateLimiter { limit, buckets }
    }

    /// Takes a token for `caller`; `Err(wait)` when the bucket is empty.
    pub fn check(&self, caller: IpAddr) -> Result<(), Duration> {
        let key = bucket_key(caller);
        let burst = f64::from(self.limit.burst.max(1));
        let bucket = self.buckets.get_with(key, || {
            Arc::new(Mutex::new(Bucket {
                tokens: burst,
                updated: Instant::now(),
            }))
        });
        let mut b = bucket
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let now = Instant::now();
        b.tokens = (b.tokens + now.duration_since(b.updated).as_secs_f64() * self.limit.per_second)
            .min(burst);
        b.updated = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64(
                (1.0 - b.tokens) / self.limit.per_second.max(0.001),
            ))
        }
    }

    /// Callers currently remembered (approximate).
    pub fn tracked(&self) -> u64 {
        self.buckets.run_pending_tasks();
        self.buckets.entry_count()
    }
}

/// IPv4 callers by address, IPv6 callers by their /64.
fn bucket_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & !((1u128 << 64) - 1))),
        v4 => v4,
    }
}

/// Whether requests for `path` are exempt from the limit: `/healthz` and
/// `/metrics` (probes and scrapers).
pub fn spares(path: &str) -> bool {
    path == "/healthz" || path == "/metrics"
}

/// The format of the 429 answer for `path`: JSON under `/api/`, else plain text.
pub fn refusal_format(path: &str) -> Format {
    if path.starts_with("/api/") {
        Format::Json
    } else {
        Format::Text
    }
}

/// The 429 answer (an Error body and `Retry-After`) when the caller of
/// `request` is over its limit; `None` to let the request through.
pub fn refusal(state: &AppState, request: &Request) -> Option<Response> {
    let limiter = state.limiter.as_ref()?;
    let path = request.uri().path();
    if spares(path) {
        return None;
    }
    let peer = request.extensions().get::<ConnectInfo<SocketAddr>>()?.0;
    let caller = client_addr(peer, request.headers(), &state.proxies);
    let wait = limiter.check(caller).err()?;
    metrics::counter!("iplookup_rate_limited_total").increment(1);
    let secs = wait.as_secs_f64().ceil().max(1.0) as u64;
    let page = ErrorPage {
        status: StatusCode::TOO_MANY_REQUESTS,
        body: model::Error::new(
            "rate_limited",
            format!("too many requests from {caller}; retry in {secs} s"),
        ),
    };
    let mut response = error(page, &Wants::default(), refusal_format(path));
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(secs));
    Some(response)
}

#[cfg(test)]
mod tests {
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
        }
        assert!(l.tracked() <= 1100, "{}", l.tracked());
    }
}
