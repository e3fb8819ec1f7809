//! Embedded migrations, run through diesel_migrations over the async connection.

use diesel_async::AsyncMysqlConnection;
use diesel_async::async_connection_wrapper::AsyncConnectionWrapper;
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

use super::store::{MysqlStore, PooledConnection};

const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../migrations/mysql");

/// Why migrating failed.
#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    /// Occurs when no connection could be had.
    #[error("cannot connect to run migrations")]
    Connect,
    /// Occurs when a migration failed.
    #[error("migration failed: {0}")]
    Failed(String),
}

impl MysqlStore {
    /// Runs the pending migrations; with none pending it changes nothing.
    ///
    /// The migration harness is synchronous, so it runs on a blocking thread with a
    /// connection taken out of the pool for good.
    ///
    /// # Errors
    /// [`MigrateError`].
    pub async fn migrate(&self) -> Result<Vec<String>, MigrateError> {
        let conn: AsyncMysqlConnection =
            PooledConnection::take(self.connection().await.map_err(|_| MigrateError::Connect)?);
        tokio::task::spawn_blocking(move || {
            let mut wrapper = AsyncConnectionWrapper::<AsyncMysqlConnection>::from(conn);
            wrapper
                .run_pending_migrations(MIGRATIONS)
                .map(|done| done.iter().map(ToString::to_string).collect())
                .map_err(|e| MigrateError::Failed(e.to_string()))
        })
        .await
        .map_err(|e| MigrateError::Failed(e.to_string()))?
    }
}
