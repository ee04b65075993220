//! The IANA special-purpose address blocks as data (the service's
//! `geo::special` names and explains them), and the one question a loader
//! asks of them: does a row of a data file lie wholly in space that is not
//! globally reachable (`10.0.0.0/8`, `127.0.0.0/8`, `2001:db8::/32`, ...)?
//! Such a row places addresses no public lookup ever reads, so it is a
//! defect ([`crate::policy::Defect::Special`]), dropped and counted.
//!
//! Each entry: the block's first address, its prefix length, the registry's
//! name, the RFCs of its "RFC" column and whether it is globally reachable.
//! Sources: the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC
//! 6890 and its updates, as published in 2026), the multicast blocks, the
//! deprecated IPv6 site-local block and the IPv6 Address Space registry's
//! "Reserved by IETF" space.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// RFC references, as the registries list them (`"RFC 1918"`).
pub type Rfcs = &'static [&'static str];

pub const V4: &[(u32, u8, &str, Rfcs, bool)] = &[
    (0x0000_0000, 8, "This network", &["RFC 791"], false),
    (0x0a00_0000, 8, "Private-Use", &["RFC 1918"], false),
    (
        0x6440_0000,
        10,
        "Shared Address Space",
        &["RFC 6598"],
        false,
    ),
    (0x7f00_0000, 8, "Loopback", &["RFC 1122"], false),
    (0xa9fe_0000, 16, "Link Local", &["RFC 3927"], false),
    (0xac10_0000, 12, "Private-Use", &["RFC 1918"], false),
    (
        0xc000_0000,
        24,
        "IETF Protocol Assignments",
        &["RFC 6890"],
        false,
    ),
    (
        0xc000_0000,
        29,
        "IPv4 Service Continuity Prefix",
        &["RFC 7335"],
        false,
    ),
    (0xc000_0008, 32, "IPv4 dummy address", &["RFC 7600"], false),
    (
        0xc000_0009,
        32,
        "Port Control Protocol Anycast",
        &["RFC 7723"],
        true,
    ),
    (
        0xc000_000a,
        32,
        "Traversal Using Relays around NAT Anycast",
        &["RFC 8155"],
        true,
    ),
    (
        0xc000_00aa,
        32,
        "NAT64/DNS64 Discovery",
        &["RFC 8880", "RFC 7050"],
        false,
    ),
    (
        0xc000_00ab,
        32,
        "NAT64/DNS64 Discovery",
        &["RFC 8880", "RFC 7050"],
        false,
    ),
    (
        0xc000_0200,
        24,
        "Documentation (TEST-NET-1)",
        &["RFC 5737"],
        false,
    ),
    (0xc01f_c400, 24, "AS112-v4", &["RFC 7535"], true),
    (0xc034_c100, 24, "AMT", &["RFC 7450"], true),
    (0xc0a8_0000, 16, "Private-Use", &["RFC 1918"], false),
    (
        0xc0af_3000,
        24,
        "Direct Delegation AS112 Service",
        &["RFC 7534"],
        true,
    ),
    (0xc612_0000, 15, "Benchmarking", &["RFC 2544"], false),
    (
        0xc633_6400,
        24,
        "Documentation (TEST-NET-2)",
        &["RFC 5737"],
        false,
    ),
    (
        0xcb00_7100,
        24,
        "Documentation (TEST-NET-3)",
        &["RFC 5737"],
        false,
    ),
    (0xe000_0000, 4, "Multicast", &["RFC 5771"], false),
    (0xf000_0000, 4, "Reserved", &["RFC 1112"], false),
    (
        0xffff_ffff,
        32,
        "Limited Broadcast",
        &["RFC 8190", "RFC 919"],
        false,
    ),
];

