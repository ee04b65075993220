//! The serving layer every route shares, lowest first: [`negotiate`] (the
//! format of an answer, `Accept`), [`origin`] (origins and public URLs),
//! [`client`] (the caller's address through trusted proxies), [`clock`]
//! (one clock read where a request starts and one where it ends), [`host`]
//! (the `Host` check), [`etag`] (the one `If-None-Match` matcher),
//! [`encoding`] (`Accept-Encoding` and compressed answers), [`search`] (the
//! lookup form's box, read the way people paste into it), [`admission`]
//! (what one client, and all together, may hold), [`ratelimit`] and
//! [`state`] ([`state::AppState`], [`state::Limits`]), [`policy`] (a route's
//! policy applied to its answer), [`wants`] (what a request asks for),
//! [`respond`] (a page into a response), [`body`] (request bodies under a byte
//! cap), [`refusal`] (the answers of the limits), [`served`] (a route
//! attached to its handler), [`metrics`] and [`base`] (the base URL of the
//! description documents). Nothing here knows a resource.

pub mod admission;
pub(crate) mod base;
pub(crate) mod body;
pub mod client;
pub(crate) mod clock;
pub(crate) mod encoding;
pub(crate) mod etag;
pub(crate) mod host;
pub(crate) mod metrics;
pub mod negotiate;
pub mod origin;
pub(crate) mod policy;
pub mod ratelimit;
pub(crate) mod refusal;
pub(crate) mod respond;
pub(crate) mod search;
pub(crate) mod served;
pub mod state;
pub(crate) mod wants;
