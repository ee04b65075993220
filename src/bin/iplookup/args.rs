//! The command line: every subcommand and flag, with its environment twin,
//! default and range check (clap derive). Parsing only; `serve.rs` and the
//! one-shot commands turn these into work.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use ipnet::IpNet;

use iplookup::fields::Field;
use iplookup::web::serve::client::ClientIpHeader;

use crate::bounds;

/// `--version`: the crate version and the releases of the data compiled into the binary.
const LONG_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "\nembedded data: ",
    env!("IPLOOKUP_EMBEDDED_DATA")
);

/// Self-hosted IP address lookup: country, ASN, operator and range for any
/// IPv4 or IPv6 address, from an embedded DB-IP Lite snapshot (CC BY 4.0).
///
/// With no subcommand, `iplookup` serves HTTP (same as `iplookup serve`).
#[derive(Debug, Parser)]
#[command(version, long_version = LONG_VERSION, args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub serve: ServeArgs,
}

// Parsed once at start: the size of the largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the HTTP API and pages (the default).
    Serve(Box<ServeArgs>),
    /// Look addresses up and print the API's JSON, one object per line.
    ///
    /// With no ADDR, reads one address per line from standard input.
    Lookup(LookupArgs),
    /// Download the current DB-IP Lite release into --data-dir, check it and
    /// install it atomically (a running service reloads it). Exits non-zero,
    /// leaving the installed files alone, when anything is wrong.
    Update(UpdateArgs),
    /// Print a completion script for SHELL to standard output, e.g.
    /// `iplookup completions bash > /usr/share/bash-completion/completions/iplookup`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) to standard output, or with --out-dir write
    /// iplookup.1 and one page per subcommand (iplookup-serve.1, ...) there.
    Man {
        /// Directory to write the pages into.
        #[arg(long, value_name = "DIR")]
        out_dir: Option<PathBuf>,
    },
}

#[derive(Debug, Args)]
pub struct UpdateArgs {
    /// Directory to install the release into (the service's --data-dir).
    #[arg(long, env = "IPLOOKUP_DATA_DIR", value_name = "DIR")]
    pub data_dir: PathBuf,
    /// Where the files are downloaded from (DB-IP file names are appended).
    #[arg(long, env = "IPLOOKUP_UPDATE_BASE_URL", default_value = iplookup::update::DEFAULT_BASE_URL, value_name = "URL")]
    pub base_url: String,
    /// Also fetch the IP to City Lite database (MMDB, about 130 MB).
    #[arg(long)]
    pub city: bool,
    /// Month to fetch (YYYY-MM); default: the current month, falling back to the previous one.
    #[arg(long, value_name = "YYYY-MM")]
    pub month: Option<String>,
    /// The most one download may weigh, in MiB (1-65536); a larger one is refused.
    #[arg(
        long,
        env = "IPLOOKUP_MAX_DOWNLOAD_MIB",
        default_value_t = 512,
        value_parser = clap::value_parser!(u64).range(1..=65536),
        value_name = "MIB"
    )]
    pub max_download_mib: u64,
    /// Seconds to wait for any bytes from the mirror (an answer, or the next
    /// part of a download) before the update fails (1-3600); a whole download
    /// may take at most 600 s.
    #[arg(
        long,
        env = "IPLOOKUP_UPDATE_STALL_TIMEOUT",
        default_value = "30",
        value_parser = bounds::seconds(1..=3600),
        value_name = "SECONDS"
    )]
    pub stall_timeout: Duration,
    /// Follow redirects to another scheme, host or port than --base-url's
    /// (by default such a redirect fails the update, nothing installed).
    #[arg(long, env = "IPLOOKUP_UPDATE_ANY_REDIRECT")]
    pub any_redirect: bool,
    #[command(flatten)]
    pub policy: PolicyArgs,
}

#[derive(Debug, Args)]
pub struct DataArgs {
    /// Directory holding newer DB-IP files (dbip-country-lite-YYYY-MM.csv[.gz],
    /// dbip-asn-lite-YYYY-MM.csv[.gz]) to use instead of the embedded data.
    /// A kind of file the directory lacks comes from the embedded data.
    #[arg(long, env = "IPLOOKUP_DATA_DIR", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    #[command(flatten)]
    pub policy: PolicyArgs,
}

