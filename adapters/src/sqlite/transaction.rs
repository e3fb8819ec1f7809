//! The unit of work: one pooled connection holding one `BEGIN IMMEDIATE` transaction.

use std::sync::Arc;

use application::ports::{CommitError, StoreError, UnitOfWork};
use diesel_async::SimpleAsyncConnection;
use tracing::Instrument;

use super::classify::store_error;
use super::store::{Connection, PooledConnection, SqliteStore};
use super::writer::Writer;
use crate::sql::tx_connection::{Detach, TxConnection};
use crate::telemetry::statement_span;

/// On the file's one writing connection, taken in turn. Closed, so rolled back, unless
/// it ends cleanly ([`TxConnection`]). `IMMEDIATE` takes the write lock at `BEGIN`: a
/// writer of another process waits there (up to the busy timeout) instead of failing later
/// when a read lock cannot be upgraded.
#[derive(Debug)]
pub struct SqliteTx {
    conn: TxConnection<PooledConnection>,
    writer: Arc<Writer>,
}

impl SqliteTx {
    /// The busy timeout bounds its wait; `statement` names the span.
    pub(crate) async fn run<T, E: From<StoreError>>(
        &mut self,
        statement: &'static str,
        work: impl AsyncFnOnce(&mut Connection, ()) -> Result<T, E>,
    ) -> Result<T, E> {
        work(self.conn.get()?, ())
            .instrument(statement_span("sqlite", statement))
            .await
    }

    /// A failure discards the connection.
    async fn finish(&mut self, statement: &'static str) -> Result<(), StoreError> {
        let Some(mut conn) = self.conn.take() else {
            return Ok(());
        };
        let finished = conn
            .batch_execute(statement)
            .instrument(statement_span("sqlite", statement));
        match finished.await {
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
        let (mut conn, waiting) = self.writer().await?;
        let begun = conn
            .batch_execute("BEGIN IMMEDIATE")
            .instrument(statement_span("sqlite", "begin"))
            .await;
        drop(waiting);
        match begun {
            Ok(()) => Ok(SqliteTx {
                conn: TxConnection::new(conn),
                writer: self.shared_writer(),
            }),
            Err(error) => Err(store_error(error)),
        }
    }
}

impl SqliteTx {
    pub(crate) async fn commit_transaction(mut self) -> Result<(), CommitError> {
        self.finish("COMMIT")
            .await
            .map_err(|_| CommitError::CommitOutcomeUnknown)?;
        self.writer.committed();
        Ok(())
    }

    pub(crate) async fn rollback_transaction(mut self) -> Result<(), StoreError> {
        self.finish("ROLLBACK").await
    }
}
