//! What every handler and layer of [`super`] can reach ([`AppState`]), and
//! the limits that protect the service from slow or oversized requests
//! ([`Limits`]). Children of `web` import these from here, never from their
//! parent.

use std::sync::Arc;
use std::time::Duration;

use super::admission::batch::BatchSlots;
use super::client::TrustedProxies;
use super::origin::{FamilyOrigins, PublicUrl, WebOrigin};
use super::ratelimit::RateLimiter;
use crate::lookup::Lookup;

/// What every handler can reach.
#[derive(Debug, Clone)]
pub struct AppState {
    pub lookup: Arc<Lookup>,
    pub proxies: Arc<TrustedProxies>,
    /// Whether this server terminates TLS itself (for absolute links).
    pub tls: bool,
    /// The per-caller rate limit, if enabled.
    pub limiter: Option<RateLimiter>,
    /// `--public-url`: the base of every absolute link; `None` builds them
    /// from the request (see [`super::base::BaseUrl`]).
    pub public_url: Option<PublicUrl>,
    /// `--mcp-allowed-origin`: browser origins `/mcp` accepts besides the
    /// public URL's (see [`crate::web::mcp`]).
    pub mcp_origins: Arc<[WebOrigin]>,
    /// `--ipv4-url`, `--ipv6-url`: the root page shows both of a visitor's
    /// addresses (see [`super::origin::FamilyOrigins`]).
    pub families: Arc<FamilyOrigins>,
    /// `--batch-limit`: most addresses in one batch (see [`crate::web::batch`]).
    pub batch_limit: usize,
    /// `--batch-max-in-flight`: batch answers built or unsent at once (see
    /// [`crate::web::slots`]).
    pub batch_slots: BatchSlots,
}

/// Limits that protect the service from slow or oversized requests.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Time allowed to send the request headers (slowloris), and again for
    /// the body once the headers are in.
    pub header_timeout: Duration,
    /// Time allowed for a whole request.
    pub request_timeout: Duration,
    /// Largest request head accepted, in bytes.
    pub max_header_bytes: usize,
    /// Longest path and query accepted, in bytes.
    pub max_uri_bytes: usize,
    /// Requests handled at once; more wait their turn.
    pub max_in_flight: usize,
    /// Requests handled or waiting at once from one address (IPv6: one /64;
    /// trusted proxies exempt); more get 503 at once. `/healthz` and
    /// `/metrics` are not counted.
    pub max_in_flight_per_ip: usize,
    /// Longest wait for a turn (and for a batch slot); then 503 with `Retry-After`.
    pub queue_timeout: Duration,
    /// Batch answers built or waiting to be sent at once (see [`crate::web::slots`]).
    pub batch_max_in_flight: usize,
    /// Bytes batch and MCP answers may hold at once, a quarter of them per
    /// client (see [`crate::web::slots`]); `None`: `batch_max_in_flight` answers
    /// of `--batch-limit` entries of [`super::admission::batch::ENTRY_BYTES`].
    pub batch_answer_bytes: Option<usize>,
    /// Connections open at once; more are closed on arrival.
    pub max_connections: usize,
    /// Connections open at once from one address (IPv6: one /64); more are
    /// closed on arrival. Trusted proxies only count against `max_connections`.
    pub max_connections_per_ip: usize,
    /// A connection with no request for this long is closed (HTTP/2: `GOAWAY`).
    pub idle_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            header_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(10),
            max_header_bytes: 16 * 1024,
            max_uri_bytes: 4096,
            max_in_flight: 1024,
            max_in_flight_per_ip: 128,
            queue_timeout: Duration::from_secs(1),
            batch_max_in_flight: super::admission::batch::DEFAULT_BATCH_MAX_IN_FLIGHT,
            batch_answer_bytes: None,
            max_connections: 10_000,
            max_connections_per_ip: 256,
            idle_timeout: Duration::from_secs(60),
        }
    }
}
