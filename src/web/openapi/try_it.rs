//! The try-it forms of `/docs`: every `GET` lookup of the route table has
//! one, a control per path parameter from [`params`] ([`form`]), and
//! `GET /docs/try`, where a form goes without JavaScript:
//! a 303 to the answer, its path filled from the form's values exactly as
//! the page's script fills it ([`target`]). The batch route's form
//! ([`post_form`]) sends its JSON body with the page's script only.

use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
use serde::Deserialize;
use serde_json::Value;

use std::collections::HashMap;

use super::super::params;
use super::super::render::{DocsPage, TryInput, TryIt};
use super::super::routes;

/// Whether the operation `method path` of tag `tag` has a form: every
/// `GET` lookup of the route table.
fn has_form(method: &str, path: &str, tag: &str) -> bool {
    method.eq_ignore_ascii_case("get") && tag == "lookup" && routes::by_template(path).is_some()
}

/// The try-it form of the operation `method path` of tag `tag`, if it has
/// one: a control per path parameter ([`params`]), and `format=json` for an
/// answer in several formats.
pub(crate) fn form(method: &str, path: &str, tag: &str) -> Option<TryIt> {
    if !has_form(method, path, tag) {
        return None;
    }
    let route = routes::by_template(path)?;
    let inputs = params::names(path)
        .into_iter()
        .map(|name| {
            let p = params::named(name)?;
            Some(TryInput {
                name: p.name.into(),
                label: p.label.into(),
                value: (p.example)(),
                options: (p.options)(),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    let query = match route.answer {
        routes::Produces::Negotiated(_) => "format=json",
        routes::Produces::Fixed(_) => "",
    };
    Some(TryIt {
        path: path.to_owned(),
        query: query.to_owned(),
        inputs,
        body: None,
    })
}

/// The try-it form of a `POST` lookup whose JSON body is a list of strings
/// (the batch route): the body's example, one item a line, and a choice per
/// query parameter with a list of values (`format`), all from `doc`.
pub(crate) fn post_form(doc: &Value, method: &str, path: &str, op: &Value) -> Option<TryIt> {
    if !method.eq_ignore_ascii_case("post") || op["tags"][0] != "lookup" {
        return None;
    }
    let json = &op["requestBody"]["content"]["application/json"];
    let schema = resolve(doc, &json["schema"]);
    if schema["type"] != "array" || resolve(doc, &schema["items"])["type"] != "string" {
        return None;
    }
    let example: Vec<&str> = json["example"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let inputs = op["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["in"] == "query")
        .filter_map(|p| {
            let options: Vec<String> = resolve(doc, &p["schema"])["enum"]
                .as_array()?
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect();
            Some(TryInput {
                name: p["name"].as_str()?.to_owned(),
                label: p["name"].as_str()?.to_owned(),
                value: options.first()?.clone(),
                options,
            })
        })
        .collect();
    Some(TryIt {
        path: path.to_owned(),
        query: String::new(),
        inputs,
        body: Some(example.join("\n")),
    })
}

/// `schema`, or the component its `$ref` names.
fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str().and_then(|r| r.rsplit('/').next()) {
        Some(name) => &doc["components"]["schemas"][name],
        None => schema,
    }
}

/// What a path segment must escape: as the page script's
/// `encodeURIComponent` does, near enough for the server to read the same value.
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'/')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'`')
    .add(b'{')
    .add(b'}')
    .add(b'\\')
    .add(b'^')
    .add(b'|')
    .add(b'&')
    .add(b'+')
    .add(b'=')
    .add(b';');

/// A form's values: `op`, the operation, and one value per parameter.
#[derive(Debug, Deserialize)]
pub(crate) struct TryQuery {
    pub(crate) op: String,
    #[serde(flatten)]
    pub(crate) values: HashMap<String, String>,
}

/// Where the form of operation `op` (of `page`) goes with these values: its
/// path with each `{name}` replaced by the value, trimmed and percent-encoded.
pub(crate) fn target(page: &DocsPage, q: &TryQuery) -> Option<String> {
    let op = page.operations().find(|o| o.id == q.op)?;
    let form = op.try_it.as_ref().filter(|f| f.body.is_none())?;
    let mut out = form.path.clone();
    for input in &form.inputs {
        let value = q.values.get(&input.name).map_or("", |v| v.trim());
        let mut encoded = utf8_percent_encode(value, SEGMENT).to_string();
        // A segment of `.` or `..` is a dot segment, which the client
        // removes (RFC 3986 section 5.2.4): encoded, it stays a value.
        if encoded == "." || encoded == ".." {
            encoded = encoded.replace('.', "%2E");
        }
        out = out.replace(&format!("{{{}}}", input.name), &encoded);
    }
    if !form.query.is_empty() {
        out.push('?');
        out.push_str(&form.query);
    }
    Some(out)
}
