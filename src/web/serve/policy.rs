//! A route's policy applied to its handler's answer, in one place. The common
//! layer ([`crate::web::common`]) calls [`apply`] on every answer with the
//! request's route ([`crate::web::routes`]), so a handler returns a body (built
//! here: [`document`], [`typed`]) and marks what only it knows: the answer's
//! entity tag ([`Tag`]), an answer that must not be kept ([`Uncached`]), one
//! built from the request's `Host` ([`FromRequest`]), or one that follows
//! another route's policy ([`PolicyOf`]). It never sets the content type,
//! the caching or the `ETag` itself.
//!
//! Pages in a negotiated format come with their headers already
//! ([`super::respond`], which builds them once per thread for the hot
//! route); [`apply`] fills only what an answer lacks, so it changes nothing
//! on those. `If-None-Match` is matched by [`super::etag`], as everywhere.

use axum::body::Body;
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::http::{Method, Request, StatusCode};
use axum::response::Response;

use crate::web::routes::{Caching, Produces, Route};

/// The entity tag of an answer (the whole tag, `W/"..."`): the layer sends
/// it as `ETag` on a 200 and answers 304 when `If-None-Match` matches it.
#[derive(Debug, Clone)]
pub(crate) struct Tag(pub String);

/// This answer depends on the moment (a field's `local_time`): never kept,
/// whatever its route's caching.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Uncached;

/// This answer was built from the request's `Host` (no `--public-url`): it
/// varies with `Host` and no shared cache may keep it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FromRequest;

/// This answer follows another route's policy (a plain `GET /mcp` answers
/// the MCP server card, with the card's media type and caching).
#[derive(Debug, Clone, Copy)]
pub(crate) struct PolicyOf(pub &'static Route);

/// `Cache-Control` of a document built from the request.
pub(crate) const PRIVATE_DOCUMENT: &str = "private, max-age=3600";
const NO_STORE: HeaderValue = HeaderValue::from_static("no-store");

/// A 200 answer of `body`, in its route's media type.
pub(crate) fn document(body: impl Into<Body>) -> Response {
    Response::new(body.into())
}

/// A 200 answer of `body` in `content_type`, for routes whose answers come
/// in more than the route's one media type (assets, batch formats).
pub(crate) fn typed(content_type: &'static str, body: impl Into<Body>) -> Response {
    let mut response = Response::new(body.into());
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// `303 See Other` to `location` (a form's answer: the page it names).
pub(crate) fn see_other(location: &str) -> Response {
    axum::response::IntoResponse::into_response(axum::response::Redirect::to(location))
}

/// `308 Permanent Redirect` to `location` (an alias of a route).
pub(crate) fn moved_to(location: &str) -> Response {
    axum::response::IntoResponse::into_response(axum::response::Redirect::permanent(location))
}

/// `response` with `mark` among its extensions.
pub(crate) fn mark<T: Clone + Send + Sync + 'static>(mut response: Response, mark: T) -> Response {
    response.extensions_mut().insert(mark);
    response
}

/// The `If-None-Match` of a `GET` or `HEAD` request (the only ones a 304
/// answers), if it has one; several lines are one list (RFC 9110 section
/// 5.3).
pub(crate) fn if_none_match<B>(request: &Request<B>) -> Option<HeaderValue> {
    let method = request.method();
    if method != Method::GET && method != Method::HEAD {
        return None;
    }
    let mut lines = request.headers().get_all(header::IF_NONE_MATCH).iter();
    let first = lines.next()?;
    let mut more = lines.peekable();
    if more.peek().is_none() {
        return Some(first.clone());
    }
    let mut list = first.as_bytes().to_vec();
    for line in more {
        list.extend_from_slice(b", ");
        list.extend_from_slice(line.as_bytes());
    }
    HeaderValue::from_bytes(&list).ok()
}

/// `route`'s policy on `response`, where the handler left it to the route:
/// the media type of a fixed document, the caching (`no-store` on errors),
/// `Vary: Host` and private caching for an answer [`FromRequest`], the
/// [`Tag`] as `ETag`. `fill` is false for a route whose handler put every
/// header itself (the hot route): then only the 304 below applies. Last, a
/// 200 becomes 304 (headers kept, body dropped) when `if_none_match`
/// matches its `ETag`, or is `*` (RFC 9110 section 13.1.2: `*` matches any
/// current representation).
pub(crate) fn apply(
    route: &'static Route,
    response: &mut Response,
    if_none_match: Option<&HeaderValue>,
    fill: bool,
) {
    if fill {
        fill_in(route, response);
    }
    let Some(inm) = if_none_match else { return };
    if response.status() != StatusCode::OK {
        return;
    }
    let Ok(inm) = inm.to_str() else { return };
    let etag = response
        .headers()
        .get(header::ETAG)
        .and_then(|e| e.to_str().ok());
    if super::etag::matches(inm, etag) {
        *response.status_mut() = StatusCode::NOT_MODIFIED;
        *response.body_mut() = Body::empty();
        response.headers_mut().remove(header::CONTENT_LENGTH);
    }
}

/// The headers of `route`'s policy that `response` lacks.
fn fill_in(route: &'static Route, response: &mut Response) {
    let extensions = response.extensions_mut();
    let route = extensions.get::<PolicyOf>().map_or(route, |p| p.0);
    let uncached = extensions.remove::<Uncached>().is_some();
    let from_request = extensions.remove::<FromRequest>().is_some();
    let tag = extensions.remove::<Tag>();
    let status = response.status();
    let headers = response.headers_mut();
    if let (true, Produces::Fixed(media_type)) = (status.is_success(), route.answer) {
        if !headers.contains_key(header::CONTENT_TYPE) {
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(media_type));
        }
    }
    if !headers.contains_key(header::CACHE_CONTROL) {
        if status.is_success() {
            let caching = if uncached {
                Caching::PerCaller
            } else {
                route.caching
            };
            headers.insert(
                header::CACHE_CONTROL,
                HeaderValue::from_static(caching.header()),
            );
        } else if status.is_client_error() || status.is_server_error() {
            headers.insert(header::CACHE_CONTROL, NO_STORE);
        }
    }
    if from_request {
        vary_with_host(headers);
    }
    if let Some(tag) = tag.filter(|_| status == StatusCode::OK && !uncached) {
        if let Ok(value) = HeaderValue::from_str(&tag.0) {
            headers.insert(header::ETAG, value);
        }
    }
}

