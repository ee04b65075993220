//! The root path for command-line clients (issue 3, SPEC 4.3.1): `GET /` from
//! curl, Wget, HTTPie, xh, PowerShell, Go, ddclient, MikroTik, FreeBSD fetch,
//! ... answers exactly the caller's address and one newline as
//! `text/plain; charset=utf-8`; browsers get the HTML page.
//!
//! First with the User-Agent strings those tools really send (over a raw
//! socket, so nothing else is added), then with the real `curl`, `wget` and
//! `http` (HTTPie) binaries from Debian, run with no extra options, against
//! IPv4 and IPv6 servers.

use crate::support;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::time::Duration;

use support::TestServer;
use support::data::TempDir;
use support::wire::{self, Wire};

// ---------------------------------------------------------------------------
// harness
// ---------------------------------------------------------------------------

/// Starts a server with `listen` on its own runtime thread (it lives until the test process ends).
fn spawn_server(listen: &str) -> (SocketAddr, String) {
    let mut config = support::config();
    config.listen = listen.parse().unwrap();
    let TestServer { addr, base } = support::background(config);
    (addr, base)
}

fn v4() -> &'static (SocketAddr, String) {
    static S: OnceLock<(SocketAddr, String)> = OnceLock::new();
    S.get_or_init(|| spawn_server("127.0.0.1:0"))
}

fn v6() -> &'static (SocketAddr, String) {
    static S: OnceLock<(SocketAddr, String)> = OnceLock::new();
    S.get_or_init(|| spawn_server("[::1]:0"))
}

/// `GET target` with exactly these headers (plus Host and Connection).
fn get(addr: SocketAddr, target: &str, headers: &[(&str, &str)]) -> Wire {
    wire::get_blocking(addr, target, headers)
}

// ---------------------------------------------------------------------------
// User-Agent strings
// ---------------------------------------------------------------------------

/// What command-line tools really send as User-Agent, and the Accept they send
/// (`None`: no Accept header at all).
const COMMAND_LINE: &[(&str, Option<&str>)] = &[
    ("curl/8.14.1", Some("*/*")),
    ("curl/7.88.1", Some("*/*")),
    ("Wget/1.25.0", Some("*/*")),
    ("Wget/1.21.3", Some("*/*")),
    ("HTTPie/3.2.4", Some("*/*")),
    ("HTTPie/3.2.1", Some("*/*")),
    ("xh/0.24.1", Some("*/*")),
    (
        "Mozilla/5.0 (Windows NT 10.0; Microsoft Windows 10.0.26100; en-US) PowerShell/7.5.1",
        None,
    ),
    (
        "Mozilla/5.0 (Windows NT; Windows NT 10.0; en-US) WindowsPowerShell/5.1.26100.4061",
        None,
    ),
    ("Go-http-client/1.1", None),
    ("Go-http-client/2.0", None),
    ("ddclient/3.11.2", None),
    ("Mikrotik/7.x Fetch", None),
    ("Mikrotik/6.x Fetch", None),
    ("fetch libfetch/2.0", None),
    ("python-requests/2.32.3", Some("*/*")),
];

