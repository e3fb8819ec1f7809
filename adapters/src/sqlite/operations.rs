//! The worker's side of the operations table on SQLite: the writes that end an operation
//! in one `BEGIN IMMEDIATE` transaction, the rest as single statements.

use application::ports::{DueOperation, Ending, OperationStore, RecordTx, StoreError, UnitOfWork};
use chrono::{DateTime, Utc};
use domain::{Generation, Lease};
use uuid::Uuid;

use super::store::SqliteStore;
use crate::sql::{due_operations, operations};

impl OperationStore for SqliteStore {
    async fn due(&self, limit: usize, now: DateTime<Utc>) -> Result<Vec<DueOperation>, StoreError> {
        let mut conn = self.connection().await?;
        due_operations::due(&mut *conn, limit, now.naive_utc()).await
    }

    async fn claim(
        &self,
        id: Uuid,
        seen: Generation,
        lease: &Lease,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let mut conn = self.connection().await?;
        operations::claim(&mut *conn, id, seen, lease, now.naive_utc()).await
    }

    async fn extend(&self, id: Uuid, lease: &Lease) -> Result<bool, StoreError> {
        let mut conn = self.connection().await?;
        operations::extend(&mut *conn, id, lease).await
    }

    async fn complete(
        &self,
        id: Uuid,
        lease: &Lease,
        ending: &Ending,
        attempts: u32,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let mut tx = self.begin().await?;
        if operations::complete(tx.conn()?, id, lease, ending, attempts, now.naive_utc()).await? {
            tx.commit()
                .await
                .map(|()| true)
                .map_err(|_| StoreError::ConnectionLost)
        } else {
            tx.rollback().await.map(|()| false)
        }
    }

    async fn retry_later(
        &self,
        id: Uuid,
        lease: &Lease,
        attempts: u32,
        next_attempt_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let mut conn = self.connection().await?;
        operations::retry_later(
            &mut *conn,
            id,
            lease,
            attempts,
            next_attempt_at.naive_utc(),
            now.naive_utc(),
        )
        .await
    }
}
