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
///
/// Accepts exactly what `IpAddr::from_str` accepts (std's parser is already
/// strict: no leading zeros, no octal or hex IPv4, four octets), with a
/// byte-level parser of its own: std's tries an embedded IPv4 address at
/// every IPv6 group and cost several times as many instructions.
pub fn parse(input: &str) -> Result<IpAddr, AddressError> {
    match parse_bytes(input.as_bytes()) {
        Some(ip) => Ok(canonical(ip)),
        None => Err(refusal(input)),
    }
}

/// The error for an input [`parse_bytes`] refused, with a hint for the
/// usual mistakes (checked only here, off the path of a valid address).
fn refusal(input: &str) -> AddressError {
    let hint = if input.is_empty() {
        " (empty)"
    } else if input.contains('%') {
        " (zone identifiers are not accepted)"
    } else if input.starts_with('[') {
        " (write IPv6 addresses without brackets)"
    } else if input.chars().any(char::is_whitespace) {
        " (whitespace is not allowed)"
    } else {
        ""
    };
    AddressError {
        input: input.chars().take(100).collect(),
        hint,
    }
}

/// `IpAddr::from_str`, byte for byte: IPv6 when the input has a colon
/// (an IPv4 address never does, an IPv6 address always does).
fn parse_bytes(b: &[u8]) -> Option<IpAddr> {
    if b.contains(&b':') {
        parse_v6(b).map(IpAddr::from)
    } else {
        let mut at = 0;
        let octets = read_v4(b, &mut at)?;
        (at == b.len()).then(|| IpAddr::from(octets))
    }
}

/// Reads a run of digits of `radix` (10 or 16) at `at`: its value and its
/// length, the length counted to the end of the run (a value too long for
/// `u32` is never used: callers refuse runs longer than 3 or 4 digits).
fn read_digits(b: &[u8], at: usize, radix: u32) -> (u32, usize) {
    let (mut value, mut len) = (0u32, 0);
    while let Some(&c) = b.get(at + len) {
        let d = u32::from(DIGITS[usize::from(c)]);
        if d >= radix {
            break;
        }
        value = value.wrapping_mul(radix).wrapping_add(d);
        len += 1;
    }
    (value, len)
}

