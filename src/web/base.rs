//! The base of absolute links in the description documents (`--public-url`,
//! or the URL the caller used), and the headers every document built on it
//! carries: `Vary: Host` and private caching when the base came from the
//! request.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::client::base_url;
use super::routes::{Answer, Route};
use super::state::AppState;

/// The base of absolute links (`scheme://host[:port]`): `--public-url` when
/// set, else the URL callers used to reach the service ([`base_url`]: the
/// request's authority, and the scheme a trusted proxy reports).
pub struct BaseUrl {
    pub url: String,
    /// Built from the request: the documents then vary with `Host` and must
    /// not be kept by shared caches ([`BaseUrl::finish`]).
    pub from_request: bool,
}

impl BaseUrl {
    /// The headers a document built on this base needs. With `--public-url`
    /// it is the same for every request: nothing to add. Built from the
    /// request, it carries `Vary: Host` (next to what already varies) and
    /// `Cache-Control: private`, so that no shared cache hands one caller's
    /// `Host` (or an absolute-form target, or a proxy's scheme) to another.
    pub fn finish(&self, mut response: Response) -> Response {
        if !self.from_request {
            return response;
        }
        let headers = response.headers_mut();
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
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("public"));
        if public {
            headers.insert(
                header::CACHE_CONTROL,
                HeaderValue::from_static(PRIVATE_DOCUMENT),
            );
        }
        response
    }
}

/// `Cache-Control` of a document built from the request (no `--public-url`).
pub const PRIVATE_DOCUMENT: &str = "private, max-age=3600";

impl FromRequestParts<AppState> for BaseUrl {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        if let Some(public) = &state.public_url {
            return Ok(BaseUrl {
                url: public.base(),
                from_request: false,
            });
        }
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map_or_else(|| SocketAddr::from(([127, 0, 0, 1], 0)), |c| c.0);
        Ok(BaseUrl {
            url: base_url(peer, &parts.headers, &parts.uri, &state.proxies, state.tls),
            from_request: true,
        })
    }
}

/// A description document built on `base`, with the media type and caching
/// of its `route` (CORS headers come from the common
/// layer, as for every page; caching and `Vary` from [`BaseUrl::finish`]).
pub fn document(body: String, route: &Route, base: &BaseUrl) -> Response {
    let mut headers = HeaderMap::new();
    if let Answer::Fixed(content_type) = route.answer {
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    }
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(route.caching.header()),
    );
    base.finish((StatusCode::OK, headers, body).into_response())
}
