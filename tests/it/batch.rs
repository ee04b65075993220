//! Many addresses in one request (issue 14 §1): `POST /api/v1/ip` over a real
//! socket: a batch of 1,000 mixed entries in every body and answer format,
//! in input order and equal to the single `GET`s; the batch limit and the
//! body cap (413), bad bodies (400), `Accept` (406), the rate limit counting
//! addresses, and the MCP tool `lookup_ips`.

use crate::support;

use iplookup::fields::Field;
use iplookup::web::serve::ratelimit::RateLimit;
use reqwest::header::{ACCEPT, CACHE_CONTROL, CONTENT_TYPE};
use serde_json::Value;

use support::{TestServer, wire};

/// 1,000 inputs: public and special IPv4 and IPv6 addresses spread over the
/// whole space, and every seventh entry one that is not an address.
fn mixed_inputs() -> Vec<String> {
    let bad = [
        "not-an-ip",
        "1.2.3",
        "=HYPERLINK(\"http://x\")",
        "fe80::1%eth0",
        "[::1]",
        "01.2.3.4",
        "8.8.8.8 ",
    ];
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..1000)
        .map(|i| match i % 7 {
            6 => format!("{}{}", bad[(i / 7) % bad.len()], i),
            5 => std::net::Ipv6Addr::from(u128::from(next()) << 64 | 1).to_string(),
            4 => {
                ["10.0.0.1", "127.0.0.1", "::1", "192.0.2.7", "100.64.1.1"][(i / 7) % 5].to_owned()
            }
            _ => std::net::Ipv4Addr::from(next() as u32).to_string(),
        })
        .collect()
}

/// `value` without `location.local_time` (the clock moves between requests).
fn without_clock(mut value: Value) -> Value {
    if let Some(location) = value.get_mut("location").and_then(Value::as_object_mut) {
        location.remove("local_time");
    }
    value
}

/// The single `GET /api/v1/ip/{ip}` of each valid input, `None` for the others.
async fn singles(server: &TestServer, inputs: &[String]) -> Vec<Option<Value>> {
    let client = support::client();
    let mut out = Vec::with_capacity(inputs.len());
    for input in inputs {
        if iplookup::address::parse(input).is_err() {
            out.push(None);
            continue;
        }
        let url = server.url(&format!("/api/v1/ip/{input}"));
        let response = client.get(&url).send().await.expect("GET");
        assert_eq!(response.status(), 200, "{url}");
        let text = response.text().await.expect("body");
        out.push(Some(serde_json::from_str(&text).expect("JSON")));
    }
    out
}

/// `POST /api/v1/ip` with `body` as `content_type`, asking for `accept`.
async fn post(
    server: &TestServer,
    content_type: &str,
    accept: Option<&str>,
    body: impl Into<reqwest::Body>,
) -> (u16, reqwest::header::HeaderMap, String) {
    let mut request = support::client()
        .post(server.url("/api/v1/ip"))
        .header(CONTENT_TYPE, content_type)
        .body(body);
    if let Some(accept) = accept {
        request = request.header(ACCEPT, accept);
    }
    let response = request.send().await.expect("POST");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (status, headers, response.text().await.expect("body"))
}

fn json_body(inputs: &[String]) -> String {
    serde_json::to_string(inputs).unwrap()
}

/// A text/plain body: CRLF line ends and blank lines between the entries.
fn text_body(inputs: &[String]) -> String {
    let mut body = String::from("\r\n");
    for (i, input) in inputs.iter().enumerate() {
        body.push_str(input);
        body.push_str(if i % 2 == 0 { "\r\n" } else { "\n\n" });
    }
    body
}

/// Each entry is the single GET's answer, or the Error naming the input.
fn assert_entries(entries: &[Value], inputs: &[String], singles: &[Option<Value>], what: &str) {
    assert_eq!(entries.len(), inputs.len(), "{what}");
    for (i, (entry, input)) in entries.iter().zip(inputs).enumerate() {
        match &singles[i] {
            Some(single) => assert_eq!(
                without_clock(entry.clone()),
                without_clock(single.clone()),
                "{what}: entry {i} ({input})"
            ),
            None => {
                assert_eq!(entry["error"], "invalid_ip", "{what}: entry {i}: {entry}");
                let message = entry["message"].as_str().expect("message");
                let quoted = format!("{input:?}");
                assert!(message.contains(&quoted), "{what}: entry {i}: {message}");
            }
        }
    }
}

