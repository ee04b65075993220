//! Prefixes and countries in the data, as JSON: `GET
//! /api/v1/prefix/{network}/{length}` ([`model::PrefixInfo`]: the rows a
//! prefix lies in or covers, its covering block, its special-purpose block)
//! and `GET /api/v1/country/{cc}` ([`model::CountryInfo`]: the country's
//! facts, its address space and its ASes). Both come in pages of
//! [`PER_PAGE`] (`?page=N`, the AS pages' bound), carry a weak ETag tied
//! to the data release, and are charged to the client's share of answer
//! bytes while they are sent ([`refusal::charged`]). Their pages in the
//! other formats come with the view model.

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::Response;
use axum::routing::get;

use super::asn::{PER_PAGE, page_number};
use super::policy::{Tag, document, mark};
use super::refusal;
use super::render::ErrorPage;
use super::respond::{Wants, error_on};
use super::routes::{self, Route};
use super::schema::{CountryParam, IpParam, PrefixLengthParam};
use super::served::{Served, describe};
use super::state::AppState;
use crate::lookup::network::NetworkError;
use crate::model;

/// `GET /api/v1/prefix/{network}/{length}`.
#[utoipa::path(get, path = "/api/v1/prefix/{network}/{length}", tag = "lookup",
    summary = "One prefix in the data: its rows, covering block and special-purpose block",
    description = "The rows of the data (the merged country and ASN tables, each row with one country and one AS, gaps in the data included) that the prefix lies in or covers, each clipped to the prefix with its CIDR blocks (the more specific prefixes of the data); `covering`, the largest CIDR block of the data's row that holds the whole prefix (the row `network.range` is cut from; null when the prefix spans rows); the number of addresses; and the IANA special-purpose block the prefix lies in. A wide prefix comes in pages of 500 rows (`?page=N`, from 1; `row_count` gives the total). Host bits set, a length out of range or text that is no prefix: 400 `invalid_prefix`, whose message names what would work (the canonical prefix for host bits). The prefix in one segment, its slash encoded (`8.8.8.0%2F24`), answers alike. The answer carries a weak ETag tied to the data release.",
    params(("network" = IpParam, Path, description = "The prefix's address (its first address)", example = "8.8.8.0"), ("length" = PrefixLengthParam, Path, description = "The prefix length: 0 to 32 (IPv4) or 0 to 128 (IPv6)", example = "24"), ("page" = Option<u32>, Query, description = "The page of the rows, from 1", minimum = 1)),
    responses(
        (status = 200, description = "PrefixInfo", body = model::PrefixInfo),
        (status = 304, description = "Not modified (If-None-Match matched the data release)"),
        (status = 400, description = "Not a prefix, host bits set or a length out of range (error `invalid_prefix`), or a bad `page` (error `bad_query`)", body = model::Error),
        (status = 404, description = "No such page of its rows (error `not_found`)", body = model::Error),
    ))]
pub(crate) async fn api_prefix(
    State(state): State<AppState>,
    raw: Result<Path<(String, String)>, PathRejection>,
    wants: Wants,
    parts: Parts,
) -> Response {
    let text = raw
        .map(|Path((ip, len))| format!("{ip}/{len}"))
        .unwrap_or_default();
    prefix_reply(&state, &text, &wants, &parts, &routes::API_PREFIX).await
}

/// `GET /api/v1/prefix/{prefix}`: the prefix in one segment (its slash
/// encoded), or an address without a length (400, naming its `/32` or `/128`).
pub(crate) async fn api_prefix_one(
    State(state): State<AppState>,
    raw: Result<Path<String>, PathRejection>,
    wants: Wants,
    parts: Parts,
) -> Response {
    let text = raw.map(|Path(t)| t).unwrap_or_default();
    prefix_reply(&state, &text, &wants, &parts, &routes::API_PREFIX_ONE).await
}

async fn prefix_reply(
    state: &AppState,
    text: &str,
    wants: &Wants,
    parts: &Parts,
    route: &'static Route,
) -> Response {
    if wants.bad_query {
        return error_on(unreadable_query(), wants, route);
    }
    let number = page_number(wants.page.as_deref());
    let answered = state
        .lookup
        .prefix(text, *number.as_ref().unwrap_or(&1), PER_PAGE)
        .await;
    let (info, release) = match answered {
        Ok(answered) => answered,
        Err(e) => return error_on(network_error(&e), wants, route),
    };
    if let Err(page) = number {
        return error_on(page, wants, route);
    }
    json_answer(state, parts, route, &info, &release)
}

