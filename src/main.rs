//! The `iplookup` binary: parses the command line and environment, then
//! serves HTTP or answers one-shot lookups. All the work is in the library.

use std::io::{BufRead, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::{Args, CommandFactory, Parser, Subcommand};
use ipnet::IpNet;

use iplookup::rdns::RdnsConfig;
use iplookup::server::TlsFiles;
use iplookup::web::Limits;
use iplookup::web::client::ClientIpHeader;
use iplookup::web::origin::{PublicUrl, WebOrigin};
use iplookup::web::ratelimit::RateLimit;
use iplookup::{ServeConfig, address, lookup, server};

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
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    serve: ServeArgs,
}

// Parsed once at start: the size of the largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
enum Command {
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
struct UpdateArgs {
    /// Directory to install the release into (the service's --data-dir).
    #[arg(long, env = "IPLOOKUP_DATA_DIR", value_name = "DIR")]
    data_dir: PathBuf,
    /// Where the files are downloaded from (DB-IP file names are appended).
    #[arg(long, env = "IPLOOKUP_UPDATE_BASE_URL", default_value = iplookup::update::DEFAULT_BASE_URL, value_name = "URL")]
    base_url: String,
    /// Also fetch the IP to City Lite database (MMDB, about 130 MB).
    #[arg(long)]
    city: bool,
    /// Month to fetch (YYYY-MM); default: the current month, falling back to the previous one.
    #[arg(long, value_name = "YYYY-MM")]
    month: Option<String>,
    /// The most one download may weigh, in MiB (1-65536); a larger one is refused.
    #[arg(
        long,
        env = "IPLOOKUP_MAX_DOWNLOAD_MIB",
        default_value_t = 512,
        value_parser = clap::value_parser!(u64).range(1..=65536),
        value_name = "MIB"
    )]
    max_download_mib: u64,
    #[command(flatten)]
    policy: PolicyArgs,
}

#[derive(Debug, Args)]
struct DataArgs {
    /// Directory holding newer DB-IP files (dbip-country-lite-YYYY-MM.csv[.gz],
    /// dbip-asn-lite-YYYY-MM.csv[.gz]) to use instead of the embedded data.
    /// A kind of file the directory lacks comes from the embedded data.
    #[arg(long, env = "IPLOOKUP_DATA_DIR", value_name = "DIR")]
    data_dir: Option<PathBuf>,
    #[command(flatten)]
    policy: PolicyArgs,
}

/// The data release rule (README: "Data releases: what is repaired, what is refused").
#[derive(Debug, Args)]
struct PolicyArgs {
    /// Accept a release whatever its share of defective rows (they are still
    /// repaired and counted). By default a file with more than 0.1% defective
    /// rows (and more than 10) is refused.
    #[arg(long, env = "IPLOOKUP_SKIP_BAD_ROWS")]
    skip_bad_rows: bool,
    /// Refuse a release whose row count is outside MIN..MAX times the one it
    /// would replace (at start: the embedded data); "any" turns the check off.
    #[arg(
        long,
        env = "IPLOOKUP_RELEASE_ROW_RATIO",
        default_value = "0.8..1.5",
        value_parser = row_ratio,
        value_name = "MIN..MAX"
    )]
    release_row_ratio: RowRatio,
    /// The most a data file may hold once decompressed (CSV or MMDB), in MiB (1-65536).
    #[arg(
        long,
        env = "IPLOOKUP_MAX_DATA_FILE_MIB",
        default_value_t = 1024,
        value_parser = clap::value_parser!(u64).range(1..=65536),
        value_name = "MIB"
    )]
    max_data_file_mib: u64,
}

/// A `--release-row-ratio` value (`None`: any).
#[derive(Debug, Clone, Copy)]
struct RowRatio(Option<(f64, f64)>);

fn row_ratio(text: &str) -> Result<RowRatio, String> {
    iplookup::geo::policy::parse_row_ratio(text).map(RowRatio)
}

impl PolicyArgs {
    fn policy(&self) -> iplookup::geo::policy::Policy {
        iplookup::geo::policy::Policy {
            max_defect_share: (!self.skip_bad_rows)
                .then_some(iplookup::geo::policy::MAX_DEFECT_SHARE),
            row_ratio: self.release_row_ratio.0,
            max_unpacked_bytes: self.max_data_file_mib << 20,
        }
    }
}

