//! City lookup benchmark: our city tables against the `maxminddb` crate
//! reading the same city MMDB, in the same run (issue 14, section 6).
//!
//! Groups, IPv4, over two address sets of 4096 addresses (fixed seed):
//!
//! - `maxminddb_city`: `Reader::lookup` + decode of the city name (borrowed)
//!   and its coordinates: what a city answer needs from the file;
//! - `ours_city`: the city table alone (`RangeTable::value`, then the city),
//!   name, coordinates and the city's time zone;
//! - `ours_answer`: `GeoDb::lookup`, everything the service reads for an
//!   answer (country, AS number and organisation, source range, city).
//!
//! Sets: `random_public` (uniform public IPv4) and `in_city` (random IPv4
//! addresses the file gives a city, found by trying).
//!
//! Before the groups, it prints what loading the file costs each way: time,
//! and the process's resident memory before and after.
//!
//! The file is not committed: `IPLOOKUP_BENCH_CITY_MMDB=PATH` (an IPv4 or
//! IPv4+IPv6 city MMDB, GeoLite2 or flat ip-location-db/DB-IP schema).
//! Run: `IPLOOKUP_BENCH_CITY_MMDB=PATH cargo bench --bench city -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;
use std::net::{IpAddr, Ipv4Addr};
use std::path::PathBuf;
use std::time::Instant;

use criterion::{BenchmarkId, Criterion, Throughput};
use iplookup::geo::GeoDb;
use iplookup::geo::load::{Policy, load_city};
use iplookup::geo::special::is_public;
use iplookup::zone;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Deserialize;

const N: usize = 4096;
const SEED: u64 = 0x1b_2026_1126;

type Reader = maxminddb::Reader<Vec<u8>>;

/// A coordinate stored as a double (MaxMind) or a float (ip-location-db).
#[derive(Clone, Copy)]
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
                Ok(Number(f64::from(v)))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Number, E> {
                Ok(Number(v))
            }
        }
        d.deserialize_any(Visit)
    }
}

/// The flat schema's city fields, the name borrowed from the file.
#[derive(Deserialize)]
struct FlatCity<'a> {
    #[serde(borrow, default)]
    city: Option<&'a str>,
    #[serde(default)]
    latitude: Option<Number>,
    #[serde(default)]
    longitude: Option<Number>,
}

#[inline]
fn mm_city(reader: &Reader, ip: IpAddr) -> Option<(&str, Option<f64>, Option<f64>)> {
    let r: FlatCity = reader.lookup(ip).ok()?.decode().ok()??;
    let name = r.city.filter(|c| !c.is_empty())?;
    Some((name, r.latitude.map(|n| n.0), r.longitude.map(|n| n.0)))
}

fn rss() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
            / 1024
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn sets(reader: &Reader) -> [(&'static str, Vec<Ipv4Addr>); 2] {
    let mut rng = StdRng::seed_from_u64(SEED);
    let mut random = Vec::with_capacity(N);
    while random.len() < N {
        let a = Ipv4Addr::from(rng.random::<u32>());
        if is_public(IpAddr::V4(a)) {
            random.push(a);
        }
    }
    let mut in_city = Vec::with_capacity(N);
    while in_city.len() < N {
        let a = Ipv4Addr::from(rng.random::<u32>());
        if mm_city(reader, IpAddr::V4(a)).is_some() {
            in_city.push(a);
        }
    }
    [("random_public", random), ("in_city", in_city)]
}

fn bench<R>(
    c: &mut Criterion,
    group: &str,
    set: &str,
    addrs: &[Ipv4Addr],
    f: impl Fn(Ipv4Addr) -> R,
) {
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(addrs.len() as u64));
    g.bench_with_input(BenchmarkId::new("ipv4", set), addrs, |b, addrs| {
        b.iter(|| {
            for &a in addrs {
                black_box(f(black_box(a)));
            }
        })
    });
    g.finish();
}

