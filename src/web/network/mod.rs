//! Prefixes and countries in the data, as JSON: `GET
//! /api/v1/prefix/{network}/{length}` ([`model::PrefixInfo`]: the rows a
//! prefix lies in or covers, its covering block, its special-purpose block)
//! and `GET /api/v1/country/{cc}` ([`model::CountryInfo`]: the country's
//! facts, its address space and its ASes). Both come in pages of
//! [`PER_PAGE`] (`?page=N`, the AS pages' bound), carry a weak ETag tied
//! to the data release, and are charged to the client's share of answer
//! bytes while they are sent ([`refusal::charged`]). Their pages in the
//! other formats come with the view model.

pub(crate) mod country_view;
pub(crate) mod prefix_view;

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use std::sync::Arc;

use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::Response;
use axum::routing::get;

use super::asn::{PER_PAGE, link_header, page_number, with_links};
use super::render::{ErrorPage, Page, Releases};
use super::routes::{self, Route};
use super::schema::{CountryParam, FormatName, IpParam, LengthOrFieldParam, PrefixLengthParam};
use crate::fields::Field;
use crate::lookup::network::NetworkError;
use crate::model;
use crate::web::network::country_view::{CountryAnswer, country_links};
use crate::web::network::prefix_view::{PrefixAnswer, prefix_links};
use crate::web::serve::policy::{Tag, document, mark};
use crate::web::serve::refusal;
use crate::web::serve::respond::{Reply, Wants, coded, error_on, respond};
use crate::web::serve::served::{Served, describe};
use crate::web::serve::state::AppState;

/// `GET /api/v1/prefix/{network}/{length}`.
#[utoipa::path(get, path = "/api/v1/prefix/{network}/{length}", tag = "lookup",
    summary = "One prefix in the data: its rows, covering block and special-purpose block",
    description = "The rows of the data (the merged country and ASN tables, each row with one country and one AS, gaps in the data included) that the prefix lies in or covers, each clipped to the prefix with its CIDR blocks (the more specific prefixes of the data); `covering`, the largest CIDR block of the data's row that holds the whole prefix (the row `network.range` is cut from; null when the prefix spans rows); the number of addresses; and the IANA special-purpose block the prefix lies in. A wide prefix comes in pages of 500 rows (`?page=N`, from 1; `row_count` gives the total). Host bits set, a length out of range or text that is no prefix: 400 `invalid_prefix`, whose message names what would work (the canonical prefix for host bits). The prefix in one segment, its slash encoded (`8.8.8.0%2F24`), answers alike. The answer carries a weak ETag tied to the data release.",
    params(("network" = IpParam, Path, description = "The prefix's address (its first address)", example = "8.8.8.0"), ("length" = PrefixLengthParam, Path, description = "The prefix length: 0 to 32 (IPv4) or 0 to 128 (IPv6)", example = "24"), ("page" = Option<u32>, Query, description = "The page of the rows, from 1", minimum = 1, maximum = 2147483647)),
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
    params(("cc" = CountryParam, Path, description = "ISO 3166-1 alpha-2 country code, any case", example = "BD"), ("page" = Option<u32>, Query, description = "The page of the ASes, from 1", minimum = 1, maximum = 2147483647)),
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
    let (info, release) = match country_of(&state, raw, &wants, route).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    json_answer(&state, &parts, route, &info, &release)
}

