//! Embedded migrations, run through diesel_migrations over the async connection.

use diesel::connection::SimpleConnection;
use diesel_async::AsyncMysqlConnection;
use diesel_async::async_connection_wrapper::AsyncConnectionWrapper;
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

use super::store::{MysqlStore, PooledConnection};

const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../migrations/mysql");

/// Waits up to 60 s for this database's migration lock (one name per database).
const TAKE_MIGRATION_LOCK: &str = "DO GET_LOCK(CONCAT('migrations.', DATABASE()), 60)";

/// How often a migration run that failed is tried again. On a Galera cluster the named
/// lock is per node, so processes on different nodes can migrate at once: each DDL is
/// applied cluster-wide in one order, one of them wins, and the other's same statement
/// fails ("already exists"). Its next run finds what the winner recorded and carries on.
const RUNS: u32 = 8;

/// Why migrating failed.
#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    /// Occurs when no connection could be had.
    #[error("cannot connect to run migrations")]
    Connect,
    /// Occurs when a migration failed.
    #[error("migration failed: {0}")]
    Failed(String),
    /// Occurs when the migrations did not finish within `MIGRATION_TIMEOUT_SECS`; their
    /// connection is abandoned (the server rolls back what it can when it closes).
    #[error("migrations did not finish within MIGRATION_TIMEOUT_SECS")]
    TimedOut,
}

impl MysqlStore {
    /// Runs the pending migrations; with none pending it changes nothing.
    ///
    /// The migration harness is synchronous, so it runs on a blocking thread with a
    /// connection taken out of the pool for good. Several processes starting at once on
    /// one database take turns through a named server lock (`GET_LOCK`), so only the
    /// first applies a migration and the others find nothing pending. On a Galera cluster
    /// that lock holds only among processes on one node: a run that lost a race to another
    /// node is tried again (up to 8 runs, pausing a little longer each time) and then finds
    /// the winner's migrations applied.
    ///
    /// The checkout has the deadline of any database call; the run itself has the long
    /// one of migrations.
    ///
    /// # Errors
    /// [`MigrateError`].
    pub async fn migrate(&self) -> Result<Vec<String>, MigrateError> {
        let conn: AsyncMysqlConnection = PooledConnection::take(
            self.connection(self.deadline())
                .await
                .map_err(|_| MigrateError::Connect)?,
        );
        let run = tokio::task::spawn_blocking(move || {
            let mut wrapper = AsyncConnectionWrapper::<AsyncMysqlConnection>::from(conn);
            // Released when this connection closes, right after the migrations.
            wrapper
                .batch_execute(TAKE_MIGRATION_LOCK)
                .map_err(|e| MigrateError::Failed(e.to_string()))?;
            let mut run = 1;
            loop {
                match wrapper.run_pending_migrations(MIGRATIONS) {
                    Ok(done) => return Ok(done.iter().map(ToString::to_string).collect()),
                    Err(error) if run >= RUNS => {
                        return Err(MigrateError::Failed(error.to_string()));
                    }
                    Err(_) => {
                        // A blocking thread of its own: sleeping here holds no runtime.
                        std::thread::sleep(std::time::Duration::from_millis(100 * u64::from(run)));
                        run += 1;
                    }
                }
            }
        });
        match tokio::time::timeout(self.migration_timeout(), run).await {
            Ok(joined) => joined.map_err(|e| MigrateError::Failed(e.to_string()))?,
            Err(_elapsed) => Err(MigrateError::TimedOut),
        }
    }
}
