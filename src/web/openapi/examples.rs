//! The example of every operation: a `curl` command and, where the answer
//! is data, the answer itself, computed once from the data the server
//! serves through the same code as the route's answer (the lookup, then
//! [`Page::render`], the batch writer, the field's text), with reverse DNS
//! left out. They go into the OpenAPI document (`x-codeSamples` and the
//! responses' `examples`, [`add`]) and onto `/docs`. `tests/external/docs.rs`
//! checks each against its schema and against what the server answers now.
//!
//! Commands name the base URL as [`BASE`], replaced by the request's base
//! when a document is served.

use serde_json::{Value, json};

use super::super::batch;
use super::super::render::{AsnPage, Example, LookupKind, LookupPage, Page, View};
use crate::fields::Field;
use crate::lookup::Lookup;
use crate::lookup::asn::Prefixes;
use crate::web::address::field::field_text;
use crate::web::address::ifconfig;
use crate::web::network::country_view::CountryAnswer;
use crate::web::network::prefix_view::PrefixAnswer;
use crate::web::serve::negotiate::Format;

/// Where the base URL goes in an example's command.
pub(crate) const BASE: &str = "{base}";

/// The addresses and AS of the examples.
pub(crate) const V4: &str = "8.8.8.8";
pub(crate) const V6: &str = "2001:4860:4860::8888";
pub(crate) const AS: &str = "AS15169";
/// The prefix and the country of the examples.
pub(crate) const PREFIX: &str = "8.8.8.0/24";
pub(crate) const COUNTRY: &str = "BT";
/// An address in a special-purpose block.
pub(crate) const PRIVATE: &str = "10.1.2.3";
/// The batch example's body.
pub(crate) const BATCH: [&str; 3] = [V4, V6, "not-an-ip"];

