//! Who may open a connection, and how many requests a client may have in
//! flight.
//!
//! At most `--max-connections` connections are open at once in all, and at
//! most `--max-connections-per-ip` from one client ([`super::client_key`]).
//! A connection over either cap is closed on arrival and counted in
//! `iplookup_connections_refused_total{reason}`. Trusted proxies
//! (`--trusted-proxy`) carry many callers on their connections: only the
//! global cap applies to them.
//!
//! The connections of one client share its [`Address`]: its requests in
//! flight, and its answers waiting to be sent ([`super::unsent`]).
//!
//! Requests in flight (`--max-in-flight-per-ip`): `--max-in-flight` bounds
//! the requests of all clients together, so without a share per client one
//! client could hold every slot: HTTP/2 streams that announce a body and
//! never send it each keep a slot until the body deadline, and 11
//! connections of 100 such streams held all 1,024, so everyone else got 503.
//! So a request from a client already at its cap gets 503 `overloaded`
//! (`Retry-After: 1`, in its route's error format, see `server::service`)
//! at once, before any slot or handler. Trusted proxies have no count (they
//! carry many callers, and buffer what they pass on); the routes the table
//! spares ([`Route::limited`](crate::web::routes::Route::limited): the
//! probes) are never counted, so probes are answered whatever a client holds.

use std::net::IpAddr;
use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::count::{Address, Holder, PerClient, Share};
use super::unsent::{PER_ADDRESS_UNSENT, Shares, TOTAL_UNSENT};
use crate::web::routes;
use crate::web::serve::admission::{Refusal, client_key};
use crate::web::serve::client::TrustedProxies;

/// The connection caps, shared by every accepted connection.
#[derive(Debug, Clone)]
pub struct Admission {
    global: Arc<Semaphore>,
    per_client: Arc<PerClient<Address>>,
    max_requests: usize,
    exempt: Arc<TrustedProxies>,
    unsent: Arc<Share>,
}

impl Admission {
    /// At most `max` connections in all and `max_per_ip` per client, and
    /// `max_requests_per_ip` requests in flight per client; the addresses
    /// in `exempt` only count against `max`.
    pub fn new(
        max: usize,
        max_per_ip: usize,
        max_requests_per_ip: usize,
        exempt: Arc<TrustedProxies>,
    ) -> Self {
        Admission {
            global: Arc::new(Semaphore::new(max.max(1))),
            per_client: Arc::new(PerClient::new(max_per_ip, Refusal::ConnectionsPerClient)),
            max_requests: max_requests_per_ip.max(1),
            exempt,
            unsent: Arc::new(Share::new(TOTAL_UNSENT)),
        }
    }

    /// Admits a connection from `peer`, or says which cap refuses it (and
    /// counts the refusal). The connection holds the [`Admitted`] until it closes.
    pub fn admit(&self, peer: IpAddr) -> Result<Admitted, Refusal> {
        let result = self.try_admit(peer);
        if let Err(refusal) = result {
            metrics::counter!("iplookup_connections_refused_total", "reason" => refusal.reason())
                .increment(1);
        }
        result
    }

    fn try_admit(&self, peer: IpAddr) -> Result<Admitted, Refusal> {
        let global = self
            .global
            .clone()
            .try_acquire_owned()
            .map_err(|_| Refusal::Connections)?;
        let peer = peer.to_canonical();
        let client = if self.exempt.contains(peer) {
            None
        } else {
            let make = || Address {
                requests: Share::new(self.max_requests),
                unsent: Share::new(PER_ADDRESS_UNSENT),
            };
            Some(self.per_client.enter(client_key(peer), make, |_| Ok(()))?)
        };
        Ok(Admitted {
            _global: global,
            unsent: self.unsent.clone(),
            client,
        })
    }
}

/// An admitted connection's place under both caps, given back on drop.
#[derive(Debug)]
pub struct Admitted {
    _global: OwnedSemaphorePermit,
    unsent: Arc<Share>,
    client: Option<Holder<Address>>,
}

impl Admitted {
    /// The budgets this connection's answers draw on: all connections'
    /// share of unsent answers and, unless it comes from a trusted proxy,
    /// what its client's connections share.
    pub fn shares(&self) -> Shares {
        Shares {
            total: self.unsent.clone(),
            address: self.client.as_ref().map(|c| c.shared().clone()),
        }
    }
}

