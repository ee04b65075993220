//! The handlers: the root, address pages, the two API endpoints, health, and
//! the 404/405 answers. Each builds a [`Page`] and hands it to [`respond`].

pub(crate) mod field;
pub(crate) mod ifconfig;
pub(crate) mod view;

use std::net::SocketAddr;

use axum::extract::rejection::PathRejection;
use axum::extract::{ConnectInfo, OriginalUri, Path, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::Response;

use super::render::{
    ErrorPage, Health, HealthData, HealthRefusal, HealthSource, LookupKind, LookupPage, Page,
    Releases,
};
use super::routes::{self, Caching, Route};
use super::schema::{FormatName, HealthJson, IpFormParam, IpParam};
use crate::geo::SourceInfo;
use crate::geo::policy::Defect;
use crate::lookup::{self, LookupError, Rdns};
use crate::model::{self, ErrorCode};
use crate::web::serve::client::client_addr;
use crate::web::serve::negotiate::Format;
use crate::web::serve::respond::{Reply, Wants, bad_request, error, error_on, respond};
use crate::web::serve::search;
use crate::web::serve::served::{Served, describe};
use crate::web::serve::state::AppState;
use axum::routing::get;

/// `GET /`: the caller (bare address for command-line clients), or a redirect
/// from the lookup form (`/?ip=...`) to the address page.
#[utoipa::path(get, path = "/", tag = "pages",
    summary = "The caller's address: bare address for command-line clients, a page for browsers",
    description = "Command-line clients (curl, Wget, HTTPie, PowerShell, ...) and `Accept: text/plain` get only the caller's address and a newline. Browsers get the HTML page; `Accept: text/markdown` gets Markdown; JSON gives the IpInfo object. `?ip=...` (the lookup form) redirects to the page it names: `/ADDR` for an address, `/AS{asn}` for an AS number, `/{network}/{length}` for a prefix without host bits (`8.8.8.0/24`), `/country/{cc}` for a country by code or name in English or Bangla (`BD`, `Bangladesh`, or its Bangla name). It takes what people paste: surrounding whitespace and quotes, brackets and a port (`[2001:db8::1]:443`, `1.2.3.4:80`), a URL whose host is an address (its scheme, user, port, path and query are dropped), a CIDR length (`8.8.8.0/24`), an IPv6 zone (`fe80::1%eth0`), and AS numbers as `AS15169`, `as15169`, `ASN 15169` or bare digits (`15169`). Anything else is a 400 whose message says why and what to try (a host name is not resolved: the message says how to find its address); the HTML page gives the input back in the box.",
    params(("format" = Option<FormatName>, Query, description = "Response format; overrides the Accept header"), ("ip" = Option<IpFormParam>, Query, description = "What to look up (the lookup form), as pasted: an address or an AS number, see above; redirects to its page. Empty or only whitespace means none")),
    responses(
        (status = 200, description = "The caller's address", content((model::IpInfo = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 303, description = "Redirect from the lookup form to the address page or the AS page"),
        (status = 400, description = "An `ip` value that is no address or AS number (error `invalid_ip`, or `invalid_asn` for a number over 4294967295), or a bad `format` value", content((model::Error = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 406, description = "No offered format matches `Accept`", body = model::Error),
    ))]
pub(crate) async fn root(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    wants: Wants,
) -> Response {
    if let Some(input) = wants.ip.as_deref().filter(|s| !s.trim().is_empty()) {
        let default = routes::ROOT.error_default(wants.kind());
        if let Some(refusal) = crate::web::serve::respond::negotiation_refusal(&wants, default) {
            return refusal;
        }
        return match search::read(input) {
            Ok(target) => crate::web::serve::policy::see_other(&wants.view().href(&target.path())),
            Err(e) => {
                let mut page = bad_request(e.code(), e.to_string());
                page.input = Some(input.chars().take(300).collect());
                error(page, &wants, default)
            }
        };
    }
    let ip = client_addr(peer, &headers, &state.proxies);
    let default = routes::ROOT.answer_default(wants.kind());
    // The text form is the bare address: no PTR query for it.
    let answered = match crate::web::serve::respond::negotiated(&wants, default) {
        Ok(Format::Text) => state.lookup.lookup(ip, Rdns::Skip).await,
        _ => state.lookup.lookup(ip, Rdns::Wait).await,
    };
    let page = LookupPage::new(answered, LookupKind::Root)
        .with_families(&state.families)
        .with_releases(Releases::of(&state.lookup.db()));
    let page = Page::Lookup(Box::new(page));
    let reply = Reply {
        default: routes::ROOT.answer_default(wants.kind()),
        caching: routes::ROOT.caching,
        etag: None,
    };
    respond(page, &wants, &reply)
}

/// `GET /{ip}`: the address page.
#[utoipa::path(get, path = "/{ip}", tag = "pages",
    summary = "The page of one address (HTML for browsers, aligned text for command-line clients)",
    description = "The same data as `GET /api/v1/ip/{ip}` as a page: HTML for browsers (with a map), aligned `key: value` text for command-line clients, Markdown or JSON on request (`?format=`, `Accept`). `/AS15169` is the page of an AS; any other one-segment path that is not an address is a 404 page.",
    params(("ip" = IpParam, Path, description = "IPv4 (dotted) or IPv6 (colon-hex) address"), ("format" = Option<FormatName>, Query, description = "Response format; overrides the Accept header")),
    responses(
        (status = 200, description = "The address's data", content((model::IpInfo = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 304, description = "Not modified (If-None-Match matched the data release)"),
        (status = 400, description = "Not a valid address, or bad `format`", content((model::Error = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 404, description = "Not an address and not a page", content((model::Error = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 406, description = "No offered format matches `Accept`", body = model::Error),
    ))]
pub(crate) async fn address_page(
    State(state): State<AppState>,
    raw: Result<Path<String>, PathRejection>,
    wants: Wants,
) -> Response {
    let route = &routes::ADDRESS;
    let text = match raw {
        Ok(Path(text)) => text,
        Err(_) => {
            let message = "the address is not valid UTF-8".into();
            return error_on(bad_request(ErrorCode::InvalidIp, message), &wants, route);
        }
    };
    if super::asn::is_asn_page(&text) {
        return super::asn::page_answer(&state, &text, &wants).await;
    }
    if !looks_like_address(&text) {
        return not_found_page(&wants, route);
    }
    let default = route.answer_default(wants.kind());
    lookup_reply(&state, &text, LookupKind::Address, &wants, default).await
}

/// `GET /api/v1/me`: the caller's answer.
#[utoipa::path(get, path = "/api/v1/me", tag = "lookup",
    summary = "Look up the caller's own address",
    description = "The caller is the socket peer or, when the peer is a trusted proxy (`--trusted-proxy`), the rightmost untrusted address in the one header that proxy writes (`--client-ip-header`, `X-Forwarded-For` by default); other forwarding headers are ignored. Never cached.",
    params(("format" = Option<FormatName>, Query, description = "Response format; overrides the Accept header")),
    responses(
        (status = 200, description = "IpInfo for the calling client", content((model::IpInfo = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 400, description = "Bad `format` value", content((model::Error = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 406, description = "No offered format matches `Accept`", body = model::Error),
    ))]
pub(crate) async fn api_me(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    wants: Wants,
) -> Response {
    let ip = client_addr(peer, &headers, &state.proxies);
    let answered = state.lookup.lookup(ip, Rdns::Wait).await;
    let page = Page::Lookup(Box::new(LookupPage::new(answered, LookupKind::ApiMe)));
    respond(
        page,
        &wants,
        &Reply {
            default: routes::API_ME.answer_default(wants.kind()),
            caching: routes::API_ME.caching,
            etag: None,
        },
    )
}

/// `GET /api/v1/ip/{ip}`: one address.
#[utoipa::path(get, path = "/api/v1/ip/{ip}", tag = "lookup",
    summary = "Look up one IPv4 or IPv6 address",
    description = "Strict parsing: IPv4 in dotted form without leading zeros, IPv6 in colon-hex form (compressed or not, embedded IPv4 allowed); no brackets, ports, zone ids or whitespace. The answer carries a weak ETag tied to the data release.",
    params(("ip" = IpParam, Path, description = "IPv4 (dotted) or IPv6 (colon-hex) address", example = "8.8.8.8"), ("format" = Option<FormatName>, Query, description = "Response format; overrides the Accept header")),
    responses(
        (status = 200, description = "IpInfo", content((model::IpInfo = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 304, description = "Not modified (If-None-Match matched the data release)"),
        (status = 400, description = "`ip` is not a valid IPv4 or IPv6 address (error `invalid_ip`), or bad `format`", content((model::Error = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 406, description = "No offered format matches `Accept`", body = model::Error),
    ))]
pub(crate) async fn api_ip(
    State(state): State<AppState>,
    raw: Result<Path<String>, PathRejection>,
    wants: Wants,
) -> Response {
    match raw {
        Ok(Path(text)) => api_ip_answer(&state, &text, &wants).await,
        Err(_) => error_on(
            bad_request(
                ErrorCode::InvalidIp,
                "the address is not valid UTF-8".into(),
            ),
            &wants,
            &routes::API_IP,
        ),
    }
}

/// The answer of `GET /api/v1/ip/{ip}` for its percent-decoded segment
/// `text` (through the router, or straight from [`super::hot`]).
pub(crate) async fn api_ip_answer(state: &AppState, text: &str, wants: &Wants) -> Response {
    let default = routes::API_IP.answer_default(wants.kind());
    lookup_reply(state, text, LookupKind::ApiIp, wants, default).await
}

/// `GET /api/v1/ip/`: the address is missing.
pub(crate) async fn api_ip_missing(wants: Wants) -> Response {
    let message = "missing address: use /api/v1/ip/{ip}".into();
    error_on(
        bad_request(ErrorCode::InvalidIp, message),
        &wants,
        &routes::API_IP_MISSING,
    )
}

/// [`api_ip_answer`] when the lookup never waits (reverse DNS off,
/// [`Lookup::answers_at_once`](crate::lookup::Lookup::answers_at_once)),
/// `local_time` as of `started`: the same response with the common layer's
/// headers too ([`crate::web::serve::respond::layer_headers`]).
pub(crate) fn api_ip_answer_now(
    state: &AppState,
    text: &str,
    wants: &Wants,
    started: std::time::Instant,
) -> Response {
    let default = routes::API_IP.answer_default(wants.kind());
    let now = crate::web::serve::clock::utc(started);
    let looked_up = lookup::parse(text).map(|ip| state.lookup.lookup_at(ip, now));
    let layer = Some(state.tls);
    lookup_response(state, looked_up, LookupKind::ApiIp, wants, default, layer)
}

async fn lookup_reply(
    state: &AppState,
    text: &str,
    kind: LookupKind,
    wants: &Wants,
    default: Format,
) -> Response {
    let looked_up = match lookup::parse(text) {
        Ok(ip) => Ok(state.lookup.lookup(ip, Rdns::Wait).await),
        // The address page gives what it could not read back in the box
        // (and the page says why in the reader's language).
        Err(e) if kind == LookupKind::Address => {
            let mut page = invalid_ip(&e);
            page.input = Some(text.chars().take(300).collect());
            return error(page, wants, default);
        }
        Err(e) => Err(e),
    };
    lookup_response(state, looked_up, kind, wants, default, None)
}

/// The answer to a lookup; with `layer` (`Some(tls)`), with the common
/// layer's headers too.
fn lookup_response(
    state: &AppState,
    looked_up: Result<lookup::Answered, LookupError>,
    kind: LookupKind,
    wants: &Wants,
    default: Format,
    layer: Option<bool>,
) -> Response {
    match looked_up {
        Ok(answered) => {
            let release = crate::web::serve::respond::answer_tag(&answered.release, &answered.info);
            let mut page = LookupPage::new(answered, kind);
            // The footer's release dates: only an HTML page shows them (the
            // API's hot path answers JSON and skips the copies).
            if kind != LookupKind::ApiIp || wants.format.as_deref() == Some("html") {
                page = page.with_releases(Releases::of(&state.lookup.db()));
            }
            let page = Page::Lookup(Box::new(page));
            let reply = Reply {
                default,
                caching: Caching::Shared,
                etag: Some(release),
            };
            match layer {
                Some(tls) => crate::web::serve::respond::respond_finished(page, wants, &reply, tls),
                None => respond(page, wants, &reply),
            }
        }
        Err(e) => {
            let mut response = error(invalid_ip(&e), wants, default);
            if let Some(tls) = layer {
                crate::web::serve::respond::layer_headers(response.headers_mut(), false, tls);
            }
            response
        }
    }
}

pub(crate) fn invalid_ip(e: &LookupError) -> ErrorPage {
    bad_request(e.code(), e.to_string())
}

/// Whether a path segment is an attempt at an address (so a bad one is a 400,
/// not a 404): only hex digits, dots, colons and the characters people add by mistake.
fn looks_like_address(segment: &str) -> bool {
    !segment.is_empty()
        && segment.chars().any(|c| c == '.' || c == ':')
        && segment.chars().all(|c| {
            c.is_ascii_hexdigit()
                || ".:%[]/ xX".contains(c)
                || c.is_ascii_alphanumeric() && segment.contains(':')
        })
}

/// `GET /healthz`: 200 with the loaded releases.
#[utoipa::path(get, path = "/healthz", tag = "operations",
    summary = "Health: 200 once data is loaded, with release dates, row counts, repaired defects and refused files",
    description = "For probes and operators: `status` is `ok` whenever the service answers (it does not start without data), with each loaded table's source, release, rows and repaired defects, and the files of the data directory it refused. Neither rate-limited nor queued.",
    params(("format" = Option<FormatName>, Query, description = "Response format; overrides the Accept header")),
    responses(
        (status = 200, description = "Loaded data releases", content((HealthJson = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 400, description = "Bad `format` value", content((model::Error = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 406, description = "No offered format matches `Accept`", body = model::Error),
    ))]
pub(crate) async fn healthz(State(state): State<AppState>, wants: Wants) -> Response {
    let db = state.lookup.db();
    let source = |s: &SourceInfo| HealthSource {
        source: s.source.clone(),
        file: s.file.clone(),
        release_date: s.date.clone(),
        digest: format!("{:016x}", s.digest),
        rows: s.rows,
        trimmed_rows: s.trimmed,
        skipped_rows: s.skipped,
        defects: Defect::ALL
            .into_iter()
            .map(|d| (d.name(), s.defects.get(d)))
            .collect(),
    };
    let release = db.release();
    let health = Health {
        status: "ok",
        release: release.tag(),
        data: HealthData {
            country: source(&release.country),
            asn: source(&release.asn),
            city: release.city.as_ref().map(source),
        },
        refused: release
            .refused
            .iter()
            .map(|r| HealthRefusal {
                table: r.table,
                file: r.file.clone(),
                reason: r.reason.clone(),
                incomplete: r.incomplete,
            })
            .collect(),
    };
    respond(
        Page::Resource(std::sync::Arc::new(health)),
        &wants,
        &Reply {
            default: routes::HEALTHZ.answer_default(wants.kind()),
            caching: routes::HEALTHZ.caching,
            etag: None,
        },
    )
}

/// Any unknown path: 404 in the wanted format, by default the error format
/// of the route table's fallback (JSON under `/api/`, a page elsewhere).
pub(crate) async fn not_found(OriginalUri(uri): OriginalUri, wants: Wants) -> Response {
    not_found_page(&wants, routes::fallback(uri.path()))
}

fn not_found_page(wants: &Wants, route: &Route) -> Response {
    let page = ErrorPage {
        input: None,
        status: StatusCode::NOT_FOUND,
        body: model::Error::new(ErrorCode::NotFound, "no such page: see /docs for the API"),
    };
    error_on(page, wants, route)
}

/// A known path asked with a method it does not take: 405 (axum adds `Allow`).
pub(crate) async fn method_not_allowed(
    method: Method,
    OriginalUri(uri): OriginalUri,
    wants: Wants,
) -> Response {
    let route = routes::for_path(uri.path());
    // (The router adds the `Allow` header: the methods the path answers.)
    let message = format!(
        "this path does not answer {}; the Allow header lists the methods it answers",
        method.as_str().chars().take(32).collect::<String>()
    );
    let page = ErrorPage {
        input: None,
        status: StatusCode::METHOD_NOT_ALLOWED,
        body: model::Error::new(ErrorCode::MethodNotAllowed, message),
    };
    error_on(page, &wants, route)
}

/// The routes this module answers.
pub(crate) const SERVED: &[Served] = &[
    Served::new(&routes::ROOT, |_| get(root), &[describe::<__path_root>]),
    Served::new(
        &routes::ADDRESS,
        |_| get(address_page),
        &[describe::<__path_address_page>],
    ),
    Served::new(
        &routes::API_ME,
        |_| get(api_me),
        &[describe::<__path_api_me>],
    ),
    Served::new(
        &routes::API_IP,
        |_| get(api_ip),
        &[describe::<__path_api_ip>],
    ),
    Served::new(&routes::API_IP_MISSING, |_| get(api_ip_missing), &[]),
    Served::new(&routes::API_IP_FIELD_MISSING, |_| get(api_ip_missing), &[]),
    // Every method, as the fallback it stands in for.
    Served::new(
        &routes::API_UNKNOWN_ONE,
        |_| axum::routing::any(not_found),
        &[],
    ),
    Served::new(
        &routes::HEALTHZ,
        |_| get(healthz),
        &[describe::<__path_healthz>],
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn address_attempts_are_told_from_other_paths() {
        for s in [
            "1.2.3.4",
            "1.2.3",
            "2001:db8::1",
            "fe80::1%eth0",
            "[::1]",
            "999.1.1.1",
            "::ffff:1.2.3.4",
        ] {
            assert!(looks_like_address(s), "{s}");
        }
        for s in [
            "favicon.ico",
            "robots.txt",
            "docs",
            "index.html",
            "",
            "wp-login.php",
        ] {
            assert!(!looks_like_address(s), "{s}");
        }
    }
}
