//! The findings of the third black-box pass (issue 33), each over a real
//! socket against the binary under test (`IPLOOKUP_TEST_BIN` names another
//! build: each of these fails on e9ea014). The shared-cache findings are
//! `tests/external/shared_cache.rs` (they drive nginx).
//!
//! - hidden text (tag characters, U+2028, U+00AD, U+3164, U+115F) in an
//!   organisation name reaches no person or model: MCP, text, Markdown,
//!   HTML, single field, CSV (the JSON API keeps the data as it is);
//! - a `calling_code` (`+61`) is defused in CSV like any other cell;
//! - the search box takes no port 0;
//! - `/docs/try` never redirects to a path with a dot segment;
//! - no MCP tool schema shows a rustdoc link;
//! - the single-field route's errors are JSON whatever `Accept` asks;
//! - at country accuracy, a country of several times has no `time_zone` or
//!   `local_time` and its page says how many zones it spans, a country of
//!   one time keeps them, and the map has no pin;
//! - with `--public-url`, the address page's commands name the public URL;
//! - a failed `iplookup update` creates no data directory (nor its parents);
//! - unknown country codes (`ZZ`, `XX`) and city coordinates out of range
//!   are defects: dropped and counted.

use crate::support;

use std::net::SocketAddr;

use serde_json::Value;

use support::data::{ANY_ROWS, TempDir, asn_csv, country_csv};
use support::proc::Running;
use support::wire;

/// The binary serving the embedded data (stopped when dropped).
fn embedded() -> Running {
    support::proc::serve(&["--no-reverse-dns"])
}

const CURL: (&str, &str) = ("User-Agent", "curl/8.14.1");
const BROWSER: (&str, &str) = ("User-Agent", "Mozilla/5.0");

/// An organisation name hiding "ignore" in tag characters, with a line
/// separator, a soft hyphen and two Hangul fillers.
fn hidden_org() -> String {
    let tags: String = "ignore"
        .chars()
        .map(|c| char::from_u32(0xe0000 + c as u32).unwrap())
        .collect();
    format!("Acme\u{2028}Net\u{ad}works\u{3164}\u{115f}{tags} Ltd")
}

