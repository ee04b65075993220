//! AS profiles: one AS's prefixes with the country and size of each, the
//! countries of its IPv4 and of its IPv6 space, and its prefixes as CSV
//! ([`AsProfile`]), built once per release and AS and kept in a cache
//! bounded by bytes ([`Profiles`], [`PROFILE_BYTES`]).
//!
//! A profile costs one walk of the country rows under the AS's ranges and
//! the expansion of its runs into prefixes: for the largest AS of the
//! embedded release (AS4134, 9,912 prefixes) about 0.7 MiB with its CSV.
//! Every later question about the AS (a page of its prefixes, a search
//! over them, its CSV) reads the profile: the CSV is one shared buffer,
//! which every answer of it sends without a copy.

use std::collections::{HashMap, VecDeque};
use std::fmt::Write;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;
use iplookup_data::ranges::{Key, RangeTable};
use ipnet::{IpNet, Ipv4Subnets, Ipv6Subnets};

use iplookup_data::tables::CountryTables;

use super::super::asn::AsSystem;
use super::super::countries::{Country, CountryTable};

/// The most bytes the AS profiles of one release hold at once: beyond it
/// the oldest are dropped (and built again when asked for).
pub const PROFILE_BYTES: usize = 48 * 1024 * 1024;

/// One prefix of an AS: the block and the country that holds most of its
/// addresses (`None`: none of them lies in a country row).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct AsPrefix {
    pub net: IpNet,
    pub country: Option<&'static Country>,
}

impl AsPrefix {
    /// How many addresses the block holds (2^128 saturates to `u128::MAX`).
    pub(crate) fn addresses(&self) -> u128 {
        let host = u32::from(self.net.max_prefix_len() - self.net.prefix_len());
        1u128.checked_shl(host).unwrap_or(u128::MAX)
    }
}

