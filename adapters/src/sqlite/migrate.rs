//! Embedded SQLite migrations, run on a plain synchronous connection.

use diesel::connection::SimpleConnection;
use diesel::{Connection, SqliteConnection};
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

use super::store::SqliteStore;

const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../migrations/sqlite");

/// Why the store could not be opened or migrated.
#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    #[error("cannot open the database file: {0}")]
    Connect(String),
    #[error("migration failed: {0}")]
    Failed(String),
}

impl SqliteStore {
    /// Runs the pending migrations; none pending changes nothing. SQLite's own write lock
    /// makes concurrent runs take turns.
    pub async fn migrate(&self) -> Result<Vec<String>, MigrateError> {
        let path = self.path().to_owned();
        tokio::task::spawn_blocking(move || {
            let url = path
                .to_str()
                .ok_or_else(|| MigrateError::Connect("the path is not UTF-8".to_owned()))?;
            let mut conn = SqliteConnection::establish(url)
                .map_err(|e| MigrateError::Connect(e.to_string()))?;
            conn.batch_execute("PRAGMA busy_timeout = 10000;")
                .map_err(|e| MigrateError::Connect(e.to_string()))?;
            conn.run_pending_migrations(MIGRATIONS)
                .map(|done| done.iter().map(ToString::to_string).collect())
                .map_err(|e| MigrateError::Failed(e.to_string()))
        })
        .await
        .map_err(|e| MigrateError::Failed(e.to_string()))?
    }
}
