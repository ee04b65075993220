//! The discovery documents, for tools and agents: `/llms.txt` (its text; the
//! route is served by [`super::openapi`], which lists the API in it), the
//! RFC 9727 api-catalog, the MCP server card (also on a plain `GET /mcp`),
//! the agent skills index and its SKILL.md, and `/robots.txt`. Each but
//! robots.txt is built on the base URL
//! ([`BaseUrl`]); the prose of llms.txt and SKILL.md lives in `assets/`.

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use serde_json::json;
use sha2::Digest;

use super::render::DocsPage;
use super::routes;
use crate::model::{self, ErrorCode};
use crate::web::serve::base::{BaseUrl, document};
use crate::web::serve::body::error_json;
use crate::web::serve::policy::{PolicyOf, mark};
use crate::web::serve::served::{Served, describe};
use axum::routing::get;

/// The prose of llms.txt, with `{title}`, `{description}`, `{base}` and
/// `{api}` (the list of API operations) to fill in.
const LLMS_TXT: &str = include_str!("../../../assets/llms.txt");
/// SKILL.md, with `{base}` to fill in.
const SKILL_MD: &str = include_str!("../../../assets/SKILL.md");

/// The llms.txt text (llmstxt.org): H1, summary, notes, then link sections.
pub(crate) fn llms(d: &DocsPage) -> String {
    let b = &d.base_url;
    let mut api = String::new();
    for op in d
        .operations()
        .filter(|o| o.path.starts_with("/api/v1/") && !o.path.ends_with(".json"))
    {
        // A POST cannot be followed as a link: it points at the docs.
        let example = match super::params::example_path(&op.path) {
            Some(path) if op.method == "GET" => path,
            _ => "/docs?format=md".to_owned(),
        };
        api.push_str(&format!(
            "- [{} {}]({b}{example}): {}\n",
            op.method, op.path, op.summary
        ));
    }
    fill(
        LLMS_TXT,
        &[
            ("title", &d.title),
            ("description", &d.description),
            ("base", b),
            ("api", &api),
        ],
    )
}

/// The agent skill, SKILL.md.
pub(crate) fn skill(base: &str) -> String {
    fill(SKILL_MD, &[("base", base)])
}

/// `template` with every `{name}` of `values` replaced by its value, in one
/// pass: a value is never read as a template, whatever it holds.
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 256);
    let mut rest = template;
    while let Some(at) = rest.find('{') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let value = values.iter().find_map(|(name, value)| {
            let tail = rest.strip_prefix('{')?.strip_prefix(name)?;
            tail.strip_prefix('}').map(|tail| (value, tail))
        });
        match value {
            Some((value, tail)) => {
                out.push_str(value);
                rest = tail;
            }
            None => {
                out.push('{');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// `GET /.well-known/api-catalog` (RFC 9727).
#[utoipa::path(get, path = "/.well-known/api-catalog", tag = "discovery",
    summary = "API catalog (RFC 9727 linkset)",
    description = "An RFC 9264 linkset as RFC 9727 asks: the API's anchor with its `service-desc` (the OpenAPI 3.1 document and its 3.0 rendition), `service-doc` (/docs), `service-meta` (llms.txt) and `status` (/healthz).",
    responses((status = 200, description = "Linkset", content_type = "application/linkset+json; profile=\"https://www.rfc-editor.org/info/rfc9727\"")))]
pub(crate) async fn api_catalog(base: BaseUrl) -> Response {
    let b = &base.url;
    let body = json!({
        "linkset": [{
            "anchor": format!("{b}/api/v1"),
            "service-desc": [
                {"href": format!("{b}/api/v1/openapi.json"), "type": "application/json", "title": "OpenAPI 3.1 description"},
                {"href": format!("{b}{}", routes::OPENAPI_30.template), "type": "application/json", "title": "OpenAPI 3.0 rendition (for tools that read only 3.0)"}
            ],
            "service-doc": [{"href": format!("{b}/docs"), "type": "text/html", "title": "API documentation"}],
            "service-meta": [{"href": format!("{b}/llms.txt"), "type": "text/markdown", "title": "llms.txt"}],
            "status": [{"href": format!("{b}/healthz"), "type": "application/json", "title": "Health and data release"}]
        }]
    });
    let text = serde_json::to_string_pretty(&body).unwrap_or_default();
    document(text, &base)
}

/// The MCP server card (SEP-2127 schema v2).
pub(crate) fn card(base: &str) -> serde_json::Value {
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
    description = "The MCP server card (SEP-2127 schema): name, version, description and the Streamable HTTP endpoint `/mcp` with the protocol revisions it speaks. Also at `/.well-known/mcp`. Served with `Access-Control-Allow-Origin: *`.",
    responses((status = 200, description = "Server card", content_type = "application/mcp-server-card+json")))]
