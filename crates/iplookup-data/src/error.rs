//! The one error type of the data layer: why a release file, a snapshot or a
//! set of tables was refused. Every message names the file (never its path)
//! or the table, and says what was wrong with it.
//!
//! The reasons behind some variants are small types of their own, owned by
//! the module that finds them: [`RowError`] (one CSV row), [`Violation`] (the
//! release policy), [`TableError`] (a range table's arrays) and [`IndexError`]
//! (the merged lookup index).

use crate::index::IndexError;
use crate::policy::{MAX_LINE_BYTES, Violation};
use crate::ranges::TableError;
use crate::rows::RowError;

/// Why data could not be read or assembled.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// A row that cannot be read where no repair applies.
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
    /// The file holds more defects than the policy allows, or its row count
    /// moved too far from the release it would replace.
    #[error("{file}: {violation}")]
    Policy { file: String, violation: Violation },
    #[error("{file}: holds more than {limit} bytes once decompressed; refusing")]
    TooLarge { file: String, limit: u64 },
    #[error("{file}:{line}: line longer than {MAX_LINE_BYTES} bytes; refusing")]
    LongLine { file: String, line: usize },
    /// The file looks unfinished: still being written, or cut short.
    #[error("{file}: incomplete ({reason}); still being written?")]
    Incomplete { file: String, reason: String },
    /// A file or directory that cannot be opened, or holds what no reader expects.
    #[error("{path}: {reason}")]
    File { path: String, reason: String },
    /// Snapshot bytes that cannot be read.
    #[error("corrupt data snapshot: {0}")]
    Snapshot(&'static str),
    /// A range table's arrays that do not form a table.
    #[error("{0}: inconsistent table: {1:?}")]
    Table(&'static str, TableError),
    /// Network arrays (AS numbers, name offsets, name arena) that do not fit together.
    #[error("inconsistent network table: {0}")]
    Networks(&'static str),
    #[error("cannot build the lookup index: {0}")]
    Index(#[from] IndexError),
}

impl DataError {
    /// Whether the file looks unfinished rather than bad.
    pub fn is_incomplete(&self) -> bool {
        matches!(self, DataError::Incomplete { .. })
    }

    /// A read error of `file`; a stream that stops early (a gzip file still
    /// being written) is incomplete.
    pub fn read(file: &str, e: std::io::Error) -> DataError {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            DataError::Incomplete {
                file: file.to_owned(),
                reason: "the gzip stream ends early".into(),
            }
        } else {
            DataError::Io {
                file: file.to_owned(),
                source: e,
            }
        }
    }
}
