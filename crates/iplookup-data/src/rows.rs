//! Rows of the DB-IP CSV files: `start,end,country` and `start,end,asn,"organisation"`.
//!
//! This module only splits and parses one line at a time; it knows nothing of
//! tables or files.

use std::fmt;
use std::net::IpAddr;

use crate::special::{self, Held};

/// Why a line of a data file was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowError {
    /// The line does not have the number of comma-separated fields expected.
    FieldCount { expected: usize, found: usize },
    /// A quoted field is not closed, or a quote appears in the middle of a field.
    BadQuoting,
    /// The start or end column is not an IP address.
    BadAddress(String),
    /// Start and end are of different address families.
    MixedFamilies,
    /// The range ends before it starts.
    Reversed,
    /// The country code is not two upper-case ASCII letters.
    BadCountry(String),
    /// The country code is well formed but names no country of ISO 3166
    /// (the countries table, `data/countries.tsv`): `ZZ`, `XX`.
    UnknownCountry(String),
    /// A city's coordinates are not finite or out of range (latitude
    /// -90..=90, longitude -180..=180), as written.
    BadCoordinates(String),
    /// The AS number is not an integer between 0 and 4294967295.
    BadAsn(String),
    /// Every address of the row lies in a block that is not globally
    /// reachable: no lookup reads it ([`crate::special`]).
    Special(Held),
    /// The row starts before the previous row ended.
    Overlap,
    /// The row starts before the previous row started.
    Unsorted,
}

impl std::error::Error for RowError {}

impl fmt::Display for RowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RowError::FieldCount { expected, found } => {
                write!(f, "expected {expected} fields, found {found}")
            }
            RowError::BadQuoting => f.write_str("unbalanced or misplaced double quote"),
            RowError::BadAddress(s) => write!(f, "{s:?} is not an IP address"),
            RowError::MixedFamilies => {
                f.write_str("start and end are of different address families")
            }
            RowError::Reversed => f.write_str("range end is before its start"),
            RowError::BadCountry(s) => write!(f, "{s:?} is not a two-letter country code"),
            RowError::UnknownCountry(s) => {
                write!(
                    f,
                    "{s:?} is no country code of ISO 3166 (the countries table)"
                )
            }
            RowError::BadCoordinates(s) => write!(
                f,
                "coordinates {s} are not finite or out of range (latitude -90..90, longitude -180..180)"
            ),
            RowError::BadAsn(s) => write!(f, "{s:?} is not an AS number"),
            RowError::Special(held) => write!(
                f,
                "the range lies inside {held}, which is not globally reachable: no lookup reads it"
            ),
            RowError::Overlap => f.write_str("range overlaps the previous row"),
            RowError::Unsorted => f.write_str("row is not sorted after the previous row"),
        }
    }
}

/// An inclusive address range as the CSV states it, with family checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Span {
    V4(u32, u32),
    V6(u128, u128),
}

impl Span {
    /// The span, unless every address of it is not globally reachable
    /// ([`RowError::Special`]).
    pub fn public(self) -> Result<Span, RowError> {
        let held = match self {
            Span::V4(s, e) => special::v4_holding(s, e),
            Span::V6(s, e) => special::v6_holding(s, e),
        };
        held.map_or(Ok(self), |held| Err(RowError::Special(held)))
    }
}

/// One row of a country file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountryRow {
    pub span: Span,
    /// Two upper-case ASCII letters packed big-endian (`b'D' << 8 | b'E'`).
    pub code: u16,
}

/// One row of an ASN file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsnRow {
    pub span: Span,
    pub asn: u32,
    pub organization: String,
}

/// Parses `start,end,CC` (extra trailing fields, as in DB-IP's city files, are refused).
pub fn parse_country(line: &str) -> Result<CountryRow, RowError> {
    let fields = split_csv(line)?;
    expect_fields(&fields, 3)?;
    let span = parse_span(&fields[0], &fields[1])?;
    Ok(CountryRow {
        span,
        code: pack_country(&fields[2])?,
    })
}

/// Parses `start,end,asn,organisation` (the organisation may be quoted).
pub fn parse_asn(line: &str) -> Result<AsnRow, RowError> {
    let fields = split_csv(line)?;
    expect_fields(&fields, 4)?;
    let span = parse_span(&fields[0], &fields[1])?;
    let asn = fields[2]
        .parse::<u32>()
        .map_err(|_| RowError::BadAsn(fields[2].clone()))?;
    Ok(AsnRow {
        span,
        asn,
        organization: fields[3].clone(),
    })
}