pub(crate) async fn server_card(base: BaseUrl) -> Response {
    let text = serde_json::to_string_pretty(&card(&base.url)).unwrap_or_default();
    document(text, &base)
}

/// `GET /mcp` without `Accept: text/event-stream`: the server card, so that a
/// person or crawler that opens the endpoint learns what it is. MCP clients
/// POST JSON-RPC here; an SSE `GET` is answered 405 (the server is stateless).
#[utoipa::path(get, path = "/mcp", tag = "discovery",
    summary = "The MCP endpoint (Streamable HTTP: POST JSON-RPC); a plain GET describes it",
    description = "A plain GET answers the MCP server card, so a person or a crawler that opens `/mcp` learns what it is; MCP clients POST JSON-RPC here (see `POST /mcp`). This stateless server opens no SSE stream.",
    responses(
        (status = 200, description = "The MCP server card", content_type = "application/mcp-server-card+json"),
        (status = 405, description = "GET with `Accept: text/event-stream`: this stateless server opens no SSE stream (error `method_not_allowed`, `Allow: POST`)", body = model::Error),
    ))]
pub(crate) async fn mcp_get(base: BaseUrl, headers: HeaderMap) -> Response {
    let wants_sse = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.contains("text/event-stream"));
    if wants_sse {
        // The MCP transport's answer to a server that offers no SSE stream.
        let mut response = error_json(
            &routes::MCP,
            StatusCode::METHOD_NOT_ALLOWED,
            ErrorCode::MethodNotAllowed,
            "this stateless MCP server opens no SSE stream; POST JSON-RPC requests".into(),
        );
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("POST"));
        return response;
    }
    let text = serde_json::to_string_pretty(&card(&base.url)).unwrap_or_default();
    mark(document(text, &base), PolicyOf(&routes::SERVER_CARD))
}

/// `GET /.well-known/agent-skills/index.json`.
#[utoipa::path(get, path = "/.well-known/agent-skills/index.json", tag = "discovery",
    summary = "Agent skills discovery index",
    description = "The agent skills index (discovery draft 0.2.0): one skill, `iplookup`, with its URL and the SHA-256 digest of the served SKILL.md.",
    responses((status = 200, description = "Skills index", content_type = "application/json")))]
pub(crate) async fn skills_index(base: BaseUrl) -> Response {
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
        &base,
    )
}

/// `GET /.well-known/agent-skills/iplookup/SKILL.md`.
#[utoipa::path(get, path = "/.well-known/agent-skills/iplookup/SKILL.md", tag = "discovery",
    summary = "The agent skill for this API",
    description = "SKILL.md: YAML front matter (`name`, `description`), then how an agent looks up addresses, fields, batches and AS numbers here, with example links.",
    responses((status = 200, description = "SKILL.md with YAML front matter", content_type = "text/markdown")))]
pub(crate) async fn skill_md(base: BaseUrl) -> Response {
    document(skill(&base.url), &base)
}

/// `/robots.txt` (RFC 9309): every crawler may read the pages; the API,
/// `/mcp` and the metrics are for programs that ask for them.
pub(crate) const ROBOTS: &str =
    "User-agent: *\nDisallow: /api/\nDisallow: /mcp\nDisallow: /metrics\nAllow: /\n";

/// `GET /robots.txt` (not described: it is for crawlers).
pub(crate) async fn robots_txt() -> Response {
    crate::web::serve::policy::document(ROBOTS)
}

/// The routes this module answers (`/mcp`'s `GET` is [`mcp_get`], with
/// rmcp's `POST`: [`super::openapi`] attaches both).
pub(crate) const SERVED: &[Served] = &[
    Served::new(
        &routes::API_CATALOG,
        |_| get(api_catalog),
        &[describe::<__path_api_catalog>],
    ),
    Served::new(
        &routes::SERVER_CARD,
        |_| get(server_card),
        &[describe::<__path_server_card>],
    ),
    Served::new(&routes::SERVER_CARD_ALIAS, |_| get(server_card), &[]),
    Served::new(&routes::ROBOTS_TXT, |_| get(robots_txt), &[]),
    Served::new(
        &routes::SKILLS_INDEX,
        |_| get(skills_index),
        &[describe::<__path_skills_index>],
    ),
    Served::new(
        &routes::SKILL_MD,
        |_| get(skill_md),
        &[describe::<__path_skill_md>],
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_are_filled_once() {
        let filled = fill("a {x} {y} {z} {", &[("x", "{y}"), ("y", "2")]);
        assert_eq!(filled, "a {y} 2 {z} {");
        let skill = skill("http://h");
        assert!(skill.contains("Base URL: `http://h`"), "{skill}");
        assert!(skill.contains("`GET http://h/api/v1/ip/{ip}`"), "{skill}");
        assert!(!skill.contains("{base}"));
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