/// The CSV rows: the header, then per input the single GET's leaves or the
/// input with its error.
fn assert_csv(body: &str, inputs: &[String], singles: &[Option<Value>], what: &str) {
    let mut reader = csv::Reader::from_reader(body.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();
    let mut want: Vec<String> = Field::ALL.iter().map(|f| f.name().to_owned()).collect();
    want.push("error".to_owned());
    assert_eq!(header, want, "{what}");
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("row")).collect();
    assert_eq!(rows.len(), inputs.len(), "{what}");
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.len(), want.len(), "{what}: row {i}");
        let Some(single) = &singles[i] else {
            let input = &inputs[i];
            let shown = if input.starts_with('=') {
                format!("'{input}")
            } else {
                input.clone()
            };
            assert_eq!(&row[0], shown, "{what}: row {i}");
            assert!(
                row.iter().skip(1).take(19).all(str::is_empty),
                "{what}: row {i}"
            );
            assert_eq!(&row[Field::ALL.len()], "invalid_ip", "{what}: row {i}");
            continue;
        };
        let info: iplookup::model::IpInfo = serde_json::from_value(single.clone()).unwrap();
        for (column, field) in Field::ALL.iter().enumerate() {
            if *field == Field::LocalTime {
                continue;
            }
            let cell = field.cell(&info);
            assert_eq!(
                &row[column],
                cell.as_deref().unwrap_or(""),
                "{what}: row {i} {}",
                field.name()
            );
        }
        assert_eq!(&row[Field::ALL.len()], "", "{what}: row {i}");
    }
}

#[tokio::test]
async fn a_thousand_mixed_entries_answer_in_order_in_every_format() {
    let server = support::start(support::config()).await;
    let inputs = mixed_inputs();
    let singles = singles(&server, &inputs).await;
    assert!(singles.iter().filter(|s| s.is_none()).count() >= 140);
    let bodies = [
        ("application/json", json_body(&inputs)),
        ("text/plain; charset=utf-8", text_body(&inputs)),
    ];
    for (content_type, body) in bodies {
        let what = |accept: &str| format!("{content_type} -> {accept}");
        // JSON: the default, and asked for.
        for accept in [None, Some("application/json")] {
            let (status, headers, text) = post(&server, content_type, accept, body.clone()).await;
            let what = what(accept.unwrap_or("(none)"));
            assert_eq!(status, 200, "{what}: {text}");
            assert_eq!(headers[CONTENT_TYPE], "application/json", "{what}");
            assert_eq!(headers[CACHE_CONTROL], "no-store", "{what}");
            let entries: Vec<Value> = serde_json::from_str(&text).expect("a JSON array");
            assert_entries(&entries, &inputs, &singles, &what);
        }
        let (status, headers, text) = post(
            &server,
            content_type,
            Some("application/x-ndjson"),
            body.clone(),
        )
        .await;
        assert_eq!(status, 200, "{text}");
        assert_eq!(headers[CONTENT_TYPE], "application/x-ndjson");
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("one JSON value per line"))
            .collect();
        assert!(text.ends_with('\n'));
        assert_entries(&lines, &inputs, &singles, &what("ndjson"));
        let (status, headers, text) = post(&server, content_type, Some("text/csv"), body).await;
        assert_eq!(status, 200, "{text}");
        assert_eq!(headers[CONTENT_TYPE], "text/csv; charset=utf-8");
        assert_csv(&text, &inputs, &singles, &what("csv"));
    }
}