/// The routes whose requests are never counted: those the table spares
/// from the limits (all literal paths, which a test holds).
const SPARED: [&str; spared_count()] = spared();

const fn spared_count() -> usize {
    let (mut i, mut n) = (0, 0);
    while i < routes::ALL.len() {
        if !routes::ALL[i].limited {
            n += 1;
        }
        i += 1;
    }
    n
}

const fn spared() -> [&'static str; spared_count()] {
    let mut out = [""; spared_count()];
    let (mut i, mut n) = (0, 0);
    while i < routes::ALL.len() {
        if !routes::ALL[i].limited {
            out[n] = routes::ALL[i].template;
            n += 1;
        }
        i += 1;
    }
    out
}

/// One request counted against its client, given back on drop.
#[derive(Debug)]
pub struct InFlight(Arc<Address>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.requests.give_back(1);
    }
}

impl Shares {
    /// Counts a request for `path` against the client (none for a trusted
    /// proxy): `Ok(None)` when it is not counted (a proxy, or a route the
    /// table spares), [`Refusal::InFlightPerClient`] when the client is at
    /// its cap (answer it 503 in the route's error format).
    pub fn count_request(&self, path: &str) -> Result<Option<InFlight>, Refusal> {
        let Some(address) = &self.address else {
            return Ok(None);
        };
        if SPARED.contains(&path) {
            return Ok(None);
        }
        if !address.requests.take(1) {
            metrics::counter!("iplookup_overloaded_total").increment(1);
            metrics::counter!("iplookup_per_ip_in_flight_refused_total").increment(1);
            return Err(Refusal::InFlightPerClient);
        }
        Ok(Some(InFlight(address.clone())))
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
            Refusal::ConnectionsPerClient
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
        assert_eq!(a.admit(ip("192.0.2.9")).unwrap_err(), Refusal::Connections);
        drop(held);
        assert!(a.admit(ip("192.0.2.9")).is_ok());
    }

    #[test]
    fn connections_of_one_address_share_one_budget_and_proxies_have_none() {
        let a = admission(10, 5, &["10.0.0.0/8"]);
        let one = a.admit(ip("192.0.2.1")).unwrap();
        let two = a.admit(ip("192.0.2.1")).unwrap();
        let (total, mine) = (one.shares().total, one.shares().address);
        let (mine, also_mine) = (mine.unwrap(), two.shares().address.unwrap());
        assert!(Arc::ptr_eq(&mine, &also_mine));
        assert!(mine.unsent.take(PER_ADDRESS_UNSENT));
        assert!(!also_mine.unsent.take(1), "the address's budget is spent");
        assert!((0..4).all(|_| mine.requests.take(1)) && !also_mine.requests.take(1));
        let other = a.admit(ip("192.0.2.2")).unwrap();
        let theirs = other.shares().address.unwrap();
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
            proxy.shares().address.is_none(),
            "a proxy only draws on the total"
        );
    }

    /// Requests of a client are counted up to its cap, except on the routes
    /// the table spares (literal paths, so matching them whole is the
    /// router's choice) and for trusted proxies.
    #[test]
    fn requests_in_flight_are_counted_except_on_spared_routes() {
        let spared: Vec<&str> = routes::ALL
            .iter()
            .filter(|r| !r.limited)
            .map(|r| r.template)
            .collect();
        assert_eq!(SPARED.as_slice(), spared.as_slice());
        assert!(SPARED.iter().all(|t| !t.contains('{')), "{SPARED:?}");
        let a = admission(10, 5, &["10.0.0.0/8"]);
        let shares = a.admit(ip("192.0.2.1")).unwrap().shares();
        let held: Vec<_> = (0..4)
            .map(|_| shares.count_request("/api/v1/ip/8.8.8.8").unwrap())
            .collect();
        assert!(held.iter().all(Option::is_some));
        assert_eq!(
            shares.count_request("/8.8.8.8").unwrap_err(),
            Refusal::InFlightPerClient
        );
        for path in SPARED {
            assert!(shares.count_request(path).unwrap().is_none(), "{path}");
        }
        drop(held);
        assert!(shares.count_request("/").unwrap().is_some(), "given back");
        let proxy = a.admit(ip("10.1.2.3")).unwrap().shares();
        assert!(proxy.count_request("/").unwrap().is_none());
    }
}
