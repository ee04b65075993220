//! Turning a [`Page`] into an HTTP response: the negotiated format, the
//! headers every public page needs (`Vary`, caching, CSP, `ETag`) and the
//! 304/400/406 answers of negotiation itself. CORS headers are the common
//! layer's ([`crate::web::common`]): every response gets them there.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::StatusCode;
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};

use super::etag;
use super::negotiate::{self, Format, NoFormat};
pub(crate) use super::wants::Wants;
use crate::model::{self, ErrorCode};
use crate::web::render::{ErrorPage, Lang, Page, View};
use crate::web::routes::{Caching, Route};

const VARY: HeaderValue = HeaderValue::from_static("Accept, User-Agent, Accept-Language");
/// [`VARY`] of a page that prints the request's `Host`.
const VARY_HOST: HeaderValue =
    HeaderValue::from_static("Accept, User-Agent, Accept-Language, Host");

/// `tag` of a page that prints `host`: a hash of the host appended.
fn host_tag(tag: &Arc<str>, host: &str) -> Arc<str> {
    use std::hash::{Hash, Hasher};
    // Fixed keys: the same host gives the same tag in every replica.
    let mut h = std::hash::DefaultHasher::new();
    host.hash(&mut h);
    Arc::from(format!("{tag}-h{:08x}", h.finish() as u32))
}

/// The tag of an answer about `info` from the data release `release`: the
/// release, and when the answer names a PTR name, a hash of it too, so that
/// a cached answer whose `reverse_dns` was null (or another name) is not
/// revalidated once the name is known.
pub(crate) fn answer_tag(release: &Arc<str>, info: &model::IpInfo) -> Arc<str> {
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
pub(crate) struct Reply {
    pub default: Format,
    pub caching: Caching,
    /// Tag of the data the page was built from; becomes a weak `ETag`.
    pub etag: Option<Arc<str>>,
}

/// Renders `page` in the format the request wants, with every header.
pub(crate) fn respond(page: Page, wants: &Wants, reply: &Reply) -> Response {
    respond_in(page, wants, reply, None)
}

/// [`respond`] with the common layer's headers too ([`layer_headers`], for
/// a route whose handler sets them, see [`crate::web::common`]; `tls`: whether
/// the service serves TLS). The headers of a successful answer with a tag
/// depend only on the tag, the format and the caching, so each thread
/// builds them once per tag and format and clones them after that.
pub(crate) fn respond_finished(page: Page, wants: &Wants, reply: &Reply, tls: bool) -> Response {
    respond_in(page, wants, reply, Some(tls))
}

fn respond_in(page: Page, wants: &Wants, reply: &Reply, layer: Option<bool>) -> Response {
    let finished = |mut response: Response| {
        if let Some(tls) = layer {
            layer_headers(response.headers_mut(), false, tls);
        }
        response
    };
    let format = match negotiated(wants, reply.default) {
        Ok(format) => format,
        Err(refused) => return finished(*refused),
    };
    let status = match &page {
        Page::Error(e) => e.status,
        _ => StatusCode::OK,
    };
    // JSON is the same in every language and names no host: its view
    // copies nothing.
    let view = if format == Format::Json {
        View {
            lang: wants.lang,
            lang_in_query: wants.lang_in_query,
            host: None,
        }
    } else {
        wants.view()
    };
    // The docs are written in English only: they say so whatever was asked.
    let lang = match page {
        Page::Docs(_) => Lang::En,
        _ => view.lang,
    };
    // An HTML address page prints `curl` commands on the request's `Host`
    // when there is no `--public-url`: it varies with `Host`, and its tag
    // names the host, so no shared cache hands one caller's host to another
    // (SECURITY.md, "Shared caches").
    let by_host =
        (format == Format::Html && matches!(page, Page::Lookup(_)) && wants.names_request_host())
            .then(|| view.host().to_owned());
    let host_reply;
    let reply = match (&by_host, &reply.etag) {
        (Some(host), Some(tag)) => {
            host_reply = Reply {
                etag: Some(host_tag(tag, host)),
                ..reply.clone()
            };
            &host_reply
        }
        _ => reply,
    };
    let fast = layer
        .zip(reply.etag.as_ref())
        .filter(|_| status == StatusCode::OK && by_host.is_none());
    if let Some((tls, tag)) = fast {
        if let Some(headers) = prebuilt(&page, format, lang, reply, tag, tls) {
            let not_modified = wants
                .if_none_match
                .as_deref()
                .is_some_and(|inm| etag_matches(inm, tag, format, lang));
            return if not_modified {
                with_headers(StatusCode::NOT_MODIFIED, headers, Body::empty())
            } else {
                with_headers(status, headers, Body::from(page.render(format, &view)))
            };
        }
    }
    let mut headers = head(&page, format, lang, status, reply);
    if by_host.is_some() {
        headers.insert(header::VARY, VARY_HOST);
    }
    if let Some(tag) = reply.etag.as_ref().filter(|_| status == StatusCode::OK) {
        if wants
            .if_none_match
            .as_deref()
            .is_some_and(|inm| etag_matches(inm, tag, format, lang))
        {
            return finished(with_headers(
                StatusCode::NOT_MODIFIED,
                headers,
                Body::empty(),
            ));
        }
    }
    finished(with_headers(
        status,
        headers,
        Body::from(page.render(format, &view)),
    ))
}

/// The whole set of headers of a 200 answer in JSON tagged `tag`
/// ([`prebuilt`]), for a caller that has no [`Page`] (the hot route,
/// [`crate::web::hot`]): a JSON answer's headers name nothing of its page.
pub(crate) fn prebuilt_json(
    lang: Lang,
    reply: &Reply,
    tag: &Arc<str>,
    tls: bool,
) -> Option<HeaderMap> {
    // Read by `head` only for an HTML page's CSP; built without allocating.
    let unread = Page::Error(ErrorPage {
        status: StatusCode::OK,
        body: model::Error {
            error: ErrorCode::NotFound,
            message: None,
        },
        input: None,
    });
    prebuilt(&unread, Format::Json, lang, reply, tag, tls)
}

/// A 200 of `body` under headers built before it ([`prebuilt_json`]).
#[inline]
pub(crate) fn prebuilt_response(body: Bytes, headers: HeaderMap) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.headers_mut() = headers;
    response
}

