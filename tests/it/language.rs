//! The pages' language (issue 23 point 7), over a real loopback socket:
//! asked in Bangla (`Accept-Language: bn`), every kind of page (the root,
//! an address, a private address, an AS, a later page of an AS, the errors
//! 400 and 404, the search box's error, the health report) in HTML, text and Markdown carries
//! `Content-Language: bn` and no English word or Latin digit outside what
//! is written the same in every language: addresses, prefixes, AS and RFC
//! numbers, acronyms, commands, the data's own English names (the operator,
//! the English country name, labelled as such) and the licence's
//! attribution. The docs are English only, and say so.

use std::net::SocketAddr;
use std::sync::OnceLock;

use crate::support::{self, wire};

fn server() -> SocketAddr {
    static ADDR: OnceLock<SocketAddr> = OnceLock::new();
    *ADDR.get_or_init(|| {
        let mut config = support::config();
        // The root page asks for the caller given by this trusted proxy.
        config.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
        support::background(config).addr
    })
}

const CHROME: (&str, &str) = (
    "User-Agent",
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36",
);

/// Words written the same on an English and a Bangla page.
const SAME_IN_EVERY_LANGUAGE: &[&str] = &[
    "iplookup",
    "English",
    "Markdown",
    "OpenAPI",
    "RouteViews",
    "IPv4",
    "IPv6",
    "Wi-Fi",
    "dig",
    "nslookup",
    "short",
    // The licence's attribution, in the text and Markdown forms.
    "Geolocation",
    "by",
];

/// The text of `body` as a reader sees it: for HTML without the style,
/// scripts, `curl` commands, tags and what is marked `lang="en"`.
fn visible(body: &str, html: bool) -> String {
    if !html {
        return body.to_owned();
    }
    let mut text = body.to_owned();
    for (open, close) in [
        ("<style", "</style>"),
        ("<script", "</script>"),
        ("<code", "</code>"),
    ] {
        text = cut_all(&text, |t| t.find(open), close);
    }
    // An element marked English, to its closing tag (they hold no nested
    // element of the same name).
    while let Some(at) = text.find(" lang=\"en\"") {
        let start = text[..at].rfind('<').unwrap();
        let name: String = text[start + 1..]
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect();
        let close = format!("</{name}>");
        let end = text[at..]
            .find(&close)
            .map_or(text.len(), |e| at + e + close.len());
        text.replace_range(start..end, " ");
    }
    let mut out = String::new();
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&amp;", "&")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
}

fn cut_all(text: &str, find: impl Fn(&str) -> Option<usize>, close: &str) -> String {
    let mut text = text.to_owned();
    while let Some(start) = find(&text) {
        let end = text[start..]
            .find(close)
            .map_or(text.len(), |e| start + e + close.len());
        text.replace_range(start..end, " ");
    }
    text
}

/// The tokens of `text` that are English words or Latin numbers.
fn strays(text: &str, data: &[String]) -> Vec<String> {
    let mut text = text.to_owned();
    for d in data.iter().filter(|d| !d.is_empty()) {
        text = text.replace(d.as_str(), " ");
    }
    let mut out = Vec::new();
    let mut previous = String::new();
    // Words, and the Latin runs inside a word joined to Bangla (`CGN-এর`).
    let bangla = |c: char| ('\u{980}'..='\u{9ff}').contains(&c) || c == '।';
    for raw in text.split(|c: char| c.is_whitespace() || bangla(c)) {
        let token = raw.trim_matches(|c: char| "()[]|,;:“”\"'`\\*·!?+−-".contains(c));
        let after_rfc = previous == "RFC";
        previous = token.to_owned();
        let identifier = token.contains(['.', ':', '/', '@', '_', '=', '?', '#'])
            || token.starts_with("--")
            || token.starts_with("AS") && token[2..].bytes().all(|b| b.is_ascii_digit())
            || (token.contains('-') && token.bytes().any(|b| b.is_ascii_digit()))
            || token
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'-')
                && token.bytes().any(|b| b.is_ascii_uppercase())
            || SAME_IN_EVERY_LANGUAGE.contains(&token);
        let latin = token.bytes().any(|b| b.is_ascii_alphanumeric());
        let number = !token.is_empty() && token.bytes().all(|b| b.is_ascii_digit());
        if latin && !identifier && !(number && after_rfc) {
            out.push(raw.to_owned());
        }
    }
    out
}

