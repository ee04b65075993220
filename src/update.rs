//! `iplookup update`: fetches the current DB-IP Lite release (country and ASN,
//! city on request), checks it by the same rule as a reload (see
//! [`Policy`]: defects repaired and counted, too many refused, row counts
//! within the window of what a service on the directory serves now, size
//! caps), and installs it in the data directory as one unit (a directory
//! `releases/<id>` switched to by renaming the link `current`: see
//! [`crate::geo::unit`]), where a running service picks it up. One run, for
//! cron or a systemd timer; a failed update leaves the installed files
//! untouched. It reports the release that serves after it ([`Outcome`]).
//!
//! Each download streams to a unique temporary file in the data directory
//! (hidden, so a watching service ignores it; locked by its run, removed
//! when the run fails or is stopped, and swept by the next run when a
//! killed one left it: [`temp`]), following redirects only to the mirror's
//! own scheme, host and port unless told otherwise, capped at
//! `max_download_bytes`; its gzip stream is checked whole (CRC and length)
//! without decompressing past the policy's cap; installing is renames into
//! the unit, an fsync, one rename of `current` and an fsync of the directory.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{Datelike, NaiveDate, Utc};

use crate::geo::load::{self, Policy, Table};
use crate::geo::unit::{self, UnitFile};
use crate::geo::{Release, SourceInfo};

mod temp;

use temp::TempFile;

/// DB-IP's free download folder.
pub const DEFAULT_BASE_URL: &str = "https://download.db-ip.com/free/";
/// The default cap on one download: 512 MiB (DB-IP's city MMDB is about 130 MB).
pub const MAX_DOWNLOAD_BYTES: u64 = 512 << 20;

/// What to fetch and where to put it.
#[derive(Debug, Clone)]
pub struct UpdateConfig {
    pub data_dir: PathBuf,
    pub base_url: String,
    /// Also fetch the city database (MMDB, about 130 MB).
    pub city: bool,
    /// The rule every file must pass (the same as a reload's).
    pub policy: Policy,
    /// The most one download may weigh.
    pub max_download_bytes: u64,
    /// The month to try first (the current one by default).
    pub month: Option<NaiveDate>,
    /// Longest wait for any bytes from the mirror (the answer's head, or
    /// the next part of a download); then the update fails.
    pub stall_timeout: Duration,
    /// Follow redirects to other schemes, hosts and ports than the mirror's
    /// (by default such a redirect fails the update).
    pub any_redirect: bool,
}

/// The default of [`UpdateConfig::stall_timeout`].
pub const DEFAULT_STALL_TIMEOUT: Duration = Duration::from_secs(30);
/// The longest a whole download may take.
pub const DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(600);

/// Why an update failed.
#[derive(Debug, thiserror::Error)]
pub enum UpdateError {
    #[error("cannot download {url}: {reason}")]
    Download { url: String, reason: String },
    #[error("{file}: not a valid gzip file: {reason}")]
    Gzip { file: String, reason: String },
    #[error("{file}: {what} is larger than the {limit}-byte cap; refusing")]
    TooLarge {
        file: String,
        what: &'static str,
        limit: u64,
    },
    #[error("{0}")]
    Invalid(String),
    #[error("another `iplookup update` is running on {path}; try again when it ends")]
    Busy { path: String },
    #[error("cannot write to {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// One file that was installed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    pub file: String,
    pub rows: u64,
}

/// The kinds of DB-IP Lite files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Country,
    Asn,
    City,
}

impl Kind {
    fn name(self, month: NaiveDate) -> String {
        let ym = month.format("%Y-%m");
        match self {
            Kind::Country => format!("dbip-country-lite-{ym}.csv.gz"),
            Kind::Asn => format!("dbip-asn-lite-{ym}.csv.gz"),
            Kind::City => format!("dbip-city-lite-{ym}.mmdb.gz"),
        }
    }

    fn table(self) -> Table {
        match self {
            Kind::Country => Table::Country,
            Kind::Asn => Table::Asn,
            Kind::City => Table::City,
        }
    }
}

