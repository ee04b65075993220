//! Autonomous systems: `GET /api/v1/asn/{asn}` (JSON by default) and the page
//! `/AS{asn}` (HTML for browsers, text for terminals), both the same
//! [`AsnPage`] in the four formats. The number is `15169`, `AS15169` or
//! `as15169` on the API; the page answers `/AS15169` and `/as15169` (the
//! latter reaches it through the address page's handler, which owns every
//! other one-segment path). A valid number no row names: 404 `unknown_asn`;
//! anything else: 400 `invalid_asn`.

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;

use super::render::{AsnPage, ErrorPage, Page};
use super::respond::{Reply, Wants, error_on, respond};
use super::routes::{self, Route};
use super::schema::{AsnParam, AsnPathParam, FormatName};
use super::state::AppState;
use crate::lookup::asn::AsnError;
use crate::model;

/// `GET /api/v1/asn/{asn}`.
#[utoipa::path(get, path = "/api/v1/asn/{asn}", tag = "lookup",
    summary = "One autonomous system: its prefixes, address counts and countries",
    description = "Every block the ASN data attributes to the AS, as CIDR prefixes per family (adjacent rows merged, then each range cut into its minimal CIDR cover; together they hold exactly the addresses of the AS's rows), the address count per family (IPv6 as a decimal string: it can pass 2^64), the organisation name, and the countries its IPv4 space lies in with their share. `asn` is `15169`, `AS15169` or `as15169`. The JSON lists every prefix; the text, Markdown and HTML forms list at most 1000 per family. The answer carries a weak ETag tied to the data release.",
    params(("asn" = AsnParam, Path, description = "AS number, optionally prefixed with AS", example = "AS15169"), ("format" = Option<FormatName>, Query, description = "Response format; overrides the Accept header")),
    responses(
        (status = 200, description = "AsnInfo", content((model::AsnInfo = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 304, description = "Not modified (If-None-Match matched the data release)"),
        (status = 400, description = "Not an AS number (error `invalid_asn`), or bad `format`", content((model::Error = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 404, description = "No row of the data names this AS (error `unknown_asn`)", content((model::Error = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 406, description = "No offered format matches `Accept`", body = model::Error),
    ))]
pub async fn api_asn(
    State(state): State<AppState>,
    raw: Result<Path<String>, PathRejection>,
    wants: Wants,
) -> Response {
    let text = raw.map(|Path(t)| t).unwrap_or_default();
    asn_reply(&state, &text, &wants, &routes::API_ASN).await
}

/// `GET /api/v1/asn/`: the AS number is missing.
pub async fn api_asn_missing(wants: Wants) -> Response {
    error_on(
        asn_error(&AsnError::Invalid),
        &wants,
        &routes::API_ASN_MISSING,
    )
}

/// `GET /AS{asn}`: the page of an autonomous system.
#[utoipa::path(get, path = "/AS{asn}", tag = "pages",
    summary = "The page of one autonomous system (HTML for browsers, aligned text for command-line clients)",
    description = "The AS's name, address counts, the countries of its IPv4 space with their share, and its prefixes (at most 1000 per family in text, Markdown and HTML; JSON has them all). `/as15169` answers alike.",
    params(("asn" = AsnPathParam, Path, description = "AS number (digits after `/AS`)", example = "15169"), ("format" = Option<FormatName>, Query, description = "Response format; overrides the Accept header")),
    responses(
        (status = 200, description = "The AS's data", content((model::AsnInfo = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 304, description = "Not modified (If-None-Match matched the data release)"),
        (status = 400, description = "Digits over 4294967295 (error `invalid_asn`), or bad `format`", content((model::Error = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 404, description = "No row names this AS (error `unknown_asn`), or not digits after `/AS` (error `not_found`)", content((model::Error = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 406, description = "No offered format matches `Accept`", body = model::Error),
    ))]
pub async fn asn_page(
    State(state): State<AppState>,
    raw: Result<Path<String>, PathRejection>,
    wants: Wants,
) -> Response {
    let digits = raw.map(|Path(t)| t).unwrap_or_default();
    page_answer(&state, &format!("AS{digits}"), &wants).await
}

/// Whether a one-segment path names an AS page: `AS` in any case, then digits.
pub fn is_asn_page(segment: &str) -> bool {
    segment.len() > 2
        && segment.is_char_boundary(2)
        && segment[..2].eq_ignore_ascii_case("as")
        && segment[2..].bytes().all(|b| b.is_ascii_digit())
}

/// The AS page for a one-segment path `segment`: the AS when it is `AS`
/// and digits, else the 404 every unknown page gets.
pub async fn page_answer(state: &AppState, segment: &str, wants: &Wants) -> Response {
    let route = &routes::ASN_PAGE;
    if !is_asn_page(segment) {
        let page = ErrorPage {
            input: None,
            status: StatusCode::NOT_FOUND,
            body: model::Error::new(
                model::ErrorCode::NotFound,
                "no such page: see /docs for the API",
            ),
        };
        return error_on(page, wants, route);
    }
    asn_reply(state, segment, wants, route).await
}

/// The answer for the AS `text` on `route`: the page, or its error.
async fn asn_reply(state: &AppState, text: &str, wants: &Wants, route: &Route) -> Response {
    match state.lookup.asn(text).await {
        Ok(answered) => respond(
            Page::Asn(Box::new(AsnPage {
                info: answered.info,
            })),
            wants,
            &Reply {
                default: route.answer_default(wants.kind()),
                caching: route.caching,
                etag: Some(answered.release),
            },
        ),
        Err(e) => error_on(asn_error(&e), wants, route),
    }
}

/// The error page of an [`AsnError`]: 400, 404 or 503.
fn asn_error(e: &AsnError) -> ErrorPage {
    let status = match e {
        AsnError::Invalid => StatusCode::BAD_REQUEST,
        AsnError::Unknown(_) => StatusCode::NOT_FOUND,
        AsnError::Busy => StatusCode::SERVICE_UNAVAILABLE,
    };
    ErrorPage {
        input: None,
        status,
        body: e.body(),
    }
}
