//! Prefixes (issue 30 §1): `GET /api/v1/prefix/{network}/{length}` over a real
//! socket. Each row's country is checked against the country rows of
//! `data/dbip-country-lite.csv.gz` read here with a separate, simple
//! reader; the rows of a prefix must partition it.

use std::io::Read;
use std::net::IpAddr;
use std::time::Duration;

use reqwest::header::ETAG;
use serde_json::Value;

use crate::support;
use support::http::get;

/// The country rows of the embedded data: (first, last, code), as integers
/// (IPv4 in the low 32 bits), one list per family.
pub(crate) fn country_rows() -> [Vec<(u128, u128, String)>; 2] {
    let path = format!(
        "{}/data/dbip-country-lite.csv.gz",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut text = String::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let mut out: [Vec<(u128, u128, String)>; 2] = [Vec::new(), Vec::new()];
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let mut f = line.split(',');
        let (s, e, code) = (f.next().unwrap(), f.next().unwrap(), f.next().unwrap());
        let (s, e, v6) = match (s.parse::<IpAddr>().unwrap(), e.parse::<IpAddr>().unwrap()) {
            (IpAddr::V4(s), IpAddr::V4(e)) => (u32::from(s).into(), u32::from(e).into(), false),
            (IpAddr::V6(s), IpAddr::V6(e)) => (u128::from(s), u128::from(e), true),
            _ => panic!("mixed families: {line}"),
        };
        out[usize::from(v6)].push((s, e, code.trim().to_owned()));
    }
    out
}

fn wide(ip: &str) -> (u128, bool) {
    match ip.parse::<IpAddr>().unwrap() {
        IpAddr::V4(a) => (u32::from(a).into(), false),
        IpAddr::V6(a) => (u128::from(a), true),
    }
}

