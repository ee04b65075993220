//! The description documents and the MCP endpoint, checked over a real
//! loopback socket (issue 4, "What it must show"):
//!
//! - each document's media type and required members (OpenAPI 3.1, RFC 9727
//!   api-catalog, MCP server card, llms.txt, agent skills index and SKILL.md);
//! - the `Link: rel="api-catalog"` header on HEAD of the catalog and on pages;
//! - every link in llms.txt, the api-catalog and the skills index answers 200,
//!   and each skills digest is the sha256 of the bytes served;
//! - the OpenAPI document passes `openapi-spec-validator` and a full
//!   `schemathesis run --checks all` against the live server;
//! - `/mcp` driven by the official MCP Python SDK (`tests/py/mcp_client.py`):
//!   tools listed with schemas, structured results equal to the HTTP API's
//!   JSON, a bad address is a tool error.
//!
//! The Python tools come from `tests/requirements.txt`, installed in `.venv/`
//! by `scripts/test`, which exports `IPLOOKUP_TEST_PYTHON`. Without it the
//! tests use `.venv/bin/python` of the crate and fail (they do not skip) when
//! it is missing.

use crate::support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use chrono::DateTime;
use reqwest::Url;
use serde_json::Value;
use sha2::{Digest, Sha256};

use support::TestServer;
use support::data::TempDir;
use support::wire::{self, Wire};
use support::{LOCATION_KEYS, NETWORK_KEYS};

/// A response of the server, with the URL it came from in `what`.
type Fetched = Wire;

const CATALOG_TYPE: &str =
    "application/linkset+json; profile=\"https://www.rfc-editor.org/info/rfc9727\"";

// ---------------------------------------------------------------------------
// HTTP helpers
// ---------------------------------------------------------------------------

fn essence(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// What discovery checks of a response beyond [`Wire`]'s own accessors.
trait Discovered {
    fn content_type(&self) -> &str;
    /// The media type without parameters, lower case.
    fn essence(&self) -> String;
    fn expect_status(&self, status: u16) -> &Self;
}

impl Discovered for Fetched {
    fn content_type(&self) -> &str {
        self.header("content-type").unwrap_or("")
    }

    fn essence(&self) -> String {
        essence(self.content_type())
    }

    fn expect_status(&self, status: u16) -> &Self {
        assert_eq!(
            self.status, status,
            "{}: status {} (body: {})",
            self.what, self.status, self.body
        );
        self
    }
}

/// One HTTP/1.1 exchange on a fresh connection (`Connection: close`) with
/// `url` (plain HTTP): the request goes out exactly as given (a `host` entry in
/// `headers` replaces the URL's authority), the whole response is read back.
async fn exchange(method: &str, url: &str, headers: &[(&str, &str)], body: &[u8]) -> Fetched {
    let u = Url::parse(url).unwrap_or_else(|e| panic!("{url} is not a URL: {e}"));
    assert_eq!(
        u.scheme(),
        "http",
        "{url}: the test client speaks plain HTTP"
    );
    let addr = u
        .socket_addrs(|| None)
        .unwrap_or_else(|e| panic!("{url}: {e}"))
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("{url}: no address"));
    let mut target = u.path().to_owned();
    if let Some(q) = u.query() {
        target.push('?');
        target.push_str(q);
    }
    let mut fetched = wire::send(addr, method, &target, headers, body).await;
    fetched.what = url.to_owned();
    fetched
}

async fn request(method: &str, url: &str, headers: &[(&str, &str)]) -> Fetched {
    exchange(method, url, headers, b"").await
}

async fn get(url: &str) -> Fetched {
    request("GET", url, &[]).await
}

/// GET `path` on the server; expects 200.
async fn get_ok(server: &TestServer, path: &str) -> Fetched {
    let f = get(&format!("{}{path}", server.base)).await;
    f.expect_status(200);
    f
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Resolves `reference` against `base_url` (RFC 3986), as a client would.
fn resolve(base_url: &str, reference: &str) -> String {
    Url::parse(base_url)
        .unwrap_or_else(|e| panic!("{base_url} is not a URL: {e}"))
        .join(reference)
        .unwrap_or_else(|e| panic!("{reference} does not resolve against {base_url}: {e}"))
        .to_string()
}

/// Same scheme, host and port as the server (a link to this service).
fn on_server(server: &TestServer, url: &str) -> bool {
    let u = Url::parse(url).unwrap_or_else(|e| panic!("{url} is not a URL: {e}"));
    let b = Url::parse(&server.base).unwrap();
    u.scheme() == b.scheme()
        && u.host() == b.host()
        && u.port_or_known_default() == b.port_or_known_default()
}

/// GETs every URL (with its optional `Accept`) and collects the ones that do
/// not answer 200, so that one run names all broken links.
async fn broken_links(links: &[(String, Option<String>)]) -> Vec<String> {
    let mut broken = Vec::new();
    for (url, accept) in links {
        let headers: Vec<(&str, &str)> = accept.iter().map(|a| ("accept", a.as_str())).collect();
        let f = request("GET", url, &headers).await;
        if f.status != 200 {
            broken.push(format!(
                "{url} (Accept: {}) -> {}",
                accept.as_deref().unwrap_or("-"),
                f.status
            ));
        }
    }
    broken
}

// ---------------------------------------------------------------------------
// JSON helpers
// ---------------------------------------------------------------------------

/// Follows a local `$ref` (`#/components/schemas/X`) in the OpenAPI document.
fn deref<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let pointer = r
                .strip_prefix('#')
                .unwrap_or_else(|| panic!("non-local $ref {r}"));
            let target = doc
                .pointer(pointer)
                .unwrap_or_else(|| panic!("$ref {r} points nowhere"));
            deref(doc, target)
        }
        None => schema,
    }
}

