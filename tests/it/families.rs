//! Both address families on the root page (issue 14 §5), over a real
//! socket: with `--ipv4-url` and `--ipv6-url` the browser's root page links
//! to both origins and its CSP lets its one script reach exactly them;
//! without, the page and its CSP are as before. Chromium runs the script in
//! `tests/external/browser.rs`.

use crate::support;

use iplookup::web::serve::origin::{FamilyOrigins, WebOrigin};
use reqwest::header::{CONTENT_SECURITY_POLICY, USER_AGENT};

const BROWSER: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36";

async fn root_page(server: &support::TestServer, path: &str) -> (String, String) {
    let r = support::client()
        .get(server.url(path))
        .header(USER_AGENT, BROWSER)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let csp = r.headers()[CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap()
        .to_owned();
    (csp, r.text().await.unwrap())
}

#[tokio::test]
async fn the_root_page_asks_exactly_the_configured_origins() {
    let mut config = support::config();
    config.families = FamilyOrigins {
        v4: Some(WebOrigin::parse("https://ipv4.example.org").unwrap()),
        v6: Some(WebOrigin::parse("https://ipv6.example.org:8443/").unwrap()),
    };
    let server = support::start(config).await;
    let (csp, html) = root_page(&server, "/").await;
    assert!(
        csp.ends_with(
            "; connect-src 'self' https://ipv4.example.org https://ipv6.example.org:8443"
        ),
        "{csp}"
    );
    assert!(csp.contains("; script-src 'self' 'sha256-"), "{csp}");
    assert!(csp.starts_with("default-src 'none'"), "{csp}");
    assert!(
        html.contains(
            r#"<a id="ipv4" data-me="https://ipv4.example.org" data-no="not reachable" href="https://ipv4.example.org/">"#
        ),
        "{html}"
    );
    assert!(
        html.contains(r#"<a id="ipv6" data-me="https://ipv6.example.org:8443" data-no="not reachable" href="https://ipv6.example.org:8443/">"#),
        "{html}"
    );
    assert_eq!(html.matches("<script>").count(), 1, "{html}");
    // Only the root page: an address page has neither the links nor the script.
    let (csp, html) = root_page(&server, "/8.8.8.8").await;
    assert!(
        csp.contains("script-src 'self'")
            && !csp.contains("script-src 'self' 'sha256-")
            && csp.ends_with("; connect-src 'self'"),
        "{csp}"
    );
    assert!(
        !html.contains("<script>") && !html.contains("data-me"),
        "{html}"
    );
}

#[tokio::test]
async fn one_origin_alone_is_shown_alone() {
    let mut config = support::config();
    config.families = FamilyOrigins {
        v4: None,
        v6: Some(WebOrigin::parse("http://[2001:db8::1]:8080").unwrap()),
    };
    let server = support::start(config).await;
    let (csp, html) = root_page(&server, "/").await;
    assert!(
        csp.ends_with("; connect-src 'self' http://[2001:db8::1]:8080"),
        "{csp}"
    );
    assert!(
        html.contains(r#"id="ipv6""#) && !html.contains(r#"id="ipv4""#),
        "{html}"
    );
}

#[tokio::test]
async fn without_the_flags_the_root_page_has_no_script() {
    let server = support::start(support::config()).await;
    let (csp, html) = root_page(&server, "/").await;
    assert!(
        csp.contains("script-src 'self'")
            && !csp.contains("script-src 'self' 'sha256-")
            && csp.ends_with("; connect-src 'self'"),
        "{csp}"
    );
    assert!(
        !html.contains("<script>") && !html.contains("data-me"),
        "{html}"
    );
}

/// A browser obeys only the first of two directives of one name, so a
/// second `script-src` silently blocks the script the page relies on (the
/// `/docs` try-it form was dead that way). Every HTML page, with and
/// without the family origins, names each directive once.
#[tokio::test]
async fn every_html_page_names_each_csp_directive_once() {
    let mut config = support::config();
    config.families = FamilyOrigins {
        v4: Some(WebOrigin::parse("https://ipv4.example.org").unwrap()),
        v6: None,
    };
    for server in [
        support::start(support::config()).await,
        support::start(config).await,
    ] {
        for path in [
            "/",
            "/8.8.8.8",
            "/10.1.2.3",
            "/AS15169",
            "/docs",
            "/999.1.1.1",
        ] {
            let r = support::client()
                .get(server.url(path))
                .header(USER_AGENT, BROWSER)
                .send()
                .await
                .unwrap();
            let csp = r.headers()[CONTENT_SECURITY_POLICY].to_str().unwrap();
            let mut names: Vec<&str> = csp
                .split(';')
                .filter_map(|d| d.split_whitespace().next())
                .collect();
            let all = names.len();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), all, "{path}: {csp}");
            if path == "/docs" {
                assert!(csp.contains("script-src 'self' 'sha256-"), "{csp}");
            }
        }
    }
}
