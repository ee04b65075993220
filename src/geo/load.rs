//! Loading DB-IP releases from a data directory: finding the newest country
//! and ASN files, reading them plain or gzipped, and assembling a [`GeoDb`].
//!
//! A kind of file that the directory lacks comes from the embedded snapshot, so
//! an operator may refresh only one table.

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use super::ranges::RangeTable;
use super::{AsnTables, CityTables, CountryTables, GeoDb, GeoError, SourceInfo};
use super::{csv, mmdb};

/// The release files found in a data directory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DataFiles {
    pub country: Option<PathBuf>,
    pub asn: Option<PathBuf>,
    pub city: Option<PathBuf>,
}

/// Finds the newest country, ASN and city files in `dir`: DB-IP CSV
/// (`dbip-country*.csv[.gz]`, `dbip-asn*.csv[.gz]`, `asn*.csv[.gz]`) or MMDB
/// (`dbip-*-lite-*.mmdb[.gz]`, `GeoLite2-{Country,ASN,City}*.mmdb[.gz]`).
/// Newest means greatest name, which for DB-IP's `...-YYYY-MM...` names is the latest month.
pub fn find(dir: &Path) -> Result<DataFiles, GeoError> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| file_error(dir, &format!("cannot read directory: {e}")))?;
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| std::fs::metadata(e.path()).is_ok_and(|m| m.is_file()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| !n.starts_with('.'))
        .filter(|n| {
            [".csv", ".csv.gz", ".mmdb", ".mmdb.gz"]
                .iter()
                .any(|ext| n.ends_with(ext))
        })
        .collect();
    names.sort();
    let newest = |prefixes: &[&str], mmdb_only: bool| {
        names
            .iter()
            .rev()
            .filter(|n| !mmdb_only || is_mmdb(Path::new(n)))
            .find(|n| prefixes.iter().any(|p| n.starts_with(p)))
            .map(|n| dir.join(n))
    };
    Ok(DataFiles {
        country: newest(&["dbip-country", "GeoLite2-Country"], false),
        asn: newest(&["dbip-asn", "asn", "GeoLite2-ASN"], false),
        city: newest(&["dbip-city", "GeoLite2-City"], true),
    })
}

fn is_mmdb(path: &Path) -> bool {
    let name = path.to_string_lossy();
    name.ends_with(".mmdb") || name.ends_with(".mmdb.gz")
}

/// Loads the newest release in `dir`, falling back to `embedded` for a missing
/// kind (so an empty directory, before the first update, serves the embedded data).
pub fn load_dir(dir: &Path, lenient: bool, embedded: &GeoDb) -> Result<GeoDb, GeoError> {
    let files = find(dir)?;
    if files == DataFiles::default() {
        tracing::warn!(dir = %dir.display(), "no DB-IP or MMDB files in the data directory yet; serving the embedded data");
    }
    let mut release = embedded.release().clone();
    let country = match &files.country {
        Some(path) => {
            let (tables, info) = load_country(path, lenient)?;
            release.country = info;
            tables
        }
        None => embedded.country_tables().clone(),
    };
    let asn = match &files.asn {
        Some(path) => {
            let (tables, info) = load_asn(path, lenient)?;
            release.asn = info;
            tables
        }
        None => embedded.asn_tables().clone(),
    };
    let db = GeoDb::new(country, asn, release)?;
    match &files.city {
        Some(path) => {
            let (tables, info) = load_city(path)?;
            db.with_city(tables, info)
        }
        None => Ok(db),
    }
}

/// Reads one country file (CSV or MMDB).
pub fn load_country(path: &Path, lenient: bool) -> Result<(CountryTables, SourceInfo), GeoError> {
    let label = path.display().to_string();
    let a = if is_mmdb(path) {
        on_big_stack(|| Ok(mmdb::read_country(read_all(path)?, &label)?))?
    } else {
        csv::read_country(open(path)?, &label, lenient)?
    };
    let tables = CountryTables {
        v4: table(&label, a.v4)?,
        v6: table(&label, a.v6)?,
    };
    Ok((tables, source_info(path, a.stats)))
}

/// Reads one ASN file (CSV or MMDB).
pub fn load_asn(path: &Path, lenient: bool) -> Result<(AsnTables, SourceInfo), GeoError> {
    let label = path.display().to_string();
    let a = if is_mmdb(path) {
        on_big_stack(|| Ok(mmdb::read_asn(read_all(path)?, &label)?))?
    } else {
        csv::read_asn(open(path)?, &label, lenient)?
    };
    let tables = AsnTables {
        v4: table(&label, a.v4)?,
        v6: table(&label, a.v6)?,
        networks: a.networks,
    };
    Ok((tables, source_info(path, a.stats)))
}

