//! Web origins (RFC 6454): `--public-url`, the `--mcp-allowed-origin` values
//! and the `Origin` request header, parsed strictly and compared as
//! `(scheme, host, port)` with the scheme's default port filled in.
//!
//! `--public-url` is the base of every absolute link the service writes, so it
//! is held to the same shape as an origin: `http` or `https`, a host, an
//! optional port, and nothing else (no path, query, fragment or user info).
//! The service answers at the root of its host, so a path prefix could not be
//! honoured by every link and is refused at start.

use std::fmt;

use axum::http::Uri;

/// Why a URL or origin was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OriginError {
    #[error("{0:?} is not a URL")]
    NotAUrl(String),
    #[error("{0:?}: the scheme must be http or https")]
    Scheme(String),
    #[error("{0:?} has no host")]
    NoHost(String),
    #[error("{0:?}: the host must be a DNS name, an IPv4 address or a bracketed IPv6 address")]
    BadHost(String),
    #[error("{0:?}: the port must be a number from 1 to 65535")]
    BadPort(String),
    #[error("{0:?} must not carry a user name or password")]
    UserInfo(String),
    #[error("{0:?} must not have a query or a fragment")]
    QueryOrFragment(String),
    #[error(
        "{0:?} has a path: iplookup answers at the root of its host, so every link would miss the \
         prefix; give scheme://host[:port] and let the proxy strip any prefix"
    )]
    Path(String),
}

/// An origin: scheme, host (lower case; IPv6 in brackets) and port.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WebOrigin {
    scheme: &'static str,
    host: String,
    port: u16,
}

impl WebOrigin {
    /// Parses `scheme://host[:port]`, with at most a trailing `/`.
    pub fn parse(text: &str) -> Result<WebOrigin, OriginError> {
        let bad = || text.to_owned();
        if text.contains('#') || text.contains('?') {
            return Err(OriginError::QueryOrFragment(bad()));
        }
        let uri: Uri = text.parse().map_err(|_| OriginError::NotAUrl(bad()))?;
        let scheme = match uri.scheme_str().map(str::to_ascii_lowercase).as_deref() {
            Some("http") => "http",
            Some("https") => "https",
            _ => return Err(OriginError::Scheme(bad())),
        };
        let authority = uri.authority().ok_or_else(|| OriginError::NoHost(bad()))?;
        if authority.as_str().contains('@') {
            return Err(OriginError::UserInfo(bad()));
        }
        if !matches!(uri.path(), "" | "/") {
            return Err(OriginError::Path(bad()));
        }
        let host = authority.host().to_ascii_lowercase();
        if host.is_empty() {
            return Err(OriginError::NoHost(bad()));
        }
        if !is_host(&host) {
            return Err(OriginError::BadHost(bad()));
        }
        let port = match authority.as_str().strip_prefix(authority.host()) {
            None | Some("") => default_port(scheme),
            Some(_) => authority
                .port_u16()
                .filter(|p| *p != 0)
                .ok_or_else(|| OriginError::BadPort(bad()))?,
        };
        Ok(WebOrigin { scheme, host, port })
    }

    /// `host` or `host:port` when the port is not the scheme's default.
    pub fn authority(&self) -> String {
        if self.port == default_port(self.scheme) {
            self.host.clone()
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }

    /// Whether a `Host` value names this origin's host and port (the port of
    /// a `Host` without one is the default of this origin's scheme).
    pub fn matches_host(&self, host: &str) -> bool {
        let Ok(authority) = host.parse::<axum::http::uri::Authority>() else {
            return false;
        };
        if authority.as_str().contains('@') {
            return false;
        }
        let port = match authority.as_str().strip_prefix(authority.host()) {
            None | Some("") => Some(default_port(self.scheme)),
            Some(_) => authority.port_u16(),
        };
        authority.host().eq_ignore_ascii_case(&self.host) && port == Some(self.port)
    }
}

impl fmt::Display for WebOrigin {
    /// The ASCII serialization: `scheme://host[:port]`, no trailing slash.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://{}", self.scheme, self.authority())
    }
}

fn default_port(scheme: &str) -> u16 {
    if scheme == "https" { 443 } else { 80 }
}

