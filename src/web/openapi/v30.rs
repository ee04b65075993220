//! The OpenAPI 3.0 rendition, `/api/v1/openapi-3.0.json`: converted from
//! the 3.1 document as built ([`super::build`]), never written by hand, for
//! the tools that read only 3.0 (progenitor, API gateways' import).
//!
//! What changes: `openapi` is `3.0.3`; in every schema, a type list with
//! `null` becomes the type and `nullable: true` (several types besides
//! `null`, an `anyOf` of each); an alternative of `null` and one schema
//! (`oneOf`/`anyOf`) becomes `allOf` of that schema and `nullable: true` (a
//! 3.0 `$ref` takes no sibling); `const` becomes a one-value `enum`; a
//! schema's `examples` list becomes its first `example`; a numeric
//! `exclusiveMinimum`/`exclusiveMaximum` becomes the bound and `true`.
//! A media type without a schema gets the empty one (any value); an
//! `anyOf` of the `ipv4` and `ipv6` strings is one string of format `ip`.
//! Members 3.0 does not know (`license.identifier`, `webhooks`,
//! `jsonSchemaDialect`, `$schema`, `contentMediaType`) are dropped. The
//! media types' `examples` maps, the operations and everything else are
//! the 3.1 document's.
//!
//! One thing 3.0 cannot say: a nullable reference. `allOf: [$ref]` with
//! `nullable: true` and the target's `type` is what generators read as an
//! optional value (progenitor's typify, openapi-generator), but a strict 3.0
//! validator applies the `allOf` to `null` too, so Spectral's example check
//! refuses the examples whose `special_purpose` or `accuracy` is `null`.

use serde_json::{Map, Value, json};

/// The rendition's version.
pub(crate) const VERSION: &str = "3.0.3";

/// `doc` (OpenAPI 3.1) as OpenAPI 3.0.
pub(crate) fn convert(doc: &Value) -> Value {
    let mut out = doc.clone();
    out["openapi"] = VERSION.into();
    if let Some(o) = out.as_object_mut() {
        o.remove("webhooks");
        o.remove("jsonSchemaDialect");
    }
    if let Some(license) = out
        .pointer_mut("/info/license")
        .and_then(Value::as_object_mut)
    {
        license.remove("identifier");
    }
    if let Some(schemas) = out
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    {
        for schema in schemas.values_mut() {
            *schema = schema_30(schema);
        }
    }
    // A nullable reference gets its target's `type` beside `nullable`, as
    // 3.0 tools ask (`nullable` without `type` means nothing to them).
    let types: Map<String, Value> = out
        .pointer("/components/schemas")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(name, s)| {
            Some((
                format!("#/components/schemas/{name}"),
                s.get("type")?.clone(),
            ))
        })
        .collect();
    type_nullable_references(&mut out, &types);
    if let Some(paths) = out.get_mut("paths").and_then(Value::as_object_mut) {
        for item in paths.values_mut() {
            for op in item
                .as_object_mut()
                .into_iter()
                .flat_map(|i| i.values_mut())
            {
                operation_30(op);
            }
        }
    }
    out
}

/// Every object of `v` with `nullable` and an `allOf` of one reference but
/// no `type`: the type of that reference's target, from `types`.
fn type_nullable_references(v: &mut Value, types: &Map<String, Value>) {
    match v {
        Value::Object(o) => {
            let target = o
                .get("allOf")
                .and_then(|a| a.get(0))
                .and_then(|r| r.get("$ref"))
                .and_then(Value::as_str)
                .filter(|_| {
                    o.get("nullable") == Some(&Value::Bool(true)) && !o.contains_key("type")
                })
                .and_then(|r| types.get(r))
                .cloned();
            if let Some(t) = target {
                o.insert("type".into(), t);
            }
            for child in o.values_mut() {
                type_nullable_references(child, types);
            }
        }
        Value::Array(items) => {
            for child in items {
                type_nullable_references(child, types);
            }
        }
        _ => {}
    }
}

/// The schemas of one operation: its parameters', its request body's and
/// its responses' (content and headers). Read with `get_mut`: indexing
/// would add the members it does not find.
fn operation_30(op: &mut Value) {
    if let Some(ps) = op.get_mut("parameters").and_then(Value::as_array_mut) {
        for p in ps {
            convert_member(p, "schema");
        }
    }
    if let Some(body) = op.get_mut("requestBody") {
        contents_30(body);
    }
    if let Some(rs) = op.get_mut("responses").and_then(Value::as_object_mut) {
        for r in rs.values_mut() {
            contents_30(r);
            if let Some(hs) = r.get_mut("headers").and_then(Value::as_object_mut) {
                for h in hs.values_mut() {
                    convert_member(h, "schema");
                }
            }
        }
    }
}

