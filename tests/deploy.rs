//! The deployment files, checked by the tools their ecosystems use (no
//! container engine or cluster here): hadolint on the `Dockerfile`, and
//! kubernetes-validate in strict mode (every resource against the Kubernetes
//! schemas, unknown fields refused) on `deploy/kubernetes/`. Both come from
//! tests/requirements.txt, installed into .venv/ by scripts/test. The systemd
//! units of `deploy/systemd/` pass `systemd-analyze verify` and its security score.

mod common;
mod fixtures;

use std::path::{Path, PathBuf};
use std::process::Command;

use fixtures::data::TempDir;

/// A tool installed beside the test Python ([`common::test_python`]).
fn venv_tool(name: &str) -> PathBuf {
    let tool = common::test_python().with_file_name(name);
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
    // One "passed" line per resource: the Deployment, Service, autoscaler,
    // volume claim and update CronJob.
    for kind in [
        "deployment/",
        "service/",
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
    assert!(ok && text.trim().is_empty(), "systemd-analyze verify:\n{text}");
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
