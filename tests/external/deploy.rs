//! The deployment files, checked by the tools their ecosystems use: hadolint
//! on the `Dockerfile`, and kubernetes-validate in strict mode (every resource
//! against the Kubernetes schemas, unknown fields refused) on
//! `deploy/kubernetes/`, which also covers the kinds `podman kube play` cannot
//! run (Service, NetworkPolicy, HorizontalPodAutoscaler, the CronJob's
//! schedule). Both come from tests/requirements.txt, installed into .venv/ by
//! scripts/test. The systemd units of `deploy/systemd/` pass `systemd-analyze
//! verify` and its security score; the Debian package is built with cargo-deb
//! and installed with dpkg into a scratch root. The image itself is built and
//! run, and the manifests played, by the `container` test binary
//! (`tests/container/`).

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::data::TempDir;

/// A tool installed beside the test Python ([`support::test_python`]).
fn venv_tool(name: &str) -> PathBuf {
    let tool = support::test_python().with_file_name(name);
    assert!(
        tool.exists(),
        "{} not found: run scripts/test (it installs tests/requirements.txt into .venv/)",
        tool.display()
    );
    tool
}

/// Runs a tool in the repository root; panics with its output unless it exits 0.
fn run(tool: &str, args: &[&str]) -> String {
    let out = Command::new(venv_tool(tool))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap_or_else(|e| panic!("cannot run {tool}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "{tool} {args:?} failed ({}):\n{text}",
        out.status
    );
    text
}

#[test]
fn dockerfile_passes_hadolint() {
    // Every rule, infos included.
    run("hadolint", &["--failure-threshold", "info", "Dockerfile"]);
}

#[test]
fn kubernetes_manifests_pass_the_schemas_in_strict_mode() {
    let manifests: Vec<String> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/kubernetes"))
            .expect("deploy/kubernetes")
            .map(|e| e.expect("directory entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
            .map(|p| p.display().to_string())
            .collect();
    assert!(!manifests.is_empty(), "no manifest in deploy/kubernetes");
    let mut args = vec!["--strict"];
    args.extend(manifests.iter().map(String::as_str));
    let text = run("kubernetes-validate", &args);
    // One "passed" line per resource: the Deployment, Service, network policy,
    // autoscaler, volume claim and update CronJob.
    for kind in [
        "deployment/",
        "service/",
        "networkpolicy/",
        "horizontalpodautoscaler/",
        "persistentvolumeclaim/",
        "cronjob/",
    ] {
        assert!(
            text.lines()
                .any(|l| l.contains("passed") && l.contains(kind)),
            "no {kind} resource validated:\n{text}"
        );
    }
}

/// The systemd units of `deploy/systemd/`, with `/usr/bin/iplookup` replaced by
/// the binary under test, in a fresh directory.
fn units_with_this_binary() -> (TempDir, Vec<String>) {
    let dir = TempDir::new("units");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/systemd");
    let mut units = Vec::new();
    for name in [
        "iplookup.service",
        "iplookup-update.service",
        "iplookup-update.timer",
    ] {
        let text = std::fs::read_to_string(source.join(name)).expect("unit file");
        let text = text.replace("/usr/bin/iplookup", env!("CARGO_BIN_EXE_iplookup"));
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write unit");
        units.push(path.display().to_string());
    }
    (dir, units)
}

/// Runs systemd-analyze; returns its exit status and everything it printed.
fn systemd_analyze(args: &[&str]) -> (bool, String) {
    let out = Command::new("systemd-analyze")
        .args(args)
        .output()
        .expect("systemd-analyze runs (Debian package systemd)");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn systemd_units_pass_verify_without_a_warning() {
    let (_dir, units) = units_with_this_binary();
    let mut args = vec!["verify", "--man=no"];
    args.extend(units.iter().map(String::as_str));
    let (ok, text) = systemd_analyze(&args);
    assert!(
        ok && text.trim().is_empty(),
        "systemd-analyze verify:\n{text}"
    );
}

#[test]
fn systemd_units_are_hardened() {
    let (_dir, units) = units_with_this_binary();
    // systemd's exposure score, 0 (locked down) to 10 (unprotected): at most 2.0.
    for unit in &units[..2] {
        let (ok, text) =
            systemd_analyze(&["security", "--offline=yes", "--threshold=20", unit.as_str()]);
        assert!(ok, "{unit} is exposed above 2.0:\n{text}");
    }
    let service = std::fs::read_to_string(&units[0]).unwrap();
    for line in [
        "DynamicUser=yes",
        "ProtectSystem=strict",
        "StateDirectory=iplookup",
        "Environment=IPLOOKUP_DATA_DIR=/var/lib/iplookup",
        "EnvironmentFile=-/etc/default/iplookup",
    ] {
        assert!(service.lines().any(|l| l == line), "{line} missing");
    }
    // No capability unless the operator binds below 1024 (a commented drop-in).
    assert!(service.lines().any(|l| l == "AmbientCapabilities="));
}

/// Runs a command in the repository root; panics with its output unless it exits 0.
fn sh(program: &str, args: &[&str], env: &[(&str, &str)]) -> String {
    let out = Command::new(program)
        .args(args)
        .envs(env.iter().copied())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{program} {args:?} failed:\n{text}");
    text
}

/// A root directory dpkg can install into: an empty package database and a
/// static shell (busybox) for the maintainer scripts, which dpkg runs chrooted.
fn scratch_root() -> TempDir {
    let root = TempDir::new("debroot");
    for dir in ["var/lib/dpkg/info", "var/lib/dpkg/updates", "bin", "tmp"] {
        std::fs::create_dir_all(root.path().join(dir)).unwrap();
    }
    std::fs::write(root.path().join("var/lib/dpkg/status"), "").unwrap();
    let busybox = Path::new("/bin/busybox");
    assert!(
        busybox.exists(),
        "/bin/busybox missing: scripts/test installs busybox-static"
    );
    std::fs::copy(busybox, root.path().join("bin/sh")).unwrap();
    root
}

#[test]
fn the_debian_package_installs_with_dpkg_and_its_binary_runs() {
    // The debug binary cargo test built, packaged by cargo-deb.
    sh(
        "bash",
        &["scripts/deb", "--fast"],
        &[("PROFILE", "dev"), ("NO_BUILD", "1")],
    );
    let version = env!("CARGO_PKG_VERSION");
    let deb = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/debian")
        .join(format!("iplookup_{version}-1_amd64.deb"));
    let deb = deb.to_str().unwrap();
    let contents = sh("dpkg-deb", &["--contents", deb], &[]);
    for path in [
        "./usr/bin/iplookup",
        "./usr/lib/systemd/system/iplookup.service",
        "./usr/lib/systemd/system/iplookup-update.service",
        "./usr/lib/systemd/system/iplookup-update.timer",
        "./etc/default/iplookup",
        "./usr/share/man/man1/iplookup.1.gz",
        "./usr/share/man/man1/iplookup-serve.1.gz",
        "./usr/share/bash-completion/completions/iplookup",
        "./usr/share/zsh/vendor-completions/_iplookup",
        "./usr/share/fish/vendor_completions.d/iplookup.fish",
        "./usr/share/doc/iplookup/copyright",
        "./usr/share/doc/iplookup/data/LICENSE-DBIP-country.txt",
        "./usr/share/doc/iplookup/data/LICENSE-DBIP-asn.txt",
    ] {
        assert!(
            contents.lines().any(|l| l.ends_with(path)),
            "{path} not in the package:\n{contents}"
        );
    }
    let conffiles = sh("dpkg-deb", &["--info", deb, "conffiles"], &[]);
    assert!(conffiles.contains("/etc/default/iplookup"), "{conffiles}");
    let postinst = sh("dpkg-deb", &["--info", deb, "postinst"], &[]);
    assert!(postinst.contains("iplookup-update.timer"), "{postinst}");

    // Installed by dpkg into a scratch root (its maintainer scripts run there).
    let root = scratch_root();
    let root_arg = format!("--root={}", root.path().display());
    sh(
        "dpkg",
        &[&root_arg, "--force-depends", "--force-not-root", "-i", deb],
        &[],
    );
    let status = sh("dpkg", &[&root_arg, "--status", "iplookup"], &[]);
    assert!(status.contains("Status: install ok installed"), "{status}");
    let bin = root.path().join("usr/bin/iplookup");
    let bin = bin.to_str().unwrap();
    assert!(sh(bin, &["--version"], &[]).contains("embedded data"));
    let answer = sh(bin, &["lookup", "8.8.8.8"], &[]);
    let answer: serde_json::Value = serde_json::from_str(answer.trim()).unwrap();
    assert_eq!(answer["ip"], "8.8.8.8");
    assert_eq!(answer["network"]["asn"], 15169);
    // The installed units verify against the installed binary.
    let units: Vec<String> = [
        "iplookup.service",
        "iplookup-update.service",
        "iplookup-update.timer",
    ]
    .iter()
    .map(|u| {
        let text = std::fs::read_to_string(root.path().join("usr/lib/systemd/system").join(u))
            .unwrap()
            .replace("/usr/bin/iplookup", bin);
        let path = root.path().join("tmp").join(u);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    })
    .collect();
    let mut args = vec!["verify", "--man=no"];
    args.extend(units.iter().map(String::as_str));
    let (ok, text) = systemd_analyze(&args);
    assert!(ok && text.trim().is_empty(), "{text}");
}
