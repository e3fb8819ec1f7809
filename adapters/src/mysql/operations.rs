//! The worker's side of the operations table on MySQL: each read and conditional write
//! on a pooled connection under the call's deadline; the end of an operation (and its
//! payment row) in one transaction that commits only when the fence let it through.

use application::ports::{DueOperation, Ending, OperationStore, RecordTx, StoreError};
use chrono::{DateTime, Utc};
use domain::{Generation, Lease};
use uuid::Uuid;

use super::deadline::bounded;
use super::store::{MysqlStore, release};
use crate::sql::{due_operations, operations};

impl OperationStore for MysqlStore {
    async fn due(&self, limit: usize, now: DateTime<Utc>) -> Result<Vec<DueOperation>, StoreError> {
        let deadline = self.deadline();
        let mut conn = self.connection(deadline).await?;
        let found = bounded(
            deadline,
            "due operations",
            due_operations::due(&mut *conn, limit, now.naive_utc()),
        )
        .await;
        release(conn, &found);
        found
    }

    async fn claim(
        &self,
        id: Uuid,
        seen: Generation,
        lease: &Lease,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let deadline = self.deadline();
        let mut conn = self.connection(deadline).await?;
        let claimed = bounded(
            deadline,
            "operation claim",
            operations::claim(&mut *conn, id, seen, lease, now.naive_utc()),
        )
        .await;
        release(conn, &claimed);
        claimed
    }

    async fn extend(&self, id: Uuid, lease: &Lease) -> Result<bool, StoreError> {
        let deadline = self.deadline();
        let mut conn = self.connection(deadline).await?;
        let extended = bounded(
            deadline,
            "lease extension",
            operations::extend(&mut *conn, id, lease),
        )
        .await;
        release(conn, &extended);
        extended
    }

    async fn complete(
        &self,
        id: Uuid,
        lease: &Lease,
        ending: &Ending,
        attempts: u32,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let mut tx = self.begin_with(None).await?;
        let deadline = tx.deadline();
        let ended = bounded(
            deadline,
            "operation end",
            operations::complete(tx.conn()?, id, lease, ending, attempts, now.naive_utc()),
        )
        .await;
        match tx.settle(ended)? {
            true => tx
                .commit()
                .await
                .map(|()| true)
                .map_err(|_| StoreError::ConnectionLost),
            false => tx.rollback().await.map(|()| false),
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
        let deadline = self.deadline();
        let mut conn = self.connection(deadline).await?;
        let scheduled = bounded(
            deadline,
            "operation retry",
            operations::retry_later(
                &mut *conn,
                id,
                lease,
                attempts,
                next_attempt_at.naive_utc(),
                now.naive_utc(),
            ),
        )
        .await;
        release(conn, &scheduled);
        scheduled
    }
}
