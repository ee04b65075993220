//! Running the service: loading the data, binding the listener, serving until
//! SIGTERM or Ctrl-C, then draining requests in flight for a bounded time.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use ipnet::IpNet;
use tokio::net::TcpListener;

use crate::geo::{self, GeoDb, GeoError};
use crate::lookup::Lookup;
use crate::web::{self, AppState, client::TrustedProxies};

/// How to run the service.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    pub listen: SocketAddr,
    pub trusted_proxies: Vec<IpNet>,
    pub data_dir: Option<PathBuf>,
    /// Skip unreadable rows and trim overlaps instead of refusing a file.
    pub skip_bad_rows: bool,
    /// How long to wait for requests in flight at shutdown.
    pub drain: Duration,
}

/// Why the service could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("cannot load the data: {0}")]
    Data(#[from] GeoError),
    #[error("cannot listen on {0}: {1}")]
    Bind(SocketAddr, std::io::Error),
    #[error("server failed: {0}")]
    Io(#[from] std::io::Error),
}

/// Loads the database the configuration asks for: the data directory's
/// release if one is given, else the embedded one.
pub fn load_database(
    data_dir: Option<&std::path::Path>,
    skip_bad_rows: bool,
) -> Result<GeoDb, GeoError> {
    let embedded = GeoDb::embedded()?;
    match data_dir {
        Some(dir) => geo::load::load_dir(dir, skip_bad_rows, &embedded),
        None => Ok(embedded),
    }
}

/// Loads the data, then serves until a shutdown signal.
pub async fn serve(config: ServeConfig) -> Result<(), ServeError> {
    let dir = config.data_dir.clone();
    let skip = config.skip_bad_rows;
    let db = tokio::task::spawn_blocking(move || load_database(dir.as_deref(), skip))
        .await
        .map_err(|e| ServeError::Io(std::io::Error::other(e)))??;
    let listener = TcpListener::bind(config.listen)
        .await
        .map_err(|e| ServeError::Bind(config.listen, e))?;
    run(listener, db, &config).await
}

/// Serves on an already bound listener (tests bind port 0 and read the port).
pub async fn run(listener: TcpListener, db: GeoDb, config: &ServeConfig) -> Result<(), ServeError> {
    let state = AppState {
        lookup: Arc::new(Lookup::new(db)),
        proxies: Arc::new(TrustedProxies::new(config.trusted_proxies.clone())),
        tls: false,
    };
    let app = web::router(state).into_make_service_with_connect_info::<SocketAddr>();
    tracing::info!(listen = %listener.local_addr()?, "serving");
    let drain = config.drain;
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            shutdown_signal().await;
            tracing::info!(?drain, "shutting down, draining requests in flight");
            tokio::spawn(async move {
                tokio::time::sleep(drain).await;
                tracing::warn!("drain time over, exiting");
                std::process::exit(0);
            });
        })
        .await?;
    Ok(())
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