/// `GET /{network}/{length_or_field}`: the page of a prefix, or one field
/// of an address.
#[utoipa::path(get, path = "/{network}/{length_or_field}", tag = "pages",
    summary = "The page of one prefix (`/8.8.8.0/24`), or one field of an address as a line of text (`/8.8.8.8/country_code`)",
    description = "Digits after the address: the page of the prefix, the same data as `GET /api/v1/prefix/{network}/{length}` (the rows of the data it lies in or covers, each with its range, more specific prefixes, country and AS, all linked; the covering prefix; the address count; the special-purpose block), HTML for browsers and aligned text for command-line clients, in pages of 500 rows (`?page=N`, `Link` rel=\"next\" and rel=\"prev\"). Host bits set, a length out of range or an address that is none: 400 `invalid_prefix`, naming the canonical prefix for host bits. A field name of IpInfo after the address: that field's value and a newline, as `GET /api/v1/ip/{ip}/{field}` answers (ifconfig.co style: `curl host/8.8.8.8/asn`). Anything else: 404 `not_found`, naming both forms. The answer carries a weak ETag tied to the data release.",
    params(("network" = IpParam, Path, description = "The prefix's first address, or the address whose field is asked", example = "8.8.8.0"), ("length_or_field" = LengthOrFieldParam, Path, description = "A prefix length (0 to 32 for IPv4, 0 to 128 for IPv6) or a field of IpInfo", example = "24"), ("format" = Option<FormatName>, Query, description = "Response format of the prefix page; overrides the Accept header"), ("page" = Option<u32>, Query, description = "The page of the rows, from 1", minimum = 1, maximum = 2147483647), ("lang" = Option<String>, Query, description = "Language of the text, Markdown and HTML forms: en or bn (else Accept-Language)")),
    responses(
        (status = 200, description = "The prefix's data, or the field's value and a newline (`text/plain`)", content((model::PrefixInfo = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 304, description = "Not modified (If-None-Match matched the data release)"),
        (status = 400, description = "Not a prefix, host bits set or a length out of range (error `invalid_prefix`), not an address before a field (error `invalid_ip`), or a bad `format` or `page` (error `bad_query`)", content((model::Error = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 404, description = "Neither a length nor a field after the address (error `not_found`), or no such page of the rows", content((model::Error = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 406, description = "No offered format matches `Accept`", body = model::Error),
    ))]
pub(crate) async fn prefix_page(
    State(state): State<AppState>,
    raw: Result<Path<(String, String)>, PathRejection>,
    wants: Wants,
    parts: Parts,
) -> Response {
    let route = &routes::PREFIX_PAGE;
    let Ok(Path((network, second))) = raw else {
        let message = "the path is not valid UTF-8".into();
        return error_on(
            crate::web::serve::respond::bad_request(model::ErrorCode::InvalidPrefix, message),
            &wants,
            route,
        );
    };
    if !second.is_empty() && second.bytes().all(|b| b.is_ascii_digit()) {
        let text = format!("{network}/{second}");
        let response = prefix_page_reply(&state, &text, &wants, route).await;
        return refusal::charged(&state, &parts, route, response);
    }
    if let Ok(field) = second.parse::<Field>() {
        // The page route's query is read as on every page: a bad `format`,
        // `page` or query string is a 400 here too.
        if let Some(refusal) = crate::web::serve::respond::negotiation_refusal(
            &wants,
            route.answer_default(wants.kind()),
        ) {
            return refusal;
        }
        if wants.bad_query {
            return error_on(unreadable_query(), &wants, route);
        }
        if let Err(page) = page_number(wants.page.as_deref()) {
            return error_on(page, &wants, route);
        }
        return match crate::web::address::field::ip_field_answer(&state, &network, field).await {
            // The route's answers are pages: its field answers say their type.
            Ok(mut response) => {
                response.headers_mut().insert(
                    axum::http::header::CONTENT_TYPE,
                    axum::http::HeaderValue::from_static(routes::FIELD_TEXT),
                );
                response
            }
            Err(page) => error_on(page, &wants, route),
        };
    }
    let shown: String = second.chars().take(40).collect();
    let page = coded(model::Error::new(
        model::ErrorCode::NotFound,
        format!(
            "no such page: after an address comes a prefix length (the prefix page, as /8.8.8.0/24) or a field of its answer (one line of text, as /8.8.8.8/country_code), not {shown:?}"
        ),
    ));
    error_on(page, &wants, route)
}

/// The page of the prefix `text` (its rows' page from `?page=`).
async fn prefix_page_reply(
    state: &AppState,
    text: &str,
    wants: &Wants,
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
    let links = link_header(&prefix_links(&info.prefix).0, info.page, None, wants);
    let answer = PrefixAnswer {
        info,
        releases: Some(Releases::of(&state.lookup.db())),
    };
    let response = respond(
        Page::Resource(Arc::new(answer)),
        wants,
        &Reply {
            default: route.answer_default(wants.kind()),
            caching: route.caching,
            etag: Some(release),
        },
    );
    with_links(response, links)
}

/// `GET /country/{cc}`: the page of a country.
#[utoipa::path(get, path = "/country/{cc}", tag = "pages",
    summary = "The page of one country (HTML for browsers, aligned text for command-line clients)",
    description = "The same data as `GET /api/v1/country/{cc}` as a page: the names in English and Bangla, flag, continent, currency, calling code, every time zone, its IPv4 and IPv6 address space (counts and share of the world's), a map with the country shaded, and its ASes ranked by the addresses they hold there (linked), in pages of 500 (`?page=N`). `cc` in any case (`BD`, `bd`). An unknown code: 404 `unknown_country`, suggesting a code.",
    params(("cc" = CountryParam, Path, description = "ISO 3166-1 alpha-2 country code, any case", example = "BD"), ("format" = Option<FormatName>, Query, description = "Response format; overrides the Accept header"), ("page" = Option<u32>, Query, description = "The page of the ASes, from 1", minimum = 1, maximum = 2147483647), ("lang" = Option<String>, Query, description = "Language of the text, Markdown and HTML forms: en or bn (else Accept-Language)")),
    responses(
        (status = 200, description = "The country's data", content((model::CountryInfo = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 304, description = "Not modified (If-None-Match matched the data release)"),
        (status = 400, description = "A bad `format` or `page` (error `bad_query`)", content((model::Error = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 404, description = "No country has this code (error `unknown_country`), or no such page of its ASes (error `not_found`)", content((model::Error = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 406, description = "No offered format matches `Accept`", body = model::Error),
    ))]
pub(crate) async fn country_page(
    State(state): State<AppState>,
    raw: Result<Path<String>, PathRejection>,
    wants: Wants,
    parts: Parts,
) -> Response {
    let route = &routes::COUNTRY_PAGE;
    let (info, release) = match country_of(&state, raw, &wants, route).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let base = country_links(&info.country.country_code).0;
    let links = link_header(&base, info.page, None, &wants);
    let answer = CountryAnswer {
        info,
        releases: Some(Releases::of(&state.lookup.db())),
    };
    let response = respond(
        Page::Resource(Arc::new(answer)),
        &wants,
        &Reply {
            default: route.answer_default(wants.kind()),
            caching: route.caching,
            etag: Some(release),
        },
    );
    refusal::charged(&state, &parts, route, with_links(response, links))
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

/// The error page of a [`NetworkError`]: 400, 404 or 503 (its code's status).
fn network_error(e: &NetworkError) -> ErrorPage {
    coded(e.body())
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
    Served::new(
        &routes::PREFIX_PAGE,
        |_| get(prefix_page),
        &[describe::<__path_prefix_page>],
    ),
    Served::new(
        &routes::COUNTRY_PAGE,
        |_| get(country_page),
        &[describe::<__path_country_page>],
    ),
];

/// The 400 of a query string that could not be read (a parameter given
/// twice, `?page=1&page=2`).
fn unreadable_query() -> super::render::ErrorPage {
    crate::web::serve::respond::bad_request(
        crate::model::ErrorCode::BadQuery,
        "the query string could not be read".into(),
    )
}

/// The country a country route asks for and its page of ASes, or the error
/// answer in `route`'s format (a query that cannot be read, an unknown
/// code, a page past the end): one reading for the API and the page.
async fn country_of(
    state: &AppState,
    raw: Result<Path<String>, PathRejection>,
    wants: &Wants,
    route: &Route,
) -> Result<(model::CountryInfo, Arc<str>), Response> {
    let text = raw.map(|Path(t)| t).unwrap_or_default();
    if wants.bad_query {
        return Err(error_on(unreadable_query(), wants, route));
    }
    let number = page_number(wants.page.as_deref());
    let answered = state
        .lookup
        .country(&text, *number.as_ref().unwrap_or(&1), PER_PAGE)
        .await;
    let found = answered.map_err(|e| error_on(network_error(&e), wants, route))?;
    number.map_err(|page| error_on(page, wants, route))?;
    Ok(found)
}

#[cfg(test)]
mod tests;