/// The JSON types and enum values a schema admits, through `$ref`, `oneOf`,
/// `anyOf` and `type` arrays: (types, enum values, whether null is allowed).
fn admitted(doc: &Value, schema: &Value) -> (BTreeSet<String>, BTreeSet<String>, bool) {
    let schema = deref(doc, schema);
    let mut types = BTreeSet::new();
    let mut values = BTreeSet::new();
    let mut null = false;
    match schema.get("type") {
        Some(Value::String(t)) => {
            types.insert(t.clone());
        }
        Some(Value::Array(ts)) => {
            for t in ts.iter().filter_map(Value::as_str) {
                types.insert(t.to_owned());
            }
        }
        _ => {}
    }
    if let Some(Value::Array(e)) = schema.get("enum") {
        for v in e {
            match v {
                Value::Null => null = true,
                Value::String(s) => {
                    values.insert(s.clone());
                }
                other => {
                    values.insert(other.to_string());
                }
            }
        }
    }
    if schema.get("nullable") == Some(&Value::Bool(true)) {
        null = true;
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(alts)) = schema.get(key) {
            for alt in alts {
                let (t, v, n) = admitted(doc, alt);
                types.extend(t);
                values.extend(v);
                null |= n;
            }
        }
    }
    if types.contains("null") {
        null = true;
    }
    (types, values, null)
}

fn string_set(v: &Value) -> BTreeSet<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// `v` without `location.local_time`, which moves with the clock.
fn without_local_time(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(loc) = v.get_mut("location").and_then(Value::as_object_mut) {
        loc.remove("local_time");
    }
    v
}

// ---------------------------------------------------------------------------
// Python tools
// ---------------------------------------------------------------------------

/// Runs the venv's Python with `args` in `dir`, kills it after `limit`.
async fn run_python(args: &[&str], dir: &Path, limit: Duration) -> Output {
    let py = support::test_python();
    let mut cmd = tokio::process::Command::new(&py);
    cmd.args(args)
        .current_dir(dir)
        // The server is on loopback: never go through a proxy from the environment.
        .env("NO_PROXY", "127.0.0.1,localhost,::1,[::1]")
        .env("no_proxy", "127.0.0.1,localhost,::1,[::1]")
        .env("PYTHONUNBUFFERED", "1")
        .env("PYTHONIOENCODING", "utf-8")
        .kill_on_drop(true);
    let child = cmd
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {} {args:?}: {e}", py.display()));
    tokio::time::timeout(limit, child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("{} {args:?} ran longer than {limit:?}", py.display()))
        .unwrap_or_else(|e| panic!("{} {args:?}: {e}", py.display()))
}

