//! Every page in every format (issue 3), asked of the app in-process
//! ([`support::inproc`]: negotiation and headers are the app's alone), and
//! once more over a real loopback socket to show the server adds nothing
//! that changes them.
//!
//! Each page (`/`, two address pages, `/docs`, both API endpoints, `/healthz`)
//! is fetched in all four formats, once through `?format=` and once through
//! `Accept`, and the `Content-Type`, `Vary`, security and caching headers and
//! the shape of the body are checked. Then the negotiation corner cases:
//! q-values and wildcards, 406, bad `?format=`, invalid addresses, `ETag` and
//! `If-None-Match`, and the lookup form's redirect.
//!
//! Requests carry exactly the headers written here (no default `Accept`, no
//! default `User-Agent`); over the socket through the raw HTTP/1.1 client.

use crate::support;

use std::net::SocketAddr;
use std::sync::OnceLock;

use serde_json::Value;

use support::wire::{self, Wire};
use support::{LOCATION_KEYS, NETWORK_KEYS, TOP_KEYS};

// ---------------------------------------------------------------------------
// harness
// ---------------------------------------------------------------------------

/// One server for the whole file, on its own runtime thread.
fn server() -> SocketAddr {
    static ADDR: OnceLock<SocketAddr> = OnceLock::new();
    *ADDR.get_or_init(|| support::background(support::config()).addr)
}

/// A response; `what` names the request in failure messages.
type Resp = Wire;

/// `GET target` with exactly these extra headers (plus Host), answered by
/// the app in-process: negotiation, headers and bodies are the app's alone.
fn get(target: &str, headers: &[(&str, &str)]) -> Resp {
    support::inproc::get_blocking(target, headers)
}

/// Sends `GET target` with exactly these extra headers (plus Host and
/// Connection) over a real loopback socket.
fn get_wire(target: &str, headers: &[(&str, &str)]) -> Resp {
    wire::get_blocking(server(), target, headers)
}

const CHROME: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36";
const CURL: &str = "curl/8.14.1";
const UA_CHROME: (&str, &str) = ("User-Agent", CHROME);
const UA_CURL: (&str, &str) = ("User-Agent", CURL);

const ATTRIBUTION_MD: &str = "[IP Geolocation by DB-IP](https://db-ip.com)";
const ATTRIBUTION_HTML: &str = "<a href=\"https://db-ip.com\">IP Geolocation by DB-IP</a>";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fmt {
    Json,
    Text,
    Md,
    Html,
}

const FORMATS: [Fmt; 4] = [Fmt::Json, Fmt::Text, Fmt::Md, Fmt::Html];

impl Fmt {
    fn query(self) -> &'static str {
        match self {
            Fmt::Json => "json",
            Fmt::Text => "text",
            Fmt::Md => "md",
            Fmt::Html => "html",
        }
    }
    fn media(self) -> &'static str {
        match self {
            Fmt::Json => "application/json",
            Fmt::Text => "text/plain",
            Fmt::Md => "text/markdown",
            Fmt::Html => "text/html",
        }
    }
}

/// What a page shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `/`: the caller; text form is the bare address.
    Root,
    /// An IpInfo for this address.
    Lookup(&'static str),
    Docs,
    Health,
}

/// Every page of the issue, with what it shows and whether it is an API route.
const PAGES: &[(&str, Kind, bool)] = &[
    ("/", Kind::Root, false),
    ("/8.8.8.8", Kind::Lookup("8.8.8.8"), false),
    (
        "/2001:4860:4860::8888",
        Kind::Lookup("2001:4860:4860::8888"),
        false,
    ),
    ("/docs", Kind::Docs, false),
    ("/api/v1/me", Kind::Lookup("127.0.0.1"), true),
    ("/api/v1/ip/1.1.1.1", Kind::Lookup("1.1.1.1"), true),
    ("/healthz", Kind::Health, false),
];

/// Checks the `Content-Type` of `r` is the one of `f`, with charset for text types.
fn assert_content_type(r: &Resp, f: Fmt) {
    let ct = r.must("content-type").to_ascii_lowercase().replace(' ', "");
    match f {
        Fmt::Json => assert!(
            ct == "application/json" || ct == "application/json;charset=utf-8",
            "{}: content-type {ct}",
            r.what
        ),
        _ => assert_eq!(
            ct,
            format!("{};charset=utf-8", f.media()),
            "{}: content-type",
            r.what
        ),
    }
}

fn assert_vary(r: &Resp) {
    let vary: Vec<String> = r
        .must("vary")
        .split(',')
        .map(|s| s.trim().to_ascii_lowercase())
        .collect();
    assert!(
        vary.contains(&"accept".into()) && vary.contains(&"user-agent".into()),
        "{}: Vary {vary:?}",
        r.what
    );
}

fn assert_nosniff(r: &Resp) {
    assert_eq!(
        r.header("x-content-type-options"),
        Some("nosniff"),
        "{}: X-Content-Type-Options",
        r.what
    );
}

fn assert_ipinfo(v: &Value, ip: &str, target: &str) {
    let obj = v
        .as_object()
        .unwrap_or_else(|| panic!("{target}: not an object: {v}"));
    for k in TOP_KEYS {
        assert!(obj.contains_key(*k), "{target}: missing {k} in {v}");
    }
    for k in LOCATION_KEYS {
        assert!(
            v["location"].get(*k).is_some(),
            "{target}: missing location.{k}"
        );
    }
    for k in NETWORK_KEYS {
        assert!(
            v["network"].get(*k).is_some(),
            "{target}: missing network.{k}"
        );
    }
    assert_eq!(v["ip"], ip, "{target}: ip");
}

/// Plain text of a page: `key: value` lines whose values all start in one column.
fn assert_aligned(body: &str, target: &str) -> Vec<(String, String)> {
    assert!(
        body.ends_with('\n'),
        "{target}: text must end with a newline: {body:?}"
    );
    let mut column = None;
    let mut rows = Vec::new();
    let lines: Vec<&str> = body.lines().collect();
    assert!(lines.len() >= 2, "{target}: too few lines: {body:?}");
    for line in lines {
        let (key, rest) = line
            .split_once(':')
            .unwrap_or_else(|| panic!("{target}: not a key: value line: {line:?}"));
        assert!(
            !key.is_empty()
                && key
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
            "{target}: bad key in {line:?}"
        );
        assert_eq!(
            line,
            line.trim_end(),
            "{target}: trailing space in {line:?}"
        );
        let value = rest.trim_start();
        if !value.is_empty() {
            let col = line.len() - value.len();
            assert!(
                rest.starts_with(' '),
                "{target}: no space after colon: {line:?}"
            );
            match column {
                None => column = Some(col),
                Some(c) => assert_eq!(c, col, "{target}: value not aligned in {line:?}\n{body}"),
            }
        }
        rows.push((key.to_owned(), value.to_owned()));
    }
    assert!(column.is_some(), "{target}: no values at all");
    rows
}