#[derive(Debug, Args)]
struct ServeArgs {
    /// Address and port to listen on.
    #[arg(
        long,
        env = "IPLOOKUP_LISTEN",
        default_value = "127.0.0.1:8080",
        value_name = "ADDR:PORT"
    )]
    listen: SocketAddr,
    /// CIDR block of a reverse proxy whose --client-ip-header is believed
    /// (repeatable; comma-separated in the environment variable). Name only
    /// the proxy's own addresses. Headers from other peers are ignored.
    #[arg(
        long = "trusted-proxy",
        env = "IPLOOKUP_TRUSTED_PROXIES",
        value_delimiter = ',',
        value_name = "CIDR"
    )]
    trusted_proxies: Vec<IpNet>,
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
    client_ip_header: ClientIpHeader,
    /// Seconds to let requests in flight finish after SIGTERM or Ctrl-C (0..=3600).
    #[arg(
        long,
        env = "IPLOOKUP_DRAIN_SECONDS",
        default_value = "10",
        value_parser = bounds::seconds(0..=3600),
        value_name = "SECONDS"
    )]
    drain_seconds: Duration,
    /// Log format.
    #[arg(long, env = "IPLOOKUP_LOG_FORMAT", default_value = "text", value_parser = ["text", "json"])]
    log_format: String,
    /// Do not watch --data-dir for new releases (SIGHUP still reloads).
    #[arg(long, env = "IPLOOKUP_NO_WATCH")]
    no_watch: bool,
    /// Leave network.reverse_dns null instead of asking DNS for PTR records.
    #[arg(long, env = "IPLOOKUP_NO_REVERSE_DNS")]
    no_reverse_dns: bool,
    /// DNS server for reverse lookups (IP:PORT, UDP and TCP); default: the system's resolvers.
    #[arg(long, env = "IPLOOKUP_DNS_SERVER", value_name = "IP:PORT")]
    dns_server: Option<SocketAddr>,
    /// How long a request waits for a PTR answer before answering null (the
    /// answer is still cached when it arrives), 1..=60000.
    #[arg(
        long,
        env = "IPLOOKUP_RDNS_TIMEOUT_MS",
        default_value = "250",
        value_parser = bounds::millis(1..=60_000),
        value_name = "MS"
    )]
    rdns_timeout_ms: Duration,
    /// Reverse DNS answers kept in memory (1..=10000000).
    #[arg(
        long,
        env = "IPLOOKUP_RDNS_CACHE_SIZE",
        default_value = "100000",
        value_parser = bounds::count::<u64>(1..=10_000_000),
        value_name = "ENTRIES"
    )]
    rdns_cache_size: u64,
    /// PTR lookups in flight at once (1..=65536); when all are taken,
    /// network.reverse_dns is null at once and nothing is cached.
    #[arg(
        long,
        env = "IPLOOKUP_RDNS_MAX_IN_FLIGHT",
        default_value_t = iplookup::rdns::DEFAULT_MAX_IN_FLIGHT as u32,
        value_parser = clap::value_parser!(u32).range(1..=65_536),
        value_name = "N"
    )]
    rdns_max_in_flight: u32,
    /// PEM certificate chain: serve HTTPS (HTTP/1.1 and HTTP/2) instead of HTTP.
    /// Reloaded when the file changes.
    #[arg(
        long,
        env = "IPLOOKUP_TLS_CERT",
        value_name = "FILE",
        requires = "tls_key"
    )]
    tls_cert: Option<PathBuf>,
    /// PEM private key for --tls-cert.
    #[arg(
        long,
        env = "IPLOOKUP_TLS_KEY",
        value_name = "FILE",
        requires = "tls_cert"
    )]
    tls_key: Option<PathBuf>,
    /// Seconds a client may take to send the request headers (1..=3600).
    #[arg(
        long,
        env = "IPLOOKUP_HEADER_TIMEOUT",
        default_value = "10",
        value_parser = bounds::seconds(1..=3600),
        value_name = "SECONDS"
    )]
    header_timeout: Duration,
    /// Seconds a request may take in all (1..=3600).
    #[arg(
        long,
        env = "IPLOOKUP_REQUEST_TIMEOUT",
        default_value = "10",
        value_parser = bounds::seconds(1..=3600),
        value_name = "SECONDS"
    )]
    request_timeout: Duration,
    /// Per-caller limit in requests per second, above 0 and at most 1000000
    /// (callers as resolved through trusted proxies; IPv6 callers by /64).
    /// Off when not given.
    #[arg(
        long,
        env = "IPLOOKUP_RATE_LIMIT",
        value_parser = bounds::per_second(1_000_000.0),
        value_name = "PER_SECOND"
    )]
    rate_limit: Option<f64>,
    /// Requests a caller may send at once before --rate-limit applies (1..=1000000).
    #[arg(
        long,
        env = "IPLOOKUP_RATE_BURST",
        default_value = "20",
        value_parser = bounds::count::<u32>(1..=1_000_000),
        value_name = "N"
    )]
    rate_burst: u32,
    /// Connections open at once; further connections are closed on arrival (1..=1000000).
    #[arg(
        long,
        env = "IPLOOKUP_MAX_CONNECTIONS",
        default_value = "10000",
        value_parser = bounds::count::<usize>(1..=1_000_000),
        value_name = "N"
    )]
    max_connections: usize,
    /// Connections open at once from one client address (IPv6: per /64;
    /// trusted proxies are exempt); further connections are closed on arrival.
    #[arg(
        long,
        env = "IPLOOKUP_MAX_CONNECTIONS_PER_IP",
        default_value = "256",
        value_parser = bounds::count::<usize>(1..=1_000_000),
        value_name = "N"
    )]
    max_connections_per_ip: usize,
    /// Seconds a connection may stay open with no request (HTTP/1.1
    /// keep-alive and HTTP/2 alike; PINGs do not count), then it is closed.
    #[arg(
        long,
        env = "IPLOOKUP_IDLE_TIMEOUT",
        default_value = "60",
        value_parser = bounds::seconds(1..=86_400),
        value_name = "SECONDS"
    )]
    idle_timeout: Duration,
    /// Requests handled at once; further requests wait up to --queue-timeout (1..=1000000).
    #[arg(
        long,
        env = "IPLOOKUP_MAX_IN_FLIGHT",
        default_value = "1024",
        value_parser = bounds::count::<usize>(1..=1_000_000),
        value_name = "N"
    )]
    max_in_flight: usize,
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
    queue_timeout: f64,
    /// The URL callers reach the service at (scheme://host[:port], no path):
    /// the base of every absolute link in the description documents, whatever
    /// a request's Host says, and an origin /mcp accepts. Default: built from
    /// each request's Host (those documents then send Vary: Host and
    /// Cache-Control: private).
    #[arg(long, env = "IPLOOKUP_PUBLIC_URL", value_name = "URL")]
    public_url: Option<String>,
    /// A browser origin (scheme://host[:port]) allowed to call /mcp, besides
    /// the --public-url origin (repeatable; comma-separated in the
    /// environment variable). Requests without Origin are always accepted.
    #[arg(
        long = "mcp-allowed-origin",
        env = "IPLOOKUP_MCP_ALLOWED_ORIGINS",
        value_delimiter = ',',
        value_name = "ORIGIN"
    )]
    mcp_allowed_origins: Vec<String>,
    #[command(flatten)]
    data: DataArgs,
}