/// A fresh scratch directory, removed when the test ends.
fn scratch_dir(name: &str) -> TempDir {
    TempDir::new(&format!("discovery-{name}"))
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

// ---------------------------------------------------------------------------
// OpenAPI document
// ---------------------------------------------------------------------------

#[tokio::test]
async fn openapi_document_members() {
    let server = support::start(support::config()).await;
    let f = get_ok(&server, "/api/v1/openapi.json").await;
    assert_eq!(f.essence(), "application/json", "{}", f.content_type());
    let doc = f.json();

    let version = doc["openapi"].as_str().expect("openapi is a string");
    assert!(
        version.starts_with("3.1."),
        "openapi is {version}, not 3.1.x"
    );
    assert_eq!(doc["info"]["version"], "1.0.0");
    assert!(doc["info"]["title"].as_str().is_some_and(|t| !t.is_empty()));
    // Licence and attribution of the data (issue 4, item 1).
    assert!(
        doc["info"]["license"]["name"].is_string(),
        "info.license missing"
    );
    let info_text = doc["info"].to_string();
    assert!(
        info_text.contains("DB-IP"),
        "info does not credit DB-IP: {info_text}"
    );
    assert!(
        info_text.contains("CC BY 4.0"),
        "info does not name CC BY 4.0"
    );

    // The server entry is the base the request used.
    assert_eq!(doc["servers"][0]["url"], server.base.as_str());

    // No authentication anywhere, said once: `security: []`.
    assert_eq!(doc["security"], serde_json::json!([]), "top-level security");
    assert!(
        doc["components"].get("securitySchemes").is_none(),
        "components.securitySchemes present"
    );
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().unwrap() {
            assert!(
                op.get("security").is_none(),
                "{method} {path} declares security"
            );
        }
    }

    // Both lookup endpoints, with their parameters and responses.
    for path in ["/api/v1/me", "/api/v1/ip/{ip}"] {
        let op = &doc["paths"][path]["get"];
        assert!(op.is_object(), "GET {path} is not described");
        let ok = deref(
            &doc,
            &op["responses"]["200"]["content"]["application/json"]["schema"],
        );
        assert_eq!(
            ok,
            deref(
                &doc,
                &serde_json::json!({"$ref": "#/components/schemas/IpInfo"})
            ),
            "GET {path} 200 application/json is not IpInfo"
        );
    }
    let api_ip = &doc["paths"]["/api/v1/ip/{ip}"]["get"];
    let ip_param = api_ip["parameters"]
        .as_array()
        .expect("parameters")
        .iter()
        .find(|p| p["name"] == "ip")
        .expect("parameter ip");
    assert_eq!(ip_param["in"], "path");
    assert_eq!(ip_param["required"], true);
    let (types, _, _) = admitted(&doc, &ip_param["schema"]);
    assert!(
        types.contains("string"),
        "ip parameter is not a string: {types:?}"
    );
    let bad = deref(
        &doc,
        &api_ip["responses"]["400"]["content"]["application/json"]["schema"],
    );
    assert_eq!(
        bad,
        deref(
            &doc,
            &serde_json::json!({"$ref": "#/components/schemas/ApiError"})
        ),
        "GET /api/v1/ip/{{ip}} 400 application/json is not ApiError"
    );
    // The description documents are described too.
    for path in [
        "/api/v1/openapi.json",
        "/llms.txt",
        "/.well-known/api-catalog",
        "/.well-known/mcp/server-card.json",
        "/.well-known/agent-skills/index.json",
        "/docs",
    ] {
        assert!(
            doc["paths"][path]["get"].is_object(),
            "GET {path} is not described"
        );
    }

    // The schemas of SPEC section 2.
    let schemas = &doc["components"]["schemas"];
    for name in ["IpInfo", "Location", "Network", "ApiError"] {
        assert!(schemas[name].is_object(), "schema {name} missing");
        assert_eq!(
            schemas[name]["type"], "object",
            "schema {name} is not an object"
        );
    }

    let ipinfo = &schemas["IpInfo"];
    let required = string_set(&ipinfo["required"]);
    // Every member is always sent, so every one is required (issue 31).
    for field in [
        "ip",
        "version",
        "is_public",
        "location",
        "network",
        "special_purpose",
    ] {
        assert!(required.contains(field), "IpInfo does not require {field}");
    }
    for field in ["ip", "version", "is_public", "location", "network"] {
        assert!(
            ipinfo["properties"][field].is_object(),
            "IpInfo.{field} missing"
        );
    }
    assert!(
        admitted(&doc, &ipinfo["properties"]["ip"])
            .0
            .contains("string")
    );
    let (t, _, null) = admitted(&doc, &ipinfo["properties"]["version"]);
    assert!(
        t.contains("string") && null,
        "IpInfo.version is not string-or-null: {t:?}"
    );
    let (t, _, _) = admitted(&doc, &ipinfo["properties"]["is_public"]);
    assert!(
        t.contains("boolean"),
        "IpInfo.is_public is not boolean: {t:?}"
    );
    assert_eq!(
        deref(&doc, &ipinfo["properties"]["location"]),
        &schemas["Location"]
    );
    assert_eq!(
        deref(&doc, &ipinfo["properties"]["network"]),
        &schemas["Network"]
    );

    // Location and Network: every field always present (required), nullable.
    for (name, fields) in [("Location", LOCATION_KEYS), ("Network", NETWORK_KEYS)] {
        let schema = &schemas[name];
        let required = string_set(&schema["required"]);
        for field in fields.iter() {
            let prop = &schema["properties"][*field];
            assert!(prop.is_object(), "{name}.{field} missing");
            assert!(
                required.contains(*field),
                "{name}.{field} is always sent but not required"
            );
            let (_, _, null) = admitted(&doc, prop);
            assert!(null, "{name}.{field} does not allow null");
        }
    }
    let loc = &schemas["Location"]["properties"];
    for field in ["latitude", "longitude"] {
        assert!(
            admitted(&doc, &loc[field]).0.contains("number"),
            "Location.{field} is not a number"
        );
    }
    assert!(
        admitted(&doc, &schemas["Network"]["properties"]["asn"])
            .0
            .contains("integer")
    );

    // accuracy: country, city or null; nothing else.
    let (_, values, null) = admitted(&doc, &loc["accuracy"]);
    assert_eq!(
        values,
        BTreeSet::from(["city".to_owned(), "country".to_owned()]),
        "accuracy values"
    );
    assert!(null, "accuracy does not allow null");

    // local_time: date-time.
    let local_time = deref(&doc, &loc["local_time"]);
    let format = local_time["format"].as_str().or_else(|| {
        ["oneOf", "anyOf"].iter().find_map(|k| {
            local_time[*k]
                .as_array()?
                .iter()
                .find_map(|alt| deref(&doc, alt)["format"].as_str())
        })
    });
    assert_eq!(format, Some("date-time"), "local_time format: {local_time}");

    // ApiError: `error` required string, `message` optional string.
    let error = &schemas["ApiError"];
    assert_eq!(
        string_set(&error["required"]),
        BTreeSet::from(["error".to_owned()])
    );
    assert!(
        admitted(&doc, &error["properties"]["error"])
            .0
            .contains("string")
    );
    assert!(
        admitted(&doc, &error["properties"]["message"])
            .0
            .contains("string")
    );
}

/// `servers[0].url` follows the request: the Host it was sent to, over IPv4
/// and IPv6.
#[tokio::test]
async fn openapi_server_url_is_the_request_base() {
    // Another name for the same socket.
    let server = support::start(support::config()).await;
    let port = server.addr.port();
    let f = request(
        "GET",
        &format!("{}/api/v1/openapi.json", server.base),
        &[("host", &format!("localhost:{port}"))],
    )
    .await;
    f.expect_status(200);
    assert_eq!(
        f.json()["servers"][0]["url"],
        format!("http://localhost:{port}")
    );

    // IPv6 loopback: the bracketed literal.
    let mut config = support::config();
    config.listen = "[::1]:0".parse().unwrap();
    let v6 = support::start(config).await;
    assert!(v6.base.starts_with("http://[::1]:"), "{}", v6.base);
    let doc = get_ok(&v6, "/api/v1/openapi.json").await.json();
    assert_eq!(doc["servers"][0]["url"], v6.base.as_str());
    // The documents built from the base agree.
    let catalog = get_ok(&v6, "/.well-known/api-catalog").await.json();
    assert!(
        catalog["linkset"][0]["anchor"]
            .as_str()
            .is_some_and(|a| a.starts_with(&v6.base)),
        "{catalog}"
    );
    let card = get_ok(&v6, "/.well-known/mcp/server-card.json")
        .await
        .json();
    assert_eq!(card["remotes"][0]["url"], format!("{}/mcp", v6.base));
}

// ---------------------------------------------------------------------------
// RFC 9727 api-catalog and the Link header
// ---------------------------------------------------------------------------