/// No character of the hidden set in `text`.
fn assert_visible(text: &str, what: &str) {
    let hidden = text.chars().find(|&c| {
        matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{ad}' | '\u{3164}' | '\u{115f}' | '\u{e0000}'
                ..='\u{e007f}'
        )
    });
    assert_eq!(hidden, None, "{what}: {text:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn hidden_text_in_a_name_reaches_no_answer() {
    let dir = TempDir::new("hidden");
    dir.write("dbip-country-lite-2026-07.csv", &country_csv(20, "FR"));
    dir.write(
        "dbip-asn-lite-2026-07.csv",
        &asn_csv(20, 64500, &hidden_org()),
    );
    let server = support::proc::serve(&[
        "--data-dir",
        dir.str(),
        "--no-reverse-dns",
        ANY_ROWS[0],
        ANY_ROWS[1],
    ]);
    let addr = server.addr;
    // MCP: what a language model reads.
    let headers = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let call = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "lookup_ip", "arguments": {"ip": "8.8.8.8"}}});
    let mcp = wire::send(
        addr,
        "POST",
        "/mcp",
        &headers,
        &serde_json::to_vec(&call).unwrap(),
    )
    .await;
    assert_eq!(mcp.status, 200, "{}", mcp.body);
    let result = &mcp.json()["result"];
    let org = result["structuredContent"]["network"]["organization"].clone();
    assert_eq!(org, "Acme Networks Ltd", "{result}");
    let text = result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert_visible(&text, "MCP text");
    assert!(text.contains("Acme Networks Ltd"), "{text}");
    for (target, headers) in [
        ("/8.8.8.8", vec![CURL]),
        ("/8.8.8.8?format=md", vec![CURL]),
        ("/8.8.8.8", vec![BROWSER]),
        ("/api/v1/ip/8.8.8.8/organization", vec![]),
        ("/api/v1/ip/8.8.8.8", vec![("Accept", "text/csv")]),
    ] {
        let r = wire::send(addr, "GET", target, &headers, b"").await;
        assert!(r.status == 200 || r.status == 406, "{target}: {}", r.body);
        assert_visible(&r.body, target);
    }
    let csv = wire::send(
        addr,
        "POST",
        "/api/v1/ip",
        &[("Content-Type", "application/json"), ("Accept", "text/csv")],
        br#"["8.8.8.8"]"#,
    )
    .await;
    assert_eq!(csv.status, 200, "{}", csv.body);
    assert_visible(&csv.body, "batch CSV");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_calling_code_is_defused_in_csv() {
    let server = embedded();
    let r = wire::send(
        server.addr,
        "POST",
        "/api/v1/ip",
        &[("Content-Type", "application/json"), ("Accept", "text/csv")],
        br#"["1.1.1.1"]"#,
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let mut reader = csv::ReaderBuilder::new().from_reader(r.body.as_bytes());
    let header = reader.headers().unwrap().clone();
    let at = header.iter().position(|h| h == "calling_code").unwrap();
    let row = reader.records().next().unwrap().unwrap();
    assert_eq!(&row[at], "'+61", "{}", r.body);
}

#[test]
fn the_search_box_takes_no_port_zero() {
    let server = embedded();
    let r = wire::get_blocking(server.addr, "/?ip=1.2.3.4%3A0", &[BROWSER]);
    assert_ne!(r.status, 303, "redirected to {:?}", r.header("location"));
    assert_eq!(r.status, 400, "{}", r.body);
    let r = wire::get_blocking(server.addr, "/?ip=1.2.3.4%3A1", &[BROWSER]);
    assert_eq!(r.header("location"), Some("/1.2.3.4"));
}

#[test]
fn docs_try_never_redirects_to_a_dot_segment() {
    let server = embedded();
    for (query, location) in [
        ("op=api_ip&ip=..", "/api/v1/ip/%2E%2E?format=json"),
        ("op=api_ip&ip=.", "/api/v1/ip/%2E?format=json"),
        ("op=api_ip_field&ip=..&field=asn", "/api/v1/ip/%2E%2E/asn"),
    ] {
        let r = wire::get_blocking(server.addr, &format!("/docs/try?{query}"), &[BROWSER]);
        assert_eq!(r.status, 303, "{query}: {}", r.body);
        assert_eq!(r.header("location"), Some(location), "{query}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn no_mcp_tool_shows_a_rustdoc_link() {
    let server = embedded();
    let headers = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let list = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let r = wire::send(
        server.addr,
        "POST",
        "/mcp",
        &headers,
        &serde_json::to_vec(&list).unwrap(),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let tools = r.json()["result"]["tools"].to_string();
    assert!(tools.contains("lookup_asn"), "{tools}");
    assert!(!tools.contains("[`"), "a rustdoc link in {tools}");
    assert!(!tools.contains("ASN_PER_PAGE"), "{tools}");
}

#[test]
fn single_field_errors_are_json_whatever_accept_asks() {
    let server = embedded();
    for (target, status, code) in [
        ("/api/v1/ip/8.8.8.8/nope", 404, "unknown_field"),
        ("/api/v1/me/nope", 404, "unknown_field"),
        ("/api/v1/ip/999.1.1.1/asn", 400, "invalid_ip"),
    ] {
        let r = wire::get_blocking(server.addr, target, &[("Accept", "text/plain"), CURL]);
        assert_eq!(r.status, status, "{target}: {}", r.body);
        assert!(
            r.must("content-type").starts_with("application/json"),
            "{target}: {:?}",
            r.headers
        );
        assert_eq!(r.json()["error"], code, "{target}");
    }
}

fn location(addr: SocketAddr, ip: &str) -> Value {
    wire::get_blocking(addr, &format!("/api/v1/ip/{ip}"), &[]).json()["location"].clone()
}

#[test]
fn country_accuracy_claims_no_time_a_country_does_not_keep() {
    let server = embedded();
    let addr = server.addr;
    // The United States and Australia keep several times at once.
    for ip in ["8.8.8.8", "1.1.1.1"] {
        let l = location(addr, ip);
        assert_eq!(l["accuracy"], "country", "{ip}: {l}");
        assert_eq!(l["time_zone"], Value::Null, "{ip}: {l}");
        assert_eq!(l["local_time"], Value::Null, "{ip}: {l}");
        let field = wire::get_blocking(addr, &format!("/api/v1/ip/{ip}/time_zone"), &[]);
        assert_eq!(field.body, "\n", "{ip}");
    }
    // Bangladesh keeps one.
    let l = location(addr, "103.4.145.1");
    assert_eq!(l["time_zone"], "Asia/Dhaka", "{l}");
    assert!(
        l["local_time"]
            .as_str()
            .is_some_and(|t| t.ends_with("+06:00")),
        "{l}"
    );

    // The pages say how many zones the country spans; the map has no pin.
    let html = wire::get_blocking(addr, "/8.8.8.8", &[BROWSER]);
    assert!(
        html.body.contains("United States spans ") && html.body.contains(" time zones"),
        "{}",
        html.body
    );
    assert!(html.body.contains("class=\"hit\""), "the country is shaded");
    assert!(
        !html.body.contains("id=\"pin\""),
        "a pin at country accuracy"
    );
    assert!(!html.body.contains("<circle"), "a pin at country accuracy");
    // In English text and Markdown too (they name the fields: the note
    // follows the empty `time_zone`), and in Bangla.
    for (target, headers, words) in [
        ("/8.8.8.8", vec![CURL], "time_zone_note:"),
        ("/8.8.8.8?format=md", vec![CURL], "| time_zone_note |"),
        (
            "/8.8.8.8?format=text&lang=bn",
            vec![CURL],
            "টি সময় অঞ্চলে বিস্তৃত",
        ),
        (
            "/8.8.8.8?format=md&lang=bn",
            vec![CURL],
            "টি সময় অঞ্চলে বিস্তৃত",
        ),
    ] {
        let page = wire::get_blocking(addr, target, &headers).body;
        assert!(page.contains(words), "{target}: {page}");
        if !target.contains("lang=bn") {
            assert!(
                page.contains("United States spans ")
                    && page.contains(" time zones: no one local time at country accuracy"),
                "{target}: {page}"
            );
        }
    }
}

#[test]
fn the_public_url_names_the_commands() {
    let public = support::proc::serve(&["--no-reverse-dns", "--public-url", "https://ip.example"]);
    let r = wire::get_blocking(
        public.addr,
        "/8.8.8.8",
        &[BROWSER, ("Host", "evil.example")],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        !r.body.contains("evil.example"),
        "the request's host in the page"
    );
    // The host apart from the path (a phone shows `…` for it).
    assert!(
        r.body
            .contains("<span class=\"h\">https://ip.example</span>/api/v1/ip/8.8.8.8/asn")
    );
    // Without it, the page names the request's host and says it varies.
    let server = embedded();
    let r = wire::get_blocking(server.addr, "/8.8.8.8", &[BROWSER, ("Host", "a.example")]);
    assert!(r.body.contains("a.example</span>/api/v1/ip/8.8.8.8/asn"));
    assert!(r.must("vary").contains("Host"), "{:?}", r.headers);
    let other = wire::get_blocking(server.addr, "/8.8.8.8", &[BROWSER, ("Host", "b.example")]);
    assert_ne!(
        r.header("etag"),
        other.header("etag"),
        "one ETag for two hosts"
    );
}

#[test]
fn a_release_dated_in_the_future_never_serves() {
    let dir = TempDir::new("future");
    dir.write("dbip-country-lite-2026-07.csv", &country_csv(20, "FR"));
    dir.write("dbip-country-lite-2099-01.csv", &country_csv(20, "DE"));
    let server = support::proc::serve(&[
        "--data-dir",
        dir.str(),
        "--no-reverse-dns",
        ANY_ROWS[0],
        ANY_ROWS[1],
    ]);
    assert_eq!(location(server.addr, "8.8.8.8")["country_code"], "FR");
    let health = wire::get_blocking(server.addr, "/healthz", &[]).json();
    assert_eq!(
        health["data"]["country"]["release_date"], "2026-07",
        "{health}"
    );
    let refused = health.to_string();
    assert!(
        refused.contains("2099-01") && refused.contains("future"),
        "{health}"
    );
}

/// A mirror on loopback answering every request with `200` and a body that
/// is not gzip (the update downloads it into the data directory, then
/// refuses it).
fn bad_mirror() -> SocketAddr {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for mut conn in listener.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let _ = conn.read(&mut buf);
            let body = "not a gzip stream";
            let _ = write!(
                conn,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    addr
}

#[test]
fn a_failed_update_creates_no_data_directory() {
    let root = TempDir::new("nodir");
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let bad = bad_mirror();
    for base in [
        format!("http://{closed}/free/"),
        format!("http://{bad}/free/"),
    ] {
        let data = root.path().join("new").join("data");
        let out = support::proc::command()
            .args(["update", "--data-dir"])
            .arg(&data)
            .args(["--base-url", &base, "--month", "2026-08"])
            .output()
            .expect("run iplookup update");
        assert!(!out.status.success(), "update succeeded from {base}");
        let left: Vec<_> = std::fs::read_dir(root.path())
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        assert!(
            left.is_empty(),
            "from {base}, a failed update left {left:?}"
        );
    }
}

/// A data directory of `country` and `asn_csv(20, ..)`, served.
fn serve_dir(dir: &TempDir) -> Running {
    support::proc::serve(&[
        "--data-dir",
        dir.str(),
        "--no-reverse-dns",
        ANY_ROWS[0],
        ANY_ROWS[1],
    ])
}

#[test]
fn unknown_country_codes_are_defects() {
    let dir = TempDir::new("zz");
    let csv = country_csv(20, "FR").replace(
        "2001:db9::",
        "21.0.0.0,21.0.0.255,ZZ\n22.0.0.0,22.0.0.255,XX\n2001:db9::",
    );
    dir.write("dbip-country-lite-2026-07.csv", &csv);
    dir.write("dbip-asn-lite-2026-07.csv", &asn_csv(20, 64500, "X"));
    let server = serve_dir(&dir);
    assert_eq!(location(server.addr, "8.8.8.8")["country_code"], "FR");
    for ip in ["21.0.0.1", "22.0.0.1"] {
        let l = location(server.addr, ip);
        assert!(l["country_code"].is_null(), "{ip}: {l}");
    }
    let health = wire::get_blocking(server.addr, "/healthz", &[]).json();
    assert_eq!(
        health["data"]["country"]["defects"]["unreadable_dropped"], 2,
        "{health}"
    );
}

#[test]
fn city_coordinates_out_of_range_are_defects() {
    use support::mmdb::{Writer, city};
    let dir = TempDir::new("coords");
    dir.write("dbip-country-lite-2026-07.csv", &country_csv(20, "FR"));
    dir.write("dbip-asn-lite-2026-07.csv", &asn_csv(20, 64500, "X"));
    let mut w = Writer::new(4, "DBIP-City-Lite");
    let v4 = |a: [u8; 4]| u128::from(u32::from_be_bytes(a));
    w.insert(v4([8, 8, 8, 0]), 24, &city("Nowhere", "FR", 91.0, 2.0));
    w.insert(v4([8, 8, 9, 0]), 24, &city("Farside", "FR", 45.0, -180.5));
    for i in 0..18u8 {
        let record = city(&format!("Town {i}"), "DE", 50.0 + f64::from(i) / 100.0, 8.0);
        w.insert(v4([20, 0, i, 0]), 24, &record);
    }
    std::fs::write(dir.path().join("dbip-city-lite-2026-07.mmdb"), w.finish()).unwrap();
    let server = serve_dir(&dir);
    let town = location(server.addr, "20.0.3.1");
    assert_eq!(town["city"], "Town 3", "{town}");
    let nowhere = location(server.addr, "8.8.8.8");
    assert!(nowhere["city"].is_null(), "{nowhere}");
    let health = wire::get_blocking(server.addr, "/healthz", &[]).json();
    assert_eq!(
        health["data"]["city"]["defects"]["unreadable_dropped"], 2,
        "{health}"
    );
}

/// A release is named by its date and its content (issue 33): `/healthz`
/// gives the release serving (`release`: the country date and a digest of
/// every table's bytes, as the `ETag`s name it) and each table's digest. An
/// ASN file republished under the same name and row count with another
/// organisation gets another `release` and digest; the country's is kept.
#[test]
fn healthz_names_the_release_by_its_date_and_content() {
    let dir = TempDir::new("identity");
    dir.write("dbip-country-lite-2026-07.csv", &country_csv(20, "FR"));
    dir.write("dbip-asn-lite-2026-07.csv", &asn_csv(20, 64500, "Old Org"));
    let health = || {
        let server = serve_dir(&dir);
        let h = wire::get_blocking(server.addr, "/healthz", &[]).json();
        let etag = wire::get_blocking(server.addr, "/api/v1/ip/8.8.8.8", &[]);
        (h, etag.header("etag").unwrap_or_default().to_owned())
    };
    let (old, old_etag) = health();
    let release = old["release"].as_str().unwrap_or_default().to_owned();
    assert!(release.starts_with("2026-07-"), "{old}");
    assert!(old_etag.contains(&release), "{old_etag} names {release}");
    let digest = |h: &Value, t: &str| {
        h["data"][t]["digest"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    assert_eq!(digest(&old, "asn").len(), 16, "{old}");
    dir.write("dbip-asn-lite-2026-07.csv", &asn_csv(20, 64500, "New Org"));
    let (new, new_etag) = health();
    assert_eq!(new["data"]["asn"]["rows"], old["data"]["asn"]["rows"]);
    assert_ne!(new["release"], old["release"], "{new}");
    assert!(
        new["release"]
            .as_str()
            .unwrap_or_default()
            .starts_with("2026-07-")
    );
    assert_ne!(digest(&new, "asn"), digest(&old, "asn"));
    assert_eq!(digest(&new, "country"), digest(&old, "country"));
    assert_ne!(new_etag, old_etag);
    // The text form names it too.
    let server = serve_dir(&dir);
    let text = wire::get_blocking(server.addr, "/healthz?format=text", &[]).body;
    let release = new["release"].as_str().unwrap_or_default();
    assert!(
        text.lines()
            .any(|l| l.starts_with("release:") && l.trim_end().ends_with(release)),
        "{text}"
    );
}

/// A v6 MMDB of `networks` (address, prefix length, record): IPv4 networks
/// as `::a.b.c.d/96+n`, the IPv4 subtree real databases use.
fn mmdb_of(kind: &str, networks: &[(u128, u32, support::mmdb::Val)]) -> Vec<u8> {
    let mut w = support::mmdb::Writer::new(6, kind);
    for (addr, len, record) in networks {
        w.insert(*addr, *len, record);
    }
    w.finish()
}

/// The halves of IPv4 (`0.0.0.0/1`, `128.0.0.0/1`) in a v6 tree.
const V4_HALVES: [(u128, u32); 2] = [(0, 97), (0x8000_0000, 97)];

/// The row window across formats (issue 33): an ASN MMDB of three networks
/// (the two halves of IPv4 and `2000::/3`) covers the address space of the
/// CSV release it would replace, so the coverage rule passed and it replaced
/// the embedded 700,000-row release (rows and networks were not compared).
/// Now the CIDR networks of the two are compared, and it is refused.
#[test]
fn a_three_network_asn_mmdb_cannot_replace_a_csv_release() {
    use support::mmdb::asn;
    let dir = TempDir::new("asn-mmdb");
    let [(a, al), (b, bl)] = V4_HALVES;
    let file = mmdb_of(
        "DBIP-ASN-Lite",
        &[
            (a, al, asn(64500, "Half One")),
            (b, bl, asn(64501, "Half Two")),
            (0x2000u128 << 112, 3, asn(64502, "All Six")),
        ],
    );
    support::data::drop_in(dir.path(), "dbip-asn-lite-2026-07.mmdb", &file);
    let server = support::proc::serve(&["--data-dir", dir.str(), "--no-reverse-dns"]);
    let health = wire::get_blocking(server.addr, "/healthz", &[]).json();
    assert_eq!(
        health["refused"][0]["file"], "dbip-asn-lite-2026-07.mmdb",
        "{health}"
    );
    let reason = health["refused"][0]["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("splits into 3 CIDR networks, outside ")
            && reason.contains("the CSV release it would replace splits into"),
        "{reason}"
    );
    let v = wire::get_blocking(server.addr, "/api/v1/ip/8.8.8.8", &[]).json();
    assert_eq!(v["network"]["asn"], 15169, "{v}");
}

/// A first city release is judged by what it places (issue 33): a city MMDB
/// of four networks (the halves of IPv4, `2000::/4` and `3000::/4`) covers
/// the country table's address space, so `update --city` and the service
/// took it. Now its CIDR networks must be at least half of the country
/// table's serving (the same rule for `update`: `load::check_file`).
#[test]
fn a_first_city_release_of_four_networks_is_refused() {
    use support::mmdb::city;
    let dir = TempDir::new("city4");
    let [(a, al), (b, bl)] = V4_HALVES;
    let file = mmdb_of(
        "DBIP-City-Lite",
        &[
            (a, al, city("West", "US", 40.0, -100.0)),
            (b, bl, city("East", "CN", 30.0, 110.0)),
            (0x2000u128 << 112, 4, city("Low", "DE", 50.0, 8.0)),
            (0x3000u128 << 112, 4, city("High", "JP", 35.0, 139.0)),
        ],
    );
    support::data::drop_in(dir.path(), "dbip-city-lite-2026-07.mmdb", &file);
    let server = support::proc::serve(&["--data-dir", dir.str(), "--no-reverse-dns"]);
    let health = wire::get_blocking(server.addr, "/healthz", &[]).json();
    assert_eq!(
        health["refused"][0]["file"], "dbip-city-lite-2026-07.mmdb",
        "{health}"
    );
    let reason = health["refused"][0]["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("splits into 4 CIDR networks, fewer than ")
            && reason.contains("a first city release places at least half as many"),
        "{reason}"
    );
    assert!(health["data"]["city"].is_null(), "{health}");
    let l = location(server.addr, "8.8.8.8");
    assert!(l["city"].is_null(), "{l}");
}
