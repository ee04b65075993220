//! What the data says of a prefix ([`PrefixView`]): the data's rows it lies
//! in or covers (the entries of the merged index, each with one country and
//! one AS, or none: a gap in both tables), the row that holds all of it and
//! the largest CIDR block of that row around it (the covering prefix), and
//! for each row inside it its CIDR blocks (the more specific prefixes).
//!
//! A wide prefix covers many rows (`0.0.0.0/0`: every IPv4 entry), so they
//! come in pages: a page is found by its position in the index (the first
//! entry the prefix touches, plus the offset), so it costs what it lists,
//! never the rows before it.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use iplookup_data::index::{self, CodeBook, Slot};
use iplookup_data::networks::Networks;
use iplookup_data::ranges::{Key, RangeTable};
use ipnet::{IpNet, Ipv4Subnets, Ipv6Subnets};

use iplookup_data::tables::Index;

use super::super::countries::{Country, CountryTable};

/// One entry of the merged index under a prefix, clipped to it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PrefixRow<'a> {
    /// The row's first and last address inside the prefix.
    pub first: IpAddr,
    pub last: IpAddr,
    /// Whether the row reaches past the prefix (it holds the prefix, or
    /// overlaps one of its ends).
    pub clipped: bool,
    pub country: Option<&'static Country>,
    pub network: Option<(u32, &'a str)>,
    /// `first..=last` as its minimal CIDR cover (empty for a gap).
    pub prefixes: Vec<IpNet>,
}

/// A prefix in the data: its covering block and one page of its rows.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PrefixView<'a> {
    pub net: IpNet,
    /// The largest CIDR block of the data's row that holds the whole prefix
    /// (the row `network.range` is cut from), `None` when no row with data
    /// holds all of it.
    pub covering: Option<IpNet>,
    /// The rows of this page.
    pub rows: Vec<PrefixRow<'a>>,
    /// How many rows the prefix lies in or covers, on every page.
    pub row_count: u64,
}

/// What the merged index of one family is read with.
struct Reader<'a, K: Key> {
    table: &'a RangeTable<K, Slot>,
    codes: &'a CodeBook,
    networks: &'a Networks,
    countries: &'static CountryTable,
}

/// The rows of the merged `index` over `net`: at most `count` from the
/// `offset`-th (0-based), and how many there are.
pub(crate) fn rows<'a>(
    index: &'a Index,
    networks: &'a Networks,
    countries: &'static CountryTable,
    net: IpNet,
    offset: u64,
    count: usize,
) -> (Vec<PrefixRow<'a>>, u64) {
    match net {
        IpNet::V4(n) => Reader {
            table: &index.v4,
            codes: &index.codes,
            networks,
            countries,
        }
        .rows(
            u32::from(n.network()),
            u32::from(n.broadcast()),
            offset,
            count,
            |k| IpAddr::V4(Ipv4Addr::from(k)),
        ),
        IpNet::V6(n) => Reader {
            table: &index.v6,
            codes: &index.codes,
            networks,
            countries,
        }
        .rows(
            u128::from(n.network()),
            u128::from(n.broadcast()),
            offset,
            count,
            |k| IpAddr::V6(Ipv6Addr::from(k)),
        ),
    }
}

impl<K: Key> Reader<'_, K> {
    /// The rows over `first..=last`: at most `count` from the `offset`-th,
    /// and how many there are.
    fn rows<'n>(
        &self,
        first: K,
        last: K,
        offset: u64,
        count: usize,
        ip: impl Fn(K) -> IpAddr,
    ) -> (Vec<PrefixRow<'n>>, u64)
    where
        Self: 'n,
    {
        let (i0, i1) = (self.table.index_of(first), self.table.index_of(last));
        let total = (i1 - i0 + 1) as u64;
        let start = i0.saturating_add(usize::try_from(offset).unwrap_or(usize::MAX));
        let rows = (start..=i1)
            .take(count)
            .map(|i| {
                let (s, e) = self.table.span_at(i);
                let slot = self.table.values()[i];
                let (a, b) = (s.max(first), e.min(last));
                let country = self.countries.get_packed(self.codes.code(&slot));
                let network = self.networks.get(index::network(&slot));
                let prefixes = match (country, network) {
                    (None, None) => Vec::new(),
                    _ => cover(ip(a), ip(b)),
                };
                PrefixRow {
                    first: ip(a),
                    last: ip(b),
                    clipped: s < first || e > last,
                    country,
                    network,
                    prefixes,
                }
            })
            .collect();
        (rows, total)
    }
}

/// The minimal CIDR cover of `a..=b` (one family).
fn cover(a: IpAddr, b: IpAddr) -> Vec<IpNet> {
    match (a, b) {
        (IpAddr::V4(a), IpAddr::V4(b)) => Ipv4Subnets::new(a, b, 0).map(IpNet::from).collect(),
        (IpAddr::V6(a), IpAddr::V6(b)) => Ipv6Subnets::new(a, b, 0).map(IpNet::from).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use crate::GeoDb;
    use ipnet::IpNet;

    fn net(s: &str) -> IpNet {
        s.parse().unwrap()
    }

    /// 1.0.0.0/24 is one row of Cloudflare in Australia: it covers itself.
    /// 8.8.8.0/24 lies in a row; 0.0.0.0/0 covers every IPv4 entry, in pages
    /// that are slices of one list.
    #[test]
    fn rows_and_covering_blocks_agree_with_lookups() {
        let db = GeoDb::embedded().unwrap();
        let one = db.prefix(net("1.0.0.0/24"), 0, 10);
        assert_eq!(one.covering, Some(net("1.0.0.0/24")));
        assert_eq!(one.row_count, 1);
        let row = &one.rows[0];
        assert_eq!(row.country.map(|c| c.code.as_str()), Some("AU"));
        assert_eq!(row.network.map(|n| n.0), Some(13335));
        let eight = db.prefix(net("8.8.8.0/25"), 0, 10);
        let answer = db.lookup("8.8.8.8".parse().unwrap());
        let covering = eight.covering.unwrap();
        assert!(covering.contains(&net("8.8.8.0/25")));
        assert_eq!(Some(covering), answer.range);
        let all = db.prefix(net("0.0.0.0/0"), 0, 50);
        assert_eq!(all.row_count, db.index().v4.len() as u64);
        assert_eq!(all.covering, None);
        let later = db.prefix(net("0.0.0.0/0"), 20, 10);
        assert_eq!(later.rows, all.rows[20..30]);
        // Every row's country and AS is what a lookup of its ends says.
        let wide = db.prefix(net("2c0f:f248::/32"), 0, 500);
        for r in wide.rows.iter().chain(&all.rows) {
            for ip in [r.first, r.last] {
                let a = db.lookup(ip);
                assert_eq!((a.country, a.network), (r.country, r.network), "{ip}");
            }
        }
    }
}