/// Runs one update: every kind is downloaded and checked before any is installed.
pub async fn run(config: &UpdateConfig) -> Result<Outcome, UpdateError> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .user_agent(concat!("iplookup/", env!("CARGO_PKG_VERSION"), " (update)"))
        .connect_timeout(Duration::from_secs(20))
        .read_timeout(config.stall_timeout)
        .timeout(DOWNLOAD_TIMEOUT)
        .redirect(redirects(config.any_redirect))
        .build()
        .map_err(|e| UpdateError::Download {
            url: config.base_url.clone(),
            reason: e.to_string(),
        })?;
    // Removed again (with any parent it needed) if the run fails: a failed
    // update leaves the file system as it found it.
    let mut created = temp::CreatedDirs::create(&config.data_dir)
        .map_err(|source| io_error(&config.data_dir, source))?;
    // One run at a time per data directory, before anything is swept.
    let _run = temp::lock_run(&config.data_dir)
        .map_err(|source| io_error(&config.data_dir, source))?
        .ok_or_else(|| UpdateError::Busy {
            path: config.data_dir.display().to_string(),
        })?;
    for (name, bytes) in temp::sweep(&config.data_dir) {
        tracing::info!(file = %name, bytes, "removed a temporary file a stopped update left");
    }
    // The reference for row counts: the newest installed release that loads
    // (its own size is not judged again), else the embedded data.
    let reference = Policy {
        row_ratio: None,
        min_coverage: None,
        ..config.policy.clone()
    };
    let serving = load::load_database(Some(&config.data_dir), &reference)
        .map_err(|e| UpdateError::Invalid(format!("cannot read the installed release: {e}")))?;
    let mut kinds = vec![Kind::Country, Kind::Asn];
    if config.city {
        kinds.push(Kind::City);
    }
    let serving = std::sync::Arc::new(serving);
    let mut staged = Vec::new();
    for kind in kinds {
        let (name, tmp) = fetch(&client, config, kind).await?;
        // Checked on a blocking thread, so that a signal that stops the run
        // is heard (and the temporary files removed) while it reads.
        let (path, file, checking) = (tmp.path.clone(), name.clone(), config.clone());
        let serving = serving.clone();
        let info =
            tokio::task::spawn_blocking(move || check(kind, &file, &path, &checking, &serving))
                .await
                .map_err(|e| UpdateError::Invalid(format!("the check of {name} failed: {e}")))??;
        staged.push((kind, name, tmp, info));
    }
    created.keep = true;
    let unit = install(&config.data_dir, &mut staged)?;
    let installed = staged
        .iter()
        .map(|(_, name, _, info)| Installed {
            file: name.clone(),
            rows: info.rows,
        })
        .collect();
    // What a service on the directory serves now (the same choice as its
    // reload: the newest name of each kind that loads).
    let serving = load::load_database(Some(&config.data_dir), &reference)
        .map_err(|e| UpdateError::Invalid(format!("cannot read the installed release: {e}")))?;
    Ok(Outcome {
        installed,
        unit,
        serving: serving.release().clone(),
    })
}

/// What one update did: the files it installed, the unit that holds them
/// (`releases/<id>`, named by the release's date and the digest of its
/// files), and the release a service on the data directory serves now.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub installed: Vec<Installed>,
    pub unit: String,
    pub serving: Release,
}

impl Outcome {
    /// The installed files that do not serve: another file of the kind, in
    /// the data directory, is newer (an operator's, or a newer month).
    pub fn not_serving(&self) -> Vec<(&Installed, &SourceInfo)> {
        let s = &self.serving;
        self.installed
            .iter()
            .filter_map(|i| {
                let tables = [Some(&s.country), Some(&s.asn), s.city.as_ref()];
                let kind = table_of(&i.file)?;
                let serving = tables
                    .into_iter()
                    .flatten()
                    .find(|t| table_of(&t.file) == Some(kind))?;
                (serving.file != i.file).then_some((i, serving))
            })
            .collect()
    }
}

/// The table a file of this name holds, when it is a release file.
fn table_of(name: &str) -> Option<Table> {
    [Table::Country, Table::Asn, Table::City]
        .into_iter()
        .find(|t| t.holds(name))
}

