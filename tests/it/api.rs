//! Black-box tests of the HTTP API over a real loopback socket, IPv4 and IPv6.
//!
//! Most requests go through `reqwest`; requests whose exact bytes matter (bad
//! addresses, percent-encoding, HEAD bodies) go through a tiny raw HTTP/1.1
//! client so that no URL parser rewrites the request target on the way.
//! Routing cases (404, 405) need no socket and are asked of the app in-process.

use crate::support;

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::time::Duration;

use chrono::{DateTime, FixedOffset, Offset, Utc};
use serde_json::Value;

use support::TestServer;
use support::wire::{self, Wire};
use support::{LOCATION_KEYS, NETWORK_KEYS, TOP_KEYS, client};

/// RFC 9112 section 3.2: an HTTP/1.1 request without `Host`, with two, or
/// with one that is not a `host[:port]` is answered 400 `bad_host` (the
/// links of the description documents are built from it); an empty `Host`,
/// and none in HTTP/1.0, are accepted.
#[tokio::test]
async fn a_missing_doubled_or_malformed_host_is_a_400() {
    let server = support::start(support::config()).await;
    let addr = server.addr;
    let exchange = |head: String| async move { wire::exchange(addr, head.as_bytes(), b"").await };
    for (hosts, why) in [
        ("", "must name its Host"),
        (
            "Host: good.example\r\nHost: evil.example\r\n",
            "more than once",
        ),
        ("Host: a b\r\n", "not a host name"),
        ("Host: good.example:99999\r\n", "not a host name"),
        ("Host: user@good.example\r\n", "not a host name"),
        ("Host: a/b\r\n", "not a host name"),
    ] {
        for target in ["/llms.txt", "/api/v1/ip/8.8.8.8", "/"] {
            let head = format!(
                "GET {target} HTTP/1.1\r\n{hosts}Accept: application/json\r\nConnection: close\r\n\r\n"
            );
            let w = exchange(head).await;
            assert_eq!(w.status, 400, "{hosts:?} {target}: {}", w.text());
            let body = w.json();
            assert_eq!(body["error"], "bad_host", "{hosts:?} {target}: {body}");
            assert!(body["message"].as_str().unwrap().contains(why), "{body}");
        }
    }
    for head in [
        "GET /api/v1/ip/8.8.8.8 HTTP/1.1\r\nHost: \r\nConnection: close\r\n\r\n",
        "GET /api/v1/ip/8.8.8.8 HTTP/1.0\r\n\r\n",
        "GET /api/v1/ip/8.8.8.8 HTTP/1.1\r\nHost: [::1]:8080\r\nConnection: close\r\n\r\n",
        "GET /api/v1/ip/8.8.8.8 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    ] {
        let w = exchange(head.to_owned()).await;
        assert_eq!(w.status, 200, "{head:?}: {}", w.text());
    }
}

// ---------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------

/// Sends one HTTP/1.1 request with exactly this method and request target.
async fn raw(addr: SocketAddr, method: &str, target: &str, headers: &[(&str, &str)]) -> Wire {
    wire::send(addr, method, target, headers, b"").await
}

async fn get(server: &TestServer, path: &str) -> reqwest::Response {
    let url = server.url(path);
    tokio::time::timeout(Duration::from_secs(10), client().get(&url).send())
        .await
        .expect("request timed out")
        .unwrap_or_else(|e| panic!("GET {url}: {e}"))
}

async fn me_with(server: &TestServer, headers: &[(&str, &str)]) -> Value {
    let mut req = client().get(format!("{}/api/v1/me", server.base));
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let resp = req.send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let v: Value = serde_json::from_str(&resp.text().await.unwrap()).unwrap();
    assert_shape(&v);
    v
}

