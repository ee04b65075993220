//! `iplookup serve`: the parsed flags turned into a [`ServeConfig`], logging,
//! and the runtime that serves until the shutdown future `main` passes.

use std::future::Future;
use std::time::Duration;

use anyhow::Context;
use ipnet::IpNet;

use iplookup::ServeConfig;
use iplookup::config::TlsFiles;
use iplookup::rdns::RdnsConfig;
use iplookup::server;
use iplookup::web::Limits;
use iplookup::web::serve::client::ClientIpHeader;
use iplookup::web::serve::origin::{FamilyOrigins, PublicUrl, WebOrigin};
use iplookup::web::serve::ratelimit::RateLimit;

use crate::args::ServeArgs;

pub fn run_serve(args: ServeArgs, shutdown: impl Future<Output = ()>) -> anyhow::Result<()> {
    crate::logging::init(&args.log_format);
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
    let family = |url: &Option<String>, flag: &str| {
        url.as_deref()
            .filter(|u| !u.trim().is_empty())
            .map(|u| WebOrigin::parse(u.trim()))
            .transpose()
            .with_context(|| flag.to_owned())
    };
    let families = FamilyOrigins {
        v4: family(&args.ipv4_url, "--ipv4-url (IPLOOKUP_IPV4_URL)")?,
        v6: family(&args.ipv6_url, "--ipv6-url (IPLOOKUP_IPV6_URL)")?,
    };
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
        h2c: args.h2c,
        limits: Limits {
            header_timeout: args.header_timeout,
            request_timeout: args.request_timeout,
            max_in_flight: args.max_in_flight,
            max_in_flight_per_ip: args.max_in_flight_per_ip,
            queue_timeout: Duration::from_secs_f64(args.queue_timeout),
            batch_max_in_flight: args.batch_max_in_flight,
            batch_answer_bytes: args
                .batch_answer_mib
                .map(|mib| usize::try_from(mib << 20).unwrap_or(usize::MAX)),
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
        families,
        batch_limit: args.batch_limit,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let served = runtime.block_on(async {
        let mut shutdown = std::pin::pin!(shutdown);
        // Poll the shutdown future once before serving: that installs the
        // signal handlers, so a SIGINT or SIGTERM sent as soon as the service
        // says it listens stops it cleanly instead of killing it.
        if armed(shutdown.as_mut()).await {
            return Ok(());
        }
        server::serve(config, shutdown).await
    });
    // The drain is over: a blocking read still stuck (a file on a hung
    // mount) must not keep the process from ending.
    runtime.shutdown_timeout(Duration::from_millis(100));
    served?;
    Ok(())
}

/// Polls `future` once; whether it is already done.
async fn armed(future: std::pin::Pin<&mut impl Future<Output = ()>>) -> bool {
    let mut future = Some(future);
    std::future::poll_fn(|cx| {
        let done = future.take().is_some_and(|f| f.poll(cx).is_ready());
        std::task::Poll::Ready(done)
    })
    .await
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
