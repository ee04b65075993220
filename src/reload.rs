//! Hot reload: watches the data directory (and listens for SIGHUP), loads a
//! new release off the request path by the rule of [`Policy`] and swaps it in
//! whole. A file that fails the rule is refused, logged and listed on
//! `/healthz`; the table keeps serving what it served. A file still being
//! written is not loaded: it is tried again when it changes (and a moment
//! later, in case no change is reported).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use notify::{RecursiveMode, Watcher};
use tokio::sync::mpsc;

use crate::geo::load::{Policy, reload_database};
use crate::lookup::Lookup;

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
    policy: Policy,
    watch: bool,
    lookup: Arc<Lookup>,
) -> Result<ReloadGuard, WatchError> {
    let (tx, mut rx) = mpsc::unbounded_channel::<()>();
    let watcher = if watch {
        Some(watch_dir(&dir, tx.clone())?)
    } else {
        None
    };
    spawn_sighup(tx.clone());
    tokio::spawn(async move {
        let mut retries = 0;
        while rx.recv().await.is_some() {
            // Let a burst of writes (a copy, an atomic rename) settle first.
            tokio::time::sleep(Duration::from_millis(300)).await;
            while rx.try_recv().is_ok() {}
            reload(&dir, &policy, &lookup).await;
            let pending = lookup.db().release().refused.iter().any(|r| r.incomplete);
            retries = if pending { retries + 1 } else { 0 };
            if pending && watch && retries <= PENDING_RETRIES {
                let tx = tx.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(PENDING_RETRY).await;
                    let _ = tx.send(());
                });
            }
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

/// How soon a file that was still being written is tried again, and how
/// many times in a row without a change reported (each change tries again).
const PENDING_RETRY: Duration = Duration::from_secs(2);
const PENDING_RETRIES: u32 = 5;

/// How long after a swap the old release's memory is handed back.
const RELEASE_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// Loads the release in `dir` and swaps it in (tables whose files are
/// unchanged or refused keep serving); returns whether every file passed.
/// Counted in `iplookup_reloads_total` by result: `ok`, `refused` (a file
/// failed the rule) or `pending` (a file is still being written).
pub async fn reload(dir: &Path, policy: &Policy, lookup: &Lookup) -> bool {
    let (path, policy, serving) = (dir.to_owned(), policy.clone(), lookup.db());
    let loaded =
        tokio::task::spawn_blocking(move || reload_database(&path, &policy, &serving)).await;
    let db = match loaded {
        Ok(Ok(db)) => db,
        Ok(Err(e)) => {
            tracing::error!(error = %e, "reload failed; keeping the current release");
            metrics::counter!("iplookup_reloads_total", "result" => "refused").increment(1);
            return false;
        }
        Err(e) => {
            tracing::error!(error = %e, "reload task failed; keeping the current release");
            metrics::counter!("iplookup_reloads_total", "result" => "refused").increment(1);
            return false;
        }
    };
    let r = db.release();
    let result = if r.refused.iter().any(|f| !f.incomplete) {
        "refused"
    } else if r.refused.is_empty() {
        "ok"
    } else {
        "pending"
    };
    tracing::info!(country = %r.country.date, asn = %r.asn.date, country_rows = r.country.rows, asn_rows = r.asn.rows, refused = r.refused.len(), "data reloaded");
    lookup.replace(db);
    // Requests in flight may still hold the old release for a moment.
    tokio::spawn(async {
        tokio::time::sleep(RELEASE_GRACE).await;
        crate::memory::release_freed();
    });
    metrics::counter!("iplookup_reloads_total", "result" => result).increment(1);
    result == "ok"
}
