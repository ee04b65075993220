//! The description documents, all generated from one source, the OpenAPI
//! document that `utoipa` derives from the handlers and the wire types:
//! `/api/v1/openapi.json`, the `/docs` page, `/llms.txt`, the RFC 9727
//! api-catalog, the MCP server card and the agent skills index with its SKILL.md.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::json;
use sha2::Digest;
use utoipa::OpenApi;
use utoipa::openapi::{PathItem, RefOr, Server};

use super::AppState;
use super::client::base_url;
use super::negotiate::Format;
use super::ratelimit;
use super::render::{ATTRIBUTION_TEXT, ATTRIBUTION_URL, Page};
use super::respond::{Caching, Reply, Wants, respond};
use crate::model;

const DESCRIPTION: &str = "Look up any IPv4 or IPv6 address: country (with names in English and Bangla, flag, continent, centroid, time zone, local time, currency, calling code) and network (ASN, operator, CIDR range, reverse DNS). No API key, no sign-up, no external lookup while answering: the data is a local copy of the DB-IP Lite databases.";

/// The OpenAPI document, derived from the handlers' annotations.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "iplookup",
        version = "1.0.0",
        description = "Look up any IPv4 or IPv6 address: location (country, country centroid, time zone, currency, calling code) and network (ASN, operator, CIDR range, reverse DNS). No API key. Every page is also available as JSON, plain text, Markdown and HTML (`?format=json|text|md|html` or the `Accept` header).\n\nData: IP Geolocation by DB-IP (https://db-ip.com), IP to Country Lite and IP to ASN Lite, licensed CC BY 4.0; ASN data also from RouteViews and NRO (CC BY 4.0); country metadata from Unicode CLDR, Natural Earth and libphonenumber. Coordinates are country centroids, not street addresses.",
        license(name = "Data: CC BY 4.0 (IP Geolocation by DB-IP)", url = "https://creativecommons.org/licenses/by/4.0/"),
    ),
    paths(
        super::pages::api_me,
        super::pages::api_ip,
        super::pages::root,
        super::pages::address_page,
        super::pages::healthz,
        docs_page,
        openapi_json,
        llms_txt,
        api_catalog,
        server_card,
        mcp_get,
        mcp_post_doc,
        skills_index,
        skill_md,
        super::assets::asset,
    ),
    components(schemas(model::IpInfo, model::Location, model::Network, model::Error, model::Accuracy, FormatName, IpParam, IpFormParam)),
    tags(
        (name = "lookup", description = "Address lookups (JSON by default)"),
        (name = "pages", description = "Pages for people and terminals (HTML or text by default)"),
        (name = "discovery", description = "Description documents for tools and agents"),
    )
)]
pub struct ApiDoc;

/// The `format` query parameter.
#[derive(Debug, Clone, Copy, utoipa::ToSchema)]
#[schema(rename_all = "lowercase")]
#[allow(dead_code)]
pub enum FormatName {
    Json,
    Text,
    Md,
    Html,
}

/// An IPv4 or IPv6 address parameter (`anyOf` the two string formats).
pub struct IpParam;

impl utoipa::PartialSchema for IpParam {
    fn schema() -> RefOr<utoipa::openapi::schema::Schema> {
        ip_formats(false)
    }
}

impl utoipa::ToSchema for IpParam {}

/// The lookup form's `ip` query value: an address, or empty (no lookup).
pub struct IpFormParam;

impl utoipa::PartialSchema for IpFormParam {
    fn schema() -> RefOr<utoipa::openapi::schema::Schema> {
        ip_formats(true)
    }
}

impl utoipa::ToSchema for IpFormParam {}

fn ip_formats(allow_empty: bool) -> RefOr<utoipa::openapi::schema::Schema> {
    use utoipa::openapi::schema::{AnyOfBuilder, KnownFormat, ObjectBuilder, SchemaFormat, Type};
    let string = |f| {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .format(Some(SchemaFormat::KnownFormat(f)))
    };
    let mut any = AnyOfBuilder::new()
        .item(string(KnownFormat::Ipv4))
        .item(string(KnownFormat::Ipv6));
    if allow_empty {
        any = any.item(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .max_length(Some(0)),
        );
    }
    any.into()
}