/// The sha256 of the inline `<style>`, which the CSP must allow by hash.
fn style_hash(html: &str) -> Option<String> {
    use base64::Engine;
    use sha2::Digest;
    let start = html.find("<style>")? + "<style>".len();
    let end = start + html[start..].find("</style>")?;
    let digest = sha2::Sha256::digest(&html.as_bytes()[start..end]);
    Some(base64::engine::general_purpose::STANDARD.encode(digest))
}

/// A strict CSP: `default-src 'none'`, no scheme/host sources, no wildcards,
/// no unsafe-inline, and the inline style allowed by its exact hash.
fn assert_csp(r: &Resp) {
    let csp = r.must("content-security-policy");
    let directives: Vec<(String, Vec<String>)> = csp
        .split(';')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| {
            let mut parts = d.split_whitespace();
            let name = parts.next().unwrap().to_ascii_lowercase();
            (name, parts.map(str::to_owned).collect())
        })
        .collect();
    let find = |n: &str| {
        directives
            .iter()
            .find(|(name, _)| name == n)
            .map(|(_, v)| v)
    };
    assert_eq!(
        find("default-src").map(|v| v.as_slice()),
        Some(&["'none'".to_owned()][..]),
        "{}: CSP default-src: {csp}",
        r.what
    );
    for (name, sources) in &directives {
        for s in sources {
            let l = s.to_ascii_lowercase();
            assert!(
                !l.contains("http:")
                    && !l.contains("https:")
                    && !l.contains("//")
                    && !l.contains('*')
                    && l != "'unsafe-inline'"
                    && l != "'unsafe-eval'",
                "{}: CSP {name} allows {s}: {csp}",
                r.what
            );
        }
    }
    // Scripts: only this origin's (the pages' one script asset).
    assert!(
        find("script-src").is_none_or(|v| v.first().map(String::as_str) == Some("'self'")
            && v[1..].iter().all(|s| s.starts_with("'sha256-"))),
        "{}: CSP allows other scripts: {csp}",
        r.what
    );
    if let Some(hash) = style_hash(&r.body) {
        let want = format!("'sha256-{hash}'");
        assert!(
            find("style-src").is_some_and(|v| v.contains(&want)),
            "{}: CSP style-src does not allow the inline style ({want}): {csp}",
            r.what
        );
    }
}

/// No subresource of an HTML page is loaded from another origin.
fn assert_no_external_resources(html: &str, target: &str) {
    let lower = html.to_ascii_lowercase();
    for attr in ["src=", "srcset=", "action=", "poster=", "data="] {
        for (i, _) in lower.match_indices(attr) {
            let v = &lower[i + attr.len()..];
            let v = v.trim_start_matches(['"', '\'']);
            assert!(
                !v.starts_with("http") && !v.starts_with("//"),
                "{target}: external {attr} at {}",
                &html[i..(i + 80).min(html.len())]
            );
        }
    }
    // <link> elements (stylesheets, icons, preloads) must stay on this origin.
    for (i, _) in lower.match_indices("<link") {
        let tag = &lower[i..i + lower[i..].find('>').unwrap()];
        assert!(
            !tag.contains("http:") && !tag.contains("https:") && !tag.contains("\"//"),
            "{target}: external link element {tag}"
        );
    }
    assert!(!lower.contains("@import"), "{target}: CSS @import");
    assert!(
        !lower.contains("url(http"),
        "{target}: CSS url() to another origin"
    );
}

/// Checks the body of `page` rendered as `f`.
fn assert_body(r: &Resp, kind: Kind, f: Fmt) {
    let t = r.what.as_str();
    let b = r.body.as_str();
    match (f, kind) {
        (Fmt::Json, Kind::Root) => assert_ipinfo(&r.json(), "127.0.0.1", t),
        (Fmt::Json, Kind::Lookup(ip)) => assert_ipinfo(&r.json(), ip, t),
        (Fmt::Json, Kind::Docs) => {
            let v = r.json();
            assert!(v["title"].is_string(), "{t}: docs JSON without title: {v}");
            let ops: Vec<&serde_json::Value> = v["groups"]
                .as_array()
                .expect("docs JSON lists its groups of operations")
                .iter()
                .filter_map(|g| g["operations"].as_array())
                .flatten()
                .collect();
            let paths: Vec<&str> = ops.iter().filter_map(|o| o["path"].as_str()).collect();
            for p in ["/api/v1/me", "/api/v1/ip/{ip}"] {
                assert!(
                    paths.contains(&p),
                    "{t}: docs JSON does not document {p}: {paths:?}"
                );
            }
        }
        (Fmt::Json, Kind::Health) => assert_eq!(r.json()["status"], "ok", "{t}"),

        (Fmt::Text, Kind::Root) => {
            assert_eq!(b, "127.0.0.1\n", "{t}: root text is the bare address")
        }
        (Fmt::Text, Kind::Lookup(ip)) => {
            let rows = assert_aligned(b, t);
            let keys: Vec<&str> = rows.iter().map(|(k, _)| k.as_str()).collect();
            // An address that is not public (the loopback caller) leaves
            // out its empty keys; `about` says why (issue 32).
            let public = rows.contains(&("is_public".into(), "true".into()));
            let want: &[&str] = if public {
                &[
                    "ip",
                    "country",
                    "country_bn",
                    "asn",
                    "organization",
                    "range",
                    "local_time",
                ]
            } else {
                &["ip", "is_public", "range", "special_purpose", "about"]
            };
            for k in want {
                assert!(keys.contains(k), "{t}: text has no {k} line");
            }
            assert_eq!(rows[0], ("ip".to_owned(), ip.to_owned()), "{t}: first line");
            assert_eq!(
                rows.last().map(|(k, v)| (k.as_str(), v.as_str())),
                Some((
                    "source",
                    "IP Geolocation by DB-IP (https://db-ip.com), CC BY 4.0"
                )),
                "{t}: last line"
            );
        }
        (Fmt::Text, Kind::Health) => {
            let rows = assert_aligned(b, t);
            assert!(rows.contains(&("status".into(), "ok".into())), "{t}: {b}");
        }
        (Fmt::Text, Kind::Docs) => {
            for p in ["/api/v1/me", "/api/v1/ip/{ip}", "IP Geolocation by DB-IP"] {
                assert!(b.contains(p), "{t}: docs text lacks {p}");
            }
            assert!(
                !b.to_ascii_lowercase().starts_with("<!doctype"),
                "{t}: docs text is HTML"
            );
        }

        (Fmt::Md, _) => {
            assert!(
                b.starts_with("# "),
                "{t}: Markdown must open with a # heading: {b:.80}"
            );
            match kind {
                Kind::Root | Kind::Lookup(_) => {
                    let ip = if let Kind::Lookup(ip) = kind {
                        ip
                    } else {
                        "127.0.0.1"
                    };
                    assert!(
                        b.contains("| Field | Value |\n|---|---|\n"),
                        "{t}: no field table"
                    );
                    assert!(b.contains(&format!("| ip | {ip} |")), "{t}: no ip row");
                    assert!(
                        b.lines().any(|l| l == ATTRIBUTION_MD),
                        "{t}: no attribution line"
                    );
                    assert!(b.contains("(/docs)"), "{t}: no link to the docs");
                    assert!(b.contains("(/api/v1/ip/"), "{t}: no link to the API");
                }
                Kind::Health => {
                    assert!(
                        b.contains("| Field | Value |\n|---|---|\n"),
                        "{t}: no field table"
                    );
                }
                Kind::Docs => {
                    assert!(b.contains("|---|"), "{t}: docs Markdown has no table");
                    assert!(
                        b.lines().any(|l| l == ATTRIBUTION_MD),
                        "{t}: no attribution line"
                    );
                    assert!(
                        b.contains("/api/v1/ip/{ip}"),
                        "{t}: docs do not document the lookup"
                    );
                }
            }
        }

        (Fmt::Html, _) => {
            assert!(
                b.to_ascii_lowercase().starts_with("<!doctype html>"),
                "{t}: not an HTML document: {b:.80}"
            );
            assert!(
                b.contains("name=\"viewport\""),
                "{t}: no viewport meta (phones)"
            );
            assert!(
                b.contains(ATTRIBUTION_HTML),
                "{t}: no DB-IP attribution link"
            );
            assert!(b.trim_end().ends_with("</html>"), "{t}: truncated HTML");
            assert_no_external_resources(b, t);
            if let Kind::Lookup(ip) = kind {
                assert!(b.contains(&format!(">{ip}</h1>")), "{t}: address heading");
            }
        }
    }
}