#[tokio::test]
async fn api_catalog_is_an_rfc9727_linkset() {
    let server = support::start(support::config()).await;
    let f = get_ok(&server, "/.well-known/api-catalog").await;
    assert_eq!(f.content_type(), CATALOG_TYPE);
    let doc = f.json();

    let top: Vec<&String> = doc.as_object().expect("an object").keys().collect();
    assert_eq!(top, vec!["linkset"], "only top-level member is linkset");
    let sets = doc["linkset"].as_array().expect("linkset is an array");
    assert!(!sets.is_empty(), "linkset is empty");

    let mut links: Vec<(String, Option<String>)> = Vec::new();
    let mut relations = BTreeSet::new();
    for set in sets {
        let anchor = set["anchor"]
            .as_str()
            .expect("each link context has an anchor");
        assert!(
            anchor.starts_with(&server.base),
            "anchor {anchor} is not on this service ({})",
            server.base
        );
        for (rel, targets) in set.as_object().unwrap() {
            if rel == "anchor" {
                continue;
            }
            relations.insert(rel.clone());
            let targets = targets
                .as_array()
                .unwrap_or_else(|| panic!("relation {rel} is not an array"));
            assert!(!targets.is_empty(), "relation {rel} has no targets");
            for target in targets {
                let href = target["href"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{rel} target without href: {target}"));
                for (k, v) in target.as_object().unwrap() {
                    assert!(v.is_string(), "{rel}.{k} is not a string");
                }
                let url = resolve(anchor, href);
                let accept = target["type"].as_str().map(str::to_owned);
                links.push((url, accept));
            }
        }
    }
    for rel in ["service-desc", "service-doc", "status"] {
        assert!(
            relations.contains(rel),
            "relation {rel} missing ({relations:?})"
        );
    }
    let desc = &sets[0]["service-desc"][0]["href"];
    assert_eq!(desc, &format!("{}/api/v1/openapi.json", server.base));
    let desc30 = &sets[0]["service-desc"][1]["href"];
    assert_eq!(desc30, &format!("{}/api/v1/openapi-3.0.json", server.base));
    let doc_href = &sets[0]["service-doc"][0]["href"];
    assert_eq!(doc_href, &format!("{}/docs", server.base));
    let status = &sets[0]["status"][0]["href"];
    assert_eq!(status, &format!("{}/healthz", server.base));

    // Every target answers 200, also when asked for the media type it
    // advertises.
    let mut plain: Vec<(String, Option<String>)> =
        links.iter().map(|(u, _)| (u.clone(), None)).collect();
    plain.extend(links.iter().filter(|(_, a)| a.is_some()).cloned());
    let broken = broken_links(&plain).await;
    assert!(
        broken.is_empty(),
        "api-catalog links that do not answer 200: {broken:#?}"
    );
    println!("api-catalog: {} links resolve", plain.len());
}

#[tokio::test]
async fn head_api_catalog_and_every_page_send_the_link_header() {
    let server = support::start(support::config()).await;

    let url = format!("{}/.well-known/api-catalog", server.base);
    let head = request("HEAD", &url, &[]).await;
    head.expect_status(200);
    assert!(head.body.is_empty(), "HEAD has a body");
    assert_eq!(head.content_type(), CATALOG_TYPE);
    let target = catalog_link(&head).unwrap_or_else(|| {
        panic!(
            "HEAD {url}: no Link with rel=\"api-catalog\": {:?}",
            head.header_all("link")
        )
    });
    // The Link target is the catalog itself.
    assert_eq!(resolve(&url, &target), url);

    let pages = [
        ("/", None),
        ("/8.8.8.8", None),
        ("/api/v1/me", None),
        ("/api/v1/ip/8.8.8.8", None),
        ("/docs", None),
        ("/docs", Some("text/html")),
        ("/?format=md", None),
        ("/8.8.8.8", Some("text/markdown")),
        ("/healthz", None),
        ("/llms.txt", None),
        ("/.well-known/api-catalog", None),
        ("/no/such/page", None),
    ];
    let mut missing = Vec::new();
    for (path, accept) in pages {
        let page_url = format!("{}{path}", server.base);
        let headers: Vec<(&str, &str)> = accept.iter().map(|a| ("accept", *a)).collect();
        for method in ["GET", "HEAD"] {
            let f = request(method, &page_url, &headers).await;
            match catalog_link(&f) {
                Some(t) if get(&resolve(&page_url, &t)).await.status == 200 => {}
                other => missing.push(format!(
                    "{method} {path} (Accept: {}) -> {}, api-catalog link {other:?}",
                    accept.unwrap_or("-"),
                    f.status
                )),
            }
        }
    }
    assert!(
        missing.is_empty(),
        "pages without a working Link rel=\"api-catalog\": {missing:#?}"
    );
}

/// The target of the `Link` header value with `rel="api-catalog"`, if any.
fn catalog_link(f: &Fetched) -> Option<String> {
    for value in f.header_all("link") {
        for link in value.split(',') {
            let link = link.trim();
            let Some(rest) = link.strip_prefix('<') else {
                continue;
            };
            let Some((target, params)) = rest.split_once('>') else {
                continue;
            };
            let is_catalog = params.split(';').any(|p| {
                let Some((k, v)) = p.split_once('=') else {
                    return false;
                };
                k.trim().eq_ignore_ascii_case("rel")
                    && v.trim()
                        .trim_matches('"')
                        .split_ascii_whitespace()
                        .any(|r| r.eq_ignore_ascii_case("api-catalog"))
            });
            if is_catalog {
                return Some(target.to_owned());
            }
        }
    }
    None
}

// ---------------------------------------------------------------------------
// MCP server card
// ---------------------------------------------------------------------------

#[tokio::test]
async fn mcp_server_card_members() {
    let server = support::start(support::config()).await;
    let f = get_ok(&server, "/.well-known/mcp/server-card.json").await;
    assert_eq!(
        f.essence(),
        "application/mcp-server-card+json",
        "{}",
        f.content_type()
    );
    assert_eq!(f.header("access-control-allow-origin"), Some("*"));
    let card = f.json();

    let schema = card["$schema"].as_str().expect("$schema");
    assert!(
        schema.starts_with("https://") && schema.contains("server-card"),
        "$schema {schema}"
    );
    let name = card["name"].as_str().expect("name");
    assert_eq!(
        name.matches('/').count(),
        1,
        "name {name} must have exactly one '/'"
    );
    let (namespace, short) = name.split_once('/').unwrap();
    assert!(!namespace.is_empty() && !short.is_empty(), "name {name}");
    assert!(
        card["version"].as_str().is_some_and(|v| !v.is_empty()),
        "version"
    );
    let description = card["description"].as_str().expect("description");
    assert!(!description.is_empty());
    assert!(
        description.chars().count() <= 100,
        "description is {} characters (max 100)",
        description.chars().count()
    );

    let remotes = card["remotes"].as_array().expect("remotes");
    assert!(!remotes.is_empty(), "no remotes");
    assert_eq!(remotes[0]["type"], "streamable-http");
    let url = remotes[0]["url"].as_str().expect("remotes[0].url");
    assert!(url.ends_with("/mcp"), "remote url {url}");
    assert_eq!(url, format!("{}/mcp", server.base));
    if let Some(versions) = remotes[0].get("supportedProtocolVersions") {
        let versions = string_set(versions);
        for v in ["2025-11-25", "2026-07-28"] {
            assert!(
                versions.contains(v),
                "supportedProtocolVersions lacks {v}: {versions:?}"
            );
        }
    }

    // The remote is a live MCP endpoint: a 2025-11-25 initialize answers.
    let init = exchange(
        "POST",
        url,
        &[
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
        ],
        br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"discovery-test","version":"0"}}}"#,
    )
    .await;
    init.expect_status(200);
    let body = init.text();
    assert!(body.contains("\"serverInfo\""), "initialize answer: {body}");
}