pub const V6: &[(u128, u8, &str, Rfcs, bool)] = &[
    (0, 128, "Unspecified Address", &["RFC 4291"], false),
    (1, 128, "Loopback Address", &["RFC 4291"], false),
    (
        0xffff_0000_0000,
        96,
        "IPv4-mapped Address",
        &["RFC 4291"],
        false,
    ),
    (
        0x0064_ff9b << 96,
        96,
        "IPv4-IPv6 Translation",
        &["RFC 6052"],
        true,
    ),
    (
        0x0064_ff9b_0001 << 80,
        48,
        "Local-Use IPv4/IPv6 Translation",
        &["RFC 8215"],
        false,
    ),
    (
        0x0100 << 112,
        64,
        "Discard-Only Address Block",
        &["RFC 6666"],
        false,
    ),
    (
        0x0100_0000_0000_0001 << 64,
        64,
        "Dummy IPv6 Prefix",
        &["RFC 9780"],
        false,
    ),
    (
        0x2001 << 112,
        23,
        "IETF Protocol Assignments",
        &["RFC 2928"],
        false,
    ),
    (
        0x2001_0001_0000_0000_0000_0000_0000_0001,
        128,
        "Port Control Protocol Anycast",
        &["RFC 7723"],
        true,
    ),
    (
        0x2001_0001_0000_0000_0000_0000_0000_0002,
        128,
        "Traversal Using Relays around NAT Anycast",
        &["RFC 8155"],
        true,
    ),
    (
        0x2001_0001_0000_0000_0000_0000_0000_0003,
        128,
        "DNS-SD Service Registration Protocol Anycast",
        &["RFC 9665"],
        true,
    ),
    (0x2001_0002 << 96, 48, "Benchmarking", &["RFC 5180"], false),
    (0x2001_0003 << 96, 32, "AMT", &["RFC 7450"], true),
    (0x2001_0004_0112 << 80, 48, "AS112-v6", &["RFC 7535"], true),
    (0x2001_0020 << 96, 28, "ORCHIDv2", &["RFC 7343"], true),
    (
        0x2001_0030 << 96,
        28,
        "Drone Remote ID Protocol Entity Tags",
        &["RFC 9374"],
        true,
    ),
    (0x2001_0db8 << 96, 32, "Documentation", &["RFC 3849"], false),
    (
        0x2620_004f_8000 << 80,
        48,
        "Direct Delegation AS112 Service",
        &["RFC 7534"],
        true,
    ),
    (0x3fff << 112, 20, "Documentation", &["RFC 9637"], false),
    (
        0x5f00 << 112,
        16,
        "Segment Routing (SRv6) SIDs",
        &["RFC 9602"],
        false,
    ),
    (
        0xfc00 << 112,
        7,
        "Unique-Local",
        &["RFC 4193", "RFC 8190"],
        false,
    ),
    (
        0xfe80 << 112,
        10,
        "Link-Local Unicast",
        &["RFC 4291"],
        false,
    ),
    (
        0xfec0 << 112,
        10,
        "Site-Local (deprecated)",
        &["RFC 3879"],
        false,
    ),
    (0xff00 << 112, 8, "Multicast", &["RFC 4291"], false),
    // The IPv6 Address Space registry's "Reserved by IETF" blocks.
    (0x0000 << 112, 8, RESERVED, &["RFC 4291"], false),
    (0x0100 << 112, 8, RESERVED, &["RFC 4291"], false),
    (0x0200 << 112, 7, RESERVED, &["RFC 4291"], false),
    (0x0400 << 112, 6, RESERVED, &["RFC 4291"], false),
    (0x0800 << 112, 5, RESERVED, &["RFC 4291"], false),
    (0x1000 << 112, 4, RESERVED, &["RFC 4291"], false),
    (0x4000 << 112, 3, RESERVED, &["RFC 4291"], false),
    (0x6000 << 112, 3, RESERVED, &["RFC 4291"], false),
    (0x8000 << 112, 3, RESERVED, &["RFC 4291"], false),
    (0xa000 << 112, 3, RESERVED, &["RFC 4291"], false),
    (0xc000 << 112, 3, RESERVED, &["RFC 4291"], false),
    (0xe000 << 112, 4, RESERVED, &["RFC 4291"], false),
    (0xf000 << 112, 5, RESERVED, &["RFC 4291"], false),
    (0xf800 << 112, 6, RESERVED, &["RFC 4291"], false),
    (0xfe00 << 112, 9, RESERVED, &["RFC 4291"], false),
];

