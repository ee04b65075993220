//! The image from the repository's `Dockerfile`, run as an operator would:
//! `podman run --read-only -p 127.0.0.1:PORT:8080`. It answers `/healthz` and
//! a lookup over the published port, runs as uid 65532 on a read-only root
//! filesystem (read from the kernel's view of the process), ships the manual
//! pages and completions, stops on SIGTERM with exit 0 within its drain time,
//! and its size is reported layer by layer with the binary's sections.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::podman::{Container, IMAGE, healthy, image, logs, podman};
use crate::support::proc::free_port;
use crate::support::wire;

/// The drain time the container is started with (IPLOOKUP_DRAIN_SECONDS).
const DRAIN: Duration = Duration::from_secs(5);

/// The host's view of a running container's main process.
fn host_pid(name: &str) -> u32 {
    podman(&["inspect", "--format", "{{.State.Pid}}", name])
        .trim()
        .parse()
        .expect("container pid")
}

/// The real and effective user ids of a process, from /proc/PID/status.
fn uids(pid: u32) -> Vec<String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    let line = status
        .lines()
        .find(|l| l.starts_with("Uid:"))
        .expect("Uid line");
    line.split_whitespace().skip(1).map(str::to_owned).collect()
}

/// The mount options of `/` as the process sees it, from /proc/PID/mountinfo.
fn root_mount_options(pid: u32) -> String {
    let info = std::fs::read_to_string(format!("/proc/{pid}/mountinfo")).expect("mountinfo");
    let fields: Vec<&str> = info
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .rfind(|f| f.get(4) == Some(&"/"))
        .expect("a mount on /");
    fields[5].to_owned()
}

/// Starts the image read-only with a published loopback port; waits for
/// `/healthz` 200.
fn run_read_only(name: &str) -> (Container, std::net::SocketAddr) {
    let addr = free_port();
    let publish = format!("127.0.0.1:{}:8080", addr.port());
    let drain = format!("IPLOOKUP_DRAIN_SECONDS={}", DRAIN.as_secs());
    let container = Container(name.to_owned());
    podman(&[
        "run",
        "--detach",
        "--read-only",
        "--name",
        name,
        "--publish",
        &publish,
        "--env",
        &drain,
        image(),
    ]);
    let health = healthy(addr, Duration::from_secs(60), || logs(name));
    assert!(health.contains("\"country\""), "{health}");
    (container, addr)
}

#[test]
fn the_image_runs_read_only_as_nonroot_and_stops_cleanly_on_sigterm() {
    let name = format!("iplookup-image-test-{}", std::process::id());
    let (container, addr) = run_read_only(&name);

    let r = wire::get_blocking(addr, "/api/v1/ip/8.8.8.8", &[]);
    assert_eq!(r.status, 200, "{}", r.body);
    let answer = r.json();
    assert_eq!(answer["ip"], "8.8.8.8");
    assert_eq!(answer["network"]["asn"], 15169, "{answer}");

    // As the kernel sees the process: uid 65532, root filesystem mounted ro.
    let pid = host_pid(&name);
    assert_eq!(uids(pid)[..2], ["65532", "65532"], "real and effective uid");
    let options = root_mount_options(pid);
    assert!(
        options.split(',').any(|o| o == "ro"),
        "root filesystem mounted {options}"
    );

    // SIGTERM: the service stops accepting, drains (nothing in flight) and exits 0
    // well within its drain time, without running out of it.
    let stop = Instant::now();
    podman(&["kill", "--signal", "TERM", &name]);
    let code = podman(&["wait", &name]);
    let waited = stop.elapsed();
    let logs = logs(&name);
    assert_eq!(code.trim(), "0", "exit code; logs:\n{logs}");
    assert!(waited < DRAIN, "stopped after {waited:?}:\n{logs}");
    assert!(logs.contains("shutting down"), "{logs}");
    assert!(!logs.contains("drain time over"), "{logs}");
    eprintln!("SIGTERM to exit 0: {waited:?} (drain time {DRAIN:?})");
    drop(container);
}

