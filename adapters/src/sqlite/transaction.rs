//! The unit of work: one pooled connection holding one `BEGIN IMMEDIATE` transaction.

use application::ports::{
    CommitError, InsertOrderError, InsertRecordError, NewRecord, OrderRepository, RecordTx,
    StoreError, UnitOfWork,
};
use chrono::{DateTime, Utc};
use diesel_async::SimpleAsyncConnection;
use domain::{Completion, NewOrder, OrderId, RecordId, TenantId};

use super::classify::store_error;
use super::store::{PooledConnection, SqliteStore};
use super::{orders, records};

/// An open write transaction on a connection of its own.
///
/// `IMMEDIATE` takes the write lock at `BEGIN`: a second writer waits there (up to the
/// busy timeout) instead of failing later when a read lock cannot be upgraded. When the
/// transaction ends without a clean COMMIT or ROLLBACK, the connection is closed, which
/// rolls it back, and never returns to the pool.
pub struct SqliteTx {
    conn: Option<PooledConnection>,
}

impl std::fmt::Debug for SqliteTx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteTx")
            .field("open", &self.conn.is_some())
            .finish()
    }
}

impl SqliteTx {
    fn conn(&mut self) -> Result<&mut PooledConnection, StoreError> {
        self.conn
            .as_mut()
            .ok_or_else(|| StoreError::Other("transaction already finished".to_owned()))
    }

    /// Runs COMMIT or ROLLBACK; on failure the connection is discarded.
    async fn finish(&mut self, statement: &str) -> Result<(), StoreError> {
        let Some(mut conn) = self.conn.take() else {
            return Ok(());
        };
        match conn.batch_execute(statement).await {
            Ok(()) => Ok(()),
            Err(error) => {
                discard(conn);
                Err(store_error(error))
            }
        }
    }
}

impl Drop for SqliteTx {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            discard(conn);
        }
    }
}

fn discard(conn: PooledConnection) {
    drop(PooledConnection::take(conn));
}

impl UnitOfWork for SqliteStore {
    type Tx = SqliteTx;

    async fn begin(&self) -> Result<SqliteTx, StoreError> {
        let mut conn = self.connection().await?;
        let waiting = self.waiting_writer();
        let begun = conn.batch_execute("BEGIN IMMEDIATE").await;
        drop(waiting);
        match begun {
            Ok(()) => Ok(SqliteTx { conn: Some(conn) }),
            Err(error) => Err(store_error(error)),
        }
    }
}

impl RecordTx for SqliteTx {
    async fn insert_processing(
        &mut self,
        record: &NewRecord,
    ) -> Result<RecordId, InsertRecordError> {
        records::insert_processing(self.conn()?, record).await
    }

    async fn complete(&mut self, id: RecordId, completion: &Completion) -> Result<u64, StoreError> {
        records::complete(self.conn()?, id, completion).await
    }

    async fn commit(mut self) -> Result<(), CommitError> {
        self.finish("COMMIT")
            .await
            .map_err(|_| CommitError::CommitOutcomeUnknown)
    }

    async fn rollback(mut self) -> Result<(), StoreError> {
        self.finish("ROLLBACK").await
    }
}

impl OrderRepository for SqliteTx {
    async fn insert_order(
        &mut self,
        tenant: TenantId,
        order: &NewOrder,
        created_at: DateTime<Utc>,
    ) -> Result<OrderId, InsertOrderError> {
        orders::insert(self.conn()?, tenant, order, created_at).await
    }
}
