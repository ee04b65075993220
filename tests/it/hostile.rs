//! Hostile data files (issue 22, the load half): the bounds every release
//! keeps, the same for CSV and MMDB, shown on the real binary (`update`
//! against a loopback mirror, `serve --data-dir` at start and at reload):
//! one AS may not expand to more than 100,000 CIDR prefixes, a string may not
//! pass 256 bytes, a file may not hold more networks than the cap (refused
//! before its tables are built), and a release must cover half the address
//! space, per family, of the one it replaces and of the embedded one. A file
//! outside them is refused in words naming the bound and the number, and the
//! service keeps serving what it had.

use crate::support;

use std::net::{Ipv6Addr, SocketAddr};
use std::path::Path;
use std::process::Output;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::{StatusCode, Uri};
use serde_json::Value;

use support::data::{ANY_ROWS, TempDir, asn_csv, country_csv, drop_in, gzip};
use support::http::{eventually, get, get_json};
use support::mmdb::{self, Writer};

/// The IPv4 /8s 1 to 223 but 10 and 127: a row in those is not coverage
/// but a defect (`special_dropped`), as in no real release.
fn public_eights() -> impl Iterator<Item = u32> {
    (1..=223).filter(|a| ![10, 127].contains(a))
}

/// A country file covering most of both families: the public /8s 1 to 223
/// of IPv4 and 2000::/3 of IPv6 in eight rows.
fn wide_country() -> String {
    let mut out = String::new();
    for a in public_eights() {
        let cc = ["DE", "FR", "NL", "JP"][a as usize % 4];
        out.push_str(&format!("{a}.0.0.0,{a}.255.255.255,{cc}\n"));
    }
    for h in 0..8 {
        let (s, e) = (0x2000 + h * 0x400, 0x2000 + h * 0x400 + 0x3ff);
        out.push_str(&format!(
            "{s:x}::,{e:x}:ffff:ffff:ffff:ffff:ffff:ffff:ffff,SE\n"
        ));
    }
    out
}

/// The IPv6 rows of AS64500 in 3000::/16: `rows` ranges, each one address
/// inside a /64 at both ends (126 CIDR prefixes apiece, none joined).
pub(crate) fn scattered_rows(rows: usize) -> String {
    (0..rows)
        .map(|i| {
            format!("3000:0:0:{i:x}::1,3000:0:0:{i:x}:ffff:ffff:ffff:fffe,64500,\"Scatter\"\n")
        })
        .collect()
}

/// An ASN file covering what [`wide_country`] covers (IPv6 up to 2fff::),
/// then the rows of `extra` (IPv6, in 3000::/16).
fn wide_asn(extra: &str) -> String {
    let mut out = String::new();
    for a in public_eights() {
        out.push_str(&format!(
            "{a}.0.0.0,{a}.255.255.255,{},\"Wide {a}\"\n",
            64600 + a
        ));
    }
    out.push_str("2000::,2fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff,64601,\"Wide six\"\n");
    out.push_str(extra);
    out
}

/// A loopback mirror answering `/free/NAME` with the files put there.
#[derive(Default)]
struct Mirror {
    files: Mutex<Vec<(String, Vec<u8>)>>,
}

impl Mirror {
    fn put(&self, name: &str, body: Vec<u8>) {
        self.files
            .lock()
            .unwrap()
            .push((format!("/free/{name}"), body));
    }
}

