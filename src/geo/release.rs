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
    /// A digest of the file's bytes as read (of the embedded snapshot for
    /// the embedded data): the release's identity in `ETag`s ([`Release::tag`]).
    pub digest: u64,
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
            digest: 0,
        }
    }
}

impl From<SourceMeta> for SourceInfo {
    fn from(m: SourceMeta) -> SourceInfo {
        SourceInfo::new(m.file, m.source, m.date, m.stats)
    }
}

/// A digest of `bytes` (SipHash with fixed keys, chunk by chunk through
/// [`Digest::write`]): what tells two versions of a release apart.
#[derive(Debug, Clone, Default)]
pub(crate) struct Digest(std::hash::DefaultHasher);

impl Digest {
    pub(crate) fn write(&mut self, bytes: &[u8]) {
        std::hash::Hasher::write(&mut self.0, bytes);
    }

    pub(crate) fn finish(&self) -> u64 {
        std::hash::Hasher::finish(&self.0)
    }

    /// The digest of `bytes` in one piece.
    pub(crate) fn of(bytes: &[u8]) -> u64 {
        let mut d = Digest::default();
        d.write(bytes);
        d.finish()
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

    /// A short identifier of the data, for `ETag`s: the country release's
    /// date, then a digest of every table's content ([`SourceInfo::digest`])
    /// with its date and row count, so that a release republished under the
    /// same date and row count with other content gets another tag.
    pub fn tag(&self) -> String {
        use std::hash::Hasher;
        // Fixed keys: the same release gives the same tag in every replica.
        let mut h = std::hash::DefaultHasher::new();
        let tables = [Some(&self.country), Some(&self.asn), self.city.as_ref()];
        for info in tables.into_iter().flatten() {
            h.write_u64(info.digest);
            h.write(info.date.as_bytes());
            h.write_u8(0);
            h.write_u64(info.rows);
        }
        format!("{}-{:016x}", self.country.date, h.finish())
    }
}