/// Everything a successful negotiated response must carry.
fn assert_page(r: &Resp, kind: Kind, api: bool, f: Fmt) {
    assert_eq!(r.status, 200, "{}: status ({})", r.what, r.body);
    assert_content_type(r, f);
    assert_vary(r);
    assert_nosniff(r);
    assert_body(r, kind, f);
    if f == Fmt::Html {
        assert_csp(r);
    }
    if api || f == Fmt::Json {
        assert_eq!(
            r.header("access-control-allow-origin"),
            Some("*"),
            "{}: CORS",
            r.what
        );
    }
}

// ---------------------------------------------------------------------------
// every page, every format
// ---------------------------------------------------------------------------

#[test]
fn every_page_in_every_format_by_query() {
    for &(path, kind, api) in PAGES {
        for f in FORMATS {
            // The query wins whoever asks and whatever they accept.
            for headers in [
                &[][..],
                &[UA_CURL][..],
                &[UA_CHROME, ("Accept", "text/html,*/*;q=0.8")][..],
                &[("Accept", "application/json")][..],
            ] {
                let r = get(&format!("{path}?format={}", f.query()), headers);
                assert_page(&r, kind, api, f);
            }
        }
    }
}

/// The same pages through the real server: what the connection layer adds
/// (framing, `Date`) changes nothing the in-process tests check.
#[test]
fn every_page_in_every_format_over_a_real_socket() {
    for &(path, kind, api) in PAGES {
        for f in FORMATS {
            let r = get_wire(&format!("{path}?format={}", f.query()), &[UA_CURL]);
            assert_page(&r, kind, api, f);
            let r = get_wire(path, &[UA_CHROME, ("Accept", f.media())]);
            assert_page(&r, kind, api, by_accept(path, f));
        }
    }
}

/// The format an `Accept` naming only `f` gets on `path`: `f`, but never
/// HTML where the route's default is JSON (the API and `/healthz`, DESIGN.md
/// section 4): JSON there.
fn by_accept(path: &str, f: Fmt) -> Fmt {
    let json_default = path.starts_with("/api/") || path == "/healthz";
    if json_default && f == Fmt::Html {
        Fmt::Json
    } else {
        f
    }
}

/// The API answers a browser JSON (DESIGN.md section 4), over a real socket:
/// what Chromium, Firefox and Safari send when a link is followed gives
/// `application/json` on every `/api/v1/*` answer and its errors, while
/// Markdown and text still come on `Accept` and HTML on `?format=html`.
#[test]
fn the_api_answers_a_browser_json() {
    const BROWSER_ACCEPTS: [&str; 3] = [
        "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7",
        "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
        "text/html",
    ];
    for target in [
        "/api/v1/ip/8.8.8.8",
        "/api/v1/ip/10.1.2.3",
        "/api/v1/me",
        "/api/v1/asn/15169",
        "/healthz",
    ] {
        for accept in BROWSER_ACCEPTS {
            let r = get_wire(target, &[UA_CHROME, ("Accept", accept)]);
            assert_eq!(r.status, 200, "{target} {accept}: {}", r.body);
            assert_content_type(&r, Fmt::Json);
            assert_vary(&r);
            assert!(r.json().is_object(), "{target}: {}", r.body);
        }
        let md = get_wire(target, &[UA_CHROME, ("Accept", "text/markdown")]);
        assert_content_type(&md, Fmt::Md);
        let text = get_wire(target, &[UA_CHROME, ("Accept", "text/plain")]);
        assert_content_type(&text, Fmt::Text);
        let sep = if target.contains('?') { '&' } else { '?' };
        for f in FORMATS {
            let r = get_wire(&format!("{target}{sep}format={}", f.query()), &[UA_CHROME]);
            assert_content_type(&r, f);
        }
    }
    // Its errors too: a bad address, an unknown path under /api/.
    for target in ["/api/v1/ip/1.2.3", "/api/v1/nope"] {
        let r = get_wire(target, &[UA_CHROME, ("Accept", BROWSER_ACCEPTS[0])]);
        assert!(matches!(r.status, 400 | 404), "{target}: {}", r.status);
        assert_content_type(&r, Fmt::Json);
        assert!(r.json()["error"].is_string(), "{target}: {}", r.body);
    }
    // The pages keep HTML for a browser.
    let r = get_wire("/8.8.8.8", &[UA_CHROME, ("Accept", BROWSER_ACCEPTS[0])]);
    assert_content_type(&r, Fmt::Html);
}