async fn mirror() -> (Arc<Mirror>, String) {
    let mirror = Arc::new(Mirror::default());
    let m = mirror.clone();
    let app = axum::Router::new().fallback(move |uri: Uri| {
        let m = m.clone();
        async move {
            let files = m.files.lock().unwrap();
            match files.iter().find(|(p, _)| p == uri.path()) {
                Some((_, body)) => (StatusCode::OK, body.clone()),
                None => (StatusCode::NOT_FOUND, b"not found".to_vec()),
            }
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (mirror, format!("http://{addr}/free/"))
}

/// `iplookup update` into `dir` from `base` for 2026-07, with `extra` arguments.
async fn update(dir: &Path, base: &str, extra: &[&str]) -> Output {
    update_month(dir, base, "2026-07", extra).await
}

/// `iplookup update` into `dir` from `base` for `month`, with `extra` arguments.
async fn update_month(dir: &Path, base: &str, month: &str, extra: &[&str]) -> Output {
    let mut args: Vec<String> = ["update", "--data-dir", dir.to_str().unwrap(), "--base-url"]
        .map(String::from)
        .to_vec();
    args.extend([base.to_owned(), "--month".into(), month.into()]);
    args.extend(extra.iter().map(|a| a.to_string()));
    tokio::task::spawn_blocking(move || support::proc::command().args(&args).output().unwrap())
        .await
        .unwrap()
}

/// The release files installed in `dir`.
fn installed(dir: &Path) -> Vec<String> {
    if !dir.exists() {
        return Vec::new();
    }
    support::data::snapshot(dir)
        .into_iter()
        .map(|(n, _)| n)
        .filter(|n| n.starts_with("dbip-"))
        .collect()
}

/// Asserts `update` failed with `words` on stderr and installed nothing.
fn assert_update_refused(out: &Output, dir: &Path, words: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "update succeeded: {stderr}");
    assert!(stderr.contains(words), "stderr lacks {words:?}:\n{stderr}");
    assert_eq!(installed(dir), Vec::<String>::new(), "{stderr}");
}

/// The peak resident memory of process `pid` (VmHWM), in MiB.
fn peak_rss_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM");
    kib / 1024.0
}

/// How long one GET of `url` takes, and its status.
async fn timed(client: &reqwest::Client, url: &str) -> (u16, Duration) {
    let t = Instant::now();
    let (status, _, _) = get(client, url).await;
    (status, t.elapsed())
}

/// Finding 1: an ASN release in which one AS expands to 252,000 prefixes
/// (2,000 IPv6 rows, each one address off a CIDR boundary at both ends) is
/// refused by `update`, naming the AS, the count and the bound. Before, it
/// was installed and every `/api/v1/asn/64500` expanded it on a worker thread.
#[tokio::test]
async fn update_refuses_an_as_expanding_to_too_many_prefixes() {
    let (mirror, base) = mirror().await;
    mirror.put(
        "dbip-country-lite-2026-07.csv.gz",
        gzip(wide_country().as_bytes()),
    );
    let hostile = wide_asn(&scattered_rows(2_000));
    mirror.put("dbip-asn-lite-2026-07.csv.gz", gzip(hostile.as_bytes()));
    let dir = TempDir::new("hostile-as");
    let out = update(dir.path(), &base, &ANY_ROWS).await;
    assert_update_refused(
        &out,
        dir.path(),
        "dbip-asn-lite-2026-07.csv.gz: AS64500 expands to 252000 CIDR prefixes, more than \
         the 100000 one AS may have; refusing",
    );
}

/// Finding 1 at reload: the running service refuses the same release
/// dropped into its data directory, keeps serving its ASN data, and
/// `/healthz`, a lookup and `/api/v1/asn/64500` stay fast meanwhile.
#[tokio::test]
async fn a_running_service_refuses_the_hostile_as_release_and_stays_fast() {
    let dir = TempDir::new("hostile-as-reload");
    drop_in(
        dir.path(),
        "dbip-asn-lite-2026-07.csv",
        wide_asn("").as_bytes(),
    );
    let running = support::proc::serve(&[
        "--no-reverse-dns",
        "--data-dir",
        dir.str(),
        ANY_ROWS[0],
        ANY_ROWS[1],
    ]);
    let client = support::client();
    let url = |p: &str| format!("{}{p}", running.base);
    let hostile = gzip(wide_asn(&scattered_rows(2_000)).as_bytes());
    drop_in(dir.path(), "dbip-asn-lite-2026-08.csv.gz", &hostile);
    let waited = eventually(Duration::from_secs(60), "the refusal", || async {
        let h = get_json(&client, &url("/healthz")).await;
        h["refused"][0]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("AS64500 expands to"))
    })
    .await;
    let h = get_json(&client, &url("/healthz")).await;
    assert_eq!(
        h["refused"][0]["file"], "dbip-asn-lite-2026-08.csv.gz",
        "{h}"
    );
    assert_eq!(h["data"]["asn"]["file"], "dbip-asn-lite-2026-07.csv", "{h}");
    let (s, healthz) = timed(&client, &url("/healthz")).await;
    assert_eq!(s, 200);
    let (s, lookup) = timed(&client, &url("/api/v1/ip/1.2.3.4")).await;
    assert_eq!(s, 200);
    let (s, asn) = timed(&client, &url("/api/v1/asn/64500")).await;
    // AS64500 is a documentation number (RFC 5398): explained, and the
    // refused release's rows of it are not served.
    assert_eq!(s, 200);
    let v = get_json(&client, &url("/api/v1/asn/64500")).await;
    assert_eq!(v["special_purpose"]["rfc"], "RFC 5398", "{v}");
    assert_eq!(
        (
            v["prefix_count"]["v4"].as_u64(),
            v["prefix_count"]["v6"].as_u64()
        ),
        (Some(0), Some(0)),
        "the refused release's AS is not served: {v}"
    );
    eprintln!(
        "refused after {waited:?}; /healthz {healthz:?}, lookup {lookup:?}, /api/v1/asn/64500 \
         {asn:?}; peak RSS {:.1} MiB",
        peak_rss_mib(running.pid())
    );
    for t in [healthz, lookup, asn] {
        assert!(t < Duration::from_secs(1), "{t:?}");
    }
}

