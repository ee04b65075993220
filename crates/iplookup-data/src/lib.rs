//! iplookup-data: the address tables of iplookup, how they are built from
//! DB-IP CSV files, and the binary snapshot that carries them into the binary.
//!
//! The service's build script uses this crate to turn the committed CSV files
//! into the embedded snapshot; the service uses it to read that snapshot back
//! in place and to load releases from a data directory. Both go through the
//! same readers and the same [`policy`], so the embedded data passes exactly
//! the validation a file given with `--data-dir` does.
//!
//! The crate is pure and synchronous and depends on `std`, `bytemuck` and
//! `thiserror` alone: it reads from any `BufRead` and knows nothing of files,
//! directories, MMDB, country metadata or HTTP. Those stay in the service's
//! `geo` module (the MMDB reader needs `maxminddb` and `serde`, which a build
//! dependency would compile a second time for the build script).
//!
//! # Layout
//!
//! Lowest first; a module imports only modules above it in this list
//! (`scripts/layers` checks it):
//!
//! - [`text`]: Unicode's invisible and format characters.
//! - [`special`]: the IANA special-purpose blocks; rows wholly inside the
//!   space that is not globally reachable.
//! - [`prefetch`]: a hint that a value will be read soon.
//! - [`rows`]: one CSV line into a row (`start,end,CC`, `start,end,asn,"org"`).
//! - [`policy`]: the one rule for releases: defects repaired and counted, limits.
//! - [`ranges`]: range tables (sorted starts, payload ids, a search directory).
//! - [`index`]: the country and ASN tables merged into one lookup table.
//! - [`error`]: [`DataError`], the one error type of the crate.
//! - [`networks`]: AS numbers and organisation names, interned.
//! - [`import`]: what reading a file hands over, whatever its format: arrays
//!   and [`ImportStats`], shared by the CSV reader here and the MMDB reader.
//! - [`csv`]: a whole DB-IP CSV file into arrays, validating every row.
//! - [`snapshot`]: the binary snapshot format (encode, decode in place).
//! - [`meta`]: the snapshot's metadata block (sources and import counts).
//! - [`tables`]: a release's tables assembled and checked, from a snapshot or
//!   from arrays.

pub mod csv;
pub mod error;
pub mod import;
pub mod index;
pub mod meta;
pub mod networks;
pub mod policy;
pub mod prefetch;
pub mod ranges;
pub mod rows;
pub mod snapshot;
pub mod special;
pub mod tables;
pub mod text;

pub use error::DataError;
pub use import::ImportStats;
