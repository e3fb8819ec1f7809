//! Opening the store the configuration names, migrated.

use adapters::mysql::{MysqlConfig, MysqlStore};
use anyhow::Context;

use crate::config::DatabaseConfig;

/// Connects, logs what it connected to, and applies pending migrations.
pub(crate) async fn connect_and_migrate(config: &DatabaseConfig) -> anyhow::Result<MysqlStore> {
    let store = connect(config).await?;
    let applied = store
        .migrate()
        .await
        .context("DATABASE_URL: migrations failed")?;
    if !applied.is_empty() {
        tracing::info!(?applied, "applied migrations");
    }
    Ok(store)
}

/// Connects and logs the server version, isolation level and lock wait.
pub(crate) async fn connect(config: &DatabaseConfig) -> anyhow::Result<MysqlStore> {
    let store = MysqlStore::connect(&MysqlConfig {
        url: config.url.clone(),
        lock_wait_timeout_secs: config.lock_wait_timeout_secs,
        max_connections: config.max_connections,
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
        "connected"
    );
    Ok(store)
}
