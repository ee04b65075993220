//! The MCP endpoint (`/mcp`, Streamable HTTP) with the official Rust SDK,
//! `rmcp`. Four tools: `lookup_ip` and `my_ip` return the same `IpInfo` as
//! the JSON API, as structured content with an output schema; `lookup_ips`
//! the entries of `POST /api/v1/ip` ([`super::batch`]) under `results`
//! (at most `--batch-limit`, and as many rate-limit tokens; its entries
//! charged to the call's batch slot, [`crate::web::serve::admission::batch::Meter`]); `lookup_asn`
//! the `AsnInfo` of `/api/v1/asn/{asn}`.
//!
//! It runs stateless, so it answers both protocol revisions in use: clients of
//! 2025-11-25 send `initialize` and get no session id; clients of 2026-07-28
//! use `server/discover`. Any `Host` is accepted (the service is meant to be
//! public).
//!
//! Before rmcp sees a request, [`post`] applies the transport rules itself,
//! in this order, each answer JSON:
//!
//! 1. `Origin` (DNS rebinding, cross-site pages): absent is accepted; present,
//!    it must be the `--public-url` origin, an `--mcp-allowed-origin`, or,
//!    without `--public-url` only, name the request's own host and port
//!    (`Host`). Anything else is 403 with an Error body. Preflights of `/mcp`
//!    are held to the same rule ([`preflight_refusal`]).
//! 2. `Accept` must list `application/json` and `text/event-stream`: 406, Error body.
//! 3. `Content-Type` must be `application/json`: 415, Error body
//!    (`unsupported_media_type`), as on every route that takes a body.
//! 4. The body is read up to [`MAX_BODY_BYTES`], whatever `Content-Length`
//!    says (chunked bodies too): 413, Error body, beyond.
//! 5. It must be JSON: 400, JSON-RPC error -32700 (parse error); a JSON-RPC
//!    message with a string or 64-bit integer `id`: 400, -32600 (invalid
//!    request); and an implemented method's params must be readable: 400,
//!    -32602 (rmcp would call `initialize` without `clientInfo` an unknown
//!    method, with 200).
//!
//! Whatever rmcp answers in plain text after that (a bad `MCP-Protocol-Version`,
//! say) is rewritten as a JSON-RPC error with the same status ([`json_errors`]).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use axum::routing::MethodRouter;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::Extension;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tower::ServiceExt;

mod message;
mod visible;

pub use message::{IMPLEMENTED, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR};
use message::{jsonrpc_error, read_message};

use super::asn::PER_PAGE;
use super::batch::BatchEntry;
use super::routes;
use crate::lookup::asn::Prefixes;
use crate::lookup::{self, Rdns};
use crate::model::{AsnInfo, CountryInfo, ErrorCode, IpInfo, PrefixInfo};
use crate::web::serve::admission::batch::{MCP_COPIES, Meter};
use crate::web::serve::body::{error_json, read_capped};
use crate::web::serve::client::{caller, client_addr};
use crate::web::serve::origin::WebOrigin;
use crate::web::serve::refusal::Refuser;
use crate::web::serve::state::AppState;

/// The largest request body `/mcp` reads (64 KiB); a tool call is a few hundred bytes.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// Input of `lookup_ip`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct LookupParams {
    /// IPv4 address in dotted form (8.8.8.8) or IPv6 in colon-hex form (2001:db8::1).
    pub ip: String,
}

/// Input of `lookup_ips`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct LookupManyParams {
    /// The addresses, each as `lookup_ip` takes it; at most the service's
    /// batch limit (1000 by default).
    pub ips: Vec<String>,
}

/// Output of `lookup_ips`: one entry per input, in input order.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LookupManyResults {
    /// The IpInfo of each address, or an Error (`invalid_ip`) in its place.
    pub results: Vec<BatchEntry>,
}

/// Input of `lookup_asn`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AsnParams {
    /// AS number: 15169 or AS15169 (a JSON number or a string).
    pub asn: AsnArg,
    /// The page of the prefixes, from 1 (default 1), of 10,000 prefixes each.
    // The words above are the tool's input schema (no rustdoc link there):
    // 10,000 is `ASN_PER_PAGE`, which a unit test holds them to.
    #[serde(default)]
    pub page: Option<u32>,
}

