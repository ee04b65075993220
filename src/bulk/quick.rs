//! A quick first try at parsing an address, for bulk enrichment: the plain
//! forms (a dotted quad; colon-hex IPv6 without an embedded IPv4 part) in one
//! pass over the bytes. It only ever answers what [`address::parse`] would
//! answer: `None` means "not one of the plain forms, ask `address::parse`",
//! which then accepts or refuses the input as strictly as ever.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::address;

/// A dotted quad or a plain IPv6 address, canonical (as [`address::parse`]
/// returns it); `None` when the input is neither (it may still be an
/// address in another form, or none).
#[inline]
pub(crate) fn parse(b: &[u8]) -> Option<IpAddr> {
    if b.contains(&b':') {
        v6(b).map(|a| address::canonical(IpAddr::V6(a)))
    } else {
        v4(b).map(IpAddr::V4)
    }
}

/// An IPv6 address written in full, lower case, every group four digits
/// without a leading zero (`2a02:8109:9a3f:e500:1d4b:8c2e:7f3a:44d1`, the
/// usual form of an address with a random interface identifier): the one
/// form whose canonical text is the input itself (no zero group to
/// compress, not IPv4-mapped). Read without a branch per digit.
#[inline]
pub(crate) fn full_v6(b: &[u8]) -> Option<Ipv6Addr> {
    let b: &[u8; 39] = b.try_into().ok()?;
    let mut groups = [0u16; 8];
    let mut bad = false;
    for (i, group) in groups.iter_mut().enumerate() {
        let at = i * 5;
        if i > 0 {
            bad |= b[at - 1] != b':';
        }
        let mut value = 0u16;
        for &c in &b[at..at + 4] {
            let h = LOWER_HEX[usize::from(c)];
            bad |= h >= 16;
            value = value << 4 | u16::from(h & 15);
        }
        bad |= b[at] == b'0';
        *group = value;
    }
    (!bad).then_some(Ipv6Addr::from(groups))
}

/// The input copied into a zeroed buffer (a zero byte is neither a digit nor
/// a separator), so that a token can be read a few bytes past its end
/// without a bounds check or a branch per byte.
fn padded(b: &[u8]) -> Option<[u8; 48]> {
    let mut buf = [0u8; 48];
    buf.get_mut(..b.len())?.copy_from_slice(b);
    Some(buf)
}

/// [`padded`] for the lengths of a dotted quad (7 to 15 bytes), from two
/// overlapping 8-byte reads rather than a copy of a length known only at
/// run time (a call to `memcpy` per address).
#[inline]
fn padded_quad(b: &[u8]) -> Option<[u8; 48]> {
    let n = b.len();
    if !(7..=15).contains(&n) {
        return None;
    }
    let word = |at: usize| b.get(at..at + 8)?.try_into().ok().map(u64::from_le_bytes);
    let bytes = match n.checked_sub(8) {
        // The first 8 bytes, and the last 8 moved to where they belong
        // (the bytes both hold are the same).
        Some(from) => u128::from(word(0)?) | u128::from(word(from)?) << (8 * from),
        None => {
            let mut head = [0u8; 8];
            head[..7].copy_from_slice(b.get(..7)?);
            u128::from(u64::from_le_bytes(head))
        }
    };
    let mut buf = [0u8; 48];
    buf[..16].copy_from_slice(&bytes.to_le_bytes());
    Some(buf)
}

/// Four decimal octets of one to three digits, no leading zero, at most
/// 255, separated by dots, and nothing else.
#[inline]
pub(crate) fn v4(b: &[u8]) -> Option<Ipv4Addr> {
    let buf = padded_quad(b)?;
    let mut octets = [0u8; 4];
    let mut at = 0;
    for (i, octet) in octets.iter_mut().enumerate() {
        if i > 0 {
            if buf[at] != b'.' {
                return None;
            }
            at += 1;
        }
        let (value, len) = octet_at(&buf, at)?;
        *octet = value;
        at += len;
    }
    (at == b.len()).then_some(Ipv4Addr::from(octets))
}