/// The data release rule (docs/DATA.md: "Data releases: what is repaired, what is refused").
#[derive(Debug, Args)]
pub struct PolicyArgs {
    /// Accept a release whatever its share of defective rows (they are still
    /// repaired and counted). By default a file with more than 0.1% defective
    /// rows (and more than 10) is refused.
    #[arg(long, env = "IPLOOKUP_SKIP_BAD_ROWS")]
    pub skip_bad_rows: bool,
    /// Refuse a release whose row count is outside MIN..MAX times the one it
    /// would replace (at start: the embedded data), or which covers less than
    /// half the address space (per family) of the one it would replace (a
    /// first city file: of the country table serving); "any" turns both
    /// checks off.
    #[arg(
        long,
        env = "IPLOOKUP_RELEASE_ROW_RATIO",
        default_value = "0.8..1.5",
        value_parser = row_ratio,
        value_name = "MIN..MAX"
    )]
    pub release_row_ratio: RowRatio,
    /// The most a data file may hold once decompressed (CSV or MMDB), in MiB (1-65536).
    #[arg(
        long,
        env = "IPLOOKUP_MAX_DATA_FILE_MIB",
        default_value_t = 1024,
        value_parser = clap::value_parser!(u64).range(1..=65536),
        value_name = "MIB"
    )]
    pub max_data_file_mib: u64,
    /// The most networks (CSV rows, MMDB networks) a country or ASN file may
    /// hold; a city file may hold five times as many. A file over it is refused
    /// before its tables are built.
    #[arg(
        long,
        env = "IPLOOKUP_MAX_DATA_NETWORKS",
        default_value_t = iplookup::geo::policy::MAX_NETWORKS,
        value_parser = clap::value_parser!(u64).range(1..=1_000_000_000),
        value_name = "N"
    )]
    pub max_data_networks: u64,
}

/// A `--release-row-ratio` value (`None`: any).
#[derive(Debug, Clone, Copy)]
pub struct RowRatio(pub Option<(f64, f64)>);

fn row_ratio(text: &str) -> Result<RowRatio, String> {
    iplookup::geo::policy::parse_row_ratio(text).map(RowRatio)
}

