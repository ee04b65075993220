//! Single fields as plain text (issue 14 §3): `GET /api/v1/ip/{ip}/{field}`
//! and `GET /api/v1/me/{field}`, over a real socket.

use crate::support;

use reqwest::header::{CACHE_CONTROL, CONTENT_TYPE, ETAG, IF_NONE_MATCH};
use serde_json::Value;

use support::http::get;

/// The JSON value of every leaf of an IpInfo, by its flat name.
fn leaves(info: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for (key, value) in info.as_object().expect("object") {
        match value.as_object() {
            // `special_purpose` is one field: as a single value, its name.
            Some(inner) if key == "special_purpose" => {
                out.push((key.clone(), inner["name"].clone()));
            }
            Some(inner) => out.extend(inner.iter().map(|(k, v)| (k.clone(), v.clone()))),
            None => out.push((key.clone(), value.clone())),
        }
    }
    out
}

/// What the single-field answer of a JSON value is: its text and a newline.
fn as_line(value: &Value) -> String {
    match value {
        Value::Null => "\n".to_owned(),
        Value::String(s) => format!("{s}\n"),
        other => format!("{other}\n"),
    }
}

#[tokio::test]
async fn every_field_of_an_address_is_its_json_value_as_a_line() {
    let server = support::start(support::config()).await;
    let client = support::client();
    for ip in ["8.8.8.8", "2001:4860:4860::8888", "10.1.2.3", "1.1.1.1"] {
        let info = server.get_json(&format!("/api/v1/ip/{ip}")).await;
        let fields = leaves(&info);
        assert_eq!(fields.len(), 21, "{info}");
        for (name, value) in fields {
            let url = server.url(&format!("/api/v1/ip/{ip}/{name}"));
            let (status, headers, body) = get(&client, &url).await;
            assert_eq!(status, 200, "{url}: {body}");
            assert_eq!(headers[CONTENT_TYPE], "text/plain; charset=utf-8", "{url}");
            if name == "local_time" && !value.is_null() {
                // The clock moves between the two requests: same shape, one line.
                assert!(body.len() > 1, "{url}: {body:?}");
                assert!(
                    body.ends_with('\n') && body.lines().count() == 1,
                    "{url}: {body:?}"
                );
                assert_eq!(headers[CACHE_CONTROL], "no-store", "{url}");
                assert!(headers.get(ETAG).is_none(), "{url}");
                continue;
            }
            assert_eq!(body, as_line(&value), "{url}");
            let caching = if name == "local_time" {
                "no-store"
            } else {
                "public, max-age=300"
            };
            assert_eq!(headers[CACHE_CONTROL], caching, "{url}");
        }
    }
}

#[tokio::test]
async fn the_callers_fields_are_never_cached() {
    let server = support::start(support::config()).await;
    let client = support::client();
    let (status, headers, body) = get(&client, &server.url("/api/v1/me/ip")).await;
    assert_eq!((status, body.as_str()), (200, "127.0.0.1\n"));
    assert_eq!(headers[CACHE_CONTROL], "no-store");
    assert!(headers.get(ETAG).is_none());
    // Loopback: no country, so an empty line.
    let (status, _, body) = get(&client, &server.url("/api/v1/me/country_code")).await;
    assert_eq!((status, body.as_str()), (200, "\n"));
    let (status, _, body) = get(&client, &server.url("/api/v1/me/is_public")).await;
    assert_eq!((status, body.as_str()), (200, "false\n"));
}

#[tokio::test]
async fn unknown_fields_are_404_and_bad_addresses_400_with_an_error_body() {
    let server = support::start(support::config()).await;
    let client = support::client();
    for (path, status, code) in [
        ("/api/v1/ip/8.8.8.8/nope", 404, "unknown_field"),
        ("/api/v1/ip/8.8.8.8/Country_Code", 404, "unknown_field"),
        ("/api/v1/ip/8.8.8.8/location", 404, "unknown_field"),
        ("/api/v1/me/nope", 404, "unknown_field"),
        ("/api/v1/ip/8.8.8.8/%FF", 404, "unknown_field"),
        ("/api/v1/ip/not-an-ip/asn", 400, "invalid_ip"),
        ("/api/v1/ip/8.8.8.8:80/asn", 400, "invalid_ip"),
        ("/api/v1/ip/%FF/asn", 400, "invalid_ip"),
        ("/api/v1/ip/8.8.8.8/asn/more", 404, "not_found"),
    ] {
        let (got, headers, body) = get(&client, &server.url(path)).await;
        assert_eq!(got, status, "{path}: {body}");
        assert!(
            headers[CONTENT_TYPE]
                .to_str()
                .unwrap()
                .starts_with("application/json"),
            "{path}"
        );
        let v: Value =
            serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: {e}: {body}"));
        assert_eq!(v["error"], code, "{path}: {body}");
        assert!(
            v["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{path}"
        );
    }
    // The message names the fields, and repeats at most 64 characters of the input.
    let long = "x".repeat(2000);
    let (_, _, body) = get(&client, &server.url(&format!("/api/v1/me/{long}"))).await;
    let v: Value = serde_json::from_str(&body).unwrap();
    let message = v["message"].as_str().unwrap();
    assert!(
        message.contains("country_code") && message.len() < 400,
        "{message}"
    );
}

#[tokio::test]
async fn an_address_field_revalidates_against_the_data_release() {
    let server = support::start(support::config()).await;
    let client = support::client();
    let url = server.url("/api/v1/ip/8.8.8.8/country_code");
    let (_, headers, body) = get(&client, &url).await;
    assert_eq!(body, "US\n");
    let etag = headers[ETAG].to_str().unwrap().to_owned();
    assert!(
        etag.starts_with("W/\"") && etag.ends_with("-country_code\""),
        "{etag}"
    );
    let r = client
        .get(&url)
        .header(IF_NONE_MATCH, &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 304);
    assert_eq!(r.text().await.unwrap(), "");
    // The one matcher of every route (`web::etag`): weak comparison (the
    // tag without `W/` matches) and `*`.
    for inm in [etag.trim_start_matches("W/").to_owned(), "*".into()] {
        let r = client
            .get(&url)
            .header(IF_NONE_MATCH, &inm)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 304, "{inm}");
    }
    // Another field's tag does not match.
    let other = etag.replace("country_code", "asn");
    let r = client
        .get(&url)
        .header(IF_NONE_MATCH, other)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
}
