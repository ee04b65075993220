//! What reading one release file hands over, whatever its format (DB-IP CSV
//! here, MMDB in the service's `geo::mmdb`): the arrays of its tables and
//! [`ImportStats`], the neutral count of rows kept, repaired and dropped that
//! the policy judges and `/healthz` reports.

use crate::error::DataError;
use crate::networks::Networks;
use crate::policy::{Defect, Defects, Policy};

/// What reading a file found besides the rows it kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportStats {
    /// Rows kept (trimmed ones included); for an MMDB, networks.
    pub rows: u64,
    /// Rows whose start was moved past an overlapping earlier row.
    pub trimmed: u64,
    /// Rows dropped (defects), and in MMDB files networks without the data sought.
    pub skipped: u64,
    /// Defects, by kind.
    pub defects: Defects,
    /// The first few problems, as `line N: reason`, for the operator.
    pub notes: Vec<String>,
}

/// How many problems [`ImportStats::notes`] keeps.
const MAX_NOTES: usize = 20;

impl ImportStats {
    /// Counts one defect at `line` (for an MMDB: the network's number).
    pub fn defect(&mut self, kind: Defect, line: usize, what: &str) {
        self.defects.add(kind);
        if kind == Defect::Overlap {
            self.trimmed += 1;
            self.rows += 1;
        } else {
            self.skipped += 1;
        }
        if self.notes.len() < MAX_NOTES {
            self.notes.push(format!("line {line}: {what}"));
        }
    }

    /// Applies the defect limit of `policy` to the file named `file`.
    pub fn check(&self, file: &str, policy: &Policy) -> Result<(), DataError> {
        if self.rows == 0 {
            return Err(DataError::Empty {
                file: file.to_owned(),
            });
        }
        policy
            .check_defects(
                &self.defects,
                self.rows,
                self.notes.first().map(String::as_str),
            )
            .map_err(|violation| DataError::Policy {
                file: file.to_owned(),
                violation,
            })
    }
}

/// Country tables of both families: range starts and packed country codes.
#[derive(Debug, Default)]
pub struct CountryArrays {
    pub v4: (Vec<u32>, Vec<u16>),
    pub v6: (Vec<u128>, Vec<u16>),
    pub stats: ImportStats,
}

/// ASN tables of both families: range starts and network ids, and the networks.
#[derive(Debug)]
pub struct AsnArrays {
    pub v4: (Vec<u32>, Vec<u32>),
    pub v6: (Vec<u128>, Vec<u32>),
    pub networks: Networks,
    pub stats: ImportStats,
}
