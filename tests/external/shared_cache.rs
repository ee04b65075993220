//! The service behind a real shared cache (issue 33): Debian's nginx with
//! `proxy_cache`, started here on loopback as an unprivileged process with
//! its configuration in a temporary directory, and its cache keyed as its
//! documentation's default (`$scheme$proxy_host$request_uri`: the client's
//! `Host` is not in the key). The proxy passes the client's `Host` on, as a
//! proxy in front of a name-based service does.
//!
//! - A page asked with a forged `Host` never reaches another client, with
//!   `--public-url` (the page names the public URL only) and without it
//!   (the page varies with `Host`).
//! - A release changed under the same date and row count (an organisation
//!   renamed) is not revalidated by the old `ETag`: the cache, revalidating
//!   its copy, gets the new content.
//!
//! Runs the binary under test (`IPLOOKUP_TEST_BIN` names another build).

use crate::support;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use support::data::{ANY_ROWS, TempDir, asn_csv, country_csv};

/// The nginx binary: on `PATH`, else Debian's `/usr/sbin/nginx`.
fn nginx() -> PathBuf {
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join("nginx"))
        .find(|p| p.is_file());
    on_path.unwrap_or_else(|| PathBuf::from("/usr/sbin/nginx"))
}

/// A running nginx, stopped on drop.
struct Proxy {
    child: Child,
    addr: SocketAddr,
    dir: TempDir,
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Proxy {
    /// nginx on a free loopback port in front of `upstream`, caching in a
    /// temporary directory; `extra` goes into the proxied `location`.
    fn start(upstream: SocketAddr, extra: &str) -> Proxy {
        let dir = TempDir::new("nginx");
        let addr = support::proc::free_port();
        let d = dir.str().to_owned();
        let conf = format!(
            "daemon off;\nmaster_process off;\nworker_processes 1;\npid {d}/nginx.pid;\n\
             error_log {d}/error.log;\nevents {{ worker_connections 64; }}\n\
             http {{\n  access_log off;\n  client_body_temp_path {d}/body;\n\
             proxy_temp_path {d}/proxy;\n  fastcgi_temp_path {d}/fastcgi;\n\
             uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n\
             proxy_cache_path {d}/cache keys_zone=shared:1m;\n\
             server {{\n    listen {addr};\n    location / {{\n\
             proxy_pass http://{upstream};\n      proxy_set_header Host $http_host;\n\
             proxy_cache shared;\n      add_header X-Cache $upstream_cache_status;\n\
             {extra}\n    }}\n  }}\n}}\n"
        );
        let conf_path = dir.write("nginx.conf", &conf);
        let child = Command::new(nginx())
            .arg("-p")
            .arg(dir.path())
            .arg("-e")
            .arg(dir.path().join("error.log"))
            .arg("-c")
            .arg(&conf_path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start nginx (scripts/test installs Debian's nginx)");
        let mut proxy = Proxy { child, addr, dir };
        let started = Instant::now();
        while TcpStream::connect(addr).is_err() {
            if let Ok(Some(status)) = proxy.child.try_wait() {
                let mut err = String::new();
                if let Some(mut e) = proxy.child.stderr.take() {
                    let _ = e.read_to_string(&mut err);
                }
                let log = std::fs::read_to_string(proxy.dir.path().join("error.log"));
                panic!("nginx exited ({status}): {err} {log:?}");
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "nginx did not listen on {addr}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        proxy
    }
}

/// An HTTP/1.1 answer: status, headers (lower-case names) and body.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// `GET target` from `addr` with `headers` (one request, `Connection: close`).
fn get(addr: SocketAddr, target: &str, headers: &[(&str, &str)]) -> Answer {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut request = format!("GET {target} HTTP/1.1\r\nConnection: close\r\n");
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
        request.push_str(&format!("Host: {addr}\r\n"));
    }
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read the answer");
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let body = match head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        true => dechunk(body),
        false => body.to_owned(),
    };
    Answer {
        status,
        headers,
        body,
    }
}

/// The body of a chunked answer.
fn dechunk(mut rest: &str) -> String {
    let mut out = String::new();
    while let Some((size, after)) = rest.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if n == 0 || after.len() < n {
            break;
        }
        out.push_str(&after[..n]);
        rest = after[n..].trim_start_matches("\r\n");
    }
    out
}

/// What a browser sends (the address page in HTML).
const BROWSER: [(&str, &str); 3] = [
    ("user-agent", "Mozilla/5.0"),
    ("accept", "text/html"),
    ("accept-language", "en"),
];

/// Asks the page of 8.8.8.8 through the proxy as an attacker (`Host:
/// evil.example`), then as a visitor (`Host: ip.example`), and returns
/// the visitor's page.
fn attacker_then_visitor(proxy: &Proxy) -> Answer {
    let forged: Vec<(&str, &str)> = BROWSER
        .iter()
        .copied()
        .chain([("host", "evil.example")])
        .collect();
    let first = get(proxy.addr, "/8.8.8.8", &forged);
    assert_eq!(first.status, 200, "{}", first.body);
    assert!(first.body.contains("/api/v1/ip/8.8.8.8/"), "{}", first.body);
    let visitor: Vec<(&str, &str)> = BROWSER
        .iter()
        .copied()
        .chain([("host", "ip.example")])
        .collect();
    let page = get(proxy.addr, "/8.8.8.8", &visitor);
    assert_eq!(page.status, 200, "{}", page.body);
    page
}

#[test]
fn a_forged_host_never_reaches_another_client_with_a_public_url() {
    let server = support::proc::serve(&["--no-reverse-dns", "--public-url", "https://ip.example"]);
    let proxy = Proxy::start(server.addr, "");
    let page = attacker_then_visitor(&proxy);
    assert!(
        !page.body.contains("evil.example"),
        "the visitor got the attacker's host (X-Cache: {:?})",
        page.header("x-cache")
    );
    assert!(
        page.body
            .contains("https://ip.example</span>/api/v1/ip/8.8.8.8/asn"),
        "the commands name the public URL"
    );
}

#[test]
fn a_forged_host_never_reaches_another_client_without_a_public_url() {
    let server = support::proc::serve(&["--no-reverse-dns"]);
    let proxy = Proxy::start(server.addr, "");
    let page = attacker_then_visitor(&proxy);
    assert!(
        !page.body.contains("evil.example"),
        "the visitor got the attacker's host (X-Cache: {:?})",
        page.header("x-cache")
    );
    assert!(
        page.body
            .contains("ip.example</span>/api/v1/ip/8.8.8.8/asn")
    );
    let vary = page.header("vary").unwrap_or_default().to_ascii_lowercase();
    assert!(vary.contains("host"), "Vary: {vary}");
}

const COUNTRY: &str = "dbip-country-lite-2026-07.csv";
const ASN: &str = "dbip-asn-lite-2026-07.csv";

#[test]
fn a_changed_release_never_answers_304_to_an_old_etag() {
    let dir = TempDir::new("shared-cache");
    dir.write(COUNTRY, &country_csv(20, "FR"));
    dir.write(ASN, &asn_csv(20, 64500, "Old Org"));
    let dir_arg = dir.str().to_owned();
    let server = support::proc::serve(&[
        "--data-dir",
        &dir_arg,
        "--no-reverse-dns",
        ANY_ROWS[0],
        ANY_ROWS[1],
    ]);
    // Copies go stale after a second; the proxy then revalidates them with
    // the `ETag` it holds (`If-None-Match`), as shared caches do.
    let proxy = Proxy::start(
        server.addr,
        "proxy_ignore_headers Cache-Control Expires;\n      proxy_cache_valid 200 1s;\n      \
         proxy_cache_revalidate on;",
    );
    let json = [("accept", "application/json"), ("host", "ip.example")];
    let first = get(proxy.addr, "/api/v1/ip/8.8.8.8", &json);
    assert_eq!(first.status, 200, "{}", first.body);
    assert!(first.body.contains("Old Org"), "{}", first.body);
    let old_etag = first.header("etag").expect("an ETag").to_owned();

    // The same month and row count, another organisation.
    let next = dir.path().join(".next.csv");
    std::fs::write(&next, asn_csv(20, 64500, "New Org")).unwrap();
    std::fs::rename(&next, dir.path().join(ASN)).unwrap();
    wait_for(server.addr, "New Org");

    // The service itself: 200 with the new content to the old tag.
    let direct = get(
        server.addr,
        "/api/v1/ip/8.8.8.8",
        &[("accept", "application/json"), ("if-none-match", &old_etag)],
    );
    assert_eq!(direct.status, 200, "a 304 to the old ETag {old_etag}");
    assert_ne!(direct.header("etag"), Some(old_etag.as_str()));

    // Through the cache, once its copy is stale. nginx keeps whole seconds
    // (a copy stored at 10.0 s with a 1 s validity is fresh until 12.0 s), so
    // a fixed sleep races it: ask until it stops answering from its copy
    // (up to 10 s), then the answer it fetched must be the new release.
    let later = past_the_copy(proxy.addr, "/api/v1/ip/8.8.8.8", &json);
    assert_eq!(later.status, 200);
    assert!(
        later.body.contains("New Org"),
        "the cache kept the old release (X-Cache: {:?}): {}",
        later.header("x-cache"),
        later.body
    );
}

/// The first answer the cache did not serve from a fresh copy
/// (`X-Cache` other than `HIT`), asking every 200 ms for up to 10 s.
fn past_the_copy(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> Answer {
    let started = Instant::now();
    loop {
        let answer = get(addr, path, headers);
        if answer.header("x-cache") != Some("HIT") {
            return answer;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the cache still answers from its 1 s copy after 10 s: {}",
            answer.body
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Waits (up to 10 s) until the service answers 8.8.8.8 with `org`.
fn wait_for(addr: SocketAddr, org: &str) {
    let started = Instant::now();
    loop {
        let a = get(
            addr,
            "/api/v1/ip/8.8.8.8",
            &[("accept", "application/json")],
        );
        if a.body.contains(org) {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the service never loaded {org}: {}",
            a.body
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