/// The OpenAPI document with a `servers` entry for `base`.
pub fn openapi(base: &str) -> utoipa::openapi::OpenApi {
    let mut doc = ApiDoc::openapi();
    doc.servers = Some(vec![Server::new(base)]);
    add_limit_responses(&mut doc);
    name_the_assets(&mut doc);
    doc
}

/// The asset route's `file` parameter: an enum of the names served now (the
/// content hash is only known at run time).
fn name_the_assets(doc: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    let Some(name) = super::assets::world_map().path.strip_prefix("/assets/") else {
        return;
    };
    let item = doc.paths.paths.get_mut("/assets/{file}");
    let params = item
        .and_then(|i| i.get.as_mut())
        .and_then(|op| op.parameters.as_mut());
    for param in params.into_iter().flatten() {
        let RefOr::T(param) = param else { continue };
        if param.name != "file" {
            continue;
        }
        let schema = ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some([name]))
            .build();
        param.schema = Some(schema.into());
    }
}

/// The answers of the limits every route sits behind ([`super::common`]),
/// added to every operation: 414 (path and query over the limit, Error JSON),
/// 429 (over the optional per-caller rate limit, with `Retry-After`; in the
/// format and on the paths [`ratelimit`] answers it), 503 (no request slot
/// free within the queue timeout: Error body `overloaded` and `Retry-After`;
/// or a request still running at the request timeout: empty body) and, on
/// operations that take a body, 408 (the body did not arrive in time).
fn add_limit_responses(doc: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    use utoipa::openapi::{Content, HeaderBuilder, Ref, Response, ResponseBuilder};
    let error = || Content::new(Some(Ref::from_schema_name("Error")));
    let text = || Content::new(Some(ObjectBuilder::new().schema_type(Type::String)));
    let retry_after = HeaderBuilder::new()
        .schema(Some(ObjectBuilder::new().schema_type(Type::Integer)))
        .description(Some("Seconds to wait before asking again"))
        .build();
    // An error in the route's error format: JSON under /api/ and on /mcp,
    // else the negotiated format of a page.
    let errors = |path: &str, builder: utoipa::openapi::response::ResponseBuilder| {
        if path.starts_with("/api/") || path == "/mcp" {
            builder.content("application/json", error())
        } else {
            builder
                .content("application/json", error())
                .content("text/plain", text())
                .content("text/markdown", text())
                .content("text/html", text())
        }
    };
    let uri_too_long = ResponseBuilder::new()
        .description(format!(
            "The path and query are longer than {} bytes",
            super::Limits::default().max_uri_bytes
        ))
        .content("application/json", error())
        .build();
    let unavailable = |path: &str| -> Response {
        let builder = ResponseBuilder::new()
            .description(
                "Every request slot stayed busy for the queue timeout (`--queue-timeout`, 1 s by \
                 default; Error `overloaded`, `Retry-After`), or the request ran past the \
                 request timeout (empty body). `/healthz` and `/metrics` never wait for a slot",
            )
            .header("Retry-After", retry_after.clone());
        errors(path, builder).build()
    };
    let body_timeout = |path: &str| -> Response {
        let builder = ResponseBuilder::new().description(
            "The request body did not arrive within the header timeout (`--header-timeout`; \
             Error `body_timeout`); the connection is closed",
        );
        errors(path, builder).build()
    };
    let rate_limited = |path: &str| -> Response {
        let content = match ratelimit::refusal_format(path) {
            Format::Json => error(),
            _ => text(),
        };
        ResponseBuilder::new()
            .description("Over the per-caller rate limit (`--rate-limit`, off by default)")
            .content(ratelimit::refusal_format(path).media_type(), content)
            .header("Retry-After", retry_after.clone())
            .build()
    };
    for (path, item) in doc.paths.paths.iter_mut() {
        let mut limits = vec![("414", uri_too_long.clone()), ("503", unavailable(path))];
        if !ratelimit::spares(path) {
            limits.push(("429", rate_limited(path)));
        }
        let ops = [&mut item.get, &mut item.post, &mut item.head];
        for op in ops.into_iter().flatten() {
            for (status, response) in &limits {
                op.responses
                    .responses
                    .entry((*status).to_owned())
                    .or_insert_with(|| response.clone().into());
            }
        }
        if let Some(op) = &mut item.post {
            op.responses
                .responses
                .entry("408".to_owned())
                .or_insert_with(|| body_timeout(path).into());
        }
    }
}

