//! iplookup: a self-hosted IP address lookup service.
//!
//! # Layout
//!
//! Data flows one way, down this list:
//!
//! - [`geo`]: the address data. Range tables for country and ASN (from the
//!   `iplookup-data` crate, which also holds the CSV reader, the release policy
//!   and the snapshot format), the country metadata table and the IANA
//!   special-purpose registry; loading a data directory. Pure and synchronous
//!   at lookup time.
//! - [`zone`]: the time zone containing a city's coordinates, from boundary
//!   data compiled in, looked up once per city of a release.
//! - [`address`]: strict parsing of addresses typed by callers, canonical form.
//! - [`model`]: the wire contract (`IpInfo`, `Location`, `Network`, `Error`).
//! - [`fields`]: the fields of an `IpInfo` by name, flat (CSV columns, single values).
//! - [`rdns`]: reverse DNS with a deadline, a TTL-honouring cache and one query per address.
//! - [`lookup`]: the current database, reverse DNS and the clock, turning an address into an `IpInfo`.
//! - [`bulk`]: the command line's fast paths for enriching many addresses
//!   at once (CSV rows without an `IpInfo` each); the server does not use them.
//! - [`web`]: routes (the hot lookup route past the router), the caller's address,
//!   format negotiation, the four renderers, description documents, the MCP
//!   endpoint, Prometheus metrics, and admission (what one client may hold).
//! - [`memory`]: handing freed memory back to the system after a reload (glibc).
//! - [`reload`]: watching the data directory (and SIGHUP) and swapping in new releases.
//! - [`config`]: every setting of a running service, as one plain value.
//! - [`server`]: listening (HTTP or HTTPS), limits, graceful shutdown when the
//!   caller's shutdown future resolves.
//! - [`update`]: fetching, checking and installing a new DB-IP release (`iplookup update`).
//!
//! The binary (`src/bin/iplookup/`) parses the command line into a
//! [`config::ServeConfig`], owns the signals, and calls [`server`] or [`lookup`].

pub mod address;
pub mod bulk;
pub mod config;
pub mod fields;
pub mod geo;
pub mod lookup;
pub mod memory;
pub mod model;
pub mod rdns;
pub mod reload;
pub mod server;
pub mod update;
pub mod web;
pub mod zone;

pub use config::ServeConfig;
pub use geo::GeoDb;
pub use lookup::Lookup;
pub use model::IpInfo;
