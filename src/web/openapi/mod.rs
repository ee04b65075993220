//! The OpenAPI 3.1 document, `/api/v1/openapi.json`: derived by `utoipa`
//! from the handlers' annotations and the wire types, finished from the
//! route table ([`super::routes`]: the answers of the limits in front of
//! each route, in the route's error format) and built **once**; only its
//! `servers` entry, the base URL ([`BaseUrl`]), is written per request.
//! Built from it, and served here for that reason: the `/docs` page and
//! `/llms.txt` (its text is [`discovery::llms`]'s).

mod clients;
pub(crate) mod docs;
pub(crate) mod examples;
mod flatten;
mod limits;
pub(crate) mod mcp_post;
pub(crate) mod try_it;
pub(crate) mod v30;

use std::sync::{Arc, PoisonError, RwLock};

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::response::Response;
use serde::ser::{Serialize, SerializeMap, Serializer};
use utoipa::OpenApi;
use utoipa::openapi::{RefOr, Server};

use super::render::{ATTRIBUTION_TEXT, ATTRIBUTION_URL, DocsPage, Page};
use super::schema::{
    AsnParam, AsnPathParam, BatchFormatName, CountryParam, DocsJson, FieldParam, FormatName,
    IpFormParam, IpParam, LengthOrFieldParam, PrefixLengthParam,
};
use super::{discovery, routes};
use crate::lookup::Lookup;
use crate::model::{self, ErrorCode};
use crate::web::serve::base::{BaseUrl, document};
use crate::web::serve::respond::{Reply, Wants, bad_request, error_on, respond};
use crate::web::serve::served::{Served, describe};
use crate::web::serve::state::AppState;
use axum::routing::get;

const DESCRIPTION: &str = "Look up any IPv4 or IPv6 address: country (with names in English and Bangla, flag, continent, centroid, time zone, local time, currency, calling code) and network (ASN, operator, CIDR range, reverse DNS). No API key, no sign-up, no external lookup while answering: the data is a local copy of the DB-IP Lite databases.";

/// The tags, in the order of the page: (name, heading).
const TAG_TITLES: [(&str, &str); 4] = [
    ("lookup", "Lookups"),
    ("pages", "Pages"),
    ("discovery", "Agents and discovery"),
    ("operations", "Operations"),
];

/// The routes this module answers.
const SERVED: &[Served] = &[
    Served::new(
        &routes::DOCS,
        |_| get(docs_page),
        &[describe::<__path_docs_page>],
    ),
    Served::new(&routes::DOCS_TRY, |_| get(docs_try), &[]),
    Served::new(
        &routes::OPENAPI,
        |_| get(openapi_json),
        &[describe::<__path_openapi_json>],
    ),
    Served::new(
        &routes::OPENAPI_30,
        |_| get(openapi_30_json),
        &[describe::<__path_openapi_30_json>],
    ),
    Served::new(&routes::OPENAPI_ALIAS, |_| get(openapi_alias), &[]),
    Served::new(
        &routes::LLMS_TXT,
        |_| get(llms_txt),
        &[describe::<__path_llms_txt>],
    ),
];

/// Every route served, once each: the resources' ([`crate::web::SERVED`])
/// and this module's.
pub(crate) fn all_served() -> impl Iterator<Item = &'static Served> {
    crate::web::SERVED
        .iter()
        .chain([SERVED].iter())
        .flat_map(|served| served.iter())
}

