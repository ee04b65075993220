//! Autonomous systems as a whole: every range the ASN table attributes to
//! one AS number, merged into ranges ([`AsSystem`]).
//!
//! The [`AsnIndex`] (AS number -> its merged runs of rows per family, with
//! the running count of the CIDR prefixes they expand to, and the name most
//! of its rows give) is built once per release, off the request path: when
//! an ASN file is loaded (on the loader thread, where [`AsnIndex::build`]
//! also refuses a file in which one AS expands to more prefixes than the
//! policy allows), and for the embedded release on the first AS question, on
//! a blocking thread (`lookup::asn`). An AS's runs then cost a binary
//! search; its prefixes, their countries and its CSV are its profile's
//! (`super::network::profiles`), built once per release and AS.
//!
//! For the embedded release the index holds 7.6 MiB (12 bytes per run, 16
//! per AS; the largest AS, AS4134, expands to 9,912 prefixes); a service
//! never asked about an AS does not build it. Measured on the debug binary
//! with the machine loaded (load average 16 on 2 cores): 4.5 s for the first
//! AS answer (the index), 20 ms for the next.

#[cfg(test)]
use std::net::{Ipv4Addr, Ipv6Addr};

#[cfg(test)]
use ipnet::{Ipv4Net, Ipv4Subnets, Ipv6Net, Ipv6Subnets};

use iplookup_data::networks::Networks;
use iplookup_data::policy::{Bound, Policy, Violation};
use iplookup_data::ranges::{Key, RangeTable};

use iplookup_data::tables::AsnTables;

/// The runs of one family grouped by AS number: `runs[offsets[i]..offsets[i + 1]]`
/// are the runs of the AS `asns[i]`, in address order; a run is the first and
/// last row of consecutive rows naming it (adjacent spans: one range), and
/// `ends[j]` is how many CIDR prefixes the runs of its AS up to run `j` expand to.
#[derive(Debug, Default)]
struct AsRuns {
    asns: Box<[u32]>,
    offsets: Box<[u32]>,
    runs: Box<[(u32, u32)]>,
    ends: Box<[u32]>,
}

/// One AS's runs and their running prefix counts in an [`AsRuns`].
type Runs<'a> = (&'a [(u32, u32)], &'a [u32]);

impl AsRuns {
    /// Groups the rows of `table` (network ids) by the AS number they name,
    /// merging consecutive rows of one AS into runs. Refuses an AS whose
    /// runs expand to more than `limit` prefixes.
    fn build<K: Key>(
        table: &RangeTable<K, u32>,
        networks: &Networks,
        limit: u64,
    ) -> Result<AsRuns, (u32, u64)> {
        // (AS number, row) pairs sorted: rows of one AS in address order.
        let mut pairs: Vec<(u32, u32)> = table
            .values()
            .iter()
            .enumerate()
            .filter_map(|(i, id)| Some((networks.get(*id)?.0, i as u32)))
            .collect();
        pairs.sort_unstable();
        let (mut asns, mut offsets) = (Vec::new(), Vec::new());
        let (mut runs, mut ends): (Vec<(u32, u32)>, Vec<u32>) = (Vec::new(), Vec::new());
        let limit = limit.min(u64::from(u32::MAX));
        let mut at = 0;
        while at < pairs.len() {
            let asn = pairs[at].0;
            asns.push(asn);
            offsets.push(runs.len() as u32);
            let first = runs.len();
            while at < pairs.len() && pairs[at].0 == asn {
                let row = pairs[at].1;
                let open = runs.len() > first;
                match runs.last_mut() {
                    Some(last) if open && last.1 + 1 == row => last.1 = row,
                    _ => runs.push((row, row)),
                }
                at += 1;
            }
            let count = |run: &(u32, u32)| {
                let (s, _) = table.span_at(run.0 as usize);
                let (_, e) = table.span_at(run.1 as usize);
                cover_count(s.wide(), e.wide(), K::BITS)
            };
            let mut total: u64 = 0;
            for (j, run) in runs[first..].iter().enumerate() {
                total += count(run);
                if total > limit {
                    // Counted to the end (no more memory) for the refusal's words.
                    total += runs[first + j + 1..].iter().map(count).sum::<u64>();
                    return Err((asn, total));
                }
                ends.push(total as u32);
            }
        }
        offsets.push(runs.len() as u32);
        Ok(AsRuns {
            asns: asns.into(),
            offsets: offsets.into(),
            runs: runs.into(),
            ends: ends.into(),
        })
    }

    /// The runs of `asn` and their running prefix counts (empty when it has none).
    fn runs(&self, asn: u32) -> Runs<'_> {
        let Ok(i) = self.asns.binary_search(&asn) else {
            return (&[], &[]);
        };
        let (a, b) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
        (
            self.runs.get(a..b).unwrap_or_default(),
            self.ends.get(a..b).unwrap_or_default(),
        )
    }

    /// How many prefixes `asn` expands to.
    fn prefixes(&self, asn: u32) -> u64 {
        self.runs(asn).1.last().map_or(0, |n| u64::from(*n))
    }

    /// Bytes held (the size figure the tests print).
    #[cfg(test)]
    fn bytes(&self) -> usize {
        4 * (self.asns.len() + self.offsets.len()) + 12 * self.runs.len()
    }
}

