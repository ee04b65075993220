//! ifconfig.co's routes (`/ip`, `/json`, `/country`, `/country-iso`,
//! `/city`, `/asn`, `/asn-org`, `/coordinates`, each with `?ip=`), over a
//! real socket: the lines echoip writes, about the caller (behind a trusted
//! proxy too) or the address asked, their caching and their errors.

use crate::support;

use reqwest::header::{CACHE_CONTROL, CONTENT_TYPE, ETAG, IF_NONE_MATCH, USER_AGENT};
use serde_json::Value;

use support::http::get;

/// The line each route prints for an IpInfo, as echoip writes it.
fn expected(route: &str, info: &Value) -> String {
    let s = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    let (l, n) = (&info["location"], &info["network"]);
    let line = match route {
        "/ip" => s(&info["ip"]),
        "/country" => s(&l["country"]),
        "/country-iso" => s(&l["country_code"]),
        "/city" => s(&l["city"]),
        "/asn" => n["asn"]
            .as_u64()
            .map(|a| format!("AS{a}"))
            .unwrap_or_default(),
        "/asn-org" => s(&n["organization"]),
        "/coordinates" => match (l["latitude"].as_f64(), l["longitude"].as_f64()) {
            (Some(lat), Some(lon)) => format!("{lat:.6},{lon:.6}"),
            _ => String::new(),
        },
        other => panic!("{other}"),
    };
    format!("{line}\n")
}

const LINES: [&str; 7] = [
    "/ip",
    "/country",
    "/country-iso",
    "/city",
    "/asn",
    "/asn-org",
    "/coordinates",
];

/// `info` without its clock (it moves between two requests).
fn still(mut info: Value) -> Value {
    info["location"]["local_time"] = Value::Null;
    info
}

#[tokio::test]
async fn each_route_about_an_address_prints_its_line_for_any_client() {
    let server = support::start(support::config()).await;
    let client = support::client();
    for ip in ["8.8.8.8", "2001:4860:4860::8888", "10.1.2.3"] {
        let info = server.get_json(&format!("/api/v1/ip/{ip}")).await;
        for route in LINES {
            let url = server.url(&format!("{route}?ip={ip}"));
            for agent in [
                "curl/8.5.0",
                "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0",
            ] {
                let r = client
                    .get(&url)
                    .header(USER_AGENT, agent)
                    .send()
                    .await
                    .unwrap();
                assert_eq!(r.status(), 200, "{url}");
                let headers = r.headers().clone();
                assert_eq!(headers[CONTENT_TYPE], "text/plain; charset=utf-8", "{url}");
                assert_eq!(headers[CACHE_CONTROL], "public, max-age=300", "{url}");
                let body = r.text().await.unwrap();
                assert_eq!(body, expected(route, &info), "{url} ({agent})");
                // The tag of the answer revalidates it.
                let tag = headers[ETAG].to_str().unwrap().to_owned();
                assert!(tag.starts_with("W/\""), "{url}: {tag}");
                let again = client
                    .get(&url)
                    .header(IF_NONE_MATCH, &tag)
                    .send()
                    .await
                    .unwrap();
                assert_eq!(again.status(), 304, "{url}");
            }
        }
        let json = server.get_json(&format!("/json?ip={ip}")).await;
        assert_eq!(still(json), still(info.clone()), "/json?ip={ip}");
    }
    // The known lines of 8.8.8.8, literally.
    let (_, _, asn) = get(&client, &server.url("/asn?ip=8.8.8.8")).await;
    assert_eq!(asn, "AS15169\n");
    let (_, _, iso) = get(&client, &server.url("/country-iso?ip=8.8.8.8")).await;
    assert_eq!(iso, "US\n");
    let (_, _, at) = get(&client, &server.url("/coordinates?ip=8.8.8.8")).await;
    let (lat, lon) = at.trim_end().split_once(',').expect("lat,lon");
    for part in [lat, lon] {
        assert_eq!(
            part.split_once('.').map(|(_, d)| d.len()),
            Some(6),
            "{at:?}"
        );
    }
    // A private address: the data knows none of it but the address.
    for route in [
        "/country",
        "/country-iso",
        "/city",
        "/asn",
        "/asn-org",
        "/coordinates",
    ] {
        let (status, _, body) = get(&client, &server.url(&format!("{route}?ip=10.1.2.3"))).await;
        assert_eq!((status, body.as_str()), (200, "\n"), "{route}");
    }
    let (_, _, canonical) = get(&client, &server.url("/ip?ip=2001:DB8:0:0::1")).await;
    assert_eq!(canonical, "2001:db8::1\n");
}

