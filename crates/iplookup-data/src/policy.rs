//! The one rule for data releases, shared by the build script (the embedded
//! data), `serve --data-dir` (start and reload), `lookup --data-dir` and
//! `iplookup update`: which defects are repaired and counted, how many a
//! release may hold before it is refused, how far its row count may move from
//! the release it would replace, and how large its files may be.
//!
//! The bounds a file must keep whatever it holds, the same for CSV and MMDB
//! ([`Bound`]): strings of at most [`MAX_STRING_BYTES`], at most
//! [`MAX_NETWORKS`] networks (rows) per file ([`CITY_NETWORKS_FACTOR`] times
//! as many in a city file), at most [`MAX_AS_PREFIXES`] CIDR prefixes for
//! one AS, and the address space it covers per family at least
//! [`MIN_COVERAGE`] of the release it would replace, whatever the formats (at
//! start: the embedded data; [`Coverage`]; a first city release: of the
//! country table serving).

use std::fmt;

/// The kinds of defect a release may hold, each repaired as its doc says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Defect {
    /// A row that starts inside the previous row: the earlier row wins, the
    /// later one starts after it (the embedded ASN table's `215.0.0.0/16`).
    Overlap,
    /// A row wholly inside earlier rows: dropped.
    Inside,
    /// A row that starts before the previous row started: dropped.
    Unsorted,
    /// A row that does not parse (field count, quoting, address, reversed
    /// range, country code not two letters or not in ISO 3166, AS number,
    /// city coordinates not finite or out of range, not UTF-8): dropped.
    Unreadable,
    /// A row every address of which lies in a special-purpose block that is
    /// not globally reachable (`10.0.0.0/8`, `127.0.0.0/8`, `2001:db8::/32`):
    /// no lookup reads it, and AS, country and prefix pages would list it
    /// (`crate::special`). Dropped.
    Special,
}

impl Defect {
    /// Every kind, in report order.
    pub const ALL: [Defect; 5] = [
        Defect::Overlap,
        Defect::Inside,
        Defect::Unsorted,
        Defect::Unreadable,
        Defect::Special,
    ];

    /// The name used in `/healthz` and the logs.
    pub fn name(self) -> &'static str {
        match self {
            Defect::Overlap => "overlap_trimmed",
            Defect::Inside => "inside_dropped",
            Defect::Unsorted => "unsorted_dropped",
            Defect::Unreadable => "unreadable_dropped",
            Defect::Special => "special_dropped",
        }
    }
}

/// Defects counted per kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Defects([u64; Defect::ALL.len()]);

impl Defects {
    /// Counts one defect of `kind`.
    pub fn add(&mut self, kind: Defect) {
        self.0[kind as usize] += 1;
    }

    /// Sets the count of `kind` (from a snapshot's metadata).
    pub fn set(&mut self, kind: Defect, count: u64) {
        self.0[kind as usize] = count;
    }

    /// How many of `kind`.
    pub fn get(&self, kind: Defect) -> u64 {
        self.0[kind as usize]
    }

    /// All defects.
    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }

    /// Rows repaired by trimming (kept).
    pub fn trimmed(&self) -> u64 {
        self.get(Defect::Overlap)
    }

    /// Rows dropped.
    pub fn skipped(&self) -> u64 {
        self.total() - self.trimmed()
    }
}