/// How many blocks the minimal CIDR cover of `s..=e` has, in a family of `bits` bits.
pub(crate) fn cover_count(mut s: u128, e: u128, bits: u32) -> u64 {
    let mut n = 0;
    loop {
        n += 1;
        let aligned = s.trailing_zeros().min(bits);
        let left = e - s; // addresses after s
        let fits = if left == u128::MAX {
            128
        } else {
            127 - (left + 1).leading_zeros()
        };
        let k = aligned.min(fits);
        if k >= 128 {
            return n;
        }
        let last = s + ((1u128 << k) - 1);
        if last >= e {
            return n;
        }
        s = last + 1;
    }
}

/// AS number -> its runs of rows per family, and the name most of its rows give.
#[derive(Debug, Default)]
pub(crate) struct AsnIndex {
    v4: AsRuns,
    v6: AsRuns,
    /// Every AS number of either family, ascending, and its network id (the name).
    names: Box<[(u32, u32)]>,
}

impl AsnIndex {
    /// Groups both tables' rows by AS number; refuses a release in which one
    /// AS expands to more CIDR prefixes than `policy` allows.
    pub(crate) fn build(asn: &AsnTables, policy: &Policy) -> Result<AsnIndex, Violation> {
        let limit = policy.max_as_prefixes;
        let refuse = |(asn, prefixes): (u32, u64)| {
            let limit = limit.min(u64::from(u32::MAX));
            Violation::Bound(Bound::AsPrefixes {
                asn,
                prefixes,
                limit,
            })
        };
        let v4 = AsRuns::build(&asn.v4, &asn.networks, limit).map_err(refuse)?;
        let v6 = AsRuns::build(&asn.v6, &asn.networks, limit).map_err(refuse)?;
        for &n in v6.asns.iter() {
            policy.check_as_prefixes(n, v4.prefixes(n) + v6.prefixes(n))?;
        }
        let names = names(asn);
        Ok(AsnIndex { v4, v6, names })
    }

    /// Bytes held by the index (the size figure the tests print).
    #[cfg(test)]
    fn bytes(&self) -> usize {
        self.v4.bytes() + self.v6.bytes() + 8 * self.names.len()
    }

    /// The name `asn` gets (that of most of its rows) among `networks`,
    /// `None` when no row names it.
    pub(crate) fn name<'n>(&self, networks: &'n Networks, asn: u32) -> Option<&'n str> {
        Some(networks.get(self.name_id(asn)?)?.1)
    }

    /// The network id whose name `asn` gets, `None` when no row names it.
    fn name_id(&self, asn: u32) -> Option<u32> {
        let i = self.names.binary_search_by_key(&asn, |(n, _)| *n).ok()?;
        Some(self.names[i].1)
    }
}

/// For every AS, the network id most of its rows name (ties: the one seen
/// first, IPv4 rows in address order, then IPv6 rows).
fn names(asn: &AsnTables) -> Box<[(u32, u32)]> {
    // Per network id: rows naming it, and the first row's position.
    let mut seen: Vec<(u64, usize)> = vec![(0, usize::MAX); asn.networks.len() + 1];
    let ids = asn.v4.values().iter().chain(asn.v6.values().iter());
    for (at, id) in ids.enumerate() {
        if let Some(slot) = seen.get_mut(*id as usize).filter(|_| *id != 0) {
            slot.0 += 1;
            slot.1 = slot.1.min(at);
        }
    }
    // (AS number, rows, first row, id), the best of each AS first.
    let mut best: Vec<(u32, u64, usize, u32)> = seen
        .iter()
        .enumerate()
        .filter(|(_, (count, _))| *count > 0)
        .filter_map(|(id, (count, first))| {
            let (number, _) = asn.networks.get(id as u32)?;
            Some((number, *count, *first, id as u32))
        })
        .collect();
    best.sort_unstable_by_key(|&(n, count, first, _)| (n, std::cmp::Reverse(count), first));
    best.dedup_by_key(|(n, ..)| *n);
    best.into_iter().map(|(n, .., id)| (n, id)).collect()
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
}

impl AsSystem<'_> {
    /// The IPv4 ranges as their minimal CIDR cover.
    #[cfg(test)]
    pub(crate) fn prefixes_v4(&self) -> impl Iterator<Item = Ipv4Net> + '_ {
        self.v4
            .iter()
            .flat_map(|&(s, e)| Ipv4Subnets::new(Ipv4Addr::from(s), Ipv4Addr::from(e), 0))
    }

    /// The IPv6 ranges as their minimal CIDR cover.
    #[cfg(test)]
    pub(crate) fn prefixes_v6(&self) -> impl Iterator<Item = Ipv6Net> + '_ {
        self.v6
            .iter()
            .flat_map(|&(s, e)| Ipv6Subnets::new(Ipv6Addr::from(s), Ipv6Addr::from(e), 0))
    }

    /// IPv4 addresses in all.
    pub(crate) fn addresses_v4(&self) -> u64 {
        self.v4.iter().map(|&(s, e)| u64::from(e - s) + 1).sum()
    }

    /// IPv6 addresses in all (saturating at `u128::MAX`: the whole family
    /// would be one more than it holds).
    pub(crate) fn addresses_v6(&self) -> u128 {
        self.v6.iter().fold(0u128, |n, &(s, e)| {
            n.saturating_add(e - s).saturating_add(1)
        })
    }
}

