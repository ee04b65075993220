//! Reading a whole DB-IP CSV file (country or ASN, IPv4 and IPv6 rows in one
//! file, as DB-IP publishes them) into range tables, validating every row.
//!
//! Defects are repaired and counted as [`Policy`] documents (an overlap is
//! trimmed, a row inside earlier rows, an unsorted or unreadable row is
//! dropped); the file is refused when it holds more defects than the policy
//! allows, naming file, count and the first defect's line. A file that does
//! not end in a newline, or whose gzip stream stops early, is taken as still
//! being written ([`DataError::Incomplete`]).

use std::io::{BufRead, Read};

use crate::error::DataError;
use crate::import::{AsnArrays, CountryArrays, ImportStats};
use crate::networks::NetworksBuilder;
use crate::policy::{Defect, MAX_LINE_BYTES, Policy};
use crate::ranges::{Pushed, TableBuilder, Value};
use crate::rows::{self, RowError, Span};

/// Reads a country file (`start,end,CC`).
pub fn read_country(
    input: impl BufRead,
    file: &str,
    policy: &Policy,
) -> Result<CountryArrays, DataError> {
    let mut v4 = TableBuilder::<u32, u16>::default();
    let mut v6 = TableBuilder::<u128, u16>::default();
    let stats = read_rows(input, file, policy, |line, _| {
        Ok(rows::parse_country(line)
            .and_then(|row| push_span(&mut v4, &mut v6, row.span.public()?, row.code)))
    })?;
    Ok(CountryArrays {
        v4: v4.finish(),
        v6: v6.finish(),
        stats,
    })
}

/// Reads an ASN file (`start,end,asn,organisation`).
pub fn read_asn(input: impl BufRead, file: &str, policy: &Policy) -> Result<AsnArrays, DataError> {
    let mut v4 = TableBuilder::<u32, u32>::default();
    let mut v6 = TableBuilder::<u128, u32>::default();
    let mut networks = NetworksBuilder::default();
    let stats = read_rows(input, file, policy, |line, number| {
        let row = match rows::parse_asn(line) {
            Ok(row) => row,
            Err(e) => return Ok(Err(e)),
        };
        if let Err(e) = row.span.public() {
            return Ok(Err(e));
        }
        policy
            .check_string(
                || format!("line {number}: the organisation of AS{}", row.asn),
                &row.organization,
            )
            .map_err(|violation| DataError::Policy {
                file: file.to_owned(),
                violation,
            })?;
        let id = networks.intern(row.asn, &row.organization);
        Ok(push_span(&mut v4, &mut v6, row.span, id))
    })?;
    Ok(AsnArrays {
        v4: v4.finish(),
        v6: v6.finish(),
        networks: networks.finish(),
        stats,
    })
}

fn push_span<V: Value>(
    v4: &mut TableBuilder<u32, V>,
    v6: &mut TableBuilder<u128, V>,
    span: Span,
    value: V,
) -> Result<Pushed, RowError> {
    match span {
        Span::V4(s, e) => v4.push(s, e, value, true),
        Span::V6(s, e) => v6.push(s, e, value, true),
    }
}

