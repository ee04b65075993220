//! IANA special-purpose address blocks: which addresses are not globally
//! reachable, and the registry block that holds them, with its name and the
//! RFCs of the registry's "RFC" column.
//!
//! Sources: the IANA IPv4 and IPv6 Special-Purpose Address Registries
//! (RFC 6890 and its updates, as published in 2026), plus the multicast
//! blocks (224.0.0.0/4, ff00::/8) and the deprecated IPv6 site-local block,
//! which are not globally reachable unicast either, and the IPv6 space that
//! the IANA IPv6 Address Space registry lists as "Reserved by IETF" (all of
//! it outside 2000::/3, fc00::/7, fe80::/10 and ff00::/8: never routable,
//! like IPv4's 240.0.0.0/4). Blocks the registries mark globally reachable
//! (AS112, AMT, PCP/TURN anycast, ...) are listed too, so the most specific
//! entry decides: 192.0.0.9 is public inside the non-public 192.0.0.0/24,
//! and ::1 is the Loopback Address inside the reserved ::/8.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::{IpNet, Ipv4Net, Ipv6Net};

pub mod asn;
pub(crate) mod explain;

/// A registry block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpecialBlock {
    pub net: IpNet,
    /// The registry's name for the block.
    pub name: &'static str,
    /// The registry's RFC column: the RFCs that define the block, in the
    /// registry's order (`["RFC 1918"]`, `["RFC 4193", "RFC 8190"]`).
    pub rfcs: Rfcs,
    /// Whether the registry marks it globally reachable.
    pub global: bool,
}

/// RFC references, as the registries list them (`"RFC 1918"`).
pub use iplookup_data::special::Rfcs;
use iplookup_data::special::{V4, V6};

/// The most specific special-purpose block holding `ip`, if any.
pub fn block(ip: IpAddr) -> Option<SpecialBlock> {
    match ip {
        IpAddr::V4(a) if V4_FIRST_BYTES[usize::from(a.octets()[0])] => v4_block(a),
        IpAddr::V6(a) if V6_FIRST_BYTES[usize::from(a.octets()[0])] => v6_block(a),
        // No block starts with this byte: most public addresses stop here.
        _ => None,
    }
}

/// For each value of an address's first byte, whether any listed block
/// holds addresses that start with it (computed from the tables).
const V4_FIRST_BYTES: [bool; 256] = first_bytes(&V4_SPANS);
const V6_FIRST_BYTES: [bool; 256] = first_bytes(&V6_SPANS);

/// The first and last first byte of the addresses of a block whose base
/// starts with `base_top` and whose prefix is `len` bits long.
const fn first_byte_span(base_top: u8, len: u8) -> (u8, u8) {
    if len >= 8 {
        (base_top, base_top)
    } else {
        (base_top, base_top | (0xff >> len))
    }
}

const V4_SPANS: [(u8, u8); V4.len()] = {
    let mut spans = [(0, 0); V4.len()];
    let mut i = 0;
    while i < V4.len() {
        spans[i] = first_byte_span((V4[i].0 >> 24) as u8, V4[i].1);
        i += 1;
    }
    spans
};

const V6_SPANS: [(u8, u8); V6.len()] = {
    let mut spans = [(0, 0); V6.len()];
    let mut i = 0;
    while i < V6.len() {
        spans[i] = first_byte_span((V6[i].0 >> 120) as u8, V6[i].1);
        i += 1;
    }
    spans
};

const fn first_bytes(spans: &[(u8, u8)]) -> [bool; 256] {
    let mut table = [false; 256];
    let mut i = 0;
    while i < spans.len() {
        let (first, last) = spans[i];
        let mut b = first as usize;
        while b <= last as usize {
            table[b] = true;
            b += 1;
        }
        i += 1;
    }
    table
}

fn v4_block(addr: Ipv4Addr) -> Option<SpecialBlock> {
    let a = u32::from(addr);
    V4.iter()
        .filter(|(base, len, ..)| a & mask32(*len) == *base)
        .max_by_key(|(_, len, ..)| *len)
        .and_then(|&(base, len, name, rfcs, global)| {
            let net = Ipv4Net::new(Ipv4Addr::from(base), len).ok()?;
            Some(SpecialBlock {
                net: net.into(),
                name,
                rfcs,
                global,
            })
        })
}

