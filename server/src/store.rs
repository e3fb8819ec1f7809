//! Opening the store the configuration names: once for migrations, purge and probes, and
//! once per HTTP worker for request traffic.

use std::future::Future;

use adapters::api::ServiceStore;
use adapters::mysql::{MysqlConfig, MysqlStore};
use adapters::sqlite::{SqliteConfig, SqliteStore};
use anyhow::Context;
use application::ports::{OperationCensus, OperationStore, OutboxRelayStore, RecordPurger};

use crate::config::DatabaseConfig;

/// Connections of the store that migrates, purges, probes and relays; request traffic goes
/// through each worker's own store.
const ADMIN_CONNECTIONS: usize = 3;

#[derive(Debug, Clone)]
pub(crate) enum AnyStore {
    Mysql(MysqlStore),
    Sqlite(SqliteStore),
}

pub(crate) async fn open_and_migrate(config: &DatabaseConfig) -> anyhow::Result<AnyStore> {
    let store = open(config).await?;
    let applied = match &store {
        AnyStore::Mysql(store) => store.migrate().await.map_err(anyhow::Error::from),
        AnyStore::Sqlite(store) => store.migrate().await.map_err(anyhow::Error::from),
    }
    .context("DATABASE_URL: migrations failed")?;
    if !applied.is_empty() {
        tracing::info!(?applied, "applied migrations");
    }
    Ok(store)
}

pub(crate) async fn open(config: &DatabaseConfig) -> anyhow::Result<AnyStore> {
    match config {
        DatabaseConfig::Mysql(mysql) => {
            let store =
                MysqlStore::open_worker(&MysqlStore::with_connections(mysql, ADMIN_CONNECTIONS))
                    .await?;
            let info = store
                .server_info()
                .await
                .context("DATABASE_URL: the database does not answer")?;
            tracing::info!(
                store = "mysql",
                version = %info.version,
                isolation = %info.isolation,
                lock_wait_timeout_secs = info.lock_wait_timeout_secs,
                "store opened"
            );
            Ok(AnyStore::Mysql(store))
        }
        DatabaseConfig::Sqlite(sqlite) => {
            let store =
                SqliteStore::open_worker(&SqliteStore::with_connections(sqlite, ADMIN_CONNECTIONS))
                    .await?;
            tracing::info!(
                store = "sqlite",
                path = %sqlite.path.display(),
                "store opened (embedded: for local runs, demos and single-node use)"
            );
            Ok(AnyStore::Sqlite(store))
        }
    }
}

/// One connection per capture worker task (each uses one at a time), apart from the
/// administrative store's few.
pub(crate) async fn open_for_capture(
    config: &DatabaseConfig,
    workers: usize,
) -> anyhow::Result<AnyStore> {
    Ok(match config {
        DatabaseConfig::Mysql(mysql) => {
            AnyStore::Mysql(MysqlStore::open_for(mysql, workers).await?)
        }
        DatabaseConfig::Sqlite(sqlite) => {
            AnyStore::Sqlite(SqliteStore::open_for(sqlite, workers).await?)
        }
    })
}

/// A store each HTTP worker, and the capture workers, open for themselves.
pub(crate) trait WorkerStore:
    ServiceStore + RecordPurger + OutboxRelayStore + OperationStore + OperationCensus + Sized
{
    type Config: Clone + Send + 'static;

    /// Opens the store (no migrations) without needing the database to answer now.
    fn open_worker(config: &Self::Config) -> impl Future<Output = anyhow::Result<Self>>;

    fn with_connections(config: &Self::Config, max_connections: usize) -> Self::Config;

    fn connection_budget(config: &Self::Config) -> usize;

    /// Transaction connections kept for batches, `batches` at once (MySQL): only they
    /// prepare the batches' multi-row statements. The embedded store writes on one
    /// connection anyway.
    #[must_use]
    fn with_batch_connections(self, _batches: usize) -> Self {
        self
    }

    /// For `users` that each use one connection at a time (the capture workers).
    fn open_for(config: &Self::Config, users: usize) -> impl Future<Output = anyhow::Result<Self>> {
        let config = Self::with_connections(config, users);
        async move { Self::open_worker(&config).await }
    }
}

impl WorkerStore for MysqlStore {
    type Config = MysqlConfig;

    async fn open_worker(config: &MysqlConfig) -> anyhow::Result<Self> {
        MysqlStore::lazy(config).context("DATABASE_URL: cannot build the connection pool")
    }

    fn with_connections(config: &MysqlConfig, max_connections: usize) -> MysqlConfig {
        MysqlConfig {
            max_connections: max_connections.max(1),
            ..config.clone()
        }
    }

    fn connection_budget(config: &MysqlConfig) -> usize {
        config.max_connections
    }

    fn with_batch_connections(self, batches: usize) -> Self {
        MysqlStore::with_batch_connections(self, batches)
    }
}

impl WorkerStore for SqliteStore {
    type Config = SqliteConfig;

    async fn open_worker(config: &SqliteConfig) -> anyhow::Result<Self> {
        SqliteStore::open(config)
            .await
            .context("DATABASE_URL: cannot open the embedded store")
    }

    fn with_connections(config: &SqliteConfig, max_connections: usize) -> SqliteConfig {
        SqliteConfig {
            max_connections: max_connections.max(1),
            ..config.clone()
        }
    }

    fn connection_budget(config: &SqliteConfig) -> usize {
        config.max_connections
    }
}
