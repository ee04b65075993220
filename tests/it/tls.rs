//! HTTPS with rustls: HTTP/1.1 and HTTP/2 (ALPN) with a certificate made in
//! the test (a CA and leaf certificates from rcgen), HSTS on every HTTPS
//! response, clear errors naming a wrong certificate or key path (library and
//! binary), and certificate reload when the files change.

use crate::support;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use iplookup::config::{ServeConfig, TlsFiles};
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair, KeyUsagePurpose,
};
use reqwest::Version;
use serde_json::Value;

use support::data::TempDir;

/// A test certificate authority.
struct Ca {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

/// A leaf certificate for `localhost` and its key, PEM, and its DER.
struct Leaf {
    cert_pem: String,
    key_pem: String,
    der: Vec<u8>,
}

impl Ca {
    fn new() -> Ca {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(DnType::CommonName, "iplookup test CA");
        params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        Ca {
            issuer: CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap(),
        }
    }

    fn pem(&self) -> String {
        self.issuer.pem()
    }

    fn leaf(&self, common_name: &str, serial: u64) -> Leaf {
        let mut params =
            CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()]).unwrap();
        params
            .distinguished_name
            .push(DnType::CommonName, common_name);
        params.serial_number = Some(serial.into());
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        Leaf {
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
            der: cert.der().to_vec(),
        }
    }
}

/// Writes a leaf's files: key first, then certificate, each by rename.
fn install(leaf: &Leaf, dir: &Path) -> TlsFiles {
    let files = TlsFiles {
        cert: dir.join("cert.pem"),
        key: dir.join("key.pem"),
    };
    write_atomic(&files.key, leaf.key_pem.as_bytes());
    write_atomic(&files.cert, leaf.cert_pem.as_bytes());
    files
}

fn write_atomic(path: &Path, bytes: &[u8]) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

struct Https {
    addr: SocketAddr,
    base: String,
}

async fn start_https(files: TlsFiles) -> Https {
    let server = support::start(ServeConfig {
        tls: Some(files),
        ..support::config()
    })
    .await;
    Https {
        addr: server.addr,
        base: format!("https://localhost:{}", server.addr.port()),
    }
}

/// A client trusting only the test CA, reaching `localhost` at `addr`.
fn client(ca: &Ca, addr: SocketAddr, http1_only: bool) -> reqwest::Client {
    support::crypto();
    let mut b = reqwest::Client::builder()
        .tls_certs_only([reqwest::Certificate::from_pem(ca.pem().as_bytes()).unwrap()])
        .resolve("localhost", addr)
        .tls_info(true)
        .pool_max_idle_per_host(0);
    if http1_only {
        b = b.http1_only();
    }
    b.build().unwrap()
}

/// The leaf certificate the server shows to a new connection.
async fn peer_certificate(client: &reqwest::Client, base: &str) -> Vec<u8> {
    let r = client
        .get(format!("{base}/healthz"))
        .send()
        .await
        .expect("HTTPS request");
    assert_eq!(r.status(), 200);
    r.extensions()
        .get::<reqwest::tls::TlsInfo>()
        .and_then(|i| i.peer_certificate())
        .expect("TLS info with the peer certificate")
        .to_vec()
}