/// The URL callers used to reach the service (`scheme://host[:port]`), for absolute links.
pub struct BaseUrl(pub String);

impl FromRequestParts<AppState> for BaseUrl {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map_or_else(|| SocketAddr::from(([127, 0, 0, 1], 0)), |c| c.0);
        Ok(BaseUrl(base_url(
            peer,
            &parts.headers,
            &parts.uri,
            &state.proxies,
            state.tls,
        )))
    }
}

/// `GET /api/v1/openapi.json`.
#[utoipa::path(get, path = "/api/v1/openapi.json", tag = "discovery",
    summary = "This OpenAPI 3.1 document",
    responses((status = 200, description = "OpenAPI 3.1 document", content_type = "application/json")))]
pub async fn openapi_json(BaseUrl(base): BaseUrl) -> Response {
    let doc = openapi(&base);
    let body = doc.to_pretty_json().unwrap_or_default();
    document(body, "application/json")
}

/// One operation of the API, for the docs page and llms.txt.
#[derive(Debug, Clone, Serialize)]
pub struct Operation {
    pub method: String,
    pub path: String,
    pub summary: String,
    pub description: String,
    pub parameters: Vec<Parameter>,
    pub responses: Vec<ResponseDoc>,
}

/// A parameter of an operation.
#[derive(Debug, Clone, Serialize)]
pub struct Parameter {
    pub name: String,
    pub location: String,
    pub required: bool,
    pub description: String,
}

/// A response of an operation.
#[derive(Debug, Clone, Serialize)]
pub struct ResponseDoc {
    pub status: String,
    pub description: String,
    pub media_types: Vec<String>,
}

/// The human API documentation: the OpenAPI document, flattened.
#[derive(Debug, Clone, Serialize)]
pub struct DocsPage {
    pub title: String,
    pub version: String,
    pub description: String,
    pub base_url: String,
    pub operations: Vec<Operation>,
    pub attribution: String,
}

/// Builds the docs page from the OpenAPI document.
pub fn docs(base: &str) -> DocsPage {
    let doc = openapi(base);
    let mut operations = Vec::new();
    for (path, item) in &doc.paths.paths {
        if let Some(op) = get_operation(item) {
            operations.push(flatten(path, op));
        }
    }
    DocsPage {
        title: doc.info.title.clone(),
        version: doc.info.version.clone(),
        description: DESCRIPTION.to_owned(),
        base_url: base.to_owned(),
        operations,
        attribution: format!("{ATTRIBUTION_TEXT} ({ATTRIBUTION_URL}), CC BY 4.0"),
    }
}

fn get_operation(item: &PathItem) -> Option<&utoipa::openapi::path::Operation> {
    item.get.as_ref()
}

fn flatten(path: &str, op: &utoipa::openapi::path::Operation) -> Operation {
    let parameters = op
        .parameters
        .iter()
        .flatten()
        .filter_map(|p| match p {
            RefOr::T(p) => Some(Parameter {
                name: p.name.clone(),
                location: serde_json::to_value(&p.parameter_in)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default(),
                required: matches!(p.required, utoipa::openapi::Required::True),
                description: p.description.clone().unwrap_or_default(),
            }),
            RefOr::Ref(_) => None,
        })
        .collect();
    let responses = op
        .responses
        .responses
        .iter()
        .filter_map(|(status, r)| match r {
            RefOr::T(r) => Some(ResponseDoc {
                status: status.clone(),
                description: r.description.clone(),
                media_types: r.content.keys().cloned().collect(),
            }),
            RefOr::Ref(_) => None,
        })
        .collect();
    Operation {
        method: "GET".into(),
        path: path.to_owned(),
        summary: op.summary.clone().unwrap_or_default(),
        description: op.description.clone().unwrap_or_default(),
        parameters,
        responses,
    }
}