/// Input of `lookup_prefix`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct PrefixParams {
    /// A prefix in CIDR notation: 8.8.8.0/24 or 2001:4860::/32 (no host bits set).
    pub prefix: String,
    /// The page of its rows, from 1 (default 1), of 500.
    #[serde(default)]
    pub page: Option<u32>,
}

/// Input of `lookup_country`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CountryParams {
    /// ISO 3166-1 alpha-2 country code, any case: BD or bd.
    pub country_code: String,
    /// The page of its ASes, from 1 (default 1), of 500.
    #[serde(default)]
    pub page: Option<u32>,
}

/// How many prefixes one `lookup_asn` answer lists: every AS of the
/// embedded release fits one page (the largest has 9,912); an AS at the
/// data files' bound (100,000) takes ten, each about 0.3 MB of JSON.
pub const ASN_PER_PAGE: u32 = 10_000;

/// An AS number as a client may send it: a JSON number, or text.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum AsnArg {
    Number(u64),
    Text(String),
}

impl AsnArg {
    /// The text the AS parser reads (`15169`, `AS15169`).
    fn text(&self) -> std::borrow::Cow<'_, str> {
        match self {
            AsnArg::Number(n) => n.to_string().into(),
            AsnArg::Text(t) => t.as_str().into(),
        }
    }
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
        description = "Look up an IPv4 or IPv6 address: country (name, Bangla name, flag, continent, centroid, time zone, local time, currency, calling code) and network (ASN, organization, CIDR range); for a special-purpose address (private, loopback, documentation, ...), special_purpose names its IANA block, RFC and range (null for an ordinary address). Data: IP Geolocation by DB-IP (CC BY 4.0)."
    )]
    pub async fn lookup_ip(
        &self,
        Parameters(params): Parameters<LookupParams>,
    ) -> Result<Json<IpInfo>, String> {
        match lookup::parse(&params.ip) {
            Ok(ip) => Ok(Json(visible::info(
                self.state.lookup.lookup(ip, Rdns::Wait).await.info,
            ))),
            Err(e) => Err(format!("{}: {e}", e.code())),
        }
    }

    /// Look up many addresses at once.
    #[tool(
        name = "lookup_ips",
        description = "Look up many IPv4 or IPv6 addresses at once (at most the service's batch limit, 1000 by default): one result per input, in input order, each the IpInfo lookup_ip returns or an Error object (error invalid_ip, the input in message) in its place. reverse_dns comes from the cache only. Data: IP Geolocation by DB-IP (CC BY 4.0)."
    )]
    pub async fn lookup_ips(
        &self,
        Parameters(params): Parameters<LookupManyParams>,
        Extension(parts): Extension<Parts>,
    ) -> Result<Json<LookupManyResults>, String> {
        let limit = self.state.batch_limit;
        if params.ips.len() > limit {
            return Err(format!(
                "{}: at most {limit} addresses per call; this one has {}",
                ErrorCode::BodyTooLarge,
                params.ips.len()
            ));
        }
        self.take_tokens(&parts, params.ips.len())?;
        // The call holds a batch slot (`post` took it); its entries are
        // charged to the slot's meter as they are answered.
        let meter = parts.extensions.get::<Meter>();
        match super::batch::lookup_all(&self.state, &params.ips, meter).await {
            Ok(results) => Ok(Json(LookupManyResults {
                results: visible::entries(results),
            })),
            Err((spent, answered)) => {
                metrics::counter!("iplookup_batch_answer_refused_total").increment(1);
                Err(format!(
                    "{}: {}",
                    spent.code(),
                    spent.text_after(answered, params.ips.len())
                ))
            }
        }
    }

    /// Look up one autonomous system.
    #[tool(
        name = "lookup_asn",
        description = "Look up an autonomous system by number (15169 or AS15169): its organization, the prefixes the data attributes to it (IPv4 and IPv6 CIDR blocks) in pages of 10,000 (page, from 1: prefix_count gives the totals, page the number of pages; one page for most), address counts per family (IPv6 as a decimal string) and the countries its IPv4 space lies in with their share. Data: IP Geolocation by DB-IP (CC BY 4.0)."
    )]
    pub async fn lookup_asn(
        &self,
        Parameters(params): Parameters<AsnParams>,
        Extension(parts): Extension<Parts>,
    ) -> Result<Json<AsnInfo>, String> {
        let number = page_of(params.page)?;
        let which = Prefixes::Page {
            number,
            per_page: ASN_PER_PAGE,
        };
        let info = match self.state.lookup.asn(&params.asn.text(), which, None).await {
            Ok(answered) => answered.info,
            Err(e) => return Err(format!("{}: {e}", e.code())),
        };
        // The call holds a batch slot (`post` took it): the answer is
        // charged to its meter as `lookup_ips`'s entries are.
        charge(&parts, &info)?;
        Ok(Json(visible::asn(info)))
    }

    /// Look up one prefix.
    #[tool(
        name = "lookup_prefix",
        description = "Look up a prefix (8.8.8.0/24, 2001:4860::/32) in the data: the rows it lies in or covers (each with its country code, AS number and organization, first and last address inside the prefix and its CIDR blocks) in pages of 500 (page, from 1), the covering block of the data's row that holds all of it, the address count, and the IANA special-purpose block it lies in. Host bits set or a length out of range: an invalid_prefix error naming the canonical prefix. Data: IP Geolocation by DB-IP (CC BY 4.0)."
    )]
    pub async fn lookup_prefix(
        &self,
        Parameters(params): Parameters<PrefixParams>,
        Extension(parts): Extension<Parts>,
    ) -> Result<Json<PrefixInfo>, String> {
        let number = page_of(params.page)?;
        let answered = self
            .state
            .lookup
            .prefix(&params.prefix, number, PER_PAGE)
            .await;
        let info = answered.map_err(|e| format!("{}: {e}", e.code()))?.0;
        charge(&parts, &info)?;
        Ok(Json(visible::prefix(info)))
    }

    /// Look up one country.
    #[tool(
        name = "lookup_country",
        description = "Look up a country by its ISO 3166-1 alpha-2 code (BD, bd): names in English and Bangla, flag, continent, currency, calling code, every time zone, centroid; its IPv4 and IPv6 address space in the data (counts, row counts, share of the world's); its ASes ranked by the addresses they hold in it, in pages of 500 (page, from 1). An unknown code: an unknown_country error with a suggestion. Data: IP Geolocation by DB-IP (CC BY 4.0)."
    )]
    pub async fn lookup_country(
        &self,
        Parameters(params): Parameters<CountryParams>,
        Extension(parts): Extension<Parts>,
    ) -> Result<Json<CountryInfo>, String> {
        let number = page_of(params.page)?;
        let answered = self
            .state
            .lookup
            .country(&params.country_code, number, PER_PAGE)
            .await;
        let info = answered.map_err(|e| format!("{}: {e}", e.code()))?.0;
        charge(&parts, &info)?;
        Ok(Json(visible::country(info)))
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
        Ok(Json(visible::info(
            self.state.lookup.lookup(ip, Rdns::Wait).await.info,
        )))
    }
}