#[tokio::test]
async fn more_entries_than_the_limit_or_bytes_than_the_cap_are_413() {
    let server = support::start(support::config()).await;
    let inputs: Vec<String> = (0..1001)
        .map(|i| format!("10.0.{}.{}", i / 256, i % 256))
        .collect();
    for (content_type, body) in [
        ("application/json", json_body(&inputs)),
        ("text/plain", text_body(&inputs)),
    ] {
        let (status, _, text) = post(&server, content_type, None, body).await;
        assert_eq!(status, 413, "{content_type}: {text}");
        let error: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(error["error"], "body_too_large", "{error}");
        assert!(
            error["message"].as_str().unwrap().contains("1000"),
            "{error}"
        );
    }
    // Exactly the limit passes.
    let (status, _, text) = post(
        &server,
        "application/json",
        None,
        json_body(&inputs[..1000]),
    )
    .await;
    assert_eq!(status, 200, "{text}");
    // One entry of more bytes than the cap (1000 x 64 + 4096), sent chunked
    // without a length, is refused once the cap is reached.
    let huge = format!("[\"{}\"]", "1".repeat(70_000));
    let mut chunked = Vec::new();
    for chunk in huge.as_bytes().chunks(8192) {
        chunked.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        chunked.extend_from_slice(chunk);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let head = b"POST /api/v1/ip HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
    let r = wire::exchange(server.addr, head, &chunked).await;
    assert_eq!(r.status, 413, "{}", r.body);
    assert_eq!(r.json()["error"], "body_too_large");
    // A Content-Length over the cap is refused before the body is read.
    let head = b"POST /api/v1/ip HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: 1000000\r\n\r\n";
    let r = wire::exchange(server.addr, head, b"8.8.8.8\n").await;
    assert_eq!(r.status, 413, "{}", r.body);
}

/// A `text/plain` line that is empty once its `\n` or `\r\n` is taken off
/// is skipped; every other line is an entry, whitespace-only ones (TAB, VT,
/// NBSP, spaces) `invalid_ip`, so the answers pair with the input lines by
/// position, as `iplookup lookup` pairs its rows.
#[tokio::test]
async fn text_lines_of_whitespace_are_entries_and_only_empty_lines_are_skipped() {
    let server = support::start(support::config()).await;
    let body = "8.8.8.8\n\t\n\x0b\r\n\u{a0}\n  \n\n\r\n1.1.1.1\r\n\n";
    let (status, _, text) = post(&server, "text/plain", None, body).await;
    assert_eq!(status, 200, "{text}");
    let entries: Vec<Value> = serde_json::from_str(&text).expect("a JSON array");
    assert_eq!(entries.len(), 6, "{text}");
    assert_eq!(entries[0]["ip"], "8.8.8.8");
    for (entry, input) in entries[1..5].iter().zip(["\t", "\x0b", "\u{a0}", "  "]) {
        assert_eq!(entry["error"], "invalid_ip", "{input:?}: {entry}");
        let message = entry["message"].as_str().expect("message");
        assert!(
            message.contains(&format!("{input:?}")),
            "{input:?}: {message}"
        );
    }
    assert_eq!(entries[5]["ip"], "1.1.1.1");
}

#[tokio::test]
async fn a_lower_batch_limit_is_kept() {
    let mut config = support::config();
    config.batch_limit = 3;
    let server = support::start(config).await;
    let (status, _, text) = post(&server, "text/plain", None, "1.1.1.1\n8.8.8.8\n9.9.9.9\n").await;
    assert_eq!(status, 200, "{text}");
    let (status, _, text) = post(
        &server,
        "text/plain",
        None,
        "1.1.1.1\n8.8.8.8\n9.9.9.9\n4.4.4.4\n",
    )
    .await;
    assert_eq!(status, 413, "{text}");
}

#[tokio::test]
async fn bodies_that_are_not_a_batch_are_400_and_unknown_accept_406() {
    let server = support::start(support::config()).await;
    let cases: [(&str, &[u8]); 7] = [
        ("application/json", br#"{"ips": ["8.8.8.8"]}"#),
        ("application/json", b"[1, 2]"),
        ("application/json", br#"["8.8.8.8", null]"#),
        ("application/json", br#""8.8.8.8""#),
        ("application/json", b"[\"8.8.8.8\""),
        ("application/json", b"[\"\xff\xfe\"]"),
        ("text/plain", b"8.8.8.8\n\xff\xfe\n"),
    ];
    for (content_type, body) in cases {
        let (status, headers, text) = post(&server, content_type, None, body.to_vec()).await;
        assert_eq!(status, 400, "{content_type} {body:?}: {text}");
        assert_eq!(headers[CONTENT_TYPE], "application/json", "{text}");
        let error: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(error["error"], "bad_body", "{error}");
        assert!(!error["message"].as_str().unwrap().is_empty());
    }
    // Another Content-Type, or none at all: 415 (`hostile` has more).
    for (content_type, body) in [
        ("application/xml", &b"<ips/>"[..]),
        ("application/x-www-form-urlencoded", b"ip=8.8.8.8"),
    ] {
        let (status, _, text) = post(&server, content_type, None, body.to_vec()).await;
        assert_eq!(status, 415, "{content_type}: {text}");
    }
    let head =
        b"POST /api/v1/ip HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 9\r\n\r\n";
    let r = wire::exchange(server.addr, head, b"[\"1.1.1\"]").await;
    assert_eq!(r.status, 415, "{}", r.body);
    assert_eq!(r.json()["error"], "unsupported_media_type");
    // An empty batch is an empty answer.
    let (status, _, text) = post(&server, "application/json", None, "[]").await;
    assert_eq!((status, text.trim()), (200, "[]"));
    // Accept naming none of the three formats.
    let (status, _, text) = post(
        &server,
        "application/json",
        Some("text/html"),
        "[\"8.8.8.8\"]",
    )
    .await;
    assert_eq!(status, 406, "{text}");
    let error: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(error["error"], "not_acceptable", "{error}");
}

#[tokio::test]
async fn a_body_that_does_not_arrive_in_time_is_408_and_get_is_405() {
    let mut config = support::config();
    config.limits.header_timeout = std::time::Duration::from_secs(1);
    let server = support::start(config).await;
    // 100 bytes promised, 8 sent, the connection held open: 408 after the
    // body deadline, and the connection closed.
    let head = b"POST /api/v1/ip HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\n";
    let started = std::time::Instant::now();
    let r = wire::exchange(server.addr, head, b"8.8.8.8\n").await;
    assert_eq!(r.status, 408, "{}", r.body);
    assert_eq!(r.json()["error"], "body_timeout");
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    // The path takes POST only.
    let r = wire::send(server.addr, "GET", "/api/v1/ip", &[], b"").await;
    assert_eq!(r.status, 405, "{}", r.body);
}

#[tokio::test]
async fn the_rate_limit_counts_every_address_of_a_batch() {
    let mut config = support::config();
    // Ten tokens, one per 1000 s: nothing refills during the test.
    config.rate_limit = Some(RateLimit {
        per_second: 0.001,
        burst: 10,
    });
    let server = support::start(config).await;
    let batch = |n: usize| (0..n).map(|i| format!("8.8.8.{i}\n")).collect::<String>();
    // 4 of 10 tokens.
    let (status, _, text) = post(&server, "text/plain", None, batch(4)).await;
    assert_eq!(status, 200, "{text}");
    // 7 wanted, 6 left: refused (the request's own token is spent).
    let (status, headers, text) = post(&server, "text/plain", None, batch(7)).await;
    assert_eq!(status, 429, "{text}");
    assert!(headers.contains_key("retry-after"));
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["error"],
        "rate_limited"
    );
    // 5 wanted, 5 left.
    let (status, _, text) = post(&server, "text/plain", None, batch(5)).await;
    assert_eq!(status, 200, "{text}");
    // Nothing left for a single lookup.
    let r = wire::send(server.addr, "GET", "/api/v1/ip/8.8.8.8", &[], b"").await;
    assert_eq!(r.status, 429, "{}", r.body);
}

/// A batch of more addresses than `--rate-burst` can never pass: it is
/// answered at once 413 `body_too_large` naming the burst, with no
/// `Retry-After` (a 429 would promise a retry that never succeeds), and
/// costs only the request's own token; a batch of the burst passes.
#[tokio::test]
async fn a_batch_larger_than_the_burst_is_413_at_once() {
    let mut config = support::config();
    config.rate_limit = Some(RateLimit {
        per_second: 0.001,
        burst: 20,
    });
    let server = support::start(config).await;
    let batch = |n: usize| (0..n).map(|i| format!("8.8.8.{i}\n")).collect::<String>();
    for content_type in ["text/plain", "application/json"] {
        let body = match content_type {
            "text/plain" => batch(25),
            _ => json_body(&(0..25).map(|i| format!("8.8.8.{i}")).collect::<Vec<_>>()),
        };
        let (status, headers, text) = post(&server, content_type, None, body).await;
        assert_eq!(status, 413, "{content_type}: {text}");
        assert!(!headers.contains_key("retry-after"), "{headers:?}");
        let error: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(error["error"], "body_too_large", "{error}");
        assert_eq!(
            error["message"],
            "25 addresses: more than the rate limit lets one caller send at once (--rate-burst 20); split the batch",
        );
    }
    // Two door tokens spent of 20: a batch of 18 passes, then nothing is left.
    let (status, _, text) = post(&server, "text/plain", None, batch(18)).await;
    assert_eq!(status, 200, "{text}");
    let (status, headers, text) = post(&server, "text/plain", None, batch(2)).await;
    assert_eq!(status, 429, "{text}");
    assert!(headers.contains_key("retry-after"));
}

/// One JSON-RPC `tools/...` call to `/mcp`, its answer.
async fn mcp(server: &TestServer, body: &Value) -> Value {
    let headers = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let body = serde_json::to_vec(body).unwrap();
    let r = wire::send(server.addr, "POST", "/mcp", &headers, &body).await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()
}

#[tokio::test]
async fn the_mcp_tool_lookup_ips_answers_each_address_in_order() {
    let mut config = support::config();
    config.batch_limit = 50;
    let server = support::start(config).await;
    let list = mcp(
        &server,
        &serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    )
    .await;
    let tools = list["result"]["tools"].as_array().expect("tools");
    let tool = tools
        .iter()
        .find(|t| t["name"] == "lookup_ips")
        .expect("lookup_ips listed");
    assert_eq!(
        tool["inputSchema"]["properties"]["ips"]["type"], "array",
        "{tool}"
    );
    assert!(
        tool["outputSchema"]["properties"]["results"].is_object(),
        "{tool}"
    );
    let inputs: Vec<String> = mixed_inputs().into_iter().take(50).collect();
    let singles = singles(&server, &inputs).await;
    let call = serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "lookup_ips", "arguments": {"ips": inputs}}});
    let answer = mcp(&server, &call).await;
    assert_ne!(answer["result"]["isError"], true, "{answer}");
    let results = answer["result"]["structuredContent"]["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no structuredContent.results in {answer}"));
    assert_entries(results, &inputs, &singles, "lookup_ips");
    // Over the batch limit: the tool's error, nothing looked up.
    let many: Vec<String> = (0..51).map(|i| format!("8.8.8.{i}")).collect();
    let call = serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "lookup_ips", "arguments": {"ips": many}}});
    let answer = mcp(&server, &call).await;
    let refused = answer["result"]["isError"] == true || answer.get("error").is_some();
    assert!(refused, "{answer}");
    assert!(answer.to_string().contains("at most 50"), "{answer}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_batch_reads_reverse_dns_from_the_cache_and_sends_no_query() {
    let named: std::net::IpAddr = "8.8.8.8".parse().unwrap();
    let other: std::net::IpAddr = "1.1.1.1".parse().unwrap();
    let dns = support::dns::DnsServer::start(&[
        (named, support::dns::ptr("dns.example.test")),
        (other, support::dns::ptr("one.example.test")),
    ])
    .await;
    let mut config = support::config();
    config.rdns = Some(iplookup::rdns::RdnsConfig {
        server: Some(dns.addr),
        deadline: std::time::Duration::from_millis(500),
        capacity: 1000,
        ..Default::default()
    });
    let server = support::start(config).await;
    // Before any single lookup: null, and no query sent.
    let (status, _, text) = post(&server, "text/plain", None, "8.8.8.8\n1.1.1.1\n").await;
    assert_eq!(status, 200, "{text}");
    let entries: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert!(
        entries
            .iter()
            .all(|e| e["network"]["reverse_dns"].is_null()),
        "{text}"
    );
    assert_eq!(dns.count(), 0, "{:?}", dns.queries());
    // A single lookup puts 8.8.8.8's name in the cache; the batch reads it.
    let single = server.get_json("/api/v1/ip/8.8.8.8").await;
    assert_eq!(
        single["network"]["reverse_dns"], "dns.example.test",
        "{single}"
    );
    let (_, _, text) = post(&server, "text/plain", None, "8.8.8.8\n1.1.1.1\n").await;
    let entries: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert_eq!(
        entries[0]["network"]["reverse_dns"], "dns.example.test",
        "{text}"
    );
    assert!(entries[1]["network"]["reverse_dns"].is_null(), "{text}");
    assert_eq!(dns.count(), 1, "{:?}", dns.queries());
}