/// `GET /docs`: the API documentation in the negotiated format.
#[utoipa::path(get, path = "/docs", tag = "pages",
    summary = "API documentation for people (generated from this OpenAPI document)",
    params(("format" = Option<FormatName>, Query, description = "Response format; overrides the Accept header")),
    responses(
        (status = 200, description = "The documentation", content(
            (DocsJson = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 400, description = "Unknown `format` value", content(
            (model::Error = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 406, description = "No offered format matches `Accept`", body = model::Error),
    ))]
pub async fn docs_page(BaseUrl(base): BaseUrl, wants: Wants) -> Response {
    let page = Page::Docs(Box::new(docs(&base)));
    let reply = Reply {
        default: wants.page_default(),
        caching: Caching::Document,
        etag: None,
    };
    respond(page, &wants, &reply)
}

/// The JSON form of `/docs` (an object; see the `DocsPage` fields).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct DocsJson {
    title: String,
    version: String,
    description: String,
    base_url: String,
    operations: Vec<serde_json::Value>,
    attribution: String,
}

/// `GET /llms.txt`.
#[utoipa::path(get, path = "/llms.txt", tag = "discovery",
    summary = "llms.txt: what this service is and where its documents are, for language models",
    responses((status = 200, description = "llms.txt (Markdown)", content_type = "text/markdown")))]
pub async fn llms_txt(BaseUrl(base): BaseUrl) -> Response {
    let body = llms(&docs(&base));
    document(body, "text/markdown; charset=utf-8")
}

/// The llms.txt text (llmstxt.org): H1, summary, notes, then link sections.
pub fn llms(d: &DocsPage) -> String {
    let b = &d.base_url;
    let mut out = format!("# {}\n\n> {}\n\n", d.title, d.description);
    out.push_str("Call it with plain HTTP GET; no authentication. `curl ");
    out.push_str(b);
    out.push_str("` prints only your address. Every page is also available as JSON, plain text, Markdown and HTML: add `?format=json|text|md|html` or send `Accept: text/markdown` (or `application/json`, `text/plain`). Errors are JSON objects `{\"error\": \"invalid_ip\", \"message\": \"...\"}` with status 400 for a bad address. Coordinates are country centroids. Data: [IP Geolocation by DB-IP](https://db-ip.com) (CC BY 4.0); attribution is required when you show results.\n\n## API\n\n");
    for op in d
        .operations
        .iter()
        .filter(|o| o.path.starts_with("/api/v1/") && !o.path.ends_with(".json"))
    {
        let example = op.path.replace("{ip}", "8.8.8.8");
        out.push_str(&format!(
            "- [GET {}]({b}{example}): {}\n",
            op.path, op.summary
        ));
    }
    out.push_str(&format!(
        "\n## Docs\n\n- [API documentation (Markdown)]({b}/docs?format=md): every endpoint, parameter and response\n- [OpenAPI 3.1 description]({b}/api/v1/openapi.json): machine-readable contract\n- [Agent skill]({b}/.well-known/agent-skills/iplookup/SKILL.md): how an agent should use this API\n- [MCP server card]({b}/.well-known/mcp/server-card.json): MCP endpoint at {b}/mcp (Streamable HTTP), tools `lookup_ip` and `my_ip`\n\n## Pages as Markdown\n\n- [Your address]({b}/?format=md): the caller's own lookup\n- [An address]({b}/8.8.8.8?format=md): the page of any address, `/{{ip}}`\n\n## Optional\n\n- [API catalog]({b}/.well-known/api-catalog): RFC 9727 linkset\n- [Health]({b}/healthz): data release dates and row counts\n"
    ));
    out
}

/// `GET /.well-known/api-catalog` (RFC 9727).
#[utoipa::path(get, path = "/.well-known/api-catalog", tag = "discovery",
    summary = "API catalog (RFC 9727 linkset)",
    responses((status = 200, description = "Linkset", content_type = "application/linkset+json; profile=\"https://www.rfc-editor.org/info/rfc9727\"")))]
