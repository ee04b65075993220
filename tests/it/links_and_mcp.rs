//! Absolute links and the MCP endpoint's transport rules (issue 12, section 3),
//! over a real loopback socket with the raw HTTP/1.1 client:
//!
//! - with `--public-url`, no `Host` header, absolute-form target or forwarded
//!   scheme changes a link in any description document, and the documents may
//!   be cached publicly; the skills digest still matches the SKILL.md served;
//! - without it, the documents built from the request send `Vary: Host` and
//!   `Cache-Control: private`;
//! - `/mcp` refuses a foreign `Origin` (403, Error body; preflights too) and
//!   accepts none, its own, the public URL's and `--mcp-allowed-origin`s;
//! - `/mcp` reads at most 64 KiB (413, Error body, with and without
//!   `Content-Length`) and answers a body that is not JSON with a JSON-RPC
//!   parse error (-32700) in JSON;
//! - the flags are checked at start.

use crate::support;

use std::net::SocketAddr;

use iplookup::ServeConfig;
use iplookup::web::serve::origin::{PublicUrl, WebOrigin};
use serde_json::Value;
use sha2::{Digest, Sha256};

use support::TestServer;
use support::wire::{self, Wire};

const PUBLIC: &str = "https://ip.example.com";

/// Every description document that carries absolute links.
const DOCUMENTS: &[&str] = &[
    "/api/v1/openapi.json",
    "/llms.txt",
    "/.well-known/api-catalog",
    "/.well-known/mcp/server-card.json",
    "/.well-known/mcp",
    "/mcp",
    "/.well-known/agent-skills/index.json",
    "/.well-known/agent-skills/iplookup/SKILL.md",
    "/docs?format=md",
];

/// The `Accept` the MCP transport requires.
const MCP_ACCEPT: (&str, &str) = ("accept", "application/json, text/event-stream");
const JSON: (&str, &str) = ("content-type", "application/json");
const PING: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#;

fn public_config() -> ServeConfig {
    ServeConfig {
        public_url: Some(PublicUrl::parse(PUBLIC).expect("valid public URL")),
        mcp_allowed_origins: vec![WebOrigin::parse("https://app.example.org").unwrap()],
        ..support::config()
    }
}

