//! CSV (RFC 4180, `\n` line ends, a field quoted only when it holds a comma,
//! a semicolon, a quote or a line break): the one writer of the CSV answers, written
//! straight into a byte buffer (no allocation per row). [`row`] writes an
//! [`IpInfo`] (the batch route, and the reference of the fast rows of
//! `iplookup lookup --format csv`, `bulk::enrich`); the cell writers
//! below ([`cell`], [`float`], [`ip`], [`net`]) are what both use.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::IpNet;

use super::{Field, IpInfo, spreadsheet_safe};

/// The name of the column after the fields: the error code of an input
/// that got no answer, empty otherwise.
pub const ERROR_COLUMN: &str = "error";

/// Appends the header row: every [`Field`], then [`ERROR_COLUMN`].
pub fn header(out: &mut Vec<u8>) {
    header_of(out, &Field::ALL);
}

/// Appends the header row of the columns `fields`, then [`ERROR_COLUMN`].
pub fn header_of(out: &mut Vec<u8>, fields: &[Field]) {
    for field in fields {
        out.extend_from_slice(field.name().as_bytes());
        out.push(b',');
    }
    out.extend_from_slice(ERROR_COLUMN.as_bytes());
    out.push(b'\n');
}

/// Appends the row of an answer (its error column empty).
pub fn row(out: &mut Vec<u8>, info: &IpInfo) {
    row_of(out, &Field::ALL, info);
}

/// Appends the row of an answer in the columns `fields` (its error column
/// empty).
pub fn row_of(out: &mut Vec<u8>, fields: &[Field], info: &IpInfo) {
    for field in fields {
        value(out, *field, info);
        out.push(b',');
    }
    out.push(b'\n');
}

/// One field's cell (without its comma).
fn value(out: &mut Vec<u8>, field: Field, info: &IpInfo) {
    let l = &info.location;
    match field {
        Field::Latitude => float(out, l.latitude),
        Field::Longitude => float(out, l.longitude),
        Field::Asn => {
            if let Some(asn) = info.network.asn {
                out.extend_from_slice(itoa::Buffer::new().format(asn).as_bytes());
            }
        }
        _ => {
            if let Some(value) = field.cell(info) {
                cell(out, &value);
            }
        }
    }
}

/// Appends the row of an input that is not an address: its text in
/// `ip` (formulas defused), `code` in the error column, the rest empty.
pub fn error_row(out: &mut Vec<u8>, input: &str, code: &str) {
    error_row_of(out, &Field::ALL, input, code);
}

/// [`error_row`] in the columns `fields` (the input in `ip` if it is one).
pub fn error_row_of(out: &mut Vec<u8>, fields: &[Field], input: &str, code: &str) {
    for field in fields {
        if *field == Field::Ip {
            cell(out, &spreadsheet_safe(input.into()));
        }
        out.push(b',');
    }
    cell(out, code);
    out.push(b'\n');
}

/// A finite number as the JSON answer writes it (zmij); nothing for
/// `None` or a non-finite number (null).
pub fn float(out: &mut Vec<u8>, value: Option<f64>) {
    if let Some(v) = value.filter(|v| v.is_finite()) {
        out.extend_from_slice(zmij::Buffer::new().format_finite(v).as_bytes());
    }
}

/// One field, quoted (its quotes doubled) when it holds `,`, `"`, CR or
/// LF, or `;` (the separator spreadsheets use in many locales: unquoted, a
/// `;=...` cell would split there and start a formula).
pub fn cell(out: &mut Vec<u8>, value: &str) {
    let bytes = value.as_bytes();
    if !bytes
        .iter()
        .any(|&b| matches!(b, b',' | b'"' | b'\r' | b'\n' | b';'))
    {
        out.extend_from_slice(bytes);
        return;
    }
    out.push(b'"');
    for &b in bytes {
        if b == b'"' {
            out.push(b'"');
        }
        out.push(b);
    }
    out.push(b'"');
}

/// An address as its `Display` writes it (`crate::address::text`: RFC 5952
/// for IPv6), appended without the formatting machinery. Never needs quoting.
pub fn ip(out: &mut Vec<u8>, ip: IpAddr) {
    let mut buf = [0u8; 48];
    let n = match ip {
        IpAddr::V4(v4) => v4_text(&mut buf, 0, v4),
        IpAddr::V6(v6) => v6_text(&mut buf, v6),
    };
    out.extend_from_slice(&buf[..n]);
}

/// A CIDR block as `ipnet`'s `Display` writes it: `{addr}/{len}`.
pub fn net(out: &mut Vec<u8>, net: &IpNet) {
    ip(out, net.addr());
    out.push(b'/');
    let len = usize::from(net.prefix_len());
    let (digits, n) = DECIMAL[len];
    out.extend_from_slice(&digits[..usize::from(n)]);
}

