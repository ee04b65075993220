//! The address data: country and ASN range tables, country metadata and the
//! special-purpose registry. Pure and synchronous: no I/O at lookup time.
//!
//! A [`GeoDb`] is immutable. It comes from the snapshot embedded at build time
//! ([`GeoDb::embedded`]) or from DB-IP files on disk ([`load`]); a reload builds
//! a new one and swaps it in whole.

pub mod countries;
pub mod csv;
pub mod directory;
pub mod load;
pub mod mmdb;
pub mod networks;
pub mod ranges;
pub mod rows;
pub mod snapshot;
pub mod special;

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::{IpNet, Ipv4Net, Ipv6Net};

use countries::{Country, CountryTable, CountryTableError};
use networks::{Networks, NetworksError};
use ranges::{Entry, RangeTable, TableError};

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
    pub notes: Vec<String>,
}

/// The releases a database was built from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Release {
    pub country: SourceInfo,
    pub asn: SourceInfo,
    /// The city database, when one is loaded.
    pub city: Option<SourceInfo>,
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
                _ => {}
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
    pub v4: RangeTable<u32, u32>,
    pub v6: RangeTable<u128, u32>,
    pub cities: Vec<mmdb::City>,
}

/// One immutable release of the address data.
#[derive(Debug)]
pub struct GeoDb {
    country: CountryTables,
    asn: AsnTables,
    city: Option<CityTables>,
    countries: &'static CountryTable,
    release: Release,
    /// [`Release::tag`], computed once.
    tag: std::sync::OnceLock<std::sync::Arc<str>>,
}

/// What the data says of one address.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer<'a> {
    /// From the country table, which is compiled in and lives as long as the process.
    pub country: Option<&'static Country>,
    /// The source range the country came from (gaps included).
    pub country_range: (IpAddr, IpAddr),
    /// AS number and organisation.
    pub network: Option<(u32, &'a str)>,
    /// The source range the network came from (gaps included).
    pub asn_range: (IpAddr, IpAddr),
    /// The city, when a city database is loaded and knows the address.
    pub city: Option<&'a mmdb::City>,
}

impl GeoDb {
    /// The release compiled into the binary.
    pub fn embedded() -> Result<GeoDb, GeoError> {
        let parts = snapshot::decode(&EMBEDDED.0)?;
        let release = Release::from_meta(&parts.meta);
        GeoDb::from_parts(parts, release)
    }

    /// Assembles a database from snapshot arrays.
    pub fn from_parts(
        parts: snapshot::Parts<'static>,
        release: Release,
    ) -> Result<GeoDb, GeoError> {
        let table = |name| move |e| GeoError::Table(name, e);
        let country = CountryTables {
            v4: RangeTable::new(parts.country_v4.0, parts.country_v4.1)
                .map_err(table("country IPv4"))?,
            v6: RangeTable::new(parts.country_v6.0, parts.country_v6.1)
                .map_err(table("country IPv6"))?,
        };
        let (asns, offsets, arena) = parts.networks;
        let asn = AsnTables {
            v4: RangeTable::new(parts.asn_v4.0, parts.asn_v4.1).map_err(table("ASN IPv4"))?,
            v6: RangeTable::new(parts.asn_v6.0, parts.asn_v6.1).map_err(table("ASN IPv6"))?,
            networks: Networks::new(asns, offsets, arena).map_err(GeoError::Networks)?,
        };
        GeoDb::new(country, asn, release)
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
        Ok(GeoDb {
            country,
            asn,
            city: None,
            countries: CountryTable::embedded()?,
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
            .any(|id| *id > max)
        {
            return Err(GeoError::Networks(NetworksError("city id out of range")));
        }
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

    /// Looks an address up in both tables. IPv4-mapped IPv6 addresses are
    /// looked up as IPv6: callers convert them first.
    pub fn lookup(&self, ip: IpAddr) -> Answer<'_> {
        match ip {
            IpAddr::V4(a) => {
                let key = u32::from(a);
                let c = self.country.v4.entry(key);
                let n = self.asn.v4.entry(key);
                let city = self.city.as_ref().map_or(0, |t| t.v4.value(key));
                self.answer(c.value, span_v4(c), n.value, span_v4(n), city)
            }
            IpAddr::V6(a) => {
                let key = u128::from(a);
                let c = self.country.v6.entry(key);
                let n = self.asn.v6.entry(key);
                let city = self.city.as_ref().map_or(0, |t| t.v6.value(key));
                self.answer(c.value, span_v6(c), n.value, span_v6(n), city)
            }
        }
    }

    fn answer(
        &self,
        code: u16,
        country_range: (IpAddr, IpAddr),
        network: u32,
        asn_range: (IpAddr, IpAddr),
        city: u32,
    ) -> Answer<'_> {
        let city = (city as usize)
            .checked_sub(1)
            .and_then(|i| self.city.as_ref()?.cities.get(i));
        Answer {
            country: self.countries.get_packed(code),
            country_range,
            network: self.asn.networks.get(network),
            asn_range,
            city,
        }
    }
}

fn span_v4<V>(e: Entry<u32, V>) -> (IpAddr, IpAddr) {
    (Ipv4Addr::from(e.start).into(), Ipv4Addr::from(e.end).into())
}

fn span_v6<V>(e: Entry<u128, V>) -> (IpAddr, IpAddr) {
    (Ipv6Addr::from(e.start).into(), Ipv6Addr::from(e.end).into())
}

/// The largest CIDR block that holds `ip` and lies inside `start..=end`.
///
/// Returns `None` if `ip` is outside the range or the families differ.
pub fn largest_block(ip: IpAddr, start: IpAddr, end: IpAddr) -> Option<IpNet> {
    match (ip, start, end) {
        (IpAddr::V4(ip), IpAddr::V4(s), IpAddr::V4(e)) => {
            let (a, s, e) = (u32::from(ip), u32::from(s), u32::from(e));
            let len = (0..=32u8).find(|&len| {
                let mask = u32::MAX.checked_shl(32 - u32::from(len)).unwrap_or(0);
                (a & mask) >= s && (a | !mask) <= e
            })?;
            Ipv4Net::new(ip, len).ok().map(|n| IpNet::V4(n.trunc()))
        }
        (IpAddr::V6(ip), IpAddr::V6(s), IpAddr::V6(e)) => {
            let (a, s, e) = (u128::from(ip), u128::from(s), u128::from(e));
            let len = (0..=128u8).find(|&len| {
                let mask = u128::MAX.checked_shl(128 - u32::from(len)).unwrap_or(0);
                (a & mask) >= s && (a | !mask) <= e
            })?;
            Ipv6Net::new(ip, len).ok().map(|n| IpNet::V6(n.trunc()))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
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

    #[test]
    fn embedded_data_answers_known_addresses() {
        let db = GeoDb::embedded().unwrap();
        let a = db.lookup(ip("1.0.0.1"));
        assert_eq!(a.country.map(|c| c.code.as_str()), Some("AU"));
        assert_eq!(a.network, Some((13335, "Cloudflare, Inc.")));
        assert_eq!(a.asn_range, (ip("1.0.0.0"), ip("1.0.0.255")));
        let gap = db.lookup(ip("10.0.0.1"));
        assert_eq!((gap.country, gap.network), (None, None));
        assert_eq!(db.release().country.date, "2026-06-01");
        assert_eq!(db.release().asn.trimmed, 1);
    }
}
