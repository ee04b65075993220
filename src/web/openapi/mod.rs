//! The OpenAPI 3.1 document, `/api/v1/openapi.json`: derived by `utoipa`
//! from the handlers' annotations and the wire types, finished from the
//! route table ([`super::routes`]: the answers of the limits in front of
//! each route, in the route's error format) and built **once**; only its
//! `servers` entry, the base URL ([`BaseUrl`]), is written per request.
//! Built from it, and served here for that reason: the `/docs` page and
//! `/llms.txt` (its text is [`discovery::llms`]'s).

mod examples;
mod flatten;
mod limits;
mod mcp_post;
pub mod try_it;

use std::sync::{Arc, PoisonError, RwLock};

use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use serde::ser::{Serialize, SerializeMap, Serializer};
use utoipa::OpenApi;
use utoipa::openapi::{RefOr, Server};

use super::base::{BaseUrl, document};
use super::render::map::world_map;
use super::render::{ATTRIBUTION_TEXT, ATTRIBUTION_URL, DocsPage, Page};
use super::respond::{Reply, Wants, respond};
use super::schema::{
    AsnParam, AsnPathParam, DocsJson, FieldParam, FormatName, IpFormParam, IpParam,
};
use super::state::AppState;
use super::{asn, assets, batch, discovery, field, metrics, pages, routes};
use crate::lookup::Lookup;
use crate::model;

const DESCRIPTION: &str = "Look up any IPv4 or IPv6 address: country (with names in English and Bangla, flag, continent, centroid, time zone, local time, currency, calling code) and network (ASN, operator, CIDR range, reverse DNS). No API key, no sign-up, no external lookup while answering: the data is a local copy of the DB-IP Lite databases.";

/// The tags, in the order of the page: (name, heading).
const TAG_TITLES: [(&str, &str); 4] = [
    ("lookup", "Lookups"),
    ("pages", "Pages"),
    ("discovery", "Agents and discovery"),
    ("operations", "Operations"),
];

/// The paths in the order of the docs page and of the served document:
/// lookups, pages, agents and discovery, operations (utoipa keeps them sorted).
const PATH_ORDER: [&str; 20] = [
    "/api/v1/me",
    "/api/v1/ip/{ip}",
    "/api/v1/me/{field}",
    "/api/v1/ip/{ip}/{field}",
    "/api/v1/ip",
    "/api/v1/asn/{asn}",
    "/",
    "/{ip}",
    "/AS{asn}",
    "/docs",
    "/assets/{file}",
    "/api/v1/openapi.json",
    "/llms.txt",
    "/.well-known/api-catalog",
    "/.well-known/mcp/server-card.json",
    "/mcp",
    "/.well-known/agent-skills/index.json",
    "/.well-known/agent-skills/iplookup/SKILL.md",
    "/healthz",
    "/metrics",
];

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
        pages::api_me,
        pages::api_ip,
        field::api_me_field,
        field::api_ip_field,
        batch::api_ip_batch,
        asn::api_asn,
        pages::root,
        pages::address_page,
        asn::asn_page,
        docs_page,
        assets::asset,
        openapi_json,
        llms_txt,
        discovery::api_catalog,
        discovery::server_card,
        discovery::mcp_get,
        mcp_post::mcp_post,
        discovery::skills_index,
        discovery::skill_md,
        pages::healthz,
        metrics::metrics,
    ),
    components(schemas(model::IpInfo, model::Location, model::Network, model::SpecialPurpose, model::Error, model::ErrorCode, model::Accuracy, model::AsnInfo, model::AsnPrefixes, model::AsnAddresses, model::AsnCountry, AsnParam, AsnPathParam, FormatName, IpParam, IpFormParam, FieldParam)),
    tags(
        (name = "lookup", description = "The address API: the caller's address, any address, one field of either, many addresses at once, an autonomous system. JSON by default (a single field is plain text); every lookup also answers as text, Markdown and HTML."),
        (name = "pages", description = "Pages for people and terminals: HTML for browsers, aligned text for `curl`, Markdown and JSON on request."),
        (name = "discovery", description = "Description documents for tools and agents (OpenAPI, llms.txt, the RFC 9727 API catalog, the MCP server card, agent skills) and the MCP endpoint."),
        (name = "operations", description = "For the operator: health and Prometheus metrics. Neither is rate-limited nor waits for a request slot."),
    )
)]
pub struct ApiDoc;

