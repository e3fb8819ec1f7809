//! `server worker`: migrate, then carry out payment captures until SIGTERM or Ctrl-C.
//! There is no HTTP listener, hence no `/metrics`: what the workers do is logged.

use crate::config::events::EventsConfig;
use crate::config::payments::PaymentsConfig;
use crate::config::{DatabaseConfig, Lookup};
use crate::provider::required_provider;
use crate::signals::stop_on_signal;
use crate::store::{AnyStore, open_and_migrate, open_for_capture};
use crate::tasks::workers::run_workers;

#[derive(Debug)]
pub(crate) struct WorkerConfig {
    database: DatabaseConfig,
    payments: PaymentsConfig,
    /// For its test-only pause directory, which every flow of the process shares.
    events: EventsConfig,
}

/// Refuses without `PAYMENT_PROVIDER_URL` before any database is touched.
pub(crate) fn config(lookup: Lookup<'_>) -> anyhow::Result<WorkerConfig> {
    let database = DatabaseConfig::from_lookup(lookup)?;
    let payments = PaymentsConfig::from_lookup(lookup)?;
    payments.required_url()?;
    let events = EventsConfig::from_lookup(lookup)?;
    Ok(WorkerConfig {
        database,
        payments,
        events,
    })
}

pub(crate) async fn work(config: WorkerConfig) -> anyhow::Result<()> {
    let provider = required_provider(&config.payments)?;
    config.events.warn_if_test_hooks();
    // The migrating store's few connections are not the workers': they get their own.
    drop(open_and_migrate(&config.database).await?);
    let store = open_for_capture(&config.database, config.payments.concurrency).await?;
    let hooks = config.events.hooks();
    let stop = stop_on_signal();
    match store {
        AnyStore::Mysql(store) => {
            run_workers(store, provider, hooks, &config.payments, None, stop).await
        }
        AnyStore::Sqlite(store) => {
            run_workers(store, provider, hooks, &config.payments, None, stop).await
        }
    }
}