// ---------------------------------------------------------------------------
// llms.txt
// ---------------------------------------------------------------------------

/// The targets of the Markdown inline links `[text](url)` in `md`.
fn markdown_links(md: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = md;
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        // Up to the matching `)`, allowing balanced parentheses in the URL.
        let mut depth = 0usize;
        let mut end = None;
        for (j, c) in rest.char_indices() {
            match c {
                '(' => depth += 1,
                ')' if depth == 0 => {
                    end = Some(j);
                    break;
                }
                ')' => depth -= 1,
                c if c.is_whitespace() => {
                    end = Some(j);
                    break;
                }
                _ => {}
            }
        }
        let end = end.unwrap_or(rest.len());
        let target = rest[..end].trim_start_matches('<').trim_end_matches('>');
        if !target.is_empty() {
            out.push(target.to_owned());
        }
        rest = &rest[end..];
    }
    out
}

#[tokio::test]
async fn llms_txt_follows_the_proposal_and_its_links_resolve() {
    let server = support::start(support::config()).await;
    let f = get_ok(&server, "/llms.txt").await;
    assert_eq!(f.essence(), "text/markdown", "{}", f.content_type());
    let text = f.text();

    let mut lines = text.lines();
    let h1 = lines.next().unwrap_or("");
    assert!(
        h1.starts_with("# ") && h1.len() > 2,
        "llms.txt does not start with an H1: {h1:?}"
    );
    let summary = text
        .lines()
        .skip(1)
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    assert!(
        summary.starts_with("> "),
        "no blockquote summary after the H1: {summary:?}"
    );
    assert!(text.lines().any(|l| l.starts_with("## ")), "no H2 sections");
    assert!(
        text.contains("DB-IP") && text.contains("https://db-ip.com"),
        "no data attribution"
    );
    // Link lines in the sections follow `- [name](url): notes`.
    for line in text.lines().filter(|l| l.starts_with("- [")) {
        assert!(line.contains("]("), "malformed link line {line:?}");
    }

    let links = markdown_links(text);
    assert!(
        links.len() >= 5,
        "only {} links in llms.txt: {links:?}",
        links.len()
    );
    let mut ours = Vec::new();
    for link in &links {
        let url = resolve(&f.what, link);
        if on_server(&server, &url) {
            ours.push((url, None));
        } else {
            // External links: attribution only.
            assert!(
                url.starts_with("https://db-ip.com")
                    || url.starts_with("https://creativecommons.org"),
                "llms.txt links outside the service: {url}"
            );
        }
    }
    // The API, the docs, the OpenAPI document, the Markdown pages.
    for needle in [
        "/api/v1/me",
        "/api/v1/ip/",
        "/api/v1/openapi.json",
        "/docs",
        "format=md",
    ] {
        assert!(
            ours.iter().any(|(u, _)| u.contains(needle)),
            "llms.txt has no link containing {needle}"
        );
    }
    let broken = broken_links(&ours).await;
    assert!(
        broken.is_empty(),
        "llms.txt links that do not answer 200: {broken:#?}"
    );
    println!("llms.txt: {} links on the service resolve", ours.len());
}

// ---------------------------------------------------------------------------
// Agent skills
// ---------------------------------------------------------------------------