/// The document and the docs page, as built once.
struct Built {
    /// The OpenAPI document; its `servers` entry is a placeholder, and its
    /// examples name the base as [`examples::BASE`].
    json: serde_json::Value,
    /// The docs page; its `base_url` is empty, its examples name [`examples::BASE`].
    docs: DocsPage,
    /// The paths in the order of [`ApiDoc`].
    order: Vec<String>,
}

/// The document, built on first use and again when the data release
/// changes (the examples come from the data served): the derived one, with
/// the limit answers of every route ([`limits::add`]), the asset names,
/// `POST /mcp` written out ([`mcp_post::describe_mcp_post`]) and the
/// examples of `lookup`'s data ([`examples::add`]).
fn built(lookup: &Lookup) -> Arc<Built> {
    static BUILT: RwLock<Option<(Arc<str>, Arc<Built>)>> = RwLock::new(None);
    let tag = lookup.db().tag();
    if let Some((built_for, built)) = &*BUILT.read().unwrap_or_else(PoisonError::into_inner) {
        if *built_for == tag {
            return Arc::clone(built);
        }
    }
    let built = Arc::new(build(lookup));
    *BUILT.write().unwrap_or_else(PoisonError::into_inner) = Some((tag, Arc::clone(&built)));
    built
}

fn build(lookup: &Lookup) -> Built {
    let mut doc = ApiDoc::openapi();
    // A placeholder where the request's base goes ([`WithServer`]).
    doc.servers = Some(vec![Server::new("")]);
    limits::add(&mut doc);
    name_the_assets(&mut doc);
    let order: Vec<String> = PATH_ORDER.map(str::to_owned).to_vec();
    let mut json = serde_json::to_value(&doc).unwrap_or_default();
    mcp_post::describe_mcp_post(&mut json);
    for (i, (_, title)) in TAG_TITLES.iter().enumerate() {
        json["tags"][i]["x-displayName"] = (*title).into();
    }
    let examples = examples::all(lookup);
    examples::add(&mut json, &examples);
    let attribution = format!("{ATTRIBUTION_TEXT} ({ATTRIBUTION_URL}), CC BY 4.0");
    let docs = flatten::docs_page(&json, &order, DESCRIPTION, &examples, attribution);
    Built { json, docs, order }
}

/// `base` as it may stand inside a JSON string.
fn json_text(base: &str) -> String {
    let quoted = serde_json::to_string(base).unwrap_or_default();
    quoted[1..quoted.len().saturating_sub(1).max(1)].to_owned()
}

/// The document with `servers` naming `base`, serialised without a copy of
/// the rest: its members in the order people read them, its paths in the
/// order of [`ApiDoc`] (a JSON object of this crate keeps its keys sorted).
struct WithServer<'a> {
    doc: &'a serde_json::Value,
    order: &'a [String],
    base: &'a str,
}

/// The top-level members, in this order, then any other.
const MEMBERS: [&str; 6] = ["openapi", "info", "servers", "tags", "paths", "components"];

impl Serialize for WithServer<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Some(members) = self.doc.as_object() else {
            return self.doc.serialize(serializer);
        };
        let mut map = serializer.serialize_map(Some(members.len()))?;
        let rest = members.keys().filter(|k| !MEMBERS.contains(&k.as_str()));
        for key in MEMBERS.iter().copied().chain(rest.map(String::as_str)) {
            let Some(value) = members.get(key) else {
                continue;
            };
            match key {
                "servers" => map.serialize_entry(key, &[Server::new(self.base)])?,
                "paths" => map.serialize_entry(
                    key,
                    &InOrder {
                        map: value,
                        order: self.order,
                    },
                )?,
                _ => map.serialize_entry(key, value)?,
            }
        }
        map.end()
    }
}

/// The members of `map` named in `order` in that order, then the others.
struct InOrder<'a> {
    map: &'a serde_json::Value,
    order: &'a [String],
}

impl Serialize for InOrder<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Some(members) = self.map.as_object() else {
            return self.map.serialize(serializer);
        };
        let mut map = serializer.serialize_map(Some(members.len()))?;
        let rest = members.keys().filter(|k| !self.order.contains(k));
        for key in self.order.iter().chain(rest) {
            if let Some(value) = members.get(key) {
                map.serialize_entry(key, value)?;
            }
        }
        map.end()
    }
}

