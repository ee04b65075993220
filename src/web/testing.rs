//! A resource's own tests over a real loopback socket (a `tests.rs` in the
//! resource's folder): the whole app ([`super::router::app`]) on the
//! embedded data, each connection served by hyper-util (HTTP/1.1 and
//! HTTP/2) on `127.0.0.1`, asked with reqwest. One server per test binary,
//! on a thread of its own, so it outlives each test's runtime. What the
//! server's connection layer adds (deadlines, caps, TLS) is tested through
//! the binary, in `tests/`.

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};

use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder;

use super::serve::admission::batch::BatchSlots;
use super::serve::client::TrustedProxies;
use super::serve::state::{AppState, Limits};
use crate::{GeoDb, Lookup};

/// One answer: its status, headers and body.
pub(crate) struct Answer {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: String,
}

impl Answer {
    /// The value of header `name`, or "".
    pub(crate) fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }
}

/// `GET path` with `headers`, from a loopback client.
///
/// Each call has a client of its own. A client kept for the whole binary
/// would pool connections whose dispatch task lives on the runtime of the
/// test that opened them; every `#[tokio::test]` has its own runtime, and
/// once that test ends the next one to take the connection fails with
/// "runtime dropped the dispatch task" (hyperium/hyper#2112,
/// seanmonstar/reqwest#1148). That flake failed CI once.
pub(crate) async fn get(path: &str, headers: &[(&str, &str)]) -> Answer {
    static PROVIDER: OnceLock<()> = OnceLock::new();
    PROVIDER.get_or_init(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
    let client = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("a plain HTTP client");
    let mut request = client.get(format!("http://{}{path}", server()));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.expect("the test server answers");
    Answer {
        status: response.status().as_u16(),
        headers: response.headers().clone(),
        body: response.text().await.expect("a text body"),
    }
}

/// The address of the test binary's server, started on first use.
fn server() -> SocketAddr {
    static ADDR: OnceLock<SocketAddr> = OnceLock::new();
    *ADDR.get_or_init(|| {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let addr = listener.local_addr().expect("its address");
        listener.set_nonblocking(true).expect("non-blocking");
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("a runtime");
            runtime.block_on(accept(listener));
        });
        addr
    })
}

/// Serves every connection of `listener` with the app.
async fn accept(listener: std::net::TcpListener) {
    let listener = tokio::net::TcpListener::from_std(listener).expect("a tokio listener");
    let limits = Limits::default();
    let state = AppState {
        lookup: Arc::new(Lookup::new(GeoDb::embedded().expect("embedded data loads"))),
        proxies: Arc::new(TrustedProxies::default()),
        tls: false,
        limiter: None,
        public_url: None,
        mcp_origins: Arc::from([]),
        families: Arc::default(),
        batch_limit: super::DEFAULT_BATCH_LIMIT,
        batch_slots: BatchSlots::new(limits.batch_max_in_flight, limits.queue_timeout),
    };
    let routes = super::router::app(state, &limits);
    while let Ok((stream, peer)) = listener.accept().await {
        let routes = routes.clone();
        let service =
            hyper::service::service_fn(move |request| routes.clone().call_from(request, peer));
        tokio::spawn(async move {
            let _ = Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