#[tokio::test]
async fn agent_skills_index_links_and_digests() {
    let server = support::start(support::config()).await;
    let f = get_ok(&server, "/.well-known/agent-skills/index.json").await;
    assert_eq!(f.essence(), "application/json", "{}", f.content_type());
    let index = f.json();

    let schema = index["$schema"].as_str().expect("$schema");
    assert!(schema.starts_with("https://"), "$schema {schema}");
    let skills = index["skills"].as_array().expect("skills[]");
    assert!(!skills.is_empty(), "no skills");

    let mut urls = Vec::new();
    for skill in skills {
        let name = skill["name"].as_str().expect("skill name");
        assert!(!name.is_empty());
        assert!(
            name.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
            "skill name {name}"
        );
        let kind = skill["type"].as_str().expect("skill type");
        assert_eq!(kind, "skill-md", "skill {name} type");
        assert!(
            skill["description"].as_str().is_some_and(|d| !d.is_empty()),
            "skill {name} description"
        );
        let reference = skill["url"].as_str().expect("skill url");
        let digest = skill["digest"].as_str().expect("skill digest");
        let hex = digest
            .strip_prefix("sha256:")
            .unwrap_or_else(|| panic!("digest {digest} is not sha256:<hex>"));
        assert!(
            hex.len() == 64
                && hex
                    .chars()
                    .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()),
            "digest {digest} is not 64 lower-case hex digits"
        );

        // `url` is relative to the index's own URL.
        let url = resolve(&f.what, reference);
        assert!(
            on_server(&server, &url),
            "skill {name} at {url} is not on the service"
        );
        let served = get(&url).await;
        served.expect_status(200);
        assert_eq!(
            served.essence(),
            "text/markdown",
            "{url}: {}",
            served.content_type()
        );
        assert_eq!(
            sha256_hex(served.body.as_bytes()),
            hex,
            "skill {name}: digest does not match the bytes served at {url}"
        );
        // By convention `/.well-known/agent-skills/{name}/SKILL.md`.
        assert!(
            url.ends_with(&format!("/.well-known/agent-skills/{name}/SKILL.md")),
            "skill {name} url {url}"
        );

        // SKILL.md: YAML front matter with name and description.
        let md = served.text();
        let front = front_matter(md)
            .unwrap_or_else(|| panic!("{url} does not start with YAML front matter"));
        let fm_name =
            yaml_value(front, "name").unwrap_or_else(|| panic!("{url}: front matter has no name"));
        assert_eq!(fm_name, name, "front matter name differs from the index");
        let fm_desc = yaml_value(front, "description")
            .unwrap_or_else(|| panic!("{url}: front matter has no description"));
        assert!(
            !fm_desc.is_empty() && fm_desc.chars().count() <= 1024,
            "description length"
        );
        // It teaches the API: examples, the fields, the errors, the credit.
        for needle in [
            "curl",
            "/api/v1/ip/",
            "/api/v1/me",
            "invalid_ip",
            "DB-IP",
            "local_time",
        ] {
            assert!(md.contains(needle), "{url} does not mention {needle}");
        }
        urls.push((url, None));
        // Links inside SKILL.md resolve too.
        for link in markdown_links(md) {
            let u = resolve(&served.what, &link);
            if on_server(&server, &u) {
                urls.push((u, None));
            }
        }
    }
    let broken = broken_links(&urls).await;
    assert!(
        broken.is_empty(),
        "skills links that do not answer 200: {broken:#?}"
    );

    // The digest is stable: the same bytes on a second request.
    let again = get_ok(&server, "/.well-known/agent-skills/index.json").await;
    assert_eq!(again.body, f.body, "the index changes between requests");
}

/// The text between a leading `---` line and the next `---` line.
fn front_matter(md: &str) -> Option<&str> {
    let rest = md
        .strip_prefix("---\n")
        .or_else(|| md.strip_prefix("---\r\n"))?;
    let end = rest
        .find("\n---\n")
        .or_else(|| rest.find("\n---\r\n"))
        .or_else(|| rest.ends_with("\n---").then(|| rest.len() - 4))?;
    Some(&rest[..end])
}

/// A top-level scalar `key: value` of simple YAML (quotes removed).
fn yaml_value<'a>(yaml: &'a str, key: &str) -> Option<&'a str> {
    yaml.lines().find_map(|line| {
        let (k, v) = line.split_once(':')?;
        (k == key).then(|| v.trim().trim_matches('"').trim_matches('\''))
    })
}

// ---------------------------------------------------------------------------
// OpenAPI: third-party validator and fuzzer
// ---------------------------------------------------------------------------

/// Fetches the document into `dir` and runs `openapi-spec-validator` on it.
async fn validate_openapi(server: &TestServer, dir: &Path) -> PathBuf {
    validate_document(server, dir, "/api/v1/openapi.json", "3.1").await
}

/// Fetches the document at `path` into `dir` and runs `openapi-spec-validator`
/// on it, which reads its `openapi` version (`want`) and checks it against
/// that version's schema.
async fn validate_document(server: &TestServer, dir: &Path, path: &str, want: &str) -> PathBuf {
    let f = get_ok(server, path).await;
    let version = f.json()["openapi"].as_str().unwrap_or_default().to_owned();
    assert!(version.starts_with(want), "{path}: openapi {version}");
    let file = dir.join(path.rsplit('/').next().unwrap_or("openapi.json"));
    std::fs::write(&file, &f.body).unwrap();
    let out = run_python(
        &["-m", "openapi_spec_validator", file.to_str().unwrap()],
        dir,
        Duration::from_secs(120),
    )
    .await;
    let stdout = lossy(&out.stdout);
    let stderr = lossy(&out.stderr);
    println!("openapi-spec-validator: {}{}", stdout.trim(), stderr.trim());
    assert!(
        out.status.success(),
        "openapi-spec-validator rejects the document ({}):\n{stdout}\n{stderr}",
        out.status
    );
    assert!(stdout.contains("OK"), "openapi-spec-validator: {stdout}");
    file
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openapi_passes_openapi_spec_validator() {
    let server = support::start(support::config()).await;
    let dir = scratch_dir("validator");
    validate_openapi(&server, &dir).await;
}

/// The 3.0 rendition validates as OpenAPI 3.0 (issue 31).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openapi_30_rendition_passes_openapi_spec_validator() {
    let server = support::start(support::config()).await;
    let dir = scratch_dir("validator30");
    validate_document(&server, &dir, "/api/v1/openapi-3.0.json", "3.0").await;
}

