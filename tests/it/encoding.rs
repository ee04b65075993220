//! Compressed answers over a real loopback socket (issue 32): the codings
//! offered and refused by `Accept-Encoding` (a browser's header, curl
//! `--compressed`'s, `identity`, `br;q=0`, none), `Vary`, the `ETag`s of
//! each coding and their 304s, `HEAD`, the hot route's small JSON left as
//! it is, the assets compressed once, and `/robots.txt`.

use crate::support;

use std::io::Read;

use reqwest::header::HeaderMap;

/// A browser's `Accept-Encoding` (Chromium 142).
const BROWSER: &str = "gzip, deflate, br, zstd";
/// What `curl --compressed` sends (curl 8.14 with brotli).
const CURL_COMPRESSED: &str = "deflate, gzip, br, zstd";
const CHROME: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36";

struct Got {
    status: u16,
    headers: HeaderMap,
    body: Vec<u8>,
}

impl Got {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|v| v.to_str().unwrap())
    }

    fn coding(&self) -> Option<&str> {
        self.header("content-encoding")
    }

    fn varies_with_encoding(&self) -> bool {
        self.headers
            .get_all("vary")
            .iter()
            .flat_map(|v| v.to_str().unwrap().split(','))
            .any(|n| n.trim().eq_ignore_ascii_case("accept-encoding"))
    }

    /// The body decoded from its `Content-Encoding`.
    fn decoded(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match self.coding() {
            None => out.clone_from(&self.body),
            Some("gzip") => {
                flate2::read::GzDecoder::new(self.body.as_slice())
                    .read_to_end(&mut out)
                    .unwrap();
            }
            Some("br") => {
                brotli::Decompressor::new(self.body.as_slice(), 4096)
                    .read_to_end(&mut out)
                    .unwrap();
            }
            Some(other) => panic!("unexpected coding {other}"),
        }
        out
    }
}

async fn fetch(
    method: reqwest::Method,
    server: &support::TestServer,
    path: &str,
    headers: &[(&str, &str)],
) -> Got {
    let head = method == reqwest::Method::HEAD;
    let mut request = support::client().request(method, server.url(path));
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response.bytes().await.unwrap().to_vec();
    if let Some(len) = headers.get("content-length").filter(|_| !head) {
        assert_eq!(
            len.to_str().unwrap().parse::<usize>().unwrap(),
            body.len(),
            "{path}: Content-Length is the length of what was sent"
        );
    }
    Got {
        status,
        headers,
        body,
    }
}

async fn get(server: &support::TestServer, path: &str, headers: &[(&str, &str)]) -> Got {
    fetch(reqwest::Method::GET, server, path, headers).await
}

#[tokio::test]
async fn pages_come_in_the_coding_the_client_asks_for() {
    let server = support::start(support::config()).await;
    let ua = ("User-Agent", CHROME);
    let plain = get(&server, "/AS15169", &[ua]).await;
    assert_eq!(plain.status, 200);
    assert_eq!(plain.coding(), None, "no Accept-Encoding: no coding");
    assert!(plain.varies_with_encoding(), "{:?}", plain.headers);
    assert!(plain.body.len() > 10_000);
    let plain_tag = plain.header("etag").unwrap().to_owned();

    for (asked, expected) in [
        (BROWSER, Some("br")),
        (CURL_COMPRESSED, Some("br")),
        ("gzip", Some("gzip")),
        ("br;q=0, gzip", Some("gzip")),
        ("gzip;q=0.5, br;q=0.9", Some("br")),
        ("*", Some("br")),
        ("identity", None),
        ("br;q=0, gzip;q=0", None),
        ("*;q=0", None),
        ("compress, deflate", None),
        ("", None),
    ] {
        let got = get(&server, "/AS15169", &[ua, ("Accept-Encoding", asked)]).await;
        assert_eq!(got.status, 200, "{asked}");
        assert_eq!(got.coding(), expected, "Accept-Encoding: {asked}");
        assert!(got.varies_with_encoding(), "{asked}");
        assert_eq!(got.decoded(), plain.body, "{asked}: the same page");
        if expected.is_some() {
            assert!(
                got.body.len() * 3 < plain.body.len(),
                "{asked}: {} of {} bytes",
                got.body.len(),
                plain.body.len()
            );
        }
    }

    // Text and Markdown are compressed too; so is an HTML error page.
    for (path, accept) in [
        ("/AS15169?format=text", "text/plain"),
        ("/docs", "text/html"),
        ("/api/v1/openapi.json", "application/json"),
        ("/llms.txt", "text/markdown"),
    ] {
        let got = get(
            &server,
            path,
            &[ua, ("Accept", accept), ("Accept-Encoding", "gzip")],
        )
        .await;
        assert_eq!(got.status, 200, "{path}");
        assert_eq!(got.coding(), Some("gzip"), "{path}");
        assert!(!got.decoded().is_empty());
    }

    // A compressed answer's ETag is weak; If-None-Match with it is a 304
    // that still says what it varies with.
    let br = get(&server, "/AS15169", &[ua, ("Accept-Encoding", BROWSER)]).await;
    let tag = br.header("etag").unwrap().to_owned();
    assert!(tag.starts_with("W/"), "{tag}");
    assert_eq!(
        plain_tag.trim_start_matches("W/"),
        tag.trim_start_matches("W/")
    );
    let again = get(
        &server,
        "/AS15169",
        &[ua, ("Accept-Encoding", BROWSER), ("If-None-Match", &tag)],
    )
    .await;
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
    assert!(again.varies_with_encoding(), "{:?}", again.headers);
}

