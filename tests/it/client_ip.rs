//! The caller's address behind a trusted proxy (`--trusted-proxy`,
//! `--client-ip-header`), over a real loopback socket: only the one named
//! header is read, so a client behind a proxy cannot forge its address with a
//! forwarding header that proxy does not write. Every use of the caller's
//! address agrees: `/api/v1/me`, the root page, MCP `my_ip` and the rate
//! limiter's key.
//!
//! The test server trusts 127.0.0.1/32, so the test client plays the proxy:
//! the headers it sends stand for what the proxy wrote (the header it names)
//! and what a client sent through it untouched (every other one).

use crate::support;

use std::net::SocketAddr;

use serde_json::Value;

use iplookup::web::serve::client::ClientIpHeader;
use iplookup::web::serve::ratelimit::RateLimit;
use support::TestServer;
use support::wire::{self, Wire};

/// What nginx (`$proxy_add_x_forwarded_for`) and the client together send:
/// the client's own `Forwarded`, `X-Real-IP` and `CF-Connecting-IP` beside
/// the proxy's `X-Forwarded-For`.
const MIXED: &[(&str, &str)] = &[
    ("Forwarded", "for=8.8.8.8"),
    ("X-Forwarded-For", "203.0.113.9"),
    ("X-Real-IP", "9.9.9.9"),
];

/// A server trusting 127.0.0.1/32 and reading `header` (`None`: the default).
async fn behind_proxy(header: Option<&str>) -> TestServer {
    let mut cfg = support::config();
    cfg.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    if let Some(h) = header {
        cfg.client_ip_header = h.parse().unwrap();
    }
    support::start(cfg).await
}

async fn get(addr: SocketAddr, target: &str, headers: &[(&str, &str)]) -> Wire {
    wire::send(addr, "GET", target, headers, b"").await
}

/// The `ip` of `/api/v1/me` for these headers.
async fn me(srv: &TestServer, headers: &[(&str, &str)]) -> String {
    let r = get(srv.addr, "/api/v1/me", headers).await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()["ip"].as_str().expect("ip").to_owned()
}

/// The bare address `/` gives curl for these headers.
async fn root(srv: &TestServer, headers: &[(&str, &str)]) -> String {
    let mut all = vec![("User-Agent", "curl/8.5.0")];
    all.extend_from_slice(headers);
    let r = get(srv.addr, "/", &all).await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.body.trim_end().to_owned()
}

/// The `ip` MCP's `my_ip` tool answers for these headers (one JSON-RPC call).
async fn my_ip(srv: &TestServer, headers: &[(&str, &str)]) -> String {
    let body = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"my_ip","arguments":{}}}"#;
    let mut all = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    all.extend_from_slice(headers);
    let r = wire::send(srv.addr, "POST", "/mcp", &all, body).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let v = r.json();
    let ip = &v["result"]["structuredContent"]["ip"];
    ip.as_str()
        .unwrap_or_else(|| panic!("no result.structuredContent.ip in {v}"))
        .to_owned()
}

/// `/api/v1/me`, the root page and MCP `my_ip` all give `want`.
async fn every_use_says(srv: &TestServer, headers: &[(&str, &str)], want: &str) {
    assert_eq!(me(srv, headers).await, want, "/api/v1/me {headers:?}");
    assert_eq!(root(srv, headers).await, want, "/ {headers:?}");
    assert_eq!(my_ip(srv, headers).await, want, "my_ip {headers:?}");
}

#[tokio::test]
async fn by_default_only_x_forwarded_for_is_read() {
    let srv = behind_proxy(None).await;
    every_use_says(&srv, MIXED, "203.0.113.9").await;
    // The client's Forwarded alone (a proxy writing X-Forwarded-For always
    // writes it, so this is a client without the proxy's header): the peer.
    every_use_says(&srv, &[("Forwarded", "for=8.8.8.8")], "127.0.0.1").await;
    every_use_says(&srv, &[("X-Real-IP", "8.8.8.8")], "127.0.0.1").await;
}

#[tokio::test]
async fn with_forwarded_only_forwarded_is_read() {
    let srv = behind_proxy(Some("forwarded")).await;
    every_use_says(&srv, MIXED, "8.8.8.8").await;
    every_use_says(&srv, &[("X-Forwarded-For", "203.0.113.9")], "127.0.0.1").await;
    // RFC 7239 nodes: quoted, bracketed IPv6 with a port, other parameters,
    // the proxy's element last.
    let rfc = [(
        "Forwarded",
        r#"for=6.6.6.6, for="[2001:4860:4860::8888]:443";proto=https;by=_edge"#,
    )];
    every_use_says(&srv, &rfc, "2001:4860:4860::8888").await;
    // An obfuscated node on the right: the walk stops at the peer.
    every_use_says(
        &srv,
        &[("Forwarded", "for=8.8.8.8, for=_hidden")],
        "127.0.0.1",
    )
    .await;
}

#[tokio::test]
async fn with_a_single_address_header_every_list_header_is_ignored() {
    let srv = behind_proxy(Some("CF-Connecting-IP")).await;
    every_use_says(&srv, MIXED, "127.0.0.1").await;
    let mut with_cf = MIXED.to_vec();
    with_cf.push(("CF-Connecting-IP", "1.1.1.1"));
    every_use_says(&srv, &with_cf, "1.1.1.1").await;
    // Repeated or a list: unreadable, so the peer.
    let twice = [
        ("CF-Connecting-IP", "8.8.8.8"),
        ("CF-Connecting-IP", "1.1.1.1"),
    ];
    every_use_says(&srv, &twice, "127.0.0.1").await;
    every_use_says(
        &srv,
        &[("CF-Connecting-IP", "8.8.8.8, 1.1.1.1")],
        "127.0.0.1",
    )
    .await;
}

