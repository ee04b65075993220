//! The HTTP face of the service: routes, shared state and the layers every
//! response passes through. Handlers live in [`pages`]; formats in
//! [`negotiate`] and [`render`]; the caller's address in [`client`].

pub mod client;
pub mod docs;
pub mod mcp;
pub mod negotiate;
pub mod pages;
pub mod render;
pub mod respond;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::http::{HeaderValue, header};
use axum::routing::get;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::timeout::TimeoutLayer;

use crate::lookup::Lookup;
use client::TrustedProxies;

/// What every handler can reach.
#[derive(Debug, Clone)]
pub struct AppState {
    pub lookup: Arc<Lookup>,
    pub proxies: Arc<TrustedProxies>,
    /// Whether this server terminates TLS itself (for absolute links).
    pub tls: bool,
}

/// All routes, with the common layers.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/", get(pages::root))
        .route("/healthz", get(pages::healthz))
        .route("/api/v1/me", get(pages::api_me))
        .route("/api/v1/ip/", get(pages::api_ip_missing))
        .route("/api/v1/ip/{ip}", get(pages::api_ip))
        .route("/docs", get(docs::docs_page))
        .route("/api/v1/openapi.json", get(docs::openapi_json))
        .route("/llms.txt", get(docs::llms_txt))
        .route("/.well-known/api-catalog", get(docs::api_catalog))
        .route("/.well-known/mcp/server-card.json", get(docs::server_card))
        .route("/.well-known/mcp", get(docs::server_card))
        .route(
            "/.well-known/agent-skills/index.json",
            get(docs::skills_index),
        )
        .route(
            "/.well-known/agent-skills/iplookup/SKILL.md",
            get(docs::skill_md),
        )
        .route_service("/mcp", mcp::service(state.clone()))
        .route("/{ip}", get(pages::address_page))
        .fallback(pages::not_found)
        .method_not_allowed_fallback(pages::method_not_allowed)
        .layer(SetResponseHeaderLayer::appending(
            header::LINK,
            HeaderValue::from_static("</.well-known/api-catalog>; rel=\"api-catalog\""),
        ))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(TimeoutLayer::with_status_code(
            axum::http::StatusCode::SERVICE_UNAVAILABLE,
            Duration::from_secs(10),
        ))
        .with_state(state)
}