pub async fn api_catalog(BaseUrl(base): BaseUrl) -> Response {
    let b = base;
    let body = json!({
        "linkset": [{
            "anchor": format!("{b}/api/v1"),
            "service-desc": [{"href": format!("{b}/api/v1/openapi.json"), "type": "application/json", "title": "OpenAPI 3.1 description"}],
            "service-doc": [{"href": format!("{b}/docs"), "type": "text/html", "title": "API documentation"}],
            "service-meta": [{"href": format!("{b}/llms.txt"), "type": "text/markdown", "title": "llms.txt"}],
            "status": [{"href": format!("{b}/healthz"), "type": "application/json", "title": "Health and data release"}]
        }]
    });
    let text = serde_json::to_string_pretty(&body).unwrap_or_default();
    document(
        text,
        "application/linkset+json; profile=\"https://www.rfc-editor.org/info/rfc9727\"",
    )
}

/// The MCP server card (SEP-2127 schema v2).
pub fn card(base: &str) -> serde_json::Value {
    json!({
        "$schema": "https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json",
        "name": server_name(base),
        "version": env!("CARGO_PKG_VERSION"),
        "title": "iplookup",
        "description": "IP address lookup: country, ASN, operator and CIDR range for any IPv4/IPv6 address.",
        "websiteUrl": base,
        "remotes": [{
            "type": "streamable-http",
            "url": format!("{base}/mcp"),
            "supportedProtocolVersions": ["2026-07-28", "2025-11-25"]
        }]
    })
}

/// A reverse-DNS server name with one `/`: `com.example.ip/iplookup` for
/// `ip.example.com`, a fixed name for hosts that are not DNS names.
fn server_name(base: &str) -> String {
    let host = base
        .split("://")
        .nth(1)
        .unwrap_or("")
        .split(':')
        .next()
        .unwrap_or("");
    let is_dns = host.contains('.')
        && host.chars().any(|c| c.is_ascii_alphabetic())
        && !host.starts_with('[');
    if is_dns {
        let reversed: Vec<&str> = host.split('.').rev().collect();
        format!("{}/iplookup", reversed.join("."))
    } else {
        "io.github.iplookup/iplookup".to_owned()
    }
}

/// `GET /.well-known/mcp/server-card.json`.
#[utoipa::path(get, path = "/.well-known/mcp/server-card.json", tag = "discovery",
    summary = "MCP server card (points at the MCP endpoint /mcp)",
    responses((status = 200, description = "Server card", content_type = "application/mcp-server-card+json")))]
pub async fn server_card(BaseUrl(base): BaseUrl) -> Response {
    let text = serde_json::to_string_pretty(&card(&base)).unwrap_or_default();
    document(text, "application/mcp-server-card+json")
}

/// `GET /mcp` without `Accept: text/event-stream`: the server card, so that a
/// person or crawler that opens the endpoint learns what it is. MCP clients
/// POST JSON-RPC here; an SSE `GET` is answered 405 (the server is stateless).
#[utoipa::path(get, path = "/mcp", tag = "discovery",
    summary = "The MCP endpoint (Streamable HTTP: POST JSON-RPC); a plain GET describes it",
    responses(
        (status = 200, description = "The MCP server card", content_type = "application/mcp-server-card+json"),
        (status = 405, description = "GET with `Accept: text/event-stream`: this stateless server opens no SSE stream"),
    ))]
pub async fn mcp_get(BaseUrl(base): BaseUrl, headers: HeaderMap) -> Response {
    let wants_sse = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.contains("text/event-stream"));
    if wants_sse {
        let mut response = (
            StatusCode::METHOD_NOT_ALLOWED,
            "this stateless MCP server opens no SSE stream; POST JSON-RPC requests\n",
        )
            .into_response();
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("POST, DELETE"));
        return response;
    }
    let text = serde_json::to_string_pretty(&card(&base)).unwrap_or_default();
    document(text, "application/mcp-server-card+json")
}