/// The value of each byte as a hex digit (either case), 0xff if it is none.
pub(crate) const DIGITS: [u8; 256] = {
    let mut table = [0xff; 256];
    let mut i = 0;
    while i < 10 {
        table[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        table[b'a' as usize + i] = 10 + i as u8;
        table[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    table
};

/// A dotted-quad IPv4 address starting at `at` (std's `read_ipv4_addr`):
/// four decimal octets of one to three digits, no leading zero, at most 255,
/// separated by dots. Moves `at` past it; leaves it alone when there is none.
fn read_v4(b: &[u8], at: &mut usize) -> Option<[u8; 4]> {
    let mut p = *at;
    let mut octets = [0u8; 4];
    for (i, octet) in octets.iter_mut().enumerate() {
        if i > 0 {
            if b.get(p) != Some(&b'.') {
                return None;
            }
            p += 1;
        }
        let (value, len) = read_digits(b, p, 10);
        let leading_zero = len > 1 && b[p] == b'0';
        if len == 0 || len > 3 || leading_zero || value > 255 {
            return None;
        }
        *octet = value as u8;
        p += len;
    }
    *at = p;
    Some(octets)
}

/// An IPv6 address filling all of `b` (std's `read_ipv6_addr`): groups
/// before `::`, then the groups after it.
fn parse_v6(b: &[u8]) -> Option<[u16; 8]> {
    let dotted = b.contains(&b'.');
    let mut at = 0;
    let mut head = [0u16; 8];
    let (head_len, head_v4) = read_groups(b, &mut at, &mut head, dotted);
    if head_len == 8 {
        return (at == b.len()).then_some(head);
    }
    // An embedded IPv4 address may only end the address.
    if head_v4 || b.get(at..at + 2) != Some(b"::") {
        return None;
    }
    at += 2;
    // `::` stands for at least one zero group.
    let mut tail = [0u16; 7];
    let tail_len = read_groups(b, &mut at, &mut tail[..7 - head_len], dotted).0;
    head[8 - tail_len..].copy_from_slice(&tail[..tail_len]);
    (at == b.len()).then_some(head)
}

/// Colon-separated groups of one to four hex digits into `groups`, the last
/// two of which may be an embedded IPv4 address (tried only when the input
/// has a dot at all): how many were read, and whether IPv4 ended them.
/// Stops before the separator of a group it cannot read.
fn read_groups(b: &[u8], at: &mut usize, groups: &mut [u16], dotted: bool) -> (usize, bool) {
    let limit = groups.len();
    for i in 0..limit {
        let mut p = *at;
        if i > 0 {
            if b.get(p) != Some(&b':') {
                return (i, false);
            }
            p += 1;
        }
        if dotted && i + 1 < limit {
            if let Some([a, b1, c, d]) = read_v4(b, &mut p) {
                groups[i] = u16::from_be_bytes([a, b1]);
                groups[i + 1] = u16::from_be_bytes([c, d]);
                *at = p;
                return (i + 2, true);
            }
        }
        let (value, len) = read_digits(b, p, 16);
        if len == 0 || len > 4 {
            return (i, false);
        }
        groups[i] = value as u16;
        *at = p + len;
    }
    (limit, false)
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

/// Start and length of the first longest run of zero groups (length 0:
/// none): what RFC 5952 writes as `::` when it is at least two long.
pub fn zero_run(groups: &[u16; 8]) -> (usize, usize) {
    let (mut best_at, mut best_len) = (0, 0);
    let (mut run_at, mut run_len) = (0, 0);
    for (i, &g) in groups.iter().enumerate() {
        if g == 0 {
            if run_len == 0 {
                run_at = i;
            }
            run_len += 1;
            if run_len > best_len {
                (best_at, best_len) = (run_at, run_len);
            }
        } else {
            run_len = 0;
        }
    }
    (best_at, best_len)
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
    push_net_text(&mut out, net);
    out
}

/// [`text`] written into `out` (which it empties first), reusing its memory.
pub fn write_text(out: &mut String, ip: IpAddr) {
    out.clear();
    out.reserve(48);
    push_text(out, ip);
}

/// [`net_text`] written into `out` (which it empties first), reusing its memory.
pub fn write_net_text(out: &mut String, net: &ipnet::IpNet) {
    out.clear();
    out.reserve(52);
    push_net_text(out, net);
}

fn push_net_text(out: &mut String, net: &ipnet::IpNet) {
    push_text(out, net.addr());
    out.push('/');
    push_decimal(out, u32::from(net.prefix_len()));
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
            let (best_at, best_len) = zero_run(&groups);
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

    /// `parse` accepts exactly what std accepts, as the same address.
    fn same_as_std(input: &str) {
        let std = input.parse::<IpAddr>().map(canonical).ok();
        assert_eq!(parse(input).ok(), std, "{input:?}");
    }

    #[test]
    fn accepts_what_std_accepts_for_every_short_string() {
        // Every string of up to 7 characters over the characters that matter.
        const ALPHABET: &[u8] = b"019f:.";
        let mut s = Vec::new();
        fn walk(s: &mut Vec<u8>, depth: usize) {
            same_as_std(std::str::from_utf8(s).expect("ASCII"));
            if depth == 0 {
                return;
            }
            for &c in ALPHABET {
                s.push(c);
                walk(s, depth - 1);
                s.pop();
            }
        }
        walk(&mut s, 7);
    }

    #[test]
    fn accepts_what_std_accepts_for_mutated_addresses() {
        use rand::Rng;
        let mut rng = rand::rng();
        const PIECES: &[&str] = &[
            "0",
            "1",
            "9",
            "00",
            "01",
            "10",
            "99",
            "255",
            "256",
            "999",
            "0255",
            "f",
            "ff",
            "fff",
            "ffff",
            "fffff",
            "0000",
            "00000",
            "FFFF",
            "a0",
            ":",
            "::",
            ":::",
            ".",
            "..",
            "1.2.3.4",
            "255.255.255.255",
            "1.2.3",
            "%",
            "[",
            "]",
            " ",
            "g",
            "x",
            "-",
            "+",
            "::ffff:",
            "\u{0660}",
            "é",
        ];
        for _ in 0..300_000 {
            let mut s = String::new();
            for _ in 0..rng.random_range(1..=14) {
                s.push_str(PIECES[rng.random_range(0..PIECES.len())]);
            }
            same_as_std(&s);
        }
        for _ in 0..100_000 {
            // A valid address, then one character changed, added or removed.
            let ip = if rng.random_bool(0.5) {
                IpAddr::from(rng.random::<[u8; 4]>())
            } else {
                let mut g: [u16; 8] = rng.random();
                for x in g.iter_mut() {
                    if rng.random_bool(0.4) {
                        *x = 0;
                    }
                }
                IpAddr::from(g)
            };
            let mut s: Vec<char> = ip.to_string().chars().collect();
            same_as_std(&s.iter().collect::<String>());
            let at = rng.random_range(0..=s.len());
            let c = char::from(b"0123456789abcdefABCDEF:.% "[rng.random_range(0..26)]);
            match rng.random_range(0..3) {
                0 => s.insert(at, c),
                1 if at < s.len() => s[at] = c,
                _ if at < s.len() => {
                    s.remove(at);
                }
                _ => s.push(c),
            }
            same_as_std(&s.iter().collect::<String>());
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