/// The largest AS the bound lets through (99,540 prefixes) is served from
/// the index built at load: while four clients ask for it at once, the
/// answers are built on blocking threads (two at a time) and `/healthz` and
/// a lookup of another client stay fast.
#[tokio::test]
async fn an_as_at_the_bound_is_answered_off_the_runtime() {
    let dir = TempDir::new("as-at-bound");
    let release = wide_asn(&scattered_rows(790));
    drop_in(dir.path(), "dbip-asn-lite-2026-07.csv", release.as_bytes());
    let running = support::proc::serve(&[
        "--no-reverse-dns",
        "--data-dir",
        dir.str(),
        ANY_ROWS[0],
        ANY_ROWS[1],
    ]);
    let client = support::client();
    let base = running.base.clone();
    let before = peak_rss_mib(running.pid());
    let started = Instant::now();
    let askers: Vec<_> = (0..4)
        .map(|_| {
            let (client, url) = (client.clone(), format!("{base}/api/v1/asn/64500"));
            tokio::spawn(async move {
                let resp = client.get(&url).send().await.unwrap();
                let status = resp.status().as_u16();
                let body: Value = serde_json::from_slice(&resp.bytes().await.unwrap()).unwrap();
                (status, body)
            })
        })
        .collect();
    let mut others = Vec::new();
    for _ in 0..10 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let (s, h) = timed(&client, &format!("{base}/healthz")).await;
        let (t, l) = timed(&client, &format!("{base}/api/v1/ip/8.8.8.8")).await;
        assert_eq!((s, t), (200, 200));
        others.push(h.max(l));
    }
    for asker in askers {
        let (status, body) = asker.await.unwrap();
        assert_eq!(status, 200);
        assert_eq!(body["prefix_count"]["v6"].as_u64(), Some(99_540));
        assert_eq!(body["organization"], "Scatter");
    }
    let all = started.elapsed();
    let worst = others.iter().max().copied().unwrap_or_default();
    let after = peak_rss_mib(running.pid());
    eprintln!(
        "4 answers of 99,540 prefixes in {all:?}; slowest /healthz or lookup meanwhile \
         {worst:?}; peak RSS {before:.1} -> {after:.1} MiB"
    );
    assert!(worst < Duration::from_secs(1), "{others:?}");
}

/// Finding 3: a country MMDB of one network is a collapsed release: the
/// service refuses it at start, naming the address space it covers and the
/// embedded release's, and `1.1.1.1` keeps its country. Before, it replaced
/// the whole country table.
#[test]
fn a_one_network_country_mmdb_is_refused_as_collapsed() {
    let mut w = Writer::new(4, "DBIP-Country-Lite");
    w.insert(
        u128::from(u32::from_be_bytes([5, 6, 7, 0])),
        24,
        &mmdb::country("DE"),
    );
    let dir = TempDir::new("one-network");
    drop_in(dir.path(), "dbip-country-lite-2026-07.mmdb", &w.finish());
    let running = support::proc::serve(&["--no-reverse-dns", "--data-dir", dir.str()]);
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let client = support::client();
        let h = get_json(&client, &format!("{}/healthz", running.base)).await;
        assert_eq!(
            h["refused"][0]["file"], "dbip-country-lite-2026-07.mmdb",
            "{h}"
        );
        let reason = h["refused"][0]["reason"].as_str().unwrap_or("");
        assert!(
            reason.starts_with(
                "dbip-country-lite-2026-07.mmdb: covers 256 IPv4 addresses, less than 50% of the "
            ) && reason.contains("the country release it would replace covers"),
            "{reason}"
        );
        let v = get_json(&client, &format!("{}/api/v1/ip/1.1.1.1", running.base)).await;
        assert_eq!(v["location"]["country_code"], "AU", "{v}");
    });
}

