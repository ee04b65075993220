//! Turning a [`Page`] into an HTTP response: the negotiated format, the
//! headers every public page needs (`Vary`, caching, CSP, `ETag`) and the
//! 304/400/406 answers of negotiation itself. CORS headers are the common
//! layer's ([`super::common`]): every response gets them there.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{FromRequestParts, Query};
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::http::{StatusCode, Uri, request::Parts};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::negotiate::{self, ClientKind, Format, Refusal};
use super::render::{ErrorPage, Lang, Page, View};
use super::routes::{Caching, Route};
use crate::model::{self, ErrorCode};

const VARY: HeaderValue = HeaderValue::from_static("Accept, User-Agent, Accept-Language");

/// What the request says about the wanted format.
#[derive(Debug, Clone, Default)]
pub struct Wants {
    /// The `format` query parameter, if given.
    pub format: Option<String>,
    /// The `ip` query parameter (the lookup form), if given.
    pub ip: Option<String>,
    pub accept: Option<String>,
    pub user_agent: Option<String>,
    pub if_none_match: Option<String>,
    /// The query string could not be read.
    pub bad_query: bool,
    /// The language of the pages: `?lang=`, else `Accept-Language`.
    pub lang: Lang,
    /// The language came from `?lang=` (so the page's links keep it).
    pub lang_in_query: bool,
    /// The `page` query parameter (an AS's prefixes), if given.
    pub page: Option<String>,
    /// The host the caller used (`Host`, or the target's authority), when
    /// it is a plain host name or address with an optional port.
    pub host: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct PageQuery {
    format: Option<String>,
    ip: Option<String>,
    lang: Option<String>,
    page: Option<String>,
}

impl<S: Send + Sync> FromRequestParts<S> for Wants {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(Wants::read(&parts.uri, &parts.headers))
    }
}

impl Wants {
    /// What the query string and the headers of a request say.
    pub fn read(uri: &Uri, headers: &HeaderMap) -> Wants {
        let query = match uri.query() {
            None => Ok(PageQuery::default()),
            Some(_) => Query::<PageQuery>::try_from_uri(uri).map(|Query(q)| q),
        };
        // All the values of a header, joined with ", " (RFC 9110 section 5.3).
        let header = |name: header::HeaderName| {
            let mut values = headers
                .get_all(name)
                .into_iter()
                .filter_map(|v| v.to_str().ok());
            let mut joined = values.next()?.to_owned();
            for v in values {
                joined.push_str(", ");
                joined.push_str(v);
            }
            Some(joined)
        };
        let (q, bad_query) = match query {
            Ok(q) => (q, false),
            Err(_) => (PageQuery::default(), true),
        };
        let lang_in_query = q.lang.as_deref().and_then(Lang::from_tag).is_some();
        let lang = Lang::negotiate(
            q.lang.as_deref(),
            header(header::ACCEPT_LANGUAGE).as_deref(),
        );
        let host = headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .or_else(|| uri.authority().map(|a| a.as_str()))
            .filter(|h| is_plain_host(h))
            .map(str::to_owned);
        Wants {
            format: q.format,
            ip: q.ip,
            lang,
            lang_in_query,
            page: q.page,
            host,
            accept: header(header::ACCEPT),
            user_agent: headers
                .get(header::USER_AGENT)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned),
            if_none_match: header(header::IF_NONE_MATCH),
            bad_query,
        }
    }

    /// The kind of client asking, which picks a route's default format
    /// ([`super::routes::Defaults`]).
    pub fn kind(&self) -> ClientKind {
        ClientKind::of(self.user_agent.as_deref())
    }

    /// What the renderers need to know of the request.
    pub fn view(&self) -> View {
        View {
            lang: self.lang,
            lang_in_query: self.lang_in_query,
            host: self.host.clone(),
        }
    }
}

/// A host name, IPv4 address or bracketed IPv6 address, with an optional
/// port, of at most 255 bytes: what a page may print in a `curl` command.
fn is_plain_host(host: &str) -> bool {
    !host.is_empty()
        && host.len() <= 255
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".-:[]_".contains(&b))
}

/// The tag of an answer about `info` from the data release `release`: the
/// release, and when the answer names a PTR name, a hash of it too, so that
/// a cached answer whose `reverse_dns` was null (or another name) is not
/// revalidated once the name is known.
pub fn answer_tag(release: &Arc<str>, info: &model::IpInfo) -> Arc<str> {
    use std::hash::{Hash, Hasher};
    match &info.network.reverse_dns {
        None => release.clone(),
        Some(name) => {
            // Fixed keys: the same name gives the same tag in every replica.
            let mut h = std::hash::DefaultHasher::new();
            name.hash(&mut h);
            Arc::from(format!("{release}-{:08x}", h.finish() as u32))
        }
    }
}

/// Options of one response.
#[derive(Debug, Clone)]
pub struct Reply {
    pub default: Format,
    pub caching: Caching,
    /// Tag of the data the page was built from; becomes a weak `ETag`.
    pub etag: Option<Arc<str>>,
}

