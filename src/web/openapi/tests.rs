//! The OpenAPI document's and the docs page's unit tests.

use crate::web::openapi::*;

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
        "/api/v1/prefix/{network}/{length}",
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
    assert_eq!(doc["security"], serde_json::json!([]));
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
        "#/components/schemas/ApiError"
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
            "/api/v1/prefix/{network}/{length}",
            "/api/v1/country/{cc}",
            "/ip",
            "/json",
            "/country",
            "/country-iso",
            "/city",
            "/asn",
            "/asn-org",
            "/coordinates"
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
        "ApiError",
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

/// Every operation of `doc`: (method, path, operation).
fn operations(doc: &serde_json::Value) -> Vec<(String, String, &serde_json::Value)> {
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            out.push((method.clone(), path.clone(), op));
        }
    }
    out
}

#[test]
fn every_operation_has_a_summary_and_a_description() {
    let doc = openapi_json_value(lookup(), "http://x");
    for (method, path, op) in operations(&doc) {
        for member in ["summary", "description", "operationId"] {
            let text = op[member].as_str().unwrap_or_default();
            assert!(!text.trim().is_empty(), "{method} {path}: no {member}");
        }
    }
}

/// The schema a `$ref` names, or the schema itself.
fn target<'a>(doc: &'a serde_json::Value, s: &'a serde_json::Value) -> &'a serde_json::Value {
    match s["$ref"].as_str().and_then(|r| r.rsplit('/').next()) {
        Some(name) => &doc["components"]["schemas"][name],
        None => s,
    }
}

/// Holds `value` to `schema`'s `required`: every member sent is a
/// property, every required one is sent, and (`always`) every one sent is
/// required; then the same for every object inside.
fn sent_is_required(
    doc: &serde_json::Value,
    schema: &serde_json::Value,
    value: &serde_json::Value,
    at: &str,
) {
    let schema = target(doc, schema);
    let alternatives: Vec<&serde_json::Value> = ["oneOf", "anyOf"]
        .iter()
        .flat_map(|k| schema[*k].as_array().into_iter().flatten())
        .filter(|s| s["type"] != "null")
        .collect();
    if let [one] = alternatives.as_slice() {
        if !value.is_null() {
            return sent_is_required(doc, one, value, at);
        }
    }
    if let (Some(object), Some(props)) = (value.as_object(), schema["properties"].as_object()) {
        let required: Vec<&str> = schema["required"]
            .as_array()
            .unwrap_or_else(|| panic!("{at}: no `required`"))
            .iter()
            .filter_map(|r| r.as_str())
            .collect();
        for key in object.keys() {
            assert!(props.contains_key(key), "{at}.{key}: sent, not a property");
            assert!(
                required.contains(&key.as_str()),
                "{at}.{key}: always sent, not required"
            );
            sent_is_required(doc, &props[key], &object[key], &format!("{at}.{key}"));
        }
        for key in required {
            assert!(object.contains_key(key), "{at}.{key}: required, not sent");
        }
    }
    if let (Some(items), Some(list)) = (schema.get("items"), value.as_array()) {
        for (i, item) in list.iter().enumerate() {
            sent_is_required(doc, items, item, &format!("{at}[{i}]"));
        }
    }
}

#[test]
fn what_the_server_always_sends_is_required() {
    let doc = openapi_json_value(lookup(), "http://x");
    let schema = |name: &str| serde_json::json!({"$ref": format!("#/components/schemas/{name}")});
    for ip in ["8.8.8.8", "2001:4860:4860::8888", "10.1.2.3", "192.0.2.1"] {
        let answered = lookup().lookup_at(crate::lookup::parse(ip).unwrap(), chrono::Utc::now());
        let value = serde_json::to_value(&answered.info).unwrap();
        sent_is_required(&doc, &schema("IpInfo"), &value, ip);
    }
    let which = crate::lookup::asn::Prefixes::Page {
        number: 1,
        per_page: 500,
    };
    let asn = lookup().asn_now("AS15169", which).unwrap().info;
    let value = serde_json::to_value(&asn).unwrap();
    sent_is_required(&doc, &schema("AsnInfo"), &value, "AS15169");
    // The error's `message` may be left out: it is the one member not required.
    let error = serde_json::json!({"error": "invalid_ip"});
    sent_is_required(&doc, &schema("ApiError"), &error, "ApiError");
    let props = doc["components"]["schemas"]["ApiError"]["properties"]
        .as_object()
        .unwrap();
    assert!(props.contains_key("message"));
    assert!(doc["components"]["schemas"].get("Error").is_none());
}

/// Every schema of `doc` with the path to it.
fn each_schema<'a>(
    at: String,
    s: &'a serde_json::Value,
    out: &mut Vec<(String, &'a serde_json::Value)>,
) {
    let Some(members) = s.as_object() else { return };
    out.push((at.clone(), s));
    for (key, value) in members {
        match key.as_str() {
            "properties" | "$defs" => {
                for (name, p) in value.as_object().into_iter().flatten() {
                    each_schema(format!("{at}.{name}"), p, out);
                }
            }
            "items" | "not" | "additionalProperties" => each_schema(format!("{at}[]"), value, out),
            "oneOf" | "anyOf" | "allOf" => {
                for alt in value.as_array().into_iter().flatten() {
                    each_schema(at.clone(), alt, out);
                }
            }
            _ => {}
        }
    }
}

