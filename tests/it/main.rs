//! The main integration-test binary: every test of the service that runs on
//! its own, in one crate that links once (before: one binary per file).
//!
//! The test binaries and why each exists:
//!
//! - `it` (this one): the service over a real loopback socket (wire, TLS,
//!   client addresses, reload, reverse DNS, the binary as a child process)
//!   and, where no socket is needed (headers, negotiation), in-process
//!   through `tower::ServiceExt::oneshot` ([`support::inproc`]). Address a
//!   test as `cargo test --test it MODULE::NAME`, e.g. `formats::q_values`.
//! - `limits` (`tests/limits/main.rs`): the resource limits under attack.
//!   Its tests measure this process's open files and resident memory and run
//!   one at a time; other tests running beside them in the same process
//!   would skew both, so they get a process of their own.
//! - `external` (`tests/external/main.rs`): the slow black-box checks that
//!   drive outside tools (chromium, schemathesis and the MCP SDK in Python,
//!   curl/wget/httpie, hadolint, kubernetes-validate, systemd-analyze, dpkg);
//!   `cargo test --test it` runs everything else without them.
//! - `container` (`tests/container/main.rs`): the image built from the
//!   `Dockerfile` with podman and run, and the Kubernetes manifests played
//!   with `podman kube play`. Its release build inside the image is the
//!   longest step of the suite; cargo runs test binaries one after another,
//!   so in a binary of its own it never competes with the browser and
//!   timing-sensitive tests of `external`.
//!
//! All four share one support module, `tests/support/`.

#[path = "../support/mod.rs"]
mod support;

mod api;
mod asn;
mod batch;
mod cli;
mod client_ip;
mod country;
mod dataset;
mod encoding;
mod enrich;
mod families;
mod fields;
mod formats;
mod fuzz_regressions;
mod hostile;
mod hostile_serving;
mod ifconfig;
mod language;
mod light_pages;
mod links_and_mcp;
mod messages;
mod mmdb;
mod network_pages;
mod operate;
mod output;
mod prefix;
mod rdns;
mod reload;
mod rust_client;
mod search;
mod special;
mod tls;
mod trust;
mod update;
mod zone;