/// The OpenAPI document's frame, derived from its attributes and the wire
/// types; its paths are added from [`all_served`].
#[derive(OpenApi)]
#[openapi(
    info(
        title = "iplookup",
        version = "1.0.0",
        description = "Look up any IPv4 or IPv6 address: location (country, country centroid, time zone, currency, calling code) and network (ASN, operator, CIDR range, reverse DNS). No API key. Every page is also available as JSON, plain text, Markdown and HTML (`?format=json|text|md|html` or the `Accept` header).\n\nData: IP Geolocation by DB-IP (https://db-ip.com), IP to Country Lite and IP to ASN Lite, licensed CC BY 4.0; ASN data also from RouteViews and NRO (CC BY 4.0); country metadata from Unicode CLDR, Natural Earth and libphonenumber. Coordinates are country centroids, not street addresses.",
        license(name = "Data: CC BY 4.0 (IP Geolocation by DB-IP)", url = "https://creativecommons.org/licenses/by/4.0/"),
    ),
    components(schemas(model::IpInfo, model::Location, model::Network, model::SpecialPurpose, model::Error, BatchFormatName, model::ErrorCode, model::Accuracy, model::AsnInfo, model::AsnPrefixes, model::AsnPrefixCount, model::PrefixPage, model::AddressCounts, model::AsnCountry, model::AsnCountryV6, model::AsPrefix, model::AsPrefixDetails, model::PrefixSearch, model::SpecialAsnInfo, model::CountryFacts, model::CountryInfo, model::CountryAs, model::RowCount, model::PrefixInfo, model::PrefixRow, AsnParam, AsnPathParam, FormatName, IpParam, IpFormParam, FieldParam, PrefixLengthParam, LengthOrFieldParam, CountryParam)),
    tags(
        (name = "lookup", description = "The address API: the caller's address, any address, one field of either, many addresses at once, an autonomous system, a prefix, a country, and ifconfig.co's one-line routes (`/ip`, `/country`, ...). JSON by default (a single field and ifconfig.co's lines are plain text); every lookup also answers as text, Markdown and HTML."),
        (name = "pages", description = "Pages for people and terminals: HTML for browsers, aligned text for `curl`, Markdown and JSON on request."),
        (name = "discovery", description = "Description documents for tools and agents (OpenAPI, llms.txt, the RFC 9727 API catalog, the MCP server card, agent skills) and the MCP endpoint."),
        (name = "operations", description = "For the operator: health and Prometheus metrics. Neither is rate-limited nor waits for a request slot."),
    )
)]
pub(crate) struct ApiDoc;

/// The document and the docs page, as built once.
struct Built {
    /// The OpenAPI document; its `servers` entry is a placeholder, and its
    /// examples name the base as [`examples::BASE`].
    json: serde_json::Value,
    /// The same, converted to OpenAPI 3.0 ([`v30`]).
    json30: serde_json::Value,
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

/// The described paths in the route table's order ([`routes::ALL`]).
fn path_order() -> impl Iterator<Item = &'static str> {
    routes::ALL
        .iter()
        .filter(|r| r.documented)
        .map(|r| r.template)
}

fn build(lookup: &Lookup) -> Built {
    let mut doc = ApiDoc::openapi();
    for describe in all_served().flat_map(|s| s.described) {
        describe(&mut doc);
    }
    // A placeholder where the request's base goes ([`WithServer`]).
    doc.servers = Some(vec![Server::new("")]);
    limits::add(&mut doc);
    name_the_assets(&mut doc);
    let order: Vec<String> = path_order().map(str::to_owned).collect();
    let mut json = serde_json::to_value(&doc).unwrap_or_default();
    mcp_post::describe_mcp_post(&mut json);
    for (i, (_, title)) in TAG_TITLES.iter().enumerate() {
        json["tags"][i]["x-displayName"] = (*title).into();
    }
    // No operation asks for credentials: said once, for every operation.
    json["security"] = serde_json::json!([]);
    let examples = examples::all(lookup);
    examples::add(&mut json, &examples);
    let attribution = format!("{ATTRIBUTION_TEXT} ({ATTRIBUTION_URL}), CC BY 4.0");
    let docs = flatten::docs_page(&json, &order, DESCRIPTION, &examples, attribution);
    let json30 = v30::convert(&json);
    Built {
        json,
        json30,
        docs,
        order,
    }
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
const MEMBERS: [&str; 7] = [
    "openapi",
    "info",
    "servers",
    "security",
    "tags",
    "paths",
    "components",
];

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

/// The OpenAPI document as served for `base`, as JSON (for the tests).
#[cfg(test)]
fn openapi_json_value(lookup: &Lookup, base: &str) -> serde_json::Value {
    serde_json::from_str(&openapi_text(lookup, base)).unwrap_or_default()
}

/// The OpenAPI document as served for `base`, indented.
fn openapi_text(lookup: &Lookup, base: &str) -> String {
    served_text(lookup, base, Version::V31)
}

/// Which rendition of the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Version {
    V31,
    V30,
}

/// A rendition of the document as served for `base`, indented.
fn served_text(lookup: &Lookup, base: &str, version: Version) -> String {
    let built = built(lookup);
    let doc = WithServer {
        doc: match version {
            Version::V31 => &built.json,
            Version::V30 => &built.json30,
        },
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
    let names = super::render::assets::names();
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
            .enum_values(Some(names.clone()))
            .build();
        param.schema = Some(schema.into());
    }
}

