//! Loading releases from a data directory, by the one rule of [`Policy`]:
//! for each table (country, ASN, city) the newest file that loads and passes
//! the policy is served; a file that fails is refused (named, with its reason,
//! in [`Release::refused`]) and the next older one is tried, down to the
//! release serving now (at start: the embedded data). A bad release never
//! stops the service.
//!
//! A file still being written is never loaded half-way: temporary and hidden
//! names are ignored, a CSV must end in a newline, a gzip stream must reach
//! its trailer (CRC and length checked), an MMDB must hold its metadata
//! marker, and the file must not change while it is read.
//!
//! A kind of file that the directory lacks comes from the embedded snapshot, so
//! an operator may refresh only one table.

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

pub use super::policy::Policy;
use super::ranges::RangeTable;
use super::{AsnTables, CityTables, CountryTables, GeoDb, GeoError, Release, SourceInfo};
use super::{csv, mmdb};

/// The kinds of table a release holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    Country,
    Asn,
    City,
}

impl Table {
    /// The name used in `/healthz`, `/metrics` and the logs.
    pub fn name(self) -> &'static str {
        match self {
            Table::Country => "country",
            Table::Asn => "asn",
            Table::City => "city",
        }
    }

    fn prefixes(self) -> &'static [&'static str] {
        match self {
            Table::Country => &["dbip-country", "GeoLite2-Country"],
            Table::Asn => &["dbip-asn", "asn", "GeoLite2-ASN"],
            Table::City => &["dbip-city", "GeoLite2-City"],
        }
    }
}

/// A release file that was not loaded, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// `country`, `asn` or `city`.
    pub table: &'static str,
    /// The file's name (never its path).
    pub file: String,
    pub reason: String,
    /// The file looked unfinished (still being written): it is tried again
    /// on the next change.
    pub incomplete: bool,
}

/// What identifies one version of a file: its length and modification time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    pub len: u64,
    pub modified: Option<SystemTime>,
}

fn stamp(path: &Path) -> Option<FileStamp> {
    let meta = std::fs::metadata(path).ok()?;
    Some(FileStamp {
        len: meta.len(),
        modified: meta.modified().ok(),
    })
}

/// The release files found in a data directory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DataFiles {
    pub country: Option<PathBuf>,
    pub asn: Option<PathBuf>,
    pub city: Option<PathBuf>,
}

/// Whether a name is a temporary or partial file that must never be loaded.
pub fn is_temporary(name: &str) -> bool {
    name.starts_with('.')
        || name.ends_with('~')
        || [
            ".tmp",
            ".part",
            ".partial",
            ".download",
            ".crdownload",
            ".swp",
        ]
        .iter()
        .any(|t| name.contains(t))
}

/// The release files of `table` in `dir`, newest first: DB-IP CSV
/// (`dbip-country*.csv[.gz]`, `dbip-asn*.csv[.gz]`, `asn*.csv[.gz]`) or MMDB
/// (`dbip-*-lite-*.mmdb[.gz]`, `GeoLite2-{Country,ASN,City}*.mmdb[.gz]`; city:
/// MMDB only). Newest means greatest name, which for DB-IP's
/// `...-YYYY-MM...` names is the latest month.
pub fn candidates(dir: &Path, table: Table) -> Result<Vec<String>, GeoError> {
    let entries = std::fs::read_dir(dir).map_err(|e| GeoError::File {
        path: dir.display().to_string(),
        reason: format!("cannot read directory: {e}"),
    })?;
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| std::fs::metadata(e.path()).is_ok_and(|m| m.is_file()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| !is_temporary(n))
        .filter(|n| {
            let exts: &[&str] = if table == Table::City {
                &[".mmdb", ".mmdb.gz"]
            } else {
                &[".csv", ".csv.gz", ".mmdb", ".mmdb.gz"]
            };
            exts.iter().any(|ext| n.ends_with(ext))
        })
        .filter(|n| table.prefixes().iter().any(|p| n.starts_with(p)))
        .collect();
    names.sort();
    names.reverse();
    Ok(names)
}

/// The newest country, ASN and city files in `dir`.
pub fn find(dir: &Path) -> Result<DataFiles, GeoError> {
    let newest = |t| -> Result<Option<PathBuf>, GeoError> {
        Ok(candidates(dir, t)?.first().map(|n| dir.join(n)))
    };
    Ok(DataFiles {
        country: newest(Table::Country)?,
        asn: newest(Table::Asn)?,
        city: newest(Table::City)?,
    })
}

fn is_mmdb(name: &str) -> bool {
    name.ends_with(".mmdb") || name.ends_with(".mmdb.gz")
}