/// Finding 3: a country CSV of /28 rows covering a sliver of IPv4 is
/// refused by `update` on its address space, though its row count passes
/// the window (`0..1000` here: the 1,000,000-row case passes the default
/// window the same way; the policy's unit test has its numbers).
#[tokio::test]
async fn update_refuses_a_csv_of_slivers() {
    let (mirror, base) = mirror().await;
    let mut slivers = String::new();
    for i in 0..20_000u32 {
        let s = std::net::Ipv4Addr::from(0x0100_0000 + i * 256);
        let e = std::net::Ipv4Addr::from(0x0100_0000 + i * 256 + 15);
        slivers.push_str(&format!("{s},{e},DE\n"));
    }
    slivers.push_str("2000::,3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff,SE\n");
    mirror.put("dbip-country-lite-2026-07.csv.gz", gzip(slivers.as_bytes()));
    mirror.put(
        "dbip-asn-lite-2026-07.csv.gz",
        gzip(wide_asn("").as_bytes()),
    );
    let dir = TempDir::new("slivers");
    let out = update(dir.path(), &base, &["--release-row-ratio", "0..1000"]).await;
    assert_update_refused(
        &out,
        dir.path(),
        "dbip-country-lite-2026-07.csv.gz: covers 320000 IPv4 addresses, less than 50% of the ",
    );
}

/// Finding 3: an MMDB holding more networks than the cap is refused before
/// its tables are built (`--max-data-networks 100000`, 131,072 networks; the
/// default cap is 4,000,000, shown by the ignored test below).
#[test]
fn an_mmdb_over_the_network_cap_is_refused_before_it_is_walked() {
    let dir = TempDir::new("many-networks");
    drop_in(
        dir.path(),
        "dbip-country-lite-2026-07.mmdb",
        &many_networks(17),
    );
    let running = support::proc::serve(&[
        "--no-reverse-dns",
        "--data-dir",
        dir.str(),
        "--max-data-networks",
        "100000",
    ]);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let h = rt.block_on(get_json(
        &support::client(),
        &format!("{}/healthz", running.base),
    ));
    assert_eq!(
        h["refused"][0]["reason"],
        "dbip-country-lite-2026-07.mmdb: holds more than 100000 networks (stopped counting \
         at 131072; --max-data-networks); refusing",
        "{h}"
    );
}

/// An IPv4 country MMDB of 2^`bits` /32 networks in 10.0.0.0/8, all of one record.
fn many_networks(bits: u32) -> Vec<u8> {
    let mut w = Writer::new(4, "DBIP-Country-Lite");
    let de = mmdb::country("DE");
    for i in 0..1u32 << bits {
        w.insert(u128::from(0x0a00_0000 | i), 32, &de);
    }
    w.finish()
}

/// The default network cap against 4,194,304 networks (a 25 MB file), with
/// the server's peak memory: slow in a debug build.
#[test]
#[ignore = "slow: writes and checks an MMDB of 4,194,304 networks; in a debug build on a loaded machine the server does not start within the 30 s support::proc::serve waits"]
fn an_mmdb_of_millions_of_networks_is_refused_at_the_default_cap() {
    let dir = TempDir::new("millions");
    drop_in(
        dir.path(),
        "dbip-country-lite-2026-07.mmdb",
        &many_networks(22),
    );
    let started = Instant::now();
    let running = support::proc::serve(&["--no-reverse-dns", "--data-dir", dir.str()]);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let h = rt.block_on(get_json(
        &support::client(),
        &format!("{}/healthz", running.base),
    ));
    let reason = h["refused"][0]["reason"].as_str().unwrap_or("");
    assert!(reason.contains("holds more than 4000000 networks"), "{h}");
    eprintln!(
        "refused at start in {:?}; peak RSS {:.1} MiB",
        started.elapsed(),
        peak_rss_mib(running.pid())
    );
}

/// Finding 2 (the load half): a city MMDB of 223 networks, one of them with
/// a city name of 1,000,000 characters, is refused by `update --city` on the
/// string cap. Before, it was installed and every answer carried the name.
#[tokio::test]
async fn update_refuses_a_city_name_of_a_million_characters() {
    let (mirror, base) = mirror().await;
    mirror.put(
        "dbip-country-lite-2026-07.csv.gz",
        gzip(country_csv(20, "DE").as_bytes()),
    );
    mirror.put(
        "dbip-asn-lite-2026-07.csv.gz",
        gzip(asn_csv(20, 64500, "X").as_bytes()),
    );
    let mut w = Writer::new(6, "DBIP-City-Lite");
    for i in 0..223u128 {
        let name = if i == 100 {
            "x".repeat(1_000_000)
        } else {
            format!("Town {i}")
        };
        let record = mmdb::city(&name, "DE", 50.0 + i as f64 / 1000.0, 8.0);
        w.insert((0x2001_0db8u128 << 96) | (i << 80), 48, &record);
    }
    mirror.put("dbip-city-lite-2026-07.mmdb.gz", gzip(&w.finish()));
    let dir = TempDir::new("long-city");
    let mut args = vec!["--city"];
    args.extend(ANY_ROWS);
    let out = update(dir.path(), &base, &args).await;
    assert_update_refused(
        &out,
        dir.path(),
        "is 1000000 bytes long, longer than the 256 bytes a string may have; refusing",
    );
}

