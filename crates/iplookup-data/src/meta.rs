//! The metadata block of a snapshot: where each embedded table came from and
//! what importing it found, as `table.field=value` lines (`country.rows=…`,
//! `asn.defect.overlap=1`, `asn.note=line 399117: …`). The build script writes
//! it; the service reads it back for `/healthz` and `--version`.

use crate::import::ImportStats;
use crate::policy::Defect;

/// Where one embedded table came from and what importing it found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceMeta {
    /// The committed file it was read from.
    pub file: String,
    /// The package it came from (`npm NAME@VERSION`).
    pub source: String,
    /// Release date (`YYYY-MM-DD`).
    pub date: String,
    pub stats: ImportStats,
}

/// Appends the lines of the table `key` (`country`, `asn`).
pub fn write(out: &mut String, key: &str, source: &SourceMeta) {
    let stats = &source.stats;
    out.push_str(&format!(
        "{key}.file={}\n{key}.source={}\n{key}.date={}\n{key}.rows={}\n{key}.trimmed={}\n{key}.skipped={}\n",
        source.file, source.source, source.date, stats.rows, stats.trimmed, stats.skipped
    ));
    for kind in Defect::ALL {
        let count = stats.defects.get(kind);
        out.push_str(&format!("{key}.defect.{}={count}\n", kind.name()));
    }
    for note in &stats.notes {
        out.push_str(&format!("{key}.note={note}\n"));
    }
}

/// Reads back the lines of the table `key`; unknown lines are ignored and an
/// unreadable count reads as zero (the block is written by the build script).
pub fn read(meta: &str, key: &str) -> SourceMeta {
    let mut source = SourceMeta::default();
    let lines = meta.lines().filter_map(|line| {
        let (name, value) = line.split_once('=')?;
        let (table, field) = name.split_once('.')?;
        (table == key).then_some((field, value))
    });
    for (field, value) in lines {
        let count = || value.parse().unwrap_or(0);
        let stats = &mut source.stats;
        match field {
            "file" => source.file = value.to_owned(),
            "source" => source.source = value.to_owned(),
            "date" => source.date = value.to_owned(),
            "rows" => stats.rows = count(),
            "trimmed" => stats.trimmed = count(),
            "skipped" => stats.skipped = count(),
            "note" => stats.notes.push(value.to_owned()),
            other => {
                let kind = other
                    .strip_prefix("defect.")
                    .and_then(|name| Defect::ALL.into_iter().find(|d| d.name() == name));
                if let Some(kind) = kind {
                    stats.defects.set(kind, count());
                }
            }
        }
    }
    source
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_written_reads_back() {
        let mut stats = ImportStats {
            rows: 12,
            ..ImportStats::default()
        };
        stats.defect(Defect::Overlap, 7, "overlaps the previous row");
        let asn = SourceMeta {
            file: "data/asn.csv.gz".into(),
            source: "npm @ip-location-db/asn@2.3".into(),
            date: "2026-06-17".into(),
            stats,
        };
        let mut out = String::new();
        write(&mut out, "country", &SourceMeta::default());
        write(&mut out, "asn", &asn);
        assert_eq!(read(&out, "asn"), asn);
        assert_eq!(read(&out, "country"), SourceMeta::default());
        assert!(out.contains("asn.defect.overlap_trimmed=1\n"), "{out}");
    }
}
