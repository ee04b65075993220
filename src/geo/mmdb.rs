//! Reading MaxMind-format databases (DB-IP's `.mmdb` releases, GeoLite2
//! Country/City/ASN, and the flat ip-location-db builds) with the `maxminddb`
//! crate, converting every network into the same range tables the CSV
//! loader builds. Runs at load time only; lookups never touch the MMDB.
//!
//! It lives in the service, not in `iplookup-data`: the build script never
//! reads an MMDB, and `maxminddb` and `serde` as build dependencies would be
//! compiled a second time for it. It hands over the data crate's neutral
//! arrays and [`ImportStats`], so the policy judges both formats alike.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::OnceLock;

use chrono_tz::Tz;
use maxminddb::{Reader, WithinOptions};
use serde::Deserialize;

use iplookup_data::DataError;
use iplookup_data::import::{AsnArrays, CountryArrays, ImportStats};
use iplookup_data::networks::NetworksBuilder;
use iplookup_data::policy::{Defect, Policy};
use iplookup_data::ranges::{Pushed, RangeTable, TableBuilder, Value};
use iplookup_data::rows::{self, RowError};
use iplookup_data::special;

use super::tree::Tree;

/// One city: name and coordinates.
#[derive(Debug, Clone, PartialEq)]
pub struct City {
    pub name: String,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    /// The time zone containing the coordinates (`None` inside: none of its
    /// own), filled in once by the `zone` layer, which holds the boundary
    /// data; empty as loaded.
    pub zone: OnceLock<Option<Tz>>,
}

/// A city's number in the city tables, 1-based (0: no city), in three
/// little-endian bytes: a city table has an entry per range, millions of
/// them, and no city file has 16 million cities.
pub type CityId = [u8; 3];

/// The most cities a city table can number.
pub const MAX_CITIES: u32 = (1 << 24) - 1;

/// The [`CityId`] of city number `n` (at most [`MAX_CITIES`]).
pub fn city_id(n: u32) -> CityId {
    let [a, b, c, _] = n.min(MAX_CITIES).to_le_bytes();
    [a, b, c]
}

/// The number a [`CityId`] holds.
pub fn city_number(id: CityId) -> u32 {
    u32::from_le_bytes([id[0], id[1], id[2], 0])
}

/// City tables of both families and the cities they point to (ids 1-based).
#[derive(Debug, Clone)]
pub struct CityTables {
    pub v4: RangeTable<u32, CityId>,
    pub v6: RangeTable<u128, CityId>,
    pub cities: Vec<City>,
}

/// City tables of both families (ids point into `cities`, 1-based).
#[derive(Debug, Default)]
pub struct CityArrays {
    pub v4: (Vec<u32>, Vec<CityId>),
    pub v6: (Vec<u128>, Vec<CityId>),
    pub cities: Vec<City>,
    pub stats: ImportStats,
}