async fn send(
    server: &TestServer,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Wire {
    wire::send(server.addr, method, target, headers, body).await
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Every `http(s)://` URL in a text, up to the first character that cannot
/// be part of one.
fn absolute_urls(text: &str) -> Vec<String> {
    let mut urls = Vec::new();
    for scheme in ["http://", "https://"] {
        let mut rest = text;
        while let Some(at) = rest.find(scheme) {
            let tail = &rest[at..];
            let end = tail
                .find(|c: char| c.is_whitespace() || "\"'`)<>]".contains(c))
                .unwrap_or(tail.len());
            // Sentence punctuation after a URL is not part of it.
            urls.push(
                tail[..end]
                    .trim_end_matches(['.', ',', ';', ':'])
                    .to_owned(),
            );
            rest = &tail[end..];
        }
    }
    urls
}

/// Links to the service itself: not the data credits and schema URLs.
fn own_links(text: &str) -> Vec<String> {
    const FOREIGN: &[&str] = &[
        "https://db-ip.com",
        "https://creativecommons.org",
        "https://www.rfc-editor.org",
        "https://static.modelcontextprotocol.io",
        "https://schemas.agentskills.io",
        "https://json-schema.org",
    ];
    absolute_urls(text)
        .into_iter()
        .filter(|u| !FOREIGN.iter().any(|f| u.starts_with(f)))
        .collect()
}

// ---------------------------------------------------------------------------
// --public-url
// ---------------------------------------------------------------------------

/// With `--public-url`, a forged `Host`, an absolute-form request target and
/// a forwarded scheme change no link; the documents are cacheable publicly
/// and do not vary with `Host`.
#[tokio::test]
async fn public_url_is_the_base_of_every_link_whatever_the_request_says() {
    let mut config = public_config();
    // The test client is a trusted proxy: its X-Forwarded-Proto would count.
    config.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    let server = support::start(config).await;
    let attacks: [(&str, Vec<(&str, &str)>); 4] = [
        ("plain", vec![]),
        ("host", vec![("host", "evil.example:666")]),
        (
            "proto",
            vec![
                ("x-forwarded-proto", "http"),
                ("forwarded", "proto=http;host=evil.example"),
            ],
        ),
        ("absolute-form", vec![("host", "evil.example")]),
    ];
    let mut checked = 0;
    for path in DOCUMENTS {
        for (attack, headers) in &attacks {
            let target = if *attack == "absolute-form" {
                format!("http://evil.example{path}")
            } else {
                (*path).to_owned()
            };
            let f = send(&server, "GET", &target, headers, b"").await;
            assert_eq!(f.status, 200, "{attack} {path}: {}", f.body);
            let links = own_links(&f.body);
            // The skills index links relatively; its digest covers SKILL.md's links.
            assert!(
                !links.is_empty() || path.ends_with("index.json"),
                "{attack} {path}: no absolute link to the service in {}",
                f.body
            );
            for link in &links {
                assert!(
                    link == PUBLIC || link.starts_with(&format!("{PUBLIC}/")),
                    "{attack} {path}: link {link} is not on {PUBLIC}"
                );
                checked += 1;
            }
            assert!(
                !f.body.contains("evil.example"),
                "{attack} {path}: {}",
                f.body
            );
            assert_eq!(
                f.must("cache-control"),
                "public, max-age=3600",
                "{attack} {path}"
            );
            let vary = f.header("vary").unwrap_or("");
            assert!(
                !vary.to_ascii_lowercase().contains("host"),
                "{attack} {path}: Vary {vary}"
            );
        }
    }
    println!("{checked} links checked, all on {PUBLIC}");

    let doc = send(
        &server,
        "GET",
        "/api/v1/openapi.json",
        &[("host", "evil.example")],
        b"",
    )
    .await;
    assert_eq!(doc.json()["servers"][0]["url"], PUBLIC);
    let card = send(
        &server,
        "GET",
        "/.well-known/mcp/server-card.json",
        &[("host", "evil.example")],
        b"",
    )
    .await;
    assert_eq!(card.json()["remotes"][0]["url"], format!("{PUBLIC}/mcp"));
    assert_eq!(card.json()["name"], "com.example.ip/iplookup");
}

/// The skills index's digest is the sha256 of the SKILL.md bytes served to
/// the same request, with and without `--public-url`, whatever `Host` says.
#[tokio::test]
async fn skills_digest_matches_the_skill_served_to_the_same_request() {
    for config in [public_config(), support::config()] {
        let server = support::start(config).await;
        for host in [None, Some("other.example:8080")] {
            let headers: Vec<(&str, &str)> = host.map(|h| ("host", h)).into_iter().collect();
            let index = send(
                &server,
                "GET",
                "/.well-known/agent-skills/index.json",
                &headers,
                b"",
            )
            .await;
            let skill = send(
                &server,
                "GET",
                "/.well-known/agent-skills/iplookup/SKILL.md",
                &headers,
                b"",
            )
            .await;
            assert_eq!(index.status, 200);
            assert_eq!(skill.status, 200);
            let digest = index.json()["skills"][0]["digest"]
                .as_str()
                .unwrap_or("")
                .to_owned();
            assert_eq!(
                digest,
                format!("sha256:{}", sha256_hex(skill.body.as_bytes())),
                "host {host:?}: the digest does not match the SKILL.md served"
            );
        }
    }
}

/// Without `--public-url` the links follow `Host`, so every document built
/// from it sends `Vary: Host` (next to what it already varies on) and
/// `Cache-Control: private`: no shared cache may hand it to another caller.
#[tokio::test]
async fn documents_built_from_the_request_vary_on_host_and_stay_private() {
    let server = support::start(support::config()).await;
    for path in DOCUMENTS {
        let f = send(&server, "GET", path, &[("host", "name.example:1234")], b"").await;
        assert_eq!(f.status, 200, "{path}: {}", f.body);
        assert!(
            own_links(&f.body)
                .iter()
                .all(|l| l.starts_with("http://name.example:1234")),
            "{path}: links do not follow Host: {:?}",
            own_links(&f.body)
        );
        let vary: Vec<String> = f
            .header_all("vary")
            .iter()
            .flat_map(|v| {
                v.split(',')
                    .map(|s| s.trim().to_ascii_lowercase())
                    .collect::<Vec<_>>()
            })
            .collect();
        assert!(vary.contains(&"host".to_owned()), "{path}: Vary {vary:?}");
        assert_eq!(f.must("cache-control"), "private, max-age=3600", "{path}");
    }
    // What already varied still does.
    let docs = send(&server, "GET", "/docs", &[("accept", "text/markdown")], b"").await;
    let vary = docs.must("vary").to_ascii_lowercase();
    for v in ["accept", "user-agent", "host"] {
        assert!(vary.contains(v), "/docs Vary {vary}");
    }
}

/// The flags are checked at start: a path, query, user info or other scheme
/// in `--public-url`, or an origin that is not one, stops the binary with a
/// message naming the flag.
#[test]
fn public_url_and_allowed_origins_are_checked_at_start() {
    let bad: &[(&[&str], &str)] = &[
        (
            &["--public-url", "https://ip.example.com/lookup"],
            "has a path",
        ),
        (&["--public-url", "https://ip.example.com/?a=1"], "query"),
        (
            &["--public-url", "https://me:pw@ip.example.com"],
            "user name",
        ),
        (&["--public-url", "ftp://ip.example.com"], "http or https"),
        (&["--public-url", "ip.example.com"], "http or https"),
        (
            &["--mcp-allowed-origin", "https://app.example.org/x"],
            "has a path",
        ),
        (&["--mcp-allowed-origin", "*"], "--mcp-allowed-origin"),
    ];
    for (args, needle) in bad {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_iplookup"))
            .args(["--listen", "127.0.0.1:0", "--no-reverse-dns"])
            .args(*args)
            .env_remove("IPLOOKUP_PUBLIC_URL")
            .env_remove("IPLOOKUP_MCP_ALLOWED_ORIGINS")
            .output()
            .expect("the binary runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} started");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        let flag = args[0];
        assert!(
            stderr.contains(flag),
            "{args:?}: the message does not name {flag}: {stderr}"
        );
    }
}

// ---------------------------------------------------------------------------
// /mcp: Origin
// ---------------------------------------------------------------------------

async fn mcp(server: &TestServer, extra: &[(&str, &str)], body: &[u8]) -> Wire {
    let mut headers = vec![MCP_ACCEPT, JSON];
    headers.extend_from_slice(extra);
    send(server, "POST", "/mcp", &headers, body).await
}

fn expect_error(f: &Wire, status: u16, code: &str) {
    assert_eq!(f.status, status, "{}: {}", f.what, f.body);
    assert_eq!(f.must("content-type"), "application/json", "{}", f.what);
    let body = f.json();
    assert_eq!(body["error"], code, "{}: {}", f.what, f.body);
    assert!(
        body["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{}",
        f.body
    );
}

fn expect_pong(f: &Wire) {
    assert_eq!(f.status, 200, "{}: {}", f.what, f.body);
    let body = f.json();
    assert_eq!(body["id"], 7, "{}", f.body);
    assert!(body["result"].is_object(), "{}", f.body);
}

/// Without `--public-url`: no `Origin` and the request's own host and port
/// pass; any other origin, a malformed one or two of them are 403 with an
/// Error body, before the body is read.
#[tokio::test]
async fn mcp_checks_origin_against_its_own_host_without_public_url() {
    let server = support::start(support::config()).await;
    let own = format!("http://127.0.0.1:{}", server.addr.port());
    expect_pong(&mcp(&server, &[], PING).await);
    expect_pong(&mcp(&server, &[("origin", &own)], PING).await);
    // Another name for the same socket, sent as both Host and Origin.
    expect_pong(
        &mcp(
            &server,
            &[("host", "localhost:9"), ("origin", "http://localhost:9")],
            PING,
        )
        .await,
    );
    for origin in [
        "https://evil.example",
        "http://127.0.0.1:1",
        "http://127.0.0.1",
        "null",
        "not an origin",
        "http://127.0.0.1:0@evil.example",
    ] {
        expect_error(
            &mcp(&server, &[("origin", origin)], PING).await,
            403,
            "forbidden_origin",
        );
    }
    // Refused before the body is read: a body that would be a 400 is a 403.
    expect_error(
        &mcp(&server, &[("origin", "https://evil.example")], b"{").await,
        403,
        "forbidden_origin",
    );
    let two = mcp(
        &server,
        &[("origin", &own), ("origin", "https://evil.example")],
        PING,
    )
    .await;
    expect_error(&two, 403, "forbidden_origin");
}

/// With `--public-url`: its origin and the `--mcp-allowed-origin`s pass (with
/// the default port written or not); the request's own `Host` no longer
/// makes an origin acceptable.
#[tokio::test]
async fn mcp_accepts_the_public_url_and_allowed_origins() {
    let server = support::start(public_config()).await;
    expect_pong(&mcp(&server, &[], PING).await);
    for origin in [
        PUBLIC,
        "https://ip.example.com:443",
        "https://app.example.org",
    ] {
        expect_pong(&mcp(&server, &[("origin", origin)], PING).await);
    }
    let own = format!("http://127.0.0.1:{}", server.addr.port());
    for origin in [
        own.as_str(),
        "http://ip.example.com",
        "https://ip.example.com:8443",
        "https://evil.example",
    ] {
        expect_error(
            &mcp(&server, &[("origin", origin)], PING).await,
            403,
            "forbidden_origin",
        );
    }
    // Host agreeing with a foreign Origin does not help.
    let forged = mcp(
        &server,
        &[("host", "evil.example"), ("origin", "http://evil.example")],
        PING,
    )
    .await;
    expect_error(&forged, 403, "forbidden_origin");
}

/// A browser's preflight of `/mcp` from a refused origin is 403 without CORS
/// headers (the browser stops there); from an accepted one it is the usual
/// preflight answer.
#[tokio::test]
async fn mcp_preflight_follows_the_origin_rule() {
    let server = support::start(public_config()).await;
    let preflight = |origin: &'static str| {
        let server = &server;
        async move {
            send(
                server,
                "OPTIONS",
                "/mcp",
                &[
                    ("origin", origin),
                    ("access-control-request-method", "POST"),
                    (
                        "access-control-request-headers",
                        "content-type, mcp-protocol-version",
                    ),
                ],
                b"",
            )
            .await
        }
    };
    let refused = preflight("https://evil.example").await;
    expect_error(&refused, 403, "forbidden_origin");
    assert!(
        refused.header("access-control-allow-origin").is_none(),
        "{:?}",
        refused.headers
    );
    let allowed = preflight("https://app.example.org").await;
    assert_eq!(allowed.status, 200);
    assert_eq!(allowed.must("access-control-allow-origin"), "*");
    assert!(
        allowed
            .must("access-control-allow-methods")
            .contains("POST")
    );
    // Other paths keep the open preflight.
    let docs = send(
        &server,
        "OPTIONS",
        "/api/v1/me",
        &[("origin", "https://evil.example")],
        b"",
    )
    .await;
    assert_eq!(docs.status, 200);
}

// ---------------------------------------------------------------------------
// /mcp: body size and JSON
// ---------------------------------------------------------------------------

/// A JSON-RPC ping padded with spaces to exactly `len` bytes.
fn ping_of_len(len: usize) -> Vec<u8> {
    let mut body = PING.to_vec();
    assert!(len >= body.len());
    body.resize(len, b' ');
    body
}

/// One raw exchange: `head` then `body` as given (the test writes the
/// framing), the response read to the end.
async fn raw(addr: SocketAddr, head: &str, body: &[u8]) -> Wire {
    wire::exchange(addr, head.as_bytes(), body).await
}

fn chunked(body: &[u8], chunk: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for piece in body.chunks(chunk) {
        out.extend_from_slice(format!("{:x}\r\n", piece.len()).as_bytes());
        out.extend_from_slice(piece);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"0\r\n\r\n");
    out
}

/// 64 KiB is read; 64 KiB + 1 is 413 with an Error body, whether the length
/// is declared (`Content-Length`) or only found by reading (chunked).
#[tokio::test]
async fn mcp_reads_at_most_64_kib() {
    let server = support::start(support::config()).await;
    let limit = iplookup::web::mcp::MAX_BODY_BYTES;
    assert_eq!(limit, 64 * 1024);
    expect_pong(&mcp(&server, &[], &ping_of_len(limit)).await);
    expect_error(
        &mcp(&server, &[], &ping_of_len(limit + 1)).await,
        413,
        "body_too_large",
    );

    let head = |framing: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nAccept: application/json, text/event-stream\r\n\
             Content-Type: application/json\r\nConnection: close\r\n{framing}\r\n",
            server.addr
        )
    };
    let chunked_head = head("Transfer-Encoding: chunked\r\n");
    let fits = raw(
        server.addr,
        &chunked_head,
        &chunked(&ping_of_len(limit), 4096),
    )
    .await;
    expect_pong(&fits);
    for chunk in [1000, 65 * 1024] {
        let over = raw(
            server.addr,
            &chunked_head,
            &chunked(&ping_of_len(limit + 1), chunk),
        )
        .await;
        expect_error(&over, 413, "body_too_large");
    }
    let declared = head(&format!("Content-Length: {}\r\n", limit + 1));
    expect_error(
        &raw(server.addr, &declared, &ping_of_len(limit + 1)).await,
        413,
        "body_too_large",
    );
}