#[tokio::test]
async fn the_mcp_tool_lookup_ips_counts_every_address_against_the_rate_limit() {
    let mut config = support::config();
    config.rate_limit = Some(RateLimit {
        per_second: 0.001,
        burst: 8,
    });
    let server = support::start(config).await;
    let call = |n: usize| {
        let ips: Vec<String> = (0..n).map(|i| format!("9.9.9.{i}")).collect();
        serde_json::json!({"jsonrpc": "2.0", "id": n, "method": "tools/call",
            "params": {"name": "lookup_ips", "arguments": {"ips": ips}}})
    };
    // 3 of 8 tokens (one for the request, two more for the addresses).
    let answer = mcp(&server, &call(3)).await;
    assert_ne!(answer["result"]["isError"], true, "{answer}");
    // 6 wanted, 5 left: the tool's error, naming the rate limit.
    let answer = mcp(&server, &call(6)).await;
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(answer.to_string().contains("rate_limited"), "{answer}");
    // More than the burst could never pass: refused as such, no retry time.
    let answer = mcp(&server, &call(9)).await;
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    let text = answer.to_string();
    assert!(
        text.contains("body_too_large") && text.contains("--rate-burst 8"),
        "{answer}"
    );
    assert!(!text.contains("retry"), "{answer}");
}

