//! The one-shot subcommands `update` (install a new data release) and `man`
//! (the manual pages); `lookup` has its own module.

use std::path::PathBuf;

use anyhow::Context;
use clap::CommandFactory;

use crate::args::{Cli, UpdateArgs};

pub fn run_update(args: UpdateArgs) -> anyhow::Result<()> {
    crate::logging::init("text");
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
        stall_timeout: args.stall_timeout,
        any_redirect: args.any_redirect,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    // SIGTERM (a timer's stop, `timeout`) or SIGINT ends the run by
    // dropping it, which removes its temporary files; nothing is installed.
    let outcome = runtime.block_on(async {
        tokio::select! {
            // The signal handlers first, before the run's first long step.
            biased;
            () = stopped() => None,
            result = iplookup::update::run(&config) => Some(result),
        }
    });
    // A check still reading on its blocking thread must not hold the exit.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    let Some(result) = outcome else {
        anyhow::bail!("update stopped by a signal; nothing installed, its temporary files removed");
    };
    let outcome = result.context("update failed")?;
    for file in &outcome.installed {
        println!("installed {} ({} rows)", file.file, file.rows);
    }
    println!("as the release unit releases/{}", outcome.unit);
    let s = &outcome.serving;
    println!("serving release {}:", s.tag());
    for (table, info) in [
        ("country", Some(&s.country)),
        ("asn", Some(&s.asn)),
        ("city", s.city.as_ref()),
    ] {
        if let Some(info) = info {
            println!(
                "  {table}: {} ({}, {} rows)",
                info.file, info.date, info.rows
            );
        }
    }
    for (file, serving) in outcome.not_serving() {
        println!(
            "note: {} was installed but does not serve: {} is newer in the data directory",
            file.file, serving.file
        );
    }
    Ok(())
}

/// Resolves on SIGTERM or SIGINT (waits for ever where they cannot be heard).
async fn stopped() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) {
            (Ok(mut term), Ok(mut int)) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = int.recv() => {}
                }
            }
            _ => std::future::pending().await,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Writes the manual pages, generated from the same definitions as `--help`.
pub fn run_man(out_dir: Option<PathBuf>) -> anyhow::Result<()> {
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