/// The IPv6 Address Space registry's name for space the IETF keeps back.
const RESERVED: &str = "Reserved by IETF";

/// A not globally reachable block that holds a whole row: its first address
/// (IPv4 as the low 32 bits), its prefix length and the registry's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Held {
    pub base: u128,
    pub len: u8,
    pub name: &'static str,
    /// 32 for IPv4, 128 for IPv6.
    pub bits: u32,
}

impl fmt::Display for Held {
    /// `10.0.0.0/8 (Private-Use)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (base, len, name) = (self.base, self.len, self.name);
        match u32::try_from(base) {
            Ok(v4) if self.bits == 32 => write!(f, "{}/{len} ({name})", Ipv4Addr::from(v4)),
            _ => write!(f, "{}/{len} ({name})", Ipv6Addr::from(base)),
        }
    }
}

/// [`v4_holding`] or [`v6_holding`] of a range of one family (`None` for
/// two families).
pub fn range_holding(start: IpAddr, end: IpAddr) -> Option<Held> {
    match (start, end) {
        (IpAddr::V4(s), IpAddr::V4(e)) => v4_holding(s.into(), e.into()),
        (IpAddr::V6(s), IpAddr::V6(e)) => v6_holding(s.into(), e.into()),
        _ => None,
    }
}

/// The most specific not globally reachable block holding all of
/// `start..=end` (IPv4), unless a globally reachable block lies in the range
/// (`192.0.0.9`, AS112, ...): a row every address of which is not public.
pub fn v4_holding(start: u32, end: u32) -> Option<Held> {
    if !V4_FIRST_BYTES[(start >> 24) as usize] {
        return None;
    }
    let table = V4.iter().map(|e| (u128::from(e.0), e.1, e.2, e.4));
    holding(table, 32, u128::from(start), u128::from(end))
}

/// [`v4_holding`] of an IPv6 range.
pub fn v6_holding(start: u128, end: u128) -> Option<Held> {
    if !V6_FIRST_BYTES[(start >> 120) as usize] {
        return None;
    }
    let table = V6.iter().map(|e| (e.0, e.1, e.2, e.4));
    holding(table, 128, start, end)
}

/// For each first byte of an address, whether a block that is not globally
/// reachable holds addresses starting with it: most rows stop at this test
/// (a block holding a whole row holds its start).
const V4_FIRST_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < V4.len() {
        if !V4[i].4 {
            mark(&mut table, (V4[i].0 >> 24) as u8, V4[i].1);
        }
        i += 1;
    }
    table
};

/// [`V4_FIRST_BYTES`] of IPv6.
const V6_FIRST_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < V6.len() {
        if !V6[i].4 {
            mark(&mut table, (V6[i].0 >> 120) as u8, V6[i].1);
        }
        i += 1;
    }
    table
};

/// Marks the first bytes of the addresses of a block whose base starts with
/// `top` and whose prefix is `len` bits long.
const fn mark(table: &mut [bool; 256], top: u8, len: u8) {
    let last = if len >= 8 { top } else { top | (0xff >> len) };
    let mut b = top as usize;
    while b <= last as usize {
        table[b] = true;
        b += 1;
    }
}

