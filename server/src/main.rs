//! The order service binary: reads the environment, wires the adapters, runs a command.
//!
//! `anyhow` is used only here, at the edge, to report why a command could not run.

mod cli;
mod config;
mod database_config;
mod logging;
mod purge_task;
mod secret;
mod serve;
mod store;
mod token;
mod try_it;

use std::io::Write;
use std::process::ExitCode;

/// mimalloc instead of the system allocator: a request makes a few dozen short-lived
/// allocations, and glibc's malloc and free were a tenth of the server's CPU per replay.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::Parser;

use crate::cli::{Cli, Command};
use crate::config::{DatabaseConfig, ServeConfig};
use crate::secret::Secret;
use crate::store::AnyStore;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let lookup = |name: &str| std::env::var_os(name);
    let _log_writer = match logging::LogFormat::from_lookup(&lookup) {
        Ok(format) => logging::init(format),
        Err(error) => {
            let _ = writeln!(std::io::stderr(), "error: {error}");
            return ExitCode::FAILURE;
        }
    };
    let result = match cli.command.unwrap_or(Command::Serve) {
        Command::Token(args) => DatabaseConfig::from_lookup(&lookup)
            .and_then(|database| secret::token_keys(&lookup, &database))
            .map_err(anyhow::Error::from)
            .and_then(|secret| match secret {
                Secret::Configured(keys) | Secret::Development(keys) => token::mint(&keys, &args),
            })
            .and_then(|token| writeln!(std::io::stdout(), "{token}").map_err(anyhow::Error::from)),
        Command::Serve => ServeConfig::from_lookup(&lookup)
            .map_err(anyhow::Error::from)
            .and_then(|config| runtime()?.block_on(serve::serve(config))),
        Command::Migrate => DatabaseConfig::from_lookup(&lookup)
            .map_err(anyhow::Error::from)
            .and_then(|config| {
                runtime()?.block_on(async { store::open_and_migrate(&config).await.map(|_| ()) })
            }),
        Command::Purge => DatabaseConfig::from_lookup(&lookup)
            .map_err(anyhow::Error::from)
            .and_then(|config| {
                runtime()?.block_on(async {
                    match store::open(&config).await? {
                        AnyStore::Mysql(store) => purge_task::purge_once(&store).await,
                        AnyStore::Sqlite(store) => purge_task::purge_once(&store).await,
                    }
                    .map(|_| ())
                })
            }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let _ = writeln!(std::io::stderr(), "error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// The runtime that owns the database pool and runs every idempotent execution.
fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?)
}
