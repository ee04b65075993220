//! Autonomous systems as a whole: every range the ASN table attributes to
//! one AS number, merged and cut into CIDR blocks, and the countries its
//! IPv4 space lies in ([`AsSystem`]).
//!
//! The lookup of one address never needs this, so the [`AsnIndex`] (AS
//! number -> its rows, per family) is built on the first AS question a
//! release gets ([`super::GeoDb::autonomous_system`]), not at start: for the
//! embedded release it holds 3.0 MiB (4 bytes per ASN row, 8 per AS) and
//! takes one pass and one sort (0.36 s in a debug build, where AS174's
//! 9,514 prefixes then take 11 ms; resident memory grew by 5.7 MB while it
//! was built, the sort's pairs included). Measured on the debug binary
//! serving the embedded data: 54.5 MB resident before the first AS
//! question, 65.3 MB after it (the index, the ASN tables paged in from the
//! binary, the sort's freed pairs), 0.34 s for that first answer, 1.4 ms for
//! the next. A service that is never asked about an
//! AS pays neither in start time nor in memory; the first AS question of a
//! release (after each reload too) pays both once.

use std::collections::HashMap;
use std::net::{Ipv4Addr, Ipv6Addr};

use ipnet::{Ipv4Net, Ipv4Subnets, Ipv6Net, Ipv6Subnets};

use iplookup_data::networks::Networks;
use iplookup_data::ranges::{Key, RangeTable};

use super::countries::{Country, CountryTable};
use iplookup_data::tables::{AsnTables, CountryTables};

/// The rows of one family grouped by AS number: `rows[offsets[i]..offsets[i + 1]]`
/// are the row indexes (ascending) of the AS `asns[i]`.
#[derive(Debug, Default)]
struct Family {
    asns: Box<[u32]>,
    offsets: Box<[u32]>,
    rows: Box<[u32]>,
}

impl Family {
    /// Groups the rows of `table` (network ids) by the AS number they name.
    fn build<K: Key>(table: &RangeTable<K, u32>, networks: &Networks) -> Family {
        // (AS number, row) pairs sorted: rows of one AS in address order.
        let mut pairs: Vec<(u32, u32)> = table
            .values()
            .iter()
            .enumerate()
            .filter_map(|(i, id)| Some((networks.get(*id)?.0, i as u32)))
            .collect();
        pairs.sort_unstable();
        let (mut asns, mut offsets) = (Vec::new(), Vec::new());
        for (at, (asn, _)) in pairs.iter().enumerate() {
            if asns.last() != Some(asn) {
                asns.push(*asn);
                offsets.push(at as u32);
            }
        }
        offsets.push(pairs.len() as u32);
        Family {
            asns: asns.into(),
            offsets: offsets.into(),
            rows: pairs.into_iter().map(|(_, row)| row).collect(),
        }
    }

    /// The row indexes of `asn`, ascending (empty when it has none).
    fn rows(&self, asn: u32) -> &[u32] {
        let Ok(i) = self.asns.binary_search(&asn) else {
            return &[];
        };
        let (a, b) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
        self.rows.get(a..b).unwrap_or_default()
    }

    /// Bytes held, for the memory figures.
    fn bytes(&self) -> usize {
        4 * (self.asns.len() + self.offsets.len() + self.rows.len())
    }
}

/// AS number -> the rows of the ASN tables that name it, per family.
#[derive(Debug, Default)]
pub struct AsnIndex {
    v4: Family,
    v6: Family,
}

impl AsnIndex {
    /// Groups both tables' rows by AS number.
    pub fn build(asn: &AsnTables) -> AsnIndex {
        AsnIndex {
            v4: Family::build(&asn.v4, &asn.networks),
            v6: Family::build(&asn.v6, &asn.networks),
        }
    }

    /// Bytes held by the index.
    pub fn bytes(&self) -> usize {
        self.v4.bytes() + self.v6.bytes()
    }
}

/// What the data says of one autonomous system.
#[derive(Debug, Clone, PartialEq)]
pub struct AsSystem<'a> {
    pub asn: u32,
    /// The organisation name of most of its rows (the data may name one AS
    /// differently on different rows; ties go to the lowest address).
    pub name: &'a str,
    /// Its IPv4 ranges, adjacent rows merged, ascending (inclusive ends).
    pub v4: Vec<(u32, u32)>,
    /// Its IPv6 ranges, likewise.
    pub v6: Vec<(u128, u128)>,
    /// The countries its IPv4 addresses lie in and how many of them, most first
    /// (addresses in no country row are counted nowhere).
    pub countries: Vec<(&'static Country, u64)>,
}