#[tokio::test]
async fn each_route_about_the_caller_is_never_kept() {
    // The caller as a trusted proxy names it.
    let mut cfg = support::config();
    cfg.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    let server = support::start(cfg).await;
    let client = support::client();
    let info = server.get_json("/api/v1/ip/8.8.8.8").await;
    for route in LINES.iter().chain(&["/json"]) {
        // `?ip=` empty is refused (a script's unset `?ip=$IP`), unlike echoip.
        let empty = client
            .get(server.url(&format!("{route}?ip=")))
            .send()
            .await
            .unwrap();
        assert_eq!(empty.status(), 400, "{route}?ip=");
        assert!(empty.text().await.unwrap().contains("invalid_ip"));
        for target in [route.to_string()] {
            let r = client
                .get(server.url(&target))
                .header("X-Forwarded-For", "8.8.8.8")
                .header(USER_AGENT, "curl/8.5.0")
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 200, "{target}");
            assert_eq!(r.headers()[CACHE_CONTROL], "no-store", "{target}");
            assert!(r.headers().get(ETAG).is_none(), "{target}");
            let body = r.text().await.unwrap();
            if *route == "/json" {
                let json: Value = serde_json::from_str(&body).unwrap();
                assert_eq!(still(json), still(info.clone()), "{target}");
            } else {
                assert_eq!(body, expected(route, &info), "{target}");
            }
        }
    }
    // Without the proxy's word, the peer itself: loopback, no country.
    let plain = support::start(support::config()).await;
    let (_, _, ip) = get(&client, &plain.url("/ip")).await;
    assert_eq!(ip, "127.0.0.1\n");
    let (_, _, country) = get(&client, &plain.url("/country")).await;
    assert_eq!(country, "\n");
}

#[tokio::test]
async fn a_bad_address_or_query_is_a_json_400_and_the_words_hide_nothing() {
    let server = support::start(support::config()).await;
    let client = support::client();
    for route in LINES.iter().chain(&["/json"]) {
        for (query, code) in [
            ("ip=nope", "invalid_ip"),
            ("ip=1.2.3.4:80", "invalid_ip"),
            ("ip=1.1.1.1&ip=8.8.8.8", "bad_query"),
        ] {
            let url = server.url(&format!("{route}?{query}"));
            let (status, headers, body) = get(&client, &url).await;
            assert_eq!(status, 400, "{url}: {body}");
            assert_eq!(headers[CACHE_CONTROL], "no-store", "{url}");
            assert!(
                headers[CONTENT_TYPE]
                    .to_str()
                    .unwrap()
                    .starts_with("application/json")
            );
            let error: Value = serde_json::from_str(&body).unwrap();
            assert_eq!(error["error"], code, "{url}");
        }
    }
    // The words are exact: one more segment is no route of theirs.
    for path in ["/country/xx/yy", "/ip/8.8.8.8/x", "/asn/"] {
        let (status, _, body) = get(&client, &server.url(path)).await;
        assert_eq!(status, 404, "{path}: {body}");
    }
    // The address page beside them still answers.
    let (status, _, _) = get(&client, &server.url("/8.8.8.8")).await;
    assert_eq!(status, 200);
}

/// The home page shows `curl HOST` and the few commands people use most,
/// with the host the browser used (or `--public-url`); each one answers.
#[tokio::test]
async fn the_home_page_shows_the_terminal_commands_and_each_answers() {
    let server = support::start(support::config()).await;
    let client = support::client();
    let host = server.addr.to_string();
    let commands = [
        ("", "127.0.0.1\n"),
        ("/json", "{"),
        ("/country-iso", "\n"),
        ("/asn", "\n"),
        ("/8.8.8.8", "ip:"),
    ];
    for (lang, heading) in [("en", "From a terminal"), ("bn", "টার্মিনাল থেকে")]
    {
        let url = server.url(&format!("/?lang={lang}"));
        let r = client
            .get(&url)
            .header(USER_AGENT, BROWSER)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let html = r.text().await.unwrap();
        assert!(html.contains(heading), "{lang}: no {heading}");
        for (path, _) in commands {
            let code = format!("<code>curl {host}{path}</code>");
            assert!(html.contains(&code), "{lang}: no {code}");
        }
    }
    for (path, start) in commands {
        let r = client
            .get(server.url(path))
            .header(USER_AGENT, "curl/8.5.0")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{path}");
        let body = r.text().await.unwrap();
        assert!(body.starts_with(start), "{path}: {body}");
    }
    // Behind `--public-url`, the commands name it, whatever `Host` says.
    let mut cfg = support::config();
    cfg.public_url = Some(iplookup::web::serve::origin::PublicUrl::parse(PUBLIC).unwrap());
    let public = support::start(cfg).await;
    let r = client
        .get(public.url("/"))
        .header(USER_AGENT, BROWSER)
        .header("Host", "evil.example")
        .send()
        .await
        .unwrap();
    let html = r.text().await.unwrap();
    assert!(
        html.contains(&format!("<code>curl {PUBLIC}</code>")),
        "{html}"
    );
    assert!(html.contains(&format!("<code>curl {PUBLIC}/json</code>")));
    assert!(!html.contains("curl evil.example"));
}

const BROWSER: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const PUBLIC: &str = "https://ip.example.com";
