//! Hot reload: a release dropped into the watched data directory is swapped
//! in while clients keep sending requests, with zero failed requests; a bad
//! release is refused and the old one keeps serving; SIGHUP on the real
//! binary reloads too.

use crate::support;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::Value;

use support::data::{
    ANY_ROWS, TempDir, asn_csv, country_csv, drop_in, gzip, reversed_country_csv,
    reversed_rows_refusal,
};
use support::http::{eventually, get_json, metric};

const C01: &str = "dbip-country-lite-2026-07.csv";
const C02: &str = "dbip-country-lite-2026-08.csv";
const C03: &str = "dbip-country-lite-2026-09.csv";

/// `GET url`: status and body, or the failure (the load below counts them).
async fn get(client: &reqwest::Client, url: &str) -> Result<(u16, String), String> {
    let r = client.get(url).send().await.map_err(|e| format!("{e:?}"))?;
    let status = r.status().as_u16();
    let body = r.text().await.map_err(|e| format!("{e:?}"))?;
    Ok((status, body))
}

async fn country_of_8888(client: &reqwest::Client, base: &str) -> String {
    get_json(client, &format!("{base}/api/v1/ip/8.8.8.8")).await["location"]["country_code"]
        .as_str()
        .unwrap_or("null")
        .to_owned()
}

async fn health(client: &reqwest::Client, base: &str) -> Value {
    get_json(client, &format!("{base}/healthz")).await
}

/// Clients sending requests for 8.8.8.8 until stopped, each noting every
/// outcome: the country code, or the failure.
struct Load {
    stop: Arc<AtomicBool>,
    tasks: Vec<tokio::task::JoinHandle<Vec<Result<String, String>>>>,
}

impl Load {
    /// `loops` concurrent clients: half keep their connection alive, half
    /// open a new one for every request.
    fn start(base: &str, loops: usize) -> Load {
        let stop = Arc::new(AtomicBool::new(false));
        let tasks = (0..loops)
            .map(|i| {
                support::crypto();
                let mut b = reqwest::Client::builder().timeout(Duration::from_secs(10));
                if i % 2 == 1 {
                    b = b.pool_max_idle_per_host(0);
                }
                let client = b.build().unwrap();
                let url = format!("{base}/api/v1/ip/8.8.8.8");
                let stop = stop.clone();
                tokio::spawn(async move {
                    let mut seen = Vec::new();
                    while !stop.load(Ordering::Relaxed) {
                        let outcome = match get(&client, &url).await {
                            Ok((200, body)) => serde_json::from_str::<Value>(&body)
                                .map_err(|e| format!("bad JSON {e}: {body}"))
                                .map(|v| {
                                    v["location"]["country_code"]
                                        .as_str()
                                        .unwrap_or("null")
                                        .to_owned()
                                }),
                            Ok((status, body)) => Err(format!("HTTP {status}: {body}")),
                            Err(e) => Err(e),
                        };
                        seen.push(outcome);
                    }
                    seen
                })
            })
            .collect();
        Load { stop, tasks }
    }

    /// Stops the clients; returns each one's outcomes in order.
    async fn finish(self) -> Vec<Vec<Result<String, String>>> {
        self.stop.store(true, Ordering::Relaxed);
        let mut all = Vec::new();
        for t in self.tasks {
            all.push(t.await.unwrap());
        }
        all
    }
}

