//! The caller's address: the socket peer, unless the peer is a trusted proxy,
//! in which case the forwarding headers are walked right to left and the first
//! address that is not a trusted proxy is the caller.
//!
//! The leftmost entry of `X-Forwarded-For` is never taken on trust: a client can
//! write anything there. Headers from untrusted peers are ignored entirely.

use std::net::{IpAddr, SocketAddr};

use axum::http::HeaderMap;
use ipnet::IpNet;

use crate::address;

/// The CIDR blocks whose forwarding headers are believed.
#[derive(Debug, Clone, Default)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    /// Trust these blocks.
    pub fn new(nets: Vec<IpNet>) -> Self {
        TrustedProxies(nets)
    }

    /// Whether `ip` lies in a trusted block.
    pub fn contains(&self, ip: IpAddr) -> bool {
        self.0.iter().any(|net| net.contains(&ip))
    }

    /// True when no proxy is trusted.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The caller's address for a request that came from `peer`.
pub fn client_addr(peer: SocketAddr, headers: &HeaderMap, trusted: &TrustedProxies) -> IpAddr {
    let peer = address::canonical(peer.ip());
    if !trusted.contains(peer) {
        return peer;
    }
    let chain = forwarded_chain(headers);
    let mut client = peer;
    for hop in chain.iter().rev() {
        match hop {
            Some(ip) => {
                client = *ip;
                if !trusted.contains(*ip) {
                    return *ip;
                }
            }
            // An entry we cannot read: stop at the last hop we could trust.
            None => return client,
        }
    }
    client
}

/// The URL callers used to reach the service (`scheme://host`), for absolute
/// links in description documents. The scheme is `https` when the service
/// terminates TLS itself or a trusted proxy says so (`X-Forwarded-Proto`,
/// `Forwarded: proto=`); the host is the request's authority (the URI's for
/// HTTP/2, the `Host` header for HTTP/1.1) when it is plausible, else `localhost`.
pub fn base_url(
    peer: SocketAddr,
    headers: &HeaderMap,
    uri: &axum::http::Uri,
    trusted: &TrustedProxies,
    tls: bool,
) -> String {
    let from_proxy = trusted.contains(address::canonical(peer.ip()));
    let proxied_https = from_proxy && forwarded_proto(headers).as_deref() == Some("https");
    let proto = if tls || proxied_https {
        "https"
    } else {
        "http"
    };
    // HTTP/2 carries the authority in the URI, HTTP/1.1 in the Host header.
    let authority = uri.authority().map(|a| a.as_str().to_owned());
    let host_header = headers
        .get(axum::http::header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_owned);
    let host = authority
        .or(host_header)
        .filter(|h| is_authority(h))
        .unwrap_or_else(|| "localhost".to_owned());
    format!("{proto}://{host}")
}

fn forwarded_proto(headers: &HeaderMap) -> Option<String> {
    if let Some(v) = headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
    {
        return v.split(',').next().map(|p| p.trim().to_ascii_lowercase());
    }
    let v = headers.get("forwarded").and_then(|v| v.to_str().ok())?;
    v.split(',').next()?.split(';').find_map(|pair| {
        let (k, val) = pair.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("proto")
            .then(|| val.trim().trim_matches('"').to_ascii_lowercase())
    })
}

/// Host names, IPv4, bracketed IPv6, with an optional port; nothing else.
fn is_authority(h: &str) -> bool {
    !h.is_empty()
        && h.len() <= 255
        && h.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-.:[]_".contains(c))
}

/// The hops the proxies recorded, oldest first: `Forwarded` if present, else
/// `X-Forwarded-For`, else `X-Real-IP`. `None` marks an unreadable or obfuscated hop.
fn forwarded_chain(headers: &HeaderMap) -> Vec<Option<IpAddr>> {
    let values = |name: &str| -> Vec<&str> {
        headers
            .get_all(name)
            .iter()
            .map(|v| v.to_str().unwrap_or("\u{0}"))
            .collect()
    };
    let forwarded = values("forwarded");
    if !forwarded.is_empty() {
        return forwarded
            .iter()
            .flat_map(|v| v.split(','))
            .map(forwarded_for)
            .collect();
    }
    let xff = values("x-forwarded-for");
    if !xff.is_empty() {
        return xff.iter().flat_map(|v| v.split(',')).map(node).collect();
    }
    values("x-real-ip").iter().map(|v| node(v)).collect()
}

