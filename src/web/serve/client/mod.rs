//! The caller's address: the socket peer, unless the peer is a trusted proxy
//! (`--trusted-proxy`), in which case the **one** header that proxy writes
//! (`--client-ip-header`) is read and every other forwarding header ignored.
//! Real proxies write one of `X-Forwarded-For`, `Forwarded`, `X-Real-IP`,
//! `CF-Connecting-IP`, ... and pass the others through from the client
//! untouched, so falling back from one header to another would let any client
//! choose its own address.
//!
//! The rules, the same for every use of the caller's address (`/api/v1/me`,
//! the root page, MCP `my_ip`, the rate limiter's key), all in [`client_addr`]:
//!
//! - The peer is not trusted: the peer, whatever the headers say.
//! - The header is missing (or empty): the peer.
//! - List headers (`X-Forwarded-For`, `Forwarded`): every line of the header,
//!   in order, makes one list of hops. It is walked right to left (the nearest
//!   proxy's entry last); the first address that is not a trusted proxy is the
//!   caller. Empty list elements are skipped.
//! - Every entry is a trusted proxy: the leftmost entry (as nginx's realip with
//!   `real_ip_recursive on`). A trusted address vouches for what it wrote.
//! - An entry that is not an address (`unknown`, an obfuscated `_node`, a
//!   `Forwarded` element without `for=`, a host name, garbage): the walk stops
//!   and the caller is the last trusted hop read before it (the peer when it is
//!   the rightmost entry). Nothing written left of an unreadable hop is believed.
//! - Single-address headers (`X-Real-IP`, `CF-Connecting-IP`, ...): exactly one
//!   line holding one address. The header repeated, or holding a list, is
//!   unreadable and the caller is the peer: the proxy was meant to set it, and
//!   neither copy can be told from one the client sent.
//!
//! An entry is an IPv4 or IPv6 address with an optional port (`1.2.3.4:80`,
//! `[2001:db8::1]:443`, `_obf` ports too); `Forwarded` values may be quoted.
//! IPv4-mapped IPv6 addresses are reported as IPv4.

mod hops;

use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;

use axum::http::HeaderMap;
use axum::http::header::{FORWARDED, HeaderName};
use ipnet::IpNet;

use crate::address;
use hops::{X_FORWARDED_FOR, forwarded_hops, list_hops, single_hop};

/// The header a trusted proxy writes the caller's address into
/// (`--client-ip-header`), parsed once at start.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ClientIpHeader {
    /// `X-Forwarded-For`: a comma-separated list of hops (the default).
    #[default]
    XForwardedFor,
    /// `Forwarded` (RFC 7239): the `for=` node of each element.
    Forwarded,
    /// A header that carries one address: `X-Real-IP`, `CF-Connecting-IP`,
    /// `True-Client-IP`, `Fly-Client-IP`, ...
    Single(HeaderName),
}

/// A `--client-ip-header` value that is not a header name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0:?} is not a valid HTTP header name (letters, digits and !#$%&'*+-.^_`|~ only), \
     e.g. x-forwarded-for, forwarded, x-real-ip or cf-connecting-ip"
)]
pub struct InvalidHeaderName(String);

impl FromStr for ClientIpHeader {
    type Err = InvalidHeaderName;

    /// Any valid header name, case-insensitively.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let name = HeaderName::from_bytes(text.as_bytes())
            .map_err(|_| InvalidHeaderName(text.to_owned()))?;
        Ok(if name == X_FORWARDED_FOR {
            ClientIpHeader::XForwardedFor
        } else if name == FORWARDED {
            ClientIpHeader::Forwarded
        } else {
            ClientIpHeader::Single(name)
        })
    }
}

impl ClientIpHeader {
    /// The header's name.
    pub fn name(&self) -> HeaderName {
        match self {
            ClientIpHeader::XForwardedFor => X_FORWARDED_FOR,
            ClientIpHeader::Forwarded => FORWARDED,
            ClientIpHeader::Single(name) => name.clone(),
        }
    }
}

impl std::fmt::Display for ClientIpHeader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name().as_str())
    }
}

/// The CIDR blocks whose header is believed, and which header that is.
#[derive(Debug, Clone, Default)]
pub struct TrustedProxies {
    nets: Vec<IpNet>,
    header: ClientIpHeader,
}

