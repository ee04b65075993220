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
        mcp_post,
        skills_index,
        skill_md,
        super::assets::asset,
    ),
    components(schemas(model::IpInfo, model::Location, model::Network, model::Error, model::ErrorCode, model::Accuracy, FormatName, IpParam, IpFormParam)),
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

/// The OpenAPI document as served: [`openapi`] with `POST /mcp` written out
/// in full ([`describe_mcp_post`]), as JSON.
pub fn openapi_json_value(base: &str) -> serde_json::Value {
    let mut doc = serde_json::to_value(openapi(base)).unwrap_or_default();
    describe_mcp_post(&mut doc);
    doc
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

/// The base of absolute links (`scheme://host[:port]`): `--public-url` when
/// set, else the URL callers used to reach the service ([`base_url`]: the
/// request's authority, and the scheme a trusted proxy reports).
pub struct BaseUrl {
    pub url: String,
    /// Built from the request: the documents then vary with `Host` and must
    /// not be kept by shared caches ([`BaseUrl::finish`]).
    pub from_request: bool,
}

impl BaseUrl {
    /// The headers a document built on this base needs. With `--public-url`
    /// it is the same for every request: nothing to add. Built from the
    /// request, it carries `Vary: Host` (next to what already varies) and
    /// `Cache-Control: private`, so that no shared cache hands one caller's
    /// `Host` (or an absolute-form target, or a proxy's scheme) to another.
    pub fn finish(&self, mut response: Response) -> Response {
        if !self.from_request {
            return response;
        }
        let headers = response.headers_mut();
        let vary = match headers.get(header::VARY).and_then(|v| v.to_str().ok()) {
            Some(v) if v.trim() == "*" => None,
            Some(v) if !v.trim().is_empty() => Some(format!("{v}, Host")),
            _ => Some("Host".to_owned()),
        };
        if let Some(v) = vary.and_then(|v| HeaderValue::from_str(&v).ok()) {
            headers.insert(header::VARY, v);
        }
        let public = headers
            .get(header::CACHE_CONTROL)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("public"));
        if public {
            headers.insert(
                header::CACHE_CONTROL,
                HeaderValue::from_static(PRIVATE_DOCUMENT),
            );
        }
        response
    }
}

/// `Cache-Control` of a document built from the request (no `--public-url`).
pub const PRIVATE_DOCUMENT: &str = "private, max-age=3600";
/// `Cache-Control` of a document built on `--public-url`.
pub const PUBLIC_DOCUMENT: &str = "public, max-age=3600";

impl FromRequestParts<AppState> for BaseUrl {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        if let Some(public) = &state.public_url {
            return Ok(BaseUrl {
                url: public.base(),
                from_request: false,
            });
        }
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map_or_else(|| SocketAddr::from(([127, 0, 0, 1], 0)), |c| c.0);
        Ok(BaseUrl {
            url: base_url(peer, &parts.headers, &parts.uri, &state.proxies, state.tls),
            from_request: true,
        })
    }
}

/// `GET /api/v1/openapi.json`.
#[utoipa::path(get, path = "/api/v1/openapi.json", tag = "discovery",
    summary = "This OpenAPI 3.1 document",
    responses((status = 200, description = "OpenAPI 3.1 document", content_type = "application/json")))]