/// Each octet in decimal: its digits (left-aligned) and how many there are.
const DECIMAL: [([u8; 3], u8); 256] = {
    let mut table = [([0u8; 3], 0u8); 256];
    let mut i = 0;
    while i < 256 {
        let (h, t, o) = ((i / 100) as u8, (i / 10 % 10) as u8, (i % 10) as u8);
        table[i] = if i >= 100 {
            ([b'0' + h, b'0' + t, b'0' + o], 3)
        } else if i >= 10 {
            ([b'0' + t, b'0' + o, 0], 2)
        } else {
            ([b'0' + o, 0, 0], 1)
        };
        i += 1;
    }
    table
};

/// Dotted quad into `buf` at `at`; returns the end. `buf` has room for 3
/// bytes past the last digit (the table's digits are copied whole).
fn v4_text(buf: &mut [u8; 48], mut at: usize, v4: Ipv4Addr) -> usize {
    for (i, octet) in v4.octets().into_iter().enumerate() {
        if i > 0 {
            buf[at] = b'.';
            at += 1;
        }
        let (digits, n) = DECIMAL[usize::from(octet)];
        buf[at..at + 3].copy_from_slice(&digits);
        at += usize::from(n);
    }
    at
}

/// RFC 5952 into `buf`: lower-case hex without leading zeros, the first
/// longest run of two or more zero groups as `::`, IPv4-mapped addresses
/// as `::ffff:a.b.c.d` (as std writes them). Returns the end.
fn v6_text(buf: &mut [u8; 48], v6: Ipv6Addr) -> usize {
    if let Some(v4) = v6.to_ipv4_mapped() {
        buf[..7].copy_from_slice(b"::ffff:");
        return v4_text(buf, 7, v4);
    }
    let groups = v6.segments();
    let (run_at, run_len) = crate::address::zero_run(&groups);
    let mut at = 0;
    if run_len > 1 {
        at = hex_groups(buf, at, &groups[..run_at]);
        buf[at..at + 2].copy_from_slice(b"::");
        hex_groups(buf, at + 2, &groups[run_at + run_len..])
    } else {
        hex_groups(buf, at, &groups)
    }
}

/// Groups in hex separated by `:`, into `buf` at `at`; returns the end.
/// Each group's four digits are stored at once and the end moved past the
/// significant ones (no branch per digit); `buf` has room for the extra.
fn hex_groups(buf: &mut [u8; 48], mut at: usize, groups: &[u16]) -> usize {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for (i, &g) in groups.iter().enumerate() {
        if i > 0 {
            buf[at] = b':';
            at += 1;
        }
        let digits = (16 - g.leading_zeros()).div_ceil(4).max(1);
        let nibble = |shift: u16| HEX[usize::from((g >> shift) & 0xf)];
        let chars = [nibble(12), nibble(8), nibble(4), nibble(0)];
        // Little-endian: the first character is the low byte; dropping the
        // leading zeros is a shift.
        let word = u32::from_le_bytes(chars) >> (8 * (4 - digits));
        buf[at..at + 4].copy_from_slice(&word.to_le_bytes());
        at += digits as usize;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    fn text(write: impl FnOnce(&mut Vec<u8>)) -> String {
        let mut out = Vec::new();
        write(&mut out);
        String::from_utf8(out).unwrap()
    }

    /// Random addresses of every shape (zero runs of each length and place,
    /// IPv4-mapped, the ends) write as `Display` writes them.
    #[test]
    fn addresses_and_blocks_write_as_display_does() {
        let mut rng = rand::rng();
        let mut cases: Vec<IpAddr> = [
            "0.0.0.0",
            "255.255.255.255",
            "::",
            "::1",
            "1::",
            "::ffff:1.2.3.4",
            "::1.2.3.4",
            "1:0:0:1:0:0:0:1",
            "1:0:1:0:1:0:1:0",
        ]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect();
        for _ in 0..200_000 {
            let mut groups: [u16; 8] = rng.random();
            for g in &mut groups {
                // Zeros and short groups as often as long ones.
                match rng.random_range(0..4) {
                    0 => *g = 0,
                    1 => *g >>= rng.random_range(0..16),
                    _ => {}
                }
            }
            cases.push(IpAddr::from(groups));
            cases.push(IpAddr::from(rng.random::<[u8; 4]>()));
            if rng.random_bool(0.05) {
                cases.push(IpAddr::V6(
                    Ipv4Addr::from(rng.random::<u32>()).to_ipv6_mapped(),
                ));
            }
        }
        for a in cases {
            assert_eq!(text(|o| ip(o, a)), a.to_string());
            let len = rng.random_range(0..=if a.is_ipv4() { 32 } else { 128 });
            let block = IpNet::new(a, len).unwrap().trunc();
            assert_eq!(text(|o| net(o, &block)), block.to_string());
        }
    }
}
