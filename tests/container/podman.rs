//! podman as the tests drive it: `scripts/podman` (runc, cgroupfs, storage in
//! one cached folder), the image built once per test run by `scripts/image`,
//! waiting for a published port to answer, and removal of what a test started
//! however the test ends. Containers are reached only through ports published
//! on 127.0.0.1 or the host network.

use std::net::SocketAddr;
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::support::wire;

/// The tag every test of this binary runs.
pub const IMAGE: &str = "localhost/iplookup:test";

/// The repository root, where the scripts are.
fn root() -> &'static str {
    env!("CARGO_MANIFEST_DIR")
}

/// `scripts/podman ARGS` with its output, whatever its exit status.
pub fn try_podman(args: &[&str]) -> Output {
    Command::new("bash")
        .arg("scripts/podman")
        .args(args)
        .current_dir(root())
        .output()
        .unwrap_or_else(|e| panic!("cannot run scripts/podman: {e}"))
}

/// `scripts/podman ARGS`: its standard output; panics with everything it
/// printed unless it exits 0.
pub fn podman(args: &[&str]) -> String {
    let out = try_podman(args);
    assert!(
        out.status.success(),
        "podman {args:?} failed ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A container's log: what it wrote to standard output and standard error
/// (`podman logs` passes each through on its own stream).
pub fn logs(name: &str) -> String {
    let out = try_podman(&["logs", name]);
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// [`IMAGE`], built from the repository's Dockerfile by `scripts/image` (base
/// images made first when missing) once per run; later callers wait for it.
pub fn image() -> &'static str {
    static BUILT: OnceLock<()> = OnceLock::new();
    BUILT.get_or_init(|| {
        let started = Instant::now();
        let out = Command::new("bash")
            .args(["scripts/image", IMAGE])
            .current_dir(root())
            .output()
            .unwrap_or_else(|e| panic!("cannot run scripts/image: {e}"));
        let log = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "scripts/image failed ({}):\n{}\n{log}",
            out.status,
            String::from_utf8_lossy(&out.stdout)
        );
        eprintln!(
            "image {IMAGE}: base images and build took {:.0} s",
            started.elapsed().as_secs_f64()
        );
    });
    IMAGE
}

/// Polls `GET /healthz` on a published port until it answers 200; returns
/// the body. Panics after `limit` with `why()` (e.g. the container's logs).
pub fn healthy(addr: SocketAddr, limit: Duration, why: impl Fn() -> String) -> String {
    let started = Instant::now();
    loop {
        if let Some(r) = wire::try_get_blocking(addr, "/healthz", &[])
            && r.status == 200
        {
            return r.body;
        }
        assert!(
            started.elapsed() < limit,
            "no /healthz 200 on {addr} within {limit:?}:\n{}",
            why()
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// Removes a container when the test ends, however it ends.
pub struct Container(pub String);

impl Drop for Container {
    fn drop(&mut self) {
        let _ = try_podman(&["rm", "--force", "--time", "0", &self.0]);
    }
}
