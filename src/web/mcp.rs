//! The MCP endpoint (`/mcp`, Streamable HTTP) with the official Rust SDK,
//! `rmcp`. Two tools, `lookup_ip` and `my_ip`, return the same `IpInfo` as
//! the JSON API, as structured content with an output schema.
//!
//! It runs stateless, so it answers both protocol revisions in use: clients of
//! 2025-11-25 send `initialize` and get no session id; clients of 2026-07-28
//! use `server/discover`. Any `Host` is accepted (the service is meant to be
//! public); browser `Origin`s are not restricted because the tools only read
//! public data.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::ConnectInfo;
use axum::http::request::Parts;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::Extension;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use super::AppState;
use super::client::client_addr;
use crate::address;
use crate::model::IpInfo;

/// Input of `lookup_ip`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct LookupParams {
    /// IPv4 address in dotted form (8.8.8.8) or IPv6 in colon-hex form (2001:db8::1).
    pub ip: String,
}

/// The MCP server: tools over the lookup service.
#[derive(Debug, Clone)]
pub struct IpLookupMcp {
    state: AppState,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl IpLookupMcp {
    /// A server over the shared state.
    pub fn new(state: AppState) -> Self {
        IpLookupMcp {
            state,
            tool_router: Self::tool_router(),
        }
    }

    /// Look up one address.
    #[tool(
        name = "lookup_ip",
        description = "Look up an IPv4 or IPv6 address: country (name, Bangla name, flag, continent, centroid, time zone, local time, currency, calling code) and network (ASN, organization, CIDR range). Data: IP Geolocation by DB-IP (CC BY 4.0)."
    )]
    pub async fn lookup_ip(
        &self,
        Parameters(params): Parameters<LookupParams>,
    ) -> Result<Json<IpInfo>, String> {
        let ip = address::parse(&params.ip).map_err(|e| format!("invalid_ip: {e}"))?;
        Ok(Json(self.state.lookup.answer(ip).await.0))
    }

    /// Look up the caller.
    #[tool(
        name = "my_ip",
        description = "Look up the address this MCP request came from (the caller's public IP, through trusted proxies), with the same fields as lookup_ip."
    )]
    pub async fn my_ip(&self, Extension(parts): Extension<Parts>) -> Result<Json<IpInfo>, String> {
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0)
            .ok_or_else(|| "the caller's address is unknown".to_owned())?;
        let ip = client_addr(peer, &parts.headers, &self.state.proxies);
        Ok(Json(self.state.lookup.answer(ip).await.0))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for IpLookupMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("iplookup", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "IP address lookups from a local DB-IP Lite copy. Use lookup_ip for a given address and my_ip for the caller. Credit 'IP Geolocation by DB-IP' (https://db-ip.com) when showing results.",
            )
    }
}

/// The tower service mounted at `/mcp`.
pub fn service(state: AppState) -> StreamableHttpService<IpLookupMcp, NeverSessionManager> {
    let config = StreamableHttpServerConfig::default()
        .disable_allowed_hosts()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None);
    StreamableHttpService::new(
        move || Ok(IpLookupMcp::new(state.clone())),
        Arc::new(NeverSessionManager::default()),
        config,
    )
}
