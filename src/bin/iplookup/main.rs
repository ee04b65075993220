//! The `iplookup` binary: parses the command line and environment, then
//! serves HTTP (until SIGTERM or Ctrl-C, whose handlers live here) or
//! answers one-shot lookups. All the work is in the library.

mod args;
mod bounds;
mod logging;
mod lookup;
mod oneshot;
mod serve;

use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use args::{Cli, Command};

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
        Some(Command::Lookup(args)) => lookup::run(args),
        Some(Command::Serve(args)) => done(serve::run_serve(*args, shutdown_signal())),
        Some(Command::Update(args)) => done(oneshot::run_update(args)),
        Some(Command::Completions { shell }) => {
            let mut command = Cli::command();
            clap_complete::generate(shell, &mut command, "iplookup", &mut std::io::stdout());
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Man { out_dir }) => done(oneshot::run_man(out_dir)),
        None => done(serve::run_serve(cli.serve, shutdown_signal())),
    }
}

/// Resolves on SIGTERM or Ctrl-C.
async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}
