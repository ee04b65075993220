//! The HTTP face of the service, in three parts, lowest first (each imports
//! only parts above it in this list, never this module):
//!
//! - [`serve`]: the serving layer every route shares: formats and `Accept`,
//!   origins, the caller's address, the clock, the `Host` check, entity
//!   tags, compression, admission and rate limits, the answers of the
//!   limits, request bodies, metrics, and a page into a response;
//! - [`routes`]: the route table, every route's policy as data, and
//!   [`params`], its path parameters, each declared once; [`render`]: every
//!   page as one view, written by one writer per format (with the words of
//!   both languages); [`schema`], the types only the OpenAPI document names;
//! - the resources, one folder each with its handler, its view and its
//!   tests: [`address`] (the root, address pages, the API's lookups, one
//!   field, ifconfig.co's routes, health), [`asn`], [`network`] (prefixes,
//!   countries), [`batch`], [`mcp`], [`assets`], [`discovery`] and
//!   [`openapi`] (the OpenAPI document, `/docs` and `/llms.txt`, built from
//!   the others);
//! - [`common`]: the one layer every request passes through; [`hot`]: the
//!   hot route's way around the router; [`router`]: all of it as one service.
//!
//! A new resource is a new folder here and a line below (`docs/ARCHITECTURE.md`,
//! "Adding a resource").

pub(crate) mod address;
pub(crate) mod asn;
pub(crate) mod assets;
pub mod batch;
pub(crate) mod common;
pub(crate) mod discovery;
pub mod hot;
pub mod mcp;
pub(crate) mod network;
pub(crate) mod openapi;
pub(crate) mod params;
pub(crate) mod render;
pub mod router;
pub(crate) mod routes;
pub(crate) mod schema;
pub mod serve;
#[cfg(test)]
mod testing;

pub use batch::DEFAULT_BATCH_LIMIT;
pub use serve::state::{AppState, Limits};

use serve::served::Served;

/// Every resource's routes, each with its handler and the operations that
/// describe it ([`serve::served`]): what the router serves and the OpenAPI
/// document describes, with [`openapi`]'s own. A new resource is a `mod`
/// line above and its `SERVED` here.
pub(crate) const SERVED: &[&[Served]] = &[
    address::SERVED,
    address::field::SERVED,
    address::ifconfig::SERVED,
    batch::SERVED,
    asn::SERVED,
    network::SERVED,
    assets::SERVED,
    discovery::SERVED,
    openapi::mcp_post::SERVED,
    serve::metrics::SERVED,
];
