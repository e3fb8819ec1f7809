//! Embedded migrations, run through diesel_migrations over the async connection.

use application::BoxError;
use application::ports::StoreError;
use diesel::connection::SimpleConnection;
use diesel_async::AsyncMysqlConnection;
use diesel_async::async_connection_wrapper::AsyncConnectionWrapper;
use diesel_migrations::{EmbeddedMigrations, embed_migrations};

use super::store::{MysqlStore, PooledConnection};
use crate::sql::migrate_through::run_through;

const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../migrations/mysql");

/// Waits up to 60 s for this database's lock (one name per database).
const TAKE_MIGRATION_LOCK: &str = "DO GET_LOCK(CONCAT('migrations.', DATABASE()), 60)";

/// On Galera the named lock is per node: a run that lost a DDL race to another node fails,
/// and its next run finds what the winner recorded.
const RUNS: u32 = 8;

#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    #[error("cannot connect to run migrations")]
    Connect(#[source] StoreError),
    #[error("migration failed")]
    Failed(#[source] BoxError),
    /// The run's connection is abandoned; the server rolls back what it can when it
    /// closes.
    #[error("migrations did not finish within MIGRATION_TIMEOUT_SECS")]
    TimedOut,
}

impl MysqlStore {
    /// Runs the pending migrations; none pending changes nothing. The harness is
    /// synchronous: it runs on a blocking thread, on a connection taken out of the pool,
    /// after `GET_LOCK` so processes starting at once take turns. The checkout has a
    /// call's deadline, the run the migration one.
    pub async fn migrate(&self) -> Result<Vec<String>, MigrateError> {
        self.migrate_through(None).await
    }

    /// [`Self::migrate`], stopping after the migration whose name begins with `last`: for a
    /// test of a migration on the data an older version left.
    pub async fn migrate_through(&self, last: Option<&str>) -> Result<Vec<String>, MigrateError> {
        let last = last.map(str::to_owned);
        let conn: AsyncMysqlConnection = PooledConnection::take(
            self.connection(self.deadline())
                .await
                .map_err(MigrateError::Connect)?,
        );
        let run = tokio::task::spawn_blocking(move || {
            let mut wrapper = AsyncConnectionWrapper::<AsyncMysqlConnection>::from(conn);
            // Released when this connection closes, right after the migrations.
            wrapper
                .batch_execute(TAKE_MIGRATION_LOCK)
                .map_err(|e| MigrateError::Failed(e.into()))?;
            let mut run = 1;
            loop {
                match run_through(&mut wrapper, MIGRATIONS, last.as_deref()) {
                    Ok(done) => return Ok(done),
                    Err(error) if run >= RUNS => {
                        return Err(MigrateError::Failed(error));
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
            Ok(joined) => joined.map_err(|e| MigrateError::Failed(e.into()))?,
            Err(_elapsed) => Err(MigrateError::TimedOut),
        }
    }
}
