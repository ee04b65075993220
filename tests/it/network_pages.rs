//! The pages of the network view (issue 30 §1, §2) over a real socket:
//! `/{network}/{length}` (a prefix, in the four formats and both
//! languages, agreeing with its JSON), `/{ip}/{field}` (one field as a
//! line of text), `/country/{cc}`, and the range links of the other pages
//! that open prefix pages.

use serde_json::Value;

use super::prefix::settled;
use crate::support;
use support::http::get;

/// `path` as a `format` page: (status, body), after the first build of
/// the release's tables.
async fn page(server: &support::TestServer, path: &str) -> (u16, String) {
    settled(server, path).await
}

/// `/8.8.8.0/24`: its JSON is the API's; its text names the prefix, its
/// size and each row with country and AS, the sizes adding up to the
/// prefix's; its HTML links the rows' prefixes, country and AS pages; its
/// Bangla page writes the counts in Bengali digits.
#[tokio::test]
async fn a_prefix_page_is_its_data_in_every_format() {
    let server = support::start(support::config()).await;
    let (status, api) = page(&server, "/api/v1/prefix/8.8.8.0/24").await;
    assert_eq!(status, 200, "{api}");
    let api: Value = serde_json::from_str(&api).unwrap();
    let (status, json) = page(&server, "/8.8.8.0/24?format=json").await;
    assert_eq!(status, 200, "{json}");
    assert_eq!(serde_json::from_str::<Value>(&json).unwrap(), api);

    let (status, text) = page(&server, "/8.8.8.0/24?format=text").await;
    assert_eq!(status, 200, "{text}");
    assert!(text.starts_with("prefix:"), "{text}");
    assert!(text.contains("8.8.8.0/24"), "{text}");
    let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("row:")).collect();
    let source = api["rows"].as_array().unwrap();
    assert_eq!(rows.len(), source.len(), "{text}");
    let mut total = 0u128;
    for (line, row) in rows.iter().zip(source) {
        let asn = row["asn"].as_u64().map(|n| format!("AS{n}")).unwrap();
        let cc = row["country_code"].as_str().unwrap();
        assert!(line.contains(&format!(" {cc} {asn} ")), "{line}");
        total += row["addresses"].as_str().unwrap().parse::<u128>().unwrap();
    }
    assert_eq!(total.to_string(), api["addresses"].as_str().unwrap());
    assert!(text.contains("addresses:"), "{text}");

    let (status, html) = page(&server, "/8.8.8.0/24?format=html").await;
    assert_eq!(status, 200, "{html}");
    let row = &source[0];
    for href in [
        format!("href=\"/AS{}\"", row["asn"]),
        format!(
            "href=\"/country/{}\"",
            row["country_code"].as_str().unwrap()
        ),
        format!("href=\"/{}\"", row["prefixes"][0].as_str().unwrap()),
    ] {
        assert!(html.contains(&href), "{href} missing");
    }
    assert!(html.contains("IP Geolocation by DB-IP"));

    let (status, md) = page(&server, "/8.8.8.0/24?format=md").await;
    assert_eq!(status, 200, "{md}");
    assert!(md.starts_with("# 8.8.8.0/24"), "{md}");
    assert!(md.contains("](/AS15169"), "{md}");

    let (status, bn) = page(&server, "/8.8.8.0/24?format=html&lang=bn").await;
    assert_eq!(status, 200);
    assert!(bn.contains("২৫৬"), "no Bengali 256");
    assert!(
        bn.contains("href=\"/AS15169?lang=bn\""),
        "the links keep lang"
    );
}

/// An IPv6 prefix page, and a wide one in pages with a `Link` header.
#[tokio::test]
async fn ipv6_and_wide_prefix_pages() {
    let server = support::start(support::config()).await;
    let (status, text) = page(&server, "/2001:4860::/32?format=text").await;
    assert_eq!(status, 200, "{text}");
    assert!(text.contains("IPv6"), "{text}");
    let client = support::client();
    let (status, body) = page(&server, "/8.0.0.0/8?format=text").await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("next:") && body.contains("/8.0.0.0/8?page=2"),
        "{body}"
    );
    let (status, headers, _) = get(&client, &server.url("/8.0.0.0/8?format=text")).await;
    assert_eq!(status, 200);
    let link = headers["link"].to_str().unwrap();
    assert!(
        link.contains("</8.0.0.0/8?page=2&format=text>; rel=\"next\""),
        "{link}"
    );
}

/// Host bits: 400 naming the canonical prefix; a length out of range: 400;
/// a field after an address: its value as a line; anything else: 404
/// naming both forms.
#[tokio::test]
async fn the_second_segment_decides_and_errors_say_what_works() {
    let server = support::start(support::config()).await;
    let client = support::client();
    let (status, _, body) = get(&client, &server.url("/8.8.8.8/24?format=json")).await;
    assert_eq!(status, 400, "{body}");
    let e: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(e["error"], "invalid_prefix");
    assert!(
        e["message"].as_str().unwrap().contains("8.8.8.0/24"),
        "{body}"
    );
    let (status, _, body) = get(&client, &server.url("/8.8.8.0/33?format=json")).await;
    assert_eq!(status, 400, "{body}");
    let (status, headers, body) = get(&client, &server.url("/8.8.8.8/country_code")).await;
    assert_eq!((status, body.as_str()), (200, "US\n"));
    assert!(
        headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain")
    );
    let (status, _, body) = get(&client, &server.url("/8.8.8.8/asn")).await;
    assert_eq!((status, body.as_str()), (200, "15169\n"));
    let (status, _, body) = get(&client, &server.url("/8.8.8.8/nonsense?format=json")).await;
    assert_eq!(status, 404, "{body}");
    let e: Value = serde_json::from_str(&body).unwrap();
    let message = e["message"].as_str().unwrap();
    assert!(
        message.contains("/8.8.8.0/24") && message.contains("/8.8.8.8/country_code"),
        "{message}"
    );
    let (status, _, body) = get(&client, &server.url("/8.8.8.999/asn?format=json")).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("invalid_ip"), "{body}");
}

