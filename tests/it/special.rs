//! Private and special addresses explained (issue 14, section 4): over a
//! real loopback socket, the text, Markdown and HTML pages of a non-public
//! address name its IANA special-purpose registry entry and RFC right after
//! its block; the JSON keeps exactly the specification's fields; a public
//! address has no such line (nor one in the global unicast space 2000::/3,
//! nor the IPv4/IPv6 translation prefix inside the reserved ::/8); the root page of a caller on loopback names
//! Loopback.

use serde_json::Value;

use crate::support::{self, TestServer, http::get};

/// Address, its registry block, and the entry as the pages must name it
/// (the IANA registry's name and its "RFC" column).
const CASES: &[(&str, &str, &str)] = &[
    ("10.1.2.3", "10.0.0.0/8", "Private-Use (RFC 1918)"),
    ("127.0.0.1", "127.0.0.0/8", "Loopback (RFC 1122)"),
    (
        "192.0.2.1",
        "192.0.2.0/24",
        "Documentation (TEST-NET-1, RFC 5737)",
    ),
    (
        "100.64.0.1",
        "100.64.0.0/10",
        "Shared Address Space (RFC 6598)",
    ),
    ("::1", "::1/128", "Loopback Address (RFC 4291)"),
    ("fd00::1", "fc00::/7", "Unique-Local (RFC 4193, RFC 8190)"),
    ("2001:db8::1", "2001:db8::/32", "Documentation (RFC 3849)"),
    ("fe80::1", "fe80::/10", "Link-Local Unicast (RFC 4291)"),
    // IPv6 space the IANA IPv6 Address Space registry keeps back.
    ("4000::1", "4000::/3", "Reserved by IETF (RFC 4291)"),
    ("::808:808", "::/8", "Reserved by IETF (RFC 4291)"),
    ("e000::1", "e000::/4", "Reserved by IETF (RFC 4291)"),
    ("fec0::1", "fec0::/10", "Site-Local (deprecated, RFC 3879)"),
];

/// The specification's fields of IpInfo (SPEC 2.1 to 2.3), and no other.
const TOP_KEYS: &[&str] = &["ip", "is_public", "location", "network", "version"];
const LOCATION_KEYS: &[&str] = &[
    "accuracy",
    "calling_code",
    "city",
    "continent",
    "country",
    "country_bn",
    "country_code",
    "currency",
    "flag",
    "latitude",
    "local_time",
    "longitude",
    "time_zone",
];
const NETWORK_KEYS: &[&str] = &["asn", "organization", "range", "reverse_dns"];

async fn page(srv: &TestServer, path: &str) -> String {
    let (status, _, body) = get(&support::client(), &srv.url(path)).await;
    assert_eq!(status, 200, "GET {path}: {body}");
    body
}

/// The value of the `key:` line of an aligned text page, and the line before it.
fn text_row<'a>(body: &'a str, key: &str) -> Option<(&'a str, &'a str)> {
    let lines: Vec<&str> = body.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with(&format!("{key}:")))?;
    let value = lines[at][key.len() + 1..].trim();
    Some((value, if at > 0 { lines[at - 1] } else { "" }))
}

fn assert_json_keys(v: &Value, what: &str) {
    let keys = |v: &Value| -> Vec<String> {
        let mut k: Vec<String> = v
            .as_object()
            .unwrap_or_else(|| panic!("{what}: not an object: {v}"))
            .keys()
            .cloned()
            .collect();
        k.sort();
        k
    };
    assert_eq!(keys(v), TOP_KEYS, "{what}: {v}");
    assert_eq!(keys(&v["location"]), LOCATION_KEYS, "{what}: {v}");
    assert_eq!(keys(&v["network"]), NETWORK_KEYS, "{what}: {v}");
    assert!(!v.to_string().contains("RFC"), "{what}: {v}");
}

#[tokio::test]
async fn text_pages_name_the_registry_entry_after_the_range() {
    let srv = support::start(support::config()).await;
    for &(ip, block, entry) in CASES {
        for path in [
            format!("/{ip}?format=text"),
            format!("/api/v1/ip/{ip}?format=text"),
        ] {
            let body = page(&srv, &path).await;
            let (value, before) = text_row(&body, "special_purpose")
                .unwrap_or_else(|| panic!("{path}: no special_purpose line:\n{body}"));
            assert_eq!(value, entry, "{path}:\n{body}");
            assert!(before.starts_with("range:"), "{path}:\n{body}");
            assert_eq!(before["range:".len()..].trim(), block, "{path}:\n{body}");
        }
    }
}