/// The headers of `page` in `format` and `lang` with `status`: type,
/// `Vary`, `Content-Language` (not of JSON), caching, the CSP of HTML, and
/// for a 200 with a tag its `ETag`.
fn head(page: &Page, format: Format, lang: Lang, status: StatusCode, reply: &Reply) -> HeaderMap {
    let mut headers = HeaderMap::with_capacity(12);
    headers.insert(header::CONTENT_TYPE, content_type(format));
    headers.insert(header::VARY, VARY);
    if format != Format::Json {
        headers.insert(
            header::CONTENT_LANGUAGE,
            HeaderValue::from_static(lang.code()),
        );
    }
    let cache = if status.is_success() {
        reply.caching
    } else {
        Caching::PerCaller
    };
    headers.insert(header::CACHE_CONTROL, cache_control(cache));
    if format == Format::Html {
        insert(
            &mut headers,
            header::CONTENT_SECURITY_POLICY,
            &crate::web::render::csp_for(page),
        );
    }
    if let Some(tag) = reply.etag.as_ref().filter(|_| status == StatusCode::OK) {
        if let Some(etag) = etag_value(tag, format, lang) {
            headers.insert(header::ETAG, etag);
        }
    }
    headers
}

/// Whether `If-None-Match` names the tag of the answer tagged `tag` in
/// `format` and `lang`.
fn etag_matches(if_none_match: &str, tag: &Arc<str>, format: Format, lang: Lang) -> bool {
    match etag_value(tag, format, lang)
        .as_ref()
        .and_then(|e| e.to_str().ok())
    {
        Some(e) => etag::matches(if_none_match, Some(e)),
        None => etag::matches(if_none_match, Some(&weak_etag(tag, format, lang))),
    }
}

/// The whole set of headers of a 200 answer tagged `tag` in `format` and
/// `lang`, the layer's included, from this thread's copy (built by [`head`]
/// and [`layer_headers`] the first time). They depend on nothing else: the
/// tag, the caching and `tls` key the set, the format and (but for JSON)
/// the language pick the copy, `Vary` is fixed; `None` when they depend on
/// more (an HTML page whose CSP is not the common one).
fn prebuilt(
    page: &Page,
    format: Format,
    lang: Lang,
    reply: &Reply,
    tag: &Arc<str>,
    tls: bool,
) -> Option<HeaderMap> {
    use std::cell::RefCell;
    if format == Format::Html && crate::web::render::csp_for(page) != crate::web::render::csp() {
        return None;
    }
    /// The tag, the caching and `tls` the heads were built for, and the
    /// head of each format and language ([`slot`]).
    type Heads = (Arc<str>, Caching, bool, [Option<HeaderMap>; SLOTS]);
    thread_local! {
        static HEADS: RefCell<Option<Heads>> = const { RefCell::new(None) };
    }
    let build = || {
        let mut headers = head(page, format, lang, StatusCode::OK, reply);
        layer_headers(&mut headers, false, tls);
        headers
    };
    HEADS.with(|heads| {
        let Ok(mut heads) = heads.try_borrow_mut() else {
            return Some(build());
        };
        let current = heads
            .as_ref()
            .is_some_and(|(t, c, l, _)| Arc::ptr_eq(t, tag) && *c == reply.caching && *l == tls);
        if !current {
            *heads = Some((tag.clone(), reply.caching, tls, [const { None }; SLOTS]));
        }
        let (_, _, _, by_slot) = heads.as_mut()?;
        Some(
            by_slot[slot(format, lang)]
                .get_or_insert_with(build)
                .clone(),
        )
    })
}

