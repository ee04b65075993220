//! Autonomous systems (issue 14 §2): `GET /api/v1/asn/{asn}` and the page
//! `/AS{asn}`, over a real socket. The prefixes are checked against the
//! ASN rows of `data/asn.csv.gz` read here with a separate, simple reader.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::net::IpAddr;

use ipnet::IpNet;
use reqwest::header::{CACHE_CONTROL, CONTENT_TYPE, ETAG};
use serde_json::Value;

use crate::support;
use support::http::get;

/// Inclusive ranges of one family, as integers (IPv4 in the low 32 bits).
type Ranges = Vec<(u128, u128)>;

/// The ASN rows of the embedded data, per AS number: (IPv4 ranges, IPv6
/// ranges), each range from its effective start (a row overlapping the one
/// before begins after it, as the release rule trims it; a row inside earlier
/// rows is dropped).
fn rows_by_asn() -> BTreeMap<u32, (Ranges, Ranges)> {
    let path = format!("{}/data/asn.csv.gz", env!("CARGO_MANIFEST_DIR"));
    let mut text = String::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let mut out: BTreeMap<u32, (Ranges, Ranges)> = BTreeMap::new();
    // Per family, the first address not yet covered.
    let mut next: [Option<u128>; 2] = [Some(0), Some(0)];
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let mut f = line.splitn(4, ',');
        let (s, e) = (f.next().unwrap(), f.next().unwrap());
        let asn: u32 = f.next().unwrap().parse().unwrap();
        let (s, e, v6) = match (s.parse::<IpAddr>().unwrap(), e.parse::<IpAddr>().unwrap()) {
            (IpAddr::V4(s), IpAddr::V4(e)) => (u32::from(s).into(), u32::from(e).into(), false),
            (IpAddr::V6(s), IpAddr::V6(e)) => (u128::from(s), u128::from(e), true),
            _ => panic!("mixed families: {line}"),
        };
        let Some(from) = next[usize::from(v6)] else {
            continue;
        };
        if e < from {
            continue;
        }
        let start = s.max(from);
        next[usize::from(v6)] = e.checked_add(1);
        let entry = out.entry(asn).or_default();
        match v6 {
            false => entry.0.push((start, e)),
            true => entry.1.push((start, e)),
        }
    }
    out
}

/// Sorted ranges with touching ones joined.
fn union(mut ranges: Ranges) -> Ranges {
    ranges.sort();
    let mut out: Ranges = Vec::new();
    for (s, e) in ranges {
        match out.last_mut() {
            Some(last) if last.1.checked_add(1) == Some(s) => last.1 = e,
            _ => out.push((s, e)),
        }
    }
    out
}

/// The ranges of a JSON list of CIDR prefixes; panics when two overlap.
fn prefix_ranges(list: &Value, what: &str) -> Ranges {
    let mut ranges: Ranges = list
        .as_array()
        .unwrap_or_else(|| panic!("{what}: not a list"))
        .iter()
        .map(|p| {
            let net: IpNet = p.as_str().unwrap().parse().unwrap();
            assert_eq!(net, net.trunc(), "{what}: {net} has host bits");
            match net {
                IpNet::V4(n) => (
                    u32::from(n.network()).into(),
                    u32::from(n.broadcast()).into(),
                ),
                IpNet::V6(n) => (u128::from(n.network()), u128::from(n.broadcast())),
            }
        })
        .collect();
    ranges.sort();
    for w in ranges.windows(2) {
        assert!(w[0].1 < w[1].0, "{what}: {:?} overlaps {:?}", w[0], w[1]);
    }
    ranges
}

fn count(ranges: &Ranges) -> u128 {
    ranges.iter().map(|(s, e)| e - s + 1).sum()
}

/// The AS numbers the coverage test asks about: Google, Cloudflare, the one
/// with the most rows, and every 997th AS of the file (a fixed spread over
/// all of them, IPv4-only, IPv6-only and mixed ones alike).
fn sample(rows: &BTreeMap<u32, (Ranges, Ranges)>) -> Vec<u32> {
    let biggest = rows
        .iter()
        .max_by_key(|(_, (v4, v6))| v4.len() + v6.len())
        .map(|(asn, _)| *asn)
        .unwrap();
    let mut sample: BTreeSet<u32> = [15169, 13335, biggest].into();
    sample.extend(rows.keys().step_by(997));
    sample.into_iter().collect()
}