/// The octet at `at`: one to three digits, no leading zero, at most 255,
/// not followed by a fourth digit; its value and length.
#[inline]
fn octet_at(buf: &[u8; 48], at: usize) -> Option<(u8, usize)> {
    let d = |i: usize| u32::from(buf[at + i].wrapping_sub(b'0'));
    let (d0, d1, d2, d3) = (d(0), d(1), d(2), d(3));
    let (a0, a1, a2, a3) = (d0 <= 9, d1 <= 9, d2 <= 9, d3 <= 9);
    let len = usize::from(a0) + usize::from(a0 & a1) + usize::from(a0 & a1 & a2);
    let value = match len {
        1 => d0,
        2 => d0 * 10 + d1,
        _ => d0 * 100 + d1 * 10 + d2,
    };
    let bad = len == 0 || (a0 & a1 & a2 & a3) || (len > 1 && d0 == 0) || value > 255;
    (!bad).then_some((value as u8, len))
}

/// Colon-separated groups of one to four hex digits (either case), eight of
/// them, or fewer with one `::` standing for at least one zero group.
#[inline]
fn v6(b: &[u8]) -> Option<Ipv6Addr> {
    if b.len() > 39 {
        return None;
    }
    let buf = padded(b)?;
    let mut groups = [0u16; 8];
    // Groups read so far, and where `::` stood (how many came before it).
    let (mut n, mut gap) = (0usize, None);
    let mut at = 0;
    if b.starts_with(b"::") {
        gap = Some(0);
        at = 2;
    }
    while at < b.len() {
        let (value, len) = group_at(&buf, at)?;
        *groups.get_mut(n)? = value;
        n += 1;
        at += len;
        if at == b.len() {
            break;
        }
        if buf[at] != b':' {
            return None;
        }
        at += 1;
        if buf[at] == b':' {
            if gap.is_some() {
                return None;
            }
            gap = Some(n);
            at += 1;
        } else if at == b.len() {
            return None;
        }
    }
    match gap {
        None if n == 8 => Some(Ipv6Addr::from(groups)),
        Some(before) if n < 8 => {
            // The groups after `::` move to the end; zeros fill the gap.
            let after = n - before;
            groups.copy_within(before..n, 8 - after);
            groups[before..8 - after].fill(0);
            Some(Ipv6Addr::from(groups))
        }
        _ => None,
    }
}

/// The group at `at`: one to four hex digits, not followed by a fifth; its
/// value and length.
#[inline]
fn group_at(buf: &[u8; 48], at: usize) -> Option<(u16, usize)> {
    let h = |i: usize| u32::from(HEX[usize::from(buf[at + i])]);
    let (h0, h1, h2, h3, h4) = (h(0), h(1), h(2), h(3), h(4));
    let (a0, a1, a2, a3) = (h0 < 16, h1 < 16, h2 < 16, h3 < 16);
    let len = usize::from(a0)
        + usize::from(a0 & a1)
        + usize::from(a0 & a1 & a2)
        + usize::from(a0 & a1 & a2 & a3);
    let all = (h0 & 15) << 12 | (h1 & 15) << 8 | (h2 & 15) << 4 | (h3 & 15);
    let value = all.checked_shr(4 * (4 - len as u32)).unwrap_or(0);
    let bad = len == 0 || (len == 4 && h4 < 16);
    (!bad).then_some((value as u16, len))
}

/// The value of each byte as a lower-case hex digit, 0xff if it is none.
const LOWER_HEX: [u8; 256] = {
    let mut table = HEX;
    let mut i = 0;
    while i < 6 {
        table[b'A' as usize + i] = 0xff;
        i += 1;
    }
    table
};