const LINK: HeaderValue =
    HeaderValue::from_static("</.well-known/api-catalog>; rel=\"api-catalog\"");
const NOSNIFF: HeaderValue = HeaderValue::from_static("nosniff");
const HSTS: HeaderValue = HeaderValue::from_static("max-age=31536000");
/// `*`.
pub(crate) const ANY: HeaderValue = HeaderValue::from_static("*");
const EXPOSED: HeaderValue = HeaderValue::from_static("etag,link,retry-after");

/// The headers the common layer ([`crate::web::common`]) puts on every response:
/// `Link` to the API catalog, `X-Content-Type-Options` unless present, the
/// CORS headers of a simple request (not on a preflight's answer), and HSTS
/// when serving TLS, unless present.
pub(crate) fn layer_headers(headers: &mut HeaderMap, preflight: bool, tls: bool) {
    headers.append(header::LINK, LINK);
    if !headers.contains_key(header::X_CONTENT_TYPE_OPTIONS) {
        headers.insert(header::X_CONTENT_TYPE_OPTIONS, NOSNIFF);
    }
    if !preflight {
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, ANY);
        headers.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, EXPOSED);
    }
    if tls && !headers.contains_key(header::STRICT_TRANSPORT_SECURITY) {
        headers.insert(header::STRICT_TRANSPORT_SECURITY, HSTS);
    }
}

/// How many answers [`slot`] tells apart: JSON, and each other format in
/// each language.
const SLOTS: usize = 1 + 3 * Lang::ALL.len();

/// The place of an answer in `format` and `lang` among [`SLOTS`]: JSON is
/// the same in every language (no `Content-Language`, one `ETag`).
fn slot(format: Format, lang: Lang) -> usize {
    let lang = Lang::ALL.iter().position(|l| *l == lang).unwrap_or(0);
    let per_lang = Lang::ALL.len();
    match format {
        Format::Json => 0,
        Format::Text => 1 + lang,
        Format::Markdown => 1 + per_lang + lang,
        Format::Html => 1 + 2 * per_lang + lang,
    }
}

/// The `Content-Type` of `format`, built at compile time.
fn content_type(format: Format) -> HeaderValue {
    const JSON: HeaderValue = HeaderValue::from_static(Format::Json.content_type());
    const TEXT: HeaderValue = HeaderValue::from_static(Format::Text.content_type());
    const MARKDOWN: HeaderValue = HeaderValue::from_static(Format::Markdown.content_type());
    const HTML: HeaderValue = HeaderValue::from_static(Format::Html.content_type());
    match format {
        Format::Json => JSON,
        Format::Text => TEXT,
        Format::Markdown => MARKDOWN,
        Format::Html => HTML,
    }
}

/// The `Cache-Control` of `caching`, built at compile time.
fn cache_control(caching: Caching) -> HeaderValue {
    const PER_CALLER: HeaderValue = HeaderValue::from_static(Caching::PerCaller.header());
    const SHARED: HeaderValue = HeaderValue::from_static(Caching::Shared.header());
    const DOCUMENT: HeaderValue = HeaderValue::from_static(Caching::Document.header());
    const IMMUTABLE: HeaderValue = HeaderValue::from_static(Caching::Immutable.header());
    match caching {
        Caching::PerCaller => PER_CALLER,
        Caching::Shared => SHARED,
        Caching::Document => DOCUMENT,
        Caching::Immutable => IMMUTABLE,
    }
}

