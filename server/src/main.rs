//! The order service binary: reads the environment, wires the adapters, runs a command.
//! `anyhow` is used only here, at the edge, to report why a command could not run.

mod cli;
mod commands;
mod config;
mod hooks;
mod provider;
mod signals;
mod store;
mod tasks;
#[cfg(feature = "otel")]
mod telemetry;

use std::io::Write;
use std::process::ExitCode;

/// mimalloc instead of the system allocator: a request makes a few dozen short-lived
/// allocations, and glibc's malloc and free were a tenth of the server's CPU per replay.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::Parser;

use crate::cli::{Cli, Command, ConsumerName};
use crate::config::secret::Secret;
use crate::config::{DatabaseConfig, ServeConfig};
use crate::store::AnyStore;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let lookup = |name: &str| std::env::var_os(name);
    let started = config::logging::LogFormat::from_lookup(&lookup)
        .map_err(anyhow::Error::from)
        .and_then(config::logging::init);
    let _logging = match started {
        Ok(logging) => logging,
        Err(error) => {
            let _ = writeln!(std::io::stderr(), "error: {error:#}");
            return ExitCode::FAILURE;
        }
    };
    let result = match cli.command.unwrap_or(Command::Serve) {
        Command::Token(args) => DatabaseConfig::from_lookup(&lookup)
            .and_then(|database| config::secret::token_keys(&lookup, &database))
            .map_err(anyhow::Error::from)
            .and_then(|secret| match secret {
                Secret::Configured(keys) | Secret::Development(keys) => {
                    commands::token::mint(&keys, &args)
                }
            })
            .and_then(|token| writeln!(std::io::stdout(), "{token}").map_err(anyhow::Error::from)),
        Command::Admin(args) => DatabaseConfig::from_lookup(&lookup)
            .and_then(|database| {
                Ok((
                    database,
                    config::payments::PaymentsConfig::from_lookup(&lookup)?,
                ))
            })
            .map_err(anyhow::Error::from)
            .and_then(|(database, payments)| {
                let retention = payments.key_retention();
                runtime()?.block_on(async {
                    match store::open(&database).await? {
                        AnyStore::Mysql(store) => {
                            commands::admin::run(&store, retention, args).await
                        }
                        AnyStore::Sqlite(store) => {
                            commands::admin::run(&store, retention, args).await
                        }
                    }
                })
            })
            .and_then(|json| {
                let mut out = std::io::stdout();
                out.write_all(&json)
                    .and_then(|()| writeln!(out))
                    .map_err(anyhow::Error::from)
            }),
        Command::Serve => ServeConfig::from_lookup(&lookup)
            .map_err(anyhow::Error::from)
            .and_then(|config| runtime()?.block_on(commands::serve::serve(config))),
        Command::Migrate => DatabaseConfig::from_lookup(&lookup)
            .map_err(anyhow::Error::from)
            .and_then(|config| {
                runtime()?.block_on(async { store::open_and_migrate(&config).await.map(|_| ()) })
            }),
        Command::Purge => DatabaseConfig::from_lookup(&lookup)
            .and_then(|config| Ok((config, config::retention(&lookup)?)))
            .map_err(anyhow::Error::from)
            .and_then(|(config, retention)| {
                runtime()?.block_on(async {
                    match store::open(&config).await? {
                        AnyStore::Mysql(store) => tasks::purge::purge_once(&store, retention).await,
                        AnyStore::Sqlite(store) => {
                            tasks::purge::purge_once(&store, retention).await
                        }
                    }
                    .map(|_| ())
                })
            }),
        Command::Relay => events_command(&lookup, |store, events| async move {
            let url = events.required_url()?.to_owned();
            let stop = signals::stop_on_signal();
            match store {
                AnyStore::Mysql(store) => {
                    tasks::relay::relay_until(store, &url, &events, None, stop).await
                }
                AnyStore::Sqlite(store) => {
                    tasks::relay::relay_until(store, &url, &events, None, stop).await
                }
            }
        }),
        Command::Consume {
            consumer: ConsumerName::Shipments,
        } => events_command(&lookup, |store, events| async move {
            let stop = signals::stop_on_signal();
            match store {
                AnyStore::Mysql(store) => {
                    tasks::consume::consume_shipments(store, &events, stop).await
                }
                AnyStore::Sqlite(store) => {
                    tasks::consume::consume_shipments(store, &events, stop).await
                }
            }
        }),
        Command::Worker => commands::worker::config(&lookup)
            .and_then(|config| runtime()?.block_on(commands::worker::work(config))),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let _ = writeln!(std::io::stderr(), "error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// `relay` and `consume`: both refuse without `NATS_URL` before touching the database.
fn events_command<F, Fut>(lookup: config::Lookup<'_>, command: F) -> anyhow::Result<()>
where
    F: FnOnce(AnyStore, config::events::EventsConfig) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<()>>,
{
    let database = DatabaseConfig::from_lookup(lookup)?;
    let events = config::events::EventsConfig::from_lookup(lookup)?;
    events.required_url()?;
    runtime()?.block_on(async {
        let store = store::open_and_migrate(&database).await?;
        command(store, events).await
    })
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?)
}