/// Loads the database to start with: the data directory's newest releases
/// that pass the policy (checked against the embedded data), else the
/// embedded data. Refused files are logged and listed in [`Release::refused`].
pub fn load_database(data_dir: Option<&Path>, policy: &Policy) -> Result<GeoDb, GeoError> {
    let embedded = GeoDb::embedded()?;
    match data_dir {
        Some(dir) => load_release(dir, policy, &embedded, &embedded, false),
        None => Ok(embedded),
    }
}

/// Loads the release to replace `serving` with: the newest files that pass
/// the policy (row counts checked against `serving`); a table whose files
/// are all refused keeps serving what it serves.
pub fn reload_database(dir: &Path, policy: &Policy, serving: &GeoDb) -> Result<GeoDb, GeoError> {
    let embedded = GeoDb::embedded()?;
    load_release(dir, policy, serving, &embedded, false)
}

/// Loads the newest release in `dir` strictly: a newest file that fails the
/// policy is an error, not a fallback (for `iplookup lookup`). A kind the
/// directory lacks comes from `embedded`.
pub fn load_dir(dir: &Path, policy: &Policy, embedded: &GeoDb) -> Result<GeoDb, GeoError> {
    load_release(dir, policy, embedded, embedded, true)
}

/// A table and where it came from.
type Chosen<T> = (T, SourceInfo);

/// The newest file of `table` that loads and passes the policy, checked
/// against `serving` (kept when it is still the newest such file); with no
/// file at all, `absent`.
#[allow(clippy::too_many_arguments)]
fn choose<T: Clone>(
    dir: &Path,
    table: Table,
    policy: &Policy,
    serving: Option<(&T, &SourceInfo)>,
    absent: Option<(&T, &SourceInfo)>,
    strict: bool,
    load: fn(&Path, &str, &Policy) -> Result<Chosen<T>, GeoError>,
    refused: &mut Vec<Refusal>,
) -> Result<Option<Chosen<T>>, GeoError> {
    let own = |(t, i): (&T, &SourceInfo)| (t.clone(), i.clone());
    let names = candidates(dir, table)?;
    if names.is_empty() {
        return Ok(absent.map(own));
    }
    for name in names {
        let path = dir.join(&name);
        if let Some((t, info)) = serving {
            if info.file == name && info.stamp.is_some() && info.stamp == stamp(&path) {
                return Ok(Some(own((t, info))));
            }
        }
        let loaded = load(&path, &name, policy).and_then(|(t, info)| {
            if let Some((_, current)) = serving {
                check_rows(policy, &info, current)?;
            }
            Ok((t, info))
        });
        match loaded {
            Ok(chosen) => {
                let info = &chosen.1;
                if info.defects.total() > 0 {
                    tracing::warn!(table = table.name(), file = %name, defects = info.defects.total(), notes = ?info.notes, "release file loaded with defects repaired");
                }
                return Ok(Some(chosen));
            }
            Err(e) if strict => return Err(e),
            Err(e) => {
                let incomplete = is_incomplete(&e) && recently_modified(&path);
                if incomplete {
                    tracing::info!(table = table.name(), file = %name, reason = %e, "release file not complete yet; not loaded");
                } else {
                    tracing::error!(table = table.name(), file = %name, reason = %e, "release file refused; trying the next older one");
                }
                refused.push(Refusal {
                    table: table.name(),
                    file: name,
                    reason: e.to_string(),
                    incomplete,
                });
            }
        }
    }
    Ok(serving.map(own))
}

/// The row-count window, between releases of the same format (an MMDB
/// counts networks, a CSV rows: they are not comparable).
fn check_rows(policy: &Policy, new: &SourceInfo, current: &SourceInfo) -> Result<(), GeoError> {
    if is_mmdb(&new.file) != is_mmdb(&current.file) || current.rows == 0 {
        return Ok(());
    }
    policy
        .check_rows(new.rows, current.rows)
        .map_err(|violation| {
            GeoError::Csv(csv::CsvError::Policy {
                file: new.file.clone(),
                violation,
            })
        })
}

/// How long an unfinished-looking file is taken as still being written; an
/// older one is refused like any bad file.
pub const WRITE_GRACE: std::time::Duration = std::time::Duration::from_secs(120);

fn recently_modified(path: &Path) -> bool {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age < WRITE_GRACE)
}

fn is_incomplete(e: &GeoError) -> bool {
    matches!(e, GeoError::Csv(c) if c.is_incomplete())
}

