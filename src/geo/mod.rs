//! The address data: country and ASN range tables, country metadata and the
//! special-purpose registry. Pure and synchronous: no I/O at lookup time.
//!
//! A [`GeoDb`] is immutable. It comes from the snapshot embedded at build time
//! ([`GeoDb::embedded`]) or from DB-IP files on disk ([`load`]); a reload builds
//! a new one and swaps it in whole.

pub mod countries;
pub mod csv;
pub mod directory;
pub mod index;
pub mod load;
pub mod mmdb;
pub mod networks;
pub mod policy;
pub mod ranges;
pub mod rows;
pub mod snapshot;
pub mod special;

use std::borrow::Cow;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::{IpNet, Ipv4Net, Ipv6Net};

use countries::{Country, CountryTable, CountryTableError};
use index::{CodeBook, IndexError, Slot};
use networks::{Networks, NetworksError};
use ranges::{RangeTable, TableError};

/// The snapshot written by `build.rs`, aligned so its arrays can be used in place.
#[repr(C, align(16))]
struct Aligned<T: ?Sized>(T);
static EMBEDDED: &Aligned<[u8]> =
    &Aligned(*include_bytes!(concat!(env!("OUT_DIR"), "/snapshot.bin")));

/// Why a database could not be assembled.
#[derive(Debug, thiserror::Error)]
pub enum GeoError {
    #[error(transparent)]
    Snapshot(#[from] snapshot::SnapshotError),
    #[error(transparent)]
    Csv(#[from] csv::CsvError),
    #[error(transparent)]
    Countries(#[from] CountryTableError),
    #[error("{0}: inconsistent table: {1:?}")]
    Table(&'static str, TableError),
    #[error("inconsistent network table: {}", .0.0)]
    Networks(NetworksError),
    #[error("{path}: {reason}")]
    File { path: String, reason: String },
    #[error("cannot build the lookup index: {0}")]
    Index(#[from] IndexError),
}

/// Where one table came from and what loading it found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceInfo {
    /// File it was read from (for the embedded data: the committed file).
    pub file: String,
    /// Package or download it came from.
    pub source: String,
    /// Release date (`YYYY-MM-DD` or `YYYY-MM`).
    pub date: String,
    pub rows: u64,
    pub trimmed: u64,
    pub skipped: u64,
    /// Defects repaired, by kind (see [`policy::Defect`]).
    pub defects: policy::Defects,
    pub notes: Vec<String>,
    /// Length and modification time of the file when it was read (`None`:
    /// the embedded data), so a reload keeps a table whose file is unchanged.
    pub stamp: Option<load::FileStamp>,
}

/// The releases a database was built from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Release {
    pub country: SourceInfo,
    pub asn: SourceInfo,
    /// The city database, when one is loaded.
    pub city: Option<SourceInfo>,
    /// Files of the data directory that were not loaded, and why.
    pub refused: Vec<load::Refusal>,
}

impl Release {
    /// Reads the `key.field=value` lines of a snapshot's metadata.
    fn from_meta(meta: &str) -> Release {
        let mut release = Release::default();
        for line in meta.lines() {
            let Some((key, value)) = line.split_once('=') else {
                continue;
            };
            let Some((table, field)) = key.split_once('.') else {
                continue;
            };
            let info = match table {
                "country" => &mut release.country,
                "asn" => &mut release.asn,
                _ => continue,
            };
            let count = || value.parse().unwrap_or(0);
            match field {
                "file" => info.file = value.to_owned(),
                "source" => info.source = value.to_owned(),
                "date" => info.date = value.to_owned(),
                "rows" => info.rows = count(),
                "trimmed" => info.trimmed = count(),
                "skipped" => info.skipped = count(),
                "note" => info.notes.push(value.to_owned()),
                other => {
                    let kind = other.strip_prefix("defect.").and_then(|name| {
                        policy::Defect::ALL.into_iter().find(|d| d.name() == name)
                    });
                    if let Some(kind) = kind {
                        info.defects.set(kind, count());
                    }
                }
            }
        }
        release
    }

    /// A short identifier of the data, for `ETag`s: the release dates and row counts of every table.
    pub fn tag(&self) -> String {
        let city = self
            .city
            .as_ref()
            .map(|c| format!("-{}-{}", c.date, c.rows))
            .unwrap_or_default();
        format!(
            "{}-{}-{}-{}{city}",
            self.country.date, self.country.rows, self.asn.date, self.asn.rows
        )
    }
}

/// The country tables of both families.
#[derive(Debug, Clone)]
pub struct CountryTables {
    pub v4: RangeTable<u32, u16>,
    pub v6: RangeTable<u128, u16>,
}

/// The ASN tables of both families and the networks they point to.
#[derive(Debug, Clone)]
pub struct AsnTables {
    pub v4: RangeTable<u32, u32>,
    pub v6: RangeTable<u128, u32>,
    pub networks: Networks,
}

/// City tables of both families and the cities they point to (ids 1-based).
#[derive(Debug, Clone)]
pub struct CityTables {
    pub v4: RangeTable<u32, mmdb::CityId>,
    pub v6: RangeTable<u128, mmdb::CityId>,
    pub cities: Vec<mmdb::City>,
}

/// The country and ASN tables of both families merged for lookups (see [`index`]).
#[derive(Debug, Clone)]
pub struct Index {
    pub v4: RangeTable<u32, Slot>,
    pub v6: RangeTable<u128, Slot>,
    pub codes: CodeBook,
}

impl Index {
    /// Merges the source tables of both families and builds the search directories.
    pub fn build(country: &CountryTables, asn: &AsnTables) -> Result<Index, GeoError> {
        let mut codes = vec![0];
        let (s4, v4) = index::merge(
            (country.v4.starts(), country.v4.values()),
            (asn.v4.starts(), asn.v4.values()),
            &mut codes,
        )?;
        let (s6, v6) = index::merge(
            (country.v6.starts(), country.v6.values()),
            (asn.v6.starts(), asn.v6.values()),
            &mut codes,
        )?;
        let table = |name| move |e| GeoError::Table(name, e);
        let index = Index {
            v4: RangeTable::new(s4.into(), v4.into()).map_err(table("index IPv4"))?,
            v6: RangeTable::new(s6.into(), v6.into()).map_err(table("index IPv6"))?,
            codes: CodeBook::new(codes.into())?,
        };
        index.v4.prepare();
        index.v6.prepare();
        Ok(index)
    }

    /// Takes a stored index (from a snapshot) and builds the search
    /// directories; with [`Checks::Full`], checks it against the network count.
    pub fn from_parts(
        v4: (Cow<'static, [u32]>, Cow<'static, [u32]>),
        v6: (Cow<'static, [u128]>, Cow<'static, [u32]>),
        codes: Cow<'static, [u16]>,
        networks: u32,
        checks: Checks,
    ) -> Result<Index, GeoError> {
        let index = Index {
            v4: checks.table(v4.0, slots(v4.1)?, "index IPv4")?,
            v6: checks.table(v6.0, slots(v6.1)?, "index IPv6")?,
            codes: CodeBook::new(codes)?,
        };
        if checks == Checks::Full {
            index::check(&index.v4, &index.codes, networks)?;
            index::check(&index.v6, &index.codes, networks)?;
        }
        index.v4.prepare();
        index.v6.prepare();
        Ok(index)
    }
}

impl Index {
    /// Whether two indexes hold the same arrays.
    fn same_as(&self, other: &Index) -> bool {
        self.v4.starts() == other.v4.starts()
            && self.v4.values() == other.v4.values()
            && self.v6.starts() == other.v6.starts()
            && self.v6.values() == other.v6.values()
            && self.codes.codes() == other.codes.codes()
    }
}

/// How much of a snapshot to check when it is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checks {
    /// Every array, entry by entry, and the stored index against one merged
    /// again from the source tables: for snapshots from anywhere.
    Full,
    /// Only what costs no pass over the arrays: for the snapshot the build
    /// script wrote into this binary, whose full check runs as a unit test
    /// (`embedded_snapshot_passes_every_check`).
    Built,
}

impl Checks {
    fn table<K: ranges::Key, V: ranges::Value>(
        self,
        starts: Cow<'static, [K]>,
        values: Cow<'static, [V]>,
        name: &'static str,
    ) -> Result<RangeTable<K, V>, GeoError> {
        match self {
            Checks::Full => RangeTable::new(starts, values),
            Checks::Built => RangeTable::new_built(starts, values),
        }
        .map_err(|e| GeoError::Table(name, e))
    }
}

/// Slots stored flat, two words each, viewed as slots (in place when borrowed).
fn slots(flat: Cow<'static, [u32]>) -> Result<Cow<'static, [Slot]>, GeoError> {
    let odd = || GeoError::Snapshot(snapshot::SnapshotError("odd slot array"));
    match flat {
        Cow::Borrowed(words) => bytemuck::try_cast_slice(words)
            .map(Cow::Borrowed)
            .map_err(|_| odd()),
        Cow::Owned(words) if words.len() % 2 == 0 => Ok(Cow::Owned(
            words.chunks_exact(2).map(|w| [w[0], w[1]]).collect(),
        )),
        Cow::Owned(_) => Err(odd()),
    }
}

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
    tag: std::sync::OnceLock<std::sync::Arc<str>>,
}

/// What the data says of one address.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Answer<'a> {
    /// From the country table, which is compiled in and lives as long as the process.
    pub country: Option<&'static Country>,
    /// AS number and organisation.
    pub network: Option<(u32, &'a str)>,
    /// The city, when a city database is loaded and knows the address.
    pub city: Option<&'a mmdb::City>,
    /// The source row `network.range` is cut from: the ASN row, or the
    /// country row where the ASN table has no data; `None` when neither has.
    pub range: Option<(IpAddr, IpAddr)>,
}

impl GeoDb {
    /// The release compiled into the binary.
    pub fn embedded() -> Result<GeoDb, GeoError> {
        let parts = snapshot::decode(&EMBEDDED.0)?;
        let release = Release::from_meta(&parts.meta);
        GeoDb::from_parts_checked(parts, release, Checks::Built)
    }

    /// Assembles a database from snapshot arrays, checking every array.
    pub fn from_parts(
        parts: snapshot::Parts<'static>,
        release: Release,
    ) -> Result<GeoDb, GeoError> {
        GeoDb::from_parts_checked(parts, release, Checks::Full)
    }

    fn from_parts_checked(
        parts: snapshot::Parts<'static>,
        release: Release,
        checks: Checks,
    ) -> Result<GeoDb, GeoError> {
        let country = CountryTables {
            v4: checks.table(parts.country_v4.0, parts.country_v4.1, "country IPv4")?,
            v6: checks.table(parts.country_v6.0, parts.country_v6.1, "country IPv6")?,
        };
        let (asns, offsets, arena) = parts.networks;
        let asn = AsnTables {
            v4: checks.table(parts.asn_v4.0, parts.asn_v4.1, "ASN IPv4")?,
            v6: checks.table(parts.asn_v6.0, parts.asn_v6.1, "ASN IPv6")?,
            networks: Networks::new(asns, offsets, arena).map_err(GeoError::Networks)?,
        };
        let networks = asn.networks.len() as u32;
        let index = Index::from_parts(
            parts.index_v4,
            parts.index_v6,
            parts.codes,
            networks,
            checks,
        )?;
        if checks == Checks::Full && !index.same_as(&Index::build(&country, &asn)?) {
            return Err(IndexError::Mismatch.into());
        }
        GeoDb::assemble(country, asn, index, release)
    }

    /// Assembles a database from tables, checking every id points somewhere.
    pub fn new(
        country: CountryTables,
        asn: AsnTables,
        release: Release,
    ) -> Result<GeoDb, GeoError> {
        let max = asn.networks.len() as u32;
        if asn
            .v4
            .values()
            .iter()
            .chain(asn.v6.values())
            .any(|id| *id > max)
        {
            return Err(GeoError::Networks(NetworksError("network id out of range")));
        }
        let index = Index::build(&country, &asn)?;
        GeoDb::assemble(country, asn, index, release)
    }

    /// The same country and ASN data under `release`, without city tables:
    /// the index is copied rather than built again (for a data directory or
    /// a reload that changes neither table: building it pages in the whole
    /// embedded snapshot and allocates a second index).
    pub fn same_tables(&self, release: Release) -> GeoDb {
        GeoDb {
            country: self.country.clone(),
            asn: self.asn.clone(),
            index: self.index.clone(),
            country_of: self.country_of.clone(),
            city: None,
            countries: self.countries,
            release,
            tag: std::sync::OnceLock::new(),
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
            tag: std::sync::OnceLock::new(),
        })
    }

    /// Adds a city database, checking its ids.
    pub fn with_city(mut self, city: CityTables, info: SourceInfo) -> Result<GeoDb, GeoError> {
        let max = city.cities.len() as u32;
        if city
            .v4
            .values()
            .iter()
            .chain(city.v6.values())
            .any(|id| mmdb::city_number(*id) > max)
        {
            return Err(GeoError::Networks(NetworksError("city id out of range")));
        }
        city.v4.prepare();
        city.v6.prepare();
        self.city = Some(city);
        self.release.city = Some(info);
        self.tag = std::sync::OnceLock::new();
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
    pub fn tag(&self) -> std::sync::Arc<str> {
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
                let (key, t) = (u32::from(a), &self.index.v4);
                let at = t.index_of(key);
                let city = self
                    .city
                    .as_ref()
                    .map_or(0, |c| mmdb::city_number(c.v4.value(key)));
                let mut answer = self.answer(&t.values()[at], city);
                if answer.country.is_some() || answer.network.is_some() {
                    let (s, e) = index::row_span(t, at).unwrap_or_else(|| {
                        self.source_row(&self.country.v4, &self.asn.v4, key, &answer)
                    });
                    answer.range = Some((Ipv4Addr::from(s).into(), Ipv4Addr::from(e).into()));
                }
                answer
            }
            IpAddr::V6(a) => {
                let (key, t) = (u128::from(a), &self.index.v6);
                let at = t.index_of(key);
                let city = self
                    .city
                    .as_ref()
                    .map_or(0, |c| mmdb::city_number(c.v6.value(key)));
                let mut answer = self.answer(&t.values()[at], city);
                if answer.country.is_some() || answer.network.is_some() {
                    let (s, e) = index::row_span(t, at).unwrap_or_else(|| {
                        self.source_row(&self.country.v6, &self.asn.v6, key, &answer)
                    });
                    answer.range = Some((Ipv6Addr::from(s).into(), Ipv6Addr::from(e).into()));
                }
                answer
            }
        }
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

    /// The `network.range` row read from the source tables: for the rare
    /// row too long for the index to store its reach.
    #[cold]
    fn source_row<K: ranges::Key>(
        &self,
        country: &RangeTable<K, u16>,
        asn: &RangeTable<K, u32>,
        key: K,
        answer: &Answer<'_>,
    ) -> (K, K) {
        if answer.network.is_some() {
            let e = asn.entry(key);
            (e.start, e.end)
        } else {
            let e = country.entry(key);
            (e.start, e.end)
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

/// The largest CIDR block that holds `ip` and lies inside `start..=end`.
///
/// Returns `None` if `ip` is outside the range or the families differ.
pub fn largest_block(ip: IpAddr, start: IpAddr, end: IpAddr) -> Option<IpNet> {
    match (ip, start, end) {
        (IpAddr::V4(ip), IpAddr::V4(s), IpAddr::V4(e)) => {
            let (a, s, e) = (u32::from(ip), u32::from(s), u32::from(e));
            let len = shortest_prefix(32, |len| {
                let mask = u32::MAX.checked_shl(32 - u32::from(len)).unwrap_or(0);
                (a & mask) >= s && (a | !mask) <= e
            })?;
            Ipv4Net::new(ip, len).ok().map(|n| IpNet::V4(n.trunc()))
        }
        (IpAddr::V6(ip), IpAddr::V6(s), IpAddr::V6(e)) => {
            let (a, s, e) = (u128::from(ip), u128::from(s), u128::from(e));
            let len = shortest_prefix(128, |len| {
                let mask = u128::MAX.checked_shl(128 - u32::from(len)).unwrap_or(0);
                (a & mask) >= s && (a | !mask) <= e
            })?;
            Ipv6Net::new(ip, len).ok().map(|n| IpNet::V6(n.trunc()))
        }
        _ => None,
    }
}

/// The shortest prefix length in `0..=bits` for which `fits` holds, by
/// bisection: the block of a longer prefix lies inside the block of a
/// shorter one, so once `fits` holds it holds for every longer prefix.
/// `None` if it fails even for `bits` (the address is outside the range).
fn shortest_prefix(bits: u8, fits: impl Fn(u8) -> bool) -> Option<u8> {
    if !fits(bits) {
        return None;
    }
    // Invariant: fits(hi) holds; every length below lo fails.
    let (mut lo, mut hi) = (0u8, bits);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    /// The first prefix length, counting up from 0, whose block fits: the
    /// definition [`shortest_prefix`] bisects.
    fn shortest_prefix_by_walking(bits: u8, fits: impl Fn(u8) -> bool) -> Option<u8> {
        (0..=bits).find(|&len| fits(len))
    }

    #[test]
    fn bisection_finds_the_prefix_the_walk_finds() {
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
                shortest_prefix(128, fits6),
                shortest_prefix_by_walking(128, fits6),
                "{a:x} in {s:x}..={e:x}"
            );
            let (a, s, e) = ((a >> 96) as u32, (s >> 96) as u32, (e >> 96) as u32);
            let fits4 = |len: u8| {
                let mask = u32::MAX.checked_shl(32 - u32::from(len)).unwrap_or(0);
                (a & mask) >= s && (a | !mask) <= e
            };
            assert_eq!(
                shortest_prefix(32, fits4),
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

    /// An ASN row spanning more country rows than a slot can count: the
    /// range comes from the source table instead, and is still whole.
    #[test]
    fn long_rows_fall_back_to_the_source_table() {
        let (mut c, mut a) = (
            ranges::TableBuilder::<u32, u16>::default(),
            ranges::TableBuilder::<u32, u32>::default(),
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
        let mut nets = networks::NetworksBuilder::default();
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
            assert_eq!(a.range, whole, "{probe}");
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
        );
        again.add_index().unwrap();
        assert!(stored == (again.index_v4, again.index_v6, again.codes));
    }

    #[test]
    fn embedded_data_answers_known_addresses() {
        let db = GeoDb::embedded().unwrap();
        let a = db.lookup(ip("1.0.0.1"));
        assert_eq!(a.country.map(|c| c.code.as_str()), Some("AU"));
        assert_eq!(a.network, Some((13335, "Cloudflare, Inc.")));
        assert_eq!(a.range, Some((ip("1.0.0.0"), ip("1.0.0.255"))));
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