/// The OpenAPI document as served for `base`, as JSON.
pub fn openapi_json_value(lookup: &Lookup, base: &str) -> serde_json::Value {
    serde_json::from_str(&openapi_text(lookup, base)).unwrap_or_default()
}

/// The OpenAPI document as served for `base`, indented.
fn openapi_text(lookup: &Lookup, base: &str) -> String {
    let built = built(lookup);
    let doc = WithServer {
        doc: &built.json,
        order: &built.order,
        base,
    };
    let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.replace(examples::BASE, &json_text(base))
}

/// The asset route's `file` parameter: an enum of the names served now (the
/// content hash is only known at run time).
fn name_the_assets(doc: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    let Some(name) = world_map().path.strip_prefix("/assets/") else {
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

/// `GET /api/v1/openapi.json`.
#[utoipa::path(get, path = "/api/v1/openapi.json", tag = "discovery",
    summary = "This OpenAPI 3.1 document",
    description = "Also at `/openapi.json`, which redirects here (308).",
    responses((status = 200, description = "OpenAPI 3.1 document", content_type = "application/json")))]
pub async fn openapi_json(State(state): State<AppState>, base: BaseUrl) -> Response {
    let body = openapi_text(&state.lookup, &base.url);
    document(body, &routes::OPENAPI, &base)
}

/// `GET /openapi.json`: 308 to `/api/v1/openapi.json`.
pub async fn openapi_alias() -> Response {
    Redirect::permanent(routes::OPENAPI.template).into_response()
}

/// The docs page for `base`: the document, flattened, its examples naming `base`.
pub fn docs(lookup: &Lookup, base: &str) -> DocsPage {
    let mut page = built(lookup).docs.clone();
    page.base_url = base.to_owned();
    for op in page.groups.iter_mut().flat_map(|g| g.operations.iter_mut()) {
        for e in &mut op.examples {
            e.request = e.request.replace(examples::BASE, base);
        }
    }
    page
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
pub async fn docs_page(State(state): State<AppState>, base: BaseUrl, wants: Wants) -> Response {
    let page = Page::Docs(Box::new(docs(&state.lookup, &base.url)));
    let reply = Reply {
        default: routes::DOCS.answer_default(wants.kind()),
        caching: routes::DOCS.caching,
        etag: None,
    };
    base.finish(respond(page, &wants, &reply))
}

/// `GET /llms.txt`.
#[utoipa::path(get, path = "/llms.txt", tag = "discovery",
    summary = "llms.txt: what this service is and where its documents are, for language models",
    responses((status = 200, description = "llms.txt (Markdown)", content_type = "text/markdown")))]