/// What browsers send: User-Agent and their navigation Accept header.
const BROWSERS: &[(&str, &str)] = &[
    (
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36",
        "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7",
    ),
    (
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:145.0) Gecko/20100101 Firefox/145.0",
        "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    ),
    (
        "Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Mobile/15E148 Safari/604.1",
        "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    ),
    (
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36 Edg/142.0.0.0",
        "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7",
    ),
    (
        "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Mobile Safari/537.36",
        "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7",
    ),
];

fn assert_bare(r: &Wire, want: &str, who: &str) {
    assert_eq!(r.status, 200, "{who}: status");
    assert_eq!(
        r.body,
        format!("{want}\n"),
        "{who}: body must be the bare address and one newline"
    );
    assert_eq!(
        r.header("content-type"),
        Some("text/plain; charset=utf-8"),
        "{who}: Content-Type"
    );
    assert_eq!(
        r.header("vary"),
        Some("Accept, User-Agent, Accept-Language"),
        "{who}: Vary"
    );
    assert!(
        r.header("cache-control")
            .is_some_and(|c| c.contains("no-store")),
        "{who}: the caller's address must never be cached"
    );
    assert_eq!(r.header("x-content-type-options"), Some("nosniff"), "{who}");
}

#[test]
fn command_line_user_agents_get_the_bare_address() {
    let (addr, _) = *v4();
    for &(ua, accept) in COMMAND_LINE {
        // As the tool sends it, and without Accept at all.
        let mut variants = vec![vec![("User-Agent", ua)]];
        if let Some(a) = accept {
            variants.push(vec![("User-Agent", ua), ("Accept", a)]);
        }
        for headers in variants {
            let r = get(addr, "/", &headers);
            assert_bare(&r, "127.0.0.1", &format!("{headers:?}"));
        }
    }
}

#[test]
fn no_user_agent_at_all_gets_the_bare_address() {
    let (addr, _) = *v4();
    assert_bare(&get(addr, "/", &[]), "127.0.0.1", "no headers");
    assert_bare(
        &get(addr, "/", &[("Accept", "*/*")]),
        "127.0.0.1",
        "Accept */* only",
    );
}

#[test]
fn browsers_get_the_html_page() {
    let (addr, _) = *v4();
    for &(ua, accept) in BROWSERS {
        for headers in [
            vec![("User-Agent", ua), ("Accept", accept)],
            vec![("User-Agent", ua)],
        ] {
            let r = get(addr, "/", &headers);
            assert_eq!(r.status, 200, "{ua}");
            assert_eq!(
                r.header("content-type"),
                Some("text/html; charset=utf-8"),
                "{headers:?}"
            );
            // The page's commands name the request's host (no --public-url
            // here) and it may be compressed: both are in Vary.
            assert_eq!(
                r.header("vary"),
                Some("Accept, User-Agent, Accept-Language, Host, Accept-Encoding"),
                "{ua}"
            );
            assert!(
                r.body.starts_with("<!doctype html>"),
                "{ua}: {:.60}",
                r.body
            );
            assert!(
                r.body.contains(">127.0.0.1</h1>"),
                "{ua}: the address is the heading"
            );
            assert!(
                r.header("cache-control")
                    .is_some_and(|c| c.contains("no-store")),
                "{ua}"
            );
        }
    }
}

#[test]
fn command_line_clients_asking_for_other_formats_get_them() {
    // The bare address is only the default: curl can still ask for more.
    let (addr, _) = *v4();
    let r = get(
        addr,
        "/",
        &[
            ("User-Agent", "curl/8.14.1"),
            ("Accept", "application/json"),
        ],
    );
    assert_eq!(r.header("content-type"), Some("application/json"));
    let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!(v["ip"], "127.0.0.1");
    let r = get(addr, "/?format=md", &[("User-Agent", "Wget/1.21.3")]);
    assert!(r.body.starts_with("# "), "{}", r.body);
    // The address page stays a full text page for curl (aligned key: value lines).
    let r = get(
        addr,
        "/8.8.8.8",
        &[("User-Agent", "curl/8.14.1"), ("Accept", "*/*")],
    );
    assert_eq!(r.header("content-type"), Some("text/plain; charset=utf-8"));
    assert!(r.body.starts_with("ip:"), "{}", r.body);
    assert!(
        r.body
            .lines()
            .any(|l| l.starts_with("country:") && l.ends_with("United States")),
        "{}",
        r.body
    );
}

// ---------------------------------------------------------------------------
// the real binaries
// ---------------------------------------------------------------------------

/// A scratch HOME so no user configuration (`.curlrc`, `.wgetrc`, HTTPie's
/// config) applies and nothing is written outside it.
fn scratch_home(name: &str) -> TempDir {
    let dir = TempDir::new(&format!("clients-{name}"));
    std::fs::create_dir_all(dir.join("httpie")).unwrap();
    // HTTPie otherwise may try to fetch its "latest version" list from the network.
    std::fs::write(
        dir.join("httpie/config.json"),
        r#"{"disable_update_warnings": true, "default_options": []}"#,
    )
    .unwrap();
    dir
}

/// Runs a real tool with a clean environment (no proxies, scratch HOME).
fn run_tool(program: &str, args: &[&str], home: &Path) -> Output {
    let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into());
    let mut cmd = Command::new(program);
    cmd.args(args)
        .env_clear()
        .env("PATH", path)
        .env("HOME", home)
        .env("HTTPIE_CONFIG_DIR", home.join("httpie"))
        .env("LANG", "C.UTF-8")
        .env("TERM", "dumb")
        .stdin(std::process::Stdio::null());
    let out = cmd.output().unwrap_or_else(|e| {
        panic!("cannot run `{program}` ({e}): install Debian's curl, wget and httpie (scripts/test does)")
    });
    assert!(
        out.status.success(),
        "{program} {args:?} failed: {}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The tools as a person types them: no options that change the request.
fn tools(url: &str) -> Vec<(&'static str, Vec<String>)> {
    vec![
        ("curl", vec!["-sS".into(), url.into()]),
        ("wget", vec!["-qO-".into(), url.into()]),
        ("http", vec!["--ignore-stdin".into(), url.into()]),
    ]
}

#[test]
fn real_curl_wget_and_httpie_print_the_bare_address() {
    let (_, base) = v4();
    let home = scratch_home("v4");
    for (program, args) in tools(&format!("{base}/")) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run_tool(program, &args, &home);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "127.0.0.1\n",
            "{program} {args:?}: stdout must be exactly the address; stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // And without the trailing slash, as people type it.
    let out = run_tool("curl", &["-sS", base], &home);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "127.0.0.1\n");
}

#[test]
fn real_tools_over_ipv6_print_the_bare_ipv6_address() {
    let (_, base) = v6();
    assert!(base.starts_with("http://[::1]:"), "{base}");
    let home = scratch_home("v6");
    for (program, args) in tools(&format!("{base}/")) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run_tool(program, &args, &home);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "::1\n",
            "{program} {args:?} over IPv6; stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn real_curl_gets_full_pages_when_it_asks() {
    let (_, base) = v4();
    let home = scratch_home("pages");
    let out = run_tool("curl", &["-sS", &format!("{base}/8.8.8.8")], &home);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("ip:") && text.contains("Google LLC"),
        "{text}"
    );
    let out = run_tool(
        "curl",
        &["-sS", "-H", "Accept: text/markdown", &format!("{base}/")],
        &home,
    );
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(
        md.starts_with("# ") && md.contains("[IP Geolocation by DB-IP](https://db-ip.com)"),
        "{md}"
    );
    let out = run_tool("curl", &["-sS", &format!("{base}/api/v1/me")], &home);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["ip"], "127.0.0.1");
}