/// The share of a release's rows that may be defective.
pub const MAX_DEFECT_SHARE: f64 = 0.001;
/// Defects always allowed, whatever the size of the file.
pub const DEFECT_FLOOR: u64 = 10;
/// The default row-count window against the release being replaced.
pub const ROW_RATIO: (f64, f64) = (0.8, 1.5);
/// The most a data file may hold once decompressed (CSV or MMDB), 1 GiB:
/// DB-IP's largest Lite file (city MMDB) is about a quarter of it.
pub const MAX_UNPACKED_BYTES: u64 = 1 << 30;
/// The longest CSV line read (a DB-IP row is under 200 bytes).
pub const MAX_LINE_BYTES: usize = 64 << 10;
/// The longest string value a file may hold (an organisation or city name;
/// DB-IP's longest is under 100 bytes): every answer that shows it stays small.
pub const MAX_STRING_BYTES: usize = 256;
/// The most networks (CSV rows, MMDB networks) a country or ASN file may
/// hold: DB-IP's Lite files hold under a million rows, their MMDB forms a
/// few million networks.
pub const MAX_NETWORKS: u64 = 4_000_000;
/// A city file may hold this many times [`Policy::max_networks`].
pub const CITY_NETWORKS_FACTOR: u64 = 5;
/// The most CIDR prefixes one AS may expand to (per release, both families):
/// the embedded release's largest AS has fewer than 15,000.
pub const MAX_AS_PREFIXES: u64 = 100_000;
/// The share of the reference's address space (per family) a release must cover.
pub const MIN_COVERAGE: f64 = 0.5;

/// The rule applied to every release.
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    /// Defects allowed: at most `max(DEFECT_FLOOR, share × rows read)`;
    /// `None` accepts any number (`--skip-bad-rows`). Defects are repaired
    /// and counted either way.
    pub max_defect_share: Option<f64>,
    /// A release is refused when its row count is outside
    /// `min × reference ..= max × reference`; `None` turns the check off.
    pub row_ratio: Option<(f64, f64)>,
    /// The most a file may hold decompressed.
    pub max_unpacked_bytes: u64,
    /// The longest string value (bytes).
    pub max_string_bytes: usize,
    /// The most networks (rows) a country or ASN file may hold; a city file
    /// [`CITY_NETWORKS_FACTOR`] times as many.
    pub max_networks: u64,
    /// The most CIDR prefixes one AS may expand to.
    pub max_as_prefixes: u64,
    /// A release must cover at least this share of its references' address
    /// space, per family; `None` turns the check off (`--release-row-ratio any`).
    pub min_coverage: Option<f64>,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            max_defect_share: Some(MAX_DEFECT_SHARE),
            row_ratio: Some(ROW_RATIO),
            max_unpacked_bytes: MAX_UNPACKED_BYTES,
            max_string_bytes: MAX_STRING_BYTES,
            max_networks: MAX_NETWORKS,
            max_as_prefixes: MAX_AS_PREFIXES,
            min_coverage: Some(MIN_COVERAGE),
        }
    }
}

/// The address space a release covers: addresses with data, per family.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Coverage {
    pub v4: u128,
    pub v6: u128,
}

/// A bound of [`Policy`] a file broke, and by how much.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bound {
    /// A string value longer than [`Policy::max_string_bytes`].
    String {
        /// What it is and where (`the organisation of AS64500`).
        what: String,
        bytes: usize,
        limit: usize,
    },
    /// More networks than [`Policy::max_networks`] (counted up to the first past it).
    Networks { networks: u64, limit: u64 },
    /// One AS expands to more CIDR prefixes than [`Policy::max_as_prefixes`].
    AsPrefixes { asn: u32, prefixes: u64, limit: u64 },
    /// Across formats (CSV against MMDB), the CIDR networks of the data
    /// (`RangeTable::networks`) outside `min..=max` (no `max`: a floor, that
    /// of a first city release) of a reference's.
    NetworkCount {
        networks: u64,
        min: u64,
        max: Option<u64>,
        /// What it was compared with, and its networks.
        against: String,
        reference: u64,
    },
    /// Less address space than the share of a reference.
    Coverage {
        /// `IPv4` or `IPv6`.
        family: &'static str,
        covers: u128,
        /// What it was compared with (`the release it would replace`).
        against: String,
        reference: u128,
        /// The share asked, in percent.
        percent: u32,
    },
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Bound::String { what, bytes, limit } => write!(
                f,
                "{what} is {bytes} bytes long, longer than the {limit} bytes a string may have"
            ),
            Bound::Networks { networks, limit } => write!(
                f,
                "holds more than {limit} networks (stopped counting at {networks}; \
                 --max-data-networks)"
            ),
            Bound::AsPrefixes {
                asn,
                prefixes,
                limit,
            } => write!(
                f,
                "AS{asn} expands to {prefixes} CIDR prefixes, more than the {limit} one AS may have"
            ),
            Bound::NetworkCount {
                networks,
                min,
                max,
                against,
                reference,
            } => {
                write!(f, "its data splits into {networks} CIDR networks, ")?;
                let any = "--release-row-ratio any turns this off";
                match max {
                    Some(max) => write!(
                        f,
                        "outside {min}..{max} ({against} splits into {reference}; {any})"
                    ),
                    None => write!(
                        f,
                        "fewer than {min}: {against} ({reference} networks; {any})"
                    ),
                }
            }
            Bound::Coverage {
                family,
                covers,
                against,
                reference,
                percent,
            } => write!(
                f,
                "covers {covers} {family} addresses, less than {percent}% of the {reference} \
                 {against} covers (a collapsed release? --release-row-ratio any turns this off)"
            ),
        }
    }
}

