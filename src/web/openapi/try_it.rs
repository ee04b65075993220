//! The try-it forms of `/docs`: every `GET` lookup of the route table has
//! one, a control per path parameter from [`params`] ([`form`]), and
//! `GET /docs/try`, where a form goes without JavaScript:
//! a 303 to the answer, its path filled from the form's values exactly as
//! the page's script fills it ([`target`]).

use axum::extract::Query;
use axum::extract::rejection::QueryRejection;
use axum::response::Response;
use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
use serde::Deserialize;

use std::collections::HashMap;

use axum::extract::State;

use super::super::params;
use super::super::render::{DocsPage, TryInput, TryIt};
use super::super::respond::{Wants, bad_request, error_on};
use super::super::routes;
use super::super::state::AppState;
use crate::model::ErrorCode;

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
    })
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
    op: String,
    #[serde(flatten)]
    values: HashMap<String, String>,
}

/// Where the form of operation `op` (of `page`) goes with these values: its
/// path with each `{name}` replaced by the value, trimmed and percent-encoded.
pub(crate) fn target(page: &DocsPage, q: &TryQuery) -> Option<String> {
    let op = page.operations().find(|o| o.id == q.op)?;
    let form = op.try_it.as_ref()?;
    let mut out = form.path.clone();
    for input in &form.inputs {
        let value = q.values.get(&input.name).map_or("", |v| v.trim());
        let encoded = utf8_percent_encode(value, SEGMENT).to_string();
        out = out.replace(&format!("{{{}}}", input.name), &encoded);
    }
    if !form.query.is_empty() {
        out.push('?');
        out.push_str(&form.query);
    }
    Some(out)
}

/// `GET /docs/try?op=ID&ip=..&field=..&asn=..`: 303 to the answer of the
/// operation's form; 400 (`bad_query`) when the query names no form.
pub(crate) async fn try_it(
    State(state): State<AppState>,
    query: Result<Query<TryQuery>, QueryRejection>,
    wants: Wants,
) -> Response {
    let route = &routes::DOCS_TRY;
    let page = super::docs(&state.lookup, "");
    match query.ok().and_then(|Query(q)| target(&page, &q)) {
        Some(to) => super::super::policy::see_other(&to),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn q(op: &str, ip: &str) -> TryQuery {
        let values = [("ip", ip), ("field", "asn"), ("asn", " AS15169 ")]
            .map(|(k, v)| (k.to_owned(), v.to_owned()));
        TryQuery {
            op: op.into(),
            values: values.into_iter().collect(),
        }
    }

    fn page() -> DocsPage {
        static LOOKUP: std::sync::OnceLock<crate::lookup::Lookup> = std::sync::OnceLock::new();
        let lookup = LOOKUP
            .get_or_init(|| crate::lookup::Lookup::new(crate::geo::GeoDb::embedded().unwrap()));
        super::super::docs(lookup, "")
    }

    #[test]
    fn targets_fill_the_path() {
        let page = page();
        assert_eq!(
            target(&page, &q("api_ip", "8.8.8.8")).unwrap(),
            "/api/v1/ip/8.8.8.8?format=json"
        );
        assert_eq!(
            target(&page, &q("api_ip_field", "2001:db8::1")).unwrap(),
            "/api/v1/ip/2001:db8::1/asn"
        );
        assert_eq!(
            target(&page, &q("api_asn", "")).unwrap(),
            "/api/v1/asn/AS15169?format=json"
        );
        // A value cannot leave its segment.
        assert_eq!(
            target(&page, &q("api_ip", "../../x?y#z")).unwrap(),
            "/api/v1/ip/..%2F..%2Fx%3Fy%23z?format=json"
        );
        assert!(target(&page, &q("root", "1.1.1.1")).is_none());
    }

    /// Every GET lookup of the document (so of the route table) has a form
    /// with a control per path parameter; nothing else has one.
    #[test]
    fn every_lookup_get_has_a_form() {
        let page = page();
        let mut forms = 0;
        for group in &page.groups {
            for op in &group.operations {
                let documented = routes::ALL
                    .iter()
                    .any(|r| r.documented && r.template == op.path);
                assert!(documented, "{}", op.path);
                let lookup = group.tag == "lookup" && op.method == "GET";
                assert_eq!(op.try_it.is_some(), lookup, "{} {}", op.method, op.path);
                if let Some(form) = &op.try_it {
                    let names: Vec<&str> = form.inputs.iter().map(|i| i.name.as_str()).collect();
                    assert_eq!(names, params::names(&op.path), "{}", op.path);
                    forms += 1;
                }
            }
        }
        assert!(forms >= 6, "{forms}");
        let field = page.operations().find(|o| o.id == "api_ip_field").unwrap();
        assert_eq!(field.try_it.as_ref().unwrap().inputs.len(), 2);
    }
}