/// `GET /api/v1/country/{cc}`.
#[utoipa::path(get, path = "/api/v1/country/{cc}", tag = "lookup",
    summary = "One country: its facts, its address space and the ASes that hold it",
    description = "The country's names in English and Bangla, flag, continent, currency, calling code, every time zone (tzdb), centroid; its IPv4 and IPv6 address space in the country rows of the data (counts, and their share of the world's: every row with a country) and how many rows give it; and its ASes ranked by the IPv4 addresses they hold in it (then IPv6), with their share of the country's, in pages of 500 (`?page=N`, from 1; `as_count` gives the total). `cc` is the ISO 3166-1 alpha-2 code in any case (`BD`, `bd`). An unknown code: 404 `unknown_country`, whose message suggests a code. The answer carries a weak ETag tied to the data release.",
    params(("cc" = CountryParam, Path, description = "ISO 3166-1 alpha-2 country code, any case", example = "BD"), ("page" = Option<u32>, Query, description = "The page of the ASes, from 1", minimum = 1)),
    responses(
        (status = 200, description = "CountryInfo", body = model::CountryInfo),
        (status = 304, description = "Not modified (If-None-Match matched the data release)"),
        (status = 400, description = "A bad `page` (error `bad_query`)", body = model::Error),
        (status = 404, description = "No country has this code (error `unknown_country`), or no such page of its ASes (error `not_found`)", body = model::Error),
    ))]
pub(crate) async fn api_country(
    State(state): State<AppState>,
    raw: Result<Path<String>, PathRejection>,
    wants: Wants,
    parts: Parts,
) -> Response {
    let route = &routes::API_COUNTRY;
    let text = raw.map(|Path(t)| t).unwrap_or_default();
    if wants.bad_query {
        return error_on(unreadable_query(), &wants, route);
    }
    let number = page_number(wants.page.as_deref());
    let answered = state
        .lookup
        .country(&text, *number.as_ref().unwrap_or(&1), PER_PAGE)
        .await;
    let (info, release) = match answered {
        Ok(answered) => answered,
        Err(e) => return error_on(network_error(&e), &wants, route),
    };
    if let Err(page) = number {
        return error_on(page, &wants, route);
    }
    json_answer(&state, &parts, route, &info, &release)
}

/// `value` as a JSON answer tagged by the release, charged while it is sent.
fn json_answer<T: serde::Serialize>(
    state: &AppState,
    parts: &Parts,
    route: &'static Route,
    value: &T,
    release: &str,
) -> Response {
    // Indented and ending in a newline, as every JSON answer.
    let body = match serde_json::to_vec_pretty(value) {
        Ok(mut body) => {
            body.push(b'\n');
            body
        }
        Err(_) => {
            let page = ErrorPage {
                input: None,
                status: StatusCode::SERVICE_UNAVAILABLE,
                body: model::Error::new(
                    model::ErrorCode::Overloaded,
                    "the answer could not be written",
                ),
            };
            return error_on(page, &Wants::read(&parts.uri, &parts.headers), route);
        }
    };
    let response = mark(document(body), Tag(format!("W/\"{release}-json\"")));
    refusal::charged(state, parts, route, response)
}

/// The error page of a [`NetworkError`]: 400, 404 or 503.
fn network_error(e: &NetworkError) -> ErrorPage {
    let status = match e {
        NetworkError::InvalidPrefix(_) => StatusCode::BAD_REQUEST,
        NetworkError::UnknownCountry(_) | NetworkError::NoPage { .. } => StatusCode::NOT_FOUND,
        NetworkError::Busy => StatusCode::SERVICE_UNAVAILABLE,
    };
    ErrorPage {
        input: None,
        status,
        body: e.body(),
    }
}

/// The routes this module answers.
pub(crate) const SERVED: &[Served] = &[
    Served::new(
        &routes::API_PREFIX,
        |_| get(api_prefix),
        &[describe::<__path_api_prefix>],
    ),
    Served::new(&routes::API_PREFIX_ONE, |_| get(api_prefix_one), &[]),
    Served::new(
        &routes::API_COUNTRY,
        |_| get(api_country),
        &[describe::<__path_api_country>],
    ),
];

/// The 400 of a query string that could not be read (a parameter given
/// twice, `?page=1&page=2`).
fn unreadable_query() -> super::render::ErrorPage {
    super::respond::bad_request(
        crate::model::ErrorCode::BadQuery,
        "the query string could not be read".into(),
    )
}
