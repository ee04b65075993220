//! `iplookup update` (the real binary) against a local HTTP server serving
//! fixture files: a good release is installed whole, the previous month is
//! used when the current one is not out, and every bad download (truncated
//! gzip, reversed ranges, collapsed or exploded row counts, HTTP errors)
//! fails with the reason on stderr and leaves the installed files byte for
//! byte as they were.

use crate::support;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;
use std::process::Output;
use std::sync::{Arc, Mutex};

use axum::http::{HeaderMap, StatusCode, Uri};
use serde_json::Value;

use support::data::{
    ANY_ROWS, TempDir, asn_csv, country_csv, gzip, reversed_country_csv, reversed_rows_refusal,
    snapshot,
};

/// What the fixture server answers: path → (status, body). Unknown paths 404.
#[derive(Default)]
struct Mirror {
    files: Mutex<HashMap<String, (StatusCode, Vec<u8>)>>,
    /// Paths asked, in order, with the User-Agent.
    asked: Mutex<Vec<(String, String)>>,
}

impl Mirror {
    fn put(&self, name: &str, body: Vec<u8>) {
        self.put_status(name, StatusCode::OK, body);
    }

    fn put_status(&self, name: &str, status: StatusCode, body: Vec<u8>) {
        self.files
            .lock()
            .unwrap()
            .insert(format!("/free/{name}"), (status, body));
    }

    fn clear(&self) {
        self.files.lock().unwrap().clear();
        self.asked.lock().unwrap().clear();
    }

    fn asked(&self) -> Vec<String> {
        self.asked
            .lock()
            .unwrap()
            .iter()
            .map(|(p, _)| p.clone())
            .collect()
    }
}

