//! The try-it forms of `/docs`: which lookups have one and what they ask
//! ([`form`]), and `GET /docs/try`, where a form goes without JavaScript:
//! a 303 to the answer, its path filled from the form's values exactly as
//! the page's script fills it ([`target`]).

use axum::extract::Query;
use axum::extract::rejection::QueryRejection;
use axum::response::Response;
use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
use serde::Deserialize;

use super::super::render::{TryInput, TryIt};
use super::super::respond::{Wants, bad_request, error_on};
use super::super::routes;
use super::examples::{AS, V4};
use crate::fields::Field;
use crate::model::ErrorCode;

/// The operations with a form: (operationId, path, query).
const FORMS: [(&str, &str, &str); 7] = [
    ("api_me", "/api/v1/me", "format=json"),
    ("api_ip", "/api/v1/ip/{ip}", "format=json"),
    ("api_me_field", "/api/v1/me/{field}", ""),
    ("api_ip_field", "/api/v1/ip/{ip}/{field}", ""),
    ("api_asn", "/api/v1/asn/{asn}", "format=json"),
    ("api_prefix", "/api/v1/prefix/{ip}/{length}", ""),
    ("api_country", "/api/v1/country/{cc}", ""),
];

/// The names of the forms' inputs, in the order they are asked.
const INPUTS: [&str; 5] = ["ip", "length", "field", "asn", "cc"];

/// The try-it form of operation `id`, if it has one.
pub(crate) fn form(id: &str) -> Option<TryIt> {
    let (_, path, query) = FORMS.iter().find(|(i, _, _)| *i == id)?;
    let inputs = INPUTS
        .into_iter()
        .filter(|name| path.contains(&format!("{{{name}}}")))
        .map(|name| match name {
            "ip" => TryInput {
                name: "ip".into(),
                label: "Address".into(),
                // A prefix's address has no host bits: 8.8.8.0 for /24.
                value: if path.contains("{length}") {
                    "8.8.8.0"
                } else {
                    V4
                }
                .into(),
                options: Vec::new(),
            },
            "length" => TryInput {
                name: "length".into(),
                label: "Prefix length".into(),
                value: "24".into(),
                options: Vec::new(),
            },
            "cc" => TryInput {
                name: "cc".into(),
                label: "Country code".into(),
                value: "BD".into(),
                options: Vec::new(),
            },
            "field" => TryInput {
                name: "field".into(),
                label: "Field".into(),
                value: Field::CountryCode.name().into(),
                options: Field::ALL.iter().map(|f| f.name().to_owned()).collect(),
            },
            _ => TryInput {
                name: "asn".into(),
                label: "AS number".into(),
                value: AS.into(),
                options: Vec::new(),
            },
        })
        .collect();
    Some(TryIt {
        path: (*path).to_owned(),
        query: (*query).to_owned(),
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

/// A form's values.
#[derive(Debug, Deserialize)]
pub(crate) struct TryQuery {
    op: String,
    ip: Option<String>,
    field: Option<String>,
    asn: Option<String>,
    length: Option<String>,
    cc: Option<String>,
}

/// Where the form of operation `op` goes with these values: its path with
/// each `{name}` replaced by the value, trimmed and percent-encoded.
pub(crate) fn target(q: &TryQuery) -> Option<String> {
    let (_, path, query) = FORMS.iter().find(|(i, _, _)| *i == q.op)?;
    let mut out = (*path).to_owned();
    let values = [
        ("ip", &q.ip),
        ("field", &q.field),
        ("asn", &q.asn),
        ("length", &q.length),
        ("cc", &q.cc),
    ];
    for (name, value) in values {
        let value = value.as_deref().unwrap_or("").trim();
        let mut encoded = utf8_percent_encode(value, SEGMENT).to_string();
        // A segment of `.` or `..` is a dot segment, which the client
        // removes (RFC 3986 section 5.2.4): encoded, it stays a value.
        if encoded == "." || encoded == ".." {
            encoded = encoded.replace('.', "%2E");
        }
        out = out.replace(&format!("{{{name}}}"), &encoded);
    }
    if !query.is_empty() {
        out.push('?');
        out.push_str(query);
    }
    Some(out)
}

/// `GET /docs/try?op=ID&ip=..&field=..&asn=..`: 303 to the answer of the
/// operation's form; 400 (`bad_query`) when the query names no form.
pub(crate) async fn try_it(
    query: Result<Query<TryQuery>, QueryRejection>,
    wants: Wants,
) -> Response {
    let route = &routes::DOCS_TRY;
    match query.ok().and_then(|Query(q)| target(&q)) {
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
        TryQuery {
            op: op.into(),
            ip: Some(ip.into()),
            field: Some("asn".into()),
            asn: Some(" AS15169 ".into()),
            length: Some("24".into()),
            cc: Some("bd".into()),
        }
    }

    #[test]
    fn targets_fill_the_path() {
        assert_eq!(
            target(&q("api_ip", "8.8.8.8")).unwrap(),
            "/api/v1/ip/8.8.8.8?format=json"
        );
        assert_eq!(
            target(&q("api_ip_field", "2001:db8::1")).unwrap(),
            "/api/v1/ip/2001:db8::1/asn"
        );
        assert_eq!(
            target(&q("api_asn", "")).unwrap(),
            "/api/v1/asn/AS15169?format=json"
        );
        // A value cannot leave its segment.
        assert_eq!(
            target(&q("api_ip", "../../x?y#z")).unwrap(),
            "/api/v1/ip/..%2F..%2Fx%3Fy%23z?format=json"
        );
        assert_eq!(
            target(&q("api_prefix", "8.8.8.0")).unwrap(),
            "/api/v1/prefix/8.8.8.0/24"
        );
        assert_eq!(target(&q("api_country", "")).unwrap(), "/api/v1/country/bd");
        // Nor be a dot segment.
        assert_eq!(
            target(&q("api_ip", "..")).unwrap(),
            "/api/v1/ip/%2E%2E?format=json"
        );
        assert_eq!(
            target(&q("api_ip_field", " . ")).unwrap(),
            "/api/v1/ip/%2E/asn"
        );
        assert!(target(&q("root", "1.1.1.1")).is_none());
    }

    #[test]
    fn every_lookup_get_has_a_form() {
        for (id, _, _) in FORMS {
            assert!(form(id).is_some(), "{id}");
        }
        assert_eq!(form("api_ip_field").unwrap().inputs.len(), 2);
        assert!(form("root").is_none());
    }
}