/// The `ETag` value of an answer tagged `tag` in `format` and `lang`
/// ([`weak_etag`]), or `None` if it cannot be a header value. Each thread
/// keeps the values of the last tag it answered with (the data release's,
/// unless a PTR name is in it), so that most answers copy no text.
fn etag_value(tag: &Arc<str>, format: Format, lang: Lang) -> Option<HeaderValue> {
    use std::cell::RefCell;
    type Values = (Arc<str>, [Option<HeaderValue>; SLOTS]);
    thread_local! {
        static LAST: RefCell<Option<Values>> = const { RefCell::new(None) };
    }
    let build = || HeaderValue::from_maybe_shared(Bytes::from(weak_etag(tag, format, lang))).ok();
    let slot = slot(format, lang);
    LAST.with(|last| {
        let Ok(mut last) = last.try_borrow_mut() else {
            return build();
        };
        if !last.as_ref().is_some_and(|(t, _)| Arc::ptr_eq(t, tag)) {
            *last = Some((tag.clone(), [const { None }; SLOTS]));
        }
        let values = &mut last.as_mut()?.1;
        if values[slot].is_none() {
            values[slot] = build();
        }
        values[slot].clone()
    })
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
pub(crate) fn negotiated(wants: &Wants, default: Format) -> Result<Format, Box<Response>> {
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
        Err(NoFormat::BadFormat(v)) => {
            let msg = format!("unknown format {v:?}: use json, text, md or html");
            Err(Box::new(refusal(
                bad_request(ErrorCode::BadFormat, msg),
                wants,
                default,
            )))
        }
        Err(NoFormat::NotAcceptable) => Err(Box::new(not_acceptable())),
    }
}

/// The 400/406 answer if the request's format cannot be served, before any work is done.
pub(crate) fn negotiation_refusal(wants: &Wants, default: Format) -> Option<Response> {
    negotiated(wants, default).err().map(|refused| *refused)
}

/// An error page answered in the format the request wants (or `default`).
pub(crate) fn error(page: ErrorPage, wants: &Wants, default: Format) -> Response {
    refusal(page, wants, default)
}

/// An error page of `route`: in the format the request wants, or the
/// route's error format for this kind of client.
pub(crate) fn error_on(page: ErrorPage, wants: &Wants, route: &Route) -> Response {
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

/// The error page of `body`, its HTTP status the code's own
/// ([`ErrorCode::status`]): what every handler's error type becomes.
pub(crate) fn coded(body: model::Error) -> ErrorPage {
    ErrorPage {
        input: None,
        status: StatusCode::from_u16(body.error.status()).unwrap_or(StatusCode::BAD_REQUEST),
        body,
    }
}

/// A 400 error page.
pub(crate) fn bad_request(code: ErrorCode, message: String) -> ErrorPage {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The headers built once and copied are those the general path and
    /// the layer put on the answer, in the same order, for every format,
    /// with and without TLS, with and without a matching `If-None-Match`,
    /// the second time (copied) as the first (built).
    #[test]
    fn prebuilt_answers_are_the_general_ones() {
        use crate::geo::GeoDb;
        use crate::web::render::{LookupKind, LookupPage};
        let db = GeoDb::embedded().expect("embedded data");
        let tag: Arc<str> = Arc::from("release-tag");
        let now = chrono::Utc::now();
        for ip in ["8.8.8.8", "2001:4860:4860::8888", "10.1.2.3"] {
            let mut info = crate::lookup::blank();
            let (ip, special) =
                crate::lookup::describe_into(&mut info, &db, ip.parse().unwrap(), now);
            let page = || {
                let answered = crate::lookup::Answered {
                    info: info.clone(),
                    release: tag.clone(),
                    special,
                    ip,
                };
                Page::Lookup(Box::new(LookupPage::new(answered, LookupKind::ApiIp)))
            };
            let reply = Reply {
                default: Format::Json,
                caching: Caching::Shared,
                etag: Some(tag.clone()),
            };
            // Every format in every language, the languages inside: a set
            // of headers kept for one language and given to another (its
            // `Content-Language`, its `ETag`) would differ here.
            for format in Format::ALL {
                for lang in Lang::ALL {
                    for inm in [
                        None,
                        Some(weak_etag("release-tag", format, lang)),
                        Some(weak_etag("release-tag", format, Lang::En)),
                    ] {
                        for tls in [false, true] {
                            let wants = Wants {
                                format: Some(format.query_name().into()),
                                if_none_match: inm.clone(),
                                lang,
                                ..Wants::default()
                            };
                            let mut general = respond(page(), &wants, &reply);
                            layer_headers(general.headers_mut(), false, tls);
                            for _ in 0..2 {
                                let fast = respond_finished(page(), &wants, &reply, tls);
                                assert_eq!(fast.status(), general.status());
                                let names = |r: &Response| {
                                    r.headers()
                                        .iter()
                                        .map(|(n, v)| (n.clone(), v.clone()))
                                        .collect::<Vec<_>>()
                                };
                                assert_eq!(
                                    names(&fast),
                                    names(&general),
                                    "{ip} {format:?} {lang:?} {inm:?} {tls}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}
