//! The unit of work: one pooled connection holding one `BEGIN IMMEDIATE` transaction.

use std::sync::Arc;
use std::time::Duration;

use application::ports::{CommitError, StoreError, UnitOfWork};
use diesel_async::{RunQueryDsl, SimpleAsyncConnection};
use tokio::time::Instant;
use tracing::Instrument;

use super::classify::store_error;
use super::lane::Connection;
use super::store::{PooledConnection, SqliteStore};
use super::writer::Writer;
use crate::sql::tx_connection::TxConnection;
use crate::telemetry::statement_span;

#[derive(diesel::QueryableByName)]
struct HighestId {
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::BigInt>)]
    id: Option<i64>,
}

/// On the file's one writing connection, taken in turn. Closed, so rolled back, unless
/// it ends cleanly ([`TxConnection`]). `IMMEDIATE` takes the write lock at `BEGIN`: a
/// lock held by another connection is waited for there (up to the lock wait, see
/// `begin_immediate`) instead of failing later when a read lock cannot be upgraded.
#[derive(Debug)]
pub struct SqliteTx {
    conn: TxConnection<PooledConnection>,
    writer: Arc<Writer>,
}

impl SqliteTx {
    /// Holding the write lock, its statements wait for nothing (`lane.rs`); `statement`
    /// names the span.
    pub(crate) async fn run<T, E: From<StoreError>>(
        &mut self,
        statement: &'static str,
        work: impl AsyncFnOnce(&mut Connection, ()) -> Result<T, E>,
    ) -> Result<T, E> {
        work(self.conn.get()?, ())
            .instrument(statement_span("sqlite", statement))
            .await
    }

    /// Above every order written (`docs/storage.md#order-ids`): this transaction holds
    /// the file's write lock, so no other can write one before it commits.
    pub(crate) async fn order_ids(&mut self, count: usize) -> Result<Vec<u64>, StoreError> {
        let highest = self
            .run("order id reservation", async |conn, ()| {
                diesel::sql_query("SELECT MAX(id) AS id FROM orders")
                    .get_result::<HighestId>(conn)
                    .await
                    .map_err(store_error)
            })
            .await?;
        let above = highest
            .id
            .map_or(Ok(0), u64::try_from)
            .map_err(|error| StoreError::Other(error.into()))?;
        let count = u64::try_from(count).map_err(|error| StoreError::Other(error.into()))?;
        Ok((above + 1..=above + count).collect())
    }

    /// A failure discards the connection; it is pooled only once `statement` answered.
    async fn finish(&mut self, statement: &'static str) -> Result<(), StoreError> {
        let Ok(conn) = self.conn.get() else {
            return Ok(());
        };
        let finished = conn
            .batch_execute(statement)
            .instrument(statement_span("sqlite", statement));
        match finished.await {
            Ok(()) => {
                self.conn.give_back();
                Ok(())
            }
            Err(error) => {
                self.conn.discard();
                Err(store_error(error))
            }
        }
    }
}

impl UnitOfWork for SqliteStore {
    type Tx = SqliteTx;

    async fn begin(&self) -> Result<SqliteTx, StoreError> {
        let (conn, waiting) = self.writer().await?;
        // Guarded from the `BEGIN` on: a request dropped while it runs (its statement
        // finishes on SQLite's thread all the same) closes the connection, so the writer is
        // never pooled inside a transaction no one holds.
        let mut conn = TxConnection::new(conn);
        let begun = begin_immediate(conn.get()?, self.busy_timeout())
            .instrument(statement_span("sqlite", "begin"))
            .await;
        drop(waiting);
        if let Err(error) = begun {
            // No transaction began: the connection is sound.
            conn.give_back();
            return Err(error);
        }
        Ok(SqliteTx {
            conn,
            writer: self.shared_writer(),
        })
    }
}

/// The writer's busy timeout is zero, so a write lock held elsewhere fails `BEGIN` at once:
/// by another process (the admin command, a second server on the file) or by this one's
/// background writes on other connections (purge batches, the relay's marks). It is tried
/// again, asleep, with SQLite's own backoff, until the lock wait runs out.
async fn begin_immediate(conn: &mut Connection, lock_wait: Duration) -> Result<(), StoreError> {
    let deadline = Instant::now() + lock_wait;
    let mut pause = Duration::from_millis(1);
    loop {
        let error = match conn.batch_execute("BEGIN IMMEDIATE").await {
            Ok(()) => return Ok(()),
            Err(error) => store_error(error),
        };
        let left = deadline.saturating_duration_since(Instant::now());
        if !matches!(error, StoreError::LockWaitTimeout) || left.is_zero() {
            return Err(error);
        }
        tokio::time::sleep(pause.min(left)).await;
        pause = (pause * 2).min(MAX_PAUSE);
    }
}

/// SQLite's busy handler sleeps at most this long between tries, too.
const MAX_PAUSE: Duration = Duration::from_millis(100);

impl SqliteTx {
    pub(crate) async fn commit_transaction(mut self) -> Result<(), CommitError> {
        self.finish("COMMIT")
            .await
            .map_err(|error| CommitError::CommitOutcomeUnknown(Box::new(error)))?;
        self.writer.committed();
        Ok(())
    }

    pub(crate) async fn rollback_transaction(mut self) -> Result<(), StoreError> {
        self.finish("ROLLBACK").await
    }
}