/// Reads one city MMDB.
pub fn load_city(path: &Path) -> Result<(CityTables, SourceInfo), GeoError> {
    let label = path.display().to_string();
    let a = on_big_stack(|| Ok(mmdb::read_city(read_all(path)?, &label)?))?;
    let tables = CityTables {
        v4: table(&label, a.v4)?,
        v6: table(&label, a.v6)?,
        cities: a.cities,
    };
    Ok((tables, source_info(path, a.stats)))
}

/// Runs an MMDB conversion on a thread with a large stack: the reader recurses
/// into nested records (up to its depth limit), which overflows small stacks in
/// unoptimised builds.
fn on_big_stack<T: Send>(work: impl FnOnce() -> Result<T, GeoError> + Send) -> Result<T, GeoError> {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("mmdb-load".into())
            .stack_size(64 << 20)
            .spawn_scoped(scope, work)
            .map_err(|e| GeoError::File {
                path: "mmdb".into(),
                reason: format!("cannot start a loader thread: {e}"),
            })?
            .join()
            .unwrap_or_else(|_| {
                Err(GeoError::File {
                    path: "mmdb".into(),
                    reason: "the MMDB loader panicked".into(),
                })
            })
    })
}

/// The whole file, decompressed if gzipped.
fn read_all(path: &Path) -> Result<Vec<u8>, GeoError> {
    let mut bytes = Vec::new();
    open(path)?
        .read_to_end(&mut bytes)
        .map_err(|e| file_error(path, &format!("cannot read: {e}")))?;
    Ok(bytes)
}

fn table<K: super::ranges::Key, V: super::ranges::Value>(
    label: &str,
    (starts, values): (Vec<K>, Vec<V>),
) -> Result<RangeTable<K, V>, GeoError> {
    RangeTable::new(Cow::Owned(starts), Cow::Owned(values)).map_err(|e| GeoError::File {
        path: label.to_owned(),
        reason: format!("inconsistent table: {e:?}"),
    })
}

/// Opens a file for reading lines, decompressing it if it starts with the gzip magic.
pub fn open(path: &Path) -> Result<Box<dyn BufRead + Send>, GeoError> {
    let mut file = File::open(path).map_err(|e| file_error(path, &format!("cannot open: {e}")))?;
    let mut magic = [0u8; 2];
    let n = file
        .read(&mut magic)
        .map_err(|e| file_error(path, &format!("cannot read: {e}")))?;
    let head = std::io::Cursor::new(magic[..n].to_vec());
    let reader = head.chain(file);
    Ok(if magic == [0x1f, 0x8b] {
        Box::new(BufReader::with_capacity(
            1 << 16,
            flate2::read::MultiGzDecoder::new(reader),
        ))
    } else {
        Box::new(BufReader::with_capacity(1 << 16, reader))
    })
}

fn source_info(path: &Path, stats: csv::CsvStats) -> SourceInfo {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    SourceInfo {
        file: path.display().to_string(),
        source: if is_mmdb(path) {
            "MMDB file".into()
        } else {
            "DB-IP CSV file".into()
        },
        date: release_date(&name)
            .or_else(|| modified_date(path))
            .unwrap_or_default(),
        rows: stats.rows,
        trimmed: stats.trimmed,
        skipped: stats.skipped,
        notes: stats.notes,
    }
}

/// The `YYYY-MM` (or `YYYY-MM-DD`) in a DB-IP file name.
pub fn release_date(name: &str) -> Option<String> {
    let b = name.as_bytes();
    (0..b.len()).find_map(|i| {
        let digits =
            |r: std::ops::Range<usize>| b.get(r).is_some_and(|s| s.iter().all(u8::is_ascii_digit));
        if digits(i..i + 4) && b.get(i + 4) == Some(&b'-') && digits(i + 5..i + 7) {
            let day = b.get(i + 7) == Some(&b'-') && digits(i + 8..i + 10);
            let end = if day { i + 10 } else { i + 7 };
            Some(name[i..end].to_owned())
        } else {
            None
        }
    })
}

fn modified_date(path: &Path) -> Option<String> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    let date: chrono::DateTime<chrono::Utc> = modified.into();
    Some(date.format("%Y-%m-%d").to_string())
}

fn file_error(path: &Path, reason: &str) -> GeoError {
    GeoError::File {
        path: path.display().to_string(),
        reason: reason.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_release_dates_in_names() {
        assert_eq!(
            release_date("dbip-country-lite-2026-11.csv.gz").as_deref(),
            Some("2026-11")
        );
        assert_eq!(
            release_date("asn-2026-06-17.csv").as_deref(),
            Some("2026-06-17")
        );
        assert_eq!(release_date("asn.csv"), None);
    }
}