/// Asserts no request failed and each client saw `from`… then `to`… (never back).
fn assert_clean(outcomes: &[Vec<Result<String, String>>], from: &str, to: &str) -> usize {
    let mut total = 0;
    for (i, seen) in outcomes.iter().enumerate() {
        let failures: Vec<_> = seen.iter().filter_map(|o| o.as_ref().err()).collect();
        assert!(
            failures.is_empty(),
            "client {i}: {} failed, e.g. {:?}",
            failures.len(),
            failures.first()
        );
        let codes: Vec<&str> = seen.iter().map(|o| o.as_deref().unwrap()).collect();
        let switch = codes.iter().position(|c| *c == to).unwrap_or(codes.len());
        assert!(
            codes[..switch].iter().all(|c| *c == from),
            "client {i}: {codes:?}"
        );
        assert!(
            codes[switch..].iter().all(|c| *c == to),
            "client {i} went back: {codes:?}"
        );
        assert_eq!(codes.last(), Some(&to), "client {i} never saw {to}");
        total += seen.len();
    }
    total
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn reload_under_load_loses_no_request_and_refuses_a_bad_release() {
    let dir = TempDir::new("reload");
    std::fs::write(dir.path().join(C01), country_csv(20, "FR")).unwrap();
    let server = support::start(support::small_release(dir.path(), true)).await;
    let client = support::client();
    let h = health(&client, &server.base).await;
    assert_eq!(h["data"]["country"]["release_date"], "2026-07", "{h}");
    assert_eq!(h["data"]["country"]["rows"], 20, "{h}");
    assert_eq!(country_of_8888(&client, &server.base).await, "FR");

    // A new release arrives under load.
    let load = Load::start(&server.base, 4);
    tokio::time::sleep(Duration::from_millis(300)).await;
    drop_in(dir.path(), C02, country_csv(30, "DE").as_bytes());
    let took = eventually(
        Duration::from_secs(10),
        "release 2026-08 in /healthz",
        || async {
            health(&client, &server.base).await["data"]["country"]["release_date"] == "2026-08"
        },
    )
    .await;
    eprintln!("2026-08 served {took:?} after the drop-in");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let outcomes = load.finish().await;
    let total = assert_clean(&outcomes, "FR", "DE");
    eprintln!("{total} requests across the reload, none failed");
    assert!(total >= 40, "too few requests to mean anything: {total}");

    let h = health(&client, &server.base).await;
    assert_eq!(h["data"]["country"]["rows"], 30, "{h}");
    assert!(
        h["data"]["country"]["file"]
            .as_str()
            .unwrap()
            .ends_with(C02),
        "{h}"
    );
    assert_eq!(country_of_8888(&client, &server.base).await, "DE");
    let (status, text) = get(&client, &format!("{}/healthz?format=text", server.base))
        .await
        .unwrap();
    assert_eq!(status, 200);
    assert!(text.contains("2026-08"), "{text}");

    // A bad release (a reversed range) arrives under load: refused, old data stays.
    let metrics_url = format!("{}/metrics", server.base);
    let refused = r#"iplookup_reloads_total{result="refused"}"#;
    let before = metric(&get(&client, &metrics_url).await.unwrap().1, refused);
    let load = Load::start(&server.base, 4);
    tokio::time::sleep(Duration::from_millis(300)).await;
    drop_in(dir.path(), C03, reversed_country_csv(30).as_bytes());
    eventually(
        Duration::from_secs(10),
        "the bad release is refused",
        || async { metric(&get(&client, &metrics_url).await.unwrap().1, refused) > before },
    )
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let outcomes = load.finish().await;
    assert_clean(&outcomes, "DE", "DE");

    let h = health(&client, &server.base).await;
    assert_eq!(h["data"]["country"]["release_date"], "2026-08", "{h}");
    assert_eq!(h["data"]["country"]["rows"], 30, "{h}");
    assert_eq!(country_of_8888(&client, &server.base).await, "DE");
    // /healthz names the refused file (its name, not its path) and the reason.
    assert_eq!(h["refused"][0]["file"], C03, "{h}");
    assert_eq!(h["refused"][0]["table"], "country", "{h}");
    let reason = h["refused"][0]["reason"].as_str().unwrap_or("");
    assert!(reason.contains("11 of 30 rows are defective"), "{h}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_gzipped_asn_release_is_picked_up_next_to_the_country_file() {
    let dir = TempDir::new("reload");
    std::fs::write(dir.path().join(C01), country_csv(20, "FR")).unwrap();
    let server = support::start(support::small_release(dir.path(), true)).await;
    let client = support::client();
    let url = format!("{}/api/v1/ip/8.8.8.8", server.base);
    // The ASN table comes from the embedded data until a file arrives.
    assert_eq!(get_json(&client, &url).await["network"]["asn"], 15169);

    drop_in(
        dir.path(),
        "dbip-asn-lite-2026-08.csv.gz",
        &gzip(asn_csv(10, 64501, "Fixture February").as_bytes()),
    );
    eventually(
        Duration::from_secs(10),
        "the ASN release is loaded",
        || async { get_json(&client, &url).await["network"]["asn"] == 64501 },
    )
    .await;
    let h = health(&client, &server.base).await;
    assert_eq!(h["data"]["asn"]["release_date"], "2026-08", "{h}");
    assert_eq!(h["data"]["asn"]["rows"], 10, "{h}");
    assert_eq!(h["data"]["country"]["release_date"], "2026-07", "{h}");
    assert_eq!(
        get_json(&client, &url).await["network"]["organization"],
        "Fixture February"
    );
}

/// A data directory with the 2026-07 country release (8.8.8.8: FR).
fn january_dir() -> TempDir {
    let dir = TempDir::new("reload");
    std::fs::write(dir.path().join(C01), country_csv(20, "FR")).unwrap();
    dir
}

fn release(h: &Value) -> &str {
    h["data"]["country"]["release_date"].as_str().unwrap_or("")
}

fn dir_arg(dir: &Path) -> String {
    dir.display().to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn sighup_reloads_the_binary_while_watching() {
    let dir = january_dir();
    let mut bin = support::proc::serve(&[
        "--data-dir",
        &dir_arg(dir.path()),
        "--no-reverse-dns",
        ANY_ROWS[0],
        ANY_ROWS[1],
    ]);
    let client = support::client();
    assert_eq!(release(&health(&client, &bin.base).await), "2026-07");
    let ok = r#"iplookup_reloads_total{result="ok"}"#;
    let metrics_url = format!("{}/metrics", bin.base);
    assert_eq!(
        metric(&get(&client, &metrics_url).await.unwrap().1, ok),
        0.0
    );

    bin.signal("HUP");
    eventually(
        Duration::from_secs(5),
        "a reload counted after SIGHUP",
        || async { metric(&get(&client, &metrics_url).await.unwrap().1, ok) >= 1.0 },
    )
    .await;
    assert!(bin.alive(), "SIGHUP killed the process");
    assert_eq!(country_of_8888(&client, &bin.base).await, "FR");
}

#[tokio::test(flavor = "multi_thread")]
async fn sighup_reloads_the_binary_without_watching() {
    let dir = january_dir();
    let mut bin = support::proc::serve(&[
        "--data-dir",
        &dir_arg(dir.path()),
        "--no-watch",
        "--no-reverse-dns",
        ANY_ROWS[0],
        ANY_ROWS[1],
    ]);
    let client = support::client();
    assert_eq!(release(&health(&client, &bin.base).await), "2026-07");

    // Not watching: a new release is not picked up by itself.
    drop_in(dir.path(), C02, country_csv(30, "DE").as_bytes());
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(release(&health(&client, &bin.base).await), "2026-07");

    bin.signal("HUP");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        bin.alive(),
        "SIGHUP killed the process: {:?}",
        bin.child.try_wait()
    );
    eventually(
        Duration::from_secs(5),
        "release 2026-08 after SIGHUP",
        || async { release(&health(&client, &bin.base).await) == "2026-08" },
    )
    .await;
    assert_eq!(country_of_8888(&client, &bin.base).await, "DE");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_binary_watching_picks_up_a_new_release() {
    let dir = january_dir();
    let bin = support::proc::serve(&[
        "--data-dir",
        &dir_arg(dir.path()),
        "--no-reverse-dns",
        ANY_ROWS[0],
        ANY_ROWS[1],
    ]);
    let client = support::client();
    assert_eq!(release(&health(&client, &bin.base).await), "2026-07");
    drop_in(dir.path(), C02, country_csv(30, "DE").as_bytes());
    eventually(Duration::from_secs(10), "release 2026-08", || async {
        release(&health(&client, &bin.base).await) == "2026-08"
    })
    .await;
    assert_eq!(country_of_8888(&client, &bin.base).await, "DE");
    // The reload is logged.
    let log = bin.log().join("\n");
    assert!(log.contains("data reloaded"), "{log}");
}

// ---------------------------------------------------------------------------
// The release rule on reload and at start (docs/DATA.md: "Data releases: what is
// repaired, what is refused")

/// `/healthz` and `/metrics` of a running binary.
async fn health_and_metrics(client: &reqwest::Client, base: &str) -> (Value, String) {
    let h = health(client, base).await;
    let m = get(client, &format!("{base}/metrics")).await.unwrap().1;
    (h, m)
}

/// No absolute path anywhere in a `/healthz` body.
fn assert_no_paths(h: &Value, dir: &Path) {
    let text = h.to_string();
    assert!(!text.contains(&dir_arg(dir)), "a path in /healthz: {h}");
    for table in ["country", "asn"] {
        let file = h["data"][table]["file"].as_str().unwrap_or("");
        assert!(!file.starts_with('/'), "{table}: {file}");
    }
    for r in h["refused"].as_array().unwrap() {
        assert!(!r["file"].as_str().unwrap().contains('/'), "{r}");
    }
}

async fn asn_of_8888(client: &reqwest::Client, base: &str) -> Value {
    get_json(client, &format!("{base}/api/v1/ip/8.8.8.8")).await["network"]["asn"].clone()
}

const ONE_ROW_ASN: &str = "dbip-asn-lite-2026-08.csv";

#[tokio::test(flavor = "multi_thread")]
async fn a_one_row_asn_file_is_refused_on_reload_and_at_start() {
    // The default rule: a release is judged against the one serving (at
    // start, the embedded data: 515,158 ASN rows).
    let dir = TempDir::new("reload");
    let bin = support::proc::serve(&["--data-dir", &dir_arg(dir.path()), "--no-reverse-dns"]);
    let client = support::client();
    assert_eq!(asn_of_8888(&client, &bin.base).await, 15169);
    let refused = r#"iplookup_reloads_total{result="refused"}"#;
    let gauge = r#"iplookup_data_refused{table="asn"}"#;

    drop_in(
        dir.path(),
        ONE_ROW_ASN,
        asn_csv(1, 64501, "One Row").as_bytes(),
    );
    eventually(
        Duration::from_secs(10),
        "the one-row file is refused",
        || async {
            metric(
                &get(&client, &format!("{}/metrics", bin.base))
                    .await
                    .unwrap()
                    .1,
                refused,
            ) >= 1.0
        },
    )
    .await;
    // Every ASN answer still comes from the table serving.
    assert_eq!(asn_of_8888(&client, &bin.base).await, 15169);
    let (h, m) = health_and_metrics(&client, &bin.base).await;
    assert_eq!(h["data"]["asn"]["rows"], 515157, "{h}");
    assert_eq!(h["refused"][0]["file"], ONE_ROW_ASN, "{h}");
    assert_eq!(h["refused"][0]["table"], "asn", "{h}");
    assert_eq!(
        h["refused"][0]["reason"],
        format!(
            "{ONE_ROW_ASN}: 1 rows, outside 412126..772735 (the release it would replace has \
             515157); refusing"
        ),
        "{h}"
    );
    assert_eq!(metric(&m, gauge), 1.0, "{m}");
    assert_no_paths(&h, dir.path());
    let log = bin.log().join("\n");
    assert!(log.contains("release file refused"), "{log}");
    drop(bin);

    // A replica starting on the same volume starts, on the embedded data, and says why.
    let bin = support::proc::serve(&["--data-dir", &dir_arg(dir.path()), "--no-reverse-dns"]);
    assert_eq!(asn_of_8888(&client, &bin.base).await, 15169);
    let (h, m) = health_and_metrics(&client, &bin.base).await;
    assert_eq!(h["data"]["asn"]["release_date"], "2026-06-17", "{h}");
    assert_eq!(h["refused"][0]["file"], ONE_ROW_ASN, "{h}");
    assert_eq!(metric(&m, gauge), 1.0, "{m}");
    assert_eq!(
        metric(&m, r#"iplookup_data_refused{table="country"}"#),
        0.0,
        "{m}"
    );
    assert_no_paths(&h, dir.path());
}

#[tokio::test(flavor = "multi_thread")]
async fn too_many_bad_rows_are_refused_at_start_and_on_reload_in_the_same_words() {
    // 2026-07 is good; 2026-08 holds eleven reversed rows (the same file
    // `update` refuses in tests/update.rs, with the same message).
    let dir = january_dir();
    let c02 = "dbip-country-lite-2026-08.csv.gz";
    std::fs::write(
        dir.path().join(c02),
        gzip(reversed_country_csv(100).as_bytes()),
    )
    .unwrap();
    let bin = support::proc::serve(&[
        "--data-dir",
        &dir_arg(dir.path()),
        "--no-reverse-dns",
        ANY_ROWS[0],
        ANY_ROWS[1],
    ]);
    let client = support::client();
    // It starts on the newest release that loads.
    let (h, m) = health_and_metrics(&client, &bin.base).await;
    assert_eq!(release(&h), "2026-07", "{h}");
    assert_eq!(
        h["refused"][0]["reason"],
        reversed_rows_refusal(c02, 100),
        "{h}"
    );
    assert_eq!(
        metric(&m, r#"iplookup_data_refused{table="country"}"#),
        1.0,
        "{m}"
    );
    assert_eq!(country_of_8888(&client, &bin.base).await, "FR");

    // The same file arriving later is refused by the reload in the same words.
    let c03 = "dbip-country-lite-2026-09.csv.gz";
    drop_in(dir.path(), c03, &gzip(reversed_country_csv(100).as_bytes()));
    let refused = r#"iplookup_reloads_total{result="refused"}"#;
    eventually(Duration::from_secs(10), "2026-09 is refused", || async {
        metric(
            &get(&client, &format!("{}/metrics", bin.base))
                .await
                .unwrap()
                .1,
            refused,
        ) >= 1.0
    })
    .await;
    let (h, m) = health_and_metrics(&client, &bin.base).await;
    assert_eq!(release(&h), "2026-07", "{h}");
    let reasons: Vec<&str> = h["refused"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["reason"].as_str().unwrap())
        .collect();
    assert_eq!(
        reasons,
        vec![
            reversed_rows_refusal(c03, 100),
            reversed_rows_refusal(c02, 100)
        ],
        "{h}"
    );
    assert_eq!(
        metric(&m, r#"iplookup_data_refused{table="country"}"#),
        2.0,
        "{m}"
    );
    assert_eq!(country_of_8888(&client, &bin.base).await, "FR");
    assert_no_paths(&h, dir.path());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_real_asn_release_reloads_with_its_overlap_counted() {
    // The real ASN table (one overlapping row) dropped in under a DB-IP
    // name: reloaded by the default rule, the repair counted on /healthz.
    let dir = TempDir::new("reload");
    let bin = support::proc::serve(&["--data-dir", &dir_arg(dir.path()), "--no-reverse-dns"]);
    let client = support::client();
    let real =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/asn.csv.gz")).unwrap();
    drop_in(dir.path(), "dbip-asn-lite-2026-08.csv.gz", &real);
    eventually(
        Duration::from_secs(120),
        "the real ASN release is loaded",
        || async { health(&client, &bin.base).await["data"]["asn"]["release_date"] == "2026-08" },
    )
    .await;
    let h = health(&client, &bin.base).await;
    assert_eq!(h["data"]["asn"]["rows"], 515157, "{h}");
    assert_eq!(h["data"]["asn"]["trimmed_rows"], 1, "{h}");
    assert_eq!(h["data"]["asn"]["defects"]["overlap_trimmed"], 1, "{h}");
    // Teredo's 2001::/32, in the IETF's 2001::/23: dropped and counted.
    assert_eq!(h["data"]["asn"]["defects"]["special_dropped"], 1, "{h}");
    assert_eq!(h["refused"], serde_json::json!([]), "{h}");
    let v = get_json(&client, &format!("{}/api/v1/ip/215.0.0.1", bin.base)).await;
    assert_eq!(v["network"]["asn"], 749, "{v}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_half_written_gzip_is_not_loaded_until_it_is_complete() {
    let dir = january_dir();
    let server = support::start(support::small_release(dir.path(), true)).await;
    let client = support::client();
    // Served means the data is loaded and the directory watched: writes
    // made before that were missed now and then (no event, no reload).
    assert_eq!(release(&health(&client, &server.base).await), "2026-07");
    // Temporary and partial names are never read, whatever they hold.
    let good = gzip(country_csv(30, "DE").as_bytes());
    for name in [
        ".dbip-country-lite-2026-10.csv.gz",
        "dbip-country-lite-2026-10.csv.gz.part",
        "dbip-country-lite-2026-10.tmp.csv.gz",
    ] {
        std::fs::write(dir.path().join(name), &good).unwrap();
    }
    // A copy in progress: half of the gzip file under its final name.
    let c02 = "dbip-country-lite-2026-08.csv.gz";
    let half = good.len() / 2;
    {
        let mut f = std::fs::File::create(dir.path().join(c02)).unwrap();
        std::io::Write::write_all(&mut f, &good[..half]).unwrap();
        f.sync_all().unwrap();
    }
    eventually(Duration::from_secs(10), "the half file is seen", || async {
        health(&client, &server.base).await["refused"][0]["file"] == c02
    })
    .await;
    // Seen, not loaded: marked incomplete, the old release serves.
    let h = health(&client, &server.base).await;
    assert_eq!(h["refused"][0]["incomplete"], true, "{h}");
    assert!(
        h["refused"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("gzip stream ends early"),
        "{h}"
    );
    assert_eq!(release(&h), "2026-07", "{h}");
    assert_eq!(country_of_8888(&client, &server.base).await, "FR");
    // The copy finishes: the release loads.
    {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.path().join(c02))
            .unwrap();
        std::io::Write::write_all(&mut f, &good[half..]).unwrap();
        f.sync_all().unwrap();
    }
    eventually(Duration::from_secs(10), "2026-08 once complete", || async {
        release(&health(&client, &server.base).await) == "2026-08"
    })
    .await;
    let h = health(&client, &server.base).await;
    assert_eq!(h["refused"], serde_json::json!([]), "{h}");
    assert_eq!(h["data"]["country"]["rows"], 30, "{h}");
    assert_eq!(country_of_8888(&client, &server.base).await, "DE");

    // A plain CSV cut mid-line is not loaded either.
    let c03 = "dbip-country-lite-2026-09.csv";
    let text = country_csv(30, "NL");
    std::fs::write(dir.path().join(c03), &text[..text.len() - 10]).unwrap();
    eventually(Duration::from_secs(10), "the cut CSV is seen", || async {
        health(&client, &server.base).await["refused"][0]["file"] == c03
    })
    .await;
    assert_eq!(country_of_8888(&client, &server.base).await, "DE");
    std::fs::write(dir.path().join(c03), &text).unwrap();
    eventually(Duration::from_secs(10), "2026-09 once complete", || async {
        release(&health(&client, &server.base).await) == "2026-09"
    })
    .await;
    assert_eq!(country_of_8888(&client, &server.base).await, "NL");
}
