//! The unit of work: one pooled connection holding one open transaction.

use application::ports::{CommitError, StoreError, UnitOfWork};
use diesel_async::{AsyncMysqlConnection, SimpleAsyncConnection};
use tokio::time::{Instant, timeout_at};
use tracing::Instrument;

use super::classify::{commit_error, store_error};
use super::deadline::{bounded, timed_out};
use super::insert_id::InsertIds;
use super::store::{MysqlStore, PooledConnection};
use crate::sql::tx_connection::{Finished, TxConnection};
use crate::telemetry::statement_span;

/// A connection of the pool whose sessions have autocommit off: the transaction began
/// with its first statement. Closed unless it ends cleanly ([`TxConnection`]); a statement
/// past its deadline closes it at once, so nothing more is sent on it.
#[derive(Debug)]
pub struct MysqlTx {
    conn: TxConnection<PooledConnection>,
    /// Its deadlines, insert ids and span names, and where its creates take their orders'
    /// ids from.
    store: MysqlStore,
}

impl MysqlTx {
    /// One statement under its own deadline (`statement` names it in the log); past it
    /// the connection goes at once, so the rollback that follows sends nothing.
    pub(crate) async fn run<T, E: From<StoreError>>(
        &mut self,
        statement: &'static str,
        work: impl AsyncFnOnce(&mut AsyncMysqlConnection, InsertIds) -> Result<T, E>,
    ) -> Result<T, E> {
        let deadline = Instant::now() + self.store.database_timeout();
        let ids = self.store.insert_ids();
        let answered = timeout_at(deadline, work(self.conn.get()?, ids))
            .instrument(statement_span(self.store.system(), statement))
            .await;
        match answered {
            Ok(result) => result,
            Err(_elapsed) => {
                self.conn.discard();
                Err(timed_out(statement).into())
            }
        }
    }
}

impl MysqlTx {
    /// From the process's block (`docs/storage.md#order-ids`): no statement on this
    /// transaction, and none at all unless a new block is reserved.
    pub(crate) async fn order_ids(&mut self, count: usize) -> Result<Vec<u64>, StoreError> {
        self.store.order_ids(count).await
    }
}

impl UnitOfWork for MysqlStore {
    type Tx = MysqlTx;

    async fn begin(&self) -> Result<MysqlTx, StoreError> {
        self.begin_with(None, false).await
    }

    async fn begin_batch(&self) -> Result<MysqlTx, StoreError> {
        self.begin_with(None, true).await
    }
}

impl MysqlStore {
    /// Sends nothing but `setup` (`SET TRANSACTION ...`, for the transaction its first
    /// statement will begin): the session has autocommit off, so no `BEGIN` is needed.
    pub(super) async fn begin_with(
        &self,
        setup: Option<&str>,
        for_batch: bool,
    ) -> Result<MysqlTx, StoreError> {
        let deadline = self.deadline();
        let mut conn = TxConnection::new(self.transaction_connection(deadline, for_batch).await?);
        if let Some(setup) = setup {
            let span = statement_span(self.system(), "transaction setup");
            let session = conn.get()?;
            let set = bounded(deadline, "transaction setup", async {
                session.batch_execute(setup).await.map_err(store_error)
            });
            // Dropped, or failed, the connection is closed with `conn`.
            set.instrument(span).await?;
        }
        Ok(MysqlTx {
            conn,
            store: self.clone(),
        })
    }
}

impl MysqlTx {
    /// Any failure discards the connection. It goes back to the pool only once `COMMIT`
    /// answered: dropped while waiting (a client that hung up), it is closed with its
    /// transaction, never pooled with the answer still unread.
    pub(crate) async fn commit_transaction(mut self) -> Result<(), CommitError> {
        let Ok(conn) = self.conn.get() else {
            return Err(CommitError::CommitOutcomeUnknown(Box::new(Finished)));
        };
        let deadline = Instant::now() + self.store.database_timeout();
        let committed = timeout_at(deadline, conn.batch_execute("COMMIT"))
            .instrument(statement_span(self.store.system(), "commit"));
        match committed.await {
            Ok(Ok(())) => {
                self.conn.give_back();
                Ok(())
            }
            Ok(Err(error)) => {
                // After a 1213 the session is outside any transaction: a COMMIT sent anyway
                // would answer OK and commit nothing.
                self.conn.discard();
                Err(commit_error(error))
            }
            Err(_elapsed) => {
                self.conn.discard();
                Err(CommitError::CommitOutcomeUnknown(Box::new(timed_out(
                    "commit",
                ))))
            }
        }
    }

    /// A failure discards the connection; as for the commit, it is pooled only once
    /// `ROLLBACK` answered.
    pub(crate) async fn rollback_transaction(mut self) -> Result<(), StoreError> {
        let Ok(conn) = self.conn.get() else {
            return Ok(());
        };
        let deadline = Instant::now() + self.store.database_timeout();
        let rolled_back = bounded(deadline, "rollback", async {
            conn.batch_execute("ROLLBACK").await.map_err(store_error)
        });
        match rolled_back.await {
            Ok(()) => {
                self.conn.give_back();
                Ok(())
            }
            Err(error) => {
                self.conn.discard();
                Err(error)
            }
        }
    }
}
