//! The one support module of the test binaries (`tests/it`, `tests/limits`,
//! `tests/external`, each `#[path]`-includes it): the real server on a real
//! loopback socket, started in-process ([`start`]); the raw HTTP/1.1 client
//! ([`wire`]); one `reqwest` client ([`client`]); [`eventually`]; the app
//! driven in-process without a socket ([`inproc`]); a real DNS server on
//! loopback ([`dns`]); the real binary as a child process ([`proc`]); and
//! DB-IP-shaped data files and [`data::TempDir`] ([`data`]).
#![allow(dead_code)]

pub mod data;
pub mod dns;
pub mod inproc;
pub mod proc;
pub mod wire;

use std::net::SocketAddr;
use std::time::Duration;

use iplookup::GeoDb;
use iplookup::server::{ServeConfig, run};
use tokio::net::TcpListener;

/// A running server and the base URL to reach it.
pub struct TestServer {
    pub addr: SocketAddr,
    pub base: String,
}

impl TestServer {
    /// The absolute URL of `path` on this server.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// [`get_json`] of `path` on this server.
    pub async fn get_json(&self, path: &str) -> serde_json::Value {
        get_json(&client(), &self.url(path)).await
    }
}

/// The default test configuration: listening on 127.0.0.1, no trusted proxy.
pub fn config() -> ServeConfig {
    ServeConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        drain: Duration::from_secs(1),
        ..ServeConfig::default()
    }
}

/// Starts a server with the embedded data on the configured address (port 0).
pub async fn start(config: ServeConfig) -> TestServer {
    let db = GeoDb::embedded().expect("embedded data loads");
    start_with(config, db).await
}

/// Starts a server with a given database; it runs as long as the test.
pub async fn start_with(config: ServeConfig, db: GeoDb) -> TestServer {
    let listener = TcpListener::bind(config.listen).await.expect("bind");
    start_on(listener, config, db)
}

/// Starts a server on a listener the test bound itself (`config.listen` is
/// not used); it runs as long as the test.
pub fn start_on(listener: TcpListener, config: ServeConfig, db: GeoDb) -> TestServer {
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        run(listener, db, &config, std::future::pending())
            .await
            .expect("server runs");
    });
    TestServer {
        addr,
        base: base_url(addr),
    }
}

/// Starts a server with `config` on a runtime thread of its own, for blocking
/// tests and for one server shared by a whole test module (keep it in a
/// `OnceLock`): it lives until the test process ends.
pub fn background(config: ServeConfig) -> TestServer {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            tx.send(start(config).await).unwrap();
            std::future::pending::<()>().await;
        });
    });
    rx.recv_timeout(Duration::from_secs(120))
        .expect("server started")
}

/// A server the test shuts down: `stop` resolves `run`'s shutdown future.
pub struct Stoppable {
    pub server: TestServer,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    done: tokio::task::JoinHandle<()>,
}

impl Stoppable {
    /// Signals the shutdown; `run` has returned when this does.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        (&mut self.done).await.expect("server task");
    }
}

/// Starts a server with the embedded data that shuts down on [`Stoppable::stop`].
pub async fn start_stoppable(config: ServeConfig) -> Stoppable {
    let db = GeoDb::embedded().expect("embedded data loads");
    let listener = TcpListener::bind(config.listen).await.expect("bind");
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let done = tokio::spawn(async move {
        let shutdown = async {
            let _ = stopped.await;
        };
        run(listener, db, &config, shutdown)
            .await
            .expect("server runs");
    });
    Stoppable {
        server: TestServer {
            addr,
            base: base_url(addr),
        },
        stop: Some(stop),
        done,
    }
}

