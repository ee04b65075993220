//! Reverse DNS (PTR) for `network.reverse_dns`: a deadline per request, a
//! bounded cache that honours record TTLs and keeps failures briefly, one
//! query in flight per address however many requests ask, and at most
//! `max_in_flight` lookups in flight in all.
//!
//! A lookup that misses its deadline answers `None` at once; the query goes on
//! in the background and its answer is cached for the next request. When
//! every slot is taken the answer is `None` at once and nothing is cached.
//!
//! A PTR record is written by whoever controls the reverse zone: its name is
//! kept only if it is a host name (see [`host_name`]), and it is never
//! forward-confirmed.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;

use hickory_resolver::TokioResolver;
use hickory_resolver::config::{ConnectionConfig, NameServerConfig, ResolveHosts, ResolverConfig};
use hickory_resolver::net::runtime::TokioRuntimeProvider;
use hickory_resolver::net::{DnsError, NetError};
use hickory_resolver::proto::rr::{Name, RData};
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
    /// PTR lookups in flight at once; past it `reverse_dns` is null at once.
    pub max_in_flight: usize,
}

impl Default for RdnsConfig {
    fn default() -> Self {
        RdnsConfig {
            server: None,
            deadline: Duration::from_millis(250),
            capacity: 100_000,
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
        }
    }
}

/// Default of [`RdnsConfig::max_in_flight`].
pub const DEFAULT_MAX_IN_FLIGHT: usize = 256;

/// How long one lookup may take in all (the resolver's timeout).
pub const LOOKUP_TIMEOUT: Duration = Duration::from_secs(2);
/// Name servers of the system configuration asked, at most (one at a time,
/// the next only after the previous one failed fast).
pub const MAX_NAME_SERVERS: usize = 3;
/// Packets one lookup sends to one name server, at most: hickory's UDP
/// client sends the query and retransmits it at most twice (at least 333 ms
/// apart) within [`LOOKUP_TIMEOUT`]; a truncated answer adds one TCP query.
/// The resolver makes no further attempt after a timeout.
pub const MAX_PACKETS_PER_SERVER: usize = 4;

/// The most packets one lookup sends under `config`: one name server for
/// `server`, else up to [`MAX_NAME_SERVERS`] of the system's.
pub fn max_packets_per_lookup(config: &RdnsConfig) -> usize {
    let servers = if config.server.is_some() {
        1
    } else {
        MAX_NAME_SERVERS
    };
    servers * MAX_PACKETS_PER_SERVER
}

/// Why the resolver could not be set up.
#[derive(Debug, thiserror::Error)]
#[error("cannot set up the DNS resolver: {0}")]
pub struct RdnsError(String);

/// A cached answer and how long it stays.
#[derive(Debug, Clone)]
struct CachedName {
    name: Option<String>,
    ttl: Duration,
}

/// Keeps each answer for its own TTL.
struct ByTtl;

impl Expiry<IpAddr, CachedName> for ByTtl {
    fn expire_after_create(&self, _: &IpAddr, value: &CachedName, _: Instant) -> Option<Duration> {
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
    cache: Cache<IpAddr, CachedName>,
    deadline: Duration,
    /// One permit per lookup in flight.
    slots: Arc<Semaphore>,
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
        let servers = match config.server {
            Some(server) => {
                let mut tcp = ConnectionConfig::tcp();
                tcp.port = server.port();
                let mut udp = ConnectionConfig::udp();
                udp.port = server.port();
                vec![NameServerConfig::new(server.ip(), true, vec![udp, tcp])]
            }
            None => {
                let (system, _) = hickory_resolver::system_conf::read_system_conf()
                    .map_err(|e| RdnsError(e.to_string()))?;
                let (_, _, mut servers) = system.into_parts();
                servers.truncate(MAX_NAME_SERVERS);
                servers
            }
        };
        // No local domain and no search list: only the in-addr.arpa / ip6.arpa
        // name itself is ever asked.
        let rc = ResolverConfig::from_parts(None, vec![], servers);
        let mut builder = TokioResolver::builder_with_config(rc, TokioRuntimeProvider::default());
        let opts = builder.options_mut();
        opts.use_hosts_file = ResolveHosts::Never;
        opts.timeout = LOOKUP_TIMEOUT;
        // No new attempt after a timeout (the UDP client's own retransmissions
        // cover a lost packet), and one name server at a time.
        opts.attempts = 0;
        opts.num_concurrent_reqs = 1;
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
            slots: Arc::new(Semaphore::new(config.max_in_flight.max(1))),
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
        // `optionally_get_with` makes concurrent callers for one address share one
        // query (and one slot), and caches nothing when no slot was free.
        let task = tokio::spawn(async move {
            this.cache
                .optionally_get_with(ip, this.resolve_in_slot(ip))
                .await
        });
        match tokio::time::timeout(self.deadline, task).await {
            Ok(Ok(Some(answer))) => answer.name,
            _ => None,
        }
    }

