//! Reverse DNS (`network.reverse_dns`) against a real DNS server on loopback
//! (hickory-server, UDP and TCP): PTR answers, NXDOMAIN, a deadline missed by a
//! slow answer that is cached when it lands, one query per address however
//! many requests ask, no query for special-purpose addresses, and off switches.

mod common;
mod fixtures;

use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use iplookup::rdns::RdnsConfig;
use iplookup::server::ServeConfig;
use serde_json::Value;

use fixtures::dns::{DnsServer, ptr, slow_ptr};

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

fn config(dns: SocketAddr, deadline: Duration) -> ServeConfig {
    ServeConfig {
        rdns: Some(RdnsConfig {
            server: Some(dns),
            deadline,
            capacity: 1000,
            ..RdnsConfig::default()
        }),
        ..common::config()
    }
}

/// `GET /api/v1/ip/{ip}` → the whole JSON answer.
async fn lookup(client: &reqwest::Client, base: &str, ip: &str) -> Value {
    let r = client
        .get(format!("{base}/api/v1/ip/{ip}"))
        .send()
        .await
        .expect("request");
    assert_eq!(r.status(), 200, "GET /api/v1/ip/{ip}");
    let text = r.text().await.expect("body");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

async fn reverse_dns(client: &reqwest::Client, base: &str, ip: &str) -> Value {
    lookup(client, base, ip).await["network"]["reverse_dns"].clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn ptr_answer_is_returned_without_trailing_dot_and_cached() {
    let dns = DnsServer::start(&[(ip("8.8.8.8"), ptr("dns.example.test"))]).await;
    let server = common::start(config(dns.addr, Duration::from_millis(250))).await;
    let client = fixtures::client();

    let body = lookup(&client, &server.base, "8.8.8.8").await;
    assert_eq!(body["network"]["reverse_dns"], "dns.example.test", "{body}");
    // The rest of the answer is untouched by reverse DNS.
    assert_eq!(body["ip"], "8.8.8.8");
    assert_eq!(body["is_public"], true);

    // Asked once, as a PTR for 8.8.8.8.in-addr.arpa.
    let q = dns.queries();
    assert_eq!(q.len(), 1, "{q:?}");
    assert_eq!(q[0].name, "8.8.8.8.in-addr.arpa.");
    assert_eq!(q[0].kind.to_string(), "PTR");

    // Later requests come from the cache: still one query.
    for _ in 0..5 {
        assert_eq!(
            reverse_dns(&client, &server.base, "8.8.8.8").await,
            "dns.example.test"
        );
    }
    assert_eq!(dns.count(), 1, "{:?}", dns.queries());
}

#[tokio::test(flavor = "multi_thread")]
async fn ipv6_addresses_are_asked_under_ip6_arpa() {
    let v6 = ip("2001:4860:4860::8888");
    let dns = DnsServer::start(&[(v6, ptr("dns6.example.test"))]).await;
    let server = common::start(config(dns.addr, Duration::from_millis(250))).await;
    let client = fixtures::client();

    assert_eq!(
        reverse_dns(&client, &server.base, "2001:4860:4860::8888").await,
        "dns6.example.test"
    );
    let q = dns.queries();
    assert_eq!(q.len(), 1, "{q:?}");
    assert!(q[0].name.ends_with(".ip6.arpa."), "{q:?}");
    assert!(q[0].name.starts_with("8.8.8.8.0.0.0.0."), "{q:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn nxdomain_gives_null_and_the_failure_is_cached() {
    let dns = DnsServer::start(&[(ip("8.8.8.8"), ptr("dns.example.test"))]).await;
    let server = common::start(config(dns.addr, Duration::from_millis(250))).await;
    let client = fixtures::client();

    let started = Instant::now();
    assert_eq!(
        reverse_dns(&client, &server.base, "1.1.1.1").await,
        Value::Null
    );
    // NXDOMAIN is an answer, not a timeout: no need to wait for the deadline
    // (allowing generous slack for a loaded machine).
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(dns.queries_for(ip("1.1.1.1")), 1, "{:?}", dns.queries());

    // Cached briefly: asking again does not query again.
    for _ in 0..3 {
        assert_eq!(
            reverse_dns(&client, &server.base, "1.1.1.1").await,
            Value::Null
        );
    }
    assert_eq!(dns.queries_for(ip("1.1.1.1")), 1, "{:?}", dns.queries());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_slow_answer_misses_the_deadline_and_is_cached_when_it_lands() {
    let dns = DnsServer::start(&[(
        ip("9.9.9.9"),
        slow_ptr("slow.example.test", Duration::from_secs(1)),
    )])
    .await;
    let server = common::start(config(dns.addr, Duration::from_millis(250))).await;
    let client = fixtures::client();

    let started = Instant::now();
    assert_eq!(
        reverse_dns(&client, &server.base, "9.9.9.9").await,
        Value::Null
    );
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(200),
        "answered before the deadline: {took:?}"
    );
    assert!(
        took < Duration::from_secs(1),
        "did not give up at the deadline: {took:?}"
    );

    // The answer lands about 1 s after the query; then it is served from the cache.
    tokio::time::sleep(Duration::from_millis(1300).saturating_sub(started.elapsed())).await;
    let started = Instant::now();
    assert_eq!(
        reverse_dns(&client, &server.base, "9.9.9.9").await,
        "slow.example.test"
    );
    assert!(
        started.elapsed() < Duration::from_millis(250),
        "{:?}",
        started.elapsed()
    );
    // One lookup. The resolver's UDP transport retransmits the same message
    // (same ID) every 333 ms while no answer comes, so the server may see up
    // to three packets of it; a second lookup would carry a new ID.
    assert_eq!(dns.lookups_for(ip("9.9.9.9")), 1, "{:?}", dns.queries());
    assert!(dns.queries_for(ip("9.9.9.9")) <= 3, "{:?}", dns.queries());
}

#[tokio::test(flavor = "multi_thread")]
async fn fifty_concurrent_requests_for_one_address_make_one_query() {
    let dns = DnsServer::start(&[(
        ip("8.8.4.4"),
        slow_ptr("dns-b.example.test", Duration::from_millis(150)),
    )])
    .await;
    // A deadline well past the answer's delay, so every request gets the name.
    let server = common::start(config(dns.addr, Duration::from_secs(5))).await;
    let client = fixtures::client();

    let tasks: Vec<_> = (0..50)
        .map(|_| {
            let client = client.clone();
            let base = server.base.clone();
            tokio::spawn(async move { reverse_dns(&client, &base, "8.8.4.4").await })
        })
        .collect();
    for t in tasks {
        assert_eq!(t.await.unwrap(), "dns-b.example.test");
    }
    // One lookup (one message ID). The answer comes before the resolver's
    // first UDP retransmission (333 ms), so normally one packet too; a very
    // loaded machine may see a retransmission of the same message.
    assert_eq!(dns.lookups_for(ip("8.8.4.4")), 1, "{:?}", dns.queries());
    assert!(dns.count() <= 2, "{:?}", dns.queries());
}

#[tokio::test(flavor = "multi_thread")]
async fn fifty_concurrent_requests_past_the_deadline_still_make_one_query() {
    // Every request gives up at the deadline; the one query goes on and its
    // answer is cached.
    let dns = DnsServer::start(&[(
        ip("8.8.4.4"),
        slow_ptr("dns-b.example.test", Duration::from_millis(800)),
    )])
    .await;
    let server = common::start(config(dns.addr, Duration::from_millis(250))).await;
    let client = fixtures::client();

    let tasks: Vec<_> = (0..50)
        .map(|_| {
            let client = client.clone();
            let base = server.base.clone();
            tokio::spawn(async move { reverse_dns(&client, &base, "8.8.4.4").await })
        })
        .collect();
    for t in tasks {
        assert_eq!(t.await.unwrap(), Value::Null);
    }
    tokio::time::sleep(Duration::from_millis(900)).await;
    assert_eq!(
        reverse_dns(&client, &server.base, "8.8.4.4").await,
        "dns-b.example.test"
    );
    // One lookup (one message ID); its UDP retransmissions while the answer
    // is pending are the resolver's, not new lookups.
    assert_eq!(dns.lookups_for(ip("8.8.4.4")), 1, "{:?}", dns.queries());
    assert!(dns.count() <= 3, "{:?}", dns.queries());
}

#[tokio::test(flavor = "multi_thread")]
async fn special_purpose_addresses_are_not_asked() {
    let special = [
        "10.0.0.1",
        "192.168.1.1",
        "127.0.0.1",
        "100.64.0.1",
        "169.254.1.1",
        "192.0.2.1",
        "::1",
        "fe80::1",
        "fc00::1",
        "2001:db8::1",
    ];
    let zone: Vec<_> = special
        .iter()
        .map(|s| (ip(s), ptr("private.example.test")))
        .collect();
    let dns = DnsServer::start(&zone).await;
    let server = common::start(config(dns.addr, Duration::from_millis(250))).await;
    let client = fixtures::client();

    for s in special {
        let body = lookup(&client, &server.base, s).await;
        assert_eq!(body["is_public"], false, "{s}: {body}");
        assert_eq!(body["network"]["reverse_dns"], Value::Null, "{s}: {body}");
    }
    assert_eq!(dns.count(), 0, "{:?}", dns.queries());
}

#[tokio::test(flavor = "multi_thread")]
async fn reverse_dns_off_asks_nothing() {
    let dns = DnsServer::start(&[(ip("8.8.8.8"), ptr("dns.example.test"))]).await;
    let server = common::start(ServeConfig {
        rdns: None,
        ..common::config()
    })
    .await;
    let client = fixtures::client();
    assert_eq!(
        reverse_dns(&client, &server.base, "8.8.8.8").await,
        Value::Null
    );
    assert_eq!(dns.count(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreachable_dns_server_gives_null_within_the_deadline() {
    // A UDP port with nothing behind it (bound, then dropped).
    let dead = std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let server = common::start(config(dead, Duration::from_millis(250))).await;
    let client = fixtures::client();
    let started = Instant::now();
    assert_eq!(
        reverse_dns(&client, &server.base, "8.8.8.8").await,
        Value::Null
    );
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    // The address itself is still answered in full.
    assert_eq!(
        lookup(&client, &server.base, "8.8.8.8").await["network"]["asn"],
        15169
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn binary_flags_dns_server_and_no_reverse_dns() {
    let dns = DnsServer::start(&[(ip("8.8.8.8"), ptr("dns.example.test"))]).await;
    let client = fixtures::client();
    let dns_addr = dns.addr.to_string();

    let on = fixtures::proc::serve(&["--dns-server", &dns_addr, "--rdns-timeout-ms", "2000"]);
    assert_eq!(
        reverse_dns(&client, &on.base, "8.8.8.8").await,
        "dns.example.test"
    );
    assert_eq!(dns.count(), 1, "{:?}", dns.queries());
    drop(on);

    let off = fixtures::proc::serve(&["--dns-server", &dns_addr, "--no-reverse-dns"]);
    assert_eq!(
        reverse_dns(&client, &off.base, "1.1.1.1").await,
        Value::Null
    );
    assert_eq!(dns.count(), 1, "{:?}", dns.queries());
}
