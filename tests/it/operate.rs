//! Running it in production: Prometheus metrics, graceful shutdown of the
//! real binary on SIGTERM/SIGINT (in-flight requests finish, bounded by the
//! drain time), header and URI size limits, the header read timeout against
//! slowloris clients, the request timeout and the in-flight cap, JSON logs.

use crate::support;

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use iplookup::ServeConfig;
use iplookup::rdns::RdnsConfig;
use iplookup::web::Limits;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use support::dns::{DnsServer, ptr, slow_ptr};
use support::wire;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

// ---------------------------------------------------------------------------
// raw HTTP/1.1
// ---------------------------------------------------------------------------

/// Sends `head` (a whole request head) and reads the response until the
/// server closes; returns (status, headers, body).
async fn raw(addr: SocketAddr, head: &[u8]) -> (u16, String, String) {
    let r = wire::exchange(addr, head, b"").await;
    let head = r
        .headers
        .iter()
        .map(|(k, v)| format!("{k}: {v}"))
        .collect::<Vec<_>>()
        .join("\r\n");
    (r.status, head, r.body)
}

fn get_head(target: &str, extra: &str) -> Vec<u8> {
    format!("GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n{extra}\r\n")
        .into_bytes()
}

// ---------------------------------------------------------------------------
// metrics
// ---------------------------------------------------------------------------

/// One sample of the Prometheus text format.
#[derive(Debug)]
struct Sample {
    name: String,
    labels: BTreeMap<String, String>,
    value: f64,
}

fn parse_metrics(text: &str) -> Vec<Sample> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (series, value) = l
                .rsplit_once(' ')
                .unwrap_or_else(|| panic!("bad line {l:?}"));
            let (name, labels) = match series.split_once('{') {
                Some((n, rest)) => (n, rest.trim_end_matches('}')),
                None => (series, ""),
            };
            let labels = labels
                .split("\",")
                .filter(|p| !p.is_empty())
                .map(|p| {
                    let (k, v) = p
                        .split_once('=')
                        .unwrap_or_else(|| panic!("bad label {p:?}"));
                    (k.to_owned(), v.trim_matches('"').to_owned())
                })
                .collect();
            Sample {
                name: name.to_owned(),
                labels,
                value: value
                    .parse()
                    .unwrap_or_else(|_| panic!("bad value in {l:?}")),
            }
        })
        .collect()
}