/// `schemathesis run <base>/api/v1/openapi.json --checks all`, every phase
/// (examples, coverage, fuzzing, stateful), positive and negative data, over
/// every operation, `POST /mcp` included.
/// `tests/external/schemathesis.toml` lets the prefix route answer 400 to a
/// schema-valid pair its two parameters cannot form together (a length too
/// long for the family, bits below the length); the file says why.
/// `IPLOOKUP_SCHEMATHESIS_MAX_EXAMPLES` (default 200) bounds the cases per
/// operation; `IPLOOKUP_SCHEMATHESIS_SEED` replays a run.
///
/// One worker: on CPython 3.11, Hypothesis parses lambda sources with `ast`
/// from several worker threads at once, and CPython 3.11 keeps the AST
/// constructor's recursion depth in state shared by every thread
/// (python/cpython#106905). A CI run failed on that as a schemathesis
/// "Runtime Error" (`AST constructor recursion depth mismatch`) in Hypothesis,
/// not in iplookup. One worker thread cannot race.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn openapi_schemathesis_all_checks_pass() {
    let server = support::start(support::config()).await;
    let dir = scratch_dir("schemathesis");
    validate_openapi(&server, &dir).await;

    let max_examples =
        std::env::var("IPLOOKUP_SCHEMATHESIS_MAX_EXAMPLES").unwrap_or_else(|_| "200".to_owned());
    let junit = dir.join("junit.xml");
    let schema_url = format!("{}/api/v1/openapi.json", server.base);
    let config = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/external/schemathesis.toml"
    );
    let mut args: Vec<String> = [
        "-m",
        "schemathesis.cli",
        "--config-file",
        config,
        "run",
        &schema_url,
        "--checks",
        "all",
        "--max-examples",
        &max_examples,
        "--workers",
        "1",
        "--request-timeout",
        "10",
        "--generation-database",
        "none",
        "--report",
        "junit",
        "--report-junit-path",
        junit.to_str().unwrap(),
        "--no-color",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    if let Ok(seed) = std::env::var("IPLOOKUP_SCHEMATHESIS_SEED") {
        args.push("--seed".into());
        args.push(seed);
    }
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let started = std::time::Instant::now();
    let out = run_python(&argv, &dir, Duration::from_secs(600)).await;
    let elapsed = started.elapsed();
    let stdout = lossy(&out.stdout);
    let stderr = lossy(&out.stderr);
    println!("{stdout}");
    if !stderr.trim().is_empty() {
        eprintln!("{stderr}");
    }

    let generated = generated_cases(&stdout);
    println!(
        "schemathesis: {} generated test cases, {}, {:.1}s",
        generated.map_or("?".to_owned(), |n| n.to_string()),
        out.status,
        elapsed.as_secs_f64()
    );
    assert!(
        out.status.success(),
        "schemathesis found failures ({}); see the FAILURES section above",
        out.status
    );
    assert!(
        stdout.contains("No issues found"),
        "schemathesis did not report a clean run"
    );
    let n = generated.expect("schemathesis printed no `N generated` count");
    assert!(n > 0, "schemathesis generated no test cases");
    let report = std::fs::read_to_string(&junit).expect("JUnit report written");
    assert!(
        report.contains("failures=\"0\"") && report.contains("errors=\"0\""),
        "{report}"
    );
}

/// The `N` of schemathesis's `N generated, ...` summary line.
fn generated_cases(stdout: &str) -> Option<u64> {
    stdout.lines().find_map(|line| {
        let (n, rest) = line.trim().split_once(' ')?;
        rest.starts_with("generated")
            .then(|| n.parse().ok())
            .flatten()
    })
}