/// The JSON of an AS with the prefixes of all its pages (`?page=1..pages`),
/// checking that each page says where it is.
async fn every_page(server: &support::TestServer, asn: u32) -> Value {
    let mut info = server.get_json(&format!("/api/v1/asn/{asn}")).await;
    let pages = info["page"]["pages"].as_u64().unwrap();
    assert_eq!(info["page"]["number"], 1, "AS{asn}");
    for n in 2..=pages {
        let page = server
            .get_json(&format!("/api/v1/asn/{asn}?page={n}"))
            .await;
        assert_eq!(page["page"]["number"], n, "AS{asn}");
        for family in ["v4", "v6"] {
            let more = page["prefixes"][family].as_array().unwrap().clone();
            info["prefixes"][family]
                .as_array_mut()
                .unwrap()
                .extend(more);
        }
    }
    for family in ["v4", "v6"] {
        assert_eq!(
            info["prefixes"][family].as_array().unwrap().len() as u64,
            info["prefix_count"][family].as_u64().unwrap(),
            "AS{asn} {family}: the pages hold prefix_count"
        );
    }
    info
}

#[tokio::test]
async fn prefixes_cover_exactly_the_rows_of_sampled_systems() {
    let rows = rows_by_asn();
    let server = support::start(support::config()).await;
    let asns = sample(&rows);
    assert!(asns.len() > 20, "{}", asns.len());
    for asn in asns {
        let info = every_page(&server, asn).await;
        assert_eq!(info["asn"], asn);
        let (v4_rows, v6_rows) = rows[&asn].clone();
        let v4 = prefix_ranges(&info["prefixes"]["v4"], &format!("AS{asn} v4"));
        let v6 = prefix_ranges(&info["prefixes"]["v6"], &format!("AS{asn} v6"));
        // The same number of addresses, in the same places.
        assert_eq!(count(&v4), count(&v4_rows), "AS{asn} IPv4 addresses");
        assert_eq!(count(&v6), count(&v6_rows), "AS{asn} IPv6 addresses");
        assert_eq!(union(v4), union(v4_rows.clone()), "AS{asn} IPv4 ranges");
        assert_eq!(union(v6), union(v6_rows.clone()), "AS{asn} IPv6 ranges");
        assert_eq!(info["addresses"]["v4"], count(&v4_rows) as u64, "AS{asn}");
        assert_eq!(
            info["addresses"]["v6"],
            count(&v6_rows).to_string(),
            "AS{asn}"
        );
        // The countries share out at most its IPv4 space, most first.
        let countries = info["countries"].as_array().unwrap();
        let in_countries: u64 = countries
            .iter()
            .map(|c| c["addresses"].as_u64().unwrap())
            .sum();
        assert!(in_countries <= count(&v4_rows) as u64, "AS{asn}: {info}");
        let shares: f64 = countries.iter().map(|c| c["share"].as_f64().unwrap()).sum();
        assert!(shares <= 1.0 + 1e-4, "AS{asn}: {shares}");
        let counts: Vec<u64> = countries
            .iter()
            .map(|c| c["addresses"].as_u64().unwrap())
            .collect();
        assert!(
            counts.windows(2).all(|w| w[0] >= w[1]),
            "AS{asn}: {counts:?}"
        );
    }
}

