//! Running the service: loading the data, binding the listener, accepting
//! connections (HTTP, or HTTPS with HTTP/2 through rustls) under the
//! connection caps ([`connections`](crate::web::serve::admission::connections)), serving each
//! ([`connection`]), hot reload, and graceful shutdown when the shutdown
//! future resolves. Its configuration is [`ServeConfig`](crate::config::ServeConfig);
//! the binary owns the signals.

mod activity;
pub(crate) mod connection;
mod deadline;
mod header_timer;
pub(crate) mod nofile;
mod service;
mod socket;
mod tls;
mod when_woken;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use crate::config::{ServeConfig, TlsFiles};
use crate::geo::load::load_database;
use crate::geo::{GeoDb, GeoError};
use crate::lookup::Lookup;
use crate::rdns::{RdnsError, ReverseDns};
use crate::reload;
use crate::web::serve::admission::batch::{self, BatchSlots};
use crate::web::serve::admission::connections::{Admission, Admitted};
use crate::web::serve::client::TrustedProxies;
use crate::web::serve::ratelimit::RateLimiter;
use crate::web::{self, AppState, Limits};

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

/// Raises the open-file limit, binds `config.listen`, then [`run`]s until
/// `shutdown` resolves (the binary passes SIGTERM or Ctrl-C).
pub async fn serve(
    mut config: ServeConfig,
    shutdown: impl Future<Output = ()>,
) -> Result<(), ServeError> {
    fit_open_files(&mut config.limits);
    let listener = TcpListener::bind(config.listen)
        .await
        .map_err(|e| ServeError::Bind(config.listen, e))?;
    run(listener, &config, shutdown).await
}

/// The data `config` names: its data directory by the release policy, the
/// embedded release for what the directory lacks ([`load_database`]).
async fn load(config: &ServeConfig) -> Result<GeoDb, ServeError> {
    let dir = config.data_dir.clone();
    let policy = config.policy.clone();
    let db = tokio::task::spawn_blocking(move || load_database(dir.as_deref(), &policy))
        .await
        .map_err(|e| ServeError::Io(std::io::Error::other(e)))??;
    // Loading a data directory frees what it parsed: hand it back now, as a
    // reload does, rather than keep it for the life of the process.
    crate::memory::release_freed();
    Ok(db)
}

/// Raises the open-file limit and lowers `max_connections` (with a warning)
/// to what it can hold.
fn fit_open_files(limits: &mut Limits) {
    let Some(files) = nofile::raise() else {
        return;
    };
    if files.soft > files.was {
        tracing::info!(from = files.was, to = files.soft, "open-file limit raised");
    }
    let room = nofile::connections_within(files.soft);
    if limits.max_connections > room {
        tracing::warn!(
            max_connections = limits.max_connections,
            open_file_limit = files.soft,
            reserved = files.soft - room as u64,
            clamped_to = room,
            "--max-connections is more than the open-file limit can hold: lowered"
        );
        limits.max_connections = room;
    }
}

/// Loads the data `config` names, then serves on an already bound listener
/// (tests bind port 0 and read the port) until `shutdown` resolves; then
/// stops accepting, lets the connections finish their requests for at most
/// `config.drain`, and returns. Connections that arrive while the data loads
/// wait in the listener's backlog.
pub async fn run(
    listener: TcpListener,
    config: &ServeConfig,
    shutdown: impl Future<Output = ()>,
) -> Result<(), ServeError> {
    let db = load(config).await?;
    web::serve::metrics::handle();
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
    let proxies = Arc::new(
        TrustedProxies::new(config.trusted_proxies.clone())
            .reading(config.client_ip_header.clone()),
    );
    let state = AppState {
        lookup,
        proxies: proxies.clone(),
        tls: config.tls.is_some(),
        limiter: config.rate_limit.map(|l| RateLimiter::new(l, 100_000)),
        public_url: config.public_url.clone(),
        mcp_origins: config.mcp_allowed_origins.clone().into(),
        families: Arc::new(config.families.clone()),
        batch_limit: config.batch_limit,
        batch_slots: BatchSlots::new(
            config.limits.batch_max_in_flight,
            config.limits.queue_timeout,
        )
        .with_answer_bytes(config.limits.batch_answer_bytes.unwrap_or_else(|| {
            batch::default_answer_bytes(config.limits.batch_max_in_flight, config.batch_limit)
        })),
    };
    let tls = match &config.tls {
        Some(files) => Some(load_tls(files).await?),
        None => None,
    };
    let local = listener.local_addr()?;
    let limits = &config.limits;
    let server = Arc::new(Server {
        routes: web::router::app(state, limits),
        settings: connection::Settings {
            header_timeout: limits.header_timeout,
            idle_timeout: limits.idle_timeout,
            request_timeout: limits.request_timeout,
            max_header_bytes: limits.max_header_bytes,
            drain: config.drain,
        },
        tls,
        h2c: config.h2c,
    });
    let admission = Admission::new(
        limits.max_connections,
        limits.max_connections_per_ip,
        limits.max_in_flight_per_ip,
        proxies,
    );
    let (stop, stopping) = watch::channel(false);
    match &config.tls {
        None if config.h2c => {
            tracing::info!(listen = %local, "serving HTTP (HTTP/1.1 and h2c, HTTP/2 in clear text)")
        }
        None => tracing::info!(listen = %local, "serving HTTP (HTTP/1.1)"),
        Some(_) => tracing::info!(listen = %local, "serving HTTPS (HTTP/1.1 and HTTP/2)"),
    }
    accept_until(&listener, &admission, &server, &stopping, shutdown).await;
    drop(listener);
    tracing::info!(drain = ?config.drain, "shutting down: draining requests in flight");
    let _ = stop.send(true);
    drop(stopping);
    if tokio::time::timeout(config.drain, stop.closed())
        .await
        .is_err()
    {
        tracing::warn!("drain time over: closing the connections left");
    }
    Ok(())
}