#[tokio::test]
async fn x_real_ip_is_read_when_named() {
    let srv = behind_proxy(Some("x-real-ip")).await;
    every_use_says(&srv, MIXED, "9.9.9.9").await;
    every_use_says(&srv, &[("X-Real-IP", "2001:db8::5")], "2001:db8::5").await;
}

#[tokio::test]
async fn the_walk_over_x_forwarded_for() {
    let srv = behind_proxy(None).await;
    // Several lines make one list, in order; the nearest entries are last.
    let lines = [
        ("X-Forwarded-For", "6.6.6.6, 8.8.8.8"),
        ("X-Forwarded-For", "127.0.0.1"),
    ];
    every_use_says(&srv, &lines, "8.8.8.8").await;
    // Every entry trusted: the leftmost.
    every_use_says(
        &srv,
        &[("X-Forwarded-For", "127.0.0.1, 127.0.0.1")],
        "127.0.0.1",
    )
    .await;
    // An unreadable entry stops the walk at the last trusted hop (here the peer).
    every_use_says(
        &srv,
        &[("X-Forwarded-For", "8.8.8.8, unknown")],
        "127.0.0.1",
    )
    .await;
    // A mapped entry is reported as IPv4.
    every_use_says(&srv, &[("X-Forwarded-For", "::ffff:1.1.1.1")], "1.1.1.1").await;
}

#[tokio::test]
async fn a_client_outside_the_trusted_blocks_cannot_use_any_header() {
    // Only 127.0.0.2 is trusted: the test client (127.0.0.1) is a plain client.
    let mut cfg = support::config();
    cfg.trusted_proxies = vec!["127.0.0.2/32".parse().unwrap()];
    cfg.client_ip_header = ClientIpHeader::Forwarded;
    let srv = support::start(cfg).await;
    let mut all = MIXED.to_vec();
    all.push(("CF-Connecting-IP", "1.1.1.1"));
    every_use_says(&srv, &all, "127.0.0.1").await;
}

/// The statuses of `n` requests to the hot route, each with its own forged
/// `header` value; the proxy's `X-Forwarded-For` always names the same caller.
async fn forged_rotation(srv: &TestServer, header: &str, n: u32) -> Vec<u16> {
    let mut statuses = Vec::new();
    for i in 0..n {
        let forged = match header {
            "Forwarded" => format!("for=198.51.100.{i}"),
            _ => format!("198.51.100.{i}"),
        };
        let headers = [
            ("X-Forwarded-For", "203.0.113.9"),
            (header, forged.as_str()),
        ];
        statuses.push(get(srv.addr, "/api/v1/ip/8.8.8.8", &headers).await.status);
    }
    statuses
}

#[tokio::test]
async fn rotating_a_forged_header_does_not_dodge_the_rate_limit() {
    let mut cfg = support::config();
    cfg.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    // One token per 1000 s: nothing refills during the test.
    cfg.rate_limit = Some(RateLimit {
        per_second: 0.001,
        burst: 3,
    });
    let srv = support::start(cfg).await;
    let statuses = forged_rotation(&srv, "Forwarded", 5).await;
    assert_eq!(statuses, [200, 200, 200, 429, 429]);
    // The other headers a client could rotate change nothing either: the
    // caller 203.0.113.9 stays out of tokens.
    for header in ["X-Real-IP", "CF-Connecting-IP", "True-Client-IP"] {
        assert_eq!(
            forged_rotation(&srv, header, 2).await,
            [429, 429],
            "{header}"
        );
    }
    // The 429 names the caller the proxy wrote, not a forged one.
    let r = get(
        srv.addr,
        "/api/v1/ip/8.8.8.8",
        &[
            ("X-Forwarded-For", "203.0.113.9"),
            ("Forwarded", "for=8.8.8.8"),
        ],
    )
    .await;
    assert_eq!(r.status, 429);
    let v: Value = r.json();
    assert_eq!(v["error"], "rate_limited", "{v}");
    assert!(
        v["message"].as_str().unwrap().contains("203.0.113.9"),
        "{v}"
    );
    // Another caller named by the proxy still has its own bucket.
    let other = get(
        srv.addr,
        "/api/v1/me",
        &[("X-Forwarded-For", "203.0.113.10")],
    )
    .await;
    assert_eq!(other.status, 200, "{}", other.body);
}

#[tokio::test]
async fn the_rate_limit_keys_on_the_named_header() {
    let mut cfg = support::config();
    cfg.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    cfg.client_ip_header = "cf-connecting-ip".parse().unwrap();
    cfg.rate_limit = Some(RateLimit {
        per_second: 0.001,
        burst: 2,
    });
    let srv = support::start(cfg).await;
    let mut statuses = Vec::new();
    for i in 0..4 {
        let xff = format!("198.51.100.{i}");
        let headers = [
            ("CF-Connecting-IP", "1.1.1.1"),
            ("X-Forwarded-For", xff.as_str()),
        ];
        statuses.push(get(srv.addr, "/api/v1/ip/8.8.8.8", &headers).await.status);
    }
    assert_eq!(statuses, [200, 200, 429, 429]);
}
