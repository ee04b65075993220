//! Strict parsing of addresses typed by people and programs, and the
//! canonical form every answer reports.
//!
//! Accepted: dotted-quad IPv4 without leading zeros and colon-hex IPv6
//! (embedded dotted IPv4 allowed). Refused: short forms (`1.2.3`), octal or
//! hex IPv4, whitespace, zone ids (`fe80::1%eth0`), brackets, ports.

use std::net::IpAddr;

/// Why a string is not an address.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{input:?} is not a valid IPv4 or IPv6 address{hint}")]
pub struct AddressError {
    /// The input, cut to 100 characters.
    pub input: String,
    hint: &'static str,
}

/// Parses one address strictly and returns it in canonical form.
pub fn parse(input: &str) -> Result<IpAddr, AddressError> {
    let fail = |hint| {
        let input: String = input.chars().take(100).collect();
        AddressError { input, hint }
    };
    if input.is_empty() {
        return Err(fail(" (empty)"));
    }
    if input.contains('%') {
        return Err(fail(" (zone identifiers are not accepted)"));
    }
    if input.starts_with('[') {
        return Err(fail(" (write IPv6 addresses without brackets)"));
    }
    if input.chars().any(char::is_whitespace) {
        return Err(fail(" (whitespace is not allowed)"));
    }
    // std's parser is already strict: no leading zeros, no octal/hex, four octets.
    input.parse::<IpAddr>().map(canonical).map_err(|_| fail(""))
}

/// Reports IPv4-mapped IPv6 addresses (`::ffff:a.b.c.d`) as IPv4.
pub fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// The family label of the spec: `IPv4` or `IPv6`.
pub fn version(ip: IpAddr) -> &'static str {
    if ip.is_ipv4() { "IPv4" } else { "IPv6" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_canonical_and_long_forms() {
        assert_eq!(parse("8.8.8.8").unwrap().to_string(), "8.8.8.8");
        assert_eq!(
            parse("2001:DB8:0:0:0:0:0:1").unwrap().to_string(),
            "2001:db8::1"
        );
        assert_eq!(parse("::ffff:1.2.3.4").unwrap().to_string(), "1.2.3.4");
        assert_eq!(parse("::ffff:102:304").unwrap().to_string(), "1.2.3.4");
        assert_eq!(parse("::").unwrap().to_string(), "::");
        assert_eq!(
            parse("64:ff9b::1.2.3.4").unwrap().to_string(),
            "64:ff9b::102:304"
        );
    }

    #[test]
    fn refuses_loose_forms() {
        for bad in [
            "",
            "1.2.3",
            "1.2.3.4.5",
            "01.2.3.4",
            "1.2.3.04",
            "0x1.2.3.4",
            "0177.0.0.1",
            "256.1.1.1",
            " 1.2.3.4",
            "1.2.3.4 ",
            "1.2.3.4\n",
            "fe80::1%eth0",
            "[::1]",
            "1.2.3.4:80",
            "::1::",
            "12345::",
            "1:2:3:4:5:6:7:8:9",
            "localhost",
            "1.2.3.-1",
            "+1.2.3.4",
            "1e3.0.0.1",
            "::ffff:01.2.3.4",
            "１.２.３.４",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn error_names_the_input() {
        let e = parse("1.2.3").unwrap_err();
        assert_eq!(
            e.to_string(),
            "\"1.2.3\" is not a valid IPv4 or IPv6 address"
        );
    }
}
