//! Replays every file of `fuzz/corpus/<target>/` (the committed seeds and the
//! inputs the fuzzers found) through the same invariant checks the fuzz
//! targets run, so a fuzz finding stays fixed without cargo-fuzz or nightly.
//!
//! The checks live in `fuzz/src/lib.rs`, included here by path. A file that
//! still fails because of a known, unfixed bug is listed in [`KNOWN_BUGS`]:
//! the per-target replay skips it and an `#[ignore]`d test below replays it.
//! When the bug is fixed, delete its line there and its ignored test.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

#[allow(dead_code)]
#[path = "../../fuzz/src/lib.rs"]
mod checks;

/// `(target, file)` pairs that still fail, each with an ignored test below.
const KNOWN_BUGS: &[(&str, &str)] = &[];

fn corpus(target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{}: no seeds", dir.display());
    files
}

/// Runs `check` on every file of the target's corpus except the known bugs,
/// and reports every failing file at once.
fn replay(target: &str, check: fn(&[u8])) {
    let mut failures = Vec::new();
    let mut ran = 0;
    for path in corpus(target) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if KNOWN_BUGS.contains(&(target, name.as_str())) {
            continue;
        }
        let data = std::fs::read(&path).unwrap();
        ran += 1;
        if let Err(panic) = catch_unwind(AssertUnwindSafe(|| check(&data))) {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            failures.push(format!("{}: {message}", path.display()));
        }
    }
    assert!(ran > 0, "{target}: nothing replayed");
    assert!(
        failures.is_empty(),
        "{} of {ran} {target} inputs fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Replays one file (for the ignored known-bug tests).
fn replay_one(target: &str, file: &str, check: fn(&[u8])) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target)
        .join(file);
    check(&std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())));
}

#[test]
fn address_parse_corpus() {
    replay("address_parse", checks::address_parse);
}

#[test]
fn negotiate_corpus() {
    replay("negotiate", checks::negotiate);
}

#[test]
fn forwarded_corpus() {
    replay("forwarded", checks::forwarded);
}

#[test]
fn csv_country_corpus() {
    replay("csv_country", checks::csv_country);
}

#[test]
fn csv_asn_corpus() {
    replay("csv_asn", checks::csv_asn);
}

#[test]
fn mmdb_corpus() {
    replay("mmdb", checks::mmdb);
}

#[test]
fn snapshot_decode_corpus() {
    replay("snapshot_decode", checks::snapshot_decode);
}

#[test]
fn known_bugs_have_files() {
    for (target, file) in KNOWN_BUGS {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fuzz/corpus")
            .join(target)
            .join(file);
        assert!(path.is_file(), "{} is missing", path.display());
    }
}

/// `CountryTable::get_packed` used to map a packed code that is not two
/// upper-case letters to another country: 0x415e ("A^") gave slot 0 * 26 + 29,
/// "BD". Fixed: such codes have no country.
#[test]
fn bug_get_packed_non_letter_code() {
    replay_one(
        "snapshot_decode",
        "bug-get-packed-non-letter-code",
        checks::snapshot_decode,
    );
}

/// A snapshot whose stored lookup index disagrees with its own source tables
/// (found by the fuzz smoke run the day the index was added: the index said
/// "CN" where the country table said "CA"). Fixed: a fully checked snapshot's
/// index must equal the one merged again from its source tables.
#[test]
fn bug_index_disagrees_with_sources() {
    replay_one(
        "snapshot_decode",
        "bug-index-disagrees-with-sources",
        checks::snapshot_decode,
    );
}

/// The snapshot seeds are made from the CSV seeds; `FUZZ_WRITE_SEEDS=1 cargo
/// test --test it fuzz_regressions::snapshot_seeds` rewrites them after a format change.
#[test]
fn snapshot_seeds_are_current() {
    use iplookup::geo::csv;
    use iplookup::geo::snapshot::{self, Parts};

    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    let read = |p: &str| std::fs::read(dir.join(p)).unwrap();
    let mut country_csv = read("csv_country/dbip-head");
    country_csv.extend(read("csv_country/v6-tail"));
    let mut asn_csv = read("csv_asn/dbip-head");
    asn_csv.extend(read("csv_asn/v6"));
    let c = csv::read_country(
        &country_csv[..],
        "dbip-country-lite.csv",
        &Default::default(),
    )
    .unwrap();
    let a = csv::read_asn(&asn_csv[..], "asn.csv", &Default::default()).unwrap();
    let (asns, offsets, arena) = a.networks.parts();
    let mut parts = Parts {
        country_v4: (c.v4.0.into(), c.v4.1.into()),
        country_v6: (c.v6.0.into(), c.v6.1.into()),
        asn_v4: (a.v4.0.into(), a.v4.1.into()),
        asn_v6: (a.v6.0.into(), a.v6.1.into()),
        networks: (
            asns.to_vec().into(),
            offsets.to_vec().into(),
            arena.to_vec().into(),
        ),
        meta: "country.file=data/dbip-country-lite.csv.gz\ncountry.date=2026-06-01\n\
               country.rows=9\nasn.file=data/asn.csv.gz\nasn.rows=9\nasn.trimmed=0\n"
            .into(),
        ..Parts::default()
    };
    let mut bug_get_packed = parts.clone();
    parts.add_index().unwrap();
    let sample = snapshot::encode(&parts);
    let mut seeds: Vec<(&str, Vec<u8>)> = vec![("sample", sample.clone())];
    seeds.push(("truncated", sample[..sample.len() - 40].to_vec()));
    let mut bad_magic = sample.clone();
    bad_magic[7] = b'2';
    seeds.push(("bad-magic", bad_magic));
    let mut bad_count = sample.clone();
    bad_count[8] = 13;
    seeds.push(("bad-section-count", bad_count));
    // The first section's element size (bytes 24..32) says 2 instead of 4.
    let mut bad_size = sample.clone();
    bad_size[24] = 2;
    seeds.push(("bad-element-size", bad_size));
    // The metadata (last section) is not UTF-8.
    let mut bad_meta = sample.clone();
    let at = sample.iter().rposition(|b| *b == b'=').unwrap();
    bad_meta[at] = 0xff;
    seeds.push(("bad-meta-utf8", bad_meta));
    // Country v4 values (section 2) made unsorted starts: swap two starts.
    let mut unsorted = sample.clone();
    let first = 16 + 16; // magic + count, then length and size of section 1
    unsorted[first + 4..first + 8].copy_from_slice(&0xffff_ffffu32.to_le_bytes());
    seeds.push(("unsorted-starts", unsorted));
    // A country code that is not two letters, 0x415e "A^" (see
    // bug_get_packed_non_letter_code): it must read as no country.
    let mut codes = bug_get_packed.country_v4.1.to_vec();
    if let Some(code) = codes.iter_mut().find(|c| **c != 0) {
        *code = 0x415e;
    }
    bug_get_packed.country_v4.1 = codes.into();
    bug_get_packed.add_index().unwrap();
    seeds.push((
        "bug-get-packed-non-letter-code",
        snapshot::encode(&bug_get_packed),
    ));

    let write = std::env::var_os("FUZZ_WRITE_SEEDS").is_some();
    for (name, bytes) in seeds {
        let path = dir.join("snapshot_decode").join(name);
        if write {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &bytes).unwrap();
        }
        assert_eq!(
            std::fs::read(&path).ok().as_deref(),
            Some(&bytes[..]),
            "{} is stale: rerun with FUZZ_WRITE_SEEDS=1",
            path.display()
        );
    }
}
