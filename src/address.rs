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

/// The text of `ip`, exactly as its `Display` writes it (RFC 5952 for IPv6:
/// lower-case hex, the first longest run of two or more zero groups as `::`),
/// without the formatting machinery: this runs for every lookup, twice.
pub fn text(ip: IpAddr) -> String {
    let mut out = String::with_capacity(48);
    push_text(&mut out, ip);
    out
}

/// The text of a CIDR block, as `ipnet`'s `Display` writes it: `{addr}/{len}`.
pub fn net_text(net: &ipnet::IpNet) -> String {
    let mut out = String::with_capacity(52);
    push_text(&mut out, net.addr());
    out.push('/');
    push_decimal(&mut out, u32::from(net.prefix_len()));
    out
}

fn push_text(out: &mut String, ip: IpAddr) {
    match ip {
        IpAddr::V4(v4) => push_v4(out, v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                out.push_str("::ffff:");
                push_v4(out, v4);
                return;
            }
            let groups = v6.segments();
            // The first longest run of zero groups, if at least two long.
            let (mut best_at, mut best_len) = (0, 0);
            let mut i = 0;
            while i < 8 {
                if groups[i] == 0 {
                    let start = i;
                    while i < 8 && groups[i] == 0 {
                        i += 1;
                    }
                    if i - start > best_len {
                        (best_at, best_len) = (start, i - start);
                    }
                } else {
                    i += 1;
                }
            }
            if best_len > 1 {
                push_groups(out, &groups[..best_at]);
                out.push_str("::");
                push_groups(out, &groups[best_at + best_len..]);
            } else {
                push_groups(out, &groups);
            }
        }
    }
}

fn push_v4(out: &mut String, v4: std::net::Ipv4Addr) {
    for (i, octet) in v4.octets().into_iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        push_decimal(out, u32::from(octet));
    }
}

fn push_groups(out: &mut String, groups: &[u16]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for (i, &g) in groups.iter().enumerate() {
        if i > 0 {
            out.push(':');
        }
        let mut started = false;
        for shift in [12, 8, 4, 0] {
            let digit = usize::from((g >> shift) & 0xf);
            if started || digit != 0 || shift == 0 {
                out.push(char::from(HEX[digit]));
                started = true;
            }
        }
    }
}

fn push_decimal(out: &mut String, n: u32) {
    if n >= 100 {
        out.push(char::from(b'0' + (n / 100 % 10) as u8));
    }
    if n >= 10 {
        out.push(char::from(b'0' + (n / 10 % 10) as u8));
    }
    out.push(char::from(b'0' + (n % 10) as u8));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_what_display_writes() {
        use rand::Rng;
        let mut rng = rand::rng();
        let check = |ip: IpAddr| assert_eq!(text(ip), ip.to_string(), "{ip:?}");
        for s in [
            "0.0.0.0",
            "255.255.255.255",
            "8.8.8.8",
            "10.0.100.9",
            "::",
            "::1",
            "1::",
            "::ffff:1.2.3.4",
            "::1.2.3.4",
            "1:0:0:2:0:0:0:3",
            "1:0:0:0:2:0:0:3",
            "1:0:2:0:3:0:4:0",
            "0:0:1:0:0:1:0:0",
            "2001:db8::ff00:42:8329",
            "fe80::1",
            "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
            "64:ff9b::1.2.3.4",
        ] {
            check(s.parse().unwrap());
        }
        for _ in 0..200_000 {
            let mut g: [u16; 8] = rng.random();
            // Plenty of zero groups, in runs of every length.
            for x in g.iter_mut() {
                if rng.random_bool(0.5) {
                    *x = 0;
                } else if rng.random_bool(0.3) {
                    *x &= 0xf;
                }
            }
            check(IpAddr::from(g));
            check(IpAddr::from(rng.random::<[u8; 4]>()));
        }
        for len in [0, 7, 24, 32] {
            let net = ipnet::IpNet::new("192.0.2.1".parse().unwrap(), len).unwrap();
            assert_eq!(net_text(&net), net.to_string());
        }
        for len in [0, 48, 64, 128] {
            let net = ipnet::IpNet::new("2001:db8::1".parse().unwrap(), len).unwrap();
            assert_eq!(net_text(&net), net.to_string());
        }
    }

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