/// Installs the checked downloads as one unit (see [`unit`]): a directory
/// `releases/<id>` holding them, and a city database the unit serving holds
/// when this run fetched none, then `current` switched to it by one rename.
/// Returns the unit's id.
fn install(
    dir: &Path,
    staged: &mut [(Kind, String, TempFile, SourceInfo)],
) -> Result<String, UpdateError> {
    let info = |k| staged.iter().find(|s| s.0 == k).map(|s| s.3.clone());
    let release = Release {
        country: info(Kind::Country).unwrap_or_default(),
        asn: info(Kind::Asn).unwrap_or_default(),
        city: info(Kind::City),
        refused: Vec::new(),
    };
    let id = release.tag();
    let mut files: Vec<UnitFile> = staged
        .iter()
        .map(|(_, name, tmp, _)| UnitFile {
            from: tmp.path.clone(),
            name: name.clone(),
            link: false,
        })
        .collect();
    if let Some(current) = unit::current(dir) {
        let kinds: Vec<Table> = staged.iter().map(|s| s.0.table()).collect();
        for e in std::fs::read_dir(&current).into_iter().flatten().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if table_of(&name).is_some_and(|t| !kinds.contains(&t)) {
                files.push(UnitFile {
                    from: e.path(),
                    name,
                    link: true,
                });
            }
        }
    }
    let unit = unit::install(dir, &id, &files).map_err(|source| io_error(dir, source))?;
    for (_, _, tmp, _) in staged.iter_mut() {
        tmp.installed = true;
    }
    tracing::debug!(unit = %unit.display(), "release unit installed");
    Ok(id)
}

/// The most redirects one download follows.
pub const MAX_REDIRECTS: usize = 10;

/// Which redirects a download follows: at most [`MAX_REDIRECTS`], each to
/// the scheme, host and port of the URL asked first, unless `anywhere`
/// (`--any-redirect`). A mirror, or whoever sits in its path, must not send
/// the update to another host, port or scheme (a service inside the
/// network, an `http://` downgrade) without the operator's word.
fn redirects(anywhere: bool) -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(move |attempt| {
        if attempt.previous().len() > MAX_REDIRECTS {
            return attempt.error(format!("more than {MAX_REDIRECTS} redirects"));
        }
        let Some(first) = attempt.previous().first() else {
            return attempt.follow();
        };
        let origin = |u: &reqwest::Url| {
            (
                u.scheme().to_owned(),
                u.host_str().map(str::to_ascii_lowercase),
                u.port_or_known_default(),
            )
        };
        if anywhere || origin(first) == origin(attempt.url()) {
            return attempt.follow();
        }
        let to = attempt.url().to_string();
        attempt.error(format!(
            "redirected to {to}, another scheme, host or port than the mirror's; \
             refused (--any-redirect follows it)"
        ))
    })
}

/// Downloads the current month's file, or the previous month's if it is not
/// out yet, into a temporary file in the data directory.
async fn fetch(
    client: &reqwest::Client,
    config: &UpdateConfig,
    kind: Kind,
) -> Result<(String, TempFile), UpdateError> {
    let this = config.month.unwrap_or_else(|| Utc::now().date_naive());
    let this = NaiveDate::from_ymd_opt(this.year(), this.month(), 1).unwrap_or(this);
    let previous = this
        .checked_sub_months(chrono::Months::new(1))
        .unwrap_or(this);
    let mut last = None;
    for month in [this, previous] {
        let name = kind.name(month);
        let url = format!("{}/{}", config.base_url.trim_end_matches('/'), name);
        let fail = |reason: String| UpdateError::Download {
            url: url.clone(),
            reason,
        };
        let response = client
            .get(&url)
            .send()
            .await
            .map_err(|e| fail(with_causes(&e)))?;
        if response.status() == reqwest::StatusCode::NOT_FOUND {
            last = Some(fail("404 Not Found".into()));
            continue;
        }
        if !response.status().is_success() {
            return Err(fail(format!("HTTP {}", response.status())));
        }
        let tmp = download(response, config, &name)
            .await
            .map_err(|e| match e {
                UpdateError::Download { reason, .. } => fail(reason),
                other => other,
            })?;
        return Ok((name, tmp));
    }
    Err(last.unwrap_or_else(|| UpdateError::Invalid("no month to try".into())))
}

