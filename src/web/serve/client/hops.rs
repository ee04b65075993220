//! Reading the forwarding headers a trusted proxy writes: the hops of
//! `X-Forwarded-For` and `Forwarded`, and the one address of a single-address
//! header (`X-Real-IP`, `CF-Connecting-IP`, ...), each hop an address or
//! `None` when it is not one. Which hop is the caller is [`super::client_addr`]'s
//! to decide.

use std::net::{IpAddr, Ipv6Addr};

use axum::http::header::{FORWARDED, HeaderName};
use axum::http::{HeaderMap, HeaderValue};

use crate::address;

/// `X-Forwarded-For`, the default header.
pub(super) const X_FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");

/// The hops of `X-Forwarded-For`, nearest first: every line right to left,
/// each line's comma-separated entries right to left, empty ones skipped.
pub(super) fn list_hops(headers: &HeaderMap) -> impl Iterator<Item = Option<IpAddr>> + '_ {
    headers
        .get_all(X_FORWARDED_FOR)
        .iter()
        .rev()
        .flat_map(|line| line.as_bytes().rsplit(|b| *b == b','))
        .map(trim)
        .filter(|entry| !entry.is_empty())
        .map(node)
}

/// The `for=` nodes of every `Forwarded` element, oldest first.
pub(super) fn forwarded_hops(headers: &HeaderMap) -> Vec<Option<IpAddr>> {
    headers
        .get_all(FORWARDED)
        .iter()
        .flat_map(|line| Unquoted::new(line.as_bytes(), b','))
        .map(trim)
        .filter(|element| !element.is_empty())
        .map(forwarded_for)
        .collect()
}

/// The one address of a single-address header: no hop when it is missing,
/// an unreadable hop when it is repeated or holds a list.
pub(super) fn single_hop(headers: &HeaderMap, name: &HeaderName) -> Option<Option<IpAddr>> {
    let mut lines = headers.get_all(name).iter();
    let line = lines.next()?;
    if lines.next().is_some() {
        return Some(None);
    }
    Some(one_address(line))
}

/// A line that holds exactly one address (and no list).
fn one_address(line: &HeaderValue) -> Option<IpAddr> {
    let text = trim(line.as_bytes());
    if text.contains(&b',') {
        return None;
    }
    node(text)
}

/// The `for=` node of one `Forwarded` element (RFC 7239): `None` when the
/// element has no `for`, has it twice, or its node is not an address.
fn forwarded_for(element: &[u8]) -> Option<IpAddr> {
    let mut nodes = Unquoted::new(element, b';').filter_map(|pair| {
        let eq = pair.iter().position(|b| *b == b'=')?;
        let (key, value) = (trim(&pair[..eq]), trim(&pair[eq + 1..]));
        key.eq_ignore_ascii_case(b"for").then_some(value)
    });
    let value = nodes.next()?;
    if nodes.next().is_some() {
        return None;
    }
    node(&unquote(value)?)
}

/// A `token` or `quoted-string` value without its quotes and escapes;
/// `None` for an unterminated quote.
fn unquote(value: &[u8]) -> Option<Vec<u8>> {
    let Some(inner) = value.strip_prefix(b"\"") else {
        return Some(value.to_vec());
    };
    let inner = inner.strip_suffix(b"\"")?;
    let mut out = Vec::with_capacity(inner.len());
    let mut bytes = inner.iter();
    while let Some(&b) = bytes.next() {
        out.push(if b == b'\\' { *bytes.next()? } else { b });
    }
    Some(out)
}

/// One node: `1.2.3.4`, `1.2.3.4:80`, `2001:db8::1`, `[2001:db8::1]`,
/// `[2001:db8::1]:443` (ports may be RFC 7239 `_obfport`s); `None` otherwise.
fn node(text: &[u8]) -> Option<IpAddr> {
    let text = std::str::from_utf8(text).ok()?;
    let ip = if let Some(rest) = text.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        if !after.is_empty() && !is_port(after.strip_prefix(':')?) {
            return None;
        }
        IpAddr::V6(host.parse::<Ipv6Addr>().ok()?)
    } else if let Some((host, port)) = text.split_once(':').filter(|(_, p)| !p.contains(':')) {
        if !is_port(port) {
            return None;
        }
        IpAddr::V4(host.parse().ok()?)
    } else {
        text.parse().ok()?
    };
    Some(address::canonical(ip))
}

/// `1*5DIGIT` or an obfuscated port (`_` and letters, digits, `.`, `_`, `-`).
fn is_port(p: &str) -> bool {
    let digits = (1..=5).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit());
    let obfuscated = p.len() > 1
        && p.starts_with('_')
        && p.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
    digits || obfuscated
}

/// Without surrounding spaces and tabs (HTTP's optional whitespace).
fn trim(bytes: &[u8]) -> &[u8] {
    let is_ows = |b: &u8| *b == b' ' || *b == b'\t';
    let start = bytes.iter().position(|b| !is_ows(b)).unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !is_ows(b))
        .map_or(start, |i| i + 1);
    &bytes[start..end]
}

/// The pieces of `text` between the delimiters that lie outside quoted strings.
struct Unquoted<'a> {
    rest: Option<&'a [u8]>,
    delimiter: u8,
}

impl<'a> Unquoted<'a> {
    fn new(text: &'a [u8], delimiter: u8) -> Self {
        Unquoted {
            rest: Some(text),
            delimiter,
        }
    }
}

impl<'a> Iterator for Unquoted<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let text = self.rest?;
        let (mut quoted, mut escaped) = (false, false);
        for (i, &b) in text.iter().enumerate() {
            match b {
                _ if escaped => escaped = false,
                b'\\' if quoted => escaped = true,
                b'"' => quoted = !quoted,
                _ if b == self.delimiter && !quoted => {
                    self.rest = Some(&text[i + 1..]);
                    return Some(&text[..i]);
                }
                _ => {}
            }
        }
        self.rest = None;
        Some(text)
    }
}
