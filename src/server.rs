//! Running the service: loading the data, binding the listener (HTTP, or
//! HTTPS with HTTP/2 through rustls), the connection and request limits,
//! hot reload, and graceful shutdown on SIGTERM or Ctrl-C.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use axum::ServiceExt;
use axum_server::Handle;
use axum_server::tls_rustls::{RustlsAcceptor, RustlsConfig};
use ipnet::IpNet;
use tokio::net::TcpListener;

use crate::connections::ConnectionCap;
use crate::geo::load::Policy;
pub use crate::geo::load::load_database;
use crate::geo::{GeoDb, GeoError};
use crate::lookup::Lookup;
use crate::rdns::{RdnsConfig, RdnsError, ReverseDns};
use crate::reload;
use crate::web::client::{ClientIpHeader, TrustedProxies};
use crate::web::origin::{PublicUrl, WebOrigin};
use crate::web::ratelimit::{RateLimit, RateLimiter};
use crate::web::{self, AppState, Limits};

/// Certificate and key files (PEM) for HTTPS.
#[derive(Debug, Clone)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
}

/// How to run the service.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    pub listen: SocketAddr,
    pub trusted_proxies: Vec<IpNet>,
    /// The one header read from `trusted_proxies` for the caller's address.
    pub client_ip_header: ClientIpHeader,
    pub data_dir: Option<PathBuf>,
    /// The rule data releases are loaded by (start and reload).
    pub policy: Policy,
    /// Watch `data_dir` (and SIGHUP) and reload new releases.
    pub watch: bool,
    /// How long to wait for requests in flight at shutdown.
    pub drain: Duration,
    /// Reverse DNS, or `None` to leave `reverse_dns` null.
    pub rdns: Option<RdnsConfig>,
    /// Serve HTTPS with these files.
    pub tls: Option<TlsFiles>,
    pub limits: Limits,
    /// Per-caller rate limit; `None` (the default) for no limit.
    pub rate_limit: Option<RateLimit>,
    /// The base of every absolute link; `None` (the default) builds them from
    /// each request's `Host`.
    pub public_url: Option<PublicUrl>,
    /// Browser origins `/mcp` accepts besides the public URL's.
    pub mcp_allowed_origins: Vec<WebOrigin>,
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            trusted_proxies: Vec::new(),
            client_ip_header: ClientIpHeader::default(),
            data_dir: None,
            policy: Policy::default(),
            watch: true,
            drain: Duration::from_secs(10),
            rdns: None,
            tls: None,
            limits: Limits::default(),
            rate_limit: None,
            public_url: None,
            mcp_allowed_origins: Vec::new(),
        }
    }
}