/// Why a release breaks the rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Violation {
    /// More defects than allowed.
    Defects {
        defects: u64,
        rows: u64,
        allowed: u64,
        /// The first defect, as `line N: reason`.
        first: Option<String>,
    },
    /// The row count moved too far from the reference.
    RowCount {
        rows: u64,
        reference: u64,
        min: u64,
        max: u64,
    },
    /// A bound every file must keep.
    Bound(Bound),
}

impl std::error::Error for Violation {}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::Defects {
                defects,
                rows,
                allowed,
                first,
            } => {
                write!(
                    f,
                    "{defects} of {rows} rows are defective, more than the {allowed} allowed \
                     (0.1% of rows, at least {DEFECT_FLOOR}); refusing"
                )?;
                if let Some(first) = first {
                    write!(f, " (first: {first})")?;
                }
                Ok(())
            }
            Violation::RowCount {
                rows,
                reference,
                min,
                max,
            } => write!(
                f,
                "{rows} rows, outside {min}..{max} (the release it would replace has \
                 {reference}); refusing"
            ),
            Violation::Bound(bound) => write!(f, "{bound}; refusing"),
        }
    }
}

impl Policy {
    /// Defects allowed among `read` rows (`u64::MAX`: no limit).
    pub fn allowed_defects(&self, read: u64) -> u64 {
        match self.max_defect_share {
            Some(share) => DEFECT_FLOOR.max((read as f64 * share) as u64),
            None => u64::MAX,
        }
    }

    /// Refuses a file holding more defects than allowed.
    pub fn check_defects(
        &self,
        defects: &Defects,
        rows: u64,
        first: Option<&str>,
    ) -> Result<(), Violation> {
        let read = rows + defects.skipped();
        let allowed = self.allowed_defects(read);
        if defects.total() > allowed {
            return Err(Violation::Defects {
                defects: defects.total(),
                rows: read,
                allowed,
                first: first.map(str::to_owned),
            });
        }
        Ok(())
    }

    /// Refuses a release whose row count is outside the window around `reference`.
    pub fn check_rows(&self, rows: u64, reference: u64) -> Result<(), Violation> {
        let Some((lo, hi)) = self.row_ratio else {
            return Ok(());
        };
        let min = (reference as f64 * lo).ceil() as u64;
        let max = (reference as f64 * hi).floor() as u64;
        if rows < min || rows > max {
            return Err(Violation::RowCount {
                rows,
                reference,
                min,
                max,
            });
        }
        Ok(())
    }
}

