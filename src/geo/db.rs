//! [`GeoDb`]: one immutable release of the address data, and the lookup of
//! one address in it ([`Answer`]).
//!
//! The tables and the merged index come from the data layer
//! (`iplookup_data::tables`); this module adds the country metadata, the
//! optional city database and the release description, and turns what the
//! index says into an answer: country, network, city and `network.range` as
//! an [`IpNet`].

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::{Arc, OnceLock};

use ipnet::IpNet;

use iplookup_data::DataError;
use iplookup_data::index::{self, Slot};
use iplookup_data::prefetch::prefetch;
use iplookup_data::ranges::{Key, RangeTable, Run};
use iplookup_data::snapshot::{self, Parts};
use iplookup_data::tables::{self, AsnTables, Checks, CountryTables, Index};

use super::block;
use super::countries::{Country, CountryTable};
use super::error::GeoError;
use super::mmdb::{self, City, CityTables};
use super::network::Caches;
use super::release::{Release, SourceInfo};

/// The snapshot written by `build.rs`, aligned so its arrays can be used in place.
#[repr(C, align(16))]
struct Aligned<T: ?Sized>(T);
static EMBEDDED: &Aligned<[u8]> =
    &Aligned(*include_bytes!(concat!(env!("OUT_DIR"), "/snapshot.bin")));

/// Addresses looked up together by [`GeoDb::lookup_many`]: enough for
/// their memory reads to overlap, few enough for the processor to keep them
/// all in flight.
const GROUP: usize = 32;

/// One family's merged index and the source tables it was merged from.
type Family<'a, K> = (
    &'a RangeTable<K, Slot>,
    &'a RangeTable<K, u16>,
    &'a RangeTable<K, u32>,
);

/// One immutable release of the address data.
#[derive(Debug)]
pub struct GeoDb {
    /// The source tables: kept for reloads that replace only one of them,
    /// and for the rare range the index could not store.
    country: CountryTables,
    asn: AsnTables,
    /// What lookups search.
    index: Index,
    /// The country of each code book entry (`None`: no data or unknown code).
    country_of: Box<[Option<&'static Country>]>,
    city: Option<CityTables>,
    countries: &'static CountryTable,
    release: Release,
    /// [`Release::tag`], computed once.
    tag: OnceLock<Arc<str>>,
    /// What is built once per release for the network view: the AS index,
    /// the country tables, AS profiles ([`super::network`]).
    pub(super) network: Caches,
}

/// What the data says of one address.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Answer<'a> {
    /// From the country table, which is compiled in and lives as long as the process.
    pub country: Option<&'static Country>,
    /// AS number and organisation.
    pub network: Option<(u32, &'a str)>,
    /// The city, when a city database is loaded and knows the address.
    pub city: Option<&'a City>,
    /// `network.range`: the largest CIDR block that holds the address and
    /// lies inside its source row (the ASN row, or the country row where the
    /// ASN table has no data; see [`GeoDb::row`]); `None` when neither has data.
    pub range: Option<IpNet>,
}

impl GeoDb {
    /// The release compiled into the binary.
    pub fn embedded() -> Result<GeoDb, GeoError> {
        let mut db = GeoDb::from_snapshot(snapshot::decode(&EMBEDDED.0)?, Checks::Built)?;
        // The snapshot's digest, once per process: the embedded release's identity.
        static DIGEST: OnceLock<u64> = OnceLock::new();
        let digest = *DIGEST.get_or_init(|| super::release::Digest::of(&EMBEDDED.0));
        db.release.country.digest = digest;
        db.release.asn.digest = digest;
        Ok(db)
    }

    /// Assembles a database from snapshot arrays, checking every array.
    pub fn from_parts(parts: Parts<'static>, release: Release) -> Result<GeoDb, GeoError> {
        let (country, asn, index, _) = tables::from_snapshot(parts, Checks::Full)?;
        GeoDb::assemble(country, asn, index, release)
    }

    /// A database from a snapshot, described by the snapshot's own metadata.
    fn from_snapshot(parts: Parts<'static>, checks: Checks) -> Result<GeoDb, GeoError> {
        let (country, asn, index, meta) = tables::from_snapshot(parts, checks)?;
        GeoDb::assemble(country, asn, index, Release::from_meta(&meta))
    }

