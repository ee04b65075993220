//! The `Host` check of every request ([`crate::web::common`]), on the header's
//! bytes: one pass, no parse into an `Authority`, no allocation.
//!
//! A `Host` is accepted when it is empty, or `host[:port]` with
//! - `host` a name or IPv4 address: any of the characters RFC 3986 allows in
//!   a `reg-name` without percent-encoding (letters, digits, `-._~` and the
//!   sub-delimiters `!$&'()*+,;=`), possibly none; or an IPv6 address in
//!   brackets (only hex digits, `:` and `.`, at most eight colons, and
//!   parsed as an address), so no zone id (`[fe80::1%25eth0]`), no
//!   `IPvFuture`;
//! - `port` digits whose value fits in 16 bits.
//!
//! Everything `http::uri::Authority` refused before is still refused (user
//! information, `/`, `?`, `#`, `%`, spaces, other bytes, unbalanced or
//! doubled brackets, a port over 65535 or with a second colon); a few forms
//! it let through are now refused too: brackets inside a name (`a[b]`), an
//! IP literal with other characters (a zone id), a port with a sign (`+80`).

/// Whether each byte may appear in a name (RFC 3986 `unreserved` and
/// `sub-delims`).
const NAME: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'-' | b'.'
                    | b'_'
                    | b'~'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
            );
        b += 1;
    }
    table
};

/// Most colons in an IP literal (as `http` allowed: eight groups need seven,
/// `::` one more).
const MAX_COLONS: usize = 8;

/// Whether a non-empty `Host` value is a `host[:port]` (see the module
/// documentation; the empty value is the caller's decision).
pub(crate) fn is_host_and_port(value: &[u8]) -> bool {
    let rest = match value.first() {
        Some(b'[') => {
            let Some(close) = value.iter().position(|&b| b == b']') else {
                return false;
            };
            let literal = &value[1..close];
            let mut colons = 0;
            for &b in literal {
                match b {
                    b':' => colons += 1,
                    b'.' => {}
                    _ if b.is_ascii_hexdigit() => {}
                    _ => return false,
                }
            }
            if literal.is_empty() || colons > MAX_COLONS {
                return false;
            }
            // An IPv6 address, as the check this replaces required
            // (`[1.2.3.4]` and `[a:]` are hex, colons and dots, but no
            // address).
            let address = std::str::from_utf8(literal).ok();
            if address
                .and_then(|a| a.parse::<std::net::Ipv6Addr>().ok())
                .is_none()
            {
                return false;
            }
            &value[close + 1..]
        }
        _ => {
            let end = value
                .iter()
                .position(|&b| !NAME[usize::from(b)])
                .unwrap_or(value.len());
            &value[end..]
        }
    };
    match rest {
        [] => true,
        [b':', port @ ..] => port_fits(port),
        _ => false,
    }
}

/// Digits (at least one) of a number up to 65535; leading zeros allowed, as
/// `u16::from_str` allows them.
fn port_fits(port: &[u8]) -> bool {
    let mut value: u32 = 0;
    for &b in port {
        if !b.is_ascii_digit() {
            return false;
        }
        value = value * 10 + u32::from(b - b'0');
        if value > u32::from(u16::MAX) {
            return false;
        }
    }
    !port.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The check this module replaces: `http`'s `Authority`, an IPv6
    /// literal without a zone id, then no `@` and a port that fits.
    fn by_authority(host: &str) -> bool {
        let Ok(authority) = host.parse::<axum::http::uri::Authority>() else {
            return false;
        };
        if let Some(literal) = authority.host().strip_prefix('[') {
            let address = literal.strip_suffix(']');
            if address
                .and_then(|a| a.parse::<std::net::Ipv6Addr>().ok())
                .is_none()
            {
                return false;
            }
        }
        let Some(rest) = authority.as_str().get(authority.host().len()..) else {
            return false;
        };
        let port_fits = rest.is_empty()
            || rest
                .strip_prefix(':')
                .is_some_and(|p| p.parse::<u16>().is_ok());
        port_fits && !authority.as_str().contains('@')
    }

    #[test]
    fn hosts_with_and_without_ports() {
        for host in [
            "example.com",
            "example.com:8080",
            "EXAMPLE.com:0",
            "localhost:65535",
            "localhost:00080",
            "127.0.0.1",
            "127.0.0.1:80",
            "[::1]",
            "[::1]:8080",
            "[2001:db8::1]",
            "[::ffff:1.2.3.4]:443",
            "[1:2:3:4:5:6:7:8]",
            "[::1:2:3:4:5:6:7]",
            "a-b_c~d.e",
            "x!$&'()*+,;=",
            ":80",
        ] {
            assert!(is_host_and_port(host.as_bytes()), "{host}");
            assert!(by_authority(host), "{host} (before)");
        }
    }

    #[test]
    fn what_the_authority_parse_refused_is_refused() {
        for host in [
            "a b",
            "good.example:99999",
            "good.example:65536",
            "user@good.example",
            "user:pw@good.example:80",
            "a/b",
            "a?b",
            "a#b",
            "a%20b",
            "example.com:",
            "example.com:80:90",
            "example.com:8o",
            "[::1",
            "::1]",
            "[::1]]",
            "[[::1]]",
            "[::1]x",
            "[::1]:",
            "[::1]:99999",
            "[1:2:3:4:5:6:7:8:9:0]",
            "é.example",
            "a\tb",
            "a\"b",
            "a<b>",
            "a\\b",
            "a{b}",
            "a|b",
            "a^b",
            "a`b",
        ] {
            assert!(!is_host_and_port(host.as_bytes()), "{host}");
            assert!(!by_authority(host), "{host} (before)");
        }
        for bytes in [&b"\xff"[..], b"a\x00b", b"a\x7fb", b"a\r\nb"] {
            assert!(!is_host_and_port(bytes), "{bytes:?}");
        }
    }

    #[test]
    fn stricter_than_the_authority_parse() {
        // Zone ids, IPvFuture and other non-hex literals, brackets in a
        // name, a signed port, an empty literal.
        for host in [
            "[fe80::1%25eth0]",
            "[fe80::1%eth0]:80",
            "[v1.x]",
            "[::g]",
            "[]",
            "[1.2.3.4]",
            "[a:]",
            "a[b]",
            "example.com:+80",
        ] {
            assert!(!is_host_and_port(host.as_bytes()), "{host}");
        }
    }

    /// Every string of up to four characters over an alphabet of the
    /// interesting bytes: the new check accepts nothing the old one refused.
    #[test]
    fn accepts_nothing_the_authority_parse_refused() {
        let alphabet = b"a1:[].@%/+f ";
        let mut accepted = 0;
        let mut stack: Vec<Vec<u8>> = vec![Vec::new()];
        while let Some(s) = stack.pop() {
            if !s.is_empty() {
                let text = std::str::from_utf8(&s).unwrap();
                if is_host_and_port(&s) {
                    accepted += 1;
                    assert!(by_authority(text), "{text:?} accepted, refused before");
                } else if by_authority(text) {
                    // Refused now, accepted before: only the stricter forms.
                    assert!(
                        text.contains(['[', ']', '+']),
                        "{text:?} refused, accepted before"
                    );
                }
            }
            if s.len() < 4 {
                for &c in alphabet {
                    let mut next = s.clone();
                    next.push(c);
                    stack.push(next);
                }
            }
        }
        assert!(accepted > 500, "{accepted}");
    }
}