/// The autonomous system `asn` in the tables, `None` when no row names it.
pub(crate) fn system<'a>(
    index: &'a AsnIndex,
    asn_tables: &'a AsnTables,
    asn: u32,
) -> Option<AsSystem<'a>> {
    let id = index.name_id(asn)?;
    let ((r4, _), (r6, _)) = (index.v4.runs(asn), index.v6.runs(asn));
    let v4 = spans(&asn_tables.v4, r4);
    let v6 = spans(&asn_tables.v6, r6);
    Some(AsSystem {
        asn,
        name: asn_tables.networks.get(id).map_or("", |(_, name)| name),
        v4,
        v6,
    })
}

/// The address spans of `runs` (first and last row) of `table`.
fn spans<K: Key>(table: &RangeTable<K, u32>, runs: &[(u32, u32)]) -> Vec<(K, K)> {
    runs.iter()
        .map(|&(a, b)| (table.span_at(a as usize).0, table.span_at(b as usize).1))
        .collect()
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
        let profile = db.as_profile(64500).unwrap();
        let shares: Vec<(&str, u128)> = profile
            .countries_v4
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
        let profile = db.as_profile(13335).unwrap();
        let in_countries: u128 = profile.countries_v4.iter().map(|(_, n)| n).sum();
        assert!(in_countries <= u128::from(system.addresses_v4()) && in_countries > 0);
        assert!(system.prefixes_v6().count() > 0);
        assert_eq!(db.autonomous_system(4_294_967_295), None);
        assert_eq!(db.autonomous_system(0), None);
    }

    #[test]
    fn cover_counts_match_the_cidr_cover() {
        use super::cover_count;
        use ipnet::{Ipv4Subnets, Ipv6Subnets};
        let mut x: u128 = 0x1234_5678_9abc_def0_1122_3344_5566_7788;
        for _ in 0..2000 {
            x = x
                .wrapping_mul(0x2360_ed05_1fc6_5da4_4385_df64_9fcc_f645)
                .wrapping_add(0x5851_f42d_4c95_7f2d_1405_7b7e_f767_814f);
            let (a, b) = (x, x.rotate_left(17) >> (x % 100));
            let (s, e) = (a.min(b), a.max(b));
            let six = Ipv6Subnets::new(s.into(), e.into(), 0).count() as u64;
            assert_eq!(cover_count(s, e, 128), six, "{s:x}-{e:x}");
            let (s4, e4) = ((s >> 96) as u32, (e >> 96) as u32);
            let four = Ipv4Subnets::new(s4.into(), e4.into(), 0).count() as u64;
            assert_eq!(cover_count(s4.into(), e4.into(), 32), four);
        }
        assert_eq!(cover_count(0, u128::MAX, 128), 1);
        assert_eq!(cover_count(0, u128::from(u32::MAX), 32), 1);
        assert_eq!(cover_count(5, 5, 32), 1);
        // One address off a /64 at both ends: 126 blocks.
        assert_eq!(cover_count(1, (1 << 64) - 2, 128), 126);
    }

    /// The embedded release is within the bound on the prefixes of one AS,
    /// with room: its largest AS is printed.
    #[test]
    fn the_embedded_release_keeps_the_as_prefix_bound() {
        use super::AsnIndex;
        use iplookup_data::policy::{MAX_AS_PREFIXES, Policy};
        let db = GeoDb::embedded().unwrap();
        let started = std::time::Instant::now();
        let index = AsnIndex::build(db.asn_tables(), &Policy::default()).unwrap();
        eprintln!("built in {:?}", started.elapsed());
        let (asn, most) = index
            .names
            .iter()
            .map(|(n, _)| (*n, index.v4.prefixes(*n) + index.v6.prefixes(*n)))
            .max_by_key(|(_, p)| *p)
            .unwrap();
        eprintln!(
            "largest AS: AS{asn}, {most} prefixes; index {} bytes",
            index.bytes()
        );
        assert!(most < MAX_AS_PREFIXES / 4, "AS{asn}: {most}");
        let tight = Policy {
            max_as_prefixes: most - 1,
            ..Policy::default()
        };
        let err = AsnIndex::build(db.asn_tables(), &tight).unwrap_err();
        assert!(
            err.to_string()
                .starts_with(&format!("AS{asn} expands to {most} CIDR prefixes")),
            "{err}"
        );
    }
}