#[test]
fn every_page_kind_is_bangla_when_asked() {
    let json = |path: &str| wire::get_blocking(server(), path, &[]).json();
    let mut data = Vec::new();
    for ip in ["8.8.8.8", "103.4.145.1"] {
        let v = json(&format!("/api/v1/ip/{ip}"));
        for field in [
            &v["network"]["organization"],
            &v["location"]["country"],
            &v["location"]["time_zone"],
            &v["network"]["reverse_dns"],
        ] {
            data.push(field.as_str().unwrap_or_default().to_owned());
        }
    }
    for asn in ["15169", "174"] {
        data.push(
            json(&format!("/api/v1/asn/{asn}"))["organization"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    // The data's sources, as the health report names them (`npm @ip-location-db/...`).
    let health = json("/healthz?format=json");
    for table in ["country", "asn"] {
        let source = health["data"][table]["source"].as_str().unwrap();
        // And as Markdown writes it (`@` as code, so it links nothing).
        data.push(source.replace('@', "`@`"));
        data.push(source.to_owned());
    }
    let xff = ("X-Forwarded-For", "103.4.145.1");
    let bn = ("Accept-Language", "bn");
    let mut checked = 0;
    for (path, status) in [
        ("/", 200),
        ("/8.8.8.8", 200),
        ("/10.1.2.3", 200),
        ("/127.0.0.1", 200),
        ("/100.64.0.1", 200),
        ("/AS15169", 200),
        ("/AS174?page=2", 200),
        ("/1.2.3", 400),
        ("/?ip=999.1.1.1", 400),
        ("/?ip=1.2.3.4%3A99999", 400),
        ("/no-such-page", 404),
        ("/AS4199999999", 404),
        ("/healthz", 200),
    ] {
        for (format, html) in [("html", true), ("text", false), ("md", false)] {
            let sep = if path.contains('?') { '&' } else { '?' };
            let target = format!("{path}{sep}format={format}");
            let r = wire::get_blocking(server(), &target, &[CHROME, bn, xff]);
            assert_eq!(r.status, status, "{target}: {}", r.body);
            assert_eq!(r.must("content-language"), "bn", "{target}");
            if html {
                assert!(
                    r.body.starts_with("<!doctype html><html lang=\"bn\">"),
                    "{target}"
                );
            }
            let found = strays(&visible(&r.body, html), &data);
            assert!(
                found.is_empty(),
                "{target}: English or Latin digits {found:?} in\n{}",
                visible(&r.body, html)
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 39);
    // The checker finds what it looks for.
    assert_eq!(
        strays("এটি is not ৪০০ 400 RFC 1918 AS15169", &[]),
        ["is", "not", "400"]
    );
    // A 406 is an Error body in JSON, the same in every language.
    let r = wire::get_blocking(server(), "/8.8.8.8", &[CHROME, bn, ("Accept", "image/png")]);
    assert_eq!(r.status, 406);
    assert!(
        r.header("content-language").is_none(),
        "406 in JSON names no language"
    );
    assert!(r.json()["message"].as_str().unwrap().is_ascii());
}

#[test]
fn the_docs_are_english_and_say_so() {
    for target in ["/docs?lang=bn", "/docs"] {
        for accept in ["text/html", "text/markdown", "text/plain"] {
            let r = wire::get_blocking(
                server(),
                target,
                &[CHROME, ("Accept-Language", "bn"), ("Accept", accept)],
            );
            assert_eq!(r.status, 200, "{target} {accept}");
            assert_eq!(r.must("content-language"), "en", "{target} {accept}");
            if accept == "text/html" {
                assert!(
                    r.body.starts_with("<!doctype html><html lang=\"en\">"),
                    "{target}"
                );
                // No link promises the docs in Bangla.
                assert!(!r.body.contains("id=\"lang-link\""), "{target}");
                assert!(!r.body.contains("hreflang=\"bn\""), "{target}");
                assert!(!r.body.contains("বাংলা"), "{target}");
            }
        }
    }
    // The pages that link the docs say they are English.
    let r = wire::get_blocking(server(), "/8.8.8.8?lang=bn", &[CHROME]);
    assert!(
        r.body
            .contains("<a href=\"/docs\" hreflang=\"en\">API নথি</a>"),
        "{}",
        r.body
    );
}
