//! The OpenAPI document (as served, in JSON) flattened into the docs page
//! ([`DocsPage`]): operations grouped by their tag in the order of the
//! document's `tags`, one table per object schema, the error codes of
//! [`model::ErrorCode`] and the limit answers once ([`super::limits::shared`]).

use serde_json::Value;

use super::super::render::{
    BodyDoc, DocsPage, ErrorDoc, Example, FieldDoc, Group, Operation, Parameter, ResponseDoc,
    SchemaDoc,
};
use super::{clients, limits, try_it};
use crate::model;

/// The statuses of the limits' answers, described once on the page.
const LIMIT_STATUSES: [&str; 4] = ["408", "414", "429", "503"];

/// The schemas first on the page, in this order; the others follow in the
/// document's order.
const FIRST_SCHEMAS: [&str; 10] = [
    "IpInfo",
    "Location",
    "Network",
    "SpecialPurpose",
    "AsnInfo",
    "AsnPrefixes",
    "AddressCounts",
    "AsnCountry",
    "BatchEntry",
    "ApiError",
];

/// The docs page of `doc`, its paths in `order`, with `examples` by operationId.
pub(crate) fn docs_page(
    doc: &Value,
    order: &[String],
    description: &str,
    examples: &[(&'static str, Vec<Example>)],
    attribution: String,
) -> DocsPage {
    let mut groups: Vec<Group> = doc["tags"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| Group {
            tag: str_of(&t["name"]),
            title: t["x-displayName"]
                .as_str()
                .map_or_else(|| str_of(&t["name"]), str::to_owned),
            description: str_of(&t["description"]),
            operations: Vec::new(),
        })
        .collect();
    for path in order {
        let item = &doc["paths"][path.as_str()];
        for method in ["get", "post"] {
            let op = &item[method];
            if !op.is_object() {
                continue;
            }
            let tag = op["tags"][0].as_str().unwrap_or_default();
            let operation = flatten(doc, path, method, op, examples);
            match groups.iter_mut().find(|g| g.tag == tag) {
                Some(g) => g.operations.push(operation),
                None => groups.push(Group {
                    tag: tag.to_owned(),
                    title: tag.to_owned(),
                    description: String::new(),
                    operations: vec![operation],
                }),
            }
        }
    }
    let every_format = [
        "application/json",
        "text/plain",
        "text/markdown",
        "text/html",
    ];
    DocsPage {
        title: str_of(&doc["info"]["title"]),
        version: str_of(&doc["info"]["version"]),
        description: description.to_owned(),
        base_url: String::new(),
        groups,
        schemas: schemas(doc),
        errors: model::ErrorCode::ALL
            .iter()
            .map(|c| ErrorDoc {
                code: c.as_str().to_owned(),
                status: c.status(),
                when: c.when().to_owned(),
            })
            .collect(),
        limits: limits::shared()
            .into_iter()
            .map(|(status, description)| ResponseDoc {
                status: status.to_owned(),
                description,
                media_types: every_format.map(str::to_owned).to_vec(),
            })
            .collect(),
        attribution,
    }
}

fn str_of(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_owned()
}

fn flatten(
    doc: &Value,
    path: &str,
    method: &str,
    op: &Value,
    examples: &[(&'static str, Vec<Example>)],
) -> Operation {
    let id = str_of(&op["operationId"]);
    let parameters = op["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| Parameter {
            name: str_of(&p["name"]),
            location: str_of(&p["in"]),
            required: p["required"].as_bool().unwrap_or(false),
            description: str_of(&p["description"]),
            schema: kind(doc, &p["schema"]),
        })
        .collect();
    let request = &op["requestBody"];
    let body = request["content"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(media_type, mt)| BodyDoc {
            media_type: media_type.clone(),
            required: request["required"].as_bool().unwrap_or(false),
            description: str_of(&request["description"]),
            schema: kind(doc, &mt["schema"]),
            example: if mt["example"].is_null() {
                String::new()
            } else {
                mt["example"].to_string()
            },
        })
        .collect();
    let mut responses = Vec::new();
    let mut limits = Vec::new();
    for (status, r) in op["responses"].as_object().into_iter().flatten() {
        if LIMIT_STATUSES.contains(&status.as_str()) {
            limits.push(status.clone());
            continue;
        }
        responses.push(ResponseDoc {
            status: status.clone(),
            description: str_of(&r["description"]),
            media_types: r["content"]
                .as_object()
                .map(|c| c.keys().cloned().collect())
                .unwrap_or_default(),
        });
    }
    limits.sort();
    Operation {
        method: method.to_ascii_uppercase(),
        path: path.to_owned(),
        summary: str_of(&op["summary"]),
        description: str_of(&op["description"]),
        parameters,
        body,
        responses,
        limits,
        examples: examples
            .iter()
            .find(|(i, _)| *i == id)
            .map(|(_, e)| e.clone())
            .unwrap_or_default(),
        try_it: try_it::form(method, path, op["tags"][0].as_str().unwrap_or_default())
            .or_else(|| try_it::post_form(doc, method, path, op)),
        clients: clients::for_operation(&id),
        id,
    }
}

/// The schema `$ref` names, or the schema itself.
fn deref<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str().and_then(|r| r.rsplit('/').next()) {
        Some(name) => &doc["components"]["schemas"][name],
        None => schema,
    }
}

/// A schema's type in a few words: `string or null`, `array of string`,
/// `Location`, `string (ipv4) or string (ipv6)`, `one of: json, text`.
pub(crate) fn kind(doc: &Value, schema: &Value) -> String {
    if let Some(name) = schema["$ref"].as_str().and_then(|r| r.rsplit('/').next()) {
        let target = &doc["components"]["schemas"][name];
        if target["type"] == "object" || target.get("oneOf").is_some() {
            return name.to_owned();
        }
        if let Some(values) = target["enum"].as_array() {
            if name == "ErrorCode" {
                return "ErrorCode".to_owned();
            }
            return one_of(values);
        }
        return kind(doc, target);
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(alternatives) = schema[key].as_array() {
            let kinds: Vec<String> = alternatives.iter().map(|a| kind(doc, a)).collect();
            return kinds.join(" or ");
        }
    }
    if let Some(values) = schema["enum"].as_array() {
        return one_of(values);
    }
    if let Some(c) = schema.get("const") {
        return format!("constant {c}");
    }
    let types: Vec<String> = match &schema["type"] {
        Value::String(t) => vec![t.clone()],
        Value::Array(ts) => ts.iter().map(str_of).collect(),
        _ => return "any".to_owned(),
    };
    let words: Vec<String> = types
        .iter()
        .map(|t| match t.as_str() {
            "array" => format!("array of {}", kind(doc, &schema["items"])),
            "string" => match schema["format"].as_str() {
                Some(f) => format!("string ({f})"),
                None => "string".to_owned(),
            },
            other => other.to_owned(),
        })
        .collect();
    words.join(" or ")
}

fn one_of(values: &[Value]) -> String {
    let names: Vec<String> = values
        .iter()
        .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
        .collect();
    format!("one of: {}", names.join(", "))
}

/// An example of a property: its own `examples`, else the first value of
/// an enum or a constant; objects and arrays of objects name their schema.
fn example(doc: &Value, prop: &Value) -> String {
    if let Some(e) = prop["examples"].get(0).or_else(|| prop.get("example")) {
        return e.to_string();
    }
    if let Some(c) = prop.get("const") {
        return c.to_string();
    }
    if prop["type"] == "array" {
        let item = example(doc, &prop["items"]);
        return if item.is_empty() {
            item
        } else {
            format!("[{item}]")
        };
    }
    let target = deref(doc, prop);
    if let Some(v) = target["enum"].get(0) {
        return v.to_string();
    }
    for key in ["oneOf", "anyOf"] {
        for alt in target[key].as_array().into_iter().flatten() {
            let e = example(doc, alt);
            if !e.is_empty() {
                return e;
            }
        }
    }
    if let Some(e) = target["examples"].get(0) {
        return e.to_string();
    }
    String::new()
}

/// A property's description: its own, else that of the schema it names,
/// else that of an alternative (`oneOf` of a schema and null).
fn description(doc: &Value, prop: &Value) -> String {
    if let Some(d) = prop["description"]
        .as_str()
        .or_else(|| deref(doc, prop)["description"].as_str())
    {
        return d.to_owned();
    }
    ["oneOf", "anyOf"]
        .iter()
        .flat_map(|k| prop[*k].as_array().into_iter().flatten())
        .map(|alt| description(doc, alt))
        .find(|d| !d.is_empty())
        .unwrap_or_default()
}

/// One table per object schema with properties.
fn schemas(doc: &Value) -> Vec<SchemaDoc> {
    let Some(all) = doc["components"]["schemas"].as_object() else {
        return Vec::new();
    };
    let mut names: Vec<&str> = FIRST_SCHEMAS
        .iter()
        .copied()
        .filter(|n| all.contains_key(*n))
        .collect();
    names.extend(
        all.keys()
            .map(String::as_str)
            .filter(|n| !FIRST_SCHEMAS.contains(n)),
    );
    names
        .into_iter()
        .filter_map(|name| {
            let schema = &all[name];
            let props = schema["properties"].as_object()?;
            let required: Vec<&str> = schema["required"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let fields = props
                .iter()
                .map(|(field, prop)| FieldDoc {
                    name: field.clone(),
                    kind: kind(doc, prop),
                    required: required.contains(&field.as_str()),
                    description: description(doc, prop),
                    example: example(doc, prop),
                })
                .collect();
            Some(SchemaDoc {
                name: name.to_owned(),
                description: str_of(&schema["description"]),
                fields,
            })
        })
        .collect()
}