/// The User-Agent and Accept the installed tools really send, captured by a
/// bare listener: the strings above are the real ones, and the server's
/// classification matches what is on this machine.
#[test]
fn installed_tools_identify_themselves_as_expected() {
    let home = scratch_home("ua");
    for (program, prefix) in [("curl", "curl/"), ("wget", "Wget/"), ("http", "HTTPie/")] {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap());
        let catcher = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            s.set_read_timeout(Some(Duration::from_secs(15))).unwrap();
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                let n = s.read(&mut chunk).unwrap();
                if n == 0 {
                    break;
                }
                buf.extend_from_slice(&chunk[..n]);
            }
            s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                .unwrap();
            String::from_utf8_lossy(&buf).into_owned()
        });
        let (_, args) = tools(&url)
            .into_iter()
            .find(|(p, _)| *p == program)
            .unwrap();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run_tool(program, &args, &home);
        let request = catcher.join().unwrap();
        let ua = request
            .lines()
            .find_map(|l| {
                l.split_once(':')
                    .filter(|(k, _)| k.eq_ignore_ascii_case("user-agent"))
                    .map(|(_, v)| v.trim().to_owned())
            })
            .unwrap_or_else(|| panic!("{program} sent no User-Agent:\n{request}"));
        assert!(ua.starts_with(prefix), "{program} sent User-Agent {ua:?}");
        assert!(
            iplookup::web::serve::negotiate::is_command_line(Some(&ua)),
            "{program}'s real User-Agent {ua:?} is not recognised"
        );
    }
}
