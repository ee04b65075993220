//! ifconfig.co's routes, answered as its users type them: `/ip`, `/json`,
//! `/country`, `/country-iso`, `/city`, `/asn`, `/asn-org`, `/coordinates`,
//! each about the caller or, with `?ip=ADDR`, about that address. One line
//! of text (the value and a newline) whoever asks, `/json` the IpInfo
//! object; the lines follow mpolden/echoip, the server of ifconfig.co:
//! `/asn` is `AS15169`, `/coordinates` is `lat,lon` with six decimals. What
//! the data does not know is an empty line (200), as on
//! `/api/v1/ip/{ip}/{field}`. A bad `?ip=` is a 400 `invalid_ip` in JSON
//! (as echoip answers), an empty one too (echoip reads it as the caller;
//! a script's unset `?ip=$IP` should fail, not describe its own host).
//!
//! The caller's answers are never kept; an answer about `?ip=` is kept like
//! `/api/v1/ip/{ip}/{field}` and carries its weak ETag.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, State};
use axum::http::header::HeaderMap;
use axum::response::Response;
use axum::routing::get;

use crate::fields::Field;
use crate::lookup::{self, Answered, Rdns};
use crate::model::{self, ErrorCode, IpInfo};
use crate::web::address::invalid_ip;
use crate::web::render::{LookupKind, LookupPage, Page, View, one_line};
use crate::web::routes::{self, Route};
use crate::web::schema::IpParam;
use crate::web::serve::client::client_addr;
use crate::web::serve::negotiate::Format;
use crate::web::serve::policy::{PolicyOf, Tag, document, mark};
use crate::web::serve::respond::{Wants, answer_tag, bad_request, error};
use crate::web::serve::served::{Served, describe};
use crate::web::serve::state::AppState;

/// What one of the routes prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Line {
    Ip,
    Json,
    Country,
    CountryIso,
    City,
    Asn,
    AsnOrg,
    Coordinates,
}

impl Line {
    /// The line of `info` (without its newline), before sanitising.
    fn text(self, info: &IpInfo) -> String {
        let field = |f: Field| f.value(info).unwrap_or_default().into_owned();
        match self {
            Line::Ip => info.ip.clone(),
            Line::Country => field(Field::Country),
            Line::CountryIso => field(Field::CountryCode),
            Line::City => field(Field::City),
            Line::Asn => info
                .network
                .asn
                .map(|a| format!("AS{a}"))
                .unwrap_or_default(),
            Line::AsnOrg => field(Field::Organization),
            Line::Coordinates => match (info.location.latitude, info.location.longitude) {
                (Some(lat), Some(lon)) => format!("{lat:.6},{lon:.6}"),
                _ => String::new(),
            },
            Line::Json => String::new(),
        }
    }

    /// The route of this line in the table.
    fn route(self) -> &'static Route {
        match self {
            Line::Ip => &routes::CURL_IP,
            Line::Json => &routes::CURL_JSON,
            Line::Country => &routes::CURL_COUNTRY,
            Line::CountryIso => &routes::CURL_COUNTRY_ISO,
            Line::City => &routes::CURL_CITY,
            Line::Asn => &routes::CURL_ASN,
            Line::AsnOrg => &routes::CURL_ASN_ORG,
            Line::Coordinates => &routes::CURL_COORDINATES,
        }
    }
}

/// The body of the answer of `route` (one of [`ROUTES`]) for `answered`: the value, sanitised for a
/// terminal, and a newline; for `/json`, the IpInfo as `/api/v1/me` writes it.
pub(crate) fn line_body(route: &Route, answered: Answered) -> Vec<u8> {
    let Some(line) = LINES.iter().copied().find(|l| l.route() == route) else {
        return Vec::new();
    };
    body(line, answered)
}

fn body(line: Line, answered: Answered) -> Vec<u8> {
    if line == Line::Json {
        let page = Page::Lookup(Box::new(LookupPage::new(answered, LookupKind::ApiMe)));
        return page.render(Format::Json, &View::default());
    }
    let mut text = one_line(&line.text(&answered.info)).into_owned();
    text.push('\n');
    text.into_bytes()
}

/// The routes by operation id (the OpenAPI examples').
pub(crate) const ROUTES: [(&str, &Route); 8] = [
    ("curl_ip", &routes::CURL_IP),
    ("curl_json", &routes::CURL_JSON),
    ("curl_country", &routes::CURL_COUNTRY),
    ("curl_country_iso", &routes::CURL_COUNTRY_ISO),
    ("curl_city", &routes::CURL_CITY),
    ("curl_asn", &routes::CURL_ASN),
    ("curl_asn_org", &routes::CURL_ASN_ORG),
    ("curl_coordinates", &routes::CURL_COORDINATES),
];

