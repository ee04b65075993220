//! How the service is configured: every setting `server::serve` and
//! `server::run` read, gathered in one value the binary builds from the
//! command line (and tests build by hand). Plain data, no behaviour.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use ipnet::IpNet;

use crate::geo::load::Policy;
use crate::rdns::RdnsConfig;
use crate::web::Limits;
use crate::web::serve::client::ClientIpHeader;
use crate::web::serve::origin::{FamilyOrigins, PublicUrl, WebOrigin};
use crate::web::serve::ratelimit::RateLimit;

/// How to run the service.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    pub listen: SocketAddr,
    pub trusted_proxies: Vec<IpNet>,
    /// The one header read from `trusted_proxies` for the caller's address.
    pub client_ip_header: ClientIpHeader,
    pub data_dir: Option<PathBuf>,
    /// The rule data releases are loaded by (start and reload).
    pub policy: Policy,
    /// Watch `data_dir` (and SIGHUP) and reload new releases.
    pub watch: bool,
    /// How long to wait for requests in flight at shutdown.
    pub drain: Duration,
    /// Reverse DNS, or `None` to leave `reverse_dns` null.
    pub rdns: Option<RdnsConfig>,
    /// Serve HTTPS with these files.
    pub tls: Option<TlsFiles>,
    /// Without TLS, also serve HTTP/2 with prior knowledge (h2c), told from
    /// HTTP/1.1 by the client's first bytes; off, clear-text connections
    /// are HTTP/1.1 only. (With TLS both are always served.)
    pub h2c: bool,
    pub limits: Limits,
    /// Per-caller rate limit; `None` (the default) for no limit.
    pub rate_limit: Option<RateLimit>,
    /// The base of every absolute link; `None` (the default) builds them from
    /// each request's `Host`.
    pub public_url: Option<PublicUrl>,
    /// Browser origins `/mcp` accepts besides the public URL's.
    pub mcp_allowed_origins: Vec<WebOrigin>,
    /// Origins of this service over IPv4 only and IPv6 only, for the root
    /// page's "both of your addresses".
    pub families: FamilyOrigins,
    /// Most addresses in one batch (`POST /api/v1/ip`, MCP `lookup_ips`).
    pub batch_limit: usize,
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            trusted_proxies: Vec::new(),
            client_ip_header: ClientIpHeader::default(),
            data_dir: None,
            policy: Policy::default(),
            watch: true,
            drain: Duration::from_secs(10),
            rdns: None,
            tls: None,
            h2c: false,
            limits: Limits::default(),
            rate_limit: None,
            public_url: None,
            mcp_allowed_origins: Vec::new(),
            families: FamilyOrigins::default(),
            batch_limit: crate::web::DEFAULT_BATCH_LIMIT,
        }
    }
}

/// Certificate and key files (PEM) for HTTPS.
#[derive(Debug, Clone)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
}