/// The schemas of the `content` of `holder` (a response or a request body).
/// A media type without a schema (a fixed document: this one, the API
/// catalog) gets the empty schema, any value, which says the same: 3.0
/// tools read a schema-less JSON answer as an error (progenitor panics).
fn contents_30(holder: &mut Value) {
    if let Some(content) = holder.get_mut("content").and_then(Value::as_object_mut) {
        for media in content.values_mut() {
            convert_member(media, "schema");
            if let Some(m) = media.as_object_mut() {
                m.entry("schema").or_insert_with(|| json!({}));
            }
        }
    }
}

fn convert_member(holder: &mut Value, key: &str) {
    if let Some(schema) = holder.get_mut(key) {
        *schema = schema_30(schema);
    }
}

/// `ip` when `alternatives` are the strings of formats `ipv4` and `ipv6`
/// and nothing else: an address of either family, as 3.0 tools name it
/// (progenitor's typify and Dropshot read `ip` as `std::net::IpAddr`; an
/// `anyOf` of the two became a struct of two options, which no client can
/// put in a path).
fn one_address(alternatives: &[Value]) -> Option<&'static str> {
    let mut formats: Vec<&str> = Vec::new();
    for a in alternatives {
        let members = a.as_object()?;
        if a["type"] != "string" || members.keys().any(|k| k != "type" && k != "format") {
            return None;
        }
        formats.push(a["format"].as_str()?);
    }
    formats.sort_unstable();
    (formats == ["ipv4", "ipv6"]).then_some("ip")
}

