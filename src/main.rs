//! The `iplookup` binary: parses the command line and environment, then
//! serves HTTP or answers one-shot lookups. All the work is in the library.

use std::io::{BufRead, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use ipnet::IpNet;

use iplookup::rdns::RdnsConfig;
use iplookup::server::TlsFiles;
use iplookup::web::Limits;
use iplookup::web::ratelimit::RateLimit;
use iplookup::{ServeConfig, address, lookup, server};

/// Self-hosted IP address lookup: country, ASN, operator and range for any
/// IPv4 or IPv6 address, from an embedded DB-IP Lite snapshot (CC BY 4.0).
///
/// With no subcommand, `iplookup` serves HTTP (same as `iplookup serve`).
#[derive(Debug, Parser)]
#[command(version, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    serve: ServeArgs,
}

// Parsed once at start: the size of the serve variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the HTTP API and pages (the default).
    Serve(ServeArgs),
    /// Look addresses up and print the API's JSON, one object per line.
    ///
    /// With no ADDR, reads one address per line from standard input.
    Lookup(LookupArgs),
    /// Download the current DB-IP Lite release into --data-dir, check it and
    /// install it atomically (a running service reloads it). Exits non-zero,
    /// leaving the installed files alone, when anything is wrong.
    Update(UpdateArgs),
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
}

#[derive(Debug, Args)]
struct DataArgs {
    /// Directory holding newer DB-IP files (dbip-country-lite-YYYY-MM.csv[.gz],
    /// dbip-asn-lite-YYYY-MM.csv[.gz]) to use instead of the embedded data.
    /// A kind of file the directory lacks comes from the embedded data.
    #[arg(long, env = "IPLOOKUP_DATA_DIR", value_name = "DIR")]
    data_dir: Option<PathBuf>,
    /// Skip unreadable rows and trim overlapping ranges instead of refusing the file.
    #[arg(long, env = "IPLOOKUP_SKIP_BAD_ROWS")]
    skip_bad_rows: bool,
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
    /// CIDR block of a reverse proxy whose Forwarded / X-Forwarded-For /
    /// X-Real-IP headers are believed (repeatable; comma-separated in the
    /// environment variable). Headers from other peers are ignored.
    #[arg(
        long = "trusted-proxy",
        env = "IPLOOKUP_TRUSTED_PROXIES",
        value_delimiter = ',',
        value_name = "CIDR"
    )]
    trusted_proxies: Vec<IpNet>,
    /// Seconds to let requests in flight finish after SIGTERM or Ctrl-C.
    #[arg(
        long,
        env = "IPLOOKUP_DRAIN_SECONDS",
        default_value_t = 10,
        value_name = "SECONDS"
    )]
    drain_seconds: u64,
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
    /// answer is still cached when it arrives).
    #[arg(
        long,
        env = "IPLOOKUP_RDNS_TIMEOUT_MS",
        default_value_t = 250,
        value_name = "MS"
    )]
    rdns_timeout_ms: u64,
    /// Reverse DNS answers kept in memory.
    #[arg(
        long,
        env = "IPLOOKUP_RDNS_CACHE_SIZE",
        default_value_t = 100_000,
        value_name = "ENTRIES"
    )]
    rdns_cache_size: u64,
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
    /// Seconds a client may take to send the request headers.
    #[arg(
        long,
        env = "IPLOOKUP_HEADER_TIMEOUT",
        default_value_t = 10,
        value_name = "SECONDS"
    )]
    header_timeout: u64,
    /// Seconds a request may take in all.
    #[arg(
        long,
        env = "IPLOOKUP_REQUEST_TIMEOUT",
        default_value_t = 10,
        value_name = "SECONDS"
    )]
    request_timeout: u64,
    /// Per-caller limit in requests per second (callers as resolved through
    /// trusted proxies; IPv6 callers by /64). Off by default.
    #[arg(long, env = "IPLOOKUP_RATE_LIMIT", value_name = "PER_SECOND")]
    rate_limit: Option<f64>,
    /// Requests a caller may send at once before --rate-limit applies.
    #[arg(
        long,
        env = "IPLOOKUP_RATE_BURST",
        default_value_t = 20,
        value_name = "N"
    )]
    rate_burst: u32,
    /// Connections open at once; further connections are closed on arrival.
    #[arg(
        long,
        env = "IPLOOKUP_MAX_CONNECTIONS",
        default_value_t = 10_000,
        value_name = "N"
    )]
    max_connections: usize,
    /// Connections open at once from one client address (IPv6: per /64;
    /// trusted proxies are exempt); further connections are closed on arrival.
    #[arg(
        long,
        env = "IPLOOKUP_MAX_CONNECTIONS_PER_IP",
        default_value_t = 256,
        value_parser = clap::value_parser!(u64).range(1..=1_000_000),
        value_name = "N"
    )]
    max_connections_per_ip: u64,
    /// Seconds a connection may stay open with no request (HTTP/1.1
    /// keep-alive and HTTP/2 alike; PINGs do not count), then it is closed.
    #[arg(
        long,
        env = "IPLOOKUP_IDLE_TIMEOUT",
        default_value_t = 60,
        value_parser = clap::value_parser!(u64).range(1..=86_400),
        value_name = "SECONDS"
    )]
    idle_timeout: u64,
    /// Requests handled at once; further requests wait.
    #[arg(
        long,
        env = "IPLOOKUP_MAX_IN_FLIGHT",
        default_value_t = 1024,
        value_name = "N"
    )]
    max_in_flight: usize,
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

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Lookup(args)) => run_lookup(args),
        Some(Command::Serve(args)) => run_serve(args),
        Some(Command::Update(args)) => run_update(args),
        None => run_serve(cli.serve),
    }
}