#[tokio::test(flavor = "multi_thread")]
async fn csv_cells_carry_no_terminal_escape_and_no_formula_for_any_locale() {
    let server = support::start(support::config()).await;
    let inputs = [
        ";=cmd|' /C calc'!A0",
        "\u{1b}]0;PWNED\u{7}\u{1b}[2J8.8.8.8",
        "=1+1;=2",
        "\u{202e}@evil\u{85}",
    ];
    let body = inputs.join("\n");
    let (status, _, text) = post(&server, "text/plain", Some("text/csv"), body.into_bytes()).await;
    assert_eq!(status, 200, "{text}");
    assert!(
        !text.chars().any(|c| c != '\n'
            && (c.is_control()
                || ('\u{2066}'..='\u{2069}').contains(&c)
                || ('\u{202a}'..='\u{202e}').contains(&c))),
        "{text:?}"
    );
    let rows: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(rows.len(), 4, "{text}");
    // Quoted: a `;` locale does not split the cell and start a formula.
    assert!(
        rows[0].starts_with("\";=cmd|' /C calc'!A0\","),
        "{}",
        rows[0]
    );
    assert!(
        rows[1].starts_with("\"]0;PWNED[2J8.8.8.8\","),
        "{}",
        rows[1]
    );
    assert!(rows[2].starts_with("\"'=1+1;=2\","), "{}", rows[2]);
    assert!(rows[3].starts_with("'@evil,"), "{}", rows[3]);
}