/// Why the service could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("cannot load the data: {0}")]
    Data(#[from] GeoError),
    #[error("cannot listen on {0}: {1}")]
    Bind(SocketAddr, std::io::Error),
    #[error("cannot read the TLS certificate or key ({cert}, {key}): {source}")]
    Tls {
        cert: String,
        key: String,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Rdns(#[from] RdnsError),
    #[error(transparent)]
    Watch(#[from] reload::WatchError),
    #[error("server failed: {0}")]
    Io(#[from] std::io::Error),
}

/// Loads the data, then serves until a shutdown signal.
pub async fn serve(config: ServeConfig) -> Result<(), ServeError> {
    let dir = config.data_dir.clone();
    let policy = config.policy.clone();
    let db = tokio::task::spawn_blocking(move || load_database(dir.as_deref(), &policy))
        .await
        .map_err(|e| ServeError::Io(std::io::Error::other(e)))??;
    let listener = TcpListener::bind(config.listen)
        .await
        .map_err(|e| ServeError::Bind(config.listen, e))?;
    run(listener, db, &config).await
}

/// Serves on an already bound listener (tests bind port 0 and read the port).
pub async fn run(listener: TcpListener, db: GeoDb, config: &ServeConfig) -> Result<(), ServeError> {
    web::metrics::handle();
    let rdns = config.rdns.as_ref().map(ReverseDns::new).transpose()?;
    let lookup = Arc::new(Lookup::with_rdns(db, rdns));
    let _watch = match &config.data_dir {
        Some(dir) => Some(reload::spawn(
            dir.clone(),
            config.policy.clone(),
            config.watch,
            lookup.clone(),
        )?),
        None => None,
    };
    let state = AppState {
        lookup,
        proxies: Arc::new(
            TrustedProxies::new(config.trusted_proxies.clone())
                .reading(config.client_ip_header.clone()),
        ),
        tls: config.tls.is_some(),
        limiter: config.rate_limit.map(|l| RateLimiter::new(l, 100_000)),
        public_url: config.public_url.clone(),
        mcp_origins: config.mcp_allowed_origins.clone().into(),
    };
    let app = ServiceExt::<axum::extract::Request>::into_make_service_with_connect_info::<SocketAddr>(
        web::app(state, &config.limits),
    );
    let local = listener.local_addr()?;
    let handle = Handle::new();
    spawn_shutdown(handle.clone(), config.drain);
    let std_listener = listener.into_std()?;
    match &config.tls {
        None => {
            tracing::info!(listen = %local, "serving HTTP");
            let mut server = axum_server::from_tcp(std_listener)?
                .acceptor(ConnectionCap::new(config.limits.max_connections))
                .first_request_timeout(config.limits.header_timeout)
                .handle(handle);
            tune(&mut server, &config.limits);
            server.serve(app).await?;
        }
        Some(files) => {
            let tls = RustlsConfig::from_pem_file(&files.cert, &files.key)
                .await
                .map_err(|source| ServeError::Tls {
                    cert: files.cert.display().to_string(),
                    key: files.key.display().to_string(),
                    source,
                })?;
            spawn_cert_reload(tls.clone(), files.clone());
            tracing::info!(listen = %local, "serving HTTPS (HTTP/1.1 and HTTP/2)");
            let acceptor = RustlsAcceptor::new(tls)
                .handshake_timeout(config.limits.header_timeout)
                .acceptor(ConnectionCap::new(config.limits.max_connections));
            let mut server = axum_server::from_tcp(std_listener)?
                .acceptor(acceptor)
                .first_request_timeout(config.limits.header_timeout)
                .handle(handle);
            tune(&mut server, &config.limits);
            server.serve(app).await?;
        }
    }
    Ok(())
}

/// Header read timeout, header size limits, HTTP/2 keep-alive.
fn tune<A>(server: &mut axum_server::Server<SocketAddr, A>, limits: &Limits) {
    let builder = server.http_builder();
    builder
        .http1()
        .header_read_timeout(limits.header_timeout)
        .max_buf_size(limits.max_header_bytes.max(8192));
    builder
        .http2()
        .max_header_list_size(limits.max_header_bytes as u32)
        .max_concurrent_streams(100)
        .keep_alive_interval(Some(Duration::from_secs(30)))
        .keep_alive_timeout(Duration::from_secs(10));
}

/// On SIGTERM or Ctrl-C: stop accepting, let requests in flight finish within `drain`.
fn spawn_shutdown(handle: Handle<SocketAddr>, drain: Duration) {
    tokio::spawn(async move {
        shutdown_signal().await;
        tracing::info!(?drain, "shutting down: draining requests in flight");
        handle.graceful_shutdown(Some(drain));
    });
}

/// Reloads the certificate when either file changes (checked every 5 seconds).
fn spawn_cert_reload(tls: RustlsConfig, files: TlsFiles) {
    tokio::spawn(async move {
        let stamp = |f: &TlsFiles| -> Option<(SystemTime, SystemTime)> {
            let m = |p: &PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).ok();
            Some((m(&f.cert)?, m(&f.key)?))
        };
        let mut last = stamp(&files);
        loop {
            tokio::time::sleep(Duration::from_secs(5)).await;
            let now = stamp(&files);
            if now.is_some() && now != last {
                match tls.reload_from_pem_file(&files.cert, &files.key).await {
                    Ok(()) => {
                        tracing::info!("TLS certificate reloaded");
                        last = now;
                    }
                    Err(e) => {
                        tracing::error!(error = %e, "new TLS certificate refused; keeping the old one")
                    }
                }
            }
        }
    });
}

/// Resolves on SIGTERM or Ctrl-C.
async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}
