//! Lookup benchmark: our range tables against the `maxminddb` crate reading the
//! same DB-IP Lite country release as MMDB, in the same run.
//!
//! Groups (each with IPv4 and IPv6, over two address sets):
//!
//! - `maxminddb_country`: `Reader::lookup` + decode of the country code only
//!   (the baseline);
//! - `ours_country`: the country alone, from the lookup index the service
//!   searches (`RangeTable::value` on `GeoDb::index`, then the code book, whose
//!   result is the packed two-letter code);
//! - `ours_country_asn`: `GeoDb::lookup`: country, AS number and organisation,
//!   and the source row `network.range` is cut from (all the service reads).
//!
//! Address sets, 4096 addresses each, fixed seed:
//!
//! - `random_public`: uniform public IPv4, uniform public IPv6 in 2000::/3;
//! - `in_data`: a random address inside a random country row of the data.
//!   The harder set: random IPv6 addresses mostly fall in empty space.
//!
//! One iteration looks up the whole set; the throughput is per lookup. After
//! criterion finishes, a table of ratios (maxminddb time / our time) is printed
//! and written to `<criterion dir>/lookup-ratios.md`: ratios are what we report,
//! since absolute times drift on a shared machine.
//!
//! The MMDB is not committed: `bash bench/fetch-mmdb.sh` puts it in
//! `target/bench-data/`. Without it only our groups run.
//!
//! Run: `bash bench/fetch-mmdb.sh && cargo bench --bench lookup -- --warm-up-time 1 --measurement-time 3`

use std::fmt::Write as _;
use std::hint::black_box;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

use criterion::{BenchmarkId, Criterion, Throughput};
use iplookup::geo::GeoDb;
use iplookup::geo::special::is_public;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Deserialize;

/// Addresses per set (and lookups per iteration).
const N: usize = 4096;
/// Seed of every address set.
const SEED: u64 = 0x1b_2026_0601;
/// Where `bench/fetch-mmdb.sh` puts the combined IPv4 + IPv6 MMDB.
const MMDB: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/target/bench-data/dbip-country.mmdb"
);

const MM: &str = "maxminddb_country";
const OURS_C: &str = "ours_country";
const OURS_CA: &str = "ours_country_asn";
const FAMILIES: [&str; 2] = ["ipv4", "ipv6"];
const SETS: [&str; 2] = ["random_public", "in_data"];

/// One address set, both families.
struct AddrSet {
    name: &'static str,
    v4: Vec<Ipv4Addr>,
    v6: Vec<Ipv6Addr>,
}

/// The record of the ip-location-db country MMDB: `{ country_code: "XX" }`.
/// Only the code is decoded, borrowed from the database buffer.
#[derive(Deserialize)]
struct MmdbCountry<'a> {
    #[serde(borrow)]
    country_code: &'a str,
}

type Reader = maxminddb::Reader<Vec<u8>>;

#[inline]
fn mm_country(reader: &Reader, ip: IpAddr) -> Option<&str> {
    reader
        .lookup(ip)
        .ok()?
        .decode::<MmdbCountry>()
        .ok()
        .flatten()
        .map(|r| r.country_code)
}

fn random_public() -> AddrSet {
    let mut rng = StdRng::seed_from_u64(SEED);
    let mut v4 = Vec::with_capacity(N);
    while v4.len() < N {
        let a = Ipv4Addr::from(rng.random::<u32>());
        if is_public(a.into()) {
            v4.push(a);
        }
    }
    let mut v6 = Vec::with_capacity(N);
    while v6.len() < N {
        // 2000::/3: the top three bits are 001.
        let a = Ipv6Addr::from((1u128 << 125) | (rng.random::<u128>() >> 3));
        if is_public(a.into()) {
            v6.push(a);
        }
    }
    AddrSet {
        name: "random_public",
        v4,
        v6,
    }
}

fn in_data(db: &GeoDb) -> AddrSet {
    let mut rng = StdRng::seed_from_u64(SEED ^ 0xd17a);
    let tables = db.country_tables();
    let rows_v4: Vec<usize> = (0..tables.v4.len())
        .filter(|&i| tables.v4.values()[i] != 0)
        .collect();
    let rows_v6: Vec<usize> = (0..tables.v6.len())
        .filter(|&i| tables.v6.values()[i] != 0)
        .collect();
    let v4 = (0..N)
        .map(|_| {
            let e = tables
                .v4
                .entry_at(rows_v4[rng.random_range(0..rows_v4.len())]);
            Ipv4Addr::from(rng.random_range(e.start..=e.end))
        })
        .collect();
    let v6 = (0..N)
        .map(|_| {
            let e = tables
                .v6
                .entry_at(rows_v6[rng.random_range(0..rows_v6.len())]);
            Ipv6Addr::from(rng.random_range(e.start..=e.end))
        })
        .collect();
    AddrSet {
        name: "in_data",
        v4,
        v6,
    }
}