/// DNS names and IPv4 (letters, digits, `-`, `_`, `.`), or a bracketed IPv6.
fn is_host(host: &str) -> bool {
    if let Some(inner) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return inner.parse::<std::net::Ipv6Addr>().is_ok();
    }
    host.len() <= 253
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// `--ipv4-url` and `--ipv6-url`: origins of this same service reachable
/// over one address family only. The root page in a browser asks each for
/// the visitor's address in that family (and links to them without
/// JavaScript); the page's CSP `connect-src` names exactly these origins.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FamilyOrigins {
    pub v4: Option<WebOrigin>,
    pub v6: Option<WebOrigin>,
}

impl FamilyOrigins {
    /// Whether neither is set.
    pub fn is_empty(&self) -> bool {
        self.v4.is_none() && self.v6.is_none()
    }

    /// The origins set, with the family each reaches (`IPv4`, `IPv6`).
    pub fn each(&self) -> impl Iterator<Item = (&'static str, &WebOrigin)> {
        [("IPv4", self.v4.as_ref()), ("IPv6", self.v6.as_ref())]
            .into_iter()
            .filter_map(|(family, origin)| Some((family, origin?)))
    }
}

/// The `--public-url`: the base of every absolute link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicUrl(WebOrigin);

impl PublicUrl {
    /// Validates `text` (see [`WebOrigin::parse`]).
    pub fn parse(text: &str) -> Result<PublicUrl, OriginError> {
        WebOrigin::parse(text.trim()).map(PublicUrl)
    }

    /// The origin links are built on.
    pub fn origin(&self) -> &WebOrigin {
        &self.0
    }

    /// `scheme://host[:port]`, no trailing slash: links append `/path`.
    pub fn base(&self) -> String {
        self.0.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_urls_are_scheme_host_and_port_only() {
        let ok = |s: &str| PublicUrl::parse(s).unwrap().base();
        assert_eq!(ok("https://ip.example.com"), "https://ip.example.com");
        assert_eq!(ok("https://IP.Example.com/"), "https://ip.example.com");
        assert_eq!(ok("HTTP://127.0.0.1:8080"), "http://127.0.0.1:8080");
        assert_eq!(ok("https://ip.example.com:443"), "https://ip.example.com");
        assert_eq!(ok("http://[::1]:8080"), "http://[::1]:8080");
        let err = |s: &str| PublicUrl::parse(s).unwrap_err();
        assert!(matches!(err("ftp://a.example"), OriginError::Scheme(_)));
        assert!(matches!(err("ip.example.com"), OriginError::Scheme(_)));
        assert!(matches!(
            err("https://u:p@a.example"),
            OriginError::UserInfo(_)
        ));
        assert!(matches!(
            err("https://a.example/?x=1"),
            OriginError::QueryOrFragment(_)
        ));
        assert!(matches!(
            err("https://a.example/#top"),
            OriginError::QueryOrFragment(_)
        ));
        assert!(matches!(err("https://a.example/ip"), OriginError::Path(_)));
        assert!(matches!(
            err("https://a.example:0"),
            OriginError::BadPort(_)
        ));
        assert!(matches!(
            err("https://a.example:99999"),
            OriginError::BadPort(_) | OriginError::NotAUrl(_)
        ));
        assert!(matches!(
            err("https://[zz]"),
            OriginError::BadHost(_) | OriginError::NotAUrl(_)
        ));
        assert!(matches!(
            err("https://a!b.example"),
            OriginError::BadHost(_) | OriginError::NotAUrl(_)
        ));
        assert!(matches!(
            err("https://"),
            OriginError::NoHost(_) | OriginError::NotAUrl(_)
        ));
    }

    #[test]
    fn origins_compare_with_default_ports() {
        let o = |s: &str| WebOrigin::parse(s).unwrap();
        assert_eq!(o("https://a.example"), o("https://a.example:443"));
        assert_ne!(o("https://a.example"), o("http://a.example"));
        assert_ne!(o("https://a.example"), o("https://a.example:8443"));
        assert!(o("http://a.example:8080").matches_host("A.example:8080"));
        assert!(o("https://a.example").matches_host("a.example"));
        assert!(o("https://a.example").matches_host("a.example:443"));
        assert!(!o("https://a.example").matches_host("a.example:80"));
        assert!(!o("http://a.example:8080").matches_host("b.example:8080"));
        assert!(o("http://[::1]:9").matches_host("[::1]:9"));
    }
}