fn load_release(
    dir: &Path,
    policy: &Policy,
    serving: &GeoDb,
    embedded: &GeoDb,
    strict: bool,
) -> Result<GeoDb, GeoError> {
    let mut refused = Vec::new();
    let (sr, er) = (serving.release(), embedded.release());
    let (country, country_info) = choose(
        dir,
        Table::Country,
        policy,
        Some((serving.country_tables(), &sr.country)),
        Some((embedded.country_tables(), &er.country)),
        strict,
        load_country,
        &mut refused,
    )?
    .unwrap_or_else(|| (embedded.country_tables().clone(), er.country.clone()));
    let (asn, asn_info) = choose(
        dir,
        Table::Asn,
        policy,
        Some((serving.asn_tables(), &sr.asn)),
        Some((embedded.asn_tables(), &er.asn)),
        strict,
        load_asn,
        &mut refused,
    )?
    .unwrap_or_else(|| (embedded.asn_tables().clone(), er.asn.clone()));
    let serving_city = serving.city_tables().zip(sr.city.as_ref());
    let city = choose(
        dir,
        Table::City,
        policy,
        serving_city,
        None,
        strict,
        load_city,
        &mut refused,
    )?;
    // Neither table changed (no such file, or the one served): keep its index.
    let unchanged = [serving, embedded]
        .into_iter()
        .find(|db| db.release().country == country_info && db.release().asn == asn_info);
    let release = Release {
        country: country_info,
        asn: asn_info,
        city: None,
        refused,
    };
    let db = match unchanged {
        Some(db) => db.same_tables(release),
        None => GeoDb::new(country, asn, release)?,
    };
    match city {
        Some((tables, info)) => db.with_city(tables, info),
        None => Ok(db),
    }
}

/// Checks one file as a reload would (for `iplookup update`): loads it by
/// the policy and compares its row count with the table `serving` serves.
/// Returns its row count.
pub fn check_file(
    table: Table,
    path: &Path,
    name: &str,
    policy: &Policy,
    serving: &GeoDb,
) -> Result<u64, GeoError> {
    let r = serving.release();
    let (info, current) = match table {
        Table::Country => (load_country(path, name, policy)?.1, Some(&r.country)),
        Table::Asn => (load_asn(path, name, policy)?.1, Some(&r.asn)),
        Table::City => (load_city(path, name, policy)?.1, r.city.as_ref()),
    };
    if let Some(current) = current {
        check_rows(policy, &info, current)?;
    }
    Ok(info.rows)
}

/// Reads one country file (CSV or MMDB) named `name`.
pub fn load_country(
    path: &Path,
    name: &str,
    policy: &Policy,
) -> Result<(CountryTables, SourceInfo), GeoError> {
    let before = stamp(path);
    let a = if is_mmdb(name) {
        on_big_stack(|| {
            Ok(mmdb::read_country(
                read_all(path, name, policy)?,
                name,
                policy,
            )?)
        })?
    } else {
        csv::read_country(open(path, name)?, name, policy)?
    };
    let tables = CountryTables {
        v4: table(name, a.v4)?,
        v6: table(name, a.v6)?,
    };
    Ok((tables, source_info(path, name, before, a.stats)?))
}

/// Reads one ASN file (CSV or MMDB) named `name`.
pub fn load_asn(
    path: &Path,
    name: &str,
    policy: &Policy,
) -> Result<(AsnTables, SourceInfo), GeoError> {
    let before = stamp(path);
    let a = if is_mmdb(name) {
        on_big_stack(|| Ok(mmdb::read_asn(read_all(path, name, policy)?, name, policy)?))?
    } else {
        csv::read_asn(open(path, name)?, name, policy)?
    };
    let tables = AsnTables {
        v4: table(name, a.v4)?,
        v6: table(name, a.v6)?,
        networks: a.networks,
    };
    Ok((tables, source_info(path, name, before, a.stats)?))
}