/// What every connection task shares.
struct Server {
    routes: web::hot::Routes,
    settings: connection::Settings,
    tls: Option<tls::Tls>,
    /// Clear-text connections may be HTTP/2 (prior knowledge) too.
    h2c: bool,
}

async fn load_tls(files: &TlsFiles) -> Result<tls::Tls, ServeError> {
    let tls = tls::Tls::load(files)
        .await
        .map_err(|source| ServeError::Tls {
            cert: files.cert.display().to_string(),
            key: files.key.display().to_string(),
            source,
        })?;
    tls.spawn_reload(files.clone());
    Ok(tls)
}

/// Accepts connections until `shutdown` resolves; each admitted one is
/// served on its own task.
async fn accept_until(
    listener: &TcpListener,
    admission: &Admission,
    server: &Arc<Server>,
    stopping: &watch::Receiver<bool>,
    shutdown: impl Future<Output = ()>,
) {
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            biased;
            () = shutdown.as_mut() => return,
            accepted = listener.accept() => accepted,
        };
        match accepted {
            Ok((stream, peer)) => match admission.admit(peer.ip()) {
                Ok(admitted) => {
                    tokio::spawn(handle(
                        stream,
                        peer,
                        admitted,
                        server.clone(),
                        stopping.clone(),
                    ));
                }
                // Dropping the stream closes it.
                Err(refused) => {
                    tracing::debug!(%peer, reason = refused.reason(), "connection refused")
                }
            },
            Err(e) => {
                // Out of descriptors or memory, or a connection reset before
                // it was accepted: wait a little rather than spin.
                tracing::warn!(error = %e, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

/// One connection, from the TLS handshake (if any) to its end.
async fn handle(
    stream: TcpStream,
    peer: SocketAddr,
    admitted: Admitted,
    server: Arc<Server>,
    mut stopping: watch::Receiver<bool>,
) {
    let shares = admitted.shares();
    // A response is written as soon as it is ready, not held back by Nagle.
    if let Err(e) = stream.set_nodelay(true) {
        tracing::debug!(error = %e, "cannot set TCP_NODELAY");
    }
    let settings = &server.settings;
    socket::bound(&stream, settings.request_timeout);
    let routes = server.routes.clone();
    match &server.tls {
        None => {
            connection::serve(
                TokioIo::new(stream),
                peer,
                routes,
                shares,
                settings,
                server.h2c,
                stopping,
            )
            .await
        }
        Some(tls) => {
            let handshake = tokio::time::timeout(settings.header_timeout, tls.accept(stream));
            let stream = tokio::select! {
                done = handshake => match done {
                    Ok(Ok(stream)) => stream,
                    Ok(Err(e)) => return tracing::debug!(%peer, error = %e, "TLS handshake failed"),
                    Err(_) => return tracing::debug!(%peer, "TLS handshake timed out"),
                },
                _ = stopping.wait_for(|stop| *stop) => return,
            };
            connection::serve(
                TokioIo::new(stream),
                peer,
                routes,
                shares,
                settings,
                true,
                stopping,
            )
            .await;
        }
    }
}