/// A tool's `page` argument: from 1, 1 when absent.
fn page_of(page: Option<u32>) -> Result<u32, String> {
    match page.unwrap_or(1) {
        0 => Err(format!("{}: page is from 1", ErrorCode::BadQuery)),
        n => Ok(n),
    }
}

/// Charges a large tool answer to the call's batch slot (`post` took one)
/// as `lookup_asn`'s page is, or the tool's error.
fn charge<T: Serialize>(parts: &Parts, info: &T) -> Result<(), String> {
    let Some(meter) = parts.extensions.get::<Meter>() else {
        return Ok(());
    };
    let size = super::batch::json_size(info).saturating_mul(MCP_COPIES);
    meter.charge_to(size).map_err(|refused| {
        metrics::counter!("iplookup_batch_answer_refused_total").increment(1);
        format!("{}: {refused}", refused.code())
    })
}

impl IpLookupMcp {
    /// With a rate limit, the tokens of the addresses beyond the first (the
    /// request to `/mcp` took one), or the tool's error.
    fn take_tokens(&self, parts: &Parts, addresses: usize) -> Result<(), String> {
        let (Some(limiter), Some(peer)) = (
            &self.state.limiter,
            parts.extensions.get::<ConnectInfo<SocketAddr>>(),
        ) else {
            return Ok(());
        };
        let caller = client_addr(peer.0, &parts.headers, &self.state.proxies);
        // A bucket never holds more than the burst: no wait would let it in.
        let burst = limiter.burst();
        if addresses > burst as usize {
            return Err(format!(
                "{}: {addresses} addresses: more than the rate limit lets one caller send at once \
                 (--rate-burst {burst}); split the call",
                ErrorCode::BodyTooLarge
            ));
        }
        let extra = u32::try_from(addresses.saturating_sub(1)).unwrap_or(u32::MAX);
        limiter.check_n(caller, extra).map_err(|wait| {
            metrics::counter!("iplookup_rate_limited_total").increment(1);
            format!(
                "{}: {addresses} addresses are over the rate limit of {caller}; retry in {} s",
                ErrorCode::RateLimited,
                wait.as_secs_f64().ceil().max(1.0)
            )
        })
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for IpLookupMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("iplookup", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "IP address lookups from a local DB-IP Lite copy. Use lookup_ip for a given address, lookup_ips for many at once, my_ip for the caller and lookup_asn for an autonomous system. Credit 'IP Geolocation by DB-IP' (https://db-ip.com) when showing results.",
            )
    }
}

