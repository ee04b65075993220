//! `network.range`: the largest CIDR block that holds an address and lies
//! inside the source row it was found in.
//!
//! No search: the block of a prefix length keeps the address's bits above
//! that length and spans every value below it, so it stays clear of an
//! address just outside the row (`start - 1`, `end + 1`) exactly when it
//! keeps the highest bit in which the two differ. The shortest prefix that
//! keeps that bit is one past their common leading bits; the block is the
//! longer of the two such prefixes (a row reaching the end of the family on
//! one side puts no bound there).

use std::net::IpAddr;

use ipnet::{IpNet, Ipv4Net, Ipv6Net};

/// The largest CIDR block that holds `ip` and lies inside `start..=end`.
///
/// Returns `None` if `ip` is outside the range or the families differ.
pub fn largest_block(ip: IpAddr, start: IpAddr, end: IpAddr) -> Option<IpNet> {
    match (ip, start, end) {
        (IpAddr::V4(ip), IpAddr::V4(s), IpAddr::V4(e)) => block_v4(ip.into(), s.into(), e.into()),
        (IpAddr::V6(ip), IpAddr::V6(s), IpAddr::V6(e)) => block_v6(ip.into(), s.into(), e.into()),
        _ => None,
    }
}

/// [`largest_block`] of IPv4 addresses as integers.
#[inline]
pub(crate) fn block_v4(a: u32, s: u32, e: u32) -> Option<IpNet> {
    if a < s || a > e {
        return None;
    }
    let below = s
        .checked_sub(1)
        .map_or(0, |out| (a ^ out).leading_zeros() + 1);
    let above = e
        .checked_add(1)
        .map_or(0, |out| (a ^ out).leading_zeros() + 1);
    let net = Ipv4Net::new(a.into(), below.max(above) as u8).ok()?;
    Some(IpNet::V4(net.trunc()))
}

/// [`largest_block`] of IPv6 addresses as integers (see [`block_v4`]).
#[inline]
pub(crate) fn block_v6(a: u128, s: u128, e: u128) -> Option<IpNet> {
    if a < s || a > e {
        return None;
    }
    let below = s
        .checked_sub(1)
        .map_or(0, |out| (a ^ out).leading_zeros() + 1);
    let above = e
        .checked_add(1)
        .map_or(0, |out| (a ^ out).leading_zeros() + 1);
    let net = Ipv6Net::new(a.into(), below.max(above) as u8).ok()?;
    Some(IpNet::V6(net.trunc()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    /// The first prefix length, counting up from 0, whose block fits: the
    /// definition the closed form computes.
    fn shortest_prefix_by_walking(bits: u8, fits: impl Fn(u8) -> bool) -> Option<u8> {
        (0..=bits).find(|&len| fits(len))
    }

    #[test]
    fn the_closed_form_finds_the_prefix_the_walk_finds() {
        use rand::Rng;
        let mut rng = rand::rng();
        for _ in 0..100_000 {
            // Bounds near the address as often as far from it, on both sides.
            let a: u128 = rng.random();
            let near =
                |rng: &mut rand::rngs::ThreadRng| rng.random::<u128>() >> rng.random_range(0..128);
            let s = if rng.random_bool(0.1) {
                a.wrapping_add(1)
            } else {
                a.saturating_sub(near(&mut rng))
            };
            let e = if rng.random_bool(0.1) {
                a.wrapping_sub(1)
            } else {
                a.saturating_add(near(&mut rng))
            };
            let fits6 = |len: u8| {
                let mask = u128::MAX.checked_shl(128 - u32::from(len)).unwrap_or(0);
                (a & mask) >= s && (a | !mask) <= e
            };
            assert_eq!(
                block_v6(a, s, e).map(|n| n.prefix_len()),
                shortest_prefix_by_walking(128, fits6),
                "{a:x} in {s:x}..={e:x}"
            );
            let (a, s, e) = ((a >> 96) as u32, (s >> 96) as u32, (e >> 96) as u32);
            let fits4 = |len: u8| {
                let mask = u32::MAX.checked_shl(32 - u32::from(len)).unwrap_or(0);
                (a & mask) >= s && (a | !mask) <= e
            };
            assert_eq!(
                block_v4(a, s, e).map(|n| n.prefix_len()),
                shortest_prefix_by_walking(32, fits4),
                "{a:x} in {s:x}..={e:x}"
            );
        }
    }

    #[test]
    fn largest_block_fits_inside_the_range() {
        let b = |a, s, e| largest_block(ip(a), ip(s), ip(e)).map(|n| n.to_string());
        assert_eq!(
            b("8.8.8.8", "8.8.8.0", "8.8.8.255").as_deref(),
            Some("8.8.8.0/24")
        );
        assert_eq!(
            b("1.0.1.5", "1.0.1.0", "1.0.3.255").as_deref(),
            Some("1.0.1.0/24")
        );
        assert_eq!(
            b("1.0.2.5", "1.0.1.0", "1.0.3.255").as_deref(),
            Some("1.0.2.0/23")
        );
        assert_eq!(
            b("0.1.2.3", "0.0.0.0", "255.255.255.255").as_deref(),
            Some("0.0.0.0/0")
        );
        assert_eq!(
            b("1.2.3.4", "1.2.3.4", "1.2.3.4").as_deref(),
            Some("1.2.3.4/32")
        );
        assert_eq!(b("1.2.3.4", "1.2.3.5", "1.2.3.9"), None);
        assert_eq!(
            b(
                "2001:db8::1",
                "2001:db8::",
                "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff"
            )
            .as_deref(),
            Some("2001:db8::/32")
        );
    }
}