fn holding(
    table: impl Iterator<Item = (u128, u8, &'static str, bool)>,
    bits: u32,
    start: u128,
    end: u128,
) -> Option<Held> {
    let mut found: Option<Held> = None;
    for (base, len, name, global) in table {
        let last = base
            | u128::MAX
                .checked_shr(128 - bits + u32::from(len))
                .unwrap_or(0);
        if global {
            if base <= end && start <= last {
                return None;
            }
        } else if base <= start && end <= last && found.is_none_or(|f| len > f.len) {
            found = Some(Held {
                base,
                len,
                name,
                bits,
            });
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v4(s: &str) -> u32 {
        u32::from(s.parse::<std::net::Ipv4Addr>().unwrap())
    }

    fn v6(s: &str) -> u128 {
        u128::from(s.parse::<std::net::Ipv6Addr>().unwrap())
    }

    #[test]
    fn rows_wholly_in_space_that_is_not_public_are_held() {
        let held = v4_holding(v4("10.1.0.0"), v4("10.1.255.255")).unwrap();
        assert_eq!(
            (held.base, held.len, held.name),
            (u128::from(v4("10.0.0.0")), 8, "Private-Use")
        );
        let held = v4_holding(v4("127.0.0.0"), v4("127.255.255.255")).unwrap();
        assert_eq!(held.name, "Loopback");
        let held = v4_holding(v4("192.0.2.0"), v4("192.0.2.255")).unwrap();
        assert_eq!(held.len, 24);
        // The most specific block names it.
        let held = v6_holding(
            v6("2001:db8:1::"),
            v6("2001:db8:1:ffff:ffff:ffff:ffff:ffff"),
        )
        .unwrap();
        assert_eq!((held.len, held.name), (32, "Documentation"));
        let held = v6_holding(v6("::ffff:1.2.3.0"), v6("::ffff:1.2.3.255")).unwrap();
        assert_eq!(held.name, "IPv4-mapped Address");
        assert!(v4_holding(v4("255.255.255.255"), v4("255.255.255.255")).is_some());
        let shown = range_holding("10.1.0.0".parse().unwrap(), "10.1.0.255".parse().unwrap());
        assert_eq!(shown.unwrap().to_string(), "10.0.0.0/8 (Private-Use)");
        let shown = range_holding(
            "2001:db8::".parse().unwrap(),
            "2001:db8::ff".parse().unwrap(),
        );
        assert_eq!(shown.unwrap().to_string(), "2001:db8::/32 (Documentation)");
    }

    /// Every block that is not globally reachable, as a row, is held: the
    /// first-byte filter skips none.
    #[test]
    fn every_non_public_block_as_a_row_is_held() {
        for &(base, len, name, _, global) in V4 {
            let last = base | u32::MAX.checked_shr(u32::from(len)).unwrap_or(0);
            let held = v4_holding(base, last);
            let holds_public = V4.iter().any(|e| e.4 && e.0 >= base && e.0 <= last);
            assert_eq!(held.is_some(), !global && !holds_public, "{name}");
        }
        for &(base, len, name, _, global) in V6 {
            let last = base | u128::MAX.checked_shr(u32::from(len)).unwrap_or(0);
            let held = v6_holding(base, last);
            let holds_public = V6.iter().any(|e| e.4 && e.0 >= base && e.0 <= last);
            assert_eq!(
                held.is_some(),
                !global && !holds_public,
                "{name} {base:x}/{len}"
            );
        }
    }

    #[test]
    fn public_rows_and_rows_reaching_public_space_are_not() {
        for (s, e) in [
            ("8.8.8.0", "8.8.8.255"),
            // Partly public: the row's other addresses are looked up.
            ("9.0.0.0", "10.255.255.255"),
            ("10.0.0.0", "11.0.0.0"),
            // A globally reachable block inside a non-public one.
            ("192.0.0.0", "192.0.0.255"),
            ("192.0.0.9", "192.0.0.9"),
            ("192.31.196.0", "192.31.196.255"),
            ("0.0.0.0", "255.255.255.255"),
        ] {
            assert_eq!(v4_holding(v4(s), v4(e)), None, "{s}-{e}");
        }
        for (s, e) in [
            ("2001:4860::", "2001:4860:ffff:ffff:ffff:ffff:ffff:ffff"),
            ("2000::", "3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"),
            ("2001:4:112::", "2001:4:112:ffff:ffff:ffff:ffff:ffff"),
            ("2001::", "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff"),
        ] {
            assert_eq!(v6_holding(v6(s), v6(e)), None, "{s}-{e}");
        }
    }
}
