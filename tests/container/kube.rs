//! `deploy/kubernetes/iplookup.yaml` played with `podman kube play`, from a
//! test copy that names the image under test and publishes each pod's `http`
//! port on 127.0.0.1 (`hostPort`, `hostIP`). Every replica of a Deployment
//! gets the same `hostPort` in podman, so the copy runs the Deployment as two
//! one-replica Deployments (`iplookup`, `iplookup-b`) on one shared volume
//! (the PersistentVolumeClaim, a podman volume). The pods answer `/healthz`
//! (the readiness probe's request) and lookups on loopback with the
//! manifest's security context applied. Then the monthly update runs as the
//! CronJob runs it (its container's arguments, its user, the claim on /data),
//! as a one-off container of the same image on the host network, fetching
//! from a local mirror on loopback; both running pods then serve the new
//! release without a restart. podman runs Deployments, Pods and claims only:
//! the Service, NetworkPolicy, HorizontalPodAutoscaler and the CronJob's
//! schedule are validated by kubernetes-validate (`tests/external/deploy.rs`).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::podman::{Container, healthy, image, logs, podman, try_podman};
use crate::support::data::TempDir;
use crate::support::proc::free_port;
use crate::support::wire;

const MANIFEST: &str = "deploy/kubernetes/iplookup.yaml";
/// The claim the Deployment and the CronJob share; podman names the volume after it.
const CLAIM: &str = "iplookup-data";

fn manifest() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(MANIFEST))
        .expect("the manifest")
}

/// `text` with `from` replaced by `to`; panics unless `from` occurs exactly once.
fn replace_once(text: &str, from: &str, to: &str) -> String {
    assert_eq!(
        text.matches(from).count(),
        1,
        "{MANIFEST}: expected `{from}` once"
    );
    text.replacen(from, to, 1)
}

/// The manifest's documents (YAML separated by `---` lines).
fn documents(text: &str) -> Vec<String> {
    text.split("\n---\n").map(str::to_owned).collect()
}

/// The one document of `kind`.
fn document<'a>(docs: &'a [String], kind: &str) -> &'a String {
    let found: Vec<&String> = docs
        .iter()
        .filter(|d| d.lines().any(|l| l == format!("kind: {kind}")))
        .collect();
    assert_eq!(found.len(), 1, "{MANIFEST}: one {kind} expected");
    found[0]
}

/// The Deployment for podman: one replica, `name`, the `http` port published
/// on 127.0.0.1:`port`.
fn deployment(original: &str, name: &str, port: u16) -> String {
    let one = replace_once(original, "  replicas: 2\n", "  replicas: 1\n");
    let named = replace_once(&one, "\n  name: iplookup\n", &format!("\n  name: {name}\n"));
    replace_once(
        &named,
        "- {name: http, containerPort: 8080}",
        &format!("- {{name: http, containerPort: 8080, hostPort: {port}, hostIP: 127.0.0.1}}"),
    )
}

/// The test copy: every document as it is (the image replaced), the
/// Deployment as two one-replica Deployments on the given ports.
fn test_copy(image: &str, ports: [u16; 2]) -> String {
    let text = manifest().replace("ghcr.io/example/iplookup:latest", image);
    let docs = documents(&text);
    let original = document(&docs, "Deployment").clone();
    let mut out: Vec<String> = docs
        .iter()
        .map(|d| {
            if *d == original {
                deployment(d, "iplookup", ports[0])
            } else {
                d.clone()
            }
        })
        .collect();
    out.push(deployment(&original, "iplookup-b", ports[1]));
    out.join("\n---\n")
}

/// The CronJob's container arguments (its `args:` flow sequence).
fn cronjob_args(docs: &[String]) -> Vec<String> {
    let cron = document(docs, "CronJob");
    let line = cron
        .lines()
        .find_map(|l| l.trim().strip_prefix("args: "))
        .expect("the CronJob's args");
    serde_json::from_str(line).expect("args as a flow sequence of strings")
}

/// Takes the played pods and the volume down when the test ends, however it ends.
struct Played(std::path::PathBuf);

impl Played {
    fn down(file: &Path) {
        let file = file.to_str().expect("path");
        let _ = try_podman(&["kube", "play", "--down", file]);
        let _ = try_podman(&["volume", "rm", "--force", CLAIM]);
    }
}

impl Drop for Played {
    fn drop(&mut self) {
        Played::down(&self.0);
    }
}

/// A release mirror on loopback: `GET /free/NAME` answers the file of that
/// name, everything else 404; remembers the paths asked.
struct Mirror {
    base: String,
    asked: Arc<Mutex<Vec<String>>>,
}

impl Mirror {
    fn start(files: BTreeMap<String, Vec<u8>>) -> Mirror {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let base = format!("http://{}/free/", listener.local_addr().expect("addr"));
        let asked = Arc::new(Mutex::new(Vec::new()));
        let seen = asked.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                Mirror::answer(stream, &files, &seen);
            }
        });
        Mirror { base, asked }
    }

    fn answer(stream: TcpStream, files: &BTreeMap<String, Vec<u8>>, asked: &Mutex<Vec<String>>) {
        let mut reader = BufReader::new(&stream);
        let mut line = String::new();
        if reader.read_line(&mut line).is_err() {
            return;
        }
        // The rest of the head.
        let mut header = String::new();
        while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
            header.clear();
        }
        let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
        asked.lock().unwrap().push(path.clone());
        let body = path.strip_prefix("/free/").and_then(|name| files.get(name));
        let (status, body) = match body {
            Some(b) => ("200 OK", b.as_slice()),
            None => ("404 Not Found", b"not found".as_slice()),
        };
        let mut out = &stream;
        let head = format!(
            "HTTP/1.1 {status}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        );
        let _ = out.write_all(head.as_bytes());
        let _ = out.write_all(body);
    }
}