/// The fields we read, in both the MaxMind schema and the flat one.
#[derive(Debug, Default, Deserialize)]
struct Record {
    #[serde(default)]
    country: Option<MmdbCountry>,
    #[serde(default)]
    country_code: Option<String>,
    #[serde(default)]
    city: Option<CityField>,
    #[serde(default)]
    location: Option<MmdbLocation>,
    #[serde(default)]
    latitude: Option<Number>,
    #[serde(default)]
    longitude: Option<Number>,
    #[serde(default)]
    autonomous_system_number: Option<u32>,
    #[serde(default)]
    autonomous_system_organization: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct MmdbCountry {
    #[serde(default)]
    iso_code: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum CityField {
    Named {
        names: Names,
    },
    Flat(String),
    /// Anything else is ignored rather than refusing the whole file.
    Other(serde::de::IgnoredAny),
}

/// A coordinate stored as a double (MaxMind) or a float (ip-location-db builds).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Number(f64);

impl<'de> Deserialize<'de> for Number {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = Number;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a number")
            }
            fn visit_f32<E>(self, v: f32) -> Result<Number, E> {
                // Through the shortest decimal form, so 37.386f32 reads as 37.386.
                Ok(Number(v.to_string().parse().unwrap_or(f64::from(v))))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Number, E> {
                Ok(Number(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Number, E> {
                Ok(Number(v as f64))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Number, E> {
                Ok(Number(v as f64))
            }
        }
        d.deserialize_any(Visit)
    }
}

#[derive(Debug, Default, Deserialize)]
struct Names {
    #[serde(default)]
    en: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct MmdbLocation {
    #[serde(default)]
    latitude: Option<Number>,
    #[serde(default)]
    longitude: Option<Number>,
}

impl Record {
    fn country_code(&self) -> Option<&str> {
        self.country
            .as_ref()
            .and_then(|c| c.iso_code.as_deref())
            .or(self.country_code.as_deref())
    }

    /// The city of the record, its name moved out rather than copied (the
    /// names of a city file stay packed together in memory).
    fn into_city(self) -> Option<City> {
        let name = match self.city? {
            CityField::Named { names } => names.en?,
            CityField::Flat(name) => name,
            CityField::Other(_) => return None,
        };
        // ip-location-db files write "" where the record is country-level.
        if name.is_empty() {
            return None;
        }
        let (lat, lon) = match self.location {
            Some(l) => (l.latitude, l.longitude),
            None => (self.latitude, self.longitude),
        };
        Some(City {
            name,
            latitude: lat.map(|n| n.0),
            longitude: lon.map(|n| n.0),
            zone: OnceLock::new(),
        })
    }
}

/// Reads a country (or city) MMDB into country tables.
pub fn read_country(
    bytes: Vec<u8>,
    file: &str,
    policy: &Policy,
) -> Result<CountryArrays, DataError> {
    let mut v4 = TableBuilder::<u32, u16>::default();
    let mut v6 = TableBuilder::<u128, u16>::default();
    let (stats, _) = walk(
        bytes,
        file,
        policy,
        |record| Ok(record.country_code().map(rows::pack_country).transpose()),
        |start, end, packed| push(&mut v4, &mut v6, start, end, packed),
    )?;
    Ok(CountryArrays {
        v4: v4.finish(),
        v6: v6.finish(),
        stats,
    })
}

/// Reads an ASN MMDB into ASN tables.
pub fn read_asn(bytes: Vec<u8>, file: &str, policy: &Policy) -> Result<AsnArrays, DataError> {
    let mut v4 = TableBuilder::<u32, u32>::default();
    let mut v6 = TableBuilder::<u128, u32>::default();
    let mut networks = NetworksBuilder::default();
    let (stats, _) = walk(
        bytes,
        file,
        policy,
        |record| {
            let Some(asn) = record.autonomous_system_number else {
                return Ok(Ok(None));
            };
            let org = record.autonomous_system_organization.as_deref();
            let org = org.unwrap_or("");
            check_string(policy, file, || format!("the organisation of AS{asn}"), org)?;
            Ok(Ok(Some(networks.intern(asn, org))))
        },
        |start, end, id| push(&mut v4, &mut v6, start, end, id),
    )?;
    Ok(AsnArrays {
        v4: v4.finish(),
        v6: v6.finish(),
        networks: networks.finish(),
        stats,
    })
}

/// Reads a city MMDB into city tables, checked as [`check_city`] says.
pub fn read_city(bytes: Vec<u8>, file: &str, policy: &Policy) -> Result<CityArrays, DataError> {
    let mut v4 = TableBuilder::<u32, CityId>::default();
    let mut v6 = TableBuilder::<u128, CityId>::default();
    let mut cities: Vec<City> = Vec::new();
    let mut too_many = false;
    // Cities by place (coordinates), and by name as well for the few places
    // that hold more than one city: no name is copied for the common case.
    let mut by_place: HashMap<(u64, u64), u32> = HashMap::new();
    let mut by_name: HashMap<(String, u64, u64), u32> = HashMap::new();
    let mut samples: Vec<(IpAddr, u32)> = Vec::new();
    let reader = open_reader(bytes, file, policy, true)?;
    check_city_type(&reader, file)?;
    let intern = |record: Record| -> Result<Result<Option<u32>, RowError>, DataError> {
        let Some(city) = record.into_city() else {
            return Ok(Ok(None));
        };
        let what = || {
            let start: String = city.name.chars().take(20).collect();
            format!("the city name {start:?}...")
        };
        check_string(policy, file, what, &city.name)?;
        if let Err(bad) = rows::check_coordinates(city.latitude, city.longitude) {
            return Ok(Err(bad));
        }
        let place = (
            city.latitude.map_or(0, f64::to_bits),
            city.longitude.map_or(0, f64::to_bits),
        );
        let first = by_place.get(&place).copied();
        let same = |id: u32| {
            cities
                .get(id as usize - 1)
                .is_some_and(|c| c.name == city.name)
        };
        if let Some(id) = first.filter(|id| same(*id)) {
            return Ok(Ok(Some(id)));
        }
        let named = first.map(|_| (city.name.clone(), place.0, place.1));
        if let Some(id) = named.as_ref().and_then(|k| by_name.get(k)) {
            return Ok(Ok(Some(*id)));
        }
        if cities.len() >= MAX_CITIES as usize {
            too_many = true;
            return Ok(Ok(None));
        }
        cities.push(city);
        let id = cities.len() as u32;
        match named {
            Some(key) => by_name.insert(key, id),
            None => by_place.insert(place, id),
        };
        Ok(Ok(Some(id)))
    };
    // Neighbouring networks of one city become one range: a DB-IP range is
    // stored as the CIDR blocks that cover it, and only the city matters here.
    let add = |start: IpAddr, end: IpAddr, id: u32| {
        let pushed = match (start, end) {
            (IpAddr::V4(s), IpAddr::V4(e)) => v4.push_joined(s.into(), e.into(), city_id(id)),
            (IpAddr::V6(s), IpAddr::V6(e)) => v6.push_joined(s.into(), e.into(), city_id(id)),
            _ => Err(RowError::MixedFamilies),
        }?;
        if samples.len() < SAMPLES {
            samples.push((end, id));
        }
        Ok(pushed)
    };
    let (stats, reader) = walk_reader(reader, file, policy, intern, add)?;
    if too_many {
        return Err(io_fail(file, format!("more than {MAX_CITIES} cities")));
    }
    drop((by_place, by_name));
    cities.shrink_to_fit();
    check_city(&reader, file, &samples, &cities)?;
    Ok(CityArrays {
        v4: v4.finish(),
        v6: v6.finish(),
        cities,
        stats,
    })
}

fn push<V: Value>(
    v4: &mut TableBuilder<u32, V>,
    v6: &mut TableBuilder<u128, V>,
    start: IpAddr,
    end: IpAddr,
    value: V,
) -> Result<Pushed, RowError> {
    match (start, end) {
        (IpAddr::V4(s), IpAddr::V4(e)) => v4.push(s.into(), e.into(), value, false),
        (IpAddr::V6(s), IpAddr::V6(e)) => v6.push(s.into(), e.into(), value, false),
        _ => Err(RowError::MixedFamilies),
    }
}

/// How many networks of a city database are looked up again through the
/// MaxMind reader, to check the conversion against the file.
const SAMPLES: usize = 16;

/// The MMDB reader of a file.
type MmdbReader = Reader<Vec<u8>>;

/// The checks a city database passes before it is served or installed, on
/// top of those every MMDB passes (metadata, tree, the defect limit, size
/// cap): its database type names a city database and its record size is one
/// MaxMind defines (here), and the first networks looked up again through the
/// reader resolve to the cities the conversion gave them ([`check_city`]).
fn check_city_type(reader: &MmdbReader, file: &str) -> Result<(), DataError> {
    let fail = |reason: String| io_fail(file, reason);
    let meta = reader.metadata();
    if !meta.database_type.to_ascii_lowercase().contains("city") {
        return Err(fail(format!(
            "database type {:?} is not a city database",
            meta.database_type
        )));
    }
    if ![24, 28, 32].contains(&meta.record_size) {
        return Err(fail(format!(
            "record size {} is not 24, 28 or 32",
            meta.record_size
        )));
    }
    Ok(())
}

/// Looks the sampled networks up again through the reader (see [`check_city_type`]).
fn check_city(
    reader: &MmdbReader,
    file: &str,
    samples: &[(IpAddr, u32)],
    cities: &[City],
) -> Result<(), DataError> {
    let fail = |reason: String| io_fail(file, reason);
    for (ip, id) in samples {
        let found: Option<Record> = reader
            .lookup(*ip)
            .and_then(|r| r.decode::<Record>())
            .map_err(|e| fail(format!("{ip} does not resolve: {e}")))?;
        let name = found.and_then(Record::into_city).map(|c| c.name);
        let want = cities.get(*id as usize - 1).map(|c| c.name.clone());
        if name != want {
            return Err(fail(format!(
                "{ip} resolves to {name:?}, the converted table says {want:?}"
            )));
        }
    }
    Ok(())
}

/// Refuses the file when `text` is longer than the policy's string cap.
fn check_string(
    policy: &Policy,
    file: &str,
    what: impl FnOnce() -> String,
    text: &str,
) -> Result<(), DataError> {
    policy
        .check_string(what, text)
        .map_err(|violation| DataError::Policy {
            file: file.to_owned(),
            violation,
        })
}

fn io_fail(file: &str, reason: String) -> DataError {
    DataError::Io {
        file: file.to_owned(),
        source: std::io::Error::other(reason),
    }
}

/// Visits every network with data, in address order: `value` turns its
/// record into the value of the table (`None`: nothing for this table), and
/// `add` adds the network's first and last address with that value. A
/// network either cannot use is a defect (dropped and counted); `value`
/// refuses the whole file by returning the outer error. Returns the counts
/// and the reader.
///
/// Networks share records (the hundreds of blocks of one city or one AS
/// point at one record of the data section), so each record is decoded and
/// given to `value` once, by its offset, and its value reused.
fn walk<T: Copy>(
    bytes: Vec<u8>,
    file: &str,
    policy: &Policy,
    value: impl FnMut(Record) -> Result<Result<Option<T>, RowError>, DataError>,
    add: impl FnMut(IpAddr, IpAddr, T) -> Result<Pushed, RowError>,
) -> Result<(ImportStats, MmdbReader), DataError> {
    let reader = open_reader(bytes, file, policy, false)?;
    walk_reader(reader, file, policy, value, add)
}

/// Reads an MMDB's metadata, and refuses a search tree the walk could not
/// finish ([`Tree::check`]) or holding more networks than the policy allows
/// a file (of a city table: `city`), before any table is built.
fn open_reader(
    bytes: Vec<u8>,
    file: &str,
    policy: &Policy,
    city: bool,
) -> Result<MmdbReader, DataError> {
    let not_mmdb =
        |e: maxminddb::MaxMindDbError| io_fail(file, format!("not a MaxMind database: {e}"));
    let meta = Reader::from_source(bytes.as_slice())
        .map_err(not_mmdb)?
        .metadata()
        .clone();
    let tree = Tree {
        node_count: meta.node_count,
        record_size: meta.record_size,
        depth: if meta.ip_version == 6 { 128 } else { 32 },
    };
    let networks = tree.check(&bytes).map_err(|reason| io_fail(file, reason))?;
    policy
        .check_networks(networks, city)
        .map_err(|violation| DataError::Policy {
            file: file.to_owned(),
            violation,
        })?;
    Reader::from_source(bytes).map_err(not_mmdb)
}

/// [`walk`] over an open reader.
fn walk_reader<T: Copy>(
    reader: MmdbReader,
    file: &str,
    policy: &Policy,
    mut value: impl FnMut(Record) -> Result<Result<Option<T>, RowError>, DataError>,
    mut add: impl FnMut(IpAddr, IpAddr, T) -> Result<Pushed, RowError>,
) -> Result<(ImportStats, MmdbReader), DataError> {
    let fail = |reason: String| io_fail(file, reason);
    let mut stats = ImportStats::default();
    // Values of the records seen so far, by data offset (refused records are
    // not kept: each of their networks is counted as a defect again).
    let mut known: HashMap<usize, Option<T>> = HashMap::new();
    {
        let networks = reader
            .networks(WithinOptions::default())
            .map_err(|e| fail(e.to_string()))?;
        for (index, item) in networks.enumerate() {
            let item = item.map_err(|e| fail(format!("network {index}: {e}")))?;
            let net = item
                .network()
                .map_err(|e| fail(format!("network {index}: {e}")))?;
            let offset = item.offset();
            let converted = match offset.and_then(|o| known.get(&o)) {
                Some(v) => Ok(*v),
                None => {
                    let record: Record = item
                        .decode()
                        .map_err(|e| fail(format!("network {net}: {e}")))?
                        .unwrap_or_default();
                    let v = value(record)?;
                    if let (Some(o), Ok(v)) = (offset, &v) {
                        known.insert(o, *v);
                    }
                    v
                }
            };
            let (start, end) = (net.network(), net.broadcast());
            // A network wholly in space that is not globally reachable is a
            // defect (`Defect::Special`), as a CSV row there is.
            let placed = |v| match special::range_holding(start, end) {
                Some(held) => Err(RowError::Special(held)),
                None => add(start, end, v),
            };
            match converted.and_then(|v| v.map(placed).transpose()) {
                Ok(Some(_)) => stats.rows += 1,
                Ok(None) => stats.skipped += 1,
                Err(reason) => {
                    let kind = match reason {
                        RowError::Special(_) => Defect::Special,
                        _ => Defect::Unreadable,
                    };
                    stats.defect(kind, index + 1, &format!("network {net} dropped: {reason}"));
                }
            }
        }
    }
    stats.check(file, policy)?;
    Ok((stats, reader))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn city_ids_hold_every_city_number() {
        for n in [0, 1, 255, 256, 65_536, 1_000_003, MAX_CITIES] {
            assert_eq!(city_number(city_id(n)), n);
        }
        // Past the limit (refused by `read_city` before it happens) it saturates.
        assert_eq!(city_number(city_id(MAX_CITIES + 1)), MAX_CITIES);
    }
}
