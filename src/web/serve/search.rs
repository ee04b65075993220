//! The lookup form's box (`/?ip=...`), read the way people paste into it:
//! surrounding whitespace and quotes, brackets, a port (`[2001:db8::1]:443`,
//! `1.2.3.4:80`), a URL whose host is an address (`https://1.2.3.4/x`), a
//! CIDR length (`8.8.8.0/24`), an IPv6 zone (`fe80::1%eth0`), and AS numbers
//! (`AS15169`, `as15169`, `ASN 15169`, or bare digits `15169`: nobody types an
//! address as one integer) all go where the person meant; so do a prefix
//! without host bits (`8.8.8.0/24`: its prefix page) and a country, by
//! code or name in English or Bangla (`BD`, `Bangladesh`, `বাংলাদেশ`: its
//! country page). What is left is
//! parsed as strictly as the API parses (`lookup::parse`). An input it
//! cannot use gets the reason in words and a suggestion ([`Unusable`]).

use std::net::IpAddr;

use ipnet::IpNet;

use crate::geo::countries::CountryTable;
use crate::lookup::{self, asn::parse_asn, network::parse_prefix};
use crate::model::ErrorCode;

/// The most characters of an input that are read: far past any address,
/// URL of an address or AS number.
const MOST: usize = 300;

/// Where an input leads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// The page of this address, `/{ip}`.
    Address(IpAddr),
    /// The page of this AS, `/AS{asn}`.
    Asn(u32),
    /// The page of this prefix, `/{network}/{length}`.
    Prefix(IpNet),
    /// The page of this country (its code), `/country/{cc}`.
    Country(&'static str),
}

impl Target {
    /// The path of the page.
    pub(crate) fn path(self) -> String {
        match self {
            Target::Address(ip) => format!("/{}", crate::address::text(ip)),
            Target::Asn(asn) => format!("/AS{asn}"),
            Target::Prefix(net) => format!("/{}", crate::address::net_text(&net)),
            Target::Country(code) => format!("/country/{code}"),
        }
    }
}

/// Why an input leads nowhere, in words, each with what to try instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Unusable {
    #[error(
        "That is longer than any address or AS number (over 300 characters). Paste only the address, such as 8.8.8.8, or the AS number, such as AS15169."
    )]
    TooLong,
    #[error(
        "{0:?} is a host name, and this service looks up addresses, not names. Find its address with `dig +short {0}` (or `nslookup {0}`), then look that address up."
    )]
    HostName(String),
    #[error(
        "{0:?} is not an AS number: AS numbers go from 0 to 4294967295. Check the digits, as in AS15169."
    )]
    AsnTooLarge(String),
    #[error(
        "{input:?} is not an IPv4 or IPv6 address{why}. An address looks like 8.8.8.8 or 2001:4860:4860::8888, an AS number like AS15169."
    )]
    NotAnAddress { input: String, why: Why },
}

/// The usual mistake in text that is not an address, when one is seen
/// (shown in parentheses after "is not an IPv4 or IPv6 address").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Why {
    /// Nothing in particular.
    Unknown,
    /// `1.2.3.4:99999`.
    Port,
    /// A colon in it, but not an IPv6 address.
    Ipv6Groups,
    /// Digits and dots, but not four numbers.
    FourNumbers,
    /// `1.2.3.010`.
    LeadingZero,
    /// `1.2.3.256`.
    Over255,
}

impl std::fmt::Display for Why {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Why::Unknown => "",
            Why::Port => " (a port after the address is a number from 1 to 65535)",
            Why::Ipv6Groups => {
                " (an IPv6 address has up to eight groups of one to four hex digits, separated by colons, with at most one ::)"
            }
            Why::FourNumbers => " (an IPv4 address has four numbers separated by dots)",
            Why::LeadingZero => {
                " (numbers with a leading zero, such as 010, are refused: some programs read them as octal)"
            }
            Why::Over255 => " (each of the four numbers is at most 255)",
        })
    }
}

impl Unusable {
    /// The error code of the answer (400 either way).
    pub(crate) fn code(&self) -> ErrorCode {
        match self {
            Unusable::AsnTooLarge(_) => ErrorCode::InvalidAsn,
            _ => ErrorCode::InvalidIp,
        }
    }
}