impl TrustedProxies {
    /// Trust these blocks; read `X-Forwarded-For` from them (see [`Self::reading`]).
    pub fn new(nets: Vec<IpNet>) -> Self {
        TrustedProxies {
            nets,
            header: ClientIpHeader::default(),
        }
    }

    /// Read `header` from the trusted blocks, and no other forwarding header.
    pub fn reading(self, header: ClientIpHeader) -> Self {
        TrustedProxies { header, ..self }
    }

    /// The header read from trusted peers.
    pub fn header(&self) -> &ClientIpHeader {
        &self.header
    }

    /// Whether `ip` lies in a trusted block.
    pub fn contains(&self, ip: IpAddr) -> bool {
        self.nets.iter().any(|net| net.contains(&ip))
    }

    /// True when no proxy is trusted.
    pub fn is_empty(&self) -> bool {
        self.nets.is_empty()
    }
}

/// [`client_addr`] of a request's parts (`None` without the peer's address,
/// which every connection of the server gives).
pub fn caller(parts: &axum::http::request::Parts, trusted: &TrustedProxies) -> Option<IpAddr> {
    let peer = parts
        .extensions
        .get::<axum::extract::ConnectInfo<SocketAddr>>()?
        .0;
    Some(client_addr(peer, &parts.headers, trusted))
}

/// The caller's address for a request that came from `peer` (the rules are in
/// the module documentation). Every use of the caller's address goes through here.
pub fn client_addr(peer: SocketAddr, headers: &HeaderMap, trusted: &TrustedProxies) -> IpAddr {
    let peer = address::canonical(peer.ip());
    if !trusted.contains(peer) {
        return peer;
    }
    match &trusted.header {
        ClientIpHeader::XForwardedFor => walk(peer, list_hops(headers), trusted),
        ClientIpHeader::Forwarded => walk(peer, forwarded_hops(headers).into_iter().rev(), trusted),
        ClientIpHeader::Single(name) => walk(peer, single_hop(headers, name), trusted),
    }
}

