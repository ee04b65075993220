//! Autonomous systems: `GET /api/v1/asn/{asn}` (JSON by default) and the page
//! `/AS{asn}` (HTML for browsers, text for terminals), both the same
//! [`AsnPage`] in the four formats. The number is `15169`, `AS15169` or
//! `as15169` on the API; the page answers `/AS15169` and `/as15169` (the
//! latter reaches it through the address page's handler, which owns every
//! other one-segment path). A valid number no row names: 404 `unknown_asn`;
//! anything else: 400 `invalid_asn`.
//!
//! The prefixes come in pages of [`PER_PAGE`] (the IPv4 ones, then the IPv6
//! ones) in every format: `?page=N`, with `Link: <...>; rel="next"` and
//! `rel="prev"` to the neighbours (keeping `format` and `lang`), and the
//! JSON's `prefix_count` and `page` saying where the page is.
//! `/api/v1/asn/{asn}/prefixes.csv` has them all.

pub(crate) mod countries;
pub(crate) mod view;

use std::fmt::Write;

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;

use super::render::{AsnPage, ErrorPage, Page, Releases, asn_links, page_link};
use super::routes::{self, Route};
use super::schema::{AsnParam, AsnPathParam, FormatName};
use crate::lookup::asn::{AsnError, MAX_QUERY, Prefixes};
use crate::model::{self, ErrorCode};
use crate::web::serve::negotiate::Format;
use crate::web::serve::policy::{Tag, document, mark};
use crate::web::serve::respond::{Reply, Wants, bad_request, error_on, respond};
use crate::web::serve::served::{Served, describe};
use crate::web::serve::state::AppState;
use axum::routing::get;

/// How many prefixes one page of an AS's answer lists.
pub(crate) const PER_PAGE: u32 = 500;