/// One JSON Schema (2020-12, as OpenAPI 3.1 writes it) as an OpenAPI 3.0
/// Schema Object.
pub(crate) fn schema_30(schema: &Value) -> Value {
    let Some(members) = schema.as_object() else {
        return schema.clone();
    };
    let mut out = Map::new();
    let mut nullable = false;
    for (key, value) in members {
        match key.as_str() {
            "$schema" | "contentMediaType" | "contentEncoding" | "$comment" => {}
            "type" => match value {
                Value::Array(types) => {
                    let named: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
                    let with_null = named.len() < types.len();
                    match named.as_slice() {
                        [one] => {
                            nullable |= with_null;
                            out.insert("type".into(), (*one).clone());
                        }
                        [] => nullable |= with_null,
                        many => {
                            // Each alternative nullable: 3.0 wants a `type`
                            // beside every `nullable`.
                            let alternatives = many
                                .iter()
                                .map(|t| match with_null {
                                    true => json!({"type": t, "nullable": true}),
                                    false => json!({"type": t}),
                                })
                                .collect();
                            out.insert("anyOf".into(), Value::Array(alternatives));
                        }
                    }
                }
                Value::String(t) if t == "null" => nullable = true,
                other => {
                    out.insert("type".into(), other.clone());
                }
            },
            "oneOf" | "anyOf" => {
                let alternatives: Vec<&Value> = value.as_array().into_iter().flatten().collect();
                let is_null = |v: &&Value| v["type"] == "null";
                let rest: Vec<Value> = alternatives
                    .iter()
                    .filter(|v| !is_null(v))
                    .map(|v| schema_30(v))
                    .collect();
                nullable |= rest.len() < alternatives.len();
                if let Some(format) = one_address(&rest) {
                    // IPv4 or IPv6 text: one string of format `ip`.
                    out.insert("type".into(), "string".into());
                    out.insert("format".into(), format.into());
                } else if let ([one], true) = (rest.as_slice(), rest.len() < alternatives.len()) {
                    // Null or one schema: that schema's members here, a
                    // reference alone in an `allOf`.
                    let mut one = one.as_object().cloned().unwrap_or_default();
                    if let Some(Value::Array(all)) = one.remove("allOf") {
                        out.insert("allOf".into(), Value::Array(all));
                    }
                    for (k, v) in one {
                        out.entry(k).or_insert(v);
                    }
                } else {
                    out.insert(key.clone(), Value::Array(rest));
                }
            }
            "allOf" => {
                let all = value.as_array().into_iter().flatten().map(schema_30);
                out.insert(key.clone(), Value::Array(all.collect()));
            }
            "properties" | "patternProperties" | "$defs" | "definitions" => {
                let converted = value
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(k, v)| (k.clone(), schema_30(v)));
                out.insert(key.clone(), Value::Object(converted.collect()));
            }
            "items" | "not" | "additionalProperties" => {
                out.insert(key.clone(), schema_30(value));
            }
            "const" => {
                out.insert("enum".into(), Value::Array(vec![value.clone()]));
            }
            "examples" => {
                if let Some(first) = value.as_array().and_then(|e| e.first()) {
                    out.insert("example".into(), first.clone());
                }
            }
            "exclusiveMinimum" | "exclusiveMaximum" if value.is_number() => {
                let bound = if key == "exclusiveMinimum" {
                    "minimum"
                } else {
                    "maximum"
                };
                out.insert(bound.into(), value.clone());
                out.insert(key.clone(), Value::Bool(true));
            }
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    if nullable {
        // 3.0 reads `nullable` beside a `type` (or a composition); a bare
        // `null` type is a schema of no other value.
        let composed = ["type", "allOf", "anyOf", "oneOf", "$ref"];
        if composed.iter().any(|k| out.contains_key(*k)) {
            out.insert("nullable".into(), Value::Bool(true));
        } else if out.get("enum").is_none() {
            out.insert("nullable".into(), Value::Bool(true));
            out.insert("enum".into(), json!([null]));
        }
    }
    if let Some(Value::Array(values)) = out.get_mut("enum") {
        if nullable && !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
    }
    if out.contains_key("$ref") && out.len() > 1 {
        // A `$ref` with siblings: 3.0 ignores them, so the reference goes
        // into an `allOf` beside them.
        if let Some(reference) = out.remove("$ref") {
            let mut all = vec![json!({"$ref": reference})];
            if let Some(Value::Array(more)) = out.remove("allOf") {
                all.extend(more);
            }
            out.insert("allOf".into(), Value::Array(all));
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nullable_types_and_alternatives_become_3_0() {
        let s = schema_30(&json!({"type": ["string", "null"], "examples": ["US"]}));
        assert_eq!(
            s,
            json!({"type": "string", "nullable": true, "example": "US"})
        );
        let s = schema_30(&json!({"oneOf": [{"type": "null"}, {"$ref": "#/x"}]}));
        assert_eq!(s, json!({"allOf": [{"$ref": "#/x"}], "nullable": true}));
        let s =
            schema_30(&json!({"oneOf": [{"$ref": "#/x", "description": "d"}, {"type": "null"}]}));
        assert_eq!(
            s,
            json!({"allOf": [{"$ref": "#/x"}], "description": "d", "nullable": true})
        );
        let s =
            schema_30(&json!({"anyOf": [{"type": "string", "format": "ipv4"}, {"type": "null"}]}));
        assert_eq!(
            s,
            json!({"type": "string", "format": "ipv4", "nullable": true})
        );
        let s = schema_30(&json!({"type": ["string", "integer", "null"]}));
        assert_eq!(
            s,
            json!({"anyOf": [{"type": "string", "nullable": true}, {"type": "integer", "nullable": true}]})
        );
        let s = schema_30(&json!({"const": "2.0"}));
        assert_eq!(s, json!({"enum": ["2.0"]}));
        let s = schema_30(&json!({"type": ["string", "null"], "enum": ["a", null]}));
        assert_eq!(
            s,
            json!({"type": "string", "nullable": true, "enum": ["a", null]})
        );
        let s = schema_30(&json!({"$ref": "#/x", "description": "d"}));
        assert_eq!(s, json!({"allOf": [{"$ref": "#/x"}], "description": "d"}));
        let s = schema_30(
            &json!({"type": "object", "properties": {"a": {"type": ["integer", "null"], "exclusiveMinimum": 0}}}),
        );
        assert_eq!(
            s["properties"]["a"],
            json!({"type": "integer", "nullable": true, "minimum": 0, "exclusiveMinimum": true})
        );
    }

    #[test]
    fn media_type_examples_stay_maps() {
        let doc = json!({"openapi": "3.1.0", "info": {"license": {"name": "x", "identifier": "MIT"}},
            "paths": {"/a": {"get": {"responses": {"200": {"content": {"application/json": {
                "schema": {"type": ["string", "null"]},
                "examples": {"one": {"value": "x"}}}}}}}}}});
        let out = convert(&doc);
        assert_eq!(out["openapi"], VERSION);
        assert!(out["info"]["license"].get("identifier").is_none());
        let op = out["paths"]["/a"]["get"].as_object().unwrap();
        assert_eq!(
            op.keys().collect::<Vec<_>>(),
            ["responses"],
            "nothing added"
        );
        let media = &out["paths"]["/a"]["get"]["responses"]["200"]["content"]["application/json"];
        assert_eq!(media["examples"]["one"]["value"], "x");
        let doc = json!({"components": {"schemas": {
            "A": {"type": "object"},
            "B": {"type": "object", "properties": {"a": {"oneOf": [{"$ref": "#/components/schemas/A"}, {"type": "null"}]}}}}}});
        let out = convert(&doc);
        assert_eq!(
            out["components"]["schemas"]["B"]["properties"]["a"],
            json!({"allOf": [{"$ref": "#/components/schemas/A"}], "nullable": true, "type": "object"})
        );
        assert_eq!(media["schema"], json!({"type": "string", "nullable": true}));
    }
}