impl Policy {
    /// Refuses a string value longer than the cap; `what` names it.
    pub fn check_string(&self, what: impl FnOnce() -> String, text: &str) -> Result<(), Violation> {
        if text.len() > self.max_string_bytes {
            return Err(Violation::Bound(Bound::String {
                what: what(),
                bytes: text.len(),
                limit: self.max_string_bytes,
            }));
        }
        Ok(())
    }

    /// The most networks a file of a city table (`city`) or another may hold.
    pub fn networks_limit(&self, city: bool) -> u64 {
        match city {
            true => self.max_networks.saturating_mul(CITY_NETWORKS_FACTOR),
            false => self.max_networks,
        }
    }

    /// Refuses `networks` past [`Policy::networks_limit`].
    pub fn check_networks(&self, networks: u64, city: bool) -> Result<(), Violation> {
        let limit = self.networks_limit(city);
        if networks > limit {
            return Err(Violation::Bound(Bound::Networks { networks, limit }));
        }
        Ok(())
    }

    /// Refuses an AS expanding to more prefixes than allowed.
    pub fn check_as_prefixes(&self, asn: u32, prefixes: u64) -> Result<(), Violation> {
        if prefixes > self.max_as_prefixes {
            return Err(Violation::Bound(Bound::AsPrefixes {
                asn,
                prefixes,
                limit: self.max_as_prefixes,
            }));
        }
        Ok(())
    }

    /// Refuses a release covering, in either family, less than the share of
    /// `reference` that the policy asks (a family the reference does not
    /// cover is not judged). `against` names the reference.
    pub fn check_coverage(
        &self,
        new: Coverage,
        reference: Coverage,
        against: &str,
    ) -> Result<(), Violation> {
        let Some(share) = self.min_coverage else {
            return Ok(());
        };
        for (family, covers, of) in [
            ("IPv4", new.v4, reference.v4),
            ("IPv6", new.v6, reference.v6),
        ] {
            if (covers as f64) < of as f64 * share {
                return Err(Violation::Bound(Bound::Coverage {
                    family,
                    covers,
                    against: against.to_owned(),
                    reference: of,
                    percent: (share * 100.0).round() as u32,
                }));
            }
        }
        Ok(())
    }
}