/// `Vary: Host` (next to what already varies) and, for an answer shared
/// caches could keep, [`PRIVATE_DOCUMENT`]: no shared cache may hand one
/// caller's `Host` (or an absolute-form target, or a proxy's scheme) to
/// another.
fn vary_with_host(headers: &mut HeaderMap) {
    let vary = match headers.get(header::VARY).and_then(|v| v.to_str().ok()) {
        Some(v) if v.trim() == "*" => None,
        Some(v) if !v.trim().is_empty() => Some(format!("{v}, Host")),
        _ => Some("Host".to_owned()),
    };
    if let Some(v) = vary.and_then(|v| HeaderValue::from_str(&v).ok()) {
        headers.insert(header::VARY, v);
    }
    let public = headers
        .get(header::CACHE_CONTROL)
        .is_some_and(|v| v.as_bytes().starts_with(b"public"));
    if public {
        headers.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static(PRIVATE_DOCUMENT),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_gets_its_route_policy_and_errors_are_never_kept() {
        use crate::web::routes;
        let mut r = mark(document("{}"), Tag("W/\"t\"".into()));
        apply(&routes::OPENAPI, &mut r, None, true);
        assert_eq!(r.headers()[header::CONTENT_TYPE], "application/json");
        assert_eq!(r.headers()[header::CACHE_CONTROL], "public, max-age=3600");
        assert_eq!(r.headers()[header::ETAG], "W/\"t\"");

        let mut r = mark(document("{}"), FromRequest);
        apply(&routes::OPENAPI, &mut r, None, true);
        assert_eq!(r.headers()[header::CACHE_CONTROL], PRIVATE_DOCUMENT);
        assert_eq!(r.headers()[header::VARY], "Host");

        let mut r = document("");
        *r.status_mut() = StatusCode::BAD_REQUEST;
        apply(&routes::API_IP_FIELD, &mut r, None, true);
        assert_eq!(r.headers()[header::CACHE_CONTROL], "no-store");

        let mut r = mark(document("x"), Tag("W/\"t\"".into()));
        let inm = HeaderValue::from_static("\"t\"");
        apply(&routes::API_IP_FIELD, &mut r, Some(&inm), true);
        assert_eq!(r.status(), StatusCode::NOT_MODIFIED);
        assert_eq!(r.headers()[header::ETAG], "W/\"t\"");
    }
}
