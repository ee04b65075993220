//! A release installed as one unit: `iplookup update` writes its files
//! (country, ASN, and a city database when there is one) into a directory
//! of their own, `DATA_DIR/releases/<id>/`, and then points the symbolic
//! link `DATA_DIR/current` at it by one rename. A run killed at any step
//! leaves `current` at the old unit or at the new one, never at a mixed
//! pair (before, country and ASN were two renames: killed between them, the
//! service served a new country file beside an old ASN file; issue 33).
//!
//! The loader reads the unit `current` points at first, then the data
//! directory itself: the flat layout of earlier versions, and files an
//! operator drops in, keep working ([`read_dirs`]); the newest name of each
//! kind still wins.
//!
//! `<id>` is the release's date and a digest of its files' bytes
//! ([`super::release::Release::tag`]): a release is named by its content.

use std::path::{Path, PathBuf};

/// The link to the unit serving, in the data directory.
pub const CURRENT: &str = "current";
/// The folder of the units, in the data directory.
pub const RELEASES: &str = "releases";

/// The directory of the unit `dir/current` points at, resolved once (so a
/// switch while a release is read cannot mix two units), when it is one.
pub fn current(dir: &Path) -> Option<PathBuf> {
    let target = std::fs::canonicalize(dir.join(CURRENT)).ok()?;
    std::fs::metadata(&target)
        .is_ok_and(|m| m.is_dir())
        .then_some(target)
}

/// Where a data directory's release files are read from, in order: the unit
/// `current` points at, then the directory itself (the flat layout).
pub fn read_dirs(dir: &Path) -> Vec<PathBuf> {
    current(dir)
        .into_iter()
        .chain(std::iter::once(dir.to_path_buf()))
        .collect()
}

/// One file of a unit being installed: where it is now and its name in the
/// unit. `link` files are hard-linked (kept where they are: a city database
/// the new unit carries over from the one serving), the others renamed.
#[derive(Debug, Clone)]
pub struct UnitFile {
    pub from: PathBuf,
    pub name: String,
    pub link: bool,
}

/// The steps of [`install`], in order; a kill between any two leaves
/// `current` at one whole unit.
pub const STEPS: [&str; 5] = [
    "create the unit's directory",
    "move the files into it and sync it",
    "make the new link beside `current`",
    "rename the new link over `current` and sync the data directory",
    "remove older units and the flat files the unit replaces",
];

/// Installs `files` as the unit `id` of `dir` and points `current` at it;
/// the unit's directory.
pub fn install(dir: &Path, id: &str, files: &[UnitFile]) -> std::io::Result<PathBuf> {
    install_steps(dir, id, files, STEPS.len())
}

/// The first `steps` steps of [`install`] (all of them in service; fewer
/// for the tests that stop a run between two steps, as a kill would).
pub fn install_steps(
    dir: &Path,
    id: &str,
    files: &[UnitFile],
    steps: usize,
) -> std::io::Result<PathBuf> {
    let releases = dir.join(RELEASES);
    let unit = releases.join(id);
    let serving = current(dir);
    let link = dir.join(format!(".{CURRENT}.{}.tmp", std::process::id()));
    for step in 0..steps.min(STEPS.len()) {
        match step {
            0 => {
                std::fs::create_dir_all(&releases)?;
                // A unit of this id left by a killed run, not serving: again.
                if serving.as_deref() != Some(unit.as_path()) && unit.exists() {
                    std::fs::remove_dir_all(&unit)?;
                }
                std::fs::create_dir_all(&unit)?;
            }
            1 => {
                for f in files {
                    let to = unit.join(&f.name);
                    if to.exists() {
                        // The unit serving already holds it (the same
                        // release again): the download is not needed.
                        if !f.link {
                            std::fs::remove_file(&f.from)?;
                        }
                        continue;
                    }
                    if f.link {
                        std::fs::hard_link(&f.from, &to).or_else(|_| {
                            std::fs::copy(&f.from, &to)?;
                            std::fs::File::open(&to)?.sync_all()
                        })?;
                    } else {
                        std::fs::rename(&f.from, &to)?;
                    }
                }
                sync_dir(&unit)?;
                sync_dir(&releases)?;
            }
            2 => {
                let _ = std::fs::remove_file(&link);
                symlink(&Path::new(RELEASES).join(id), &link)?;
            }
            3 => {
                std::fs::rename(&link, dir.join(CURRENT))?;
                sync_dir(dir)?;
            }
            _ => sweep(dir, id, files),
        }
    }
    Ok(unit)
}

/// After a switch: removes the units other than `id` (older ones, and any
/// a killed run left), stale links of killed runs, and the flat files of
/// the kinds the unit holds whose names are not newer than its own.
fn sweep(dir: &Path, id: &str, files: &[UnitFile]) {
    if let Ok(entries) = std::fs::read_dir(dir.join(RELEASES)) {
        for e in entries.flatten() {
            if e.file_name().to_str() != Some(id) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let stale_link = |n: &str| n.starts_with(&format!(".{CURRENT}.")) && n.ends_with(".tmp");
    for e in entries.flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        let superseded = files.iter().any(|f| {
            let kind = kind_prefix(&f.name);
            !kind.is_empty() && n.starts_with(kind) && n <= f.name
        });
        if (superseded && e.file_type().is_ok_and(|t| t.is_file())) || stale_link(&n) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// The part of a DB-IP file name before its date (`dbip-asn-lite-`).
fn kind_prefix(name: &str) -> &str {
    ["dbip-country-lite-", "dbip-asn-lite-", "dbip-city-lite-"]
        .into_iter()
        .find(|p| name.starts_with(p))
        .unwrap_or("")
}

fn symlink(target: &Path, link: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    return std::os::unix::fs::symlink(target, link);
    #[cfg(not(unix))]
    {
        let _ = (target, link);
        Err(std::io::Error::other("release units need symbolic links"))
    }
}

/// Makes a directory's entries durable.
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    std::fs::File::open(dir)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}