    /// Assembles a database from tables, checking every id points somewhere.
    pub(crate) fn new(
        country: CountryTables,
        asn: AsnTables,
        release: Release,
    ) -> Result<GeoDb, GeoError> {
        asn.check_ids()?;
        let index = Index::build(&country, &asn)?;
        GeoDb::assemble(country, asn, index, release)
    }

    /// The same country and ASN data under `release`, without city tables:
    /// the index is copied rather than built again (for a data directory or
    /// a reload that changes neither table: building it pages in the whole
    /// embedded snapshot and allocates a second index).
    pub(crate) fn same_tables(&self, release: Release) -> GeoDb {
        GeoDb {
            country: self.country.clone(),
            asn: self.asn.clone(),
            index: self.index.clone(),
            country_of: self.country_of.clone(),
            city: None,
            countries: self.countries,
            release,
            tag: OnceLock::new(),
            // The same tables: the same caches, when they are built.
            network: self.network.same_tables(),
        }
    }

    /// Puts the parts together (the index already checked against the tables).
    fn assemble(
        country: CountryTables,
        asn: AsnTables,
        index: Index,
        release: Release,
    ) -> Result<GeoDb, GeoError> {
        let countries = CountryTable::embedded()?;
        let country_of = index
            .codes
            .codes()
            .iter()
            .map(|c| countries.get_packed(*c))
            .collect();
        Ok(GeoDb {
            country,
            asn,
            index,
            country_of,
            city: None,
            countries,
            release,
            tag: OnceLock::new(),
            network: Caches::default(),
        })
    }

    /// Adds a city database, checking its ids.
    pub fn with_city(mut self, city: CityTables, info: SourceInfo) -> Result<GeoDb, GeoError> {
        let max = city.cities.len() as u32;
        let ids = city.v4.values().iter().chain(city.v6.values());
        if ids.into_iter().any(|id| mmdb::city_number(*id) > max) {
            return Err(DataError::Networks("city id out of range").into());
        }
        city.v4.prepare();
        city.v6.prepare();
        self.city = Some(city);
        self.release.city = Some(info);
        self.tag = OnceLock::new();
        Ok(self)
    }

    /// The city tables, if a city database is loaded.
    pub fn city_tables(&self) -> Option<&CityTables> {
        self.city.as_ref()
    }

    /// The releases this database holds.
    pub fn release(&self) -> &Release {
        &self.release
    }

    /// The [`Release::tag`] of this database, computed once.
    pub(crate) fn tag(&self) -> Arc<str> {
        self.tag.get_or_init(|| self.release.tag().into()).clone()
    }

    /// The country metadata table.
    pub fn countries(&self) -> &'static CountryTable {
        self.countries
    }

    /// The country tables.
    pub fn country_tables(&self) -> &CountryTables {
        &self.country
    }

    /// The ASN tables.
    pub fn asn_tables(&self) -> &AsnTables {
        &self.asn
    }

    /// The merged index lookups search.
    pub fn index(&self) -> &Index {
        &self.index
    }

