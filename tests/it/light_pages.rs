//! Pages that load light (issue 32), over a real loopback socket as a
//! browser asks for them (`Accept-Encoding: gzip, deflate, br, zstd`): each
//! page and what it loads (the map, the script, every flag, lazy or not) is
//! under 60 KB sent and 20 requests; an AS page shows the flags of its first
//! countries only, lazily; the docs are
//! linked once; the flags' credit shows where a flag does; copy buttons are
//! tap targets of 24 px; no relative hreflang alternate.

use crate::support;

const CHROME: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36";
const BROWSER_ENCODINGS: &str = "gzip, deflate, br, zstd";

/// The page's HTML (decoded) and the bytes sent for it.
async fn page(server: &support::TestServer, path: &str) -> (String, usize) {
    let response = support::client()
        .get(server.url(path))
        .header("User-Agent", CHROME)
        .header("Accept-Encoding", BROWSER_ENCODINGS)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "{path}");
    let head = head_bytes(response.headers());
    let coding = response
        .headers()
        .get("content-encoding")
        .map(|v| v.to_str().unwrap().to_owned());
    let body = response.bytes().await.unwrap();
    let sent = head + body.len();
    let html = match coding.as_deref() {
        Some("br") => {
            let mut out = Vec::new();
            std::io::Read::read_to_end(
                &mut brotli::Decompressor::new(body.as_ref(), 4096),
                &mut out,
            )
            .unwrap();
            String::from_utf8(out).unwrap()
        }
        None => String::from_utf8(body.to_vec()).unwrap(),
        Some(other) => panic!("{path}: {other}"),
    };
    (html, sent)
}

/// The bytes of an answer's head on the wire (HTTP/1.1): the status line
/// and each `name: value` line (Lighthouse counts them too).
fn head_bytes(headers: &reqwest::header::HeaderMap) -> usize {
    let lines: usize = headers
        .iter()
        .map(|(k, v)| k.as_str().len() + v.len() + 4)
        .sum();
    17 + lines + 2
}

/// The same-origin assets the page loads at first: `src="/assets/..."`
/// (every image, lazy or not) and
/// `href="/assets/..."` (the map's `<image>`).
fn first_load(html: &str) -> Vec<String> {
    let mut eager = Vec::new();
    let mut lazy = Vec::new();
    for (i, _) in html.match_indices("\"/assets/") {
        let tag_start = html[..i].rfind('<').unwrap_or(0);
        let tag_end = i + html[i..].find('>').unwrap_or(0);
        let tag = &html[tag_start..tag_end];
        let url = html[i + 1..].split('"').next().unwrap().to_owned();
        if tag.contains("loading=\"lazy\"") {
            lazy.push(url);
        } else {
            eager.push(url);
        }
    }
    // Counted as if all were on the first screen.
    eager.extend(lazy);
    eager.sort();
    eager.dedup();
    eager
}

#[tokio::test]
async fn every_page_loads_under_60_kb_and_20_requests() {
    let server = support::start(support::config()).await;
    for path in [
        "/",
        "/8.8.8.8",
        "/10.1.2.3",
        "/AS15169",
        "/AS174",
        "/docs",
        "/8.8.8.8?lang=bn",
        "/AS174?lang=bn",
    ] {
        let (html, mut sent) = page(&server, path).await;
        let assets = first_load(&html);
        for asset in &assets {
            let response = support::client()
                .get(server.url(asset))
                .header("Accept-Encoding", BROWSER_ENCODINGS)
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 200, "{path}: {asset}");
            sent += head_bytes(response.headers()) + response.bytes().await.unwrap().len();
        }
        let requests = 1 + assets.len();
        assert!(
            sent < 60_000,
            "{path}: {sent} bytes at first load ({assets:?})"
        );
        assert!(requests < 20, "{path}: {requests} requests");
    }
}