/// A layer's size in bytes and the instruction that made it, newest first.
fn layers() -> Vec<(u64, String)> {
    let history: Vec<Value> =
        serde_json::from_str(&podman(&["history", "--format", "json", IMAGE]))
            .expect("podman history as JSON");
    history
        .iter()
        .map(|layer| {
            let size = layer["size"].as_u64().expect("layer size");
            // "/bin/sh -c #(nop) COPY file:HASH in /usr/local/bin/iplookup " -> "COPY /usr/local/bin/iplookup"
            let by = layer["CreatedBy"].as_str().unwrap_or_default();
            let words: Vec<&str> = by
                .trim_start_matches("/bin/sh -c #(nop) ")
                .split_whitespace()
                .collect();
            let by = match words[..] {
                [op @ ("COPY" | "ADD"), .., "in", dest] => format!("{op} {dest}"),
                _ => words.join(" "),
            };
            (size, by)
        })
        .collect()
}

/// The sizes of the binary's larger ELF sections (`size -A`), largest first.
fn sections(binary: &Path) -> Vec<(String, u64)> {
    let out = std::process::Command::new("size")
        .arg("-A")
        .arg(binary)
        .output()
        .expect("size (binutils) runs");
    assert!(out.status.success(), "size -A {}", binary.display());
    let mut found: Vec<(String, u64)> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let name = f.next()?;
            let size = f.next()?.parse().ok()?;
            name.starts_with('.').then(|| (name.to_owned(), size))
        })
        .filter(|(_, size)| *size >= 1 << 20)
        .collect();
    found.sort_by_key(|(_, size)| std::cmp::Reverse(*size));
    found
}

/// Mounts the image's filesystem read-only on the host; unmounts on drop.
struct Mounted(std::path::PathBuf);

impl Mounted {
    fn new() -> Mounted {
        Mounted(podman(&["image", "mount", IMAGE]).trim().into())
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = crate::podman::try_podman(&["image", "unmount", IMAGE]);
    }
}

#[test]
fn the_image_is_the_binary_on_a_small_runtime_and_ships_the_manual_and_completions() {
    image();
    let total: u64 = podman(&["image", "inspect", "--format", "{{.Size}}", IMAGE])
        .trim()
        .parse()
        .expect("image size");
    let layers = layers();
    let mounted = Mounted::new();
    let binary = mounted.0.join("usr/local/bin/iplookup");
    let binary_size = std::fs::metadata(&binary).expect("the binary").len();
    let sections = sections(&binary);

    eprintln!("image {IMAGE}: {:.1} MB", total as f64 / 1e6);
    for (size, by) in layers.iter().filter(|(size, _)| *size > 0) {
        eprintln!("  layer {:>6.1} MB  {by}", *size as f64 / 1e6);
    }
    eprintln!("  binary (stripped) {:.1} MB:", binary_size as f64 / 1e6);
    for (name, size) in &sections {
        eprintln!("    {name:<14} {:>6.1} MB", *size as f64 / 1e6);
    }

    // What takes the space: the binary's layer is the largest; everything else
    // (the distroless-like runtime, manual, completions) is small beside it.
    let (largest, by) = layers.iter().max_by_key(|(size, _)| *size).expect("layers");
    assert!(by.contains("iplookup"), "largest layer: {by}");
    assert!(*largest >= binary_size, "{largest} < {binary_size}");
    assert!(
        total - largest < 40_000_000,
        "the rest of the image is {} bytes",
        total - largest
    );
    // Far above this means a build tree or toolchain leaked into the runtime stage.
    assert!(total < 150_000_000, "image is {total} bytes");

    for path in [
        "usr/local/share/man/man1/iplookup.1.gz",
        "usr/local/share/man/man1/iplookup-serve.1.gz",
        "usr/local/share/bash-completion/completions/iplookup",
        "usr/local/share/zsh/site-functions/_iplookup",
        "usr/local/share/fish/vendor_completions.d/iplookup.fish",
    ] {
        let meta = std::fs::metadata(mounted.0.join(path))
            .unwrap_or_else(|e| panic!("{path} not in the image: {e}"));
        assert!(meta.len() > 0, "{path} is empty");
    }
    // No shell and no package manager in the runtime stage.
    for absent in ["bin/sh", "usr/bin/apt-get", "usr/bin/dpkg", "usr/bin/cargo"] {
        assert!(!mounted.0.join(absent).exists(), "{absent} in the image");
    }
}