const LINES: [Line; 8] = [
    Line::Ip,
    Line::Json,
    Line::Country,
    Line::CountryIso,
    Line::City,
    Line::Asn,
    Line::AsnOrg,
    Line::Coordinates,
];

/// The answer of `line` to a request.
async fn answer(
    line: Line,
    state: &AppState,
    peer: SocketAddr,
    headers: &HeaderMap,
    wants: &Wants,
) -> Response {
    if wants.bad_query {
        let page = bad_request(
            ErrorCode::BadQuery,
            "the query string could not be read (a parameter given twice?)".into(),
        );
        return error(page, &Wants::default(), Format::Json);
    }
    // An empty `?ip=` is refused, not read as the caller (echoip does):
    // a script's `?ip=$IP` with `IP` unset must not get the caller's answer.
    let asked = wants.ip.as_deref();
    let ip = match asked.map(lookup::parse) {
        None => client_addr(peer, headers, &state.proxies),
        Some(Ok(ip)) => ip,
        Some(Err(e)) => return error(invalid_ip(&e), &Wants::default(), Format::Json),
    };
    // Only `/json` shows the PTR name.
    let rdns = if line == Line::Json {
        Rdns::Wait
    } else {
        Rdns::Skip
    };
    let answered = state.lookup.lookup(ip, rdns).await;
    let tag = answer_tag(&answered.release, &answered.info);
    let response = document(body(line, answered));
    if asked.is_none() {
        return response;
    }
    // About a given address: kept like its field (or its JSON), with a tag.
    let shared = if line == Line::Json {
        &routes::API_COUNTRY
    } else {
        &routes::API_IP_FIELD
    };
    let name = line.route().template.trim_start_matches('/');
    let response = mark(response, PolicyOf(shared));
    mark(response, Tag(format!("W/\"{tag}-{name}\"")))
}

macro_rules! line_route {
    ($name:ident, $line:expr, $path:literal, $summary:literal, $description:literal, $example:literal) => {
        #[utoipa::path(get, path = $path, tag = "lookup",
            summary = $summary,
            description = concat!($description, " About the caller, or about `?ip=ADDR` (strict: an IPv4 or IPv6 address; an empty `ip` is a 400 too: leave it out to ask about the caller). As ifconfig.co answers it (curl-friendly, whatever the client). A bad `ip` is a 400 `invalid_ip` in JSON. The caller's answer is never cached; an answer about `?ip=` carries a weak ETag tied to the data release."),
            params(("ip" = Option<IpParam>, Query, description = "The address to answer about instead of the caller", example = "8.8.8.8")),
            responses(
                (status = 200, description = $example, content_type = "text/plain; charset=utf-8", body = String),
                (status = 304, description = "Not modified (If-None-Match matched, with `?ip=`)"),
                (status = 400, description = "`ip` is not a valid IPv4 or IPv6 address (error `invalid_ip`), or a parameter given twice (error `bad_query`)", body = model::Error),
            ))]
        pub(crate) async fn $name(
            State(state): State<AppState>,
            ConnectInfo(peer): ConnectInfo<SocketAddr>,
            headers: HeaderMap,
            wants: Wants,
        ) -> Response {
            answer($line, &state, peer, &headers, &wants).await
        }
    };
}