/// `GET /api/v1/asn/{asn}`.
#[utoipa::path(get, path = "/api/v1/asn/{asn}", tag = "lookup",
    summary = "One autonomous system: its prefixes, address counts and countries",
    description = "Every block the ASN data attributes to the AS, as CIDR prefixes per family (adjacent rows merged, then each range cut into its minimal CIDR cover; together they hold exactly the addresses of the AS's rows), the address count per family (IPv6 as a decimal string: it can pass 2^64), the organisation name, and the countries its IPv4 space lies in with their share. `asn` is `15169`, `AS15169` or `as15169`. The prefixes come in pages of 500 (the IPv4 ones, then the IPv6 ones) in every format: `?page=N` (from 1); `prefix_count` gives the totals and `page` the page's number, the number of pages and their size; the `Link` header names the neighbours (`rel=\"prev\"`, `rel=\"next\"`). `/api/v1/asn/{asn}/prefixes.csv` lists them all. `prefix_details` gives the same prefixes with the country of most of their addresses and their size; `countries` and `countries_v6` the countries of its IPv4 and IPv6 space. `?q=` searches all of its prefixes (server-side). A special-purpose AS number (AS0, AS23456, 64496-64511, 64512-65534, AS65535, 65536-65551, 4200000000-4294967294, AS4294967295) is answered with `special_purpose` (its registry name, RFC and a sentence), whether or not a row names it. Large answers are charged to the client's share of answer bytes while they are sent. The answer carries a weak ETag tied to the data release.",
    params(("asn" = AsnParam, Path, description = "AS number, optionally prefixed with AS", example = "AS15169"), ("format" = Option<FormatName>, Query, description = "Response format; overrides the Accept header"), ("page" = Option<u32>, Query, description = "The page of the prefixes, from 1", minimum = 1, maximum = 2147483647), ("q" = Option<String>, Query, description = "Search every prefix of the AS: those whose text contains it (`2001:550`, `154.`), or, for an address, those that hold it; `prefixes`, `prefix_details` and `page` then list the matches, `search` counts them; empty, no search", pattern = "^[0-9A-Fa-f.:/]{0,64}$"), ("lang" = Option<String>, Query, description = "Language of the text, Markdown and HTML forms: en or bn (else Accept-Language)")),
    responses(
        (status = 200, description = "AsnInfo", content((model::AsnInfo = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 304, description = "Not modified (If-None-Match matched the data release)"),
        (status = 400, description = "Not an AS number (error `invalid_asn`), or bad `format`, `page` or `q` (error `bad_query`)", content((model::Error = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 404, description = "No row of the data names this AS (error `unknown_asn`), or no such page of its prefixes (error `not_found`)", content((model::Error = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 406, description = "No offered format matches `Accept`", body = model::Error),
    ))]
pub(crate) async fn api_asn(
    State(state): State<AppState>,
    raw: Result<Path<String>, PathRejection>,
    wants: Wants,
    parts: Parts,
) -> Response {
    let text = raw.map(|Path(t)| t).unwrap_or_default();
    let route = &routes::API_ASN;
    let response = asn_reply(&state, &text, &wants, route).await;
    crate::web::serve::refusal::charged(&state, &parts, route, response)
}

/// `GET /api/v1/asn/`: the AS number is missing.
pub(crate) async fn api_asn_missing(wants: Wants) -> Response {
    error_on(
        asn_error(&AsnError::Invalid),
        &wants,
        &routes::API_ASN_MISSING,
    )
}

/// `GET /AS{asn}`: the page of an autonomous system.
#[utoipa::path(get, path = "/AS{asn}", tag = "pages",
    summary = "The page of one autonomous system (HTML for browsers, aligned text for command-line clients)",
    description = "The AS's name, address counts, the countries of its IPv4 space with their share, and its prefixes in pages of 500 (`?page=N`, `Link` rel=\"next\" and rel=\"prev\"). `/as15169` answers alike.",
    params(("asn" = AsnPathParam, Path, description = "AS number (digits after `/AS`)", example = "15169"), ("format" = Option<FormatName>, Query, description = "Response format; overrides the Accept header"), ("page" = Option<u32>, Query, description = "The page of the prefixes, from 1", minimum = 1, maximum = 2147483647), ("lang" = Option<String>, Query, description = "Language of the text, Markdown and HTML forms: en or bn (else Accept-Language)")),
    responses(
        (status = 200, description = "The AS's data", content((model::AsnInfo = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 304, description = "Not modified (If-None-Match matched the data release)"),
        (status = 400, description = "Digits over 4294967295 (error `invalid_asn`), or bad `format` or `page` (error `bad_query`)", content((model::Error = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 404, description = "No row names this AS (error `unknown_asn`), not digits after `/AS`, or no such page of its prefixes (error `not_found`)", content((model::Error = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 406, description = "No offered format matches `Accept`", body = model::Error),
    ))]
pub(crate) async fn asn_page(
    State(state): State<AppState>,
    raw: Result<Path<String>, PathRejection>,
    wants: Wants,
    parts: Parts,
) -> Response {
    let digits = raw.map(|Path(t)| t).unwrap_or_default();
    let response = page_answer(&state, &format!("AS{digits}"), &wants).await;
    crate::web::serve::refusal::charged(&state, &parts, &routes::ASN_PAGE, response)
}

/// Whether a one-segment path names an AS page: `AS` in any case, then digits.
pub(crate) fn is_asn_page(segment: &str) -> bool {
    segment.len() > 2
        && segment.is_char_boundary(2)
        && segment[..2].eq_ignore_ascii_case("as")
        && segment[2..].bytes().all(|b| b.is_ascii_digit())
}

/// The AS page for a one-segment path `segment`: the AS when it is `AS`
/// and digits, else the 404 every unknown page gets.
pub(crate) async fn page_answer(state: &AppState, segment: &str, wants: &Wants) -> Response {
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
    // A bad `?page=` is told after the AS's own errors (page 1 always exists).
    let number = page_number(wants.page.as_deref());
    let which = Prefixes::Page {
        number: *number.as_ref().unwrap_or(&1),
        per_page: PER_PAGE,
    };
    let q = match search_text(wants.q.as_deref()) {
        Ok(q) => q,
        Err(page) => return error_on(page, wants, route),
    };
    let answered = match state.lookup.asn(text, which, q).await {
        Ok(answered) => answered,
        Err(e) => {
            // The page's search box keeps what was typed.
            let mut page = asn_error(&e);
            page.input = Some(text.chars().take(300).collect());
            return error_on(page, wants, route);
        }
    };
    if let Err(page) = number {
        return error_on(page, wants, route);
    }
    let info = answered.info;
    let (page_path, api_path) = asn_links(info.asn);
    let base = if route.template == routes::API_ASN.template {
        api_path
    } else {
        page_path
    };
    let q = info.search.as_ref().map(|s| s.q.as_str());
    let links = link_header(&base, info.page, q, wants);
    let releases = Releases::of(&state.lookup.db());
    let response = respond(
        Page::Asn(Box::new(AsnPage {
            info,
            releases: Some(releases),
        })),
        wants,
        &Reply {
            default: route.answer_default(wants.kind()),
            caching: route.caching,
            etag: Some(answered.release),
        },
    );
    with_links(response, links)
}

/// `response` with the `Link` header of its neighbours, when it is the
/// page (200) or its revalidation (304).
pub(crate) fn with_links(mut response: Response, links: Option<HeaderValue>) -> Response {
    let status = response.status();
    if let Some(links) =
        links.filter(|_| status == StatusCode::OK || status == StatusCode::NOT_MODIFIED)
    {
        response.headers_mut().append(header::LINK, links);
    }
    response
}

/// The search a request asks for: `?q=` of at most [`MAX_QUERY`] bytes of
/// what prefixes are written with (hex digits, `.`, `:`, `/`), else a 400.
fn search_text(q: Option<&str>) -> Result<Option<String>, ErrorPage> {
    let Some(q) = q.map(str::trim).filter(|q| !q.is_empty()) else {
        return Ok(None);
    };
    let prefix_chars = |b: u8| b.is_ascii_hexdigit() || b".:/".contains(&b);
    if q.len() > MAX_QUERY || !q.bytes().all(prefix_chars) {
        return Err(bad_request(
            ErrorCode::BadQuery,
            format!(
                "q searches the prefixes: at most {MAX_QUERY} of the characters prefixes are written with (0-9, a-f, '.', ':', '/'), as ?q=2001:550 or ?q=154."
            ),
        ));
    }
    Ok(Some(q.to_owned()))
}

/// The largest `?page=N` any route takes: the OpenAPI document declares
/// `page` an int32 from 1 to this, so a larger number is refused as the
/// document says, on every route that reads it.
pub(crate) const MAX_PAGE: u32 = i32::MAX as u32;

/// The page a request asks for: `?page=N` with N from 1 to [`MAX_PAGE`],
/// else 1.
pub(crate) fn page_number(page: Option<&str>) -> Result<u32, ErrorPage> {
    let Some(text) = page else {
        return Ok(1);
    };
    match text.parse::<u32>() {
        Ok(n) if (1..=MAX_PAGE).contains(&n) && text.bytes().all(|b| b.is_ascii_digit()) => Ok(n),
        _ => Err(bad_request(
            ErrorCode::BadQuery,
            format!("page must be a whole number from 1 to {MAX_PAGE} (?page=2)"),
        )),
    }
}

/// `Link: <base?page=N-1>; rel="prev", <base?page=N+1>; rel="next"` (with
/// the request's `format`, `lang` and search `q`), `None` for a lone page:
/// every paged answer's (the AS, prefix and country pages).
pub(crate) fn link_header(
    base: &str,
    page: model::PrefixPage,
    q: Option<&str>,
    wants: &Wants,
) -> Option<HeaderValue> {
    let (n, pages) = (page.number, page.pages);
    let mut keep = String::new();
    if let Some(f) = wants.format.as_deref().and_then(Format::from_query) {
        let _ = write!(keep, "format={}", f.query_name());
    }
    if wants.lang_in_query {
        let sep = if keep.is_empty() { "" } else { "&" };
        let _ = write!(keep, "{sep}lang={}", wants.lang.code());
    }
    // (Checked by `search_text`: only characters a query keeps as they are.)
    if let Some(q) = q {
        let sep = if keep.is_empty() { "" } else { "&" };
        let _ = write!(keep, "{sep}q={q}");
    }
    let link = |k: u32| {
        let path = page_link(base, k);
        match (keep.is_empty(), path.contains('?')) {
            (true, _) => path,
            (false, true) => format!("{path}&{keep}"),
            (false, false) => format!("{path}?{keep}"),
        }
    };
    let mut parts = Vec::new();
    if n > 1 {
        parts.push(format!("<{}>; rel=\"prev\"", link(n - 1)));
    }
    if n < pages {
        parts.push(format!("<{}>; rel=\"next\"", link(n + 1)));
    }
    if parts.is_empty() {
        return None;
    }
    parts.push(format!("<{}>; rel=\"first\"", link(1)));
    parts.push(format!("<{}>; rel=\"last\"", link(pages)));
    HeaderValue::from_str(&parts.join(", ")).ok()
}

/// `GET /api/v1/asn/{asn}/prefixes.csv`: every prefix of the AS as CSV.
#[utoipa::path(get, path = "/api/v1/asn/{asn}/prefixes.csv", tag = "lookup",
    summary = "Every prefix of one autonomous system, as CSV",
    description = "A header line `prefix,version,country_code,addresses`, then one line per prefix: the IPv4 ones, then the IPv6 ones, each ascending (the same prefixes as the pages of `/api/v1/asn/{asn}`, all at once), each with the country of most of its addresses (empty when none lies in a country row) and its size. Built once per data release and AS and shared by every answer; charged to the client's share of answer bytes while it is sent (503 `overloaded` when the client's large answers in flight hold its share). Served as an attachment named `AS{asn}-prefixes.csv`, with a weak ETag tied to the data release.",
    params(("asn" = AsnParam, Path, description = "AS number, optionally prefixed with AS", example = "AS15169")),
    responses(
        (status = 200, description = "The prefixes", content_type = "text/csv; charset=utf-8", body = String),
        (status = 304, description = "Not modified (If-None-Match matched the data release)"),
        (status = 400, description = "Not an AS number (error `invalid_asn`)", body = model::Error),
        (status = 404, description = "No row of the data names this AS (error `unknown_asn`)", body = model::Error),
    ))]
pub(crate) async fn api_asn_csv(
    State(state): State<AppState>,
    raw: Result<Path<String>, PathRejection>,
    wants: Wants,
    parts: Parts,
) -> Response {
    let route = &routes::API_ASN_CSV;
    let text = raw.map(|Path(t)| t).unwrap_or_default();
    let (asn, csv, release) = match state.lookup.asn_csv(&text).await {
        Ok(answered) => answered,
        Err(e) => return error_on(asn_error(&e), &wants, route),
    };
    let disposition = format!("attachment; filename=\"AS{asn}-prefixes.csv\"");
    let mut response = mark(document(csv), Tag(format!("W/\"{release}-csv\"")));
    if let Ok(v) = HeaderValue::from_str(&disposition) {
        response
            .headers_mut()
            .insert(header::CONTENT_DISPOSITION, v);
    }
    crate::web::serve::refusal::charged(&state, &parts, route, response)
}

/// The error page of an [`AsnError`]: 400, 404 or 503 (its code's status).
pub(crate) fn asn_error(e: &AsnError) -> ErrorPage {
    crate::web::serve::respond::coded(e.body())
}

/// The routes this module answers.
pub(crate) const SERVED: &[Served] = &[
    Served::new(
        &routes::API_ASN,
        |_| get(api_asn),
        &[describe::<__path_api_asn>],
    ),
    Served::new(
        &routes::API_ASN_CSV,
        |_| get(api_asn_csv),
        &[describe::<__path_api_asn_csv>],
    ),
    Served::new(&routes::API_ASN_MISSING, |_| get(api_asn_missing), &[]),
    Served::new(
        &routes::ASN_PAGE,
        |_| get(asn_page),
        &[describe::<__path_asn_page>],
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_numbers_are_whole_numbers_from_one() {
        assert_eq!(page_number(None).unwrap(), 1);
        assert_eq!(page_number(Some("7")).unwrap(), 7);
        assert_eq!(page_number(Some("2147483647")).unwrap(), MAX_PAGE);
        for bad in [
            "0",
            "-1",
            "+2",
            "x",
            "",
            "1.5",
            "2147483648",
            "4294967295",
            "99999999999",
        ] {
            assert!(page_number(Some(bad)).is_err(), "{bad}");
        }
    }
}

#[cfg(test)]
mod prefix_tests;
