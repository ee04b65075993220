//! `iplookup update`: fetches the current DB-IP Lite release (country and ASN,
//! city on request), checks it, and installs it atomically in the data
//! directory, where a running service picks it up. One run, for cron or a
//! systemd timer; a failed update leaves the installed files untouched.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{Datelike, NaiveDate, Utc};

use crate::geo::{csv, load};

/// DB-IP's free download folder.
pub const DEFAULT_BASE_URL: &str = "https://download.db-ip.com/free/";

/// What to fetch and where to put it.
#[derive(Debug, Clone)]
pub struct UpdateConfig {
    pub data_dir: PathBuf,
    pub base_url: String,
    /// Also fetch the city database (MMDB, about 130 MB).
    pub city: bool,
    /// Refuse a release whose row count is below this share of the installed one.
    pub min_ratio: f64,
    /// Refuse a release whose row count is above this multiple of the installed one.
    pub max_ratio: f64,
    /// The month to try first (the current one by default).
    pub month: Option<NaiveDate>,
}

/// Why an update failed.
#[derive(Debug, thiserror::Error)]
pub enum UpdateError {
    #[error("cannot download {url}: {reason}")]
    Download { url: String, reason: String },
    #[error("{file}: not a valid gzip file: {reason}")]
    Gzip { file: String, reason: String },
    #[error("{0}")]
    Invalid(String),
    #[error(
        "{file}: {rows} rows, outside {min}..{max} (the installed release has {installed}); refusing"
    )]
    RowCount {
        file: String,
        rows: u64,
        installed: u64,
        min: u64,
        max: u64,
    },
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

    fn prefix(self) -> &'static str {
        match self {
            Kind::Country => "dbip-country-lite-",
            Kind::Asn => "dbip-asn-lite-",
            Kind::City => "dbip-city-lite-",
        }
    }
}

/// Runs one update: every kind is downloaded and checked before any is installed.
pub async fn run(config: &UpdateConfig) -> Result<Vec<Installed>, UpdateError> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .user_agent(concat!("iplookup/", env!("CARGO_PKG_VERSION"), " (update)"))
        .connect_timeout(Duration::from_secs(20))
        .timeout(Duration::from_secs(600))
        .build()
        .map_err(|e| UpdateError::Download {
            url: config.base_url.clone(),
            reason: e.to_string(),
        })?;
    std::fs::create_dir_all(&config.data_dir)
        .map_err(|source| io_error(&config.data_dir, source))?;
    let mut kinds = vec![Kind::Country, Kind::Asn];
    if config.city {
        kinds.push(Kind::City);
    }
    let mut staged = Vec::new();
    for kind in kinds {
        let (name, bytes) = fetch(&client, config, kind).await?;
        let rows = check(kind, &name, &bytes)?;
        check_rows(config, kind, &name, rows)?;
        staged.push((kind, name, bytes, rows));
    }
    let mut installed = Vec::new();
    for (kind, name, bytes, rows) in staged {
        install(&config.data_dir, kind, &name, &bytes)?;
        installed.push(Installed { file: name, rows });
    }
    Ok(installed)
}

/// Downloads the current month's file, or the previous month's if it is not out yet.
async fn fetch(
    client: &reqwest::Client,
    config: &UpdateConfig,
    kind: Kind,
) -> Result<(String, Vec<u8>), UpdateError> {
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
            .map_err(|e| fail(e.to_string()))?;
        if response.status() == reqwest::StatusCode::NOT_FOUND {
            last = Some(fail("404 Not Found".into()));
            continue;
        }
        if !response.status().is_success() {
            return Err(fail(format!("HTTP {}", response.status())));
        }
        let bytes = response.bytes().await.map_err(|e| fail(e.to_string()))?;
        return Ok((name, bytes.to_vec()));
    }
    Err(last.unwrap_or_else(|| UpdateError::Invalid("no month to try".into())))
}

/// Decompresses and parses a download; returns its row count.
fn check(kind: Kind, name: &str, bytes: &[u8]) -> Result<u64, UpdateError> {
    let mut plain = Vec::new();
    flate2::read::MultiGzDecoder::new(bytes)
        .read_to_end(&mut plain)
        .map_err(|e| UpdateError::Gzip {
            file: name.to_owned(),
            reason: e.to_string(),
        })?;
    let invalid = |e: &dyn std::fmt::Display| UpdateError::Invalid(e.to_string());
    match kind {
        Kind::Country => Ok(csv::read_country(plain.as_slice(), name, false)
            .map_err(|e| invalid(&e))?
            .stats
            .rows),
        Kind::Asn => Ok(csv::read_asn(plain.as_slice(), name, false)
            .map_err(|e| invalid(&e))?
            .stats
            .rows),
        Kind::City => {
            let reader = maxminddb::Reader::from_source(plain)
                .map_err(|e| invalid(&format!("{name}: {e}")))?;
            Ok(u64::from(reader.metadata().node_count))
        }
    }
}

/// Compares the row count with the installed release of the same kind.
fn check_rows(config: &UpdateConfig, kind: Kind, name: &str, rows: u64) -> Result<(), UpdateError> {
    if kind == Kind::City {
        return Ok(());
    }
    let Some(current) = newest_installed(&config.data_dir, kind) else {
        return Ok(());
    };
    let installed = match kind {
        Kind::Country => load::load_country(&current, true).map(|(_, i)| i.rows),
        _ => load::load_asn(&current, true).map(|(_, i)| i.rows),
    };
    let Ok(installed) = installed else {
        return Ok(());
    };
    let min = (installed as f64 * config.min_ratio) as u64;
    let max = (installed as f64 * config.max_ratio) as u64;
    if rows < min || rows > max {
        return Err(UpdateError::RowCount {
            file: name.to_owned(),
            rows,
            installed,
            min,
            max,
        });
    }
    Ok(())
}

fn newest_installed(dir: &Path, kind: Kind) -> Option<PathBuf> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with(kind.prefix()) && !n.ends_with(".tmp"))
        .collect();
    names.sort();
    names.pop().map(|n| dir.join(n))
}

/// Writes to a temporary name in the same directory, syncs, renames (atomic),
/// then removes older releases of the kind.
fn install(dir: &Path, kind: Kind, name: &str, bytes: &[u8]) -> Result<(), UpdateError> {
    let final_path = dir.join(name);
    let tmp = dir.join(format!(".{name}.tmp"));
    let write = || -> std::io::Result<()> {
        use std::io::Write;
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, &final_path)
    };
    if let Err(source) = write() {
        let _ = std::fs::remove_file(&tmp);
        return Err(io_error(&final_path, source));
    }
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let n = e.file_name().to_string_lossy().into_owned();
            if n.starts_with(kind.prefix()) && n != name && n.as_str() < name {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    Ok(())
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
    fn truncated_gzip_is_refused() {
        let mut gz = Vec::new();
        {
            use std::io::Write;
            let mut e = flate2::write::GzEncoder::new(&mut gz, flate2::Compression::default());
            e.write_all(b"1.0.0.0,1.0.0.255,AU\n").unwrap();
            e.finish().unwrap();
        }
        assert_eq!(check(Kind::Country, "c", &gz).unwrap(), 1);
        let cut = &gz[..gz.len() - 6];
        assert!(matches!(
            check(Kind::Country, "c", cut),
            Err(UpdateError::Gzip { .. })
        ));
    }
}