impl PolicyArgs {
    pub fn policy(&self) -> iplookup::geo::policy::Policy {
        iplookup::geo::policy::Policy {
            max_defect_share: (!self.skip_bad_rows)
                .then_some(iplookup::geo::policy::MAX_DEFECT_SHARE),
            row_ratio: self.release_row_ratio.0,
            max_unpacked_bytes: self.max_data_file_mib << 20,
            max_networks: self.max_data_networks,
            min_coverage: self
                .release_row_ratio
                .0
                .map(|_| iplookup::geo::policy::MIN_COVERAGE),
            ..Default::default()
        }
    }
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address and port to listen on.
    #[arg(
        long,
        env = "IPLOOKUP_LISTEN",
        default_value = "127.0.0.1:8080",
        value_name = "ADDR:PORT"
    )]
    pub listen: SocketAddr,
    /// CIDR block of a reverse proxy whose --client-ip-header is believed
    /// (repeatable; comma-separated in the environment variable). Name only
    /// the proxy's own addresses. Headers from other peers are ignored.
    #[arg(
        long = "trusted-proxy",
        env = "IPLOOKUP_TRUSTED_PROXIES",
        value_delimiter = ',',
        value_name = "CIDR"
    )]
    pub trusted_proxies: Vec<IpNet>,
    /// The one header the trusted proxies write the caller's address into:
    /// x-forwarded-for, forwarded (RFC 7239), x-real-ip, or any header that
    /// carries one address (cf-connecting-ip, true-client-ip, fly-client-ip).
    /// Every other forwarding header is ignored.
    #[arg(
        long,
        env = "IPLOOKUP_CLIENT_IP_HEADER",
        default_value = "x-forwarded-for",
        value_name = "NAME"
    )]
    pub client_ip_header: ClientIpHeader,
    /// Seconds to let requests in flight finish after SIGTERM or Ctrl-C (0..=3600).
    #[arg(
        long,
        env = "IPLOOKUP_DRAIN_SECONDS",
        default_value = "10",
        value_parser = bounds::seconds(0..=3600),
        value_name = "SECONDS"
    )]
    pub drain_seconds: Duration,
    /// Log format.
    #[arg(long, env = "IPLOOKUP_LOG_FORMAT", default_value = "text", value_parser = ["text", "json"])]
    pub log_format: String,
    /// Do not watch --data-dir for new releases (SIGHUP still reloads).
    #[arg(long, env = "IPLOOKUP_NO_WATCH")]
    pub no_watch: bool,
    /// Without TLS, also serve HTTP/2 with prior knowledge (h2c), for a proxy
    /// that speaks it to its upstreams; without this flag, clear-text
    /// connections are HTTP/1.1 only (HTTPS always serves both).
    #[arg(long, env = "IPLOOKUP_H2C")]
    pub h2c: bool,
    /// Leave network.reverse_dns null instead of asking DNS for PTR records.
    #[arg(long, env = "IPLOOKUP_NO_REVERSE_DNS")]
    pub no_reverse_dns: bool,
    /// DNS server for reverse lookups (IP:PORT, UDP and TCP); default: the system's resolvers.
    #[arg(long, env = "IPLOOKUP_DNS_SERVER", value_name = "IP:PORT")]
    pub dns_server: Option<SocketAddr>,
    /// How long a request waits for a PTR answer before answering null (the
    /// answer is still cached when it arrives), 1..=60000.
    #[arg(
        long,
        env = "IPLOOKUP_RDNS_TIMEOUT_MS",
        default_value = "250",
        value_parser = bounds::millis(1..=60_000),
        value_name = "MS"
    )]
    pub rdns_timeout_ms: Duration,
    /// Reverse DNS answers kept in memory (1..=10000000).
    #[arg(
        long,
        env = "IPLOOKUP_RDNS_CACHE_SIZE",
        default_value = "100000",
        value_parser = bounds::count::<u64>(1..=10_000_000),
        value_name = "ENTRIES"
    )]
    pub rdns_cache_size: u64,
    /// PTR lookups in flight at once (1..=65536); when all are taken,
    /// network.reverse_dns is null at once and nothing is cached.
    #[arg(
        long,
        env = "IPLOOKUP_RDNS_MAX_IN_FLIGHT",
        default_value_t = iplookup::rdns::DEFAULT_MAX_IN_FLIGHT as u32,
        value_parser = clap::value_parser!(u32).range(1..=65_536),
        value_name = "N"
    )]
    pub rdns_max_in_flight: u32,
    /// PEM certificate chain: serve HTTPS (HTTP/1.1 and HTTP/2) instead of HTTP.
    /// Reloaded when the file changes.
    #[arg(
        long,
        env = "IPLOOKUP_TLS_CERT",
        value_name = "FILE",
        requires = "tls_key"
    )]
    pub tls_cert: Option<PathBuf>,
    /// PEM private key for --tls-cert.
    #[arg(
        long,
        env = "IPLOOKUP_TLS_KEY",
        value_name = "FILE",
        requires = "tls_cert"
    )]
    pub tls_key: Option<PathBuf>,
    /// Seconds a client may take to send the request headers (1..=3600).
    #[arg(
        long,
        env = "IPLOOKUP_HEADER_TIMEOUT",
        default_value = "10",
        value_parser = bounds::seconds(1..=3600),
        value_name = "SECONDS"
    )]
    pub header_timeout: Duration,
    /// Seconds a request may take in all (1..=3600).
    #[arg(
        long,
        env = "IPLOOKUP_REQUEST_TIMEOUT",
        default_value = "10",
        value_parser = bounds::seconds(1..=3600),
        value_name = "SECONDS"
    )]
    pub request_timeout: Duration,
    /// Per-caller limit in requests per second, above 0 and at most 1000000
    /// (callers as resolved through trusted proxies; IPv6 callers by /64).
    /// Off when not given.
    #[arg(
        long,
        env = "IPLOOKUP_RATE_LIMIT",
        value_parser = bounds::per_second(1_000_000.0),
        value_name = "PER_SECOND"
    )]
    pub rate_limit: Option<f64>,
    /// Requests a caller may send at once before --rate-limit applies (1..=1000000).
    #[arg(
        long,
        env = "IPLOOKUP_RATE_BURST",
        default_value = "20",
        value_parser = bounds::count::<u32>(1..=1_000_000),
        value_name = "N"
    )]
    pub rate_burst: u32,
    /// Addresses one batch may hold (POST /api/v1/ip, MCP lookup_ips;
    /// 1..=100000); more get 413. The body may hold 64 bytes per address
    /// plus 4096.
    #[arg(
        long,
        env = "IPLOOKUP_BATCH_LIMIT",
        default_value = "1000",
        value_parser = bounds::count::<usize>(iplookup::web::batch::BATCH_LIMIT_RANGE),
        value_name = "N"
    )]
    pub batch_limit: usize,
    /// Batch answers (POST /api/v1/ip) built or not yet sent at once
    /// (1..=10000); a batch waits up to --queue-timeout for one, then gets 503.
    /// Memory held by batch answers stays below this times the largest answer
    /// (about 0.3 MB per 1,000 addresses).
    #[arg(
        long,
        env = "IPLOOKUP_BATCH_MAX_IN_FLIGHT",
        default_value_t = iplookup::web::serve::admission::batch::DEFAULT_BATCH_MAX_IN_FLIGHT,
        value_parser = bounds::count::<usize>(iplookup::web::serve::admission::batch::BATCH_MAX_IN_FLIGHT_RANGE),
        value_name = "N"
    )]
    pub batch_max_in_flight: usize,
    /// MiB that batch and MCP lookup_ips answers may hold at once, built or
    /// not yet sent (1..=1048576); one client's answers hold at most a
    /// quarter. An answer is charged as it grows, whatever the data makes of
    /// an entry: one over the client's share is refused (413), one over what
    /// is left 503. Default: --batch-max-in-flight x --batch-limit x 4 KiB
    /// (64 MiB), room for every slot's answer with real data (about 0.5 KB an
    /// entry as JSON, 3 KB as an MCP result).
    #[arg(
        long,
        env = "IPLOOKUP_BATCH_ANSWER_MIB",
        value_parser = bounds::count::<u64>(iplookup::web::serve::admission::batch::BATCH_ANSWER_MIB_RANGE),
        value_name = "MIB"
    )]
    pub batch_answer_mib: Option<u64>,
    /// Connections open at once; further connections are closed on arrival (1..=1000000).
    #[arg(
        long,
        env = "IPLOOKUP_MAX_CONNECTIONS",
        default_value = "10000",
        value_parser = bounds::count::<usize>(1..=1_000_000),
        value_name = "N"
    )]
    pub max_connections: usize,
    /// Connections open at once from one client address (IPv6: per /64;
    /// trusted proxies are exempt); further connections are closed on arrival.
    #[arg(
        long,
        env = "IPLOOKUP_MAX_CONNECTIONS_PER_IP",
        default_value = "256",
        value_parser = bounds::count::<usize>(1..=1_000_000),
        value_name = "N"
    )]
    pub max_connections_per_ip: usize,
    /// Seconds a connection may stay open with no request (HTTP/1.1
    /// keep-alive and HTTP/2 alike; PINGs do not count), then it is closed.
    #[arg(
        long,
        env = "IPLOOKUP_IDLE_TIMEOUT",
        default_value = "60",
        value_parser = bounds::seconds(1..=86_400),
        value_name = "SECONDS"
    )]
    pub idle_timeout: Duration,
    /// Requests in flight at once from one client address (IPv6: per /64;
    /// trusted proxies exempt; /healthz and /metrics not counted); more get
    /// 503 at once (1..=1000000).
    #[arg(
        long,
        env = "IPLOOKUP_MAX_IN_FLIGHT_PER_IP",
        default_value = "128",
        value_parser = bounds::count::<usize>(1..=1_000_000),
        value_name = "N"
    )]
    pub max_in_flight_per_ip: usize,
    /// Requests handled at once; further requests wait up to --queue-timeout (1..=1000000).
    #[arg(
        long,
        env = "IPLOOKUP_MAX_IN_FLIGHT",
        default_value = "1024",
        value_parser = bounds::count::<usize>(1..=1_000_000),
        value_name = "N"
    )]
    pub max_in_flight: usize,
    /// Seconds a request waits for one of the --max-in-flight slots before it
    /// gets 503 with Retry-After (fractions allowed, e.g. 0.25; from 0.001 to
    /// 60). /healthz and /metrics never wait.
    #[arg(
        long,
        env = "IPLOOKUP_QUEUE_TIMEOUT",
        default_value_t = 1.0,
        value_name = "SECONDS",
        value_parser = parse_queue_timeout
    )]
    pub queue_timeout: f64,
    /// The URL callers reach the service at (scheme://host[:port], no path):
    /// the base of every absolute link in the description documents, whatever
    /// a request's Host says, and an origin /mcp accepts. Default: built from
    /// each request's Host (those documents then send Vary: Host and
    /// Cache-Control: private).
    #[arg(long, env = "IPLOOKUP_PUBLIC_URL", value_name = "URL")]
    pub public_url: Option<String>,
    /// A browser origin (scheme://host[:port]) allowed to call /mcp, besides
    /// the --public-url origin (repeatable; comma-separated in the
    /// environment variable). Requests without Origin are always accepted.
    #[arg(
        long = "mcp-allowed-origin",
        env = "IPLOOKUP_MCP_ALLOWED_ORIGINS",
        value_delimiter = ',',
        value_name = "ORIGIN"
    )]
    pub mcp_allowed_origins: Vec<String>,
    /// An origin (scheme://host[:port]) of this same service reachable over
    /// IPv4 only (e.g. a name with only an A record): the root page in a
    /// browser shows the visitor's IPv4 address from it, beside the IPv6 one.
    #[arg(long, env = "IPLOOKUP_IPV4_URL", value_name = "URL")]
    pub ipv4_url: Option<String>,
    /// An origin (scheme://host[:port]) of this same service reachable over
    /// IPv6 only (a name with only an AAAA record): see --ipv4-url.
    #[arg(long, env = "IPLOOKUP_IPV6_URL", value_name = "URL")]
    pub ipv6_url: Option<String>,
    #[command(flatten)]
    pub data: DataArgs,
}

