//! Resource limits under attack (issue 6, item 3), against the real server on
//! a loopback socket in this process:
//!
//! - 2,000 idle or slow connections (silent, a stalled request line, headers
//!   dripped a byte at a time) do not stop a normal client from getting
//!   answers quickly, and all of them are cut off by the header timeout;
//! - with a small `max_connections`, connections beyond the cap are closed at
//!   once, the held ones are unaffected, and the server recovers when they go;
//! - the per-caller rate limit answers one caller 429 (Error JSON body,
//!   `Retry-After`) while other callers (through a trusted proxy) are served,
//!   `/healthz` is exempt, and the caller is served again after the wait;
//! - the limiter's memory stays bounded after 200,000 distinct callers.
//!
//! The tests of this file run one at a time (they share the process's file
//! descriptors and its resident memory, which one of them measures), and in a
//! test binary of their own (`cargo test --test limits`): tests of other
//! files running beside them would use descriptors and memory of the same
//! process. The list of test binaries is in `tests/it/main.rs`.
#![allow(clippy::await_holding_lock)] // see SERIAL

#[path = "../support/mod.rs"]
mod support;

mod answers;
mod csv;
mod h2_reset;

use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use iplookup::web::serve::ratelimit::RateLimit;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// One test at a time. Each test runs on its own runtime (`#[tokio::test]`), so
/// holding this std mutex across its awaits blocks only the other tests, which
/// is the point: they must not share the machine's file descriptors and cores.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The soft limit on open files of this process, from /proc/self/limits.
fn open_files_limit() -> u64 {
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
    limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .and_then(|l| l.split_whitespace().nth(3))
        .and_then(|v| v.parse().ok())
        .unwrap_or(1024)
}

/// Resident memory of this process (server included), in KiB.
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap()
}

/// Reads until the peer closes the connection (EOF or reset), at most `limit`.
/// `Some(bytes read)` if it closed in time.
async fn closed_within(s: &mut TcpStream, limit: Duration) -> Option<usize> {
    let mut buf = [0u8; 4096];
    let mut total = 0;
    let read = async {
        loop {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => return total,
                Ok(n) => total += n,
            }
        }
    };
    tokio::time::timeout(limit, read).await.ok()
}

/// One GET with a fresh connection; (status, time taken), or the error.
async fn timed_get(url: &str) -> Result<(u16, Duration), String> {
    let client = support::client();
    let t = Instant::now();
    let r = client
        .get(url)
        .timeout(Duration::from_secs(5))
        .send()
        .await
        .map_err(|e| format!("{e:?}"))?;
    let status = r.status().as_u16();
    r.bytes().await.map_err(|e| format!("{e:?}"))?;
    Ok((status, t.elapsed()))
}