/// Reads a `--release-row-ratio` value: `MIN..MAX` (0 <= MIN <= 1 <= MAX), or
/// `any` for no check.
pub fn parse_row_ratio(text: &str) -> Result<Option<(f64, f64)>, String> {
    if text.eq_ignore_ascii_case("any") {
        return Ok(None);
    }
    let bad = || format!("{text:?} is not MIN..MAX (e.g. 0.8..1.5) or \"any\"");
    let (lo, hi) = text.split_once("..").ok_or_else(bad)?;
    let lo: f64 = lo.trim().parse().map_err(|_| bad())?;
    let hi: f64 = hi.trim().parse().map_err(|_| bad())?;
    if !(0.0..=1.0).contains(&lo) || !(1.0..=1000.0).contains(&hi) {
        return Err(format!(
            "{text:?}: MIN must be between 0 and 1 and MAX between 1 and 1000"
        ));
    }
    Ok(Some((lo, hi)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defects_up_to_the_floor_or_the_share_are_allowed() {
        let p = Policy::default();
        assert_eq!(p.allowed_defects(100), 10);
        assert_eq!(p.allowed_defects(515_158), 515);
        let mut d = Defects::default();
        d.add(Defect::Overlap);
        assert!(p.check_defects(&d, 515_158, None).is_ok());
        for _ in 0..10 {
            d.add(Defect::Unreadable);
        }
        let err = p.check_defects(&d, 90, Some("line 3: x")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "11 of 100 rows are defective, more than the 10 allowed (0.1% of rows, at least 10); \
             refusing (first: line 3: x)"
        );
        let lax = Policy {
            max_defect_share: None,
            ..Policy::default()
        };
        assert!(lax.check_defects(&d, 90, None).is_ok());
        assert_eq!((d.trimmed(), d.skipped(), d.total()), (1, 10, 11));
    }

    #[test]
    fn row_counts_outside_the_window_are_refused() {
        let p = Policy::default();
        assert!(p.check_rows(80, 100).is_ok());
        assert!(p.check_rows(150, 100).is_ok());
        assert_eq!(
            p.check_rows(1, 515_158).unwrap_err().to_string(),
            "1 rows, outside 412127..772737 (the release it would replace has 515158); refusing"
        );
        assert!(p.check_rows(151, 100).is_err());
        let off = Policy {
            row_ratio: None,
            ..Policy::default()
        };
        assert!(off.check_rows(1, 515_158).is_ok());
    }

    #[test]
    fn strings_networks_and_as_prefixes_past_their_caps_are_refused() {
        let p = Policy::default();
        let name = "x".repeat(1_000_000);
        assert!(p.check_string(|| "x".into(), &"y".repeat(256)).is_ok());
        assert_eq!(
            p.check_string(|| "the city name of 1.2.3.0/24".into(), &name)
                .unwrap_err()
                .to_string(),
            "the city name of 1.2.3.0/24 is 1000000 bytes long, longer than the 256 bytes a \
             string may have; refusing"
        );
        assert!(p.check_networks(4_000_000, false).is_ok());
        assert_eq!(
            p.check_networks(4_000_001, false).unwrap_err().to_string(),
            "holds more than 4000000 networks (stopped counting at 4000001; \
             --max-data-networks); refusing"
        );
        assert!(p.check_networks(16_700_000, false).is_err());
        assert!(p.check_networks(16_700_000, true).is_ok());
        assert!(p.check_networks(20_000_001, true).is_err());
        assert!(p.check_as_prefixes(64500, 100_000).is_ok());
        assert_eq!(
            p.check_as_prefixes(64500, 128_774_000)
                .unwrap_err()
                .to_string(),
            "AS64500 expands to 128774000 CIDR prefixes, more than the 100000 one AS may \
             have; refusing"
        );
    }

    #[test]
    fn a_release_covering_too_little_space_is_refused_per_family() {
        let p = Policy::default();
        let whole = Coverage {
            v4: 3_700_000_000,
            v6: 1 << 120,
        };
        // A million /28s: 1/256 of IPv4.
        let slivers = Coverage {
            v4: 1_000_000 * 16,
            v6: 1 << 120,
        };
        assert_eq!(
            p.check_coverage(slivers, whole, "the embedded release")
                .unwrap_err()
                .to_string(),
            "covers 16000000 IPv4 addresses, less than 50% of the 3700000000 the embedded \
             release covers (a collapsed release? --release-row-ratio any turns this off); \
             refusing"
        );
        let no_v6 = Coverage {
            v4: 3_700_000_000,
            v6: 1,
        };
        let err = p.check_coverage(no_v6, whole, "x").unwrap_err();
        assert!(
            err.to_string().starts_with("covers 1 IPv6 addresses"),
            "{err}"
        );
        assert!(p.check_coverage(whole, whole, "x").is_ok());
        // A reference without IPv6 judges IPv4 only.
        let v4_only = Coverage { v4: 100, v6: 0 };
        assert!(
            p.check_coverage(Coverage { v4: 60, v6: 0 }, v4_only, "x")
                .is_ok()
        );
        let off = Policy {
            min_coverage: None,
            ..Policy::default()
        };
        assert!(off.check_coverage(slivers, whole, "x").is_ok());
    }

    #[test]
    fn row_ratio_values_are_range_checked() {
        assert_eq!(parse_row_ratio("0.8..1.5"), Ok(Some((0.8, 1.5))));
        assert_eq!(parse_row_ratio("any"), Ok(None));
        assert!(parse_row_ratio("1.5..0.8").is_err());
        assert!(parse_row_ratio("0.8").is_err());
        assert!(parse_row_ratio("-1..2").is_err());
        assert!(parse_row_ratio("0..1e9").is_err());
    }
}