#[test]
fn every_page_in_every_format_by_accept() {
    for &(path, kind, api) in PAGES {
        for f in FORMATS {
            for ua in [UA_CHROME, UA_CURL] {
                let r = get(path, &[ua, ("Accept", f.media())]);
                assert_page(&r, kind, api, by_accept(path, f));
            }
        }
    }
}

#[test]
fn format_names_are_case_insensitive_and_have_aliases() {
    for (q, f) in [
        ("JSON", Fmt::Json),
        ("Md", Fmt::Md),
        ("markdown", Fmt::Md),
        ("txt", Fmt::Text),
        ("HTML", Fmt::Html),
    ] {
        let r = get(&format!("/8.8.8.8?format={q}"), &[]);
        assert_page(&r, Kind::Lookup("8.8.8.8"), false, f);
    }
}

#[test]
fn route_defaults_without_accept() {
    // Pages: text for command-line clients, HTML for browsers; API: JSON.
    for &(path, kind, api) in PAGES {
        for ua in [UA_CHROME, UA_CURL] {
            let want = if api || matches!(kind, Kind::Health) {
                Fmt::Json
            } else if ua == UA_CHROME {
                Fmt::Html
            } else {
                Fmt::Text
            };
            let r = get(path, &[ua]);
            assert_page(&r, kind, api, want);
        }
    }
}

#[test]
fn html_address_pages_show_the_map_with_the_country_highlighted() {
    for (path, code) in [
        ("/8.8.8.8", "US"),
        ("/2001:4860:4860::8888", "CA"),
        ("/1.1.1.1", "AU"),
    ] {
        let r = get(path, &[UA_CHROME]);
        assert_eq!(r.status, 200);
        let b = &r.body;
        assert!(b.contains("<svg"), "{path}: no inline SVG map");
        assert_eq!(
            b.matches("class=\"hit\"").count(),
            1,
            "{path}: exactly one highlighted country"
        );
        assert!(
            b.contains(&format!("id=\"{code}\" class=\"hit\"")),
            "{path}: path #{code} is not the highlighted one"
        );
        assert!(
            !b.contains("id=\"pin\""),
            "{path}: a pin at country accuracy (the centroid is no place)"
        );
        for field in ["country-other", "lang=\"bn\""] {
            assert!(b.contains(field), "{path}: no {field}");
        }
        for link in ["?format=md", "?format=text", "/api/v1/ip/"] {
            assert!(b.contains(link), "{path}: no link to the {link} form");
        }
        assert!(
            b.contains("<form") && b.contains("name=\"ip\""),
            "{path}: no lookup form"
        );
        // One script, this service's own asset, loaded after the page
        // (copy buttons); the page works without it.
        assert_eq!(b.matches("<script").count(), 1, "{path}");
        assert!(
            b.contains("<script src=\"/assets/page.") && b.contains("\" defer></script>"),
            "{path}: a script other than the page's asset"
        );
    }
}

/// The map asset an HTML page refers to (`<image href="/assets/...">`).
fn map_asset_path(html: &str) -> String {
    let start = html
        .find("<image href=\"/assets/")
        .map(|i| i + "<image href=\"".len())
        .expect("the page draws the map asset");
    let end = start + html[start..].find('"').unwrap();
    html[start..end].to_owned()
}

#[test]
fn the_map_is_its_own_immutable_asset_and_pages_drop_its_weight() {
    // (path, country on the page): the US, Canada (the largest outline on
    // the map, carried by its page) and a private address (no map at all).
    let mut asset_path = None;
    for (path, code) in [("/8.8.8.8", "US"), ("/2001:4860:4860::8888", "CA")] {
        let page = get(path, &[UA_CHROME]);
        assert_eq!(page.status, 200);
        let found = map_asset_path(&page.body);
        assert!(
            asset_path.get_or_insert_with(|| found.clone()) == &found,
            "{path}: another asset name {found}"
        );
        // One outline on the page: the country's; the rest is the asset.
        assert_eq!(page.body.matches("<path ").count(), 1, "{path}");
        assert!(
            page.body
                .contains(&format!("<path id=\"{code}\" class=\"hit\""))
        );
        for other in ["FR", "BR", "CN"] {
            assert!(
                !page.body.contains(&format!("id=\"{other}\"")),
                "{path}: #{other}"
            );
        }
    }
    let asset_path = asset_path.unwrap();
    let stem = asset_path
        .strip_prefix("/assets/world.")
        .and_then(|s| s.strip_suffix(".svg"))
        .unwrap_or_else(|| panic!("asset name {asset_path}"));
    assert!(
        stem.len() == 16 && stem.bytes().all(|b| b.is_ascii_hexdigit()),
        "content hash in {asset_path}"
    );

    let map = get(&asset_path, &[UA_CHROME]);
    assert_eq!(map.status, 200, "{}", map.body);
    assert_eq!(map.must("content-type"), "image/svg+xml");
    assert_eq!(
        map.must("cache-control"),
        "public, max-age=31536000, immutable"
    );
    assert_nosniff(&map);
    // The pages' CSP, which allows the map's own <style> by its hash.
    assert_csp(&map);
    assert!(map.body.contains("<style>"), "the map carries its colours");
    assert!(map.body.starts_with("<svg ") && map.body.trim_end().ends_with("</svg>"));
    for code in ["US", "CA", "FR", "BD"] {
        assert!(
            map.body.contains(&format!("<path id=\"{code}\"")),
            "map: #{code}"
        );
    }
    let etag = map.must("etag").to_owned();
    assert!(etag.starts_with('"') && etag.contains(stem), "ETag {etag}");
    let again = get(&asset_path, &[UA_CHROME, ("If-None-Match", &etag)]);
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
    assert_eq!(again.header("etag"), Some(etag.as_str()));

    // Every HTML answer used to carry the whole map inline; now the US page
    // and even Canada's (with the largest outline, ~15 KB) are lighter than
    // the map (54 KB since issue 32 simplified it) by half at least.
    for path in ["/8.8.8.8", "/2001:4860:4860::8888", "/1.1.1.1"] {
        let page = get(path, &[UA_CHROME]);
        eprintln!(
            "{path}: HTML {} bytes; map asset {} bytes",
            page.body.len(),
            map.body.len()
        );
        assert!(
            page.body.len() * 2 < map.body.len(),
            "{path}: {} bytes of HTML beside a {}-byte map",
            page.body.len(),
            map.body.len()
        );
    }
}