/// A JSON-RPC 2.0 message (request or notification) for `/mcp`.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct JsonRpcMessage {
    /// Always `2.0`.
    jsonrpc: String,
    /// `initialize`, `server/discover`, `tools/list`, `tools/call`, ...
    method: String,
    /// Absent for notifications.
    id: Option<serde_json::Value>,
    params: Option<serde_json::Value>,
}

/// `POST /mcp`: handled by the MCP SDK (rmcp); documented here for tools.
#[utoipa::path(post, path = "/mcp", tag = "discovery",
    summary = "MCP Streamable HTTP endpoint (JSON-RPC 2.0; protocol revisions 2026-07-28 and 2025-11-25)",
    description = "Send `Accept: application/json, text/event-stream` and `Content-Type: application/json`. Tools: `lookup_ip` (input `{\"ip\": \"8.8.8.8\"}`) and `my_ip`, both returning the IpInfo object as structured content. Stateless: no `Mcp-Session-Id`.",
    request_body(content = JsonRpcMessage, content_type = "application/json"),
    responses(
        (status = 200, description = "JSON-RPC response", content_type = "application/json"),
        (status = 202, description = "Notification or response accepted"),
        (status = 400, description = "Not a valid JSON-RPC message"),
        (status = 404, description = "Unknown session"),
        (status = 406, description = "`Accept` must allow application/json and text/event-stream"),
        (status = 413, description = "Body too large"),
        (status = 415, description = "`Content-Type` must be application/json"),
        (status = 422, description = "Unprocessable JSON-RPC message"),
    ))]
#[allow(dead_code)]
fn mcp_post_doc() {}

/// The agent skill, SKILL.md.
pub fn skill(base: &str) -> String {
    format!(
        r#"---
name: iplookup
description: Look up the country, network operator (ASN), CIDR range and reverse DNS of any IPv4 or IPv6 address, or of the caller's own address, with the iplookup HTTP API at {base}. Use when asked where an IP address is, who operates it, or what the user's public IP is.
---

# iplookup: IP address lookups

Base URL: `{base}`. Plain HTTP GET, no API key, no sign-up.

## Endpoints

- `GET {base}/api/v1/ip/{{ip}}`: one address (IPv4 dotted like `8.8.8.8`, or IPv6 colon-hex like `2001:db8::1`; no brackets, ports or zone ids).
- `GET {base}/api/v1/me`: the caller's own address.
- `GET {base}/`: with curl, only the caller's address as plain text.

```sh
curl -s {base}/api/v1/ip/8.8.8.8
curl -s {base}/api/v1/me
curl -s {base}/
curl -s -H 'Accept: text/markdown' {base}/8.8.8.8
```

## Answer (JSON `IpInfo`)

Every key is always present; unknown values are `null`.

- `ip`: canonical address; `version`: `IPv4` or `IPv6`; `is_public`: false for private, loopback, documentation and other special-purpose blocks.
- `location`: `country_code`, `country`, `country_bn` (Bangla), `flag`, `continent`, `city`, `latitude`/`longitude` (country centroid, not a street address), `accuracy` (`country`, `city` or null), `time_zone`, `local_time` (RFC 3339), `currency`, `calling_code`.
- `network`: `asn`, `organization`, `range` (CIDR block holding the address), `reverse_dns`.

## Errors

Status 400 with `{{"error": "invalid_ip", "message": "..."}}` when the address is not valid. 404 `not_found` for unknown paths, 406 when no format matches `Accept`.

## Formats

Add `?format=json|text|md|html` or send `Accept: application/json`, `text/plain`, `text/markdown` or `text/html`.

## Attribution

The data is DB-IP Lite, CC BY 4.0. When you show results to people, credit it: [IP Geolocation by DB-IP](https://db-ip.com).

More: [API docs]({base}/docs?format=md), [OpenAPI]({base}/api/v1/openapi.json), MCP endpoint `{base}/mcp` (tools `lookup_ip`, `my_ip`).
"#
    )
}

/// `GET /.well-known/agent-skills/index.json`.
#[utoipa::path(get, path = "/.well-known/agent-skills/index.json", tag = "discovery",
    summary = "Agent skills discovery index",
    responses((status = 200, description = "Skills index", content_type = "application/json")))]