fn unpack(code: u16) -> Option<[u8; 2]> {
    (code != 0).then(|| code.to_be_bytes())
}

/// Checks that both implementations give the same country for every address
/// of a set (so the comparison is between equal work), and prints how many
/// addresses had data.
fn cross_check(db: &GeoDb, reader: Option<&Reader>, set: &AddrSet) {
    let t = db.country_tables();
    let ips = set
        .v4
        .iter()
        .map(|&a| (IpAddr::from(a), unpack(t.v4.value(u32::from(a)))))
        .chain(
            set.v6
                .iter()
                .map(|&a| (IpAddr::from(a), unpack(t.v6.value(u128::from(a))))),
        );
    let (mut found, mut agree, mut shown) = ([0usize; 2], [0usize; 2], 0);
    for (ip, ours) in ips {
        let f = usize::from(ip.is_ipv6());
        found[f] += usize::from(ours.is_some());
        let Some(reader) = reader else { continue };
        let theirs = mm_country(reader, ip).map(|c| c.as_bytes().to_vec());
        if theirs.as_deref() == ours.as_ref().map(|c| &c[..]) {
            agree[f] += 1;
        } else if shown < 5 {
            shown += 1;
            eprintln!(
                "  disagreement at {ip}: ours {:?}, maxminddb {:?}",
                ours.map(|c| String::from_utf8_lossy(&c).into_owned()),
                theirs.map(|c| String::from_utf8_lossy(&c).into_owned()),
            );
        }
    }
    for (f, family) in FAMILIES.iter().enumerate() {
        let agreement = match reader {
            Some(_) => format!(", maxminddb agrees on {}/{N}", agree[f]),
            None => String::new(),
        };
        eprintln!(
            "set {}/{family}: {}/{N} addresses have a country{agreement}",
            set.name, found[f]
        );
    }
}

/// Benchmarks `f` over every address of `addrs` per iteration.
fn bench_set<T: Copy, R>(
    c: &mut Criterion,
    group: &str,
    family: &str,
    set: &str,
    addrs: &[T],
    f: impl Fn(T) -> R,
) {
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(addrs.len() as u64));
    g.bench_with_input(BenchmarkId::new(family, set), addrs, |b, addrs| {
        b.iter(|| {
            for &a in addrs {
                black_box(f(black_box(a)));
            }
        })
    });
    g.finish();
}

fn benches(c: &mut Criterion, db: &GeoDb, reader: Option<&Reader>, sets: &[AddrSet]) {
    let index = db.index();
    // The three implementations of one case run back to back, so that load
    // drifting on a shared machine moves their times together.
    for set in sets {
        if let Some(reader) = reader {
            bench_set(c, MM, "ipv4", set.name, &set.v4, |a| {
                mm_country(reader, IpAddr::V4(a))
            });
        }
        bench_set(c, OURS_C, "ipv4", set.name, &set.v4, |a| {
            index.codes.code(&index.v4.value(u32::from(a)))
        });
        bench_set(c, OURS_CA, "ipv4", set.name, &set.v4, |a| {
            db.lookup(IpAddr::V4(a))
        });
        if let Some(reader) = reader {
            bench_set(c, MM, "ipv6", set.name, &set.v6, |a| {
                mm_country(reader, IpAddr::V6(a))
            });
        }
        bench_set(c, OURS_C, "ipv6", set.name, &set.v6, |a| {
            index.codes.code(&index.v6.value(u128::from(a)))
        });
        bench_set(c, OURS_CA, "ipv6", set.name, &set.v6, |a| {
            db.lookup(IpAddr::V6(a))
        });
    }
}

