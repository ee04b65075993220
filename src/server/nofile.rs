//! The open-file limit (`RLIMIT_NOFILE`): raised at start from the soft limit
//! to the hard one, and the connection cap fitted under it. Every connection
//! is a descriptor; the rest of the process needs some too (the listener,
//! data files, the directory watcher, reverse DNS sockets, logs), so
//! [`RESERVED`] of them are kept out of the connection cap.

/// Descriptors kept for everything but connections (half the limit if it is small).
pub(crate) const RESERVED: u64 = 512;

/// The limit after [`raise`]: soft (in force) and hard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OpenFiles {
    pub soft: u64,
    pub hard: u64,
    /// The soft limit before it was raised.
    pub was: u64,
}

/// Raises the soft limit to the hard one (at most 1,048,576 when the hard
/// limit is unlimited). `None` where the limit cannot be read (not Linux with
/// glibc); an error to raise it leaves it as it was.
pub(crate) fn raise() -> Option<OpenFiles> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes one plain struct we own.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
            return None;
        }
        let was = limit.rlim_cur;
        let target = if limit.rlim_max == libc::RLIM_INFINITY {
            1 << 20
        } else {
            limit.rlim_max
        };
        if target > was {
            let raised = libc::rlimit {
                rlim_cur: target,
                rlim_max: limit.rlim_max,
            };
            // SAFETY: setrlimit reads one plain struct we own.
            if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
                limit.rlim_cur = target;
            }
        }
        Some(OpenFiles {
            soft: limit.rlim_cur,
            hard: limit.rlim_max,
            was,
        })
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    None
}

/// The most connections a soft limit of `limit` descriptors can hold.
pub(crate) fn connections_within(limit: u64) -> usize {
    let reserved = RESERVED.min(limit / 2);
    usize::try_from(limit - reserved)
        .unwrap_or(usize::MAX)
        .max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_are_kept_for_the_rest_of_the_process() {
        assert_eq!(connections_within(1_048_576), 1_048_576 - 512);
        assert_eq!(connections_within(1024), 512);
        assert_eq!(connections_within(256), 128);
        assert_eq!(connections_within(0), 1);
    }

    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn raising_brings_the_soft_limit_up_to_the_hard_one() {
        // This process's own limit: raising it is harmless for the tests.
        let files = raise().expect("the limit is readable on Linux");
        assert!(files.soft >= files.was, "{files:?}");
        assert!(
            files.soft == files.hard || files.hard == libc::RLIM_INFINITY,
            "{files:?}"
        );
    }
}
