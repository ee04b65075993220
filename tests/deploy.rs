//! The deployment files, checked by the tools their ecosystems use (no
//! container engine or cluster here): hadolint on the `Dockerfile`, and
//! kubernetes-validate in strict mode (every resource against the Kubernetes
//! schemas, unknown fields refused) on `deploy/kubernetes/`. Both come from
//! tests/requirements.txt, installed into .venv/ by scripts/test.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

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