    /// Looks an address up: one search of the merged index. IPv4-mapped
    /// IPv6 addresses are looked up as IPv6: callers convert them first.
    #[inline]
    pub fn lookup(&self, ip: IpAddr) -> Answer<'_> {
        match ip {
            IpAddr::V4(a) => {
                let key = u32::from(a);
                let city = self
                    .city
                    .as_ref()
                    .map_or(0, |c| mmdb::city_number(c.v4.value(key)));
                let t = (&self.index.v4, &self.country.v4, &self.asn.v4);
                let (mut answer, row) = self.find(t, key, city);
                answer.range = row.and_then(|(s, e)| block::block_v4(key, s, e));
                answer
            }
            IpAddr::V6(a) => {
                let key = u128::from(a);
                let city = self
                    .city
                    .as_ref()
                    .map_or(0, |c| mmdb::city_number(c.v6.value(key)));
                let t = (&self.index.v6, &self.country.v6, &self.asn.v6);
                let (mut answer, row) = self.find(t, key, city);
                answer.range = row.and_then(|(s, e)| block::block_v6(key, s, e));
                answer
            }
        }
    }

    /// Looks up many addresses at once: [`GeoDb::lookup`] of each, in input
    /// order, into `answers` (cleared first). The lookups go in steps, each
    /// step over a group of addresses before the next (directory slot, run
    /// of starts, entry, AS record), every step asking memory ahead for the
    /// next one's reads, so that an address's waits for memory overlap the
    /// others' instead of following them: bulk enrichment reads a different
    /// part of the index for every address (`BENCHMARKS.md`).
    pub fn lookup_many<'a>(&'a self, ips: &[IpAddr], answers: &mut Vec<Answer<'a>>) {
        answers.clear();
        if self.city.is_some() {
            return answers.extend(ips.iter().map(|ip| self.lookup(*ip)));
        }
        for group in ips.chunks(GROUP) {
            for ip in group {
                match *ip {
                    IpAddr::V4(a) => self.index.v4.prefetch(u32::from(a)),
                    IpAddr::V6(a) => self.index.v6.prefetch(u128::from(a)),
                }
            }
            let mut runs = [Run::default(); GROUP];
            for (ip, run) in group.iter().zip(&mut runs) {
                *run = match *ip {
                    IpAddr::V4(a) => self.index.v4.narrow(u32::from(a)),
                    IpAddr::V6(a) => self.index.v6.narrow(u128::from(a)),
                };
            }
            let mut found = [0usize; GROUP];
            for ((ip, run), at) in group.iter().zip(&runs).zip(&mut found) {
                *at = match *ip {
                    IpAddr::V4(a) => self.index.v4.search(u32::from(a), *run),
                    IpAddr::V6(a) => self.index.v6.search(u128::from(a), *run),
                };
                if let Some(slot) = self.slot(*ip, *at) {
                    prefetch(slot);
                }
            }
            for (ip, at) in group.iter().zip(&found) {
                if let Some(slot) = self.slot(*ip, *at) {
                    self.asn.networks.prefetch(index::network(slot));
                }
            }
            answers.extend(
                group
                    .iter()
                    .zip(&found)
                    .map(|(ip, at)| self.answer_at(*ip, *at)),
            );
        }
    }

    /// The index entry `at` of `ip`'s family.
    #[inline]
    fn slot(&self, ip: IpAddr, at: usize) -> Option<&Slot> {
        match ip {
            IpAddr::V4(_) => self.index.v4.values().get(at),
            IpAddr::V6(_) => self.index.v6.values().get(at),
        }
    }

    /// [`GeoDb::lookup`] of `ip` (no city database), its index entry `at`
    /// already found.
    fn answer_at(&self, ip: IpAddr, at: usize) -> Answer<'_> {
        match ip {
            IpAddr::V4(a) => {
                let key = u32::from(a);
                let t = (&self.index.v4, &self.country.v4, &self.asn.v4);
                let (mut answer, row) = self.found(t, key, at, 0);
                answer.range = row.and_then(|(s, e)| block::block_v4(key, s, e));
                answer
            }
            IpAddr::V6(a) => {
                let key = u128::from(a);
                let t = (&self.index.v6, &self.country.v6, &self.asn.v6);
                let (mut answer, row) = self.found(t, key, at, 0);
                answer.range = row.and_then(|(s, e)| block::block_v6(key, s, e));
                answer
            }
        }
    }

    /// The source row `network.range` is cut from (the ASN row, or the
    /// country row where the ASN table has no data), `None` when neither
    /// table has data for `ip`.
    pub fn row(&self, ip: IpAddr) -> Option<(IpAddr, IpAddr)> {
        match ip {
            IpAddr::V4(a) => {
                let t = (&self.index.v4, &self.country.v4, &self.asn.v4);
                let (s, e) = self.find(t, a.into(), 0).1?;
                Some((Ipv4Addr::from(s).into(), Ipv4Addr::from(e).into()))
            }
            IpAddr::V6(a) => {
                let t = (&self.index.v6, &self.country.v6, &self.asn.v6);
                let (s, e) = self.find(t, a.into(), 0).1?;
                Some((Ipv6Addr::from(s).into(), Ipv6Addr::from(e).into()))
            }
        }
    }

    /// The answer for `key` in one family's index (its range left empty)
    /// and the source row it lies in.
    #[inline]
    fn find<K: Key>(&self, t: Family<'_, K>, key: K, city: u32) -> (Answer<'_>, Option<(K, K)>) {
        self.found(t, key, t.0.index_of(key), city)
    }

    /// [`GeoDb::find`] with the index entry `at` that holds `key` known.
    #[inline]
    fn found<K: Key>(
        &self,
        (index, country, asn): Family<'_, K>,
        key: K,
        at: usize,
        city: u32,
    ) -> (Answer<'_>, Option<(K, K)>) {
        let Some(slot) = index.values().get(at) else {
            return (self.answer(&[0, 0], city), None);
        };
        let answer = self.answer(slot, city);
        if answer.country.is_none() && answer.network.is_none() {
            return (answer, None);
        }
        let row = index::row_span(index, at)
            .unwrap_or_else(|| source_row(country, asn, key, answer.network.is_some()));
        (answer, Some(row))
    }

    /// Country, network and city of an index entry; the range is filled in by the caller.
    #[inline]
    fn answer(&self, slot: &Slot, city: u32) -> Answer<'_> {
        Answer {
            country: self
                .country_of
                .get(index::code_index(slot))
                .copied()
                .flatten(),
            network: self.asn.networks.get(index::network(slot)),
            city: (city as usize)
                .checked_sub(1)
                .and_then(|i| self.city.as_ref()?.cities.get(i)),
            range: None,
        }
    }

    /// The country and ASN source entries (rows or gaps) holding `ip`,
    /// straight from the source tables (slow: for checks, not for answers).
    pub fn source_ranges(&self, ip: IpAddr) -> ((IpAddr, IpAddr), (IpAddr, IpAddr)) {
        match ip {
            IpAddr::V4(a) => {
                let key = u32::from(a);
                let (c, n) = (self.country.v4.entry(key), self.asn.v4.entry(key));
                let v4 = |s: u32, e: u32| (Ipv4Addr::from(s).into(), Ipv4Addr::from(e).into());
                (v4(c.start, c.end), v4(n.start, n.end))
            }
            IpAddr::V6(a) => {
                let key = u128::from(a);
                let (c, n) = (self.country.v6.entry(key), self.asn.v6.entry(key));
                let v6 = |s: u128, e: u128| (Ipv6Addr::from(s).into(), Ipv6Addr::from(e).into());
                (v6(c.start, c.end), v6(n.start, n.end))
            }
        }
    }
}

