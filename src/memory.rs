//! Handing freed memory back to the operating system after a reload.
//!
//! A reload frees a whole release (tens of MiB of tables and names). With
//! glibc's malloc that memory is not always returned: the first free of a
//! large mmapped block raises glibc's dynamic mmap threshold, so the next
//! release's tables come from the heap, and freed heap pages stay with the
//! process. The service then grows by a release per reload (measured: +38 MiB
//! for the first one; BENCHMARKS.md, "Soak"). Two calls fix it on glibc:
//! [`pin_mmap_threshold`] at start keeps large tables in their own mappings
//! (returned whole when freed), and [`release_freed`] after a release is
//! dropped trims what smaller allocations left behind. Elsewhere both do nothing.

/// Large allocations (tables) get their own mapping at and above this size.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: libc::c_int = 128 * 1024;

/// Keeps glibc from raising its mmap threshold, so freed tables go back to the
/// system at once. Call once, before the data is loaded.
pub fn pin_mmap_threshold() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes a tuning parameter of the allocator; it
    // takes plain integers and is safe to call at any time from any thread.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
    }
}

/// Returns free heap pages to the system (after a release has been dropped).
pub fn release_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases memory malloc holds unused; it takes
    // a plain integer (bytes to keep at the top of the heap) and locks the
    // allocator's arenas itself.
    unsafe {
        libc::malloc_trim(0);
    }
}