/// The `for=` node of one `Forwarded` element (RFC 7239).
fn forwarded_for(element: &str) -> Option<IpAddr> {
    element.split(';').find_map(|pair| {
        let (key, value) = pair.split_once('=')?;
        key.trim()
            .eq_ignore_ascii_case("for")
            .then(|| node(value.trim().trim_matches('"')))?
    })
}

/// One node: `1.2.3.4`, `1.2.3.4:80`, `2001:db8::1`, `[2001:db8::1]:443`.
fn node(text: &str) -> Option<IpAddr> {
    let text = text.trim();
    let host = if let Some(rest) = text.strip_prefix('[') {
        rest.split_once(']')?.0
    } else if text.matches(':').count() == 1 {
        text.split_once(':')?.0
    } else {
        text
    };
    host.parse::<IpAddr>().ok().map(address::canonical)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, v.parse().unwrap());
        }
        h
    }

    fn trusted() -> TrustedProxies {
        TrustedProxies::new(vec![
            "10.0.0.0/8".parse().unwrap(),
            "::1/128".parse().unwrap(),
        ])
    }

    fn peer(s: &str) -> SocketAddr {
        SocketAddr::new(s.parse().unwrap(), 4000)
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn untrusted_peer_headers_are_ignored() {
        let h = headers(&[
            ("x-forwarded-for", "1.2.3.4"),
            ("forwarded", "for=5.6.7.8"),
            ("x-real-ip", "9.9.9.9"),
        ]);
        assert_eq!(
            client_addr(peer("203.0.113.5"), &h, &trusted()),
            ip("203.0.113.5")
        );
    }

    #[test]
    fn walks_x_forwarded_for_right_to_left() {
        let h = headers(&[("x-forwarded-for", "6.6.6.6, 8.8.8.8, 10.1.1.1")]);
        assert_eq!(client_addr(peer("10.0.0.1"), &h, &trusted()), ip("8.8.8.8"));
        let split = headers(&[
            ("x-forwarded-for", "6.6.6.6"),
            ("x-forwarded-for", "8.8.4.4:1234, 10.2.2.2"),
        ]);
        assert_eq!(
            client_addr(peer("10.0.0.1"), &split, &trusted()),
            ip("8.8.4.4")
        );
    }

    #[test]
    fn reads_forwarded_with_quotes_brackets_and_ports() {
        let h = headers(&[(
            "forwarded",
            r#"for=1.1.1.1, for="[2001:db8::7]:4711";proto=https, For=10.0.0.9"#,
        )]);
        assert_eq!(client_addr(peer("::1"), &h, &trusted()), ip("2001:db8::7"));
        let hidden = headers(&[("forwarded", "for=1.1.1.1, for=_hidden, for=10.0.0.9")]);
        assert_eq!(
            client_addr(peer("10.0.0.1"), &hidden, &trusted()),
            ip("10.0.0.9")
        );
    }

    #[test]
    fn forwarded_wins_over_x_forwarded_for() {
        let h = headers(&[("x-forwarded-for", "7.7.7.7"), ("forwarded", "for=8.8.8.8")]);
        assert_eq!(client_addr(peer("10.0.0.1"), &h, &trusted()), ip("8.8.8.8"));
    }

    #[test]
    fn x_real_ip_is_used_last() {
        let h = headers(&[("x-real-ip", "9.9.9.9")]);
        assert_eq!(client_addr(peer("10.0.0.1"), &h, &trusted()), ip("9.9.9.9"));
    }

    #[test]
    fn all_trusted_chain_gives_the_leftmost_and_garbage_stops_the_walk() {
        let h = headers(&[("x-forwarded-for", "10.3.3.3, 10.2.2.2")]);
        assert_eq!(
            client_addr(peer("10.0.0.1"), &h, &trusted()),
            ip("10.3.3.3")
        );
        let g = headers(&[("x-forwarded-for", "1.2.3.4, garbage, 10.2.2.2")]);
        assert_eq!(
            client_addr(peer("10.0.0.1"), &g, &trusted()),
            ip("10.2.2.2")
        );
        let none = headers(&[]);
        assert_eq!(
            client_addr(peer("10.0.0.1"), &none, &trusted()),
            ip("10.0.0.1")
        );
    }

    #[test]
    fn mapped_addresses_are_ipv4() {
        let h = headers(&[("x-forwarded-for", "::ffff:8.8.8.8")]);
        assert_eq!(
            client_addr(peer("::ffff:10.0.0.1"), &h, &trusted()),
            ip("8.8.8.8")
        );
        assert_eq!(
            client_addr(peer("::ffff:1.2.3.4"), &headers(&[]), &trusted()),
            ip("1.2.3.4")
        );
    }
}