/// The countries of an AS's IPv4 space agree with the address pages: the
/// country of the first address of each of its first prefixes is listed.
#[tokio::test]
async fn countries_are_those_of_its_addresses() {
    let server = support::start(support::config()).await;
    let info = server.get_json("/api/v1/asn/AS13335").await;
    let listed: BTreeSet<&str> = info["countries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["country_code"].as_str().unwrap())
        .collect();
    for prefix in info["prefixes"]["v4"].as_array().unwrap().iter().take(20) {
        let net: IpNet = prefix.as_str().unwrap().parse().unwrap();
        let ip = server
            .get_json(&format!("/api/v1/ip/{}", net.network()))
            .await;
        assert_eq!(ip["network"]["asn"], 13335, "{net}");
        if let Some(code) = ip["location"]["country_code"].as_str() {
            assert!(listed.contains(code), "{net}: {code} not in {listed:?}");
        }
    }
}

#[tokio::test]
async fn both_spellings_give_one_answer_cached_by_release() {
    let server = support::start(support::config()).await;
    let client = support::client();
    let mut answers = Vec::new();
    for spelling in ["15169", "AS15169", "as15169", "As15169"] {
        let url = server.url(&format!("/api/v1/asn/{spelling}"));
        let (status, headers, body) = get(&client, &url).await;
        assert_eq!(status, 200, "{url}: {body}");
        assert!(
            headers[CONTENT_TYPE]
                .to_str()
                .unwrap()
                .starts_with("application/json")
        );
        assert_eq!(headers[CACHE_CONTROL], "public, max-age=300", "{url}");
        assert!(headers.get(ETAG).is_some(), "{url}");
        answers.push(body);
    }
    assert!(answers.windows(2).all(|w| w[0] == w[1]));
    // The release's ETag (one per format) answers 304 on the API and on the page.
    let (_, headers, _) = get(&client, &server.url("/api/v1/asn/15169")).await;
    let tag = headers[ETAG].to_str().unwrap().to_owned();
    for path in ["/api/v1/asn/AS15169", "/AS15169?format=json"] {
        let r = client
            .get(server.url(path))
            .header(reqwest::header::IF_NONE_MATCH, &tag)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 304, "{path}");
    }
    let info: Value = serde_json::from_str(&answers[0]).unwrap();
    assert_eq!(info["asn"], 15169);
    let direct = server.get_json("/api/v1/ip/8.8.8.8").await;
    assert_eq!(info["organization"], direct["network"]["organization"]);
    let v4 = info["prefixes"]["v4"].as_array().unwrap();
    let range = direct["network"]["range"].as_str().unwrap();
    let range: IpNet = range.parse().unwrap();
    assert!(
        v4.iter().any(|p| p
            .as_str()
            .unwrap()
            .parse::<IpNet>()
            .unwrap()
            .contains(&range)),
        "{range} in none of {v4:?}"
    );
}

