//! Hot reload: watches the data directory (and listens for SIGHUP), loads a
//! new release off the request path and swaps it in whole. A release that does
//! not load is refused and logged; the old data keeps serving.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use notify::{RecursiveMode, Watcher};
use tokio::sync::mpsc;

use crate::lookup::Lookup;
use crate::server::load_database;

/// Keeps the watcher alive; dropping it stops watching.
pub struct ReloadGuard {
    _watcher: Option<notify::RecommendedWatcher>,
}

/// Why watching could not start.
#[derive(Debug, thiserror::Error)]
#[error("cannot watch {dir}: {source}")]
pub struct WatchError {
    dir: String,
    #[source]
    source: notify::Error,
}

/// Listens for SIGHUP and, if `watch`, for changes in `dir`; each burst of
/// changes triggers one reload.
pub fn spawn(
    dir: PathBuf,
    skip_bad_rows: bool,
    watch: bool,
    lookup: Arc<Lookup>,
) -> Result<ReloadGuard, WatchError> {
    let (tx, mut rx) = mpsc::unbounded_channel::<()>();
    let watcher = if watch {
        Some(watch_dir(&dir, tx.clone())?)
    } else {
        None
    };
    spawn_sighup(tx);
    tokio::spawn(async move {
        while rx.recv().await.is_some() {
            // Let a burst of writes (a copy, an atomic rename) settle first.
            tokio::time::sleep(Duration::from_millis(300)).await;
            while rx.try_recv().is_ok() {}
            reload(&dir, skip_bad_rows, &lookup).await;
        }
    });
    Ok(ReloadGuard { _watcher: watcher })
}

fn watch_dir(
    dir: &Path,
    events: mpsc::UnboundedSender<()>,
) -> Result<notify::RecommendedWatcher, WatchError> {
    let fail = |source| WatchError {
        dir: dir.display().to_string(),
        source,
    };
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if event.is_ok_and(|e| !e.kind.is_access()) {
            let _ = events.send(());
        }
    })
    .map_err(fail)?;
    watcher
        .watch(dir, RecursiveMode::NonRecursive)
        .map_err(fail)?;
    Ok(watcher)
}

#[cfg(unix)]
fn spawn_sighup(tx: mpsc::UnboundedSender<()>) {
    use tokio::signal::unix::{SignalKind, signal};
    tokio::spawn(async move {
        let Ok(mut hup) = signal(SignalKind::hangup()) else {
            return;
        };
        while hup.recv().await.is_some() {
            tracing::info!("SIGHUP: reloading data");
            if tx.send(()).is_err() {
                return;
            }
        }
    });
}

#[cfg(not(unix))]
fn spawn_sighup(_tx: mpsc::UnboundedSender<()>) {}

/// How long after a swap the old release's memory is handed back.
const RELEASE_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// Loads the release in `dir` and swaps it in, or logs why it was refused.
pub async fn reload(dir: &Path, skip_bad_rows: bool, lookup: &Lookup) -> bool {
    let path = dir.to_owned();
    let loaded =
        tokio::task::spawn_blocking(move || load_database(Some(&path), skip_bad_rows)).await;
    match loaded {
        Ok(Ok(db)) => {
            let r = db.release();
            tracing::info!(country = %r.country.date, asn = %r.asn.date, country_rows = r.country.rows, asn_rows = r.asn.rows, "data reloaded");
            lookup.replace(db);
            // Requests in flight may still hold the old release for a moment.
            tokio::spawn(async {
                tokio::time::sleep(RELEASE_GRACE).await;
                crate::memory::release_freed();
            });
            metrics::counter!("iplookup_reloads_total", "result" => "ok").increment(1);
            true
        }
        Ok(Err(e)) => {
            tracing::error!(error = %e, "new data refused; keeping the current release");
            metrics::counter!("iplookup_reloads_total", "result" => "refused").increment(1);
            false
        }
        Err(e) => {
            tracing::error!(error = %e, "reload task failed; keeping the current release");
            metrics::counter!("iplookup_reloads_total", "result" => "refused").increment(1);
            false
        }
    }
}
