//! iplookup: a self-hosted IP address lookup service.
//!
//! # Layout
//!
//! Data flows one way, down this list:
//!
//! - [`geo`]: the address data. Range tables for country and ASN, the country
//!   metadata table and the IANA special-purpose registry. Pure and synchronous.
//! - [`zone`]: the time zone containing a city's coordinates, from boundary
//!   data compiled in, looked up once per city of a release.
//! - [`address`]: strict parsing of addresses typed by callers, canonical form.
//! - [`model`]: the wire contract (`IpInfo`, `Location`, `Network`, `Error`).
//! - [`rdns`]: reverse DNS with a deadline, a TTL-honouring cache and one query per address.
//! - [`lookup`]: the current database, reverse DNS and the clock, turning an address into an `IpInfo`.
//! - [`web`]: routes (the hot lookup route past the router), the caller's address,
//!   format negotiation, the four renderers, description documents, the MCP
//!   endpoint and Prometheus metrics.
//! - [`reload`]: watching the data directory (and SIGHUP) and swapping in new releases.
//! - [`connections`]: the cap on open connections.
//! - [`memory`]: handing freed memory back to the system after a reload (glibc).
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
pub mod zone;

pub use geo::GeoDb;
pub use lookup::Lookup;
pub use model::IpInfo;
pub use server::{ServeConfig, serve};
