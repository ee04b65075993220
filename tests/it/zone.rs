//! City time zones (issue 14, section 6): with a city database, `time_zone`
//! is the zone that contains the city's coordinates and `local_time` carries
//! that zone's offset; an address without city coordinates falls back to
//! its country's rule (its zone only when all its zones keep one time). Over a real loopback socket (the in-process server
//! and the real binary's `lookup`), with `tests/fixtures/mmdb/zone-cities.mmdb`:
//! cities of countries with several zones, in the flat DB-IP schema without a
//! zone in the record, so the zone can only come from the coordinates.

use crate::support;

use std::net::IpAddr;
use std::path::Path;

use chrono::{DateTime, Offset, TimeZone, Utc};
use chrono_tz::Tz;
use iplookup::GeoDb;
use iplookup::geo::load::load_database;
use serde_json::Value;

use support::data::TempDir;

/// Cities of multi-zone countries: address, country, city, the zone of its coordinates.
const CITIES: [(&str, &str, &str, Tz); 4] = [
    ("8.8.8.8", "US", "Mountain View", Tz::America__Los_Angeles),
    ("95.188.64.1", "RU", "Vladivostok", Tz::Asia__Vladivostok),
    ("200.129.0.1", "BR", "Rio Branco", Tz::America__Rio_Branco),
    ("203.0.178.1", "AU", "Perth", Tz::Australia__Perth),
];

/// A data directory holding only the zone fixture, as a DB-IP city release
/// (country and ASN come from the embedded snapshot).
fn city_dir() -> TempDir {
    let dir = TempDir::new("zone");
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mmdb/zone-cities.mmdb");
    std::fs::copy(&fixture, dir.path().join("dbip-city-lite-2026-06.mmdb"))
        .unwrap_or_else(|e| panic!("{}: {e}", fixture.display()));
    dir
}

/// The zone the embedded data alone (no city database) gives `addr`: its
/// country's zone when the country keeps one time, else none (issue 33).
fn country_zone(addr: &str) -> Option<String> {
    let db = GeoDb::embedded().expect("embedded data loads");
    let ip: IpAddr = addr.parse().unwrap();
    let info = iplookup::lookup::describe(&db, ip, Utc::now());
    info.location.time_zone.map(|z| z.into_owned())
}

/// Checks that `local_time` is an RFC 3339 time with `zone`'s offset at
/// that instant, within a minute of now.
#[track_caller]
fn assert_local_time(location: &Value, zone: Tz) {
    let text = location["local_time"]
        .as_str()
        .unwrap_or_else(|| panic!("no local_time: {location}"));
    let parsed = DateTime::parse_from_rfc3339(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    let instant = parsed.with_timezone(&Utc);
    let want = zone.offset_from_utc_datetime(&instant.naive_utc()).fix();
    assert_eq!(*parsed.offset(), want, "offset of {text} in {zone}");
    let skew = (Utc::now() - instant).num_seconds().abs();
    assert!(skew < 60, "{text} is {skew} s from now");
}

async fn get_json(base: &str, path: &str) -> Value {
    let r = support::client()
        .get(format!("{base}{path}"))
        .send()
        .await
        .unwrap();
    let status = r.status();
    let body = r.text().await.unwrap();
    assert_eq!(status, 200, "{path}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: {e}: {body}"))
}

async fn server(dir: &Path) -> support::TestServer {
    // The same load the server does, so that a broken fixture fails here.
    // The fixture is small: without the row and coverage windows.
    let small = support::data::small_release_policy();
    load_database(Some(dir), &small).expect("the city fixture loads");
    let config = iplookup::ServeConfig {
        data_dir: Some(dir.to_owned()),
        policy: small,
        ..support::config()
    };
    support::start(config).await
}

#[tokio::test]
async fn a_city_answer_carries_the_zone_of_the_city_and_its_offset() {
    let dir = city_dir();
    let server = server(dir.path()).await;
    for (addr, country, city, zone) in CITIES {
        let v = get_json(&server.base, &format!("/api/v1/ip/{addr}")).await;
        let l = &v["location"];
        assert_eq!(l["country_code"], country, "{addr}: {l}");
        assert_eq!(l["city"], city, "{addr}: {l}");
        assert_eq!(l["accuracy"], "city", "{addr}: {l}");
        assert_eq!(l["time_zone"], zone.name(), "{addr}: {l}");
        assert_local_time(l, zone);
        // Not the country's primary zone: the city is what changed it.
        assert_ne!(country_zone(addr).as_deref(), Some(zone.name()), "{addr}");
    }
}

#[tokio::test]
async fn without_city_coordinates_the_country_zone_stays() {
    let dir = city_dir();
    let server = server(dir.path()).await;
    // A city without coordinates, a city at sea (no land zone there), a
    // country-level record, and an address the city database does not know.
    for (addr, city, accuracy) in [
        ("24.0.0.1", Some("Nowhere"), "country"),
        ("24.0.1.1", Some("Offshore"), "city"),
        // A country-level record (city ""), its point in another zone than
        // the country's primary one: not a city, so not its zone either.
        ("24.0.2.1", None, "country"),
        ("1.128.0.1", None, "country"),
    ] {
        let v = get_json(&server.base, &format!("/api/v1/ip/{addr}")).await;
        let l = &v["location"];
        assert_eq!(l["city"].as_str(), city, "{addr}: {l}");
        assert_eq!(l["accuracy"], accuracy, "{addr}: {l}");
        match country_zone(addr) {
            Some(fallback) => {
                assert_eq!(l["time_zone"], fallback.as_str(), "{addr}: {l}");
                assert_local_time(l, fallback.parse().unwrap());
            }
            // A country of several times: no zone, no local time.
            None => {
                assert_eq!(l["time_zone"], Value::Null, "{addr}: {l}");
                assert_eq!(l["local_time"], Value::Null, "{addr}: {l}");
            }
        }
    }
}

#[tokio::test]
async fn pages_in_every_format_name_the_city_zone() {
    let dir = city_dir();
    let server = server(dir.path()).await;
    for format in ["json", "text", "md", "html"] {
        let url = format!("{}/203.0.178.1?format={format}", server.base);
        let r = support::client().get(&url).send().await.unwrap();
        assert_eq!(r.status(), 200, "{url}");
        let body = r.text().await.unwrap();
        assert!(body.contains("Australia/Perth"), "{url}: {body}");
        assert!(!body.contains("Australia/Sydney"), "{url}: {body}");
    }
}

#[test]
fn the_lookup_command_gives_the_city_zone_too() {
    let dir = city_dir();
    let out = support::proc::command()
        .args(["lookup", "--data-dir"])
        .arg(dir.path())
        .args(support::data::ANY_ROWS)
        .args(CITIES.map(|(addr, ..)| addr))
        .output()
        .expect("run iplookup lookup");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), CITIES.len(), "{text}");
    for (v, (addr, _, city, zone)) in lines.iter().zip(CITIES) {
        assert_eq!(v["ip"], addr);
        assert_eq!(v["location"]["city"], city, "{v}");
        assert_eq!(v["location"]["time_zone"], zone.name(), "{v}");
        assert_local_time(&v["location"], zone);
    }
}