/// What is built once per release for one AS.
#[derive(Debug)]
pub(crate) struct AsProfile {
    pub asn: u32,
    /// The organisation name most of its rows give.
    pub name: String,
    /// Its IPv4 and IPv6 addresses in all.
    pub addresses_v4: u128,
    pub addresses_v6: u128,
    /// Its IPv4 prefixes, ascending, then its IPv6 ones.
    pub v4: Box<[AsPrefix]>,
    pub v6: Box<[AsPrefix]>,
    /// The countries its IPv4 addresses lie in and how many, most first.
    pub countries_v4: Box<[(&'static Country, u128)]>,
    /// The same for its IPv6 addresses.
    pub countries_v6: Box<[(&'static Country, u128)]>,
    /// `prefix,version,country_code,addresses`, then one line per prefix.
    pub csv: Bytes,
}

/// The header line of [`AsProfile::csv`].
pub(crate) const CSV_HEADER: &str = "prefix,version,country_code,addresses\n";

impl AsProfile {
    /// The profile of `system`, its countries read from `table`.
    pub(crate) fn build(
        system: &AsSystem<'_>,
        table: &CountryTables,
        countries: &'static CountryTable,
    ) -> AsProfile {
        let (v4, countries_v4) = family(&system.v4, &table.v4, countries, |s, e| {
            Ipv4Subnets::new(Ipv4Addr::from(s), Ipv4Addr::from(e), 0)
                .map(|n| (n.into(), n.network().into(), n.broadcast().into()))
                .collect()
        });
        let (v6, countries_v6) = family(&system.v6, &table.v6, countries, |s, e| {
            Ipv6Subnets::new(Ipv6Addr::from(s), Ipv6Addr::from(e), 0)
                .map(|n| (n.into(), n.network().into(), n.broadcast().into()))
                .collect()
        });
        let mut csv = String::with_capacity(40 * (v4.len() + v6.len()) + CSV_HEADER.len());
        csv.push_str(CSV_HEADER);
        for (list, version) in [(&v4, "IPv4"), (&v6, "IPv6")] {
            for p in list.iter() {
                let code = p.country.map_or("", |c| c.code.as_str());
                let _ = writeln!(csv, "{},{version},{code},{}", p.net, p.addresses());
            }
        }
        AsProfile {
            asn: system.asn,
            name: system.name.to_owned(),
            addresses_v4: u128::from(system.addresses_v4()),
            addresses_v6: system.addresses_v6(),
            v4: v4.into(),
            v6: v6.into(),
            countries_v4: countries_v4.into(),
            countries_v6: countries_v6.into(),
            csv: Bytes::from(csv),
        }
    }

    /// The profile of an AS no row names (a special-purpose number):
    /// no prefixes, `name` for its name.
    pub(crate) fn empty(asn: u32, name: &str) -> AsProfile {
        AsProfile {
            asn,
            name: name.to_owned(),
            addresses_v4: 0,
            addresses_v6: 0,
            v4: Box::new([]),
            v6: Box::new([]),
            countries_v4: Box::new([]),
            countries_v6: Box::new([]),
            csv: Bytes::from_static(CSV_HEADER.as_bytes()),
        }
    }

    /// Bytes held (what the cache counts).
    pub(crate) fn bytes(&self) -> usize {
        let prefix = std::mem::size_of::<AsPrefix>();
        let country = std::mem::size_of::<(&Country, u128)>();
        std::mem::size_of::<AsProfile>()
            + prefix * (self.v4.len() + self.v6.len())
            + country * (self.countries_v4.len() + self.countries_v6.len())
            + self.csv.len()
            + self.name.len()
    }
}

/// The prefixes of `ranges` (cut by `cover`) with the country of each, and
/// the countries of all of them, most addresses first.
fn family<K: Key>(
    ranges: &[(K, K)],
    table: &RangeTable<K, u16>,
    countries: &'static CountryTable,
    cover: impl Fn(K, K) -> Vec<(IpNet, K, K)>,
) -> (Vec<AsPrefix>, Vec<(&'static Country, u128)>) {
    let mut prefixes = Vec::new();
    let mut total: HashMap<u16, u128> = HashMap::new();
    for &(s, e) in ranges {
        for (net, first, last) in cover(s, e) {
            let mut here: Vec<(u16, u128)> = Vec::new();
            walk(table, first, last, |code, n| {
                *total.entry(code).or_default() += n;
                match here.iter_mut().find(|(c, _)| *c == code) {
                    Some(slot) => slot.1 += n,
                    None => here.push((code, n)),
                }
            });
            let most = here
                .iter()
                .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
                .and_then(|(code, _)| countries.get_packed(*code));
            prefixes.push(AsPrefix { net, country: most });
        }
    }
    let mut by_country: Vec<(&'static Country, u128)> = total
        .into_iter()
        .filter_map(|(code, n)| Some((countries.get_packed(code)?, n)))
        .collect();
    by_country.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.code.cmp(&b.0.code)));
    (prefixes, by_country)
}

/// Calls `add(code, addresses)` for each country row overlapping `s..=e`.
pub(crate) fn walk<K: Key>(table: &RangeTable<K, u16>, s: K, e: K, mut add: impl FnMut(u16, u128)) {
    let mut i = table.index_of(s);
    loop {
        let (cs, ce) = table.span_at(i);
        let code = table.values()[i.min(table.len() - 1)];
        if code != 0 {
            add(code, ce.min(e).wide() - cs.max(s).wide() + 1);
        }
        if ce >= e || i + 1 >= table.len() {
            break;
        }
        i += 1;
    }
}

/// The profiles of one release, at most [`PROFILE_BYTES`] of them; the
/// oldest go first.
#[derive(Debug, Default)]
pub(crate) struct Profiles {
    kept: Mutex<Kept>,
}

#[derive(Debug, Default)]
struct Kept {
    by_asn: HashMap<u32, Arc<AsProfile>>,
    order: VecDeque<u32>,
    bytes: usize,
}

impl Profiles {
    /// The profile of `asn`, if it is kept.
    pub(crate) fn get(&self, asn: u32) -> Option<Arc<AsProfile>> {
        self.lock().by_asn.get(&asn).cloned()
    }

    /// Keeps `profile`, dropping the oldest while the bound is passed (a
    /// profile larger than the bound alone is not kept).
    pub(crate) fn keep(&self, asn: u32, profile: Arc<AsProfile>) {
        let size = profile.bytes();
        if size > PROFILE_BYTES {
            return;
        }
        let mut kept = self.lock();
        if kept.by_asn.contains_key(&asn) {
            return;
        }
        while kept.bytes + size > PROFILE_BYTES {
            let Some(old) = kept.order.pop_front() else {
                break;
            };
            if let Some(gone) = kept.by_asn.remove(&old) {
                kept.bytes -= gone.bytes();
            }
        }
        kept.bytes += size;
        kept.order.push_back(asn);
        kept.by_asn.insert(asn, profile);
    }

    /// Bytes kept now, and the bound.
    pub(crate) fn bytes(&self) -> (usize, usize) {
        (self.lock().bytes, PROFILE_BYTES)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use crate::GeoDb;

    /// Cloudflare's profile: the prefixes of its system, each with the
    /// country of most of its addresses; the country counts add up to at
    /// most its space; the CSV has a line per prefix.
    #[test]
    fn a_profile_holds_every_prefix_with_its_country() {
        let db = GeoDb::embedded().unwrap();
        let system = db.autonomous_system(13335).unwrap();
        let profile = db.as_profile(13335).unwrap();
        let v4: Vec<_> = system.prefixes_v4().map(ipnet::IpNet::from).collect();
        let listed: Vec<_> = profile.v4.iter().map(|p| p.net).collect();
        assert_eq!(listed, v4);
        let one = profile
            .v4
            .iter()
            .find(|p| p.net.to_string() == "1.0.0.0/24")
            .unwrap();
        assert_eq!(one.country.map(|c| c.code.as_str()), Some("AU"));
        assert_eq!(one.addresses(), 256);
        let in_countries: u128 = profile.countries_v4.iter().map(|(_, n)| n).sum();
        assert!(in_countries <= u128::from(system.addresses_v4()));
        assert!(!profile.countries_v6.is_empty());
        let csv = std::str::from_utf8(&profile.csv).unwrap();
        assert_eq!(csv.lines().count(), 1 + profile.v4.len() + profile.v6.len());
        assert!(csv.contains("\n1.0.0.0/24,IPv4,AU,256\n"));
        assert!(std::sync::Arc::ptr_eq(
            &profile,
            &db.as_profile(13335).unwrap()
        ));
        let (held, bound) = db.as_profile_bytes();
        assert!(held >= profile.bytes() && held <= bound);
    }

    /// Every AS's profile once: what they would hold together unbounded,
    /// the largest, and what the cache keeps (the figures of
    /// `BENCHMARKS.md`, "The network view").
    #[test]
    #[ignore = "a measurement: builds every AS's profile (about a minute in a debug build)"]
    fn every_profile_once_stays_within_the_bound() {
        let db = GeoDb::embedded().unwrap();
        let started = std::time::Instant::now();
        let asns: Vec<u32> = {
            let mut n: Vec<u32> = db
                .asn_tables()
                .v4
                .values()
                .iter()
                .chain(db.asn_tables().v6.values())
                .filter_map(|id| db.asn_tables().networks.get(*id).map(|(n, _)| n))
                .collect();
            n.sort_unstable();
            n.dedup();
            n
        };
        let (mut total, mut largest) = (0usize, (0usize, 0u32));
        for asn in &asns {
            let profile = db.as_profile(*asn).unwrap();
            total += profile.bytes();
            largest = largest.max((profile.bytes(), *asn));
            let (held, bound) = db.as_profile_bytes();
            assert!(held <= bound, "{held} > {bound}");
        }
        eprintln!(
            "{} ASes in {:?}: profiles {} bytes together, largest AS{} {} bytes; kept {:?}",
            asns.len(),
            started.elapsed(),
            total,
            largest.1,
            largest.0,
            db.as_profile_bytes()
        );
    }
}