#[derive(Debug, Args)]
pub struct LookupArgs {
    /// Addresses to look up (IPv4 dotted or IPv6 colon-hex).
    #[arg(value_name = "ADDR")]
    pub addresses: Vec<String>,
    /// Output: JSON lines (one IpInfo or Error object per line) or CSV (a
    /// header row, then one row per input with the same columns, the last
    /// one `error`).
    #[arg(long, value_enum, default_value_t = OutputFormat::Json)]
    pub format: OutputFormat,
    /// Only these fields, in this order (comma-separated names of IpInfo's
    /// fields, as the CSV header has them: ip, country_code, asn,
    /// organization, ...). CSV: these columns, then `error`. JSON: a flat
    /// object of these members per address (an Error object stays whole).
    #[arg(long, value_name = "FIELD,...", value_delimiter = ',', value_parser = parse_field)]
    pub fields: Vec<Field>,
    #[command(flatten)]
    pub data: DataArgs,
}

/// One `--fields` name, refused with the list of names.
fn parse_field(name: &str) -> Result<Field, String> {
    name.trim().parse::<Field>().map_err(|e| e.to_string())
}

/// `iplookup lookup --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    Json,
    Csv,
}

/// Shortest and longest `--queue-timeout`, in seconds.
pub const QUEUE_TIMEOUT_RANGE: std::ops::RangeInclusive<f64> = 0.001..=60.0;