pub async fn skills_index(BaseUrl(base): BaseUrl) -> Response {
    let b = base;
    let digest = sha2::Sha256::digest(skill(&b).as_bytes());
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    let body = json!({
        "$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json",
        "skills": [{
            "name": "iplookup",
            "type": "skill-md",
            "description": "Look up country, ASN, operator, CIDR range and reverse DNS of any IPv4/IPv6 address with this service's HTTP API.",
            "url": "/.well-known/agent-skills/iplookup/SKILL.md",
            "digest": format!("sha256:{hex}")
        }]
    });
    document(
        serde_json::to_string_pretty(&body).unwrap_or_default(),
        "application/json",
    )
}

/// `GET /.well-known/agent-skills/iplookup/SKILL.md`.
#[utoipa::path(get, path = "/.well-known/agent-skills/iplookup/SKILL.md", tag = "discovery",
    summary = "The agent skill for this API",
    responses((status = 200, description = "SKILL.md with YAML front matter", content_type = "text/markdown")))]
pub async fn skill_md(BaseUrl(base): BaseUrl) -> Response {
    document(skill(&base), "text/markdown; charset=utf-8")
}

/// A static document (CORS headers come from the common layer, as for every page).
fn document(body: String, content_type: &str) -> Response {
    let mut headers = HeaderMap::new();
    if let Ok(v) = HeaderValue::from_str(content_type) {
        headers.insert(header::CONTENT_TYPE, v);
    }
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    (StatusCode::OK, headers, body).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openapi_is_3_1_with_every_lookup_path() {
        let doc = serde_json::to_value(openapi("http://x")).unwrap();
        assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
        assert_eq!(doc["info"]["version"], "1.0.0");
        for p in [
            "/api/v1/me",
            "/api/v1/ip/{ip}",
            "/",
            "/{ip}",
            "/docs",
            "/llms.txt",
            "/assets/{file}",
        ] {
            assert!(doc["paths"][p]["get"].is_object(), "{p}");
        }
        let file = &doc["paths"]["/assets/{file}"]["get"]["parameters"][0];
        let map = super::super::assets::world_map().path.clone();
        assert_eq!(file["schema"]["enum"][0], map["/assets/".len()..]);
        assert!(doc.get("security").is_none());
    }

    #[test]
    fn every_operation_documents_the_limit_answers() {
        let doc = serde_json::to_value(openapi("http://x")).unwrap();
        let paths = doc["paths"].as_object().unwrap();
        let mut seen = 0;
        for (path, item) in paths {
            for (method, op) in item.as_object().unwrap() {
                let responses = &op["responses"];
                assert!(responses["414"].is_object(), "{method} {path}: 414");
                assert!(responses["503"].is_object(), "{method} {path}: 503");
                assert!(
                    responses["503"]["headers"]["Retry-After"].is_object(),
                    "{method} {path}: 503 Retry-After"
                );
                assert_eq!(
                    responses["408"].is_object(),
                    method == "post",
                    "{method} {path}: 408"
                );
                let spared = path == "/healthz";
                assert_eq!(
                    responses["429"].is_object(),
                    !spared,
                    "{method} {path}: 429"
                );
                seen += 1;
            }
        }
        assert!(seen >= 14, "only {seen} operations");
        let api_429 = &doc["paths"]["/api/v1/ip/{ip}"]["get"]["responses"]["429"];
        assert_eq!(
            api_429["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/Error"
        );
        assert!(api_429["headers"]["Retry-After"].is_object());
    }

    #[test]
    fn server_names_are_reverse_dns_with_one_slash() {
        assert_eq!(
            server_name("https://ip.example.com"),
            "com.example.ip/iplookup"
        );
        assert_eq!(
            server_name("http://127.0.0.1:8080"),
            "io.github.iplookup/iplookup"
        );
        assert_eq!(
            server_name("http://localhost:8080"),
            "io.github.iplookup/iplookup"
        );
    }
}