/// Reads one city MMDB named `name`, with the city checks of [`mmdb::read_city`].
pub fn load_city(
    path: &Path,
    name: &str,
    policy: &Policy,
) -> Result<(CityTables, SourceInfo), GeoError> {
    let before = stamp(path);
    let a = on_big_stack(|| {
        Ok(mmdb::read_city(
            read_all(path, name, policy)?,
            name,
            policy,
        )?)
    })?;
    let tables = CityTables {
        v4: table(name, a.v4)?,
        v6: table(name, a.v6)?,
        cities: a.cities,
    };
    Ok((tables, source_info(path, name, before, a.stats)?))
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

/// The marker that opens an MMDB's metadata section, near the end of the file.
const MMDB_MARKER: &[u8] = b"\xab\xcd\xefMaxMind.com";
/// How far from the end the metadata marker may be.
const MMDB_METADATA_MAX: usize = 128 << 10;

/// The whole MMDB file, decompressed if gzipped, at most the policy's cap;
/// refused as incomplete without its metadata marker.
fn read_all(path: &Path, name: &str, policy: &Policy) -> Result<Vec<u8>, GeoError> {
    let too_large = || {
        GeoError::Csv(csv::CsvError::TooLarge {
            file: name.to_owned(),
            limit: policy.max_unpacked_bytes,
        })
    };
    if std::fs::metadata(path).is_ok_and(|m| m.len() > policy.max_unpacked_bytes) {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    open(path, name)?
        .take(policy.max_unpacked_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| csv::read_error(name, e))?;
    if bytes.len() as u64 > policy.max_unpacked_bytes {
        return Err(too_large());
    }
    let tail = &bytes[bytes.len().saturating_sub(MMDB_METADATA_MAX)..];
    if !tail.windows(MMDB_MARKER.len()).any(|w| w == MMDB_MARKER) {
        return Err(GeoError::Csv(csv::CsvError::Incomplete {
            file: name.to_owned(),
            reason: "no MaxMind metadata marker at the end: not a MaxMind database, or cut short"
                .into(),
        }));
    }
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

/// Opens a file for reading lines, decompressing it if it starts with the
/// gzip magic (every member's CRC and length are checked at its end).
/// Errors name the file by `name`, never by its path.
pub fn open(path: &Path, name: &str) -> Result<Box<dyn BufRead + Send>, GeoError> {
    let mut file = File::open(path).map_err(|e| file_error(name, &format!("cannot open: {e}")))?;
    let mut magic = [0u8; 2];
    let n = file
        .read(&mut magic)
        .map_err(|e| file_error(name, &format!("cannot read: {e}")))?;
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

/// Where a table came from; refused as incomplete if the file changed while it was read.
fn source_info(
    path: &Path,
    name: &str,
    before: Option<FileStamp>,
    stats: csv::CsvStats,
) -> Result<SourceInfo, GeoError> {
    let after = stamp(path);
    if before != after {
        return Err(GeoError::Csv(csv::CsvError::Incomplete {
            file: name.to_owned(),
            reason: "the file changed while it was read".into(),
        }));
    }
    Ok(SourceInfo {
        file: name.to_owned(),
        source: if is_mmdb(name) {
            "MMDB file".into()
        } else {
            "DB-IP CSV file".into()
        },
        date: release_date(name)
            .or_else(|| modified_date(path))
            .unwrap_or_default(),
        rows: stats.rows,
        trimmed: stats.trimmed,
        skipped: stats.skipped,
        defects: stats.defects,
        notes: stats.notes,
        stamp: after,
    })
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

fn file_error(name: &str, reason: &str) -> GeoError {
    GeoError::File {
        path: name.to_owned(),
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

    #[test]
    fn temporary_names_are_never_candidates() {
        let dir = std::env::temp_dir().join(format!("iplookup-cand-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for name in [
            "dbip-asn-lite-2030-01.csv.gz",
            "dbip-asn-lite-2030-02.csv",
            ".dbip-asn-lite-2030-03.csv.gz.77.1.tmp",
            "dbip-asn-lite-2030-04.csv.gz.part",
            "dbip-asn-lite-2030-05.partial.csv",
            "dbip-asn-lite-2030-06.csv~",
            "dbip-country-lite-2030-01.csv",
            "dbip-city-lite-2030-01.csv",
        ] {
            std::fs::write(dir.join(name), b"").unwrap();
        }
        assert_eq!(
            candidates(&dir, Table::Asn).unwrap(),
            ["dbip-asn-lite-2030-02.csv", "dbip-asn-lite-2030-01.csv.gz"]
        );
        // A city database is an MMDB.
        assert!(candidates(&dir, Table::City).unwrap().is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn row_counts_are_compared_within_one_format() {
        let info = |file: &str, rows| SourceInfo {
            file: file.into(),
            rows,
            ..SourceInfo::default()
        };
        let p = Policy::default();
        let csv = info("dbip-asn-lite-2030-01.csv", 1000);
        assert!(check_rows(&p, &info("dbip-asn-lite-2030-02.csv", 1), &csv).is_err());
        assert!(check_rows(&p, &info("dbip-asn-lite-2030-02.csv", 900), &csv).is_ok());
        // CSV rows and MMDB networks are not comparable.
        assert!(check_rows(&p, &info("GeoLite2-ASN.mmdb", 1), &csv).is_ok());
    }
}
