//! The base of absolute links in the description documents (`--public-url`,
//! or the URL the caller used); a document built on a base from the request
//! is marked so ([`super::policy::FromRequest`]: `Vary: Host`, private
//! caching).

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::response::Response;

use super::client::base_url;
use super::policy::{self, FromRequest, mark};
use super::state::AppState;

/// The base of absolute links (`scheme://host[:port]`): `--public-url` when
/// set, else the URL callers used to reach the service ([`base_url`]: the
/// request's authority, and the scheme a trusted proxy reports).
pub(crate) struct BaseUrl {
    pub url: String,
    /// Built from the request: the documents then vary with `Host` and must
    /// not be kept by shared caches ([`BaseUrl::finish`]).
    pub from_request: bool,
}

impl BaseUrl {
    /// Marks `response` as built on this base: from the request, it varies
    /// with `Host` and no shared cache may keep it ([`FromRequest`], which
    /// the common layer applies); with `--public-url`, nothing to mark.
    pub(crate) fn finish(&self, response: Response) -> Response {
        if self.from_request {
            mark(response, FromRequest)
        } else {
            response
        }
    }
}

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

/// A description document built on `base`, in its route's media type and
/// caching (set by the common layer, [`super::policy`]).
pub(crate) fn document(body: String, base: &BaseUrl) -> Response {
    base.finish(policy::document(body))
}