/// rmcp's Streamable HTTP service.
type Rmcp = StreamableHttpService<IpLookupMcp, NeverSessionManager>;

/// rmcp's service for `/mcp`: stateless, JSON answers, any `Host` (the
/// `Origin` check is [`post`]'s, before rmcp).
pub fn service(state: AppState) -> Rmcp {
    let config = StreamableHttpServerConfig::default()
        .disable_allowed_hosts()
        .disable_allowed_origins()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .with_max_request_body_bytes(MAX_BODY_BYTES);
    StreamableHttpService::new(
        move || Ok(IpLookupMcp::new(state.clone())),
        Arc::new(NeverSessionManager::default()),
        config,
    )
}

/// `POST /mcp`, for the router.
pub fn route(state: &AppState) -> MethodRouter<AppState> {
    let rmcp = service(state.clone());
    axum::routing::post(move |State(state): State<AppState>, request: Request| {
        post(rmcp.clone(), state, request)
    })
}

/// `POST /mcp`: the transport rules (module documentation), then rmcp.
pub async fn post(rmcp: Rmcp, state: AppState, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    if let Some(refusal) = origin_refusal(&state, &parts.headers, &parts.uri) {
        return refusal;
    }
    if !accepts_json_and_sse(&parts.headers) {
        return error_json(
            &routes::MCP,
            StatusCode::NOT_ACCEPTABLE,
            ErrorCode::NotAcceptable,
            "Accept must list both application/json and text/event-stream".into(),
        );
    }
    if !is_json(&parts.headers) {
        return error_json(
            &routes::MCP,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorCode::UnsupportedMediaType,
            "Content-Type must be application/json".into(),
        );
    }
    let bytes = match read_capped(body, MAX_BODY_BYTES, &routes::MCP).await {
        Ok(bytes) => bytes,
        Err(refusal) => return refusal,
    };
    let bytes = match read_message(bytes) {
        Ok(bytes) => bytes,
        Err(refusal) => return *refusal,
    };
    // A large tool answer (`lookup_ips`: about 1 MB for
    // 1,000 addresses, several MB while the MCP library builds and
    // serialises it): it holds a batch slot from before it is built until
    // its body is dropped, as a batch answer does.
    // Refused like the common layer's 503 on this route (an Error object,
    // `Retry-After`), as the OpenAPI description has it.
    let slot = if large_tool_call(&bytes) {
        let client = caller(&parts, &state.proxies).unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED));
        match state.batch_slots.take(client).await {
            Ok(slot) => Some(slot),
            Err(busy) => {
                metrics::counter!("iplookup_overloaded_total").increment(1);
                return Refuser::of_parts(&parts, &routes::MCP).refused(busy);
            }
        }
    } else {
        None
    };
    let mut parts = parts;
    if let Some(slot) = &slot {
        parts.extensions.insert(slot.meter());
    }
    let request = Request::from_parts(parts, Body::from(bytes));
    let response = match rmcp.oneshot(request).await {
        Ok(response) => json_errors(response.map(Body::new)).await,
        Err(never) => match never {},
    };
    match slot {
        Some(slot) => response.map(|body| slot.follow(body)),
        None => response,
    }
}