/// The floor of a first city release: a city MMDB covering a few networks,
/// where the country table serving covers most of both families, is refused
/// by `update --city` on its address space.
#[tokio::test]
async fn update_refuses_a_small_first_city_release() {
    let (mirror, base) = mirror().await;
    mirror.put(
        "dbip-country-lite-2026-07.csv.gz",
        gzip(wide_country().as_bytes()),
    );
    mirror.put(
        "dbip-asn-lite-2026-07.csv.gz",
        gzip(wide_asn("").as_bytes()),
    );
    let mut w = Writer::new(6, "DBIP-City-Lite");
    w.insert(
        0x2a00_1450u128 << 96,
        32,
        &mmdb::city("Town", "DE", 50.0, 8.0),
    );
    mirror.put("dbip-city-lite-2026-07.mmdb.gz", gzip(&w.finish()));
    let dir = TempDir::new("small-city");
    let out = update(
        dir.path(),
        &base,
        &["--city", "--release-row-ratio", "0..1000"],
    )
    .await;
    assert_update_refused(
        &out,
        dir.path(),
        "dbip-city-lite-2026-07.mmdb.gz: covers 0 IPv4 addresses, less than 50% of the ",
    );
}

/// An ASN file of the first `eights` of [`public_eights`] and the first
/// `twenties` IPv6 /20s of 2000::/4, one AS each.
fn asn_share(eights: u32, twenties: u32) -> String {
    let mut out = String::new();
    for a in public_eights().take(eights as usize) {
        out.push_str(&format!(
            "{a}.0.0.0,{a}.255.255.255,{},\"Share {a}\"\n",
            64600 + a
        ));
    }
    for i in 0..u128::from(twenties) {
        let s = (0x2000u128 << 112) + (i << 108);
        let (a, b) = (Ipv6Addr::from(s), Ipv6Addr::from(s + (1u128 << 108) - 1));
        out.push_str(&format!("{a},{b},64599,\"Share six\"\n"));
    }
    out
}

/// Finding 3, the ratchet: each release is judged against the embedded
/// release too, not only the one it replaces. A first ASN update at 70% of
/// the embedded release's address space (138 /8s, 48 IPv6 /20s) is
/// installed; a second at 60% of it (83 /8s, 29 /20s: 42% of the embedded
/// release's IPv4) passes the serving reference but is refused, naming the
/// embedded ASN release. An operator's small release installed with
/// `--release-row-ratio any` is its own only reference: the next update at
/// 60% of it is installed.
#[tokio::test]
async fn successive_releases_cannot_ratchet_coverage_down() {
    let (mirror, base) = mirror().await;
    for (month, eights, twenties) in [
        ("2026-07", 138, 48),
        ("2026-08", 83, 29),
        ("2026-09", 50, 18),
    ] {
        mirror.put(
            &format!("dbip-country-lite-{month}.csv.gz"),
            gzip(wide_country().as_bytes()),
        );
        mirror.put(
            &format!("dbip-asn-lite-{month}.csv.gz"),
            gzip(asn_share(eights, twenties).as_bytes()),
        );
    }
    let dir = TempDir::new("ratchet");
    let window = ["--release-row-ratio", "0..1000"];
    let out = update_month(dir.path(), &base, "2026-07", &window).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the first update: {stderr}");
    let first = installed(dir.path());
    assert!(
        first.contains(&"dbip-asn-lite-2026-07.csv.gz".to_owned()),
        "{first:?}"
    );
    let out = update_month(dir.path(), &base, "2026-08", &window).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "the second update succeeded: {stderr}"
    );
    let words = format!(
        "dbip-asn-lite-2026-08.csv.gz: covers {} IPv4 addresses, less than 50% of the ",
        83u64 << 24
    );
    assert!(
        stderr.contains(&words) && stderr.contains(" the embedded ASN release covers"),
        "{stderr}"
    );
    assert_eq!(installed(dir.path()), first, "nothing installed: {stderr}");
    // Taken on purpose, it becomes the only reference.
    let out = update_month(dir.path(), &base, "2026-08", &ANY_ROWS).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = update_month(dir.path(), &base, "2026-09", &window).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the update after a small release: {stderr}"
    );
    assert!(
        installed(dir.path()).contains(&"dbip-asn-lite-2026-09.csv.gz".to_owned()),
        "{:?}",
        installed(dir.path())
    );
}
