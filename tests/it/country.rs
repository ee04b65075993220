//! Countries (issue 30 §2): `GET /api/v1/country/{cc}` over a real socket.
//! A country's address total and row counts are checked against the
//! country rows of `data/dbip-country-lite.csv.gz`, read here with the
//! prefix tests' separate reader.

use serde_json::Value;

use super::prefix::{country_rows, settled};
use crate::support;
use support::http::get;

/// Bangladesh (`BD` or `bd`): its facts, its IPv4 and IPv6 totals and row
/// counts equal the sums over its source rows, its share of the world is
/// its total over every row's, and its ASes are ranked and paged.
#[tokio::test]
async fn a_countrys_totals_are_the_sums_over_its_rows() {
    let server = support::start(support::config()).await;
    let (status, body) = settled(&server, "/api/v1/country/bd").await;
    assert_eq!(status, 200, "{body}");
    let bd: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(bd, server.get_json("/api/v1/country/BD").await);
    let c = &bd["country"];
    assert_eq!(
        (
            &c["country_code"],
            &c["country"],
            &c["country_bn"],
            &c["flag"]
        ),
        (
            &Value::from("BD"),
            &Value::from("Bangladesh"),
            &Value::from("বাংলাদেশ"),
            &Value::from("🇧🇩")
        )
    );
    assert_eq!(
        (&c["currency"], &c["calling_code"], &c["continent"]),
        (
            &Value::from("BDT"),
            &Value::from("+880"),
            &Value::from("Asia")
        )
    );
    assert_eq!(c["time_zones"], serde_json::json!(["Asia/Dhaka"]));
    let source = country_rows();
    let (mut v4, mut rows4, mut v6, mut rows6) = (0u128, 0u64, 0u128, 0u64);
    let (mut world4, mut world6) = (0u128, 0u128);
    for (s, e, code) in &source[0] {
        world4 += e - s + 1;
        if code == "BD" {
            v4 += e - s + 1;
            rows4 += 1;
        }
    }
    for (s, e, code) in &source[1] {
        world6 = world6.saturating_add(e - s + 1);
        if code == "BD" {
            v6 += e - s + 1;
            rows6 += 1;
        }
    }
    let a = &bd["addresses"];
    assert_eq!(a["v4"].as_u64().map(u128::from), Some(v4));
    assert_eq!(a["v6"].as_str().unwrap(), v6.to_string());
    assert_eq!(
        (bd["rows"]["v4"].as_u64(), bd["rows"]["v6"].as_u64()),
        (Some(rows4), Some(rows6))
    );
    let share = (v4 as f64 / world4 as f64 * 1e9).round() / 1e9;
    assert_eq!(a["v4_share"].as_f64(), Some(share));
    assert!(a["v6_share"].as_f64().unwrap() > 0.0 && world6 > v6);
    // Its ASes: most IPv4 addresses first, together no more than it has.
    let ases = bd["ases"].as_array().unwrap();
    assert!(ases.len() > 100, "{}", ases.len());
    let held: Vec<u64> = ases
        .iter()
        .map(|a| a["addresses"]["v4"].as_u64().unwrap())
        .collect();
    assert!(held.windows(2).all(|w| w[0] >= w[1]), "{held:?}");
    assert!(u128::from(held.iter().sum::<u64>()) <= v4);
    assert!(
        ases.iter()
            .all(|a| a["asn"].as_u64().is_some() && a["organization"].is_string())
    );
    let count = bd["as_count"].as_u64().unwrap();
    let pages = bd["page"]["pages"].as_u64().unwrap();
    assert_eq!(pages, count.div_ceil(500).max(1));
    let client = support::client();
    let (status, _, body) = get(
        &client,
        &server.url(&format!("/api/v1/country/BD?page={}", pages + 1)),
    )
    .await;
    assert_eq!(status, 404, "{body}");
}

/// The United States fill more than one page of ASes; page 2 follows page 1.
#[tokio::test]
async fn a_large_countrys_ases_come_in_pages() {
    let server = support::start(support::config()).await;
    let (status, body) = settled(&server, "/api/v1/country/US").await;
    assert_eq!(status, 200, "{body}");
    let one: Value = serde_json::from_str(&body).unwrap();
    assert!(one["page"]["pages"].as_u64().unwrap() > 1);
    let two = server.get_json("/api/v1/country/US?page=2").await;
    let last_of_one = one["ases"][499]["addresses"]["v4"].as_u64().unwrap();
    let first_of_two = two["ases"][0]["addresses"]["v4"].as_u64().unwrap();
    assert!(last_of_one >= first_of_two);
    assert_eq!(one["addresses"], two["addresses"]);
}

/// An unknown code: 404 `unknown_country` with a suggestion.
#[tokio::test]
async fn an_unknown_code_is_404_with_a_suggestion() {
    let server = support::start(support::config()).await;
    let client = support::client();
    for (path, says) in [
        ("/api/v1/country/UK", "is GB"),
        ("/api/v1/country/Bangladesh", "Bangladesh is BD"),
        (
            "/api/v1/country/%E0%A6%AC%E0%A6%BE%E0%A6%82%E0%A6%B2%E0%A6%BE%E0%A6%A6%E0%A7%87%E0%A6%B6",
            "Bangladesh is BD",
        ),
        ("/api/v1/country/QQ", "ISO 3166-1 alpha-2"),
    ] {
        let (status, _, body) = get(&client, &server.url(path)).await;
        assert_eq!(status, 404, "{path}: {body}");
        let e: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(e["error"], "unknown_country", "{path}");
        assert!(
            e["message"].as_str().unwrap().contains(says),
            "{path}: {body}"
        );
    }
}