/// The sample named `name` whose labels include all of `labels`.
fn find<'a>(samples: &'a [Sample], name: &str, labels: &[(&str, &str)]) -> Option<&'a Sample> {
    samples.iter().find(|s| {
        s.name == name
            && labels
                .iter()
                .all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v))
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn metrics_count_requests_time_them_and_report_the_data_age() {
    let dns = DnsServer::start(&[(ip("8.8.8.8"), ptr("dns.example.test"))]).await;
    let server = support::start(ServeConfig {
        rdns: Some(RdnsConfig {
            server: Some(dns.addr),
            ..RdnsConfig::default()
        }),
        ..support::config()
    })
    .await;
    let client = support::client();
    for _ in 0..3 {
        let r = client
            .get(format!("{}/api/v1/ip/8.8.8.8", server.base))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
    }
    let r = client
        .get(format!("{}/api/v1/ip/not-an-ip", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let r = client
        .get(format!("{}/no/such/page", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);

    let r = client
        .get(format!("{}/metrics", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let ct = r.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(ct.starts_with("text/plain; version=0.0.4"), "{ct}");
    let text = r.text().await.unwrap();
    let samples = parse_metrics(&text);

    // Requests by route (the route template, not the address) and status.
    let route = "/api/v1/ip/{ip}";
    let ok = find(
        &samples,
        "iplookup_requests_total",
        &[("route", route), ("status", "200")],
    )
    .unwrap_or_else(|| panic!("no 200 counter for {route}:\n{text}"));
    assert!(ok.value >= 3.0, "{ok:?}");
    assert!(
        find(
            &samples,
            "iplookup_requests_total",
            &[("route", route), ("status", "400")]
        )
        .is_some(),
        "{text}"
    );
    assert!(
        find(&samples, "iplookup_requests_total", &[("status", "404")]).is_some(),
        "{text}"
    );
    assert!(
        !text.contains("8.8.8.8"),
        "addresses must not become labels:\n{text}"
    );

    // A latency histogram per route.
    assert!(
        text.contains("# TYPE iplookup_request_duration_seconds histogram"),
        "{text}"
    );
    let inf = find(
        &samples,
        "iplookup_request_duration_seconds_bucket",
        &[("route", route), ("le", "+Inf")],
    )
    .unwrap_or_else(|| panic!("no +Inf bucket:\n{text}"));
    assert!(inf.value >= 3.0, "{inf:?}");
    let buckets = samples
        .iter()
        .filter(|s| {
            s.name == "iplookup_request_duration_seconds_bucket" && s.labels["route"] == route
        })
        .count();
    assert!(buckets >= 10, "{buckets} buckets");
    let count = find(
        &samples,
        "iplookup_request_duration_seconds_count",
        &[("route", route)],
    )
    .unwrap();
    assert_eq!(count.value, inf.value);
    assert!(
        find(
            &samples,
            "iplookup_request_duration_seconds_sum",
            &[("route", route)]
        )
        .is_some()
    );

    // The age of the loaded data: positive, and matching the release date.
    let health: Value = serde_json::from_str(
        &client
            .get(format!("{}/healthz", server.base))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
    )
    .unwrap();
    for table in ["country", "asn"] {
        let age = find(
            &samples,
            "iplookup_data_release_age_seconds",
            &[("table", table)],
        )
        .unwrap_or_else(|| panic!("no release age for {table}:\n{text}"))
        .value;
        let date = health["data"][table]["release_date"].as_str().unwrap();
        let date = if date.len() == 7 {
            format!("{date}-01")
        } else {
            date.to_owned()
        };
        let day = chrono::NaiveDate::parse_from_str(&date, "%Y-%m-%d").unwrap();
        let expected = (chrono::Utc::now().naive_utc() - day.and_hms_opt(0, 0, 0).unwrap())
            .num_seconds() as f64;
        assert!(
            age > 0.0 && (age - expected).abs() < 120.0,
            "{table}: age {age}, expected {expected}"
        );
    }

    // Reverse DNS cache hits and misses (for the hit ratio).
    let hits =
        find(&samples, "iplookup_rdns_cache_total", &[("result", "hit")]).map_or(0.0, |s| s.value);
    let misses =
        find(&samples, "iplookup_rdns_cache_total", &[("result", "miss")]).map_or(0.0, |s| s.value);
    assert!(
        hits >= 2.0 && misses >= 1.0,
        "hits {hits}, misses {misses}:\n{text}"
    );
}

// ---------------------------------------------------------------------------
// graceful shutdown (the real binary)
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_lets_the_request_in_flight_finish_then_exits_zero() {
    // The request stays in flight while the DNS server takes 1.5 s to answer.
    let dns = DnsServer::start(&[(
        ip("9.9.9.9"),
        slow_ptr("slow.example.test", Duration::from_millis(1500)),
    )])
    .await;
    let mut bin = support::proc::serve(&[
        "--dns-server",
        &dns.addr.to_string(),
        "--rdns-timeout-ms",
        "3000",
        "--drain-seconds",
        "5",
    ]);
    let client = support::client();
    let url = format!("{}/api/v1/ip/9.9.9.9", bin.base);
    let in_flight = tokio::spawn({
        let client = client.clone();
        async move {
            let r = client.get(url).send().await?;
            let status = r.status();
            Ok::<_, reqwest::Error>((status, r.text().await?))
        }
    });
    // Wait until the request is being handled (its DNS query has arrived).
    let started = Instant::now();
    while dns.count() == 0 {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "request never reached DNS"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    bin.signal("TERM");
    let signalled = Instant::now();
    tokio::time::sleep(Duration::from_millis(300)).await;
    // No new connections once shutting down.
    let late = support::client()
        .get(format!("{}/healthz", bin.base))
        .timeout(Duration::from_secs(3))
        .send()
        .await;
    assert!(
        late.is_err(),
        "a new request was served after SIGTERM: {late:?}"
    );

    // The request in flight completes, with its full answer.
    let (status, body) = in_flight
        .await
        .unwrap()
        .expect("in-flight request completes");
    assert_eq!(status, 200);
    let info: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        info["network"]["reverse_dns"], "slow.example.test",
        "{info}"
    );

    // Then the process exits 0, well within the drain time.
    let status = tokio::task::spawn_blocking(move || {
        let s = bin.wait_exit(Duration::from_secs(6));
        (s, bin.log())
    })
    .await
    .unwrap();
    let (exit, log) = status;
    let exit =
        exit.unwrap_or_else(|| panic!("still running 6 s after SIGTERM:\n{}", log.join("\n")));
    assert!(exit.success(), "exit status {exit:?}:\n{}", log.join("\n"));
    assert!(
        signalled.elapsed() < Duration::from_secs(5),
        "{:?}",
        signalled.elapsed()
    );

    // Logs are JSON lines (--log-format json) and tell of the shutdown.
    for line in &log {
        let v: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        assert!(
            v["level"].is_string() && v["fields"]["message"].is_string(),
            "{line}"
        );
    }
    assert!(
        log.iter().any(|l| l.contains("shutting down")),
        "{}",
        log.join("\n")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn shutdown_waits_no_longer_than_the_drain_time() {
    // A request that would take 20 s; drain time 1 s.
    let dns = DnsServer::start(&[(
        ip("9.9.9.9"),
        slow_ptr("slow.example.test", Duration::from_secs(20)),
    )])
    .await;
    let mut bin = support::proc::serve(&[
        "--dns-server",
        &dns.addr.to_string(),
        "--rdns-timeout-ms",
        "30000",
        "--request-timeout",
        "60",
        "--drain-seconds",
        "1",
    ]);
    let url = format!("{}/api/v1/ip/9.9.9.9", bin.base);
    let stuck = tokio::spawn(async move { support::client().get(url).send().await });
    let started = Instant::now();
    while dns.count() == 0 {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "request never reached DNS"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    bin.signal("TERM");
    let signalled = Instant::now();
    let exit = tokio::task::spawn_blocking(move || bin.wait_exit(Duration::from_secs(10)))
        .await
        .unwrap()
        .expect("exits after the drain time");
    let took = signalled.elapsed();
    assert!(
        took >= Duration::from_millis(900),
        "did not wait for the drain: {took:?}"
    );
    assert!(
        took < Duration::from_secs(3),
        "waited past the drain time: {took:?}"
    );
    assert!(exit.success(), "{exit:?}");
    // The stuck request was cut off rather than answered.
    assert!(stuck.await.unwrap().is_err());
}

#[test]
fn sigint_shuts_down_an_idle_server_at_once() {
    let mut bin = support::proc::serve(&["--no-reverse-dns"]);
    let started = Instant::now();
    bin.signal("INT");
    let exit = bin
        .wait_exit(Duration::from_secs(5))
        .expect("exits on SIGINT");
    assert!(exit.success(), "{exit:?}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

// ---------------------------------------------------------------------------
// size limits
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread")]
async fn a_20_kb_header_gets_431_and_a_10_kb_one_is_served() {
    let server = support::start(support::config()).await;
    let big = "a".repeat(20 * 1024);
    let (status, _, _) = raw(
        server.addr,
        &get_head("/api/v1/ip/8.8.8.8", &format!("X-Big: {big}\r\n")),
    )
    .await;
    assert_eq!(status, 431);

    let fine = "a".repeat(10 * 1024);
    let (status, _, body) = raw(
        server.addr,
        &get_head("/api/v1/ip/8.8.8.8", &format!("X-Big: {fine}\r\n")),
    )
    .await;
    assert_eq!(status, 200, "{body}");

    // Many small headers adding up past the limit count too.
    let many: String = (0..400)
        .map(|i| format!("X-H{i}: {}\r\n", "b".repeat(50)))
        .collect();
    let (status, _, _) = raw(server.addr, &get_head("/api/v1/ip/8.8.8.8", &many)).await;
    assert_eq!(status, 431);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_5000_byte_path_gets_414_with_an_error_body() {
    let server = support::start(support::config()).await;
    let prefix = "/api/v1/ip/";
    let path = format!("{prefix}{}", "a".repeat(5000 - prefix.len()));
    assert_eq!(path.len(), 5000);
    let (status, head, body) = raw(server.addr, &get_head(&path, "")).await;
    assert_eq!(status, 414, "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: application/json"),
        "{head}"
    );
    let err: Value =
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"));
    assert_eq!(err["error"], "uri_too_long", "{err}");
    assert!(err["message"].as_str().unwrap().contains("4096"), "{err}");

    // A long query string counts as well; an ordinary page path too.
    let (status, _, _) = raw(
        server.addr,
        &get_head(&format!("/healthz?x={}", "q".repeat(4100)), ""),
    )
    .await;
    assert_eq!(status, 414);
    let (status, _, _) = raw(
        server.addr,
        &get_head(&format!("/{}", "p".repeat(4999)), ""),
    )
    .await;
    assert_eq!(status, 414);

    // At the limit (4096 bytes) the request goes through to the handler.
    let path = format!("{prefix}{}", "a".repeat(4096 - prefix.len()));
    let (status, _, _) = raw(server.addr, &get_head(&path, "")).await;
    assert_ne!(status, 414);
}

// ---------------------------------------------------------------------------
// slow clients
// ---------------------------------------------------------------------------

async fn start_with_header_timeout(secs: u64) -> support::TestServer {
    support::start(ServeConfig {
        limits: Limits {
            header_timeout: Duration::from_secs(secs),
            ..Limits::default()
        },
        ..support::config()
    })
    .await
}

/// Keeps a normal client asking until `done` resolves; returns (ok, failed).
async fn normal_client_during<F: std::future::Future>(
    base: &str,
    done: F,
) -> (F::Output, usize, usize) {
    let client = support::client();
    let url = format!("{base}/api/v1/ip/8.8.8.8");
    let (mut ok, mut failed) = (0, 0);
    tokio::pin!(done);
    loop {
        tokio::select! {
            out = &mut done => return (out, ok, failed),
            r = client.get(&url).timeout(Duration::from_secs(2)).send() => {
                match r {
                    Ok(r) if r.status() == 200 => ok += 1,
                    _ => failed += 1,
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

/// Reads until the server closes the connection; how long that took.
async fn until_closed(mut s: TcpStream, started: Instant, limit: Duration) -> Option<Duration> {
    let mut buf = [0u8; 1024];
    let read = async {
        loop {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => return started.elapsed(),
                Ok(_) => {}
            }
        }
    };
    tokio::time::timeout(limit, read).await.ok()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stalled_request_line_is_cut_off_after_the_header_timeout() {
    let server = start_with_header_timeout(1).await;
    let mut slow = TcpStream::connect(server.addr).await.unwrap();
    slow.write_all(b"GET /api/v1/ip/8.8.8.8 HTT").await.unwrap();
    let started = Instant::now();
    let (closed, ok, failed) = normal_client_during(
        &server.base,
        until_closed(slow, started, Duration::from_secs(5)),
    )
    .await;
    let closed = closed.expect("the stalled connection was not closed within 5 s");
    assert!(
        closed >= Duration::from_millis(800),
        "closed too early: {closed:?}"
    );
    assert!(closed < Duration::from_secs(3), "closed late: {closed:?}");
    assert_eq!(failed, 0);
    assert!(ok >= 5, "the normal client got only {ok} answers");
}

#[tokio::test(flavor = "multi_thread")]
async fn headers_dripped_byte_by_byte_are_cut_off_after_the_header_timeout() {
    let server = start_with_header_timeout(1).await;
    let s = TcpStream::connect(server.addr).await.unwrap();
    let (mut rd, mut wr) = s.into_split();
    let started = Instant::now();
    // One byte every 100 ms, forever: the whole head must arrive within 1 s.
    let drip = tokio::spawn(async move {
        wr.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
            .await
            .ok()?;
        loop {
            tokio::time::sleep(Duration::from_millis(100)).await;
            wr.write_all(b"z").await.ok()?;
        }
        #[allow(unreachable_code)]
        Some(())
    });
    let closed = async {
        let mut buf = [0u8; 256];
        loop {
            match rd.read(&mut buf).await {
                Ok(0) | Err(_) => return started.elapsed(),
                Ok(_) => {}
            }
        }
    };
    let (closed, ok, failed) = normal_client_during(
        &server.base,
        tokio::time::timeout(Duration::from_secs(5), closed),
    )
    .await;
    drip.abort();
    let closed = closed.expect("the dripping connection was not closed within 5 s");
    assert!(closed < Duration::from_secs(3), "closed late: {closed:?}");
    assert_eq!(failed, 0);
    assert!(ok >= 5, "{ok}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_silent_connection_is_closed_after_the_header_timeout() {
    let server = start_with_header_timeout(1).await;
    let silent = TcpStream::connect(server.addr).await.unwrap();
    let closed = until_closed(silent, Instant::now(), Duration::from_secs(5)).await;
    let closed = closed.expect("a connection that sent nothing was still open after 5 s");
    assert!(closed < Duration::from_secs(3), "{closed:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stalled_http2_preface_is_closed_after_the_header_timeout() {
    let server = start_with_header_timeout(1).await;
    let mut s = TcpStream::connect(server.addr).await.unwrap();
    s.write_all(b"PRI * HTTP/2.0\r\n").await.unwrap();
    let closed = until_closed(s, Instant::now(), Duration::from_secs(5)).await;
    let closed = closed.expect("a stalled HTTP/2 preface was still open after 5 s");
    assert!(closed < Duration::from_secs(3), "{closed:?}");
}

// ---------------------------------------------------------------------------
// request timeout and in-flight cap
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread")]
async fn a_request_past_the_request_timeout_gets_503() {
    let dns = DnsServer::start(&[(
        ip("9.9.9.9"),
        slow_ptr("slow.example.test", Duration::from_secs(3)),
    )])
    .await;
    let server = support::start(ServeConfig {
        rdns: Some(RdnsConfig {
            server: Some(dns.addr),
            deadline: Duration::from_secs(5),
            capacity: 100,
            ..RdnsConfig::default()
        }),
        limits: Limits {
            request_timeout: Duration::from_secs(1),
            ..Limits::default()
        },
        ..support::config()
    })
    .await;
    let started = Instant::now();
    let r = support::client()
        .get(format!("{}/api/v1/ip/9.9.9.9", server.base))
        .send()
        .await
        .unwrap();
    let took = started.elapsed();
    assert_eq!(r.status(), 503);
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_millis(2500),
        "{took:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn requests_beyond_max_in_flight_wait_their_turn() {
    let dns = DnsServer::start(&[(
        ip("9.9.9.9"),
        slow_ptr("slow.example.test", Duration::from_millis(1000)),
    )])
    .await;
    let config = |max_in_flight| ServeConfig {
        rdns: Some(RdnsConfig {
            server: Some(dns.addr),
            deadline: Duration::from_secs(3),
            capacity: 100,
            ..RdnsConfig::default()
        }),
        limits: Limits {
            max_in_flight,
            // Longer than the slow PTR answer: the waiting request is served.
            queue_timeout: Duration::from_secs(5),
            ..Limits::default()
        },
        ..support::config()
    };
    for (max, waits) in [(1, true), (16, false)] {
        let server = support::start(config(max)).await;
        let slow_url = format!("{}/api/v1/ip/9.9.9.9", server.base);
        let before = dns.count();
        let slow = tokio::spawn(async move { support::client().get(slow_url).send().await });
        while dns.count() == before {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        // /healthz never waits for a slot (issue 13), however many are busy.
        let started = Instant::now();
        let r = support::client()
            .get(format!("{}/healthz", server.base))
            .send()
            .await
            .unwrap();
        let took = started.elapsed();
        assert_eq!(r.status(), 200);
        assert!(
            took < Duration::from_millis(500),
            "max_in_flight {max}: /healthz took {took:?}"
        );
        // A lookup waits its turn behind the slow one when the cap is 1.
        let started = Instant::now();
        let r = support::client()
            .get(format!("{}/api/v1/ip/8.8.8.8", server.base))
            .send()
            .await
            .unwrap();
        let took = started.elapsed();
        assert_eq!(r.status(), 200);
        if waits {
            assert!(
                took >= Duration::from_millis(500),
                "max_in_flight {max}: the lookup took {took:?}"
            );
        } else {
            assert!(
                took < Duration::from_millis(500),
                "max_in_flight {max}: the lookup took {took:?}"
            );
        }
        assert_eq!(slow.await.unwrap().unwrap().status(), 200);
    }
}
