//! The address data: country and ASN range tables, country metadata and the
//! special-purpose registry. Pure and synchronous: no I/O at lookup time.
//!
//! A [`GeoDb`] is immutable. It comes from the snapshot embedded at build time
//! ([`GeoDb::embedded`]) or from DB-IP files on disk ([`load`]); a reload builds
//! a new one and swaps it in whole.
//!
//! # Where the data layer ends
//!
//! The tables themselves, the merged lookup index, the CSV reader, the
//! release policy and the snapshot format are the crate `iplookup-data`
//! (`crates/iplookup-data`), which the build script uses too: it is re-exported
//! here under its module names (`geo::ranges`, `geo::csv`, `geo::policy`, ...).
//! This module adds what only the running service needs:
//!
//! - [`countries`]: ISO 3166 code -> country metadata (generated table).
//! - [`special`]: IANA special-purpose blocks -> is_public, label; and
//!   the special-purpose AS numbers ([`special::asn`]).
//! - [`mmdb`]: MMDB files (`maxminddb`) -> the data crate's arrays and
//!   import statistics; city tables.
//! - [`release`]: what a database was built from, for `/healthz` and reloads.
//! - [`asn`]: one autonomous system whole: its prefixes, name and countries.
//! - [`network`]: the network view built once per release: countries'
//!   address space and their ASes, AS profiles (prefixes with country and
//!   size, CSV), the rows under a prefix; the caches on [`GeoDb`].
//! - [`caches`]: the accessors of those caches on [`GeoDb`].
//! - [`block`]: `network.range`, the largest CIDR block inside a source row.
//! - [`db`]: [`GeoDb`], one release assembled, and the lookup of one address.
//! - [`files`]: the files of a data directory: names, gzip, size caps, stamps.
//! - [`unit`]: a release installed as one unit (`releases/<id>/`, `current`).
//! - [`judge`]: a new file against the release serving: size window, address space, floor.
//! - [`load`]: loading a data directory by the release policy (start,
//!   reload, `lookup --data-dir`, `update`'s checks).
//! - [`error`]: why a database could not be assembled ([`GeoError`]).

pub(crate) mod asn;
pub(crate) mod block;
pub(crate) mod caches;
pub mod countries;
pub(crate) mod db;
pub(crate) mod error;
pub(crate) mod files;
pub(crate) mod judge;
pub mod load;
pub mod mmdb;
pub(crate) mod network;
pub mod release;
pub mod special;
pub(crate) mod tree;
pub mod unit;
#[cfg(test)]
mod unit_kill;

pub use iplookup_data::{DataError, ImportStats};
pub use iplookup_data::{
    csv, import, index, meta, networks, policy, ranges, rows, snapshot, tables,
};

pub use asn::AsSystem;
pub use block::largest_block;
pub use db::{Answer, GeoDb};
pub use error::GeoError;
pub use mmdb::CityTables;
pub use release::{Release, SourceInfo};
pub use tables::{AsnTables, Checks, CountryTables, Index};