impl AsSystem<'_> {
    /// The IPv4 ranges as their minimal CIDR cover.
    pub fn prefixes_v4(&self) -> impl Iterator<Item = Ipv4Net> + '_ {
        self.v4
            .iter()
            .flat_map(|&(s, e)| Ipv4Subnets::new(Ipv4Addr::from(s), Ipv4Addr::from(e), 0))
    }

    /// The IPv6 ranges as their minimal CIDR cover.
    pub fn prefixes_v6(&self) -> impl Iterator<Item = Ipv6Net> + '_ {
        self.v6
            .iter()
            .flat_map(|&(s, e)| Ipv6Subnets::new(Ipv6Addr::from(s), Ipv6Addr::from(e), 0))
    }

    /// IPv4 addresses in all.
    pub fn addresses_v4(&self) -> u64 {
        self.v4.iter().map(|&(s, e)| u64::from(e - s) + 1).sum()
    }

    /// IPv6 addresses in all (saturating at `u128::MAX`: the whole family
    /// would be one more than it holds).
    pub fn addresses_v6(&self) -> u128 {
        self.v6.iter().fold(0u128, |n, &(s, e)| {
            n.saturating_add(e - s).saturating_add(1)
        })
    }
}

/// The autonomous system `asn` in the tables, `None` when no row names it.
pub fn system<'a>(
    index: &AsnIndex,
    asn_tables: &'a AsnTables,
    country: &CountryTables,
    countries: &'static CountryTable,
    asn: u32,
) -> Option<AsSystem<'a>> {
    let (r4, r6) = (index.v4.rows(asn), index.v6.rows(asn));
    if r4.is_empty() && r6.is_empty() {
        return None;
    }
    let v4 = merged(&asn_tables.v4, r4);
    let v6 = merged(&asn_tables.v6, r6);
    Some(AsSystem {
        asn,
        name: name(asn_tables, r4, r6),
        countries: shares(&country.v4, &v4, countries),
        v4,
        v6,
    })
}

/// The spans of rows `rows` (ascending indexes) of `table`, adjacent ones merged.
fn merged<K: Key>(table: &RangeTable<K, u32>, rows: &[u32]) -> Vec<(K, K)> {
    let mut out: Vec<(K, K)> = Vec::new();
    for &i in rows {
        let (s, e) = table.span_at(i as usize);
        match out.last_mut() {
            Some(last) if last.1.succ() == Some(s) => last.1 = e,
            _ => out.push((s, e)),
        }
    }
    out
}

/// The organisation most rows of the AS name.
fn name<'a>(asn: &'a AsnTables, r4: &[u32], r6: &[u32]) -> &'a str {
    let ids = r4
        .iter()
        .map(|i| asn.v4.values()[*i as usize])
        .chain(r6.iter().map(|i| asn.v6.values()[*i as usize]));
    let mut counts: Vec<(u32, usize)> = Vec::new();
    for id in ids {
        match counts.iter_mut().find(|(k, _)| *k == id) {
            Some((_, n)) => *n += 1,
            None => counts.push((id, 1)),
        }
    }
    // max_by_key keeps the last of equals: reverse so the first seen wins.
    let best = counts
        .iter()
        .rev()
        .max_by_key(|(_, n)| *n)
        .map(|(id, _)| *id);
    best.and_then(|id| asn.networks.get(id))
        .map_or("", |(_, name)| name)
}

/// How many addresses of `ranges` lie in each country of `table`, most first.
fn shares(
    table: &RangeTable<u32, u16>,
    ranges: &[(u32, u32)],
    countries: &'static CountryTable,
) -> Vec<(&'static Country, u64)> {
    let mut by_code: HashMap<u16, u64> = HashMap::new();
    for &(s, e) in ranges {
        let mut i = table.index_of(s);
        loop {
            let (cs, ce) = table.span_at(i);
            let code = table.values()[i.min(table.len() - 1)];
            if code != 0 {
                *by_code.entry(code).or_default() += u64::from(ce.min(e) - cs.max(s)) + 1;
            }
            if ce >= e || i + 1 >= table.len() {
                break;
            }
            i += 1;
        }
    }
    let mut out: Vec<(&'static Country, u64)> = by_code
        .into_iter()
        .filter_map(|(code, n)| Some((countries.get_packed(code)?, n)))
        .collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.code.cmp(&b.0.code)));
    out
}