/// The examples of each operation, by operationId, from `lookup`'s data.
pub(crate) fn all(lookup: &Lookup) -> Vec<(&'static str, Vec<Example>)> {
    let page = |ip: &str, kind: LookupKind, format: Format| {
        let answered = lookup.lookup_at(crate::lookup::parse(ip).ok()?, chrono::Utc::now());
        let body = Page::Lookup(Box::new(LookupPage::new(answered, kind)))
            .render(format, &View::default());
        String::from_utf8(body).ok()
    };
    let asn = |format: Format| {
        let which = Prefixes::Page {
            number: 1,
            per_page: super::super::asn::PER_PAGE,
        };
        let info = lookup.asn_now(AS, which).ok()?.info;
        let page = Page::Asn(Box::new(AsnPage {
            info,
            releases: None,
        }));
        String::from_utf8(page.render(format, &View::default())).ok()
    };
    let field = |ip: &str, field: Field| {
        let info = lookup
            .lookup_at(crate::lookup::parse(ip).ok()?, chrono::Utc::now())
            .info;
        Some(field_text(field, &info))
    };
    let json = "application/json";
    let text = "text/plain";
    let batch_body = serde_json::to_string(&BATCH).unwrap_or_default();
    let batch_answer = String::from_utf8(batch::example_answer(lookup, &BATCH)).ok();
    let as_caller = format!("(a caller at {V4})");
    let mut all = vec![
        (
            "api_me",
            vec![example(
                &format!("The caller's address {as_caller}"),
                "/api/v1/me",
                json,
                page(V4, LookupKind::ApiMe, Format::Json),
            )],
        ),
        (
            "api_ip",
            vec![
                example(
                    "An IPv4 address",
                    &format!("/api/v1/ip/{V4}"),
                    json,
                    page(V4, LookupKind::ApiIp, Format::Json),
                ),
                example(
                    "An IPv6 address",
                    &format!("/api/v1/ip/{V6}"),
                    json,
                    page(V6, LookupKind::ApiIp, Format::Json),
                ),
                example(
                    "A private address: special_purpose says why it has no location",
                    &format!("/api/v1/ip/{PRIVATE}"),
                    json,
                    page(PRIVATE, LookupKind::ApiIp, Format::Json),
                ),
            ],
        ),
        (
            "api_me_field",
            vec![example(
                &format!("The caller's country code {as_caller}"),
                "/api/v1/me/country_code",
                text,
                field(V4, Field::CountryCode),
            )],
        ),
        (
            "api_ip_field",
            vec![
                example(
                    "The AS number of an address",
                    &format!("/api/v1/ip/{V4}/asn"),
                    text,
                    field(V4, Field::Asn),
                ),
                example(
                    "The country of an IPv6 address",
                    &format!("/api/v1/ip/{V6}/country"),
                    text,
                    field(V6, Field::Country),
                ),
            ],
        ),
        (
            "api_ip_batch",
            vec![Example {
                title: "Three addresses, one of them not an address".into(),
                request: format!(
                    "curl -H 'Content-Type: application/json' -d '{batch_body}' {BASE}/api/v1/ip"
                ),
                media_type: json.into(),
                answer: batch_answer.map(|a| pretty(json, &a)),
            }],
        ),
        (
            "api_asn",
            vec![example(
                "Google's AS",
                &format!("/api/v1/asn/{AS}"),
                json,
                asn(Format::Json),
            )],
        ),
        (
            "api_asn_csv",
            vec![example(
                "Every prefix of Google's AS",
                &format!("/api/v1/asn/{AS}/prefixes.csv"),
                "text/csv",
                lookup.asn_csv_now(AS),
            )],
        ),
        (
            "api_prefix",
            vec![
                example(
                    "A prefix that lies in one row of the data",
                    &format!("/api/v1/prefix/{PREFIX}"),
                    json,
                    lookup
                        .prefix_now(PREFIX, super::super::asn::PER_PAGE)
                        .ok()
                        .and_then(|p| serde_json::to_string(&p).ok()),
                ),
                example(
                    "A prefix in a special-purpose block",
                    "/api/v1/prefix/10.0.0.0/8",
                    json,
                    lookup
                        .prefix_now("10.0.0.0/8", super::super::asn::PER_PAGE)
                        .ok()
                        .and_then(|p| serde_json::to_string(&p).ok()),
                ),
            ],
        ),
        (
            "api_country",
            vec![example(
                "Bhutan: its facts, address space and ASes",
                &format!("/api/v1/country/{COUNTRY}"),
                json,
                lookup
                    .country_now(COUNTRY, super::super::asn::PER_PAGE)
                    .ok()
                    .and_then(|c| serde_json::to_string(&c).ok()),
            )],
        ),
        (
            "root",
            vec![example(
                &format!("The caller's bare address {as_caller}"),
                "/",
                text,
                page(V4, LookupKind::Root, Format::Text),
            )],
        ),
        (
            "address_page",
            vec![example(
                "The page of an address, as a terminal gets it",
                &format!("/{V4}"),
                text,
                page(V4, LookupKind::Address, Format::Text),
            )],
        ),
        (
            "asn_page",
            vec![example(
                "The page of an AS, as a terminal gets it",
                "/AS15169",
                text,
                asn(Format::Text),
            )],
        ),
        (
            "prefix_page",
            vec![
                example(
                    "The page of a prefix, as a terminal gets it",
                    &format!("/{PREFIX}"),
                    text,
                    lookup
                        .prefix_now(PREFIX, super::super::asn::PER_PAGE)
                        .ok()
                        .and_then(|info| {
                            let answer = PrefixAnswer {
                                info,
                                releases: None,
                            };
                            let page = Page::Resource(std::sync::Arc::new(answer));
                            String::from_utf8(page.render(Format::Text, &View::default())).ok()
                        }),
                ),
                example(
                    "One field of an address, ifconfig.co style",
                    &format!("/{V4}/asn"),
                    text,
                    field(V4, Field::Asn),
                ),
            ],
        ),
        (
            "country_page",
            vec![example(
                "The page of a country, as a terminal gets it",
                &format!("/country/{COUNTRY}"),
                text,
                lookup
                    .country_now(COUNTRY, super::super::asn::PER_PAGE)
                    .ok()
                    .and_then(|info| {
                        let answer = CountryAnswer {
                            info,
                            releases: None,
                        };
                        let page = Page::Resource(std::sync::Arc::new(answer));
                        String::from_utf8(page.render(Format::Text, &View::default())).ok()
                    }),
            )],
        ),
        (
            "docs_page",
            vec![example(
                "This page in Markdown",
                "/docs?format=md",
                "text/markdown",
                None,
            )],
        ),
        (
            "asset",
            vec![Example {
                title: "The world map (its name is on every address page)".into(),
                request: format!("curl -O {BASE}/assets/world.HASH.svg"),
                media_type: "image/svg+xml".into(),
                answer: None,
            }],
        ),
        (
            "openapi_json",
            vec![example("This document", "/api/v1/openapi.json", json, None)],
        ),
        (
            "openapi_30_json",
            vec![example(
                "This document as OpenAPI 3.0",
                "/api/v1/openapi-3.0.json",
                json,
                None,
            )],
        ),
        (
            "llms_txt",
            vec![example("llms.txt", "/llms.txt", "text/markdown", None)],
        ),
        (
            "api_catalog",
            vec![example(
                "The API catalog",
                "/.well-known/api-catalog",
                json,
                None,
            )],
        ),
        (
            "server_card",
            vec![example(
                "The MCP server card",
                "/.well-known/mcp/server-card.json",
                json,
                None,
            )],
        ),
        (
            "mcp_get",
            vec![example("What the MCP endpoint is", "/mcp", json, None)],
        ),
        (
            "mcp_post",
            vec![Example {
                title: "Call the lookup_ip tool".into(),
                request: format!(
                    "curl -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' -d '{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{{\"name\":\"lookup_ip\",\"arguments\":{{\"ip\":\"{V4}\"}}}}}}' {BASE}/mcp"
                ),
                media_type: json.into(),
                answer: None,
            }],
        ),
        (
            "skills_index",
            vec![example(
                "The agent skills index",
                "/.well-known/agent-skills/index.json",
                json,
                None,
            )],
        ),
        (
            "skill_md",
            vec![example(
                "The agent skill",
                "/.well-known/agent-skills/iplookup/SKILL.md",
                "text/markdown",
                None,
            )],
        ),
        (
            "healthz",
            vec![example("The loaded data", "/healthz", json, None)],
        ),
        (
            "metrics",
            vec![example("The metrics", "/metrics", "text/plain", None)],
        ),
    ];
    // ifconfig.co's routes, about the example address (`?ip=`).
    for (id, route) in ifconfig::ROUTES {
        let answered = crate::lookup::parse(V4)
            .ok()
            .map(|ip| lookup.lookup_at(ip, chrono::Utc::now()));
        let answer = answered.and_then(|a| String::from_utf8(ifconfig::line_body(route, a)).ok());
        let path = format!("{}?ip={V4}", route.template);
        let media_type = if id == "curl_json" { json } else { text };
        let title = format!("{} of {V4} (of the caller without ?ip=)", route.template);
        all.push((id, vec![example(&title, &path, media_type, answer)]));
    }
    all
}

