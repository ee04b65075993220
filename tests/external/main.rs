//! The black-box test binary: checks that drive outside tools against the
//! real server or the real binary (chromium for the pages, schemathesis and
//! the MCP SDK in Python for the OpenAPI document and `/mcp`, curl, wget and
//! httpie as clients, systemd-analyze and dpkg for the deployment files).
//! They are the slow ones and need the tools `scripts/test` installs (and
//! `IPLOOKUP_TEST_PYTHON`), so they live apart from `tests/it`; see
//! `tests/it/main.rs` for the list of test binaries. Address a test as
//! `cargo test --test external MODULE::NAME`.

#[path = "../support/mod.rs"]
mod support;

mod api_in_browser;
mod browser;
mod clients;
mod deploy;
mod discovery;
mod docs;
mod lighthouse;
mod shared_cache;