#[derive(Debug, Args)]
struct LookupArgs {
    /// Addresses to look up (IPv4 dotted or IPv6 colon-hex).
    #[arg(value_name = "ADDR")]
    addresses: Vec<String>,
    #[command(flatten)]
    data: DataArgs,
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(e) => {
            // The same form as returning the error from main: the chain of causes.
            eprintln!("Error: {e:?}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let done = |result: anyhow::Result<()>| result.map(|()| ExitCode::SUCCESS);
    match cli.command {
        Some(Command::Lookup(args)) => run_lookup(args),
        Some(Command::Serve(args)) => done(run_serve(*args)),
        Some(Command::Update(args)) => done(run_update(args)),
        Some(Command::Completions { shell }) => {
            let mut command = Cli::command();
            clap_complete::generate(shell, &mut command, "iplookup", &mut std::io::stdout());
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Man { out_dir }) => done(run_man(out_dir)),
        None => done(run_serve(cli.serve)),
    }
}

fn run_serve(args: ServeArgs) -> anyhow::Result<()> {
    init_logging(&args.log_format);
    // Before any table is allocated: reloads must hand the old release back.
    iplookup::memory::pin_mmap_threshold();
    log_caller_address(&args.trusted_proxies, &args.client_ip_header);
    let rdns = (!args.no_reverse_dns).then_some(RdnsConfig {
        server: args.dns_server,
        deadline: args.rdns_timeout_ms,
        capacity: args.rdns_cache_size,
        max_in_flight: args.rdns_max_in_flight as usize,
    });
    let tls = match (args.tls_cert, args.tls_key) {
        (Some(cert), Some(key)) => Some(TlsFiles { cert, key }),
        _ => None,
    };
    let public_url = args
        .public_url
        .as_deref()
        .map(PublicUrl::parse)
        .transpose()
        .context("--public-url (IPLOOKUP_PUBLIC_URL)")?;
    let mcp_allowed_origins = args
        .mcp_allowed_origins
        .iter()
        .filter(|o| !o.trim().is_empty())
        .map(|o| WebOrigin::parse(o.trim()))
        .collect::<Result<Vec<_>, _>>()
        .context("--mcp-allowed-origin (IPLOOKUP_MCP_ALLOWED_ORIGINS)")?;
    let config = ServeConfig {
        listen: args.listen,
        trusted_proxies: args.trusted_proxies,
        client_ip_header: args.client_ip_header,
        data_dir: args.data.data_dir,
        policy: args.data.policy.policy(),
        watch: !args.no_watch,
        drain: args.drain_seconds,
        rdns,
        tls,
        limits: Limits {
            header_timeout: args.header_timeout,
            request_timeout: args.request_timeout,
            max_in_flight: args.max_in_flight,
            queue_timeout: Duration::from_secs_f64(args.queue_timeout),
            max_connections: args.max_connections,
            max_connections_per_ip: args.max_connections_per_ip,
            idle_timeout: args.idle_timeout,
            ..Limits::default()
        },
        rate_limit: args.rate_limit.map(|per_second| RateLimit {
            per_second,
            burst: args.rate_burst,
        }),
        public_url,
        mcp_allowed_origins,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(server::serve(config))?;
    Ok(())
}

/// Says at start where the caller's address comes from, and warns about
/// settings that let anyone choose it or that do nothing.
fn log_caller_address(proxies: &[IpNet], header: &ClientIpHeader) {
    if proxies.is_empty() {
        if *header != ClientIpHeader::default() {
            tracing::warn!(%header, "--client-ip-header is read only from --trusted-proxy peers, and none is given");
        }
        return;
    }
    if proxies.iter().any(|net| net.prefix_len() == 0) {
        tracing::warn!(
            "--trusted-proxy trusts every address: any client can choose the address it is answered as"
        );
    }
    tracing::info!(?proxies, %header, "the caller's address: the socket peer, or this header of these trusted proxies");
}

/// Shortest and longest `--queue-timeout`, in seconds.
const QUEUE_TIMEOUT_RANGE: std::ops::RangeInclusive<f64> = 0.001..=60.0;

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

fn run_update(args: UpdateArgs) -> anyhow::Result<()> {
    init_logging("text");
    let month = match &args.month {
        Some(m) => Some(
            chrono::NaiveDate::parse_from_str(&format!("{m}-01"), "%Y-%m-%d")
                .with_context(|| format!("--month {m:?} is not YYYY-MM"))?,
        ),
        None => None,
    };
    let config = iplookup::update::UpdateConfig {
        data_dir: args.data_dir,
        base_url: args.base_url,
        city: args.city,
        policy: args.policy.policy(),
        max_download_bytes: args.max_download_mib << 20,
        month,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let installed = runtime
        .block_on(iplookup::update::run(&config))
        .context("update failed")?;
    for file in installed {
        println!("installed {} ({} rows)", file.file, file.rows);
    }
    Ok(())
}

/// Answers each address; exits 1 when any of them was not an address.
fn run_lookup(args: LookupArgs) -> anyhow::Result<ExitCode> {
    // One-shot: the newest file of each kind must pass, or the command fails.
    let embedded = iplookup::GeoDb::embedded()?;
    let db = match &args.data.data_dir {
        Some(dir) => iplookup::geo::load::load_dir(dir, &args.data.policy.policy(), &embedded)?,
        None => embedded,
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut failed = false;
    let mut answer = |text: &str, out: &mut dyn Write| -> anyhow::Result<()> {
        match address::parse(text) {
            Ok(ip) => {
                let info = lookup::describe(&db, ip, chrono::Utc::now());
                writeln!(out, "{}", serde_json::to_string(&info)?)?;
            }
            Err(e) => {
                failed = true;
                let body = iplookup::model::Error::new(
                    iplookup::model::ErrorCode::InvalidIp,
                    e.to_string(),
                );
                writeln!(out, "{}", serde_json::to_string(&body)?)?;
            }
        }
        Ok(())
    };
    if args.addresses.is_empty() {
        for line in std::io::stdin().lock().lines() {
            let line = line.context("cannot read standard input")?;
            let line = line.strip_suffix('\r').unwrap_or(&line);
            if !line.is_empty() {
                answer(line, &mut out)?;
            }
        }
    } else {
        for a in &args.addresses {
            answer(a, &mut out)?;
        }
    }
    out.flush()?;
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Writes the manual pages, generated from the same definitions as `--help`.
fn run_man(out_dir: Option<PathBuf>) -> anyhow::Result<()> {
    let command = Cli::command().name("iplookup");
    match out_dir {
        None => clap_mangen::Man::new(command).render(&mut std::io::stdout())?,
        Some(dir) => {
            std::fs::create_dir_all(&dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            clap_mangen::generate_to(command, &dir)
                .with_context(|| format!("cannot write the pages into {}", dir.display()))?;
        }
    }
    Ok(())
}

fn init_logging(format: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("IPLOOKUP_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    if format == "json" {
        builder.json().init();
    } else {
        builder.init();
    }
}

/// Range checks of the numeric flags. clap runs them as it parses each value
/// (flag or environment variable), so an out-of-range value stops the start
/// with a message naming the flag, e.g. `invalid value '0' for
/// '--request-timeout <SECONDS>': 0 is not a whole number in 1..=3600`.
/// A new numeric flag takes one of these as its `value_parser`, with
/// `default_value = "..."` (a string, parsed by the same check):
///
/// ```text
/// #[arg(long, env = "IPLOOKUP_IDLE_TIMEOUT", default_value = "60",
///       value_parser = bounds::seconds(1..=3600), value_name = "SECONDS")]
/// idle_timeout: Duration,
/// ```
mod bounds {
    use std::ops::RangeInclusive;
    use std::time::Duration;

    /// A check that turns a flag's text into a `T` or says why it cannot
    /// (clap takes any such function as a `value_parser`).
    pub trait Check<T>: Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static {}
    impl<T, F: Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static> Check<T> for F {}

    /// A whole number within `range`, as `T` (`u32`, `u64`, `usize`, ...).
    pub fn count<T: TryFrom<u64>>(range: RangeInclusive<u64>) -> impl Check<T> {
        move |text: &str| {
            text.parse::<u64>()
                .ok()
                .filter(|n| range.contains(n))
                .and_then(|n| T::try_from(n).ok())
                .ok_or_else(|| {
                    format!(
                        "{text} is not a whole number in {}..={}",
                        range.start(),
                        range.end()
                    )
                })
        }
    }

    /// Whole seconds within `range`, as a `Duration`.
    pub fn seconds(range: RangeInclusive<u64>) -> impl Check<Duration> {
        let whole = count::<u64>(range);
        move |text: &str| whole(text).map(Duration::from_secs)
    }

    /// Whole milliseconds within `range`, as a `Duration`.
    pub fn millis(range: RangeInclusive<u64>) -> impl Check<Duration> {
        let whole = count::<u64>(range);
        move |text: &str| whole(text).map(Duration::from_millis)
    }

    /// A rate: a finite number above 0 and at most `max`.
    pub fn per_second(max: f64) -> impl Check<f64> {
        move |text: &str| {
            text.parse::<f64>()
                .ok()
                .filter(|r| r.is_finite() && *r > 0.0 && *r <= max)
                .ok_or_else(|| {
                    format!("{text} is not a number above 0 and at most {max} (leave the flag out for no limit)")
                })
        }
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
}