/// `GET /api/v1/openapi.json`.
#[utoipa::path(get, path = "/api/v1/openapi.json", tag = "discovery",
    summary = "This OpenAPI 3.1 document",
    description = "Also at `/openapi.json`, which redirects here (308).",
    responses((status = 200, description = "OpenAPI 3.1 document", content_type = "application/json")))]
pub(crate) async fn openapi_json(State(state): State<AppState>, base: BaseUrl) -> Response {
    let body = openapi_text(&state.lookup, &base.url);
    document(body, &base)
}

/// `GET /api/v1/openapi-3.0.json`.
#[utoipa::path(get, path = "/api/v1/openapi-3.0.json", tag = "discovery",
    summary = "This document as OpenAPI 3.0",
    description = "The OpenAPI 3.1 document converted to OpenAPI 3.0.3, for tools that read only 3.0 (progenitor, API gateways' import): nullable types as `nullable: true`, `const` as a one-value `enum`, schema `examples` as `example`. Same operations, schemas and examples.",
    responses((status = 200, description = "OpenAPI 3.0 document", content_type = "application/json")))]
pub(crate) async fn openapi_30_json(State(state): State<AppState>, base: BaseUrl) -> Response {
    let body = served_text(&state.lookup, &base.url, Version::V30);
    document(body, &base)
}

/// `GET /openapi.json`: 308 to `/api/v1/openapi.json`.
pub(crate) async fn openapi_alias() -> Response {
    crate::web::serve::policy::moved_to(routes::OPENAPI.template)
}

/// The docs page for `base`: the document, flattened, its examples naming `base`.
pub(crate) fn docs(lookup: &Lookup, base: &str) -> DocsPage {
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
    description = "Every operation with its parameters, answers, limits and examples, every object's fields and every error code, rendered from this OpenAPI document: HTML for browsers (with try-it forms that work without JavaScript), text for command-line clients, Markdown and JSON on request.",
    params(("format" = Option<FormatName>, Query, description = "Response format; overrides the Accept header")),
    responses(
        (status = 200, description = "The documentation", content(
            (DocsJson = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 400, description = "Unknown `format` value", content(
            (model::Error = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 406, description = "No offered format matches `Accept`", body = model::Error),
    ))]
pub(crate) async fn docs_page(
    State(state): State<AppState>,
    base: BaseUrl,
    wants: Wants,
) -> Response {
    let page = Page::Docs(Box::new(docs(&state.lookup, &base.url)));
    let reply = Reply {
        default: routes::DOCS.answer_default(wants.kind()),
        caching: routes::DOCS.caching,
        etag: None,
    };
    base.finish(respond(page, &wants, &reply))
}

/// `GET /docs/try?op=ID&ip=..&field=..&asn=..`: 303 to the answer of the
/// operation's form; 400 (`bad_query`) when the query names no form.
pub(crate) async fn docs_try(
    State(state): State<AppState>,
    query: Result<Query<try_it::TryQuery>, QueryRejection>,
    wants: Wants,
) -> Response {
    let route = &routes::DOCS_TRY;
    let page = docs(&state.lookup, "");
    match query.ok().and_then(|Query(q)| try_it::target(&page, &q)) {
        Some(to) => crate::web::serve::policy::see_other(&to),
        None => error_on(
            bad_request(
                ErrorCode::BadQuery,
                "`op` names no try-it form of /docs".into(),
            ),
            &wants,
            route,
        ),
    }
}

/// `GET /llms.txt`.
#[utoipa::path(get, path = "/llms.txt", tag = "discovery",
    summary = "llms.txt: what this service is and where its documents are, for language models",
    description = "The llms.txt proposal's Markdown: what the service is, the lookups with example links, and links to the OpenAPI document, /docs, the MCP endpoint and the agent skill.",
    responses((status = 200, description = "llms.txt (Markdown)", content_type = "text/markdown")))]
pub(crate) async fn llms_txt(State(state): State<AppState>, base: BaseUrl) -> Response {
    let body = discovery::llms(&docs(&state.lookup, &base.url));
    document(body, &base)
}

#[cfg(test)]
mod forms_tests;
#[cfg(test)]
mod tests;