/// Packs a two-letter country code, refusing anything but `[A-Z]{2}`, and a
/// code that is not in the countries table (ISO 3166 and Kosovo's `XK`).
pub fn pack_country(code: &str) -> Result<u16, RowError> {
    match code.as_bytes() {
        [a, b] if a.is_ascii_uppercase() && b.is_ascii_uppercase() => {
            if !known_countries()[usize::from(a - b'A') * 26 + usize::from(b - b'A')] {
                return Err(RowError::UnknownCountry(code.to_owned()));
            }
            Ok(u16::from(*a) << 8 | u16::from(*b))
        }
        _ => Err(RowError::BadCountry(code.to_owned())),
    }
}

/// The countries table the service names countries from (its first column).
const COUNTRIES_TSV: &str = include_str!("../../../data/countries.tsv");

/// Which of the 676 codes `AA`..`ZZ` the countries table holds.
fn known_countries() -> &'static [bool; 676] {
    static KNOWN: std::sync::OnceLock<[bool; 676]> = std::sync::OnceLock::new();
    KNOWN.get_or_init(|| {
        let mut known = [false; 676];
        for line in COUNTRIES_TSV.lines() {
            if let [a @ b'A'..=b'Z', b @ b'A'..=b'Z', b'\t', ..] = line.as_bytes() {
                known[usize::from(a - b'A') * 26 + usize::from(b - b'A')] = true;
            }
        }
        known
    })
}

/// Checks a city's coordinates: finite, latitude in -90..=90, longitude in
/// -180..=180 (either may be absent).
pub fn check_coordinates(latitude: Option<f64>, longitude: Option<f64>) -> Result<(), RowError> {
    let lat_ok = latitude.is_none_or(|v| v.is_finite() && (-90.0..=90.0).contains(&v));
    let lon_ok = longitude.is_none_or(|v| v.is_finite() && (-180.0..=180.0).contains(&v));
    if lat_ok && lon_ok {
        return Ok(());
    }
    let show = |v: Option<f64>| v.map_or("none".to_owned(), |v| v.to_string());
    Err(RowError::BadCoordinates(format!(
        "({}, {})",
        show(latitude),
        show(longitude)
    )))
}

fn expect_fields(fields: &[String], expected: usize) -> Result<(), RowError> {
    if fields.len() == expected {
        Ok(())
    } else {
        Err(RowError::FieldCount {
            expected,
            found: fields.len(),
        })
    }
}

fn parse_span(start: &str, end: &str) -> Result<Span, RowError> {
    let s = parse_ip(start)?;
    let e = parse_ip(end)?;
    let span = match (s, e) {
        (IpAddr::V4(s), IpAddr::V4(e)) => Span::V4(s.into(), e.into()),
        (IpAddr::V6(s), IpAddr::V6(e)) => Span::V6(s.into(), e.into()),
        _ => return Err(RowError::MixedFamilies),
    };
    let reversed = match span {
        Span::V4(s, e) => s > e,
        Span::V6(s, e) => s > e,
    };
    if reversed {
        Err(RowError::Reversed)
    } else {
        Ok(span)
    }
}

fn parse_ip(text: &str) -> Result<IpAddr, RowError> {
    text.parse()
        .map_err(|_| RowError::BadAddress(text.to_owned()))
}