/// A number with no rows: 404 `unknown_asn`; anything not a number: 400 `invalid_asn`.
#[tokio::test]
async fn unknown_and_malformed_numbers_are_told_apart() {
    let rows = rows_by_asn();
    let unused = (1..).find(|n| !rows.contains_key(n)).unwrap();
    let server = support::start(support::config()).await;
    let client = support::client();
    let cases = [
        (format!("{unused}"), 404, "unknown_asn"),
        (format!("AS{unused}"), 404, "unknown_asn"),
        ("4199999999".into(), 404, "unknown_asn"),
        ("4294967296".into(), 400, "invalid_asn"),
        ("AS99999999999".into(), 400, "invalid_asn"),
        ("AS".into(), 400, "invalid_asn"),
        ("as".into(), 400, "invalid_asn"),
        ("google".into(), 400, "invalid_asn"),
        ("AS-1".into(), 400, "invalid_asn"),
        ("%2B15169".into(), 400, "invalid_asn"),
        ("AS%2015169".into(), 400, "invalid_asn"),
        ("15169.5".into(), 400, "invalid_asn"),
        ("%FF".into(), 400, "invalid_asn"),
        (String::new(), 400, "invalid_asn"),
    ];
    for (asn, status, code) in cases {
        let url = server.url(&format!("/api/v1/asn/{asn}"));
        let (got, headers, body) = get(&client, &url).await;
        assert_eq!(got, status, "{url}: {body}");
        assert!(
            headers[CONTENT_TYPE]
                .to_str()
                .unwrap()
                .starts_with("application/json")
        );
        let error: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(error["error"], code, "{url}: {body}");
        assert!(
            error["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{body}"
        );
        assert_ne!(headers[CACHE_CONTROL], "public, max-age=300", "{url}");
    }
}

#[tokio::test]
async fn the_page_comes_in_four_formats_with_the_attribution() {
    let server = support::start(support::config()).await;
    let client = support::client();
    let api = server.get_json("/api/v1/asn/15169").await;
    let first_v4 = api["prefixes"]["v4"][0].as_str().unwrap().to_owned();
    let first_v6 = api["prefixes"]["v6"][0].as_str().unwrap().to_owned();
    let top = api["countries"][0]["country"].as_str().unwrap().to_owned();
    for path in ["/AS15169", "/as15169"] {
        let url = |f: &str| server.url(&format!("{path}?format={f}"));
        let (status, headers, json) = get(&client, &url("json")).await;
        assert_eq!(status, 200, "{path}: {json}");
        assert!(
            headers[CONTENT_TYPE]
                .to_str()
                .unwrap()
                .starts_with("application/json")
        );
        assert_eq!(serde_json::from_str::<Value>(&json).unwrap(), api, "{path}");

        let (status, headers, html) = get(&client, &url("html")).await;
        assert_eq!(status, 200, "{path}");
        assert!(
            headers[CONTENT_TYPE]
                .to_str()
                .unwrap()
                .starts_with("text/html")
        );
        assert!(html.contains("<h1 id=\"asn\">AS15169</h1>"), "{html}");
        assert!(html.contains("Google LLC"), "{path}");
        // Each prefix links its prefix page, then its country and size.
        assert!(
            html.contains(&format!("<li><a href=\"/{first_v4}\">{first_v4}</a> ")),
            "{path}"
        );
        assert!(
            html.contains(&format!("<li><a href=\"/{first_v6}\">{first_v6}</a> ")),
            "{path}"
        );
        assert!(html.contains("<table id=\"countries\">"), "{path}");
        assert!(html.contains(&top), "{path}: {top}");
        assert!(html.contains("<a href=\"https://db-ip.com\">IP Geolocation by DB-IP</a>"));
        assert_eq!(headers[CACHE_CONTROL], "public, max-age=300");

        let (status, _, md) = get(&client, &url("md")).await;
        assert_eq!(status, 200, "{path}");
        assert!(md.starts_with("# AS15169 Google LLC\n"), "{md}");
        assert!(md.contains(&format!("- [`{first_v4}`](/")), "{path}");
        assert!(md.contains("## Countries (IPv4)"), "{path}");
        assert!(
            md.contains("[IP Geolocation by DB-IP](https://db-ip.com)"),
            "{path}"
        );

        let (status, _, text) = get(&client, &url("text")).await;
        assert_eq!(status, 200, "{path}");
        let line = |key: &str| {
            text.lines()
                .filter(|l| l.split(':').next() == Some(key))
                .count()
        };
        assert_eq!(line("asn"), 1, "{text}");
        assert_eq!(
            line("prefix_v4"),
            api["prefixes"]["v4"].as_array().unwrap().len()
        );
        assert_eq!(line("country"), api["countries"].as_array().unwrap().len());
    }
    // Terminals get text, browsers HTML by default.
    let (_, headers, _) = get(&client, &server.url("/AS15169")).await;
    assert!(
        headers[CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("text/plain")
    );
}

/// The prefixes of a large AS come in pages of 500 in every format, each
/// linked to the next and the previous (`Link`, and in the page), and the
/// CSV lists them all.
#[tokio::test]
async fn a_large_system_comes_in_linked_pages() {
    let rows = rows_by_asn();
    let server = support::start(support::config()).await;
    let client = support::client();
    // The AS with the most IPv4 rows: its prefixes fill several pages.
    let (asn, _) = rows.iter().max_by_key(|(_, (v4, _))| v4.len()).unwrap();
    let all = every_page(&server, *asn).await;
    let total =
        all["prefix_count"]["v4"].as_u64().unwrap() + all["prefix_count"]["v6"].as_u64().unwrap();
    let pages = all["page"]["pages"].as_u64().unwrap();
    assert!(pages >= 3, "AS{asn}: {pages} pages");
    assert_eq!(pages, total.div_ceil(500));
    assert_eq!(all["page"]["per_page"], 500);
    // Page 2 of each format: 500 prefixes, and its neighbours linked.
    for (base, format, default_link) in [
        (format!("/api/v1/asn/{asn}"), "json", true),
        (format!("/AS{asn}"), "text", false),
        (format!("/AS{asn}"), "md", false),
        (format!("/AS{asn}"), "html", false),
    ] {
        let url = if default_link {
            server.url(&format!("{base}?page=2"))
        } else {
            server.url(&format!("{base}?page=2&format={format}"))
        };
        let (status, headers, body) = get(&client, &url).await;
        assert_eq!(status, 200, "{url}");
        let link = headers["link"].to_str().unwrap().to_owned();
        let keep = if default_link {
            String::new()
        } else {
            format!("format={format}")
        };
        let with = |p: String| match (keep.is_empty(), p.contains('?')) {
            (true, _) => p,
            (false, true) => format!("{p}&{keep}"),
            (false, false) => format!("{p}?{keep}"),
        };
        for (rel, target) in [
            ("prev", with(base.clone())),
            ("next", with(format!("{base}?page=3"))),
        ] {
            let want = format!("<{target}>; rel=\"{rel}\"");
            assert!(link.contains(&want), "{url}: no {want} in {link}");
        }
        let listed = match format {
            "json" => {
                let v: Value = serde_json::from_str(&body).unwrap();
                v["prefixes"]["v4"].as_array().unwrap().len()
                    + v["prefixes"]["v6"].as_array().unwrap().len()
            }
            "text" => body.lines().filter(|l| l.starts_with("prefix_v")).count(),
            "md" => body.lines().filter(|l| l.starts_with("- [`")).count(),
            _ => body.matches("<li><a href=").count(),
        };
        assert_eq!(listed, 500, "{url}");
        if format == "html" {
            assert!(
                body.contains(&format!("rel=\"next\" href=\"/AS{asn}?page=3\"")),
                "{url}"
            );
            assert!(
                body.contains(&format!("rel=\"prev\" href=\"/AS{asn}\"")),
                "{url}"
            );
        }
    }
    // The last page has no next; past it is 404; a bad page 400.
    let (_, headers, _) = get(
        &client,
        &server.url(&format!("/api/v1/asn/{asn}?page={pages}")),
    )
    .await;
    assert!(!headers["link"].to_str().unwrap().contains("rel=\"next\""));
    let (status, _, body) = get(
        &client,
        &server.url(&format!("/api/v1/asn/{asn}?page={}", pages + 1)),
    )
    .await;
    assert_eq!(status, 404, "{body}");
    for bad in ["0", "x", "-1"] {
        let (status, _, body) = get(
            &client,
            &server.url(&format!("/AS{asn}?page={bad}&format=json")),
        )
        .await;
        assert_eq!(status, 400, "{bad}: {body}");
        assert!(body.contains("bad_query"), "{body}");
    }
    // The CSV: every prefix, in the order of the pages.
    let url = server.url(&format!("/api/v1/asn/{asn}/prefixes.csv"));
    let (status, headers, csv) = get(&client, &url).await;
    assert_eq!(status, 200);
    assert_eq!(headers[CONTENT_TYPE], "text/csv; charset=utf-8");
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("prefix,version,country_code,addresses"));
    let listed: Vec<&str> = lines.map(|l| l.split(',').next().unwrap()).collect();
    let want: Vec<&str> = all["prefixes"]["v4"]
        .as_array()
        .unwrap()
        .iter()
        .chain(all["prefixes"]["v6"].as_array().unwrap())
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(listed, want);
    // A small AS is one page: no Link to other pages.
    let (_, headers, _) = get(&client, &server.url("/api/v1/asn/15169")).await;
    assert!(
        headers
            .get("link")
            .is_none_or(|l| !l.to_str().unwrap().contains("rel=\"next\""))
    );
}

#[tokio::test]
async fn other_one_segment_paths_behave_as_before() {
    let server = support::start(support::config()).await;
    let client = support::client();
    for (path, status, code) in [
        ("/ASK", 404, "not_found"),
        ("/AS", 404, "not_found"),
        ("/ASN15169", 404, "not_found"),
        ("/favicon.ico", 404, "not_found"),
        ("/AS99999999999", 400, "invalid_asn"),
        ("/AS4199999999", 404, "unknown_asn"),
        ("/999.1.1.1", 400, "invalid_ip"),
    ] {
        let url = server.url(&format!("{path}?format=json"));
        let (got, _, body) = get(&client, &url).await;
        assert_eq!(got, status, "{path}: {body}");
        let error: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(error["error"], code, "{path}");
    }
    let (status, _, _) = get(&client, &server.url("/8.8.8.8?format=json")).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn the_address_page_links_its_as_number() {
    let server = support::start(support::config()).await;
    let client = support::client();
    let (_, _, html) = get(&client, &server.url("/1.0.0.1?format=html")).await;
    assert!(
        html.contains("<dd id=\"asn\"><a href=\"/AS13335\">AS13335</a></dd>"),
        "{html}"
    );
    assert!(
        html.contains("<a id=\"summary-asn\" href=\"/AS13335\">AS13335</a>"),
        "{html}"
    );
    let (_, _, md) = get(&client, &server.url("/1.0.0.1?format=md")).await;
    assert!(md.contains("| asn | [13335](/AS13335) |"), "{md}");
    // An address without an AS has no link.
    let (_, _, html) = get(&client, &server.url("/10.0.0.1?format=html")).await;
    assert!(!html.contains("summary-asn") && !html.contains("/AS"));
}

/// One `tools/call` of the MCP endpoint: the JSON-RPC result.
async fn mcp_call(server: &support::TestServer, tool: &str, arguments: &str) -> Value {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments}}}}}"#
    );
    let headers = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let r = support::wire::send(server.addr, "POST", "/mcp", &headers, body.as_bytes()).await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()["result"].clone()
}