/// Where the text of the lookup form leads.
pub(crate) fn read(raw: &str) -> Result<Target, Unusable> {
    if raw.chars().count() > MOST {
        return Err(Unusable::TooLong);
    }
    let text = unwrap(raw);
    if let Some(asn) = asn(text) {
        return asn;
    }
    // A prefix as it is written (host bits set: the address's page).
    if let Ok(net) = parse_prefix(text) {
        return Ok(Target::Prefix(net));
    }
    if let Some(code) = country(text) {
        return Ok(Target::Country(code));
    }
    let host = host(text);
    if let Ok(ip) = lookup::parse(host) {
        return Ok(Target::Address(ip));
    }
    // An IPv6 zone (`fe80::1%eth0`): the address without it.
    if let Some((addr, _zone)) = host.split_once('%') {
        if let Ok(ip @ IpAddr::V6(_)) = lookup::parse(addr) {
            return Ok(Target::Address(ip));
        }
    }
    Err(refusal(text, host))
}

/// The text without surrounding whitespace and one pair of surrounding
/// quotes or angle brackets (`"8.8.8.8"`, `<8.8.8.8>`).
fn unwrap(raw: &str) -> &str {
    let text = raw.trim();
    for (open, close) in [('"', '"'), ('\'', '\''), ('`', '`'), ('<', '>'), ('“', '”')] {
        if let Some(inner) = text.strip_prefix(open).and_then(|t| t.strip_suffix(close)) {
            return inner.trim();
        }
    }
    text
}

/// An AS number: `AS15169`, `as15169`, `ASN15169`, `AS 15169`, `AS-15169`
/// or bare digits; `None` for text that is not digits after such a prefix.
fn asn(text: &str) -> Option<Result<Target, Unusable>> {
    let lower = text.get(..3).map(str::to_ascii_lowercase);
    let rest = match lower.as_deref() {
        Some("asn") => &text[3..],
        _ if text.get(..2).is_some_and(|p| p.eq_ignore_ascii_case("as")) => &text[2..],
        _ => text,
    };
    let digits = rest.trim_start_matches([' ', '-', ':', '#']);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(
        parse_asn(digits)
            .map(Target::Asn)
            .map_err(|_| Unusable::AsnTooLarge(cut(text))),
    )
}

/// A country's code for its code in any case (`BD`, `bd`) or its name in
/// English (any case) or Bangla.
fn country(text: &str) -> Option<&'static str> {
    let table = CountryTable::embedded().ok()?;
    if text.len() == 2 {
        return table
            .get(&text.to_ascii_uppercase())
            .map(|c| c.code.as_str());
    }
    let folded = text.to_lowercase();
    table
        .iter()
        .find(|c| c.name.to_lowercase() == folded || c.name_bn.as_deref() == Some(text))
        .map(|c| c.code.as_str())
}

/// The host part of what was pasted: a URL's authority without user info,
/// then without brackets, a port or a CIDR length.
fn host(text: &str) -> &str {
    let mut host = text;
    if let Some((_scheme, rest)) = host.split_once("://") {
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        host = &rest[..end];
        host = host.rsplit_once('@').map_or(host, |(_user, h)| h);
    }
    if let Some(inner) = host.strip_prefix('[') {
        // `[v6]`, `[v6]:port`.
        if let Some((v6, after)) = inner.split_once(']') {
            if after.is_empty() || port(after.strip_prefix(':').unwrap_or("x")) {
                return v6;
            }
        }
        return host;
    }
    // `1.2.3.4:80`: one colon, an IPv4 address before it, a port after.
    if let Some((v4, p)) = host.split_once(':') {
        if !p.contains(':') && port(p) && v4.contains('.') {
            return v4;
        }
    }
    // `8.8.8.0/24`, `2001:db8::/32`: the address of the block.
    if let Some((addr, len)) = host.split_once('/') {
        let bits: u8 = if addr.contains(':') { 128 } else { 32 };
        if len.parse::<u8>().is_ok_and(|l| l <= bits) && !len.starts_with('+') {
            return addr;
        }
    }
    host
}

/// 1 to 5 digits, a number from 1 to 65535 (port 0 names no service).
fn port(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 5
        && text.bytes().all(|b| b.is_ascii_digit())
        && text.parse::<u32>().is_ok_and(|p| (1..=65535).contains(&p))
}