/// Walks the hops, nearest first, from a trusted `peer`: the first untrusted
/// address; at an unreadable hop (`None`), the last trusted one; when all are
/// trusted, the last (leftmost) one.
fn walk(
    peer: IpAddr,
    hops: impl IntoIterator<Item = Option<IpAddr>>,
    trusted: &TrustedProxies,
) -> IpAddr {
    let mut client = peer;
    for hop in hops {
        let Some(ip) = hop else {
            return client;
        };
        client = ip;
        if !trusted.contains(ip) {
            break;
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

/// The scheme the nearest proxy names: the last entry of the last
/// `X-Forwarded-Proto` (or `Forwarded`) line, the one that proxy wrote;
/// entries before it came from further out, the client included.
fn forwarded_proto(headers: &HeaderMap) -> Option<String> {
    let last = |name: &str| headers.get_all(name).iter().next_back()?.to_str().ok();
    if let Some(v) = last("x-forwarded-proto") {
        return v.rsplit(',').next().map(|p| p.trim().to_ascii_lowercase());
    }
    let v = last("forwarded")?;
    v.rsplit(',').next()?.split(';').find_map(|pair| {
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

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, v.parse().unwrap());
        }
        h
    }

    /// 10.0.0.0/8 and ::1 trusted, reading `header`.
    fn trusted(header: &str) -> TrustedProxies {
        TrustedProxies::new(vec![
            "10.0.0.0/8".parse().unwrap(),
            "::1/128".parse().unwrap(),
        ])
        .reading(header.parse().unwrap())
    }

    fn peer(s: &str) -> SocketAddr {
        SocketAddr::new(s.parse().unwrap(), 4000)
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    /// The nearest proxy's scheme counts: the last entry of the last line,
    /// not one the client wrote before it.
    #[test]
    fn the_scheme_is_the_one_the_nearest_proxy_wrote() {
        let proto = |pairs: &[(&'static str, &'static str)]| forwarded_proto(&headers(pairs));
        assert_eq!(
            proto(&[("x-forwarded-proto", "https")]).as_deref(),
            Some("https")
        );
        assert_eq!(
            proto(&[("x-forwarded-proto", "https, http")]).as_deref(),
            Some("http")
        );
        let two_lines = [
            ("x-forwarded-proto", "https"),
            ("x-forwarded-proto", "HTTP"),
        ];
        assert_eq!(proto(&two_lines).as_deref(), Some("http"));
        let forwarded = [(
            "forwarded",
            "proto=https;for=1.2.3.4, for=5.6.7.8;proto=http",
        )];
        assert_eq!(proto(&forwarded).as_deref(), Some("http"));
        assert_eq!(proto(&[]), None);
    }

    /// The caller seen through a trusted proxy at 10.0.0.1 reading `header`.
    fn via(header: &str, pairs: &[(&'static str, &'static str)]) -> IpAddr {
        client_addr(peer("10.0.0.1"), &headers(pairs), &trusted(header))
    }

    #[test]
    fn header_names_are_parsed_once_into_the_enum() {
        let parse = |s: &str| s.parse::<ClientIpHeader>();
        assert_eq!(parse("x-forwarded-for"), Ok(ClientIpHeader::XForwardedFor));
        assert_eq!(parse("X-Forwarded-For"), Ok(ClientIpHeader::XForwardedFor));
        assert_eq!(parse("FORWARDED"), Ok(ClientIpHeader::Forwarded));
        for name in [
            "x-real-ip",
            "CF-Connecting-IP",
            "true-client-ip",
            "fly-client-ip",
        ] {
            let h = parse(name).unwrap();
            assert_eq!(
                h,
                ClientIpHeader::Single(HeaderName::from_bytes(name.as_bytes()).unwrap())
            );
            assert_eq!(h.to_string(), name.to_ascii_lowercase());
        }
        assert_eq!(ClientIpHeader::default().to_string(), "x-forwarded-for");
        assert_eq!(parse("forwarded").unwrap().to_string(), "forwarded");
    }

    #[test]
    fn invalid_header_names_are_refused_with_the_name() {
        for bad in [
            "",
            "x forwarded for",
            "x-real-ip:",
            ":authority",
            "x-ré",
            "a\nb",
        ] {
            let err = bad.parse::<ClientIpHeader>().unwrap_err().to_string();
            assert!(err.contains(&format!("{bad:?}")), "{err}");
            assert!(err.contains("not a valid HTTP header name"), "{err}");
        }
    }

    #[test]
    fn untrusted_peer_headers_are_ignored_whatever_the_header() {
        let h = headers(&[
            ("x-forwarded-for", "1.2.3.4"),
            ("forwarded", "for=5.6.7.8"),
            ("x-real-ip", "9.9.9.9"),
            ("cf-connecting-ip", "9.9.9.8"),
        ]);
        for name in [
            "x-forwarded-for",
            "forwarded",
            "x-real-ip",
            "cf-connecting-ip",
        ] {
            assert_eq!(
                client_addr(peer("203.0.113.5"), &h, &trusted(name)),
                ip("203.0.113.5"),
                "{name}"
            );
        }
    }

    #[test]
    fn only_the_named_header_is_read() {
        let all = [
            ("x-forwarded-for", "203.0.113.9"),
            ("forwarded", "for=8.8.8.8"),
            ("x-real-ip", "9.9.9.9"),
            ("cf-connecting-ip", "1.1.1.1"),
        ];
        assert_eq!(via("x-forwarded-for", &all), ip("203.0.113.9"));
        assert_eq!(via("forwarded", &all), ip("8.8.8.8"));
        assert_eq!(via("x-real-ip", &all), ip("9.9.9.9"));
        assert_eq!(via("cf-connecting-ip", &all), ip("1.1.1.1"));
        // The named header missing: the peer, never another header.
        assert_eq!(via("x-forwarded-for", &all[1..]), ip("10.0.0.1"));
        assert_eq!(via("forwarded", &[all[0], all[2]]), ip("10.0.0.1"));
        assert_eq!(via("true-client-ip", &all), ip("10.0.0.1"));
    }

    #[test]
    fn x_forwarded_for_is_walked_right_to_left_over_every_line() {
        let h = [("x-forwarded-for", "6.6.6.6, 8.8.8.8, 10.1.1.1")];
        assert_eq!(via("x-forwarded-for", &h), ip("8.8.8.8"));
        let lines = [
            ("x-forwarded-for", "6.6.6.6"),
            ("x-forwarded-for", "8.8.4.4:1234, 10.2.2.2"),
        ];
        assert_eq!(via("x-forwarded-for", &lines), ip("8.8.4.4"));
        // The second line's entries are the nearest hops.
        let lines = [
            ("x-forwarded-for", "10.3.3.3, 1.1.1.1"),
            ("x-forwarded-for", "10.2.2.2"),
        ];
        assert_eq!(via("x-forwarded-for", &lines), ip("1.1.1.1"));
        // Empty elements and whitespace are skipped.
        let sparse = [("x-forwarded-for", " 6.6.6.6 ,, \t8.8.8.8\t, 10.1.1.1 ,")];
        assert_eq!(via("x-forwarded-for", &sparse), ip("8.8.8.8"));
    }

    #[test]
    fn every_entry_trusted_gives_the_leftmost() {
        let h = [("x-forwarded-for", "10.3.3.3, 10.2.2.2")];
        assert_eq!(via("x-forwarded-for", &h), ip("10.3.3.3"));
        let f = [("forwarded", "for=10.3.3.3, for=\"[::1]:80\"")];
        assert_eq!(via("forwarded", &f), ip("10.3.3.3"));
        assert_eq!(
            via("x-real-ip", &[("x-real-ip", "10.4.4.4")]),
            ip("10.4.4.4")
        );
    }

    #[test]
    fn an_unreadable_entry_stops_the_walk_at_the_last_trusted_hop() {
        let cases = [
            ("1.2.3.4, garbage, 10.2.2.2", "10.2.2.2"),
            ("1.2.3.4, unknown, 10.2.2.2, 10.3.3.3", "10.2.2.2"),
            ("1.2.3.4, 10.2.2.2, example.com", "10.0.0.1"),
            ("8.8.8.8, 1.2.3.4:http", "10.0.0.1"),
            ("8.8.8.8, 1.2.3.4:123456", "10.0.0.1"),
            ("8.8.8.8, [1.2.3.4]", "10.0.0.1"),
            ("8.8.8.8, fe80::1%eth0", "10.0.0.1"),
            ("8.8.8.8, 1.2.3", "10.0.0.1"),
            ("", "10.0.0.1"),
            (" , ", "10.0.0.1"),
        ];
        for (value, want) in cases {
            let mut h = HeaderMap::new();
            h.insert("x-forwarded-for", value.parse().unwrap());
            assert_eq!(
                client_addr(peer("10.0.0.1"), &h, &trusted("x-forwarded-for")),
                ip(want),
                "{value:?}"
            );
        }
        // Bytes that are not UTF-8 make only their own entry unreadable.
        let mut h = HeaderMap::new();
        h.insert(
            "x-forwarded-for",
            HeaderValue::from_bytes(b"\xff\xfe, 8.8.8.8").unwrap(),
        );
        let t = trusted("x-forwarded-for");
        assert_eq!(client_addr(peer("10.0.0.1"), &h, &t), ip("8.8.8.8"));
        h.insert(
            "x-forwarded-for",
            HeaderValue::from_bytes(b"8.8.8.8, \xff\xfe").unwrap(),
        );
        assert_eq!(client_addr(peer("10.0.0.1"), &h, &t), ip("10.0.0.1"));
    }

    #[test]
    fn forwarded_nodes_with_quotes_brackets_ports_and_case() {
        let f = |v: &'static str| via("forwarded", &[("forwarded", v)]);
        assert_eq!(
            f(r#"for=1.1.1.1, for="[2001:db8::7]:4711";proto=https, For=10.0.0.9"#),
            ip("2001:db8::7")
        );
        assert_eq!(f("for=192.0.2.43"), ip("192.0.2.43"));
        assert_eq!(f(r#"for="192.0.2.43:47011""#), ip("192.0.2.43"));
        assert_eq!(f(r#"for="[2001:db8:cafe::17]""#), ip("2001:db8:cafe::17"));
        assert_eq!(f(r#"FOR="[2001:db8::1]:_port-1""#), ip("2001:db8::1"));
        assert_eq!(f("proto=http;for=8.8.8.8;by=10.0.0.1"), ip("8.8.8.8"));
        assert_eq!(f("for = 8.8.8.8 ; proto=http"), ip("8.8.8.8"));
        // Tolerated: unquoted brackets and bare IPv6.
        assert_eq!(f("for=[2001:db8::2]"), ip("2001:db8::2"));
        assert_eq!(f("for=2001:db8::3"), ip("2001:db8::3"));
        // Commas and semicolons inside quoted values split nothing.
        assert_eq!(
            f(r#"for=8.8.8.8;host="a,b;c", for=10.1.1.1;by="x\",y""#),
            ip("8.8.8.8")
        );
        // Two lines are one list, in order.
        let lines = [
            ("forwarded", "for=6.6.6.6"),
            ("forwarded", "for=9.9.9.9, for=10.1.1.1"),
        ];
        assert_eq!(via("forwarded", &lines), ip("9.9.9.9"));
    }

    #[test]
    fn forwarded_elements_that_name_no_address_stop_the_walk() {
        let f = |v: &'static str| via("forwarded", &[("forwarded", v)]);
        // Obfuscated and unknown nodes.
        assert_eq!(f("for=1.1.1.1, for=_hidden, for=10.0.0.9"), ip("10.0.0.9"));
        assert_eq!(f("for=1.1.1.1, for=unknown"), ip("10.0.0.1"));
        // An element without `for`, or with it twice.
        assert_eq!(f("for=1.1.1.1, proto=https"), ip("10.0.0.1"));
        assert_eq!(f("for=8.8.8.8;for=1.1.1.1"), ip("10.0.0.1"));
        // An unterminated quote, an empty port.
        assert_eq!(f(r#"for="8.8.8.8"#), ip("10.0.0.1"));
        assert_eq!(f(r#"for="[2001:db8::1]:""#), ip("10.0.0.1"));
        // Empty elements are skipped, an empty header is no header.
        assert_eq!(f("for=8.8.8.8, , "), ip("8.8.8.8"));
        assert_eq!(f(""), ip("10.0.0.1"));
    }

    #[test]
    fn single_address_headers_hold_exactly_one_address() {
        let c = |pairs: &[(&'static str, &'static str)]| via("cf-connecting-ip", pairs);
        assert_eq!(c(&[("cf-connecting-ip", "8.8.8.8")]), ip("8.8.8.8"));
        assert_eq!(
            c(&[("cf-connecting-ip", " 2001:db8::5 ")]),
            ip("2001:db8::5")
        );
        assert_eq!(
            c(&[("cf-connecting-ip", "[2001:db8::5]:443")]),
            ip("2001:db8::5")
        );
        // Missing or empty: the peer.
        assert_eq!(c(&[]), ip("10.0.0.1"));
        assert_eq!(c(&[("cf-connecting-ip", "")]), ip("10.0.0.1"));
        // A list, or the header twice: unreadable, so the peer.
        assert_eq!(
            c(&[("cf-connecting-ip", "6.6.6.6, 8.8.8.8")]),
            ip("10.0.0.1")
        );
        assert_eq!(
            c(&[
                ("cf-connecting-ip", "6.6.6.6"),
                ("cf-connecting-ip", "8.8.8.8")
            ]),
            ip("10.0.0.1")
        );
        assert_eq!(c(&[("cf-connecting-ip", "garbage")]), ip("10.0.0.1"));
        // X-Real-IP follows the same rule.
        assert_eq!(
            via(
                "x-real-ip",
                &[("x-real-ip", "9.9.9.9"), ("x-real-ip", "1.1.1.1")]
            ),
            ip("10.0.0.1")
        );
    }

    #[test]
    fn mapped_addresses_are_ipv4() {
        let h = headers(&[("x-forwarded-for", "::ffff:8.8.8.8")]);
        let t = trusted("x-forwarded-for");
        assert_eq!(client_addr(peer("::ffff:10.0.0.1"), &h, &t), ip("8.8.8.8"));
        assert_eq!(
            client_addr(peer("::ffff:1.2.3.4"), &headers(&[]), &t),
            ip("1.2.3.4")
        );
        assert_eq!(
            via(
                "forwarded",
                &[("forwarded", r#"for="[::ffff:8.8.4.4]:80""#)]
            ),
            ip("8.8.4.4")
        );
        // A mapped entry is matched against the IPv4 trusted blocks.
        assert_eq!(
            via(
                "x-forwarded-for",
                &[("x-forwarded-for", "1.1.1.1, ::ffff:10.9.9.9")]
            ),
            ip("1.1.1.1")
        );
    }
}