/// The value of each byte as a hex digit (either case), 0xff if it is none:
/// the table of `address::parse`.
const HEX: [u8; 256] = address::DIGITS;

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;
    use rand::seq::IndexedRandom;

    /// Whatever the quick parser accepts, `address::parse` accepts as the
    /// same address; and it accepts the plain forms.
    fn agrees(text: &[u8]) -> bool {
        let quick = parse(text);
        let strict = std::str::from_utf8(text)
            .ok()
            .and_then(|t| address::parse(t).ok());
        if let Some(ip) = quick {
            assert_eq!(Some(ip), strict, "{:?}", String::from_utf8_lossy(text));
        }
        quick.is_some()
    }

    #[test]
    fn plain_forms_are_taken_and_agree() {
        let mut rng = rand::rng();
        for _ in 0..200_000 {
            let v4 = Ipv4Addr::from(rng.random::<u32>());
            assert!(agrees(v4.to_string().as_bytes()), "{v4}");
            let mut groups: [u16; 8] = rng.random();
            for g in &mut groups {
                if rng.random_bool(0.3) {
                    *g = 0;
                }
            }
            let v6 = Ipv6Addr::from(groups);
            let text = v6.to_string();
            // Every plain form std writes is taken (mapped ones have a dot).
            assert_eq!(agrees(text.as_bytes()), !text.contains('.'), "{text}");
            assert!(agrees(text.to_uppercase().as_bytes()) || text.contains('.'));
            // The full form, with leading zeros.
            let full = groups.map(|g| format!("{g:04x}")).join(":");
            assert!(agrees(full.as_bytes()), "{full}");
        }
        // The full form: taken exactly when it is its own canonical text.
        for _ in 0..200_000 {
            let groups: [u16; 8] = rng
                .random::<[u16; 8]>()
                .map(|g| g >> rng.random_range(0..5));
            let text = groups.map(|g| format!("{g:04x}")).join(":");
            let a = Ipv6Addr::from(groups);
            let canonical = a.to_string() == text;
            assert_eq!(full_v6(text.as_bytes()).is_some(), canonical, "{text}");
            if canonical {
                assert_eq!(full_v6(text.as_bytes()), Some(a));
                assert!(agrees(text.as_bytes()));
                assert_eq!(parse(text.as_bytes()), Some(IpAddr::V6(a)));
            }
            assert_eq!(
                full_v6(text.to_uppercase().as_bytes()).is_some(),
                canonical && text == text.to_uppercase()
            );
        }
        for plain in ["::", "::1", "1::", "1::2", "0.0.0.0", "255.255.255.255"] {
            assert!(agrees(plain.as_bytes()), "{plain}");
        }
    }

    /// Random mutations of addresses and random junk: never an answer
    /// `address::parse` would not give.
    #[test]
    fn mutated_and_random_inputs_never_disagree() {
        let mut rng = rand::rng();
        let alphabet = b"0123456789abcdefABCDEF:.:.:: %[]x\r\n\t-+";
        let seeds = [
            "1.2.3.4",
            "255.255.255.255",
            "::",
            "::1",
            "1::",
            "2001:db8::1",
            "1:2:3:4:5:6:7:8",
            "::ffff:1.2.3.4",
            "1:2:3:4:5:6:1.2.3.4",
            "fe80::1%eth0",
            "0:0:0:0:0:0:0:0",
            "1:0:0:2::3",
        ];
        for _ in 0..500_000 {
            let mut text = seeds.choose(&mut rng).unwrap().as_bytes().to_vec();
            for _ in 0..rng.random_range(0..4) {
                let at = rng.random_range(0..=text.len());
                let c = *alphabet.choose(&mut rng).unwrap();
                match rng.random_range(0..3) {
                    0 => text.insert(at, c),
                    1 if at < text.len() => {
                        text.remove(at);
                    }
                    _ if at < text.len() => text[at] = c,
                    _ => {}
                }
            }
            agrees(&text);
            if let Some(a) = full_v6(&text) {
                assert_eq!(a.to_string().as_bytes(), &text[..]);
            }
            let len = rng.random_range(0..48);
            let junk: Vec<u8> = (0..len)
                .map(|_| *alphabet.choose(&mut rng).unwrap())
                .collect();
            agrees(&junk);
        }
        for odd in [
            ":",
            ":::",
            "1:::2",
            ":1::",
            "1::2::3",
            "1:2:3:4:5:6:7:8:9",
            "1:2:3:4::5:6:7:8",
            "12345::",
            "1.2.3",
            "1.2.3.4.5",
            "01.2.3.4",
            "256.1.1.1",
            "1.2.3.4 ",
            "",
            "1:2:3:4:5:6:7:",
            ":1:2:3:4:5:6:7",
            "1:2:3:4:5:6:7:8::",
            "::1:2:3:4:5:6:7:8",
        ] {
            agrees(odd.as_bytes());
        }
    }
}