/// Feeds every non-empty line to `row` (with its number), repairing and
/// counting defects, then applies the policy's defect limit. A file with more
/// rows than the policy's network cap is refused when its first row past the
/// cap is read; `row` refuses the file by returning the outer error.
fn read_rows(
    mut input: impl BufRead,
    file: &str,
    policy: &Policy,
    mut row: impl FnMut(&str, usize) -> Result<Result<Pushed, RowError>, DataError>,
) -> Result<ImportStats, DataError> {
    let mut stats = ImportStats::default();
    let mut buf = Vec::with_capacity(256);
    let (mut number, mut total) = (0usize, 0u64);
    loop {
        buf.clear();
        number += 1;
        let n = (&mut input)
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| DataError::read(file, e))?;
        if n == 0 {
            break;
        }
        total += n as u64;
        if total > policy.max_unpacked_bytes {
            return Err(DataError::TooLarge {
                file: file.to_owned(),
                limit: policy.max_unpacked_bytes,
            });
        }
        if buf.last() != Some(&b'\n') {
            if n > MAX_LINE_BYTES {
                return Err(DataError::LongLine {
                    file: file.to_owned(),
                    line: number,
                });
            }
            return Err(DataError::Incomplete {
                file: file.to_owned(),
                reason: "the last line does not end in a newline".into(),
            });
        }
        let Ok(line) = std::str::from_utf8(&buf) else {
            stats.defect(Defect::Unreadable, number, "skipped: not UTF-8");
            continue;
        };
        let line = line.trim_end_matches('\n');
        if line.trim().is_empty() {
            continue;
        }
        policy
            .check_networks(stats.rows + 1, false)
            .map_err(|violation| DataError::Policy {
                file: file.to_owned(),
                violation,
            })?;
        match row(line, number)? {
            Ok(Pushed::Added) => stats.rows += 1,
            Ok(Pushed::Trimmed) => stats.defect(
                Defect::Overlap,
                number,
                "overlaps the previous row; earlier row kept, start moved",
            ),
            Ok(Pushed::Dropped) => {
                stats.defect(Defect::Inside, number, "lies inside earlier rows; dropped")
            }
            Err(RowError::Unsorted) => stats.defect(
                Defect::Unsorted,
                number,
                &format!("dropped: {}", RowError::Unsorted),
            ),
            Err(reason @ RowError::Special(_)) => {
                stats.defect(Defect::Special, number, &format!("dropped: {reason}"))
            }
            Err(reason) => stats.defect(Defect::Unreadable, number, &format!("dropped: {reason}")),
        }
    }
    stats.check(file, policy)?;
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    const COUNTRY: &str = "1.0.0.0,1.0.0.255,AU\n1.0.1.0,1.0.3.255,CN\n\n2001:200::,2001:200:ffff:ffff:ffff:ffff:ffff:ffff,JP\n";

    #[test]
    fn reads_both_families_from_one_file() {
        let a = read_country(COUNTRY.as_bytes(), "c.csv", &Policy::default()).unwrap();
        assert_eq!(a.stats.rows, 3);
        assert_eq!(a.v4.0, [0, 0x0100_0000, 0x0100_0100, 0x0100_0400]);
        assert_eq!(a.v6.0.len(), 3);
    }

    /// Eleven rows of `bad` after one good row: one more than the floor.
    fn too_many(bad: &str) -> String {
        let mut text = "1.0.0.0,1.0.0.255,AU\n".to_owned();
        for _ in 0..11 {
            text.push_str(bad);
            text.push('\n');
        }
        text
    }

    #[test]
    fn too_many_defects_name_file_count_and_first_line() {
        let p = Policy::default();
        let err = read_country(too_many("1.0.2.0,1.0.1.0,CN").as_bytes(), "c.csv", &p);
        assert_eq!(
            err.unwrap_err().to_string(),
            "c.csv: 11 of 12 rows are defective, more than the 10 allowed (0.1% of rows, at \
             least 10); refusing (first: line 2: dropped: range end is before its start)"
        );
        let err = read_country(too_many("1.0.0.128,1.0.1.0,CN").as_bytes(), "c.csv", &p);
        assert!(
            err.unwrap_err()
                .to_string()
                .contains("line 2: overlaps the previous row")
        );
        let unsorted =
            too_many("1.0.0.0,1.0.0.9,CN").replacen("1.0.0.0,1.0.0.255", "1.0.1.0,1.0.1.255", 1);
        let err = read_country(unsorted.as_bytes(), "c.csv", &p);
        assert!(err.unwrap_err().to_string().contains("not sorted"));
        let err = read_country(too_many("10.0.0.0,10.0.0.9,CN").as_bytes(), "c.csv", &p);
        assert!(
            err.unwrap_err()
                .to_string()
                .contains("line 2: dropped: the range lies inside 10.0.0.0/8 (Private-Use)")
        );
        // --skip-bad-rows: any number, still repaired and counted.
        let lax = Policy {
            max_defect_share: None,
            ..Policy::default()
        };
        let a = read_country(too_many("1.0.2.0,1.0.1.0,CN").as_bytes(), "c.csv", &lax).unwrap();
        assert_eq!((a.stats.rows, a.stats.skipped), (1, 11));
        assert_eq!(a.stats.defects.get(Defect::Unreadable), 11);
    }

    /// A row every address of which is not globally reachable is dropped and
    /// counted as `special_dropped`, in the country and the ASN file, in both
    /// families; a row reaching public space is kept (issue 33: such rows were
    /// listed on AS pages as "KP 100%" and counted toward the coverage floor).
    #[test]
    fn rows_in_space_that_is_not_public_are_special_defects() {
        let country = "1.0.0.0,1.0.0.255,AU\n10.0.0.0,10.0.255.255,KP\n127.0.0.0,127.255.255.255,KP\n\
                       172.16.0.0,172.31.255.255,KP\n192.0.0.0,192.0.0.255,US\n\
                       2001:db8::,2001:db8:ffff:ffff:ffff:ffff:ffff:ffff,KP\n\
                       fc00::,fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff,KP\n";
        let a = read_country(country.as_bytes(), "c.csv", &Policy::default()).unwrap();
        assert_eq!(a.stats.defects.get(Defect::Special), 5);
        // 192.0.0.0/24 holds the public 192.0.0.9 and .10: kept.
        assert_eq!((a.stats.rows, a.stats.skipped), (2, 5));
        assert_eq!(a.v6.0.len(), 1, "no IPv6 row kept");
        assert!(
            a.stats.notes[0].contains("10.0.0.0/8 (Private-Use)"),
            "{:?}",
            a.stats.notes
        );
        assert!(
            a.stats.notes[3].contains("2001:db8::/32 (Documentation)"),
            "{:?}",
            a.stats.notes
        );
        let asn = "1.0.0.0,1.0.0.255,13335,Cloudflare\n100.64.0.0,100.127.255.255,64512,CGN\n";
        let a = read_asn(asn.as_bytes(), "a.csv", &Policy::default()).unwrap();
        assert_eq!(a.stats.defects.get(Defect::Special), 1);
        assert!(
            a.stats.notes[0].contains("Shared Address Space"),
            "{:?}",
            a.stats.notes
        );
    }

    #[test]
    fn a_few_defects_are_repaired_and_counted() {
        let bad: &[u8] = b"1.0.0.0,1.0.0.255,AU\n1.0.2.0,1.0.1.0,CN\n1.0.0.128,1.0.1.0,NZ\n1.0.0.200,1.0.0.210,NZ\n\xff,x,y\n";
        let a = read_country(bad, "c.csv", &Policy::default()).unwrap();
        assert_eq!((a.stats.rows, a.stats.trimmed, a.stats.skipped), (2, 1, 3));
        assert_eq!(a.stats.defects.get(Defect::Overlap), 1);
        assert_eq!(a.stats.defects.get(Defect::Inside), 1);
        assert_eq!(a.stats.defects.get(Defect::Unreadable), 2);
        assert_eq!(a.v4.0, [0, 0x0100_0000, 0x0100_0100, 0x0100_0101]);
        assert_eq!(a.stats.notes.len(), 4);
    }

    #[test]
    fn unfinished_and_oversized_files_are_refused() {
        let p = Policy::default();
        let err = read_country("1.0.0.0,1.0.0.255,AU\n1.0.1.0,1.0".as_bytes(), "c.csv", &p);
        assert!(err.unwrap_err().is_incomplete());
        let small = Policy {
            max_unpacked_bytes: 30,
            ..Policy::default()
        };
        let err = read_country(COUNTRY.as_bytes(), "c.csv", &small).unwrap_err();
        assert!(
            matches!(err, DataError::TooLarge { limit: 30, .. }),
            "{err}"
        );
        let long = format!("1.0.0.0,1.0.0.255,AU\n{}\n", "x".repeat(MAX_LINE_BYTES + 5));
        let err = read_country(long.as_bytes(), "c.csv", &p).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("c.csv:2: line longer than {MAX_LINE_BYTES} bytes; refusing")
        );
    }

    #[test]
    fn long_names_and_too_many_rows_refuse_the_file() {
        let p = Policy::default();
        let long = format!("1.0.0.0,1.0.0.255,64500,\"{}\"\n", "x".repeat(257));
        let err = read_asn(long.as_bytes(), "a.csv", &p).unwrap_err();
        assert_eq!(
            err.to_string(),
            "a.csv: line 1: the organisation of AS64500 is 257 bytes long, longer than the \
             256 bytes a string may have; refusing"
        );
        let few = Policy {
            max_networks: 2,
            ..Policy::default()
        };
        let three = "1.0.0.0,1.0.0.255,AU\n1.0.1.0,1.0.1.255,AU\n1.0.2.0,1.0.2.255,AU\n";
        let err = read_country(three.as_bytes(), "c.csv", &few).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("c.csv: holds more than 2 networks"),
            "{err}"
        );
        assert!(read_country(&three.as_bytes()[..42], "c.csv", &few).is_ok());
    }

    #[test]
    fn refuses_an_empty_file() {
        let err = read_asn("\n\n".as_bytes(), "a.csv", &Policy::default()).unwrap_err();
        assert_eq!(err.to_string(), "a.csv: no data rows");
    }

    #[test]
    fn interns_networks() {
        let data = "1.0.0.0,1.0.0.255,13335,\"Cloudflare, Inc.\"\n1.0.4.0,1.0.7.255,13335,\"Cloudflare, Inc.\"\n";
        let a = read_asn(data.as_bytes(), "a.csv", &Policy::default()).unwrap();
        assert_eq!(a.networks.len(), 1);
        assert_eq!(a.v4.1, [0, 1, 0, 1, 0]);
    }
}