fn content_type(h: &reqwest::header::HeaderMap) -> String {
    h.get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

fn keys(v: &Value) -> BTreeSet<&str> {
    v.as_object()
        .unwrap_or_else(|| panic!("not an object: {v}"))
        .keys()
        .map(String::as_str)
        .collect()
}

fn set(k: &[&'static str]) -> BTreeSet<&'static str> {
    k.iter().copied().collect()
}

/// Every key of IpInfo, Location and Network present, and nothing else.
fn assert_shape(v: &Value) {
    assert_eq!(keys(v), set(TOP_KEYS), "IpInfo keys of {v}");
    assert_eq!(
        keys(&v["location"]),
        set(LOCATION_KEYS),
        "Location keys of {v}"
    );
    assert_eq!(
        keys(&v["network"]),
        set(NETWORK_KEYS),
        "Network keys of {v}"
    );
    assert!(v["ip"].is_string());
}

fn s<'a>(v: &'a Value, path: &str) -> Option<&'a str> {
    let mut cur = v;
    for part in path.split('.') {
        cur = &cur[part];
    }
    if cur.is_null() {
        return None;
    }
    Some(
        cur.as_str()
            .unwrap_or_else(|| panic!("{path} is not a string: {cur}")),
    )
}

/// The flag emoji of a two-letter code: two regional indicator symbols.
fn flag_of(code: &str) -> String {
    code.chars()
        .map(|c| char::from_u32(0x1F1E6 + (c as u32 - 'A' as u32)).unwrap())
        .collect()
}

/// `local_time` parses as RFC 3339, is about now, and its offset is the zone's offset at that instant.
fn assert_local_time(v: &Value) {
    let zone = s(v, "location.time_zone").expect("time_zone");
    let text = s(v, "location.local_time").expect("local_time");
    let t: DateTime<FixedOffset> = DateTime::parse_from_rfc3339(text)
        .unwrap_or_else(|e| panic!("local_time {text:?} is not RFC 3339: {e}"));
    let tz: chrono_tz::Tz = zone
        .parse()
        .unwrap_or_else(|e| panic!("time_zone {zone:?} is not IANA: {e}"));
    let expected = t.with_timezone(&tz).offset().fix();
    assert_eq!(
        t.offset().local_minus_utc(),
        expected.local_minus_utc(),
        "local_time {text} does not carry the offset of {zone}"
    );
    let skew = (Utc::now() - t.with_timezone(&Utc)).num_seconds().abs();
    assert!(skew < 120, "local_time {text} is {skew} s away from now");
}

/// A full country answer: every location field filled consistently.
fn assert_country(
    v: &Value,
    code: &str,
    name: &str,
    continent: &str,
    zone: &str,
    currency: &str,
    calling: &str,
) {
    assert_shape(v);
    assert_eq!(v["is_public"], Value::Bool(true), "{v}");
    assert_eq!(s(v, "location.country_code"), Some(code), "{v}");
    assert_eq!(s(v, "location.country"), Some(name), "{v}");
    let bn = s(v, "location.country_bn").expect("country_bn");
    assert!(
        !bn.is_empty()
            && bn.chars().all(|c| ('\u{0980}'..='\u{09FF}').contains(&c)
                || c == ' '
                || c == '\u{200C}'
                || c == '\u{200D}'),
        "country_bn {bn:?} is not Bengali script"
    );
    assert_eq!(s(v, "location.flag"), Some(flag_of(code).as_str()), "{v}");
    assert_eq!(s(v, "location.continent"), Some(continent), "{v}");
    assert_eq!(v["location"]["city"], Value::Null, "{v}");
    let lat = v["location"]["latitude"]
        .as_f64()
        .expect("latitude is a number");
    let lon = v["location"]["longitude"]
        .as_f64()
        .expect("longitude is a number");
    assert!(
        (-90.0..=90.0).contains(&lat) && (-180.0..=180.0).contains(&lon),
        "{v}"
    );
    assert_eq!(s(v, "location.accuracy"), Some("country"), "{v}");
    if zone.is_empty() {
        assert_eq!(v["location"]["time_zone"], Value::Null, "{v}");
        assert_eq!(v["location"]["local_time"], Value::Null, "{v}");
    } else {
        assert_eq!(s(v, "location.time_zone"), Some(zone), "{v}");
        assert_local_time(v);
    }
    assert_eq!(s(v, "location.currency"), Some(currency), "{v}");
    assert_eq!(s(v, "location.calling_code"), Some(calling), "{v}");
    assert_eq!(v["network"]["reverse_dns"], Value::Null, "{v}");
}

fn assert_network(v: &Value, asn: u64, org: &str, range: &str) {
    assert_eq!(v["network"]["asn"].as_u64(), Some(asn), "{v}");
    assert!(v["network"]["asn"].is_u64(), "asn must be an integer: {v}");
    assert_eq!(s(v, "network.organization"), Some(org), "{v}");
    assert_eq!(s(v, "network.range"), Some(range), "{v}");
}

fn assert_all_location_null(v: &Value) {
    for k in LOCATION_KEYS {
        assert_eq!(v["location"][*k], Value::Null, "location.{k} of {v}");
    }
}

async fn v4_server() -> TestServer {
    support::start(support::config()).await
}

async fn v6_server(trusted: &[&str]) -> TestServer {
    let mut cfg = support::config();
    cfg.listen = "[::1]:0".parse().unwrap();
    cfg.trusted_proxies = trusted.iter().map(|t| t.parse().unwrap()).collect();
    support::start(cfg).await
}

// ---------------------------------------------------------------------------
// lookups of known addresses
// ---------------------------------------------------------------------------

#[tokio::test]
async fn google_dns_ipv4() {
    let srv = v4_server().await;
    let v = srv.get_json("/api/v1/ip/8.8.8.8").await;
    assert_eq!(s(&v, "ip"), Some("8.8.8.8"));
    assert_eq!(s(&v, "version"), Some("IPv4"));
    assert_country(
        &v,
        "US",
        "United States",
        "North America",
        // Several times at once: no zone at country accuracy (issue 33).
        "",
        "USD",
        "+1",
    );
    assert_network(&v, 15169, "Google LLC", "8.8.8.0/24");
    let lat = v["location"]["latitude"].as_f64().unwrap();
    let lon = v["location"]["longitude"].as_f64().unwrap();
    assert!(
        (30.0..50.0).contains(&lat) && (-110.0..-85.0).contains(&lon),
        "US centroid: {lat},{lon}"
    );
}

#[tokio::test]
async fn cloudflare_dns_ipv4() {
    let srv = v4_server().await;
    let v = srv.get_json("/api/v1/ip/1.1.1.1").await;
    assert_eq!(s(&v, "ip"), Some("1.1.1.1"));
    assert_eq!(s(&v, "version"), Some("IPv4"));
    assert_country(
        &v,
        "AU",
        "Australia",
        "Oceania",
        // Several times at once: no zone at country accuracy (issue 33).
        "",
        "AUD",
        "+61",
    );
    assert_network(&v, 13335, "Cloudflare, Inc.", "1.1.1.0/24");
}

#[tokio::test]
async fn google_dns_ipv6_is_in_canada_per_dbip_lite() {
    let srv = v4_server().await;
    let v = srv.get_json("/api/v1/ip/2001:4860:4860::8888").await;
    assert_eq!(s(&v, "ip"), Some("2001:4860:4860::8888"));
    assert_eq!(s(&v, "version"), Some("IPv6"));
    assert_country(
        &v,
        "CA",
        "Canada",
        "North America",
        // Several times at once: no zone at country accuracy (issue 33).
        "",
        "CAD",
        "+1",
    );
    assert_network(&v, 15169, "Google LLC", "2001:4860:4840::/42");
}

#[tokio::test]
async fn bangladesh_address_has_every_location_field() {
    // data/dbip-country-lite.csv.gz: 14.1.103.0,14.1.103.255,BD
    let srv = v4_server().await;
    let v = srv.get_json("/api/v1/ip/14.1.103.5").await;
    assert_eq!(s(&v, "ip"), Some("14.1.103.5"));
    assert_country(&v, "BD", "Bangladesh", "Asia", "Asia/Dhaka", "BDT", "+880");
    assert_eq!(s(&v, "location.country_bn"), Some("বাংলাদেশ"));
    assert_eq!(s(&v, "location.flag"), Some("\u{1F1E7}\u{1F1E9}"));
    let t = DateTime::parse_from_rfc3339(s(&v, "location.local_time").unwrap()).unwrap();
    assert_eq!(t.offset().local_minus_utc(), 6 * 3600, "Dhaka is UTC+06:00");
    let lat = v["location"]["latitude"].as_f64().unwrap();
    let lon = v["location"]["longitude"].as_f64().unwrap();
    assert!(
        (20.0..27.0).contains(&lat) && (88.0..93.0).contains(&lon),
        "BD centroid: {lat},{lon}"
    );
    // The ASN row 14.1.100.0-14.1.103.255 (AS139009) is the source range.
    assert_network(&v, 139009, "Windstream Communication Ltd", "14.1.100.0/22");
}

#[tokio::test]
async fn same_answers_over_an_ipv6_socket() {
    let v4 = v4_server().await;
    let v6 = v6_server(&[]).await;
    assert!(v6.addr.is_ipv6());
    for path in [
        "/api/v1/ip/8.8.8.8",
        "/api/v1/ip/2001:4860:4860::8888",
        "/api/v1/ip/10.0.0.1",
    ] {
        let mut a = v4.get_json(path).await;
        let mut b = v6.get_json(path).await;
        // local_time may tick between the two requests.
        a["location"]["local_time"] = Value::Null;
        b["location"]["local_time"] = Value::Null;
        assert_eq!(a, b, "{path}");
    }
}

// ---------------------------------------------------------------------------
// canonical form
// ---------------------------------------------------------------------------

#[tokio::test]
async fn ipv6_is_reported_compressed_and_lower_case() {
    let srv = v4_server().await;
    let v = srv.get_json("/api/v1/ip/2001:DB8:0:0:0:0:0:1").await;
    assert_shape(&v);
    assert_eq!(s(&v, "ip"), Some("2001:db8::1"));
    assert_eq!(s(&v, "version"), Some("IPv6"));
    assert_eq!(v["is_public"], Value::Bool(false));

    let v = srv
        .get_json("/api/v1/ip/2001:4860:4860:0000:0000:0000:0000:8888")
        .await;
    assert_eq!(s(&v, "ip"), Some("2001:4860:4860::8888"));
    assert_eq!(s(&v, "location.country_code"), Some("CA"));

    let v = srv.get_json("/api/v1/ip/2606:4700:4700:0:0:0:0:1111").await;
    assert_eq!(s(&v, "ip"), Some("2606:4700:4700::1111"));
    assert_eq!(s(&v, "version"), Some("IPv6"));
}

#[tokio::test]
async fn ipv4_mapped_ipv6_is_reported_as_ipv4() {
    let srv = v4_server().await;
    let direct = srv.get_json("/api/v1/ip/8.8.8.8").await;
    for path in [
        "/api/v1/ip/::ffff:8.8.8.8",
        "/api/v1/ip/::FFFF:808:808",
        "/api/v1/ip/0:0:0:0:0:ffff:8.8.8.8",
    ] {
        let mut v = srv.get_json(path).await;
        assert_shape(&v);
        assert_eq!(s(&v, "ip"), Some("8.8.8.8"), "{path}");
        assert_eq!(s(&v, "version"), Some("IPv4"), "{path}");
        assert_network(&v, 15169, "Google LLC", "8.8.8.0/24");
        let mut d = direct.clone();
        v["location"]["local_time"] = Value::Null;
        d["location"]["local_time"] = Value::Null;
        assert_eq!(v, d, "{path} answers as 8.8.8.8 does");
    }
}

// ---------------------------------------------------------------------------
// special-purpose addresses
// ---------------------------------------------------------------------------

#[tokio::test]
async fn special_purpose_addresses_are_not_public_and_name_their_block() {
    let srv = v4_server().await;
    let cases = [
        ("10.1.2.3", "10.0.0.0/8", "IPv4"),
        ("192.168.1.1", "192.168.0.0/16", "IPv4"),
        ("172.16.5.4", "172.16.0.0/12", "IPv4"),
        ("127.0.0.1", "127.0.0.0/8", "IPv4"),
        ("100.64.0.1", "100.64.0.0/10", "IPv4"),
        ("169.254.1.1", "169.254.0.0/16", "IPv4"),
        ("192.0.2.1", "192.0.2.0/24", "IPv4"),
        ("198.51.100.7", "198.51.100.0/24", "IPv4"),
        ("203.0.113.9", "203.0.113.0/24", "IPv4"),
        ("198.18.0.1", "198.18.0.0/15", "IPv4"),
        ("224.0.0.1", "224.0.0.0/4", "IPv4"),
        ("240.0.0.1", "240.0.0.0/4", "IPv4"),
        ("255.255.255.255", "255.255.255.255/32", "IPv4"),
        ("0.0.0.0", "0.0.0.0/8", "IPv4"),
        ("::1", "::1/128", "IPv6"),
        ("::", "::/128", "IPv6"),
        ("fe80::1", "fe80::/10", "IPv6"),
        ("fc00::1", "fc00::/7", "IPv6"),
        ("fd12:3456::1", "fc00::/7", "IPv6"),
        ("2001:db8::", "2001:db8::/32", "IPv6"),
        ("ff02::1", "ff00::/8", "IPv6"),
    ];
    for (ip, block, version) in cases {
        let v = srv.get_json(&format!("/api/v1/ip/{ip}")).await;
        assert_shape(&v);
        assert_eq!(s(&v, "ip"), Some(ip), "{v}");
        assert_eq!(s(&v, "version"), Some(version), "{ip}");
        assert_eq!(v["is_public"], Value::Bool(false), "{ip}: {v}");
        assert_all_location_null(&v);
        assert_eq!(s(&v, "network.range"), Some(block), "{ip}: {v}");
        assert_eq!(v["network"]["asn"], Value::Null, "{ip}");
        assert_eq!(v["network"]["organization"], Value::Null, "{ip}");
    }
}

#[tokio::test]
async fn public_neighbours_of_special_blocks_are_public() {
    let srv = v4_server().await;
    for ip in [
        "172.32.0.1",
        "100.128.0.1",
        "11.0.0.1",
        "2606:4700:4700::1111",
    ] {
        let v = srv.get_json(&format!("/api/v1/ip/{ip}")).await;
        assert_eq!(v["is_public"], Value::Bool(true), "{ip}: {v}");
    }
}

#[tokio::test]
async fn public_addresses_without_data_answer_nulls() {
    let srv = v4_server().await;
    // 3000::/4 holds no row of either table.
    let v = srv.get_json("/api/v1/ip/3000::1").await;
    assert_shape(&v);
    assert_eq!(v["is_public"], Value::Bool(true));
    assert_all_location_null(&v);
    for k in NETWORK_KEYS {
        assert_eq!(v["network"][*k], Value::Null, "network.{k} of {v}");
    }
    // 192.88.99.0/24 is a gap of the country file but a row of the ASN file:
    // no location, a network whose range comes from the ASN row.
    let v = srv.get_json("/api/v1/ip/192.88.99.1").await;
    assert_eq!(v["is_public"], Value::Bool(true));
    assert_all_location_null(&v);
    assert_network(&v, 6939, "Hurricane Electric LLC", "192.88.99.0/24");
}

#[tokio::test]
async fn mapped_special_purpose_addresses_are_not_public() {
    let srv = v4_server().await;
    let v = srv.get_json("/api/v1/ip/::ffff:10.1.2.3").await;
    assert_eq!(s(&v, "ip"), Some("10.1.2.3"));
    assert_eq!(s(&v, "version"), Some("IPv4"));
    assert_eq!(v["is_public"], Value::Bool(false));
    assert_eq!(s(&v, "network.range"), Some("10.0.0.0/8"));
    assert_all_location_null(&v);
}

// ---------------------------------------------------------------------------
// bad input
// ---------------------------------------------------------------------------

/// Checks a 400 `invalid_ip` JSON answer whose message names `named` (the input after one decoding).
fn assert_invalid(r: &Wire, target: &str, named: Option<&str>) {
    assert_eq!(r.status, 400, "{target}: {r:?}");
    let ct = r.header("content-type").unwrap_or_default();
    assert!(
        ct.starts_with("application/json"),
        "{target}: content-type {ct:?}"
    );
    let v = r.json();
    assert_eq!(
        v["error"],
        Value::String("invalid_ip".into()),
        "{target}: {v}"
    );
    let message = v["message"]
        .as_str()
        .unwrap_or_else(|| panic!("{target}: no message: {v}"));
    if let Some(named) = named {
        assert!(
            message.contains(named),
            "{target}: message {message:?} does not name {named:?}"
        );
    }
    let object = v.as_object().unwrap();
    assert!(
        object.keys().all(|k| k == "error" || k == "message"),
        "{target}: {v}"
    );
}

#[tokio::test]
async fn invalid_addresses_are_400_json_naming_the_input() {
    let srv = v4_server().await;
    let cases: &[(&str, &str)] = &[
        // (request target after /api/v1/ip/, input as the server sees it)
        ("1.2.3", "1.2.3"),
        ("1.2.3.4.5", "1.2.3.4.5"),
        ("01.2.3.4", "01.2.3.4"),
        ("1.2.3.04", "1.2.3.04"),
        ("0x7f.0.0.1", "0x7f.0.0.1"),
        ("0177.0.0.1", "0177.0.0.1"),
        ("256.1.1.1", "256.1.1.1"),
        ("%201.2.3.4", " 1.2.3.4"),
        ("1.2.3.4%20", "1.2.3.4 "),
        ("1.2.3.4%0A", "1.2.3.4"),
        ("fe80::1%25eth0", "fe80::1%eth0"),
        ("[::1]", "[::1]"),
        ("%5B::1%5D", "[::1]"),
        ("1.2.3.4:80", "1.2.3.4:80"),
        ("abc", "abc"),
        ("localhost", "localhost"),
        ("::1::", "::1::"),
        ("1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7:8:9"),
        ("%2531.2.3.4", "%31.2.3.4"),
        ("8.8.8.8%2F24", "8.8.8.8/24"),
    ];
    for (target, named) in cases {
        let path = format!("/api/v1/ip/{target}");
        let r = raw(srv.addr, "GET", &path, &[]).await;
        assert_invalid(&r, &path, Some(named));
    }
}

#[tokio::test]
async fn invalid_addresses_through_a_real_client() {
    // The same refusals when the request is built by an HTTP client library.
    let srv = v4_server().await;
    for (target, named) in [
        ("1.2.3", "1.2.3"),
        ("01.2.3.4", "01.2.3.4"),
        ("%201.2.3.4", " 1.2.3.4"),
        ("fe80::1%25eth0", "fe80::1%eth0"),
    ] {
        let resp = get(&srv, &format!("/api/v1/ip/{target}")).await;
        assert_eq!(resp.status().as_u16(), 400, "{target}");
        assert!(content_type(resp.headers()).starts_with("application/json"));
        let v: Value = serde_json::from_str(&resp.text().await.unwrap()).unwrap();
        assert_eq!(v["error"], "invalid_ip", "{target}");
        assert!(
            v["message"].as_str().unwrap().contains(named),
            "{target}: {v}"
        );
    }
}

#[tokio::test]
async fn percent_encoding_is_decoded_exactly_once() {
    let srv = v4_server().await;
    // Encoded once: 1.2.3.4, a valid address.
    let r = raw(srv.addr, "GET", "/api/v1/ip/%31%2e%32%2e%33%2e%34", &[]).await;
    assert_eq!(r.status, 200, "{r:?}");
    let v = r.json();
    assert_shape(&v);
    assert_eq!(s(&v, "ip"), Some("1.2.3.4"));
    assert_eq!(s(&v, "version"), Some("IPv4"));
    // Encoded IPv6 colons.
    let r = raw(
        srv.addr,
        "GET",
        "/api/v1/ip/2001%3A4860%3A4860%3A%3A8888",
        &[],
    )
    .await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(s(&r.json(), "location.country_code"), Some("CA"));
    // Encoded twice: one decoding leaves "%31.2.3.4", which is not an address.
    let r = raw(srv.addr, "GET", "/api/v1/ip/%2531.2.3.4", &[]).await;
    assert_invalid(&r, "%2531.2.3.4", Some("%31.2.3.4"));
}

/// The address with every `.` and `:` percent-encoded: the same request to
/// the handler, but one the server's hot path leaves to the router.
fn encoded(address: &str) -> String {
    address.replace('.', "%2E").replace(':', "%3A")
}

#[tokio::test]
async fn the_hot_path_answers_exactly_as_the_router_does() {
    let srv = v4_server().await;
    let etag = raw(srv.addr, "GET", "/api/v1/ip/8.8.8.8", &[]).await;
    let etag = etag.must("etag").to_owned();
    let addresses = [
        "8.8.8.8",
        "2001:4860:4860::8888",
        "10.0.0.1",
        "::ffff:1.2.3.4",
        "1.2.3",
        "01.2.3.4",
        "fe80::1%eth0",
        "not-an-ip",
    ];
    let queries = [
        "",
        "?format=text",
        "?format=md",
        "?format=html",
        "?format=xml",
        "?x=%zz",
        "?format=text&lang=bn",
        "?lang=bn&format=html",
    ];
    let header_sets: [&[(&str, &str)]; 8] = [
        &[],
        &[("accept", "text/markdown")],
        &[("accept", "image/png")],
        &[
            ("user-agent", "curl/8.5.0"),
            ("accept", "text/plain;q=0.5, application/json"),
        ],
        &[("if-none-match", &etag)],
        &[("accept", "text/markdown"), ("accept-language", "bn")],
        &[
            ("accept-language", "bn;q=0.9, en;q=0.5"),
            ("accept", "text/plain"),
        ],
        &[("if-none-match", "*")],
    ];
    for address in addresses {
        for query in queries {
            for headers in header_sets {
                let hot = raw(
                    srv.addr,
                    "GET",
                    &format!("/api/v1/ip/{address}{query}"),
                    headers,
                )
                .await;
                let target = format!("/api/v1/ip/{}{query}", encoded(address));
                let routed = raw(srv.addr, "GET", &target, headers).await;
                let what = format!("{address}{query} {headers:?}");
                assert_eq!(hot.status, routed.status, "{what}");
                let without_date = |w: &Wire| {
                    let mut h: Vec<_> = w
                        .headers
                        .iter()
                        .filter(|(k, _)| k != "date")
                        .cloned()
                        .collect();
                    h.sort();
                    h
                };
                assert_eq!(without_date(&hot), without_date(&routed), "{what}");
                // The local time may tick between the two requests.
                let stable = |w: &Wire| {
                    w.body
                        .lines()
                        .filter(|l| !l.contains("local_time") && !l.contains("Local time"))
                        .collect::<Vec<_>>()
                        .join("\n")
                };
                assert_eq!(stable(&hot), stable(&routed), "{what}");
            }
        }
    }
}

#[tokio::test]
async fn address_that_is_not_utf8_after_decoding_is_400() {
    let srv = v4_server().await;
    for target in ["/api/v1/ip/%FF", "/api/v1/ip/1.2.3.%C0"] {
        let r = raw(srv.addr, "GET", target, &[]).await;
        assert_invalid(&r, target, None);
    }
}

#[tokio::test]
async fn missing_address_is_400() {
    let srv = v4_server().await;
    let r = raw(srv.addr, "GET", "/api/v1/ip/", &[]).await;
    assert_invalid(&r, "/api/v1/ip/", None);
    let resp = get(&srv, "/api/v1/ip/").await;
    assert_eq!(resp.status().as_u16(), 400);
    // An empty address before a field (a doubled slash from joining
    // `base + "/" + ip`) is the same missing address, not a field named
    // by the address; an address and a field still answer the field.
    for target in ["/api/v1/ip//8.8.8.8", "/api/v1/ip//asn"] {
        let r = raw(srv.addr, "GET", target, &[]).await;
        assert_invalid(&r, target, Some("missing address"));
    }
    let r = raw(srv.addr, "GET", "/api/v1/ip/8.8.8.8/asn", &[]).await;
    assert_eq!((r.status, r.body.as_str()), (200, "15169\n"), "{r:?}");
}

// ---------------------------------------------------------------------------
// 404, 405, HEAD
// ---------------------------------------------------------------------------

/// Routing alone: asked of the app in-process ([`support::inproc`]).
#[tokio::test]
async fn unknown_api_paths_are_404_with_an_error_body() {
    // One segment past an address or `me` is a field (404 `unknown_field`
    // when it names none); deeper, no route at all.
    for (path, code) in [
        ("/api/v1/nothing", "not_found"),
        ("/api/v2/ip/8.8.8.8", "not_found"),
        ("/api/", "not_found"),
        ("/api/v1", "not_found"),
        ("/api/v1/ip/8.8.8.8/extra", "unknown_field"),
        ("/api/v1/me/extra", "unknown_field"),
        ("/api/v1/ip/8.8.8.8/asn/extra", "not_found"),
        ("/api/v1/me/asn/extra", "not_found"),
    ] {
        let r = support::inproc::send("GET", path, &[]).await;
        assert_eq!(r.status, 404, "{path}: {r:?}");
        let ct = r.header("content-type").unwrap_or_default();
        assert!(ct.starts_with("application/json"), "{path}: {ct:?}");
        let v = r.json();
        assert_eq!(v["error"], Value::String(code.into()), "{path}: {v}");
        assert!(v["message"].is_string(), "{path}: {v}");
    }
}

/// Routing alone: asked of the app in-process ([`support::inproc`]).
#[tokio::test]
async fn wrong_methods_are_405_with_allow() {
    for path in [
        "/api/v1/ip/8.8.8.8",
        "/api/v1/me",
        "/api/v1/ip/",
        "/healthz",
    ] {
        for method in ["POST", "PUT", "DELETE", "PATCH"] {
            let r = support::inproc::send(method, path, &[("Content-Length", "0")]).await;
            assert_eq!(r.status, 405, "{method} {path}: {r:?}");
            let allow = r
                .header("allow")
                .unwrap_or_else(|| panic!("{method} {path}: no Allow header"));
            let allowed: Vec<&str> = allow.split(',').map(str::trim).collect();
            assert!(allowed.contains(&"GET"), "{method} {path}: Allow {allow:?}");
            assert!(
                !allowed.contains(&method),
                "{method} {path}: Allow {allow:?}"
            );
            if path.starts_with("/api/") {
                let v = r.json();
                assert!(v["error"].is_string(), "{method} {path}: {v}");
                let message = v["message"].as_str().unwrap_or_default();
                assert!(
                    message.contains(&format!("does not answer {method}")),
                    "{v}"
                );
            }
        }
    }
    // A POST-only path says so in its Allow header, and the message does
    // not claim it answers GET.
    let r = support::inproc::send("GET", "/api/v1/ip", &[]).await;
    assert_eq!((r.status, r.header("allow")), (405, Some("POST")), "{r:?}");
    assert!(
        r.json()["message"]
            .as_str()
            .unwrap()
            .contains("does not answer GET")
    );
    // GET /mcp asking for an SSE stream: the MCP transport's 405, as JSON.
    let r = support::inproc::send("GET", "/mcp", &[("accept", "text/event-stream")]).await;
    assert_eq!((r.status, r.header("allow")), (405, Some("POST")), "{r:?}");
    assert_eq!(r.json()["error"], "method_not_allowed", "{r:?}");
}

#[tokio::test]
async fn head_gives_the_get_headers_and_no_body() {
    let srv = v4_server().await;
    for path in [
        "/api/v1/ip/8.8.8.8",
        "/api/v1/ip/10.0.0.1",
        "/api/v1/me",
        "/healthz",
        "/api/v1/ip/1.2.3",
        "/api/v1/nothing",
        "/",
        "/8.8.8.8",
    ] {
        let g = raw(srv.addr, "GET", path, &[]).await;
        let h = raw(srv.addr, "HEAD", path, &[]).await;
        assert_eq!(h.status, g.status, "{path}");
        assert!(!g.body.is_empty(), "GET {path} has a body");
        assert!(h.body.is_empty(), "HEAD {path} must have no body");
        let names = |r: &Wire| -> BTreeSet<String> {
            r.headers
                .iter()
                .map(|(k, _)| k.clone())
                .filter(|k| k != "date")
                .collect()
        };
        assert_eq!(names(&h), names(&g), "{path}: header names");
        for (k, v) in &g.headers {
            if k == "date" {
                continue;
            }
            assert_eq!(h.header(k), Some(v.as_str()), "{path}: header {k}");
        }
        if path.starts_with("/api/") || path == "/healthz" {
            let ct = h.header("content-type").unwrap();
            assert!(ct.starts_with("application/json"), "{path}: {ct}");
        }
    }
    let ok = raw(srv.addr, "HEAD", "/api/v1/ip/8.8.8.8", &[]).await;
    assert_eq!(ok.status, 200);
}

// ---------------------------------------------------------------------------
// health
// ---------------------------------------------------------------------------

#[tokio::test]
async fn healthz_reports_the_loaded_releases() {
    let srv = v4_server().await;
    let v = srv.get_json("/healthz").await;
    assert_eq!(v["status"], "ok", "{v}");
    let db = iplookup::GeoDb::embedded().unwrap();
    let release = db.release();
    assert_eq!(
        v["data"]["country"]["release_date"],
        Value::String(release.country.date.clone()),
        "{v}"
    );
    assert_eq!(
        v["data"]["asn"]["release_date"],
        Value::String(release.asn.date.clone()),
        "{v}"
    );
    // The embedded releases (DESIGN.md section 6).
    assert_eq!(v["data"]["country"]["release_date"], "2026-06-01", "{v}");
    assert_eq!(v["data"]["asn"]["release_date"], "2026-06-17", "{v}");
    assert!(
        v["data"]["country"]["rows"].as_u64().unwrap() > 100_000,
        "{v}"
    );
    assert!(v["data"]["asn"]["rows"].as_u64().unwrap() > 100_000, "{v}");
    // The embedded ASN table's one overlapping row, repaired and counted by kind.
    assert_eq!(v["data"]["asn"]["trimmed_rows"], 1, "{v}");
    assert_eq!(v["data"]["asn"]["defects"]["overlap_trimmed"], 1, "{v}");
    assert_eq!(
        v["data"]["country"]["defects"]["unreadable_dropped"], 0,
        "{v}"
    );
    assert_eq!(v["refused"], serde_json::json!([]), "{v}");
}

// ---------------------------------------------------------------------------
// the caller's address
// ---------------------------------------------------------------------------

#[tokio::test]
async fn me_reports_the_ipv4_peer() {
    let srv = v4_server().await;
    let v = me_with(&srv, &[]).await;
    assert_eq!(s(&v, "ip"), Some("127.0.0.1"));
    assert_eq!(s(&v, "version"), Some("IPv4"));
    assert_eq!(v["is_public"], Value::Bool(false));
    assert_eq!(s(&v, "network.range"), Some("127.0.0.0/8"));
    assert_all_location_null(&v);
    // The answer depends on the caller: never stored by caches.
    let r = raw(srv.addr, "GET", "/api/v1/me", &[]).await;
    assert_eq!(r.header("cache-control"), Some("no-store"));
}

#[tokio::test]
async fn me_reports_the_ipv6_peer() {
    let srv = v6_server(&[]).await;
    let v = me_with(&srv, &[]).await;
    assert_eq!(s(&v, "ip"), Some("::1"));
    assert_eq!(s(&v, "version"), Some("IPv6"));
    assert_eq!(v["is_public"], Value::Bool(false));
    assert_eq!(s(&v, "network.range"), Some("::1/128"));
    assert_all_location_null(&v);
}

#[tokio::test]
#[cfg(all(target_os = "linux", target_env = "gnu"))]
async fn ipv4_peer_of_a_dual_stack_listener_is_reported_as_ipv4() {
    // A dual-stack listener even where the host makes IPv6 sockets IPv6-only.
    let mut cfg = support::config();
    cfg.trusted_proxies = vec!["127.0.0.0/8".parse().unwrap()];
    let srv = support::start_on(support::net::dual_stack_listener(), cfg);
    let v4: SocketAddr = SocketAddr::from(([127, 0, 0, 1], srv.addr.port()));
    // The socket peer is ::ffff:127.0.0.1; the answer is the IPv4 address.
    let v = raw(v4, "GET", "/api/v1/me", &[]).await.json();
    assert_shape(&v);
    assert_eq!(s(&v, "ip"), Some("127.0.0.1"), "{v}");
    assert_eq!(s(&v, "version"), Some("IPv4"));
    assert_eq!(s(&v, "network.range"), Some("127.0.0.0/8"));
    // And the mapped peer is matched against the IPv4 trusted block.
    let v = raw(
        v4,
        "GET",
        "/api/v1/me",
        &[("X-Forwarded-For", "6.6.6.6, 8.8.8.8")],
    )
    .await
    .json();
    assert_eq!(s(&v, "ip"), Some("8.8.8.8"), "{v}");
    // An IPv6 peer of the same listener is not trusted.
    let v6: SocketAddr = SocketAddr::from((std::net::Ipv6Addr::LOCALHOST, srv.addr.port()));
    let v = raw(v6, "GET", "/api/v1/me", &[("X-Forwarded-For", "8.8.8.8")])
        .await
        .json();
    assert_eq!(s(&v, "ip"), Some("::1"), "{v}");
}

const SPOOFS: &[&[(&str, &str)]] = &[
    &[("X-Forwarded-For", "8.8.8.8")],
    &[("Forwarded", "for=8.8.8.8")],
    &[("X-Real-IP", "8.8.8.8")],
    &[
        ("X-Forwarded-For", "8.8.8.8"),
        ("Forwarded", "for=1.1.1.1"),
        ("X-Real-IP", "9.9.9.9"),
    ],
    &[("Forwarded", "for=\"[2001:4860:4860::8888]:443\"")],
];

#[tokio::test]
async fn spoofed_headers_from_an_untrusted_ipv4_peer_change_nothing() {
    let srv = v4_server().await;
    let plain = me_with(&srv, &[]).await;
    assert_eq!(s(&plain, "ip"), Some("127.0.0.1"));
    for headers in SPOOFS {
        let v = me_with(&srv, headers).await;
        assert_eq!(v, plain, "{headers:?}");
    }
}

#[tokio::test]
async fn spoofed_headers_from_an_untrusted_ipv6_peer_change_nothing() {
    // Trusting 127.0.0.0/8 must not make ::1 trusted.
    let srv = v6_server(&["127.0.0.0/8"]).await;
    let plain = me_with(&srv, &[]).await;
    assert_eq!(s(&plain, "ip"), Some("::1"));
    for headers in SPOOFS {
        let v = me_with(&srv, headers).await;
        assert_eq!(v, plain, "{headers:?}");
    }
}

#[tokio::test]
async fn trusted_proxy_headers_are_read_right_to_left() {
    let mut cfg = support::config();
    cfg.trusted_proxies = vec!["127.0.0.0/8".parse().unwrap()];
    let srv = support::start(cfg).await;
    let ip = |v: &Value| s(v, "ip").unwrap().to_owned();

    // No header: the peer itself.
    assert_eq!(ip(&me_with(&srv, &[]).await), "127.0.0.1");
    // Rightmost untrusted entry, never the leftmost (which the client wrote).
    let v = me_with(&srv, &[("X-Forwarded-For", "6.6.6.6, 8.8.8.8")]).await;
    assert_eq!(ip(&v), "8.8.8.8");
    assert_eq!(s(&v, "location.country_code"), Some("US"));
    assert_eq!(v["network"]["asn"].as_u64(), Some(15169));
    // Trusted hops on the right are skipped.
    assert_eq!(
        ip(&me_with(&srv, &[("X-Forwarded-For", "1.1.1.1, 127.0.0.5")]).await),
        "1.1.1.1"
    );
    // Only X-Forwarded-For is read by default (`--client-ip-header`):
    // Forwarded and X-Real-IP, which a proxy passes through from the client,
    // are ignored (tests/client_ip.rs has every header choice).
    assert_eq!(
        ip(&me_with(&srv, &[("Forwarded", "for=\"[2001:db8::1]:443\"")]).await),
        "127.0.0.1"
    );
    assert_eq!(
        ip(&me_with(&srv, &[("X-Real-IP", "8.8.8.8")]).await),
        "127.0.0.1"
    );
    // An IPv6 entry.
    let v = me_with(
        &srv,
        &[("X-Forwarded-For", "6.6.6.6, 2001:4860:4860::8888")],
    )
    .await;
    assert_eq!(ip(&v), "2001:4860:4860::8888");
    assert_eq!(s(&v, "version"), Some("IPv6"));
    assert_eq!(s(&v, "location.country_code"), Some("CA"));
    // Mapped addresses in the header are reported as IPv4.
    let v = me_with(&srv, &[("X-Forwarded-For", "::ffff:1.1.1.1")]).await;
    assert_eq!(ip(&v), "1.1.1.1");
    assert_eq!(s(&v, "version"), Some("IPv4"));
    // A port on an IPv4 entry.
    assert_eq!(
        ip(&me_with(&srv, &[("X-Forwarded-For", "6.6.6.6, 8.8.4.4:1234")]).await),
        "8.8.4.4"
    );
}

#[tokio::test]
async fn trusted_ipv6_proxy() {
    let srv = v6_server(&["::1/128"]).await;
    let ip = |v: &Value| s(v, "ip").unwrap().to_owned();
    assert_eq!(ip(&me_with(&srv, &[]).await), "::1");
    assert_eq!(
        ip(&me_with(
            &srv,
            &[("X-Forwarded-For", "6.6.6.6, 2001:4860:4860::8888")]
        )
        .await),
        "2001:4860:4860::8888"
    );
    assert_eq!(
        ip(&me_with(&srv, &[("X-Forwarded-For", "1.1.1.1, ::1")]).await),
        "1.1.1.1"
    );
    // Headers other than the one named (X-Forwarded-For by default) are ignored.
    assert_eq!(
        ip(&me_with(&srv, &[("Forwarded", "for=8.8.8.8")]).await),
        "::1"
    );
    assert_eq!(
        ip(&me_with(&srv, &[("X-Real-IP", "2001:db8::5")]).await),
        "::1"
    );
}
