//! What a request says about the format and language it wants: the
//! `format`, `ip`, `lang`, `page` and `q` query parameters and the `Accept`,
//! `Accept-Language`, `User-Agent`, `If-None-Match` and `Host` headers, read
//! in one pass ([`Wants::read`]).

use axum::extract::{FromRequestParts, Query};
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::http::{Uri, request::Parts};
use serde::Deserialize;

use super::negotiate::ClientKind;
use super::state::AppState;
use crate::web::render::{Lang, View};

/// What the request says about the wanted format.
#[derive(Debug, Clone, Default)]
pub(crate) struct Wants {
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
    /// The `q` query parameter (a search over an AS's prefixes), if given.
    pub q: Option<String>,
    /// The host the caller used (`Host`, or the target's authority), as
    /// sent: [`Wants::host`] reads it (checked only by the pages that show
    /// it, and copied from the request's bytes without an allocation).
    pub host: Option<HeaderValue>,
    /// `--public-url` (`scheme://host[:port]`), when set: the pages' `curl`
    /// commands name it instead of the request's `Host`
    /// ([`Wants::with_public_url`]).
    pub public_base: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct PageQuery {
    format: Option<String>,
    ip: Option<String>,
    lang: Option<String>,
    page: Option<String>,
    q: Option<String>,
}

impl FromRequestParts<AppState> for Wants {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        Ok(Wants::read(&parts.uri, &parts.headers).with_public_url(state))
    }
}

impl Wants {
    /// What the query string and the headers of a request say.
    pub(crate) fn read(uri: &Uri, headers: &HeaderMap) -> Wants {
        let query = match uri.query() {
            None => Ok(PageQuery::default()),
            Some(_) => Query::<PageQuery>::try_from_uri(uri).map(|Query(q)| q),
        };
        // One pass over the headers: all the values of `Accept`, of
        // `Accept-Language` and of `If-None-Match`, joined with ", " (RFC
        // 9110 section 5.3), values that are not text left out; the first
        // `User-Agent` and the first `Host`, if they are text.
        let join = |joined: &mut Option<String>, value: &HeaderValue| {
            let Ok(v) = value.to_str() else { return };
            match joined {
                None => *joined = Some(v.to_owned()),
                Some(joined) => {
                    joined.push_str(", ");
                    joined.push_str(v);
                }
            }
        };
        let (mut accept, mut if_none_match, mut accept_language) = (None, None, None);
        let mut user_agent: Option<Option<String>> = None;
        let mut host: Option<Option<&HeaderValue>> = None;
        for (name, value) in headers {
            if name == header::ACCEPT {
                join(&mut accept, value);
            } else if name == header::IF_NONE_MATCH {
                join(&mut if_none_match, value);
            } else if name == header::USER_AGENT && user_agent.is_none() {
                user_agent = Some(value.to_str().ok().map(str::to_owned));
            } else if name == header::ACCEPT_LANGUAGE {
                join(&mut accept_language, value);
            } else if name == header::HOST && host.is_none() {
                host = Some(value.to_str().is_ok().then_some(value));
            }
        }
        let (q, bad_query) = match query {
            Ok(q) => (q, false),
            Err(_) => (PageQuery::default(), true),
        };
        let lang_in_query = q.lang.as_deref().and_then(Lang::from_tag).is_some();
        let lang = Lang::negotiate(q.lang.as_deref(), accept_language.as_deref());
        let host = match host.flatten() {
            Some(value) => Some(value.clone()),
            None => uri
                .authority()
                .and_then(|a| HeaderValue::from_str(a.as_str()).ok()),
        };
        Wants {
            format: q.format,
            ip: q.ip,
            lang,
            lang_in_query,
            page: q.page,
            q: q.q,
            host,
            accept,
            user_agent: user_agent.flatten(),
            if_none_match,
            bad_query,
            public_base: None,
        }
    }

    /// These wants with the service's `--public-url`, if it has one: a page
    /// then names no host of the request (SECURITY.md, "Shared caches").
    pub(crate) fn with_public_url(mut self, state: &AppState) -> Wants {
        self.public_base = state.public_url.as_ref().map(|p| p.base());
        self
    }

    /// The kind of client asking, which picks a route's default format
    /// ([`crate::web::routes::Defaults`]).
    pub(crate) fn kind(&self) -> ClientKind {
        ClientKind::of(self.user_agent.as_deref())
    }