// ---------------------------------------------------------------------------
// (a) idle and slow connections, the connection cap
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_thousand_idle_and_slow_connections_do_not_stop_a_normal_client() {
    let _serial = serial();
    // Both ends of every connection live in this process: 2 descriptors each.
    let fd_limit = open_files_limit();
    let wanted = 2000usize;
    let n = wanted.min((fd_limit.saturating_sub(200) / 2) as usize);
    if n < wanted {
        eprintln!("open files limit {fd_limit}: opening {n} slow connections instead of {wanted}");
    }
    let header_timeout = Duration::from_secs(5);
    let mut cfg = support::config();
    cfg.limits.header_timeout = header_timeout;
    // All from 127.0.0.1: this test is about the global cap and timeouts.
    cfg.limits.max_connections_per_ip = cfg.limits.max_connections;
    let server = support::start(cfg).await;
    let url = format!("{}/api/v1/ip/8.8.8.8", server.base);

    // A third silent, a third with a stalled request line, a third dripping
    // their headers one byte every 500 ms (each byte well within any
    // per-read timeout, the whole far beyond the header timeout).
    let opened = Instant::now();
    let mut silent = Vec::new();
    let mut stalled = Vec::new();
    let mut drippers = Vec::new();
    for i in 0..n {
        let mut s = TcpStream::connect(server.addr).await.expect("connect");
        match i % 3 {
            0 => silent.push(s),
            1 => {
                s.write_all(b"GET /api/v1/ip/8.8.8.8 HT").await.unwrap();
                stalled.push(s);
            }
            _ => {
                s.write_all(b"GET /api/v1/ip/1.1.1.1 HTTP/1.1\r\nHost: x\r\n")
                    .await
                    .unwrap();
                drippers.push(tokio::spawn(async move {
                    let started = Instant::now();
                    for b in b"X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                        .iter()
                        .cycle()
                    {
                        tokio::time::sleep(Duration::from_millis(500)).await;
                        if s.write_all(&[*b]).await.is_err() {
                            return Some(started.elapsed());
                        }
                        // Closed by the server: the write fails a little later.
                        if started.elapsed() > Duration::from_secs(30) {
                            return None;
                        }
                    }
                    None
                }));
            }
        }
    }
    let open_time = opened.elapsed();

    // While they are all open: a normal client, new connection each time.
    let mut worst = Duration::ZERO;
    let mut times = Vec::new();
    for _ in 0..20 {
        let (status, took) = timed_get(&url).await.expect("normal client served");
        assert_eq!(status, 200);
        worst = worst.max(took);
        times.push(took);
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let still_before_timeout = opened.elapsed() < header_timeout;
    eprintln!(
        "{n} slow connections opened in {open_time:?}; 20 normal requests while they were open \
         (all before the header timeout: {still_before_timeout}): worst {worst:?}, times {times:?}"
    );
    assert!(
        worst < Duration::from_millis(500),
        "a normal request took {worst:?} with {n} slow connections open"
    );

    // The header timeout cuts every one of them off (a generous margin for a busy machine).
    let limit = header_timeout + Duration::from_secs(5);
    let mut not_closed = 0;
    for s in silent.iter_mut().chain(stalled.iter_mut()) {
        let left = limit.saturating_sub(opened.elapsed());
        if closed_within(s, left.max(Duration::from_millis(1)))
            .await
            .is_none()
        {
            not_closed += 1;
        }
    }
    assert_eq!(
        not_closed, 0,
        "silent or stalled connections still open {limit:?} after they were opened"
    );
    let mut dripping_on = 0;
    for d in drippers {
        match d.await.unwrap() {
            Some(after) if after <= limit + Duration::from_secs(2) => {}
            _ => dripping_on += 1,
        }
    }
    assert_eq!(
        dripping_on, 0,
        "connections dripping their headers were not cut off by the header timeout"
    );

    // And the server is as good as new.
    let (status, took) = timed_get(&url).await.expect("served after the attack");
    assert_eq!(status, 200);
    assert!(took < Duration::from_millis(500), "{took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_beyond_the_cap_are_closed_at_once_and_the_server_recovers() {
    let _serial = serial();
    let cap = 100;
    let mut cfg = support::config();
    cfg.limits.max_connections = cap;
    cfg.limits.header_timeout = Duration::from_secs(30);
    let server = support::start(cfg).await;
    let url = format!("{}/api/v1/ip/8.8.8.8", server.base);
    let health = format!("{}/healthz", server.base);

    // Hold the cap with silent connections.
    let mut held = Vec::new();
    for _ in 0..cap {
        held.push(TcpStream::connect(server.addr).await.unwrap());
    }
    // Give the server the time to accept them all (a permit each).
    tokio::time::sleep(Duration::from_millis(300)).await;

    // 50 more: the kernel completes the handshake, the server closes each at once.
    let mut worst = Duration::ZERO;
    for i in 0..50 {
        let t = Instant::now();
        let mut s = TcpStream::connect(server.addr).await.unwrap();
        // Half of them send a request first: they get no answer, only the close.
        if i % 2 == 0 {
            let _ = s
                .write_all(b"GET /api/v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\n\r\n")
                .await;
        }
        let read = closed_within(&mut s, Duration::from_secs(2))
            .await
            .unwrap_or_else(|| {
                panic!(
                    "connection {} beyond the cap of {cap} was not closed within 2 s",
                    i + 1
                )
            });
        assert_eq!(read, 0, "a connection beyond the cap got an answer");
        worst = worst.max(t.elapsed());
    }
    eprintln!("50 connections beyond the cap of {cap}: each closed within {worst:?}");
    assert!(worst < Duration::from_millis(500), "{worst:?}");

    // The held connections are still being served: one of them asks now.
    let mut first = held.pop().unwrap();
    first
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), first.read_to_end(&mut answer))
        .await
        .expect("a held connection answered within 5 s")
        .unwrap();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");

    // Release the others: new clients are served again at once.
    drop(held);
    let t = Instant::now();
    let recovered = loop {
        if let Ok((200, _)) = timed_get(&health).await {
            break t.elapsed();
        }
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "no recovery within 5 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    eprintln!("served again {recovered:?} after the held connections were closed");
    for _ in 0..10 {
        let (status, took) = timed_get(&url).await.expect("served after recovery");
        assert_eq!(status, 200);
        assert!(took < Duration::from_millis(500), "{took:?}");
    }
    // And the cap still holds afterwards (permits were given back, not leaked).
    let mut again = Vec::new();
    for _ in 0..cap {
        again.push(TcpStream::connect(server.addr).await.unwrap());
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut over = TcpStream::connect(server.addr).await.unwrap();
    assert_eq!(
        closed_within(&mut over, Duration::from_secs(2)).await,
        Some(0),
        "the cap no longer holds after recovery"
    );
}

// ---------------------------------------------------------------------------
// (b) the per-caller rate limit
// ---------------------------------------------------------------------------

/// A GET on a kept-alive client with an `X-Forwarded-For` caller.
async fn get_as(
    client: &reqwest::Client,
    url: &str,
    caller: Option<&str>,
) -> (u16, reqwest::header::HeaderMap, String) {
    let mut req = client.get(url).timeout(Duration::from_secs(5));
    if let Some(c) = caller {
        req = req.header("X-Forwarded-For", c);
    }
    let r = req.send().await.expect("answer");
    let status = r.status().as_u16();
    let headers = r.headers().clone();
    (status, headers, r.text().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rate_limit_holds_for_one_caller_while_others_are_served() {
    let _serial = serial();
    let mut cfg = support::config();
    cfg.trusted_proxies = vec!["127.0.0.0/8".parse().unwrap()];
    // One token every 2 s: the test's own pace cannot refill a bucket by accident.
    cfg.rate_limit = Some(RateLimit {
        per_second: 0.5,
        burst: 5,
    });
    let server = support::start(cfg).await;
    let client = support::client();
    let api = format!("{}/api/v1/ip/8.8.8.8", server.base);
    let page = format!("{}/8.8.8.8", server.base);
    let health = format!("{}/healthz", server.base);
    let greedy = "203.0.113.7";

    // The burst goes through, then 429s.
    let mut statuses = Vec::new();
    for _ in 0..5 {
        statuses.push(get_as(&client, &api, Some(greedy)).await.0);
    }
    assert_eq!(statuses, [200; 5], "the burst of 5 is served");
    let (status, headers, body) = get_as(&client, &api, Some(greedy)).await;
    assert_eq!(status, 429, "{body}");
    assert_eq!(
        headers.get("x-content-type-options").map(|v| v.as_bytes()),
        Some(&b"nosniff"[..]),
        "nosniff on a 429 too"
    );
    let retry: u64 = headers
        .get("retry-after")
        .expect("Retry-After on a 429")
        .to_str()
        .unwrap()
        .parse()
        .expect("Retry-After in seconds");
    assert!(
        (1..=2).contains(&retry),
        "Retry-After: {retry} (one token every 2 s)"
    );
    assert!(
        headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json"),
        "{headers:?}"
    );
    eprintln!(
        "6th request of {greedy}: 429, Retry-After: {retry}, Content-Type: {:?}, body {body}",
        headers["content-type"]
    );
    let error: serde_json::Value = serde_json::from_str(&body).expect("a JSON Error body");
    assert_eq!(error["error"], "rate_limited", "{body}");
    assert!(
        error["message"].as_str().unwrap().contains(greedy),
        "{body}"
    );

    // Still limited, on every path but /healthz; HTML and text pages too.
    for _ in 0..5 {
        assert_eq!(get_as(&client, &api, Some(greedy)).await.0, 429);
    }
    assert_eq!(get_as(&client, &page, Some(greedy)).await.0, 429);
    let (status, _, body) = get_as(&client, &health, Some(greedy)).await;
    assert_eq!(status, 200, "/healthz is exempt: {body}");

    // Other callers behind the same proxy, and the proxy itself, are served,
    // each with a burst of their own.
    for other in ["198.51.100.9", "2001:db8:1::5", "192.0.2.200"] {
        for _ in 0..5 {
            let (status, _, body) = get_as(&client, &api, Some(other)).await;
            assert_eq!(status, 200, "{other}: {body}");
        }
    }
    assert_eq!(get_as(&client, &api, None).await.0, 200, "the proxy itself");
    // The limited caller is still limited meanwhile.
    let (status, headers, _) = get_as(&client, &api, Some(greedy)).await;
    assert_eq!(status, 429);
    let retry: u64 = headers["retry-after"].to_str().unwrap().parse().unwrap();

    // After Retry-After, the caller is served again, for one request.
    tokio::time::sleep(Duration::from_millis(retry * 1000 + 100)).await;
    let (status, _, body) = get_as(&client, &api, Some(greedy)).await;
    assert_eq!(status, 200, "served again after the wait: {body}");
    assert_eq!(get_as(&client, &api, Some(greedy)).await.0, 429);
}

/// A 429 comes in the format a 404 of the same route does (docs/API.md,
/// "Endpoints"): HTML for a browser and text for curl on the pages, JSON on
/// the API, whatever the client. `?format=` and `Accept` pick another offered
/// format; one not offered leaves the route's, and the status stays 429.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_comes_in_the_format_of_a_404_on_the_same_route() {
    let _serial = serial();
    let mut cfg = support::config();
    cfg.trusted_proxies = vec!["127.0.0.0/8".parse().unwrap()];
    cfg.rate_limit = Some(RateLimit {
        per_second: 0.001,
        burst: 1,
    });
    let server = support::start(cfg).await;
    let client = support::client();
    let chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/142.0 Safari/537.36";
    let mut callers = (1..=250u8).map(|n| format!("198.51.100.{n}"));
    let mut fetch = async |path: &str, headers: &[(&str, &str)]| {
        let caller = callers.next().expect("a fresh caller");
        let url = format!("{}{path}", server.base);
        let mut answers = Vec::new();
        // The first request takes the caller's one token, the second is refused.
        for _ in 0..2 {
            let mut req = client.get(&url).header("X-Forwarded-For", &caller);
            for (name, value) in headers {
                req = req.header(*name, *value);
            }
            let r = req.send().await.expect("answer");
            let status = r.status().as_u16();
            let media = r.headers()["content-type"].to_str().unwrap().to_owned();
            let retry = r.headers().get("retry-after").is_some();
            let media = media.split(';').next().unwrap().to_owned();
            answers.push((status, media, retry, r.text().await.unwrap()));
        }
        answers
    };
    let cases = [
        ("/8.8.8.8", "/no-such-page"),
        ("/", "/no-such-page"),
        ("/docs", "/no-such-page"),
        ("/api/v1/ip/8.8.8.8", "/api/v1/nope"),
        ("/api/v1/me", "/api/v1/nope"),
    ];
    for (path, missing) in cases {
        for ua in [chrome, "curl/8.14.1"] {
            let not_found = fetch(missing, &[("User-Agent", ua)]).await;
            assert_eq!(not_found[0].0, 404, "{missing}: {not_found:?}");
            let limited = fetch(path, &[("User-Agent", ua)]).await;
            let (status, media, retry, body) = &limited[1];
            assert_eq!((*status, *retry), (429, true), "{path} as {ua}: {body}");
            assert_eq!(media, &not_found[0].1, "{path} as {ua}: {body}");
            assert!(
                body.contains("too many requests from 198.51.100."),
                "{body}"
            );
        }
    }
    // A browser's 429 on a page is HTML, on the API JSON.
    let page = fetch("/8.8.8.8", &[("User-Agent", chrome)]).await;
    assert_eq!(page[1].1, "text/html");
    let api = fetch("/api/v1/ip/8.8.8.8", &[("User-Agent", chrome)]).await;
    let error: serde_json::Value = serde_json::from_str(&api[1].3).unwrap();
    assert_eq!(
        (api[1].0, error["error"].as_str()),
        (429, Some("rate_limited"))
    );
    // Asked for, and not offered.
    let json = fetch("/8.8.8.8?format=json", &[("User-Agent", chrome)]).await;
    assert_eq!((json[1].0, json[1].1.as_str()), (429, "application/json"));
    let md = fetch("/api/v1/me", &[("Accept", "text/markdown")]).await;
    assert_eq!((md[1].0, md[1].1.as_str()), (429, "text/markdown"));
    let png = fetch(
        "/8.8.8.8",
        &[("User-Agent", "curl/8.14.1"), ("Accept", "image/png")],
    )
    .await;
    assert_eq!((png[1].0, png[1].1.as_str()), (429, "text/plain"));
}

// ---------------------------------------------------------------------------
// (c) memory under many distinct callers
// ---------------------------------------------------------------------------

/// Sends one pipelined batch of GETs, each from its own `X-Forwarded-For`
/// caller, on a kept-alive connection, and reads the answers; counts statuses.
async fn pipelined_batch(
    s: &mut TcpStream,
    callers: impl Iterator<Item = u32>,
    buf: &mut Vec<u8>,
    counts: &mut [u64; 7],
) {
    let mut out = Vec::new();
    let mut sent = 0;
    for c in callers {
        let [a, b, x, d] = c.to_be_bytes();
        // 100.0.0.0/8 + the caller number: 200k distinct IPv4 callers.
        out.extend_from_slice(
            format!(
                "GET /api/v1/ip/ HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: {}.{b}.{x}.{d}\r\n\r\n",
                a.wrapping_add(100)
            )
            .as_bytes(),
        );
        sent += 1;
    }
    s.write_all(&out).await.unwrap();
    let mut got = 0;
    let mut pos = 0;
    buf.clear();
    let mut chunk = [0u8; 65536];
    while got < sent {
        // Parse as many complete responses as are in the buffer.
        while let Some(end) = find(&buf[pos..], "\r\n\r\n") {
            let head = std::str::from_utf8(&buf[pos..pos + end]).unwrap();
            let len: usize = head
                .lines()
                .find_map(|l| {
                    let (k, v) = l.split_once(':')?;
                    k.eq_ignore_ascii_case("content-length")
                        .then(|| v.trim().parse().unwrap())
                })
                .expect("content-length");
            if buf.len() < pos + end + 4 + len {
                break;
            }
            let status: u16 = head[9..12].parse().unwrap();
            // [_, 1xx, 2xx, 3xx, 4xx other than 429, 5xx, 429]
            counts[if status == 429 {
                6
            } else {
                (status / 100) as usize
            }] += 1;
            pos += end + 4 + len;
            got += 1;
        }
        if got == sent {
            break;
        }
        let n = tokio::time::timeout(Duration::from_secs(10), s.read(&mut chunk))
            .await
            .expect("answers within 10 s")
            .unwrap();
        assert!(n > 0, "the server closed the connection");
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// `needle` in `hay` (ASCII answers here); `str::find` runs core's optimised
/// searcher even in a debug build, which keeps this client cheap.
fn find(hay: &[u8], needle: &str) -> Option<usize> {
    let text = match std::str::from_utf8(hay) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&hay[..e.valid_up_to()]).unwrap(),
    };
    text.find(needle)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limiter_memory_stays_bounded_under_200k_distinct_callers() {
    let _serial = serial();
    const CALLERS: u32 = 200_000;
    const CONNECTIONS: u32 = 4;
    const BATCH: u32 = 200;
    let mut cfg = support::config();
    cfg.trusted_proxies = vec!["127.0.0.0/8".parse().unwrap()];
    cfg.rate_limit = Some(RateLimit {
        per_second: 0.001,
        burst: 1,
    });
    let server = support::start(cfg).await;
    let api = format!("{}/api/v1/ip/8.8.8.8", server.base);
    let client = support::client();
    // Warm up (allocator, runtime, first requests) before the baseline.
    for i in 0..200 {
        get_as(
            &client,
            &api,
            Some(&format!("10.9.{}.{}", i / 256, i % 256)),
        )
        .await;
    }
    let before = rss_kib();
    let started = Instant::now();

    // Callers 0..CALLERS, split over a few pipelined connections; the RSS is
    // sampled after each half.
    let mut rss = Vec::new();
    let mut counts = [0u64; 7];
    for half in 0..2u32 {
        let per_half = CALLERS / 2;
        let mut tasks = Vec::new();
        for c in 0..CONNECTIONS {
            let addr: SocketAddr = server.addr;
            tasks.push(tokio::spawn(async move {
                let mut s = TcpStream::connect(addr).await.unwrap();
                let mut buf = Vec::new();
                let mut counts = [0u64; 7];
                let per_conn = per_half / CONNECTIONS;
                let first = half * per_half + c * per_conn;
                let mut i = 0;
                while i < per_conn {
                    let n = BATCH.min(per_conn - i);
                    pipelined_batch(&mut s, first + i..first + i + n, &mut buf, &mut counts).await;
                    i += n;
                }
                counts
            }));
        }
        for t in tasks {
            let c = t.await.unwrap();
            for (a, b) in counts.iter_mut().zip(c) {
                *a += b;
            }
        }
        rss.push(rss_kib());
    }
    let took = started.elapsed();
    let total: u64 = counts.iter().sum();
    eprintln!(
        "{total} requests from {CALLERS} distinct callers in {took:?}: statuses \
         [_, 1xx, 2xx, 3xx, 4xx, 5xx, 429] {counts:?}; RSS before {before} KiB, after 100k {} KiB, after 200k {} KiB",
        rss[0], rss[1]
    );
    assert_eq!(total, u64::from(CALLERS));
    // Each caller asked once, within its burst: /api/v1/ip/ is a 400 (no
    // address), never a 429 or a 5xx.
    assert_eq!(counts[5], 0, "5xx answers: {counts:?}");
    assert_eq!(
        counts[6], 0,
        "429 answers to first-time callers: {counts:?}"
    );
    assert_eq!(counts[4], u64::from(CALLERS), "{counts:?}");

    // Bounded: 100,000 remembered callers take a few tens of MiB at most;
    // the second 100,000 callers add little, since the cache is full.
    let growth = rss[1].saturating_sub(before);
    let second_half = rss[1].saturating_sub(rss[0]);
    assert!(
        growth < 160 * 1024,
        "RSS grew by {growth} KiB after {CALLERS} callers"
    );
    assert!(
        second_half < 64 * 1024,
        "RSS grew by {second_half} KiB over the second 100,000 callers (cache full)"
    );

    // The server still answers, and new callers are served.
    assert_eq!(get_as(&client, &api, Some("198.18.0.77")).await.0, 200);
    let (status, _, _) = get_as(&client, &format!("{}/healthz", server.base), None).await;
    assert_eq!(status, 200);

    // And the limit still holds once the cache is full: a caller with a burst
    // of 1 and one token per 1000 s gets one answer, then 429s. Measured for
    // 200 new callers, 5 requests each, one after the other, and for the last
    // caller of the flood (one request already made, 4 more now).
    // The limiter's cache is LRU, so every new caller is remembered even while
    // the cache is full (an evicted caller, the least recent, would start with
    // a full bucket again, as the limiter documents: at most one extra answer).
    let last = format!(
        "{}.{}.{}.{}",
        100 + ((CALLERS - 1) >> 24),
        ((CALLERS - 1) >> 16) & 255,
        ((CALLERS - 1) >> 8) & 255,
        (CALLERS - 1) & 255
    );
    let mut last_ok = 1;
    for _ in 0..4 {
        if get_as(&client, &api, Some(&last)).await.0 != 429 {
            last_ok += 1;
        }
    }
    // served[n] = new callers that got n answers other than 429.
    let mut served = [0usize; 6];
    let mut over = Vec::new();
    for i in 0..200u32 {
        let caller = format!("198.51.{}.{}", 100 + i / 256, i % 256);
        let mut ok = 0;
        for _ in 0..5 {
            if get_as(&client, &api, Some(&caller)).await.0 != 429 {
                ok += 1;
            }
        }
        served[ok] += 1;
        if ok != 1 {
            over.push((caller, ok));
        }
    }
    eprintln!(
        "with the limiter's cache full (burst 1, 5 requests each): the flood's last caller \
         {last} served {last_ok} times; 200 new callers: [served 0, 1, 2, 3, 4, 5 times] = \
         {served:?}; new callers not served exactly once: {over:?}"
    );
    assert!(
        last_ok <= 2,
        "the flood's last caller {last} was served {last_ok} times out of 5 (burst 1)"
    );
    assert!(
        over.is_empty(),
        "with the limiter's cache full (100,000 callers), new callers get more than their \
         burst of 1: [served 0, 1, 2, 3, 4, 5 times out of 5] = {served:?}; {over:?}"
    );
}

// ---------------------------------------------------------------------------
// (d) bounded waiting: slow bodies, the queue timeout, probes that never wait
// ---------------------------------------------------------------------------

/// Opens a connection and sends the head of `POST /mcp` announcing a body of
/// `length` bytes, then the body one byte per second from a task of its own
/// (until the server closes the connection). Returns the read half.
async fn slow_mcp_post(addr: SocketAddr, length: usize) -> tokio::net::tcp::OwnedReadHalf {
    let stream = TcpStream::connect(addr).await.unwrap();
    let (read, mut write) = stream.into_split();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {length}\r\n\r\n"
    );
    write.write_all(head.as_bytes()).await.unwrap();
    tokio::spawn(async move {
        for _ in 0..length {
            if write.write_all(b" ").await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    });
    read
}

/// The status of the first response on `read`, and when it came (the
/// connection is read until the peer closes it or `limit` passes).
async fn first_status(
    mut read: tokio::net::tcp::OwnedReadHalf,
    limit: Duration,
) -> Option<(u16, String)> {
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    let _ = tokio::time::timeout(limit, async {
        loop {
            match read.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => raw.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text.get(9..12)?.parse().ok()?;
    Some((status, text))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_bodies_cannot_starve_probes_or_hold_slots_past_the_header_timeout() {
    let _serial = serial();
    let header_timeout = Duration::from_secs(3);
    let mut cfg = support::config();
    cfg.limits.max_in_flight = 2;
    cfg.limits.header_timeout = header_timeout;
    cfg.limits.queue_timeout = Duration::from_secs(1);
    // Longer than the test: a 408 can only come from the body deadline.
    cfg.limits.request_timeout = Duration::from_secs(60);
    let server = support::start(cfg).await;

    // The attack of issue 13: four POSTs to /mcp that send their headers,
    // then a body of 1,000 bytes at one byte per second.
    let opened = Instant::now();
    let mut posts = Vec::new();
    for _ in 0..4 {
        posts.push(slow_mcp_post(server.addr, 1000).await);
    }
    // Let the first two take both slots and the other two queue.
    tokio::time::sleep(Duration::from_millis(300)).await;

    // Probes and scrapers are answered at once, slots or no slots.
    for path in ["/healthz", "/metrics"] {
        let t = Instant::now();
        let r = support::wire::send(server.addr, "GET", path, &[], b"").await;
        let took = t.elapsed();
        eprintln!(
            "{path} with every slot held by a slow body: {} in {took:?}",
            r.status
        );
        assert_eq!(r.status, 200, "{path}: {}", r.body);
        assert!(took < Duration::from_millis(500), "{path} took {took:?}");
    }

    // A normal lookup waits the queue timeout (1 s), not the 10 s of the
    // issue, then gets 503 with Retry-After and an Error body.
    let t = Instant::now();
    let r = support::wire::send(server.addr, "GET", "/api/v1/ip/8.8.8.8", &[], b"").await;
    let took = t.elapsed();
    eprintln!(
        "lookup with every slot held: {} in {took:?}, Retry-After {:?}, body {}",
        r.status,
        r.header("retry-after"),
        r.body.trim()
    );
    assert_eq!(r.status, 503, "{}", r.body);
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_millis(2500),
        "answered after {took:?}, want about the 1 s queue timeout"
    );
    assert_eq!(r.header("retry-after"), Some("1"));
    assert_eq!(r.json()["error"], "overloaded", "{}", r.body);
    assert!(r.json()["message"].is_string(), "{}", r.body);
    assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
    // In the route's error format: text for a command-line client's page.
    let r = support::wire::send(
        server.addr,
        "GET",
        "/8.8.8.8",
        &[("User-Agent", "curl/8.14.1")],
        b"",
    )
    .await;
    assert_eq!(r.status, 503, "{}", r.body);
    assert!(
        r.must("content-type").starts_with("text/plain"),
        "{:?}",
        r.headers
    );
    assert!(r.body.contains("busy"), "{}", r.body);

    // The slow POSTs: the two that queued got 503 after the queue timeout;
    // the two that held a slot are cut with 408 at the header timeout (their
    // body never arrived), which frees the slots.
    let mut answers = Vec::new();
    for read in posts {
        let limit = (header_timeout + Duration::from_secs(3)).saturating_sub(opened.elapsed());
        let got = first_status(read, limit).await;
        answers.push((got.as_ref().map(|g| g.0), opened.elapsed()));
        if let Some((status, text)) = &got {
            if *status == 408 {
                assert!(text.contains("\"body_timeout\""), "{text}");
            }
        }
    }
    eprintln!("slow POSTs (status, closed after): {answers:?}");
    let mut statuses: Vec<_> = answers.iter().map(|a| a.0).collect();
    statuses.sort();
    assert_eq!(statuses, [Some(408), Some(408), Some(503), Some(503)]);
    let last = answers.iter().map(|a| a.1).max().unwrap();
    assert!(
        last < header_timeout + Duration::from_secs(2),
        "the slow bodies were cut only after {last:?}"
    );

    // The slots are free again.
    let t = Instant::now();
    let r = support::wire::send(server.addr, "GET", "/api/v1/ip/8.8.8.8", &[], b"").await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        t.elapsed() < Duration::from_millis(500),
        "{:?}",
        t.elapsed()
    );
}

// ---------------------------------------------------------------------------
// (e) the rate limit of a whole IPv6 /48
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rotating_slash_64s_of_one_slash_48_is_still_limited() {
    let _serial = serial();
    let mut cfg = support::config();
    cfg.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    // Burst 2 per /64, so 32 for the /48; one token per 100 s per /64 (16
    // per 100 s for the /48): the test's pace cannot refill a bucket.
    let limit = RateLimit {
        per_second: 0.01,
        burst: 2,
    };
    cfg.rate_limit = Some(limit);
    let server = support::start(cfg).await;
    let client = support::client();
    let api = format!("{}/api/v1/ip/8.8.8.8", server.base);
    let wide = limit.prefix().burst as usize;
    assert_eq!(wide, 32);

    // One request from each of 40 /64s of 2001:db8:48::/48: no /64 ever
    // reaches its own burst of 2, so every refusal is the /48's.
    let mut statuses = Vec::new();
    let mut refusal = None;
    for i in 0..40 {
        let caller = format!("2001:db8:48:{i:x}::1");
        let (status, headers, body) = get_as(&client, &api, Some(&caller)).await;
        if status == 429 && refusal.is_none() {
            refusal = Some((headers, body));
        }
        statuses.push(status);
    }
    eprintln!("40 /64s of one /48, one request each: {statuses:?}");
    assert_eq!(statuses[..wide], [200; 32], "the /48's burst is served");
    assert_eq!(statuses[wide..], [429; 8], "then the /48 is limited");
    let (headers, body) = refusal.unwrap();
    assert!(headers.contains_key("retry-after"), "{headers:?}");
    let error: serde_json::Value = serde_json::from_str(&body).expect("Error JSON");
    assert_eq!(error["error"], "rate_limited", "{body}");

    // Another /48 of the same /32 is served, with its own /64 limit.
    let other = "2001:db8:49::1";
    for _ in 0..2 {
        let (status, _, body) = get_as(&client, &api, Some(other)).await;
        assert_eq!(status, 200, "{other}: {body}");
    }
    assert_eq!(
        get_as(&client, &api, Some(other)).await.0,
        429,
        "{other}'s /64"
    );
    // IPv4 callers are not affected by the /48.
    assert_eq!(get_as(&client, &api, Some("192.0.2.48")).await.0, 200);
    // And the limited /48 still is.
    let (status, _, _) = get_as(&client, &api, Some("2001:db8:48:ffff::9")).await;
    assert_eq!(status, 429);
}

// ---------------------------------------------------------------------------
// (e) the connection layer (issue 13): HTTP/2 send deadline and stream cap,
//     idle timeout, per-address cap
// ---------------------------------------------------------------------------

/// An h2c (prior knowledge) client on a new connection, its connection
/// driven by a task; the `PingPong` handle for PINGs of our own; the task
/// ends with the connection (`Ok` after a graceful close).
async fn h2c(
    addr: SocketAddr,
    window: Option<u32>,
) -> (
    h2::client::SendRequest<axum::body::Bytes>,
    h2::PingPong,
    tokio::task::JoinHandle<Result<(), h2::Error>>,
) {
    h2c_from(TcpStream::connect(addr).await.expect("connect"), window).await
}

/// [`h2c`] on a connection already open.
async fn h2c_from(
    tcp: TcpStream,
    window: Option<u32>,
) -> (
    h2::client::SendRequest<axum::body::Bytes>,
    h2::PingPong,
    tokio::task::JoinHandle<Result<(), h2::Error>>,
) {
    let mut builder = h2::client::Builder::new();
    if let Some(w) = window {
        builder.initial_window_size(w);
    }
    let (send, mut conn) = builder.handshake(tcp).await.expect("h2 handshake");
    let ping = conn.ping_pong().expect("the PING handle");
    (send, ping, tokio::spawn(conn))
}

/// A GET request for h2 with these headers.
fn h2_get(addr: SocketAddr, path: &str, accept: &str) -> axum::http::Request<()> {
    axum::http::Request::get(format!("http://{addr}{path}"))
        .header("accept", accept)
        .body(())
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http2_responses_a_client_never_reads_are_reset_after_the_request_timeout() {
    let _serial = serial();
    let request_timeout = Duration::from_secs(2);
    let mut cfg = support::config();
    cfg.h2c = true;
    cfg.limits.request_timeout = request_timeout;
    let server = support::start(cfg).await;

    // The attack: connections announcing a zero flow-control window, each
    // with as many streams as the server allows, asking for the HTML page.
    let mut held = Vec::new();
    let mut bodies = Vec::new();
    let opened = Instant::now();
    for _ in 0..4 {
        let (mut send, _ping, conn) = h2c(server.addr, Some(0)).await;
        // A first exchange: the server's SETTINGS have arrived after it.
        send = send.ready().await.expect("ready");
        let (response, _) = send
            .send_request(h2_get(server.addr, "/healthz", "*/*"), true)
            .unwrap();
        assert_eq!(response.await.expect("answered").status(), 200);
        assert_eq!(
            send.current_max_send_streams(),
            100,
            "SETTINGS_MAX_CONCURRENT_STREAMS"
        );
        let mut pending = Vec::new();
        for _ in 0..100 {
            send = send.ready().await.expect("a stream slot");
            let (response, _) = send
                .send_request(h2_get(server.addr, "/8.8.8.8", "text/html"), true)
                .expect("request sent");
            pending.push(response);
        }
        for response in pending {
            let response = response.await.expect("response headers");
            assert_eq!(response.status(), 200);
            bodies.push(response.into_body());
        }
        held.push((send, conn));
    }
    eprintln!(
        "{} HTML responses stalled by a zero window, after {:?}",
        bodies.len(),
        opened.elapsed()
    );

    // A 101st stream on one of them waits for a slot: the cap holds.
    let (send, _) = held.pop().unwrap();
    let extra = tokio::time::timeout(Duration::from_millis(300), async move {
        let mut send = send.ready().await?;
        let (response, _) = send.send_request(h2_get(server.addr, "/healthz", "*/*"), true)?;
        response.await
    })
    .await;
    assert!(
        extra.is_err(),
        "a 101st concurrent stream was answered: {extra:?}"
    );

    // Meanwhile other clients are answered at once.
    for path in ["/api/v1/ip/8.8.8.8", "/8.8.8.8"] {
        let (status, took) = timed_get(&format!("{}{path}", server.base))
            .await
            .expect("another client is served");
        assert_eq!(status, 200);
        assert!(took < Duration::from_millis(500), "{path}: {took:?}");
    }

    // No body arrives (the window is zero) until each stream is reset,
    // within the request timeout after its response was ready.
    let stalled = bodies.len();
    let mut reasons = std::collections::BTreeMap::new();
    for mut body in bodies {
        let left = (request_timeout + Duration::from_secs(3)).saturating_sub(opened.elapsed());
        let end = tokio::time::timeout(left, body.data())
            .await
            .expect("the stalled stream was reset within the request timeout");
        let reason = match end {
            Some(Err(e)) => format!("{:?}", e.reason()),
            other => format!("not a reset: {other:?}"),
        };
        *reasons.entry(reason).or_insert(0) += 1;
    }
    let took = opened.elapsed();
    eprintln!("after {took:?}: stream ends {reasons:?}");
    assert_eq!(
        reasons.get("Some(CANCEL)"),
        Some(&stalled),
        "every stalled stream is reset with CANCEL: {reasons:?}"
    );
    assert!(
        took >= request_timeout,
        "reset before the deadline: {took:?}"
    );
    // And the server is as good as new.
    let (status, _) = timed_get(&format!("{}/8.8.8.8", server.base))
        .await
        .expect("served");
    assert_eq!(status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_http2_connection_is_closed_even_while_it_answers_pings() {
    let _serial = serial();
    let idle = Duration::from_secs(2);
    let mut cfg = support::config();
    cfg.h2c = true;
    cfg.limits.idle_timeout = idle;
    cfg.limits.header_timeout = Duration::from_secs(30);
    let server = support::start(cfg).await;

    let (send, mut ping, conn) = h2c(server.addr, None).await;
    let mut send = send.ready().await.unwrap();
    let (response, _) = send
        .send_request(
            h2_get(server.addr, "/api/v1/ip/8.8.8.8", "application/json"),
            true,
        )
        .unwrap();
    let response = response.await.expect("answered");
    assert_eq!(response.status(), 200);
    let mut body = response.into_body();
    while let Some(chunk) = body.data().await {
        let chunk = chunk.unwrap();
        let _ = body.flow_control().release_capacity(chunk.len());
    }
    let answered = Instant::now();

    // PING the server every 200 ms (it answers each) until the connection ends.
    let mut pongs = 0;
    while !conn.is_finished() && answered.elapsed() < idle * 3 {
        let pong =
            tokio::time::timeout(Duration::from_secs(1), ping.ping(h2::Ping::opaque())).await;
        if let Ok(Ok(_)) = pong {
            pongs += 1;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let ended = tokio::time::timeout(Duration::from_secs(1), conn)
        .await
        .expect("the connection was closed")
        .unwrap();
    let took = answered.elapsed();
    eprintln!("idle timeout {idle:?}: {pongs} PINGs answered, closed after {took:?}: {ended:?}");
    assert!(pongs >= 5, "the server answered {pongs} PINGs");
    assert!(
        ended.is_ok(),
        "closed gracefully (GOAWAY), not cut: {ended:?}"
    );
    assert!(
        took >= idle && took < idle + Duration::from_millis(1500),
        "{took:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_http1_keep_alive_connection_is_closed() {
    let _serial = serial();
    let idle = Duration::from_secs(2);
    let mut cfg = support::config();
    cfg.limits.idle_timeout = idle;
    cfg.limits.header_timeout = Duration::from_secs(30);
    let server = support::start(cfg).await;

    let mut s = TcpStream::connect(server.addr).await.unwrap();
    // Two requests on the connection, the second one second later: the idle
    // time counts from the last request.
    for _ in 0..2 {
        get_ok(&mut s, "/api/v1/ip/8.8.8.8").await;
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    let answered = Instant::now() - Duration::from_secs(1);
    let closed = closed_within(&mut s, idle * 2).await;
    let took = answered.elapsed();
    eprintln!("idle timeout {idle:?}: keep-alive connection closed after {took:?}");
    assert_eq!(closed, Some(0), "closed without sending anything");
    assert!(
        took >= idle - Duration::from_millis(100) && took < idle + Duration::from_millis(1500),
        "{took:?}"
    );
}

/// Sends `GET path` on `s` and reads one response, which must be a 200.
async fn get_ok(s: &mut TcpStream, path: &str) {
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let mut buf = Vec::new();
    read_one_response(s, &mut buf).await;
    assert!(
        buf.starts_with(b"HTTP/1.1 200"),
        "{:?}",
        String::from_utf8_lossy(&buf)
    );
}

/// Reads one response with a Content-Length body into `buf`.
async fn read_one_response(s: &mut TcpStream, buf: &mut Vec<u8>) {
    let mut chunk = [0u8; 8192];
    loop {
        if let Some(end) = find(buf, "\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map_or(0, |v| v.trim().parse().unwrap());
            if buf.len() >= end + 4 + len {
                return;
            }
        }
        let n = tokio::time::timeout(Duration::from_secs(5), s.read(&mut chunk))
            .await
            .expect("answer within 5 s")
            .unwrap();
        assert!(n > 0, "closed before the answer was complete");
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// A connection to `server` from the local address `from` (port chosen by the system).
async fn connect_from(from: &str, server: SocketAddr) -> std::io::Result<TcpStream> {
    let socket = tokio::net::TcpSocket::new_v4()?;
    socket.bind(SocketAddr::new(from.parse().unwrap(), 0))?;
    socket.connect(server).await
}

/// `iplookup_connections_refused_total{reason}` from /metrics, asked from
/// 127.0.0.3 on a connection closed after the answer (so that it never
/// counts against the cap of another address).
async fn refused(server: SocketAddr, reason: &str) -> f64 {
    let mut s = connect_from("127.0.0.3", server).await.unwrap();
    s.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut answer))
        .await
        .expect("/metrics within 5 s")
        .unwrap();
    let text = String::from_utf8_lossy(&answer);
    let key = format!("iplookup_connections_refused_total{{reason=\"{reason}\"}}");
    text.lines()
        .find_map(|l| l.strip_prefix(&key))
        .map_or(0.0, |v| v.trim().parse().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_at_its_connection_cap_does_not_keep_another_out() {
    let _serial = serial();
    let cap = 5;
    let mut cfg = support::config();
    cfg.limits.max_connections_per_ip = cap;
    cfg.limits.header_timeout = Duration::from_secs(30);
    let server = support::start(cfg).await;
    let before = refused(server.addr, "max_connections_per_ip").await;

    // The cap's worth of connections from 127.0.0.1, each answered once (so
    // each is surely admitted) and kept alive.
    let mut held = Vec::new();
    for _ in 0..cap {
        let mut s = connect_from("127.0.0.1", server.addr).await.unwrap();
        get_ok(&mut s, "/healthz").await;
        held.push(s);
    }

    // The same address again: closed on arrival, no answer.
    for _ in 0..3 {
        let mut s = connect_from("127.0.0.1", server.addr).await.unwrap();
        let _ = s
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            .await;
        assert_eq!(
            closed_within(&mut s, Duration::from_secs(2)).await,
            Some(0),
            "a connection over the per-address cap was not closed at once"
        );
    }

    // Another address is served meanwhile.
    let mut other = connect_from("127.0.0.2", server.addr).await.unwrap();
    get_ok(&mut other, "/api/v1/ip/8.8.8.8").await;

    // One of the held connections closes: the first address gets a place again.
    drop(held.pop());
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut again = connect_from("127.0.0.1", server.addr).await.unwrap();
    get_ok(&mut again, "/healthz").await;

    drop(again);
    drop(other);
    drop(held);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let after = refused(server.addr, "max_connections_per_ip").await;
    eprintln!("refused for max_connections_per_ip: {before} -> {after}");
    assert_eq!(after - before, 3.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_stops_accepting_and_lets_a_keep_alive_connection_go() {
    let _serial = serial();
    let mut cfg = support::config();
    cfg.drain = Duration::from_secs(5);
    let stoppable = support::start_stoppable(cfg).await;
    let addr = stoppable.server.addr;
    let mut kept = TcpStream::connect(addr).await.unwrap();
    kept.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut buf = Vec::new();
    read_one_response(&mut kept, &mut buf).await;

    let t = Instant::now();
    stoppable.stop().await;
    let took = t.elapsed();
    // The idle keep-alive connection was closed at once, not waited for.
    assert!(took < Duration::from_secs(1), "run returned after {took:?}");
    assert_eq!(
        closed_within(&mut kept, Duration::from_secs(1)).await,
        Some(0)
    );
    assert!(
        TcpStream::connect(addr).await.is_err(),
        "a connection was accepted after the shutdown"
    );
}

/// Resident memory of process `pid`, in KiB.
fn rss_of(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_frees_what_zero_window_http2_clients_pin() {
    let _serial = serial();
    let bin = support::proc::serve(&["--no-reverse-dns", "--h2c", "--request-timeout", "3"]);
    let pid = bin.pid();
    // Warm up: the page once, so its first allocations are in the baseline.
    let (status, _) = timed_get(&format!("{}/8.8.8.8", bin.base)).await.unwrap();
    assert_eq!(status, 200);
    let before = rss_of(pid);

    let opened = Instant::now();
    let mut bodies = Vec::new();
    let mut conns = Vec::new();
    for _ in 0..4 {
        let (mut send, _ping, conn) = h2c(bin.addr, Some(0)).await;
        let mut pending = Vec::new();
        for _ in 0..100 {
            send = send.ready().await.expect("a stream slot");
            let (response, _) = send
                .send_request(h2_get(bin.addr, "/8.8.8.8", "text/html"), true)
                .expect("request sent");
            pending.push(response);
        }
        for response in pending {
            bodies.push(response.await.expect("response headers").into_body());
        }
        conns.push((send, conn));
    }
    let stalled = rss_of(pid);
    // After the deadline every stream is reset (the bodies end in an error).
    for mut body in bodies {
        let left = Duration::from_secs(8).saturating_sub(opened.elapsed());
        let end = tokio::time::timeout(left, body.data())
            .await
            .expect("reset within the request timeout");
        assert!(matches!(end, Some(Err(_))), "{end:?}");
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = rss_of(pid);
    eprintln!(
        "server RSS: before {before} KiB, 400 stalled HTML streams {stalled} KiB \
         (+{} KiB), after the deadline {after} KiB (+{} KiB)",
        stalled.saturating_sub(before),
        after.saturating_sub(before)
    );
    assert!(
        after < before + 16 * 1024,
        "the server kept {} KiB after the streams were reset",
        after.saturating_sub(before)
    );
    drop(conns);
}

// ---------------------------------------------------------------------------
// (f) batches: what answers a client never reads may hold
// ---------------------------------------------------------------------------

/// A batch body of 1,000 distinct public addresses (`text/plain`), the
/// `n`-th of a series (no two bodies share an address).
fn batch_body(n: u32) -> axum::body::Bytes {
    let mut body = String::with_capacity(16 * 1000);
    for i in 0..1000u32 {
        let k = n * 1000 + i;
        // 11.0.0.0/8 onwards: public, in the data, away from special blocks.
        body.push_str(&format!(
            "{}.{}.{}.{}\n",
            11 + k / 65536 % 100,
            k / 256 % 256,
            k % 256,
            1 + n % 250
        ));
    }
    body.into()
}

/// A batch POST for h2.
fn h2_batch(addr: SocketAddr) -> axum::http::Request<()> {
    axum::http::Request::post(format!("http://{addr}/api/v1/ip"))
        .header("content-type", "text/plain")
        .body(())
        .unwrap()
}

/// Sends `streams` batches on a new zero-window h2c connection from
/// `from`; the status of each answer's head, and the connection (kept open
/// by the caller).
async fn stalled_batches(
    addr: SocketAddr,
    from: &str,
    first: u32,
    streams: u32,
) -> (
    Vec<u16>,
    Vec<h2::RecvStream>,
    (
        h2::client::SendRequest<axum::body::Bytes>,
        tokio::task::JoinHandle<Result<(), h2::Error>>,
    ),
) {
    let tcp = connect_from(from, addr).await.expect("connect");
    let (mut send, _ping, conn) = h2c_from(tcp, Some(0)).await;
    let mut pending = Vec::new();
    for n in first..first + streams {
        send = send.ready().await.expect("a stream slot");
        let (response, mut body) = send
            .send_request(h2_batch(addr), false)
            .expect("request sent");
        body.send_data(batch_body(n), true).expect("body sent");
        pending.push(response);
    }
    let mut statuses = Vec::new();
    let mut bodies = Vec::new();
    for response in pending {
        let response = response.await.expect("response head");
        statuses.push(response.status().as_u16());
        bodies.push(response.into_body());
    }
    (statuses, bodies, (send, conn))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_answers_nobody_reads_hold_at_most_the_batch_slots() {
    let _serial = serial();
    let bin = support::proc::serve(&[
        "--no-reverse-dns",
        "--h2c",
        "--request-timeout",
        "4",
        "--batch-max-in-flight",
        "4",
    ]);
    let pid = bin.pid();
    // Warm up: one batch read whole, so its allocations are in the baseline.
    let client = support::client();
    let warm = client
        .post(format!("{}/api/v1/ip", bin.base))
        .header("content-type", "text/plain")
        .body(batch_body(999).to_vec())
        .send()
        .await
        .unwrap();
    assert_eq!(warm.status(), 200);
    warm.bytes().await.unwrap();
    let before = rss_of(pid);

    // The attack: zero-window connections from four addresses (one address
    // holds at most a quarter of the slots), 50 batches each.
    let opened = Instant::now();
    let mut statuses = Vec::new();
    let mut held = Vec::new();
    for (i, from) in ["127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4"]
        .iter()
        .enumerate()
    {
        let (s, bodies, conn) = stalled_batches(bin.addr, from, 50 * i as u32, 50).await;
        statuses.extend(s);
        held.push((bodies, conn));
    }
    let stalled = rss_of(pid);
    let ok = statuses.iter().filter(|s| **s == 200).count();
    let busy = statuses.iter().filter(|s| **s == 503).count();
    eprintln!(
        "server RSS: before {before} KiB, 200 stalled batches {stalled} KiB (+{} KiB); \
         {ok} answered, {busy} refused with 503, in {:?}",
        stalled.saturating_sub(before),
        opened.elapsed()
    );
    assert_eq!(ok, 4, "as many answers as batch slots: {statuses:?}");
    assert_eq!(busy, 196, "the others refused: {statuses:?}");
    // Four answers of ~0.5 MB, the bodies read and the streams' buffers.
    assert!(
        stalled < before + 24 * 1024,
        "200 stalled batches took {} KiB",
        stalled.saturating_sub(before)
    );
    // Single lookups are served meanwhile.
    let (status, _) = timed_get(&format!("{}/api/v1/ip/8.8.8.8", bin.base))
        .await
        .unwrap();
    assert_eq!(status, 200);

    // Once the stalled answers are reset (the send deadline), the slots are free.
    tokio::time::sleep(Duration::from_secs(5).saturating_sub(opened.elapsed())).await;
    let again = client
        .post(format!("{}/api/v1/ip", bin.base))
        .header("content-type", "text/plain")
        .body(batch_body(998).to_vec())
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 200);
    drop(held);
}

/// One address holds at most a quarter of the batch slots: 16 tiny batches
/// on HTTP/2 streams it never reads (within any rate limit) no longer keep
/// the batch route from everyone until the send deadline.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_holds_at_most_a_quarter_of_the_batch_slots() {
    let _serial = serial();
    let mut cfg = support::config();
    cfg.h2c = true;
    cfg.limits.request_timeout = Duration::from_secs(10);
    let server = support::start(cfg).await;
    let (statuses, _bodies, _conn) = stalled_batches(server.addr, "127.0.0.1", 0, 16).await;
    let ok = statuses.iter().filter(|s| **s == 200).count();
    assert_eq!(ok, 4, "a quarter of the 16 slots: {statuses:?}");
    assert_eq!(
        statuses.iter().filter(|s| **s == 503).count(),
        12,
        "{statuses:?}"
    );
    // The refusal says why.
    let tcp = connect_from("127.0.0.1", server.addr)
        .await
        .expect("connect");
    let (mut send, _ping, _conn) = h2c_from(tcp, None).await;
    let refused = batch_on(&mut send, server.addr).await;
    assert_eq!(refused.0, 503);
    assert!(
        refused.1.contains("4 batches in flight already"),
        "{}",
        refused.1
    );
    // Another address gets its batch at once.
    let tcp = connect_from("127.0.0.2", server.addr)
        .await
        .expect("connect");
    let (mut send, _ping, _conn) = h2c_from(tcp, None).await;
    let started = Instant::now();
    let (status, body) = batch_on(&mut send, server.addr).await;
    assert_eq!(status, 200, "{body}");
    assert!(
        started.elapsed() < Duration::from_millis(900),
        "{:?}",
        started.elapsed()
    );
}

/// One batch of 1,000 addresses on an HTTP/2 connection: status and body.
async fn batch_on(
    send: &mut h2::client::SendRequest<axum::body::Bytes>,
    addr: SocketAddr,
) -> (u16, String) {
    let ready = send.clone().ready().await.expect("a stream slot");
    *send = ready;
    let (response, mut body) = send
        .send_request(h2_batch(addr), false)
        .expect("request sent");
    body.send_data(batch_body(7), true).expect("body sent");
    let response = response.await.expect("response head");
    let status = response.status().as_u16();
    let mut stream = response.into_body();
    let mut text = Vec::new();
    while let Some(chunk) = stream.data().await {
        let chunk = chunk.expect("body");
        let _ = stream.flow_control().release_capacity(chunk.len());
        text.extend_from_slice(&chunk);
    }
    (status, String::from_utf8_lossy(&text).into_owned())
}

// ---------------------------------------------------------------------------
// (g) answers one address does not read: its share of unsent bytes
// ---------------------------------------------------------------------------

/// Opens `streams` zero-window HTTP/2 streams for `path` as HTML on a new
/// connection from `from`; the status of each answer's head (0 for a stream
/// the server reset), the bodies and the connection (kept open by the caller).
async fn stalled_pages(
    server: SocketAddr,
    from: &str,
    path: &str,
    streams: usize,
) -> (
    Vec<u16>,
    Vec<h2::RecvStream>,
    (
        h2::client::SendRequest<axum::body::Bytes>,
        tokio::task::JoinHandle<Result<(), h2::Error>>,
    ),
) {
    let tcp = connect_from(from, server).await.expect("connect");
    let (mut send, _ping, conn) = h2c_from(tcp, Some(0)).await;
    let mut pending = Vec::new();
    for _ in 0..streams {
        send = send.ready().await.expect("a stream slot");
        let (response, _) = send
            .send_request(h2_get(server, path, "text/html"), true)
            .expect("request sent");
        pending.push(response);
    }
    let mut statuses = Vec::new();
    let mut bodies = Vec::new();
    for response in pending {
        match response.await {
            Ok(response) => {
                statuses.push(response.status().as_u16());
                bodies.push(response.into_body());
            }
            Err(e) => {
                assert!(e.is_reset(), "{e:?}");
                statuses.push(0);
            }
        }
    }
    (statuses, bodies, (send, conn))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_holds_at_most_its_share_of_unsent_answers() {
    let _serial = serial();
    let bin = support::proc::serve(&["--no-reverse-dns", "--h2c", "--request-timeout", "4"]);
    let pid = bin.pid();
    let (status, _) = timed_get(&format!("{}/8.8.8.8", bin.base)).await.unwrap();
    assert_eq!(status, 200);
    let before = rss_of(pid);

    // The attack: 40 zero-window connections from one address, 100 HTML
    // pages (about 12 KB each) on each.
    let opened = Instant::now();
    let mut statuses = Vec::new();
    let mut held = Vec::new();
    for _ in 0..40 {
        let (s, bodies, conn) = stalled_pages(bin.addr, "127.0.0.1", "/8.8.8.8", 100).await;
        statuses.extend(s);
        held.push((bodies, conn));
    }
    let stalled = rss_of(pid);
    let ok = statuses.iter().filter(|s| **s == 200).count();
    let busy = statuses.iter().filter(|s| **s == 0).count();
    eprintln!(
        "server RSS: before {before} KiB, 4,000 stalled pages from one address {stalled} KiB \
         (+{} KiB); {ok} answered, {busy} reset, in {:?}",
        stalled.saturating_sub(before),
        opened.elapsed()
    );
    assert_eq!(ok + busy, 4000, "only answers and resets: {statuses:?}");
    assert!(busy > 0, "the address's share was never reached");
    assert!(
        stalled < before + 24 * 1024,
        "4,000 stalled pages took {} KiB",
        stalled.saturating_sub(before)
    );

    // Another address gets its pages meanwhile, on HTTP/2 too.
    let (other, _bodies, _conn) = stalled_pages(bin.addr, "127.0.0.2", "/8.8.8.8", 10).await;
    assert_eq!(other, vec![200; 10]);

    // Once the stalled answers are reset (the send deadline), the share is back.
    tokio::time::sleep(Duration::from_secs(5).saturating_sub(opened.elapsed())).await;
    let (again, _bodies, _conn) = stalled_pages(bin.addr, "127.0.0.1", "/8.8.8.8", 10).await;
    assert_eq!(again, vec![200; 10]);
    drop(held);
}

/// How a trickled stream ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trickled {
    /// The server reset it, before its head or during its body.
    Reset,
    /// Its body came whole.
    Whole,
    /// Still open when the reader stopped.
    Open,
    /// Answered with another status than 200 (503: the address's cap of
    /// requests in flight).
    Refused,
}

/// A reader that takes `path` on `streams` HTTP/2 streams of a new
/// connection from `from`, with a window of 100 bytes per stream that it
/// opens by 100 more every 200 ms (500 bytes a second: never a zero
/// window) until `until`; how each stream ended.
async fn trickled(
    server: SocketAddr,
    from: &str,
    path: &str,
    streams: usize,
    until: Instant,
) -> Vec<tokio::task::JoinHandle<Trickled>> {
    let tcp = connect_from(from, server).await.expect("connect");
    let (mut send, _ping, conn) = h2c_from(tcp, Some(100)).await;
    let conn = std::sync::Arc::new(conn);
    let mut readers = Vec::new();
    for _ in 0..streams {
        send = send.ready().await.expect("a stream slot");
        let (response, _) = send
            .send_request(h2_get(server, path, "application/json"), true)
            .expect("request sent");
        let (keep, _keep_send) = (conn.clone(), send.clone());
        readers.push(tokio::spawn(async move {
            let _held = (keep, _keep_send);
            let Ok(response) = response.await else {
                return Trickled::Reset;
            };
            if response.status() != 200 {
                return Trickled::Refused;
            }
            let mut body = response.into_body();
            loop {
                let next = tokio::time::timeout_at(until.into(), body.data()).await;
                match next {
                    Err(_) => return Trickled::Open,
                    Ok(None) => return Trickled::Whole,
                    Ok(Some(Err(_))) => return Trickled::Reset,
                    Ok(Some(Ok(data))) => {
                        tokio::time::sleep(Duration::from_millis(200)).await;
                        let _ = body.flow_control().release_capacity(data.len());
                    }
                }
            }
        }));
    }
    readers
}

/// A client that reads a few hundred bytes a second (never a zero window)
/// gets no more than its address's share of unsent answers, and each of
/// them is reset at the send deadline: an answer is handed to h2 in
/// pieces, never whole (whole, it waited in h2's buffers, uncharged and
/// out of the deadline's reach, for as long as the trickle went on).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_read_a_trickle_at_a_time_are_charged_and_reset_at_the_deadline() {
    let _serial = serial();
    let bin = support::proc::serve(&["--no-reverse-dns", "--h2c", "--request-timeout", "3"]);
    let pid = bin.pid();
    let (status, _) = timed_get(&format!("{}/api/v1/asn/174/prefixes.csv", bin.base))
        .await
        .unwrap();
    assert_eq!(status, 200);
    let before = rss_of(pid);

    // One address, 8 connections of 25 streams: 200 answers of about
    // 170 KB (every prefix of AS174 as CSV) (35 MB if all were kept), read at 500 bytes a second each.
    let started = Instant::now();
    // (A cap only: every stream should be reset about 3 s after its answer.)
    let until = started + Duration::from_secs(15);
    let mut readers = Vec::new();
    for _ in 0..8 {
        readers.extend(
            trickled(
                bin.addr,
                "127.0.0.1",
                "/api/v1/asn/174/prefixes.csv",
                25,
                until,
            )
            .await,
        );
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let held = rss_of(pid);
    // Another address is served meanwhile.
    let (other, _bodies, _conn) = stalled_pages(bin.addr, "127.0.0.2", "/8.8.8.8", 5).await;
    assert_eq!(other, vec![200; 5]);
    let mut ended = Vec::new();
    for reader in readers {
        ended.push(reader.await.expect("reader"));
    }
    let count = |t: Trickled| ended.iter().filter(|e| **e == t).count();
    eprintln!(
        "server RSS: before {before} KiB, 200 trickled answers {held} KiB (+{} KiB); \
         reset {}, whole {}, open {}, refused {} after {:?}",
        held.saturating_sub(before),
        count(Trickled::Reset),
        count(Trickled::Whole),
        count(Trickled::Open),
        count(Trickled::Refused),
        started.elapsed()
    );
    // Every answer begun is reset (by the share at once, or at the
    // deadline), none is taken whole or left open.
    assert_eq!(
        count(Trickled::Reset) + count(Trickled::Refused),
        200,
        "{ended:?}"
    );
    // Some answers began and met the deadline. Since the network view
    // (issue 30) a CSV is charged to the address's answer budget whole as
    // it begins (tests/limits/csv.rs), so only the share's worth of these
    // 170 KB answers begins at all: 4 of 200 on this machine, the rest
    // refused at once (before, the in-flight cap and the load decided it).
    assert!(count(Trickled::Reset) >= 1, "{ended:?}");
    assert!(
        held < before + 16 * 1024,
        "200 trickled answers took {} KiB",
        held.saturating_sub(before)
    );
}

/// The process's peak resident memory (KiB).
fn peak_of(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM")
}

/// MCP `tools/call lookup_ips` of 1,000 addresses (about 1 MB of answer,
/// several MB while the MCP library builds and serialises it).
fn mcp_lookup_ips(addr: SocketAddr, n: u32) -> (axum::http::Request<()>, axum::body::Bytes) {
    let ips: Vec<String> = (0..1000u32)
        .map(|k| {
            format!(
                "{}.{}.{}.{}",
                11 + n % 100,
                k / 250,
                k % 250 + 1,
                1 + n % 250
            )
        })
        .collect();
    let body = serde_json::json!({"jsonrpc": "2.0", "id": n, "method": "tools/call",
        "params": {"name": "lookup_ips", "arguments": {"ips": ips}}});
    let request = axum::http::Request::post(format!("http://{addr}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(())
        .unwrap();
    (request, body.to_string().into())
}

/// MCP answers of many addresses hold a batch slot from before they are
/// built until their body is dropped: 200 `lookup_ips` calls from one
/// address on HTTP/2 streams it reads 100 bytes of build at most four
/// answers at a time (its share of the slots); the rest are refused at
/// once. Before, every call was built (about 130 at once) and the peak
/// memory went past 390 MB.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_answers_of_many_addresses_are_built_a_few_at_a_time() {
    let _serial = serial();
    let bin = support::proc::serve(&["--no-reverse-dns", "--h2c", "--request-timeout", "3"]);
    let pid = bin.pid();
    let tcp = connect_from("127.0.0.2", bin.addr).await.expect("connect");
    let (mut send, _ping, _conn) = h2c_from(tcp, None).await;
    let (warm, body) = mcp_lookup_ips(bin.addr, 999);
    send = send.ready().await.expect("a stream slot");
    let (response, mut stream) = send.send_request(warm, false).expect("sent");
    stream.send_data(body, true).expect("body");
    let mut answer = response.await.expect("head").into_body();
    while let Some(chunk) = answer.data().await {
        let _ = answer
            .flow_control()
            .release_capacity(chunk.expect("body").len());
    }
    let before = peak_of(pid);

    let mut statuses = Vec::new();
    let (mut held, mut conns) = (Vec::new(), Vec::new());
    for c in 0..8u32 {
        let tcp = connect_from("127.0.0.1", bin.addr).await.expect("connect");
        let (mut send, _ping, conn) = h2c_from(tcp, Some(100)).await;
        let mut pending = Vec::new();
        for i in 0..25 {
            send = send.ready().await.expect("a stream slot");
            let (request, body) = mcp_lookup_ips(bin.addr, c * 25 + i);
            let (response, mut stream) = send.send_request(request, false).expect("sent");
            stream.send_data(body, true).expect("body");
            pending.push(response);
        }
        for response in pending {
            match response.await {
                Ok(r) => {
                    statuses.push(r.status().as_u16());
                    held.push(r.into_body());
                }
                Err(_) => statuses.push(0),
            }
        }
        conns.push((send, conn));
    }
    let peak = peak_of(pid);
    let ok = statuses.iter().filter(|s| **s == 200).count();
    eprintln!(
        "server peak RSS: before {before} KiB, 200 MCP lookup_ips calls {peak} KiB (+{} KiB); {ok} answered",
        peak.saturating_sub(before)
    );
    assert!(
        ok <= 4,
        "at most the address's share of slots: {statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 503).count() + ok,
        200,
        "{statuses:?}"
    );
    assert!(
        peak < before + 48 * 1024,
        "200 calls took a peak of +{} KiB",
        peak.saturating_sub(before)
    );
    drop((held, conns));
}

// ---------------------------------------------------------------------------
// (h) requests in flight from one address
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bodies_that_never_come_hold_at_most_their_address_share_of_slots() {
    let _serial = serial();
    let mut cfg = support::config();
    cfg.h2c = true;
    cfg.limits.max_in_flight = 64;
    cfg.limits.max_in_flight_per_ip = 16;
    cfg.limits.header_timeout = Duration::from_secs(8);
    let server = support::start(cfg).await;

    // The attack: 4 connections from 127.0.0.1, 25 streams each announcing a
    // body (`content-length: 100`) that never comes; each would hold one of
    // the 64 request slots until the body deadline.
    let mut held = Vec::new();
    let mut conns = Vec::new();
    let mut answered = Vec::new();
    for _ in 0..4 {
        let tcp = connect_from("127.0.0.1", server.addr)
            .await
            .expect("connect");
        let (mut send, _ping, conn) = h2c_from(tcp, None).await;
        for _ in 0..25 {
            send = send.ready().await.expect("a stream slot");
            let request = axum::http::Request::post(format!("http://{}/mcp", server.addr))
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("content-length", "100")
                .body(())
                .unwrap();
            let (response, body) = send.send_request(request, false).expect("request sent");
            answered.push(response);
            held.push(body);
        }
        conns.push((send, conn));
    }
    // The streams over the address's share are refused at once (which
    // connection's streams the server counts first is a race); the others
    // wait for their bodies.
    let mut refused = 0;
    let mut waiting = 0;
    let deadline = Instant::now() + Duration::from_secs(2);
    for response in answered.iter_mut() {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, response).await {
            Ok(Ok(r)) => {
                assert_eq!(r.status(), 503);
                assert_eq!(r.headers()["retry-after"], "1");
                refused += 1;
            }
            Ok(Err(e)) => panic!("{e:?}"),
            Err(_) => waiting += 1,
        }
    }
    assert_eq!((waiting, refused), (16, 84));

    // Another address is answered at once, on HTTP/1.1 and HTTP/2.
    let mut other = connect_from("127.0.0.2", server.addr).await.unwrap();
    let t = Instant::now();
    get_ok(&mut other, "/api/v1/ip/8.8.8.8").await;
    assert!(
        t.elapsed() < Duration::from_millis(900),
        "{:?}",
        t.elapsed()
    );
    let (statuses, _bodies, _conn) = stalled_pages(server.addr, "127.0.0.2", "/8.8.8.8", 5).await;
    assert_eq!(statuses, vec![200; 5]);

    // The same address still gets its probes, and nothing else.
    let mut probe = connect_from("127.0.0.1", server.addr).await.unwrap();
    get_ok(&mut probe, "/healthz").await;
    probe
        .write_all(b"GET /api/v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut head = [0u8; 12];
    tokio::time::timeout(Duration::from_secs(2), probe.read_exact(&mut head))
        .await
        .expect("answered at once")
        .unwrap();
    assert_eq!(&head, b"HTTP/1.1 503");
    drop((answered, held, conns));
}

/// The 503 of a client at its cap of requests in flight is in the error
/// format of the route it asked for (issue 21): a browser gets an HTML
/// page on a page route and JSON on the API, a command-line client plain
/// text on a page route; each with `Retry-After: 1` and no caching. The
/// probes the table spares are still answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_503_of_a_client_at_its_in_flight_cap_is_in_its_route_error_format() {
    let _serial = serial();
    let mut cfg = support::config();
    cfg.limits.max_in_flight_per_ip = 1;
    cfg.limits.header_timeout = Duration::from_secs(8);
    let server = support::start(cfg).await;

    // The client's one request in flight: a batch whose body never comes.
    let mut holder = connect_from("127.0.0.1", server.addr).await.unwrap();
    holder
        .write_all(
            b"POST /api/v1/ip HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n\
              Content-Length: 100\r\n\r\n",
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;

    const CHROME: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36";
    const HTML_ACCEPT: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    let cases = [
        ("/8.8.8.8", CHROME, HTML_ACCEPT, "text/html"),
        ("/", CHROME, HTML_ACCEPT, "text/html"),
        (
            "/api/v1/ip/8.8.8.8",
            CHROME,
            HTML_ACCEPT,
            "application/json",
        ),
        ("/api/v1/me", "curl/8.5.0", "*/*", "application/json"),
        ("/8.8.8.8", "curl/8.5.0", "*/*", "text/plain"),
        (
            "/8.8.8.8?format=json",
            CHROME,
            HTML_ACCEPT,
            "application/json",
        ),
    ];
    for (path, agent, accept, want) in cases {
        let mut s = connect_from("127.0.0.1", server.addr).await.unwrap();
        let request = format!(
            "GET {path} HTTP/1.1\r\nHost: x\r\nUser-Agent: {agent}\r\nAccept: {accept}\r\n\r\n"
        );
        s.write_all(request.as_bytes()).await.unwrap();
        let mut buf = Vec::new();
        read_one_response(&mut s, &mut buf).await;
        let text = String::from_utf8_lossy(&buf).into_owned();
        let end = text.find("\r\n\r\n").unwrap();
        let (head, body) = (text[..end].to_ascii_lowercase(), &text[end + 4..]);
        let case = format!("{path} as {agent}: {head}");
        assert!(head.starts_with("http/1.1 503"), "{case}");
        let content_type = head
            .lines()
            .find_map(|l| l.strip_prefix("content-type: "))
            .unwrap_or_default();
        assert!(content_type.starts_with(want), "{case}");
        assert!(head.contains("\r\nretry-after: 1"), "{case}");
        assert!(head.contains("\r\ncache-control: no-store"), "{case}");
        assert!(
            head.contains("\r\nx-content-type-options: nosniff"),
            "{case}"
        );
        match want {
            "application/json" => {
                let error: serde_json::Value = serde_json::from_str(body).expect("JSON");
                assert_eq!(error["error"], "overloaded", "{case}");
            }
            "text/html" => {
                assert!(body.starts_with("<!doctype html>"), "{case}: {body}");
                assert!(body.contains("in flight"), "{case}: {body}");
            }
            _ => assert!(body.contains("in flight"), "{case}: {body}"),
        }
    }

    // The probes are not counted: answered while the client is at its cap.
    let mut probe = connect_from("127.0.0.1", server.addr).await.unwrap();
    get_ok(&mut probe, "/healthz").await;
    drop(holder);
}