/// A `curl` of `path` and its answer in `media_type`.
fn example(title: &str, path: &str, media_type: &str, answer: Option<String>) -> Example {
    Example {
        title: title.to_owned(),
        request: format!("curl {BASE}{path}"),
        media_type: media_type.to_owned(),
        answer: answer.map(|a| pretty(media_type, &a)),
    }
}

/// A JSON answer indented, as people read it, its members in the order the
/// server writes them; any other answer as it is.
fn pretty(media_type: &str, answer: &str) -> String {
    if media_type != "application/json" || serde_json::from_str::<Value>(answer).is_err() {
        return answer.to_owned();
    }
    let mut out = String::with_capacity(answer.len() * 2);
    let mut depth = 0usize;
    let (mut in_string, mut escaped) = (false, false);
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        out.push_str(&"  ".repeat(depth));
    };
    let mut chars = answer.trim().chars().peekable();
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                if matches!(chars.peek(), Some('}' | ']')) {
                    out.extend(chars.next());
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c if c.is_whitespace() => {}
            c => out.push(c),
        }
    }
    out
}

/// A name for an example in the document's `examples` maps: its title in
/// lower case, words joined by `_`.
fn key(title: &str) -> String {
    let words: Vec<String> = title
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    words.join("_")
}

/// Adds the examples to the operations of `doc`: the commands as
/// `x-codeSamples`, the answers as `examples` of the 200 response's media type.
pub(crate) fn add(doc: &mut Value, examples: &[(&'static str, Vec<Example>)]) {
    let Some(paths) = doc["paths"].as_object_mut() else {
        return;
    };
    for item in paths.values_mut() {
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for op in item.values_mut() {
            let Some(id) = op["operationId"].as_str().map(str::to_owned) else {
                continue;
            };
            let Some((_, list)) = examples.iter().find(|(i, _)| *i == id) else {
                continue;
            };
            op["x-codeSamples"] = list
                .iter()
                .map(|e| json!({"lang": "Shell", "label": format!("curl: {}", e.title), "source": e.request}))
                .collect();
            for e in list {
                let Some(answer) = &e.answer else { continue };
                let Some(content) = op["responses"]["200"]["content"].as_object_mut() else {
                    continue;
                };
                let Some((_, media)) = content
                    .iter_mut()
                    .find(|(m, _)| m.split(';').next() == Some(e.media_type.as_str()))
                else {
                    continue;
                };
                let value = if e.media_type == "application/json" {
                    serde_json::from_str(answer).unwrap_or(Value::Null)
                } else {
                    Value::String(answer.clone())
                };
                media["examples"][key(&e.title)] = json!({"summary": e.title, "value": value});
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_indented_in_its_own_order() {
        let compact = r#"{"ip":"1.1.1.1","b":[],"a":{"s":"x, \"y\": {z}","n":[1,2]}}"#;
        let out = pretty("application/json", compact);
        assert_eq!(
            out,
            "{\n  \"ip\": \"1.1.1.1\",\n  \"b\": [],\n  \"a\": {\n    \"s\": \"x, \\\"y\\\": {z}\",\n    \"n\": [\n      1,\n      2\n    ]\n  }\n}"
        );
        let back: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(back, serde_json::from_str::<Value>(compact).unwrap());
        assert_eq!(pretty("text/plain", "a,b"), "a,b");
    }
}
