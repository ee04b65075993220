//! Reverse DNS (`network.reverse_dns`) against a real DNS server on loopback
//! (hickory-server, UDP and TCP): PTR answers, NXDOMAIN, a deadline missed by a
//! slow answer that is cached when it lands, one query per address however
//! many requests ask, no query for special-purpose addresses, and off switches.
//! PTR data is hostile: a target that is not a host name (escape sequences,
//! spaces, UTF-8, overlong labels and names) is null in every format, and
//! lookups in flight are capped against a server that never answers.

use crate::support;

use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use iplookup::ServeConfig;
use iplookup::rdns::RdnsConfig;
use serde_json::Value;

use support::dns::{DnsServer, RawDns, ptr, raw_ptr, slow_ptr, wire_name};
use support::http;

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
        ..support::config()
    }
}

/// `GET /api/v1/ip/{ip}` → the whole JSON answer.
async fn lookup(client: &reqwest::Client, base: &str, ip: &str) -> Value {
    http::get_json(client, &format!("{base}/api/v1/ip/{ip}")).await
}

async fn reverse_dns(client: &reqwest::Client, base: &str, ip: &str) -> Value {
    lookup(client, base, ip).await["network"]["reverse_dns"].clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn ptr_answer_is_returned_without_trailing_dot_and_cached() {
    let dns = DnsServer::start(&[(ip("8.8.8.8"), ptr("dns.example.test"))]).await;
    let server = support::start(config(dns.addr, Duration::from_millis(250))).await;
    let client = support::client();

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
    let server = support::start(config(dns.addr, Duration::from_millis(250))).await;
    let client = support::client();

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
    let server = support::start(config(dns.addr, Duration::from_millis(250))).await;
    let client = support::client();

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

/// A DNS server that answers the PTR of 9.9.9.9 after 1 s, and a server that
/// waits 250 ms for it.
async fn slow_answer_for_9999() -> (DnsServer, support::TestServer) {
    let dns = DnsServer::start(&[(
        ip("9.9.9.9"),
        slow_ptr("slow.example.test", Duration::from_secs(1)),
    )])
    .await;
    let server = support::start(config(dns.addr, Duration::from_millis(250))).await;
    (dns, server)
}

/// Answers that never show a PTR name send no PTR query and wait for
/// none: single fields other than `reverse_dns` (of any address and of the
/// caller's own) and the caller's bare address on `/`; `reverse_dns` and
/// the whole answer still ask.
#[tokio::test(flavor = "multi_thread")]
async fn answers_that_never_show_a_ptr_name_neither_ask_nor_wait() {
    let dns = DnsServer::start(&[(
        ip("9.9.9.9"),
        slow_ptr("slow.example.test", Duration::from_secs(1)),
    )])
    .await;
    let mut cfg = config(dns.addr, Duration::from_millis(400));
    cfg.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    let server = support::start(cfg).await;
    let client = support::client();
    let timed = |path: String| {
        let client = client.clone();
        async move {
            let started = std::time::Instant::now();
            let r = client
                .get(&path)
                .header("x-forwarded-for", "9.9.9.9")
                .header("user-agent", "curl/8.5.0")
                .send()
                .await
                .unwrap();
            let status = r.status().as_u16();
            (status, r.text().await.unwrap(), started.elapsed())
        }
    };
    let base = &server.base;
    let mut paths: Vec<String> = ["country_code", "asn", "ip", "range", "organization"]
        .iter()
        .flat_map(|f| {
            [
                format!("{base}/api/v1/ip/9.9.9.9/{f}"),
                format!("{base}/api/v1/me/{f}"),
            ]
        })
        .collect();
    paths.push(format!("{base}/"));
    for path in paths {
        let (status, body, took) = timed(path.clone()).await;
        assert_eq!(status, 200, "{path}: {body}");
        assert!(took < Duration::from_millis(300), "{path} took {took:?}");
    }
    assert_eq!(dns.count(), 0, "{:?}", dns.queries());
    // The caller's bare address is what `/` gave a command-line client.
    assert_eq!(timed(format!("{base}/")).await.1, "9.9.9.9\n");
    // The field that shows the name asks (and waits up to the deadline).
    let (status, _, took) = timed(format!("{base}/api/v1/ip/9.9.9.9/reverse_dns")).await;
    assert_eq!(status, 200);
    assert!(took >= Duration::from_millis(350), "{took:?}");
    assert_eq!(dns.lookups_for(ip("9.9.9.9")), 1, "{:?}", dns.queries());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_slow_answer_misses_the_deadline_and_is_cached_when_it_lands() {
    let (dns, server) = slow_answer_for_9999().await;
    let client = support::client();

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
}

#[tokio::test(flavor = "multi_thread")]
async fn an_answer_cached_without_its_name_is_not_revalidated_once_the_name_is_known() {
    let (dns, server) = slow_answer_for_9999().await;
    let client = support::client();
    let url = format!("{}/api/v1/ip/9.9.9.9", server.base);
    let first = client.get(&url).send().await.unwrap();
    let tag = first.headers()["etag"].to_str().unwrap().to_owned();
    let body: Value = serde_json::from_str(&first.text().await.unwrap()).unwrap();
    assert_eq!(body["network"]["reverse_dns"], Value::Null);
    // Before the name is known the tag still matches: 304.
    let again = client
        .get(&url)
        .header("if-none-match", &tag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);

    // Once it is known, the cached copy (null) is not confirmed: 200, a new tag.
    tokio::time::sleep(Duration::from_millis(1400)).await;
    for path in ["", "/reverse_dns"] {
        let url = format!("{url}{path}");
        let stale = if path.is_empty() {
            tag.clone()
        } else {
            tag.replace("-json", "-reverse_dns")
        };
        let r = client
            .get(&url)
            .header("if-none-match", &stale)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{url}");
        assert_ne!(r.headers()["etag"].to_str().unwrap(), stale, "{url}");
        assert!(
            r.text().await.unwrap().contains("slow.example.test"),
            "{url}"
        );
    }
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
    let server = support::start(config(dns.addr, Duration::from_secs(5))).await;
    let client = support::client();

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
    let server = support::start(config(dns.addr, Duration::from_millis(250))).await;
    let client = support::client();

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
    let server = support::start(config(dns.addr, Duration::from_millis(250))).await;
    let client = support::client();

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
    let server = support::start(ServeConfig {
        rdns: None,
        ..support::config()
    })
    .await;
    let client = support::client();
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
    let server = support::start(config(dead, Duration::from_millis(250))).await;
    let client = support::client();
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
    let client = support::client();
    let dns_addr = dns.addr.to_string();

    let on = support::proc::serve(&["--dns-server", &dns_addr, "--rdns-timeout-ms", "2000"]);
    assert_eq!(
        reverse_dns(&client, &on.base, "8.8.8.8").await,
        "dns.example.test"
    );
    assert_eq!(dns.count(), 1, "{:?}", dns.queries());
    drop(on);

    let off = support::proc::serve(&["--dns-server", &dns_addr, "--no-reverse-dns"]);
    assert_eq!(
        reverse_dns(&client, &off.base, "1.1.1.1").await,
        Value::Null
    );
    assert_eq!(dns.count(), 1, "{:?}", dns.queries());
}

// ---------------------------------------------------------------------------
// PTR data is not trusted
// ---------------------------------------------------------------------------

/// The body of `GET /api/v1/ip/{ip}?format={format}`.
async fn body(client: &reqwest::Client, base: &str, ip: &str, format: &str) -> String {
    let (status, _, body) =
        http::get(client, &format!("{base}/api/v1/ip/{ip}?format={format}")).await;
    assert_eq!(status, 200, "{ip} as {format}: {body}");
    body
}

/// The value of the `reverse_dns` line of a text answer.
fn text_reverse_dns(text: &str) -> String {
    let line = text
        .lines()
        .find(|l| l.starts_with("reverse_dns:"))
        .unwrap_or_else(|| panic!("no reverse_dns line: {text}"));
    line["reverse_dns:".len()..].trim().to_owned()
}

/// The value cell of the `reverse_dns` row of a Markdown answer.
fn markdown_reverse_dns(md: &str) -> String {
    let line = md
        .lines()
        .find(|l| l.starts_with("| reverse_dns |"))
        .unwrap_or_else(|| panic!("no reverse_dns row: {md}"));
    line["| reverse_dns |".len()..]
        .trim_end_matches('|')
        .trim()
        .to_owned()
}

/// `reverse_dns` of `ip` in JSON, text and Markdown (the JSON one first, so
/// the answer is cached before the other two are asked).
async fn reverse_dns_everywhere(client: &reqwest::Client, base: &str, ip: &str) -> [String; 3] {
    let json = reverse_dns(client, base, ip).await;
    let json = match json {
        Value::Null => String::new(),
        Value::String(s) => s,
        other => panic!("{ip}: reverse_dns is {other}"),
    };
    let text = text_reverse_dns(&body(client, base, ip, "text").await);
    let md = markdown_reverse_dns(&body(client, base, ip, "md").await);
    [json, text, md]
}

/// The value of a counter on `/metrics` with exactly these labels (0 when absent).
async fn counter(client: &reqwest::Client, base: &str, series: &str) -> f64 {
    let (_, _, text) = http::get(client, &format!("{base}/metrics")).await;
    http::metric(&text, series)
}

#[tokio::test(flavor = "multi_thread")]
async fn ptr_targets_that_are_not_host_names_are_null_in_every_format() {
    let escape: &[u8] = b"\x1b]0;pwned\x07\x1b[31mevil";
    let cases: [(&str, &[&[u8]]); 5] = [
        ("8.8.8.8", &[escape, b"example", b"test"]),
        ("1.1.1.1", &[b"has space", b"example", b"test"]),
        ("9.9.9.9", &["b\u{fc}cher".as_bytes(), b"example", b"test"]),
        ("8.8.4.4", &[b"a.b", b"example", b"test"]),
        ("1.0.0.1", &[b"x\x00y", b"example", b"test"]),
    ];
    let zone: Vec<_> = cases
        .iter()
        .map(|(a, labels)| (ip(a), raw_ptr(&[labels])))
        .collect();
    let dns = DnsServer::start(&zone).await;
    let server = support::start(config(dns.addr, Duration::from_secs(2))).await;
    let client = support::client();
    let invalid = r#"iplookup_rdns_skipped_total{reason="invalid_name"}"#;
    let before = counter(&client, &server.base, invalid).await;

    for (a, _) in cases {
        assert_eq!(
            reverse_dns_everywhere(&client, &server.base, a).await,
            ["", "", ""],
            "{a}"
        );
        for format in ["json", "text", "md", "html"] {
            let b = body(&client, &server.base, a, format).await;
            for needle in ["pwned", "\u{1b}", "\\033", "evil", "has space", "cher"] {
                assert!(!b.contains(needle), "{a} as {format} has {needle:?}: {b}");
            }
        }
        // The PTR was asked (once) and answered; only its content was refused.
        assert_eq!(dns.lookups_for(ip(a)), 1, "{a}: {:?}", dns.queries());
    }
    let after = counter(&client, &server.base, invalid).await;
    assert!(after - before >= cases.len() as f64, "{before} -> {after}");
}

#[tokio::test(flavor = "multi_thread")]
async fn idna_names_stay_ascii_and_the_first_host_name_of_several_ptrs_is_taken() {
    let long = [b'a'; 63];
    let longest: &[&[u8]] = &[&long, &long, &long, &[b'b'; 61]];
    let zone = [
        (ip("8.8.8.8"), ptr("xn--bcher-kva.xn--p1ai")),
        (
            ip("1.1.1.1"),
            raw_ptr(&[
                &[b"bad name", b"test"],
                &[b"good", b"example", b"test"],
                &[b"later", b"test"],
            ]),
        ),
        (ip("9.9.9.9"), raw_ptr(&[longest])),
        (ip("8.8.4.4"), ptr("_gw-1.Example.TEST")),
    ];
    let dns = DnsServer::start(&zone).await;
    let server = support::start(config(dns.addr, Duration::from_secs(2))).await;
    let client = support::client();

    let longest_name = format!("{0}.{0}.{0}.{1}", "a".repeat(63), "b".repeat(61));
    assert_eq!(longest_name.len(), 253);
    for (a, want) in [
        ("8.8.8.8", "xn--bcher-kva.xn--p1ai"),
        ("1.1.1.1", "good.example.test"),
        ("9.9.9.9", longest_name.as_str()),
        ("8.8.4.4", "_gw-1.Example.TEST"),
    ] {
        let [json, text, md] = reverse_dns_everywhere(&client, &server.base, a).await;
        assert_eq!(json, want, "{a}: JSON");
        assert_eq!(text, want, "{a}: text");
        // Markdown escapes `_`; the name reads the same once rendered.
        assert_eq!(md.replace("\\_", "_"), want, "{a}: Markdown");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn overlong_labels_and_names_on_the_wire_are_null() {
    let label64 = [b'a'; 64];
    let label63 = [b'a'; 63];
    // A label of 64 octets, and a name of 5 x 64 + 1 = 321 octets (> 255).
    for rdata in [
        wire_name(&[&label64, b"test"]),
        wire_name(&[&label63, &label63, &label63, &label63, &label63]),
    ] {
        let dns = RawDns::answering(rdata).await;
        let server = support::start(config(dns.addr, Duration::from_millis(500))).await;
        let client = support::client();
        assert_eq!(
            reverse_dns_everywhere(&client, &server.base, "8.8.8.8").await,
            ["", "", ""]
        );
        assert!(dns.packets() >= 1, "the PTR was never asked");
    }
}

// ---------------------------------------------------------------------------
// PTR lookups in flight are capped
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn lookups_in_flight_are_capped_against_a_server_that_never_answers() {
    use iplookup::rdns::{LOOKUP_TIMEOUT, max_packets_per_lookup};

    let dns = RawDns::silent().await;
    let cap = 8;
    // A long deadline, so that an answer that waited for it stands out from
    // one given at once.
    let deadline = Duration::from_secs(1);
    let rdns = RdnsConfig {
        server: Some(dns.addr),
        deadline,
        capacity: 1000,
        max_in_flight: cap,
    };
    let server = support::start(ServeConfig {
        rdns: Some(rdns.clone()),
        ..support::config()
    })
    .await;
    let client = support::client();
    let busy = r#"iplookup_rdns_skipped_total{reason="busy"}"#;
    let skipped_before = counter(&client, &server.base, busy).await;

    // 300 distinct public addresses, 64 requests at a time (so that the
    // time measured is the server's, not a storm of 300 connects).
    let addresses: Vec<String> = (0..300)
        .map(|i| format!("9.9.{}.{}", 1 + i / 200, 1 + i % 200))
        .collect();
    let gate = std::sync::Arc::new(tokio::sync::Semaphore::new(64));
    let started = Instant::now();
    let tasks: Vec<_> = addresses
        .iter()
        .map(|a| {
            let (client, base, a) = (client.clone(), server.base.clone(), a.clone());
            let gate = gate.clone();
            tokio::spawn(async move {
                let _turn = gate.acquire().await.unwrap();
                let asked = Instant::now();
                let value = reverse_dns(&client, &base, &a).await;
                (a, value, asked.elapsed())
            })
        })
        .collect();
    let mut took = Vec::new();
    for t in tasks {
        let (a, value, elapsed) = t.await.unwrap();
        assert_eq!(value, Value::Null, "{a}");
        took.push(elapsed);
    }
    let burst = started.elapsed();
    took.sort();
    let (median, slowest) = (took[took.len() / 2], took[took.len() - 1]);
    // Most requests found every slot taken and were answered at once, not at
    // the deadline; none waited for the resolver past the deadline.
    assert!(median < deadline, "median answer took {median:?}");
    assert!(
        slowest < deadline + LOOKUP_TIMEOUT,
        "slowest answer took {slowest:?}"
    );

    // Let every lookup that did start run out, then count what reached the server.
    tokio::time::sleep(LOOKUP_TIMEOUT + Duration::from_millis(700)).await;
    // A slot holds one lookup for LOOKUP_TIMEOUT against a silent server, so
    // within the burst each slot can have started at most this many.
    let rounds = 1 + (burst.as_millis() / LOOKUP_TIMEOUT.as_millis()) as usize;
    let names = dns.distinct_names();
    let packets = dns.packets();
    eprintln!(
        "burst {burst:?}, median {median:?}, slowest {slowest:?}: {names} names asked in \
         {packets} packets ({} TCP connections)",
        dns.tcp_connections()
    );
    assert!(names >= 1, "no lookup was made at all");
    assert!(
        names <= cap * rounds,
        "{names} addresses asked, cap {cap} x {rounds}"
    );
    let bound = cap * rounds * max_packets_per_lookup(&rdns);
    assert!(packets <= bound, "{packets} packets > {bound}");

    let skipped = counter(&client, &server.base, busy).await - skipped_before;
    assert!(skipped > 0.0, "no lookup was skipped as busy");
    assert!(
        skipped >= (addresses.len() - cap * rounds) as f64,
        "{skipped} skipped of {}",
        addresses.len()
    );

    // Busy answers are not cached: once the slots are free, an address that
    // was skipped is asked.
    let skipped_one = addresses
        .iter()
        .find(|a| !dns.asked(ip(a)))
        .expect("some address was skipped");
    let _ = reverse_dns(&client, &server.base, skipped_one).await;
    let deadline = Instant::now() + Duration::from_secs(2);
    while !dns.asked(ip(skipped_one)) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        dns.asked(ip(skipped_one)),
        "{skipped_one} was not asked again"
    );
}

#[test]
fn rdns_max_in_flight_is_range_checked_at_start() {
    for bad in ["0", "65537", "many"] {
        let out = support::proc::command()
            .args([
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--rdns-max-in-flight",
                bad,
            ])
            .output()
            .expect("run the binary");
        assert!(!out.status.success(), "{bad} was accepted");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--rdns-max-in-flight"), "{bad}: {err}");
    }
}