/// Splits one CSV line (RFC 4180 quoting: `"a ""b"""` is `a "b"`).
pub fn split_csv(line: &str) -> Result<Vec<String>, RowError> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let mut fields = Vec::with_capacity(4);
    let mut chars = line.chars().peekable();
    loop {
        let mut field = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            loop {
                match chars.next() {
                    Some('"') if chars.peek() == Some(&'"') => {
                        chars.next();
                        field.push('"');
                    }
                    Some('"') => break,
                    Some(c) => field.push(c),
                    None => return Err(RowError::BadQuoting),
                }
            }
            match chars.next() {
                None => {
                    fields.push(field);
                    return Ok(fields);
                }
                Some(',') => fields.push(field),
                Some(_) => return Err(RowError::BadQuoting),
            }
        } else {
            loop {
                match chars.next() {
                    None => {
                        fields.push(field);
                        return Ok(fields);
                    }
                    Some(',') => break,
                    Some('"') => return Err(RowError::BadQuoting),
                    Some(c) => field.push(c),
                }
            }
            fields.push(field);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_quoted_fields() {
        let f = split_csv(r#"2.26.200.0,2.26.215.255,201907,"LLC ""SPUTNIK""""#).unwrap();
        assert_eq!(
            f,
            ["2.26.200.0", "2.26.215.255", "201907", "LLC \"SPUTNIK\""]
        );
        let f = split_csv(r#"1.0.0.0,1.0.0.255,13335,"Cloudflare, Inc.""#).unwrap();
        assert_eq!(f[3], "Cloudflare, Inc.");
        assert_eq!(split_csv("a,,b\r").unwrap(), ["a", "", "b"]);
    }

    #[test]
    fn refuses_bad_quoting() {
        assert_eq!(split_csv(r#"a,"b"#), Err(RowError::BadQuoting));
        assert_eq!(split_csv(r#"a,"b"c"#), Err(RowError::BadQuoting));
        assert_eq!(split_csv(r#"a,b"c"#), Err(RowError::BadQuoting));
    }

    #[test]
    fn parses_country_rows() {
        let r = parse_country("1.0.0.0,1.0.0.255,AU").unwrap();
        assert_eq!(r.span, Span::V4(0x0100_0000, 0x0100_00ff));
        assert_eq!(r.code, u16::from(b'A') << 8 | u16::from(b'U'));
        let r = parse_country("2001:200::,2001:200:ffff:ffff:ffff:ffff:ffff:ffff,JP").unwrap();
        assert!(matches!(r.span, Span::V6(_, _)));
    }

    #[test]
    fn refuses_unknown_countries_and_bad_coordinates() {
        assert_eq!(
            parse_country("1.0.0.0,1.0.0.1,ZZ"),
            Err(RowError::UnknownCountry("ZZ".into()))
        );
        assert_eq!(
            pack_country("XX"),
            Err(RowError::UnknownCountry("XX".into()))
        );
        assert!(pack_country("XK").is_ok() && pack_country("DE").is_ok());
        assert!(check_coordinates(Some(48.8), Some(2.3)).is_ok());
        assert!(check_coordinates(None, None).is_ok());
        for (lat, lon) in [
            (91.0, 0.0),
            (0.0, -180.5),
            (f64::NAN, 0.0),
            (0.0, f64::INFINITY),
        ] {
            assert!(
                check_coordinates(Some(lat), Some(lon)).is_err(),
                "{lat} {lon}"
            );
        }
    }

    #[test]
    fn refuses_bad_country_rows() {
        assert_eq!(parse_country("1.0.0.9,1.0.0.0,AU"), Err(RowError::Reversed));
        assert_eq!(
            parse_country("1.0.0.0,::1,AU"),
            Err(RowError::MixedFamilies)
        );
        assert_eq!(
            parse_country("1.0.0.0,1.0.0.1,au"),
            Err(RowError::BadCountry("au".into()))
        );
        assert_eq!(
            parse_country("1.0.0.0,1.0.0.1,AUS"),
            Err(RowError::BadCountry("AUS".into()))
        );
        assert_eq!(
            parse_country("1.0.0,1.0.0.1,AU"),
            Err(RowError::BadAddress("1.0.0".into()))
        );
        assert_eq!(
            parse_country("1.0.0.0,1.0.0.1"),
            Err(RowError::FieldCount {
                expected: 3,
                found: 2
            })
        );
    }

    #[test]
    fn parses_and_refuses_asn_rows() {
        let r = parse_asn("1.0.4.0,1.0.7.255,38803,Gtelecom Pty Ltd").unwrap();
        assert_eq!(
            (r.asn, r.organization.as_str()),
            (38803, "Gtelecom Pty Ltd")
        );
        assert_eq!(
            parse_asn("1.0.4.0,1.0.7.255,AS38803,x"),
            Err(RowError::BadAsn("AS38803".into()))
        );
        assert_eq!(
            parse_asn("1.0.4.0,1.0.7.255,4294967296,x"),
            Err(RowError::BadAsn("4294967296".into()))
        );
    }
}