#[tokio::test]
async fn the_mcp_tool_answers_the_api_object() {
    let server = support::start(support::config()).await;
    // AS15169: all its prefixes fit the API's first page.
    let api = server.get_json("/api/v1/asn/15169").await;
    assert_eq!(api["page"]["pages"], 1);
    // As text, or as a JSON number (what many agents send).
    for spelling in [r#""15169""#, r#""AS15169""#, "15169"] {
        let result = mcp_call(&server, "lookup_asn", &format!(r#"{{"asn":{spelling}}}"#)).await;
        assert_eq!(result["isError"], false, "{result}");
        // The tool gives every prefix on one page; the API pages them.
        let mut got = result["structuredContent"].clone();
        assert_eq!(got["page"]["pages"], 1, "{spelling}");
        assert_eq!(got["page"]["number"], 1, "{spelling}");
        got["page"] = api["page"].clone();
        assert_eq!(got, api, "{spelling}");
    }
    for (bad, code) in [
        (r#""AS""#, "invalid_asn"),
        (r#""4199999999""#, "unknown_asn"),
        ("4294967296", "invalid_asn"),
    ] {
        let result = mcp_call(&server, "lookup_asn", &format!(r#"{{"asn":{bad}}}"#)).await;
        assert_eq!(result["isError"], true, "{bad}: {result}");
        assert!(result.to_string().contains(code), "{bad}: {result}");
    }
}

/// An organisation name with terminal escapes, bidi controls, Markdown and
/// HTML bait (no `"`: the CSV field is quoted).
const HOSTILE: &str = "\u{1b}[31mRed\u{1b}[0m \u{202e}rev\u{202c} \u{9b}2J [x](http://evil) <script>alert(1)</script> **b** | pipe";

/// The AS page of a release whose ASN file names a hostile organisation:
/// JSON keeps the name exactly; text, Markdown and HTML carry no control or
/// bidi character, and Markdown and HTML no markup from it.
#[tokio::test]
async fn a_hostile_organisation_name_is_sanitised_on_every_page() {
    use support::data::{TempDir, asn_csv, country_csv};
    let dir = TempDir::new("asn-hostile");
    dir.write("dbip-country-lite-2026-07.csv", &country_csv(20, "DE"));
    dir.write("dbip-asn-lite-2026-07.csv", &asn_csv(20, 64500, HOSTILE));
    let server = support::start(support::small_release(dir.path(), false)).await;
    let client = support::client();

    let info = server.get_json("/api/v1/asn/AS64500").await;
    assert_eq!(info["organization"], HOSTILE);
    assert_eq!(info["prefixes"]["v4"], serde_json::json!(["8.8.8.0/24"]));
    assert_eq!(info["addresses"]["v4"], 256);

    let unsafe_char = |c: char| {
        matches!(c, '\u{0}'..='\u{9}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}')
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}')
    };
    for format in ["text", "md", "html"] {
        let url = server.url(&format!("/AS64500?format={format}"));
        let (status, _, body) = get(&client, &url).await;
        assert_eq!(status, 200, "{url}");
        assert!(!body.chars().any(unsafe_char), "{url}: {body:?}");
        if format != "text" {
            assert!(!body.contains("<script>"), "{url}: {body}");
        }
        if format == "md" {
            assert!(!body.contains("[x](http://evil)"), "{url}: {body}");
        }
    }
    let (_, _, text) = get(&client, &server.url("/AS64500?format=text")).await;
    let org = text
        .lines()
        .find(|l| l.starts_with("organization:"))
        .unwrap();
    let visible: String = HOSTILE.chars().filter(|c| !unsafe_char(*c)).collect();
    assert_eq!(org["organization:".len()..].trim(), visible);
    let (_, _, html) = get(&client, &server.url("/AS64500?format=html")).await;
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{html}"
    );
    let (_, _, md) = get(&client, &server.url("/AS64500?format=md")).await;
    assert!(
        md.contains("\\<script\\>") && md.contains("\\| pipe"),
        "{md}"
    );
}

/// Special-purpose AS numbers are explained with their RFC instead of a
/// 404, and AS65535 (which a data row may name) is never an ordinary AS.
#[tokio::test]
async fn special_as_numbers_are_explained_with_their_rfc() {
    let server = support::start(support::config()).await;
    let client = support::client();
    for (asn, rfc) in [
        (0u32, "RFC 7607"),
        (23456, "RFC 6793"),
        (64496, "RFC 5398"),
        (64512, "RFC 6996"),
        (65000, "RFC 6996"),
        (65535, "RFC 7300"),
        (65536, "RFC 5398"),
        (4_200_000_000, "RFC 6996"),
        (4_294_967_295, "RFC 7300"),
    ] {
        let (status, body) = super::prefix::settled(&server, &format!("/api/v1/asn/AS{asn}")).await;
        assert_eq!(status, 200, "AS{asn}: {body}");
        let v: Value = serde_json::from_str(&body).unwrap();
        let special = &v["special_purpose"];
        assert_eq!(special["rfc"], rfc, "AS{asn}");
        assert!(
            special["explanation"].as_str().unwrap().len() > 40,
            "AS{asn}"
        );
        assert!(
            special["rfc_url"]
                .as_str()
                .unwrap()
                .starts_with("https://www.rfc-editor.org/rfc/rfc"),
            "AS{asn}"
        );
    }
    let ordinary = server.get_json("/api/v1/asn/AS15169").await;
    assert_eq!(ordinary["special_purpose"], Value::Null);
    let (status, _, _) = get(&client, &server.url("/api/v1/asn/AS4199999999")).await;
    assert_eq!(status, 404);
}

/// `?q=` searches every prefix of AS174 (not only a page): each match holds
/// the text, the count is every prefix whose text holds it, and an address
/// finds the prefixes holding it. Prefixes carry their country and size,
/// and the countries of the IPv6 space are given.
#[tokio::test]
async fn a_search_finds_prefixes_on_every_page() {
    let server = support::start(support::config()).await;
    let (status, body) = super::prefix::settled(&server, "/api/v1/asn/AS174/prefixes.csv").await;
    assert_eq!(status, 200);
    let all: Vec<&str> = body
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert!(all.len() > 1000, "{}", all.len());
    let want: Vec<&str> = all
        .iter()
        .copied()
        .filter(|p| p.contains("2001:550"))
        .collect();
    assert!(!want.is_empty());
    let found = server.get_json("/api/v1/asn/AS174?q=2001:550").await;
    let matches = &found["search"]["matches"];
    let listed: Vec<&str> = found["prefixes"]["v6"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(listed, want.iter().copied().take(500).collect::<Vec<_>>());
    assert_eq!(matches["v6"].as_u64(), Some(want.len() as u64));
    assert_eq!(matches["v4"].as_u64(), Some(0));
    assert_eq!(
        found["prefix_count"]["v6"].as_u64().unwrap()
            + found["prefix_count"]["v4"].as_u64().unwrap(),
        all.len() as u64
    );
    // An address finds the prefix that holds it.
    let first = found["prefixes"]["v6"][0].as_str().unwrap();
    let ip = first.split('/').next().unwrap();
    let held = server.get_json(&format!("/api/v1/asn/AS174?q={ip}")).await;
    assert_eq!(held["prefixes"]["v6"][0], first);
    // Details: the same prefixes with their country and size.
    let details = &found["prefix_details"]["v6"];
    assert_eq!(details[0]["prefix"], first);
    assert!(
        details[0]["addresses"]
            .as_str()
            .unwrap()
            .parse::<u128>()
            .unwrap()
            > 0
    );
    assert!(!found["countries_v6"].as_array().unwrap().is_empty());
    // A query of other characters is refused.
    let client = support::client();
    let (status, _, body) = get(&client, &server.url("/api/v1/asn/AS174?q=%3Cscript%3E")).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("bad_query"));
}

/// Issue 33: rows wholly in special-purpose space that is not globally
/// reachable (`10.0.0.0/8`, `127.0.0.0/8`, `2001:db8::/32`, `fd00::/8`) are
/// dropped at load and counted as `special_dropped`: the AS page lists only
/// the AS's public prefix and its country, and KP, placed only there, holds
/// no address. Before, the AS page listed `10.0.0.0/8` with "KP 100%" and the
/// rows counted toward the coverage floor.
#[tokio::test]
async fn rows_in_special_purpose_space_reach_no_page() {
    use support::data::{TempDir, asn_csv, country_csv};
    let mut country: Vec<String> = country_csv(20, "DE").lines().map(str::to_owned).collect();
    let v6 = country.pop().unwrap();
    country.insert(1, "10.0.0.0,10.255.255.255,KP".into());
    country.push("127.0.0.0,127.255.255.255,KP".into());
    country.push("2001:db8::,2001:db8:ffff:ffff:ffff:ffff:ffff:ffff,KP".into());
    country.push(v6);
    let mut asn: Vec<String> = asn_csv(20, 64500, "Example")
        .lines()
        .map(str::to_owned)
        .collect();
    asn.insert(1, "10.0.0.0,10.255.255.255,64500,\"Example\"".into());
    asn.push("fd00::,fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff,64500,\"Example\"".into());
    let dir = TempDir::new("asn-special");
    dir.write(
        "dbip-country-lite-2026-07.csv",
        &(country.join("\n") + "\n"),
    );
    dir.write("dbip-asn-lite-2026-07.csv", &(asn.join("\n") + "\n"));
    let server = support::start(support::small_release(dir.path(), false)).await;
    let h = server.get_json("/healthz").await;
    assert_eq!(h["data"]["country"]["release_date"], "2026-07", "{h}");
    assert_eq!(h["data"]["country"]["defects"]["special_dropped"], 3, "{h}");
    assert_eq!(h["data"]["asn"]["defects"]["special_dropped"], 2, "{h}");

    let info = server.get_json("/api/v1/asn/AS64500").await;
    assert_eq!(
        info["prefixes"]["v4"],
        serde_json::json!(["8.8.8.0/24"]),
        "{info}"
    );
    assert_eq!(info["prefixes"]["v6"], serde_json::json!([]), "{info}");
    assert_eq!(info["addresses"]["v4"], 256, "{info}");
    let codes: Vec<&str> = info["countries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["country_code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["DE"], "{info}");
    let client = support::client();
    let (status, _, text) = get(&client, &server.url("/AS64500?format=text")).await;
    assert_eq!(status, 200, "{text}");
    assert!(!text.contains("10.0.0.0") && !text.contains("KP"), "{text}");
    let kp = server.get_json("/api/v1/country/KP").await;
    assert_eq!(kp["addresses"]["v4"], 0, "{kp}");
    assert_eq!(kp["as_count"], 0, "{kp}");
    // The addresses themselves were never placed: not public, no country.
    let v = server.get_json("/api/v1/ip/10.1.2.3").await;
    assert_eq!(v["is_public"], false, "{v}");
    assert!(v["location"]["country_code"].is_null(), "{v}");
}

/// A country's share too small for the digits shown is said to be small
/// (issue 32: "0.0%" for Antarctica's 48 of AS15169's addresses), in every
/// format, and the page says "0.0%" nowhere.
#[tokio::test]
async fn a_share_too_small_for_its_digits_says_so() {
    let server = support::start(support::config()).await;
    let client = support::client();
    let api = server.get_json("/api/v1/asn/15169").await;
    let tiny: Vec<&str> = api["countries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["share"].as_f64().unwrap() < 0.000_05)
        .map(|c| c["country_code"].as_str().unwrap())
        .collect();
    assert!(!tiny.is_empty(), "AS15169 has no share under 0.005%");
    let url = |f: &str| server.url(&format!("/AS15169?format={f}"));
    let (_, _, html) = get(&client, &url("html")).await;
    let (_, _, md) = get(&client, &url("md")).await;
    let (_, _, text) = get(&client, &url("text")).await;
    let (_, _, bn) = get(&client, &server.url("/AS15169?format=html&lang=bn")).await;
    for code in tiny {
        let cell = format!("/country/{code}\"");
        let row = html.split("<tr>").find(|r| r.contains(&cell)).unwrap();
        assert!(row.contains(">&lt;0.1%<"), "{code}: {row}");
        let line = md
            .lines()
            .find(|l| l.contains(&format!("({code})")))
            .unwrap();
        // Markdown escapes the `<`, so no renderer reads it as a tag.
        assert!(line.ends_with(r"| \<0.01% |"), "{code}: {line}");
        let line = text
            .lines()
            .find(|l| l.starts_with("country:") && l.contains(&format!(" {code} ")))
            .unwrap();
        assert!(line.contains(" <0.01% ("), "{code}: {line}");
        let row = bn.split("<tr>").find(|r| r.contains(&cell)).unwrap();
        assert!(row.contains(">&lt;০.১%<"), "{code}: {row}");
    }
    assert!(!html.contains(">0.0%<"), "the page shows 0.0%");
    assert!(!md.contains("| 0.00% |"), "the Markdown shows 0.00%");
    assert!(!text.contains(" 0.00% ("), "the text shows 0.00%");
}
