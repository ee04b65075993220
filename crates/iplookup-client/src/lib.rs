//! A typed client for iplookup's JSON API (the operations of the tag
//! `lookup`), generated at build time by progenitor (`build.rs`) from
//! `openapi-3.0.json`, the service's `/api/v1/openapi-3.0.json`, committed;
//! the root package's test
//! `rust_client::the_committed_rendition_is_the_served_one` holds it equal
//! to what the server serves. See README.md for an example.

/// The generated code, as progenitor writes it (its lints are its own).
#[allow(
    clippy::all,
    clippy::pedantic,
    missing_docs,
    unused_imports,
    irrefutable_let_patterns,
    mismatched_lifetime_syntaxes
)]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/client.rs"));
}

pub use generated::*;
