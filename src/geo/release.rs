//! What a database was built from: for each table the file, its source and
//! release date and what importing it found ([`SourceInfo`]), and the files
//! of the data directory that were refused ([`RefusedFile`]). `/healthz`, the
//! metrics, the `ETag`s and reloads read it.

use std::time::SystemTime;

use iplookup_data::ImportStats;
use iplookup_data::meta::{self, SourceMeta};
use iplookup_data::policy::Defects;

/// Where one table came from and what loading it found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceInfo {
    /// File it was read from (for the embedded data: the committed file).
    pub file: String,
    /// Package or download it came from.
    pub source: String,
    /// Release date (`YYYY-MM-DD` or `YYYY-MM`).
    pub date: String,
    pub rows: u64,
    pub trimmed: u64,
    pub skipped: u64,
    /// Defects repaired, by kind (see [`iplookup_data::policy::Defect`]).
    pub defects: Defects,
    pub notes: Vec<String>,
    /// Length and modification time of the file when it was read (`None`:
    /// the embedded data), so a reload keeps a table whose file is unchanged.
    pub stamp: Option<FileStamp>,
}

impl SourceInfo {
    /// A table read from `file`, with what importing it found.
    pub(crate) fn new(
        file: String,
        source: String,
        date: String,
        stats: ImportStats,
    ) -> SourceInfo {
        SourceInfo {
            file,
            source,
            date,
            rows: stats.rows,
            trimmed: stats.trimmed,
            skipped: stats.skipped,
            defects: stats.defects,
            notes: stats.notes,
            stamp: None,
        }
    }
}

impl From<SourceMeta> for SourceInfo {
    fn from(m: SourceMeta) -> SourceInfo {
        SourceInfo::new(m.file, m.source, m.date, m.stats)
    }
}

/// What identifies one version of a file: its length and modification time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    pub len: u64,
    pub modified: Option<SystemTime>,
}

/// A release file that was not loaded, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedFile {
    /// `country`, `asn` or `city`.
    pub table: &'static str,
    /// The file's name (never its path).
    pub file: String,
    pub reason: String,
    /// The file looked unfinished (still being written): it is tried again
    /// on the next change.
    pub incomplete: bool,
}

/// The releases a database was built from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Release {
    pub country: SourceInfo,
    pub asn: SourceInfo,
    /// The city database, when one is loaded.
    pub city: Option<SourceInfo>,
    /// Files of the data directory that were not loaded, and why.
    pub refused: Vec<RefusedFile>,
}

impl Release {
    /// Reads a snapshot's metadata block (see [`iplookup_data::meta`]).
    pub(crate) fn from_meta(text: &str) -> Release {
        Release {
            country: meta::read(text, "country").into(),
            asn: meta::read(text, "asn").into(),
            ..Release::default()
        }
    }

    /// A short identifier of the data, for `ETag`s: the release dates and row counts of every table.
    pub(crate) fn tag(&self) -> String {
        let city = self
            .city
            .as_ref()
            .map(|c| format!("-{}-{}", c.date, c.rows))
            .unwrap_or_default();
        format!(
            "{}-{}-{}-{}{city}",
            self.country.date, self.country.rows, self.asn.date, self.asn.rows
        )
    }
}