pub async fn openapi_json(base: BaseUrl) -> Response {
    let doc = openapi_json_value(&base.url);
    let body = serde_json::to_string_pretty(&doc).unwrap_or_default();
    document(body, "application/json", &base)
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
pub async fn docs_page(base: BaseUrl, wants: Wants) -> Response {
    let page = Page::Docs(Box::new(docs(&base.url)));
    let reply = Reply {
        default: wants.page_default(),
        caching: Caching::Document,
        etag: None,
    };
    base.finish(respond(page, &wants, &reply))
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
pub async fn llms_txt(base: BaseUrl) -> Response {
    let body = llms(&docs(&base.url));
    document(body, "text/markdown; charset=utf-8", &base)
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
pub async fn api_catalog(base: BaseUrl) -> Response {
    let b = &base.url;
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
        &base,
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
pub async fn server_card(base: BaseUrl) -> Response {
    let text = serde_json::to_string_pretty(&card(&base.url)).unwrap_or_default();
    document(text, "application/mcp-server-card+json", &base)
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
pub async fn mcp_get(base: BaseUrl, headers: HeaderMap) -> Response {
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
    let text = serde_json::to_string_pretty(&card(&base.url)).unwrap_or_default();
    document(text, "application/mcp-server-card+json", &base)
}

/// `POST /mcp` in the OpenAPI document: written out here rather than derived,
/// because rmcp (not a handler of ours) reads the body. It states the
/// transport rules [`super::mcp::post`] applies and every answer it can give.
fn describe_mcp_post(doc: &mut serde_json::Value) {
    let schemas = &mut doc["components"]["schemas"];
    schemas["McpMessage"] = mcp_message_schema();
    schemas["JsonRpcAnswer"] = jsonrpc_answer_schema();
    schemas["JsonRpcError"] = jsonrpc_error_schema();
    schemas["JsonRpcErrorObject"] = jsonrpc_error_object_schema();
    let post = &mut doc["paths"]["/mcp"]["post"];
    // The limit answers (414, 429, 503) were added to the typed stub; keep them.
    let limits = post["responses"].take();
    *post = mcp_post_operation();
    if let (Some(responses), Some(limits)) = (post["responses"].as_object_mut(), limits.as_object())
    {
        for (status, response) in limits {
            responses
                .entry(status.clone())
                .or_insert_with(|| response.clone());
        }
    }
}

fn mcp_post_operation() -> serde_json::Value {
    let max = super::mcp::MAX_BODY_BYTES;
    let jsonrpc_error = |description: &str| {
        json!({"description": description,
               "content": {"application/json": {"schema": {"$ref": "#/components/schemas/JsonRpcError"}}}})
    };
    let error = |description: &str| {
        json!({"description": description,
               "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}})
    };
    json!({
        "tags": ["discovery"],
        "operationId": "mcp_post",
        "summary": "MCP Streamable HTTP endpoint (JSON-RPC 2.0; protocol revisions 2026-07-28 and 2025-11-25)",
        "description": format!(
            "One JSON-RPC 2.0 message per request, answered with one JSON object (never an SSE stream). \
             Send `Content-Type: application/json` and `Accept: application/json, text/event-stream` \
             (both listed, as the MCP transport requires; OpenAPI tools ignore an `Accept` parameter, so it is \
             stated here too). Tools: `lookup_ip` (arguments `{{\"ip\": \"8.8.8.8\"}}`) and `my_ip`, both returning \
             the IpInfo object as structured content. Stateless: no `Mcp-Session-Id` is issued or needed.\n\n\
             The request body schema is protocol revision 2025-11-25: `initialize`, then requests without \
             `_meta`, with `MCP-Protocol-Version` absent or `2025-11-25`. Revision 2026-07-28 is served too, \
             but ties headers to the body in ways a schema cannot state: no `initialize`; `server/discover` \
             and every request carry `params._meta` with `io.modelcontextprotocol/protocolVersion` \
             `2026-07-28` and `io.modelcontextprotocol/clientCapabilities`, and the headers \
             `MCP-Protocol-Version: 2026-07-28`, `Mcp-Method` (the body's `method`) and, for `tools/call`, \
             `Mcp-Name` (the tool name). A header that is missing or differs from the body is refused with 400 \
             (JSON-RPC -32020 or -32602), as is `MCP-Protocol-Version: 2026-07-28` on a request without `_meta`.\n\n\
             Checked before the message is read, in this order: `Origin` (403), `Accept` (406), `Content-Type` \
             (415), body size, at most {max} bytes whatever `Content-Length` says (413), JSON (400, -32700), \
             JSON-RPC (400, -32600)."
        ),
        "parameters": [
            {"name": "Accept", "in": "header", "required": true,
             "description": "Must list both `application/json` and `text/event-stream`; 406 otherwise.",
             "schema": {"type": "string", "enum": ["application/json, text/event-stream"]}},
            {"name": "Origin", "in": "header", "required": false,
             "description": "Sent by browsers. Absent: accepted. Present: must be the `--public-url` origin or an \
                             `--mcp-allowed-origin`, or (without `--public-url`) name the host and port of `Host`; \
                             any other value is refused with 403.",
             "schema": {"type": "string"}},
            {"name": "MCP-Protocol-Version", "in": "header", "required": false,
             "description": "The protocol revision: absent or `2025-11-25` for the messages of this schema \
                             (`2026-07-28` with the headers and `_meta` the description names). An unknown or \
                             mismatched value is refused with 400.",
             "schema": {"type": "string", "enum": ["2025-11-25"]}},
            {"name": "Mcp-Session-Id", "in": "header", "required": false,
             "description": "Ignored: this server is stateless and issues no session.",
             "schema": {"type": "string"}}
        ],
        "requestBody": {
            "required": true,
            "description": format!("One JSON-RPC 2.0 request or notification, at most {max} bytes."),
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/McpMessage"}}}
        },
        "responses": {
            "200": {"description": "The JSON-RPC response to a request: a `result`, or an `error` (an unknown tool, \
                                    bad tool arguments). Tool failures such as an invalid address are results with \
                                    `isError: true`.",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/JsonRpcAnswer"}}}},
            "202": {"description": "A notification was accepted; empty body"},
            "400": jsonrpc_error("The body is not JSON (-32700), not a JSON-RPC message (-32600), or the \
                                  `MCP-Protocol-Version` header or `_meta` are unknown, missing or mismatched"),
            "403": error("`Origin` is present and not accepted (`forbidden_origin`)"),
            "404": jsonrpc_error("Unknown JSON-RPC method (-32601)"),
            "406": error("`Accept` does not list both application/json and text/event-stream (`not_acceptable`)"),
            "413": error(&format!("The body is longer than {max} bytes (`body_too_large`)")),
            "415": jsonrpc_error("`Content-Type` is not application/json (-32700)")
        }
    })
}

/// `POST /mcp`: a stub for `utoipa` (path, tag, limit answers);
/// [`describe_mcp_post`] replaces it with the full description.
#[utoipa::path(post, path = "/mcp", tag = "discovery", operation_id = "mcp_post",
    responses((status = 200, description = "JSON-RPC response", content_type = "application/json")))]
#[allow(dead_code)]
fn mcp_post() {}

/// A JSON-RPC request or notification this server reads.
fn mcp_message_schema() -> serde_json::Value {
    let id = json!({"anyOf": [
        {"type": "string"},
        {"type": "integer", "minimum": i64::MIN, "maximum": i64::MAX}
    ], "description": "Echoed in the answer"});
    let request = |method: &str, params: serde_json::Value, required: bool| {
        let mut required_keys = vec!["jsonrpc", "id", "method"];
        if required {
            required_keys.push("params");
        }
        json!({"type": "object", "required": required_keys, "properties": {
            "jsonrpc": {"const": "2.0"},
            "id": id,
            "method": {"const": method},
            "params": params
        }})
    };
    // Members the server does not know are ignored, so no `additionalProperties: false`.
    let meta = json!({"type": "object", "description": "Request metadata; ignored by this server"});
    let params = |extra: serde_json::Value| {
        let mut properties = json!({"_meta": meta});
        if let (Some(p), Some(extra)) = (properties.as_object_mut(), extra.as_object()) {
            p.extend(extra.clone());
        }
        json!({"type": "object", "properties": properties})
    };
    let call = json!({"type": "object", "required": ["name"], "properties": {
        "name": {"type": "string", "description": "`lookup_ip` or `my_ip`; another name is a JSON-RPC error"},
        "arguments": {"type": "object", "description": "`{\"ip\": \"8.8.8.8\"}` for lookup_ip, `{}` for my_ip"},
        "_meta": meta
    }});
    json!({
        "description": "A JSON-RPC 2.0 request (with `id`) or notification (without) of MCP revision 2025-11-25 (see the operation for 2026-07-28).",
        "oneOf": [
            request("initialize", json!({"type": "object", "required": ["protocolVersion", "capabilities", "clientInfo"], "properties": {
                "protocolVersion": {"const": "2025-11-25"},
                "capabilities": {"type": "object", "description": "The client's capabilities; this server asks for none"},
                "clientInfo": {"type": "object", "required": ["name", "version"], "properties": {
                    "name": {"type": "string"}, "version": {"type": "string"}}}
            }}), true),
            request("ping", params(json!({})), false),
            request("tools/list", params(json!({"cursor": {"type": "string"}})), false),
            request("tools/call", call, true),
            {"type": "object", "required": ["jsonrpc", "id", "method"],
             "description": "Any other request: answered 200 with JSON-RPC error -32601 (method not found)",
             "properties": {
                "jsonrpc": {"const": "2.0"},
                "id": id,
                "method": {"type": "string", "not": {"enum": super::mcp::IMPLEMENTED}},
                "params": {}
            }},
            {"type": "object", "required": ["jsonrpc", "method"], "not": {"required": ["id"]},
             "description": "A notification (`notifications/initialized`, ...): accepted and ignored, 202",
             "properties": {
                "jsonrpc": {"const": "2.0"},
                "method": {"type": "string"},
                "params": {}
            }}
        ]
    })
}

/// The answer to a request: `result` or `error`.
fn jsonrpc_answer_schema() -> serde_json::Value {
    json!({"type": "object", "required": ["jsonrpc"], "properties": {
        "jsonrpc": {"const": "2.0"},
        "id": {"type": ["string", "integer", "null"]},
        "result": {"type": "object"},
        "error": {"$ref": "#/components/schemas/JsonRpcErrorObject"}
    }, "oneOf": [{"required": ["result"]}, {"required": ["error"]}]})
}

/// A JSON-RPC error object as the whole answer.
fn jsonrpc_error_schema() -> serde_json::Value {
    json!({"type": "object", "required": ["jsonrpc", "error"], "properties": {
        "jsonrpc": {"const": "2.0"},
        "id": {"type": ["string", "integer", "null"]},
        "error": {"$ref": "#/components/schemas/JsonRpcErrorObject"}
    }})
}

/// The `error` member of a JSON-RPC answer.
fn jsonrpc_error_object_schema() -> serde_json::Value {
    json!({"type": "object", "required": ["code", "message"], "properties": {
        "code": {"type": "integer", "description": "-32700 parse error, -32600 invalid request, -32601 unknown method, -32602 invalid params"},
        "message": {"type": "string"},
        "data": {}
    }})
}

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
pub async fn skills_index(base: BaseUrl) -> Response {
    // The digest of the very bytes SKILL.md serves to this request (same base).
    let digest = sha2::Sha256::digest(skill(&base.url).as_bytes());
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
        &base,
    )
}

/// `GET /.well-known/agent-skills/iplookup/SKILL.md`.
#[utoipa::path(get, path = "/.well-known/agent-skills/iplookup/SKILL.md", tag = "discovery",
    summary = "The agent skill for this API",
    responses((status = 200, description = "SKILL.md with YAML front matter", content_type = "text/markdown")))]
pub async fn skill_md(base: BaseUrl) -> Response {
    document(skill(&base.url), "text/markdown; charset=utf-8", &base)
}

/// A description document built on `base` (CORS headers come from the common
/// layer, as for every page; caching and `Vary` from [`BaseUrl::finish`]).
fn document(body: String, content_type: &str, base: &BaseUrl) -> Response {
    let mut headers = HeaderMap::new();
    if let Ok(v) = HeaderValue::from_str(content_type) {
        headers.insert(header::CONTENT_TYPE, v);
    }
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(PUBLIC_DOCUMENT),
    );
    base.finish((StatusCode::OK, headers, body).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openapi_is_3_1_with_every_lookup_path() {
        let doc = openapi_json_value("http://x");
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
        let doc = openapi_json_value("http://x");
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
