//! The HTTP face of the service. Its parts, lowest first (each imports only
//! parts above it in this list, never this module):
//!
//! - [`negotiate`], [`origin`], [`client`]: formats and `Accept`, origins
//!   and public URLs, the caller's address through trusted proxies;
//!   [`clock`]: one clock read where a request starts and one where it
//!   ends; [`host`]: the `Host` check; [`etag`]: the one `If-None-Match` matcher;
//!   [`encoding`]: `Accept-Encoding` and compressed answers;
//!   [`search`]: the lookup form's box, read the way people paste into it;
//! - [`routes`]: the route table, every route's policy as data;
//! - [`admission`]: what one client, and all together, may hold: connections,
//!   requests in flight, batch slots and their bytes, unsent answers;
//! - [`ratelimit`]: the per-caller token buckets; [`state`]: [`AppState`]
//!   and [`Limits`];
//! - [`render`]: every page as one value rendered four ways (with the docs
//!   page model and the world map); [`wants`]: what a request asks for;
//!   [`respond`]: a page into a response;
//! - [`body`]: request bodies under a byte cap; [`refusal`]: the answers of the limits (414, 429, 408, 503);
//!   [`metrics`]; [`base`]: the base URL of the description documents;
//! - the handlers: [`pages`], [`field`], [`batch`], [`asn`], [`network`] (prefixes,
//!   countries), [`assets`], [`mcp`], [`discovery`];
//!   [`schema`], the types only the OpenAPI document names;
//! - [`openapi`]: the OpenAPI document, built once from the handlers, and
//!   `/docs` and `/llms.txt` built from it;
//! - [`common`]: the one layer every request passes through; [`hot`]: the
//!   hot route's way around the router; [`router`]: all of it as one service.

pub mod admission;
pub(crate) mod asn;
pub(crate) mod assets;
pub(crate) mod base;
pub mod batch;
pub(crate) mod body;
pub mod client;
pub(crate) mod clock;
pub(crate) mod common;
pub(crate) mod discovery;
pub(crate) mod encoding;
pub(crate) mod etag;
pub(crate) mod field;
pub(crate) mod host;
pub mod hot;
pub(crate) mod ifconfig;
pub mod mcp;
pub(crate) mod metrics;
pub mod negotiate;
pub(crate) mod network;
pub(crate) mod openapi;
pub mod origin;
pub(crate) mod pages;
pub(crate) mod params;
pub(crate) mod policy;
pub mod ratelimit;
pub(crate) mod refusal;
pub(crate) mod render;
pub(crate) mod respond;
pub mod router;
pub(crate) mod routes;
pub(crate) mod schema;
pub(crate) mod search;
pub(crate) mod served;
pub mod state;
pub(crate) mod wants;

pub use batch::DEFAULT_BATCH_LIMIT;
pub use router::app;
pub use state::{AppState, Limits};