#[test]
fn an_as_number_is_an_int64_from_0_to_4294967295_everywhere() {
    let doc = openapi_json_value(lookup(), "http://x");
    let mut all = Vec::new();
    for (name, s) in doc["components"]["schemas"].as_object().unwrap() {
        each_schema(name.clone(), s, &mut all);
    }
    let asns: Vec<_> = all
        .iter()
        .filter(|(at, s)| at.ends_with(".asn") && s.get("type").is_some())
        .collect();
    assert!(asns.len() >= 2, "{asns:?}");
    for (at, s) in asns {
        let types = s["type"].to_string();
        assert!(types.contains("integer"), "{at}: {s}");
        assert_eq!(s["format"], "int64", "{at}: {s}");
        assert_eq!(s["minimum"], 0, "{at}: {s}");
        assert_eq!(s["maximum"], 4294967295_u64, "{at}: {s}");
    }
}

#[test]
fn the_batch_declares_its_format_parameter() {
    let doc = openapi_json_value(lookup(), "http://x");
    let op = &doc["paths"]["/api/v1/ip"]["post"];
    let format = op["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "format")
        .expect("?format= declared");
    assert_eq!(format["in"], "query");
    let values = &target(&doc, &format["schema"])["enum"];
    assert_eq!(values, &serde_json::json!(["json", "ndjson", "csv"]));
    let content = op["responses"]["200"]["content"].as_object().unwrap();
    let media: Vec<&str> = content.keys().map(String::as_str).collect();
    assert_eq!(
        media,
        ["application/json", "application/x-ndjson", "text/csv"]
    );
}

#[test]
fn the_3_0_rendition_is_the_document_in_3_0_terms() {
    let v31 = openapi_json_value(lookup(), "http://x");
    let text = served_text(lookup(), "http://x", Version::V30);
    let v30: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v30["openapi"], v30::VERSION);
    assert_eq!(v30["servers"][0]["url"], "http://x");
    assert_eq!(v30["security"], serde_json::json!([]));
    // The same operations and schemas, in the same order.
    let keys = |v: &serde_json::Value, k: &str| -> Vec<String> {
        v[k].as_object().unwrap().keys().cloned().collect()
    };
    assert_eq!(keys(&v31, "paths"), keys(&v30, "paths"));
    assert_eq!(
        keys(&v31["components"], "schemas"),
        keys(&v30["components"], "schemas")
    );
    // Nothing added: each operation and response has the 3.1 one's members.
    for (method, path, op) in operations(&v30) {
        let was = &v31["paths"][&path][&method];
        assert_eq!(
            keys(was, "responses"),
            keys(op, "responses"),
            "{method} {path}"
        );
        let members =
            |v: &serde_json::Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(members(was), members(op), "{method} {path}");
        for (status, r) in op["responses"].as_object().unwrap() {
            assert_eq!(
                members(&was["responses"][status]),
                members(r),
                "{method} {path} {status}"
            );
        }
    }
    let mut all = Vec::new();
    for (name, s) in v30["components"]["schemas"].as_object().unwrap() {
        each_schema(name.clone(), s, &mut all);
    }
    for (method, path, op) in operations(&v30) {
        for p in op["parameters"].as_array().into_iter().flatten() {
            each_schema(
                format!("{method} {path} {}", p["name"]),
                &p["schema"],
                &mut all,
            );
        }
        for (status, r) in op["responses"].as_object().unwrap() {
            for (m, c) in r["content"].as_object().into_iter().flatten() {
                each_schema(
                    format!("{method} {path} {status} {m}"),
                    &c["schema"],
                    &mut all,
                );
            }
        }
    }
    assert!(all.len() > 100, "{}", all.len());
    for (at, s) in &all {
        assert!(!s["type"].is_array() && s["type"] != "null", "{at}: {s}");
        if s.get("nullable").is_some() {
            assert!(s.get("type").is_some(), "{at}: nullable without type: {s}");
        }
        for member in ["const", "examples", "$schema"] {
            assert!(s.get(member).is_none(), "{at}: {member} in {s}");
        }
        if s.get("$ref").is_some() {
            assert_eq!(s.as_object().unwrap().len(), 1, "{at}: $ref with siblings");
        }
    }
    let country = &v30["components"]["schemas"]["Location"]["properties"]["country_code"];
    assert_eq!(country["type"], "string");
    assert_eq!(country["nullable"], true);
    let special = &v30["components"]["schemas"]["IpInfo"]["properties"]["special_purpose"];
    assert_eq!(special["nullable"], true, "{special}");
    assert_eq!(special["type"], "object", "{special}");
    assert_eq!(
        special["allOf"][0]["$ref"],
        "#/components/schemas/SpecialPurpose"
    );
    assert!(!text.contains(examples::BASE));
}