#[tokio::test]
async fn as_flags_are_lazy_the_docs_linked_once_and_the_flags_credited_where_shown() {
    let server = support::start(support::config()).await;
    let (as174, _) = page(&server, "/AS174").await;
    let flags: Vec<&str> = as174
        .split("<img class=\"flag\"")
        .skip(1)
        .map(|rest| &rest[..rest.find('>').unwrap()])
        .collect();
    assert!(
        (5..=8).contains(&flags.len()),
        "AS174 shows the flags of its first countries only: {}",
        flags.len()
    );
    assert!(as174.matches("<tr><td>").count() > 50, "AS174's countries");
    // Every header cell of the countries' table has a name (the share bar's
    // is read by screen readers only).
    let table = &as174[as174.find("<table id=\"countries\"").unwrap()..];
    let head = &table[..table.find("</thead>").unwrap()];
    let cells: Vec<&str> = head
        .split("<th")
        .skip(1)
        .filter(|th| th.starts_with('>') || th.starts_with(' '))
        .collect();
    assert_eq!(cells.len(), 4, "{head}");
    for th in cells {
        let th = &th[..th.find("</th>").unwrap()];
        let text: String = th
            .split('<')
            .map(|p| p.split_once('>').map_or("", |x| x.1))
            .collect();
        assert!(!text.trim().is_empty(), "an empty header cell: <th{th}");
    }
    assert!(
        flags.iter().all(|f| f.contains("loading=\"lazy\"")),
        "{flags:?}"
    );
    for path in [
        "/8.8.8.8",
        "/AS174",
        "/docs",
        "/",
        "/10.1.2.3",
        "/AS15169?lang=bn",
    ] {
        let (html, _) = page(&server, path).await;
        assert_eq!(
            html.matches("href=\"/docs\"").count(),
            1,
            "{path}: the docs linked once"
        );
        // Lighthouse's SEO audit: an hreflang alternate must be absolute.
        for link in html.split("<link ").skip(1) {
            let link = &link[..link.find('>').unwrap()];
            if link.contains("hreflang=") {
                assert!(link.contains("href=\"http"), "{path}: {link}");
            }
        }
        let shows_flag = html.contains("<img class=\"flag\"");
        assert_eq!(
            html.contains("id=\"flags-credit\""),
            shows_flag,
            "{path}: the flags' credit where a flag shows, and only there"
        );
    }
    let (with_flag, _) = page(&server, "/8.8.8.8").await;
    assert!(with_flag.contains("id=\"flags-credit\""));
    let (without, _) = page(&server, "/10.1.2.3").await;
    assert!(!without.contains("id=\"flags-credit\""));
    // Copy buttons are tap targets of at least 24 x 24 px.
    let rule = with_flag
        .split("button.copy{")
        .nth(1)
        .and_then(|r| r.split('}').next())
        .expect("the copy buttons' style");
    assert!(
        rule.contains("min-height:24px") && rule.contains("min-width:24px"),
        "{rule}"
    );
}

/// Every page is laid out and painted once, whole: its head blocks
/// rendering until the parser reaches the footer (`<link rel="expect"
/// blocking="render">`), and that footer is there, once, as the last
/// element of the page, so rendering waits for the page and no longer. A
/// long list's chunks are laid out only when scrolled near.
#[tokio::test]
async fn every_page_renders_once_when_its_footer_is_parsed() {
    let server = support::start(support::config()).await;
    let expect = "<link rel=\"expect\" href=\"#page-end\" blocking=\"render\">";
    for path in [
        "/",
        "/8.8.8.8",
        "/10.1.2.3?lang=bn",
        "/AS174",
        "/AS15169?lang=bn",
        "/8.8.8.0/24",
        "/country/BD?lang=bn",
        "/docs",
    ] {
        let (html, _) = page(&server, path).await;
        let head = &html[..html.find("</head>").expect("a head")];
        assert_eq!(head.matches(expect).count(), 1, "{path}: {head:.300}");
        assert_eq!(html.matches("id=\"page-end\"").count(), 1, "{path}");
        let footer = html.find("<footer id=\"page-end\">").expect("the footer");
        assert!(
            !html[footer..].contains("<section") && !html[footer..].contains("<table"),
            "{path}: nothing of the page's own after its footer"
        );
    }
    // A long list comes in chunks of at most 50 items, each laid out only
    // when scrolled near: /AS174's first page lists 500 prefixes in 10.
    let (as174, _) = page(&server, "/AS174").await;
    let chunks: Vec<usize> = as174
        .split("<ul class=\"prefixes mono chunk\">")
        .skip(1)
        .map(|c| c[..c.find("</ul>").unwrap()].matches("<li>").count())
        .collect();
    assert_eq!(chunks, vec![50; 10], "/AS174's prefix chunks");
    let style = &as174[as174.find("<style>").unwrap()..as174.find("</style>").unwrap()];
    assert!(style.contains("ul.chunk{margin:0;content-visibility:auto;"));
    // An error page has the frame too.
    let response = support::client()
        .get(server.url("/AS99999999999"))
        .header("User-Agent", CHROME)
        .send()
        .await
        .unwrap();
    assert!(response.status().is_client_error());
    let html = response.text().await.unwrap();
    assert!(html.contains(expect) && html.contains("<footer id=\"page-end\">"));
}
