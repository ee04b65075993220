//! Reverse DNS (PTR) for `network.reverse_dns`: a deadline per request, a
//! bounded cache that honours record TTLs and keeps failures briefly, and one
//! query in flight per address however many requests ask.
//!
//! A lookup that misses its deadline answers `None` at once; the query goes on
//! in the background and its answer is cached for the next request.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hickory_resolver::TokioResolver;
use hickory_resolver::config::{ConnectionConfig, NameServerConfig, ResolveHosts, ResolverConfig};
use hickory_resolver::net::runtime::TokioRuntimeProvider;
use hickory_resolver::net::{DnsError, NetError};
use hickory_resolver::proto::rr::RData;
use moka::Expiry;
use moka::future::Cache;

/// How reverse DNS is configured.
#[derive(Debug, Clone)]
pub struct RdnsConfig {
    /// A resolver to ask instead of the system's (`IP:PORT`, UDP and TCP).
    pub server: Option<SocketAddr>,
    /// How long a request waits for an answer.
    pub deadline: Duration,
    /// How many addresses the cache holds.
    pub capacity: u64,
}

impl Default for RdnsConfig {
    fn default() -> Self {
        RdnsConfig {
            server: None,
            deadline: Duration::from_millis(250),
            capacity: 100_000,
        }
    }
}

/// Why the resolver could not be set up.
#[derive(Debug, thiserror::Error)]
#[error("cannot set up the DNS resolver: {0}")]
pub struct RdnsError(String);

/// A cached answer and how long it stays.
#[derive(Debug, Clone)]
struct Answer {
    name: Option<String>,
    ttl: Duration,
}

/// Keeps each answer for its own TTL.
struct ByTtl;

impl Expiry<IpAddr, Answer> for ByTtl {
    fn expire_after_create(&self, _: &IpAddr, value: &Answer, _: Instant) -> Option<Duration> {
        Some(value.ttl)
    }
}

/// Answers kept at least this long, at most this long; failures this long.
const MIN_TTL: Duration = Duration::from_secs(30);
const MAX_TTL: Duration = Duration::from_secs(6 * 3600);
const NEGATIVE_TTL: Duration = Duration::from_secs(300);
const FAILURE_TTL: Duration = Duration::from_secs(30);

/// The reverse DNS service.
#[derive(Clone)]
pub struct ReverseDns {
    resolver: Arc<TokioResolver>,
    cache: Cache<IpAddr, Answer>,
    deadline: Duration,
}

impl std::fmt::Debug for ReverseDns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReverseDns")
            .field("deadline", &self.deadline)
            .finish_non_exhaustive()
    }
}

impl ReverseDns {
    /// A resolver from the system configuration, or from `config.server`.
    pub fn new(config: &RdnsConfig) -> Result<Self, RdnsError> {
        let mut builder = match config.server {
            Some(server) => {
                let mut tcp = ConnectionConfig::tcp();
                tcp.port = server.port();
                let mut udp = ConnectionConfig::udp();
                udp.port = server.port();
                let ns = NameServerConfig::new(server.ip(), true, vec![udp, tcp]);
                let rc = ResolverConfig::from_parts(None, vec![], vec![ns]);
                TokioResolver::builder_with_config(rc, TokioRuntimeProvider::default())
            }
            None => TokioResolver::builder_tokio().map_err(|e| RdnsError(e.to_string()))?,
        };
        let opts = builder.options_mut();
        opts.use_hosts_file = ResolveHosts::Never;
        opts.timeout = Duration::from_secs(2);
        opts.attempts = 2;
        opts.cache_size = 0;
        let resolver = builder.build().map_err(|e| RdnsError(e.to_string()))?;
        let cache = Cache::builder()
            .max_capacity(config.capacity)
            .expire_after(ByTtl)
            .build();
        Ok(ReverseDns {
            resolver: Arc::new(resolver),
            cache,
            deadline: config.deadline,
        })
    }

    /// The PTR name of `ip`, if known within the deadline.
    pub async fn lookup(&self, ip: IpAddr) -> Option<String> {
        if let Some(hit) = self.cache.get(&ip).await {
            metrics::counter!("iplookup_rdns_cache_total", "result" => "hit").increment(1);
            return hit.name;
        }
        metrics::counter!("iplookup_rdns_cache_total", "result" => "miss").increment(1);
        let this = self.clone();
        // The task outlives a missed deadline, so its answer still lands in the cache;
        // `get_with` makes concurrent callers for one address share one query.
        let task = tokio::spawn(async move { this.cache.get_with(ip, this.resolve(ip)).await });
        match tokio::time::timeout(self.deadline, task).await {
            Ok(Ok(answer)) => answer.name,
            _ => None,
        }
    }

    async fn resolve(&self, ip: IpAddr) -> Answer {
        match self.resolver.reverse_lookup(ip).await {
            Ok(lookup) => {
                let record = lookup.answers().iter().find_map(|r| match &r.data {
                    RData::PTR(ptr) => Some((ptr.0.to_utf8(), r.ttl)),
                    _ => None,
                });
                match record {
                    Some((name, ttl)) => Answer {
                        name: Some(name.trim_end_matches('.').to_owned()),
                        ttl: Duration::from_secs(u64::from(ttl)).clamp(MIN_TTL, MAX_TTL),
                    },
                    None => Answer {
                        name: None,
                        ttl: NEGATIVE_TTL,
                    },
                }
            }
            Err(NetError::Dns(DnsError::NoRecordsFound(nr))) => Answer {
                name: None,
                ttl: nr.negative_ttl.map_or(NEGATIVE_TTL, |t| {
                    Duration::from_secs(u64::from(t)).clamp(MIN_TTL, NEGATIVE_TTL)
                }),
            },
            Err(_) => Answer {
                name: None,
                ttl: FAILURE_TTL,
            },
        }
    }

    /// Number of cached addresses (approximate).
    pub fn cached(&self) -> u64 {
        self.cache.entry_count()
    }
}
