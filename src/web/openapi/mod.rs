//! The OpenAPI 3.1 document, `/api/v1/openapi.json`: derived by `utoipa`
//! from the handlers' annotations and the wire types, finished from the
//! route table ([`super::routes`]: the answers of the limits in front of
//! each route, in the route's error format) and built **once**; only its
//! `servers` entry, the base URL ([`BaseUrl`]), is written per request.
//! Built from it, and served here for that reason: the `/docs` page and
//! `/llms.txt` (its text is [`discovery::llms`]'s).

mod limits;
mod mcp_post;

use std::sync::OnceLock;

use axum::response::Response;
use serde::ser::{Serialize, SerializeMap, Serializer};
use utoipa::OpenApi;
use utoipa::openapi::{PathItem, RefOr, Server};

use super::base::{BaseUrl, document};
use super::render::{
    ATTRIBUTION_TEXT, ATTRIBUTION_URL, DocsPage, Operation, Page, Parameter, ResponseDoc,
};
use super::respond::{Reply, Wants, respond};
use super::schema::{
    AsnParam, AsnPathParam, DocsJson, FieldParam, FormatName, IpFormParam, IpParam,
};
use super::{asn, assets, batch, discovery, field, pages, routes};
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
        pages::api_me,
        pages::api_ip,
        batch::api_ip_batch,
        field::api_me_field,
        field::api_ip_field,
        asn::api_asn,
        asn::asn_page,
        asn::api_asn_csv,
        pages::root,
        pages::address_page,
        pages::healthz,
        docs_page,
        openapi_json,
        llms_txt,
        discovery::api_catalog,
        discovery::server_card,
        discovery::mcp_get,
        mcp_post::mcp_post,
        discovery::skills_index,
        discovery::skill_md,
        assets::asset,
    ),
    components(schemas(model::IpInfo, model::Location, model::Network, model::Error, model::ErrorCode, model::Accuracy, model::AsnInfo, model::AsnPrefixes, model::AsnPrefixCount, model::PrefixPage, model::AsnAddresses, model::AsnCountry, AsnParam, AsnPathParam, FormatName, IpParam, IpFormParam, FieldParam)),
    tags(
        (name = "lookup", description = "Address lookups (JSON by default)"),
        (name = "pages", description = "Pages for people and terminals (HTML or text by default)"),
        (name = "discovery", description = "Description documents for tools and agents"),
    )
)]
pub struct ApiDoc;

/// The document and the docs page, as built once.
struct Built {
    /// The OpenAPI document; its `servers` entry is a placeholder.
    json: serde_json::Value,
    /// The docs page; its `base_url` is empty.
    docs: DocsPage,
}

/// The document, built on first use: the derived one, with the limit answers
/// of every route ([`limits::add`]), the asset names and `POST /mcp` written
/// out ([`mcp_post::describe_mcp_post`]).
fn built() -> &'static Built {
    static BUILT: OnceLock<Built> = OnceLock::new();
    BUILT.get_or_init(|| {
        let mut doc = ApiDoc::openapi();
        // A placeholder where the request's base goes ([`WithServer`]).
        doc.servers = Some(vec![Server::new("")]);
        limits::add(&mut doc);
        name_the_assets(&mut doc);
        let docs = flatten_docs(&doc);
        let mut json = serde_json::to_value(&doc).unwrap_or_default();
        mcp_post::describe_mcp_post(&mut json);
        Built { json, docs }
    })
}

/// The document with `servers` naming `base`, serialised without a copy of
/// the rest.
struct WithServer<'a> {
    doc: &'a serde_json::Value,
    base: &'a str,
}

impl Serialize for WithServer<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Some(members) = self.doc.as_object() else {
            return self.doc.serialize(serializer);
        };
        let mut map = serializer.serialize_map(Some(members.len()))?;
        for (key, value) in members {
            if key == "servers" {
                map.serialize_entry(key, &[Server::new(self.base)])?;
            } else {
                map.serialize_entry(key, value)?;
            }
        }
        map.end()
    }
}

/// The OpenAPI document as served for `base`, as JSON.
pub fn openapi_json_value(base: &str) -> serde_json::Value {
    let doc = WithServer {
        doc: &built().json,
        base,
    };
    serde_json::to_value(&doc).unwrap_or_default()
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
    responses((status = 200, description = "OpenAPI 3.1 document", content_type = "application/json")))]
pub async fn openapi_json(base: BaseUrl) -> Response {
    let doc = WithServer {
        doc: &built().json,
        base: &base.url,
    };
    let body = serde_json::to_string_pretty(&doc).unwrap_or_default();
    document(body, &routes::OPENAPI, &base)
}

/// The docs page for `base`: the document, flattened.
pub fn docs(base: &str) -> DocsPage {
    DocsPage {
        base_url: base.to_owned(),
        ..built().docs.clone()
    }
}

/// The docs page of `doc` (every `GET` operation, and the `POST` of a
/// path without one: the batch lookup), on no base.
fn flatten_docs(doc: &utoipa::openapi::OpenApi) -> DocsPage {
    let mut operations = Vec::new();
    for (path, item) in &doc.paths.paths {
        if let Some(op) = get_operation(item) {
            operations.push(flatten(path, op));
        } else if let Some(op) = &item.post {
            operations.push(Operation {
                method: "POST".into(),
                ..flatten(path, op)
            });
        }
    }
    DocsPage {
        title: doc.info.title.clone(),
        version: doc.info.version.clone(),
        description: DESCRIPTION.to_owned(),
        base_url: String::new(),
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
pub async fn llms_txt(base: BaseUrl) -> Response {
    let body = discovery::llms(&docs(&base.url));
    document(body, &routes::LLMS_TXT, &base)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn the_document_describes_the_routes_the_table_documents() {
        let doc = openapi_json_value("http://x");
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
        let doc = openapi_json_value("http://x");
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
        assert!(std::ptr::eq(built(), built()));
        let a = openapi_json_value("http://a.example");
        let mut b = openapi_json_value("https://b.example:8443");
        assert_eq!(a["servers"][0]["url"], "http://a.example");
        assert_eq!(b["servers"][0]["url"], "https://b.example:8443");
        b["servers"] = a["servers"].clone();
        assert_eq!(a, b);
        assert_eq!(docs("http://a.example").base_url, "http://a.example");
    }

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
            "/api/v1/asn/{asn}",
            "/AS{asn}",
            "/docs",
            "/llms.txt",
            "/assets/{file}",
        ] {
            assert!(doc["paths"][p]["get"].is_object(), "{p}");
        }
        let file = &doc["paths"]["/assets/{file}"]["get"]["parameters"][0];
        let map = crate::web::render::map::world_map().path.clone();
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
}
