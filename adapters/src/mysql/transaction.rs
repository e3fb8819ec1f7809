//! The unit of work: one pooled connection holding one open transaction.

use application::ports::{
    CommitError, InsertOrderError, InsertRecordError, NewRecord, OrderRepository, RecordTx,
    StoreError, UnitOfWork,
};
use chrono::{DateTime, Utc};
use diesel_async::{AsyncConnection, AsyncMysqlConnection, TransactionManager};
use domain::{Completion, NewOrder, OrderId, RecordId, TenantId};

use super::classify::store_error;
use super::store::{MysqlStore, PooledConnection};
use super::{orders, records};

type Manager = <AsyncMysqlConnection as AsyncConnection>::TransactionManager;

/// An open transaction on a connection of its own.
///
/// When it ends without a clean COMMIT or ROLLBACK (dropped, or either statement failed),
/// the connection is detached from the pool and closed, so the server rolls back and no
/// later caller ever inherits a transaction in an unknown state.
pub struct MysqlTx {
    conn: Option<PooledConnection>,
}

impl std::fmt::Debug for MysqlTx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MysqlTx")
            .field("open", &self.conn.is_some())
            .finish()
    }
}

impl MysqlTx {
    fn conn(&mut self) -> Result<&mut PooledConnection, StoreError> {
        self.conn
            .as_mut()
            .ok_or_else(|| StoreError::Other("transaction already finished".to_owned()))
    }
}

impl Drop for MysqlTx {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            discard(conn);
        }
    }
}

/// Takes the connection out of the pool for good; closing it ends any open transaction.
fn discard(conn: PooledConnection) {
    drop(PooledConnection::take(conn));
}

impl UnitOfWork for MysqlStore {
    type Tx = MysqlTx;

    async fn begin(&self) -> Result<MysqlTx, StoreError> {
        let mut conn = self.connection().await?;
        match Manager::begin_transaction(&mut *conn).await {
            Ok(()) => Ok(MysqlTx { conn: Some(conn) }),
            Err(error) => {
                discard(conn);
                Err(store_error(error))
            }
        }
    }
}

impl RecordTx for MysqlTx {
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
        let Some(mut conn) = self.conn.take() else {
            return Err(CommitError::CommitOutcomeUnknown);
        };
        match Manager::commit_transaction(&mut *conn).await {
            Ok(()) => Ok(()),
            Err(_) => {
                discard(conn);
                Err(CommitError::CommitOutcomeUnknown)
            }
        }
    }

    async fn rollback(mut self) -> Result<(), StoreError> {
        let Some(mut conn) = self.conn.take() else {
            return Ok(());
        };
        match Manager::rollback_transaction(&mut *conn).await {
            Ok(()) => Ok(()),
            Err(error) => {
                discard(conn);
                Err(store_error(error))
            }
        }
    }
}

impl OrderRepository for MysqlTx {
    async fn insert_order(
        &mut self,
        tenant: TenantId,
        order: &NewOrder,
        created_at: DateTime<Utc>,
    ) -> Result<OrderId, InsertOrderError> {
        orders::insert(self.conn()?, tenant, order, created_at).await
    }
}