/// The error for text that is neither an address nor an AS number, naming
/// the usual mistake.
fn refusal(text: &str, host: &str) -> Unusable {
    let is_name = host.contains('.')
        && host.bytes().any(|b| b.is_ascii_alphabetic())
        && host
            .split('.')
            .all(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
        && !host
            .rsplit('.')
            .next()
            .is_some_and(|tld| tld.bytes().all(|b| b.is_ascii_digit()));
    if is_name {
        return Unusable::HostName(cut(host));
    }
    let why = if host.matches(':').count() == 1 && host.contains('.') {
        Why::Port
    } else if host.contains(':') {
        Why::Ipv6Groups
    } else if host.split('.').count() != 4 && host.bytes().all(|b| b.is_ascii_digit() || b == b'.')
    {
        Why::FourNumbers
    } else if host
        .split('.')
        .any(|n| n.len() > 1 && n.starts_with('0') && n.bytes().all(|b| b.is_ascii_digit()))
    {
        Why::LeadingZero
    } else if host
        .split('.')
        .any(|n| n.bytes().all(|b| b.is_ascii_digit()) && n.parse::<u32>().is_ok_and(|v| v > 255))
    {
        Why::Over255
    } else {
        Why::Unknown
    };
    Unusable::NotAnAddress {
        input: cut(text),
        why,
    }
}

/// The input as an error names it: at most 100 characters.
fn cut(text: &str) -> String {
    text.chars().take(100).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(input: &str) -> String {
        read(input)
            .map(Target::path)
            .unwrap_or_else(|e| panic!("{input:?}: {e}"))
    }

    #[test]
    fn what_people_paste_goes_where_they_meant() {
        for (input, want) in [
            ("8.8.8.8", "/8.8.8.8"),
            (" 8.8.8.8 ", "/8.8.8.8"),
            ("\t8.8.8.8\n", "/8.8.8.8"),
            ("\u{a0}8.8.8.8\u{a0}", "/8.8.8.8"),
            ("\"8.8.8.8\"", "/8.8.8.8"),
            ("<8.8.8.8>", "/8.8.8.8"),
            ("1.2.3.4:80", "/1.2.3.4"),
            ("[2001:db8::1]:443", "/2001:db8::1"),
            ("[2001:db8::1]", "/2001:db8::1"),
            ("[::ffff:1.2.3.4]:80", "/1.2.3.4"),
            ("https://1.2.3.4/x", "/1.2.3.4"),
            ("http://1.2.3.4:8080/a?b=c#d", "/1.2.3.4"),
            ("http://user:pw@[2001:db8::1]:8443/", "/2001:db8::1"),
            ("https://[2001:4860:4860::8888]", "/2001:4860:4860::8888"),
            ("8.8.8.0/24", "/8.8.8.0/24"),
            ("2001:db8::/32", "/2001:db8::/32"),
            ("8.8.8.8/24", "/8.8.8.8"),
            ("BD", "/country/BD"),
            ("bd", "/country/BD"),
            ("Bangladesh", "/country/BD"),
            ("bangladesh", "/country/BD"),
            ("বাংলাদেশ", "/country/BD"),
            ("United States", "/country/US"),
            ("fe80::1%eth0", "/fe80::1"),
            ("2001:4860:4860:0:0:0:0:8888", "/2001:4860:4860::8888"),
            ("AS15169", "/AS15169"),
            ("as15169", "/AS15169"),
            (" As15169 ", "/AS15169"),
            ("AS 15169", "/AS15169"),
            ("ASN15169", "/AS15169"),
            ("asn 15169", "/AS15169"),
            ("AS-15169", "/AS15169"),
            ("15169", "/AS15169"),
            ("0", "/AS0"),
            ("4294967295", "/AS4294967295"),
        ] {
            assert_eq!(path(input), want, "{input:?}");
        }
    }

    #[test]
    fn unusable_inputs_say_why_and_what_to_try() {
        let err = |input: &str| read(input).unwrap_err();
        assert!(matches!(err("google.com"), Unusable::HostName(h) if h == "google.com"));
        assert!(
            matches!(err("https://example.com/x"), Unusable::HostName(h) if h == "example.com")
        );
        assert!(
            err("dns.google")
                .to_string()
                .contains("dig +short dns.google")
        );
        assert_eq!(err("AS4294967296").code(), ErrorCode::InvalidAsn);
        assert_eq!(err("99999999999").code(), ErrorCode::InvalidAsn);
        assert_eq!(err(&"1".repeat(400)), Unusable::TooLong);
        for (input, why) in [
            ("1.2.3", "four numbers"),
            ("1.2.3.256", "at most 255"),
            ("1.2.3.010", "leading zero"),
            ("2001:db8:::1", "eight groups"),
            ("1.2.3.4:99999", "65535"),
            ("hello", ""),
            ("8.8.8.8/33", ""),
        ] {
            let e = err(input);
            assert_eq!(e.code(), ErrorCode::InvalidIp, "{input}");
            let text = e.to_string();
            assert!(text.contains(why), "{input}: {text}");
            assert!(
                text.contains("such as") || text.contains("looks like"),
                "{input}: {text}"
            );
        }
        // The input is named cut to 100 characters.
        let long = format!("{}x", "a".repeat(250));
        assert!(err(&long).to_string().len() < 300);
    }
}