#[cfg(test)]
mod tests {
    use crate::GeoDb;
    use crate::geo::release::Release;
    use iplookup_data::networks::NetworksBuilder;
    use iplookup_data::ranges::{RangeTable, TableBuilder};
    use iplookup_data::tables::{AsnTables, CountryTables};

    fn code(c: &[u8; 2]) -> u16 {
        u16::from_be_bytes(*c)
    }

    /// A small release: AS 64500 holds 10.0.0.0-10.0.1.255 in two adjacent
    /// rows under two names (merged into one range, a /23), then
    /// 10.0.3.0-10.0.3.127 after a gap; the country rows split its space
    /// between DE (10.0.0.0-10.0.0.255 and 10.0.3.0-10.0.3.255) and FR
    /// (10.0.1.0-10.0.1.127), with 10.0.1.128-10.0.1.255 in no country.
    fn small() -> GeoDb {
        let (mut c, mut a) = (
            TableBuilder::<u32, u16>::default(),
            TableBuilder::<u32, u32>::default(),
        );
        let ip = |s: &str| u32::from(s.parse::<std::net::Ipv4Addr>().unwrap());
        c.push(ip("10.0.0.0"), ip("10.0.0.255"), code(b"DE"), false)
            .unwrap();
        c.push(ip("10.0.1.0"), ip("10.0.1.127"), code(b"FR"), false)
            .unwrap();
        c.push(ip("10.0.3.0"), ip("10.0.3.255"), code(b"DE"), false)
            .unwrap();
        let mut nets = NetworksBuilder::default();
        let (first, second) = (
            nets.intern(64500, "Old Name"),
            nets.intern(64500, "New Name"),
        );
        a.push(ip("10.0.0.0"), ip("10.0.0.255"), first, false)
            .unwrap();
        a.push(ip("10.0.1.0"), ip("10.0.1.255"), second, false)
            .unwrap();
        a.push(ip("10.0.3.0"), ip("10.0.3.127"), second, false)
            .unwrap();
        let (cs, cv) = c.finish();
        let (as_, av) = a.finish();
        let country = CountryTables {
            v4: RangeTable::new(cs.into(), cv.into()).unwrap(),
            v6: RangeTable::new(vec![0].into(), vec![0].into()).unwrap(),
        };
        let asn = AsnTables {
            v4: RangeTable::new(as_.into(), av.into()).unwrap(),
            v6: RangeTable::new(vec![0].into(), vec![0].into()).unwrap(),
            networks: nets.finish(),
        };
        GeoDb::new(country, asn, Release::default()).unwrap()
    }

    #[test]
    fn rows_merge_and_countries_share_out_the_ipv4_space() {
        let db = small();
        let s = db.autonomous_system(64500).unwrap();
        assert_eq!(s.name, "New Name", "the name of most rows");
        let v4: Vec<String> = s.prefixes_v4().map(|n| n.to_string()).collect();
        assert_eq!(v4, ["10.0.0.0/23", "10.0.3.0/25"]);
        assert_eq!(s.addresses_v4(), 512 + 128);
        assert_eq!((s.prefixes_v6().count(), s.addresses_v6()), (0, 0));
        let shares: Vec<(&str, u64)> = s
            .countries
            .iter()
            .map(|(c, n)| (c.code.as_str(), *n))
            .collect();
        assert_eq!(shares, [("DE", 256 + 128), ("FR", 128)]);
        assert_eq!(db.autonomous_system(64501), None);
    }

    /// Cloudflare's rows in the embedded release: 1.0.0.0/24 is one of its
    /// prefixes, the prefixes cover exactly the merged ranges, and the
    /// country shares add up to at most its IPv4 space.
    #[test]
    fn embedded_cloudflare_is_whole() {
        let db = GeoDb::embedded().unwrap();
        let system = db.autonomous_system(13335).unwrap();
        assert_eq!(system.name, "Cloudflare, Inc.");
        let v4: Vec<_> = system.prefixes_v4().collect();
        assert!(v4.contains(&"1.0.0.0/24".parse().unwrap()));
        let covered: u64 = v4.iter().map(|n| 1u64 << (32 - n.prefix_len())).sum();
        assert_eq!(covered, system.addresses_v4());
        let in_countries: u64 = system.countries.iter().map(|(_, n)| n).sum();
        assert!(in_countries <= system.addresses_v4() && in_countries > 0);
        assert!(system.prefixes_v6().count() > 0);
        assert_eq!(db.autonomous_system(4_294_967_295), None);
        assert_eq!(db.autonomous_system(0), None);
    }
}
