//! The one rule for data releases, shared by the build script (the embedded
//! data), `serve --data-dir` (start and reload), `lookup --data-dir` and
//! `iplookup update`: which defects are repaired and counted, how many a
//! release may hold before it is refused, how far its row count may move from
//! the release it would replace, and how large its files may be.

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
    /// range, country code, AS number, not UTF-8): dropped.
    Unreadable,
}

impl Defect {
    /// Every kind, in report order.
    pub const ALL: [Defect; 4] = [
        Defect::Overlap,
        Defect::Inside,
        Defect::Unsorted,
        Defect::Unreadable,
    ];

    /// The name used in `/healthz` and the logs.
    pub fn name(self) -> &'static str {
        match self {
            Defect::Overlap => "overlap_trimmed",
            Defect::Inside => "inside_dropped",
            Defect::Unsorted => "unsorted_dropped",
            Defect::Unreadable => "unreadable_dropped",
        }
    }
}

/// Defects counted per kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Defects([u64; 4]);

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
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            max_defect_share: Some(MAX_DEFECT_SHARE),
            row_ratio: Some(ROW_RATIO),
            max_unpacked_bytes: MAX_UNPACKED_BYTES,
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
    fn row_ratio_values_are_range_checked() {
        assert_eq!(parse_row_ratio("0.8..1.5"), Ok(Some((0.8, 1.5))));
        assert_eq!(parse_row_ratio("any"), Ok(None));
        assert!(parse_row_ratio("1.5..0.8").is_err());
        assert!(parse_row_ratio("0.8").is_err());
        assert!(parse_row_ratio("-1..2").is_err());
        assert!(parse_row_ratio("0..1e9").is_err());
    }
}