#[tokio::test]
async fn small_answers_head_and_the_hot_route_are_sent_as_they_are() {
    let server = support::start(support::config()).await;
    // The hot route's JSON (about 650 bytes) is under the threshold.
    for path in [
        "/api/v1/ip/8.8.8.8",
        "/api/v1/me",
        "/api/v1/ip/8.8.8.8/country",
    ] {
        let got = get(&server, path, &[("Accept-Encoding", BROWSER)]).await;
        assert_eq!(got.status, 200, "{path}");
        assert_eq!(got.coding(), None, "{path}");
        assert!(!got.varies_with_encoding(), "{path}: {:?}", got.headers);
        assert!(got.body.len() < 1024, "{path}");
    }
    // The hot route's other formats are compressed like any page.
    let html = get(
        &server,
        "/api/v1/ip/8.8.8.8?format=html",
        &[("Accept-Encoding", "gzip")],
    )
    .await;
    assert_eq!(html.status, 200);
    assert_eq!(html.coding(), Some("gzip"));
    assert!(String::from_utf8(html.decoded()).unwrap().contains("<html"));

    // HEAD: no body, no coding, and nothing that contradicts GET's.
    let head = fetch(
        reqwest::Method::HEAD,
        &server,
        "/AS15169",
        &[("User-Agent", CHROME), ("Accept-Encoding", BROWSER)],
    )
    .await;
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    assert!(head.varies_with_encoding(), "{:?}", head.headers);
    assert_ne!(head.coding(), Some("gzip"));
}

#[tokio::test]
async fn assets_are_compressed_once_with_a_tag_per_coding() {
    let server = support::start(support::config()).await;
    let page = get(&server, "/8.8.8.8", &[("User-Agent", CHROME)]).await;
    let html = String::from_utf8(page.body).unwrap();
    let map = html
        .split('"')
        .find(|s| s.starts_with("/assets/world."))
        .expect("the page names the map")
        .to_owned();
    let plain = get(&server, &map, &[]).await;
    assert_eq!(plain.coding(), None);
    assert!(plain.varies_with_encoding());
    let plain_tag = plain.header("etag").unwrap().to_owned();
    assert!(plain_tag.starts_with('"'), "strong: {plain_tag}");
    assert!(
        plain.body.len() < 80_000,
        "the simplified map: {}",
        plain.body.len()
    );
    let mut tags = vec![plain_tag.clone()];
    for coding in ["br", "gzip"] {
        let first = get(&server, &map, &[("Accept-Encoding", coding)]).await;
        let second = get(&server, &map, &[("Accept-Encoding", coding)]).await;
        assert_eq!(first.coding(), Some(coding));
        assert_eq!(
            first.body, second.body,
            "{coding}: the same bytes each time"
        );
        assert_eq!(first.decoded(), plain.body, "{coding}");
        assert!(first.body.len() < 30_000, "{coding}: {}", first.body.len());
        assert_eq!(first.header("cache-control"), plain.header("cache-control"));
        let tag = first.header("etag").unwrap().to_owned();
        assert!(tag.starts_with('"') && tag != plain_tag, "{tag}");
        let revalidated = get(
            &server,
            &map,
            &[("Accept-Encoding", coding), ("If-None-Match", &tag)],
        )
        .await;
        assert_eq!(revalidated.status, 304, "{coding}");
        tags.push(tag);
    }
    tags.sort();
    tags.dedup();
    assert_eq!(tags.len(), 3, "one strong tag per coding: {tags:?}");

    // A flag is small: sent as it is, whatever is asked.
    let flag = html
        .split('"')
        .find(|s| s.starts_with("/assets/flag-us."))
        .expect("8.8.8.8's page shows the US flag")
        .to_owned();
    let got = get(&server, &flag, &[("Accept-Encoding", BROWSER)]).await;
    assert_eq!(got.status, 200);
    assert!(got.body.len() <= 2000, "{}", got.body.len());
}

#[tokio::test]
async fn robots_txt_lets_crawlers_read_the_pages_not_the_api() {
    let server = support::start(support::config()).await;
    let got = get(&server, "/robots.txt", &[]).await;
    assert_eq!(got.status, 200);
    assert_eq!(
        got.header("content-type"),
        Some("text/plain; charset=utf-8")
    );
    let text = String::from_utf8(got.body).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "User-agent: *");
    assert!(lines.contains(&"Disallow: /api/"), "{text}");
    assert!(lines.contains(&"Allow: /"), "{text}");
    assert!(!lines.contains(&"Disallow: /"), "{text}");
}
