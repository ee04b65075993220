//! What a request says about the format it wants: the `format` and `ip`
//! query parameters and the `Accept`, `User-Agent` and `If-None-Match`
//! headers, read in one pass ([`Wants::read`]).

use axum::extract::{FromRequestParts, Query};
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::http::{Uri, request::Parts};
use serde::Deserialize;

use super::negotiate::ClientKind;

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
}

#[derive(Debug, Default, Deserialize)]
struct PageQuery {
    format: Option<String>,
    ip: Option<String>,
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
        // One pass over the headers: all the values of `Accept` and of
        // `If-None-Match`, joined with ", " (RFC 9110 section 5.3), values
        // that are not text left out; the first `User-Agent`, if it is text.
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
        let (mut accept, mut if_none_match) = (None, None);
        let mut user_agent: Option<Option<String>> = None;
        for (name, value) in headers {
            if name == header::ACCEPT {
                join(&mut accept, value);
            } else if name == header::IF_NONE_MATCH {
                join(&mut if_none_match, value);
            } else if name == header::USER_AGENT && user_agent.is_none() {
                user_agent = Some(value.to_str().ok().map(str::to_owned));
            }
        }
        let (q, bad_query) = match query {
            Ok(q) => (q, false),
            Err(_) => (PageQuery::default(), true),
        };
        Wants {
            format: q.format,
            ip: q.ip,
            accept,
            user_agent: user_agent.flatten(),
            if_none_match,
            bad_query,
        }
    }

    /// The kind of client asking, which picks a route's default format
    /// ([`super::routes::Defaults`]).
    pub fn kind(&self) -> ClientKind {
        ClientKind::of(self.user_agent.as_deref())
    }
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
            (
                joined(header::ACCEPT),
                user_agent,
                joined(header::IF_NONE_MATCH),
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
                (header::USER_AGENT, bad),
                (header::ACCEPT, HeaderValue::from_static("")),
            ],
        ];
        let uri: Uri = "/api/v1/ip/1.1.1.1".parse().unwrap();
        for case in cases {
            let mut headers = HeaderMap::new();
            for (name, value) in case {
                headers.append(name, value);
            }
            let wants = Wants::read(&uri, &headers);
            let read = (wants.accept, wants.user_agent, wants.if_none_match);
            assert_eq!(read, by_lookup(&headers), "{headers:?}");
        }
    }
}