line_route!(
    curl_ip,
    Line::Ip,
    "/ip",
    "The address, bare (ifconfig.co's `/ip`)",
    "The address and a newline: `curl host/ip` prints `203.0.113.7`; with `?ip=` the address in canonical form.",
    "The address and a newline"
);
line_route!(
    curl_country,
    Line::Country,
    "/country",
    "The country's name (ifconfig.co's `/country`)",
    "The country's English name and a newline (`United States`); an empty line when the data has none (a private address).",
    "The country's name and a newline"
);
line_route!(
    curl_country_iso,
    Line::CountryIso,
    "/country-iso",
    "The country's ISO code (ifconfig.co's `/country-iso`)",
    "The ISO 3166-1 alpha-2 code and a newline (`US`); an empty line when the data has none.",
    "The country code and a newline"
);
line_route!(
    curl_city,
    Line::City,
    "/city",
    "The city (ifconfig.co's `/city`)",
    "The city and a newline; an empty line (200, not 404) when the data has no city, which is always so without a city table (`--city-file`).",
    "The city and a newline, or an empty line"
);
line_route!(
    curl_asn,
    Line::Asn,
    "/asn",
    "The AS number (ifconfig.co's `/asn`)",
    "`AS` and the number, and a newline (`AS15169`); an empty line when the data names no AS.",
    "`AS15169` and a newline"
);
line_route!(
    curl_asn_org,
    Line::AsnOrg,
    "/asn-org",
    "The AS's organisation (ifconfig.co's `/asn-org`)",
    "The organisation of the AS and a newline (`Google LLC`); an empty line when the data names none.",
    "The organisation and a newline"
);
line_route!(
    curl_coordinates,
    Line::Coordinates,
    "/coordinates",
    "Latitude and longitude (ifconfig.co's `/coordinates`)",
    "`latitude,longitude` with six decimals and a newline (`37.751000,-97.822000`), as ifconfig.co writes them: the country's centroid, or the city's coordinates with a city table; an empty line when the data has none.",
    "`lat,lon` and a newline"
);

/// `GET /json`: the IpInfo of the caller or of `?ip=` (ifconfig.co's `/json`).
#[utoipa::path(get, path = "/json", tag = "lookup",
    summary = "The whole answer as JSON (ifconfig.co's `/json`)",
    description = "The IpInfo object of the caller (as `/api/v1/me`) or of `?ip=ADDR` (as `/api/v1/ip/{ip}`; strict: an empty `ip` is a 400 too), always JSON: `curl host/json`. This service's IpInfo, not echoip's field names. A bad `ip` is a 400 `invalid_ip`. The caller's answer is never cached; an answer about `?ip=` carries a weak ETag tied to the data release.",
    params(("ip" = Option<IpParam>, Query, description = "The address to answer about instead of the caller", example = "8.8.8.8")),
    responses(
        (status = 200, description = "IpInfo", body = model::IpInfo),
        (status = 304, description = "Not modified (If-None-Match matched, with `?ip=`)"),
        (status = 400, description = "`ip` is not a valid IPv4 or IPv6 address (error `invalid_ip`), or a parameter given twice (error `bad_query`)", body = model::Error),
    ))]
pub(crate) async fn curl_json(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    wants: Wants,
) -> Response {
    answer(Line::Json, &state, peer, &headers, &wants).await
}

/// The routes this module answers.
pub(crate) const SERVED: &[Served] = &[
    Served::new(
        &routes::CURL_IP,
        |_| get(curl_ip),
        &[describe::<__path_curl_ip>],
    ),
    Served::new(
        &routes::CURL_JSON,
        |_| get(curl_json),
        &[describe::<__path_curl_json>],
    ),
    Served::new(
        &routes::CURL_COUNTRY,
        |_| get(curl_country),
        &[describe::<__path_curl_country>],
    ),
    Served::new(
        &routes::CURL_COUNTRY_ISO,
        |_| get(curl_country_iso),
        &[describe::<__path_curl_country_iso>],
    ),
    Served::new(
        &routes::CURL_CITY,
        |_| get(curl_city),
        &[describe::<__path_curl_city>],
    ),
    Served::new(
        &routes::CURL_ASN,
        |_| get(curl_asn),
        &[describe::<__path_curl_asn>],
    ),
    Served::new(
        &routes::CURL_ASN_ORG,
        |_| get(curl_asn_org),
        &[describe::<__path_curl_asn_org>],
    ),
    Served::new(
        &routes::CURL_COORDINATES,
        |_| get(curl_coordinates),
        &[describe::<__path_curl_coordinates>],
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_written_as_ifconfig_co_writes_them() {
        let mut info = IpInfo {
            ip: "8.8.8.8".into(),
            version: None,
            is_public: Some(true),
            location: Default::default(),
            network: Default::default(),
            special_purpose: None,
        };
        info.location.latitude = Some(37.751);
        info.location.longitude = Some(-97.822);
        info.location.country_code = Some("US".into());
        info.network.asn = Some(15169);
        assert_eq!(Line::Coordinates.text(&info), "37.751000,-97.822000");
        assert_eq!(Line::Asn.text(&info), "AS15169");
        assert_eq!(Line::CountryIso.text(&info), "US");
        assert_eq!(Line::City.text(&info), "");
        assert_eq!(Line::AsnOrg.text(&info), "");
        for line in LINES {
            assert!(routes::ALL.contains(&line.route()), "{line:?}");
        }
    }
}