/// Whether the message calls a tool whose answer can be large
/// (`lookup_ips`, `lookup_asn`, `lookup_prefix`, `lookup_country`).
fn large_tool_call(bytes: &[u8]) -> bool {
    #[derive(Deserialize)]
    struct Message {
        method: Option<String>,
        params: Option<Params>,
    }
    #[derive(Deserialize)]
    struct Params {
        name: Option<String>,
    }
    let Ok(message) = serde_json::from_slice::<Message>(bytes) else {
        return false;
    };
    let tool = message.params.and_then(|p| p.name);
    message.method.as_deref() == Some("tools/call")
        && matches!(
            tool.as_deref(),
            Some("lookup_ips" | "lookup_asn" | "lookup_prefix" | "lookup_country")
        )
}

/// The 403 answer when a request's `Origin` is not accepted (module
/// documentation, rule 1); `None` when it is, or when there is none.
pub fn origin_refusal(
    state: &AppState,
    headers: &HeaderMap,
    uri: &axum::http::Uri,
) -> Option<Response> {
    let mut values = headers.get_all(header::ORIGIN).iter();
    let value = values.next()?;
    if values.next().is_some() {
        return Some(forbidden("more than one Origin header"));
    }
    let Some(origin) = value.to_str().ok().and_then(|v| WebOrigin::parse(v).ok()) else {
        return Some(forbidden("Origin is not scheme://host[:port]"));
    };
    let allowed = match &state.public_url {
        Some(public) => public.origin() == &origin,
        None => request_host(headers, uri).is_some_and(|host| origin.matches_host(host)),
    } || state.mcp_origins.contains(&origin);
    (!allowed).then(|| forbidden(&format!("Origin {origin} may not call this MCP endpoint")))
}

/// The 403 answer to a CORS preflight of `/mcp` from an origin [`post`]
/// would refuse, so that a browser stops before sending the request.
pub fn preflight_refusal(state: &AppState, request: &Request) -> Option<Response> {
    if request.uri().path() != "/mcp" {
        return None;
    }
    origin_refusal(state, request.headers(), request.uri())
}

/// The authority the request was sent to: the target's (HTTP/2, or an
/// absolute-form target) or the `Host` header.
fn request_host<'a>(headers: &'a HeaderMap, uri: &'a axum::http::Uri) -> Option<&'a str> {
    uri.authority()
        .map(|a| a.as_str())
        .or_else(|| headers.get(header::HOST).and_then(|h| h.to_str().ok()))
}

fn forbidden(message: &str) -> Response {
    error_json(
        &routes::MCP,
        StatusCode::FORBIDDEN,
        ErrorCode::ForbiddenOrigin,
        message.to_owned(),
    )
}

/// The media types `Accept` lists with a weight above zero (as rmcp reads it).
fn accepts_json_and_sse(headers: &HeaderMap) -> bool {
    let mut json = false;
    let mut sse = false;
    let values = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok());
    for range in values.flat_map(|v| v.split(',')) {
        let mut pieces = range.split(';');
        let essence = pieces.next().unwrap_or("").trim();
        let refused = pieces.any(|p| {
            p.trim()
                .strip_prefix("q=")
                .is_some_and(|q| q.trim().parse::<f32>().is_ok_and(|q| q <= 0.0))
        });
        if refused {
            continue;
        }
        json |= essence.eq_ignore_ascii_case("application/json");
        sse |= essence.eq_ignore_ascii_case("text/event-stream");
    }
    json && sse
}

/// `Content-Type: application/json` (parameters such as `charset` allowed).
fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

/// rmcp's answers, with every plain-text error turned into a JSON-RPC error
/// of the same status (JSON answers and successes pass unchanged).
async fn json_errors(response: Response) -> Response {
    let status = response.status();
    if status.is_success() || is_json(response.headers()) {
        return response;
    }
    let (_, body) = response.into_parts();
    let text = axum::body::to_bytes(body, 4096).await.unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let message = match text.trim() {
        "" => status.canonical_reason().unwrap_or("error").to_owned(),
        t => t.to_owned(),
    };
    let code = if status.is_server_error() {
        INTERNAL_ERROR
    } else {
        INVALID_REQUEST
    };
    jsonrpc_error(status, code, Value::Null, &message)
}