/// Nanoseconds per lookup of one pass over `addrs`.
fn pass<R>(addrs: &[Ipv4Addr], f: &impl Fn(Ipv4Addr) -> R) -> f64 {
    let t = Instant::now();
    for &a in addrs {
        black_box(f(black_box(a)));
    }
    t.elapsed().as_nanos() as f64 / addrs.len() as f64
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let Some(path) = std::env::var_os("IPLOOKUP_BENCH_CITY_MMDB").map(PathBuf::from) else {
        eprintln!("city bench SKIPPED: set IPLOOKUP_BENCH_CITY_MMDB to a city MMDB");
        return;
    };
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    eprintln!(
        "file: {} ({:.1} MiB)",
        path.display(),
        size as f64 / 1048576.0
    );

    let embedded = GeoDb::embedded().expect("embedded data");
    let (rss0, _) = rss();
    let t = Instant::now();
    let (tables, info) =
        load_city(&path, "dbip-city-lite.mmdb", &Policy::default()).expect("the file loads");
    let db = embedded.with_city(tables, info).expect("city ids");
    let loaded = t.elapsed();
    let t = Instant::now();
    zone::prepare_now(&db);
    let zoned = t.elapsed();
    let (rss1, hwm1) = rss();
    let tables = db.city_tables().expect("city tables");
    eprintln!(
        "ours: loaded in {loaded:.2?} ({} ranges, {} cities), zones in {zoned:.2?}; VmRSS +{} MiB (peak so far {hwm1} MiB)",
        tables.v4.len() + tables.v6.len(),
        tables.cities.len(),
        rss1.saturating_sub(rss0),
    );
    let t = Instant::now();
    let reader = Reader::open_readfile(&path).expect("maxminddb opens the file");
    let opened = t.elapsed();
    let (rss2, _) = rss();
    eprintln!(
        "maxminddb: opened in {opened:.2?}; VmRSS +{} MiB",
        rss2.saturating_sub(rss1)
    );

    let sets = sets(&reader);
    let city_only = |a: Ipv4Addr| {
        let id = iplookup::geo::mmdb::city_number(tables.v4.value(u32::from(a))) as usize;
        let city = tables.cities.get(id.checked_sub(1)?)?;
        Some((
            city.name.as_str(),
            city.latitude,
            city.longitude,
            zone::of_city(city),
        ))
    };
    // Both read the same cities.
    for (_, addrs) in &sets {
        for &a in addrs {
            let ours = city_only(a).map(|(n, ..)| n);
            let theirs = mm_city(&reader, IpAddr::V4(a)).map(|(n, ..)| n);
            assert_eq!(ours, theirs, "{a}");
        }
    }
    for (set, addrs) in &sets {
        bench(&mut c, "maxminddb_city", set, addrs, |a| {
            mm_city(&reader, IpAddr::V4(a))
        });
        bench(&mut c, "ours_city", set, addrs, city_only);
        bench(&mut c, "ours_answer", set, addrs, |a| {
            db.lookup(IpAddr::V4(a))
        });
    }
    c.final_summary();

    // Interleaved passes: the three in turn, 30 rounds, medians, so that load
    // drifting on a shared machine moves them together.
    println!(
        "\nset            maxminddb_city  ours_city  ours_answer  ratio (maxminddb/ours_city)"
    );
    for (set, addrs) in &sets {
        let (mut m, mut o, mut a) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..30 {
            m.push(pass(addrs, &|x| mm_city(&reader, IpAddr::V4(x))));
            o.push(pass(addrs, &city_only));
            a.push(pass(addrs, &|x| db.lookup(IpAddr::V4(x))));
        }
        let med = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let (m, o, a) = (med(&mut m), med(&mut o), med(&mut a));
        println!(
            "{set:<14} {m:>11.1} ns {o:>7.1} ns {a:>9.1} ns  {:.2}x",
            m / o
        );
    }
}
