//! [`GeoError`]: why a database could not be assembled. Almost always the
//! data layer's [`DataError`] (a file, a snapshot, a table); the one failure
//! of `geo`'s own is a compiled-in country table that does not parse.

use iplookup_data::DataError;

use super::countries::CountryTableError;

/// Why a database could not be assembled.
#[derive(Debug, thiserror::Error)]
pub enum GeoError {
    #[error(transparent)]
    Data(#[from] DataError),
    #[error(transparent)]
    Countries(#[from] CountryTableError),
}

impl GeoError {
    /// Whether a file looks unfinished (still being written) rather than bad.
    pub(crate) fn is_incomplete(&self) -> bool {
        matches!(self, GeoError::Data(e) if e.is_incomplete())
    }
}

/// A file or directory that cannot be used, named by `path`.
pub(crate) fn file_error(path: &str, reason: impl Into<String>) -> GeoError {
    GeoError::Data(DataError::File {
        path: path.to_owned(),
        reason: reason.into(),
    })
}
