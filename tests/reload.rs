//! Hot reload: a release dropped into the watched data directory is swapped
//! in while clients keep sending requests, with zero failed requests; a bad
//! release is refused and the old one keeps serving; SIGHUP on the real
//! binary reloads too.

mod common;
mod fixtures;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use iplookup::server::{ServeConfig, load_database};
use serde_json::Value;

use fixtures::data::{TempDir, asn_csv, country_csv, drop_in, gzip, reversed_country_csv};

const C01: &str = "dbip-country-lite-2030-01.csv";
const C02: &str = "dbip-country-lite-2030-02.csv";
const C03: &str = "dbip-country-lite-2030-03.csv";

async fn get(client: &reqwest::Client, url: &str) -> Result<(u16, String), String> {
    let r = client.get(url).send().await.map_err(|e| format!("{e:?}"))?;
    let status = r.status().as_u16();
    let body = r.text().await.map_err(|e| format!("{e:?}"))?;
    Ok((status, body))
}

async fn get_json(client: &reqwest::Client, url: &str) -> Value {
    let (status, body) = get(client, url).await.expect("request");
    assert_eq!(status, 200, "{url}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{url}: not JSON ({e}): {body}"))
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

/// Polls until `check` holds, or panics after `limit`.
async fn eventually<F, Fut>(limit: Duration, what: &str, mut check: F) -> Duration
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let started = Instant::now();
    loop {
        if check().await {
            return started.elapsed();
        }
        assert!(started.elapsed() < limit, "not within {limit:?}: {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The value of one Prometheus sample line (`name{labels} value`), 0 if absent.
fn metric(text: &str, name_and_labels: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(name_and_labels)?.trim().parse().ok())
        .unwrap_or(0.0)
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
                fixtures::crypto();
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
    let db = load_database(Some(dir.path()), false).unwrap();
    let server = common::start_with(
        ServeConfig {
            data_dir: Some(dir.path().to_owned()),
            watch: true,
            ..common::config()
        },
        db,
    )
    .await;
    let client = fixtures::client();
    let h = health(&client, &server.base).await;
    assert_eq!(h["data"]["country"]["release_date"], "2030-01", "{h}");
    assert_eq!(h["data"]["country"]["rows"], 20, "{h}");
    assert_eq!(country_of_8888(&client, &server.base).await, "FR");

    // A new release arrives under load.
    let load = Load::start(&server.base, 4);
    tokio::time::sleep(Duration::from_millis(300)).await;
    drop_in(dir.path(), C02, country_csv(30, "DE").as_bytes());
    let took = eventually(
        Duration::from_secs(10),
        "release 2030-02 in /healthz",
        || async {
            health(&client, &server.base).await["data"]["country"]["release_date"] == "2030-02"
        },
    )
    .await;
    eprintln!("2030-02 served {took:?} after the drop-in");
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
    assert!(text.contains("2030-02"), "{text}");

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
    assert_eq!(h["data"]["country"]["release_date"], "2030-02", "{h}");
    assert_eq!(h["data"]["country"]["rows"], 30, "{h}");
    assert_eq!(country_of_8888(&client, &server.base).await, "DE");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_gzipped_asn_release_is_picked_up_next_to_the_country_file() {
    let dir = TempDir::new("reload");
    std::fs::write(dir.path().join(C01), country_csv(20, "FR")).unwrap();
    let db = load_database(Some(dir.path()), false).unwrap();
    let server = common::start_with(
        ServeConfig {
            data_dir: Some(dir.path().to_owned()),
            watch: true,
            ..common::config()
        },
        db,
    )
    .await;
    let client = fixtures::client();
    let url = format!("{}/api/v1/ip/8.8.8.8", server.base);
    // The ASN table comes from the embedded data until a file arrives.
    assert_eq!(get_json(&client, &url).await["network"]["asn"], 15169);

    drop_in(
        dir.path(),
        "dbip-asn-lite-2030-02.csv.gz",
        &gzip(asn_csv(10, 64501, "Fixture February").as_bytes()),
    );
    eventually(
        Duration::from_secs(10),
        "the ASN release is loaded",
        || async { get_json(&client, &url).await["network"]["asn"] == 64501 },
    )
    .await;
    let h = health(&client, &server.base).await;
    assert_eq!(h["data"]["asn"]["release_date"], "2030-02", "{h}");
    assert_eq!(h["data"]["asn"]["rows"], 10, "{h}");
    assert_eq!(h["data"]["country"]["release_date"], "2030-01", "{h}");
    assert_eq!(
        get_json(&client, &url).await["network"]["organization"],
        "Fixture February"
    );
}

/// A data directory with the 2030-01 country release (8.8.8.8: FR).
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
    let mut bin = fixtures::proc::serve(&["--data-dir", &dir_arg(dir.path()), "--no-reverse-dns"]);
    let client = fixtures::client();
    assert_eq!(release(&health(&client, &bin.base).await), "2030-01");
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
    let mut bin = fixtures::proc::serve(&[
        "--data-dir",
        &dir_arg(dir.path()),
        "--no-watch",
        "--no-reverse-dns",
    ]);
    let client = fixtures::client();
    assert_eq!(release(&health(&client, &bin.base).await), "2030-01");

    // Not watching: a new release is not picked up by itself.
    drop_in(dir.path(), C02, country_csv(30, "DE").as_bytes());
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(release(&health(&client, &bin.base).await), "2030-01");

    bin.signal("HUP");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        bin.alive(),
        "SIGHUP killed the process: {:?}",
        bin.child.try_wait()
    );
    eventually(
        Duration::from_secs(5),
        "release 2030-02 after SIGHUP",
        || async { release(&health(&client, &bin.base).await) == "2030-02" },
    )
    .await;
    assert_eq!(country_of_8888(&client, &bin.base).await, "DE");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_binary_watching_picks_up_a_new_release() {
    let dir = january_dir();
    let bin = fixtures::proc::serve(&["--data-dir", &dir_arg(dir.path()), "--no-reverse-dns"]);
    let client = fixtures::client();
    assert_eq!(release(&health(&client, &bin.base).await), "2030-01");
    drop_in(dir.path(), C02, country_csv(30, "DE").as_bytes());
    eventually(Duration::from_secs(10), "release 2030-02", || async {
        release(&health(&client, &bin.base).await) == "2030-02"
    })
    .await;
    assert_eq!(country_of_8888(&client, &bin.base).await, "DE");
    // The reload is logged.
    let log = bin.log().join("\n");
    assert!(log.contains("data reloaded"), "{log}");
}