/// Renders `page` in the format the request wants, with every header.
pub fn respond(page: Page, wants: &Wants, reply: &Reply) -> Response {
    let format = match negotiated(wants, reply.default) {
        Ok(format) => format,
        Err(refused) => return *refused,
    };
    let status = match &page {
        Page::Error(e) => e.status,
        _ => StatusCode::OK,
    };
    let mut headers = HeaderMap::with_capacity(12);
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(format.content_type()),
    );
    headers.insert(header::VARY, VARY);
    let view = wants.view();
    if format != Format::Json {
        insert(&mut headers, header::CONTENT_LANGUAGE, view.lang.code());
    }
    let cache = if status.is_success() {
        reply.caching.header()
    } else {
        Caching::PerCaller.header()
    };
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    if format == Format::Html {
        insert(
            &mut headers,
            header::CONTENT_SECURITY_POLICY,
            &super::render::csp_for(&page),
        );
    }
    if let Some(tag) = reply.etag.as_deref().filter(|_| status == StatusCode::OK) {
        let etag = weak_etag(tag, format, view.lang);
        let not_modified = wants
            .if_none_match
            .as_deref()
            .is_some_and(|inm| matches_etag(inm, &etag));
        insert(&mut headers, header::ETAG, &etag);
        if not_modified {
            return with_headers(StatusCode::NOT_MODIFIED, headers, Body::empty());
        }
    }
    with_headers(status, headers, Body::from(page.render(format, &view)))
}

/// `W/"{tag}-{format}"`, and `-{lang}` for a page in another language than
/// English (JSON is the same in every language).
fn weak_etag(tag: &str, format: Format, lang: Lang) -> String {
    let name = format.query_name();
    let mut etag = String::with_capacity(tag.len() + name.len() + 8);
    etag.push_str("W/\"");
    etag.push_str(tag);
    etag.push('-');
    etag.push_str(name);
    if format != Format::Json && lang != Lang::En {
        etag.push('-');
        etag.push_str(lang.code());
    }
    etag.push('"');
    etag
}

fn with_headers(status: StatusCode, headers: HeaderMap, body: Body) -> Response {
    let mut response = Response::new(body);
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    response
}

/// The format to answer in, or the 400/406 answer if the request's format
/// cannot be served (boxed: it is the rare case).
pub fn negotiated(wants: &Wants, default: Format) -> Result<Format, Box<Response>> {
    if wants.bad_query {
        return Err(Box::new(refusal(
            bad_request(
                ErrorCode::BadQuery,
                "the query string could not be read".into(),
            ),
            wants,
            default,
        )));
    }
    match negotiate::choose(wants.format.as_deref(), wants.accept.as_deref(), default) {
        Ok(format) => Ok(format),
        Err(Refusal::BadFormat(v)) => {
            let msg = format!("unknown format {v:?}: use json, text, md or html");
            Err(Box::new(refusal(
                bad_request(ErrorCode::BadFormat, msg),
                wants,
                default,
            )))
        }
        Err(Refusal::NotAcceptable) => Err(Box::new(not_acceptable())),
    }
}

/// The 400/406 answer if the request's format cannot be served, before any work is done.
pub fn negotiation_refusal(wants: &Wants, default: Format) -> Option<Response> {
    negotiated(wants, default).err().map(|refused| *refused)
}

/// An error page answered in the format the request wants (or `default`).
pub fn error(page: ErrorPage, wants: &Wants, default: Format) -> Response {
    refusal(page, wants, default)
}

/// An error page of `route`: in the format the request wants, or the
/// route's error format for this kind of client.
pub fn error_on(page: ErrorPage, wants: &Wants, route: &Route) -> Response {
    refusal(page, wants, route.error_default(wants.kind()))
}

fn refusal(page: ErrorPage, wants: &Wants, default: Format) -> Response {
    // A bad `?format=` must not decide the format of its own error; a valid one does.
    let format = wants
        .format
        .clone()
        .filter(|f| Format::from_query(f).is_some());
    let without_query = Wants {
        format,
        bad_query: false,
        ..wants.clone()
    };
    let reply = Reply {
        default,
        caching: Caching::PerCaller,
        etag: None,
    };
    respond(Page::Error(page), &without_query, &reply)
}

/// A 400 error page.
pub fn bad_request(code: ErrorCode, message: String) -> ErrorPage {
    ErrorPage {
        input: None,
        status: StatusCode::BAD_REQUEST,
        body: model::Error::new(code, message),
    }
}

fn not_acceptable() -> Response {
    let offered: Vec<&str> = Format::ALL.iter().map(|f| f.media_type()).collect();
    let body = model::Error::new(
        ErrorCode::NotAcceptable,
        format!(
            "no offered format matches Accept; offered: {}",
            offered.join(", ")
        ),
    );
    let mut headers = HeaderMap::new();
    insert(
        &mut headers,
        header::CONTENT_TYPE,
        Format::Json.content_type(),
    );
    insert(
        &mut headers,
        header::VARY,
        "Accept, User-Agent, Accept-Language",
    );
    insert(&mut headers, header::CACHE_CONTROL, "no-store");
    let json = serde_json::to_string_pretty(&body).unwrap_or_default() + "\n";
    (StatusCode::NOT_ACCEPTABLE, headers, json).into_response()
}

fn insert(headers: &mut HeaderMap, name: header::HeaderName, value: &str) {
    if let Ok(v) = HeaderValue::from_str(value) {
        headers.insert(name, v);
    }
}

/// `If-None-Match` matching with weak comparison (RFC 9110 section 13.1.2).
fn matches_etag(if_none_match: &str, tag: &str) -> bool {
    let strip = |t: &str| t.trim().trim_start_matches("W/").to_owned();
    let tag = strip(tag);
    if_none_match
        .split(',')
        .any(|t| t.trim() == "*" || strip(t) == tag)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weak_etags_match() {
        assert!(matches_etag("W/\"a-json\"", "W/\"a-json\""));
        assert!(matches_etag("\"x\", \"a-json\"", "W/\"a-json\""));
        assert!(matches_etag("*", "W/\"a-json\""));
        assert!(!matches_etag("W/\"b-json\"", "W/\"a-json\""));
    }
}