/// The address page's range and the AS page's prefixes open prefix pages.
#[tokio::test]
async fn range_links_open_prefix_pages() {
    let server = support::start(support::config()).await;
    let info = server.get_json("/api/v1/ip/8.8.8.8").await;
    let range = info["network"]["range"].as_str().unwrap();
    let (status, html) = page(&server, "/8.8.8.8?format=html").await;
    assert_eq!(status, 200);
    assert!(html.contains(&format!("href=\"/{range}\"")), "{range}");
    let (status, html) = page(&server, "/AS15169?format=html").await;
    assert_eq!(status, 200);
    let asn = server.get_json("/api/v1/asn/15169").await;
    let first = asn["prefixes"]["v4"][0].as_str().unwrap();
    assert!(html.contains(&format!("href=\"/{first}\"")), "{first}");
    let (status, _) = page(&server, &format!("/{range}")).await;
    assert_eq!(status, 200, "/{range}");
}

/// `/country/bd`: its facts in both languages, its ASes linked and as many
/// as the JSON's, the map shading it; an unknown code: 404 `unknown_country`.
#[tokio::test]
async fn a_country_page_lists_its_ases() {
    let server = support::start(support::config()).await;
    let (status, api) = page(&server, "/api/v1/country/BD").await;
    assert_eq!(status, 200, "{api}");
    let api: Value = serde_json::from_str(&api).unwrap();
    let (status, text) = page(&server, "/country/bd?format=text").await;
    assert_eq!(status, 200, "{text}");
    assert!(text.starts_with("country_code:"), "{text}");
    for part in ["Bangladesh", "বাংলাদেশ", "BDT", "+880", "Asia/Dhaka"] {
        assert!(text.contains(part), "{part}: {text}");
    }
    let ases = text.lines().filter(|l| l.starts_with("as:")).count();
    assert_eq!(ases, api["ases"].as_array().unwrap().len());
    let v4 = api["addresses"]["v4"].as_u64().unwrap();
    let grouped = v4
        .to_string()
        .as_bytes()
        .rchunks(3)
        .rev()
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect::<Vec<_>>()
        .join(",");
    assert!(
        text.contains(&format!("addresses_v4: {grouped} (")),
        "{grouped}: {text}"
    );

    let (status, html) = page(&server, "/country/BD?format=html").await;
    assert_eq!(status, 200);
    let top = api["ases"][0]["asn"].as_u64().unwrap();
    assert!(html.contains(&format!("href=\"/AS{top}\"")), "AS{top}");
    assert!(html.contains("id=\"BD\""), "the map shades BD");
    let (status, bn) = page(&server, "/country/BD?format=html&lang=bn").await;
    assert_eq!(status, 200);
    assert!(bn.contains("বাংলাদেশ") && bn.contains("সময় অঞ্চল"));

    let client = support::client();
    let (status, _, body) = get(&client, &server.url("/country/QQ?format=json")).await;
    assert_eq!(status, 404, "{body}");
    assert!(body.contains("unknown_country"), "{body}");
    let (status, _, body) = get(&client, &server.url("/country/UK?format=text")).await;
    assert_eq!(status, 404);
    assert!(body.contains("GB"), "{body}");
}

/// An AS page's first screen: the operator in the title, the way to the
/// prefixes, the top countries with the rest behind "show all", the map's
/// legend; its prefixes with country and size; the search form, served
/// without a script (`?q=`), keeping the search on the other pages.
#[tokio::test]
async fn an_as_page_leads_to_its_prefixes_and_searches_them() {
    let server = support::start(support::config()).await;
    let info = server.get_json("/api/v1/asn/15169").await;
    let (status, html) = page(&server, "/AS15169?format=html").await;
    assert_eq!(status, 200);
    let org = info["organization"].as_str().unwrap();
    assert!(html.contains(&format!("<title>AS15169 {org}")), "title");
    assert!(
        html.contains("href=\"#prefix-section\""),
        "the way to the prefixes"
    );
    assert!(html.contains("id=\"prefix-search\"") && html.contains("name=\"q\""));
    assert!(html.contains("class=\"legend\""), "the map's legend");
    if info["countries"].as_array().unwrap().len() > 10 {
        assert!(html.contains("<details id=\"all-countries\">"), "show all");
    }
    let first = &info["prefix_details"]["v4"][0];
    let cc = first["country_code"].as_str().unwrap_or("-");
    assert!(
        html.contains(&format!(
            "{}</a> {cc} · ",
            first["prefix"].as_str().unwrap()
        )),
        "a prefix with its country"
    );
    let (status, found) = page(&server, "/AS15169?q=8.8.8&format=html").await;
    assert_eq!(status, 200);
    assert!(
        found.contains("id=\"search-found\""),
        "the count of matches"
    );
    assert!(found.contains("href=\"/8.8.8.0/24\""), "the match");
    assert!(
        found.contains("value=\"8.8.8\""),
        "the form holds the search"
    );
}
