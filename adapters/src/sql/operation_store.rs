//! The worker's port, for both stores. An operation's end and its payment share one
//! transaction, committed only when the fence let it through.

use application::ports::{DueOperation, Ending, OperationStore, StoreError, UnitOfWork};
use chrono::{DateTime, Utc};
use domain::{AttemptError, Generation, Lease};
use uuid::Uuid;

use super::both_stores::for_both_stores;
use super::commit_if::commit_if;
use super::{due_operations, operations};

for_both_stores! {
    impl OperationStore {
        async fn due(
            &self,
            limit: usize,
            now: DateTime<Utc>,
        ) -> Result<Vec<DueOperation>, StoreError> {
            self.with_connection("due operations", async |conn| {
                due_operations::due(conn, limit, now.naive_utc()).await
            })
            .await
        }

        async fn claim(
            &self,
            id: Uuid,
            seen: Generation,
            lease: &Lease,
            now: DateTime<Utc>,
        ) -> Result<bool, StoreError> {
            self.with_connection("operation claim", async |conn| {
                operations::claim(conn, id, seen, lease, now.naive_utc()).await
            })
            .await
        }

        async fn extend(&self, id: Uuid, lease: &Lease) -> Result<bool, StoreError> {
            self.with_connection("lease extension", async |conn| {
                operations::extend(conn, id, lease).await
            })
            .await
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
            let ended = tx
                .run("operation end", async |conn, _| {
                    operations::complete(conn, id, lease, ending, attempts, now.naive_utc()).await
                })
                .await?;
            commit_if(tx, ended).await
        }

        async fn retry_later(
            &self,
            id: Uuid,
            lease: &Lease,
            attempts: u32,
            error: AttemptError,
            next_attempt_at: DateTime<Utc>,
            now: DateTime<Utc>,
        ) -> Result<bool, StoreError> {
            self.with_connection("operation retry", async |conn| {
                operations::retry_later(
                    conn,
                    id,
                    lease,
                    attempts,
                    error,
                    next_attempt_at.naive_utc(),
                    now.naive_utc(),
                )
                .await
            })
            .await
        }
    }
}
