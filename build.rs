//! Build script: turns the committed DB-IP CSV files under `data/` into the
//! binary snapshot that the library embeds (the format is
//! `iplookup_data::snapshot`), so the service starts without parsing 1.2
//! million CSV rows.
//!
//! It reads them with the data crate's CSV reader and policy, so the embedded
//! data passes exactly the validation that files given with `--data-dir` do.

use std::borrow::Cow;
use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use iplookup_data::csv;
use iplookup_data::import::ImportStats;
use iplookup_data::meta::{self, SourceMeta};
use iplookup_data::policy::Policy;
use iplookup_data::snapshot;

/// The embedded sources: file, npm package, version, release date.
const COUNTRY: (&str, &str, &str, &str) = (
    "data/dbip-country-lite.csv.gz",
    "@ip-location-db/dbip-country",
    "2.3.2026060120",
    "2026-06-01",
);
const ASN: (&str, &str, &str, &str) = (
    "data/asn.csv.gz",
    "@ip-location-db/asn",
    "2.3.2026061719",
    "2026-06-17",
);

fn main() {
    println!("cargo::rerun-if-changed={}", COUNTRY.0);
    println!("cargo::rerun-if-changed={}", ASN.0);
    // `iplookup --version` names the embedded data's releases.
    println!(
        "cargo::rustc-env=IPLOOKUP_EMBEDDED_DATA=country {} ({} {}), asn {} ({} {})",
        COUNTRY.3, COUNTRY.1, COUNTRY.2, ASN.3, ASN.1, ASN.2
    );
    if let Err(e) = run() {
        panic!("cannot build the embedded data snapshot: {e}");
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    // The same rule as every release (iplookup_data::policy): the ASN
    // source's one overlapping pair (see data/README.md) is repaired and counted.
    let policy = Policy::default();
    let country = csv::read_country(open(COUNTRY.0)?, COUNTRY.0, &policy)?;
    let asn = csv::read_asn(open(ASN.0)?, ASN.0, &policy)?;
    let mut meta = String::new();
    describe(&mut meta, "country", COUNTRY, &country.stats);
    describe(&mut meta, "asn", ASN, &asn.stats);
    let (na, no, arena) = asn.networks.parts();
    let mut parts = snapshot::Parts {
        country_v4: (country.v4.0.into(), country.v4.1.into()),
        country_v6: (country.v6.0.into(), country.v6.1.into()),
        asn_v4: (asn.v4.0.into(), asn.v4.1.into()),
        asn_v6: (asn.v6.0.into(), asn.v6.1.into()),
        networks: (Cow::Borrowed(na), Cow::Borrowed(no), Cow::Borrowed(arena)),
        meta: meta.into(),
        ..snapshot::Parts::default()
    };
    // The lookup index, merged here so the binary starts without merging.
    parts.add_index()?;
    parts.add_directories();
    let out = Path::new(&std::env::var("OUT_DIR")?).join("snapshot.bin");
    std::fs::write(out, snapshot::encode(&parts))?;
    Ok(())
}

fn open(path: &str) -> std::io::Result<BufReader<flate2::read::GzDecoder<File>>> {
    Ok(BufReader::with_capacity(
        1 << 16,
        flate2::read::GzDecoder::new(File::open(path)?),
    ))
}

fn describe(out: &mut String, key: &str, source: (&str, &str, &str, &str), stats: &ImportStats) {
    let (file, package, version, date) = source;
    let source = SourceMeta {
        file: file.to_owned(),
        source: format!("npm {package}@{version}"),
        date: date.to_owned(),
        stats: stats.clone(),
    };
    meta::write(out, key, &source);
}