/// The source row read from the source tables: for the rare row too long
/// for the index to store its reach.
#[cold]
fn source_row<K: Key>(
    country: &RangeTable<K, u16>,
    asn: &RangeTable<K, u32>,
    key: K,
    has_network: bool,
) -> (K, K) {
    if has_network {
        let e = asn.entry(key);
        (e.start, e.end)
    } else {
        let e = country.entry(key);
        (e.start, e.end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iplookup_data::networks::NetworksBuilder;
    use iplookup_data::ranges::TableBuilder;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    /// An ASN row spanning more country rows than a slot can count: the
    /// range comes from the source table instead, and is still whole.
    #[test]
    fn long_rows_fall_back_to_the_source_table() {
        let (mut c, mut a) = (
            TableBuilder::<u32, u16>::default(),
            TableBuilder::<u32, u32>::default(),
        );
        let codes = [u16::from_be_bytes(*b"AU"), u16::from_be_bytes(*b"NZ")];
        for i in 0..70_000u32 {
            c.push(
                0x0100_0000 + i * 2,
                0x0100_0000 + i * 2 + 1,
                codes[i as usize % 2],
                false,
            )
            .unwrap();
        }
        a.push(0x0100_0000, 0x0100_0000 + 140_000 - 1, 1, false)
            .unwrap();
        let (cs, cv) = c.finish();
        let (as_, av) = a.finish();
        let mut nets = NetworksBuilder::default();
        nets.intern(64500, "Example");
        let country = CountryTables {
            v4: RangeTable::new(cs.into(), cv.into()).unwrap(),
            v6: RangeTable::new(vec![0].into(), vec![0].into()).unwrap(),
        };
        let asn = AsnTables {
            v4: RangeTable::new(as_.into(), av.into()).unwrap(),
            v6: RangeTable::new(vec![0].into(), vec![0].into()).unwrap(),
            networks: nets.finish(),
        };
        let db = GeoDb::new(country, asn, Release::default()).unwrap();
        let whole = Some((ip("1.0.0.0"), ip("1.2.34.223")));
        for probe in ["1.0.0.0", "1.1.17.113", "1.2.34.223"] {
            let a = db.lookup(ip(probe));
            assert_eq!(a.network, Some((64500, "Example")), "{probe}");
            assert!(a.country.is_some(), "{probe}");
            assert_eq!(db.row(ip(probe)), whole, "{probe}");
            let block = whole.and_then(|(s, e)| block::largest_block(ip(probe), s, e));
            assert_eq!(a.range, block, "{probe}");
        }
        let past = db.lookup(ip("1.2.34.224"));
        assert_eq!((past.network, past.range), (None, None));
    }

    /// The embedded snapshot is read at start with [`Checks::Built`]; here it
    /// goes through every check a foreign snapshot would, and answers alike.
    #[test]
    fn embedded_snapshot_passes_every_check() {
        let parts = snapshot::decode(&EMBEDDED.0).unwrap();
        let release = Release::from_meta(&parts.meta);
        let checked = GeoDb::from_parts(parts, release).unwrap();
        let built = GeoDb::embedded().unwrap();
        for probe in [
            "1.0.0.1",
            "8.8.8.8",
            "2001:4860:4860::8888",
            "10.0.0.1",
            "2c0f:f248::1",
        ] {
            assert_eq!(
                checked.lookup(ip(probe)),
                built.lookup(ip(probe)),
                "{probe}"
            );
        }
        // The source tables agree with the index the build merged from them.
        let mut again = snapshot::decode(&EMBEDDED.0).unwrap();
        let stored = (
            again.index_v4.clone(),
            again.index_v6.clone(),
            again.codes.clone(),
            (again.dir_v4.clone(), again.dir_v6.clone()),
        );
        assert!(
            !stored.3.0.is_empty() && !stored.3.1.is_empty(),
            "directories stored"
        );
        again.add_index().unwrap();
        again.add_directories();
        let merged = (
            again.index_v4,
            again.index_v6,
            again.codes,
            (again.dir_v4, again.dir_v6),
        );
        assert!(stored == merged);
        // A stored directory that is not the one its starts give is refused
        // when a snapshot is checked whole.
        let mut tampered = snapshot::decode(&EMBEDDED.0).unwrap();
        let mut words = tampered.dir_v6.to_vec();
        words[70_000] ^= 1;
        tampered.dir_v6 = words.into();
        let release = Release::from_meta(&tampered.meta);
        assert!(GeoDb::from_parts(tampered, release).is_err());
    }

    #[test]
    fn embedded_data_answers_known_addresses() {
        let db = GeoDb::embedded().unwrap();
        let a = db.lookup(ip("1.0.0.1"));
        assert_eq!(a.country.map(|c| c.code.as_str()), Some("AU"));
        assert_eq!(a.network, Some((13335, "Cloudflare, Inc.")));
        assert_eq!(a.range, Some("1.0.0.0/24".parse().unwrap()));
        assert_eq!(
            db.row(ip("1.0.0.1")),
            Some((ip("1.0.0.0"), ip("1.0.0.255")))
        );
        assert_eq!(
            db.source_ranges(ip("1.0.0.1")).1,
            (ip("1.0.0.0"), ip("1.0.0.255"))
        );
        let gap = db.lookup(ip("10.0.0.1"));
        assert_eq!((gap.country, gap.network), (None, None));
        assert_eq!(db.release().country.date, "2026-06-01");
        assert_eq!(db.release().asn.trimmed, 1);
    }
}
