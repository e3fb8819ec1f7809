//! Embedded SQLite migrations, run on a plain synchronous connection.

use application::BoxError;
use diesel::connection::SimpleConnection;
use diesel::{Connection, ConnectionError, SqliteConnection};
use diesel_migrations::{EmbeddedMigrations, embed_migrations};

use super::store::SqliteStore;
use crate::sql::migrate_through::run_through;

const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../migrations/sqlite");

/// Why the store could not be migrated.
#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    #[error("the database file's path is not UTF-8")]
    PathNotUtf8,
    #[error("cannot open the database file to run migrations")]
    Connect(#[source] ConnectionError),
    #[error("migration failed")]
    Failed(#[source] BoxError),
}

impl SqliteStore {
    /// Runs the pending migrations; none pending changes nothing. SQLite's own write lock
    /// makes concurrent runs take turns.
    pub async fn migrate(&self) -> Result<Vec<String>, MigrateError> {
        self.migrate_through(None).await
    }

    /// [`Self::migrate`], stopping after the migration whose name begins with `last`: for a
    /// test of a migration on the data an older version left.
    pub async fn migrate_through(&self, last: Option<&str>) -> Result<Vec<String>, MigrateError> {
        let last = last.map(str::to_owned);
        let path = self.path().to_owned();
        tokio::task::spawn_blocking(move || {
            let url = path.to_str().ok_or(MigrateError::PathNotUtf8)?;
            let mut conn = SqliteConnection::establish(url).map_err(MigrateError::Connect)?;
            conn.batch_execute("PRAGMA busy_timeout = 10000;")
                .map_err(|e| {
                    MigrateError::Connect(ConnectionError::CouldntSetupConfiguration(e))
                })?;
            run_through(&mut conn, MIGRATIONS, last.as_deref()).map_err(MigrateError::Failed)
        })
        .await
        .map_err(|e| MigrateError::Failed(e.into()))?
    }
}
