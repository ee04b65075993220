//! The route table's tests: the router picks the route the table means,
//! no route hides another (ifconfig.co's words included), policies.

use crate::web::routes::*;

/// The template of the route axum's router (the one matcher) picks for
/// `path` when it holds every route of the table, else the fallback's.
pub(crate) async fn router_choice(path: &str) -> &'static str {
    use axum::body::Body;
    use axum::http::{Request, Uri};
    use tower::ServiceExt;
    let mut router = axum::Router::new();
    for route in ALL.iter().filter(|r| !r.template.contains("{*")) {
        let t = route.template;
        router = router.route(t, axum::routing::any(move || async move { t }));
    }
    let router = router.fallback(|uri: Uri| async move { fallback(uri.path()).template });
    let request = Request::get(path).body(Body::empty()).unwrap();
    let response = router.oneshot(request).await.unwrap();
    let body = axum::body::to_bytes(response.into_body(), 1024)
        .await
        .unwrap();
    let template = std::str::from_utf8(&body).unwrap();
    ALL.iter()
        .copied()
        .chain([&API_UNKNOWN])
        .find(|r| r.template == template)
        .map(|r| r.template)
        .unwrap()
}

#[tokio::test]
async fn the_router_picks_the_route_the_table_means() {
    let cases = [
        ("/", "/"),
        ("/docs", "/docs"),
        ("/8.8.8.8", "/{ip}"),
        ("/favicon.ico", "/{ip}"),
        ("/AS15169", "/AS{asn}"),
        ("/ASK", "/AS{asn}"),
        ("/AS", "/{ip}"),
        ("/as15169", "/{ip}"),
        ("/api/v1/asn/AS1", "/api/v1/asn/{asn}"),
        (
            "/api/v1/asn/AS1/prefixes.csv",
            "/api/v1/asn/{asn}/prefixes.csv",
        ),
        ("/api/v1/asn/", "/api/v1/asn/"),
        (
            "/api/v1/prefix/8.8.8.0/24",
            "/api/v1/prefix/{network}/{length}",
        ),
        ("/api/v1/prefix/8.8.8.0%2F24", "/api/v1/prefix/{prefix}"),
        ("/api/v1/country/BD", "/api/v1/country/{cc}"),
        ("/api/v1/ip/8.8.8.8", "/api/v1/ip/{ip}"),
        ("/api/v1/ip/", "/api/v1/ip/"),
        ("/api/v1/ip", "/api/v1/ip"),
        ("/api/v1/ip/a/b", "/api/v1/ip/{ip}/{field}"),
        ("/api/v1/ip//8.8.8.8", "/api/v1/ip//{field}"),
        ("/api/v1/ip/a/b/c", "/api/{*rest}"),
        ("/api/v1/me/asn", "/api/v1/me/{field}"),
        ("/api", "/{ip}"),
        ("/api/v2", "/api/{rest}"),
        ("/api/v1/x", "/api/{*rest}"),
        ("/assets/world.abc.svg", "/assets/{file}"),
        ("/assets/", "/{*rest}"),
        ("/a/b", "/{network}/{length_or_field}"),
        ("/8.8.8.0/24", "/{network}/{length_or_field}"),
        ("/2001:4860::/32", "/{network}/{length_or_field}"),
        ("/8.8.8.8/country_code", "/{network}/{length_or_field}"),
        ("/docs/try", "/docs/try"),
        ("/country/BD", "/country/{cc}"),
        ("/a/b/c", "/{*rest}"),
        ("/healthz", "/healthz"),
        ("/.well-known/mcp", "/.well-known/mcp"),
        ("/openapi.json", "/openapi.json"),
        ("/ip", "/ip"),
        ("/json", "/json"),
        ("/country", "/country"),
        ("/country-iso", "/country-iso"),
        ("/asn", "/asn"),
        ("/asn-org", "/asn-org"),
        ("/coordinates", "/coordinates"),
        ("/city", "/city"),
        ("/abc", "/{ip}"),
    ];
    for (path, template) in cases {
        assert_eq!(router_choice(path).await, template, "{path}");
        assert_eq!(for_path(path).template, template, "{path}");
    }
}

