//! Reading a whole DB-IP CSV file (country or ASN, IPv4 and IPv6 rows in one
//! file, as DB-IP publishes them) into range tables, validating every row.
//!
//! Strict mode refuses the file at its first bad row, naming file, line and
//! reason. Lenient mode (the operator's `--skip-bad-rows`, and the embedded
//! snapshot, whose source is known to hold one overlapping pair) skips rows
//! that do not parse and resolves overlaps by keeping the earlier row.

use std::io::BufRead;

use super::networks::{Networks, NetworksBuilder};
use super::ranges::{Pushed, TableBuilder};
use super::rows::{self, RowError, Span};

/// Why a data file was refused.
#[derive(Debug, thiserror::Error)]
pub enum CsvError {
    #[error("{file}:{line}: {reason}")]
    Row {
        file: String,
        line: usize,
        reason: RowError,
    },
    #[error("{file}: cannot read: {source}")]
    Io {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}: no data rows")]
    Empty { file: String },
}

impl std::error::Error for RowError {}

/// What reading a file found besides the rows it kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CsvStats {
    /// Rows kept (trimmed ones included).
    pub rows: u64,
    /// Rows whose start was moved past an overlapping earlier row.
    pub trimmed: u64,
    /// Rows dropped: unparseable, or wholly inside earlier rows (lenient mode only).
    pub skipped: u64,
    /// The first few problems, as `line N: reason`, for the operator.
    pub notes: Vec<String>,
}

/// Country tables of both families: range starts and packed country codes.
#[derive(Debug, Default)]
pub struct CountryArrays {
    pub v4: (Vec<u32>, Vec<u16>),
    pub v6: (Vec<u128>, Vec<u16>),
    pub stats: CsvStats,
}

/// ASN tables of both families: range starts and network ids, and the networks.
#[derive(Debug)]
pub struct AsnArrays {
    pub v4: (Vec<u32>, Vec<u32>),
    pub v6: (Vec<u128>, Vec<u32>),
    pub networks: Networks,
    pub stats: CsvStats,
}

/// Reads a country file (`start,end,CC`).
pub fn read_country(
    input: impl BufRead,
    file: &str,
    lenient: bool,
) -> Result<CountryArrays, CsvError> {
    let mut v4 = TableBuilder::<u32, u16>::default();
    let mut v6 = TableBuilder::<u128, u16>::default();
    let stats = read_rows(input, file, lenient, |line| {
        let row = rows::parse_country(line)?;
        push_span(&mut v4, &mut v6, row.span, row.code, lenient)
    })?;
    Ok(CountryArrays {
        v4: v4.finish(),
        v6: v6.finish(),
        stats,
    })
}

/// Reads an ASN file (`start,end,asn,organisation`).
pub fn read_asn(input: impl BufRead, file: &str, lenient: bool) -> Result<AsnArrays, CsvError> {
    let mut v4 = TableBuilder::<u32, u32>::default();
    let mut v6 = TableBuilder::<u128, u32>::default();
    let mut networks = NetworksBuilder::default();
    let stats = read_rows(input, file, lenient, |line| {
        let row = rows::parse_asn(line)?;
        let id = networks.intern(row.asn, &row.organization);
        push_span(&mut v4, &mut v6, row.span, id, lenient)
    })?;
    Ok(AsnArrays {
        v4: v4.finish(),
        v6: v6.finish(),
        networks: networks.finish(),
        stats,
    })
}

fn push_span<V: super::ranges::Value>(
    v4: &mut TableBuilder<u32, V>,
    v6: &mut TableBuilder<u128, V>,
    span: Span,
    value: V,
    lenient: bool,
) -> Result<Pushed, RowError> {
    match span {
        Span::V4(s, e) => v4.push(s, e, value, lenient),
        Span::V6(s, e) => v6.push(s, e, value, lenient),
    }
}

