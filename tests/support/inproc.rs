//! The service driven in-process, with no socket: requests go straight into
//! the app `iplookup::web::router::app` builds (the service `server::run` serves on
//! each connection) through `tower::ServiceExt::oneshot`, with the peer's
//! address in the request extensions as `ConnectInfo<SocketAddr>`, as the
//! server puts it there. For what the app alone decides (status, headers,
//! negotiation, bodies); what the connection layer adds or enforces (framing,
//! size limits, timeouts, TLS, connection caps) needs the real socket of
//! [`super::start`].

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::Request;
use iplookup::web::serve::client::TrustedProxies;
use iplookup::web::{self, AppState, Limits};
use iplookup::{GeoDb, Lookup};
use tower::ServiceExt;

use super::wire::Wire;

/// The peer every in-process request comes from: a loopback client.
pub const PEER: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), 40000);
/// The `Host` of every in-process request (the wire client sends the server's address).
pub const HOST: &str = "127.0.0.1:8080";

/// The app of the default test configuration ([`super::config`]): embedded
/// data, no trusted proxy, no rate limit, default limits.
fn app() -> web::hot::Routes {
    static APP: OnceLock<web::hot::Routes> = OnceLock::new();
    APP.get_or_init(|| {
        let db = GeoDb::embedded().expect("embedded data loads");
        let state = AppState {
            lookup: Arc::new(Lookup::new(db)),
            proxies: Arc::new(TrustedProxies::default()),
            tls: false,
            limiter: None,
            public_url: None,
            mcp_origins: Arc::from([]),
            families: Arc::default(),
            batch_limit: iplookup::web::DEFAULT_BATCH_LIMIT,
            batch_slots: iplookup::web::serve::admission::batch::BatchSlots::new(
                Limits::default().batch_max_in_flight,
                Limits::default().queue_timeout,
            ),
        };
        web::router::app(state, &Limits::default())
    })
    .clone()
}

/// The runtime the in-process requests of blocking tests run on.
fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
    })
}

/// `GET target` with exactly these headers (plus `Host`), answered by the
/// app in-process; the answer in the shape the wire client gives.
pub async fn send(method: &str, target: &str, headers: &[(&str, &str)]) -> Wire {
    let what = format!("{method} {target} (in-process)");
    let mut request = Request::builder().method(method).uri(target);
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        request = request.header("host", HOST);
    }
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let mut request = request
        .body(Body::empty())
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    request.extensions_mut().insert(ConnectInfo(PEER));
    let Ok(response) = app().oneshot(request).await;
    let (parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_else(|e| panic!("{what}: body: {e}"));
    let headers = parts
        .headers
        .iter()
        .map(|(k, v)| {
            let v = v
                .to_str()
                .unwrap_or_else(|e| panic!("{what}: header {k}: {e}"));
            (k.as_str().to_owned(), v.to_owned())
        })
        .collect();
    let body = String::from_utf8(bytes.to_vec())
        .unwrap_or_else(|e| panic!("{what}: body is not UTF-8: {e}"));
    Wire {
        what,
        status: parts.status.as_u16(),
        headers,
        body,
    }
}

/// [`send`] of a `GET`, for blocking tests.
pub fn get_blocking(target: &str, headers: &[(&str, &str)]) -> Wire {
    runtime().block_on(send("GET", target, headers))
}