/// Streams a response body to a temporary file, refusing more than the cap.
async fn download(
    mut response: reqwest::Response,
    config: &UpdateConfig,
    name: &str,
) -> Result<TempFile, UpdateError> {
    let limit = config.max_download_bytes;
    let too_large = || UpdateError::TooLarge {
        file: name.to_owned(),
        what: "the download",
        limit,
    };
    if response.content_length().is_some_and(|n| n > limit) {
        return Err(too_large());
    }
    let mut tmp = TempFile::create(&config.data_dir, name)
        .map_err(|source| io_error(&config.data_dir.join(format!(".{name}.tmp")), source))?;
    let mut total = 0u64;
    loop {
        let chunk = response.chunk().await.map_err(|e| UpdateError::Download {
            url: name.to_owned(),
            reason: e.to_string(),
        })?;
        let Some(chunk) = chunk else { break };
        total += chunk.len() as u64;
        if total > limit {
            return Err(too_large());
        }
        tmp.file
            .write_all(&chunk)
            .map_err(|source| io_error(&tmp.path, source))?;
    }
    tmp.file
        .sync_all()
        .map_err(|source| io_error(&tmp.path, source))?;
    Ok(tmp)
}

/// Checks a download: its gzip stream whole, within the decompressed cap,
/// then its contents by the policy, against what `serving` serves. Returns
/// its row count.
fn check(
    kind: Kind,
    name: &str,
    path: &Path,
    config: &UpdateConfig,
    serving: &crate::GeoDb,
) -> Result<SourceInfo, UpdateError> {
    check_gzip(name, path, config.policy.max_unpacked_bytes)?;
    load::check_file(kind.table(), path, name, &config.policy, serving)
        .map_err(|e| UpdateError::Invalid(e.to_string()))
}

/// Reads the whole gzip stream (every member's CRC and length are checked)
/// without keeping it, refusing one that decompresses past `limit`.
fn check_gzip(name: &str, path: &Path, limit: u64) -> Result<(), UpdateError> {
    let file = std::fs::File::open(path).map_err(|source| io_error(path, source))?;
    let mut plain =
        flate2::read::MultiGzDecoder::new(std::io::BufReader::new(file)).take(limit + 1);
    let n = std::io::copy(&mut plain, &mut std::io::sink()).map_err(|e| UpdateError::Gzip {
        file: name.to_owned(),
        reason: e.to_string(),
    })?;
    if n > limit {
        return Err(UpdateError::TooLarge {
            file: name.to_owned(),
            what: "the decompressed file",
            limit,
        });
    }
    Ok(())
}

/// An error and its causes, as one line (reqwest's own words stop at "error
/// following redirect", the reason is a cause).
fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let more = c.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        cause = c.source();
    }
    text
}

fn io_error(path: &Path, source: std::io::Error) -> UpdateError {
    UpdateError::Io {
        path: path.display().to_string(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_follow_db_ip() {
        let m = NaiveDate::from_ymd_opt(2026, 11, 1).unwrap();
        assert_eq!(Kind::Country.name(m), "dbip-country-lite-2026-11.csv.gz");
        assert_eq!(Kind::Asn.name(m), "dbip-asn-lite-2026-11.csv.gz");
        assert_eq!(Kind::City.name(m), "dbip-city-lite-2026-11.mmdb.gz");
    }

    #[test]
    fn truncated_and_oversized_gzip_are_refused() {
        let dir = std::env::temp_dir().join(format!("iplookup-gz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut gz = Vec::new();
        {
            let mut e = flate2::write::GzEncoder::new(&mut gz, flate2::Compression::default());
            e.write_all(&[b'x'; 4096]).unwrap();
            e.finish().unwrap();
        }
        let path = dir.join("c.gz");
        std::fs::write(&path, &gz).unwrap();
        assert!(check_gzip("c", &path, 4096).is_ok());
        assert!(matches!(
            check_gzip("c", &path, 4095),
            Err(UpdateError::TooLarge { limit: 4095, .. })
        ));
        std::fs::write(&path, &gz[..gz.len() - 6]).unwrap();
        assert!(matches!(
            check_gzip("c", &path, 4096),
            Err(UpdateError::Gzip { .. })
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