/// `GET path` until it is not 503 (the first question of a release builds
/// its tables, which in a debug build on a loaded machine can pass the
/// answers' 10 s deadline), each waited for 30 s, within two minutes.
pub(crate) async fn settled(server: &support::TestServer, path: &str) -> (u16, String) {
    let client = support::client();
    let started = std::time::Instant::now();
    loop {
        let sent = client
            .get(server.url(path))
            .timeout(Duration::from_secs(30))
            .send();
        let (status, body) = match sent.await {
            Ok(r) => (r.status().as_u16(), r.text().await.unwrap_or_default()),
            Err(e) if e.is_timeout() => (503, String::new()),
            Err(e) => panic!("GET {path}: {e}"),
        };
        if status != 503 || started.elapsed() > Duration::from_secs(120) {
            return (status, body);
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Every page of `prefix`: its rows, in order, and the first answer.
async fn all_rows(server: &support::TestServer, prefix: &str) -> (Value, Vec<Value>) {
    let (status, body) = settled(server, &format!("/api/v1/prefix/{prefix}")).await;
    assert_eq!(status, 200, "{prefix}: {body}");
    let first: Value = serde_json::from_str(&body).unwrap();
    let pages = first["page"]["pages"].as_u64().unwrap();
    let mut rows: Vec<Value> = first["rows"].as_array().unwrap().clone();
    for n in 2..=pages {
        let (status, body) = settled(server, &format!("/api/v1/prefix/{prefix}?page={n}")).await;
        assert_eq!(status, 200, "{prefix} page {n}: {body}");
        let v: Value = serde_json::from_str(&body).unwrap();
        rows.extend(v["rows"].as_array().unwrap().iter().cloned());
    }
    assert_eq!(rows.len() as u64, first["row_count"].as_u64().unwrap());
    (first, rows)
}

/// The rows of a prefix partition it (each row's first address follows the
/// last one's, their addresses add up to the prefix's), and each row's
/// country is the one the source's country row of its first and of its
/// last address gives; each row's AS is what a lookup of its first address
/// gives.
#[tokio::test]
async fn a_prefixs_rows_are_the_datas_rows() {
    let server = support::start(support::config()).await;
    let source = country_rows();
    let client = support::client();
    for prefix in ["1.0.0.0/14", "41.0.0.0/11", "2c0f:f248::/32"] {
        let (first, rows) = all_rows(&server, prefix).await;
        let size: u128 = first["addresses"].as_str().unwrap().parse().unwrap();
        let mut sum = 0u128;
        let mut next: Option<u128> = None;
        for (i, row) in rows.iter().enumerate() {
            let (a, v6) = wide(row["first"].as_str().unwrap());
            let (b, _) = wide(row["last"].as_str().unwrap());
            if let Some(n) = next {
                assert_eq!(a, n, "{prefix} row {i}: a gap or an overlap");
            }
            next = b.checked_add(1);
            let n: u128 = row["addresses"].as_str().unwrap().parse().unwrap();
            assert_eq!(n, b - a + 1, "{prefix} row {i}");
            sum += n;
            let rows = &source[usize::from(v6)];
            let code_of = |x: u128| {
                let at = rows.partition_point(|r| r.0 <= x);
                at.checked_sub(1)
                    .map(|k| &rows[k])
                    .filter(|r| r.1 >= x)
                    .map(|r| r.2.clone())
            };
            let code = row["country_code"].as_str().map(str::to_owned);
            assert_eq!(code_of(a), code, "{prefix} row {i} first");
            assert_eq!(code_of(b), code, "{prefix} row {i} last");
        }
        assert_eq!(sum, size, "{prefix}: the rows hold the prefix");
        // The AS of a few rows, by the lookup of their first address.
        for row in rows.iter().step_by((rows.len() / 8).max(1)) {
            let ip = row["first"].as_str().unwrap();
            let (_, _, body) = get(&client, &server.url(&format!("/api/v1/ip/{ip}"))).await;
            let info: Value = serde_json::from_str(&body).unwrap();
            assert_eq!(info["network"]["asn"], row["asn"], "{prefix}: {ip}");
        }
    }
}

/// A prefix inside one row: the covering block is the address's
/// `network.range`; a prefix in a special block names it; pages past the
/// last are 404; the answer is JSON with a weak release ETag, and 304 again.
#[tokio::test]
async fn covering_blocks_special_blocks_pages_and_tags() {
    let server = support::start(support::config()).await;
    let client = support::client();
    let (status, body) = settled(&server, "/api/v1/prefix/8.8.8.0/25").await;
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    let ip = server.get_json("/api/v1/ip/8.8.8.8").await;
    assert_eq!(v["covering"], ip["network"]["range"]);
    assert_eq!(
        (v["row_count"].as_u64(), v["addresses"].as_str()),
        (Some(1), Some("128"))
    );
    assert_eq!(v["rows"][0]["clipped"], true);
    let private = server.get_json("/api/v1/prefix/10.0.0.0/8").await;
    assert_eq!(private["special_purpose"]["name"], "Private-Use");
    assert_eq!(private["rows"][0]["country_code"], Value::Null);
    // The slash encoded: the same answer.
    let encoded = server.get_json("/api/v1/prefix/8.8.8.0%2F25").await;
    assert_eq!(encoded, v);
    // A wide prefix comes in pages of 500.
    let (status, body) = settled(&server, "/api/v1/prefix/0.0.0.0/0?page=2").await;
    assert_eq!(status, 200, "{body}");
    let wide: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(wide["rows"].as_array().unwrap().len(), 500);
    let pages = wide["page"]["pages"].as_u64().unwrap();
    assert!(pages > 100, "{pages}");
    let (status, _, body) = get(
        &client,
        &server.url(&format!("/api/v1/prefix/0.0.0.0/0?page={}", pages + 1)),
    )
    .await;
    assert_eq!(status, 404, "{body}");
    let url = server.url("/api/v1/prefix/8.8.8.0/24");
    let (status, headers, _) = get(&client, &url).await;
    assert_eq!(status, 200);
    let tag = headers[ETAG].to_str().unwrap().to_owned();
    assert!(tag.starts_with("W/\""), "{tag}");
    let again = client
        .get(&url)
        .header("If-None-Match", &tag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
}

/// Host bits, a length out of range, text that is no prefix, an address
/// without a length: 400 `invalid_prefix`, saying what would work.
#[tokio::test]
async fn what_is_no_prefix_is_told_what_would_work() {
    let server = support::start(support::config()).await;
    let client = support::client();
    for (path, says) in [
        ("/api/v1/prefix/8.8.8.8/24", "8.8.8.0/24"),
        ("/api/v1/prefix/8.8.8.0/33", "0 to 32"),
        ("/api/v1/prefix/2001:4860::1/32", "2001:4860::/32"),
        ("/api/v1/prefix/2001:db8::/129", "0 to 128"),
        (
            "/api/v1/prefix/example.com/24",
            "not an IPv4 or IPv6 address",
        ),
        ("/api/v1/prefix/8.8.8.0/x", "whole number"),
        ("/api/v1/prefix/8.8.8.8", "8.8.8.8/32"),
        ("/api/v1/prefix/8.8.8.0%2F24x", "whole number"),
    ] {
        let (status, _, body) = get(&client, &server.url(path)).await;
        assert_eq!(status, 400, "{path}: {body}");
        let e: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(e["error"], "invalid_prefix", "{path}");
        let message = e["message"].as_str().unwrap();
        assert!(message.contains(says), "{path}: {message}");
    }
    let (status, _, body) = get(&client, &server.url("/api/v1/prefix/8.8.8.0/24?page=0")).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("bad_query"));
}

/// `page` is declared an int32 from 1 to 2147483647 on every route that
/// takes it, so a page past it is a 400 on each, the field answers of the
/// prefix route too (they ignore the page otherwise; schemathesis found
/// one answering 200).
#[tokio::test]
async fn a_page_past_the_int32_range_is_refused_on_every_paged_route() {
    let server = support::start(support::config()).await;
    let client = support::client();
    for path in [
        "/api/v1/asn/15169",
        "/AS15169",
        "/api/v1/prefix/8.8.8.0/24",
        "/8.8.8.0/24",
        "/::14e/is_public",
        "/api/v1/country/BD",
        "/country/BD",
    ] {
        let url = server.url(&format!("{path}?page=2147483648&format=json"));
        let (status, _, body) = get(&client, &url).await;
        assert_eq!(status, 400, "{path}: {body}");
        assert!(body.contains("bad_query"), "{path}: {body}");
        let url = server.url(&format!("{path}?page=2147483647&format=json"));
        let (status, _, body) = get(&client, &url).await;
        assert_ne!(status, 400, "{path}: {body}");
    }
}
