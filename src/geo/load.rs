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
use std::path::Path;
use std::sync::Arc;

use iplookup_data::csv;
use iplookup_data::policy::Coverage;
use iplookup_data::ranges::{Key, RangeTable, Value};
use iplookup_data::tables::{AsnTables, CountryTables};
use iplookup_data::{DataError, ImportStats};

pub use super::files::Table;
pub use iplookup_data::policy::Policy;

use super::asn::AsnIndex;
use super::db::GeoDb;
use super::error::{GeoError, file_error};
use super::files::{
    candidates, check_not_future, is_mmdb, modified_date, open, read_all, release_date, stamp,
};
pub use super::judge::Covers;
use super::judge::judge;
use super::mmdb::{self, CityTables};
use super::release::{Digest, FileStamp, RefusedFile, Release, SourceInfo};

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
fn choose<T: Clone + Covers>(
    dir: &Path,
    table: Table,
    policy: &Policy,
    serving: Option<(&T, &SourceInfo)>,
    absent: Option<(&T, &SourceInfo)>,
    strict: bool,
    load: fn(&Path, &str, &Policy) -> Result<Chosen<T>, GeoError>,
    judge: &dyn Fn(&T, &SourceInfo) -> Result<(), GeoError>,
    refused: &mut Vec<RefusedFile>,
) -> Result<Option<Chosen<T>>, GeoError> {
    let own = |(t, i): (&T, &SourceInfo)| (t.clone(), i.clone());
    let names = candidates(dir, table)?;
    if names.is_empty() {
        return Ok(absent.map(own));
    }
    for (name, path) in names {
        if let Some((t, info)) = serving {
            if info.file == name && info.stamp.is_some() && info.stamp == stamp(&path) {
                return Ok(Some(own((t, info))));
            }
        }
        let loaded = check_not_future(&name)
            .and_then(|()| load(&path, &name, policy))
            .and_then(|(t, info)| {
                judge(&t, &info)?;
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
                let incomplete = e.is_incomplete() && recently_modified(&path);
                if incomplete {
                    tracing::info!(table = table.name(), file = %name, reason = %e, "release file not complete yet; not loaded");
                } else {
                    tracing::error!(table = table.name(), file = %name, reason = %e, "release file refused; trying the next older one");
                }
                refused.push(RefusedFile {
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

fn load_release(
    dir: &Path,
    policy: &Policy,
    serving: &GeoDb,
    embedded: &GeoDb,
    strict: bool,
) -> Result<GeoDb, GeoError> {
    let mut refused = Vec::new();
    let (sr, er) = (serving.release(), embedded.release());
    let judged = |table| {
        move |t: &dyn Covers, info: &SourceInfo| judge(table, policy, t, info, serving, embedded)
    };
    let (country, country_info) = choose(
        dir,
        Table::Country,
        policy,
        Some((serving.country_tables(), &sr.country)),
        Some((embedded.country_tables(), &er.country)),
        strict,
        load_country,
        &|t, i| judged(Table::Country)(t, i),
        &mut refused,
    )?
    .unwrap_or_else(|| (embedded.country_tables().clone(), er.country.clone()));
    let (serving_asn, embedded_asn) = (Asn::of(serving), Asn::of(embedded));
    let (asn, asn_info) = choose(
        dir,
        Table::Asn,
        policy,
        Some((&serving_asn, &sr.asn)),
        Some((&embedded_asn, &er.asn)),
        strict,
        load_asn_indexed,
        &|t, i| judged(Table::Asn)(t, i),
        &mut refused,
    )?
    .unwrap_or_else(|| (embedded_asn.clone(), er.asn.clone()));
    let serving_city = serving.city_tables().zip(sr.city.as_ref());
    let city = choose(
        dir,
        Table::City,
        policy,
        serving_city,
        None,
        strict,
        load_city,
        &|t, i| judged(Table::City)(t, i),
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
        None => GeoDb::new(country, asn.tables.into_owned(), release)?.with_asn_index(asn.index),
    };
    match city {
        Some((tables, info)) => db.with_city(tables, info),
        None => Ok(db),
    }
}

/// Checks one file as a reload would (for `iplookup update`): loads it by
/// the policy and compares its row count and its address space with the
/// table `serving` serves, and its address space with the embedded
/// release's ([`super::judge::references`]).
/// Returns what loading it found (its rows, date and digest).
pub fn check_file(
    table: Table,
    path: &Path,
    name: &str,
    policy: &Policy,
    serving: &GeoDb,
) -> Result<SourceInfo, GeoError> {
    check_not_future(name)?;
    let (tables, info): (Box<dyn Covers>, SourceInfo) = match table {
        Table::Country => {
            let (t, info) = load_country(path, name, policy)?;
            (Box::new(t), info)
        }
        Table::Asn => {
            let (t, info) = load_asn(path, name, policy)?;
            (Box::new(t), info)
        }
        Table::City => {
            let (t, info) = load_city(path, name, policy)?;
            (Box::new(t), info)
        }
    };
    judge(
        table,
        policy,
        tables.as_ref(),
        &info,
        serving,
        &GeoDb::embedded()?,
    )?;
    Ok(info)
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

/// ASN tables and their AS index when it is built (see [`super::asn`]).
#[derive(Debug, Clone)]
struct Asn<'a> {
    tables: Cow<'a, AsnTables>,
    index: Option<Arc<AsnIndex>>,
}

impl<'a> Asn<'a> {
    /// The ASN tables `db` serves, borrowed.
    fn of(db: &'a GeoDb) -> Asn<'a> {
        Asn {
            tables: Cow::Borrowed(db.asn_tables()),
            index: db.built_asn_index(),
        }
    }
}

impl Covers for Asn<'_> {
    fn coverage(&self) -> Coverage {
        self.tables.coverage()
    }
    fn networks(&self) -> u64 {
        self.tables.networks()
    }
}

/// [`load_asn`], keeping the AS index it built.
fn load_asn_indexed<'a>(
    path: &Path,
    name: &str,
    policy: &Policy,
) -> Result<Chosen<Asn<'a>>, GeoError> {
    let (tables, index, info) = read_asn(path, name, policy)?;
    let index = Some(Arc::new(index));
    let tables = Cow::Owned(tables);
    Ok((Asn { tables, index }, info))
}

/// Reads one ASN file (CSV or MMDB) named `name`.
pub fn load_asn(
    path: &Path,
    name: &str,
    policy: &Policy,
) -> Result<(AsnTables, SourceInfo), GeoError> {
    read_asn(path, name, policy).map(|(tables, _, info)| (tables, info))
}

/// Reads one ASN file and builds its AS index, which refuses an AS that
/// expands to more prefixes than the policy allows.
fn read_asn(
    path: &Path,
    name: &str,
    policy: &Policy,
) -> Result<(AsnTables, AsnIndex, SourceInfo), GeoError> {
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
    // The bound on the prefixes of one AS: building the index measures it.
    let index = AsnIndex::build(&tables, policy).map_err(|violation| {
        GeoError::Data(DataError::Policy {
            file: name.to_owned(),
            violation,
        })
    })?;
    Ok((tables, index, source_info(path, name, before, a.stats)?))
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
            .map_err(|e| file_error("mmdb", format!("cannot start a loader thread: {e}")))?
            .join()
            .unwrap_or_else(|_| Err(file_error("mmdb", "the MMDB loader panicked")))
    })
}

fn table<K: Key, V: Value>(
    label: &str,
    (starts, values): (Vec<K>, Vec<V>),
) -> Result<RangeTable<K, V>, GeoError> {
    RangeTable::new(Cow::Owned(starts), Cow::Owned(values))
        .map_err(|e| file_error(label, format!("inconsistent table: {e:?}")))
}

/// The [`Digest`] of the file at `path`, as stored (compressed or not).
fn file_digest(path: &Path, name: &str) -> Result<u64, GeoError> {
    use std::io::Read;
    let mut file =
        std::fs::File::open(path).map_err(|e| file_error(name, format!("cannot open: {e}")))?;
    let mut digest = Digest::default();
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        let n = file
            .read(&mut chunk)
            .map_err(|e| DataError::read(name, e))?;
        if n == 0 {
            return Ok(digest.finish());
        }
        digest.write(&chunk[..n]);
    }
}

/// Where a table came from; refused as incomplete if the file changed while it was read.
fn source_info(
    path: &Path,
    name: &str,
    before: Option<FileStamp>,
    stats: ImportStats,
) -> Result<SourceInfo, GeoError> {
    let digest = file_digest(path, name)?;
    let after = stamp(path);
    if before != after {
        return Err(GeoError::Data(DataError::Incomplete {
            file: name.to_owned(),
            reason: "the file changed while it was read".into(),
        }));
    }
    let source = if is_mmdb(name) {
        "MMDB file"
    } else {
        "DB-IP CSV file"
    };
    let date = release_date(name)
        .or_else(|| modified_date(path))
        .unwrap_or_default();
    Ok(SourceInfo {
        stamp: after,
        digest,
        ..SourceInfo::new(name.to_owned(), source.into(), date, stats)
    })
}
