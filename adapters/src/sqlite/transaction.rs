//! The unit of work: one pooled connection holding one `BEGIN IMMEDIATE` transaction.

use application::ports::{CommitError, StoreError, UnitOfWork};
use diesel_async::SimpleAsyncConnection;

use super::classify::store_error;
use super::store::{Connection, PooledConnection, SqliteStore};
use crate::sql::tx_connection::{Detach, TxConnection};

/// An open write transaction on a connection of its own ([`TxConnection`]: closed, which
/// rolls it back, unless it ends cleanly).
///
/// `IMMEDIATE` takes the write lock at `BEGIN`: a second writer waits there (up to the
/// busy timeout) instead of failing later when a read lock cannot be upgraded.
#[derive(Debug)]
pub struct SqliteTx {
    conn: TxConnection<PooledConnection>,
}

impl SqliteTx {
    /// Runs one statement of the transaction; the busy timeout bounds its wait, so it
    /// needs no deadline of its own (`statement` is for the same call on MySQL).
    pub(crate) async fn run<T, E: From<StoreError>>(
        &mut self,
        statement: &'static str,
        work: impl AsyncFnOnce(&mut Connection, ()) -> Result<T, E>,
    ) -> Result<T, E> {
        let _ = statement;
        work(self.conn.get()?, ()).await
    }

    /// Runs COMMIT or ROLLBACK; on failure the connection is discarded.
    async fn finish(&mut self, statement: &str) -> Result<(), StoreError> {
        let Some(mut conn) = self.conn.take() else {
            return Ok(());
        };
        match conn.batch_execute(statement).await {
            Ok(()) => Ok(()),
            Err(error) => {
                conn.detach();
                Err(store_error(error))
            }
        }
    }
}

impl UnitOfWork for SqliteStore {
    type Tx = SqliteTx;

    async fn begin(&self) -> Result<SqliteTx, StoreError> {
        let mut conn = self.connection().await?;
        let waiting = self.waiting_writer();
        let begun = conn.batch_execute("BEGIN IMMEDIATE").await;
        drop(waiting);
        match begun {
            Ok(()) => Ok(SqliteTx {
                conn: TxConnection::new(conn),
            }),
            Err(error) => Err(store_error(error)),
        }
    }
}

impl SqliteTx {
    /// Commits; after any failure the connection is discarded.
    pub(crate) async fn commit_transaction(mut self) -> Result<(), CommitError> {
        self.finish("COMMIT")
            .await
            .map_err(|_| CommitError::CommitOutcomeUnknown)
    }

    /// Rolls back; after a failure the connection is discarded.
    pub(crate) async fn rollback_transaction(mut self) -> Result<(), StoreError> {
        self.finish("ROLLBACK").await
    }
}