    /// Resolves `ip` holding one of the `max_in_flight` slots, or `None` at
    /// once when every slot is taken.
    async fn resolve_in_slot(&self, ip: IpAddr) -> Option<CachedName> {
        let Ok(_slot) = self.slots.try_acquire() else {
            metrics::counter!("iplookup_rdns_skipped_total", "reason" => "busy").increment(1);
            return None;
        };
        Some(self.resolve(ip).await)
    }

    async fn resolve(&self, ip: IpAddr) -> CachedName {
        match self.resolver.reverse_lookup(ip).await {
            Ok(lookup) => {
                let ptrs: Vec<_> = lookup
                    .answers()
                    .iter()
                    .filter_map(|r| match &r.data {
                        RData::PTR(ptr) => Some((&ptr.0, r.ttl)),
                        _ => None,
                    })
                    .collect();
                // Several PTR records: the first that is a host name.
                let valid = ptrs
                    .iter()
                    .find_map(|(name, ttl)| host_name(name).map(|n| (n, *ttl)));
                if valid.is_none() && !ptrs.is_empty() {
                    metrics::counter!("iplookup_rdns_skipped_total", "reason" => "invalid_name")
                        .increment(1);
                }
                match valid {
                    Some((name, ttl)) => CachedName {
                        name: Some(name),
                        ttl: Duration::from_secs(u64::from(ttl)).clamp(MIN_TTL, MAX_TTL),
                    },
                    None => CachedName {
                        name: None,
                        ttl: NEGATIVE_TTL,
                    },
                }
            }
            Err(NetError::Dns(DnsError::NoRecordsFound(nr))) => CachedName {
                name: None,
                ttl: nr.negative_ttl.map_or(NEGATIVE_TTL, |t| {
                    Duration::from_secs(u64::from(t)).clamp(MIN_TTL, NEGATIVE_TTL)
                }),
            },
            Err(_) => CachedName {
                name: None,
                ttl: FAILURE_TTL,
            },
        }
    }

    /// The PTR name of `ip` if the cache holds one: no query, no wait (a
    /// batch's answer, see `Lookup::lookup_cached`).
    pub async fn cached_name(&self, ip: IpAddr) -> Option<String> {
        self.cache.get(&ip).await.and_then(|hit| hit.name)
    }

    /// Number of cached addresses (approximate).
    pub fn cached(&self) -> u64 {
        self.cache.entry_count()
    }
}

/// Longest host name (RFC 1035: 255 octets on the wire, 253 written without
/// the trailing dot) and longest label.
const MAX_NAME: usize = 253;
const MAX_LABEL: usize = 63;

/// `name` as a host name without the trailing dot, judged from its raw label
/// bytes (not from its presentation form, which escapes what it can't
/// print): one or more labels of 1 to 63 ASCII letters, digits, `-` or `_`,
/// at most 253 octets in all. IDNA labels (`xn--...`) stay as they are,
/// never decoded. Anything else is `None`.
pub fn host_name(name: &Name) -> Option<String> {
    let mut out = String::with_capacity(name.len());
    for label in name.iter() {
        let ok = (1..=MAX_LABEL).contains(&label.len())
            && label
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !ok {
            return None;
        }
        if !out.is_empty() {
            out.push('.');
        }
        // Checked above: ASCII only.
        out.push_str(std::str::from_utf8(label).ok()?);
        if out.len() > MAX_NAME {
            return None;
        }
    }
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(labels: &[&[u8]]) -> Name {
        Name::from_labels(labels.iter().copied()).expect("labels of 1..=63 bytes")
    }

    #[test]
    fn host_names_are_kept_as_ascii_without_the_trailing_dot() {
        let n = Name::from_ascii("dns.example.test.").expect("name");
        assert_eq!(host_name(&n).as_deref(), Some("dns.example.test"));
        let idn = raw(&[b"xn--bcher-kva", b"example"]);
        assert_eq!(host_name(&idn).as_deref(), Some("xn--bcher-kva.example"));
        let svc = raw(&[b"_srv-1", b"EXAMPLE", b"test"]);
        assert_eq!(host_name(&svc).as_deref(), Some("_srv-1.EXAMPLE.test"));
        let long = [b'a'; 63];
        let max = raw(&[&long, &long, &long, &[b'b'; 61]]);
        assert_eq!(host_name(&max).map(|n| n.len()), Some(253));
    }

    #[test]
    fn anything_else_is_none() {
        for labels in [
            &[b"\x1b]0;pwned\x07\x1b[31mevil".as_slice(), b"test"][..],
            &[b"a b", b"test"],
            &[b"b\xc3\xbccher", b"test"],
            &[b"a.b", b"test"],
            &[b"a\\b", b"test"],
            &[b"a\x00", b"test"],
            &[],
        ] {
            assert_eq!(host_name(&raw(labels)), None, "{labels:?}");
        }
    }
}
