//! The files of a data directory: which names hold which table and which
//! are temporary ([`candidates`]), how one is opened (gzip or not, [`open`]),
//! read whole with its size capped ([`read_all`], for MMDB), and stamped with
//! its length and modification time ([`stamp`]) so that a file that changes
//! while it is read is refused.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use iplookup_data::DataError;
use iplookup_data::policy::Policy;

use super::error::{GeoError, file_error};
use super::release::FileStamp;

/// The kinds of table a release holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    Country,
    Asn,
    City,
}

impl Table {
    /// The name used in `/healthz`, `/metrics` and the logs.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Table::Country => "country",
            Table::Asn => "asn",
            Table::City => "city",
        }
    }

    /// Whether a file of this name holds this table (by its name's prefix).
    pub(crate) fn holds(self, name: &str) -> bool {
        self.prefixes().iter().any(|p| name.starts_with(p))
    }

    fn prefixes(self) -> &'static [&'static str] {
        match self {
            Table::Country => &["dbip-country", "GeoLite2-Country"],
            Table::Asn => &["dbip-asn", "asn", "GeoLite2-ASN"],
            Table::City => &["dbip-city", "GeoLite2-City"],
        }
    }
}

/// The length and modification time of the file at `path` now.
pub(crate) fn stamp(path: &Path) -> Option<FileStamp> {
    let meta = std::fs::metadata(path).ok()?;
    Some(FileStamp {
        len: meta.len(),
        modified: meta.modified().ok(),
    })
}

/// Whether a name is a temporary or partial file that must never be loaded.
pub(crate) fn is_temporary(name: &str) -> bool {
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

/// The release files of `table` in the data directory `dir`, newest first,
/// with their paths: DB-IP CSV
/// (`dbip-country*.csv[.gz]`, `dbip-asn*.csv[.gz]`, `asn*.csv[.gz]`) or MMDB
/// (`dbip-*-lite-*.mmdb[.gz]`, `GeoLite2-{Country,ASN,City}*.mmdb[.gz]`; city:
/// MMDB only). Newest means greatest name, which for DB-IP's
/// `...-YYYY-MM...` names is the latest month. They are read from the unit
/// `current` points at, then from `dir` itself ([`super::unit::read_dirs`]);
/// of two files of the same name, the unit's comes first.
pub(crate) fn candidates(dir: &Path, table: Table) -> Result<Vec<(String, PathBuf)>, GeoError> {
    let mut found = Vec::new();
    for (order, from) in super::unit::read_dirs(dir).into_iter().enumerate() {
        let entries = std::fs::read_dir(&from).map_err(|e| {
            file_error(
                &from.display().to_string(),
                format!("cannot read directory: {e}"),
            )
        })?;
        found.extend(
            entries
                .filter_map(|e| e.ok())
                .filter(|e| std::fs::metadata(e.path()).is_ok_and(|m| m.is_file()))
                .filter_map(|e| Some((e.file_name().into_string().ok()?, e.path())))
                .filter(|(n, _)| !is_temporary(n))
                .filter(|(n, _)| {
                    let exts: &[&str] = if table == Table::City {
                        &[".mmdb", ".mmdb.gz"]
                    } else {
                        &[".csv", ".csv.gz", ".mmdb", ".mmdb.gz"]
                    };
                    exts.iter().any(|ext| n.ends_with(ext))
                })
                .filter(|(n, _)| table.prefixes().iter().any(|p| n.starts_with(p)))
                .map(|(n, p)| (std::cmp::Reverse(n), order, p)),
        );
    }
    found.sort();
    Ok(found.into_iter().map(|(n, _, p)| (n.0, p)).collect())
}

/// Whether `name` is an MMDB (plain or gzipped).
pub(crate) fn is_mmdb(name: &str) -> bool {
    name.ends_with(".mmdb") || name.ends_with(".mmdb.gz")
}

/// Opens a file for reading lines, decompressing it if it starts with the
/// gzip magic (every member's CRC and length are checked at its end).
/// Errors name the file by `name`, never by its path.
pub(crate) fn open(path: &Path, name: &str) -> Result<Box<dyn BufRead + Send>, GeoError> {
    let mut file = File::open(path).map_err(|e| file_error(name, format!("cannot open: {e}")))?;
    let mut magic = [0u8; 2];
    let n = file
        .read(&mut magic)
        .map_err(|e| file_error(name, format!("cannot read: {e}")))?;
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

/// The marker that opens an MMDB's metadata section, near the end of the file.
const MMDB_MARKER: &[u8] = b"\xab\xcd\xefMaxMind.com";
/// How far from the end the metadata marker may be.
const MMDB_METADATA_MAX: usize = 128 << 10;

/// The whole MMDB file, decompressed if gzipped, at most the policy's cap;
/// refused as incomplete without its metadata marker.
pub(crate) fn read_all(path: &Path, name: &str, policy: &Policy) -> Result<Vec<u8>, GeoError> {
    let too_large = || {
        GeoError::Data(DataError::TooLarge {
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
        .map_err(|e| DataError::read(name, e))?;
    if bytes.len() as u64 > policy.max_unpacked_bytes {
        return Err(too_large());
    }
    let tail = &bytes[bytes.len().saturating_sub(MMDB_METADATA_MAX)..];
    if !tail.windows(MMDB_MARKER.len()).any(|w| w == MMDB_MARKER) {
        return Err(GeoError::Data(DataError::Incomplete {
            file: name.to_owned(),
            reason: "no MaxMind metadata marker at the end: not a MaxMind database, or cut short"
                .into(),
        }));
    }
    Ok(bytes)
}

/// The `YYYY-MM` (or `YYYY-MM-DD`) in a DB-IP file name.
pub(crate) fn release_date(name: &str) -> Option<String> {
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

/// How far in the future a release's date may be: DB-IP dates a release
/// by its month, published on the first, and clocks and zones differ.
pub(crate) const FUTURE_DAYS: i64 = 2;

/// Refuses a file named as a release dated more than [`FUTURE_DAYS`] after
/// today (a month: its first day): the newest name wins, so one such file
/// would pin the data for good (`update --month 2099-01`, issue 33).
pub(crate) fn check_not_future(name: &str) -> Result<(), GeoError> {
    let Some(date) = release_date(name) else {
        return Ok(());
    };
    let day = if date.len() == 7 {
        format!("{date}-01")
    } else {
        date.clone()
    };
    let latest = (chrono::Utc::now() + chrono::Duration::days(FUTURE_DAYS))
        .format("%Y-%m-%d")
        .to_string();
    if day > latest {
        return Err(file_error(
            name,
            format!(
                "dated {date}, more than {FUTURE_DAYS} days in the future (latest allowed \
                 {latest}): refused, so that it cannot pin the data"
            ),
        ));
    }
    Ok(())
}

/// The day `path` was last modified, for a file whose name has no date.
pub(crate) fn modified_date(path: &Path) -> Option<String> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    let date: chrono::DateTime<chrono::Utc> = modified.into();
    Some(date.format("%Y-%m-%d").to_string())
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
        let names = |t| -> Vec<String> {
            candidates(&dir, t)
                .unwrap()
                .into_iter()
                .map(|(n, _)| n)
                .collect()
        };
        assert_eq!(
            names(Table::Asn),
            ["dbip-asn-lite-2030-02.csv", "dbip-asn-lite-2030-01.csv.gz"]
        );
        // A city database is an MMDB.
        assert!(names(Table::City).is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