/// Feeds every non-empty line to `row`, counting outcomes; stops at the first
/// error in strict mode.
fn read_rows(
    input: impl BufRead,
    file: &str,
    lenient: bool,
    mut row: impl FnMut(&str) -> Result<Pushed, RowError>,
) -> Result<CsvStats, CsvError> {
    let mut stats = CsvStats::default();
    for (index, line) in input.lines().enumerate() {
        let line = line.map_err(|source| CsvError::Io {
            file: file.to_owned(),
            source,
        })?;
        if line.trim().is_empty() {
            continue;
        }
        let number = index + 1;
        match row(&line) {
            Ok(Pushed::Added) => stats.rows += 1,
            Ok(outcome) => {
                let (what, counter) = match outcome {
                    Pushed::Trimmed => (
                        "overlaps the previous row; earlier row kept, start moved",
                        &mut stats.trimmed,
                    ),
                    _ => ("lies inside earlier rows; dropped", &mut stats.skipped),
                };
                *counter += 1;
                if outcome == Pushed::Trimmed {
                    stats.rows += 1;
                }
                note(&mut stats.notes, number, what);
            }
            Err(reason) if lenient => {
                stats.skipped += 1;
                note(&mut stats.notes, number, &format!("skipped: {reason}"));
            }
            Err(reason) => {
                return Err(CsvError::Row {
                    file: file.to_owned(),
                    line: number,
                    reason,
                });
            }
        }
    }
    if stats.rows == 0 {
        return Err(CsvError::Empty {
            file: file.to_owned(),
        });
    }
    Ok(stats)
}

fn note(notes: &mut Vec<String>, line: usize, what: &str) {
    if notes.len() < 20 {
        notes.push(format!("line {line}: {what}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const COUNTRY: &str = "1.0.0.0,1.0.0.255,AU\n1.0.1.0,1.0.3.255,CN\n\n2001:200::,2001:200:ffff:ffff:ffff:ffff:ffff:ffff,JP\n";

    #[test]
    fn reads_both_families_from_one_file() {
        let a = read_country(COUNTRY.as_bytes(), "c.csv", false).unwrap();
        assert_eq!(a.stats.rows, 3);
        assert_eq!(a.v4.0, [0, 0x0100_0000, 0x0100_0100, 0x0100_0400]);
        assert_eq!(a.v6.0.len(), 3);
    }

    #[test]
    fn strict_mode_names_file_line_and_reason() {
        let bad = "1.0.0.0,1.0.0.255,AU\n1.0.2.0,1.0.1.0,CN\n";
        let err = read_country(bad.as_bytes(), "c.csv", false).unwrap_err();
        assert_eq!(err.to_string(), "c.csv:2: range end is before its start");
        let overlap = "1.0.0.0,1.0.0.255,AU\n1.0.0.128,1.0.1.0,CN\n";
        let err = read_country(overlap.as_bytes(), "c.csv", false).unwrap_err();
        assert_eq!(err.to_string(), "c.csv:2: range overlaps the previous row");
        let unsorted = "1.0.1.0,1.0.1.255,AU\n1.0.0.0,1.0.0.9,CN\n";
        let err = read_country(unsorted.as_bytes(), "c.csv", false).unwrap_err();
        assert_eq!(
            err.to_string(),
            "c.csv:2: row is not sorted after the previous row"
        );
    }

    #[test]
    fn lenient_mode_skips_and_trims() {
        let bad = "1.0.0.0,1.0.0.255,AU\n1.0.2.0,1.0.1.0,CN\n1.0.0.128,1.0.1.0,NZ\n";
        let a = read_country(bad.as_bytes(), "c.csv", true).unwrap();
        assert_eq!((a.stats.rows, a.stats.trimmed, a.stats.skipped), (2, 1, 1));
        assert_eq!(a.v4.0, [0, 0x0100_0000, 0x0100_0100, 0x0100_0101]);
        assert_eq!(a.stats.notes.len(), 2);
    }

    #[test]
    fn refuses_an_empty_file() {
        let err = read_asn("\n\n".as_bytes(), "a.csv", true).unwrap_err();
        assert_eq!(err.to_string(), "a.csv: no data rows");
    }

    #[test]
    fn interns_networks() {
        let data = "1.0.0.0,1.0.0.255,13335,\"Cloudflare, Inc.\"\n1.0.4.0,1.0.7.255,13335,\"Cloudflare, Inc.\"\n";
        let a = read_asn(data.as_bytes(), "a.csv", false).unwrap();
        assert_eq!(a.networks.len(), 1);
        assert_eq!(a.v4.1, [0, 1, 0, 1, 0]);
    }
}