/// Criterion's output directory, found the way criterion finds it.
fn criterion_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return home.into();
    }
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(target).join("criterion");
    }
    #[derive(Deserialize)]
    struct Metadata {
        target_directory: PathBuf,
    }
    let from_cargo = std::env::var_os("CARGO").and_then(|cargo| {
        let out = std::process::Command::new(cargo)
            .args(["metadata", "--format-version", "1", "--no-deps"])
            .output()
            .ok()?;
        serde_json::from_slice::<Metadata>(&out.stdout).ok()
    });
    match from_cargo {
        Some(m) => m.target_directory.join("criterion"),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/criterion"),
    }
}

/// Nanoseconds per lookup measured in this run (slope, else mean), or `None`
/// if the benchmark did not run (filtered out, test mode, no MMDB).
fn per_lookup_ns(
    dir: &Path,
    started: SystemTime,
    group: &str,
    family: &str,
    set: &str,
) -> Option<f64> {
    #[derive(Deserialize)]
    struct Estimate {
        point_estimate: f64,
    }
    #[derive(Deserialize)]
    struct Estimates {
        mean: Estimate,
        slope: Option<Estimate>,
    }
    let path = dir
        .join(group)
        .join(family)
        .join(set)
        .join("new/estimates.json");
    let modified = std::fs::metadata(&path).ok()?.modified().ok()?;
    if modified < started {
        return None;
    }
    let e: Estimates = serde_json::from_slice(&std::fs::read(&path).ok()?).ok()?;
    Some(e.slope.unwrap_or(e.mean).point_estimate / N as f64)
}

/// Per-lookup times of one case: (maxminddb, ours country, ours country + ASN).
type Row = (String, Option<f64>, Option<f64>, Option<f64>);

