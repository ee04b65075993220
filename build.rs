//! Build script: turns the committed DB-IP CSV files under `data/` into the
//! binary snapshot that the library embeds (see `src/geo/snapshot.rs`), so the
//! service starts without parsing 1.2 million CSV rows.
//!
//! It compiles the library's own CSV reader, so the embedded data passes through
//! exactly the validation that files given with `--data-dir` do.

#![allow(dead_code)]

use std::borrow::Cow;
use std::fs::File;
use std::io::BufReader;
use std::path::Path;

#[path = "src/geo/csv.rs"]
mod csv;
#[path = "src/geo/directory.rs"]
mod directory;
#[path = "src/geo/index.rs"]
mod index;
#[path = "src/geo/networks.rs"]
mod networks;
#[path = "src/geo/policy.rs"]
mod policy;
#[path = "src/geo/ranges.rs"]
mod ranges;
#[path = "src/geo/rows.rs"]
mod rows;
#[path = "src/geo/snapshot.rs"]
mod snapshot;

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
    println!("cargo::rerun-if-changed=src/geo");
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
    // The same rule as every release (src/geo/policy.rs): the ASN source's
    // one overlapping pair (see data/README.md) is repaired and counted.
    let policy = policy::Policy::default();
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

fn describe(meta: &mut String, key: &str, source: (&str, &str, &str, &str), stats: &csv::CsvStats) {
    let (file, package, version, date) = source;
    meta.push_str(&format!(
        "{key}.file={file}\n{key}.source=npm {package}@{version}\n{key}.date={date}\n{key}.rows={}\n{key}.trimmed={}\n{key}.skipped={}\n",
        stats.rows, stats.trimmed, stats.skipped
    ));
    for kind in policy::Defect::ALL {
        let count = stats.defects.get(kind);
        meta.push_str(&format!("{key}.defect.{}={count}\n", kind.name()));
    }
    for note in &stats.notes {
        meta.push_str(&format!("{key}.note={note}\n"));
    }
}