// ---------------------------------------------------------------------------
// MCP with the official Python SDK
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_python_sdk_lists_and_calls_the_tools() {
    let server = support::start(support::config()).await;
    let dir = scratch_dir("mcp");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/py/mcp_client.py");
    let out = run_python(
        &[script.to_str().unwrap(), &server.base],
        &dir,
        Duration::from_secs(180),
    )
    .await;
    let stdout = lossy(&out.stdout);
    let stderr = lossy(&out.stderr);
    assert!(
        out.status.success(),
        "mcp_client.py failed ({}):\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    let report: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("mcp_client.py printed no JSON ({e}):\n{stdout}\n{stderr}"));
    assert_eq!(report["url"], format!("{}/mcp", server.base));
    let runs = report["runs"].as_array().expect("runs");

    // What the HTTP API says, for comparison.
    let api = get_ok(&server, "/api/v1/ip/8.8.8.8").await.json();
    let me = get_ok(&server, "/api/v1/me").await.json();
    let asn = get_ok(&server, "/api/v1/asn/AS13335").await.json();
    assert_eq!(api["ip"], "8.8.8.8");

    let mut modes = BTreeSet::new();
    for run in runs {
        let mode = run["mode"].as_str().expect("mode");
        let version = run["protocol_version"].as_str().expect("protocol_version");
        modes.insert(mode.to_owned());
        println!(
            "MCP SDK mode {mode}: protocol {version}, server {}",
            run["server_info"]
        );
        match mode {
            "legacy" => assert_eq!(version, "2025-11-25", "initialize handshake"),
            "2026-07-28" => assert_eq!(version, "2026-07-28"),
            _ => assert!(
                ["2025-11-25", "2026-07-28"].contains(&version),
                "mode {mode} negotiated {version}"
            ),
        }

        // Tools with input and output schemas; the output schema is IpInfo.
        for tool in ["lookup_ip", "my_ip"] {
            let t = &run["tools"][tool];
            assert_eq!(
                t["inputSchema"]["type"], "object",
                "{mode}: {tool} input schema"
            );
            assert_eq!(
                t["outputSchema"]["type"], "object",
                "{mode}: {tool} output schema"
            );
            let required = string_set(&t["outputSchema"]["required"]);
            for field in ["ip", "location", "network"] {
                assert!(
                    required.contains(field),
                    "{mode}: {tool} output does not require {field}"
                );
            }
        }
        assert!(
            string_set(&run["tools"]["lookup_ip"]["inputSchema"]["required"]).contains("ip"),
            "{mode}: lookup_ip input does not require ip"
        );

        // lookup_ip 8.8.8.8 is the API's JSON (local_time may have moved on).
        let lookup = &run["lookup_ip"];
        assert_eq!(
            without_local_time(lookup),
            without_local_time(&api),
            "{mode}: lookup_ip 8.8.8.8 differs from GET /api/v1/ip/8.8.8.8"
        );
        check_local_time(&api, lookup, mode);
        // The text content carries the same object, for clients without
        // structured content.
        if let Some(text) = run["lookup_ip_text"].as_str().filter(|t| !t.is_empty()) {
            let parsed: Value = serde_json::from_str(text)
                .unwrap_or_else(|e| panic!("{mode}: lookup_ip text is not JSON ({e}): {text}"));
            assert_eq!(without_local_time(&parsed), without_local_time(lookup));
        }

        // lookup_ips: one entry per input, in order: the API's JSON, then the error.
        let results = run["lookup_ips"]["results"]
            .as_array()
            .unwrap_or_else(|| panic!("{mode}: lookup_ips has no results: {run}"));
        assert_eq!(results.len(), 2, "{mode}: lookup_ips");
        assert_eq!(
            without_local_time(&results[0]),
            without_local_time(&api),
            "{mode}: lookup_ips 8.8.8.8 differs from GET /api/v1/ip/8.8.8.8"
        );
        assert_eq!(
            results[1]["error"], "invalid_ip",
            "{mode}: lookup_ips not-an-ip"
        );
        assert_eq!(
            run["tools"]["lookup_ips"]["outputSchema"]["type"], "object",
            "{mode}: lookup_ips output schema"
        );
        // lookup_asn: the API's AsnInfo, its output schema the AsnInfo one.
        // The tool lists every prefix on one page; the API pages them (500
        // a page): the rest is the same, and the tool's lists hold the
        // API's prefix_count.
        let mut tool = run["lookup_asn"].clone();
        let mut paged = asn.clone();
        for family in ["v4", "v6"] {
            assert_eq!(
                tool["prefixes"][family].as_array().map(Vec::len),
                paged["prefix_count"][family].as_u64().map(|n| n as usize),
                "{mode}: lookup_asn {family} prefixes"
            );
        }
        assert_eq!(tool["page"]["pages"], 1, "{mode}");
        // `prefix_details` repeats the page's prefixes with their country
        // and size: it is paged like `prefixes`.
        for family in ["v4", "v6"] {
            assert_eq!(
                tool["prefix_details"][family].as_array().map(Vec::len),
                tool["prefixes"][family].as_array().map(Vec::len),
                "{mode}: lookup_asn {family} prefix_details"
            );
        }
        for value in [&mut tool, &mut paged] {
            value["prefixes"] = Value::Null;
            value["prefix_details"] = Value::Null;
            value["page"] = Value::Null;
        }
        assert_eq!(tool, paged, "{mode}: lookup_asn vs /api/v1/asn/AS13335");
        let asn_out = &run["tools"]["lookup_asn"]["outputSchema"];
        let required = string_set(&asn_out["required"]);
        for field in ["asn", "organization", "prefixes", "addresses", "countries"] {
            assert!(
                required.contains(field),
                "{mode}: lookup_asn output lacks {field}"
            );
        }

        // my_ip: the test's loopback address, same object as /api/v1/me.
        let mine = &run["my_ip"];
        assert_eq!(mine["ip"], "127.0.0.1", "{mode}: my_ip");
        assert_eq!(
            without_local_time(mine),
            without_local_time(&me),
            "{mode}: my_ip vs /api/v1/me"
        );

        // A bad address is a tool error with a reason.
        assert_eq!(run["bad"]["isError"], true, "{mode}: not-an-ip");
        let reason = run["bad"]["text"].as_str().unwrap_or("");
        assert!(
            reason.contains("invalid_ip") || reason.contains("not a valid"),
            "{mode}: {reason}"
        );
    }
    for mode in ["legacy", "auto", "2026-07-28"] {
        assert!(modes.contains(mode), "the SDK did not run mode {mode}");
    }
}

/// Both `local_time`s parse as RFC 3339, carry the same UTC offset and are
/// within a couple of minutes of each other.
fn check_local_time(api: &Value, mcp: &Value, mode: &str) {
    // At country accuracy a country whose zones disagree (the United
    // States: 8.8.8.8) has no local time (issue 33): then neither has one.
    let Some(a) = api["location"]["local_time"].as_str() else {
        assert!(
            api["location"]["local_time"].is_null() && mcp["location"]["local_time"].is_null(),
            "{mode}: API local_time {} but lookup_ip {}",
            api["location"]["local_time"],
            mcp["location"]["local_time"]
        );
        return;
    };
    let m = mcp["location"]["local_time"].as_str().unwrap_or_else(|| {
        panic!(
            "{mode}: lookup_ip local_time is {}",
            mcp["location"]["local_time"]
        )
    });
    let a = DateTime::parse_from_rfc3339(a).unwrap_or_else(|e| panic!("API local_time {a}: {e}"));
    let m =
        DateTime::parse_from_rfc3339(m).unwrap_or_else(|e| panic!("{mode}: local_time {m}: {e}"));
    assert_eq!(a.offset(), m.offset(), "{mode}: local_time offsets differ");
    let drift = (a - m).num_seconds().abs();
    assert!(drift <= 120, "{mode}: local_time {drift}s apart");
}