    /// What the renderers need to know of the request.
    pub(crate) fn view(&self) -> View {
        View {
            lang: self.lang,
            lang_in_query: self.lang_in_query,
            host: match &self.public_base {
                Some(base) => Some(base.clone()),
                None => self.host().map(str::to_owned),
            },
        }
    }

    /// Whether a page's `curl` commands name the request's own `Host` (or
    /// its absence): no `--public-url`. Such a page varies with `Host`
    /// ([`super::respond`]).
    pub(crate) fn names_request_host(&self) -> bool {
        self.public_base.is_none()
    }

    /// The host the caller used (`Host`, or the target's authority), when
    /// it is a plain host name or address with an optional port.
    pub(crate) fn host(&self) -> Option<&str> {
        self.host
            .as_ref()
            .and_then(|h| h.to_str().ok())
            .filter(|h| is_plain_host(h))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The one pass over the headers reads what a lookup of each would.
    #[test]
    fn wants_reads_each_header_as_a_lookup_would() {
        let by_lookup = |headers: &HeaderMap| {
            let joined = |name: header::HeaderName| {
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
            let user_agent = headers
                .get(header::USER_AGENT)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let lang = Lang::negotiate(None, joined(header::ACCEPT_LANGUAGE).as_deref());
            let host = headers
                .get(header::HOST)
                .and_then(|v| v.to_str().ok())
                .filter(|h| is_plain_host(h))
                .map(str::to_owned);
            (
                joined(header::ACCEPT),
                user_agent,
                joined(header::IF_NONE_MATCH),
                lang,
                host,
            )
        };
        let bad = HeaderValue::from_bytes(b"caf\xe9").unwrap();
        let cases: Vec<Vec<(header::HeaderName, HeaderValue)>> = vec![
            vec![],
            vec![(header::HOST, HeaderValue::from_static("x"))],
            vec![
                (header::ACCEPT, HeaderValue::from_static("text/html")),
                (header::USER_AGENT, HeaderValue::from_static("curl/8")),
                (header::ACCEPT, HeaderValue::from_static("*/*;q=0.1")),
                (header::IF_NONE_MATCH, HeaderValue::from_static("W/\"a\"")),
                (header::HOST, HeaderValue::from_static("x")),
                (header::IF_NONE_MATCH, HeaderValue::from_static("\"b\"")),
            ],
            vec![
                (header::USER_AGENT, bad.clone()),
                (header::USER_AGENT, HeaderValue::from_static("curl/8")),
                (header::ACCEPT, bad.clone()),
                (header::ACCEPT, HeaderValue::from_static("text/plain")),
            ],
            vec![
                (header::USER_AGENT, HeaderValue::from_static("Mozilla/5.0")),
                (header::USER_AGENT, bad.clone()),
                (header::ACCEPT, HeaderValue::from_static("")),
            ],
            vec![
                (
                    header::ACCEPT_LANGUAGE,
                    HeaderValue::from_static("en;q=0.5"),
                ),
                (header::HOST, HeaderValue::from_static("example.com:8080")),
                (header::ACCEPT_LANGUAGE, bad.clone()),
                (header::ACCEPT_LANGUAGE, HeaderValue::from_static("bn")),
                (header::HOST, HeaderValue::from_static("other.example")),
            ],
            vec![
                (header::HOST, bad.clone()),
                (header::HOST, HeaderValue::from_static("example.com")),
                (
                    header::ACCEPT_LANGUAGE,
                    HeaderValue::from_static("bn-BD, en;q=0.9"),
                ),
            ],
            vec![
                (header::HOST, HeaderValue::from_static("a b")),
                (header::ACCEPT_LANGUAGE, bad),
            ],
        ];
        let uri: Uri = "/api/v1/ip/1.1.1.1".parse().unwrap();
        for case in cases {
            let mut headers = HeaderMap::new();
            for (name, value) in case {
                headers.append(name, value);
            }
            let wants = Wants::read(&uri, &headers);
            let host = wants.host().map(str::to_owned);
            let read = (
                wants.accept,
                wants.user_agent,
                wants.if_none_match,
                wants.lang,
                host,
            );
            assert_eq!(read, by_lookup(&headers), "{headers:?}");
        }
    }
}