#[test]
fn unknown_asset_names_are_404_with_an_error_body() {
    let real = map_asset_path(&get("/8.8.8.8", &[UA_CHROME]).body);
    let stale = "/assets/world.0000000000000000.svg";
    assert_ne!(real, stale);
    for target in [
        stale,
        "/assets/world.svg",
        "/assets/nope.css",
        "/assets/..%2Fworld.svg",
    ] {
        let r = get(target, &[]);
        assert_eq!(r.status, 404, "{target}: {}", r.body);
        assert_content_type(&r, Fmt::Json);
        assert_nosniff(&r);
        assert_eq!(r.json()["error"], "not_found", "{target}: {}", r.body);
        assert!(r.json()["message"].is_string(), "{target}");
    }
}

// ---------------------------------------------------------------------------
// q-values and wildcards
// ---------------------------------------------------------------------------

#[test]
fn q_values_and_wildcards() {
    let page = Kind::Lookup("8.8.8.8");
    let api = Kind::Lookup("1.1.1.1");
    type Case = (
        &'static str,
        &'static str,
        (&'static str, &'static str),
        Kind,
        bool,
        Fmt,
    );
    let cases: &[Case] = &[
        // (path, Accept, User-Agent, kind, is API, expected)
        (
            "/8.8.8.8",
            "text/html;q=0.9, text/markdown",
            UA_CHROME,
            page,
            false,
            Fmt::Md,
        ),
        (
            "/8.8.8.8",
            "text/html;q=0.9, text/markdown",
            UA_CURL,
            page,
            false,
            Fmt::Md,
        ),
        (
            "/api/v1/ip/1.1.1.1",
            "text/html;q=0.9, text/markdown",
            UA_CURL,
            api,
            true,
            Fmt::Md,
        ),
        ("/8.8.8.8", "*/*", UA_CHROME, page, false, Fmt::Html),
        ("/8.8.8.8", "*/*", UA_CURL, page, false, Fmt::Text),
        ("/api/v1/ip/1.1.1.1", "*/*", UA_CHROME, api, true, Fmt::Json),
        ("/api/v1/ip/1.1.1.1", "*/*", UA_CURL, api, true, Fmt::Json),
        ("/docs", "*/*", UA_CHROME, Kind::Docs, false, Fmt::Html),
        (
            "/8.8.8.8",
            "application/*",
            UA_CHROME,
            page,
            false,
            Fmt::Json,
        ),
        ("/8.8.8.8", "application/*", UA_CURL, page, false, Fmt::Json),
        (
            "/",
            "application/*",
            UA_CHROME,
            Kind::Root,
            false,
            Fmt::Json,
        ),
        ("/8.8.8.8", "text/*", UA_CHROME, page, false, Fmt::Html),
        ("/8.8.8.8", "text/*", UA_CURL, page, false, Fmt::Text),
        (
            "/8.8.8.8",
            "text/plain, */*;q=0.1",
            UA_CHROME,
            page,
            false,
            Fmt::Text,
        ),
        (
            "/8.8.8.8",
            "application/json;q=0.5, text/markdown;q=0.8",
            UA_CHROME,
            page,
            false,
            Fmt::Md,
        ),
        (
            "/8.8.8.8",
            "text/*;q=0.5, application/json;q=0.4",
            UA_CHROME,
            page,
            false,
            Fmt::Html,
        ),
        (
            "/8.8.8.8",
            "text/html;q=0, */*",
            UA_CHROME,
            page,
            false,
            Fmt::Json,
        ),
        ("/8.8.8.8", "TEXT/MARKDOWN", UA_CHROME, page, false, Fmt::Md),
        (
            "/8.8.8.8",
            "text/markdown; charset=utf-8",
            UA_CHROME,
            page,
            false,
            Fmt::Md,
        ),
        (
            "/8.8.8.8",
            "image/png, text/plain;q=0.2",
            UA_CHROME,
            page,
            false,
            Fmt::Text,
        ),
        (
            "/8.8.8.8",
            "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7",
            UA_CHROME,
            page,
            false,
            Fmt::Html,
        ),
        (
            "/8.8.8.8",
            "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
            UA_CHROME,
            page,
            false,
            Fmt::Html,
        ),
        (
            "/healthz",
            "text/markdown",
            UA_CURL,
            Kind::Health,
            false,
            Fmt::Md,
        ),
        (
            "/api/v1/me",
            "text/plain",
            UA_CHROME,
            Kind::Lookup("127.0.0.1"),
            true,
            Fmt::Text,
        ),
    ];
    for &(path, accept, ua, kind, is_api, want) in cases {
        let r = get(path, &[ua, ("Accept", accept)]);
        assert_content_type(&r, want);
        assert_page(&r, kind, is_api, want);
    }
    // `text/*` on the API (whose default, JSON, it excludes): plain text
    // (the first text type in the server's tie order; `Accept` never picks
    // HTML on the API), for curl and a browser alike.
    for ua in [UA_CURL, UA_CHROME] {
        let r = get("/api/v1/ip/1.1.1.1", &[ua, ("Accept", "text/*")]);
        assert_eq!(r.status, 200);
        assert_content_type(&r, Fmt::Text);
        assert_vary(&r);
    }
}

#[test]
fn several_accept_headers_are_combined() {
    let r = get(
        "/8.8.8.8",
        &[
            UA_CHROME,
            ("Accept", "text/html;q=0.5"),
            ("Accept", "text/markdown"),
        ],
    );
    assert_page(&r, Kind::Lookup("8.8.8.8"), false, Fmt::Md);
}

#[test]
fn root_with_accept_text_plain_is_the_bare_address_for_anyone() {
    for headers in [
        &[UA_CHROME, ("Accept", "text/plain")][..],
        &[
            (
                "User-Agent",
                "Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Mobile/15E148 Safari/604.1",
            ),
            ("Accept", "text/plain"),
        ][..],
        &[("Accept", "text/plain")][..],
        &[UA_CURL, ("Accept", "text/plain")][..],
        &[UA_CHROME, ("Accept", "text/plain, text/html;q=0.5")][..],
    ] {
        let r = get("/", headers);
        assert_eq!(r.status, 200, "{headers:?}");
        assert_eq!(r.body, "127.0.0.1\n", "{headers:?}");
        assert_content_type(&r, Fmt::Text);
        assert_vary(&r);
        assert_eq!(r.must("cache-control"), "no-store");
    }
}

// ---------------------------------------------------------------------------
// refusals: 406, bad ?format=, invalid addresses
// ---------------------------------------------------------------------------