#[test]
fn no_route_hides_another() {
    assert_eq!(shadowed(ALL), None);
}

#[test]
fn a_route_that_would_hide_another_is_refused() {
    let country = Route {
        template: "/api/v1/ip/{ip}/country",
        ..API_IP_FIELD
    };
    let mut table = ALL.to_vec();
    table.push(&country);
    assert_eq!(
        shadowed(&table),
        Some(("/api/v1/ip/{ip}/{field}", "/api/v1/ip/{ip}/country"))
    );
    // A literal no parameter could take hides nothing (`/docs` is no address).
    let hidden = |a: &'static str, b: &'static str| {
        let (x, y) = (
            Route {
                template: a,
                ..ROOT
            },
            Route {
                template: b,
                ..ROOT
            },
        );
        shadowed(&[&x, &y]).is_some()
    };
    assert!(hidden("/{ip}", "/1.2.3.4"));
    assert!(hidden("/{ip}", "/{file}"));
    assert!(hidden("/AS{asn}", "/AS15169"));
    assert!(hidden("/api/v1/asn/{asn}", "/api/v1/asn/AS{asn}"));
    assert!(!hidden("/{ip}", "/AS{asn}"));
    assert!(!hidden("/{ip}", "/status"));
    assert!(!hidden("/api/v1/me/{field}", "/api/v1/me/everything"));
    assert!(!hidden("/api/v1/ip/{ip}", "/api/v1/ip/{ip}/{field}"));
}

#[test]
fn templates_are_unique_and_found_again() {
    for route in ALL {
        assert_eq!(by_template(route.template), Some(*route));
    }
    assert_eq!(by_template("/nope"), None);
}

#[test]
fn only_probes_and_scrapers_skip_the_limits() {
    let spared: Vec<&str> = ALL
        .iter()
        .filter(|r| !r.limited)
        .map(|r| r.template)
        .collect();
    assert_eq!(spared, ["/healthz", "/metrics"]);
}

#[test]
fn errors_of_pages_are_pages_and_of_the_api_json() {
    for route in ALL {
        let api = route.template.starts_with("/api/");
        if api || route.template == "/mcp" {
            assert_eq!(route.errors, JSON, "{}", route.template);
        }
        if let Produces::Negotiated(defaults) = route.answer {
            assert_eq!(route.errors, defaults, "{}", route.template);
        }
    }
    assert_eq!(ROOT.error_default(ClientKind::Browser), Format::Html);
    assert_eq!(ROOT.error_default(ClientKind::CommandLine), Format::Text);
    assert_eq!(API_IP.error_default(ClientKind::Browser), Format::Json);
}

/// Each word hides no route beside it: no address, AS number or
/// country page's path could be one (`/country` is exact: the country
/// page `/country/{cc}` has one more segment); a word that could be an
/// address would be refused.
#[test]
fn the_words_hide_no_route_and_one_that_would_is_refused() {
    let words = [
        &CURL_IP,
        &CURL_JSON,
        &CURL_COUNTRY,
        &CURL_COUNTRY_ISO,
        &CURL_CITY,
        &CURL_ASN,
        &CURL_ASN_ORG,
        &CURL_COORDINATES,
    ];
    for word in words {
        assert!(ALL.contains(&word), "{}", word.template);
        let table = [&ADDRESS, &ASN_PAGE, &COUNTRY_PAGE, &PREFIX_PAGE, word];
        assert_eq!(shadowed(&table), None, "{}", word.template);
    }
    let cafe = Route {
        template: "/cafe",
        ..CURL_IP
    };
    assert_eq!(shadowed(&[&ADDRESS, &cafe]), Some(("/{ip}", "/cafe")));
}
