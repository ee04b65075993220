//! The one-shot subcommands: `lookup` (addresses to JSON lines), `update`
//! (install a new data release) and `man` (the manual pages).

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::CommandFactory;

use iplookup::{address, lookup};

use crate::args::{Cli, LookupArgs, UpdateArgs};

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
pub fn run_lookup(args: LookupArgs) -> anyhow::Result<ExitCode> {
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
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
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