#[test]
fn unsatisfiable_accept_is_406_listing_what_is_offered() {
    for &(path, _, _) in PAGES {
        for accept in [
            "image/png",
            "application/xml",
            "*/*;q=0",
            "image/*, application/pdf",
        ] {
            for ua in [UA_CHROME, UA_CURL] {
                let r = get(path, &[ua, ("Accept", accept)]);
                assert_eq!(r.status, 406, "{path} Accept {accept}: {}", r.body);
                assert_vary(&r);
                assert_nosniff(&r);
                let listed = r.body.to_ascii_lowercase();
                for offered in [
                    "application/json",
                    "text/plain",
                    "text/markdown",
                    "text/html",
                ] {
                    assert!(
                        listed.contains(offered),
                        "{path}: 406 does not offer {offered}: {}",
                        r.body
                    );
                }
                assert_eq!(
                    r.must("cache-control"),
                    "no-store",
                    "{path}: a 406 must not be cached"
                );
            }
        }
    }
    // The body is an Error object.
    let r = get("/8.8.8.8", &[("Accept", "image/png")]);
    let v = r.json();
    assert!(v["error"].is_string(), "{v}");
}

#[test]
fn bad_format_value_is_400_with_an_error_body() {
    // API routes: JSON by default.
    for path in ["/api/v1/ip/1.1.1.1", "/api/v1/me", "/healthz"] {
        for q in ["xml", "", "yaml", "json5"] {
            let r = get(&format!("{path}?format={q}"), &[UA_CURL]);
            assert_eq!(r.status, 400, "{}: {}", r.what, r.body);
            assert_content_type(&r, Fmt::Json);
            assert_vary(&r);
            assert_nosniff(&r);
            let v = r.json();
            assert!(v["error"].is_string(), "{}: {v}", r.what);
            assert!(v.get("message").is_none_or(Value::is_string), "{v}");
            assert_eq!(r.must("cache-control"), "no-store");
        }
    }
    // Every route: the Error in Markdown for Accept: text/markdown, JSON for application/json.
    for &(path, _, _) in PAGES {
        let target = format!("{path}?format=xml");
        let r = get(&target, &[UA_CHROME, ("Accept", "text/markdown")]);
        assert_eq!(r.status, 400, "{target}");
        assert_content_type(&r, Fmt::Md);
        assert!(r.body.starts_with("# Error"), "{target}: {}", r.body);
        assert!(r.body.contains("bad_format"), "{target}: {}", r.body);

        let r = get(&target, &[UA_CHROME, ("Accept", "application/json")]);
        assert_eq!(r.status, 400, "{target}");
        assert_content_type(&r, Fmt::Json);
        assert_eq!(r.json()["error"], "bad_format", "{target}");

        // Pages fall back to their route default: HTML for browsers, text for programs.
        let r = get(&target, &[UA_CHROME]);
        assert_eq!(r.status, 400);
        if path.starts_with("/api/") || path == "/healthz" {
            assert_content_type(&r, Fmt::Json);
        } else {
            assert_content_type(&r, Fmt::Html);
            assert_csp(&r);
            assert!(
                r.body.contains("bad_format") || r.body.contains("unknown format"),
                "{}",
                r.body
            );
        }
        let r = get(&target, &[UA_CURL]);
        assert_eq!(r.status, 400);
        if !path.starts_with("/api/") && path != "/healthz" {
            assert_content_type(&r, Fmt::Text);
            let rows = assert_aligned(&r.body, &target);
            assert_eq!(rows[0], ("error".into(), "bad_format".into()));
        }
    }
}

/// The Error content of an invalid address, checked in format `f`.
fn assert_invalid_ip(r: &Resp, f: Fmt) {
    assert_eq!(r.status, 400, "{}: {}", r.what, r.body);
    assert_content_type(r, f);
    assert_vary(r);
    assert_nosniff(r);
    assert_eq!(r.must("cache-control"), "no-store", "{}", r.what);
    assert!(
        r.header("etag").is_none(),
        "{}: an error has no ETag",
        r.what
    );
    match f {
        Fmt::Json => {
            let v = r.json();
            assert_eq!(v["error"], "invalid_ip", "{}", r.what);
            assert!(
                v["message"].as_str().is_some_and(|m| m.contains("1.2.3")),
                "{v}"
            );
        }
        Fmt::Text => {
            let rows = assert_aligned(&r.body, &r.what);
            assert_eq!(rows[0], ("error".into(), "invalid_ip".into()), "{}", r.what);
        }
        Fmt::Md => {
            assert!(r.body.starts_with("# "), "{}: {}", r.what, r.body);
            assert!(
                r.body.contains("invalid\\_ip") || r.body.contains("invalid_ip"),
                "{}",
                r.body
            );
        }
        Fmt::Html => {
            assert!(
                r.body.to_ascii_lowercase().starts_with("<!doctype html>"),
                "{}",
                r.what
            );
            assert!(r.body.contains("1.2.3"), "{}: message not shown", r.what);
            assert!(
                r.body.contains("name=\"ip\""),
                "{}: the error page offers the form",
                r.what
            );
            assert_csp(r);
        }
    }
}

#[test]
fn invalid_address_page_is_400_in_the_format_asked_by_accept() {
    for path in ["/1.2.3", "/api/v1/ip/1.2.3"] {
        for f in FORMATS {
            for ua in [UA_CHROME, UA_CURL] {
                let r = get(path, &[ua, ("Accept", f.media())]);
                // `Accept` never picks HTML on the API (DESIGN.md section 4).
                let api = path.starts_with("/api/");
                assert_invalid_ip(&r, if api && f == Fmt::Html { Fmt::Json } else { f });
            }
        }
    }
    // And the route defaults.
    assert_invalid_ip(&get("/1.2.3", &[UA_CHROME]), Fmt::Html);
    assert_invalid_ip(&get("/1.2.3", &[UA_CURL]), Fmt::Text);
    assert_invalid_ip(&get("/api/v1/ip/1.2.3", &[UA_CHROME]), Fmt::Json);
}