/// Starts the fixture HTTP server; returns its base URL (`http://…/free/`).
async fn mirror() -> (Arc<Mirror>, String) {
    let mirror = Arc::new(Mirror::default());
    let m = mirror.clone();
    let app = axum::Router::new().fallback(move |uri: Uri, headers: HeaderMap| {
        let m = m.clone();
        async move {
            let ua = headers
                .get("user-agent")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_owned();
            m.asked.lock().unwrap().push((uri.path().to_owned(), ua));
            match m.files.lock().unwrap().get(uri.path()) {
                Some((status, body)) => (*status, body.clone()),
                None => (StatusCode::NOT_FOUND, b"not found".to_vec()),
            }
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (mirror, format!("http://{addr}/free/"))
}

/// Runs `iplookup ARGS…` off the async runtime.
async fn iplookup(args: Vec<String>) -> Output {
    tokio::task::spawn_blocking(move || {
        support::proc::command()
            .args(&args)
            .output()
            .expect("run iplookup")
    })
    .await
    .unwrap()
}

async fn update(dir: &Path, base: &str, month: &str) -> Output {
    update_with(dir, base, month, &[]).await
}

/// `iplookup update` with more arguments.
async fn update_with(dir: &Path, base: &str, month: &str, extra: &[&str]) -> Output {
    let mut args: Vec<String> = vec![
        "update".into(),
        "--data-dir".into(),
        dir.display().to_string(),
        "--base-url".into(),
        base.into(),
        "--month".into(),
        month.into(),
    ];
    args.extend(extra.iter().map(|a| a.to_string()));
    iplookup(args).await
}

/// `iplookup lookup 8.8.8.8 --data-dir DIR` → its JSON.
async fn lookup_8888(dir: &Path) -> Value {
    let out = iplookup(vec![
        "lookup".into(),
        "8.8.8.8".into(),
        "--data-dir".into(),
        dir.display().to_string(),
        ANY_ROWS[0].into(),
        ANY_ROWS[1].into(),
    ])
    .await;
    assert!(out.status.success(), "lookup failed: {}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("lookup prints JSON")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

const C01: &str = "dbip-country-lite-2026-07.csv.gz";
const A01: &str = "dbip-asn-lite-2026-07.csv.gz";
const C02: &str = "dbip-country-lite-2026-08.csv.gz";
const A02: &str = "dbip-asn-lite-2026-08.csv.gz";

/// A mirror holding a good 100-row 2026-07 release (8.8.8.8: FR, AS64500).
async fn mirror_with_january() -> (Arc<Mirror>, String) {
    let (m, base) = mirror().await;
    m.put(C01, gzip(country_csv(100, "FR").as_bytes()));
    m.put(A01, gzip(asn_csv(100, 64500, "Fixture January").as_bytes()));
    (m, base)
}

/// A data directory with the 2026-07 release installed by `update` itself.
async fn installed_january() -> (TempDir, Arc<Mirror>, String) {
    let dir = TempDir::new("update");
    let (m, base) = mirror_with_january().await;
    // The first install of 100-row fixtures: no row-count window against the embedded data.
    let out = update_with(dir.path(), &base, "2026-07", &ANY_ROWS).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    m.clear();
    (dir, m, base)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_good_release_is_installed_whole() {
    let tmp = TempDir::new("update");
    // The data directory does not exist yet: update creates it.
    let dir = tmp.path().join("data");
    let (m, base) = mirror_with_january().await;
    let country = gzip(country_csv(100, "FR").as_bytes());
    let asn = gzip(asn_csv(100, 64500, "Fixture January").as_bytes());

    let out = update_with(&dir, &base, "2026-07", &ANY_ROWS).await;
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("installed dbip-country-lite-2026-07.csv.gz (100 rows)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("installed dbip-asn-lite-2026-07.csv.gz (100 rows)"),
        "{stdout}"
    );

    // Exactly the two files, under DB-IP's names, byte for byte as served; no temporaries.
    assert_eq!(
        snapshot(&dir),
        vec![(A01.to_owned(), asn), (C01.to_owned(), country)]
    );
    // Fetched from DB-IP's file names under the base URL, saying who asks.
    let asked = m.asked.lock().unwrap().clone();
    assert_eq!(
        asked.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(),
        vec![format!("/free/{C01}"), format!("/free/{A01}")]
    );
    assert!(
        asked.iter().all(|(_, ua)| ua.starts_with("iplookup/")),
        "{asked:?}"
    );

    // The installed release is what the lookups use.
    let info = lookup_8888(&dir).await;
    assert_eq!(info["location"]["country_code"], "FR", "{info}");
    assert_eq!(info["network"]["asn"], 64500, "{info}");
    assert_eq!(info["network"]["organization"], "Fixture January", "{info}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_previous_month_is_used_when_the_current_one_is_not_out() {
    let dir = TempDir::new("update");
    let (m, base) = mirror_with_january().await;

    let out = update_with(dir.path(), &base, "2026-08", &ANY_ROWS).await;
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    let names: Vec<String> = snapshot(dir.path()).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, vec![A01, C01]);
    // February was asked first, for each kind, then January.
    assert_eq!(
        m.asked(),
        vec![
            format!("/free/{C02}"),
            format!("/free/{C01}"),
            format!("/free/{A02}"),
            format!("/free/{A01}"),
        ]
    );
    assert_eq!(
        lookup_8888(dir.path()).await["location"]["country_code"],
        "FR"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_newer_release_replaces_the_installed_one() {
    let (dir, m, base) = installed_january().await;
    m.put(C02, gzip(country_csv(110, "DE").as_bytes()));
    m.put(A02, gzip(asn_csv(95, 64501, "Fixture February").as_bytes()));

    let out = update(dir.path(), &base, "2026-08").await;
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    let names: Vec<String> = snapshot(dir.path()).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, vec![A02, C02], "older releases are removed");
    let info = lookup_8888(dir.path()).await;
    assert_eq!(info["location"]["country_code"], "DE", "{info}");
    assert_eq!(info["network"]["asn"], 64501, "{info}");
}

/// Offers February as the mirror holds it now; expects the update to fail,
/// naming `reasons` on stderr, with the installed files untouched.
async fn assert_refused(dir: &TempDir, base: &str, reasons: &[&str]) -> String {
    assert_refused_with(dir, base, reasons, &[]).await
}

/// [`assert_refused`] with more arguments to `update`; returns its stderr.
async fn assert_refused_with(
    dir: &TempDir,
    base: &str,
    reasons: &[&str],
    extra: &[&str],
) -> String {
    let before = snapshot(dir.path());
    let out = update_with(dir.path(), base, "2026-08", extra).await;
    let stderr = text(&out.stderr);
    assert!(!out.status.success(), "update succeeded; stderr: {stderr}");
    for reason in reasons {
        assert!(
            stderr.contains(reason),
            "stderr lacks {reason:?}:\n{stderr}"
        );
    }
    assert!(text(&out.stdout).is_empty(), "{}", text(&out.stdout));
    assert!(before == snapshot(dir.path()), "installed files changed");
    let info = lookup_8888(dir.path()).await;
    assert_eq!(info["location"]["country_code"], "FR", "{info}");
    assert_eq!(info["network"]["asn"], 64500, "{info}");
    stderr
}

#[tokio::test(flavor = "multi_thread")]
async fn a_truncated_gzip_is_refused() {
    let (dir, m, base) = installed_january().await;
    let whole = gzip(country_csv(100, "DE").as_bytes());
    m.put(C02, whole[..whole.len() / 2].to_vec());
    m.put(
        A02,
        gzip(asn_csv(100, 64501, "Fixture February").as_bytes()),
    );
    assert_refused(&dir, &base, &[C02, "not a valid gzip file"]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_gzip_missing_its_trailer_is_refused() {
    let (dir, m, base) = installed_january().await;
    let whole = gzip(country_csv(100, "DE").as_bytes());
    m.put(C02, whole[..whole.len() - 4].to_vec());
    m.put(
        A02,
        gzip(asn_csv(100, 64501, "Fixture February").as_bytes()),
    );
    assert_refused(&dir, &base, &[C02, "not a valid gzip file"]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_body_that_is_not_gzip_is_refused() {
    let (dir, m, base) = installed_january().await;
    m.put(C02, b"<html><body>Please log in</body></html>".to_vec());
    m.put(
        A02,
        gzip(asn_csv(100, 64501, "Fixture February").as_bytes()),
    );
    assert_refused(&dir, &base, &[C02, "not a valid gzip file"]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_release_with_reversed_ranges_is_refused() {
    let (dir, m, base) = installed_january().await;
    m.put(C02, gzip(reversed_country_csv(100).as_bytes()));
    m.put(
        A02,
        gzip(asn_csv(100, 64501, "Fixture February").as_bytes()),
    );
    // File, count, the allowance, and the first defect's line and reason:
    // the words a reload and a start use too (tests/reload.rs).
    assert_refused(&dir, &base, &[&reversed_rows_refusal(C02, 100)]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_collapsed_row_count_is_refused() {
    let (dir, m, base) = installed_january().await;
    m.put(C02, gzip(country_csv(10, "DE").as_bytes()));
    m.put(
        A02,
        gzip(asn_csv(100, 64501, "Fixture February").as_bytes()),
    );
    assert_refused(&dir, &base, &[C02, "10 rows", "100", "refusing"]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_exploded_row_count_is_refused() {
    let (dir, m, base) = installed_january().await;
    m.put(C02, gzip(country_csv(100, "DE").as_bytes()));
    m.put(
        A02,
        gzip(asn_csv(200, 64501, "Fixture February").as_bytes()),
    );
    assert_refused(&dir, &base, &[A02, "200 rows", "refusing"]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_empty_release_is_refused() {
    let (dir, m, base) = installed_january().await;
    m.put(C02, gzip(b""));
    m.put(
        A02,
        gzip(asn_csv(100, 64501, "Fixture February").as_bytes()),
    );
    assert_refused(&dir, &base, &[C02, "no data rows"]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_http_500_is_refused_without_falling_back() {
    let (dir, m, base) = installed_january().await;
    m.put_status(C02, StatusCode::INTERNAL_SERVER_ERROR, b"oops".to_vec());
    // January is still on the mirror: a server error is not "not out yet".
    m.put(C01, gzip(country_csv(100, "FR").as_bytes()));
    m.put(A01, gzip(asn_csv(100, 64500, "Fixture January").as_bytes()));
    assert_refused(&dir, &base, &[C02, "HTTP 500"]).await;
    assert_eq!(m.asked(), vec![format!("/free/{C02}")]);
}

#[tokio::test(flavor = "multi_thread")]
async fn nothing_is_installed_when_one_kind_is_bad() {
    // A good country file and a broken ASN file: the country file is not
    // installed alone.
    let (dir, m, base) = installed_january().await;
    m.put(C02, gzip(country_csv(100, "DE").as_bytes()));
    let asn = gzip(asn_csv(100, 64501, "Fixture February").as_bytes());
    m.put(A02, asn[..asn.len() - 10].to_vec());
    assert_refused(&dir, &base, &[A02, "not a valid gzip file"]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn neither_month_available_is_refused() {
    let (dir, _m, base) = installed_january().await;
    // The mirror was cleared: both February and January 404.
    assert_refused(&dir, &base, &[C01, "404"]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreachable_mirror_is_refused() {
    let (dir, _m, _base) = installed_january().await;
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    assert_refused(
        &dir,
        &format!("http://{closed}/free/"),
        &["cannot download", C02],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_mirror_that_never_answers_fails_after_the_stall_timeout() {
    let (dir, _m, _base) = installed_january().await;
    // Accepts connections and reads nothing, answers nothing.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = silent.local_addr().unwrap();
    let held = tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((s, _)) = silent.accept().await {
            open.push(s);
        }
    });
    let started = std::time::Instant::now();
    let out = update_with(
        dir.path(),
        &format!("http://{addr}/free/"),
        "2026-02",
        &["--stall-timeout", "1"],
    )
    .await;
    let took = started.elapsed();
    held.abort();
    assert!(!out.status.success(), "{}", text(&out.stdout));
    let err = text(&out.stderr);
    assert!(err.contains("cannot download"), "{err}");
    // Two months tried at most, each failing after about a second.
    assert!(
        took < std::time::Duration::from_secs(20),
        "took {took:?}: {err}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bad_month_argument_is_refused() {
    let dir = TempDir::new("update");
    let out = update(dir.path(), "http://127.0.0.1:9/", "2030-13").await;
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("2030-13"),
        "{}",
        text(&out.stderr)
    );
    assert!(snapshot(dir.path()).is_empty());
}

/// The embedded sources as files (the real DB-IP releases the binary was built from).
fn real(file: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(file);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[tokio::test(flavor = "multi_thread")]
async fn the_real_release_with_its_overlapping_asn_row_installs() {
    // The real ASN table holds one overlapping pair (215.0.0.0/16 under
    // AS749 and AS721): repaired and counted, not refused, by the default rule.
    let dir = TempDir::new("update");
    let (_m, base) = mirror().await;
    _m.put(C01, real("dbip-country-lite.csv.gz"));
    _m.put(A01, real("asn.csv.gz"));
    let out = update(dir.path(), &base, "2026-07").await;
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(&format!("installed {A01} (515157 rows)")),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("installed {C01} (701655 rows)")),
        "{stdout}"
    );
    // The earlier row wins: 215.0.0.0/16 stays AS749, as in the embedded data.
    let out = iplookup(vec![
        "lookup".into(),
        "215.0.0.1".into(),
        "215.1.0.1".into(),
        "--data-dir".into(),
        dir.path().display().to_string(),
    ])
    .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let lines: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["network"]["asn"], 749, "{}", lines[0]);
    assert_eq!(lines[1]["network"]["asn"], 721, "{}", lines[1]);
}

/// A gzip stream of `mib` MiB of newlines: a few KiB on the wire.
fn gzip_bomb(mib: usize) -> Vec<u8> {
    // One member of 1 MiB, repeated: a multi-member gzip stream.
    let member = gzip(&vec![b'\n'; 1 << 20]);
    member.repeat(mib)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_gzip_bomb_over_the_cap_is_refused() {
    let (dir, m, base) = installed_january().await;
    let bomb = gzip_bomb(64);
    assert!(bomb.len() < 1 << 20, "the bomb is {} bytes", bomb.len());
    m.put(C02, bomb);
    m.put(
        A02,
        gzip(asn_csv(100, 64501, "Fixture February").as_bytes()),
    );
    let stderr = assert_refused_with(
        &dir,
        &base,
        &[
            C02,
            "the decompressed file is larger than the 16777216-byte cap",
        ],
        &["--max-data-file-mib", "16"],
    )
    .await;
    eprintln!("{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_download_over_the_cap_is_refused() {
    let (dir, m, base) = installed_january().await;
    // 2 MiB that do not compress: refused before it is all on disk.
    let noise: Vec<u8> = (0..2u32 << 20)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    m.put(C02, noise);
    m.put(
        A02,
        gzip(asn_csv(100, 64501, "Fixture February").as_bytes()),
    );
    assert_refused_with(
        &dir,
        &base,
        &[C02, "the download is larger than the 1048576-byte cap"],
        &["--max-download-mib", "1"],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cap_flags_are_range_checked() {
    let dir = TempDir::new("update");
    for (flag, value) in [
        ("--max-download-mib", "0"),
        ("--max-data-file-mib", "70000"),
        ("--release-row-ratio", "1.5..0.8"),
    ] {
        let out = update_with(dir.path(), "http://127.0.0.1:9/", "2026-07", &[flag, value]).await;
        assert!(!out.status.success(), "{flag} {value}");
        let err = text(&out.stderr);
        assert!(err.contains(flag) && err.contains(value), "{flag}: {err}");
    }
    assert!(snapshot(dir.path()).is_empty());
}

const CITY02: &str = "dbip-city-lite-2026-08.mmdb.gz";

fn mmdb_fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mmdb")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[tokio::test(flavor = "multi_thread")]
async fn the_city_database_is_checked_before_it_is_installed() {
    let (dir, m, base) = installed_january().await;
    // A well-formed MMDB that is not a city database.
    m.put(C02, gzip(country_csv(100, "DE").as_bytes()));
    m.put(
        A02,
        gzip(asn_csv(100, 64501, "Fixture February").as_bytes()),
    );
    m.put(CITY02, gzip(&mmdb_fixture("GeoLite2-Country-Test.mmdb")));
    assert_refused_with(
        &dir,
        &base,
        &[CITY02, "is not a city database"],
        &["--city"],
    )
    .await;
    // A city MMDB cut short: its gzip is whole, its metadata is missing.
    let city = mmdb_fixture("GeoLite2-City-Test.mmdb");
    m.put(CITY02, gzip(&city[..city.len() / 2]));
    assert_refused_with(
        &dir,
        &base,
        &[CITY02, "no MaxMind metadata marker"],
        &["--city"],
    )
    .await;
    // A city MMDB over the size cap.
    let mut big = city.clone();
    big.resize(city.len() + (2 << 20), 0);
    m.put(CITY02, gzip(&big));
    assert_refused_with(
        &dir,
        &base,
        &[CITY02, "larger than the 1048576-byte cap"],
        &["--city", "--max-data-file-mib", "1"],
    )
    .await;
    // The real test database installs, with the country and ASN files (it
    // covers a few test networks: without the coverage floor of a first city
    // release, which `hostile::update_refuses_a_small_first_city_release` shows).
    m.put(CITY02, gzip(&city));
    let out = update_with(
        dir.path(),
        &base,
        "2026-08",
        &["--city", ANY_ROWS[0], ANY_ROWS[1]],
    )
    .await;
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    assert!(text(&out.stdout).contains(&format!("installed {CITY02}")));
    let names: Vec<String> = snapshot(dir.path()).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, vec![A02, CITY02, C02]);
}

/// A mirror that answers every request with a 200 of 10 MB, sends 256 KiB
/// of it, and then nothing (the connection held open): an update hangs in
/// its download, its temporary file part written. Its base URL.
async fn stalling_mirror() -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((mut s, _)) = listener.accept().await {
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf).await;
            let head = "HTTP/1.1 200 OK\r\nContent-Length: 10000000\r\n\r\n";
            let _ = s.write_all(head.as_bytes()).await;
            let _ = s.write_all(&vec![0x1f; 256 * 1024]).await;
            held.push(s);
        }
    });
    format!("http://{addr}/free/")
}

/// The update temporary files in `dir` (hidden `.NAME.….tmp`).
fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with('.') && n.ends_with(".tmp"))
                .collect()
        })
        .unwrap_or_default()
}

/// Starts `iplookup update` against `base` into `dir` and waits until its
/// temporary file holds the first 256 KiB (at most 20 s). The caller waits
/// for the child it gets.
#[allow(clippy::zombie_processes)]
fn start_stalled_update(dir: &Path, base: &str) -> std::process::Child {
    let before = temporaries(dir);
    let mut child = support::proc::command()
        .args(["update", "--data-dir"])
        .arg(dir)
        .args(["--base-url", base, "--month", "2026-07"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start iplookup update");
    let started = std::time::Instant::now();
    loop {
        let full = temporaries(dir).iter().any(|n| {
            !before.contains(n)
                && std::fs::metadata(dir.join(n)).is_ok_and(|m| m.len() >= 256 * 1024)
        });
        if full {
            return child;
        }
        if started.elapsed() > std::time::Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("no temporary file in {} after 20 s", dir.display());
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

fn kill(child: &std::process::Child, signal: &str) {
    let status = std::process::Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(status.success());
}

/// SIGTERM in the middle of a download (a timer's stop, `timeout`): the
/// update removes its temporary file and says so (before, a 260 MB one
/// stayed in the data directory).
#[tokio::test(flavor = "multi_thread")]
async fn an_update_stopped_by_sigterm_removes_its_temporary_file() {
    let dir = TempDir::new("update-term");
    let base = stalling_mirror().await;
    let dir_path = dir.path().to_path_buf();
    let (status, stderr, left) = tokio::task::spawn_blocking(move || {
        let mut child = start_stalled_update(&dir_path, &base);
        kill(&child, "TERM");
        let out = std::mem::take(&mut child.stderr);
        let status = child.wait().unwrap();
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut out.unwrap(), &mut stderr).unwrap();
        (status, stderr, temporaries(&dir_path))
    })
    .await
    .unwrap();
    assert!(!status.success(), "{stderr}");
    assert!(stderr.contains("stopped by a signal"), "{stderr}");
    assert_eq!(left, Vec::<String>::new(), "{stderr}");
    assert!(snapshot(dir.path()).is_empty(), "nothing installed");
}

/// A killed update (SIGKILL) cannot clean up: the next run sweeps what it
/// left. A run still going holds the data directory: a second run is refused
/// (before it sweeps anything), and runs, sweeping, once the first is gone.
#[tokio::test(flavor = "multi_thread")]
async fn the_next_update_sweeps_what_a_killed_one_left() {
    let dir = TempDir::new("update-kill");
    let stalling = stalling_mirror().await;
    let dir_path = dir.path().to_path_buf();
    let (mut live, killed) = tokio::task::spawn_blocking(move || {
        let mut killed = start_stalled_update(&dir_path, &stalling);
        kill(&killed, "KILL");
        killed.wait().unwrap();
        let left = temporaries(&dir_path);
        assert_eq!(left.len(), 1, "{left:?}");
        // Another run, still downloading, beside it.
        let live = start_stalled_update(&dir_path, &stalling);
        (live, left[0].clone())
    })
    .await
    .unwrap();
    // The live run swept the killed one's file and keeps its own.
    let running = temporaries(dir.path());
    assert_eq!(running.len(), 1, "{running:?}");
    assert!(!running.contains(&killed), "{running:?}");

    let (_m, base) = mirror_with_january().await;
    let out = update_with(dir.path(), &base, "2026-07", &ANY_ROWS).await;
    assert!(!out.status.success(), "a second run while one runs");
    assert!(
        text(&out.stderr).contains("another `iplookup update` is running on"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        temporaries(dir.path()),
        running,
        "the refused run swept nothing"
    );

    let _ = live.kill();
    let _ = live.wait();
    let out = update_with(dir.path(), &base, "2026-07", &ANY_ROWS).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        temporaries(dir.path()),
        Vec::<String>::new(),
        "the killed live run's file is swept"
    );
}

/// A mirror whose every file redirects to `to` + the same path.
async fn redirecting_mirror(to: String) -> String {
    let app = axum::Router::new().fallback(move |uri: Uri| {
        let location = format!("{}{}", to.trim_end_matches('/'), uri.path());
        async move { (StatusCode::FOUND, [("location", location)], "") }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}

/// A redirect to another port (or host, or scheme) fails the update with
/// nothing installed, unless `--any-redirect`; one to the mirror's own
/// origin is followed.
#[tokio::test(flavor = "multi_thread")]
async fn redirects_leave_the_mirror_only_when_told() {
    let (_m, good) = mirror_with_january().await;
    let good_origin = good.trim_end_matches("/free/").to_owned();
    let elsewhere = redirecting_mirror(good_origin.clone()).await;
    let base = format!("{elsewhere}/free/");

    let dir = TempDir::new("update-redirect");
    let out = update_with(dir.path(), &base, "2026-07", &ANY_ROWS).await;
    let stderr = text(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("redirected to") && stderr.contains("--any-redirect"),
        "{stderr}"
    );
    assert!(snapshot(dir.path()).is_empty(), "nothing installed");

    let mut args = ANY_ROWS.to_vec();
    args.push("--any-redirect");
    let out = update_with(dir.path(), &base, "2026-07", &args).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let names: Vec<String> = snapshot(dir.path()).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, vec![A01, C01]);

    // The same origin: followed without the flag.
    let same = self_redirecting_mirror().await;
    let dir = TempDir::new("update-redirect-same");
    let out = update_with(dir.path(), &same, "2026-07", &ANY_ROWS).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let names: Vec<String> = snapshot(dir.path()).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, vec![A01, C01]);
}

/// A mirror that redirects `/free/NAME` to `/files/NAME` on itself, where
/// the good January release is.
async fn self_redirecting_mirror() -> String {
    let files: Arc<HashMap<String, Vec<u8>>> = Arc::new(HashMap::from([
        (C01.to_owned(), gzip(country_csv(100, "FR").as_bytes())),
        (
            A01.to_owned(),
            gzip(asn_csv(100, 64500, "Fixture January").as_bytes()),
        ),
    ]));
    let app = axum::Router::new().fallback(move |uri: Uri| {
        let files = files.clone();
        async move {
            let path = uri.path();
            if let Some(name) = path.strip_prefix("/free/") {
                let location = format!("/files/{name}");
                return (StatusCode::FOUND, [("location", location)], Vec::new());
            }
            match path.strip_prefix("/files/").and_then(|n| files.get(n)) {
                Some(body) => (StatusCode::OK, [("x-mirror", String::new())], body.clone()),
                None => (
                    StatusCode::NOT_FOUND,
                    [("x-mirror", String::new())],
                    Vec::new(),
                ),
            }
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}/free/")
}

/// A release dated in the future is refused (issue 33): the newest name wins,
/// so one such file would pin the data for good. Nothing is installed.
#[tokio::test(flavor = "multi_thread")]
async fn a_release_dated_in_the_future_is_refused() {
    let (dir, m, base) = installed_january().await;
    let before = snapshot(dir.path());
    m.put(
        "dbip-country-lite-2099-01.csv.gz",
        gzip(country_csv(100, "DE").as_bytes()),
    );
    m.put(
        "dbip-asn-lite-2099-01.csv.gz",
        gzip(asn_csv(100, 64501, "Fixture Future").as_bytes()),
    );
    let out = update_with(dir.path(), &base, "2099-01", &ANY_ROWS).await;
    let err = text(&out.stderr);
    assert!(!out.status.success(), "installed: {err}");
    assert!(err.contains("2099-01") && err.contains("future"), "{err}");
    assert_eq!(snapshot(dir.path()), before, "the data directory changed");
    assert_eq!(
        lookup_8888(dir.path()).await["location"]["country_code"],
        "FR"
    );
}

/// `update` installs country and ASN as one unit (`releases/<id>`, `current`
/// switched by one rename; the kill points are `geo::unit_kill`'s unit test) and
/// reports the release that serves after it, by date and content digest, not
/// just what it wrote: an operator's newer country file in the data
/// directory outranks the one installed, and the run says so (issue 33).
#[tokio::test(flavor = "multi_thread")]
async fn update_reports_the_release_that_serves_after_it() {
    let (dir, m, base) = installed_january().await;
    let link = std::fs::read_link(dir.path().join("current")).expect("current is a link");
    let link = link.to_string_lossy();
    assert!(link.starts_with("releases/2026-07-"), "{link}");
    m.put(C02, gzip(country_csv(100, "DE").as_bytes()));
    m.put(
        A02,
        gzip(asn_csv(100, 64501, "Fixture February").as_bytes()),
    );
    let newer = "dbip-country-lite-2026-09.csv";
    std::fs::write(dir.path().join(newer), country_csv(100, "IT")).unwrap();

    let out = update(dir.path(), &base, "2026-08").await;
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    let stdout = text(&out.stdout);
    for line in [
        format!("installed {C02} (100 rows)"),
        format!("installed {A02} (100 rows)"),
        "as the release unit releases/2026-08-".to_owned(),
        "serving release 2026-09-".to_owned(),
        format!("  country: {newer} (2026-09, 100 rows)"),
        format!("  asn: {A02} (2026-08, 100 rows)"),
        format!("note: {C02} was installed but does not serve: {newer} is newer"),
    ] {
        assert!(stdout.contains(&line), "no {line:?} in:\n{stdout}");
    }
    assert!(!stdout.contains(&format!("note: {A02}")), "{stdout}");
    let link = std::fs::read_link(dir.path().join("current")).unwrap();
    let link = link.to_string_lossy();
    assert!(link.starts_with("releases/2026-08-"), "{link}");
    assert_eq!(
        lookup_8888(dir.path()).await["location"]["country_code"],
        "IT"
    );
}

/// Two runs at once on one data directory: the second is refused while the
/// first holds the directory's lock, and nothing of it is written; once the
/// lock is let go, a run installs as usual.
#[tokio::test]
async fn a_second_update_on_the_same_directory_is_refused_while_one_runs() {
    use std::os::fd::AsRawFd;
    let tmp = TempDir::new("update-lock");
    let dir = tmp.path().join("data");
    std::fs::create_dir_all(&dir).unwrap();
    let (_m, base) = mirror_with_january().await;
    // What a running `iplookup update` holds: the directory's exclusive lock.
    let held = std::fs::File::open(&dir).unwrap();
    // SAFETY: flock on a descriptor `held` owns.
    assert_eq!(
        unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
        0
    );
    let out = update_with(&dir, &base, "2026-07", &ANY_ROWS).await;
    assert!(!out.status.success(), "stdout: {}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("another `iplookup update` is running on"),
        "stderr: {}",
        text(&out.stderr)
    );
    assert_eq!(snapshot(&dir), vec![], "the refused run wrote nothing");
    drop(held);
    let out = update_with(&dir, &base, "2026-07", &ANY_ROWS).await;
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    assert_eq!(snapshot(&dir).len(), 2);
}
