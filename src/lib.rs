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
//! - [`address`]: strict parsing of addresses typed by callers, canonical form.
//! - [`model`]: the wire contract (`IpInfo`, `Location`, `Network`, `Error`).
//! - [`rdns`]: reverse DNS with a deadline, a TTL-honouring cache and one query per address.
//! - [`lookup`]: the current database, reverse DNS and the clock, turning an address into an `IpInfo`.
//! - [`web`]: routes (the hot lookup route past the router), the caller's address,
//!   format negotiation, the four renderers, description documents, the MCP
//!   endpoint and Prometheus metrics.
//! - [`memory`]: handing freed memory back to the system after a reload (glibc).
//! - [`reload`]: watching the data directory (and SIGHUP) and swapping in new releases.
//! - [`connections`]: the cap on open connections.
//! - [`server`]: configuration, listening (HTTP or HTTPS), limits, graceful shutdown.
//! - [`update`]: fetching, checking and installing a new DB-IP release (`iplookup update`).
//!
//! The binary (`src/main.rs`) only parses the command line and calls [`server`]
//! or [`lookup`].

pub mod address;
pub mod connections;
pub mod geo;
pub mod lookup;
pub mod memory;
pub mod model;
pub mod rdns;
pub mod reload;
pub mod server;
pub mod update;
pub mod web;

pub use geo::GeoDb;
pub use lookup::Lookup;
pub use model::IpInfo;
pub use server::{ServeConfig, serve};
