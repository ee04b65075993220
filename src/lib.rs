//! iplookup: a self-hosted IP address lookup service.
//!
//! # Layout
//!
//! Data flows one way, down this list:
//!
//! - [`geo`]: the address data. Range tables for country and ASN, the country
//!   metadata table and the IANA special-purpose registry. Pure and synchronous.
//! - [`address`]: strict parsing of addresses typed by callers, canonical form.
//! - [`model`]: the wire contract (`IpInfo`, `Location`, `Network`, `Error`).
//! - [`lookup`]: the current database plus the clock, turning an address into an `IpInfo`.
//! - [`web`]: routes, the caller's address, format negotiation, the four renderers.
//! - [`server`]: configuration, listening, graceful shutdown.
//!
//! The binary (`src/main.rs`) only parses the command line and calls [`server`]
//! or [`lookup`].

pub mod address;
pub mod geo;
pub mod lookup;
pub mod model;
pub mod server;
pub mod web;

pub use geo::GeoDb;
pub use lookup::Lookup;
pub use model::IpInfo;
pub use server::{ServeConfig, serve};
