//! One field of an answer as plain text: `GET /api/v1/ip/{ip}/{field}` and
//! `GET /api/v1/me/{field}` answer the field's bare value and a newline (an
//! empty line for null), so `curl host/api/v1/me/country_code` prints `BD`.
//! The field names are `IpInfo`'s leaves ([`crate::fields::Field`]). The
//! value is sanitised for a terminal like every text answer
//! ([`crate::web::render::one_line`]); errors are JSON, as on the rest of the API.

use std::net::SocketAddr;

use axum::extract::rejection::PathRejection;
use axum::extract::{ConnectInfo, OriginalUri, Path, State};
use axum::http::StatusCode;
use axum::http::header::HeaderMap;
use axum::response::Response;
use percent_encoding::percent_decode_str;

use crate::fields::Field;
use crate::lookup::{self, Rdns};
use crate::model::{self, ErrorCode, IpInfo};
use crate::web::address::invalid_ip;
use crate::web::render::{ErrorPage, one_line};
use crate::web::routes::{self, Route};
use crate::web::schema::{FieldParam, IpParam};
use crate::web::serve::client::client_addr;
use crate::web::serve::negotiate::ClientKind;
use crate::web::serve::policy::{Tag, Uncached, document, mark};
use crate::web::serve::respond::{Wants, bad_request, error};
use crate::web::serve::served::{Served, describe};
use crate::web::serve::state::AppState;
use axum::routing::get;

/// `GET /api/v1/ip/{ip}/{field}`.
#[utoipa::path(get, path = "/api/v1/ip/{ip}/{field}", tag = "lookup",
    summary = "One field of an address's answer, as plain text",
    description = "The field's value and a newline (an empty line when it is null), always `text/plain`: `curl host/api/v1/ip/8.8.8.8/asn` prints `15169`. Fields are the members of IpInfo, flat (`country_code`, not `location.country_code`); `special_purpose` is the block's registry name (`Private-Use` for 10.1.2.3, an empty line for an ordinary address). Control, bidi and invisible characters are removed. Errors are JSON whatever `Accept` asks. The answer carries a weak ETag tied to the data release's content (and to the PTR name when there is one).",
    params(("ip" = IpParam, Path, description = "IPv4 (dotted) or IPv6 (colon-hex) address", example = "8.8.8.8"), ("field" = FieldParam, Path, description = "A field of IpInfo", example = "country_code")),
    responses(
        (status = 200, description = "The value and a newline", content_type = "text/plain; charset=utf-8", body = String),
        (status = 304, description = "Not modified (If-None-Match matched the data release and PTR name)"),
        (status = 400, description = "`ip` is not a valid IPv4 or IPv6 address (error `invalid_ip`)", body = model::Error),
        (status = 404, description = "No such field (error `unknown_field`)", body = model::Error),
    ))]
pub(crate) async fn api_ip_field(
    State(state): State<AppState>,
    OriginalUri(uri): OriginalUri,
    raw: Result<Path<(String, String)>, PathRejection>,
) -> Response {
    let route = &routes::API_IP_FIELD;
    let Ok(Path((ip, name))) = raw else {
        return not_utf8(uri.path(), route);
    };
    let field = match name.parse::<Field>() {
        Ok(field) => field,
        Err(e) => return unknown_field(e.to_string(), route),
    };
    ip_field_answer(&state, &ip, field)
        .await
        .unwrap_or_else(|page| json_error(page, route))
}

/// The answer of `field` of the address `ip` (the caller's text), or the
/// 400 of text that is no address: `/api/v1/ip/{ip}/{field}` and the
/// page route `/{ip}/{field}` ([`crate::web::network`]) alike.
pub(crate) async fn ip_field_answer(
    state: &AppState,
    ip: &str,
    field: Field,
) -> Result<Response, ErrorPage> {
    let ip = lookup::parse(ip).map_err(|e| invalid_ip(&e))?;
    let answered = state.lookup.lookup(ip, rdns_for(field)).await;
    Ok(value(
        field,
        &answered.info,
        Some(&crate::web::serve::respond::answer_tag(
            &answered.release,
            &answered.info,
        )),
    ))
}