#[tokio::test]
async fn markdown_pages_name_the_registry_entry_after_the_range() {
    let srv = support::start(support::config()).await;
    for &(ip, block, entry) in CASES {
        for path in [
            format!("/{ip}?format=md"),
            format!("/api/v1/ip/{ip}?format=md"),
        ] {
            let body = page(&srv, &path).await;
            let rows = format!("| range | {block} |\n| special_purpose | {entry} |\n");
            assert!(body.contains(&rows), "{path}: no\n{rows}in\n{body}");
        }
    }
}

#[tokio::test]
async fn html_pages_name_the_registry_entry_after_the_range() {
    let srv = support::start(support::config()).await;
    for &(ip, block, entry) in CASES {
        for path in [
            format!("/{ip}?format=html"),
            format!("/api/v1/ip/{ip}?format=html"),
        ] {
            let body = page(&srv, &path).await;
            let network = block.split('/').next().unwrap();
            let cells =
                format!("<dt>Range</dt><dd id=\"range\"><a href=\"/{network}\">{block}</a></dd>");
            assert!(body.contains(&cells), "{path}: no {cells} in\n{body}");
            let cells = format!(
                "<div><dt>Special-purpose block</dt><dd id=\"special-block\">{entry}</dd></div>"
            );
            assert!(body.contains(&cells), "{path}: no {cells} in\n{body}");
            let lead = format!("<span id=\"special\">{entry}</span>");
            assert!(body.contains(&lead), "{path}: no {lead} in\n{body}");
        }
    }
}

#[tokio::test]
async fn json_of_special_addresses_keeps_the_specification_fields() {
    let srv = support::start(support::config()).await;
    for &(ip, block, _) in CASES {
        for path in [format!("/api/v1/ip/{ip}"), format!("/{ip}?format=json")] {
            let v = srv.get_json(&path).await;
            assert_json_keys(&v, &path);
            assert_eq!(v["is_public"], Value::Bool(false), "{path}: {v}");
            assert_eq!(v["network"]["range"], Value::from(block), "{path}: {v}");
        }
    }
}

#[tokio::test]
async fn public_addresses_have_no_registry_line() {
    let srv = support::start(support::config()).await;
    for ip in [
        "8.8.8.8",
        "1.1.1.1",
        "2606:4700:4700::1111",
        "192.0.0.9",
        "64:ff9b::808:808",
    ] {
        for format in ["text", "md", "html"] {
            let path = format!("/{ip}?format={format}");
            let body = page(&srv, &path).await;
            for marker in ["special_purpose", "special-purpose", "RFC "] {
                assert!(!body.contains(marker), "{path}: {marker:?} in\n{body}");
            }
        }
        let v = srv.get_json(&format!("/api/v1/ip/{ip}")).await;
        assert_eq!(v["is_public"], Value::Bool(true), "{ip}: {v}");
        assert_json_keys(&v, ip);
    }
}

#[tokio::test]
async fn the_root_page_of_a_loopback_caller_names_its_entry() {
    let v4 = support::start(support::config()).await;
    let mut cfg = support::config();
    cfg.listen = "[::1]:0".parse().unwrap();
    let v6 = support::start(cfg).await;
    for (srv, block, entry) in [
        (&v4, "127.0.0.0/8", "Loopback (RFC 1122)"),
        (&v6, "::1/128", "Loopback Address (RFC 4291)"),
    ] {
        let md = page(srv, "/?format=md").await;
        let rows = format!("| range | {block} |\n| special_purpose | {entry} |\n");
        assert!(md.contains(&rows), "root Markdown: no\n{rows}in\n{md}");
        let html = page(srv, "/?format=html").await;
        let cell = format!("<dt>Special-purpose block</dt><dd id=\"special-block\">{entry}</dd>");
        assert!(html.contains(&cell), "root HTML: no {cell} in\n{html}");
        let me = page(srv, "/api/v1/me?format=text").await;
        assert_eq!(text_row(&me, "special_purpose").map(|r| r.0), Some(entry));
        // The root's text form stays the bare address, its JSON the spec's fields.
        let bare = page(srv, "/?format=text").await;
        assert_eq!(bare.trim_end(), srv.addr.ip().to_string());
        assert_json_keys(&srv.get_json("/?format=json").await, "root JSON");
        assert_json_keys(&srv.get_json("/api/v1/me").await, "/api/v1/me");
    }
}
