//! The OpenAPI document's and the docs page's unit tests.

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
        .iter()
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
    let b = openapi_json_value(lookup(), "https://b.example:8443");
    assert_eq!(a["servers"][0]["url"], "http://a.example");
    assert_eq!(b["servers"][0]["url"], "https://b.example:8443");
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
        "/api/v1/prefix/{ip}/{length}",
        "/api/v1/country/{cc}",
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
    let order: Vec<&str> = path_order().map(|p| &p[1..]).collect();
    assert_eq!(served, order);
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
            "/api/v1/asn/{asn}",
            "/api/v1/asn/{asn}/prefixes.csv",
            "/api/v1/prefix/{ip}/{length}",
            "/api/v1/country/{cc}"
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
