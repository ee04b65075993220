//! The temporary files of `iplookup update`: each download streams to a
//! hidden `.NAME.PID.N.tmp` in the data directory (a watching service
//! ignores it), locked (`flock`) by its run for as long as it exists.
//!
//! A run removes its files when it fails or is stopped (SIGTERM and
//! SIGINT end the run by dropping them, see the binary's `update`), but a
//! run killed outright (SIGKILL, a crash, a power cut) cannot: a timer whose
//! runs kept timing out left a 321 MB and a 260 MB file behind, and the next
//! successful run kept them. So every run first sweeps the directory of the
//! temporary files no live run holds: the kernel drops a dead process's
//! lock, so a file whose lock can be taken is stale, whatever its PID says
//! (PIDs are reused; locks are not).

use std::fs::File;
use std::path::{Path, PathBuf};

/// A temporary file in the data directory, locked while it lives, removed
/// on drop unless installed.
#[derive(Debug)]
pub(crate) struct TempFile {
    pub path: PathBuf,
    pub file: File,
    pub installed: bool,
}

impl TempFile {
    /// Creates and locks `.NAME.PID.N.tmp`, a name no other run uses
    /// (created exclusively).
    pub(crate) fn create(dir: &Path, name: &str) -> std::io::Result<TempFile> {
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = dir.join(format!(".{name}.{}.{nanos}{n}.tmp", std::process::id()));
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)?;
        // Nobody else has it open yet: the lock is ours at once.
        lock(&file);
        Ok(TempFile {
            path,
            file,
            installed: false,
        })
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.installed {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// The directories a run created for its downloads, outermost first:
/// removed on drop (each only if empty) unless `keep`, so that a failed or
/// stopped run leaves no data directory it did not find.
#[derive(Debug)]
pub(crate) struct CreatedDirs {
    dirs: Vec<PathBuf>,
    pub keep: bool,
}

impl CreatedDirs {
    /// Creates `dir` and the parents it lacks, remembering which.
    pub(crate) fn create(dir: &Path) -> std::io::Result<CreatedDirs> {
        let mut dirs = Vec::new();
        let mut at = Some(dir);
        while let Some(d) = at.filter(|d| !d.as_os_str().is_empty()) {
            if std::fs::symlink_metadata(d).is_ok() {
                break;
            }
            dirs.push(d.to_path_buf());
            at = d.parent();
        }
        dirs.reverse();
        // On an error, whatever part was made goes again (by drop).
        let created = CreatedDirs { dirs, keep: false };
        std::fs::create_dir_all(dir)?;
        Ok(created)
    }
}

impl Drop for CreatedDirs {
    fn drop(&mut self) {
        if !self.keep {
            for d in self.dirs.iter().rev() {
                let _ = std::fs::remove_dir(d);
            }
        }
    }
}

/// Whether `name` is the name of an update's temporary file.
pub(crate) fn is_temp_name(name: &str) -> bool {
    name.starts_with(".dbip-") && name.ends_with(".tmp")
}

/// Removes the temporary files in `dir` that no live run holds; their
/// names and sizes.
pub(crate) fn sweep(dir: &Path) -> Vec<(String, u64)> {
    let mut swept = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return swept;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !is_temp_name(&name) || !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let Ok(file) = File::open(entry.path()) else {
            continue;
        };
        if !try_lock(&file) {
            continue;
        }
        let size = file.metadata().map_or(0, |m| m.len());
        if std::fs::remove_file(entry.path()).is_ok() {
            swept.push((name, size));
        }
    }
    swept
}

/// The data directory itself, locked for one update run (held until the
/// returned file is dropped), or `None` when another run holds it: two runs
/// at once could each switch `current` and prune the other's release. The
/// lock is on the directory, so no file appears in it for the loader.
pub(crate) fn lock_run(dir: &Path) -> std::io::Result<Option<File>> {
    let file = File::open(dir)?;
    Ok(try_lock(&file).then_some(file))
}

/// Takes the exclusive lock of `file`, waiting for it.
fn lock(file: &File) {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: flock takes a descriptor `file` owns for the whole call.
        let _ = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
    }
    #[cfg(not(unix))]
    let _ = file;
}

/// Takes the exclusive lock of `file` if no other open file holds it.
fn try_lock(file: &File) -> bool {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: flock takes a descriptor `file` owns for the whole call.
        unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_files_no_run_holds_are_swept() {
        let dir = std::env::temp_dir().join(format!("iplookup-sweep-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let held = TempFile::create(&dir, "dbip-asn-lite-2030-01.csv.gz").unwrap();
        let stale = dir.join(".dbip-country-lite-2030-01.csv.gz.4194305.1.tmp");
        std::fs::write(&stale, b"left by a killed run").unwrap();
        let other = dir.join(".something-else.tmp");
        std::fs::write(&other, b"not ours").unwrap();
        let swept = sweep(&dir);
        assert_eq!(
            swept,
            vec![(
                ".dbip-country-lite-2030-01.csv.gz.4194305.1.tmp".to_owned(),
                20
            )]
        );
        assert!(held.path.exists(), "a live run's file is kept");
        assert!(other.exists(), "only update's own names");
        drop(held);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
