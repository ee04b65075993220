//! The one support module of the test binaries (`tests/it`, `tests/limits`,
//! `tests/external`, `tests/container`, each `#[path]`-includes it): the real server on a real
//! loopback socket, started in-process ([`start`]); the raw HTTP/1.1 client
//! ([`wire`]); one `reqwest` client ([`client`]), `GET` and [`http::eventually`]
//! ([`http`]); sockets the tests bind themselves ([`net`]); the app
//! driven in-process without a socket ([`inproc`]); a real DNS server on
//! loopback ([`dns`]); the real binary as a child process ([`proc`]); and
//! DB-IP-shaped data files and [`data::TempDir`] ([`data`]); MMDB files
//! written on the fly ([`mmdb`]).
#![allow(dead_code)]

pub mod data;
pub mod dns;
pub mod http;
pub mod inproc;
pub mod mmdb;
pub mod net;
pub mod proc;
pub mod wire;

use std::net::SocketAddr;
use std::time::Duration;

use iplookup::ServeConfig;
use iplookup::server::run;
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

    /// [`http::get_json`] of `path` on this server.
    pub async fn get_json(&self, path: &str) -> serde_json::Value {
        http::get_json(&client(), &self.url(path)).await
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

/// The configuration serving the small fixture release in `dir` under
/// [`data::small_release_policy`]; `watch`: reload when its files change.
pub fn small_release(dir: &std::path::Path, watch: bool) -> ServeConfig {
    ServeConfig {
        data_dir: Some(dir.to_owned()),
        watch,
        policy: data::small_release_policy(),
        ..config()
    }
}

/// Starts a server on the configured address (port 0) with the data the
/// configuration names (`data_dir`, `policy`; the embedded data by default).
/// It runs as long as the test.
pub async fn start(config: ServeConfig) -> TestServer {
    let listener = TcpListener::bind(config.listen).await.expect("bind");
    start_on(listener, config)
}

/// Starts a server on a listener the test bound itself (`config.listen` is
/// not used); it runs as long as the test.
pub fn start_on(listener: TcpListener, config: ServeConfig) -> TestServer {
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        run(listener, &config, std::future::pending())
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

/// Starts a server (as [`start`]) that shuts down on [`Stoppable::stop`].
pub async fn start_stoppable(config: ServeConfig) -> Stoppable {
    let listener = TcpListener::bind(config.listen).await.expect("bind");
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let done = tokio::spawn(async move {
        let shutdown = async {
            let _ = stopped.await;
        };
        run(listener, &config, shutdown).await.expect("server runs");
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

/// The keys of an answer (`IpInfo`), in the order of the spec, then
/// `special_purpose` (issue 23: an addition, null for an ordinary address).
pub const TOP_KEYS: &[&str] = &[
    "ip",
    "version",
    "is_public",
    "location",
    "network",
    "special_purpose",
];
/// The keys of `special_purpose` when it is not null.
pub const SPECIAL_KEYS: &[&str] = &["name", "rfc", "rfc_url", "range"];
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