/// A body that is not JSON is a JSON-RPC parse error (-32700) with status
/// 400 in a JSON body; a `Content-Type` other than JSON is 415 with an
/// Error body (`unsupported_media_type`, as on the batch route); JSON that
/// is not a JSON-RPC message is -32600; an `Accept` without both media
/// types is 406 with an Error body.
#[tokio::test]
async fn mcp_answers_what_is_not_json_rpc_in_json() {
    let server = support::start(support::config()).await;
    let jsonrpc_error = |f: &Wire, status: u16, code: i64| {
        assert_eq!(f.status, status, "{}: {}", f.what, f.body);
        assert_eq!(f.must("content-type"), "application/json", "{}", f.what);
        let body = f.json();
        assert_eq!(body["jsonrpc"], "2.0", "{}", f.body);
        assert_eq!(body["error"]["code"], code, "{}", f.body);
        assert!(body["error"]["message"].is_string(), "{}", f.body);
        body
    };
    let unsupported = |f: &Wire| {
        assert_eq!(f.status, 415, "{}: {}", f.what, f.body);
        assert_eq!(f.json()["error"], "unsupported_media_type", "{}", f.body);
    };
    for body in [
        &b"not json"[..],
        b"{",
        b"",
        b"\xff\xfe",
        b"{\"jsonrpc\": \"2.0\", ",
    ] {
        let f = mcp(&server, &[], body).await;
        let answer = jsonrpc_error(&f, 400, -32700);
        assert_eq!(answer["id"], Value::Null);
    }
    for content_type in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "application/jsonx",
    ] {
        let f = send(
            &server,
            "POST",
            "/mcp",
            &[MCP_ACCEPT, ("content-type", content_type)],
            PING,
        )
        .await;
        unsupported(&f);
    }
    let no_type = send(&server, "POST", "/mcp", &[MCP_ACCEPT], PING).await;
    unsupported(&no_type);
    for body in [
        &b"[]"[..],
        b"42",
        br#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
        br#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#,
    ] {
        jsonrpc_error(&mcp(&server, &[], body).await, 400, -32600);
    }
    // A known method whose params do not fit: -32602 with the id echoed.
    let bad_init = mcp(
        &server,
        &[],
        br#"{"jsonrpc":"2.0","id":"a","method":"initialize","params":{}}"#,
    )
    .await;
    assert_eq!(jsonrpc_error(&bad_init, 400, -32602)["id"], "a");
    // Params the schema refuses and rmcp would ignore (found by schemathesis:
    // a numeric cursor got 200).
    for (method, params) in [
        ("tools/list", r#"{"cursor":5}"#),
        ("tools/list", r#"{"cursor":null}"#),
        ("tools/list", r#"{"_meta":[]}"#),
        ("tools/list", "7"),
        ("ping", r#"{"_meta":"x"}"#),
        ("ping", "[]"),
        ("tools/call", r#"{"name":"my_ip","arguments":[]}"#),
        ("initialize", "null"),
    ] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":9,"method":"{method}","params":{params}}}"#);
        let f = mcp(&server, &[], body.as_bytes()).await;
        // Some rmcp's reader already refuses (-32600), the others are
        // refused here (-32602): 400 either way, never a 200 answer.
        assert_eq!(f.status, 400, "{method} {params}: {}", f.body);
        let code = f.json()["error"]["code"].as_i64();
        assert!(
            matches!(code, Some(-32600 | -32602)),
            "{method} {params}: {}",
            f.body
        );
    }
    let f = mcp(
        &server,
        &[],
        br#"{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"cursor":"x"}}"#,
    )
    .await;
    assert_ne!(f.status, 400, "a string cursor is read: {}", f.body);
    // rmcp's own plain-text refusals come back as JSON too.
    let version = mcp(&server, &[("mcp-protocol-version", "1999-01-01")], PING).await;
    jsonrpc_error(&version, 400, -32600);
    for accept in [
        "application/json",
        "text/event-stream",
        "*/*",
        "application/json, text/event-stream;q=0",
    ] {
        let f = send(&server, "POST", "/mcp", &[("accept", accept), JSON], PING).await;
        expect_error(&f, 406, "not_acceptable");
    }
    // Whole numbers written as fractions are the same JSON number.
    let f = mcp(
        &server,
        &[],
        br#"{"jsonrpc":"2.0","id":7.0,"method":"ping"}"#,
    )
    .await;
    expect_pong(&f);
}

#[tokio::test(flavor = "multi_thread")]
async fn text_logs_write_what_a_request_chose_as_escapes() {
    // The MCP library logs a failed request's `id` as it came: in the
    // default text log, an escape sequence would retitle the operator's
    // terminal and a line break would start a forged line.
    let addr = support::proc::free_port();
    let mut cmd = support::proc::command();
    cmd.args(["serve", "--listen", &addr.to_string(), "--no-reverse-dns"]);
    let mut server = support::proc::Spawned::spawn(cmd, addr);
    server.wait_ready();
    let forged = "2026-11-26T19:40:00.000000Z  INFO iplookup::server: fake line";
    let id = format!("\u{1b}]0;pwned\u{7}\u{1b}[31mRED\n{forged}");
    let body = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "no/such/method"});
    let r = support::client()
        .post(format!("http://{addr}/mcp"))
        .header(MCP_ACCEPT.0, MCP_ACCEPT.1)
        .header(JSON.0, JSON.1)
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert!(
        r.status().is_success() || r.status().is_client_error(),
        "{}",
        r.status()
    );
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let log = server.stop();
    assert!(log.contains("pwned"), "the id was not logged at all: {log}");
    assert!(log.contains("\\u{1b}]0;pwned\\u{7}"), "{log}");
    assert!(!log.contains('\u{1b}') && !log.contains('\u{7}'), "{log:?}");
    assert!(!log.lines().any(|l| l.starts_with(forged)), "{log}");
}

#[tokio::test]
async fn mcp_requests_do_not_flood_the_log() {
    // The MCP library logs three lines per request at `info`; the binary's
    // default filter keeps its warnings only.
    let bin = support::proc::serve(&["--no-reverse-dns"]);
    let client = support::client();
    for _ in 0..5 {
        let r = client
            .post(format!("{}/mcp", bin.base))
            .header(MCP_ACCEPT.0, MCP_ACCEPT.1)
            .header(JSON.0, JSON.1)
            .body(PING)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
    }
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let from_rmcp: Vec<String> = bin
        .log()
        .into_iter()
        .filter(|l| l.contains("\"target\":\"rmcp"))
        .collect();
    assert!(from_rmcp.is_empty(), "{from_rmcp:#?}");
}