#[test]
fn invalid_address_page_is_400_in_the_format_asked_by_query() {
    for path in ["/1.2.3", "/api/v1/ip/1.2.3"] {
        for f in FORMATS {
            for ua in [UA_CHROME, UA_CURL] {
                let r = get(&format!("{path}?format={}", f.query()), &[ua]);
                assert_invalid_ip(&r, f);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// caching, CORS, ETag
// ---------------------------------------------------------------------------

fn max_age(cc: &str) -> Option<u64> {
    cc.split(',')
        .map(str::trim)
        .find_map(|d| {
            d.strip_prefix("max-age=")
                .or_else(|| d.strip_prefix("s-maxage="))
        })
        .and_then(|v| v.parse().ok())
}

#[test]
fn the_caller_pages_are_never_cached() {
    for path in ["/", "/api/v1/me"] {
        for f in FORMATS {
            for ua in [UA_CHROME, UA_CURL] {
                let r = get(&format!("{path}?format={}", f.query()), &[ua]);
                let cc = r.must("cache-control").to_ascii_lowercase();
                assert!(cc.contains("no-store"), "{}: Cache-Control {cc}", r.what);
                assert!(!cc.contains("public"), "{}: Cache-Control {cc}", r.what);
            }
        }
        let r = get(path, &[UA_CURL]);
        assert!(r.must("cache-control").contains("no-store"), "{path}");
    }
}

#[test]
fn address_pages_are_cacheable_briefly() {
    for path in ["/8.8.8.8", "/2001:4860:4860::8888", "/api/v1/ip/1.1.1.1"] {
        for f in FORMATS {
            let r = get(&format!("{path}?format={}", f.query()), &[UA_CHROME]);
            let cc = r.must("cache-control").to_ascii_lowercase();
            assert!(
                !cc.contains("no-store") && !cc.contains("no-cache") && !cc.contains("private"),
                "{}: {cc}",
                r.what
            );
            let age = max_age(&cc).unwrap_or_else(|| panic!("{}: no max-age in {cc}", r.what));
            assert!(
                (1..=86_400).contains(&age),
                "{}: max-age {age} is not brief",
                r.what
            );
        }
    }
}

#[test]
fn api_and_json_forms_allow_any_origin() {
    for path in [
        "/api/v1/me",
        "/api/v1/ip/1.1.1.1",
        "/api/v1/ip/2001:4860:4860::8888",
    ] {
        for f in FORMATS {
            let r = get(&format!("{path}?format={}", f.query()), &[UA_CHROME]);
            assert_eq!(
                r.header("access-control-allow-origin"),
                Some("*"),
                "{}",
                r.what
            );
        }
        // Errors of the API too, so a browser app can read them.
        let r = get("/api/v1/ip/1.2.3", &[UA_CHROME]);
        assert_eq!(
            r.header("access-control-allow-origin"),
            Some("*"),
            "{}",
            r.what
        );
    }
    for &(path, _, _) in PAGES {
        let r = get(path, &[UA_CHROME, ("Accept", "application/json")]);
        assert_eq!(
            r.header("access-control-allow-origin"),
            Some("*"),
            "{path} as JSON"
        );
    }
}

#[test]
fn nosniff_everywhere() {
    let mut targets: Vec<String> = PAGES.iter().map(|(p, _, _)| p.to_string()).collect();
    targets.extend(
        [
            "/1.2.3",
            "/no-such-page",
            "/?ip=8.8.8.8",
            "/api/v1/openapi.json",
            "/8.8.8.8?format=xml",
        ]
        .map(String::from),
    );
    // Answered before any handler: 414 (URI too long).
    let long = format!("/{}", "a".repeat(5000));
    assert_eq!(get(&long, &[]).status, 414);
    targets.push(long);
    for t in targets {
        for ua in [UA_CHROME, UA_CURL] {
            let r = get(&t, &[ua]);
            assert_nosniff(&r);
        }
    }
}

#[test]
fn csp_on_every_html_response() {
    for t in [
        "/",
        "/8.8.8.8",
        "/2001:4860:4860::8888",
        "/docs",
        "/healthz?format=html",
        "/1.2.3",
        "/no-such-page",
    ] {
        let r = get(t, &[UA_CHROME, ("Accept", "text/html")]);
        assert_content_type(&r, Fmt::Html);
        assert_csp(&r);
    }
}

#[test]
fn etag_and_if_none_match() {
    for path in ["/8.8.8.8", "/2001:4860:4860::8888", "/api/v1/ip/1.1.1.1"] {
        let mut tags = Vec::new();
        for f in FORMATS {
            let target = format!("{path}?format={}", f.query());
            let r = get(&target, &[UA_CHROME]);
            assert_eq!(r.status, 200);
            let tag = r.must("etag").to_owned();
            assert!(
                tag.ends_with('"') && (tag.starts_with('"') || tag.starts_with("W/\"")),
                "{target}: ETag {tag}"
            );
            // The same tag again: same data release, same format.
            assert_eq!(
                get(&target, &[UA_CHROME]).header("etag"),
                Some(tag.as_str()),
                "{target}: stable ETag"
            );

            for inm in [tag.clone(), format!("\"nope\", {tag}"), "*".to_owned()] {
                let r = get(&target, &[UA_CHROME, ("If-None-Match", &inm)]);
                assert_eq!(r.status, 304, "{target} If-None-Match {inm}");
                assert_eq!(r.body, "", "{target}: a 304 has no body");
                assert!(
                    r.header("content-length").is_none_or(|l| l == "0"),
                    "{target}"
                );
                assert_eq!(
                    r.header("etag"),
                    Some(tag.as_str()),
                    "{target}: 304 repeats the ETag"
                );
                assert_vary(&r);
                assert!(
                    r.header("cache-control").is_some(),
                    "{target}: 304 repeats Cache-Control"
                );
            }
            let r = get(
                &target,
                &[UA_CHROME, ("If-None-Match", "W/\"something-else\"")],
            );
            assert_eq!(r.status, 200, "{target}: a stale tag gets the page");
            assert!(!r.body.is_empty());
            tags.push(tag);
        }
        // Each format has its own tag, so a cache never hands one format for another.
        let mut unique = tags.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(
            unique.len(),
            tags.len(),
            "{path}: ETags per format {tags:?}"
        );
        let json_tag = &tags[0];
        let r = get(
            path,
            &[
                UA_CHROME,
                ("Accept", "text/html"),
                ("If-None-Match", json_tag),
            ],
        );
        if path.starts_with("/api/") {
            // `Accept: text/html` gets the API's JSON: the JSON tag holds.
            assert_eq!(
                r.status, 304,
                "{path}: Accept: text/html is JSON on the API"
            );
            let html = get(
                &format!("{path}?format=html"),
                &[UA_CHROME, ("If-None-Match", json_tag)],
            );
            assert_eq!(
                html.status, 200,
                "{path}: the JSON tag must not validate HTML"
            );
        } else {
            assert_eq!(
                r.status, 200,
                "{path}: the JSON tag must not validate the HTML form"
            );
        }
    }
    // The tag is the data release's: the same for every address in one format.
    let a = get("/api/v1/ip/8.8.8.8", &[]).must("etag").to_owned();
    let b = get("/api/v1/ip/1.1.1.1", &[]).must("etag").to_owned();
    assert_eq!(a, b, "ETag tied to the data release");
}

// ---------------------------------------------------------------------------
// the lookup form
// ---------------------------------------------------------------------------

#[test]
fn lookup_form_redirects_to_the_address_page() {
    for (query, location) in [
        ("ip=8.8.8.8", "/8.8.8.8"),
        ("ip=2001%3A4860%3A4860%3A%3A8888", "/2001:4860:4860::8888"),
        ("ip=2001:4860:4860:0:0:0:0:8888", "/2001:4860:4860::8888"),
    ] {
        for ua in [UA_CHROME, UA_CURL] {
            let r = get(&format!("/?{query}"), &[ua]);
            assert!(
                matches!(r.status, 302 | 303 | 307),
                "/?{query}: status {}",
                r.status
            );
            assert_eq!(r.header("location"), Some(location), "/?{query}");
            assert_nosniff(&r);
        }
    }
    // The page it lands on.
    let r = get("/8.8.8.8", &[UA_CHROME]);
    assert_page(&r, Kind::Lookup("8.8.8.8"), false, Fmt::Html);
    // A bad address from the form is a 400 page, not a redirect (what people
    // paste around an address is read: `search`).
    for bad in ["/?ip=1.2.3", "/?ip=+8.8.8.8x+"] {
        let r = get(bad, &[UA_CHROME]);
        assert_eq!(r.status, 400, "{bad}");
        assert_content_type(&r, Fmt::Html);
    }
    // An empty form field, or one of only whitespace, is the root.
    for empty in ["/?ip=", "/?ip=%C2%A0", "/?ip=+"] {
        let r = get(empty, &[UA_CURL]);
        assert_eq!(r.status, 200, "{empty}");
        assert_eq!(r.body, "127.0.0.1\n", "{empty}");
    }
}

/// The media type of a response, without parameters.
fn media_type(r: &Resp) -> String {
    let ct = r.must("content-type");
    ct.split(';')
        .next()
        .unwrap_or(ct)
        .trim()
        .to_ascii_lowercase()
}

/// A 414, answered before any handler, comes in the format a 404 of the
/// same route does (docs/API.md, "Endpoints"): a page for browsers (HTML) and
/// command-line clients (text) on the pages, JSON on the API and the assets.
/// `?format=` and `Accept` pick another offered format; one the service does
/// not offer leaves the route's, and the status stays 414 (never 406).
#[test]
fn a_414_comes_in_the_format_of_a_404_on_the_same_route() {
    let pad = "a".repeat(5000);
    let cases = [
        // (a 404 of the route, a path of the same route over the limit)
        ("/no-such-page".to_owned(), format!("/{pad}")),
        ("/a/b".to_owned(), format!("/a/{pad}")),
        ("/api/v1/nope".to_owned(), format!("/api/v1/{pad}")),
        ("/assets/nope.svg".to_owned(), format!("/assets/{pad}")),
    ];
    for (missing, long) in &cases {
        for ua in [UA_CHROME, UA_CURL] {
            let not_found = get(missing, &[ua]);
            let too_long = get(long, &[ua]);
            assert_eq!(not_found.status, 404, "{}", not_found.what);
            assert_eq!(too_long.status, 414, "{}", too_long.what);
            assert_eq!(
                media_type(&too_long),
                media_type(&not_found),
                "{} vs {}",
                too_long.what,
                not_found.what
            );
            let message = "the path and query may hold at most 4096 bytes";
            assert!(too_long.body.contains(message), "{}", too_long.body);
        }
    }
    let page = format!("/{pad}");
    let browser = get(&page, &[UA_CHROME]);
    assert_eq!(media_type(&browser), "text/html");
    assert_csp(&browser);
    let api = get(&format!("/api/v1/ip/{pad}"), &[UA_CHROME]);
    assert_eq!(api.json()["error"], "uri_too_long", "{}", api.body);
    // Asked for: JSON on a page, Markdown on the API.
    let json = get(&format!("{page}?format=json"), &[UA_CHROME]);
    assert_eq!(
        (json.status, json.json()["error"].clone()),
        (414, "uri_too_long".into())
    );
    let md = get(&format!("/api/v1/ip/{pad}"), &[("Accept", "text/markdown")]);
    assert_eq!(
        (md.status, media_type(&md)),
        (414, "text/markdown".to_owned())
    );
    // Not offered: the route's format, still 414.
    for extra in [("Accept", "image/png"), ("Accept", "text/html;q=0")] {
        let r = get(&page, &[UA_CURL, extra]);
        assert_eq!(
            (r.status, media_type(&r)),
            (414, "text/plain".to_owned()),
            "{extra:?}"
        );
    }
    let r = get(&format!("{page}?format=xml"), &[UA_CHROME]);
    assert_eq!((r.status, media_type(&r)), (414, "text/html".to_owned()));
}

/// The plain text of a page that shows a result (an address's, an AS's,
/// the caller's through the API) ends with one line crediting DB-IP, over
/// a real socket: as curl gets it by default and through `?format=text`.
/// The root's bare address and single fields show no DB-IP data: no line.
#[test]
fn text_pages_of_results_end_with_the_db_ip_credit() {
    for (target, headers) in [
        ("/8.8.8.8", &[UA_CURL][..]),
        ("/AS15169", &[UA_CURL]),
        ("/8.8.8.8?format=text", &[]),
        ("/10.0.0.1?format=text", &[]),
        ("/AS15169?format=text", &[]),
        ("/api/v1/ip/8.8.8.8?format=text", &[]),
        ("/api/v1/me?format=text", &[]),
        ("/api/v1/asn/15169?format=text", &[]),
    ] {
        let r = get_wire(target, headers);
        assert_eq!(r.status, 200, "{target}: {}", r.body);
        assert!(
            r.header("content-type")
                .unwrap_or_default()
                .starts_with("text/plain"),
            "{target}: {r:?}"
        );
        let last = r.body.lines().last().unwrap_or_default();
        let (key, value) = last.split_once(':').unwrap_or_default();
        assert_eq!(
            (key, value.trim_start()),
            (
                "source",
                "IP Geolocation by DB-IP (https://db-ip.com), CC BY 4.0"
            ),
            "{target}:\n{}",
            r.body
        );
        assert_eq!(r.body.matches("db-ip.com").count(), 1, "{target}");
    }
    // The root for curl is the bare address; a field is its bare value.
    for (target, headers) in [("/", &[UA_CURL][..]), ("/?format=text", &[UA_CHROME])] {
        let root = get_wire(target, headers);
        assert_eq!(root.body, "127.0.0.1\n", "{target}: {root:?}");
    }
    let field = get_wire("/api/v1/ip/8.8.8.8/asn", &[UA_CURL]);
    assert_eq!(field.body, "15169\n", "{field:?}");
}