/// `GET /api/v1/me/{field}`.
#[utoipa::path(get, path = "/api/v1/me/{field}", tag = "lookup",
    summary = "One field of the caller's answer, as plain text",
    description = "As `/api/v1/ip/{ip}/{field}` for the caller's own address (the socket peer, or the address the trusted proxy names): `curl host/api/v1/me/country_code`. Never cached.",
    params(("field" = FieldParam, Path, description = "A field of IpInfo", example = "country_code")),
    responses(
        (status = 200, description = "The value and a newline", content_type = "text/plain; charset=utf-8", body = String),
        (status = 404, description = "No such field (error `unknown_field`)", body = model::Error),
    ))]
pub(crate) async fn api_me_field(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    OriginalUri(uri): OriginalUri,
    raw: Result<Path<String>, PathRejection>,
) -> Response {
    let route = &routes::API_ME_FIELD;
    let Ok(Path(name)) = raw else {
        return not_utf8(uri.path(), route);
    };
    let field = match name.parse::<Field>() {
        Ok(field) => field,
        Err(e) => return unknown_field(e.to_string(), route),
    };
    let ip = client_addr(peer, &headers, &state.proxies);
    let answered = state.lookup.lookup(ip, rdns_for(field)).await;
    value(field, &answered.info, None)
}

/// Only `reverse_dns` waits for (and sends) a PTR query.
fn rdns_for(field: Field) -> Rdns {
    match field {
        Field::ReverseDns => Rdns::Wait,
        _ => Rdns::Skip,
    }
}

/// The body of a field's answer: its value, sanitised, and a newline.
pub(crate) fn field_text(field: Field, info: &IpInfo) -> String {
    let text = field.value(info).unwrap_or_default();
    let mut body = one_line(&text).into_owned();
    body.push('\n');
    body
}

/// The 200 answer: the value, sanitised, and a newline, tagged with the
/// data release (the common layer answers 304 when it matches).
fn value(field: Field, info: &IpInfo, release: Option<&str>) -> Response {
    let response = document(field_text(field, info));
    // `local_time` changes every second: never kept, never revalidated.
    if field == Field::LocalTime {
        return mark(response, Uncached);
    }
    match release {
        Some(release) => mark(response, Tag(etag(release, field))),
        None => response,
    }
}

/// `W/"{release}-{field}"`.
fn etag(release: &str, field: Field) -> String {
    format!("W/\"{release}-{}\"", field.name())
}

/// An error of these routes, in JSON whatever the request's `Accept` asks:
/// the value is text, its errors are the API's (as documented).
fn json_error(page: ErrorPage, route: &Route) -> Response {
    error(
        page,
        &Wants::default(),
        route.error_default(ClientKind::Other),
    )
}

fn unknown_field(message: String, route: &Route) -> Response {
    let page = ErrorPage {
        input: None,
        status: StatusCode::NOT_FOUND,
        body: model::Error::new(ErrorCode::UnknownField, message),
    };
    json_error(page, route)
}

/// A path segment that is not UTF-8 once percent-decoded: the field (the
/// last segment) is no field (404); else the address is no address (400).
fn not_utf8(path: &str, route: &Route) -> Response {
    let last = path.rsplit('/').next().unwrap_or_default();
    if percent_decode_str(last).decode_utf8().is_err() {
        return unknown_field("the field is not valid UTF-8".into(), route);
    }
    let message = "the address is not valid UTF-8".into();
    json_error(bad_request(ErrorCode::InvalidIp, message), route)
}

/// The routes this module answers.
pub(crate) const SERVED: &[Served] = &[
    Served::new(
        &routes::API_ME_FIELD,
        |_| get(api_me_field),
        &[describe::<__path_api_me_field>],
    ),
    Served::new(
        &routes::API_IP_FIELD,
        |_| get(api_ip_field),
        &[describe::<__path_api_ip_field>],
    ),
];
