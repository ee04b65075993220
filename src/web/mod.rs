//! The HTTP face of the service: routes, shared state and the layers every
//! response passes through. Handlers live in [`pages`]; formats in
//! [`negotiate`] and [`render`]; the caller's address in [`client`]; the
//! hot route's way around the router in [`hot`].

pub mod assets;
pub mod client;
pub mod common;
pub mod docs;
pub mod hot;
pub mod mcp;
pub mod metrics;
pub mod negotiate;
pub mod origin;
pub mod pages;
pub mod ratelimit;
pub mod render;
pub mod respond;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::routing::get;

use crate::lookup::Lookup;
use client::TrustedProxies;

/// What every handler can reach.
#[derive(Debug, Clone)]
pub struct AppState {
    pub lookup: Arc<Lookup>,
    pub proxies: Arc<TrustedProxies>,
    /// Whether this server terminates TLS itself (for absolute links).
    pub tls: bool,
    /// The per-caller rate limit, if enabled.
    pub limiter: Option<ratelimit::RateLimiter>,
    /// `--public-url`: the base of every absolute link; `None` builds them
    /// from the request (see [`docs::BaseUrl`]).
    pub public_url: Option<origin::PublicUrl>,
    /// `--mcp-allowed-origin`: browser origins `/mcp` accepts besides the
    /// public URL's (see [`mcp`]).
    pub mcp_origins: Arc<[origin::WebOrigin]>,
}

/// Limits that protect the service from slow or oversized requests.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Time allowed to send the request headers (slowloris), and again for
    /// the body once the headers are in.
    pub header_timeout: Duration,
    /// Time allowed for a whole request.
    pub request_timeout: Duration,
    /// Largest request head accepted, in bytes.
    pub max_header_bytes: usize,
    /// Longest path and query accepted, in bytes.
    pub max_uri_bytes: usize,
    /// Requests handled at once; more wait their turn.
    pub max_in_flight: usize,
    /// Longest wait for a turn; then 503 with `Retry-After`.
    pub queue_timeout: Duration,
    /// Connections open at once; more are closed on arrival.
    pub max_connections: usize,
    /// Connections open at once from one address (IPv6: one /64); more are
    /// closed on arrival. Trusted proxies only count against `max_connections`.
    pub max_connections_per_ip: usize,
    /// A connection with no request for this long is closed (HTTP/2: `GOAWAY`).
    pub idle_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            header_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(10),
            max_header_bytes: 16 * 1024,
            max_uri_bytes: 4096,
            max_in_flight: 1024,
            queue_timeout: Duration::from_secs(1),
            max_connections: 10_000,
            max_connections_per_ip: 256,
            idle_timeout: Duration::from_secs(60),
        }
    }
}

/// The path of the specific address lookup (the hot route).
pub const API_IP: &str = "/api/v1/ip/{ip}";

/// The whole service: every route, each behind the common layer ([`common`]).
pub fn app(state: AppState, limits: &Limits) -> hot::Routes {
    let common = common::CommonLayer::new(state.clone(), limits);
    let api_ip = common.for_route(API_IP, hot::ApiIp::new(state.clone()));
    let rate_limited = state.limiter.is_some();
    hot::Routes::new(api_ip, router(state, common), rate_limited)
}

/// All routes, through axum's router.
fn router(state: AppState, common: common::CommonLayer) -> Router {
    Router::new()
        .route("/", get(pages::root))
        .route("/healthz", get(pages::healthz))
        .route("/api/v1/me", get(pages::api_me))
        .route("/api/v1/ip/", get(pages::api_ip_missing))
        .route(API_IP, get(pages::api_ip))
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
        .route("/mcp", mcp::route(&state).get(docs::mcp_get))
        .route("/metrics", get(metrics::metrics))
        .route("/assets/{file}", get(assets::asset))
        .route("/{ip}", get(pages::address_page))
        .fallback(pages::not_found)
        .method_not_allowed_fallback(pages::method_not_allowed)
        .layer(common)
        .with_state(state)
}