pub async fn llms_txt(State(state): State<AppState>, base: BaseUrl) -> Response {
    let body = discovery::llms(&docs(&state.lookup, &base.url));
    document(body, &routes::LLMS_TXT, &base)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The embedded data, looked up once for every test.
    fn lookup() -> &'static Lookup {
        static LOOKUP: std::sync::OnceLock<Lookup> = std::sync::OnceLock::new();
        LOOKUP.get_or_init(|| Lookup::new(crate::geo::GeoDb::embedded().unwrap()))
    }

    #[test]
    fn the_document_describes_the_routes_the_table_documents() {
        let doc = openapi_json_value(lookup(), "http://x");
        let paths: Vec<&str> = doc["paths"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut documented: Vec<&str> = routes::ALL
            .into_iter()
            .filter(|r| r.documented)
            .map(|r| r.template)
            .collect();
        let mut sorted = paths.clone();
        sorted.sort_unstable();
        documented.sort_unstable();
        assert_eq!(sorted, documented);
    }

    #[test]
    fn limit_answers_name_the_routes_error_format() {
        let doc = openapi_json_value(lookup(), "http://x");
        for (path, item) in doc["paths"].as_object().unwrap() {
            let route = routes::by_template(path).unwrap();
            let note = limits::default_note(route);
            for (method, op) in item.as_object().unwrap() {
                for status in ["414", "429", "503"] {
                    let response = &op["responses"][status];
                    let Some(content) = response["content"].as_object() else {
                        assert!(
                            status == "429" && !route.limited,
                            "{method} {path} {status}"
                        );
                        continue;
                    };
                    assert_eq!(content.len(), 4, "{method} {path} {status}");
                    let description = response["description"].as_str().unwrap();
                    assert!(description.ends_with(&note), "{method} {path} {status}");
                }
            }
        }
        let page = routes::by_template("/{ip}").unwrap();
        assert!(limits::default_note(page).starts_with("In HTML for browsers, plain text for"));
        assert!(limits::default_note(&routes::API_IP).starts_with("In JSON unless"));
    }

    #[test]
    fn the_document_is_built_once_and_only_the_server_follows_the_base() {
        assert!(Arc::ptr_eq(&built(lookup()), &built(lookup())));
        let a = openapi_json_value(lookup(), "http://a.example");
        let mut b = openapi_json_value(lookup(), "https://b.example:8443");
        assert_eq!(a["servers"][0]["url"], "http://a.example");
        assert_eq!(b["servers"][0]["url"], "https://b.example:8443");
        let b = openapi_json_value(lookup(), "https://b.example:8443");
        let same = |v: &serde_json::Value, base: &str| v.to_string().replace(base, "BASE");
        assert_eq!(
            same(&a, "http://a.example"),
            same(&b, "https://b.example:8443")
        );
        let page = docs(lookup(), "http://a.example");
        assert_eq!(page.base_url, "http://a.example");
        let ip = page.operations().find(|o| o.id == "api_ip").unwrap();
        assert_eq!(
            ip.examples[0].request,
            "curl http://a.example/api/v1/ip/8.8.8.8"
        );
        assert!(
            a.to_string()
                .contains("curl http://a.example/api/v1/ip/8.8.8.8")
        );
        assert!(!a.to_string().contains(examples::BASE));
    }

    #[test]
    fn openapi_is_3_1_with_every_lookup_path() {
        let doc = openapi_json_value(lookup(), "http://x");
        assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
        assert_eq!(doc["info"]["version"], "1.0.0");
        for p in [
            "/api/v1/me",
            "/api/v1/ip/{ip}",
            "/",
            "/{ip}",
            "/api/v1/asn/{asn}",
            "/AS{asn}",
            "/docs",
            "/llms.txt",
            "/assets/{file}",
        ] {
            assert!(doc["paths"][p]["get"].is_object(), "{p}");
        }
        let file = &doc["paths"]["/assets/{file}"]["get"]["parameters"][0];
        let map = world_map().path.clone();
        assert_eq!(file["schema"]["enum"][0], map["/assets/".len()..]);
        assert!(doc.get("security").is_none());
    }

    #[test]
    fn every_operation_documents_the_limit_answers() {
        let doc = openapi_json_value(lookup(), "http://x");
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
                let spared = path == "/healthz" || path == "/metrics";
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
    fn operations_come_lookups_first_in_the_order_of_the_tags() {
        let text = openapi_text(lookup(), "http://x");
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        let tags: Vec<&str> = doc["tags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(tags, TAG_TITLES.map(|(name, _)| name));
        // The paths as served, in order: each tag's after the tag before.
        let served: Vec<&str> = text
            .lines()
            .filter_map(|l| {
                l.strip_prefix("    \"/")?
                    .split_once("\": {")
                    .map(|(p, _)| p)
            })
            .collect();
        assert_eq!(served, PATH_ORDER.map(|p| &p[1..]));
        assert_eq!(served.first(), Some(&"api/v1/me"), "{served:?}");
        let mut last = 0;
        let mut ids = std::collections::BTreeSet::new();
        for path in &served {
            let item = &doc["paths"][format!("/{path}")];
            for (method, op) in item.as_object().unwrap() {
                let tag = op["tags"][0].as_str().unwrap();
                let at = tags.iter().position(|t| *t == tag).unwrap();
                assert!(at >= last, "{method} /{path} ({tag}) after a later group");
                last = at;
                let id = op["operationId"].as_str().unwrap();
                assert!(ids.insert(id.to_owned()), "operationId {id} twice");
            }
        }
        assert_eq!(served.len(), doc["paths"].as_object().unwrap().len());
        let page = docs(lookup(), "http://x");
        assert_eq!(page.groups[0].tag, "lookup");
        assert_eq!(page.operations().next().unwrap().id, "api_me");
        let lookups: Vec<&str> = page.groups[0]
            .operations
            .iter()
            .map(|o| o.path.as_str())
            .collect();
        assert_eq!(
            lookups,
            [
                "/api/v1/me",
                "/api/v1/ip/{ip}",
                "/api/v1/me/{field}",
                "/api/v1/ip/{ip}/{field}",
                "/api/v1/ip",
                "/api/v1/asn/{asn}"
            ]
        );
        let ops: Vec<&str> = page.groups[3]
            .operations
            .iter()
            .map(|o| o.path.as_str())
            .collect();
        assert_eq!(ops, ["/healthz", "/metrics"]);
    }

    #[test]
    fn every_property_of_every_schema_is_described_with_an_example() {
        let page = docs(lookup(), "http://x");
        let objects: Vec<&str> = page.schemas.iter().map(|s| s.name.as_str()).collect();
        for name in [
            "IpInfo",
            "Location",
            "Network",
            "AsnInfo",
            "AsnCountry",
            "Error",
            "McpMessage",
        ] {
            assert!(
                objects.contains(&name) || name == "McpMessage",
                "no table for {name}"
            );
        }
        let mut fields = 0;
        for s in &page.schemas {
            assert!(!s.fields.is_empty(), "{}", s.name);
            for f in &s.fields {
                fields += 1;
                assert!(
                    !f.description.trim().is_empty(),
                    "{}.{}: no description",
                    s.name,
                    f.name
                );
                // An object (or a list of them) is described by its own table,
                // or, a free-form one, by its description.
                let of_objects = f
                    .kind
                    .split(' ')
                    .any(|w| objects.contains(&w) || w == "object");
                assert!(
                    of_objects || !f.example.is_empty(),
                    "{}.{} ({}): no example",
                    s.name,
                    f.name,
                    f.kind
                );
            }
        }
        assert!(fields > 40, "{fields} fields");
        let location = page.schemas.iter().find(|s| s.name == "Location").unwrap();
        for name in ["country_bn", "calling_code", "accuracy", "latitude"] {
            assert!(location.fields.iter().any(|f| f.name == name), "{name}");
        }
    }

    #[test]
    fn every_operation_has_a_curl_example_and_every_lookup_an_answer() {
        let page = docs(lookup(), "http://h:1");
        for op in page.operations() {
            assert!(!op.examples.is_empty(), "{} {}", op.method, op.path);
            for e in &op.examples {
                assert!(
                    e.request.starts_with("curl ") && e.request.contains("http://h:1/"),
                    "{}",
                    e.request
                );
            }
        }
        for group in &page.groups[..1] {
            for op in &group.operations {
                assert!(op.examples.iter().all(|e| e.answer.is_some()), "{}", op.id);
            }
        }
        let ip = page.operations().find(|o| o.id == "api_ip").unwrap();
        assert!(
            ip.examples[0]
                .answer
                .as_deref()
                .unwrap()
                .contains("\"country_bn\": \"মার্কিন যুক্তরাষ্ট্র\"")
        );
        assert_eq!(ip.limits, ["414", "429", "503"]);
        assert!(
            ip.responses
                .iter()
                .all(|r| !["414", "429", "503"].contains(&r.status.as_str()))
        );
        let doc = openapi_json_value(lookup(), "http://h:1");
        let examples = &doc["paths"]["/api/v1/ip/{ip}"]["get"]["responses"]["200"]["content"]["application/json"]
            ["examples"];
        assert_eq!(
            examples["an_ipv6_address"]["value"]["ip"],
            "2001:4860:4860::8888"
        );
        assert_eq!(
            doc["paths"]["/api/v1/ip/{ip}"]["get"]["x-codeSamples"][0]["source"],
            "curl http://h:1/api/v1/ip/8.8.8.8"
        );
    }

    #[test]
    fn the_error_table_lists_every_code_once_with_its_status() {
        let page = docs(lookup(), "http://x");
        let codes: Vec<&str> = page.errors.iter().map(|e| e.code.as_str()).collect();
        assert_eq!(codes, model::ErrorCode::ALL.map(|c| c.as_str()));
        assert!(
            page.errors
                .iter()
                .any(|e| e.code == "invalid_ip" && e.status == 400)
        );
        let limits: Vec<&str> = page.limits.iter().map(|l| l.status.as_str()).collect();
        assert_eq!(limits, ["408", "414", "429", "503"]);
    }
}