/// `--queue-timeout`: seconds, fractions allowed, within [`QUEUE_TIMEOUT_RANGE`].
fn parse_queue_timeout(text: &str) -> Result<f64, String> {
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds (e.g. 1 or 0.25)"))?;
    if QUEUE_TIMEOUT_RANGE.contains(&secs) {
        Ok(secs)
    } else {
        Err(format!(
            "{secs} s is out of range: from {} to {} seconds",
            QUEUE_TIMEOUT_RANGE.start(),
            QUEUE_TIMEOUT_RANGE.end()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_timeout_takes_fractional_seconds_within_its_range() {
        assert_eq!(parse_queue_timeout("1"), Ok(1.0));
        assert_eq!(parse_queue_timeout("0.25"), Ok(0.25));
        assert_eq!(parse_queue_timeout("60"), Ok(60.0));
        for bad in ["0", "-1", "0.0001", "61", "inf", "NaN", "1s", ""] {
            let err = parse_queue_timeout(bad).unwrap_err();
            assert!(
                err.contains("out of range") || err.contains("not a number"),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn queue_timeout_flag_has_a_default_and_a_range() {
        let cli = Cli::try_parse_from(["iplookup", "--queue-timeout", "0.5"]).unwrap();
        assert_eq!(cli.serve.queue_timeout, 0.5);
        let cli = Cli::try_parse_from(["iplookup"]).unwrap();
        assert_eq!(cli.serve.queue_timeout, 1.0);
        let err = Cli::try_parse_from(["iplookup", "--queue-timeout", "100"]).unwrap_err();
        assert!(err.to_string().contains("out of range"), "{err}");
    }

    #[test]
    fn batch_limit_flag_has_a_default_and_a_range() {
        let cli = Cli::try_parse_from(["iplookup"]).unwrap();
        assert_eq!(cli.serve.batch_limit, 1000);
        let cli = Cli::try_parse_from(["iplookup", "--batch-limit", "5"]).unwrap();
        assert_eq!(cli.serve.batch_limit, 5);
        for bad in ["0", "100001", "x"] {
            let err = Cli::try_parse_from(["iplookup", "--batch-limit", bad]).unwrap_err();
            assert!(err.to_string().contains("--batch-limit"), "{bad}: {err}");
        }
    }
}