/// The ratio table: maxminddb time / our time for each case, against the targets.
fn render_table(rows: &[Row]) -> String {
    let fmt_ns = |v: Option<f64>| v.map_or("-".to_owned(), |v| format!("{v:.1}"));
    let ratio = |base: Option<f64>, ours: Option<f64>, target: f64| match (base, ours) {
        (Some(b), Some(o)) => {
            let r = b / o;
            let verdict = if r >= target { "ok" } else { "MISSED" };
            format!("{r:.1}x ({verdict}, target {target}x)")
        }
        _ => "-".to_owned(),
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| case | maxminddb country (ns/lookup) | ours country (ns/lookup) | ours country + ASN (ns/lookup) | country speed-up | country + ASN speed-up |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|");
    for (case, mm, oc, oca) in rows {
        let _ = writeln!(
            out,
            "| {case} | {} | {} | {} | {} | {} |",
            fmt_ns(*mm),
            fmt_ns(*oc),
            fmt_ns(*oca),
            ratio(*mm, *oc, 5.0),
            ratio(*mm, *oca, 3.0),
        );
    }
    out
}

/// The table from criterion's estimates of this run.
fn criterion_table(started: SystemTime) -> Option<String> {
    let dir = criterion_dir();
    let ns = |g, f, s| per_lookup_ns(&dir, started, g, f, s);
    let mut rows = Vec::new();
    for set in SETS {
        for family in FAMILIES {
            rows.push((
                format!("{family} {set}"),
                ns(MM, family, set),
                ns(OURS_C, family, set),
                ns(OURS_CA, family, set),
            ));
        }
    }
    if rows
        .iter()
        .all(|r| r.1.is_none() && r.2.is_none() && r.3.is_none())
    {
        println!("lookup bench: no criterion estimates written in this run (filtered out?)");
        return None;
    }
    let out = render_table(&rows);
    println!(
        "\nSpeed-up from criterion's estimates (maxminddb country time / our time, same run, \
         {N} addresses per set, seed {SEED:#x}):\n"
    );
    println!("{out}");
    Some(out)
}

/// Nanoseconds per lookup of one pass of `f` over `addrs`.
fn pass<T: Copy, R>(addrs: &[T], f: &impl Fn(T) -> R) -> f64 {
    let start = Instant::now();
    for &a in addrs {
        black_box(f(black_box(a)));
    }
    start.elapsed().as_nanos() as f64 / addrs.len() as f64
}

/// Medians of [`ROUNDS`] interleaved passes of the three implementations.
fn interleave<T: Copy, R1, R2, R3>(
    addrs: &[T],
    mm: Option<&impl Fn(T) -> R1>,
    oc: &impl Fn(T) -> R2,
    oca: &impl Fn(T) -> R3,
) -> (Option<f64>, Option<f64>, Option<f64>) {
    let mut t: [Vec<f64>; 3] = Default::default();
    for round in 0..ROUNDS {
        // Rotate the order so no implementation always runs after another.
        for k in 0..3 {
            match (round + k) % 3 {
                0 => {
                    if let Some(mm) = mm {
                        t[0].push(pass(addrs, mm));
                    }
                }
                1 => t[1].push(pass(addrs, oc)),
                _ => t[2].push(pass(addrs, oca)),
            }
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied()
    };
    let [a, b, c] = &mut t;
    (median(a), median(b), median(c))
}

/// Rounds of the interleaved measurement.
const ROUNDS: usize = 201;

/// A second estimate, robust to load drifting between criterion's groups: the
/// three implementations measured in alternation, pass by pass, median of each.
fn interleaved_table(db: &GeoDb, reader: Option<&Reader>, sets: &[AddrSet]) -> String {
    let index = db.index();
    let mut rows = Vec::new();
    for set in sets {
        let mm4 = reader.map(|r| move |a: Ipv4Addr| mm_country(r, IpAddr::V4(a)));
        let (mm, oc, oca) = interleave(
            &set.v4,
            mm4.as_ref(),
            &|a: Ipv4Addr| index.codes.code(&index.v4.value(u32::from(a))),
            &|a: Ipv4Addr| db.lookup(IpAddr::V4(a)),
        );
        rows.push((format!("ipv4 {}", set.name), mm, oc, oca));
        let mm6 = reader.map(|r| move |a: Ipv6Addr| mm_country(r, IpAddr::V6(a)));
        let (mm, oc, oca) = interleave(
            &set.v6,
            mm6.as_ref(),
            &|a: Ipv6Addr| index.codes.code(&index.v6.value(u128::from(a))),
            &|a: Ipv6Addr| db.lookup(IpAddr::V6(a)),
        );
        rows.push((format!("ipv6 {}", set.name), mm, oc, oca));
    }
    // Same order as the criterion table: by set, then family.
    rows.sort_by_key(|r| {
        let set = SETS.iter().position(|s| r.0.ends_with(s));
        let family = FAMILIES.iter().position(|f| r.0.starts_with(f));
        (set, family)
    });
    let out = render_table(&rows);
    println!(
        "\nSpeed-up, interleaved passes (median of {ROUNDS} alternating passes over each set):\n"
    );
    println!("{out}");
    out
}

fn main() {
    let started = SystemTime::now();
    let args: Vec<String> = std::env::args().collect();
    // `cargo bench` passes --bench; `cargo test --benches` does not (criterion's test mode).
    let bench_mode = args.iter().any(|a| a == "--bench") && !args.iter().any(|a| a == "--list");
    let mut c = Criterion::default().configure_from_args();

    let db = GeoDb::embedded().expect("embedded data");
    let mmdb =
        std::env::var_os("IPLOOKUP_BENCH_MMDB").map_or_else(|| PathBuf::from(MMDB), PathBuf::from);
    let reader = match maxminddb::Reader::open_readfile(&mmdb) {
        Ok(r) => Some(r),
        Err(e) => {
            eprintln!(
                "\n*** maxminddb baseline SKIPPED: cannot open {} ({e}).\n\
                 *** Fetch the DB-IP country MMDB first:  bash bench/fetch-mmdb.sh\n\
                 *** (or point IPLOOKUP_BENCH_MMDB at a copy). Running our lookups only.\n",
                mmdb.display()
            );
            None
        }
    };
    if let Some(r) = &reader {
        let m = r.metadata();
        eprintln!(
            "maxminddb: {} ({}, IPv{}, {} nodes, built {})",
            mmdb.display(),
            m.database_type,
            m.ip_version,
            m.node_count,
            m.build_epoch
        );
    }

    let sets = [random_public(), in_data(&db)];
    for set in &sets {
        cross_check(&db, reader.as_ref(), set);
    }

    benches(&mut c, &db, reader.as_ref(), &sets);
    c.final_summary();
    if !bench_mode {
        return;
    }
    let mut report = String::new();
    if let Some(table) = criterion_table(started) {
        let _ = write!(report, "criterion estimates:\n\n{table}\n");
    }
    let table = interleaved_table(&db, reader.as_ref(), &sets);
    let _ = write!(report, "interleaved passes:\n\n{table}");
    let file = criterion_dir().join("lookup-ratios.md");
    if std::fs::write(&file, &report).is_ok() {
        println!("(both tables written to {})", file.display());
    }
}
