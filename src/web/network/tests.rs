//! A country's answer over a real socket ([`crate::web::testing`]): the
//! JSON, the page in every format and both languages, each with the
//! attribution its format carries, and the 404 of a code no country has.

use crate::web::testing::get;

#[tokio::test]
async fn a_country_in_every_format_and_language() {
    let json = get("/api/v1/country/bd", &[]).await;
    assert_eq!(json.status, 200, "{}", json.body);
    assert!(json.header("content-type").starts_with("application/json"));
    let v: serde_json::Value = serde_json::from_str(&json.body).expect("JSON");
    assert_eq!(v["country"]["country_code"], "BD");
    assert_eq!(v["country"]["time_zones"][0], "Asia/Dhaka");
    for (query, media, lang, has) in [
        ("format=text", "text/plain", "en", "Bangladesh"),
        (
            "format=md",
            "text/markdown",
            "en",
            "IP Geolocation by DB-IP",
        ),
        ("format=html", "text/html", "en", "IP Geolocation by DB-IP"),
        ("format=text&lang=bn", "text/plain", "bn", "বাংলাদেশ"),
        ("format=md&lang=bn", "text/markdown", "bn", "বাংলাদেশ"),
        ("format=html&lang=bn", "text/html", "bn", "বাংলাদেশ"),
    ] {
        let page = get(&format!("/country/BD?{query}"), &[]).await;
        assert_eq!(page.status, 200, "{query}");
        assert!(page.header("content-type").starts_with(media), "{query}");
        assert_eq!(page.header("content-language"), lang, "{query}");
        assert!(page.body.contains(has), "{query}: no {has:?}");
    }
    let html = get("/country/BD", &[("accept", "text/html")]).await;
    assert!(
        html.body.contains("href=\"https://db-ip.com\""),
        "the attribution links DB-IP"
    );
    let unknown = get("/api/v1/country/XX", &[]).await;
    assert_eq!(unknown.status, 404);
    let e: serde_json::Value = serde_json::from_str(&unknown.body).expect("an Error body");
    assert!(e["error"].is_string(), "{}", unknown.body);
}