fn run_serve(args: ServeArgs) -> anyhow::Result<()> {
    init_logging(&args.log_format);
    // Before any table is allocated: reloads must hand the old release back.
    iplookup::memory::pin_mmap_threshold();
    let rdns = (!args.no_reverse_dns).then(|| RdnsConfig {
        server: args.dns_server,
        deadline: Duration::from_millis(args.rdns_timeout_ms),
        capacity: args.rdns_cache_size,
    });
    let tls = match (args.tls_cert, args.tls_key) {
        (Some(cert), Some(key)) => Some(TlsFiles { cert, key }),
        _ => None,
    };
    let config = ServeConfig {
        listen: args.listen,
        trusted_proxies: args.trusted_proxies,
        data_dir: args.data.data_dir,
        skip_bad_rows: args.data.skip_bad_rows,
        watch: !args.no_watch,
        drain: Duration::from_secs(args.drain_seconds),
        rdns,
        tls,
        limits: Limits {
            header_timeout: Duration::from_secs(args.header_timeout),
            request_timeout: Duration::from_secs(args.request_timeout),
            max_in_flight: args.max_in_flight.max(1),
            max_connections: args.max_connections.max(1),
            max_connections_per_ip: usize::try_from(args.max_connections_per_ip)
                .unwrap_or(usize::MAX),
            idle_timeout: Duration::from_secs(args.idle_timeout),
            ..Limits::default()
        },
        rate_limit: args
            .rate_limit
            .filter(|r| *r > 0.0)
            .map(|per_second| RateLimit {
                per_second,
                burst: args.rate_burst.max(1),
            }),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(server::serve(config))?;
    Ok(())
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
        min_ratio: 0.8,
        max_ratio: 1.5,
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

fn run_lookup(args: LookupArgs) -> anyhow::Result<()> {
    let db = server::load_database(args.data.data_dir.as_deref(), args.data.skip_bad_rows)?;
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
                let body = iplookup::model::Error::new("invalid_ip", e.to_string());
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
    if failed {
        std::process::exit(1);
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
