//! Opening the store the configuration names, migrated.

use adapters::mysql::{MysqlConfig, MysqlStore};
use adapters::sqlite::{SqliteConfig, SqliteStore};
use anyhow::Context;

use crate::config::DatabaseConfig;

/// One of the stores; every command works with either.
#[derive(Debug, Clone)]
pub(crate) enum AnyStore {
    Mysql(MysqlStore),
    Sqlite(SqliteStore),
}

/// Opens the store and applies pending migrations.
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

/// Opens the store and logs which one runs.
pub(crate) async fn open(config: &DatabaseConfig) -> anyhow::Result<AnyStore> {
    match config {
        DatabaseConfig::Mysql {
            url,
            lock_wait_timeout_secs,
            max_connections,
        } => {
            let store = MysqlStore::connect(&MysqlConfig {
                url: url.clone(),
                lock_wait_timeout_secs: *lock_wait_timeout_secs,
                max_connections: *max_connections,
            })
            .await
            .context("DATABASE_URL: cannot connect")?;
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
        DatabaseConfig::Sqlite {
            path,
            busy_timeout,
            max_connections,
        } => {
            let store = SqliteStore::open(&SqliteConfig {
                path: path.clone(),
                busy_timeout: *busy_timeout,
                max_connections: *max_connections,
            })
            .await
            .context("DATABASE_URL: cannot open the embedded store")?;
            tracing::info!(
                store = "sqlite",
                path = %path.display(),
                "store opened (embedded: for local runs, demos and single-node use)"
            );
            Ok(AnyStore::Sqlite(store))
        }
    }
}