#[tokio::test(flavor = "multi_thread")]
async fn https_serves_http1_and_http2_with_hsts() {
    let tmp = TempDir::new("tls");
    let ca = Ca::new();
    let leaf = ca.leaf("iplookup one", 1);
    let server = start_https(install(&leaf, tmp.path())).await;

    for (http1_only, version) in [(true, Version::HTTP_11), (false, Version::HTTP_2)] {
        let client = client(&ca, server.addr, http1_only);
        let r = client
            .get(format!("{}/api/v1/ip/8.8.8.8", server.base))
            .send()
            .await
            .unwrap_or_else(|e| panic!("{version:?}: {e:?}"));
        assert_eq!(r.status(), 200, "{version:?}");
        assert_eq!(r.version(), version);
        assert_eq!(
            r.headers()
                .get("strict-transport-security")
                .map(|v| v.to_str().unwrap()),
            Some("max-age=31536000"),
            "{version:?}"
        );
        let info: Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
        assert_eq!(info["network"]["asn"], 15169);

        // Error responses carry HSTS too.
        let r = client
            .get(format!("{}/no/such/page", server.base))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 404, "{version:?}");
        assert!(
            r.headers().contains_key("strict-transport-security"),
            "{version:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn http2_with_prior_knowledge_over_tls() {
    let tmp = TempDir::new("tls");
    let ca = Ca::new();
    let server = start_https(install(&ca.leaf("iplookup one", 1), tmp.path())).await;
    support::crypto();
    let client = reqwest::Client::builder()
        .tls_certs_only([reqwest::Certificate::from_pem(ca.pem().as_bytes()).unwrap()])
        .resolve("localhost", server.addr)
        .http2_prior_knowledge()
        .build()
        .unwrap();
    // Several streams on one connection.
    let tasks: Vec<_> = (0..20)
        .map(|_| {
            let client = client.clone();
            let url = format!("{}/api/v1/ip/1.1.1.1", server.base);
            tokio::spawn(async move { client.get(url).send().await })
        })
        .collect();
    for t in tasks {
        let r = t.await.unwrap().expect("h2 request");
        assert_eq!(r.status(), 200);
        assert_eq!(r.version(), Version::HTTP_2);
        assert!(r.headers().contains_key("strict-transport-security"));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn plain_http_has_no_hsts() {
    let server = support::start(support::config()).await;
    let r = support::client()
        .get(format!("{}/api/v1/ip/8.8.8.8", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(!r.headers().contains_key("strict-transport-security"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_not_trusting_the_certificate_is_refused() {
    let tmp = TempDir::new("tls");
    let ca = Ca::new();
    let server = start_https(install(&ca.leaf("iplookup one", 1), tmp.path())).await;
    let other = Ca::new();
    let err = client(&other, server.addr, false)
        .get(format!("{}/healthz", server.base))
        .send()
        .await
        .expect_err("a certificate from an unknown CA is refused");
    assert!(err.is_connect(), "{err:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn absolute_links_use_https_and_the_port_over_http1() {
    let tmp = TempDir::new("tls");
    let ca = Ca::new();
    let server = start_https(install(&ca.leaf("iplookup one", 1), tmp.path())).await;
    let r = client(&ca, server.addr, true)
        .get(format!("{}/api/v1/openapi.json", server.base))
        .send()
        .await
        .unwrap();
    let doc: Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
    assert_eq!(
        doc["servers"][0]["url"],
        server.base.as_str(),
        "{}",
        doc["servers"]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn absolute_links_use_https_and_the_port_over_http2() {
    let tmp = TempDir::new("tls");
    let ca = Ca::new();
    let server = start_https(install(&ca.leaf("iplookup one", 1), tmp.path())).await;
    let r = client(&ca, server.addr, false)
        .get(format!("{}/api/v1/openapi.json", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.version(), Version::HTTP_2);
    let doc: Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
    assert_eq!(
        doc["servers"][0]["url"],
        server.base.as_str(),
        "{}",
        doc["servers"]
    );
}

/// `run` with these files, expected to fail: its error text.
async fn run_error(files: TlsFiles) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let config = ServeConfig {
        tls: Some(files),
        ..support::config()
    };
    let result = tokio::time::timeout(
        Duration::from_secs(10),
        iplookup::server::run(listener, &config, std::future::pending()),
    )
    .await
    .expect("run returns at once when the certificate cannot be read");
    result.expect_err("run fails").to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_certificate_path_is_a_clear_error() {
    let tmp = TempDir::new("tls");
    let ca = Ca::new();
    let good = install(&ca.leaf("iplookup one", 1), tmp.path());

    let missing_cert = tmp.path().join("nonexistent-cert.pem");
    let err = run_error(TlsFiles {
        cert: missing_cert.clone(),
        key: good.key.clone(),
    })
    .await;
    assert!(err.contains(&missing_cert.display().to_string()), "{err}");

    let missing_key = tmp.path().join("nonexistent-key.pem");
    let err = run_error(TlsFiles {
        cert: good.cert.clone(),
        key: missing_key.clone(),
    })
    .await;
    assert!(err.contains(&missing_key.display().to_string()), "{err}");

    // A file that is there but holds no certificate.
    let garbage = tmp.path().join("garbage.pem");
    std::fs::write(&garbage, "this is not PEM\n").unwrap();
    let err = run_error(TlsFiles {
        cert: garbage.clone(),
        key: good.key.clone(),
    })
    .await;
    assert!(err.contains(&garbage.display().to_string()), "{err}");

    // Not a regular file (a path pointed at /dev/zero): refused, not read.
    let err = run_error(TlsFiles {
        cert: good.cert.clone(),
        key: PathBuf::from("/dev/zero"),
    })
    .await;
    assert!(
        err.contains("/dev/zero") && err.contains("not a regular file"),
        "{err}"
    );

    // A huge file (8 GiB, sparse): read no further than the cap.
    let huge = tmp.path().join("huge.pem");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(8 << 30)
        .unwrap();
    let err = run_error(TlsFiles {
        cert: huge.clone(),
        key: good.key.clone(),
    })
    .await;
    assert!(err.contains("larger than 1048576 bytes"), "{err}");

    // A key that does not belong to the certificate.
    let other = install(&ca.leaf("other", 2), &tmp.path().join("x").tap_mkdir());
    let err = run_error(TlsFiles {
        cert: good.cert.clone(),
        key: other.key.clone(),
    })
    .await;
    assert!(err.contains(&other.key.display().to_string()), "{err}");
}

trait TapMkdir {
    fn tap_mkdir(self) -> PathBuf;
}

impl TapMkdir for PathBuf {
    fn tap_mkdir(self) -> PathBuf {
        std::fs::create_dir_all(&self).unwrap();
        self
    }
}

#[test]
fn the_binary_names_a_wrong_certificate_path_and_exits_non_zero() {
    let tmp = TempDir::new("tls");
    let stderr_path = tmp.path().join("stderr");
    let mut child = support::proc::command()
        .args([
            "--listen",
            "127.0.0.1:0",
            "--tls-cert",
            "/nonexistent/iplookup-cert.pem",
            "--tls-key",
            "/nonexistent/iplookup-key.pem",
        ])
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&stderr_path).unwrap())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if started.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("iplookup kept running with a missing certificate");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stderr = std::fs::read_to_string(&stderr_path).unwrap();
    assert!(!status.success(), "{stderr}");
    assert!(
        stderr.contains("/nonexistent/iplookup-cert.pem"),
        "{stderr}"
    );
}

#[test]
fn tls_cert_without_tls_key_is_a_usage_error() {
    let out = support::proc::command()
        .args(["--listen", "127.0.0.1:0", "--tls-cert", "/tmp/cert.pem"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--tls-key"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_replaced_certificate_is_served_to_new_connections() {
    let tmp = TempDir::new("tls");
    let ca = Ca::new();
    let first = ca.leaf("iplookup first", 1001);
    let second = ca.leaf("iplookup second", 2002);
    let files = install(&first, tmp.path());
    let server = start_https(files).await;
    let client = client(&ca, server.addr, false);
    assert_eq!(peer_certificate(&client, &server.base).await, first.der);

    let replaced = Instant::now();
    install(&second, tmp.path());
    loop {
        let seen = peer_certificate(&client, &server.base).await;
        if seen == second.der {
            break;
        }
        assert_eq!(seen, first.der, "neither the old nor the new certificate");
        assert!(
            replaced.elapsed() < Duration::from_secs(8),
            "the new certificate was not served within 8 s"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    eprintln!("new certificate served after {:?}", replaced.elapsed());
    // And it stays.
    for _ in 0..3 {
        assert_eq!(peer_certificate(&client, &server.base).await, second.der);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_broken_replacement_certificate_keeps_the_old_one() {
    let tmp = TempDir::new("tls");
    let ca = Ca::new();
    let first = ca.leaf("iplookup first", 1001);
    let files = install(&first, tmp.path());
    let server = start_https(files.clone()).await;
    let client = client(&ca, server.addr, false);
    assert_eq!(peer_certificate(&client, &server.base).await, first.der);

    write_atomic(
        &files.cert,
        b"-----BEGIN CERTIFICATE-----\nbroken\n-----END CERTIFICATE-----\n",
    );
    // Past one check of the files (every 5 s): still the old certificate, no failures.
    let until = Instant::now() + Duration::from_millis(6500);
    while Instant::now() < until {
        assert_eq!(peer_certificate(&client, &server.base).await, first.der);
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// Makes a FIFO at `path` (no writer ever opens it).
fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("run mkfifo");
    assert!(status.success(), "mkfifo {}", path.display());
}

/// A FIFO as the certificate at start: the binary says so and exits, at
/// once (before, it bound the port, never answered, ignored SIGTERM, and
/// hung in `open()` for good).
#[test]
fn a_fifo_as_the_certificate_at_start_is_a_clear_error() {
    let tmp = TempDir::new("tls-fifo");
    let leaf = Ca::new().leaf("iplookup", 1);
    let files = install(&leaf, tmp.path());
    std::fs::remove_file(&files.cert).unwrap();
    mkfifo(&files.cert);
    let stderr_path = tmp.path().join("stderr");
    let mut child = support::proc::command()
        .args(["--listen", "127.0.0.1:0"])
        .arg("--tls-cert")
        .arg(&files.cert)
        .arg("--tls-key")
        .arg(&files.key)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&stderr_path).unwrap())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if started.elapsed() > Duration::from_secs(15) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("iplookup kept running with a FIFO as its certificate");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stderr = std::fs::read_to_string(&stderr_path).unwrap();
    assert!(!status.success(), "{stderr}");
    assert!(
        stderr.contains("cert.pem") && stderr.contains("not a regular file"),
        "{stderr}"
    );
    eprintln!("exited after {:?}", started.elapsed());
}

/// A FIFO swapped in for the certificate of a running server: the reload
/// refuses it, the old certificate is served on, a good certificate
/// written later is picked up, and SIGTERM ends the process within the
/// drain time (before, a reload thread hung in `open()`: no later
/// certificate was seen and shutdown never finished).
#[tokio::test(flavor = "multi_thread")]
async fn a_fifo_swapped_in_at_runtime_is_refused_and_the_server_goes_on() {
    let tmp = TempDir::new("tls-fifo");
    let ca = Ca::new();
    let first = ca.leaf("iplookup first", 1001);
    let second = ca.leaf("iplookup second", 2002);
    let files = install(&first, tmp.path());
    let cert = files.cert.display().to_string();
    let key = files.key.display().to_string();
    let mut bin = support::proc::serve(&[
        "--tls-cert",
        &cert,
        "--tls-key",
        &key,
        "--drain-seconds",
        "2",
    ]);
    let client = client(&ca, bin.addr, false);
    let base = format!("https://localhost:{}", bin.addr.port());
    assert_eq!(peer_certificate(&client, &base).await, first.der);

    let fifo = tmp.path().join("fifo.pem");
    mkfifo(&fifo);
    std::fs::rename(&fifo, &files.cert).unwrap();
    // Past one check of the files (every 5 s): the old certificate, served.
    let until = Instant::now() + Duration::from_millis(6500);
    while Instant::now() < until {
        assert_eq!(peer_certificate(&client, &base).await, first.der);
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert!(
        bin.log()
            .iter()
            .any(|l| l.contains("refused") && l.contains("not a regular file")),
        "{:?}",
        bin.log()
    );
    let replaced = Instant::now();
    install(&second, tmp.path());
    loop {
        if peer_certificate(&client, &base).await == second.der {
            break;
        }
        assert!(
            replaced.elapsed() < Duration::from_secs(12),
            "the good certificate was not served within 12 s"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    drop(client);
    bin.signal("TERM");
    let stopped = Instant::now();
    let status = tokio::task::block_in_place(|| bin.wait_exit(Duration::from_secs(8)));
    assert!(status.is_some(), "still running 8 s after SIGTERM");
    eprintln!("exited {:?} after SIGTERM", stopped.elapsed());
}