/// The embedded release's files (the real DB-IP data the binary was built
/// from) under this month's names, as DB-IP publishes them.
fn this_months_release(month: &str) -> BTreeMap<String, Vec<u8>> {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    let read = |f: &str| std::fs::read(data.join(f)).expect("data file");
    BTreeMap::from([
        (
            format!("dbip-country-lite-{month}.csv.gz"),
            read("dbip-country-lite.csv.gz"),
        ),
        (format!("dbip-asn-lite-{month}.csv.gz"), read("asn.csv.gz")),
    ])
}

/// A played pod: its container and published address.
struct Pod {
    container: String,
    addr: SocketAddr,
}

impl Pod {
    fn health(&self) -> Value {
        let r = wire::get_blocking(self.addr, "/healthz", &[]);
        assert_eq!(r.status, 200, "{}", r.body);
        r.json()
    }

    /// The country and ASN release dates the pod reports.
    fn releases(&self) -> [String; 2] {
        let h = self.health();
        ["country", "asn"].map(|t| {
            h["data"][t]["release_date"]
                .as_str()
                .unwrap_or_else(|| panic!("no {t} release_date: {h}"))
                .to_owned()
        })
    }

    fn inspect(&self, format: &str) -> String {
        podman(&["inspect", "--format", format, &self.container])
            .trim()
            .to_owned()
    }

    fn logs(&self) -> String {
        logs(&self.container)
    }
}

/// Waits until every pod answers `/healthz` 200 on its published port.
fn wait_ready(pods: &[Pod]) {
    for pod in pods {
        healthy(pod.addr, Duration::from_secs(120), || pod.logs());
    }
}

#[test]
fn the_manifests_play_and_the_monthly_update_reaches_the_running_pods() {
    let image = image();
    let dir = TempDir::new("kube");
    let first = free_port().port();
    let second = std::iter::repeat_with(|| free_port().port())
        .find(|p| *p != first)
        .expect("a second free port");
    let ports = [first, second];
    let file = dir.path().join("iplookup.yaml");
    std::fs::write(&file, test_copy(image, ports)).expect("write the test copy");
    Played::down(&file); // what a killed earlier run may have left
    let played = Played(file.clone());
    let out = podman(&["kube", "play", file.to_str().expect("path")]);
    eprintln!("kube play:\n{out}");

    let pods: Vec<Pod> = ["iplookup", "iplookup-b"]
        .iter()
        .zip(ports)
        .map(|(name, port)| Pod {
            container: format!("{name}-pod-0-iplookup"),
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
        })
        .collect();
    wait_ready(&pods);

    // The manifest's security context, as podman applied it.
    for pod in &pods {
        assert_eq!(pod.inspect("{{.Config.User}}"), "65532");
        assert_eq!(pod.inspect("{{.HostConfig.ReadonlyRootfs}}"), "true");
        let mounts = pod.inspect("{{range .Mounts}}{{.Name}}:{{.Destination}}:{{.RW}} {{end}}");
        assert!(mounts.contains(&format!("{CLAIM}:/data:false")), "{mounts}");
        let r = wire::get_blocking(pod.addr, "/api/v1/ip/8.8.8.8", &[]);
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(r.json()["network"]["asn"], 15169);
    }
    let before: Vec<[String; 2]> = pods.iter().map(Pod::releases).collect();
    let started: Vec<String> = pods
        .iter()
        .map(|p| p.inspect("{{.State.StartedAt}} {{.RestartCount}}"))
        .collect();

    // The CronJob's run: its arguments and user, the claim on /data, this
    // month's release from a mirror on loopback (hence the host network).
    let month = chrono::Utc::now().format("%Y-%m").to_string();
    assert!(
        before.iter().all(|r| r[0] != month),
        "the pods already serve {month}: {before:?}"
    );
    let mirror = Mirror::start(this_months_release(&month));
    let docs = documents(&manifest());
    let mut args = cronjob_args(&docs);
    assert_eq!(args[..3], ["update", "--data-dir", "/data"], "{args:?}");
    args.extend(["--base-url".to_owned(), mirror.base.clone()]);
    let name = format!("iplookup-update-test-{}", std::process::id());
    let _update = Container(name.clone());
    let volume = format!("{CLAIM}:/data");
    let mut run = vec![
        "run",
        "--name",
        &name,
        "--network=host",
        "--user",
        "65532:65532",
        "--volume",
        &volume,
        image,
    ];
    run.extend(args.iter().map(String::as_str));
    let stdout = podman(&run);
    eprintln!("update: {stdout}");
    let asked = mirror.asked.lock().unwrap().clone();
    assert!(
        asked
            .iter()
            .any(|p| p.contains(&format!("country-lite-{month}"))),
        "{asked:?}"
    );

    // Both running pods load it from the shared volume, without a restart.
    let limit = Duration::from_secs(120);
    let waiting = Instant::now();
    for pod in &pods {
        while pod.releases() != [month.clone(), month.clone()] {
            assert!(
                waiting.elapsed() < limit,
                "{} still serves {:?} after {limit:?}:\n{}",
                pod.container,
                pod.releases(),
                pod.logs()
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }
    eprintln!(
        "both pods serve {month} (before: {before:?}) {:.1} s after the update",
        waiting.elapsed().as_secs_f64()
    );
    for (pod, started) in pods.iter().zip(&started) {
        assert_eq!(
            &pod.inspect("{{.State.StartedAt}} {{.RestartCount}}"),
            started,
            "{} restarted",
            pod.container
        );
        let r = wire::get_blocking(pod.addr, "/api/v1/ip/8.8.8.8", &[]);
        assert_eq!(r.json()["network"]["asn"], 15169);
    }
    drop(played);
}