/// A listener on `[::]:0` that takes IPv4 connections too (`IPV6_V6ONLY`
/// off), whatever the host's default (`net.ipv6.bindv6only`).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn dual_stack_listener() -> TcpListener {
    use std::os::fd::{AsRawFd, FromRawFd};
    let size = |n: usize| libc::socklen_t::try_from(n).unwrap();
    // SAFETY: plain socket calls on a descriptor this function owns (the
    // listener closes it on drop), with pointers to live local values.
    let listener = unsafe {
        let fd = libc::socket(libc::AF_INET6, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        assert!(fd >= 0, "socket: {}", std::io::Error::last_os_error());
        std::net::TcpListener::from_raw_fd(fd)
    };
    let fd = listener.as_raw_fd();
    let off: libc::c_int = 0;
    // SAFETY: as above.
    unsafe {
        let rc = libc::setsockopt(
            fd,
            libc::IPPROTO_IPV6,
            libc::IPV6_V6ONLY,
            (&raw const off).cast(),
            size(std::mem::size_of::<libc::c_int>()),
        );
        assert_eq!(rc, 0, "IPV6_V6ONLY: {}", std::io::Error::last_os_error());
        let mut any: libc::sockaddr_in6 = std::mem::zeroed();
        any.sin6_family = libc::sa_family_t::try_from(libc::AF_INET6).unwrap();
        let rc = libc::bind(
            fd,
            (&raw const any).cast(),
            size(std::mem::size_of::<libc::sockaddr_in6>()),
        );
        assert_eq!(rc, 0, "bind [::]:0: {}", std::io::Error::last_os_error());
        assert_eq!(
            libc::listen(fd, 1024),
            0,
            "listen: {}",
            std::io::Error::last_os_error()
        );
    }
    listener.set_nonblocking(true).unwrap();
    TcpListener::from_std(listener).unwrap()
}

fn base_url(addr: SocketAddr) -> String {
    match addr {
        SocketAddr::V4(a) => format!("http://{a}"),
        SocketAddr::V6(a) => format!("http://[{}]:{}", a.ip(), a.port()),
    }
}

/// Installs the ring crypto provider for rustls (reqwest is built with
/// `rustls-no-provider`, for the service's own HTTPS fetches, so one must be
/// installed before any client is built, even for plain HTTP); harmless when
/// already installed.
pub fn crypto() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// The plain HTTP client of every test: no default User-Agent, the crypto
/// provider installed first.
pub fn client() -> reqwest::Client {
    crypto();
    reqwest::Client::builder().build().unwrap()
}

/// `GET url` through `client`: status, headers and body; panics if it fails
/// or takes more than 10 s.
pub async fn get(client: &reqwest::Client, url: &str) -> (u16, reqwest::header::HeaderMap, String) {
    let answer = async {
        let r = client.get(url).send().await?;
        let status = r.status().as_u16();
        let headers = r.headers().clone();
        Ok::<_, reqwest::Error>((status, headers, r.text().await?))
    };
    tokio::time::timeout(Duration::from_secs(10), answer)
        .await
        .unwrap_or_else(|_| panic!("GET {url}: no answer in 10 s"))
        .unwrap_or_else(|e| panic!("GET {url}: {e}"))
}

/// `GET url`, which must answer 200 with a JSON body: the body.
pub async fn get_json(client: &reqwest::Client, url: &str) -> serde_json::Value {
    let (status, headers, body) = get(client, url).await;
    assert_eq!(status, 200, "GET {url}: {body}");
    let ct = headers
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    assert!(
        ct.starts_with("application/json"),
        "GET {url}: content-type {ct:?}"
    );
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("GET {url}: not JSON ({e}): {body}"))
}

/// Polls `check` every 50 ms until it holds; panics after `limit` naming
/// `what`. Returns how long it took.
pub async fn eventually<F, Fut>(limit: Duration, what: &str, mut check: F) -> Duration
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let started = std::time::Instant::now();
    loop {
        if check().await {
            return started.elapsed();
        }
        assert!(started.elapsed() < limit, "not within {limit:?}: {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The keys of an answer (`IpInfo`), in the order of the spec.
pub const TOP_KEYS: &[&str] = &["ip", "version", "is_public", "location", "network"];
/// The keys of `location`.
pub const LOCATION_KEYS: &[&str] = &[
    "country_code",
    "country",
    "country_bn",
    "flag",
    "continent",
    "city",
    "latitude",
    "longitude",
    "accuracy",
    "time_zone",
    "local_time",
    "currency",
    "calling_code",
];
/// The keys of `network`.
pub const NETWORK_KEYS: &[&str] = &["asn", "organization", "range", "reverse_dns"];

/// The interpreter of the pinned Python test tools (tests/requirements.txt):
/// `IPLOOKUP_TEST_PYTHON` (exported by scripts/test), else `.venv/bin/python`
/// of this crate. Missing is a failure, not a skip.
pub fn test_python() -> std::path::PathBuf {
    let path = match std::env::var_os("IPLOOKUP_TEST_PYTHON") {
        Some(p) if !p.is_empty() => std::path::PathBuf::from(p),
        _ => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python"),
    };
    assert!(
        path.exists(),
        "Python for the black-box tools not found at {}: run scripts/test (it creates .venv/ from \
         tests/requirements.txt and exports IPLOOKUP_TEST_PYTHON), or set IPLOOKUP_TEST_PYTHON",
        path.display()
    );
    path
}