fn v6_block(addr: Ipv6Addr) -> Option<SpecialBlock> {
    let a = u128::from(addr);
    V6.iter()
        .filter(|(base, len, ..)| a & mask128(*len) == *base)
        .max_by_key(|(_, len, ..)| *len)
        .and_then(|&(base, len, name, rfcs, global)| {
            let net = Ipv6Net::new(Ipv6Addr::from(base), len).ok()?;
            Some(SpecialBlock {
                net: net.into(),
                name,
                rfcs,
                global,
            })
        })
}

fn mask32(len: u8) -> u32 {
    u32::MAX.checked_shl(32 - u32::from(len)).unwrap_or(0)
}

fn mask128(len: u8) -> u128 {
    u128::MAX.checked_shl(128 - u32::from(len)).unwrap_or(0)
}

/// Whether `ip` is globally reachable (outside every non-global block).
pub fn is_public(ip: IpAddr) -> bool {
    block(ip).is_none_or(|b| b.global)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    /// The most specific block by scanning both whole tables.
    fn block_by_scan(ip: IpAddr) -> Option<SpecialBlock> {
        match ip {
            IpAddr::V4(a) => v4_block(a),
            IpAddr::V6(a) => v6_block(a),
        }
    }

    #[test]
    fn the_first_byte_filter_never_skips_a_block() {
        use rand::Rng;
        let mut rng = rand::rng();
        // Every first byte, with random rest and with the rest of each block's base.
        for first in 0..=255u8 {
            for _ in 0..200 {
                let v4 = (u32::from(first) << 24) | (rng.random::<u32>() >> 8);
                let v6 = (u128::from(first) << 120) | (rng.random::<u128>() >> 8);
                for ip in [
                    IpAddr::from(Ipv4Addr::from(v4)),
                    IpAddr::from(Ipv6Addr::from(v6)),
                ] {
                    assert_eq!(block(ip), block_by_scan(ip), "{ip}");
                }
            }
        }
        for &(base, len, ..) in V4 {
            let last = base | !mask32(len);
            for a in [base, last, base.wrapping_sub(1), last.wrapping_add(1)] {
                let ip = IpAddr::from(Ipv4Addr::from(a));
                assert_eq!(block(ip), block_by_scan(ip), "{ip}");
            }
        }
        for &(base, len, ..) in V6 {
            let last = base | !mask128(len);
            for a in [base, last, base.wrapping_sub(1), last.wrapping_add(1)] {
                let ip = IpAddr::from(Ipv6Addr::from(a));
                assert_eq!(block(ip), block_by_scan(ip), "{ip}");
            }
        }
    }

    #[test]
    fn every_listed_base_is_aligned() {
        for (base, len, name, ..) in V4 {
            assert_eq!(base & mask32(*len), *base, "{name}");
        }
        for (base, len, name, ..) in V6 {
            assert_eq!(base & mask128(*len), *base, "{name}");
        }
    }

    #[test]
    fn private_blocks_are_not_public() {
        for s in [
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "127.0.0.1",
            "0.0.0.0",
            "169.254.1.1",
            "100.64.0.1",
            "100.127.255.255",
            "192.0.2.1",
            "198.51.100.7",
            "203.0.113.9",
            "198.18.0.1",
            "198.19.255.255",
            "224.0.0.1",
            "239.255.255.255",
            "240.0.0.1",
            "255.255.255.255",
            "192.0.0.8",
            "::1",
            "::",
            "fe80::1",
            "fc00::1",
            "fd12:3456::1",
            "2001:db8::1",
            "ff02::1",
            "3fff::1",
            "100::1",
            "2001:2::1",
            "64:ff9b:1::1",
            "fec0::1",
            "5f00::1",
            "::808:808",
            "::2",
            "::ffff:0:808:808",
            "1::1",
            "4000::1",
            "e000::1",
            "1fff:ffff::1",
            "fe7f::1",
            "feff::1",
        ] {
            assert!(!is_public(ip(s)), "{s}");
        }
    }

    #[test]
    fn public_addresses_and_global_special_blocks_are_public() {
        for s in [
            "8.8.8.8",
            "1.1.1.1",
            "172.32.0.1",
            "100.128.0.1",
            "192.0.0.9",
            "192.31.196.1",
            "2606:4700:4700::1111",
            "2001:4860:4860::8888",
            "64:ff9b::808:808",
            "2001:1::1",
            "2001:4:112::1",
            "2001:20::1",
        ] {
            assert!(is_public(ip(s)), "{s}");
        }
    }

    #[test]
    fn every_block_names_its_rfcs() {
        let rfcs = V4
            .iter()
            .map(|e| (e.2, e.3))
            .chain(V6.iter().map(|e| (e.2, e.3)));
        for (name, rfcs) in rfcs {
            assert!(!rfcs.is_empty(), "{name}");
            for rfc in rfcs {
                let number = rfc.strip_prefix("RFC ").unwrap_or_default();
                assert!(
                    !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()),
                    "{name}: {rfc}"
                );
            }
        }
    }

    #[test]
    fn blocks_carry_the_registry_name_and_rfcs() {
        for (s, name, rfcs) in [
            ("10.1.2.3", "Private-Use", &["RFC 1918"][..]),
            ("172.20.0.1", "Private-Use", &["RFC 1918"]),
            ("192.168.0.1", "Private-Use", &["RFC 1918"]),
            ("127.0.0.1", "Loopback", &["RFC 1122"]),
            ("100.64.0.1", "Shared Address Space", &["RFC 6598"]),
            ("192.0.2.1", "Documentation (TEST-NET-1)", &["RFC 5737"]),
            ("198.51.100.1", "Documentation (TEST-NET-2)", &["RFC 5737"]),
            ("203.0.113.1", "Documentation (TEST-NET-3)", &["RFC 5737"]),
            ("169.254.0.1", "Link Local", &["RFC 3927"]),
            (
                "255.255.255.255",
                "Limited Broadcast",
                &["RFC 8190", "RFC 919"],
            ),
            ("::1", "Loopback Address", &["RFC 4291"]),
            ("fd00::1", "Unique-Local", &["RFC 4193", "RFC 8190"]),
            ("fe80::1", "Link-Local Unicast", &["RFC 4291"]),
            ("2001:db8::1", "Documentation", &["RFC 3849"]),
            ("3fff::1", "Documentation", &["RFC 9637"]),
            ("4000::1", "Reserved by IETF", &["RFC 4291"]),
            ("::2", "Reserved by IETF", &["RFC 4291"]),
            ("fec0::1", "Site-Local (deprecated)", &["RFC 3879"]),
        ] {
            let b = block(ip(s)).unwrap();
            assert_eq!((b.name, b.rfcs), (name, rfcs), "{s}");
        }
    }

    #[test]
    fn most_specific_block_wins() {
        assert_eq!(block(ip("10.9.8.7")).unwrap().net.to_string(), "10.0.0.0/8");
        assert_eq!(
            block(ip("192.0.0.9")).unwrap().net.to_string(),
            "192.0.0.9/32"
        );
        assert_eq!(
            block(ip("192.0.0.77")).unwrap().net.to_string(),
            "192.0.0.0/24"
        );
        assert_eq!(
            block(ip("2001:db8::1")).unwrap().net.to_string(),
            "2001:db8::/32"
        );
        assert_eq!(block(ip("fd00::1")).unwrap().net.to_string(), "fc00::/7");
        assert!(block(ip("8.8.8.8")).is_none());
        // ::/8 is reserved, its registry entries more specific.
        for (s, net) in [
            ("::1", "::1/128"),
            ("::", "::/128"),
            ("64:ff9b::808:808", "64:ff9b::/96"),
            ("100::1", "100::/64"),
            ("::808:808", "::/8"),
            ("101::1", "100::/8"),
            ("fe80::1", "fe80::/10"),
            ("fe00::1", "fe00::/9"),
        ] {
            assert_eq!(block(ip(s)).unwrap().net.to_string(), net, "{s}");
        }
        assert!(is_public(ip("64:ff9b::808:808")));
        // The global unicast space, 2000::/3, has no reserved block.
        assert!(block(ip("2c0f::1")).is_none());
    }
}
